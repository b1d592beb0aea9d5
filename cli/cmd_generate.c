/*
 * cmd_generate.c -- `mmnc generate`: planted-partition co-occurrence data
 * with ground truth, deterministic from a seed, streamed row by row.
 *
 * Model.  Rows y and columns x are split into k groups (row y in group
 * y mod k, column x in group x mod k).  Row y makes Poisson(d) draws of a
 * column: with probability r / (r + k - 1) from its own group, otherwise
 * from one of the other groups chosen uniformly, so that a single in-group
 * column is r times as likely as a single out-group column.  Within a
 * group, the i-th column is drawn with probability proportional to
 * (i + 1)^(-skew) (skew = 0: uniform; about 1: Zipf-like popularity).
 * Repeated draws of a column add up to a count.  Row y's stream of random
 * numbers depends only on (seed, y).  Memory is one row; the Matrix Market
 * size line is patched at the end of the temporary file before it is
 * renamed into place.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *CMD = "generate";

/* The defaults of the model's parameters (the options below) */
#define ROWS 10000
#define COLS 2000
#define GROUPS 10
#define DRAWS 20
#define RATIO 4
#define SKEW 0.5

static void help(void)
{
    printf("Usage: mmnc generate [options] -o OUT.mtx\n\n"
           "Write a planted-partition co-occurrence matrix (Matrix Market) and its row groups\n"
           "(OUT.truth, one label 1..k per line, for mmnc eval / --truth).\n\n"
           "Options:\n"
           "  -o, --output FILE     the matrix (required); the labels go to FILE without .mtx + .truth\n"
           "      --rows N          rows (default " CLI_STR(ROWS) ")\n"
           "      --cols N          columns (default " CLI_STR(COLS) ")\n"
           "  -k, --groups N        planted groups of rows and columns (default " CLI_STR(GROUPS) ")\n"
           "      --draws X         mean draws per row, Poisson; a row that draws none makes one\n"
           "                        (so the mean is above X where X is small) (default " CLI_STR(DRAWS) ")\n"
           "      --ratio X         in-group / out-group odds for one column (default " CLI_STR(RATIO) ")\n"
           "      --skew X          column popularity exponent within a group (default " CLI_STR(SKEW) ")\n"
           "  -s, --seed N          random seed (default " CLI_STR(MMNC_DEFAULT_SEED) ")\n"
           "  -q, --quiet           no summary on stderr\n"
           "  -h, --help            this help\n");
}

/* x in the fewest significant digits (up to 17) that read back as x: the
 * command recorded in the file must make the same matrix again. */
static const char *exact(double x, char buf[32])
{
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, 32, "%.*g", prec, x);
        if (strtod(buf, NULL) == x) break;
    }
    return buf;
}

static mmnc_int poisson(mmnc_rng *rng, double mean)
{
    if (mean < 30) {
        double L = exp(-mean), p = 1.0;
        mmnc_int n = -1;
        do n++, p *= mmnc_rng_uniform(rng);
        while (p > L);
        return n;
    }
    double v = floor(mean + sqrt(mean) * mmnc_rng_normal(rng) + 0.5);
    return v < 0 ? 0 : (mmnc_int)v;
}

/* Column index in [0, m) with P(i) ~ (i+1)^-skew, by inverting the continuous CDF. */
static mmnc_int pick(mmnc_rng *rng, mmnc_int m, double skew)
{
    double u = mmnc_rng_uniform(rng), x;
    if (fabs(skew - 1.0) < 1e-9) x = exp(u * log((double)m + 1.0)) - 1.0;
    else {
        double a = 1.0 - skew, top = pow((double)m + 1.0, a) - 1.0;
        x = pow(1.0 + u * top, 1.0 / a) - 1.0;
    }
    mmnc_int i = (mmnc_int)x;
    return i < 0 ? 0 : i >= m ? m - 1 : i;
}

static int cmp_int(const void *a, const void *b)
{
    mmnc_int x = *(const mmnc_int *)a, y = *(const mmnc_int *)b;
    return (x > y) - (x < y);
}

int cmd_generate(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'}, {"rows", required_argument, 0, 'R'}, {"cols", required_argument, 0, 'C'},
        {"groups", required_argument, 0, 'k'}, {"draws", required_argument, 0, 'd'}, {"ratio", required_argument, 0, 'r'},
        {"skew", required_argument, 0, 'S'}, {"seed", required_argument, 0, 's'}, {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    long long rows = ROWS, cols = COLS, k = GROUPS, seed = MMNC_DEFAULT_SEED;
    double draws = DRAWS, ratio = RATIO, skew = SKEW;
    const char *outpath = NULL;
    char *truthpath = NULL;
    int quiet = 0, c, rc = CLI_EXIT_OK;
    mmnc_outfile om = {0}, ot = {0};
    cli_outset *outs = NULL;
    mmnc_int *buf = NULL, cap = 0, nnz = 0;
    mmnc_err err = {0, ""};
    double t0 = cli_now();
    long header_pos;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:k:s:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'o': outpath = optarg; break;
        case 'R': if (cli_parse_int(CMD, "--rows", optarg, 1, 1000000000000LL, &rows)) return CLI_EXIT_USAGE; break;
        case 'C': if (cli_parse_int(CMD, "--cols", optarg, 1, 1000000000000LL, &cols)) return CLI_EXIT_USAGE; break;
        case 'k': if (cli_parse_int(CMD, "--groups", optarg, 1, 1000000, &k)) return CLI_EXIT_USAGE; break;
        case 'd': if (cli_parse_double(CMD, "--draws", optarg, 0.01, 1e7, &draws)) return CLI_EXIT_USAGE; break;
        case 'r': if (cli_parse_double(CMD, "--ratio", optarg, 0.0, 1e12, &ratio)) return CLI_EXIT_USAGE; break;
        case 'S': if (cli_parse_double(CMD, "--skew", optarg, 0.0, 10.0, &skew)) return CLI_EXIT_USAGE; break;
        case 's': if (cli_parse_int(CMD, "--seed", optarg, 0, INT64_MAX, &seed)) return CLI_EXIT_USAGE; break;
        case 'q': quiet = 1; break;
        case 'h': help(); return CLI_EXIT_OK;
        case ':': return cli_usage_error(CMD, "option %s needs a value", argv[optind - 1]);
        default: return cli_usage_error(CMD, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc) return cli_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
    if (!outpath) return cli_usage_error(CMD, "missing -o OUT.mtx");
    if (k > rows || k > cols) return cli_usage_error(CMD, "--groups %lld exceeds the rows or columns", k);
    {
        size_t n = strlen(outpath);
        truthpath = malloc(n + 8);
        if (!truthpath) return cli_fail(CMD, "out of memory");
        memcpy(truthpath, outpath, n + 1);
        if (n > 4 && !strcmp(truthpath + n - 4, ".mtx")) truthpath[n - 4] = '\0';
        strcat(truthpath, ".truth");
    }
    /* the matrix and its labels: both or neither */
    if (!(outs = cli_outset_new(CMD))) { rc = cli_fail(CMD, "out of memory"); goto done; }
    cli_outset_add(outs, outpath, "-o", 0);
    cli_outset_add(outs, truthpath, "the labels (OUT.truth)", 0);
    if ((rc = cli_outset_check(outs)) != CLI_EXIT_OK) goto done;
    if (mmnc_outfile_open(&om, cli_outset_path(outs, 0), &err) != MMNC_OK ||
        mmnc_outfile_open(&ot, cli_outset_path(outs, 1), &err) != MMNC_OK) {
        rc = cli_outset_lib_fail(outs, &err);
        goto done;
    }
    fprintf(om.fp, "%%%%MatrixMarket matrix coordinate integer general\n");
    {
        char b1[32], b2[32], b3[32];
        fprintf(om.fp, "%% mmnc generate --rows %lld --cols %lld -k %lld --draws %s --ratio %s --skew %s --seed %lld\n",
                rows, cols, k, exact(draws, b1), exact(ratio, b2), exact(skew, b3), seed);
    }
    header_pos = ftell(om.fp);
    fprintf(om.fp, "%-60s\n", "");   /* size line, patched at the end */
    {
        double p_in = ratio / (ratio + (double)(k - 1));
        for (mmnc_int y = 0; y < rows; y++) {
            mmnc_rng rng;
            mmnc_int g = y % k, n;
            mmnc_rng_seed(&rng, (uint64_t)seed * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)y * 0xbf58476d1ce4e5b9ULL + 1));
            n = poisson(&rng, draws);
            if (n == 0) n = 1; /* no empty rows */
            if (n > cap) {
                mmnc_int *nb = realloc(buf, (size_t)n * 2 * sizeof(mmnc_int));
                if (!nb) { rc = cli_fail(CMD, "out of memory"); goto done; }
                buf = nb, cap = 2 * n;
            }
            for (mmnc_int t = 0; t < n; t++) {
                mmnc_int h = g;
                if (k > 1 && mmnc_rng_uniform(&rng) >= p_in) {
                    h = mmnc_rng_below(&rng, k - 1);
                    if (h >= g) h++;
                }
                mmnc_int m = cols / k + (h < cols % k); /* columns of group h: h, h+k, h+2k, ... */
                buf[t] = h + k * pick(&rng, m, skew);
            }
            qsort(buf, (size_t)n, sizeof(mmnc_int), cmp_int);
            for (mmnc_int t = 0; t < n;) {
                mmnc_int u = t;
                while (u < n && buf[u] == buf[t]) u++;
                fprintf(om.fp, "%lld %lld %lld\n", (long long)y + 1, (long long)buf[t] + 1, (long long)(u - t));
                nnz++;
                t = u;
            }
            fprintf(ot.fp, "%lld\n", (long long)g + 1);
        }
    }
    if (fseek(om.fp, header_pos, SEEK_SET) != 0) { rc = cli_fail(CMD, "%s: cannot seek to patch the size line", outpath); goto done; }
    fprintf(om.fp, "%lld %lld %lld", rows, cols, (long long)nnz);
    if (mmnc_outfile_commit(&om, &err) != MMNC_OK || mmnc_outfile_commit(&ot, &err) != MMNC_OK) {
        rc = cli_outset_lib_fail(outs, &err);
        goto done;
    }
    if ((rc = cli_outset_commit(outs)) != CLI_EXIT_OK) goto done;
    if (!quiet)
        fprintf(stderr, "mmnc generate: %lld x %lld, %lld nonzeros, %lld groups -> %s, %s (%.2f s)\n", rows, cols,
                (long long)nnz, k, outpath, truthpath, cli_now() - t0);
done:
    if (om.fp) mmnc_outfile_abort(&om);
    if (ot.fp) mmnc_outfile_abort(&ot);
    cli_outset_free(outs);
    free(buf);
    free(truthpath);
    return rc;
}
