/*
 * cli.h -- shared pieces of the mmnc command-line tool.  cli/ is the only
 * code that prints to the user or calls exit().
 *
 * Exit status: 0 success, 1 failure (bad input, I/O, no convergence),
 * 2 usage error (unknown option, bad option value).
 */
#ifndef MMNC_CLI_H
#define MMNC_CLI_H

#include <getopt.h>
#include <stdio.h>
#include "mmnc.h"

#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

/* A macro's value as a string literal, for the help texts, which print the
 * defaults of mmnc.h's table as written there: CLI_STR(MMNC_DEFAULT_K) is "2". */
#define CLI_STR_(x) #x
#define CLI_STR(x) CLI_STR_(x)

/* Subcommands: each gets argv with argv[0] = the subcommand name. */
int cmd_cluster(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_cooc(int argc, char **argv);
int cmd_docs(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_generate(int argc, char **argv);
int cmd_embed(int argc, char **argv);
int cmd_msr(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_predict(int argc, char **argv);

/* "mmnc <cmd>: message\n" on stderr; returns CLI_EXIT_FAIL. */
int cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Same, followed by "Try 'mmnc <cmd> --help'."; returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Report a library error, without the C API's names its hints give beside
 * the command-line forms; returns CLI_EXIT_FAIL. */
int cli_lib_fail(const char *cmd, const mmnc_err *err);

/* Strict number parsing of option values: the whole string must parse (an
 * integer in decimal digits; a number as mmnc_number_parse reads it: decimal,
 * in any locale, not hexadecimal, inf or nan) and lie in [min, max].  On
 * failure print a usage error naming the option and the value and return
 * nonzero. */
int cli_parse_int(const char *cmd, const char *opt, const char *s, long long min, long long max,
                  long long *out);
int cli_parse_double(const char *cmd, const char *opt, const char *s, double min, double max,
                     double *out);

/* --algorithm (information | nuclear | frobenius | 3 | 2 | 1) and --init (random | kmeans++ |
 * spectral) values; print a usage error and return nonzero on a bad one. */
int cli_parse_algorithm(const char *cmd, const char *s, int *alg);
int cli_parse_init(const char *cmd, const char *s, int *init);
/* --select: "predictive" or "objective" (mmnc_select). */
int cli_parse_select(const char *cmd, const char *s, int *select);
/* "random", "kmeans++" or "spectral". */
const char *cli_init_name(int init);
/* "nuclear", "frobenius" or "information". */
const char *cli_algorithm_name(int algorithm);
/* "chosen", "each" or "none" (mmnc_refine). */
const char *cli_refine_name(int refine);
/* "auto", "batch" or "sequential" (mmnc_moves). */
const char *cli_moves_name(int moves);
/* "objective" or "predictive" (mmnc_select). */
const char *cli_select_name(int select);
/* The out-of-sample rule of a model (src/model/model.c): "dmm" (the
 * Dirichlet mixture's posterior), "information", "nuclear" or "channel"
 * (Algorithm 1's). */
const char *cli_model_rule(const mmnc_model *m);
/* The start with the highest predictive information (predictive selection). */
int cli_best_score(const mmnc_result *res);
/* The JSON lines "selection": {...}, of a result, each ending with ",\n". */
void cli_json_selection(FILE *fp, const mmnc_result *res, double tol);

/* The output prefix of a command that writes PREFIX.<ext> files: -o's
 * value (prefix_arg), or DATA's base name without its extensions when
 * there is none; a value that ends in '/', is "." or "..", or names an
 * existing directory is a directory, where the files get DATA's base name
 * (as cp puts a file into a directory).  *out is malloc'd.  0 or
 * an exit status (message printed).  The files are then checked and
 * written as a cli_outset. */
int cli_output_prefix(const char *cmd, const char *prefix_arg, const char *data_path, char **out);

/*
 * The output files of a run, all of them or none (cli/outset.c), as rsync
 * and git write theirs.  Before any work: cli_outset_input names each file
 * the run reads and cli_outset_add each one it writes (at most 8), then
 * cli_outset_check (collective) refuses, with a usage error, an output that
 * is an input (the same file, or the same name) or another output of the
 * run, and makes in each directory of outputs a staging directory
 * ".mmnc-XXXXXX", so that a place that cannot be written is found at once
 * (exit 1).  The run writes each output to cli_outset_path (in the staging
 * directory, under the output's own base name: rank 0 only; NULL
 * elsewhere), with mmnc_outfile or the library's writers.  cli_outset_commit
 * (rank 0) then, holding an advisory lock (flock) on each directory of
 * outputs, so that two runs never interleave their files, and with the
 * signals held off (cli_tmp_hold), renames every file into place and
 * removes the staging directories: a SIGINT, SIGTERM or SIGHUP leaves all
 * of the run's outputs or none of them (and an earlier run's intact).
 * cli_outset_free removes whatever an uncommitted set staged; so does a
 * signal (cli_tmp_name).  Temporary names never grow with the outputs'
 * (the staging directory's is 12 bytes; the library's, mmnc_outfile_tmp_path).
 */
typedef struct cli_outset cli_outset;
/* cli_outset_add flags: CLI_OUT_SIDE, a file that the writer of another
 * output may leave out (the ".rows" and ".cols" of mmnc_data_write_mtx);
 * when it does, an earlier file of that name is removed with the renames,
 * since it would name the rows or columns of a matrix it does not belong to. */
#define CLI_OUT_SIDE 1
/* NULL when out of memory. */
cli_outset *cli_outset_new(const char *cmd);
/* what: how the help names it ("DATA", "--names"); path may be NULL or "-"
 * (not a file: ignored); kept, not copied, like what. */
void cli_outset_input(cli_outset *s, const char *path, const char *what);
/* what: the option or the name pattern ("--save-model", "PREFIX.json");
 * path kept, not copied, like what; NULL for a file not written this time
 * (it keeps its index).  The output's index (0, 1, ...). */
int cli_outset_add(cli_outset *s, const char *path, const char *what, int flags);
int cli_outset_check(cli_outset *s);
const char *cli_outset_path(const cli_outset *s, int i);
int cli_outset_commit(cli_outset *s);
void cli_outset_free(cli_outset *s);
/* cli_lib_fail with an output's staged path in the message replaced by
 * the output's own. */
int cli_outset_lib_fail(const cli_outset *s, const mmnc_err *err);

/* A display name from a names file (--names, --row-names): with keyed
 * names, the entry whose numeric id is `id`; else the entry at the
 * original 0-based index orig.  NULL when there is none. */
const char *cli_lookup_name(char **names, mmnc_int n, int keyed, const char *id, mmnc_int orig);
/* The display name of row y (column x) of d: its entry in the row (column)
 * names file when there is one (rn/cn may be NULL), else its id
 * (mmnc_data_row_id / mmnc_data_col_id, into buf of 32 bytes), or the id
 * cli_namer_fill made distinct from the names. */
typedef struct cli_namer {
    const mmnc_data *d;
    char **rn, **cn;  /* --row-names, --names (NULL: none) */
    mmnc_int nr, nc;  /* their lengths */
    int keyed;        /* --names-keyed */
    char **rfill, **cfill; /* cli_namer_fill's ids, per row (column) of d; NULL: none */
} cli_namer;
const char *cli_row_label(const cli_namer *nm, mmnc_int y, char *buf);
const char *cli_col_label(const cli_namer *nm, mmnc_int x, char *buf);
/* A keyed names file may leave rows (columns, when `cols`) of nm->d
 * without a name: those are known by their ids, and an id can be a name
 * that the file gives another row ("4|3" names id 4 '3' while row 3 has no
 * name).  Such an id is written ID#2 (ID#3, ... the first that is neither
 * a name of the file nor the id of a row of nm->d, as mmnc_names_unique
 * numbers repeats), so that the ids of the outputs, --labels and --truth
 * stay distinct; the names themselves keep their text.  Rank 0 says so in
 * one warning naming the file (path; NULL: no warning) and the first such
 * id.  In mmnc-mpi each rank does this for its rows, against the ids of
 * every rank's rows (cli_strs_agree gives each rank the job's IDs written
 * so, cli_masks_or says which ID#k some rank holds), so that the ids are
 * one process's on any number of ranks; and the warning counts the rows of
 * every rank and names the first of them (cli_warn_agree).  Collective for
 * the rows when path is given.  Nothing to do unless nm->keyed and the file
 * is given.  Free with cli_namer_free_fill.  O(n log n) for the names and
 * rows, and O(m log n) on each rank for the job's m such rows.  0 or an
 * exit status. */
int cli_namer_fill(const char *cmd, cli_namer *nm, int cols, const char *path);
void cli_namer_free_fill(cli_namer *nm);
/* A names file whose names serve as ids in the outputs and in the files
 * matched against them (--names, --row-names and their defaults DATA.cols,
 * DATA.rows, DATA.vocab; --labels, --save-model and predict's columns),
 * read with mmnc_names_read (*names: free with mmnc_names_free(*n, *names)).
 * Unless keyed, and when `what` ("columns" or "rows") is given, it must name
 * every one of the `want` columns (rows) as read: fewer names would mix
 * names and ids in the outputs (an error); more are warned about.  The
 * names used (the first `want`; every one when keyed) are then made
 * distinct (mmnc_names_unique: the second NAME is NAME#2, ...), which rank 0
 * says, when `warn`, in one warning naming the first repeat and its lines
 * (ids when keyed).  0 or an exit status (*names NULL). */
int cli_names_read(const char *cmd, const char *path, int keyed, mmnc_int want, const char *what, int warn,
                   mmnc_int *n, char ***names);

/* Temporary files on SIGINT, SIGTERM and SIGHUP.  cli_tmp_watch(path)
 * registers the temporary file of the library's atomic outputs
 * (mmnc_outfile_tmp_path: known before the file is made; unlinking a name
 * that was never created is harmless); cli_tmp_name registers a name as
 * it is (a file, or with dir an empty directory, removed after the files).
 * Both install, once, a handler that removes every registered name and
 * re-raises the signal (async-signal-safe: unlink, rmdir, sigaction, raise
 * only).  A signal that was ignored when the handler would be installed
 * stays ignored.  At most 40 names; cli_tmp_forget() drops them all.
 * Between cli_tmp_hold() and cli_tmp_release() a signal is held off, on
 * every thread, and delivered by cli_tmp_release: what runs between (the
 * renames of a cli_outset) is never cut in the middle. */
void cli_tmp_watch(const char *path);
void cli_tmp_name(const char *name, int dir);
void cli_tmp_forget(void);
void cli_tmp_hold(void);
void cli_tmp_release(void);

/* Write a JSON string literal (with escapes, valid UTF-8 assumed) to fp. */
void cli_json_string(FILE *fp, const char *s);
/* Every number the CLI writes into JSON goes through cli_json_number: v
 * with `digits` significant digits (%.*g; CLI_JSON_EXACT of them read back
 * as the same double), or null when v is NaN or infinite, for which JSON
 * has no number (a bare nan or inf would make the whole file unreadable). */
#define CLI_JSON_EXACT 17
void cli_json_number(FILE *fp, double v, int digits);
/* "[v[0], v[1], ...]": n numbers, each written by cli_json_number. */
void cli_json_numbers(FILE *fp, const double *v, mmnc_int n, int digits);
/* s as one field of a TSV line: a tab, newline or CR in it written as the
 * two characters \t, \n, \r (a name from a quoted CSV field may hold them). */
void cli_tsv_field(FILE *fp, const char *s);

/* FNV-1a of s[0..n) with its high bits folded into the low ones: the
 * CLI's one string hash (the tool's hash tables). */
uint64_t cli_hash(const char *s, size_t n);
/* 1 if s ends with suffix. */
int cli_ends_with(const char *s, const char *suffix);
/* 3 if text buf[0..len) starts with the UTF-8 byte-order mark EF BB BF, else
 * 0: the CLI's own text readers skip it, as the library's do. */
size_t cli_bom_len(const char *buf, size_t len);
/* Wall-clock seconds since an arbitrary origin (for the timings the
 * commands report). */
double cli_now(void);

/* The vocabulary that `mmnc cooc -o OUT` writes beside OUT: OUT with .bin,
 * .mtx or .mtx.gz replaced by .vocab (else OUT.vocab).  NULL when out of
 * memory; free with mmnc_free. */
char *cli_vocab_path(const char *out);

/* Progress on stderr for long runs, as people know it from other tools.
 * On a terminal (isatty(stderr)) one status line, redrawn in place with \r
 * (cut to the terminal's width) at most 10 times a second, and cleared by
 * cli_progress_end; off a terminal (a pipe, a file, CI) the status goes
 * out as a plain line at most once every 10 s, the first after 10 s.
 * cli_progress_log writes a line that stays, in both cases (the status
 * line redrawn below it).  Every line begins with the elapsed time,
 * "[  12.3s] ".  Nothing at all when quiet. */
typedef struct cli_progress {
    double t0, last;
    int quiet;
    int tty;       /* stderr is a terminal */
    int width;     /* tty: the status line's width at most */
    int shown;     /* tty: the status line is on screen */
    char line[256]; /* the status line last drawn */
} cli_progress;
void cli_progress_start(cli_progress *p, int quiet);
void cli_progress_say(cli_progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_progress_log(cli_progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_progress_end(cli_progress *p);
/* s seconds as "12s", "3m05s" or "1h02m", into buf of 24 bytes; returns buf. */
const char *cli_duration(double s, char *buf);

/* Options that say how to read a data file, shared by cluster and info. */
typedef struct cli_load {
    mmnc_load_opts lo; /* mmnc_data_load's */
    int low_memory;    /* --low-memory: the pmf without P^T (cli_load_pmf) */
} cli_load;

void cli_load_default(cli_load *l);

/* The load options' entries for a struct option array: each has the value
 * CLI_OPT_LOAD, to be handed to cli_load_option by name. */
#define CLI_OPT_LOAD 0x4000
#define CLI_LOAD_OPTIONS                                                                                  \
    {"format", required_argument, 0, CLI_OPT_LOAD}, {"row-field", required_argument, 0, CLI_OPT_LOAD},   \
        {"col-field", required_argument, 0, CLI_OPT_LOAD}, {"value-field", required_argument, 0, CLI_OPT_LOAD}, \
        {"delim", required_argument, 0, CLI_OPT_LOAD}, {"mat-var", required_argument, 0, CLI_OPT_LOAD},  \
        {"transpose", no_argument, 0, CLI_OPT_LOAD}, {"map", required_argument, 0, CLI_OPT_LOAD},        \
        {"normalize-rows", no_argument, 0, CLI_OPT_LOAD}, {"low-memory", no_argument, 0, CLI_OPT_LOAD}, \
        {"extra-fields", required_argument, 0, CLI_OPT_LOAD}, {"header", no_argument, 0, CLI_OPT_LOAD},  \
        {"no-header", no_argument, 0, CLI_OPT_LOAD}, {"first-column", required_argument, 0, CLI_OPT_LOAD}
/* If opt (a long option name without dashes) is a load option, apply its
 * value and return 1; return 0 if not a load option; -1 on a bad value
 * (message printed). */
int cli_load_option(const char *cmd, cli_load *l, const char *opt, const char *val);
/* The getopt results every command handles alike: ':' (an option without
 * its value), the load options (CLI_OPT_LOAD, when load is not NULL; opts
 * and longidx as getopt_long left them) and anything else (an unknown
 * option).  Returns 0 when c was applied, else the exit status to return
 * (the message is printed). */
int cli_other_option(const char *cmd, int c, char **argv, cli_load *load, const struct option *opts,
                     int longidx);
/* Flags for mmnc_pmf_build_ex of the matrix A: always take A's arrays; no
 * transposed copy with --low-memory, or when it would take more than half
 * of the memory available (said on stderr unless quiet). */
int cli_pmf_flags(const char *cmd, const cli_load *l, const mmnc_csr *A, int quiet);
/* Help text for the load options. */
void cli_load_help(FILE *fp);
/* The side file DATA.rows or DATA.cols (ext) of a Matrix Market DATA
 * (written by mmnc docs and mmnc convert: line i names row i), if it
 * exists (free with mmnc_free); else NULL.  cluster and predict take them
 * as the names of the rows and columns unless names are given. */
char *cli_side_file(const char *data, const char *ext);
/* The vocabulary `mmnc cooc` wrote beside DATA: DATA with .mtx, .mtx.gz or
 * .bin replaced by .vocab (cli_vocab_path), if that file exists (free with
 * mmnc_free); else NULL.  Line i names word i, a row and a column alike of
 * the square word x word matrix: embed takes it as the row names, cluster
 * as the row and column names, unless names are given. */
char *cli_cooc_vocab(const char *data);
/* A failure of mmnc_data_load on path, reported for a shell user: text
 * (words, not numbers) gets a pointer to mmnc docs and mmnc cooc, and the
 * library's hints lose their C names.  Returns CLI_EXIT_FAIL. */
int cli_load_fail(const char *cmd, const char *path, const cli_load *l, const mmnc_err *err);
/* Read and transform (a directory is refused with a pointer to mmnc
 * docs); prints what was dropped to stderr unless quiet.
 * Returns 0 or an exit status. */
int cli_load_data(const char *cmd, const char *path, const cli_load *l, int quiet, mmnc_data **out,
                  mmnc_int *rows_dropped, mmnc_int *cols_dropped);

/*
 * Processes: the plain mmnc is one process (cli/single.c); mmnc-mpi, built
 * with MMNC_MPI, is one of the ranks of an MPI job holding a part of the
 * rows (cli/mpi.c).  The commands call these so that one source serves both.
 */
int cli_rank(void);   /* 0 in the plain build */
int cli_nranks(void); /* 1 in the plain build */
/* The library's collectives over the job's ranks (mmnc_mpi_dist); NULL in
 * the plain build. */
const mmnc_dist *cli_dist(void);
/* Load DATA as cli_load_data does and build its pmf: the whole in one
 * process, this rank's rows in mmnc-mpi (dropped counts are global).  d
 * keeps the ids (values dropped).  Returns 0 or an exit status. */
int cli_load_pmf(const char *cmd, const char *path, const cli_load *l, int quiet, mmnc_data **d, mmnc_pmf **p,
                 mmnc_int *rows_dropped, mmnc_int *cols_dropped);
/* Nonzeros of the whole matrix (all ranks). */
mmnc_int cli_nnz_all(const mmnc_pmf *p);
/* Every rank's len bytes at buf, in rank order, written to fp on rank 0
 * (fp ignored elsewhere).  Collective.  0, or an exit status (message
 * printed) on a write error on rank 0. */
int cli_write_parts(const char *cmd, FILE *fp, const char *buf, size_t len);
/* Rank 0: *all = the labels of all rows (its own copy, free()); elsewhere
 * *all = NULL.  Collective.  0 or an exit status. */
int cli_gather_labels(const char *cmd, const mmnc_pmf *p, const mmnc_int *label, mmnc_int **all);
/* Rank 0: *all = every rank's rows of the |Y| x width row-major block X (in
 * row order, malloc'd); elsewhere NULL.  Collective.  (mmnc-mpi only.) */
int cli_gather_rows(const char *cmd, const mmnc_pmf *p, const double *X, mmnc_int width, double **all);
/* Rank 0: *all = the original index of every row (d's row_orig, gathered);
 * elsewhere NULL.  Collective.  (mmnc-mpi only.) */
int cli_gather_orig(const char *cmd, const mmnc_pmf *p, const mmnc_data *d, mmnc_int **all);
/* Reference labels for all rows, on rank 0 (*truth NULL elsewhere), read
 * by cli_truth_labels with the rows known as --labels knows them (the
 * names of the outputs, cli_row_view: an "id label" TRUTH names rows as
 * PREFIX.labels.tsv does); collective.  In mmnc-mpi the rows are known by
 * number and by --row-names (the data's own row names are not gathered),
 * as cli_fixed_read knows them.  0 or an exit status. */
int cli_truth_read(const char *cmd, const char *path, const char *var, const cli_namer *nm, const mmnc_pmf *p,
                   mmnc_int **truth, mmnc_int *nclasses);
/* --truth (cli/cmd_eval.c): the labels of the rows of d (mmnc_labels_read;
 * *truth: free with mmnc_free), which must be `want`, and the items of an
 * "id label" TRUTH that name no row of d, which the library passes over,
 * said on stderr as `mmnc eval` says the items without a prediction: how
 * many, and the first ids (the file read again, as mmnc eval reads it).
 * A TRUTH that cannot be read twice (standard input "-", a pipe, a FIFO) is
 * read once, into a temporary copy that both reads take.  The other kinds
 * of TRUTH (a label for every row) need no check.  0 or an exit status. */
int cli_truth_labels(const char *cmd, const char *path, const char *var, const mmnc_data *d, mmnc_int want,
                     mmnc_int **truth, mmnc_int *nclasses);
/* --labels: the given clusters of the rows (mmnc_fixed_labels_read), the
 * rows known by their labels in the outputs (cli_row_label: --row-names
 * where given).  *mine: this process's rows (mmnc_params.fixed_label);
 * *all: every row, on rank 0 (NULL elsewhere; both malloc'd); *given, *dropped: the rows
 * labelled, the labelled ids of rows dropped as empty (skipped).  In
 * mmnc-mpi rank 0 reads the file against every row's number (row names of
 * the data are not gathered; --row-names are).  Collective; 0 or an exit
 * status. */
int cli_fixed_read(const char *cmd, const char *path, const cli_namer *nm, const mmnc_pmf *p, mmnc_int k,
                   mmnc_int **mine, mmnc_int **all, mmnc_int *given, mmnc_int *dropped);
/* *view: nm->d with its rows named as cli_row_label names them in the
 * outputs (--row-names where given; *rn the names, NULL when there are none
 * and *view is nm->d as it is), for the files whose ids are the outputs'
 * (--labels, --truth).  Free with cli_row_view_free(view, *rn) (NULL is
 * fine).  0 or an exit status. */
int cli_row_view(const char *cmd, const cli_namer *nm, mmnc_data *view, char ***rn);
void cli_row_view_free(const mmnc_data *view, char **rn);
/* mmnc_fixed_labels_read against nm->d with the rows named as cli_row_label
 * names them (load.c; cli_fixed_read's reading); *out malloc'd.  0 or an
 * exit status. */
int cli_fixed_read_named(const char *cmd, const char *path, const cli_namer *nm, mmnc_int k, mmnc_int **out,
                         mmnc_int *given, mmnc_int *dropped);
/* This rank's seconds in the library's collectives and the bytes it has
 * summed across ranks so far (0 in one process). */
void cli_comm_stats(double *seconds, double *summed_bytes);
/* The worst exit status over all ranks (collective; rc in one process). */
int cli_agree(int rc);
/* A warning about some of the rows, which rank 0 says for the job: n of
 * this rank's rows, the first one's two strings a and b and a number v.
 * cli_warn_agree sums n over the ranks (on every rank), and gives rank 0
 * the example of the first rank, in row order, with n > 0 (a and b then
 * point into *buf, malloc'd; else *buf = NULL).  Returns the worst of the
 * ranks' rc, as cli_agree.  Collective; in one process ex and rc as they
 * are. */
typedef struct cli_warn_example {
    mmnc_int n, v;
    const char *a, *b;
} cli_warn_example;
int cli_warn_agree(int rc, cli_warn_example *ex, char **buf);
/* Every rank's strings, where one rank's must be checked against the rows
 * of every rank: mine is this rank's (len bytes of NUL-terminated strings
 * one after another); *all, malloc'd, *nall bytes, every rank's in rank
 * order, this rank's from byte *at.  Returns the worst of the ranks' rc, as
 * cli_agree, with *all NULL unless CLI_EXIT_OK.  Collective; in one process
 * *all a copy of mine. */
int cli_strs_agree(const char *cmd, int rc, const char *mine, size_t len, char **all, size_t *nall, size_t *at);
/* m[i] |= m[i] of every rank, for i < n (collective; nothing in one process). */
void cli_masks_or(uint64_t *m, mmnc_int n);
/* Rows of a table that every rank writes (labels, soft kernel): in one
 * process straight into out; with MPI into memory, then cli_part_write
 * sends them to rank 0, which appends every rank's part to out in rank
 * order.  cli_part_close frees what is left (after an error). */
typedef struct cli_part {
    FILE *fp;
    char *buf;
    size_t len;
    int mem;
} cli_part;
int cli_part_open(const char *cmd, cli_part *part, FILE *out);
int cli_part_write(const char *cmd, cli_part *part, FILE *out);
void cli_part_close(cli_part *part);

#endif
