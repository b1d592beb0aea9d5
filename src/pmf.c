/*
 * pmf.c -- the joint pmf P_{Y,X}, products with its DTM
 * B_{Y,X} = [P_Y]^{-1/2} P_{Y,X} [P_X]^{-1/2}, the DTM's leading singular
 * triplets, and the connected components of the bipartite graph.
 */
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "mmnc_i.h"

void mmnc_pmf_free(mmnc_pmf *p)
{
    if (!p) return;
    mmnc_csr_free(p->P);
    mmnc_csr_free(p->Pt);
    mmnc_i_free(p->py);
    mmnc_i_free(p->px);
    mmnc_i_free(p);
}

static void row_sums(const mmnc_csr *A, double *s)
{
#pragma omp parallel for schedule(static) if (A->nnz > 100000)
    for (mmnc_int i = 0; i < A->nrows; i++) {
        double t = 0.0;
        for (mmnc_int e = A->rowptr[i]; e < A->rowptr[i + 1]; e++) t += A->val[e];
        s[i] = t;
    }
}

int mmnc_pmf_build(const mmnc_csr *A, mmnc_pmf **out, mmnc_err *err)
{
    mmnc_pmf *p = NULL;
    int status = MMNC_OK;
    if (!A || !out) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_pmf_build: NULL argument");
    *out = NULL;
    if ((status = mmnc_csr_check(A, err)) != MMNC_OK) return status;
    if (A->nrows == 0 || A->ncols == 0 || A->nnz == 0)
        return mmnc_i_err(err, MMNC_EINVAL, "the matrix is empty (%lld x %lld, %lld nonzeros)",
                          (long long)A->nrows, (long long)A->ncols, (long long)A->nnz);
    MMNC_CALLOC(p, 1, err, status);
    p->ny = A->nrows;
    p->nx = A->ncols;
    p->nnz = A->nnz;
    p->total = mmnc_i_sum(A->val, A->nnz);
    if (!(p->total > 0.0) || !isfinite(p->total)) {
        status = mmnc_i_err(err, MMNC_EINVAL, "the matrix values sum to %g; need a positive finite sum", p->total);
        goto cleanup;
    }
    p->P = mmnc_csr_alloc(A->nrows, A->ncols, A->nnz, err);
    if (!p->P) { status = err ? err->code : MMNC_ENOMEM; goto cleanup; }
    memcpy(p->P->rowptr, A->rowptr, (size_t)(A->nrows + 1) * sizeof(mmnc_int));
    memcpy(p->P->colind, A->colind, (size_t)A->nnz * sizeof(mmnc_int));
    {
        double inv = 1.0 / p->total;
        for (mmnc_int e = 0; e < A->nnz; e++) p->P->val[e] = A->val[e] * inv;
    }
    if ((status = mmnc_csr_transpose(p->P, &p->Pt, err)) != MMNC_OK) goto cleanup;
    MMNC_ALLOC(p->py, p->ny, err, status);
    MMNC_ALLOC(p->px, p->nx, err, status);
    row_sums(p->P, p->py);
    row_sums(p->Pt, p->px);
    for (mmnc_int y = 0; y < p->ny; y++)
        if (!(p->py[y] > 0.0)) {
            status = mmnc_i_err(err, MMNC_EINVAL, "row %lld has zero mass: drop empty rows first", (long long)y + 1);
            goto cleanup;
        }
    for (mmnc_int x = 0; x < p->nx; x++)
        if (!(p->px[x] > 0.0)) {
            status = mmnc_i_err(err, MMNC_EINVAL, "column %lld has zero mass: drop empty columns first", (long long)x + 1);
            goto cleanup;
        }
    *out = p;
    return MMNC_OK;
cleanup:
    mmnc_pmf_free(p);
    return status;
}

/* Y = D_r^{-1/2} M D_c^{-1/2} X for M = P (rows py, cols px) or Pt. */
static void scaled_mul(const mmnc_csr *M, const double *dr, const double *dc, mmnc_int m, const double *X,
                       double *Y)
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

void mmnc_dtm_mul(const mmnc_pmf *p, mmnc_int m, const double *X, double *Y)
{
    scaled_mul(p->P, p->py, p->px, m, X, Y);
}

void mmnc_dtm_tmul(const mmnc_pmf *p, mmnc_int m, const double *X, double *Y)
{
    scaled_mul(p->Pt, p->px, p->py, m, X, Y);
}

/* Orthonormalise the columns of the n x m row-major block Q in place (Householder QR). */
static int orthonormalise(mmnc_int n, mmnc_int m, double *Q, double *tau, mmnc_err *err)
{
    lapack_int info = LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, (lapack_int)n, (lapack_int)m, Q, (lapack_int)m, tau);
    if (info == 0) info = LAPACKE_dorgqr(LAPACK_ROW_MAJOR, (lapack_int)n, (lapack_int)m, (lapack_int)m, Q, (lapack_int)m, tau);
    if (info != 0) return mmnc_i_err(err, MMNC_ENOCONV, "QR factorisation failed (LAPACK info %d)", (int)info);
    return MMNC_OK;
}

int mmnc_dtm_svds(const mmnc_pmf *p, mmnc_int r, double tol, int maxit, uint64_t seed, double *sigma,
                  double *U, double *V, mmnc_err *err)
{
    mmnc_int ny, nx, l, it;
    double *Q = NULL, *Yb = NULL, *R = NULL, *s = NULL, *su = NULL, *svt = NULL, *tau = NULL, *prev = NULL,
           *superb = NULL;
    int status = MMNC_OK, converged = 0;
    mmnc_i_rng rng;
    if (!p || !sigma) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_dtm_svds: NULL argument");
    ny = p->ny;
    nx = p->nx;
    if (r < 1 || r > ny || r > nx)
        return mmnc_i_err(err, MMNC_EINVAL, "rank %lld must be between 1 and min(%lld, %lld)", (long long)r,
                          (long long)ny, (long long)nx);
    if (ny > INT32_MAX || nx > INT32_MAX)
        return mmnc_i_err(err, MMNC_EINVAL, "matrix too large for LAPACK's int indices");
    if (tol <= 0) tol = 1e-10;
    if (maxit <= 0) maxit = 200;
    l = r + (r < 10 ? 10 : r / 2); /* oversampling */
    if (l > ny) l = ny;
    if (l > nx) l = nx;
    MMNC_ALLOC(Q, nx * l, err, status);
    MMNC_ALLOC(Yb, ny * l, err, status);
    MMNC_ALLOC(R, l * l, err, status);
    MMNC_ALLOC(s, l, err, status);
    MMNC_ALLOC(su, l * l, err, status);
    MMNC_ALLOC(svt, l * l, err, status);
    MMNC_ALLOC(tau, l, err, status);
    MMNC_ALLOC(prev, r, err, status);
    MMNC_ALLOC(superb, l, err, status);
    mmnc_i_rng_seed(&rng, seed);
    for (mmnc_int i = 0; i < nx * l; i++) Q[i] = mmnc_i_rng_normal(&rng);
    if ((status = orthonormalise(nx, l, Q, tau, err)) != MMNC_OK) goto cleanup;
    for (mmnc_int i = 0; i < r; i++) prev[i] = -1.0;
    for (it = 0; it < maxit; it++) {
        /* Y = orth(B Q); Z = B^T Y = Q_z R; B ~ Y Z^T = Y R^T Q_z^T. */
        mmnc_dtm_mul(p, l, Q, Yb);
        if ((status = orthonormalise(ny, l, Yb, tau, err)) != MMNC_OK) goto cleanup;
        mmnc_dtm_tmul(p, l, Yb, Q);
        lapack_int info = LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, (lapack_int)nx, (lapack_int)l, Q, (lapack_int)l, tau);
        if (info != 0) { status = mmnc_i_err(err, MMNC_ENOCONV, "QR failed (LAPACK info %d)", (int)info); goto cleanup; }
        memset(R, 0, (size_t)(l * l) * sizeof(double));
        for (mmnc_int i = 0; i < l; i++)
            for (mmnc_int j = i; j < l; j++) R[i * l + j] = Q[i * l + j];
        info = LAPACKE_dorgqr(LAPACK_ROW_MAJOR, (lapack_int)nx, (lapack_int)l, (lapack_int)l, Q, (lapack_int)l, tau);
        if (info != 0) { status = mmnc_i_err(err, MMNC_ENOCONV, "QR failed (LAPACK info %d)", (int)info); goto cleanup; }
        /* R^T = su diag(s) svt, so B ~ Y su s svt Q^T: U = Y su, V = Q svt^T. */
        for (mmnc_int i = 0; i < l; i++)
            for (mmnc_int j = 0; j < l; j++) svt[i * l + j] = R[j * l + i];
        info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'O', 'A', (lapack_int)l, (lapack_int)l, svt, (lapack_int)l, s, NULL,
                              (lapack_int)l, su, (lapack_int)l, superb);
        if (info != 0) { status = mmnc_i_err(err, MMNC_ENOCONV, "small SVD failed (LAPACK info %d)", (int)info); goto cleanup; }
        /* dgesvd with jobu='O' overwrote svt with U of R^T; su holds V^T of R^T. */
        double change = 0.0;
        for (mmnc_int i = 0; i < r; i++) {
            double d = fabs(s[i] - prev[i]) / (s[0] > 0 ? s[0] : 1.0);
            if (d > change) change = d;
            prev[i] = s[i];
        }
        if (change < tol) { converged = 1; it++; break; }
    }
    for (mmnc_int i = 0; i < r; i++) sigma[i] = s[i];
    /* Here svt = left vectors of R^T (l x l), su = right vectors transposed. */
    if (U) {
        for (mmnc_int y = 0; y < ny; y++)
            for (mmnc_int j = 0; j < r; j++) {
                double t = 0.0;
                for (mmnc_int i = 0; i < l; i++) t += Yb[y * l + i] * svt[i * l + j];
                U[y * r + j] = t;
            }
    }
    if (V) {
        for (mmnc_int x = 0; x < nx; x++)
            for (mmnc_int j = 0; j < r; j++) {
                double t = 0.0;
                for (mmnc_int i = 0; i < l; i++) t += Q[x * l + i] * su[j * l + i];
                V[x * r + j] = t;
            }
    }
    /* Sign convention: the entry of largest magnitude of each U column is positive. */
    if (U || V) {
        for (mmnc_int j = 0; j < r; j++) {
            double big = 0.0;
            int neg = 0;
            if (U) {
                for (mmnc_int y = 0; y < ny; y++)
                    if (fabs(U[y * r + j]) > big + 1e-15) { big = fabs(U[y * r + j]); neg = U[y * r + j] < 0; }
            } else {
                for (mmnc_int x = 0; x < nx; x++)
                    if (fabs(V[x * r + j]) > big + 1e-15) { big = fabs(V[x * r + j]); neg = V[x * r + j] < 0; }
            }
            if (neg) {
                if (U) for (mmnc_int y = 0; y < ny; y++) U[y * r + j] = -U[y * r + j];
                if (V) for (mmnc_int x = 0; x < nx; x++) V[x * r + j] = -V[x * r + j];
            }
        }
    }
    if (!converged)
        status = mmnc_i_err(err, MMNC_ENOCONV, "truncated SVD: %d iterations without reaching tolerance %g", maxit, tol);
cleanup:
    mmnc_i_free(Q);
    mmnc_i_free(Yb);
    mmnc_i_free(R);
    mmnc_i_free(s);
    mmnc_i_free(su);
    mmnc_i_free(svt);
    mmnc_i_free(tau);
    mmnc_i_free(prev);
    mmnc_i_free(superb);
    return status;
}

/* ---- connected components (union-find over rows and columns) ----------- */

int mmnc_components(const mmnc_csr *A, mmnc_int *ncomp, mmnc_int *comp_row, mmnc_err *err)
{
    mmnc_int *parent = NULL, *id = NULL, n, count = 0;
    int status = MMNC_OK;
    if (!A || !ncomp) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_components: NULL argument");
    n = A->nrows + A->ncols;
    MMNC_ALLOC(parent, n, err, status);
    MMNC_ALLOC(id, n, err, status);
    for (mmnc_int i = 0; i < n; i++) parent[i] = i, id[i] = -1;
    for (mmnc_int i = 0; i < A->nrows; i++)
        for (mmnc_int e = A->rowptr[i]; e < A->rowptr[i + 1]; e++) {
            if (A->val[e] == 0.0) continue;
            mmnc_int a = mmnc_i_uf_find(parent, i), b = mmnc_i_uf_find(parent, A->nrows + A->colind[e]);
            if (a != b) parent[a < b ? b : a] = a < b ? a : b;
        }
    /* Count components that contain at least one edge or one row/column
     * vertex: isolated vertices (empty rows or columns) count too. */
    for (mmnc_int i = 0; i < n; i++) {
        mmnc_int r = mmnc_i_uf_find(parent, i);
        if (id[r] < 0) id[r] = count++;
    }
    if (comp_row)
        for (mmnc_int i = 0; i < A->nrows; i++) comp_row[i] = id[mmnc_i_uf_find(parent, i)];
    *ncomp = count;
cleanup:
    mmnc_i_free(parent);
    mmnc_i_free(id);
    return status;
}
