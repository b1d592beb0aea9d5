/*
 * cmd_convert.c -- `mmnc convert`: any input format to mmnc's binary matrix
 * format (which loads at memory speed) or back to Matrix Market.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#ifdef _OPENMP
#include <omp.h>
#endif

static const char *CMD = "convert";

static void help(void)
{
    printf("Usage: mmnc convert [options] IN OUT\n"
           "       mmnc convert --check [options] IN\n\n"
           "Read IN in any format mmnc reads (Matrix Market, triplets, libsvm, MATLAB .mat, plain or\n"
           "gzip, or mmnc's binary format) and write OUT: Matrix Market when OUT ends in .mtx or\n"
           ".mtx.gz, else mmnc's binary format (use the suffix .bin), which every command reads at\n"
           "memory speed, checksummed (docs/binary-format.md).  The matrix is kept as read (rows and\n"
           "columns without mass are not dropped); OUT is written atomically.  The binary format keeps\n"
           "the row and column ids (triplet keys, original indices); Matrix Market has only 1-based\n"
           "indices, so ids other than 1..n go to OUT's stem + .rows / .cols, one per line (for\n"
           "cluster --row-names / --names; where the ids are 1..n, an earlier .rows / .cols of that\n"
           "name is removed, which would name the wrong rows).  A .mtx IN's own .rows / .cols beside\n"
           "it name its rows and columns in OUT, as cluster reads them.  OUT may not be IN.\n\n"
           "Options:\n"
           "      --to FMT          output format bin | mtx, whatever OUT's name (default: from the name)\n"
           "      --check           only read and check IN (every checksum of a binary file); no OUT\n"
           "      --no-verify       binary input: skip the checksums (structure and values are still\n"
           "                        checked) (default: verify)\n"
           "  -t, --threads N       threads, 0 = all cores (default " CLI_STR(MMNC_DEFAULT_THREADS) ")\n"
           "  -q, --quiet           no summary on stderr\n"
           "  -h, --help            this help\n\n");
    cli_load_help(stdout);
    printf("(convert drops nothing: the last line above does not apply to it.)\n");
}

static double file_mb(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (double)st.st_size / 1e6 : 0.0;
}

/* A .mtx IN's ids: IN.rows and IN.cols beside it (swapped by --transpose),
 * as cluster, predict and info read them, become d's names, so that OUT
 * keeps them (a .bin's names, a .mtx's own .rows/.cols).  Read as cluster
 * reads them: one name a line for every row (column), a repeated name
 * written NAME#2 with a warning. */
static int side_names(const char *in, int transpose, mmnc_data *d)
{
    for (int t = 0; t < 2; t++) {
        int cols = t ^ transpose; /* the side of d that IN's .rows (t = 0) or .cols (t = 1) names */
        char ***dst = cols ? &d->col_names : &d->row_names, **names = NULL, *side;
        mmnc_int want = cols ? d->A->ncols : d->A->nrows, n = 0;
        int rc;
        if (*dst || !(side = cli_side_file(in, t ? ".cols" : ".rows"))) continue;
        rc = cli_names_read(CMD, side, 0, want, cols ? "columns" : "rows", 1, &n, &names);
        mmnc_free(side);
        if (rc != CLI_EXIT_OK) return rc;
        for (mmnc_int i = want; i < n; i++) mmnc_free(names[i]); /* more than the rows: warned about */
        *dst = names;
    }
    return CLI_EXIT_OK;
}

/* Matrix Market plus, when the ids are not 1..n, the .rows/.cols files
 * side[] (mmnc_data_write_mtx, to the staged paths of outs: the output,
 * then its side files). */
static int write_mtx(cli_outset *outs, char *const *side, const mmnc_data *d, int quiet)
{
    mmnc_err err = {0, ""};
    int wrote[2], rc;
    if (mmnc_data_write_mtx(d, cli_outset_path(outs, 0), &wrote[0], &wrote[1], &err) != MMNC_OK)
        return cli_outset_lib_fail(outs, &err);
    if ((rc = cli_outset_commit(outs)) != CLI_EXIT_OK) return rc;
    for (int t = 0; t < 2; t++)
        if (wrote[t] && !quiet) fprintf(stderr, "mmnc convert: %s ids written to %s\n", t ? "column" : "row", side[t]);
    return CLI_EXIT_OK;
}

/* OUT (and for Matrix Market its side files, side[]: the ids, where this
 * run writes them; else an earlier file of that name is removed), checked
 * before any work: none is IN, all of them or none. */
static int outputs_check(cli_outset *outs, const char *in, const char *out, int to_mtx, char **side)
{
    mmnc_err err = {0, ""};
    cli_outset_input(outs, in, "IN");
    cli_outset_add(outs, out, "OUT", 0);
    for (int t = 0; to_mtx && t < 2; t++) {
        if (mmnc_mtx_side_path(out, t ? ".cols" : ".rows", &side[t], &err) != MMNC_OK) return cli_lib_fail(CMD, &err);
        cli_outset_add(outs, side[t], t ? "the column ids (OUT.cols)" : "the row ids (OUT.rows)", CLI_OUT_SIDE);
    }
    return cli_outset_check(outs);
}

int cmd_convert(int argc, char **argv)
{
    enum { O_TO = 256, O_CHECK, O_NOVERIFY };
    static const struct option opts[] = {
        {"to", required_argument, 0, O_TO}, {"check", no_argument, 0, O_CHECK},
        {"no-verify", no_argument, 0, O_NOVERIFY}, {"threads", required_argument, 0, 't'},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, CLI_LOAD_OPTIONS, {0, 0, 0, 0}};
    cli_load load;
    long long v;
    int quiet = 0, check = 0, c, longidx, rc = CLI_EXIT_OK, to_mtx = -1;
    const char *in, *out = NULL;
    mmnc_data *d = NULL;
    mmnc_int rd = 0, cd = 0;
    mmnc_err err = {0, ""};
    double t0, t1, t2;
    cli_outset *outs = NULL;
    char *side[2] = {NULL, NULL};

    cli_load_default(&load);
    load.lo.drop_empty = 0; /* a converter keeps the matrix as it is */
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":t:qh", opts, &longidx)) != -1) {
        switch (c) {
        case O_TO:
            if (!strcmp(optarg, "mtx")) to_mtx = 1;
            else if (!strcmp(optarg, "bin")) to_mtx = 0;
            else return cli_usage_error(CMD, "--to: expected bin or mtx, got '%s'", optarg);
            break;
        case O_CHECK: check = 1; break;
        case O_NOVERIFY: load.lo.read.bin_no_verify = 1; break;
        case 't':
            if (cli_parse_int(CMD, "--threads", optarg, 0, 4096, &v)) return CLI_EXIT_USAGE;
#ifdef _OPENMP
            if (v > 0) omp_set_num_threads((int)v);
#endif
            break;
        case 'q': quiet = 1; break;
        case 'h': help(); return CLI_EXIT_OK;
        default:
            if ((c = cli_other_option(CMD, c, argv, &load, opts, longidx)) != 0) return c;
            break;
        }
    }
    if (optind >= argc) return cli_usage_error(CMD, "missing IN file");
    in = argv[optind];
    if (check) {
        if (optind + 1 != argc) return cli_usage_error(CMD, "--check takes one file, IN");
    } else {
        if (optind + 2 != argc)
            return cli_usage_error(CMD, optind + 1 >= argc ? "missing OUT file" : "expected two files, IN and OUT");
        out = argv[optind + 1];
        if (to_mtx < 0) to_mtx = cli_ends_with(out, ".mtx") || cli_ends_with(out, ".mtx.gz");
    }

    if (load.low_memory) return cli_usage_error(CMD, "--low-memory is for the commands that cluster or embed");
    if (out && (!(outs = cli_outset_new(CMD)) || (rc = outputs_check(outs, in, out, to_mtx, side)) != CLI_EXIT_OK)) {
        if (!outs) rc = cli_fail(CMD, "out of memory");
        goto done;
    }
    t0 = cli_now();
    if ((rc = cli_load_data(CMD, in, &load, quiet, &d, &rd, &cd)) != CLI_EXIT_OK ||
        (rc = side_names(in, load.lo.transpose, d)) != CLI_EXIT_OK)
        goto done;
    t1 = cli_now();
    if (out) {
        if (to_mtx) rc = write_mtx(outs, side, d, quiet);
        else if (mmnc_data_write_bin(d, cli_outset_path(outs, 0), &err) != MMNC_OK) rc = cli_outset_lib_fail(outs, &err);
        else rc = cli_outset_commit(outs);
    }
    t2 = cli_now();
    if (rc == CLI_EXIT_OK && !quiet) {
        double mb = file_mb(in), rs = t1 - t0 > 1e-9 ? t1 - t0 : 1e-9;
        fprintf(stderr, "mmnc convert: %s: %lld x %lld, %lld nonzeros; read %.1f MB in %.3f s (%.0f MB/s)",
                in, (long long)d->A->nrows, (long long)d->A->ncols, (long long)d->A->nnz, mb, t1 - t0,
                mb / rs);
        if (out)
            fprintf(stderr, "; wrote %s (%s, %.1f MB) in %.3f s", out, to_mtx ? "Matrix Market" : "binary",
                    file_mb(out), t2 - t1);
        fputc('\n', stderr);
    }
done:
    cli_outset_free(outs);
    mmnc_free(side[0]);
    mmnc_free(side[1]);
    mmnc_data_free(d);
    return rc;
}
