/*
 * stream.c -- memory bandwidth of this machine, STREAM-style (McCalpin), for
 * bench/perf: the reference that the per-iteration kernels of mmnc are
 * compared with ("achieved bytes/s / bandwidth").
 *
 *   stream [--mb MB] [--reps N] [-t THREADS] [--chase MB] [--gather MB [--lines L]]
 *
 * Three arrays a, b, c of n doubles, n = MB MiB / 24 (default 1024 MiB in
 * all, so each array is far larger than a last-level cache of a few hundred
 * MB), initialised in parallel (first touch on the thread that uses them).
 * Kernels, each timed as the best of N passes (default 5) after one warm-up:
 *
 *   copy   c[i] = a[i]                 STREAM counts 16 B/elem, 24 with write-allocate
 *   triad  a[i] = b[i] + s c[i]        STREAM counts 24 B/elem, 32 with write-allocate
 *   read   sum += a[i]                 8 B/elem (no store; the sparse kernels mostly read)
 *
 * "gbs" counts bytes as STREAM does (each array read or written once);
 * "gbs_wa" adds the read-for-ownership that a cached store costs (the
 * destination line is read before it is written), which is what the memory
 * bus really carries unless the compiler emits streaming stores.  1 GB/s =
 * 10^9 bytes/s.  The results are checked (as STREAM does) so the passes
 * cannot be optimised away.
 *
 * Output: one JSON object on stdout, e.g.
 *   {"threads": 2, "elements": 44739242, "mib": 1024, "reps": 5,
 *    "copy": {"best_s": ..., "gbs": ..., "gbs_wa": ...}, "triad": {...}, "read": {...}}
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void usage(FILE *fp)
{
    fprintf(fp, "Usage: stream [--mb MB] [--reps N] [-t THREADS] [--chase MB] [--gather MB]\n"
                "STREAM-style copy, triad and read bandwidth; JSON on stdout.\n"
                "  --mb MB        MiB in the three arrays together (default 1024)\n"
                "  --reps N       timed passes per kernel, the best is kept (default 5)\n"
                "  -t THREADS     OpenMP threads, 0 = all cores (default 0)\n"
                "  --chase MB     also the latency of a random pointer chase through MB MiB\n"
                "                 (one thread, 2 x 10^7 dependent loads): \"chase_ns\"\n"
                "  --gather MB    also the throughput of independent random rows read from a\n"
                "                 table of MB MiB through a streamed index array, as the sparse\n"
                "                 passes read them (THREADS threads, 2 x 10^7 rows, without and\n"
                "                 with software prefetch): \"gather_ns\", \"gather_prefetch_ns\"\n"
                "  --lines L      cache lines (64 bytes) a row of that table, 1 to 4 (default 1)\n");
}

/* read: eight partial sums, so the loop is limited by memory, not by the
 * latency of one floating-point add chain. */
static double sum_read(const double *a, long n)
{
    double total = 0.0;
#pragma omp parallel reduction(+ : total)
    {
        double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
#pragma omp for schedule(static)
        for (long i = 0; i < n / 8; i++)
            for (int j = 0; j < 8; j++) s[j] += a[8 * i + j];
        for (int j = 0; j < 8; j++) total += s[j];
    }
    for (long i = n / 8 * 8; i < n; i++) total += a[i];
    return total;
}

/* Nanoseconds per load of a chase through one random cycle over n slots of
 * a cache line each (so every load is a new line), -1 without memory. */
static double chase(long n)
{
    long *next = malloc((size_t)n * 8 * sizeof(long)), *perm = malloc((size_t)n * sizeof(long));
    unsigned long long x = 88172645463325252ULL;
    long at = 0;
    double t0;
    if (!next || !perm) {
        free(next);
        free(perm);
        return -1.0;
    }
    for (long i = 0; i < n; i++) perm[i] = i;
    for (long i = n - 1; i > 0; i--) { /* Fisher-Yates with xorshift64 */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        long j = (long)(x % (unsigned long long)(i + 1)), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    for (long i = 0; i < n; i++) next[perm[i] * 8] = perm[(i + 1) % n] * 8;
    t0 = now();
    for (long i = 0; i < 20000000; i++) at = next[at];
    t0 = now() - t0;
    free(next);
    free(perm);
    return at >= 0 ? t0 / 2e7 * 1e9 : -1.0; /* `at` used, so the loop stays */
}

/* Nanoseconds per row (all threads together) of a gather of m random rows
 * of L cache lines (16 L floats, on 64-byte boundaries) from a table of n
 * rows through a streamed array of int64 indices: the access pattern of the
 * sparse passes over uniformly random columns.  Only the bits of one float
 * of each line are added (an integer add, no floating-point latency chain),
 * so the cost is that of the lines and of the index stream, next to nothing
 * else: beyond the caches, a lower bound for any kernel that needs those
 * rows.  The rows are independent, so there the only limit is how many line
 * misses the cores keep in flight.  With `ahead` > 0 each row's lines are
 * also prefetched that many indices ahead, as src/linalg/kernel.c does.  Best of
 * `reps` passes; -1 without memory. */
static double gather(long n, int L, long m, int ahead, int reps, double *check)
{
    long W = 16L * L; /* floats a row */
    float *tbl = aligned_alloc(64, (size_t)n * (size_t)W * sizeof(float));
    long *idx = malloc((size_t)m * sizeof(long));
    double best = INFINITY;
    uint64_t total = 0;
    if (!tbl || !idx) {
        free(tbl);
        free(idx);
        return -1.0;
    }
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n * W; i++) tbl[i] = 1.0f;
#pragma omp parallel
    {
        unsigned long long x = 88172645463325252ULL;
#ifdef _OPENMP
        x += 0x9e3779b97f4a7c15ULL * (unsigned long long)(omp_get_thread_num() + 1);
#endif
#pragma omp for schedule(static)
        for (long i = 0; i < m; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            idx[i] = (long)(x % (unsigned long long)n);
        }
    }
    for (int r = 0; r <= reps; r++) {
        double t0 = now();
        total = 0;
#pragma omp parallel reduction(+ : total)
        {
            uint64_t s = 0;
#pragma omp for schedule(static)
            for (long i = 0; i < m; i++) {
                if (ahead > 0 && i + ahead < m)
                    for (int l = 0; l < L; l++) __builtin_prefetch(tbl + idx[i + ahead] * W + 16 * l);
                const float *row = tbl + idx[i] * W;
                for (int l = 0; l < L; l++) { /* the bits of one float of each line: a 1-cycle chain */
                    uint32_t b;
                    memcpy(&b, row + 16 * l + (i & 15), sizeof b);
                    s += b;
                }
            }
            total += s;
        }
        t0 = now() - t0;
        if (r > 0 && t0 < best) best = t0;
    }
    *check = (double)total / (double)0x3f800000u; /* rows x lines, if every float read was 1.0f */
    free(tbl);
    free(idx);
    return best / (double)m * 1e9;
}

int main(int argc, char **argv)
{
    double mib = 1024.0, scalar = 3.0, chase_mb = 0.0, gather_mb = 0.0;
    int reps = 5, threads = 0, lines = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mb") && i + 1 < argc) mib = atof(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--chase") && i + 1 < argc) chase_mb = atof(argv[++i]);
        else if (!strcmp(argv[i], "--gather") && i + 1 < argc) gather_mb = atof(argv[++i]);
        else if (!strcmp(argv[i], "--lines") && i + 1 < argc) lines = atoi(argv[++i]);
        else if ((!strcmp(argv[i], "-t") || !strcmp(argv[i], "--threads")) && i + 1 < argc) threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (!(mib >= 1.0) || reps < 1 || threads < 0 || !(chase_mb >= 0.0) || !(gather_mb >= 0.0) || lines < 1 || lines > 4) {
        usage(stderr);
        return 2;
    }
#ifdef _OPENMP
    if (threads > 0) omp_set_num_threads(threads);
    threads = omp_get_max_threads();
#else
    threads = 1;
#endif
    long n = (long)(mib * 1048576.0 / 24.0);
    double *a = malloc((size_t)n * sizeof(double));
    double *b = malloc((size_t)n * sizeof(double));
    double *c = malloc((size_t)n * sizeof(double));
    if (!a || !b || !c) {
        fprintf(stderr, "stream: cannot allocate 3 x %ld doubles\n", n);
        return 1;
    }
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        a[i] = 1.0;
        b[i] = 2.0;
        c[i] = 0.0;
    }
    double best[3] = {INFINITY, INFINITY, INFINITY}, total = 0.0;
    /* pass 0 is the warm-up; the expected values follow every pass:
     * copy c = a, triad a = b + s c, so after pass p: c = a_{p}, a_{p+1} = 2 + s a_p */
    double av = 1.0;
    for (int r = 0; r <= reps; r++) {
        double t0 = now();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) c[i] = a[i];
        double t1 = now();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) a[i] = b[i] + scalar * c[i];
        double t2 = now();
        total = sum_read(a, n);
        double t3 = now();
        av = 2.0 + scalar * av;
        if (r > 0) {
            if (t1 - t0 < best[0]) best[0] = t1 - t0;
            if (t2 - t1 < best[1]) best[1] = t2 - t1;
            if (t3 - t2 < best[2]) best[2] = t3 - t2;
        }
        /* keep the values bounded: a = 1 again for the next pass */
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) a[i] = 1.0;
        if (fabs(total - av * (double)n) > 1e-9 * av * (double)n || c[n / 2] != 1.0) {
            fprintf(stderr, "stream: wrong result (sum %.17g, expected %.17g)\n", total, av * (double)n);
            return 1;
        }
        av = 1.0;
    }
    static const char *name[3] = {"copy", "triad", "read"};
    static const double bytes[3] = {16.0, 24.0, 8.0}, bytes_wa[3] = {24.0, 32.0, 8.0};
    printf("{\"threads\": %d, \"elements\": %ld, \"mib\": %.0f, \"reps\": %d", threads, n, mib, reps);
    for (int k = 0; k < 3; k++)
        printf(", \"%s\": {\"best_s\": %.6f, \"gbs\": %.3f, \"gbs_wa\": %.3f}", name[k], best[k],
               bytes[k] * (double)n / best[k] * 1e-9, bytes_wa[k] * (double)n / best[k] * 1e-9);
    if (chase_mb > 0.0) printf(", \"chase_mib\": %.0f, \"chase_ns\": %.1f", chase_mb, chase((long)(chase_mb * 16384.0)));
    if (gather_mb > 0.0) {
        /* the STREAM arrays are no longer needed: free them first */
        free(a), free(b), free(c);
        a = b = c = NULL;
        long rows = (long)(gather_mb * 16384.0 / lines), m = 20000000;
        double check[2];
        if (rows < 1) rows = 1;
        double plain = gather(rows, lines, m, 0, reps < 3 ? reps : 3, &check[0]);
        double pref = gather(rows, lines, m, 16, reps < 3 ? reps : 3, &check[1]);
        if (plain < 0.0 || pref < 0.0 || check[0] != lines * (double)m || check[1] != lines * (double)m) {
            fprintf(stderr, "stream: gather failed (no memory or a wrong sum)\n");
            return 1;
        }
        printf(", \"gather_mib\": %g, \"gather_lines\": %d, \"gather_ns\": %.2f, \"gather_prefetch_ns\": %.2f", gather_mb,
               lines, plain, pref);
    }
    printf("}\n");
    free(a);
    free(b);
    free(c);
    return 0;
}
