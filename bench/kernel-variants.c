/*
 * kernel-variants.c -- one thread, one matrix: mmnc's per-iteration kernels
 * as they are in src/linalg/kernel.c and src/cluster/frobenius.c next to the candidate
 * rewrites listed in bench/NOTES.md ("Predicted gains"), so that the
 * predicted factors are measured, not guessed.  Prototype code for
 * measurement only: nothing here is used by the library, and the variants
 * are checked against the baseline only loosely (relative difference of a
 * checksum, printed).
 *
 *   kernel-variants DATA [-k K] [--reps N]
 *
 * DATA is read as mmnc cluster reads it.  Labels are uniform random (the
 * cost of the kernels does not depend on which labels), Tx and A are filled
 * with positive values.  Each kernel is timed as the best of N runs (default 5).
 * Output: one line per kernel: name, ms, ns per nonzero, time relative to
 * the baseline of its group.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mmnc.h"
#include "linalg/kernel_i.h" /* the library's own kernels, as baselines */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct m32 { /* a CSR matrix with 32-bit column indices */
    int64_t n;
    int64_t *rowptr;
    uint32_t *colind;
    double *val;
} m32;

static m32 narrow(const mmnc_csr *A)
{
    m32 m = {A->nrows, A->rowptr, malloc((size_t)A->nnz * 4), A->val};
    for (int64_t e = 0; e < A->nnz; e++) m.colind[e] = (uint32_t)A->colind[e];
    return m;
}

/* ---- Algorithm 2: T = (W P)^T for hard labels -------------------------------- */

/* as src/linalg/kernel.c mmnc_i_pzx: by rows of Pt, gather int64 labels */
static void pzx_base(const mmnc_csr *Pt, int64_t k, const int64_t *lab, double *T)
{
    for (int64_t x = 0; x < Pt->nrows; x++) {
        double *t = T + x * k;
        for (int64_t z = 0; z < k; z++) t[z] = 0.0;
        for (int64_t e = Pt->rowptr[x]; e < Pt->rowptr[x + 1]; e++) t[lab[Pt->colind[e]]] += Pt->val[e];
    }
}

/* 32-bit column indices, 8-bit labels (k <= 256: the labels of 10^7 rows fit in L2) */
static void pzx_u8(const m32 *Pt, int64_t k, const uint8_t *lab, double *T)
{
    for (int64_t x = 0; x < Pt->n; x++) {
        double *t = T + x * k;
        for (int64_t z = 0; z < k; z++) t[z] = 0.0;
        for (int64_t e = Pt->rowptr[x]; e < Pt->rowptr[x + 1]; e++) t[lab[Pt->colind[e]]] += Pt->val[e];
    }
}

/* 32-bit indices, int64 labels: the index change alone */
static void pzx_i32(const m32 *Pt, int64_t k, const int64_t *lab, double *T)
{
    for (int64_t x = 0; x < Pt->n; x++) {
        double *t = T + x * k;
        for (int64_t z = 0; z < k; z++) t[z] = 0.0;
        for (int64_t e = Pt->rowptr[x]; e < Pt->rowptr[x + 1]; e++) t[lab[Pt->colind[e]]] += Pt->val[e];
    }
}

/* row scatter over P: T[x, label(y)] += P[y, x]; no Pt needed (one thread:
 * a threaded version needs per-thread T blocks and a fixed-order reduction) */
static void wp_scatter(const m32 *P, int64_t nx, int64_t k, const uint8_t *lab, double *T)
{
    memset(T, 0, (size_t)(nx * k) * sizeof(double));
    for (int64_t y = 0; y < P->n; y++) {
        double *t = T + lab[y];
        for (int64_t e = P->rowptr[y]; e < P->rowptr[y + 1]; e++) t[(int64_t)P->colind[e] * k] += P->val[e];
    }
}

/* ---- Algorithm 2: S = P D_x^{-1} T, then C = S Mp and the argmax ------------- */

/* as src/linalg/kernel.c mmnc_i_row_gather (second loop), K = k at compile time where
 * the variants below need it */
static void gather_base(const mmnc_csr *P, int64_t k, const double *Tx, double *S)
{
    for (int64_t y = 0; y < P->nrows; y++) {
        double *s = S + y * k;
        for (int64_t z = 0; z < k; z++) s[z] = 0.0;
        for (int64_t e = P->rowptr[y]; e < P->rowptr[y + 1]; e++) {
            const double *t = Tx + P->colind[e] * k;
            double v = P->val[e];
            for (int64_t z = 0; z < k; z++) s[z] += v * t[z];
        }
    }
}

/* as scores() in src/cluster/nuclear.c after the gather, and the argmax of run_hard */
static void score_argmax_base(int64_t ny, int64_t k, const double *S, const double *Mp, double *C, uint8_t *best)
{
    for (int64_t y = 0; y < ny; y++) {
        const double *sy = S + y * k;
        double *cy = C + y * k;
        for (int64_t z = 0; z < k; z++) {
            double t = 0.0;
            for (int64_t j = 0; j < k; j++) t += sy[j] * Mp[j * k + z];
            cy[z] = t;
        }
    }
    for (int64_t y = 0; y < ny; y++) {
        const double *cy = C + y * k;
        int64_t b = 0;
        for (int64_t z = 1; z < k; z++)
            if (cy[z] > cy[b]) b = z;
        best[y] = (uint8_t)b;
    }
}

#define KMAX 16
/* fused: gather, score and argmax per row with k fixed at compile time (10):
 * no S or C array, the inner loops unrolled; 32-bit indices */
static void fused_k10(const m32 *P, const double *Tx, const double *Mp, uint8_t *best, double *gain)
{
    enum { K = 10 };
    for (int64_t y = 0; y < P->n; y++) {
        double s[K] = {0}, c[K];
        for (int64_t e = P->rowptr[y]; e < P->rowptr[y + 1]; e++) {
            const double *t = Tx + (int64_t)P->colind[e] * K;
            double v = P->val[e];
            for (int z = 0; z < K; z++) s[z] += v * t[z];
        }
        for (int z = 0; z < K; z++) {
            double a = 0.0;
            for (int j = 0; j < K; j++) a += s[j] * Mp[j * K + z];
            c[z] = a;
        }
        int b = 0;
        for (int z = 1; z < K; z++)
            if (c[z] > c[b]) b = z;
        best[y] = (uint8_t)b;
        gain[y] = c[b];
    }
}

/* the gather with a software prefetch of the Tx row PF entries ahead */
#define PF 16
static void gather_pf_k10(const m32 *P, const double *Tx, double *S)
{
    enum { K = 10 };
    const int64_t nnz = P->rowptr[P->n];
    for (int64_t y = 0; y < P->n; y++) {
        double s[K] = {0};
        for (int64_t e = P->rowptr[y]; e < P->rowptr[y + 1]; e++) {
            if (e + PF < nnz) {
                const double *q = Tx + (int64_t)P->colind[e + PF] * K;
                __builtin_prefetch(q);
                __builtin_prefetch(q + 8);
            }
            const double *t = Tx + (int64_t)P->colind[e] * K;
            double v = P->val[e];
            for (int z = 0; z < K; z++) s[z] += v * t[z];
        }
        memcpy(S + y * K, s, sizeof s);
    }
}

/* the gather from a float32 copy of Tx (half the cache lines), sums in double */
static void gather_f32_k10(const m32 *P, const float *Tx, double *S)
{
    enum { K = 10 };
    for (int64_t y = 0; y < P->n; y++) {
        double s[K] = {0};
        for (int64_t e = P->rowptr[y]; e < P->rowptr[y + 1]; e++) {
            const float *t = Tx + (int64_t)P->colind[e] * K;
            double v = P->val[e];
            for (int z = 0; z < K; z++) s[z] += v * (double)t[z];
        }
        memcpy(S + y * K, s, sizeof s);
    }
}

/* Tx rows padded to 16 entries and aligned to 64 bytes: a float32 row is
 * exactly one cache line (k <= 16), a double row exactly two */
static void gather_pad_f32(const m32 *P, const float *Tx, double *S)
{
    enum { K = 10 };
    for (int64_t y = 0; y < P->n; y++) {
        double s[K] = {0};
        for (int64_t e = P->rowptr[y]; e < P->rowptr[y + 1]; e++) {
            const float *t = Tx + (int64_t)P->colind[e] * 16;
            double v = P->val[e];
            for (int z = 0; z < K; z++) s[z] += v * (double)t[z];
        }
        memcpy(S + y * K, s, sizeof s);
    }
}

static void gather_pad_f64(const m32 *P, const double *Tx, double *S)
{
    enum { K = 10 };
    for (int64_t y = 0; y < P->n; y++) {
        double s[K] = {0};
        for (int64_t e = P->rowptr[y]; e < P->rowptr[y + 1]; e++) {
            const double *t = Tx + (int64_t)P->colind[e] * 16;
            double v = P->val[e];
            for (int z = 0; z < K; z++) s[z] += v * t[z];
        }
        memcpy(S + y * K, s, sizeof s);
    }
}

/* C = S Mp with the loops interchanged: k independent accumulators per row
 * instead of k dependent chains of k additions */
static void score_argmax_k10(int64_t ny, const double *S, const double *Mp, uint8_t *best)
{
    enum { K = 10 };
    for (int64_t y = 0; y < ny; y++) {
        const double *sy = S + y * K;
        double c[K] = {0};
        for (int j = 0; j < K; j++)
            for (int z = 0; z < K; z++) c[z] += sy[j] * Mp[j * K + z];
        int b = 0;
        for (int z = 1; z < K; z++)
            if (c[z] > c[b]) b = z;
        best[y] = (uint8_t)b;
    }
}

/* column panels of P: panel b holds the columns [b W, (b+1) W) as its own CSR
 * (rows of all of P), so the Tx rows one panel gathers stay in L2 */
typedef struct panels {
    int64_t np, width;
    m32 *p;
} panels;

static panels make_panels(const mmnc_csr *P, int64_t width)
{
    panels q = {(P->ncols + width - 1) / width, width, NULL};
    q.p = calloc((size_t)q.np, sizeof(m32));
    for (int64_t b = 0; b < q.np; b++) {
        int64_t lo = b * width, hi = lo + width, n = 0;
        m32 *m = &q.p[b];
        m->n = P->nrows;
        m->rowptr = malloc((size_t)(P->nrows + 1) * sizeof(int64_t));
        for (int64_t e = 0; e < P->nnz; e++) n += P->colind[e] >= lo && P->colind[e] < hi;
        m->colind = malloc((size_t)(n ? n : 1) * 4);
        m->val = malloc((size_t)(n ? n : 1) * sizeof(double));
        n = 0;
        for (int64_t y = 0; y < P->nrows; y++) {
            m->rowptr[y] = n;
            for (int64_t e = P->rowptr[y]; e < P->rowptr[y + 1]; e++)
                if (P->colind[e] >= lo && P->colind[e] < hi) m->colind[n] = (uint32_t)P->colind[e], m->val[n++] = P->val[e];
        }
        m->rowptr[P->nrows] = n;
    }
    return q;
}

static void gather_panels_k10(const panels *q, const double *Tx, double *S)
{
    enum { K = 10 };
    int64_t ny = q->p[0].n;
    memset(S, 0, (size_t)(ny * K) * sizeof(double));
    for (int64_t b = 0; b < q->np; b++) {
        const m32 *m = &q->p[b];
        for (int64_t y = 0; y < ny; y++) {
            if (m->rowptr[y] == m->rowptr[y + 1]) continue;
            double s[K];
            memcpy(s, S + y * K, sizeof s);
            for (int64_t e = m->rowptr[y]; e < m->rowptr[y + 1]; e++) {
                const double *t = Tx + (int64_t)m->colind[e] * K;
                double v = m->val[e];
                for (int z = 0; z < K; z++) s[z] += v * t[z];
            }
            memcpy(S + y * K, s, sizeof s);
        }
    }
}

/* Algorithm 1's R = (A B)^T as a row scatter over P: reads A by rows in order
 * and adds into R (|X| x k, smaller than A when |X| < |Y|) */
static void r_scatter_k10(const m32 *P, int64_t nx, const double *bv, const double *A, double *R)
{
    enum { K = 10 };
    memset(R, 0, (size_t)(nx * K) * sizeof(double));
    for (int64_t y = 0; y < P->n; y++) {
        const double *a = A + y * K;
        for (int64_t e = P->rowptr[y]; e < P->rowptr[y + 1]; e++) {
            double *r = R + (int64_t)P->colind[e] * K, b = bv[e];
            for (int z = 0; z < K; z++) r[z] += b * a[z];
        }
    }
}

static void r_pf_k10(const m32 *Pt, const double *btv, const double *A, double *R)
{
    enum { K = 10 };
    const int64_t nnz = Pt->rowptr[Pt->n];
    for (int64_t x = 0; x < Pt->n; x++) {
        double r[K] = {0};
        for (int64_t e = Pt->rowptr[x]; e < Pt->rowptr[x + 1]; e++) {
            if (e + PF < nnz) {
                const double *q = A + (int64_t)Pt->colind[e + PF] * K;
                __builtin_prefetch(q);
                __builtin_prefetch(q + 8);
            }
            const double *a = A + (int64_t)Pt->colind[e] * K;
            double b = btv[e];
            for (int z = 0; z < K; z++) r[z] += b * a[z];
        }
        memcpy(R + x * K, r, sizeof r);
    }
}

/* one pass over P for a whole Algorithm 2 step (no accept/reject): gather the
 * scores of row y, take its best cluster and scatter the row into the next T */
static void onepass_k10(const m32 *P, int64_t nx, const double *Tx, const double *Mp, uint8_t *lab, double *Tn)
{
    enum { K = 10 };
    memset(Tn, 0, (size_t)(nx * K) * sizeof(double));
    for (int64_t y = 0; y < P->n; y++) {
        double s[K] = {0}, c[K];
        for (int64_t e = P->rowptr[y]; e < P->rowptr[y + 1]; e++) {
            const double *t = Tx + (int64_t)P->colind[e] * K;
            double v = P->val[e];
            for (int z = 0; z < K; z++) s[z] += v * t[z];
        }
        for (int z = 0; z < K; z++) {
            double a = 0.0;
            for (int j = 0; j < K; j++) a += s[j] * Mp[j * K + z];
            c[z] = a;
        }
        int b = 0;
        for (int z = 1; z < K; z++)
            if (c[z] > c[b]) b = z;
        lab[y] = (uint8_t)b;
        double *t = Tn + b;
        for (int64_t e = P->rowptr[y]; e < P->rowptr[y + 1]; e++) t[(int64_t)P->colind[e] * K] += P->val[e];
    }
}

/* the floor of one sparse pass: read values and indices once */
/* mmnc_i_row_gather32_each's row function: keep the k = 10 sums (not the mass) */
static void keep_row(void *ctx, int64_t y, const double *s) { memcpy((double *)ctx + y * 10, s, 10 * sizeof(double)); }

static volatile double sink;

static double stream_pass(const mmnc_csr *P)
{
    double s = 0.0;
    int64_t c = 0;
    for (int64_t e = 0; e < P->nnz; e++) s += P->val[e], c += P->colind[e];
    return s + (double)c;
}

/* The hardware's part of the screened gather: every nonzero's 64-byte row
 * of F fetched through P's own column indices and summed, no weights, no
 * scores, prefetched 16 ahead as src/linalg/kernel.c does.  What no rewrite of the
 * arithmetic can beat while each nonzero needs its own row of F. */
static double bare_gather16(const mmnc_csr *P, const float *F)
{
    float s[16] = {0};
    double t = 0.0;
    for (int64_t e = 0; e < P->nnz; e++) {
        if (e + 16 < P->nnz) __builtin_prefetch(F + P->colind[e + 16] * 16);
        const float *f = F + P->colind[e] * 16;
        for (int j = 0; j < 16; j++) s[j] += f[j];
    }
    for (int j = 0; j < 16; j++) t += s[j];
    return t;
}

static double stream_pass32(const m32 *P, int64_t nnz)
{
    double s = 0.0;
    int64_t c = 0;
    for (int64_t e = 0; e < nnz; e++) s += P->val[e], c += P->colind[e];
    return s + (double)c;
}

/* ---- Algorithm 1: R = (A B)^T over Pt, Q = (A B) B^T over P, projection ------- */

static void r_base(const mmnc_csr *Pt, int64_t k, const double *btv, const double *A, double *R)
{
    for (int64_t x = 0; x < Pt->nrows; x++) {
        double *r = R + x * k;
        for (int64_t z = 0; z < k; z++) r[z] = 0.0;
        for (int64_t e = Pt->rowptr[x]; e < Pt->rowptr[x + 1]; e++) {
            const double *a = A + Pt->colind[e] * k;
            double b = btv[e];
            for (int64_t z = 0; z < k; z++) r[z] += b * a[z];
        }
    }
}

static void r_k10(const m32 *Pt, const double *btv, const double *A, double *R)
{
    enum { K = 10 };
    for (int64_t x = 0; x < Pt->n; x++) {
        double r[K] = {0};
        for (int64_t e = Pt->rowptr[x]; e < Pt->rowptr[x + 1]; e++) {
            const double *a = A + (int64_t)Pt->colind[e] * K;
            double b = btv[e];
            for (int z = 0; z < K; z++) r[z] += b * a[z];
        }
        memcpy(R + x * K, r, sizeof r);
    }
}

/* as project() in src/cluster/frobenius.c */
static void project_base(int64_t k, const double *w, double c, double *a, int64_t *idx)
{
    double sw = 0.0, swb = 0.0, tau = 0.0;
    for (int64_t i = 0; i < k; i++) {
        double t = a[i] / w[i];
        int64_t j = i;
        while (j > 0 && a[idx[j - 1]] / w[idx[j - 1]] < t) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = i;
    }
    for (int64_t j = 0; j < k; j++) {
        int64_t z = idx[j];
        sw += w[z] * w[z];
        swb += w[z] * a[z];
        tau = (swb - c) / sw;
        if (j + 1 == k || tau >= a[idx[j + 1]] / w[idx[j + 1]]) break;
    }
    for (int64_t z = 0; z < k; z++) {
        double t = a[z] - tau * w[z];
        a[z] = t > 0.0 ? t : 0.0;
    }
}

/* breakpoints computed once (k divisions instead of one per comparison), and
 * the common case first: if the row is already nonnegative after the exact
 * shift of its weighted sum, that shift is the projection */
static void project_pre(int64_t k, const double *w, const double *w2inv, double c, double *a)
{
    double bp[KMAX];
    int idx[KMAX];
    double sw = 0.0, swb = 0.0, tau;
    for (int64_t z = 0; z < k; z++) swb += w[z] * a[z];
    tau = (swb - c) * w2inv[0]; /* w2inv[0] = 1 / sum w^2 */
    int neg = 0;
    for (int64_t z = 0; z < k; z++) neg |= a[z] - tau * w[z] < 0.0;
    if (!neg) {
        for (int64_t z = 0; z < k; z++) a[z] -= tau * w[z];
        return;
    }
    swb = 0.0;
    for (int64_t i = 0; i < k; i++) {
        double t = a[i] * w2inv[1 + i]; /* w2inv[1 + z] = 1 / w[z] */
        int64_t j = i;
        while (j > 0 && bp[j - 1] < t) {
            bp[j] = bp[j - 1];
            idx[j] = idx[j - 1];
            j--;
        }
        bp[j] = t;
        idx[j] = (int)i;
    }
    tau = 0.0;
    for (int64_t j = 0; j < k; j++) {
        int z = idx[j];
        sw += w[z] * w[z];
        swb += w[z] * a[z];
        tau = (swb - c) / sw;
        if (j + 1 == k || tau >= bp[j + 1]) break;
    }
    for (int64_t z = 0; z < k; z++) {
        double t = a[z] - tau * w[z];
        a[z] = t > 0.0 ? t : 0.0;
    }
}

/* ---- driver -------------------------------------------------------------- */

static double sum(const double *a, int64_t n)
{
    double s = 0.0;
    for (int64_t i = 0; i < n; i++) s += a[i];
    return s;
}

static int reps = 5;
static double nnz_g;
static double base_ms;

static void line(const char *name, double best, int is_base, double check)
{
    if (is_base) base_ms = best;
    printf("%-44s %9.2f ms %7.2f ns/nnz %6.2fx  check %.6g\n", name, 1e3 * best, 1e9 * best / nnz_g, base_ms / best,
           check);
    fflush(stdout);
}

#define TIME(expr)                                                  \
    do {                                                            \
        best = INFINITY;                                            \
        for (int r_ = 0; r_ < reps; r_++) {                         \
            double t0_ = now();                                     \
            __asm__ volatile("" ::: "memory");                      \
            expr;                                                   \
            __asm__ volatile("" ::: "memory");                      \
            double t_ = now() - t0_;                                \
            if (t_ < best) best = t_;                               \
        }                                                           \
    } while (0)

int main(int argc, char **argv)
{
    mmnc_err err = {0, ""};
    mmnc_read_opts ro;
    mmnc_data *d = NULL;
    mmnc_pmf *p = NULL;
    int64_t k = 10;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-k") && i + 1 < argc) k = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else path = argv[i];
    }
    if (!path || k != 10) {
        fprintf(stderr, "usage: kernel-variants DATA [-k 10] [--reps N]  (the unrolled variants are for k = 10)\n");
        return 2;
    }
    mmnc_read_opts_default(&ro);
    if (mmnc_data_read(path, &ro, &d, &err) || mmnc_data_drop_empty(d, NULL, NULL, &err) ||
        mmnc_pmf_build(d->A, &p, &err)) {
        fprintf(stderr, "kernel-variants: %s\n", err.msg);
        return 1;
    }
    mmnc_data_free(d);
    int64_t ny = p->ny, nx = p->nx, nnz = p->nnz;
    nnz_g = (double)nnz;
    printf("%lld x %lld, %lld nonzeros, k = %lld, one thread, best of %d\n", (long long)ny, (long long)nx,
           (long long)nnz, (long long)k, reps);
    m32 P32 = narrow(p->P), Pt32 = narrow(p->Pt);
    int64_t *lab = malloc((size_t)ny * sizeof(int64_t));
    uint8_t *lab8 = malloc((size_t)ny), *best8 = malloc((size_t)ny);
    double *T = malloc((size_t)(nx * k) * sizeof(double)), *T2 = malloc((size_t)(nx * k) * sizeof(double));
    double *S = malloc((size_t)(ny * k) * sizeof(double)), *C = malloc((size_t)(ny * k) * sizeof(double));
    double *gain = malloc((size_t)ny * sizeof(double)), Mp[KMAX * KMAX];
    uint64_t s = 88172645463325252ULL;
    for (int64_t y = 0; y < ny; y++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        lab[y] = (int64_t)(s % (uint64_t)k);
        lab8[y] = (uint8_t)lab[y];
    }
    for (int64_t i = 0; i < k * k; i++) Mp[i] = 1.0 / (1.0 + (double)((i * 7) % 13));
    double best, ref;

    printf("\n-- Algorithm 2, W P (T = (W P)^T, hard labels)\n");
    TIME(mmnc_i_pzx(p, k, lab, NULL, T));
    ref = sum(T, nx * k);
    line("mmnc_i_pzx (library, OpenMP, 1 thread)", best, 1, 1.0);
    TIME(pzx_base(p->Pt, k, lab, T));
    line("pzx copy without OpenMP (int64 idx+labels)", best, 0, sum(T, nx * k) / ref);
    TIME(pzx_i32(&Pt32, k, lab, T));
    line("pzx, int32 column indices", best, 0, sum(T, nx * k) / ref);
    TIME(pzx_u8(&Pt32, k, lab8, T));
    line("pzx, int32 indices, uint8 labels", best, 0, sum(T, nx * k) / ref);
    TIME(wp_scatter(&P32, nx, k, lab8, T));
    line("row scatter over P (int32, uint8 labels)", best, 0, sum(T, nx * k) / ref);
    TIME(sink = stream_pass(p->Pt));
    line("floor: read Pt once (int64 idx)", best, 0, 1.0);
    TIME(sink = stream_pass32(&Pt32, nnz));
    line("floor: read Pt once (int32 idx)", best, 0, 1.0);

    printf("\n-- Algorithm 2, scores (S = P Tx, C = S Mp, argmax)\n");
    for (int64_t i = 0; i < nx * k; i++) T[i] = T2[i] = 1.0 + (double)(i % 17);
    TIME(mmnc_i_row_gather(p, k, T2, T, S); score_argmax_base(ny, k, S, Mp, C, best8));
    line("mmnc_i_row_gather + scores + argmax (library)", best, 1, 1.0);
    TIME(mmnc_i_row_gather(p, k, T2, T, S));
    ref = sum(S, ny * k);
    line("  of which mmnc_i_row_gather (Tx = T/px, S = P Tx)", best, 0, 1.0);
    TIME(gather_base(p->P, k, T, S));
    line("  of which the gather S = P Tx alone", best, 0, sum(S, ny * k) / ref);
    TIME(gather_pf_k10(&P32, T, S));
    line("gather, int32, k = 10 unrolled, prefetch", best, 0, sum(S, ny * k) / ref);
    {
        float *Tf = malloc((size_t)(nx * k) * sizeof(float));
        for (int64_t i = 0; i < nx * k; i++) Tf[i] = (float)T[i];
        TIME(gather_f32_k10(&P32, Tf, S));
        line("gather, int32, float32 Tx", best, 0, sum(S, ny * k) / ref);
        free(Tf);
    }
    {
        float *Tf = aligned_alloc(64, (size_t)(nx * 16) * sizeof(float));
        double *Td = aligned_alloc(64, (size_t)(nx * 16) * sizeof(double));
        for (int64_t x = 0; x < nx; x++)
            for (int64_t z = 0; z < 16; z++) {
                Tf[x * 16 + z] = z < k ? (float)T[x * k + z] : 0.0f;
                Td[x * 16 + z] = z < k ? T[x * k + z] : 0.0;
            }
        TIME(gather_pad_f64(&P32, Td, S));
        line("gather, int32, double rows padded to 128 B", best, 0, sum(S, ny * k) / ref);
        TIME(gather_pad_f32(&P32, Tf, S));
        line("gather, int32, float32 rows padded to 64 B", best, 0, sum(S, ny * k) / ref);
        free(Tf);
        free(Td);
    }
    {
        float *F = aligned_alloc(64, (size_t)(nx * 16) * sizeof(float));
        TIME(mmnc_i_tx_f32(p, k, T2, T, F); mmnc_i_row_gather32_each(p, k, F, keep_row, S));
        line("library screen: mmnc_i_tx_f32 + row_gather32_each", best, 0, sum(S, ny * k) / ref);
        TIME(sink = bare_gather16(p->P, F));
        line("floor: P's column indices and one F row each, no arithmetic", best, 0, 1.0);
        free(F);
    }
    TIME(score_argmax_base(ny, k, S, Mp, C, best8));
    line("scores C = S Mp + argmax as in nuclear.c", best, 0, 1.0);
    TIME(score_argmax_k10(ny, S, Mp, best8));
    line("scores + argmax, loops interchanged, k = 10", best, 0, 1.0);
    {
        int64_t width = 12800; /* 12800 x 10 doubles = 1 MB of Tx per panel: half the L2 */
        panels q = make_panels(p->P, width);
        TIME(gather_panels_k10(&q, T, S));
        line("gather over column panels of 1 MB of Tx", best, 0, sum(S, ny * k) / ref);
    }
    TIME(fused_k10(&P32, T, Mp, best8, gain));
    line("fused per row, k = 10 unrolled, int32", best, 0, 1.0);
    TIME(onepass_k10(&P32, nx, T, Mp, lab8, T2));
    line("one pass: fused + row scatter of next T", best, 0, 1.0);
    TIME(sink = stream_pass(p->P));
    line("floor: read P once (int64 idx)", best, 0, 1.0);

    printf("\n-- Algorithm 1, R = (A B)^T over Pt (gathers A, |Y| x k)\n");
    double *A = malloc((size_t)(ny * k) * sizeof(double)), *R = malloc((size_t)(nx * k) * sizeof(double));
    for (int64_t i = 0; i < ny * k; i++) A[i] = 1.0 + (double)(i % 11);
    TIME(r_base(p->Pt, k, p->Pt->val, A, R));
    ref = sum(R, nx * k);
    line("R as in frobenius.c (int64)", best, 1, 1.0);
    TIME(r_k10(&Pt32, p->Pt->val, A, R));
    line("R, int32 indices, k = 10 unrolled", best, 0, sum(R, nx * k) / ref);
    TIME(r_pf_k10(&Pt32, p->Pt->val, A, R));
    line("R, int32, unrolled, prefetch", best, 0, sum(R, nx * k) / ref);
    TIME(r_scatter_k10(&P32, nx, p->P->val, A, R));
    line("R as a row scatter over P (A read in order)", best, 0, sum(R, nx * k) / ref);

    printf("\n-- Algorithm 1, projection of |Y| columns\n");
    double w[KMAX], w2inv[KMAX + 1], sw2 = 0.0;
    int64_t idx[KMAX];
    for (int64_t z = 0; z < k; z++) w[z] = sqrt(1.0 / (double)k), sw2 += w[z] * w[z];
    w2inv[0] = 1.0 / sw2;
    for (int64_t z = 0; z < k; z++) w2inv[1 + z] = 1.0 / w[z];
    /* columns that look like a step's: one large entry, the rest near the
     * threshold (some clip to 0) */
    double *A0 = malloc((size_t)(ny * k) * sizeof(double));
    for (int64_t y = 0; y < ny; y++)
        for (int64_t z = 0; z < k; z++) A0[y * k + z] = (z == lab[y] ? 0.8 : 0.02) + 0.01 * (double)((y + 3 * z) % 7 - 3);
    TIME(memcpy(A, A0, (size_t)(ny * k) * sizeof(double));
         for (int64_t y = 0; y < ny; y++) project_base(k, w, 0.3, A + y * k, idx));
    ref = sum(A, ny * k);
    line("project as in frobenius.c (with the copy)", best, 1, 1.0);
    TIME(memcpy(A, A0, (size_t)(ny * k) * sizeof(double));
         for (int64_t y = 0; y < ny; y++) project_pre(k, w, w2inv, 0.3, A + y * k));
    line("project, breakpoints once + feasible shortcut", best, 0, sum(A, ny * k) / ref);
    TIME(memcpy(A, A0, (size_t)(ny * k) * sizeof(double)));
    line("  the copy alone", best, 0, 1.0);
    return 0;
}
