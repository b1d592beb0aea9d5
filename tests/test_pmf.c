/*
 * test_pmf.c -- the joint pmf and the DTM: sigma_1 = 1 with singular vectors
 * sqrt(P_Y), sqrt(P_X); the truncated SVD against a dense LAPACK SVD; the
 * multiplicity of singular value 1 equals the number of connected
 * components; the cache-blocked products of wide blocks give the bits of
 * the definition; a symmetric matrix serves as its own transpose; bad
 * matrices are refused.
 */
#include <float.h>
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

#include "core/mmnc_i.h"
#include "testutil.h"

static double *dense_dtm(const mmnc_pmf *p)
{
    double *B = calloc(p->ny * p->nx, sizeof(double));
    for (mmnc_int y = 0; y < p->ny; y++)
        for (mmnc_int e = p->P->rowptr[y]; e < p->P->rowptr[y + 1]; e++)
            B[y * p->nx + p->P->colind[e]] = p->P->val[e] / sqrt(p->py[y] * p->px[p->P->colind[e]]);
    return B;
}

static void test_top_singular_pair(void)
{
    mmnc_csr *A = test_random_csr(40, 25, 0.2, 7);
    mmnc_pmf *p = NULL;
    CHECK_OK(mmnc_pmf_build(A, &p, NULL));
    double *x = malloc(p->nx * sizeof(double)), *y = malloc(p->ny * sizeof(double));
    for (mmnc_int i = 0; i < p->nx; i++) x[i] = sqrt(p->px[i]);
    mmnc_dtm_mul(p, 1, x, y);
    double err = 0;
    for (mmnc_int i = 0; i < p->ny; i++) err = fmax(err, fabs(y[i] - sqrt(p->py[i])));
    CHECK_NEAR(err, 0.0, 1e-12);
    mmnc_dtm_tmul(p, 1, y, x);
    err = 0;
    for (mmnc_int i = 0; i < p->nx; i++) err = fmax(err, fabs(x[i] - sqrt(p->px[i])));
    CHECK_NEAR(err, 0.0, 1e-12);
    double sy = 0, sx = 0;
    for (mmnc_int i = 0; i < p->ny; i++) sy += p->py[i];
    for (mmnc_int i = 0; i < p->nx; i++) sx += p->px[i];
    CHECK_NEAR(sy, 1.0, 1e-12);
    CHECK_NEAR(sx, 1.0, 1e-12);
    free(x), free(y);
    mmnc_pmf_free(p);
    mmnc_csr_free(A);
}

/* The products with wide blocks (cache-blocked in column panels, rows in
 * groups) give the same bits as the definition summed row by row in column
 * order, for 1 and 2 threads: a block of 77 columns (two full panels and a
 * partial one) on a matrix of several row groups. */
static void test_wide_products(void)
{
    mmnc_csr *A = test_random_csr(300, 250, 0.3, 13);
    mmnc_pmf *p = NULL;
    CHECK_OK(mmnc_pmf_build(A, &p, NULL));
    if (!p) return;
    const mmnc_int m = 77, ny = p->ny, nx = p->nx;
    CHECK(p->nnz > 2 * 8192);
    double *X = malloc(nx * m * sizeof(double)), *Xt = malloc(ny * m * sizeof(double));
    double *ref = malloc(ny * m * sizeof(double)), *reft = malloc(nx * m * sizeof(double));
    double *Y = malloc(ny * m * sizeof(double)), *Yt = malloc(nx * m * sizeof(double));
    for (mmnc_int i = 0; i < nx * m; i++) X[i] = sin(0.37 * (double)i + 1.0);
    for (mmnc_int i = 0; i < ny * m; i++) Xt[i] = cos(0.11 * (double)i);
    /* references: rows of P (resp. of P^T) in increasing column order */
    for (mmnc_int y = 0; y < ny; y++)
        for (mmnc_int j = 0; j < m; j++) {
            double t = 0.0;
            for (mmnc_int e = p->P->rowptr[y]; e < p->P->rowptr[y + 1]; e++)
                t += p->P->val[e] / sqrt(p->px[p->P->colind[e]]) * X[p->P->colind[e] * m + j];
            ref[y * m + j] = t * (1.0 / sqrt(p->py[y]));
        }
    for (mmnc_int x = 0; x < nx; x++)
        for (mmnc_int j = 0; j < m; j++) {
            double t = 0.0;
            for (mmnc_int e = p->Pt->rowptr[x]; e < p->Pt->rowptr[x + 1]; e++)
                t += p->Pt->val[e] / sqrt(p->py[p->Pt->colind[e]]) * Xt[p->Pt->colind[e] * m + j];
            reft[x * m + j] = t * (1.0 / sqrt(p->px[x]));
        }
    for (int t = 1; t <= 2; t++) {
        mmnc_i_threads saved = mmnc_i_threads_push(t);
        mmnc_dtm_mul(p, m, X, Y);
        mmnc_dtm_tmul(p, m, Xt, Yt);
        mmnc_i_threads_pop(saved);
        CHECK(memcmp(Y, ref, ny * m * sizeof(double)) == 0);
        CHECK(memcmp(Yt, reft, nx * m * sizeof(double)) == 0);
    }
    free(X), free(Xt), free(ref), free(reft), free(Y), free(Yt);
    mmnc_pmf_free(p);
    mmnc_csr_free(A);
}

static void test_svds_against_dense(void)
{
    mmnc_csr *A = test_random_csr(60, 45, 0.15, 11);
    mmnc_pmf *p = NULL;
    CHECK_OK(mmnc_pmf_build(A, &p, NULL));
    mmnc_int r = 6, ny = p->ny, nx = p->nx, mn = ny < nx ? ny : nx;
    double *B = dense_dtm(p), *s = malloc(mn * sizeof(double)), *sup = malloc(mn * sizeof(double));
    double *Ud = malloc(ny * ny * sizeof(double)), *Vt = malloc(nx * nx * sizeof(double));
    double *Bc = malloc(ny * nx * sizeof(double));
    memcpy(Bc, B, ny * nx * sizeof(double));
    CHECK(LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'A', 'A', ny, nx, Bc, nx, s, Ud, ny, Vt, nx, sup) == 0);
    double *sig = malloc(r * sizeof(double)), *U = malloc(ny * r * sizeof(double)), *V = malloc(nx * r * sizeof(double));
    CHECK_OK(mmnc_dtm_svds(p, r, 1e-12, 500, 3, sig, U, V, NULL));
    CHECK_NEAR(sig[0], 1.0, 1e-10);
    for (mmnc_int i = 0; i < r; i++) CHECK_NEAR(sig[i], s[i], 1e-8);
    /* first left vector is sqrt(P_Y) (sign normalised positive) */
    double e = 0;
    for (mmnc_int y = 0; y < ny; y++) e = fmax(e, fabs(U[y * r] - sqrt(p->py[y])));
    CHECK_NEAR(e, 0.0, 1e-8);
    /* B v_i = sigma_i u_i for every returned triplet */
    for (mmnc_int i = 0; i < r; i++) {
        double worst = 0;
        for (mmnc_int y = 0; y < ny; y++) {
            double t = 0;
            for (mmnc_int x = 0; x < nx; x++) t += B[y * nx + x] * V[x * r + i];
            worst = fmax(worst, fabs(t - sig[i] * U[y * r + i]));
        }
        CHECK_NEAR(worst, 0.0, 1e-7);
    }
    /* same seed, same bits */
    double *sig2 = malloc(r * sizeof(double));
    CHECK_OK(mmnc_dtm_svds(p, r, 1e-12, 500, 3, sig2, NULL, NULL, NULL));
    CHECK(memcmp(sig, sig2, r * sizeof(double)) == 0);
    free(sig2), free(B), free(s), free(sup), free(Ud), free(Vt), free(Bc), free(sig), free(U), free(V);
    mmnc_pmf_free(p);
    mmnc_csr_free(A);
}

static void test_components(void)
{
    /* three blocks on the diagonal -> three unit singular values */
    mmnc_int ri[64], ci[64], n = 0;
    double v[64];
    for (int b = 0; b < 3; b++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 2; j++)
                if ((i + j + b) % 3 != 0 || i == 0) ri[n] = b * 3 + i, ci[n] = b * 2 + j, v[n++] = 1 + i + j;
    mmnc_csr *A = NULL;
    mmnc_pmf *p = NULL;
    mmnc_int nc = 0, comp[9];
    CHECK_OK(mmnc_csr_from_triplets(9, 6, n, ri, ci, v, &A, NULL));
    CHECK_OK(mmnc_components(A, &nc, comp, NULL));
    CHECK(nc == 3);
    CHECK(comp[0] == comp[1] && comp[1] == comp[2] && comp[0] != comp[3] && comp[3] != comp[6]);
    CHECK_OK(mmnc_pmf_build(A, &p, NULL));
    double s[5];
    CHECK_OK(mmnc_dtm_svds(p, 5, 1e-13, 500, 1, s, NULL, NULL, NULL));
    CHECK_NEAR(s[0], 1.0, 1e-10);
    CHECK_NEAR(s[1], 1.0, 1e-10);
    CHECK_NEAR(s[2], 1.0, 1e-10);
    CHECK(s[3] < 1.0 - 1e-6);
    mmnc_pmf_free(p);
    mmnc_csr_free(A);
}

static void test_bad_and_tiny(void)
{
    mmnc_err err = {0, ""};
    mmnc_csr *A = NULL;
    mmnc_pmf *p = NULL;
    /* 1 x 1 */
    mmnc_int r0 = 0, c0 = 0;
    double v1 = 3.0;
    CHECK_OK(mmnc_csr_from_triplets(1, 1, 1, &r0, &c0, &v1, &A, NULL));
    CHECK_OK(mmnc_pmf_build(A, &p, NULL));
    double s[1];
    CHECK_OK(mmnc_dtm_svds(p, 1, 1e-12, 50, 1, s, NULL, NULL, NULL));
    CHECK_NEAR(s[0], 1.0, 1e-12);
    mmnc_pmf_free(p), p = NULL;
    mmnc_csr_free(A), A = NULL;
    /* zero row */
    mmnc_int ri[2] = {0, 0}, ci[2] = {0, 1};
    double v[2] = {1, 2};
    CHECK_OK(mmnc_csr_from_triplets(2, 2, 2, ri, ci, v, &A, NULL));
    CHECK(mmnc_pmf_build(A, &p, &err) == MMNC_EINVAL);
    CHECK(p == NULL);
    CHECK(strstr(err.msg, "row 2") != NULL);
    mmnc_csr_free(A), A = NULL;
    /* empty matrix */
    CHECK_OK(mmnc_csr_from_triplets(0, 0, 0, NULL, NULL, NULL, &A, NULL));
    CHECK(mmnc_pmf_build(A, &p, &err) == MMNC_EINVAL);
    mmnc_csr_free(A), A = NULL;
    /* negative value: refused by the check */
    CHECK_OK(mmnc_csr_from_triplets(1, 2, 2, ri, ci, v, &A, NULL));
    A->val[0] = -1.0;
    CHECK(mmnc_pmf_build(A, &p, &err) == MMNC_EINVAL);
    A->val[0] = NAN;
    CHECK(mmnc_pmf_build(A, &p, &err) == MMNC_EINVAL);
    mmnc_csr_free(A), A = NULL;
    /* subnormal values: their total is subnormal and 1 / total overflows (with and without TAKE; on the
     * diagonal of 2 x 2, and as one row of 1 x 2) */
    {
        mmnc_int r2[2] = {0, 1}, c2[2] = {0, 1}, zero[2] = {0, 0};
        double tiny[2] = {1e-320, 2e-320};
        for (int t = 0; t < 4; t++) {
            int take = t & 1, row = t >> 1;
            CHECK_OK(mmnc_csr_from_triplets(row ? 1 : 2, 2, 2, row ? zero : r2, c2, tiny, &A, NULL));
            CHECK(mmnc_pmf_build_ex(A, take ? MMNC_PMF_TAKE : 0, &p, &err) == MMNC_EINVAL && p == NULL);
            CHECK(strstr(err.msg, "below DBL_MIN = 2.2250738585072014e-308") != NULL);
            CHECK(strstr(err.msg, "orders of magnitude") == NULL && strstr(err.msg, "inf") == NULL);
            if (!strstr(err.msg, "below DBL_MIN")) fprintf(stderr, "  message: %s\n", err.msg);
            mmnc_csr_free(A), A = NULL;
        }
        /* the least normal total is fine: P_Y = (1/3, 2/3) */
        tiny[0] = DBL_MIN;
        tiny[1] = 2 * DBL_MIN;
        CHECK_OK(mmnc_csr_from_triplets(2, 2, 2, r2, c2, tiny, &A, NULL));
        CHECK_OK(mmnc_pmf_build(A, &p, NULL));
        if (p) CHECK_NEAR(p->py[0], 1.0 / 3, 1e-15);
        mmnc_pmf_free(p), p = NULL;
        mmnc_csr_free(A), A = NULL;
    }
    CHECK(mmnc_dtm_svds(NULL, 1, 0, 0, 1, s, NULL, NULL, &err) == MMNC_EINVAL);
}

static void test_alloc_failures(void)
{
    mmnc_csr *A = test_random_csr(20, 15, 0.3, 5);
    int failures = 0;
    for (long n = 1; n < 200; n++) {
        mmnc_pmf *p = NULL;
        mmnc_i_fail_after(n);
        int st = mmnc_pmf_build(A, &p, NULL);
        mmnc_i_fail_after(0);
        if (st == MMNC_OK) {
            mmnc_pmf_free(p);
            break;
        }
        CHECK(st == MMNC_ENOMEM && p == NULL);
        failures++;
    }
    CHECK(failures > 0);
    mmnc_csr_free(A);
}

/* A symmetric matrix is its own transpose: Pt is P itself (freed once), and
 * B^T x gives the bits of B x; a square matrix that is not symmetric keeps a
 * Pt of its own. */
/* A + A^T for a square A: the same sums on both sides of the diagonal, so
 * symmetric bit for bit (NULL if it cannot be made). */
static mmnc_csr *plus_transpose(const mmnc_csr *A)
{
    mmnc_csr *At = NULL, *S = NULL;
    CHECK_OK(mmnc_csr_transpose(A, &At, NULL));
    if (!At) return NULL;
    mmnc_int n = A->nrows, nt = A->nnz + At->nnz, t = 0;
    mmnc_int *ri = malloc(nt * sizeof(mmnc_int)), *ci = malloc(nt * sizeof(mmnc_int));
    double *v = malloc(nt * sizeof(double));
    for (const mmnc_csr *M = A; M; M = M == A ? At : NULL)
        for (mmnc_int i = 0; i < n; i++)
            for (mmnc_int e = M->rowptr[i]; e < M->rowptr[i + 1]; e++, t++) {
                ri[t] = i;
                ci[t] = M->colind[e];
                v[t] = M->val[e];
            }
    CHECK_OK(mmnc_csr_from_triplets(n, n, nt, ri, ci, v, &S, NULL));
    free(ri), free(ci), free(v);
    mmnc_csr_free(At);
    return S;
}

static void test_symmetric_shared(void)
{
    const mmnc_int n = 200, m = 40;
    mmnc_csr *A = test_random_csr(n, n, 0.3, 17), *S = plus_transpose(A);
    mmnc_pmf *p = NULL, *q = NULL;
    if (!S) return;
    CHECK_OK(mmnc_pmf_build(S, &p, NULL));
    CHECK_OK(mmnc_pmf_build(A, &q, NULL));
    if (p && q) {
        CHECK(p->Pt == p->P);
        CHECK(q->Pt != NULL && q->Pt != q->P);
        double *X = malloc(n * m * sizeof(double)), *Y = malloc(n * m * sizeof(double)),
               *Yt = malloc(n * m * sizeof(double));
        for (mmnc_int i = 0; i < n * m; i++) X[i] = sin(0.29 * (double)i + 0.5);
        mmnc_dtm_mul(p, m, X, Y);
        mmnc_dtm_tmul(p, m, X, Yt);
        CHECK(memcmp(Y, Yt, n * m * sizeof(double)) == 0);
        CHECK(memcmp(p->py, p->px, n * sizeof(double)) == 0);
        free(X), free(Y), free(Yt);
    }
    mmnc_pmf_free(p);
    mmnc_pmf_free(q);
    for (long f = 1; f < 200; f++) { /* every allocation failing in turn: the shared copy freed once */
        mmnc_pmf *r = NULL;
        mmnc_i_fail_after(f);
        int st = mmnc_pmf_build(S, &r, NULL);
        mmnc_i_fail_after(0);
        if (st == MMNC_OK) {
            CHECK(f > 1 && r->Pt == r->P);
            mmnc_pmf_free(r);
            break;
        }
        CHECK(st == MMNC_ENOMEM && r == NULL);
    }
    mmnc_csr_free(A), mmnc_csr_free(S);
}

/* The symmetry check (made without a transpose) against its definition,
 * A^T made and compared array for array, on A + A^T and on copies of it
 * spoiled in each way a check could miss: one value changed in its last
 * bit, above or below the diagonal; one entry added above or below it
 * alone; a diagonal entry changed (symmetric all the same); a square
 * matrix that is not symmetric; with and without MMNC_PMF_NO_TRANSPOSE. */
static int symmetric_by_definition(const mmnc_csr *A)
{
    mmnc_csr *At = NULL;
    int same;
    if (A->nrows != A->ncols || mmnc_csr_transpose(A, &At, NULL) != MMNC_OK) return 0;
    same = A->nnz > 0 && A->nnz == At->nnz &&
           memcmp(A->rowptr, At->rowptr, (size_t)(A->nrows + 1) * sizeof(mmnc_int)) == 0 &&
           memcmp(A->colind, At->colind, (size_t)A->nnz * sizeof(mmnc_int)) == 0 &&
           memcmp(A->val, At->val, (size_t)A->nnz * sizeof(double)) == 0;
    mmnc_csr_free(At);
    return same;
}

/* A with entry (i, j) added (value v) or, if present, set to v. */
static mmnc_csr *with_entry(const mmnc_csr *A, mmnc_int i, mmnc_int j, double v)
{
    mmnc_int n = A->nnz + 1, t = 0;
    mmnc_int *ri = malloc(n * sizeof(mmnc_int)), *ci = malloc(n * sizeof(mmnc_int));
    double *w = malloc(n * sizeof(double));
    mmnc_csr *B = NULL;
    int found = 0;
    for (mmnc_int r = 0; r < A->nrows; r++)
        for (mmnc_int e = A->rowptr[r]; e < A->rowptr[r + 1]; e++, t++) {
            ri[t] = r;
            ci[t] = A->colind[e];
            w[t] = A->val[e];
            if (r == i && ci[t] == j) w[t] = v, found = 1;
        }
    if (!found) ri[t] = i, ci[t] = j, w[t++] = v;
    CHECK_OK(mmnc_csr_from_triplets(A->nrows, A->ncols, t, ri, ci, w, &B, NULL));
    free(ri), free(ci), free(w);
    return B;
}

static void test_symmetry_check(void)
{
    const mmnc_int n = 60;
    mmnc_csr *A = test_random_csr(n, n, 0.2, 23), *S = plus_transpose(A), *M[10] = {NULL};
    int nm = 0;
    if (!S) return;
    M[nm++] = S;
    M[nm++] = A;
    for (int below = 0; below < 2; below++) { /* a value of an off-diagonal pair changed in its last bit */
        for (mmnc_int i = 0; i < n; i++)
            for (mmnc_int e = S->rowptr[i]; e < S->rowptr[i + 1]; e++) {
                mmnc_int j = S->colind[e];
                if (below ? j < i : j > i) {
                    M[nm++] = with_entry(S, i, j, nextafter(S->val[e], 1e300));
                    i = n; /* the first such entry only */
                    break;
                }
            }
    }
    M[nm++] = with_entry(S, 3, 57, 1.0);  /* an entry above the diagonal without its partner */
    M[nm++] = with_entry(S, 57, 3, 1.0);  /* below */
    M[nm++] = with_entry(S, 0, n - 1, 2.0); /* in the first row's last column, alone */
    M[nm++] = with_entry(S, 5, 5, 9.0);   /* the diagonal: still symmetric */
    for (int m = 0; m < nm; m++) {
        int want = symmetric_by_definition(M[m]);
        for (int flags = 0; flags <= MMNC_PMF_NO_TRANSPOSE; flags += MMNC_PMF_NO_TRANSPOSE) {
            mmnc_pmf *p = NULL;
            CHECK_OK(mmnc_pmf_build_ex(M[m], flags, &p, NULL));
            if (!p) continue;
            CHECK((p->Pt == p->P) == want);
            CHECK(flags ? (want || p->Pt == NULL) : p->Pt != NULL);
            mmnc_pmf_free(p);
        }
        CHECK(want == (m == 0 || m == nm - 1)); /* the cases are what they claim to be */
    }
    for (int m = 0; m < nm; m++)
        if (M[m] != A) mmnc_csr_free(M[m]);
    mmnc_csr_free(A);
}

/* Exact sums (mmnc_i_fix_add): the same bits in any order, exact where a
 * double sum is not, and what the pmf and the cluster statistics are made
 * of: P_X the exact column sums of P, I(X;Z) the same bits for a partition
 * however its clusters are numbered. */
static double fix_sum(const double *v, const mmnc_int *idx, mmnc_int n)
{
    int64_t l[MMNC_I_FIX_LIMBS] = {0};
    for (mmnc_int i = 0; i < n; i++) mmnc_i_fix_add(l, v[idx ? idx[i] : i]);
    return mmnc_i_fix_value(l);
}

static void test_exact_sums(void)
{
    enum { N = 5000 };
    static double v[N];
    static mmnc_int rev[N], shuf[N];
    mmnc_rng rng;
    mmnc_rng_seed(&rng, 5);
    for (mmnc_int i = 0; i < N; i++) { /* signed, from 1e-17 to 1e3 */
        v[i] = exp(-40.0 + 47.0 * mmnc_rng_uniform(&rng)) * (mmnc_rng_uniform(&rng) < 0.3 ? -1.0 : 1.0);
        rev[i] = N - 1 - i;
        shuf[i] = i;
    }
    for (mmnc_int i = N - 1; i > 0; i--) {
        mmnc_int j = mmnc_rng_below(&rng, i + 1), t = shuf[i];
        shuf[i] = shuf[j], shuf[j] = t;
    }
    double a = fix_sum(v, NULL, N), b = fix_sum(v, rev, N), c = fix_sum(v, shuf, N), naive = 0.0, fwd = 0.0;
    CHECK(memcmp(&a, &b, sizeof a) == 0 && memcmp(&a, &c, sizeof a) == 0);
    for (mmnc_int i = 0; i < N; i++) fwd += v[i], naive += v[shuf[i]];
    CHECK(fabs(a - fwd) <= 1e-12 * fabs(a) + 1e-12 && fabs(a - naive) <= 1e-12 * fabs(a) + 1e-12);
    /* exact where the doubles lose it: 1, then 1000 x 2^-60, then -1 */
    double w[1002];
    w[0] = 1.0, w[1001] = -1.0;
    for (int i = 1; i <= 1000; i++) w[i] = 0x1p-60;
    CHECK(fix_sum(w, NULL, 1002) == 1000.0 * 0x1p-60);
    /* multiples of 2^-40 whose sum is a double: that double exactly; signs mixed across limbs */
    double u[4] = {0.75, -0.25, 3.0 * 0x1p-40, -0x1p-40};
    CHECK(fix_sum(u, NULL, 4) == 0.5 + 0x1p-39);
    int64_t l[MMNC_I_FIX_LIMBS] = {0};
    for (int i = 0; i < 3000; i++) mmnc_i_fix_add(l, -0.9999999);
    int64_t m[MMNC_I_FIX_LIMBS];
    memcpy(m, l, sizeof l);
    mmnc_i_fix_carry(m);
    CHECK(mmnc_i_fix_value(l) == mmnc_i_fix_value(m));
    CHECK(m[0] >= 0 && m[0] < ((int64_t)1 << 30) && m[1] >= 0 && m[1] < ((int64_t)1 << 30));

    /* the pmf: P_X the exact column sums of P, the total that of the values */
    mmnc_csr *A = test_random_csr(300, 120, 0.1, 23);
    mmnc_pmf *p = NULL;
    if (!A) return;
    for (mmnc_int e = 0; e < A->nnz; e++) A->val[e] = floor(A->val[e] * 1000.0) + 1.0; /* counts */
    CHECK_OK(mmnc_pmf_build(A, &p, NULL));
    if (p) {
        double tot = 0.0;
        for (mmnc_int e = 0; e < A->nnz; e++) tot += A->val[e]; /* integers: exact in doubles */
        CHECK(p->total == tot);
        int ok = 1;
        for (mmnc_int x = 0; x < p->nx; x++) {
            int64_t cl[MMNC_I_FIX_LIMBS] = {0};
            for (mmnc_int y = p->ny - 1; y >= 0; y--) /* the rows backwards */
                for (mmnc_int e = p->P->rowptr[y]; e < p->P->rowptr[y + 1]; e++)
                    if (p->P->colind[e] == x) mmnc_i_fix_add(cl, p->P->val[e]);
            double s = mmnc_i_fix_value(cl);
            ok &= memcmp(&s, &p->px[x], sizeof s) == 0;
        }
        CHECK(ok);
        /* I(X;Z) of a partition and of the same partition numbered backwards: the same bits */
        enum { K = 7 };
        mmnc_int *lab = malloc((size_t)p->ny * sizeof *lab), *lab2 = malloc((size_t)p->ny * sizeof *lab2);
        mmnc_stats s1, s2;
        CHECK_OK(mmnc_stats_init(&s1, K, NULL));
        CHECK_OK(mmnc_stats_init(&s2, K, NULL));
        for (mmnc_int y = 0; y < p->ny; y++) lab[y] = (y * 5 + y / 7) % K, lab2[y] = K - 1 - lab[y];
        CHECK_OK(mmnc_coupling_stats(p, K, lab, NULL, &s1, NULL));
        CHECK_OK(mmnc_coupling_stats(p, K, lab2, NULL, &s2, NULL));
        CHECK(memcmp(&s1.mi, &s2.mi, sizeof s1.mi) == 0);
        CHECK(s1.mi > 0.0);
        int same = 1;
        for (int z = 0; z < K; z++) same &= memcmp(&s1.pz[z], &s2.pz[K - 1 - z], sizeof(double)) == 0;
        CHECK(same);
        mmnc_stats_free(&s1);
        mmnc_stats_free(&s2);
        free(lab), free(lab2);
    }
    mmnc_pmf_free(p);
    mmnc_csr_free(A);
}

int main(void)
{
    test_top_singular_pair();
    test_wide_products();
    test_svds_against_dense();
    test_components();
    test_bad_and_tiny();
    test_alloc_failures();
    test_symmetric_shared();
    test_symmetry_check();
    test_exact_sums();
    return test_done();
}
