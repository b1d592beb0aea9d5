/*
 * cmd_info.c -- `mmnc info`: what a data file holds, before clustering it.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#ifdef _OPENMP
#include <omp.h>
#endif

static const char *CMD = "info";

static void help(void)
{
    printf("Usage: mmnc info [options] DATA\n       mmnc info [--json] MODEL\n\n"
           "Shape, nonzeros, marginals, connected components (= multiplicity of the DTM's singular\n"
           "value 1) and optionally the leading singular values of the DTM B_{Y,X}.  Given a model\n"
           "saved by 'mmnc cluster --save-model' (a regular file, told by its magic bytes), what it holds:\n"
           "the run that made it, its clusters and the rule that assigns new rows.\n\n"
           "Options:\n"
           "  --sv N              compute the N leading singular values of the DTM (default 0: none)\n"
           "  --seed N            seed of the randomised SVD (default " CLI_STR(MMNC_DEFAULT_SEED) ")\n"
           "  --json              print a JSON object instead of text\n"
           "  -t, --threads N     threads, 0 = all cores (default " CLI_STR(MMNC_DEFAULT_THREADS) ")\n"
           "  -q, --quiet         no messages on stderr\n"
           "  -h, --help          this help\n\n");
    cli_load_help(stdout);
}

static void marginal(const double *p, mmnc_int n, double *mn, double *mx, double *h)
{
    *mn = INFINITY, *mx = 0.0, *h = 0.0;
    for (mmnc_int i = 0; i < n; i++) {
        if (p[i] < *mn) *mn = p[i];
        if (p[i] > *mx) *mx = p[i];
        if (p[i] > 0) *h -= p[i] * log(p[i]);
    }
}

/* 1 if path is a regular file that starts with a model's magic bytes
 * (docs/model-format.md): "\x89MMOD".  Anything else is left unopened: the
 * bytes read here from a pipe, a FIFO or standard input would be gone for
 * the data reader, which recognises a model's magic itself and says so. */
static int is_model(const char *path)
{
    static const unsigned char magic[5] = {0x89, 'M', 'M', 'O', 'D'};
    unsigned char head[5];
    size_t n = 0;
    struct stat st;
    FILE *fp;
    if (!strcmp(path, "-") || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    if (!(fp = fopen(path, "rb"))) return 0;
    n = fread(head, 1, sizeof head, fp);
    fclose(fp);
    return n == sizeof head && !memcmp(head, magic, sizeof head);
}

static int cmp_int(const void *a, const void *b)
{
    mmnc_int x = *(const mmnc_int *)a, y = *(const mmnc_int *)b;
    return (x > y) - (x < y);
}

/* Rows and columns without mass (--map may leave zeros).  A matrix far
 * wider than its entries (a libsvm file with index 10^9) gets no
 * per-column array, as in mmnc_data_drop_empty: the columns of its positive
 * entries are sorted and the distinct ones counted instead. */
static int count_empty(const mmnc_csr *A, mmnc_int *erows, mmnc_int *ecols)
{
    *erows = *ecols = 0;
    for (mmnc_int i = 0; i < A->nrows; i++) {
        double s = 0.0;
        for (mmnc_int e = A->rowptr[i]; e < A->rowptr[i + 1]; e++) s += A->val[e];
        if (!(s > 0)) ++*erows;
    }
    if (A->ncols <= 8 * (A->nnz + 1024)) {
        double *cs = calloc((size_t)A->ncols + 1, sizeof(double));
        if (!cs) return cli_fail(CMD, "out of memory");
        for (mmnc_int e = 0; e < A->nnz; e++) cs[A->colind[e]] += A->val[e];
        for (mmnc_int j = 0; j < A->ncols; j++)
            if (!(cs[j] > 0)) ++*ecols;
        free(cs);
    } else {
        mmnc_int *c = malloc((size_t)(A->nnz ? A->nnz : 1) * sizeof(mmnc_int)), n = 0, live = 0;
        if (!c) return cli_fail(CMD, "out of memory");
        for (mmnc_int e = 0; e < A->nnz; e++)
            if (A->val[e] > 0) c[n++] = A->colind[e];
        qsort(c, (size_t)n, sizeof(mmnc_int), cmp_int);
        for (mmnc_int e = 0; e < n; e++) live += e == 0 || c[e] != c[e - 1];
        *ecols = A->ncols - live;
        free(c);
    }
    return CLI_EXIT_OK;
}

/* key, then {"min": mn, "max": mx, "entropy": h} of a marginal, on stdout */
static void json_marginal(const char *key, double mn, double mx, double h)
{
    printf("%s: {\"min\": ", key);
    cli_json_number(stdout, mn, 6);
    printf(", \"max\": ");
    cli_json_number(stdout, mx, 6);
    printf(", \"entropy\": ");
    cli_json_number(stdout, h, 6);
    printf("}");
}

static int model_info(const char *path, int json)
{
    mmnc_model *m = NULL;
    mmnc_err err = {0, ""};
    const char *refine, *rule;
    if (mmnc_model_read(path, &m, &err) != MMNC_OK) return cli_lib_fail(CMD, &err);
    refine = cli_refine_name(m->refine);
    rule = cli_model_rule(m);
    if (json) {
        printf("{\"file\": ");
        cli_json_string(stdout, path);
        printf(", \"kind\": \"model\", \"mmnc_version\": ");
        cli_json_string(stdout, m->version);
        printf(", \"algorithm\": \"%s\", \"refine\": \"%s\", \"hard\": %s, \"rule\": \"%s\",\n",
               cli_algorithm_name(m->algorithm), refine, m->hard ? "true" : "false", rule);
        printf(" \"k\": %lld, \"columns\": %lld, \"training_rows\": %lld, \"training_mass\": ", (long long)m->k,
               (long long)m->ncols, (long long)m->train_rows);
        cli_json_number(stdout, m->train_mass, CLI_JSON_EXACT);
        printf(", \"seed\": %llu,\n \"input_hash\": \"%016llx\", \"objective\": ", (unsigned long long)m->seed,
               (unsigned long long)m->input_hash);
        cli_json_number(stdout, m->objective, CLI_JSON_EXACT);
        printf(", \"mutual_information\": ");
        cli_json_number(stdout, m->mutual_information, CLI_JSON_EXACT);
        printf(", \"alpha\": ");
        cli_json_number(stdout, m->alpha, CLI_JSON_EXACT);
        printf(",\n");
        if (m->cluster_rows) {
            printf(" \"dmm_alpha\": ");
            cli_json_number(stdout, m->dmm_alpha, CLI_JSON_EXACT);
            printf(", \"dmm_beta\": ");
            cli_json_number(stdout, m->dmm_beta, CLI_JSON_EXACT);
            printf(", \"cluster_rows\": [");
            for (mmnc_int z = 0; z < m->k; z++) printf("%s%lld", z ? ", " : "", (long long)m->cluster_rows[z]);
            printf("],\n");
        }
        printf(" \"options\": ");
        if (m->options) cli_json_string(stdout, m->options);
        else printf("null");
        printf(", \"pz\": ");
        cli_json_numbers(stdout, m->pz, m->k, CLI_JSON_EXACT);
        printf("}\n");
    } else {
        printf("file          %s\n", path);
        printf("model         written by mmnc %s: %s, refine %s (%s result); rule for new rows: %s\n", m->version,
               cli_algorithm_name(m->algorithm), refine, m->hard ? "hard" : "soft", rule);
        printf("clusters      k = %lld over %lld columns; objective %.6f, I(X;Z) %.6f nats\n", (long long)m->k,
               (long long)m->ncols, m->objective, m->mutual_information);
        printf("training      %lld rows of total mass %.6g, seed %llu, input hash %016llx\n",
               (long long)m->train_rows, m->train_mass, (unsigned long long)m->seed,
               (unsigned long long)m->input_hash);
        printf("options       %s\n", m->options ? m->options : "(not recorded)");
        if (!strcmp(rule, "information"))
            printf("smoothing     alpha = %.6g average training rows\n", m->alpha);
        if (m->cluster_rows)
            printf("mixture       alpha = %.6g, beta = %.6g (the posterior of the Dirichlet mixture)\n",
                   m->dmm_alpha, m->dmm_beta);
        printf("P_Z          ");
        for (mmnc_int z = 0; z < m->k && z < 20; z++) printf(" %.4f", m->pz[z]);
        printf("%s\n", m->k > 20 ? " ..." : "");
        printf("column ids   ");
        for (mmnc_int x = 0; x < m->ncols && x < 8; x++) printf(" %s", m->col_ids[x]);
        printf("%s\n", m->ncols > 8 ? " ..." : "");
    }
    mmnc_model_free(m);
    return CLI_EXIT_OK;
}

int cmd_info(int argc, char **argv)
{
    enum { O_SV = 256, O_SEED, O_JSON };
    static const struct option opts[] = {
        {"sv", required_argument, 0, O_SV}, {"seed", required_argument, 0, O_SEED}, {"json", no_argument, 0, O_JSON},
        {"threads", required_argument, 0, 't'}, {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'},
        CLI_LOAD_OPTIONS, {0, 0, 0, 0}};
    cli_load load;
    long long v, nsv = 0, seed = MMNC_DEFAULT_SEED;
    int json = 0, quiet = 0, c, longidx, rc = CLI_EXIT_OK, threads = MMNC_DEFAULT_THREADS;
    mmnc_data *d = NULL;
    mmnc_pmf *p = NULL;
    mmnc_int rd = 0, cd = 0;
    double *sv = NULL;
    int sv_status = MMNC_OK;
    mmnc_err err = {0, ""};
    cli_load_default(&load);
    load.lo.drop_empty = 0; /* report them instead */
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":t:qh", opts, &longidx)) != -1) {
        switch (c) {
        case O_SV: if (cli_parse_int(CMD, "--sv", optarg, 0, 100000, &nsv)) return CLI_EXIT_USAGE; break;
        case O_SEED: if (cli_parse_int(CMD, "--seed", optarg, 0, INT64_MAX, &seed)) return CLI_EXIT_USAGE; break;
        case O_JSON: json = 1; break;
        case 't': if (cli_parse_int(CMD, "--threads", optarg, 0, 4096, &v)) return CLI_EXIT_USAGE; threads = (int)v; break;
        case 'q': quiet = 1; break;
        case 'h': help(); return CLI_EXIT_OK;
        default:
            if ((c = cli_other_option(CMD, c, argv, &load, opts, longidx)) != 0) return c;
            break;
        }
    }
    if (optind != argc - 1) return cli_usage_error(CMD, optind >= argc ? "missing DATA file" : "expected one DATA file");
#ifdef _OPENMP
    if (threads > 0) omp_set_num_threads(threads);
#endif
    if (is_model(argv[optind])) return model_info(argv[optind], json);
    if ((rc = cli_load_data(CMD, argv[optind], &load, quiet, &d, &rd, &cd)) != CLI_EXIT_OK) return rc;
    mmnc_int nrows = d->A->nrows, ncols = d->A->ncols, nnz = d->A->nnz;
    mmnc_int erows = 0, ecols = 0;
    if ((rc = count_empty(d->A, &erows, &ecols)) != CLI_EXIT_OK) goto done;
    if (mmnc_data_drop_empty(d, &rd, &cd, &err) != MMNC_OK || mmnc_pmf_build_ex(d->A, load.low_memory ? MMNC_PMF_NO_TRANSPOSE : 0, &p, &err) != MMNC_OK) {
        rc = cli_fail(CMD, "%s: %s", argv[optind], err.msg);
        goto done;
    }
    /* components among rows/columns with mass: isolated vertices were dropped */
    mmnc_int ncomp_mass = 0;
    if (mmnc_components(p->P, &ncomp_mass, NULL, &err) != MMNC_OK) { rc = cli_lib_fail(CMD, &err); goto done; }
    if (nsv > 0) {
        if (nsv > p->ny) nsv = p->ny;
        if (nsv > p->nx) nsv = p->nx;
        sv = malloc((size_t)nsv * sizeof(double));
        if (!sv) { rc = cli_fail(CMD, "out of memory"); goto done; }
        sv_status = mmnc_dtm_svds(p, nsv, 1e-10, 300, (uint64_t)seed, sv, NULL, NULL, &err);
        if (sv_status != MMNC_OK && sv_status != MMNC_ENOCONV) { rc = cli_lib_fail(CMD, &err); goto done; }
        if (sv_status == MMNC_ENOCONV && !quiet) fprintf(stderr, "mmnc info: warning: %s\n", err.msg);
    }
    {
        double ymn, ymx, yh, xmn, xmx, xh;
        marginal(p->py, p->ny, &ymn, &ymx, &yh);
        marginal(p->px, p->nx, &xmn, &xmx, &xh);
        mmnc_int unit = 0;
        for (mmnc_int i = 0; i < nsv; i++)
            if (sv[i] > 1.0 - 1e-8) unit++;
        if (json) {
            printf("{\"file\": ");
            cli_json_string(stdout, argv[optind]);
            printf(", \"rows\": %lld, \"columns\": %lld, \"nonzeros\": %lld, \"density\": ", (long long)nrows,
                   (long long)ncols, (long long)nnz);
            cli_json_number(stdout, (double)nnz / ((double)nrows * (double)ncols), 6);
            printf(", \"sum\": ");
            cli_json_number(stdout, p->total, CLI_JSON_EXACT);
            printf(",\n \"empty_rows\": %lld, \"empty_columns\": %lld, \"components\": %lld,\n", (long long)erows,
                   (long long)ecols, (long long)ncomp_mass);
            json_marginal(" \"py\"", ymn, ymx, yh);
            json_marginal(", \"px\"", xmn, xmx, xh);
            if (nsv > 0) {
                printf(",\n \"singular_values\": ");
                cli_json_numbers(stdout, sv, nsv, 12);
                printf(", \"unit_singular_values\": %lld", (long long)unit);
            }
            printf("}\n");
        } else {
            printf("file          %s\n", argv[optind]);
            printf("shape         %lld rows x %lld columns, %lld nonzeros (density %.3g), sum %.6g\n", (long long)nrows,
                   (long long)ncols, (long long)nnz, (double)nnz / ((double)nrows * (double)ncols), p->total);
            printf("empty         %lld rows, %lld columns (dropped before clustering)\n", (long long)erows, (long long)ecols);
            printf("P_Y           min %.3g  max %.3g  entropy %.4f nats (uniform: %.4f)\n", ymn, ymx, yh, log((double)p->ny));
            printf("P_X           min %.3g  max %.3g  entropy %.4f nats (uniform: %.4f)\n", xmn, xmx, xh, log((double)p->nx));
            printf("components    %lld (connected components of the bipartite graph of the rows and columns with mass)\n",
                   (long long)ncomp_mass);
            if (nsv > 0) {
                printf("DTM spectrum ");
                for (mmnc_int i = 0; i < nsv; i++) printf(" %.6f", sv[i]);
                printf("\n              %lld singular values equal to 1 (to 1e-8)%s\n", (long long)unit,
                       unit == nsv && nsv < ncomp_mass ? "; ask for more with --sv" : "");
            }
        }
    }
done:
    free(sv);
    mmnc_pmf_free(p);
    mmnc_data_free(d);
    return rc;
}
