/*
 * embed-floor.c -- the hardware floor of `mmnc embed`'s products, measured in
 * the same run as the products themselves (bench/NOTES.md, "Embeddings").
 *
 *   embed-floor DATA [-d DIM] [--oversample N] [-t THREADS] [--reps N]
 *                    [--stream-mib MIB] [--no-baseline]
 *
 * Loads DATA as `mmnc embed` does (rows and columns without mass dropped,
 * P and P^T), takes the block width of the subspace iteration l = DIM +
 * oversample (default oversample max(20, DIM / 4), as mmnc_embed, which
 * deflates the trivial pair instead of computing it), and
 * measures on THREADS threads (default: all cores):
 *
 *   dgemm     GFLOP/s of OpenBLAS dgemm, one single-threaded call per thread
 *             on its own 4096 x l times l x l blocks (the shape of the
 *             subspace iteration's dense work), all threads at once;
 *   stream    GB/s of a triad a[i] = b[i] + s c[i] and of a read-only sum
 *             over 3 arrays of MIB/3 MiB (bytes counted as STREAM counts);
 *   B X, B^T Y  the library's mmnc_dtm_mul / mmnc_dtm_tmul with l columns,
 *             and (unless --no-baseline) the row-at-a-time product that was
 *             the library's before (a verbatim copy), interleaved, best of
 *             N reps;
 *   the dense steps of one iteration at this l: a Gram sum G = Q^T Q
 *             (dsyrk) and Q <- Q R^{-1} (dtrsm) on 8 row blocks (one
 *             CholeskyQR round), and the l x l SVD (dgesvd, one thread).
 *
 * The floor of one product Y = B X (X is nx x l, Y ny x l) is
 *
 *     max(2 nnz l / dgemm rate,  (16 nnz + 8 (rows + 1) + 8 nx l + 8 ny l) / triad rate)
 *
 * -- its flops at the dgemm rate, or its bytes (the matrix with 8-byte
 * values and indices and X read once, Y written once) at the streaming
 * rate, whichever is larger.  Output: a table on stderr and one JSON object
 * on stdout.  Also checks that the library and the baseline agree bit for
 * bit (they are meant to).
 */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mmnc.h"

void openblas_set_num_threads(int num_threads);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The library's product before the cache-blocked one (src/linalg/pmf.c at c345216,
 * scaled_mul), verbatim: one row at a time, the whole l-row of X per nonzero. */
static void baseline_mul(const mmnc_csr *M, const double *dr, const double *dc, mmnc_int m, const double *X, double *Y)
{
#pragma omp parallel for schedule(dynamic, 256) if (M->nnz * m > 100000)
    for (mmnc_int i = 0; i < M->nrows; i++) {
        double *yi = Y + i * m;
        for (mmnc_int j = 0; j < m; j++) yi[j] = 0.0;
        for (mmnc_int e = M->rowptr[i]; e < M->rowptr[i + 1]; e++) {
            mmnc_int c = M->colind[e];
            double v = M->val[e] / sqrt(dc[c]);
            const double *xc = X + c * m;
            for (mmnc_int j = 0; j < m; j++) yi[j] += v * xc[j];
        }
        double s = 1.0 / sqrt(dr[i]);
        for (mmnc_int j = 0; j < m; j++) yi[j] *= s;
    }
}

/* GFLOP/s of dgemm: every thread multiplies its own rows x l by l x l. */
static double gemm_rate(int threads, mmnc_int l, int reps)
{
    const mmnc_int rows = 4096;
    double best = 1e300;
    double *A = malloc((size_t)threads * rows * l * sizeof(double)), *B = malloc((size_t)l * l * sizeof(double)),
           *C = malloc((size_t)threads * rows * l * sizeof(double));
    if (!A || !B || !C) {
        free(A), free(B), free(C);
        return NAN;
    }
    for (size_t i = 0; i < (size_t)threads * rows * l; i++) A[i] = sin((double)i);
    for (size_t i = 0; i < (size_t)l * l; i++) B[i] = cos((double)i);
    for (int r = 0; r < reps; r++) {
        double t0 = now();
#pragma omp parallel num_threads(threads)
        {
            size_t t = (size_t)omp_get_thread_num();
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)l, (int)l, 1.0, A + t * rows * l,
                        (int)l, B, (int)l, 0.0, C + t * rows * l, (int)l);
        }
        double t = now() - t0;
        if (t < best) best = t;
    }
    free(A), free(B), free(C);
    return 2.0 * (double)threads * (double)rows * (double)l * (double)l / best / 1e9;
}

/* GB/s of a triad and of a read-only sum over arrays of n doubles. */
static void stream_rate(int threads, size_t n, int reps, double *triad, double *read)
{
    double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double)), *c = malloc(n * sizeof(double));
    double bt = 1e300, br = 1e300, sink = 0.0;
    *triad = *read = NAN;
    if (!a || !b || !c) {
        free(a), free(b), free(c);
        return;
    }
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 0; i < n; i++) a[i] = 0.0, b[i] = 1.0, c[i] = 2.0;
    for (int r = 0; r < reps; r++) {
        double t0 = now(), s = 0.0;
#pragma omp parallel for schedule(static) num_threads(threads)
        for (size_t i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
        double t1 = now();
#pragma omp parallel for schedule(static) reduction(+ : s) num_threads(threads)
        for (size_t i = 0; i < n; i++) s += a[i] + b[i] + c[i];
        double t2 = now();
        sink += s;
        if (t1 - t0 < bt) bt = t1 - t0;
        if (t2 - t1 < br) br = t2 - t1;
    }
    if (sink != (double)reps * 10.0 * (double)n) fprintf(stderr, "embed-floor: stream sum is wrong\n");
    *triad = 24.0 * (double)n / bt / 1e9;
    *read = 24.0 * (double)n / br / 1e9;
    free(a), free(b), free(c);
}

/* Seconds of one CholeskyQR round's dense work on an n x l block: the Gram
 * sum (dsyrk) and the triangular solve (dtrsm), on 8 row blocks. */
static void cholqr_time(int threads, mmnc_int n, mmnc_int l, int reps, double *syrk_s, double *trsm_s,
                        double *gemm_gram_s, double *trmm_s)
{
    double *Q = malloc((size_t)n * l * sizeof(double)), *G = malloc(8 * (size_t)l * l * sizeof(double));
    double bs = 1e300, bt = 1e300, bg = 1e300, bm = 1e300;
    *syrk_s = *trsm_s = *gemm_gram_s = *trmm_s = NAN;
    if (!Q || !G) {
        free(Q), free(G);
        return;
    }
    for (size_t i = 0; i < (size_t)n * l; i++) Q[i] = sin((double)i + 0.5);
    for (int r = 0; r < reps; r++) {
        double t0 = now();
#pragma omp parallel for schedule(static, 1) num_threads(threads)
        for (int b = 0; b < 8; b++) {
            mmnc_int lo = n * b / 8, hi = n * (b + 1) / 8;
            cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)l, (int)(hi - lo), 1.0, Q + lo * l, (int)l, 0.0,
                        G + (size_t)b * l * l, (int)l);
        }
        double t1 = now();
        for (mmnc_int i = 0; i < l; i++) /* a well-conditioned upper triangle */
            for (mmnc_int j = 0; j < l; j++) G[i * l + j] = j < i ? 0.0 : j == i ? 2.0 : 1.0 / (double)(l + j);
#pragma omp parallel for schedule(static, 1) num_threads(threads)
        for (int b = 0; b < 8; b++) {
            mmnc_int lo = n * b / 8, hi = n * (b + 1) / 8;
            cblas_dtrsm(CblasRowMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, (int)(hi - lo), (int)l,
                        1.0, G, (int)l, Q + lo * l, (int)l);
        }
        double t2 = now();
        /* the same Gram sums by dgemm (both triangles), and Q <- Q R^{-1} as
         * Q <- Q T with T = R^{-1} upper triangular (dtrmm) */
#pragma omp parallel for schedule(static, 1) num_threads(threads)
        for (int b = 0; b < 8; b++) {
            mmnc_int lo = n * b / 8, hi = n * (b + 1) / 8;
            cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)l, (int)l, (int)(hi - lo), 1.0, Q + lo * l,
                        (int)l, Q + lo * l, (int)l, 0.0, G + (size_t)b * l * l, (int)l);
        }
        double t3 = now();
        for (mmnc_int i = 0; i < l; i++)
            for (mmnc_int j = 0; j < l; j++) G[i * l + j] = j < i ? 0.0 : j == i ? 0.5 : 1.0 / (double)(l + j);
#pragma omp parallel for schedule(static, 1) num_threads(threads)
        for (int b = 0; b < 8; b++) {
            mmnc_int lo = n * b / 8, hi = n * (b + 1) / 8;
            cblas_dtrmm(CblasRowMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, (int)(hi - lo), (int)l,
                        1.0, G, (int)l, Q + lo * l, (int)l);
        }
        double t4 = now();
        if (t1 - t0 < bs) bs = t1 - t0;
        if (t2 - t1 < bt) bt = t2 - t1;
        if (t3 - t2 < bg) bg = t3 - t2;
        if (t4 - t3 < bm) bm = t4 - t3;
    }
    *syrk_s = bs;
    *trsm_s = bt;
    *gemm_gram_s = bg;
    *trmm_s = bm;
    free(Q), free(G);
}

static double svd_time(mmnc_int l)
{
    double *A = malloc((size_t)l * l * sizeof(double)), *U = malloc((size_t)l * l * sizeof(double)),
           *s = malloc((size_t)l * sizeof(double)), *sup = malloc((size_t)l * sizeof(double)), t0, t;
    if (!A || !U || !s || !sup) {
        free(A), free(U), free(s), free(sup);
        return NAN;
    }
    for (mmnc_int i = 0; i < l * l; i++) A[i] = sin((double)i * 0.37);
    t0 = now();
    LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'O', 'A', (lapack_int)l, (lapack_int)l, A, (lapack_int)l, s, NULL, (lapack_int)l,
                   U, (lapack_int)l, sup);
    t = now() - t0;
    free(A), free(U), free(s), free(sup);
    return t;
}

/* CPU seconds of the whole process: on a shared machine, wall time / CPU
 * time / threads says how much of the run the threads were scheduled. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int usage(void)
{
    fprintf(stderr, "Usage: embed-floor DATA [-d DIM] [--oversample N] [-t THREADS] [--reps N] [--stream-mib MIB] "
                    "[--no-baseline] [--no-products]\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    mmnc_int dim = 640, over = -1, l;
    int threads = 0, reps = 3, baseline = 1, products = 1;
    double mib = 768.0;
    mmnc_err err = {0, ""};
    mmnc_load_opts lo;
    mmnc_data *d = NULL;
    mmnc_pmf *p = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-d") && i + 1 < argc) dim = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--oversample") && i + 1 < argc) over = atoll(argv[++i]);
        else if (!strcmp(argv[i], "-t") && i + 1 < argc) threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--stream-mib") && i + 1 < argc) mib = atof(argv[++i]);
        else if (!strcmp(argv[i], "--no-baseline")) baseline = 0;
        else if (!strcmp(argv[i], "--no-products")) products = 0, baseline = 0;
        else if (argv[i][0] == '-' || path) return usage();
        else path = argv[i];
    }
    if (!path || dim < 1 || reps < 1 || mib <= 0) return usage();
    openblas_set_num_threads(1); /* as the CLI: threads come from OpenMP */
    if (threads > 0) omp_set_num_threads(threads);
    threads = omp_get_max_threads();
    if (over < 0) over = dim / 4 > 20 ? dim / 4 : 20;
    l = dim + over;

    double t0 = now();
    mmnc_load_opts_default(&lo);
    if (mmnc_data_load(path, &lo, NULL, &d, NULL, NULL, &err) != MMNC_OK ||
        mmnc_pmf_build_ex(d->A, 0, &p, &err) != MMNC_OK) {
        fprintf(stderr, "embed-floor: %s\n", err.msg);
        return 1;
    }
    double load_s = now() - t0;
    if (l > p->nx || l > p->ny) l = p->nx < p->ny ? p->nx : p->ny;

    double gflops = gemm_rate(threads, l, reps), triad, read;
    stream_rate(threads, (size_t)(mib * 1048576.0 / 24.0), reps, &triad, &read);

    double *X = malloc((size_t)p->nx * l * sizeof(double)), *Y = malloc((size_t)p->ny * l * sizeof(double)),
           *Yb = malloc((size_t)p->ny * l * sizeof(double)), *Xb = malloc((size_t)p->nx * l * sizeof(double));
    if (!X || !Y || !Yb || !Xb) {
        fprintf(stderr, "embed-floor: out of memory\n");
        return 1;
    }
    for (mmnc_int i = 0; i < p->nx * l; i++) X[i] = sin((double)i * 0.001 + 0.3);
    double best[4] = {1e300, 1e300, 1e300, 1e300}; /* mul, tmul, baseline mul, baseline tmul */
    double cpu[4] = {1e300, 1e300, 1e300, 1e300};   /* the same in CPU seconds of the process */
    for (int r = 0; r < reps && products; r++) {
        double a = now(), ca = cpu_now();
        mmnc_dtm_mul(p, l, X, Y);
        double b = now(), cb = cpu_now();
        mmnc_dtm_tmul(p, l, Y, Xb);
        double c = now(), cc = cpu_now();
        if (b - a < best[0]) best[0] = b - a;
        if (c - b < best[1]) best[1] = c - b;
        if (cb - ca < cpu[0]) cpu[0] = cb - ca;
        if (cc - cb < cpu[1]) cpu[1] = cc - cb;
        if (baseline) {
            a = now(), ca = cpu_now();
            baseline_mul(p->P, p->py, p->px, l, X, Yb);
            b = now(), cb = cpu_now();
            baseline_mul(p->Pt, p->px, p->py, l, Y, X); /* X is refilled below */
            c = now(), cc = cpu_now();
            if (b - a < best[2]) best[2] = b - a;
            if (c - b < best[3]) best[3] = c - b;
            if (cb - ca < cpu[2]) cpu[2] = cb - ca;
            if (cc - cb < cpu[3]) cpu[3] = cc - cb;
            if (r == 0 && (memcmp(Y, Yb, (size_t)p->ny * l * sizeof(double)) ||
                           memcmp(Xb, X, (size_t)p->nx * l * sizeof(double))))
                fprintf(stderr, "embed-floor: the library and the baseline products differ\n");
            for (mmnc_int i = 0; i < p->nx * l; i++) X[i] = sin((double)i * 0.001 + 0.3);
        }
    }
    double syrk_s, trsm_s, ggram_s, trmm_s, svd_s;
    cholqr_time(threads, p->ny, l, reps, &syrk_s, &trsm_s, &ggram_s, &trmm_s);
    svd_s = svd_time(l);

    double nnz = (double)p->nnz, flops = 2.0 * nnz * (double)l;
    double bytes_mul = 16.0 * nnz + 8.0 * (double)(p->ny + 1) + 8.0 * (double)l * (double)(p->nx + p->ny);
    double bytes_tmul = 16.0 * nnz + 8.0 * (double)(p->nx + 1) + 8.0 * (double)l * (double)(p->nx + p->ny);
    double fl_s = flops / (gflops * 1e9);
    double floor_mul = fmax(fl_s, bytes_mul / (triad * 1e9)), floor_tmul = fmax(fl_s, bytes_tmul / (triad * 1e9));

    fprintf(stderr, "embed-floor: %s: %lld x %lld, %lld nonzeros, l = %lld columns, %d threads (load %.2f s)\n", path,
            (long long)p->ny, (long long)p->nx, (long long)p->nnz, (long long)l, threads, load_s);
    fprintf(stderr, "  dgemm %.1f GFLOP/s; triad %.1f GB/s, read %.1f GB/s\n", gflops, triad, read);
    fprintf(stderr, "  one product: %.1f GFLOP (%.3f s at dgemm), %.2f GB (%.3f s at triad): floor %.3f s\n",
            flops / 1e9, fl_s, bytes_mul / 1e9, bytes_mul / (triad * 1e9), floor_mul);
    if (products) {
        fprintf(stderr, "  B X   library %.3f s (%.1fx floor, %.1f GFLOP/s, CPU %.3f s)", best[0], best[0] / floor_mul,
                flops / best[0] / 1e9, cpu[0]);
        if (baseline)
            fprintf(stderr, "; baseline %.3f s (%.1fx floor, CPU %.3f s); speed-up %.2fx", best[2], best[2] / floor_mul,
                    cpu[2], best[2] / best[0]);
        fprintf(stderr, "\n  B^T Y library %.3f s (%.1fx floor, %.1f GFLOP/s, CPU %.3f s)", best[1], best[1] / floor_tmul,
                flops / best[1] / 1e9, cpu[1]);
        if (baseline)
            fprintf(stderr, "; baseline %.3f s (%.1fx floor, CPU %.3f s); speed-up %.2fx", best[3], best[3] / floor_tmul,
                    cpu[3], best[3] / best[1]);
    }
    fprintf(stderr,
            "%s  CholeskyQR round on %lld x %lld: dsyrk %.3f s (as dgemm %.3f s), dtrsm %.3f s (dtrmm by R^-1 %.3f s); "
            "%lld x %lld dgesvd %.3f s (1 thread)\n",
            products ? "\n" : "", (long long)p->ny, (long long)l, syrk_s, ggram_s, trsm_s, trmm_s, (long long)l, (long long)l, svd_s);

    printf("{\"data\": \"%s\", \"rows\": %lld, \"cols\": %lld, \"nnz\": %lld, \"l\": %lld, \"threads\": %d, "
           "\"dgemm_gflops\": %.2f, \"triad_gbs\": %.2f, \"read_gbs\": %.2f, \"product_gflop\": %.3f, "
           "\"floor_mul_s\": %.4f, \"floor_tmul_s\": %.4f, \"mul_s\": %.4f, \"tmul_s\": %.4f, \"mul_cpu_s\": %.4f, \"tmul_cpu_s\": %.4f",
           path, (long long)p->ny, (long long)p->nx, (long long)p->nnz, (long long)l, threads, gflops, triad, read,
           flops / 1e9, floor_mul, floor_tmul, best[0], best[1], cpu[0], cpu[1]);
    if (baseline)
        printf(", \"baseline_mul_s\": %.4f, \"baseline_tmul_s\": %.4f, \"baseline_mul_cpu_s\": %.4f, "
               "\"baseline_tmul_cpu_s\": %.4f", best[2], best[3], cpu[2], cpu[3]);
    printf(", \"syrk_s\": %.4f, \"gram_dgemm_s\": %.4f, \"trsm_s\": %.4f, \"trmm_s\": %.4f, \"gesvd_s\": %.4f}\n",
           syrk_s, ggram_s, trsm_s, trmm_s, svd_s);
    free(X), free(Y), free(Yb), free(Xb);
    mmnc_pmf_free(p);
    mmnc_data_free(d);
    return 0;
}
