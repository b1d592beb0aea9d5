/*
 * stream.c -- memory bandwidth of this machine, STREAM-style (McCalpin), for
 * bench/perf: the reference that the per-iteration kernels of mmnc are
 * compared with ("achieved bytes/s / bandwidth").
 *
 *   stream [--mb MB] [--reps N] [-t THREADS]
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
    fprintf(fp, "Usage: stream [--mb MB] [--reps N] [-t THREADS] [--chase MB]\n"
                "STREAM-style copy, triad and read bandwidth; JSON on stdout.\n"
                "  --mb MB        MiB in the three arrays together (default 1024)\n"
                "  --reps N       timed passes per kernel, the best is kept (default 5)\n"
                "  -t THREADS     OpenMP threads, 0 = all cores (default 0)\n"
                "  --chase MB     also the latency of a random pointer chase through MB MiB\n"
                "                 (one thread, 2 x 10^7 dependent loads): \"chase_ns\"\n");
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

int main(int argc, char **argv)
{
    double mib = 1024.0, scalar = 3.0, chase_mb = 0.0;
    int reps = 5, threads = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mb") && i + 1 < argc) mib = atof(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--chase") && i + 1 < argc) chase_mb = atof(argv[++i]);
        else if ((!strcmp(argv[i], "-t") || !strcmp(argv[i], "--threads")) && i + 1 < argc) threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (!(mib >= 1.0) || reps < 1 || threads < 0 || !(chase_mb >= 0.0)) {
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
    printf("}\n");
    free(a);
    free(b);
    free(c);
    return 0;
}
