/*
 * itertime.c -- time of one iteration of mmnc's solvers, for bench/perf.
 *
 *   itertime DATA [-a nuclear|frobenius] [-k K] [-t THREADS] [-s SEED]
 *                 [-r RESTARTS] [--max-iter N] [--low-memory]
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
 * iterations).  --low-memory builds the pmf without P^T
 * (MMNC_PMF_NO_TRANSPOSE), as `mmnc cluster --low-memory` does.  Uses only
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

static void usage(FILE *fp)
{
    fprintf(fp, "Usage: itertime DATA [-a nuclear|frobenius] [-k K] [-t THREADS] [-s SEED] [-r RESTARTS] [--max-iter N] [--low-memory]\n"
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
    const char *path = NULL;
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
           "\"algorithm\": \"%s\", \"restarts\": %d, \"seconds_load\": %.6f, \"seconds_pmf\": %.6f, "
           "\"seconds_cluster\": %.6f, \"seconds_cluster_lib\": %.6f, \"iterations\": %d, \"converged\": %s, "
           "\"objective\": %.17g, \"gaps\": %zu",
           (long long)p->ny, (long long)p->nx, (long long)p->nnz, (long long)prm.k, prm.threads,
           prm.algorithm == MMNC_ALG_NUCLEAR ? "nuclear" : "frobenius", prm.restarts, t1 - t0, t2 - t1, t3 - t2,
           r->seconds, total_iter, r->converged ? "true" : "false", r->objective, cb.n);
    if (cb.n > 0) {
        double s = 0.0;
        for (size_t i = 0; i < cb.n; i++) s += cb.gap[i];
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
