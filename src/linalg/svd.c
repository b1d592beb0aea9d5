/*
 * svd.c -- the leading singular triplets of the DTM B = B_{Y,X}, and word
 * embeddings from them.
 *
 * Problem: the r largest singular values sigma_1 >= ... >= sigma_r of
 *
 *     B = [P_Y]^{-1/2} P_{Y,X} [P_X]^{-1/2}     (never formed)
 *
 * and their vectors, by randomised block subspace iteration with a
 * Rayleigh-Ritz step (Halko, Martinsson & Tropp, SIAM Review 2011, Alg. 4.4
 * and 5.1): with l = r + oversample random columns Q,
 *
 *     repeat  Y = B Q;  S^2 = eig(Y^T Y)   (the Ritz values of B on span Q)
 *     until the r leading Ritz values S change by less than tol * S_1,
 *             else Q = orth(B^T Y);
 *     then    Y R = B Q (thin QR);  R = Us S Vs^T (l x l SVD):
 *             B ~ (Y Us) S (Q Vs)^T.
 *
 * Each sweep multiplies by B^T B, so the error in sigma_j shrinks like
 * (sigma_{l+1} / sigma_j)^2 per iteration; oversampling widens that gap.
 * The embedding's iteration shifts that product: Q = orth((B^T B - c) Q)
 * with c = S_l^2 / 2, half the smallest Ritz value, the Chebyshev filter of
 * degree 1 for the interval [0, S_l^2] that holds the unwanted part of the
 * spectrum of B^T B (Chebyshev acceleration of subspace iteration: Saad,
 * Numerical Methods for Large Eigenvalue Problems, 2011; Zhou & Saad
 * 2007; prototype: bench/peers/shift_proto.py).  It maps that interval to
 * [-c, c] and sigma_j^2 to sigma_j^2 - c, so per iteration the error in
 * sigma_j shrinks like max(c, sigma_{l+1}^2 - c) / (sigma_j^2 - c) instead of
 * sigma_{l+1}^2 / sigma_j^2, which saves iterations and leaves smaller
 * residuals at the stop (bench/NOTES.md, "A shifted iteration").  As every
 * Ritz value of span Q is at least S_l^2, the shifted block keeps a
 * condition number below 2 sigma_1^2 / S_l^2 (||(M - c) Q y|| >=
 * y^T Q^T (M - c) Q y >= S_l^2 - c for a unit y, and ||M - c|| <
 * sigma_1^2), about twice the unshifted one's.  Its start is a sparse sign
 * matrix (8 entries +-1 a row), used without orthonormalising it, so the
 * first product costs O(8 nnz) instead of O(nnz l) (see mmnc_i_sign_start).
 * The two sparse products are O(nnz l) (cache-blocked, pmf.c); the
 * orthonormalisations are CholeskyQR (Fukaya et al. 2014: G = Q^T Q,
 * G = R^T R, Q <- Q R^{-1}), which is BLAS-3 and splits into row blocks,
 * instead of a Householder QR: one round per iteration while its loss of
 * orthogonality (~kappa^2 eps) is far below tol, two (CholeskyQR2) otherwise
 * and before the Rayleigh-Ritz step; Householder remains the fallback when
 * the block is too ill-conditioned for the Cholesky factorisation.  In the
 * embedding's lean iteration Y is never orthonormalised: its Gram matrix
 * gives the Ritz values for the stopping test and, at the end, the
 * Rayleigh-Ritz step itself (Y^T Y = Vs S^2 Vs^T, U = Y Vs S^{-1}).
 *
 * Determinism: Gram matrices are summed over a fixed partition of the rows
 * in a fixed order, so the result does not depend on the thread count
 * (with a single-threaded BLAS, which the command-line tool enforces).
 *
 * Embedding (paper, Sec. 5.3, after the ACE features of Huang et al.): word
 * y gets the row y of [P_Y]^{-1/2} U, i.e. e_j(y) = U_{y,j} / sqrt(P_Y(y)),
 * optionally scaled by sigma_j^power.  The first pair, sigma = 1 with
 * U = sqrt(P_Y), is the same constant 1 for every word and is dropped unless
 * asked for.
 */
#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "core/mmnc_i.h"

#define NBLOCKS 8 /* the fixed row partition of the Gram sums */
#define RR_GRAM_MIN 1e-3 /* smallest S_r / S_1 for the Rayleigh-Ritz step from the Gram matrix */

#ifdef MMNC_SVD_PROFILE
/* Compiled with -DMMNC_SVD_PROFILE, the lean iteration times its phases (the
 * start, the products B'Q and B'^T Y, the Gram sums with the Ritz values, the
 * shift with the orthonormalisation, the final step) and prints them on
 * stderr at the end (bench/NOTES.md, "The random start in parallel"). */
#include <stdio.h>
static double prof_s[6];
#define PROF_T(v) double v = mmnc_i_now()
#define PROF_ADD(i, v) (prof_s[i] += mmnc_i_now() - (v))
#else
#define PROF_T(v)
#define PROF_ADD(i, v) ((void)0)
#endif

/* Rows [lo, hi) of block b of n rows. */
static void block_range(mmnc_int n, int b, mmnc_int *lo, mmnc_int *hi)
{
    *lo = n * b / NBLOCKS;
    *hi = n * (b + 1) / NBLOCKS;
}

/* G = Q^T Q (upper triangle) for the n x m row-major Q; part holds
 * NBLOCKS m x m partial sums. */
static void gram(mmnc_int n, mmnc_int m, const double *Q, double *G, double *part)
{
#pragma omp parallel for schedule(static, 1) if (n * m * m > 1000000)
    for (int b = 0; b < NBLOCKS; b++) {
        mmnc_int lo, hi;
        block_range(n, b, &lo, &hi);
        double *Gb = part + (size_t)b * (size_t)(m * m);
        if (hi > lo)
            cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)m, (int)(hi - lo), 1.0, Q + lo * m,
                        (int)m, 0.0, Gb, (int)m);
        else
            memset(Gb, 0, (size_t)(m * m) * sizeof(double));
    }
#pragma omp parallel for schedule(static) if (m * m > 10000)
    for (mmnc_int i = 0; i < m; i++)
        for (mmnc_int j = i; j < m; j++) {
            double t = 0.0;
            for (int b = 0; b < NBLOCKS; b++) t += part[(size_t)b * (size_t)(m * m) + (size_t)(i * m + j)];
            G[i * m + j] = t;
        }
}

/* Householder QR: Q <- orth(Q), R (m x m upper) with Q_in = Q_out R. */
static int householder(mmnc_int n, mmnc_int m, double *Q, double *R, double *tau, mmnc_err *err)
{
    lapack_int info = LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, (lapack_int)n, (lapack_int)m, Q, (lapack_int)m, tau);
    if (info == 0 && R) {
        memset(R, 0, (size_t)(m * m) * sizeof(double));
        for (mmnc_int i = 0; i < m; i++)
            for (mmnc_int j = i; j < m; j++) R[i * m + j] = Q[i * m + j];
    }
    if (info == 0)
        info = LAPACKE_dorgqr(LAPACK_ROW_MAJOR, (lapack_int)n, (lapack_int)m, (lapack_int)m, Q, (lapack_int)m, tau);
    if (info != 0) return mmnc_i_err(err, MMNC_ENOCONV, "QR factorisation failed (LAPACK info %d)", (int)info);
    return MMNC_OK;
}

/* Workspace of orth(): 2 m^2 + NBLOCKS m^2 + m doubles. */
typedef struct orthws {
    double *G, *R1, *part, *tau;
} orthws;

/*
 * Q <- an orthonormal basis of the columns of the n x m row-major Q (n >= m),
 * and, if R is not NULL, the m x m upper triangular R with Q_in = Q_out R.
 * CholeskyQR2, or Householder when a Cholesky factorisation fails (Q
 * numerically rank deficient).  With rows_of (a distributed pmf), Q is this
 * rank's rows of a taller matrix: the Gram matrices are summed across ranks
 * (the same bits on every rank) and a failed Cholesky factorisation is
 * retried with a diagonal shift (shifted CholeskyQR, Fukaya et al. 2020)
 * instead of a Householder QR, which would need all the rows.  need > 0
 * stops after the first round when its loss of orthogonality, about
 * kappa^2 eps with kappa estimated from R's diagonal, is below need (*rounds,
 * if not NULL, says 1 or 2); need = 0 always makes two.
 */
static int orth(mmnc_int n, mmnc_int m, double *Q, double *R, double need, int *rounds, orthws *w,
                const mmnc_pmf *rows_of, mmnc_err *err)
{
    int round, dist = rows_of && mmnc_i_distributed(rows_of);
    if (rounds) *rounds = 2;
    for (round = 0; round < 2; round++) {
        gram(n, m, Q, w->G, w->part);
        if (dist) {
            mmnc_i_dsum(rows_of, w->G, m * m);
            if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'U', (lapack_int)m, w->G, (lapack_int)m) != 0) {
                /* the factorisation left G partly overwritten: form it again, shifted */
                double tr = 0.0;
                gram(n, m, Q, w->G, w->part);
                mmnc_i_dsum(rows_of, w->G, m * m);
                for (mmnc_int i = 0; i < m; i++) tr += w->G[i * m + i];
                for (mmnc_int i = 0; i < m; i++) w->G[i * m + i] += 1e-13 * (tr > 0 ? tr : 1.0);
                if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'U', (lapack_int)m, w->G, (lapack_int)m) != 0)
                    return mmnc_i_err(err, MMNC_ENOCONV, "CholeskyQR failed on a rank-deficient block");
            }
        } else if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'U', (lapack_int)m, w->G, (lapack_int)m) != 0)
            break;
        /* Q <- Q G^{-1}, row blocks independent. */
#pragma omp parallel for schedule(static, 1) if (n * m * m > 1000000)
        for (int b = 0; b < NBLOCKS; b++) {
            mmnc_int lo, hi;
            block_range(n, b, &lo, &hi);
            if (hi > lo)
                cblas_dtrsm(CblasRowMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, (int)(hi - lo),
                            (int)m, 1.0, w->G, (int)m, Q + lo * m, (int)m);
        }
        if (round == 0 && need > 0.0) {
            /* CholeskyQR leaves Q orthonormal to about kappa^2 eps; kappa is
             * at least the spread of R's diagonal. */
            double dmax = 0.0, dmin = HUGE_VAL;
            for (mmnc_int i = 0; i < m; i++) {
                double d = fabs(w->G[i * m + i]);
                if (d > dmax) dmax = d;
                if (d < dmin) dmin = d;
            }
            if (dmin > 0.0 && (dmax / dmin) * (dmax / dmin) * DBL_EPSILON < need) {
                if (R) {
                    memcpy(R, w->G, (size_t)(m * m) * sizeof(double));
                    for (mmnc_int i = 0; i < m; i++)
                        for (mmnc_int j = 0; j < i; j++) R[i * m + j] = 0.0;
                }
                if (rounds) *rounds = 1;
                return MMNC_OK;
            }
        }
        if (R) {
            for (mmnc_int i = 0; i < m; i++)
                for (mmnc_int j = 0; j < i; j++) w->G[i * m + j] = 0.0;
            if (round == 0) {
                memcpy(w->R1, w->G, (size_t)(m * m) * sizeof(double));
            } else { /* R = R2 R1 */
                memcpy(R, w->R1, (size_t)(m * m) * sizeof(double));
                cblas_dtrmm(CblasRowMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, (int)m, (int)m, 1.0,
                            w->G, (int)m, R, (int)m);
            }
        }
    }
    if (round == 2) return MMNC_OK;
    /* Cholesky failed in round `round`; Q = Q_cur R1 if round 1. */
    if (round == 0) return householder(n, m, Q, R, w->tau, err);
    {
        int st = householder(n, m, Q, R ? w->G : NULL, w->tau, err);
        if (st == MMNC_OK && R) {
            memcpy(R, w->R1, (size_t)(m * m) * sizeof(double));
            cblas_dtrmm(CblasRowMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, (int)m, (int)m, 1.0, w->G,
                        (int)m, R, (int)m);
        }
        return st;
    }
}

/* C (n x r) = A (n x l) * Bm[:, 0..r-1] (Bm is l x l), in row blocks. */
static void block_gemm(mmnc_int n, mmnc_int l, mmnc_int r, const double *A, const double *Bm, int transB,
                       double *C)
{
#pragma omp parallel for schedule(static, 1) if (n * l * r > 1000000)
    for (int b = 0; b < NBLOCKS; b++) {
        mmnc_int lo, hi;
        block_range(n, b, &lo, &hi);
        if (hi > lo)
            cblas_dgemm(CblasRowMajor, CblasNoTrans, transB ? CblasTrans : CblasNoTrans, (int)(hi - lo), (int)r,
                        (int)l, 1.0, A + lo * l, (int)l, Bm, (int)l, 0.0, C + lo * r, (int)r);
    }
}

/* Q <- Q R^{-1} (nx x l) and Y <- Y R^{-1} (ny x l) for the l x l upper
 * triangular R, in row blocks (which keeps Y = B Q). */
static void solve_both(mmnc_int nx, mmnc_int ny, mmnc_int l, const double *R, double *Q, double *Y)
{
#pragma omp parallel for schedule(static, 1) if ((nx + ny) * l * l > 1000000)
    for (int b = 0; b < 2 * NBLOCKS; b++) {
        mmnc_int lo, hi, n = b < NBLOCKS ? nx : ny;
        double *M = b < NBLOCKS ? Q : Y;
        block_range(n, b % NBLOCKS, &lo, &hi);
        if (hi > lo)
            cblas_dtrsm(CblasRowMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, (int)(hi - lo), (int)l, 1.0,
                        R, (int)l, M + lo * l, (int)l);
    }
}

/* How far the r leading values s moved since prev, the largest move
 * relative to s[0] (prev then takes s). */
static double change_of(mmnc_int r, const double *s, double *prev)
{
    double change = 0.0;
    for (mmnc_int i = 0; i < r; i++) {
        double d = fabs(s[i] - prev[i]) / (s[0] > 0 ? s[0] : 1.0);
        if (d > change) change = d;
        prev[i] = s[i];
    }
    return change;
}

/* What a caller hears after each iteration (mmnc_progress_fn): fn (may be
 * NULL), its ctx, and the restart it is called with. */
typedef struct svd_progress {
    mmnc_progress_fn fn;
    void *ctx;
    int restart;
} svd_progress;

/* Has the iteration settled (the change below tol)?  *status becomes
 * MMNC_ECANCELED (with err) when the progress function asks to stop. */
static int settled(mmnc_int r, const double *s, double *prev, double tol, const svd_progress *pr, mmnc_int it,
                   int *status, mmnc_err *err)
{
    double change = change_of(r, s, prev);
    if (pr && pr->fn && pr->fn(pr->ctx, pr->restart, (int)it, change))
        *status = mmnc_i_err(err, MMNC_ECANCELED, "stopped by the progress function (SVD iteration %d)", (int)it);
    return change < tol;
}

/* The l Ritz values of B on span(Q) from G = (B Q)^T (B Q) (upper
 * triangle, overwritten): s = sqrt of its eigenvalues, descending. */
static int ritz_values(mmnc_int l, double *G, double *ev, double *s, mmnc_err *err)
{
    lapack_int info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'N', 'U', (lapack_int)l, G, (lapack_int)l, ev);
    if (info != 0) return mmnc_i_err(err, MMNC_ENOCONV, "small eigenproblem failed (LAPACK info %d)", (int)info);
    for (mmnc_int i = 0; i < l; i++) s[i] = sqrt(ev[l - 1 - i] > 0.0 ? ev[l - 1 - i] : 0.0);
    return MMNC_OK;
}

/* D (nd x l) -= sqrt(md) c^T with c = S^T sqrt(ms) (S: ns x l), c summed
 * across ranks when sum_over is distributed; c (l) is scratch.  The sum is
 * serial (the same bits for any thread count). */
static void minus_rank_one(const double *ms, mmnc_int ns, const double *S, const double *md, mmnc_int nd, double *D,
                           mmnc_int l, double *c, const mmnc_pmf *sum_over)
{
    for (mmnc_int j = 0; j < l; j++) c[j] = 0.0;
    for (mmnc_int i = 0; i < ns; i++) {
        double w = sqrt(ms[i]);
        for (mmnc_int j = 0; j < l; j++) c[j] += w * S[i * l + j];
    }
    if (sum_over) mmnc_i_dsum(sum_over, c, l);
#pragma omp parallel for schedule(static) if (nd * l > MMNC_I_OMP_MIN_WORK)
    for (mmnc_int i = 0; i < nd; i++) {
        double w = sqrt(md[i]);
        for (mmnc_int j = 0; j < l; j++) D[i * l + j] -= w * c[j];
    }
}

/* The lean iteration's random start: a sparse sign matrix (Martinsson &
 * Tropp, Randomized numerical linear algebra, Acta Numerica 2020, sec.
 * 9.2, whose default of 8 nonzeros this is): each row i of the n x m Q has
 * z = min(START_NNZ, m) entries +1 or -1 in distinct columns, drawn from a
 * stream of its own (seeded by seed and i), so the rows are drawn in
 * parallel and Q does not depend on the number of threads.  col[i z + t]
 * and sgn[i z + t] (the sign over sqrt(P_X(i)), as start_mul scales) hold
 * row i's entries; Q gets them densely (the shift needs it).  Against a
 * Gaussian start it saves the draw, its orthonormalisation (see start_gram)
 * and nearly all of the first product (start_mul), and the iteration still
 * needs as many steps to the same residuals (bench/NOTES.md, "A sparse
 * start"). */
#define START_NNZ 8

void mmnc_i_sign_start(const mmnc_pmf *p, mmnc_int m, mmnc_int z, uint64_t seed, int32_t *col, double *sgn, double *Q)
{
    mmnc_int n = p->nx;
#pragma omp parallel for schedule(static) if (n * m > MMNC_I_OMP_MIN_WORK)
    for (mmnc_int i = 0; i < n; i++) {
        mmnc_rng g;
        double *q = Q + i * m, w = 1.0 / sqrt(p->px[i]);
        memset(q, 0, (size_t)m * sizeof(double));
        mmnc_rng_seed(&g, seed * 0xd1342543de82ef95ULL + (uint64_t)i);
        for (mmnc_int t = 0; t < z; t++) {
            uint64_t bits;
            mmnc_int j;
            do j = mmnc_rng_below(&g, m);
            while (q[j] != 0.0);
            bits = mmnc_rng_next(&g);
            q[j] = bits >> 63 ? 1.0 : -1.0;
            col[i * z + t] = (int32_t)j;
            sgn[i * z + t] = q[j] * w;
        }
    }
}

/* G = Q^T Q (upper triangle) of the sparse start: integers (counts of
 * agreeing less disagreeing signs), so exact in any order; O(n z^2). */
static void start_gram(const mmnc_pmf *p, mmnc_int m, mmnc_int z, const int32_t *col, const double *Q, double *G)
{
    memset(G, 0, (size_t)(m * m) * sizeof(double));
    for (mmnc_int i = 0; i < p->nx; i++) {
        const int32_t *c = col + i * z;
        const double *q = Q + i * m;
        for (mmnc_int s = 0; s < z; s++)
            for (mmnc_int t = 0; t < z; t++)
                if (c[s] <= c[t]) G[c[s] * m + c[t]] += q[c[s]] * q[c[t]];
    }
}

/* Y = B' Q for the sparse start: each nonzero of P, scaled, adds to the z
 * columns of its column's row of Q, O(nnz z) instead of the O(nnz m) of a
 * dense product; then the trivial pair's correction as lean_mul.  The rows
 * are independent: the same bits for any number of threads. */
static void start_mul(const mmnc_pmf *p, mmnc_int m, mmnc_int z, const int32_t *col, const double *sgn,
                      const double *Q, double *Yb, int deflate, double *c)
{
    const mmnc_csr *P = p->P;
#pragma omp parallel for schedule(dynamic, 64) if (p->nnz * z > MMNC_I_OMP_MIN_WORK)
    for (mmnc_int y = 0; y < p->ny; y++) {
        double *yr = Yb + y * m, s = 1.0 / sqrt(p->py[y]);
        memset(yr, 0, (size_t)m * sizeof(double));
        for (mmnc_int e = P->rowptr[y]; e < P->rowptr[y + 1]; e++) {
            const int32_t *cx = col + P->colind[e] * z;
            const double *sx = sgn + P->colind[e] * z;
            double a = P->val[e] * s;
            for (mmnc_int t = 0; t < z; t++) yr[cx[t]] += a * sx[t];
        }
    }
    if (deflate) minus_rank_one(p->px, p->nx, Q, p->py, p->ny, Yb, m, c, NULL);
}

/* The lean iteration's products, of B or (deflate = 1) of B less its
 * trivial pair, B - sqrt(P_Y) sqrt(P_X)^T, whose singular values are B's
 * but the 1 of u = sqrt(P_Y), v = sqrt(P_X): Y = B Q - u (v^T Q).  c (l)
 * is scratch.  The sums are serial (the same bits for any thread count).
 * Without the deflation the trivial pair is computed with the others, and
 * where the data has several components (more singular values equal to 1)
 * the returned vectors are any basis of that space: one of them need not
 * be orthogonal to u, and rounding decides which (a constant added to
 * every row's first coordinate). */
static void lean_mul(const mmnc_pmf *p, mmnc_int l, const double *Q, double *Yb, int deflate, double *c,
                     mmnc_i_mulws *ws)
{
    mmnc_i_dtm_mul_ws(p, l, Q, Yb, ws);
    if (deflate) minus_rank_one(p->px, p->nx, Q, p->py, p->ny, Yb, l, c, NULL); /* Q: the same on every rank */
}

/* Q = B^T Y, deflated as lean_mul: Q = B^T Y - v (u^T Y), u^T Y summed
 * across ranks (Y is distributed by rows, Q is everywhere the same). */
static void lean_tmul(const mmnc_pmf *p, mmnc_int l, const double *Yb, double *Q, int deflate, double *c,
                      mmnc_i_mulws *ws)
{
    mmnc_i_dtm_tmul_ws(p, l, Yb, Q, ws);
    if (deflate) minus_rank_one(p->py, p->ny, Yb, p->px, p->nx, Q, l, c, p);
}

/* Sign convention: the entry of largest magnitude of each column of U (of
 * V when U is not asked for) is positive, the first such entry in row order
 * (distributed: over all ranks' rows, ranks in order); the same column of V
 * (of U) flips with it.  Row by row, all columns at once (the blocks are
 * row-major: a column at a time read them with a stride of r doubles), with
 * one exchange of the ranks' winners. */
static int sign_convention(const mmnc_pmf *p, mmnc_int r, double *U, double *V, mmnc_err *err)
{
    const double *S = U ? U : V; /* the block whose columns decide */
    mmnc_int n = U ? p->ny : p->nx;
    int nr = U && mmnc_i_distributed(p) ? p->dist->size : 1;
    double *w = mmnc_i_malloc((size_t)(2 * r) * (size_t)(nr + 1), sizeof(double));
    double *mine, *all; /* per column: the largest magnitude, 1 if negative; the ranks' */
    int status = w ? MMNC_OK : mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    if (nr > 1) status = mmnc_i_agree(p->dist, status, err); /* no rank left alone in the exchange below */
    if (status != MMNC_OK) {
        mmnc_i_free(w);
        return status;
    }
    mine = w;
    all = w + 2 * r;
    for (mmnc_int j = 0; j < 2 * r; j++) mine[j] = 0.0;
    for (mmnc_int i = 0; i < n; i++)
        for (mmnc_int j = 0; j < r; j++) {
            double a = fabs(S[i * r + j]);
            if (a > mine[2 * j] + 1e-15) {
                mine[2 * j] = a;
                mine[2 * j + 1] = S[i * r + j] < 0;
            }
        }
    if (nr > 1) { /* the ranks' winners, taken in rank (= row) order */
        p->dist->allgather(p->dist, mine, (size_t)(2 * r) * sizeof(double), all);
        for (mmnc_int j = 0; j < r; j++) {
            double big = 0.0, neg = 0.0;
            for (int q = 0; q < nr; q++)
                if (all[q * 2 * r + 2 * j] > big + 1e-15) big = all[q * 2 * r + 2 * j], neg = all[q * 2 * r + 2 * j + 1];
            mine[2 * j + 1] = neg;
        }
    }
    for (int b = 0; b < 2; b++) {
        double *M = b == 0 ? U : V;
        mmnc_int m = b == 0 ? p->ny : p->nx;
        if (!M) continue;
        for (mmnc_int i = 0; i < m; i++)
            for (mmnc_int j = 0; j < r; j++)
                if (mine[2 * j + 1] != 0.0) M[i * r + j] = -M[i * r + j];
    }
    mmnc_i_free(w);
    return MMNC_OK;
}

/* The r leading singular triplets of B (or of B less its trivial pair):
 * the subspace iteration and its Rayleigh-Ritz step, written out in the
 * order of Halko et al.'s Algorithm 4.4 so that the steps read as the
 * algorithm does; the dense kernels and the sign convention of the vectors
 * are the static functions above.
 *
 * One iteration: Y = B Q; the Ritz values from the Gram matrix of Y (one
 * dsyrk and an l x l symmetric eigenproblem, no orthonormalisation of Y);
 * then Q = orth(B^T Y - c Q), c = S_l^2 / 2 (the shift of the file's
 * comment; it needs a second |X| x l block), by CholeskyQR with one round
 * when its loss of orthogonality (~kappa^2 eps) is below tol / 1000, two
 * otherwise.  Once the values settle (or at maxit), the last Gram matrix
 * Y^T Y = Vs S^2 Vs^T (an l x l eigenproblem with vectors) gives
 * U = Y Vs S^{-1} and V = Q Vs: Y's own SVD, the Rayleigh-Ritz step of B
 * on span Q up to Q's loss of orthogonality (below tol / 1000).  Its
 * eigenvalues carry an absolute error of ~l eps S_1^2, so when
 * S_r / S_1 <= RR_GRAM_MIN (B of lower rank than r, say) it takes the QR
 * path instead: a last CholeskyQR round makes Q orthonormal to working
 * precision (Y = B Q follows by the same triangular solve), Y is
 * orthonormalised with R (B Q = Y R), and R = Us S Vs^T gives U = Y Us,
 * V = Q Vs.  The Gram path saves two Gram sums, three triangular solves
 * and an l x l SVD (bench/NOTES.md, "Embeddings", "Rayleigh-Ritz from the
 * Gram matrix").  Without the shift the spans would be those of Halko et
 * al.'s scheme, which orthonormalises both blocks twice in every iteration:
 * 4 Gram sums and 4 triangular solves per iteration where this one makes 2
 * and 1 (bench/NOTES.md, "Embeddings").  That is the lean iteration
 * (lean = 1, mmnc_embed; deflate = 1: of B less its trivial pair, see
 * lean_mul).  lean = 0 keeps Halko et al.'s iteration as written, which
 * orthonormalises Y and Q twice each and takes the Ritz values from an
 * l x l SVD every iteration: mmnc_dtm_svds_ex, and so the spectral starts
 * of the clustering, keep its bits, which the regression floors of the
 * clustering tests on Reuters rely on. */
static int svds(const mmnc_pmf *p, mmnc_int r, mmnc_int oversample, double tol, int maxit, uint64_t seed, int lean,
                int deflate, const svd_progress *pr, double *sigma, double *U, double *V, int *iters, mmnc_err *err)
{
    mmnc_int ny, nx, l, it = 0;
    double *Q = NULL, *Z = NULL, *Yb = NULL, *R = NULL, *s = NULL, *su = NULL, *svt = NULL, *prev = NULL, *superb = NULL, *cdef = NULL;
    orthws w = {NULL, NULL, NULL, NULL};
    mmnc_i_mulws mws = {NULL, 0};
    int status = MMNC_OK, converged = 0, qrounds = 2, raw = 0;
    mmnc_int z = 0;
    int32_t *scol = NULL;
    double *ssgn = NULL;
    mmnc_rng rng;
    if (iters) *iters = 0;
    if (!p || !sigma) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_dtm_svds: NULL argument");
    ny = p->ny;
    nx = p->nx;
    if (r < 1 || r > p->ny_all || r > nx)
        return mmnc_i_err(err, MMNC_EINVAL, "rank %lld must be between 1 and min(%lld, %lld)", (long long)r,
                          (long long)p->ny_all, (long long)nx);
    if (ny > INT32_MAX || nx > INT32_MAX)
        return mmnc_i_err(err, MMNC_EINVAL, "matrix too large for LAPACK's int indices");
    if (tol <= 0) tol = 1e-10;
    if (maxit <= 0) maxit = 200;
    if (oversample < 0) oversample = r < 10 ? 10 : r / 2;
    l = r + oversample;
    if (l > p->ny_all) l = p->ny_all;
    if (l > nx) l = nx;
    if ((double)l * (double)l * NBLOCKS > (double)INT32_MAX * 8)
        return mmnc_i_err(err, MMNC_EINVAL, "rank %lld too large", (long long)r);
    MMNC_ALLOC(Q, nx * l, err, status);
    if (lean) MMNC_ALLOC(Z, nx * l, err, status);
    MMNC_ALLOC(Yb, (ny ? ny : 1) * l, err, status);
    MMNC_ALLOC(R, l * l, err, status);
    MMNC_ALLOC(s, l, err, status);
    MMNC_ALLOC(su, l * l, err, status);
    MMNC_ALLOC(svt, l * l, err, status);
    MMNC_ALLOC(prev, r, err, status);
    MMNC_ALLOC(superb, l, err, status);
    MMNC_ALLOC(cdef, l, err, status);
    MMNC_ALLOC(w.G, l * l, err, status);
    MMNC_ALLOC(w.R1, l * l, err, status);
    MMNC_ALLOC(w.part, NBLOCKS * l * l, err, status);
    MMNC_ALLOC(w.tau, l, err, status);
#ifdef MMNC_SVD_PROFILE
    memset(prof_s, 0, sizeof prof_s);
#endif
    PROF_T(t_start);
    if (lean) {
        /* The sparse start is not orthonormalised: with Q^T Q = R0^T R0
         * (R0 in R), the first Ritz values are those of span Q from
         * R0^{-T} (B'Q)^T (B'Q) R0^{-1}, and (M - c) Q spans what (M - c) Q
         * R0^{-1} spans, so the next block is the same subspace as from Q
         * R0^{-1}.  Raw while the first iteration runs (raw = 1). */
        z = l < START_NNZ ? l : START_NNZ;
        MMNC_ALLOC(scol, nx * z, err, status);
        MMNC_ALLOC(ssgn, nx * z, err, status);
        mmnc_i_sign_start(p, l, z, seed, scol, ssgn, Q);
        start_gram(p, l, z, scol, Q, R);
        raw = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'U', (lapack_int)l, R, (lapack_int)l) == 0;
        if (raw) { /* kappa(Q) is at least the spread of R0's diagonal: far from 1/sqrt(eps), or no raw start */
            double dmax = 0.0, dmin = HUGE_VAL;
            for (mmnc_int i = 0; i < l; i++) dmax = fmax(dmax, R[i * l + i]), dmin = fmin(dmin, R[i * l + i]);
            raw = dmin > 0.0 && (dmax / dmin) * (dmax / dmin) * DBL_EPSILON < 1e-8;
        }
        if (!raw) { /* (numerically) dependent columns: orthonormalise, and a dense first product */
            if ((status = orth(nx, l, Q, NULL, 1e-3 * tol, &qrounds, &w, NULL, err)) != MMNC_OK) goto cleanup;
        }
    } else { /* the spectral starts' bits, as they were */
        mmnc_rng_seed(&rng, seed);
        for (mmnc_int i = 0; i < nx * l; i++) Q[i] = mmnc_rng_normal(&rng);
        if ((status = orth(nx, l, Q, NULL, 0.0, &qrounds, &w, NULL, err)) != MMNC_OK) goto cleanup;
    }
    PROF_ADD(0, t_start);
    for (mmnc_int i = 0; i < r; i++) prev[i] = -1.0;
    while (!lean && it < maxit) {
        /* Halko et al. as written: Y = orth(B Q); Q R = B^T Y; then B ~ Y R^T Q^T. */
        mmnc_i_dtm_mul_ws(p, l, Q, Yb, &mws); /* distributed: this rank's rows of Y */
        if ((status = orth(ny, l, Yb, NULL, 0.0, NULL, &w, p, err)) != MMNC_OK) goto cleanup;
        mmnc_i_dtm_tmul_ws(p, l, Yb, Q, &mws); /* summed across ranks: the same Q everywhere */
        if ((status = orth(nx, l, Q, R, 0.0, NULL, &w, NULL, err)) != MMNC_OK) goto cleanup;
        it++;
        /* R^T = Us S Vs^T: dgesvd with jobu = 'O' leaves Us in svt, and su = Vs^T. */
        for (mmnc_int i = 0; i < l; i++)
            for (mmnc_int j = 0; j < l; j++) svt[i * l + j] = R[j * l + i];
        lapack_int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'O', 'A', (lapack_int)l, (lapack_int)l, svt,
                                         (lapack_int)l, s, NULL, (lapack_int)l, su, (lapack_int)l, superb);
        if (info != 0) {
            status = mmnc_i_err(err, MMNC_ENOCONV, "small SVD failed (LAPACK info %d)", (int)info);
            goto cleanup;
        }
        converged = settled(r, s, prev, tol, pr, it, &status, err);
        if (status != MMNC_OK) goto cleanup;
        if (converged) break;
    }
    while (lean && it < maxit) {
        PROF_T(t_mul);
        if (raw)
            start_mul(p, l, z, scol, ssgn, Q, Yb, deflate, cdef);
        else
            lean_mul(p, l, Q, Yb, deflate, cdef, &mws); /* distributed: this rank's rows of Y */
        PROF_ADD(1, t_mul);
        PROF_T(t_ritz);
        gram(ny, l, Yb, w.G, w.part);
        if (mmnc_i_distributed(p)) mmnc_i_dsum(p, w.G, l * l);
        if (raw) { /* G <- R0^{-T} G R0^{-1}, the Gram matrix of B' Q R0^{-1} */
            for (mmnc_int i = 0; i < l; i++)
                for (mmnc_int j = 0; j < i; j++) w.G[i * l + j] = w.G[j * l + i];
            cblas_dtrsm(CblasRowMajor, CblasLeft, CblasUpper, CblasTrans, CblasNonUnit, (int)l, (int)l, 1.0, R,
                        (int)l, w.G, (int)l);
            cblas_dtrsm(CblasRowMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, (int)l, (int)l, 1.0, R,
                        (int)l, w.G, (int)l);
        }
        memcpy(svt, w.G, (size_t)(l * l) * sizeof(double)); /* for the Rayleigh-Ritz step */
        if ((status = ritz_values(l, w.G, superb, s, err)) != MMNC_OK) goto cleanup;
        PROF_ADD(2, t_ritz);
        it++;
        converged = settled(r, s, prev, tol, pr, it, &status, err);
        if (status != MMNC_OK) goto cleanup;
        if (converged || it == maxit) break;
        PROF_T(t_tmul);
        lean_tmul(p, l, Yb, Z, deflate, cdef, &mws); /* summed across ranks: the same Z everywhere */
        PROF_ADD(3, t_tmul);
        PROF_T(t_orth);
        {
            /* Z = (M - c) Q with M = B^T B and c half the smallest Ritz
             * value: the Chebyshev filter of degree 1 that damps [0, 2c]
             * (see above); none when that value is negligible (B of lower
             * rank than l). */
            double a = s[l - 1] * s[l - 1], c = a > 1e-12 * s[0] * s[0] ? 0.5 * a : 0.0;
            double *t = Q;
            if (c > 0.0) {
#pragma omp parallel for schedule(static) if (nx * l > MMNC_I_OMP_MIN_WORK)
                for (mmnc_int i = 0; i < nx * l; i++) Z[i] -= c * Q[i];
            }
            Q = Z;
            Z = t;
        }
        raw = 0;
        if ((status = orth(nx, l, Q, NULL, 1e-3 * tol, &qrounds, &w, NULL, err)) != MMNC_OK) goto cleanup;
        PROF_ADD(4, t_orth);
    }
    if (raw) { /* stopped after the first product: Q <- Q R0^{-1}, Y <- Y R0^{-1} (Y = B' Q holds) */
        solve_both(nx, ny, l, R, Q, Yb);
        qrounds = 1;
    }
    mmnc_i_free(scol);
    mmnc_i_free(ssgn);
    scol = NULL;
    ssgn = NULL;
    mmnc_i_mulws_free(&mws); /* the panels' buffer, before the final step's allocations */
    PROF_T(t_final);
    if (lean) { /* converged or at maxit: svt holds the Gram matrix of the last Y */
        /* Rayleigh-Ritz from the last Gram matrix: B Q = Y = Us S Vs^T with
         * Y^T Y = Vs S^2 Vs^T, so U = Y Vs S^{-1} and V = Q Vs, without
         * orthonormalising Y.  Its eigenvalues carry an absolute error of
         * about l eps S_1^2, so this needs S_r / S_1 above RR_GRAM_MIN (else the
         * QR path below). */
        lapack_int info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'U', (lapack_int)l, svt, (lapack_int)l, superb);
        if (info != 0) {
            status = mmnc_i_err(err, MMNC_ENOCONV, "small eigenproblem failed (LAPACK info %d)", (int)info);
            goto cleanup;
        }
        for (mmnc_int i = 0; i < l; i++) s[i] = sqrt(superb[l - 1 - i] > 0.0 ? superb[l - 1 - i] : 0.0);
        if (s[r - 1] > RR_GRAM_MIN * s[0]) {
            for (mmnc_int k = 0; k < l; k++)
                for (mmnc_int i = 0; i < l; i++) {
                    double e = svt[k * l + (l - 1 - i)];
                    su[k * l + i] = i < r ? e / s[i] : 0.0; /* Vs S^{-1}, r columns */
                    R[k * l + i] = e;                         /* Vs */
                }
            for (mmnc_int i = 0; i < r; i++) sigma[i] = s[i];
            if (U) block_gemm(ny, l, r, Yb, su, 0, U);
            if (V) block_gemm(nx, l, r, Q, R, 0, V);
            goto signs;
        }
    }
    if (lean && qrounds == 1) {
        /* The second CholeskyQR round on Q (Q <- Q R2^{-1}, Y <- Y R2^{-1}
         * keeps Y = B Q); Householder and a fresh product if it fails. */
        gram(nx, l, Q, w.G, w.part);
        if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'U', (lapack_int)l, w.G, (lapack_int)l) == 0) {
            solve_both(nx, ny, l, w.G, Q, Yb);
        } else {
            if ((status = householder(nx, l, Q, NULL, w.tau, err)) != MMNC_OK) goto cleanup;
            lean_mul(p, l, Q, Yb, deflate, cdef, &mws);
        }
    }
    /* Rayleigh-Ritz: B Q = Y R with Y orthonormal; R = Us S Vs^T. dgesvd
     * with jobu = 'O' leaves Us in R, and su = Vs^T. */
    if (lean && (status = orth(ny, l, Yb, R, 0.0, NULL, &w, p, err)) != MMNC_OK) goto cleanup;
    if (lean) {
        lapack_int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'O', 'A', (lapack_int)l, (lapack_int)l, R, (lapack_int)l,
                                         s, NULL, (lapack_int)l, su, (lapack_int)l, superb);
        if (info != 0) {
            status = mmnc_i_err(err, MMNC_ENOCONV, "small SVD failed (LAPACK info %d)", (int)info);
            goto cleanup;
        }
    }
    for (mmnc_int i = 0; i < r; i++) sigma[i] = s[i];
    if (U) block_gemm(ny, l, r, Yb, lean ? R : svt, 0, U); /* U = Y Us */
    if (V) block_gemm(nx, l, r, Q, su, 1, V);    /* V = Q Vs */
signs:
    PROF_ADD(5, t_final);
#ifdef MMNC_SVD_PROFILE
    if (lean)
        fprintf(stderr,
                "svds profile: start %.2f s, %d x B'Q %.2f s, Gram + Ritz values %.2f s, %d x B'^T Y %.2f s, "
                "shift + orth %.2f s, final %.2f s\n",
                prof_s[0], (int)it, prof_s[1], prof_s[2], (int)(it > 0 ? it - 1 : 0), prof_s[3], prof_s[4], prof_s[5]);
#endif
    if ((U || V) && (status = sign_convention(p, r, U, V, err)) != MMNC_OK) goto cleanup;
    if (iters) *iters = (int)it;
    if (!converged)
        status = mmnc_i_err(err, MMNC_ENOCONV, "truncated SVD: %d iterations without reaching tolerance %g", maxit,
                            tol);
cleanup:
    mmnc_i_free(scol);
    mmnc_i_free(ssgn);
    mmnc_i_free(Q);
    mmnc_i_free(Z);
    mmnc_i_free(Yb);
    mmnc_i_free(R);
    mmnc_i_free(s);
    mmnc_i_free(su);
    mmnc_i_free(svt);
    mmnc_i_free(prev);
    mmnc_i_free(superb);
    mmnc_i_free(cdef);
    mmnc_i_free(w.G);
    mmnc_i_free(w.R1);
    mmnc_i_free(w.part);
    mmnc_i_free(w.tau);
    mmnc_i_mulws_free(&mws);
    return status;
}

int mmnc_dtm_svds_ex(const mmnc_pmf *p, mmnc_int r, mmnc_int oversample, double tol, int maxit, uint64_t seed,
                     double *sigma, double *U, double *V, int *iters, mmnc_err *err)
{
    return svds(p, r, oversample, tol, maxit, seed, 0, 0, NULL, sigma, U, V, iters, err);
}

int mmnc_dtm_svds(const mmnc_pmf *p, mmnc_int r, double tol, int maxit, uint64_t seed, double *sigma, double *U,
                  double *V, mmnc_err *err)
{
    return svds(p, r, -1, tol, maxit, seed, 0, 0, NULL, sigma, U, V, NULL, err);
}

int mmnc_i_svds_progress(const mmnc_pmf *p, mmnc_int r, double tol, int maxit, uint64_t seed, mmnc_progress_fn fn,
                         void *ctx, int restart, double *sigma, double *U, mmnc_err *err)
{
    svd_progress pr = {fn, ctx, restart};
    return svds(p, r, -1, tol, maxit, seed, 0, 0, &pr, sigma, U, NULL, NULL, err);
}

/* ---- embeddings ------------------------------------------------------------ */

void mmnc_embed_opts_default(mmnc_embed_opts *o)
{
    o->dim = MMNC_DEFAULT_EMBED_DIM;
    o->keep_trivial = 0;
    o->sigma_power = MMNC_DEFAULT_EMBED_SIGMA_POWER;
    o->oversample = MMNC_DEFAULT_EMBED_OVERSAMPLE;
    o->tol = MMNC_DEFAULT_EMBED_TOL;
    o->maxit = MMNC_DEFAULT_EMBED_MAX_ITER;
    o->seed = MMNC_DEFAULT_SEED;
    o->threads = MMNC_DEFAULT_THREADS;
    o->progress = NULL;
    o->progress_ctx = NULL;
}

/* The singular values of B (all in [0, 1]) at or below it are rounding's. */
#define EMBED_RANK_TOL 1e-12

/* Columns rho..r-1 of U (ny x r, row-major), whose singular values are 0:
 * made orthonormal to u = sqrt(P_Y) and to every column before them.  B
 * less its trivial pair has u in its left null space, so its zero values
 * come with any null vector, u among them: rounding in B Q - u (v^T Q)
 * points along u, and a column so computed would be the trivial coordinate
 * again (1 on every row), which the embedding leaves out, instead of a
 * null vector of B.  Columns 0..rho-1 with u span the range of B, so what
 * is orthogonal to them all is in B's left null space: a singular vector
 * of B for the value 0.  A column that vanishes in the projection is
 * replaced by a vector of hashed entries (by global row, the same for any
 * number of ranks) projected likewise.  Classical Gram-Schmidt, twice.
 * O(ny r (r - rho)). */
static int null_columns(const mmnc_pmf *p, mmnc_int r, mmnc_int rho, double *U, mmnc_err *err)
{
    mmnc_int ny = p->ny;
    double *c = mmnc_i_malloc((size_t)(r + 2), sizeof(double));
    if (!c) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    for (mmnc_int j = rho; j < r; j++) {
        for (uint64_t attempt = 0;; attempt++) {
            double before = 0.0, after = 0.0;
            if (attempt > 0)
                for (mmnc_int y = 0; y < ny; y++) {
                    uint64_t h = mmnc_i_mix64(((uint64_t)(p->y0 + y) << 20) ^ ((uint64_t)j << 4) ^ attempt);
                    U[y * r + j] = (double)(h >> 11) * 0x1p-52 - 1.0;
                }
            for (mmnc_int y = 0; y < ny; y++) before += U[y * r + j] * U[y * r + j];
            mmnc_i_dsum(p, &before, 1);
            for (int pass = 0; pass < 2; pass++) {
                for (mmnc_int i = 0; i <= j; i++) c[i] = 0.0;
                for (mmnc_int y = 0; y < ny; y++) {
                    const double *row = U + y * r;
                    c[j] += sqrt(p->py[y]) * row[j]; /* slot j: u's coefficient */
                    for (mmnc_int i = 0; i < j; i++) c[i] += row[i] * row[j];
                }
                mmnc_i_dsum(p, c, j + 1);
                for (mmnc_int y = 0; y < ny; y++) {
                    double *row = U + y * r, t = row[j] - c[j] * sqrt(p->py[y]);
                    for (mmnc_int i = 0; i < j; i++) t -= c[i] * row[i];
                    row[j] = t;
                }
            }
            for (mmnc_int y = 0; y < ny; y++) after += U[y * r + j] * U[y * r + j];
            mmnc_i_dsum(p, &after, 1);
            if (after > 1e-12 * before && after > 0.0) {
                double f = 1.0 / sqrt(after);
                for (mmnc_int y = 0; y < ny; y++) U[y * r + j] *= f;
                break;
            }
            if (attempt == 8) { /* r + 1 <= min(|Y|, |X|): there is room; 8 draws all missing it is a bug */
                mmnc_i_free(c);
                return mmnc_i_err(err, MMNC_ENOCONV, "mmnc_embed: no null vector found for coordinate %lld",
                                  (long long)j + 1);
            }
        }
    }
    mmnc_i_free(c);
    return MMNC_OK;
}

int mmnc_embed(const mmnc_pmf *p, const mmnc_embed_opts *o, double *sigma, double *E, int *iters, mmnc_err *err)
{
    mmnc_int d, r, keep, ny;
    double *U = NULL, *s = NULL;
    mmnc_i_threads saved;
    int status = MMNC_OK;
    if (iters) *iters = 0;
    if (!p || !o || !E) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_embed: NULL argument");
    d = o->dim;
    keep = o->keep_trivial ? 1 : 0; /* the trivial pair as coordinate 0: exactly 1, sigma 1 */
    r = d - keep;                    /* the others, of B less the trivial pair */
    ny = p->ny;
    if (d < 1 || r + 1 > ny || r + 1 > p->nx)
        return mmnc_i_err(err, MMNC_EINVAL,
                          "dimension %lld must be between 1 and %lld (the smaller side of the matrix%s)",
                          (long long)d, (long long)((ny < p->nx ? ny : p->nx) - 1 + keep),
                          keep ? "" : ", less the trivial singular pair");
    if (!isfinite(o->sigma_power) || o->tol < 0 || o->maxit < 0 || o->threads < 0)
        return mmnc_i_err(err, MMNC_EINVAL, "mmnc_embed: invalid options (sigma_power, tol, maxit, threads)");
    saved = mmnc_i_threads_push(o->threads);
    MMNC_ALLOC(U, ny * (r ? r : 1), err, status);
    MMNC_ALLOC(s, r ? r : 1, err, status);
    if (r > 0) {
        mmnc_int over = o->oversample;
        if (over < 0) over = r / 4 > 20 ? r / 4 : 20;
        svd_progress pr = {o->progress, o->progress_ctx, 0};
        status = svds(p, r, over, o->tol, o->maxit, o->seed, 1, 1, &pr, s, U, NULL, iters, err);
    }
    if (status != MMNC_OK && status != MMNC_ENOCONV) goto cleanup;
    {
        mmnc_int rho = 0;
        int st2;
        while (rho < r && s[rho] > EMBED_RANK_TOL) rho++;
        if (rho < r) { /* B has rank rho + 1 < d + 1: null vectors of B, not of B less u v^T */
            if ((st2 = null_columns(p, r, rho, U, err)) == MMNC_OK) st2 = sign_convention(p, r, U, NULL, err);
            if (st2 != MMNC_OK) {
                status = st2;
                goto cleanup;
            }
        }
    }
#pragma omp parallel for schedule(static) if (ny * d > MMNC_I_OMP_MIN_WORK)
    for (mmnc_int y = 0; y < ny; y++) {
        double a = 1.0 / sqrt(p->py[y]);
        if (keep) E[y * d] = 1.0; /* sqrt(P_Y(y)) / sqrt(P_Y(y)), any power of sigma = 1 */
        for (mmnc_int j = 0; j < r; j++) {
            double f = o->sigma_power != 0.0 ? pow(s[j], o->sigma_power) : 1.0;
            E[y * d + keep + j] = a * f * U[y * r + j];
        }
    }
    if (sigma) {
        if (keep) sigma[0] = 1.0;
        for (mmnc_int j = 0; j < r; j++) sigma[keep + j] = s[j];
    }
cleanup:
    mmnc_i_threads_pop(saved);
    mmnc_i_free(U);
    mmnc_i_free(s);
    return status;
}

int mmnc_embed_residuals(const mmnc_pmf *p, const mmnc_embed_opts *o, const double *sigma, const double *E,
                         double *res, mmnc_err *err)
{
    mmnc_int d, keep, ny, cb;
    double *U = NULL, *W = NULL, *Z = NULL, *c = NULL, *nd = NULL;
    mmnc_i_mulws mws = {NULL, 0};
    mmnc_i_threads saved;
    int status = MMNC_OK;
    if (!p || !o || !sigma || !E || !res) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_embed_residuals: NULL argument");
    d = o->dim;
    keep = o->keep_trivial ? 1 : 0;
    ny = p->ny;
    if (d < 1 || d - keep + 1 > p->ny_all || d - keep + 1 > p->nx)
        return mmnc_i_err(err, MMNC_EINVAL, "mmnc_embed_residuals: dimension %lld does not fit the matrix",
                          (long long)d);
    cb = d < 64 ? d : 64; /* coordinates at a time */
    saved = mmnc_i_threads_push(o->threads);
    MMNC_ALLOC(U, (ny ? ny : 1) * cb, err, status);
    MMNC_ALLOC(Z, (ny ? ny : 1) * cb, err, status);
    MMNC_ALLOC(W, p->nx * cb, err, status);
    MMNC_ALLOC(c, cb, err, status);
    MMNC_ALLOC(nd, 2 * cb, err, status);
    for (mmnc_int j0 = 0; j0 < d; j0 += cb) {
        mmnc_int w = d - j0 < cb ? d - j0 : cb;
        for (mmnc_int y = 0; y < ny; y++) {
            double u = sqrt(p->py[y]);
            for (mmnc_int j = 0; j < w; j++) U[y * w + j] = E[y * d + j0 + j] * u;
        }
        lean_tmul(p, w, U, W, 1, c, &mws); /* B'^T u */
        lean_mul(p, w, W, Z, 1, c, &mws);  /* B' B'^T u, this rank's rows */
        for (mmnc_int j = 0; j < 2 * w; j++) nd[j] = 0.0;
        for (mmnc_int y = 0; y < ny; y++)
            for (mmnc_int j = 0; j < w; j++) {
                double s2 = sigma[j0 + j] * sigma[j0 + j], u = U[y * w + j], r = Z[y * w + j] - s2 * u;
                nd[j] += r * r;
                nd[w + j] += u * u;
            }
        mmnc_i_dsum(p, nd, 2 * w);
        for (mmnc_int j = 0; j < w; j++) {
            double s2 = sigma[j0 + j] * sigma[j0 + j];
            res[j0 + j] = nd[w + j] > 0.0 && s2 > 0.0 ? sqrt(nd[j] / nd[w + j]) / s2 : INFINITY;
        }
    }
    if (keep) res[0] = 0.0; /* the trivial pair, exact by construction (B' has no such pair) */
cleanup:
    mmnc_i_threads_pop(saved);
    mmnc_i_free(U);
    mmnc_i_free(Z);
    mmnc_i_free(W);
    mmnc_i_free(c);
    mmnc_i_free(nd);
    mmnc_i_mulws_free(&mws);
    return status;
}
