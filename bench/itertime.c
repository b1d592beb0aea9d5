/*
 * itertime.c -- time of one iteration of mmnc's solvers, for bench/perf.
 *
 *   itertime DATA [-a nuclear|frobenius|information] [-k K] [-t THREADS] [-s SEED]
 *                 [-r RESTARTS] [--max-iter N] [--low-memory]
 *                 [--columns frequency|random]
 *
 * Loads DATA as `mmnc cluster` does (any format; rows and columns without
 * mass dropped), then runs mmnc_cluster with a progress function that
 * records the clock at every call.  Both solvers call it once per iteration
 * (Algorithm 2 after each accepted step, Algorithm 1 after the two sparse
 * products of each gradient step), so the gaps between consecutive calls of
 * one start are whole iterations, without the start's set-up (initial
 * labels, first evaluation, the DTM entries of Algorithm 1) or the final
 * statistics that `seconds_cluster / iterations` would include.
 *
 * Output: one JSON object on stdout with the shape, the load, pmf and
 * cluster times, the iterations, and the median, minimum and mean of the
 * iteration gaps ("iter_s_*"; absent when a start made fewer than two
 * iterations), and the first gap, iteration 2 of the first start
 * ("iter_s_first": for the information objective a sweep that still remakes
 * nearly every cost).  --low-memory builds the pmf without P^T
 * (MMNC_PMF_NO_TRANSPOSE), as `mmnc cluster --low-memory` does.
 * --columns renumbers the columns before the pmf is built -- by decreasing
 * number of nonzeros (ties by index) or in a random order drawn from the
 * seed -- each row then sorted by the new numbers: what a frequency
 * ordering of the columns inside the library would gain on the gathers
 * (issue 18; the sums then run in another order, so the clusterings may
 * differ in the last bits).  Uses only
 * the public API (include/mmnc.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mmnc.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct clockbook {
    double *last;  /* per start: time of its previous call, < 0 before the first */
    double *gap;   /* iteration gaps of all starts */
    size_t n, cap;
    int failed;
} clockbook;

static int on_progress(void *ctx, int restart, int iter, double objective)
{
    clockbook *cb = ctx;
    double t = now();
    (void)iter;
    (void)objective;
    if (cb->last[restart] >= 0.0) {
        if (cb->n == cb->cap) {
            size_t cap = cb->cap ? 2 * cb->cap : 1024;
            double *g = realloc(cb->gap, cap * sizeof(double));
            if (!g) {
                cb->failed = 1;
                return 0;
            }
            cb->gap = g;
            cb->cap = cap;
        }
        cb->gap[cb->n++] = t - cb->last[restart];
    }
    cb->last[restart] = t;
    return 0;
}

static int by_value(const void *a, const void *b)
{
    double u = *(const double *)a, v = *(const double *)b;
    return (u > v) - (u < v);
}

static const mmnc_int *by_key_base;
static int by_key(const void *a, const void *b)
{
    mmnc_int u = by_key_base[*(const mmnc_int *)a], v = by_key_base[*(const mmnc_int *)b];
    return (u > v) - (u < v);
}

/* Renumber A's columns: new[j] for old column j, "frequency" (decreasing
 * nonzeros) or "random"; rows re-sorted.  Returns 0, or -1 out of memory. */
static int renumber_columns(mmnc_csr *A, const char *how, uint64_t seed)
{
    mmnc_int nx = A->ncols, *cnt = calloc((size_t)nx + 1, sizeof *cnt), *ord = malloc(((size_t)nx + 1) * sizeof *ord),
             *nw = malloc(((size_t)nx + 1) * sizeof *nw), *key = NULL, *idx = NULL;
    double *tv = NULL;
    mmnc_int *tc = NULL, maxrow = 1;
    int rc = -1;
    if (!cnt || !ord || !nw) goto done;
    for (mmnc_int e = 0; e < A->nnz; e++) cnt[A->colind[e]]++;
    for (mmnc_int j = 0; j < nx; j++) ord[j] = j;
    if (!strcmp(how, "random")) {
        mmnc_rng r;
        mmnc_rng_seed(&r, seed);
        for (mmnc_int j = nx - 1; j > 0; j--) {
            mmnc_int i = mmnc_rng_below(&r, j + 1), t = ord[j];
            ord[j] = ord[i];
            ord[i] = t;
        }
    } else { /* decreasing count, ties by index: sort by (-count, j) */
        key = malloc(((size_t)nx + 1) * sizeof *key);
        if (!key) goto done;
        for (mmnc_int j = 0; j < nx; j++) key[j] = -cnt[j] * (nx + 1) + j;
        by_key_base = key;
        qsort(ord, (size_t)nx, sizeof *ord, by_key);
    }
    for (mmnc_int j = 0; j < nx; j++) nw[ord[j]] = j;
    for (mmnc_int y = 0; y < A->nrows; y++)
        if (A->rowptr[y + 1] - A->rowptr[y] > maxrow) maxrow = A->rowptr[y + 1] - A->rowptr[y];
    idx = malloc((size_t)maxrow * sizeof *idx);
    tc = malloc((size_t)maxrow * sizeof *tc);
    tv = malloc((size_t)maxrow * sizeof *tv);
    if (!idx || !tc || !tv) goto done;
    for (mmnc_int y = 0; y < A->nrows; y++) {
        mmnc_int e0 = A->rowptr[y], n = A->rowptr[y + 1] - e0;
        for (mmnc_int i = 0; i < n; i++) {
            tc[i] = nw[A->colind[e0 + i]];
            tv[i] = A->val[e0 + i];
            idx[i] = i;
        }
        by_key_base = tc;
        qsort(idx, (size_t)n, sizeof *idx, by_key);
        for (mmnc_int i = 0; i < n; i++) {
            A->colind[e0 + i] = tc[idx[i]];
            A->val[e0 + i] = tv[idx[i]];
        }
    }
    rc = 0;
done:
    free(cnt);
    free(ord);
    free(nw);
    free(key);
    free(idx);
    free(tc);
    free(tv);
    return rc;
}

static void usage(FILE *fp)
{
    fprintf(fp, "Usage: itertime DATA [-a nuclear|frobenius|information] [-k K] [-t THREADS] [-s SEED] [-r RESTARTS] [--max-iter N] [--low-memory]\n"
                "                [--columns frequency|random]\n"
                "Time per iteration of mmnc's solvers (JSON on stdout).  Defaults: nuclear, k 10,\n"
                "all cores, seed 1, 1 start, the library's iteration cap.\n");
}

/* as the mmnc tool does (include/mmnc.h: Threads) */
void openblas_set_num_threads(int num_threads);

int main(int argc, char **argv)
{
    mmnc_err err = {0, ""};
    mmnc_read_opts ro;
    mmnc_data *d = NULL;
    mmnc_pmf *p = NULL;
    mmnc_params prm;
    mmnc_result *r = NULL;
    clockbook cb = {0};
    const char *path = NULL, *columns = NULL;
    int rc = 1, total_iter = 0, flags = 0;
    double t0, t1, t2, t3;
    openblas_set_num_threads(1);
    mmnc_params_default(&prm);
    prm.algorithm = MMNC_ALG_NUCLEAR;
    prm.k = 10;
    prm.restarts = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "-a") && more) {
            a = argv[++i];
            if (!strcmp(a, "nuclear")) prm.algorithm = MMNC_ALG_NUCLEAR;
            else if (!strcmp(a, "frobenius")) prm.algorithm = MMNC_ALG_FROBENIUS;
            else if (!strcmp(a, "information")) prm.algorithm = MMNC_ALG_INFORMATION;
            else {
                usage(stderr);
                return 2;
            }
        } else if (!strcmp(a, "-k") && more) prm.k = atoll(argv[++i]);
        else if (!strcmp(a, "-t") && more) prm.threads = atoi(argv[++i]);
        else if (!strcmp(a, "-s") && more) prm.seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "-r") && more) prm.restarts = atoi(argv[++i]);
        else if (!strcmp(a, "--max-iter") && more) prm.max_iter = atoi(argv[++i]);
        else if (!strcmp(a, "--low-memory")) flags |= MMNC_PMF_NO_TRANSPOSE;
        else if (!strcmp(a, "--columns") && more) {
            columns = argv[++i];
            if (strcmp(columns, "frequency") && strcmp(columns, "random")) {
                usage(stderr);
                return 2;
            }
        }
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (a[0] != '-' && !path) path = a;
        else {
            usage(stderr);
            return 2;
        }
    }
    if (!path || prm.restarts < 1) {
        usage(stderr);
        return 2;
    }
    cb.last = malloc((size_t)prm.restarts * sizeof(double));
    if (!cb.last) goto done;
    for (int i = 0; i < prm.restarts; i++) cb.last[i] = -1.0;
    prm.progress = on_progress;
    prm.progress_ctx = &cb;
    mmnc_read_opts_default(&ro);
    t0 = now();
    if (mmnc_data_read(path, &ro, &d, &err) || mmnc_data_drop_empty(d, NULL, NULL, &err)) goto fail;
    if (columns && renumber_columns(d->A, columns, prm.seed) != 0) {
        fprintf(stderr, "itertime: out of memory\n");
        goto done;
    }
    t1 = now();
    if (mmnc_pmf_build_ex(d->A, flags, &p, &err)) goto fail;
    t2 = now();
    if (mmnc_cluster(p, &prm, &r, &err)) goto fail;
    t3 = now();
    if (cb.failed) {
        fprintf(stderr, "itertime: out of memory\n");
        goto done;
    }
    for (int i = 0; i < r->restarts; i++) total_iter += r->restart_iterations[i];
    printf("{\"rows\": %lld, \"columns\": %lld, \"nonzeros\": %lld, \"k\": %lld, \"threads\": %d, "
           "\"algorithm\": \"%s\", \"columns\": \"%s\", \"restarts\": %d, \"seconds_load\": %.6f, \"seconds_pmf\": %.6f, "
           "\"seconds_cluster\": %.6f, \"seconds_cluster_lib\": %.6f, \"iterations\": %d, \"converged\": %s, "
           "\"objective\": %.17g, \"gaps\": %zu",
           (long long)p->ny, (long long)p->nx, (long long)p->nnz, (long long)prm.k, prm.threads,
           prm.algorithm == MMNC_ALG_NUCLEAR     ? "nuclear"
           : prm.algorithm == MMNC_ALG_FROBENIUS ? "frobenius"
                                                 : "information",
           columns ? columns : "as read", prm.restarts, t1 - t0, t2 - t1, t3 - t2,
           r->seconds, total_iter, r->converged ? "true" : "false", r->objective, cb.n);
    if (cb.n > 0) {
        double s = 0.0;
        for (size_t i = 0; i < cb.n; i++) s += cb.gap[i];
        printf(", \"iter_s_first\": %.6g", cb.gap[0]); /* the first whole gap: iteration 2 of start 0 */
        qsort(cb.gap, cb.n, sizeof(double), by_value);
        printf(", \"iter_s_median\": %.6g, \"iter_s_min\": %.6g, \"iter_s_mean\": %.6g",
               cb.n % 2 ? cb.gap[cb.n / 2] : 0.5 * (cb.gap[cb.n / 2 - 1] + cb.gap[cb.n / 2]), cb.gap[0],
               s / (double)cb.n);
    }
    printf("}\n");
    rc = 0;
    goto done;
fail:
    fprintf(stderr, "itertime: %s\n", err.msg);
done:
    mmnc_result_free(r);
    mmnc_pmf_free(p);
    mmnc_data_free(d);
    free(cb.last);
    free(cb.gap);
    return rc;
}
