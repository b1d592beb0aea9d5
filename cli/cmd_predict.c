/*
 * cmd_predict.c -- `mmnc predict MODEL DATA`: assign the rows of new data
 * to the clusters of a model saved by `mmnc cluster --save-model`, with the
 * model's out-of-sample rule (src/model/model.c).  Columns are matched by id (or
 * by --names, or by DATA.cols beside a .mtx DATA); unknown columns are
 * reported and ignored, rows without a known column are reported and
 * labelled -1.  Data whose mass lies mostly on unknown columns is refused
 * (unless --allow-unknown): its columns are then most likely not the
 * model's.  A row identical to a row held at a label in training gets that
 * label; a co-clustering model also assigns DATA's columns
 * (PREFIX.col_labels.tsv; mmnc.h, "Columns of a co-clustering model").
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli.h"

static const char *CMD = "predict";

static void help(void)
{
    printf("Usage: mmnc predict [options] MODEL DATA\n\n"
           "Assign the rows of DATA to the clusters of MODEL (written by 'mmnc cluster --save-model'),\n"
           "with the rule of the objective the model was learned with (README, \"Saving a model\").\n"
           "DATA is read as 'mmnc cluster' reads it (give the same load options, e.g. --map); its columns\n"
           "are matched to the model's by id, or by name with --names (default: DATA.cols beside a .mtx\n"
           "DATA, as mmnc docs writes it).  Columns the model does not know are ignored and reported; a\n"
           "row with no known column gets cluster -1.  When more than half of DATA's mass lies on unknown\n"
           "columns, nothing is predicted (exit 1) unless --allow-unknown.  A row identical to a row held at\n"
           "a given label in training gets that label.  A co-clustering model (--col-clusters) also assigns\n"
           "DATA's columns to its column clusters: PREFIX.col_labels.tsv (docs/predict.md).\n\n"
           "Options:\n"
           "  -o, --output PREFIX   write PREFIX.labels.tsv, PREFIX.soft.tsv, PREFIX.json, and with a\n"
           "                        co-clustering model PREFIX.col_labels.tsv (default: DATA's\n"
           "                        file name without extensions; PREFIX ending in '/', or an existing\n"
           "                        directory, is a directory for that name)\n"
           "      --no-soft         do not write PREFIX.soft.tsv\n"
           "      --names FILE      column names of DATA, one per line (or 'id|name' lines with\n"
           "                        --names-keyed), matched to the names the model was saved with; a\n"
           "                        repeated name is written NAME#2, NAME#3, ... in line (keyed: id)\n"
           "                        order, as 'mmnc cluster --names' saved it\n"
           "      --col-names FILE  the same as --names\n"
           "      --names-keyed     the names files have 'id|name' or 'id<TAB>name' lines; a row or column\n"
           "                        without a line keeps its id, written ID#2, ... where that id is a\n"
           "                        name in the file, as in 'mmnc cluster' (default off)\n"
           "      --row-names FILE  row names, one per line; used instead of the ids in the outputs, a\n"
           "                        repeated name written NAME#2, ... as for --names (default: DATA.rows\n"
           "                        beside a .mtx DATA)\n"
           "      --allow-unknown   predict even when most of DATA's mass is on columns the model does\n"
           "                        not know (default off: refused)\n"
           "  -t, --threads N       threads, 0 = all cores (default " CLI_STR(MMNC_DEFAULT_THREADS)
           "); results do not depend on it\n"
           "  -q, --quiet           no summary on stdout, no report of unknown columns on stderr\n"
           "  -h, --help            this help\n\n");
    cli_load_help(stdout);
}

/* What the outputs are made of. */
typedef struct pred {
    const char *model_path, *data_path;
    const mmnc_model *m;
    const mmnc_data *d;
    cli_namer nm;
    const mmnc_int *label;
    const double *proba;
    const mmnc_int *col_label; /* co-clustering models: each column's cluster, or -1; else NULL */
    mmnc_int unknown, empty, nnz, held, col_assigned, col_unassigned;
    double loglik, mass; /* the rows' log-likelihood under the model's mixture, and their known mass */
    int write_soft;
} pred;

static const char *row_label(const pred *r, mmnc_int y, char *buf) { return cli_row_label(&r->nm, y, buf); }
static const char *col_label(const pred *r, mmnc_int x, char *buf) { return cli_col_label(&r->nm, x, buf); }

static void write_labels(const pred *r, FILE *fp)
{
    mmnc_int k = r->m->k;
    char buf[32];
    fprintf(fp, "id\tcluster\tprobability\n");
    for (mmnc_int y = 0; y < r->d->A->nrows; y++) {
        mmnc_int z = r->label[y];
        cli_tsv_field(fp, row_label(r, y, buf));
        fprintf(fp, "\t%lld\t%.6g\n", z < 0 ? -1LL : (long long)z + 1,
                z < 0 ? 0.0 : r->proba[y * k + z]);
    }
}

/* Co-clustering models: each column of DATA, its cluster 1..L (-1:
 * unassigned) and how it got it: "model" (a training column), "rows" (an
 * unknown column, by the column rule from the rows' clusters) or "none"
 * (an unknown column without mass on a labelled row). */
static void write_col_labels(const pred *r, const mmnc_int *map, FILE *fp)
{
    char buf[32], buf2[32];
    fprintf(fp, "column\tname\tcol_cluster\tfrom\n");
    for (mmnc_int x = 0; x < r->d->A->ncols; x++) {
        mmnc_int w = r->col_label[x];
        cli_tsv_field(fp, mmnc_data_col_id(r->d, x, buf2));
        fputc('\t', fp);
        cli_tsv_field(fp, col_label(r, x, buf));
        fprintf(fp, "\t%lld\t%s\n", w < 0 ? -1LL : (long long)w + 1, map[x] >= 0 ? "model" : w >= 0 ? "rows" : "none");
    }
}

static void write_soft(const pred *r, FILE *fp)
{
    mmnc_int k = r->m->k;
    char buf[32];
    fprintf(fp, "id");
    for (mmnc_int z = 0; z < k; z++) fprintf(fp, "\tp%lld", (long long)z + 1);
    fputc('\n', fp);
    for (mmnc_int y = 0; y < r->d->A->nrows; y++) {
        cli_tsv_field(fp, row_label(r, y, buf));
        for (mmnc_int z = 0; z < k; z++) fprintf(fp, "\t%.6g", r->proba[y * k + z]);
        fputc('\n', fp);
    }
}

/* At most this many unknown column ids and empty row ids are listed. */
#define LIST_MAX 20

/* r->loglik and r->mass: the rows' log-likelihood under the model's
 * mixture and their mass on its columns (mmnc_model_loglik). */
static int likelihood(pred *r, const mmnc_int *map)
{
    mmnc_int n = r->d->A->nrows;
    double *ll = malloc((size_t)(n ? n : 1) * sizeof(double)), *w = malloc((size_t)(n ? n : 1) * sizeof(double));
    mmnc_err err = {0, ""};
    int rc = CLI_EXIT_OK;
    r->loglik = r->mass = 0.0;
    if (!ll || !w)
        rc = cli_fail(CMD, "out of memory");
    else if (mmnc_model_loglik(r->m, r->d->A, map, ll, w, &err) != MMNC_OK)
        rc = cli_lib_fail(CMD, &err);
    else
        for (mmnc_int y = 0; y < n; y++) r->loglik += ll[y], r->mass += w[y];
    free(ll);
    free(w);
    return rc;
}

static void write_json(const pred *r, const mmnc_int *map, FILE *fp)
{
    const mmnc_model *m = r->m;
    mmnc_int k = m->k, n = r->d->A->nrows, listed = 0, *size = calloc((size_t)k, sizeof(mmnc_int));
    char buf[32];
    fprintf(fp, "{\n  \"mmnc_version\": \"%s\",\n  \"model\": ", MMNC_VERSION_STRING);
    cli_json_string(fp, r->model_path);
    fprintf(fp, ",\n  \"input\": ");
    cli_json_string(fp, r->data_path);
    fprintf(fp, ",\n  \"model_algorithm\": \"%s\",\n  \"model_refine\": \"%s\",\n  \"rule\": \"%s\",\n",
            cli_algorithm_name(m->algorithm),
            cli_refine_name(m->refine), cli_model_rule(m));
    fprintf(fp, "  \"k\": %lld,\n  \"model_columns\": %lld,\n  \"model_training_rows\": %lld,\n", (long long)k,
            (long long)m->ncols, (long long)m->train_rows);
    fprintf(fp, "  \"rows\": %lld,\n  \"columns\": %lld,\n  \"nonzeros\": %lld,\n", (long long)n,
            (long long)r->d->A->ncols, (long long)r->nnz);
    fprintf(fp, "  \"held_rows\": %lld,\n  \"held_rows_matched\": %lld,\n", (long long)m->nheld, (long long)r->held);
    {
        const char *name[4] = {"known_mass", "log_likelihood", "log_likelihood_per_unit", "perplexity"};
        const double per = r->mass > 0.0 ? r->loglik / r->mass : 0.0; /* the last two: only with a mass */
        const double v[4] = {r->mass, r->loglik, per, exp(-per)};
        for (int i = 0; i < (r->mass > 0.0 ? 4 : 2); i++) {
            fprintf(fp, "  \"%s\": ", name[i]);
            cli_json_number(fp, v[i], CLI_JSON_EXACT);
            fprintf(fp, ",\n");
        }
    }
    if (m->l > 0)
        fprintf(fp, "  \"col_clusters\": %lld,\n  \"columns_assigned_from_rows\": %lld,\n"
                    "  \"columns_unassigned\": %lld,\n",
                (long long)m->l, (long long)r->col_assigned, (long long)r->col_unassigned);
    fprintf(fp, "  \"unknown_columns\": %lld,\n  \"unknown_column_ids\": [", (long long)r->unknown);
    for (mmnc_int j = 0; j < r->d->A->ncols && listed < LIST_MAX; j++)
        if (map[j] < 0) {
            fprintf(fp, "%s", listed++ ? ", " : "");
            cli_json_string(fp, col_label(r, j, buf));
        }
    fprintf(fp, "],\n  \"empty_rows\": %lld,\n  \"empty_row_ids\": [", (long long)r->empty);
    listed = 0;
    for (mmnc_int y = 0; y < n && listed < LIST_MAX; y++)
        if (r->label[y] < 0) {
            fprintf(fp, "%s", listed++ ? ", " : "");
            cli_json_string(fp, row_label(r, y, buf));
        }
    fprintf(fp, "],\n  \"cluster_sizes\": [");
    for (mmnc_int y = 0; size && y < n; y++)
        if (r->label[y] >= 0) size[r->label[y]]++;
    for (mmnc_int z = 0; z < k; z++) fprintf(fp, "%s%lld", z ? ", " : "", size ? (long long)size[z] : -1LL);
    fprintf(fp, "]\n}\n");
    free(size);
}

static const char *const out_ext[4] = {".labels.tsv", ".json", ".soft.tsv", ".col_labels.tsv"};

/* The outputs PREFIX.labels.tsv, .json, .soft.tsv and .col_labels.tsv
 * (paths[]; NULL: not written), checked before any work: none an input,
 * all of them or none. */
static int outputs_check(cli_outset *outs, const char *prefix, int write_soft, int write_cols, char **paths)
{
    static const char *const what[4] = {"PREFIX.labels.tsv", "PREFIX.json", "PREFIX.soft.tsv", "PREFIX.col_labels.tsv"};
    for (int i = 0; i < 4; i++) {
        if ((i == 2 && !write_soft) || (i == 3 && !write_cols)) continue;
        if (!(paths[i] = malloc(strlen(prefix) + strlen(out_ext[i]) + 1))) return cli_fail(CMD, "out of memory");
        sprintf(paths[i], "%s%s", prefix, out_ext[i]);
        cli_outset_add(outs, paths[i], what[i], 0);
    }
    return cli_outset_check(outs);
}

/* All the outputs or none. */
static int write_outputs(const pred *r, const mmnc_int *map, cli_outset *outs)
{
    mmnc_outfile out[4];
    mmnc_err err = {0, ""};
    int nout = 2 + (r->write_soft != 0) + (r->col_label != NULL), nopen = 0, rc = CLI_EXIT_OK;
    for (; nopen < nout; nopen++)
        if (mmnc_outfile_open(&out[nopen], cli_outset_path(outs, nopen), &err) != MMNC_OK) {
            rc = cli_outset_lib_fail(outs, &err);
            goto done;
        }
    write_labels(r, out[0].fp);
    write_json(r, map, out[1].fp);
    if (r->write_soft) write_soft(r, out[2].fp);
    if (r->col_label) write_col_labels(r, map, out[nout - 1].fp);
    for (; nopen > 0; nopen--)
        if (mmnc_outfile_commit(&out[nopen - 1], &err) != MMNC_OK) {
            nopen--;
            rc = cli_outset_lib_fail(outs, &err);
            goto done;
        }
    rc = cli_outset_commit(outs);
done:
    for (int i = 0; i < nopen; i++) mmnc_outfile_abort(&out[i]);
    return rc;
}

/* Unknown columns and empty rows on stderr (a few of each, then a count). */
static void report(const pred *r, const mmnc_int *map)
{
    mmnc_int listed = 0;
    char buf[32];
    if (r->unknown > 0) {
        fprintf(stderr, "mmnc %s: %lld of %lld columns of %s are not in the model and are ignored:", CMD,
                (long long)r->unknown, (long long)r->d->A->ncols, r->data_path);
        for (mmnc_int j = 0; j < r->d->A->ncols && listed < LIST_MAX; j++)
            if (map[j] < 0) fprintf(stderr, " %s", col_label(r, j, buf)), listed++;
        fprintf(stderr, "%s\n", r->unknown > listed ? " ..." : "");
    }
    listed = 0;
    if (r->empty > 0) {
        fprintf(stderr, "mmnc %s: %lld rows have no value in a column the model knows (cluster -1):", CMD,
                (long long)r->empty);
        for (mmnc_int y = 0; y < r->d->A->nrows && listed < LIST_MAX; y++)
            if (r->label[y] < 0) fprintf(stderr, " %s", row_label(r, y, buf)), listed++;
        fprintf(stderr, "%s\n", r->empty > listed ? " ..." : "");
    }
}

/* The data's columns as the model knows them: with --names, by name. */
static int match_columns(const pred *r, mmnc_int *map, mmnc_int *unknown)
{
    mmnc_data view = *r->d;
    mmnc_int nx = r->d->A->ncols;
    mmnc_err err = {0, ""};
    char **cn = NULL, buf[32];
    int rc = CLI_EXIT_OK;
    if (r->nm.cn) {
        if (!(cn = calloc((size_t)nx, sizeof(char *)))) return cli_fail(CMD, "out of memory");
        for (mmnc_int x = 0; x < nx && rc == CLI_EXIT_OK; x++)
            if (!(cn[x] = strdup(col_label(r, x, buf)))) rc = cli_fail(CMD, "out of memory");
        view.col_names = cn;
    }
    if (rc == CLI_EXIT_OK && mmnc_model_match(r->m, &view, map, unknown, &err) != MMNC_OK) rc = cli_lib_fail(CMD, &err);
    if (rc == CLI_EXIT_OK && *unknown == nx)
        rc = cli_fail(CMD, "none of the %lld columns of %s is known to %s (data ids like '%s', model ids like '%s')%s",
                      (long long)nx, r->data_path, r->model_path, col_label(r, 0, buf), r->m->col_ids[0],
                      r->nm.cn ? "" : ": give the column names the model was saved with (--names)");
    if (cn)
        for (mmnc_int x = 0; x < nx; x++) free(cn[x]);
    free(cn);
    return rc;
}

/* Unknown columns that hold more than half of the data's mass mean that
 * the data's columns are not the model's (ids against names, another
 * vocabulary): refused, naming how many matched, unless allowed. */
static int check_unknown_mass(const pred *r, const mmnc_int *map, int allow)
{
    const mmnc_csr *A = r->d->A;
    double total = 0.0, unknown = 0.0;
    mmnc_int x0 = -1;
    char buf[32];
    if (allow || r->unknown == 0) return CLI_EXIT_OK;
    for (mmnc_int e = 0; e < A->nnz; e++) {
        total += A->val[e];
        if (map[A->colind[e]] < 0) unknown += A->val[e];
    }
    if (!(unknown > 0.5 * total)) return CLI_EXIT_OK;
    for (mmnc_int x = 0; x < A->ncols && x0 < 0; x++)
        if (map[x] < 0) x0 = x;
    return cli_fail(CMD, "%s: %lld of %lld columns (%.0f%% of the mass) are not known to %s: %lld matched "
                         "(unknown ids like '%s', model ids like '%s'): give the column names the model was saved "
                         "with (--names), or --allow-unknown to predict from the known columns alone",
                    r->data_path, (long long)r->unknown, (long long)A->ncols, 100.0 * unknown / total, r->model_path,
                    (long long)(A->ncols - r->unknown), col_label(r, x0, buf), r->m->col_ids[0]);
}

int cmd_predict(int argc, char **argv)
{
    enum { O_NOSOFT = 256, O_NAMES, O_NAMESK, O_ROWNAMES, O_ALLOWUNK };
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'}, {"no-soft", no_argument, 0, O_NOSOFT},
        {"names", required_argument, 0, O_NAMES}, {"col-names", required_argument, 0, O_NAMES},
        {"names-keyed", no_argument, 0, O_NAMESK}, {"row-names", required_argument, 0, O_ROWNAMES},
        {"allow-unknown", no_argument, 0, O_ALLOWUNK},
        {"threads", required_argument, 0, 't'}, {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'},
        CLI_LOAD_OPTIONS, {0, 0, 0, 0}};
    cli_load load;
    const char *prefix_arg = NULL, *names_path = NULL, *rnames_path = NULL, *model_path, *data_path;
    char *prefix = NULL, *side_rows = NULL, *side_cols = NULL, *paths[4] = {NULL, NULL, NULL, NULL};
    cli_outset *outs = NULL;
    int quiet = 0, c, longidx, rc = CLI_EXIT_OK, threads = MMNC_DEFAULT_THREADS, allow_unknown = 0;
    long long v;
    mmnc_model *m = NULL;
    mmnc_data *d = NULL;
    mmnc_int *map = NULL, *label = NULL, *clabel = NULL, rd = 0, cd = 0;
    double *proba = NULL;
    mmnc_err err = {0, ""};
    pred r;

    memset(&r, 0, sizeof r);
    r.write_soft = 1;
    cli_load_default(&load);
    load.lo.drop_empty = 0; /* every row gets a label; empty ones -1 */
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:t:qh", opts, &longidx)) != -1) {
        switch (c) {
        case 'o': prefix_arg = optarg; break;
        case 't': if (cli_parse_int(CMD, "--threads", optarg, 0, 4096, &v)) return CLI_EXIT_USAGE; threads = (int)v; break;
        case 'q': quiet = 1; break;
        case 'h': help(); return CLI_EXIT_OK;
        case O_NOSOFT: r.write_soft = 0; break;
        case O_NAMES: names_path = optarg; break;
        case O_NAMESK: r.nm.keyed = 1; break;
        case O_ROWNAMES: rnames_path = optarg; break;
        case O_ALLOWUNK: allow_unknown = 1; break;
        default:
            if ((c = cli_other_option(CMD, c, argv, &load, opts, longidx)) != 0) return c;
            break;
        }
    }
    if (argc - optind != 2)
        return cli_usage_error(CMD, argc - optind < 2 ? "expected MODEL and DATA" : "expected one MODEL and one DATA file");
    if (r.nm.keyed && !names_path && !rnames_path)
        return cli_usage_error(CMD, "--names-keyed applies to --names or --row-names, neither given");
    model_path = argv[optind];
    data_path = argv[optind + 1];
#ifdef _OPENMP
    if (threads > 0) omp_set_num_threads(threads);
#endif
    if ((rc = cli_output_prefix(CMD, prefix_arg, data_path, &prefix)) != CLI_EXIT_OK) return rc;
    /* DATA.rows and DATA.cols name the rows and columns unless names are given, as in cluster */
    if (!r.nm.keyed) {
        int tr = load.lo.transpose;
        if (!rnames_path && (side_rows = cli_side_file(data_path, tr ? ".cols" : ".rows"))) rnames_path = side_rows;
        if (!names_path && (side_cols = cli_side_file(data_path, tr ? ".rows" : ".cols"))) names_path = side_cols;
        if ((side_rows || side_cols) && !quiet)
            fprintf(stderr, "mmnc %s: names from %s%s%s (give --row-names or --names to override)\n", CMD,
                    side_rows ? side_rows : "", side_rows && side_cols ? " and " : "", side_cols ? side_cols : "");
    }
    if (!(outs = cli_outset_new(CMD))) { rc = cli_fail(CMD, "out of memory"); goto done; }
    cli_outset_input(outs, model_path, "MODEL");
    cli_outset_input(outs, data_path, "DATA");
    cli_outset_input(outs, names_path, "--names");
    cli_outset_input(outs, rnames_path, "--row-names");
    if (mmnc_model_read(model_path, &m, &err) != MMNC_OK) { rc = cli_lib_fail(CMD, &err); goto done; }
    if ((rc = outputs_check(outs, prefix, r.write_soft, m->l > 0, paths)) != CLI_EXIT_OK) goto done;
    if ((rc = cli_load_data(CMD, data_path, &load, quiet, &d, &rd, &cd)) != CLI_EXIT_OK) goto done;
    r.model_path = model_path, r.data_path = data_path, r.m = m, r.d = d, r.nm.d = d, r.nnz = d->A->nnz;
    if (names_path && (rc = cli_names_read(CMD, names_path, r.nm.keyed, d->orig_cols, "columns", 1, &r.nm.nc,
                                           &r.nm.cn)) != CLI_EXIT_OK)
        goto done;
    if (rnames_path && (rc = cli_names_read(CMD, rnames_path, r.nm.keyed, d->orig_rows, "rows",
                                            !names_path || strcmp(names_path, rnames_path), &r.nm.nr, &r.nm.rn)) !=
                           CLI_EXIT_OK)
        goto done;
    if ((rc = cli_namer_fill(CMD, &r.nm, 0, rnames_path)) != CLI_EXIT_OK ||
        (rc = cli_namer_fill(CMD, &r.nm, 1, names_path)) != CLI_EXIT_OK)
        goto done;
    map = malloc((size_t)(d->A->ncols ? d->A->ncols : 1) * sizeof(mmnc_int));
    label = malloc((size_t)(d->A->nrows ? d->A->nrows : 1) * sizeof(mmnc_int));
    proba = malloc((size_t)(d->A->nrows ? d->A->nrows : 1) * (size_t)m->k * sizeof(double));
    if (!map || !label || !proba) { rc = cli_fail(CMD, "out of memory"); goto done; }
    if ((rc = match_columns(&r, map, &r.unknown)) != CLI_EXIT_OK) goto done;
    if ((rc = check_unknown_mass(&r, map, allow_unknown)) != CLI_EXIT_OK) goto done;
    if (mmnc_model_predict_ex(m, d->A, map, label, proba, &r.empty, &r.held, &err) != MMNC_OK) { rc = cli_lib_fail(CMD, &err); goto done; }
    r.label = label, r.proba = proba;
    if ((rc = likelihood(&r, map)) != CLI_EXIT_OK) goto done;
    if (m->l > 0) {
        if (!(clabel = malloc((size_t)(d->A->ncols ? d->A->ncols : 1) * sizeof(mmnc_int)))) { rc = cli_fail(CMD, "out of memory"); goto done; }
        if (mmnc_model_predict_cols(m, d->A, map, label, clabel, &r.col_assigned, &r.col_unassigned, &err) != MMNC_OK) {
            rc = cli_lib_fail(CMD, &err);
            goto done;
        }
        r.col_label = clabel;
    }
    if (!quiet) report(&r, map);
    if ((rc = write_outputs(&r, map, outs)) != CLI_EXIT_OK) goto done;
    if (!quiet)
        printf("%s: %lld rows assigned to the %lld clusters of %s (rule: %s), %lld without a known column; "
               "%lld of %lld columns unknown\nwrote %s.labels.tsv, %s%s%s.json\n",
               data_path, (long long)(d->A->nrows - r.empty), (long long)m->k, model_path, cli_model_rule(m),
               (long long)r.empty, (long long)r.unknown, (long long)d->A->ncols, prefix, r.write_soft ? prefix : "",
               r.write_soft ? ".soft.tsv, " : "", prefix);
    if (!quiet && r.mass > 0.0)
        printf("log-likelihood per unit of known mass under the model's mixture: %.6g (perplexity %.6g)\n",
               r.loglik / r.mass, exp(-r.loglik / r.mass));
    if (!quiet && m->nheld > 0)
        printf("%lld rows are identical to rows held at a label in training and got that label\n", (long long)r.held);
    if (!quiet && m->l > 0)
        printf("columns: %lld known to the model, %lld assigned from the rows' clusters, %lld unassigned (-1); "
               "wrote %s.col_labels.tsv\n", (long long)(d->A->ncols - r.unknown), (long long)r.col_assigned,
               (long long)r.col_unassigned, prefix);
done:
    cli_outset_free(outs);
    for (int i = 0; i < 4; i++) free(paths[i]);
    free(clabel);
    mmnc_model_free(m);
    cli_namer_free_fill(&r.nm);
    mmnc_data_free(d);
    if (r.nm.cn) mmnc_names_free(r.nm.nc, r.nm.cn);
    if (r.nm.rn) mmnc_names_free(r.nm.nr, r.nm.rn);
    free(map);
    free(label);
    free(proba);
    free(prefix);
    mmnc_free(side_rows);
    mmnc_free(side_cols);
    return rc;
}
