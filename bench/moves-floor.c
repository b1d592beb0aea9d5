/*
 * moves-floor.c -- the rate of the information moves' cost sums
 * (src/cluster/moves.c, entry_costs): per entry of a row, k terms
 * b log b - (a + b) log(a + b) with b from the k-row of the cluster sums T
 * and b log b from that of BL, the logarithm mmnc_i_flog, vectorised across
 * the k clusters in the library's clones.  Entries read the rows of T and BL
 * at columns drawn uniformly from the first `cols` columns: one column (the
 * tables in L1), a few hundred (L2) or many (beyond the caches), so that the
 * compute rate and the cost of reaching the tables show apart.
 *
 *   moves-floor [-k K] [--terms N] [--cols C,C,...]
 *
 * Output: one line per C: table bytes, ns per term (best of 3).  One thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/solver_i.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define VECTOR_CLONES
#endif

/* As entry_costs with every cluster remade (nr = k), without the prefetch. */
VECTOR_CLONES static void sums(const long *col, long n, double a, long k, const double *restrict T,
                               const double *restrict BL, double *restrict acc)
{
    for (long e = 0; e < n; e++) {
        const double *t = T + col[e] * k, *bl = BL + col[e] * k;
        for (long c = 0; c < k; c++) {
            double v = a + t[c];
            acc[c] += bl[c] - v * mmnc_i_flog(v);
        }
    }
}

int main(int argc, char **argv)
{
    long k = 64, terms = 40000000, ncols = 3, cols[16] = {1, 400, 40000};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-k") && i + 1 < argc) k = atol(argv[++i]);
        else if (!strcmp(argv[i], "--terms") && i + 1 < argc) terms = atol(argv[++i]);
        else if (!strcmp(argv[i], "--cols") && i + 1 < argc) {
            char *s = argv[++i];
            for (ncols = 0; ncols < 16 && *s; ncols++) {
                cols[ncols] = strtol(s, &s, 10);
                if (*s == ',') s++;
            }
        } else {
            fprintf(stderr, "usage: moves-floor [-k K] [--terms N] [--cols C,C,...]\n");
            return 2;
        }
    }
    if (k < 1 || terms < k) return fprintf(stderr, "moves-floor: bad -k or --terms\n"), 2;
    long n = terms / k, maxc = 1;
    for (long i = 0; i < ncols; i++)
        if (cols[i] > maxc) maxc = cols[i];
    double *T = malloc((size_t)(maxc * k) * sizeof *T), *BL = malloc((size_t)(maxc * k) * sizeof *BL);
    double *acc = calloc((size_t)k, sizeof *acc);
    long *col = malloc((size_t)n * sizeof *col);
    if (!T || !BL || !acc || !col) return fprintf(stderr, "moves-floor: out of memory\n"), 1;
    for (long i = 0; i < maxc * k; i++) { /* sums of a few thousandths, as P's */
        T[i] = 1e-4 * (double)(1 + i % 97);
        BL[i] = T[i] * mmnc_i_flog(T[i]);
    }
    printf("k = %ld, %ld terms a pass, best of 3, one thread\n", k, n * k);
    for (long i = 0; i < ncols; i++) {
        double best = 1e300;
        unsigned long long x = 88172645463325252ULL;
        for (long e = 0; e < n; e++) { /* xorshift64 */
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            col[e] = (long)(x % (unsigned long long)cols[i]);
        }
        for (int r = 0; r < 3; r++) {
            double t0 = mmnc_i_now();
            sums(col, n, 1e-5, k, T, BL, acc);
            double dt = mmnc_i_now() - t0;
            if (dt < best) best = dt;
        }
        printf("%8ld columns (T and BL %9.1f KB): %.2f ns a term\n", cols[i], 2.0 * cols[i] * k * 8 / 1024.0,
               best / (double)(n * k) * 1e9);
    }
    printf("(checksum %g)\n", acc[0]);
    free(T), free(BL), free(acc), free(col);
    return 0;
}
