/*
 * load.c -- the data-reading options shared by the commands that read a data file, and the
 * getopt cases every command shares.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

void cli_load_default(cli_load *l)
{
    memset(l, 0, sizeof *l);
    mmnc_load_opts_default(&l->lo);
}

int cli_load_option(const char *cmd, cli_load *l, const char *opt, const char *val)
{
    long long v;
    if (!strcmp(opt, "format")) {
        if (!strcmp(val, "auto")) l->lo.read.format = MMNC_FMT_AUTO;
        else if (!strcmp(val, "mtx")) l->lo.read.format = MMNC_FMT_MTX;
        else if (!strcmp(val, "triplet")) l->lo.read.format = MMNC_FMT_TRIPLET;
        else if (!strcmp(val, "libsvm")) l->lo.read.format = MMNC_FMT_LIBSVM;
        else if (!strcmp(val, "mat")) l->lo.read.format = MMNC_FMT_MAT;
        else if (!strcmp(val, "bin")) l->lo.read.format = MMNC_FMT_BIN;
        else if (!strcmp(val, "dense")) l->lo.read.format = MMNC_FMT_DENSE;
        else {
            cli_usage_error(cmd, "--format: expected auto, mtx, triplet, libsvm, mat, bin or dense, got '%s'", val);
            return -1;
        }
        return 1;
    }
    if (!strcmp(opt, "row-field") || !strcmp(opt, "col-field") || !strcmp(opt, "value-field")) {
        char name[32];
        snprintf(name, sizeof name, "--%s", opt);
        if (cli_parse_int(cmd, name, val, opt[0] == 'v' ? 0 : 1, 1000, &v)) return -1;
        if (opt[0] == 'r') l->lo.read.row_field = (int)v;
        else if (opt[0] == 'c') l->lo.read.col_field = (int)v;
        else l->lo.read.value_field = (int)v;
        return 1;
    }
    if (!strcmp(opt, "delim")) {
        if (!strcmp(val, "tab") || !strcmp(val, "\\t")) l->lo.read.delim = '\t';
        else if (!strcmp(val, "space") || !strcmp(val, "whitespace")) l->lo.read.delim = 0;
        else if (strlen(val) == 1) l->lo.read.delim = val[0];
        else {
            cli_usage_error(cmd, "--delim: expected one character, 'tab' or 'whitespace', got '%s'", val);
            return -1;
        }
        return 1;
    }
    if (!strcmp(opt, "extra-fields")) {
        if (!strcmp(val, "error")) l->lo.read.extra_fields = 0;
        else if (!strcmp(val, "ignore")) l->lo.read.extra_fields = 1;
        else {
            cli_usage_error(cmd, "--extra-fields: expected error or ignore, got '%s'", val);
            return -1;
        }
        return 1;
    }
    if (!strcmp(opt, "mat-var")) {
        l->lo.read.mat_var = val;
        return 1;
    }
    if (!strcmp(opt, "map")) {
        if (!strcmp(val, "none")) l->lo.map = MMNC_MAP_NONE;
        else if (!strcmp(val, "binary")) l->lo.map = MMNC_MAP_BINARY;
        else if (!strcmp(val, "log1p")) l->lo.map = MMNC_MAP_LOG1P;
        else if (!strcmp(val, "rating3")) l->lo.map = MMNC_MAP_RATING3;
        else {
            cli_usage_error(cmd, "--map: expected none, binary, log1p or rating3, got '%s'", val);
            return -1;
        }
        return 1;
    }
    if (!strcmp(opt, "transpose")) {
        l->lo.transpose = 1;
        return 1;
    }
    if (!strcmp(opt, "normalize-rows")) {
        l->lo.normalize_rows = 1;
        return 1;
    }
    if (!strcmp(opt, "header")) {
        l->lo.read.header = 1;
        return 1;
    }
    if (!strcmp(opt, "no-header")) {
        l->lo.read.dense_header = -1;
        return 1;
    }
    if (!strcmp(opt, "first-column")) {
        if (!strcmp(val, "names")) l->lo.read.dense_row_names = 1;
        else if (!strcmp(val, "values")) l->lo.read.dense_row_names = -1;
        else if (!strcmp(val, "auto")) l->lo.read.dense_row_names = 0;
        else {
            cli_usage_error(cmd, "--first-column: expected names, values or auto, got '%s'", val);
            return -1;
        }
        return 1;
    }
    if (!strcmp(opt, "low-memory")) {
        l->low_memory = 1;
        return 1;
    }
    return 0;
}

void cli_load_help(FILE *fp)
{
    fputs("Input options:\n"
          "  --format F          auto | mtx | triplet | libsvm | mat | bin | dense (default auto: from the\n"
          "                      contents; a dense CSV/TSV table when unambiguous, see mmnc.h)\n"
          "  --row-field N       triplet: field holding the row key (default " CLI_STR(MMNC_DEFAULT_ROW_FIELD) ")\n"
          "  --col-field N       triplet: field holding the column key (default " CLI_STR(MMNC_DEFAULT_COL_FIELD) ")\n"
          "  --value-field N     triplet: field holding the value, 0 = each line counts 1 (default "
          CLI_STR(MMNC_DEFAULT_VALUE_FIELD) ")\n"
          "  --delim C           triplet, dense: field separator, a character, 'tab' or 'whitespace' (default\n"
          "                      whitespace; dense: a tab, ';' or ',' if the first line has one)\n"
          "  --header            triplet: the first line (not a comment) names the fields: skipped;\n"
          "                      dense: the first line names the columns (default for dense: when it is\n"
          "                      not all numbers, or is 0,1,2,... or 1,2,3,... over fractional numbers)\n"
          "  --no-header         dense: the first line is data\n"
          "  --first-column X    dense: names (of the rows) | values | auto (names when not a number, or the\n"
          "                      header is one field short or starts empty) (default auto)\n"
          "  --extra-fields X    triplet: fields after the named ones are an error | ignore (default error)\n"
          "  --mat-var NAME      mat: variable to read (default " MMNC_DEFAULT_MAT_VAR ")\n"
          "  --transpose         cluster the columns instead of the rows\n"
          "  --map M             value map: none | binary | log1p | rating3 (r -> 3^(r-1) - 1) (default none)\n"
          "  --normalize-rows    scale each row to sum 1 before forming P_{Y,X} (default off)\n"
          "  --low-memory        keep one copy of the matrix, not two (16 bytes per nonzero less; the same\n"
          "                      results, slower iterations) (default off, unless the second copy would take\n"
          "                      more than half of the available memory; a symmetric matrix, its own\n"
          "                      transpose, is kept once anyway, at full speed)\n"
          "Rows and columns with zero mass are always dropped and reported; outputs use the original ids.\n",
          fp);
}

/* 1 if [b, e) reads whole as a number. */
static int is_number(const char *b, const char *e)
{
    char buf[64], *end;
    if (e - b <= 0 || e - b >= (long)sizeof buf) return 0;
    memcpy(buf, b, (size_t)(e - b));
    buf[e - b] = '\0';
    strtod(buf, &end);
    return *end == '\0';
}

/* The first data line of a plain file (blank lines and % or # comments
 * skipped) is prose: three words or
 * more, none of them a number, and mostly letters; no NUL byte in the
 * first 4 KB looked at.  Its line number in *line.  A triplet line always holds a number (its value), so a file
 * that fails to parse and starts so is text for mmnc docs or mmnc cooc. */
static int starts_with_prose(const char *path, long *line)
{
    char buf[4096], *next = buf, *nl;
    FILE *fp;
    int prose = 0;
    long n = 0;
    size_t len;
    if (!strcmp(path, "-") || !(fp = fopen(path, "rb"))) return 0;
    len = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[len] = '\0';
    if (memchr(buf, '\0', len)) return 0; /* binary */
    while (n < 16 && *next) {
        const char *c = next;
        int words = 0, numbers = 0;
        long letters = 0, chars = 0;
        next = (nl = strchr(next, '\n')) ? nl + 1 : next + strlen(next);
        n++;
        while (*c == ' ' || *c == '\t') c++;
        if (*c == '\n' || *c == '\r' || *c == '\0' || *c == '%' || *c == '#') continue;
        while (*c && *c != '\n') {
            const char *b = c;
            while (*c && !isspace((unsigned char)*c)) {
                letters += isalpha((unsigned char)*c) != 0;
                chars++;
                c++;
            }
            if (c > b) words++, numbers += is_number(b, c);
            while (*c == ' ' || *c == '\t' || *c == '\r') c++;
        }
        prose = words >= 3 && numbers == 0 && 2 * letters > chars;
        *line = n;
        break;
    }
    return prose;
}

int cli_load_fail(const char *cmd, const char *path, const cli_load *l, const mmnc_err *err)
{
    char at[64];
    long line = 0;
    /* the error must be the prose line's own: a dense table's header is words too */
    if (err->code == MMNC_EFORMAT && (l->lo.read.format == MMNC_FMT_AUTO || l->lo.read.format == MMNC_FMT_TRIPLET) &&
        starts_with_prose(path, &line) && (snprintf(at, sizeof at, ":%ld: ", line), strstr(err->msg, at)))
        return cli_fail(cmd, "%s:%ld: words, not numbers: this is text, not a data matrix.  Make one of it with "
                             "'mmnc docs %s -o PREFIX.mtx' (one document a file, or a line with --lines: see "
                             "mmnc docs --help), or of its word co-occurrences with 'mmnc cooc %s -o PREFIX.mtx'; "
                             "then cluster PREFIX.mtx",
                        path, line, path, path);
    return cli_lib_fail(cmd, err);
}

int cli_load_data(const char *cmd, const char *path, const cli_load *l, int quiet, mmnc_data **out,
                  mmnc_int *rows_dropped, mmnc_int *cols_dropped)
{
    mmnc_err err = {0, ""};
    struct stat st;
    *rows_dropped = *cols_dropped = 0;
    if (strcmp(path, "-") && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return cli_fail(cmd, "%s is a directory, not a data file: to make a matrix of the documents in it, run "
                             "'mmnc docs %s -o PREFIX.mtx', then cluster PREFIX.mtx", path, path);
    if (mmnc_data_load(path, &l->lo, cli_dist(), out, rows_dropped, cols_dropped, &err) != MMNC_OK)
        return cli_load_fail(cmd, path, l, &err);
    if (!quiet && cli_rank() == 0 && (*rows_dropped || *cols_dropped))
        fprintf(stderr, "mmnc %s: dropped %lld rows and %lld columns with zero mass\n", cmd,
                (long long)*rows_dropped, (long long)*cols_dropped);
    return CLI_EXIT_OK;
}

int cli_load_pmf(const char *cmd, const char *path, const cli_load *l, int quiet, mmnc_data **d, mmnc_pmf **p,
                 mmnc_int *rows_dropped, mmnc_int *cols_dropped)
{
    mmnc_err err = {0, ""};
    int rc;
    *d = NULL;
    *p = NULL;
    *rows_dropped = *cols_dropped = 0;
    if (cli_dist() && l->lo.transpose)
        return cli_usage_error(cmd, "--transpose is not available with MPI: write the transposed matrix once "
                                    "with 'mmnc convert --transpose' and read that");
    if (cli_dist() && !strcmp(path, "-"))
        return cli_usage_error(cmd, "standard input reaches rank 0 only: give the ranks a file (mmnc convert - FILE.bin)");
    if ((rc = cli_load_data(cmd, path, l, quiet, d, rows_dropped, cols_dropped)) != CLI_EXIT_OK) return rc;
    /* the pmf takes the matrix's arrays: d keeps only the ids */
    if (mmnc_pmf_build_dist((*d)->A, cli_pmf_flags(cmd, l, (*d)->A, quiet), cli_dist(), p, &err) != MMNC_OK) {
        mmnc_data_free(*d);
        *d = NULL;
        return cli_fail(cmd, "%s: %s", path, err.msg);
    }
    return CLI_EXIT_OK;
}

int cli_other_option(const char *cmd, int c, char **argv, cli_load *load, const struct option *opts,
                     int longidx)
{
    if (c == ':') return cli_usage_error(cmd, "option %s needs a value", argv[optind - 1]);
    if (c == CLI_OPT_LOAD && load)
        return cli_load_option(cmd, load, opts[longidx].name, optarg) < 0 ? CLI_EXIT_USAGE : 0;
    return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}

int cli_pmf_flags(const char *cmd, const cli_load *l, const mmnc_csr *A, int quiet)
{
    long long avail = -1, kb;
    char line[256];
    double need = 16.0 * (double)A->nnz + 8.0 * (double)(A->ncols + 1); /* P^T */
    FILE *fp;
    if (l->low_memory) return MMNC_PMF_TAKE | MMNC_PMF_NO_TRANSPOSE;
    if ((fp = fopen("/proc/meminfo", "r")) != NULL) { /* Linux: what can be had without swapping */
        while (fgets(line, sizeof line, fp))
            if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1) avail = kb * 1024;
        fclose(fp);
    }
    if (avail > 0 && need > 0.5 * (double)avail) {
        if (!quiet)
            fprintf(stderr, "mmnc %s: the transposed copy would take %.0f MB of the %.0f MB available: "
                            "keeping one copy (as --low-memory)\n", cmd, need / 1e6, (double)avail / 1e6);
        return MMNC_PMF_TAKE | MMNC_PMF_NO_TRANSPOSE;
    }
    return MMNC_PMF_TAKE;
}

char *cli_side_file(const char *data, const char *ext)
{
    char *p = NULL;
    FILE *fp;
    if (!cli_ends_with(data, ".mtx") && !cli_ends_with(data, ".mtx.gz")) return NULL;
    if (mmnc_mtx_side_path(data, ext, &p, NULL) != MMNC_OK) return NULL;
    if (!(fp = fopen(p, "rb"))) {
        mmnc_free(p);
        return NULL;
    }
    fclose(fp);
    return p;
}

char *cli_cooc_vocab(const char *data)
{
    char *p = NULL;
    FILE *fp;
    if (!cli_ends_with(data, ".mtx") && !cli_ends_with(data, ".mtx.gz") && !cli_ends_with(data, ".bin")) return NULL;
    if (!(p = cli_vocab_path(data))) return NULL;
    if (!(fp = fopen(p, "rb"))) {
        mmnc_free(p);
        return NULL;
    }
    fclose(fp);
    return p;
}

/* The rows the given clusters leave free (lab[y] < 0) must be at least
 * the clusters no row is given: each of those needs a row of its own.  The
 * library refuses fewer too, naming its parameter (fixed_label); here the
 * message names the file and says what to change.  0 or an exit status. */
static int check_free_rows(const char *cmd, const char *path, const mmnc_int *lab, mmnc_int n, mmnc_int k)
{
    unsigned char *used = calloc((size_t)k, 1);
    mmnc_int nfree = 0, unused = k;
    if (!used) return cli_fail(cmd, "out of memory");
    for (mmnc_int y = 0; y < n; y++) {
        if (lab[y] < 0) nfree++;
        else if (!used[lab[y]]) {
            used[lab[y]] = 1;
            unused--;
        }
    }
    free(used);
    if (nfree >= unused) return CLI_EXIT_OK;
    return cli_fail(cmd, "--labels %s: %lld row%s left free for the %lld cluster%s that no line gives: each of "
                         "those needs a free row; leave more rows free or lower -k", path, (long long)nfree,
                    nfree == 1 ? "" : "s", (long long)unused, unused == 1 ? "" : "s");
}

int cli_row_view(const char *cmd, const cli_namer *nm, mmnc_data *view, char ***rn)
{
    mmnc_int n = nm->d->A->nrows;
    char buf[32];
    *view = *nm->d;
    *rn = NULL;
    if (!nm->rn) return CLI_EXIT_OK; /* the data's own ids */
    if (!(*rn = calloc((size_t)(n ? n : 1), sizeof(char *)))) return cli_fail(cmd, "out of memory");
    for (mmnc_int y = 0; y < n; y++)
        if (!((*rn)[y] = strdup(cli_row_label(nm, y, buf)))) {
            cli_row_view_free(view, *rn);
            *rn = NULL;
            return cli_fail(cmd, "out of memory");
        }
    view->row_names = *rn;
    return CLI_EXIT_OK;
}

void cli_row_view_free(const mmnc_data *view, char **rn)
{
    if (!rn) return;
    for (mmnc_int y = 0; y < view->A->nrows; y++) free(rn[y]);
    free(rn);
}

int cli_fixed_read_named(const char *cmd, const char *path, const cli_namer *nm, mmnc_int k, mmnc_int **out,
                         mmnc_int *given, mmnc_int *dropped)
{
    mmnc_err err = {0, ""};
    mmnc_data view;
    mmnc_int n = nm->d->A->nrows, *lib = NULL;
    char **rn = NULL;
    int rc;
    *out = NULL;
    /* the rows by the names of the outputs, which an edited labels.tsv gives back */
    rc = cli_row_view(cmd, nm, &view, &rn);
    if (rc == CLI_EXIT_OK && mmnc_fixed_labels_read(path, &view, k, &lib, given, dropped, &err) != MMNC_OK)
        rc = cli_fail(cmd, "--labels %s", err.msg);
    if (rc == CLI_EXIT_OK) rc = check_free_rows(cmd, path, lib, n, k);
    if (rc == CLI_EXIT_OK && !(*out = malloc((size_t)(n ? n : 1) * sizeof(mmnc_int)))) rc = cli_fail(cmd, "out of memory");
    if (rc == CLI_EXIT_OK) memcpy(*out, lib, (size_t)n * sizeof(mmnc_int));
    mmnc_free(lib);
    cli_row_view_free(&view, rn);
    return rc;
}
