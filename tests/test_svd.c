/*
 * test_svd.c -- the truncated SVD of the DTM (block subspace iteration with
 * CholeskyQR2) and embeddings: against a dense LAPACK SVD for several
 * oversamplings, a rank-deficient matrix (the Householder fallback), the
 * embedding's Rayleigh-Ritz step (from the Gram matrix, or by QR where B
 * has lower rank than asked), its shift (fewer iterations), its sparse start
 * (one iteration against a dense rebuild from the same start), the
 * embedding's definition and options, the same bits for 1 and 2 threads,
 * word2vec files (text, binary, gzip; bad files), the tokenizer, and every
 * allocation failing in turn.
 */
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/mmnc_i.h"
#include "testutil.h"

static mmnc_pmf *random_pmf(mmnc_int nr, mmnc_int nc, double density, uint64_t seed)
{
    mmnc_csr *A = test_random_csr(nr, nc, density, seed);
    mmnc_pmf *p = NULL;
    mmnc_pmf_build(A, &p, NULL);
    mmnc_csr_free(A);
    return p;
}

/* Dense SVD of the DTM: s (min), U (ny x ny), all row-major. */
static void dense_svd(const mmnc_pmf *p, double *s, double *U)
{
    mmnc_int ny = p->ny, nx = p->nx, mn = ny < nx ? ny : nx;
    double *B = calloc(ny * nx, sizeof(double)), *Vt = malloc(nx * nx * sizeof(double));
    double *sup = malloc(mn * sizeof(double));
    for (mmnc_int y = 0; y < ny; y++)
        for (mmnc_int e = p->P->rowptr[y]; e < p->P->rowptr[y + 1]; e++)
            B[y * nx + p->P->colind[e]] = p->P->val[e] / sqrt(p->py[y] * p->px[p->P->colind[e]]);
    CHECK(LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'A', 'A', ny, nx, B, nx, s, U, ny, Vt, nx, sup) == 0);
    free(B), free(Vt), free(sup);
}

/* max over columns j < r of 1 - |<a_j, b_j>| for unit columns (sign-free). */
static double col_misfit(mmnc_int n, mmnc_int r, const double *a, mmnc_int lda, const double *b, mmnc_int ldb)
{
    double worst = 0.0;
    for (mmnc_int j = 0; j < r; j++) {
        double dot = 0.0, na = 0.0, nb = 0.0;
        for (mmnc_int i = 0; i < n; i++) {
            dot += a[i * lda + j] * b[i * ldb + j];
            na += a[i * lda + j] * a[i * lda + j];
            nb += b[i * ldb + j] * b[i * ldb + j];
        }
        double m = 1.0 - fabs(dot) / sqrt(na * nb);
        if (m > worst) worst = m;
    }
    return worst;
}

static void test_svds_oversampling(void)
{
    mmnc_pmf *p = random_pmf(90, 70, 0.1, 5);
    mmnc_int r = 8, ny = p->ny;
    double *s = malloc(70 * sizeof(double)), *Ud = malloc(ny * ny * sizeof(double));
    dense_svd(p, s, Ud);
    mmnc_int overs[] = {0, 4, 30, 200}; /* 200: the block is the whole space */
    for (int k = 0; k < 4; k++) {
        double sig[8], *U = malloc(ny * r * sizeof(double)), *V = malloc(p->nx * r * sizeof(double));
        int iters = 0;
        CHECK_OK(mmnc_dtm_svds_ex(p, r, overs[k], 1e-13, 3000, 9, sig, U, V, &iters, NULL));
        double worst = 0;
        for (int j = 0; j < r; j++) worst = fmax(worst, fabs(sig[j] - s[j]));
        CHECK_NEAR(worst, 0.0, 1e-9);
        CHECK(col_misfit(ny, r, U, r, Ud, ny) < 1e-7);
        CHECK(iters >= 1);
        /* U^T B V = diag(sigma) */
        double *BV = malloc(ny * r * sizeof(double));
        mmnc_dtm_mul(p, r, V, BV);
        double off = 0;
        for (int a = 0; a < r; a++)
            for (int b = 0; b < r; b++) {
                double t = 0;
                for (mmnc_int y = 0; y < ny; y++) t += U[y * r + a] * BV[y * r + b];
                off = fmax(off, fabs(t - (a == b ? sig[a] : 0.0)));
            }
        CHECK_NEAR(off, 0.0, 1e-8);
        free(BV), free(U), free(V);
    }
    free(s), free(Ud);
    mmnc_pmf_free(p);
}

/* Rank 3 (three disjoint pairs of identical rows): Cholesky of the block
 * fails and Householder takes over; the zero singular values come out 0. */
static void test_svds_rank_deficient(void)
{
    mmnc_int ri[12], ci[12];
    double v[12];
    int n = 0;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 2; j++) ri[n] = i, ci[n] = 2 * (i / 2) + j, v[n++] = 1.0 + j;
    mmnc_csr *A = NULL;
    mmnc_pmf *p = NULL;
    CHECK_OK(mmnc_csr_from_triplets(6, 6, n, ri, ci, v, &A, NULL));
    CHECK_OK(mmnc_pmf_build(A, &p, NULL));
    double sig[5];
    CHECK_OK(mmnc_dtm_svds_ex(p, 5, 10, 1e-12, 100, 1, sig, NULL, NULL, NULL, NULL));
    CHECK_NEAR(sig[0], 1.0, 1e-12);
    CHECK_NEAR(sig[1], 1.0, 1e-12); /* three components: sigma = 1 three times */
    CHECK_NEAR(sig[2], 1.0, 1e-12);
    CHECK_NEAR(sig[3], 0.0, 1e-12);
    CHECK_NEAR(sig[4], 0.0, 1e-12);
    mmnc_pmf_free(p);
    mmnc_csr_free(A);
}

static void test_embed(void)
{
    mmnc_pmf *p = random_pmf(80, 80, 0.12, 17);
    mmnc_int ny = p->ny, d = 5;
    double *s = malloc(80 * sizeof(double)), *Ud = malloc(ny * ny * sizeof(double));
    dense_svd(p, s, Ud);
    mmnc_embed_opts o;
    mmnc_embed_opts_default(&o);
    CHECK(o.dim == 640 && o.keep_trivial == 0 && o.sigma_power == 0.0);
    o.dim = d;
    o.tol = 1e-12;
    o.maxit = 2000;
    double *E = malloc(ny * (d + 1) * sizeof(double)), sig[6], *ref = malloc(ny * d * sizeof(double));
    CHECK_OK(mmnc_embed(p, &o, sig, E, NULL, NULL));
    /* E = U[:, 1..d] / sqrt(P_Y), up to the sign of each column */
    for (mmnc_int y = 0; y < ny; y++)
        for (mmnc_int j = 0; j < d; j++) ref[y * d + j] = Ud[y * ny + j + 1] / sqrt(p->py[y]);
    CHECK(col_misfit(ny, d, E, d, ref, d) < 1e-8);
    for (mmnc_int j = 0; j < d; j++) CHECK_NEAR(sig[j], s[j + 1], 1e-10);
    /* sigma_power scales column j by sigma_j^power */
    double *E2 = malloc(ny * d * sizeof(double));
    o.sigma_power = 1.0;
    CHECK_OK(mmnc_embed(p, &o, NULL, E2, NULL, NULL));
    double worst = 0;
    for (mmnc_int y = 0; y < ny; y++)
        for (mmnc_int j = 0; j < d; j++) worst = fmax(worst, fabs(E2[y * d + j] - sig[j] * E[y * d + j]));
    CHECK_NEAR(worst, 0.0, 1e-12);
    /* keep_trivial: the first coordinate is 1 for every row, the others
     * those of the embedding without it */
    o.sigma_power = 0.0;
    o.keep_trivial = 1;
    o.dim = d + 1;
    CHECK_OK(mmnc_embed(p, &o, sig, E, NULL, NULL));
    worst = 0;
    for (mmnc_int y = 0; y < ny; y++) worst = fmax(worst, fabs(E[y * (d + 1)] - 1.0));
    CHECK(worst == 0.0);
    CHECK(sig[0] == 1.0);
    o.keep_trivial = 0;
    o.dim = d;
    CHECK_OK(mmnc_embed(p, &o, NULL, E2, NULL, NULL));
    worst = 0;
    for (mmnc_int y = 0; y < ny; y++)
        for (mmnc_int j = 0; j < d; j++) worst = fmax(worst, fabs(E[y * (d + 1) + 1 + j] - E2[y * d + j]));
    CHECK(worst == 0.0);
    o.keep_trivial = 1;
    o.dim = 1; /* the trivial coordinate alone */
    CHECK_OK(mmnc_embed(p, &o, sig, E, NULL, NULL));
    CHECK(E[0] == 1.0 && E[ny - 1] == 1.0 && sig[0] == 1.0);
    /* residuals: ~0 for the converged triplets (tol 1e-12: at most 3e-7
     * here), large for a coordinate replaced by the sum of two others (their
     * sigma^2 apart: 0.028 here), 0 for the trivial coordinate */
    double res[6];
    o.dim = d;
    o.keep_trivial = 0;
    CHECK_OK(mmnc_embed(p, &o, sig, E, NULL, NULL));
    CHECK_OK(mmnc_embed_residuals(p, &o, sig, E, res, NULL));
    worst = 0;
    for (mmnc_int j = 0; j < d; j++) worst = fmax(worst, res[j]);
    CHECK(worst < 1e-5);
    for (mmnc_int y = 0; y < ny; y++) E[y * d + 2] = E[y * d + 1] + E[y * d + 3]; /* not a singular vector */
    CHECK_OK(mmnc_embed_residuals(p, &o, sig, E, res, NULL));
    CHECK(res[2] > 1e-2 && res[1] < 1e-5 && res[3] < 1e-5);
    o.sigma_power = 1.0; /* a scaled coordinate: the same residuals */
    CHECK_OK(mmnc_embed(p, &o, sig, E, NULL, NULL));
    CHECK_OK(mmnc_embed_residuals(p, &o, sig, E, res, NULL));
    worst = 0;
    for (mmnc_int j = 0; j < d; j++) worst = fmax(worst, res[j]);
    CHECK(worst < 1e-5);
    o.sigma_power = 0.0;
    o.keep_trivial = 1;
    o.dim = d + 1;
    CHECK_OK(mmnc_embed(p, &o, sig, E, NULL, NULL));
    CHECK_OK(mmnc_embed_residuals(p, &o, sig, E, res, NULL));
    worst = 0;
    for (mmnc_int j = 0; j <= d; j++) worst = fmax(worst, res[j]);
    CHECK(res[0] == 0.0 && worst < 1e-5);
    /* a loose tolerance: larger residuals, still small */
    o.keep_trivial = 0;
    o.dim = d;
    o.tol = 1e-2;
    o.maxit = 50;
    CHECK_OK(mmnc_embed(p, &o, sig, E, NULL, NULL));
    CHECK_OK(mmnc_embed_residuals(p, &o, sig, E, res, NULL));
    worst = 0;
    for (mmnc_int j = 0; j < d; j++) worst = fmax(worst, res[j]);
    CHECK(worst > 1e-4 && worst < 0.5); /* here 0.046, against 3e-7 at tol 1e-12 */
    o.tol = 1e-12;
    o.maxit = 2000;
    /* bad dimensions */
    mmnc_err err;
    o.keep_trivial = 0;
    o.dim = 80;
    CHECK(mmnc_embed(p, &o, NULL, E, NULL, &err) == MMNC_EINVAL && strstr(err.msg, "dimension"));
    o.dim = 0;
    CHECK(mmnc_embed(p, &o, NULL, E, NULL, &err) == MMNC_EINVAL);
    /* not converged: ENOCONV, with the estimate written */
    o.dim = d;
    o.tol = 1e-300;
    o.maxit = 2;
    int iters = 0;
    CHECK(mmnc_embed(p, &o, sig, E, &iters, &err) == MMNC_ENOCONV && iters == 2 && sig[0] > 0.1);
    free(s), free(Ud), free(E), free(E2), free(ref);
    mmnc_pmf_free(p);
}

/* The shifted iteration (Q = orth((B'^T B' - c) Q), c half the smallest
 * Ritz value) converges faster than the unshifted one: on this random
 * matrix the largest residual of the 20 vectors after 8 iterations is
 * 0.018, against 0.038 without the shift, and the default tolerance stops
 * after 9 iterations at 0.012, against 11 at 0.022 (measured with the shift
 * switched off). */
static void test_embed_shift(void)
{
    mmnc_pmf *p = random_pmf(300, 300, 0.05, 5);
    mmnc_int d = 20;
    mmnc_embed_opts o;
    mmnc_embed_opts_default(&o);
    o.dim = d;
    double *E = malloc(p->ny * d * sizeof(double)), sig[20], res[20], worst = 0.0;
    int iters = 0;
    o.tol = 1e-300;
    o.maxit = 8;
    CHECK(mmnc_embed(p, &o, sig, E, &iters, NULL) == MMNC_ENOCONV && iters == 8);
    CHECK_OK(mmnc_embed_residuals(p, &o, sig, E, res, NULL));
    for (mmnc_int j = 0; j < d; j++) worst = fmax(worst, res[j]);
    CHECK(worst < 0.027);
    mmnc_embed_opts_default(&o);
    o.dim = d;
    CHECK_OK(mmnc_embed(p, &o, sig, E, &iters, NULL));
    CHECK_OK(mmnc_embed_residuals(p, &o, sig, E, res, NULL));
    worst = 0.0;
    for (mmnc_int j = 0; j < d; j++) worst = fmax(worst, res[j]);
    CHECK(iters <= 10 && worst < 0.017);
    free(E);
    mmnc_pmf_free(p);
}

/* The sparse start is used without orthonormalising it: one iteration
 * (maxit 1) must give the Rayleigh-Ritz values and vectors of B' (B less
 * its trivial pair) on the span of that start, as made here densely from
 * the same start by a Householder QR and an SVD; and its columns have 8
 * nonzeros +-1 a row, in distinct columns. */
static void test_embed_sparse_start(void)
{
    mmnc_pmf *p = random_pmf(90, 120, 0.1, 31);
    mmnc_int ny = p->ny, nx = p->nx, d = 6, l = d + 20, z = 8;
    double *Q = malloc(nx * l * sizeof(double)), *sgn = malloc(nx * z * sizeof(double));
    double *Y = calloc(ny * l, sizeof(double)), *s = malloc(l * sizeof(double)), *Uy = malloc(ny * l * sizeof(double));
    double *Vt = malloc(l * l * sizeof(double)), *sup = malloc(l * sizeof(double)), *tau = malloc(l * sizeof(double));
    double *E = malloc(ny * d * sizeof(double)), sig[6], worst = 0.0;
    int32_t *col = malloc(nx * z * sizeof(int32_t));
    int iters = 0, shape = 1;
    mmnc_embed_opts o;
    mmnc_i_sign_start(p, l, z, 1, col, sgn, Q);
    for (mmnc_int x = 0; x < nx; x++) {
        int nz = 0;
        for (mmnc_int j = 0; j < l; j++) {
            nz += Q[x * l + j] != 0.0;
            shape &= Q[x * l + j] == 0.0 || fabs(Q[x * l + j]) == 1.0;
        }
        shape &= nz == z;
    }
    CHECK(shape);
    CHECK(LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, nx, l, Q, l, tau) == 0);
    CHECK(LAPACKE_dorgqr(LAPACK_ROW_MAJOR, nx, l, l, Q, l, tau) == 0);
    for (mmnc_int y = 0; y < ny; y++) /* Y = B' Q, B' = B - sqrt(P_Y) sqrt(P_X)^T */
        for (mmnc_int x = 0; x < nx; x++) {
            double b = -sqrt(p->py[y] * p->px[x]);
            for (mmnc_int e = p->P->rowptr[y]; e < p->P->rowptr[y + 1]; e++)
                if (p->P->colind[e] == x) b += p->P->val[e] / sqrt(p->py[y] * p->px[x]);
            for (mmnc_int j = 0; j < l; j++) Y[y * l + j] += b * Q[x * l + j];
        }
    CHECK(LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'S', 'N', ny, l, Y, l, s, Uy, l, Vt, l, sup) == 0);
    mmnc_embed_opts_default(&o);
    o.dim = d;
    o.maxit = 1;
    CHECK(mmnc_embed(p, &o, sig, E, &iters, NULL) == MMNC_ENOCONV && iters == 1);
    for (mmnc_int j = 0; j < d; j++) {
        double dot = 0.0;
        for (mmnc_int y = 0; y < ny; y++) dot += E[y * d + j] * sqrt(p->py[y]) * Uy[y * l + j];
        worst = fmax(worst, fabs(sig[j] - s[j]) / s[0]);
        worst = fmax(worst, fabs(1.0 - fabs(dot)));
    }
    CHECK(worst < 1e-9);
    free(Q), free(sgn), free(Y), free(s), free(Uy), free(Vt), free(sup), free(tau), free(E), free(col);
    mmnc_pmf_free(p);
}

/* max |sum_y P_Y(y) E[y][i] E[y][j] - delta_ij| over i, j < d: the
 * embedding's columns are U's, orthonormal, divided by sqrt(P_Y). */
static double py_orth_misfit(const mmnc_pmf *p, mmnc_int d, const double *E)
{
    double worst = 0.0;
    for (mmnc_int i = 0; i < d; i++)
        for (mmnc_int j = 0; j < d; j++) {
            double t = 0.0;
            for (mmnc_int y = 0; y < p->ny; y++) t += p->py[y] * E[y * d + i] * E[y * d + j];
            worst = fmax(worst, fabs(t - (i == j)));
        }
    return worst;
}

/* The sparse start's fallback: with 6 columns the start is a 6 x 6 matrix
 * of random signs (l = 6, 6 entries a row), singular for some seeds; its
 * Gram matrix is then not safely positive definite and mmnc_embed must
 * orthonormalise the start and make the first product densely.  A seed
 * with a singular start (an integer determinant of 0) and one without
 * must both give the dense SVD's leading pairs after one iteration (l = nx:
 * an orthonormalised start, or a regular raw one, spans every column;
 * taken raw, the singular start gives wrong pairs). */
static void test_embed_dependent_start(void)
{
    mmnc_pmf *p = random_pmf(60, 6, 0.6, 43);
    mmnc_int ny = p->ny, nx = p->nx, d = 2;
    double Q[36], sgn[36], M[36], s[6], *Ud = malloc(ny * ny * sizeof(double)), *E = malloc(ny * d * sizeof(double));
    double *ref = malloc(ny * d * sizeof(double)), sig[2];
    int32_t col[36];
    lapack_int ipiv[6];
    uint64_t seed_of[2] = {0, 0}; /* [0]: a singular start, [1]: a regular one */
    int iters = 0;
    CHECK(nx == 6 && ny == 60);
    for (uint64_t seed = 1; seed <= 500 && (!seed_of[0] || !seed_of[1]); seed++) {
        double det = 1.0;
        mmnc_i_sign_start(p, 6, 6, seed, col, sgn, Q);
        memcpy(M, Q, sizeof M);
        if (LAPACKE_dgetrf(LAPACK_ROW_MAJOR, 6, 6, M, 6, ipiv) == 0)
            for (int i = 0; i < 6; i++) det *= M[i * 6 + i];
        else
            det = 0.0;
        if (fabs(det) < 0.5 && !seed_of[0]) seed_of[0] = seed;
        if (fabs(det) >= 0.5 && !seed_of[1]) seed_of[1] = seed;
    }
    CHECK(seed_of[0] && seed_of[1]);
    dense_svd(p, s, Ud);
    for (mmnc_int y = 0; y < ny; y++)
        for (mmnc_int j = 0; j < d; j++) ref[y * d + j] = Ud[y * ny + j + 1] / sqrt(p->py[y]);
    for (int t = 0; t < 2; t++) {
        mmnc_embed_opts o;
        mmnc_embed_opts_default(&o);
        o.dim = d;
        o.maxit = 1; /* the start spans all 6 columns: one iteration is exact */
        o.seed = seed_of[t];
        int st = mmnc_embed(p, &o, sig, E, &iters, NULL);
        CHECK((st == MMNC_OK || st == MMNC_ENOCONV) && iters == 1);
        for (mmnc_int j = 0; j < d; j++) CHECK_NEAR(sig[j], s[j + 1], 1e-10);
        CHECK(py_orth_misfit(p, d, E) < 1e-10);
        CHECK(col_misfit(ny, d, E, d, ref, d) < 1e-8);
    }
    free(Ud), free(E), free(ref);
    mmnc_pmf_free(p);
}

/* The Rayleigh-Ritz step: from the Gram matrix of B Q when the r values are
 * far from 0 (test_embed's matrix), by a QR of B Q when some are ~0 (a
 * rank-deficient B: 60 rows, copies of 4 profiles with other weights, so
 * rank 4 and 3 values after the trivial one); both give orthonormal U and
 * the dense SVD's leading vectors. */
static void test_embed_rayleigh_ritz(void)
{
    mmnc_csr *P4 = test_random_csr(4, 30, 0.5, 41), *A = NULL;
    mmnc_int cap = 60 * 30, n = 0;
    mmnc_int *ri = malloc(cap * sizeof(mmnc_int)), *ci = malloc(cap * sizeof(mmnc_int));
    double *v = malloc(cap * sizeof(double));
    for (mmnc_int y = 0; y < 60; y++) {
        mmnc_int k = y % 4;
        double w = 1.0 + (double)(y % 7);
        for (mmnc_int e = P4->rowptr[k]; e < P4->rowptr[k + 1]; e++)
            ri[n] = y, ci[n] = P4->colind[e], v[n++] = w * P4->val[e];
    }
    CHECK_OK(mmnc_csr_from_triplets(60, 30, n, ri, ci, v, &A, NULL));
    mmnc_pmf *p = NULL;
    CHECK_OK(mmnc_pmf_build(A, &p, NULL));
    mmnc_int ny = p->ny, d = 6;
    CHECK(ny == 60 && p->nx > 10);
    double *s = malloc(ny * sizeof(double)), *Ud = malloc(ny * ny * sizeof(double));
    double *E = malloc(ny * d * sizeof(double)), sig[6], *ref = malloc(ny * 3 * sizeof(double));
    dense_svd(p, s, Ud);
    CHECK(s[3] > 1e-3 && s[4] < 1e-12); /* rank 4 */
    mmnc_embed_opts o;
    mmnc_embed_opts_default(&o);
    o.dim = d;
    o.tol = 1e-12;
    o.maxit = 2000;
    CHECK_OK(mmnc_embed(p, &o, sig, E, NULL, NULL));
    for (mmnc_int j = 0; j < 3; j++) CHECK_NEAR(sig[j], s[j + 1], 1e-10);
    for (mmnc_int j = 3; j < d; j++) CHECK(sig[j] < 1e-7);
    CHECK(py_orth_misfit(p, d, E) < 1e-10); /* the null-space columns too */
    double *E3 = malloc(ny * 3 * sizeof(double));
    for (mmnc_int y = 0; y < ny; y++)
        for (mmnc_int j = 0; j < 3; j++) ref[y * 3 + j] = Ud[y * ny + j + 1] / sqrt(p->py[y]), E3[y * 3 + j] = E[y * d + j];
    CHECK(col_misfit(ny, 3, E3, 3, ref, 3) < 1e-8);
    free(E3);
    mmnc_pmf_free(p);
    mmnc_csr_free(A);
    /* full rank: the Gram path */
    p = random_pmf(80, 80, 0.12, 17);
    o.dim = 20;
    double *E20 = malloc(p->ny * 20 * sizeof(double)), sig20[20];
    CHECK_OK(mmnc_embed(p, &o, sig20, E20, NULL, NULL));
    CHECK(sig20[19] > 1e-3 * sig20[0]);
    CHECK(py_orth_misfit(p, 20, E20) < 1e-10);
    free(E20), free(s), free(Ud), free(E), free(ref), free(ri), free(ci), free(v);
    mmnc_pmf_free(p);
    mmnc_csr_free(P4);
}

/* Past the rank: B less its trivial pair has sqrt(P_Y) in its left null
 * space, so a zero singular value may come with that vector, the trivial
 * coordinate (1 on every row) that the embedding leaves out.  Each
 * coordinate must be orthogonal to it (sum_y P_Y(y) E[y][j] = 0) and a
 * null vector of B (sum_y E[y][j] P(y, x) = 0 for a zero value): a 5 x 4
 * matrix of rank 3 (rows 1 and 2 proportional) at d = 3, and three rows of
 * one distribution at d = 1 (every coordinate past the rank). */
static void test_embed_past_rank(void)
{
    static const mmnc_int r5[] = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4}, c5[] = {0, 1, 0, 1, 2, 3, 2, 3, 0, 2};
    static const double v5[] = {1, 1, 2, 2, 1, 1, 1, 1, 1, 1};
    static const mmnc_int r3[] = {0, 0, 1, 1, 2, 2}, c3[] = {0, 1, 0, 1, 0, 1};
    static const double v3[] = {3, 1, 3, 1, 6, 2};
    for (int t = 0; t < 2; t++) {
        mmnc_csr *A = NULL;
        mmnc_pmf *p = NULL;
        mmnc_int ny = t ? 3 : 5, nx = t ? 2 : 4, d = t ? 1 : 3, zero = t ? 0 : 2;
        double E[15], sig[3];
        mmnc_embed_opts o;
        CHECK_OK(mmnc_csr_from_triplets(ny, nx, t ? 6 : 10, t ? r3 : r5, t ? c3 : c5, t ? v3 : v5, &A, NULL));
        CHECK_OK(mmnc_pmf_build(A, &p, NULL));
        mmnc_embed_opts_default(&o);
        o.dim = d;
        CHECK_OK(mmnc_embed(p, &o, sig, E, NULL, NULL));
        CHECK(sig[zero] < 1e-12 && (zero == 0 || sig[zero - 1] > 0.1));
        CHECK(py_orth_misfit(p, d, E) < 1e-10);
        for (mmnc_int j = 0; j < d; j++) {
            double s = 0.0;
            for (mmnc_int y = 0; y < ny; y++) s += p->py[y] * E[y * d + j];
            CHECK(fabs(s) < 1e-12);
        }
        for (mmnc_int x = 0; x < nx; x++) {
            double s = 0.0;
            for (mmnc_int y = 0; y < ny; y++)
                for (mmnc_int e = A->rowptr[y]; e < A->rowptr[y + 1]; e++)
                    if (A->colind[e] == x) s += E[y * d + zero] * A->val[e] / p->total;
            CHECK(fabs(s) < 1e-12);
        }
        mmnc_pmf_free(p);
        mmnc_csr_free(A);
    }
}

/* Two components (a block-diagonal matrix): B has the singular value 1
 * twice, and any basis of that pair is a valid SVD.  The embedding deflates
 * the trivial pair, so its first coordinate is the other vector of the
 * pair, orthogonal to sqrt(P_Y): sum_y P_Y(y) E[y][j] = 0 for every j
 * (before, rounding chose the basis, and could add a constant to every
 * row's first coordinate: on the MSR matrix, whose second component is one
 * word, the first coordinate was 1 for every other word). */
static void test_embed_components(void)
{
    mmnc_csr *A1 = test_random_csr(90, 80, 0.1, 31), *A2 = test_random_csr(40, 50, 0.15, 37), *A = NULL;
    mmnc_int n = 0, cap = A1->nnz + A2->nnz;
    mmnc_int *ri = malloc(cap * sizeof(mmnc_int)), *ci = malloc(cap * sizeof(mmnc_int));
    double *v = malloc(cap * sizeof(double));
    for (int b = 0; b < 2; b++) {
        const mmnc_csr *M = b ? A2 : A1;
        for (mmnc_int i = 0; i < M->nrows; i++)
            for (mmnc_int e = M->rowptr[i]; e < M->rowptr[i + 1]; e++)
                ri[n] = i + (b ? 90 : 0), ci[n] = M->colind[e] + (b ? 80 : 0), v[n++] = M->val[e];
    }
    CHECK_OK(mmnc_csr_from_triplets(130, 130, n, ri, ci, v, &A, NULL));
    mmnc_pmf *p = NULL;
    CHECK_OK(mmnc_pmf_build(A, &p, NULL));
    mmnc_int d = 40;
    double *E = malloc(p->ny * d * sizeof(double)), sig[40];
    mmnc_embed_opts o;
    mmnc_embed_opts_default(&o);
    o.dim = d;
    int st = mmnc_embed(p, &o, sig, E, NULL, NULL);
    CHECK(st == MMNC_OK || st == MMNC_ENOCONV);
    CHECK_NEAR(sig[0], 1.0, 1e-9); /* the second component's pair */
    CHECK(sig[1] < 1.0 - 1e-6);
    double worst = 0.0;
    for (mmnc_int j = 0; j < d; j++) {
        double t = 0.0;
        for (mmnc_int y = 0; y < p->ny; y++) t += p->py[y] * E[y * d + j];
        worst = fmax(worst, fabs(t));
    }
    CHECK(worst < 1e-12); /* without the deflation: up to ~1 */
    free(ri), free(ci), free(v), free(E);
    mmnc_pmf_free(p);
    mmnc_csr_free(A), mmnc_csr_free(A1), mmnc_csr_free(A2);
}

static void test_embed_threads(void)
{
#ifdef _OPENMP
    /* 1800 x 60 > MMNC_I_OMP_MIN_WORK: the random start drawn in parallel */
    mmnc_pmf *p = random_pmf(700, 1800, 0.05, 23);
    mmnc_embed_opts o;
    mmnc_embed_opts_default(&o);
    o.dim = 40;
    o.maxit = 8;
    double *E1 = malloc(p->ny * 40 * sizeof(double)), *E2 = malloc(p->ny * 40 * sizeof(double));
    o.threads = 1;
    int s1 = mmnc_embed(p, &o, NULL, E1, NULL, NULL);
    o.threads = 2;
    int s2 = mmnc_embed(p, &o, NULL, E2, NULL, NULL);
    CHECK(s1 == s2 && (s1 == MMNC_OK || s1 == MMNC_ENOCONV));
    CHECK(memcmp(E1, E2, p->ny * 40 * sizeof(double)) == 0);
    free(E1), free(E2);
    mmnc_pmf_free(p);
#endif
}

/* ---- word2vec files ------------------------------------------------------------ */

static void test_vectors_roundtrip(void)
{
    char *words[3] = {"alpha", "b\xc3\xa9ta", "don't"};
    double E[3 * 4] = {0.5, -1.25, 3e-7, 1e6, 0, 1, 2, 3, -0.1, 0.2, -0.3, 0.4};
    const char *base = test_tmpfile("", ".vec");
    char path[320], gzpath[330];
    for (int binary = 0; binary <= 1; binary++) {
        snprintf(path, sizeof path, "%s.%d", base, binary);
        CHECK_OK(mmnc_vectors_write(path, 3, 4, words, E, binary, NULL));
        for (int mode = -1; mode <= 1; mode++) {
            if (mode >= 0 && mode != binary) continue;
            mmnc_int n, d;
            char **w;
            float *F;
            CHECK_OK(mmnc_vectors_read(path, mode, &n, &d, &w, &F, NULL));
            if (n == 3 && d == 4) {
                int same = 1;
                for (int i = 0; i < 3; i++) same &= strcmp(w[i], words[i]) == 0;
                for (int i = 0; i < 12; i++) same &= F[i] == (float)E[i];
                CHECK(same);
                mmnc_names_free(n, w);
                mmnc_free(F);
            } else {
                CHECK(0);
            }
        }
    }
    /* gzip-compressed text */
    {
        snprintf(path, sizeof path, "%s.0", base);
        snprintf(gzpath, sizeof gzpath, "%s.gz", base);
        FILE *fp = fopen(path, "rb");
        char buf[4096];
        size_t n = fread(buf, 1, sizeof buf, fp);
        fclose(fp);
        gzFile gz = gzopen(gzpath, "wb");
        gzwrite(gz, buf, (unsigned)n);
        gzclose(gz);
        mmnc_int nn, d;
        char **w;
        float *F;
        CHECK_OK(mmnc_vectors_read(gzpath, -1, &nn, &d, &w, &F, NULL));
        CHECK(nn == 3 && d == 4 && F[3] == 1e6f);
        mmnc_names_free(nn, w);
        mmnc_free(F);
        remove(gzpath);
    }
    /* a word with a space cannot be written */
    char *bad[1] = {"two words"};
    mmnc_err err;
    CHECK(mmnc_vectors_write(path, 1, 4, bad, E, 0, &err) == MMNC_EINVAL);
    for (int binary = 0; binary <= 1; binary++) {
        snprintf(path, sizeof path, "%s.%d", base, binary);
        remove(path);
    }
}

static void expect_bad(const char *contents, size_t len, int binary, const char *pattern)
{
    const char *path = test_tmpfile("", ".bad");
    FILE *fp = fopen(path, "wb");
    fwrite(contents, 1, len, fp);
    fclose(fp);
    mmnc_int n = 7, d = 7;
    char **w = (char **)1;
    float *F = (float *)1;
    mmnc_err err = {0, ""};
    int st = mmnc_vectors_read(path, binary, &n, &d, &w, &F, &err);
    CHECK(st == MMNC_EFORMAT && n == 0 && w == NULL && F == NULL);
    if (!strstr(err.msg, pattern)) {
        fprintf(stderr, "  message '%s' lacks '%s'\n", err.msg, pattern);
        CHECK(0);
    }
    remove(path);
}

static void test_vectors_bad(void)
{
    /* a byte-order mark before the header is skipped */
    {
        const char *path = test_tmpfile("\xEF\xBB\xBF" "1 2\nw 1 2\n", ".txt");
        mmnc_int n = 0, d = 0;
        char **w = NULL;
        float *F = NULL;
        mmnc_err err = {0, ""};
        CHECK(mmnc_vectors_read(path, -1, &n, &d, &w, &F, &err) == MMNC_OK && n == 1 && d == 2 &&
              strcmp(w[0], "w") == 0 && F[1] == 2.0f);
        mmnc_names_free(n, w);
        mmnc_free(F);
    }
    expect_bad("", 0, -1, "header");
    expect_bad("3\n", 2, -1, "header");
    expect_bad("two 3\n", 6, -1, ":1: expected the header");
    expect_bad("2 3\na 1 2 3\n", 12, 0, "truncated");
    expect_bad("2 3\na 1 2 3\nb 1 2\n", 18, 0, ":3: expected 3 numbers");
    expect_bad("2 3\na 1 2 3\nb 1 2 3 4\n", 22, 0, ":3: more than 3 values");
    /* numbers as every text reader takes them: decimal and finite */
    expect_bad("1 2\na 1 nan\n", 12, 0, ":2: value 2 of word 'a': value 'nan' is not a finite number");
    expect_bad("1 2\na 0x10 1\n", 13, 0, ":2: value 1 of word 'a': expected a decimal number, found '0x10'");
    expect_bad("2 2\na 1 2\nb 1 -inf\n", 19, 0, ":3: value 2 of word 'b': value '-inf' is not a finite number");
    expect_bad("1 2\na 1 1e999\n", 14, 0, ":2: value 2 of word 'a': value '1e999' is not a finite number");
    expect_bad("1 2\na 1 1,5\n", 12, 0, ":2: expected 2 numbers after 'a', got '1,5'");
    expect_bad("1 2\na 0x1p3 1\n", 14, -1, ":2: value 1 of word 'a': expected a decimal number, found '0x1p3'");
    {
        const char *path = test_tmpfile("2 3\nw -1.5e-3 .25 3.14159265358979323846\nv 2. +4 -0\n", ".txt");
        mmnc_int n = 0, d = 0;
        char **w = NULL;
        float *F = NULL;
        mmnc_err err = {0, ""};
        CHECK(mmnc_vectors_read(path, -1, &n, &d, &w, &F, &err) == MMNC_OK && n == 2 && d == 3 &&
              F[0] == -1.5e-3f && F[1] == 0.25f && F[2] == (float)3.14159265358979323846 && F[3] == 2.0f &&
              F[4] == 4.0f && F[5] == 0.0f);
        mmnc_names_free(n, w);
        mmnc_free(F);
    }
    /* binary: a record cut short, and a NaN */
    char buf[64];
    float f[2] = {1.0f, 2.0f};
    int n = snprintf(buf, sizeof buf, "1 2\nw ");
    memcpy(buf + n, f, 6);
    expect_bad(buf, (size_t)n + 6, 1, "truncated in the values of word 1");
    f[1] = NAN;
    memcpy(buf + n, f, 8);
    expect_bad(buf, (size_t)n + 8, 1, "not finite");
}

/* ---- tokenizer ------------------------------------------------------------------ */

typedef struct tcoll {
    char out[256];
} tcoll;

static void collect(void *ctx, const char *w, size_t len)
{
    tcoll *c = ctx;
    size_t n = strlen(c->out);
    if (!w) snprintf(c->out + n, sizeof c->out - n, "|");
    else snprintf(c->out + n, sizeof c->out - n, "%s%.*s", n && c->out[n - 1] != '|' ? " " : "", (int)len, w);
}

static void test_tokenize(void)
{
    tcoll c = {""};
    const char *t = "Mr. Holmes said: don't go!\n\nWell-known _____ ends.";
    mmnc_tokenize(t, strlen(t), 1, collect, &c);
    CHECK(strcmp(c.out, "mr holmes said don't go||well-known ends|") == 0);
    if (strcmp(c.out, "mr holmes said don't go||well-known ends|")) fprintf(stderr, "  got '%s'\n", c.out);
    tcoll c2 = {""};
    mmnc_tokenize(t, strlen(t), 0, collect, &c2);
    CHECK(strcmp(c2.out, "mr holmes said don't go|well-known ends") == 0);
}

static void test_fault_injection(void)
{
    mmnc_pmf *p = random_pmf(60, 50, 0.1, 3);
    mmnc_embed_opts o;
    mmnc_embed_opts_default(&o);
    o.dim = 4;
    o.maxit = 3;
    double *E = malloc(p->ny * 4 * sizeof(double));
    int ok = 1;
    for (int k = 1; k < 200; k++) {
        mmnc_err err;
        mmnc_i_fail_after(k);
        int st = mmnc_embed(p, &o, NULL, E, NULL, &err);
        mmnc_i_fail_after(0);
        if (st == MMNC_OK || st == MMNC_ENOCONV) break;
        if (st != MMNC_ENOMEM) ok = 0;
    }
    CHECK(ok);
    char *words[2] = {"a", "b"};
    double V[4] = {1, 2, 3, 4};
    const char *path = test_tmpfile("", ".fi");
    CHECK_OK(mmnc_vectors_write(path, 2, 2, words, V, 0, NULL));
    ok = 1;
    for (int k = 1; k < 100; k++) {
        mmnc_int n, d;
        char **w;
        float *F;
        mmnc_err err;
        mmnc_i_fail_after(k);
        int st = mmnc_vectors_read(path, -1, &n, &d, &w, &F, &err);
        mmnc_i_fail_after(0);
        if (st == MMNC_OK) {
            mmnc_names_free(n, w);
            mmnc_free(F);
            break;
        }
        if (st != MMNC_ENOMEM) ok = 0;
    }
    CHECK(ok);
    remove(path);
    free(E);
    mmnc_pmf_free(p);
}

/* The progress function hears every iteration (its number, the change that
 * tol is compared with) without changing a bit of the result, and a nonzero
 * return stops the embedding with MMNC_ECANCELED at once. */
static void test_embed_progress(void)
{
    mmnc_pmf *p = random_pmf(120, 90, 0.1, 23);
    mmnc_embed_opts o;
    mmnc_err err = {0, ""};
    int iters = 0, it2 = 0, steady = 1;
    double *E = malloc(120 * 6 * sizeof(double)), *E2 = malloc(120 * 6 * sizeof(double)), sig[6], sig2[6];
    test_trace *t = calloc(1, sizeof(test_trace));
    mmnc_embed_opts_default(&o);
    CHECK(o.progress == NULL && o.progress_ctx == NULL);
    o.dim = 6;
    o.tol = 1e-9;
    o.maxit = 500;
    CHECK_OK(mmnc_embed(p, &o, sig, E, &iters, NULL));
    o.progress = test_trace_record;
    o.progress_ctx = t;
    CHECK_OK(mmnc_embed(p, &o, sig2, E2, &it2, NULL));
    CHECK(it2 == iters && iters > 2 && t->n == iters);
    CHECK(memcmp(E, E2, 120 * 6 * sizeof(double)) == 0 && memcmp(sig, sig2, sizeof sig) == 0);
    for (int i = 0; i < t->n; i++) steady &= t->restart[i] == 0 && t->obj[i] >= 0.0;
    CHECK(steady);
    CHECK(t->n > 0 && t->obj[t->n - 1] < o.tol && t->obj[0] >= o.tol);
    /* stopped at the second call */
    memset(t, 0, sizeof *t);
    t->stop_after = 2;
    CHECK(mmnc_embed(p, &o, sig2, E2, &it2, &err) == MMNC_ECANCELED);
    CHECK(t->n == 2 && err.code == MMNC_ECANCELED && strstr(err.msg, "stopped") != NULL);
    free(t);
    free(E);
    free(E2);
    mmnc_pmf_free(p);
}

int main(void)
{
    test_svds_oversampling();
    test_svds_rank_deficient();
    test_embed();
    test_embed_rayleigh_ritz();
    test_embed_shift();
    test_embed_sparse_start();
    test_embed_dependent_start();
    test_embed_components();
    test_embed_past_rank();
    test_embed_threads();
    test_embed_progress();
    test_vectors_roundtrip();
    test_vectors_bad();
    test_tokenize();
    test_fault_injection();
    return test_done();
}
