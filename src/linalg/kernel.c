/*
 * kernel.c -- the per-iteration kernels of the solvers (kernel_i.h): the
 * sparse-times-skinny products T = (W P)^T and S = P D_x^{-1} T, their
 * single-precision screen, P_Z, and the spectrum and I(X;Z) of B_{Z,X}
 * from T (and their exact-sum variants).  The products are passes over
 * independent rows of P or P^T, and every sum is made in a fixed order,
 * so the bits do not depend on the thread count.
 */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "linalg/kernel_i.h"

#define PREFETCH 16 /* nonzeros ahead in the row gather */
#define XBLOCK 2048 /* columns of P per Gram partial: fixed, so sums do not depend on threads */

/* One row of a sparse-times-skinny product; inlined with K a constant, the
 * K sums live in registers instead of being stored for every nonzero. */
static inline __attribute__((always_inline)) void gather_row(const mmnc_int *colind, const double *val, mmnc_int e0,
                                                             mmnc_int e1, mmnc_int nnz, const double *M, mmnc_int K,
                                                             double *out)
{
    double s[16];
    double *acc = K <= 16 ? s : out;
    for (mmnc_int z = 0; z < K; z++) acc[z] = 0.0;
    for (mmnc_int e = e0; e < e1; e++) {
        const double *m = M + colind[e] * K;
        double v = val[e];
        /* The rows of M are gathered at random: ask for the one PREFETCH
         * nonzeros ahead (both of its cache lines when K > 8), so that
         * several misses are in flight at once (bench/NOTES.md, "Predicted
         * gains"). */
        if (e + PREFETCH < nnz) {
            const double *f = M + colind[e + PREFETCH] * K;
            __builtin_prefetch(f);
            if (K > 8) __builtin_prefetch(f + K - 1);
        }
        for (mmnc_int z = 0; z < K; z++) acc[z] += v * m[z];
    }
    if (K <= 16)
        for (mmnc_int z = 0; z < K; z++) out[z] = s[z];
}

#define GATHER_K(K)                                                                                        \
    static void gather_##K(const mmnc_int *colind, const double *val, mmnc_int e0, mmnc_int e1, mmnc_int nnz, \
                           const double *M, mmnc_int k, double *out)                                       \
    {                                                                                                      \
        (void)k;                                                                                           \
        gather_row(colind, val, e0, e1, nnz, M, K, out);                                                   \
    }
GATHER_K(1)
GATHER_K(2)
GATHER_K(3)
GATHER_K(4)
GATHER_K(5)
GATHER_K(6)
GATHER_K(7)
GATHER_K(8)
GATHER_K(9)
GATHER_K(10)
GATHER_K(11)
GATHER_K(12)
GATHER_K(13)
GATHER_K(14)
GATHER_K(15)
GATHER_K(16)

/* The gather for any k (the sums in out when k > 16). */
static void gather_any(const mmnc_int *colind, const double *val, mmnc_int e0, mmnc_int e1, mmnc_int nnz,
                       const double *M, mmnc_int k, double *out)
{
    gather_row(colind, val, e0, e1, nnz, M, k, out);
}

mmnc_i_gather_fn mmnc_i_gather_for(mmnc_int k)
{
    static const mmnc_i_gather_fn fixed[17] = {NULL,       gather_1,  gather_2,  gather_3,  gather_4,  gather_5,
                                               gather_6,   gather_7,  gather_8,  gather_9,  gather_10, gather_11,
                                               gather_12,  gather_13, gather_14, gather_15, gather_16};
    return k >= 1 && k <= 16 ? fixed[k] : gather_any;
}

void mmnc_i_pzx(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels, const double *W, double *T)
{
    const mmnc_csr *Pt = p->Pt;
    mmnc_int nx = p->nx;
    /* The labels are gathered at random rows; as bytes they stay in cache,
     * which makes the gather faster (bench/NOTES.md, "Byte labels in the
     * P_{Z,X} scatter").  Same sums in the same order either way; without
     * memory for the copy, the long labels. */
    uint8_t *l8 = labels && k <= 256 ? mmnc_i_malloc((size_t)p->ny, 1) : NULL;
    if (l8)
        for (mmnc_int y = 0; y < p->ny; y++) l8[y] = (uint8_t)labels[y];
    if (!Pt) { /* one copy of the matrix: scatter its rows (the same sums) */
        mmnc_i_col_scatter(p, k, labels, l8, W, NULL, NULL, T);
        mmnc_i_free(l8);
        mmnc_i_dsum(p, T, nx * k);
        return;
    }
#pragma omp parallel for schedule(dynamic, 256) if (p->nnz * k > MMNC_I_OMP_MIN_WORK)
    for (mmnc_int x = 0; x < nx; x++) {
        double *t = T + x * k;
        for (mmnc_int z = 0; z < k; z++) t[z] = 0.0;
        if (l8) {
            for (mmnc_int e = Pt->rowptr[x]; e < Pt->rowptr[x + 1]; e++) t[l8[Pt->colind[e]]] += Pt->val[e];
        } else if (labels) {
            for (mmnc_int e = Pt->rowptr[x]; e < Pt->rowptr[x + 1]; e++)
                t[labels[Pt->colind[e]]] += Pt->val[e];
        } else {
            for (mmnc_int e = Pt->rowptr[x]; e < Pt->rowptr[x + 1]; e++) {
                const double *w = W + Pt->colind[e] * k;
                double v = Pt->val[e];
                for (mmnc_int z = 0; z < k; z++) t[z] += w[z] * v;
            }
        }
    }
    mmnc_i_free(l8);
    mmnc_i_dsum(p, T, nx * k); /* distributed: each rank has its rows' part */
}

void mmnc_i_pz(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels, const double *W, double *pz)
{
    for (mmnc_int z = 0; z < k; z++) pz[z] = 0.0;
    for (mmnc_int y = 0; y < p->ny; y++) {
        if (labels) pz[labels[y]] += p->py[y];
        else
            for (mmnc_int z = 0; z < k; z++) pz[z] += W[y * k + z] * p->py[y];
    }
    mmnc_i_dsum(p, pz, k);
}

int mmnc_i_row_gather_each(const mmnc_pmf *p, mmnc_int k, const double *T, double *Tx, double *S,
                           mmnc_i_row_fn fn, void *ctx)
{
    const mmnc_csr *P = p->P;
    double *buf = NULL;
    mmnc_i_gather_fn gather = mmnc_i_gather_for(k);
    mmnc_int stride;
    int nt = 1;
    /* Tx = D_x^{-1} T once, so the O(nnz k) loop below has no division. */
    mmnc_i_tx_f32(p, k, T, Tx, NULL);
#ifdef _OPENMP
    nt = omp_get_max_threads();
#endif
    /* Each thread's row of S on cache lines of its own: two threads adding
     * into one line for every nonzero would pass it back and forth. */
    stride = (k + 7) / 8 * 8 + 8;
    if (!S && !(buf = mmnc_i_malloc((size_t)nt * (size_t)stride, sizeof(double)))) return MMNC_ENOMEM;
#pragma omp parallel for schedule(dynamic, 256) if (p->nnz * k > MMNC_I_OMP_MIN_WORK)
    for (mmnc_int y = 0; y < p->ny; y++) {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        double *s = S ? S + y * k : buf + (mmnc_int)tid * stride;
        gather(P->colind, P->val, P->rowptr[y], P->rowptr[y + 1], P->nnz, Tx, k, s);
        if (fn) fn(ctx, y, s);
    }
    mmnc_i_free(buf);
    return MMNC_OK;
}

mmnc_int mmnc_i_f32_stride(mmnc_int k)
{
    return k >= 2 && k <= 8 ? 8 : k > 8 && k <= 16 ? 16 : 0;
}

void mmnc_i_tx_f32(const mmnc_pmf *p, mmnc_int k, const double *T, double *Tx, float *F)
{
    mmnc_int st = F ? mmnc_i_f32_stride(k) : 0;
#pragma omp parallel for schedule(static) if (p->nx * k > MMNC_I_OMP_MIN_WORK)
    for (mmnc_int x = 0; x < p->nx; x++) {
        double ix = 1.0 / p->px[x];
        for (mmnc_int z = 0; z < k; z++) Tx[x * k + z] = T[x * k + z] * ix;
        if (st) {
            float *f = F + x * st;
            for (mmnc_int z = 0; z < k; z++) f[z] = (float)Tx[x * k + z];
            for (mmnc_int z = k; z < st; z++) f[z] = 0.0f;
        }
    }
}

/* One row of the single-precision gather: K sums and the row's mass, in
 * doubles; ST floats a row of F, one aligned cache line (ST = 16) or half
 * of one (ST = 8). */
static inline __attribute__((always_inline)) void gather32_row(const mmnc_int *colind, const double *val, mmnc_int e0,
                                                               mmnc_int e1, mmnc_int nnz, const float *F, mmnc_int K,
                                                               mmnc_int ST, double *out)
{
    double acc[16], rho = 0.0;
    for (mmnc_int z = 0; z < K; z++) acc[z] = 0.0;
    for (mmnc_int e = e0; e < e1; e++) {
        const float *m = F + colind[e] * ST;
        double v = val[e];
        if (e + PREFETCH < nnz) __builtin_prefetch(F + colind[e + PREFETCH] * ST);
        rho += v;
        for (mmnc_int z = 0; z < K; z++) acc[z] += v * (double)m[z];
    }
    for (mmnc_int z = 0; z < K; z++) out[z] = acc[z];
    out[K] = rho;
}

typedef void (*gather32_fn)(const mmnc_int *colind, const double *val, mmnc_int e0, mmnc_int e1, mmnc_int nnz,
                            const float *F, double *out);
#define GATHER32_K(K)                                                                                      \
    static void gather32_##K(const mmnc_int *colind, const double *val, mmnc_int e0, mmnc_int e1,          \
                             mmnc_int nnz, const float *F, double *out)                                    \
    {                                                                                                      \
        gather32_row(colind, val, e0, e1, nnz, F, K, (K) <= 8 ? 8 : 16, out);                              \
    }
GATHER32_K(2)
GATHER32_K(3)
GATHER32_K(4)
GATHER32_K(5)
GATHER32_K(6)
GATHER32_K(7)
GATHER32_K(8)
GATHER32_K(9)
GATHER32_K(10)
GATHER32_K(11)
GATHER32_K(12)
GATHER32_K(13)
GATHER32_K(14)
GATHER32_K(15)
GATHER32_K(16)

int mmnc_i_row_gather32_each(const mmnc_pmf *p, mmnc_int k, const float *F, mmnc_i_row_fn fn, void *ctx)
{
    static const gather32_fn fixed[17] = {NULL,        NULL,        gather32_2,  gather32_3,  gather32_4,
                                          gather32_5,  gather32_6,  gather32_7,  gather32_8,  gather32_9,
                                          gather32_10, gather32_11, gather32_12, gather32_13, gather32_14,
                                          gather32_15, gather32_16};
    const mmnc_csr *P = p->P;
    gather32_fn gather = k >= 2 && k <= 16 ? fixed[k] : NULL;
    mmnc_int stride = (k + 8) / 8 * 8 + 8; /* k + 1 values on lines of the thread's own */
    double *buf;
    int nt = 1;
    if (!gather) return MMNC_EINVAL;
#ifdef _OPENMP
    nt = omp_get_max_threads();
#endif
    if (!(buf = mmnc_i_malloc((size_t)nt * (size_t)stride, sizeof(double)))) return MMNC_ENOMEM;
#pragma omp parallel for schedule(dynamic, 256) if (p->nnz * k > MMNC_I_OMP_MIN_WORK)
    for (mmnc_int y = 0; y < p->ny; y++) {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        double *s = buf + (mmnc_int)tid * stride;
        gather(P->colind, P->val, P->rowptr[y], P->rowptr[y + 1], P->nnz, F, s);
        fn(ctx, y, s);
    }
    mmnc_i_free(buf);
    return MMNC_OK;
}

int mmnc_i_screen_mode(const mmnc_i_tuning *tune)
{
    const char *e;
    if (tune && tune->screen >= 0) return tune->screen;
    e = getenv("MMNC_SCREEN");
    return e && e[0] >= '0' && e[0] <= '2' && !e[1] ? e[0] - '0' : 1;
}

void mmnc_i_screen_count(mmnc_i_counts *counts, int64_t rows, int64_t exact, int64_t full)
{
    if (!counts) return;
#pragma omp atomic
    counts->screen_rows += rows;
#pragma omp atomic
    counts->screen_exact += exact;
#pragma omp atomic
    counts->screen_full += full;
}

void mmnc_i_row_gather(const mmnc_pmf *p, mmnc_int k, const double *T, double *Tx, double *S)
{
    (void)mmnc_i_row_gather_each(p, k, T, Tx, S, NULL, NULL); /* with S, nothing to allocate */
}

int mmnc_i_spectrum(const mmnc_pmf *p, mmnc_int k, const double *T, const double *pz, double *sigma,
                    double *U, mmnc_err *err)
{
    mmnc_int nx = p->nx, nb = (nx + XBLOCK - 1) / XBLOCK;
    double *part = NULL, *iz = NULL, *ev = NULL;
    int status = MMNC_OK;
    if (k > 46340) return mmnc_i_err(err, MMNC_EINVAL, "k = %lld is too large for LAPACK", (long long)k);
    MMNC_ALLOC(part, nb * k * k, err, status);
    MMNC_ALLOC(iz, k, err, status);
    MMNC_ALLOC(ev, k, err, status);
    for (mmnc_int z = 0; z < k; z++) iz[z] = pz[z] > 0.0 ? 1.0 / sqrt(pz[z]) : 0.0;
#pragma omp parallel for schedule(static) if (nb > 1)
    for (mmnc_int b = 0; b < nb; b++) {
        double *g = part + b * k * k, row[64];
        double *r = k <= 64 ? row : NULL;
        memset(g, 0, (size_t)(k * k) * sizeof(double));
        mmnc_int end = (b + 1) * XBLOCK < nx ? (b + 1) * XBLOCK : nx;
        for (mmnc_int x = b * XBLOCK; x < end; x++) {
            const double *t = T + x * k;
            double ix = 1.0 / p->px[x];
            if (r) {
                for (mmnc_int z = 0; z < k; z++) r[z] = t[z] * iz[z];
                for (mmnc_int i = 0; i < k; i++) {
                    double a = r[i] * ix;
                    if (a == 0.0) continue;
                    for (mmnc_int j = i; j < k; j++) g[i * k + j] += a * r[j];
                }
            } else {
                for (mmnc_int i = 0; i < k; i++) {
                    double a = t[i] * iz[i] * ix;
                    if (a == 0.0) continue;
                    for (mmnc_int j = i; j < k; j++) g[i * k + j] += a * t[j] * iz[j];
                }
            }
        }
    }
    /* Sum the partials in block order into U, then symmetrise. */
    memset(U, 0, (size_t)(k * k) * sizeof(double));
    for (mmnc_int b = 0; b < nb; b++)
        for (mmnc_int i = 0; i < k; i++)
            for (mmnc_int j = i; j < k; j++) U[i * k + j] += part[b * k * k + i * k + j];
    for (mmnc_int i = 0; i < k; i++)
        for (mmnc_int j = 0; j < i; j++) U[i * k + j] = U[j * k + i];
    {
        lapack_int info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'U', (lapack_int)k, U, (lapack_int)k, ev);
        if (info != 0) {
            status = mmnc_i_err(err, MMNC_ENOCONV, "eigen-decomposition of the %lld x %lld Gram matrix failed (LAPACK info %d)",
                                (long long)k, (long long)k, (int)info);
            goto cleanup;
        }
    }
    /* dsyevd sorts ascending: reverse to descending order of sigma. */
    for (mmnc_int i = 0; i < k; i++) sigma[i] = sqrt(ev[k - 1 - i] > 0.0 ? ev[k - 1 - i] : 0.0);
    for (mmnc_int r = 0; r < k; r++)
        for (mmnc_int i = 0; i < k / 2; i++) {
            double t = U[r * k + i];
            U[r * k + i] = U[r * k + k - 1 - i];
            U[r * k + k - 1 - i] = t;
        }
    /* Normalise signs: largest-magnitude entry of each vector positive. */
    for (mmnc_int i = 0; i < k; i++) {
        mmnc_int best = 0;
        for (mmnc_int r = 1; r < k; r++)
            if (fabs(U[r * k + i]) > fabs(U[best * k + i]) + 1e-14) best = r;
        if (U[best * k + i] < 0)
            for (mmnc_int r = 0; r < k; r++) U[r * k + i] = -U[r * k + i];
    }
cleanup:
    mmnc_i_free(part);
    mmnc_i_free(iz);
    mmnc_i_free(ev);
    return status;
}

double mmnc_i_mutual_info(const mmnc_pmf *p, mmnc_int k, const double *T, const double *pz)
{
    mmnc_int nx = p->nx, nb = (nx + XBLOCK - 1) / XBLOCK;
    double s;
    int64_t *part = mmnc_i_calloc((size_t)(nb ? nb : 1) * MMNC_I_FIX_LIMBS, sizeof *part);
    if (!part) return NAN;
#pragma omp parallel for schedule(static) if (nb > 1)
    for (mmnc_int b = 0; b < nb; b++) {
        int64_t l[MMNC_I_FIX_LIMBS] = {0}; /* local: in registers */
        mmnc_int end = (b + 1) * XBLOCK < nx ? (b + 1) * XBLOCK : nx;
        for (mmnc_int x = b * XBLOCK; x < end; x++)
            for (mmnc_int z = 0; z < k; z++) {
                double t = T[x * k + z];
                if (t > 0.0) mmnc_i_fix_add(l, t * log(t / (pz[z] * p->px[x])));
            }
        memcpy(part + b * MMNC_I_FIX_LIMBS, l, sizeof l);
    }
    for (mmnc_int b = 1; b < nb; b++)
        for (int i = 0; i < MMNC_I_FIX_LIMBS; i++) part[i] += part[b * MMNC_I_FIX_LIMBS + i];
    s = mmnc_i_fix_value(part);
    mmnc_i_free(part);
    return s;
}

/* First entry of row y of P with column >= c (P's columns increase within a row). */
static mmnc_int row_lower_bound(const mmnc_csr *P, mmnc_int y, mmnc_int c)
{
    mmnc_int lo = P->rowptr[y], hi = P->rowptr[y + 1];
    while (lo < hi) {
        mmnc_int mid = lo + (hi - lo) / 2;
        if (P->colind[mid] < c) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

void mmnc_i_col_scatter(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels, const uint8_t *l8, const double *W,
                        const double *vals, const double *rsq, double *T)
{
    const mmnc_csr *P = p->P;
    mmnc_int nx = p->nx;
    int want = 1;
#ifdef _OPENMP
    if (p->nnz * k > MMNC_I_OMP_MIN_WORK) want = omp_get_max_threads();
#endif
    if (!vals) vals = P->val;
#pragma omp parallel num_threads(want)
    {
        int t = 0, nt = 1; /* the team actually started (1 when nested in a busy region) */
        mmnc_int c0, c1;
#ifdef _OPENMP
        t = omp_get_thread_num();
        nt = omp_get_num_threads();
#endif
        /* columns [c0, c1): a share of the mass P_X, a proxy for the work */
        {
            double target0 = (double)t / nt, target1 = (double)(t + 1) / nt, acc = 0.0;
            c0 = t == 0 ? 0 : -1;
            c1 = t == nt - 1 ? nx : -1;
            for (mmnc_int x = 0; x < nx && (c0 < 0 || c1 < 0); x++) {
                if (c0 < 0 && acc >= target0) c0 = x;
                if (c1 < 0 && acc >= target1) c1 = x;
                acc += p->px[x];
            }
            if (c0 < 0) c0 = nx;
            if (c1 < 0) c1 = nx;
        }
        memset(T + c0 * k, 0, (size_t)((c1 - c0) * k) * sizeof(double));
        for (mmnc_int y = 0; y < P->nrows && c0 < c1; y++) {
            mmnc_int e = c0 == 0 ? P->rowptr[y] : row_lower_bound(P, y, c0), end = P->rowptr[y + 1];
            double d = rsq ? sqrt(rsq[y]) : 1.0;
            if (l8 || labels) {
                mmnc_int z = l8 ? l8[y] : labels[y];
                for (; e < end && P->colind[e] < c1; e++) T[P->colind[e] * k + z] += vals[e] / d;
            } else {
                const double *w = W + y * k;
                for (; e < end && P->colind[e] < c1; e++) {
                    double *tx = T + P->colind[e] * k, v = vals[e] / d;
                    for (mmnc_int z = 0; z < k; z++) tx[z] += w[z] * v;
                }
            }
        }
    }
}

/* Columns of T a chunk of the exact sums: the limbs of FIX_CHUNK sums (8 MB)
 * at a time. */
#define FIX_CHUNK ((mmnc_int)1 << 18)
static mmnc_int fix_chunk(mmnc_int nx, mmnc_int k)
{
    mmnc_int c = FIX_CHUNK / k;
    if (c > nx) c = nx;
    return c > 1 ? c : 1;
}

size_t mmnc_i_fix_work(const mmnc_pmf *p, mmnc_int k)
{
    return (size_t)fix_chunk(p->nx, k) * (size_t)k * MMNC_I_FIX_LIMBS;
}

void mmnc_i_pzx_fix(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels, double *T, double *pz, int64_t *work)
{
    const mmnc_csr *Pt = p->Pt, *P = p->P;
    mmnc_int nx = p->nx, ch = fix_chunk(nx, k);
    for (mmnc_int c0 = 0; c0 < nx; c0 += ch) { /* chunk by chunk, the same on every rank */
        mmnc_int c1 = c0 + ch < nx ? c0 + ch : nx, n = (c1 - c0) * k;
        memset(work, 0, (size_t)n * MMNC_I_FIX_LIMBS * sizeof *work);
        if (Pt) {
#pragma omp parallel for schedule(dynamic, 256) if (p->nnz > MMNC_I_OMP_MIN_WORK)
            for (mmnc_int x = c0; x < c1; x++) {
                int64_t *l = work + (x - c0) * k * MMNC_I_FIX_LIMBS;
                for (mmnc_int e = Pt->rowptr[x]; e < Pt->rowptr[x + 1]; e++)
                    mmnc_i_fix_add(l + labels[Pt->colind[e]] * MMNC_I_FIX_LIMBS, Pt->val[e]);
            }
        } else { /* one copy of the matrix: threads take ranges of the columns, each reads its part of every row */
#pragma omp parallel if (p->nnz > MMNC_I_OMP_MIN_WORK)
            {
                int t = 0, nt = 1;
#ifdef _OPENMP
                t = omp_get_thread_num();
                nt = omp_get_num_threads();
#endif
                mmnc_int a = c0 + (c1 - c0) * t / nt, b = c0 + (c1 - c0) * (t + 1) / nt;
                for (mmnc_int y = 0; y < P->nrows && a < b; y++) {
                    mmnc_int e = row_lower_bound(P, y, a), end = P->rowptr[y + 1];
                    for (; e < end && P->colind[e] < b; e++)
                        mmnc_i_fix_add(work + ((P->colind[e] - c0) * k + labels[y]) * MMNC_I_FIX_LIMBS, P->val[e]);
                }
            }
        }
        mmnc_i_disum(p, work, n * MMNC_I_FIX_LIMBS);
        for (mmnc_int i = 0; i < n; i++) T[c0 * k + i] = mmnc_i_fix_value(work + i * MMNC_I_FIX_LIMBS);
    }
    memset(work, 0, (size_t)k * MMNC_I_FIX_LIMBS * sizeof *work);
    for (mmnc_int y = 0; y < p->ny; y++) mmnc_i_fix_add(work + labels[y] * MMNC_I_FIX_LIMBS, p->py[y]);
    mmnc_i_disum(p, work, k * MMNC_I_FIX_LIMBS);
    for (mmnc_int z = 0; z < k; z++) pz[z] = mmnc_i_fix_value(work + z * MMNC_I_FIX_LIMBS);
}
