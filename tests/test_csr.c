/*
 * test_csr.c -- sparse matrices: assembly from triplets (duplicates, zeros,
 * order), transpose, structural checks, Matrix Market output, and every
 * out-of-memory exit.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/mmnc_i.h"
#include "testutil.h"
#ifdef _OPENMP
#include <omp.h>
#endif


static double entry(const mmnc_csr *A, mmnc_int i, mmnc_int j)
{
    for (mmnc_int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
        if (A->colind[p] == j) return A->val[p];
    return 0.0;
}

static int file_exists(const char *path) { return access(path, F_OK) == 0; }

static void test_alloc(void)
{
    mmnc_err e = {0, ""};
    mmnc_csr *A = mmnc_csr_alloc(0, 0, 0, &e);
    CHECK(A != NULL && A->nrows == 0 && A->rowptr[0] == 0);
    CHECK_OK(mmnc_csr_check(A, &e_));
    mmnc_csr_free(A);
    CHECK(mmnc_csr_alloc(-1, 2, 0, &e) == NULL && e.code == MMNC_EINVAL);
    mmnc_csr_free(NULL);
}

static void test_from_triplets(void)
{
    mmnc_err e = {0, ""};
    mmnc_csr *A = NULL;

    /* 0 entries: 0 x 0 and 3 x 4 */
    CHECK(mmnc_csr_from_triplets(0, 0, 0, NULL, NULL, NULL, &A, &e) == MMNC_OK);
    CHECK(A && A->nrows == 0 && A->ncols == 0 && A->nnz == 0);
    CHECK(mmnc_csr_check(A, &e) == MMNC_OK);
    mmnc_csr_free(A);
    CHECK(mmnc_csr_from_triplets(3, 4, 0, NULL, NULL, NULL, &A, &e) == MMNC_OK);
    CHECK(A && A->nnz == 0 && A->rowptr[3] == 0 && mmnc_csr_check(A, &e) == MMNC_OK);
    mmnc_csr_free(A);

    /* 1 x 1 */
    {
        mmnc_int r = 0, c = 0;
        double v = 2.5;
        CHECK(mmnc_csr_from_triplets(1, 1, 1, &r, &c, &v, &A, &e) == MMNC_OK);
        CHECK(A && A->nnz == 1 && A->val[0] == 2.5 && A->colind[0] == 0);
        mmnc_csr_free(A);
    }

    /* duplicates summed, zeros dropped (also sums to zero), columns sorted */
    {
        mmnc_int r[] = {1, 0, 1, 2, 0, 1, 2, 2, 0};
        mmnc_int c[] = {3, 2, 0, 1, 2, 3, 2, 1, 0};
        double v[] = {1, 4, 5, 2, 6, 7, 0, -2, 1};
        CHECK(mmnc_csr_from_triplets(3, 4, 9, r, c, v, &A, &e) == MMNC_OK);
        CHECK(A->nnz == 4);
        CHECK(A->rowptr[0] == 0 && A->rowptr[1] == 2 && A->rowptr[2] == 4 && A->rowptr[3] == 4);
        CHECK(A->colind[0] == 0 && A->val[0] == 1);
        CHECK(A->colind[1] == 2 && A->val[1] == 10);
        CHECK(A->colind[2] == 0 && A->val[2] == 5);
        CHECK(A->colind[3] == 3 && A->val[3] == 8);
        CHECK(mmnc_csr_check(A, &e) == MMNC_OK);
        mmnc_csr_free(A);
    }

    /* out of range, negative sizes, NULL arrays */
    {
        mmnc_int r[] = {0, 3}, c[] = {0, 0};
        double v[] = {1, 1};
        A = (mmnc_csr *)1;
        CHECK(mmnc_csr_from_triplets(3, 1, 2, r, c, v, &A, &e) == MMNC_EINVAL);
        CHECK(A == NULL && e.code == MMNC_EINVAL && strstr(e.msg, "outside") != NULL);
        c[1] = -1;
        r[1] = 0;
        CHECK(mmnc_csr_from_triplets(3, 1, 2, r, c, v, &A, &e) == MMNC_EINVAL);
        CHECK(mmnc_csr_from_triplets(-1, 1, 0, NULL, NULL, NULL, &A, &e) == MMNC_EINVAL);
        CHECK(mmnc_csr_from_triplets(1, 1, 1, NULL, NULL, NULL, &A, &e) == MMNC_EINVAL);
        CHECK(mmnc_csr_from_triplets(1, 1, 0, NULL, NULL, NULL, NULL, &e) == MMNC_EINVAL);
    }
}

/* Huge column indices (a libsvm feature 10^9 on a few lines) take the
 * comparison-sort path: O(nnz) memory, and the same matrix, bit for bit, as
 * the counting scatter gives for the same triplets with small columns --
 * duplicates summed in input order, zeros dropped. */
static void test_wide_columns(void)
{
    mmnc_rng rng;
    mmnc_err e = {0, ""};
    const mmnc_int m = 29, n = 17, nnz = 1500, scale = 1000000007;
    mmnc_int *r = malloc(nnz * sizeof *r), *c = malloc(nnz * sizeof *c), *cw = malloc(nnz * sizeof *cw);
    double *v = malloc(nnz * sizeof *v);
    mmnc_csr *A = NULL, *W = NULL;
    int ok = 1;
    mmnc_rng_seed(&rng, 11);
    for (mmnc_int t = 0; t < nnz; t++) {
        r[t] = mmnc_rng_below(&rng, m);
        c[t] = mmnc_rng_below(&rng, n);
        cw[t] = c[t] * scale;
        v[t] = (double)mmnc_rng_below(&rng, 50) / 7.0; /* inexact sums: order shows */
    }
    CHECK(mmnc_csr_from_triplets(m, n, nnz, r, c, v, &A, &e) == MMNC_OK);
    CHECK(mmnc_csr_from_triplets(m, n * scale, nnz, r, cw, v, &W, &e) == MMNC_OK);
    CHECK(A && W && W->ncols == n * scale && mmnc_csr_check(W, &e) == MMNC_OK);
    if (A && W) {
        ok = A->nnz == W->nnz;
        for (mmnc_int i = 0; ok && i <= m; i++) ok = A->rowptr[i] == W->rowptr[i];
        for (mmnc_int p = 0; ok && p < A->nnz; p++)
            ok = W->colind[p] == A->colind[p] * scale && memcmp(&W->val[p], &A->val[p], sizeof(double)) == 0;
    }
    CHECK(ok);
    /* 2 entries in a 1 x 10^15 matrix: no 8 PB of column counts */
    {
        mmnc_int ri[3] = {0, 0, 0}, ci[3] = {999999999999999, 0, 999999999999999};
        double vv[3] = {1, 2, 3};
        mmnc_csr *B = NULL;
        CHECK(mmnc_csr_from_triplets(1, 1000000000000000, 3, ri, ci, vv, &B, &e) == MMNC_OK);
        CHECK(B && B->nnz == 2 && B->colind[0] == 0 && B->val[0] == 2 && B->colind[1] == 999999999999999 &&
              B->val[1] == 4);
        mmnc_csr_free(B);
    }
    mmnc_csr_free(A);
    mmnc_csr_free(W);
    free(r);
    free(c);
    free(cw);
    free(v);
}

/* Random triplets with many duplicates against a dense accumulation. */
static void test_random(void)
{
    mmnc_rng rng;
    mmnc_err e = {0, ""};
    const mmnc_int m = 37, n = 23, nnz = 2000;
    mmnc_int *r = malloc(nnz * sizeof *r), *c = malloc(nnz * sizeof *c);
    double *v = malloc(nnz * sizeof *v), *dense = calloc((size_t)(m * n), sizeof *dense);
    mmnc_csr *A = NULL, *T = NULL, *TT = NULL;
    int ok = 1;
    mmnc_int expect = 0;
    mmnc_rng_seed(&rng, 7);
    for (mmnc_int t = 0; t < nnz; t++) {
        r[t] = mmnc_rng_below(&rng, m);
        c[t] = mmnc_rng_below(&rng, n);
        v[t] = (double)mmnc_rng_below(&rng, 4); /* some zeros */
        dense[r[t] * n + c[t]] += v[t];
    }
    CHECK(mmnc_csr_from_triplets(m, n, nnz, r, c, v, &A, &e) == MMNC_OK);
    CHECK(mmnc_csr_check(A, &e) == MMNC_OK);
    for (mmnc_int i = 0; i < m; i++)
        for (mmnc_int j = 0; j < n; j++) {
            expect += dense[i * n + j] != 0;
            if (entry(A, i, j) != dense[i * n + j]) ok = 0;
        }
    CHECK(ok);
    CHECK(A->nnz == expect);

    /* transpose: entries swap; twice is the identity */
    CHECK(mmnc_csr_transpose(A, &T, &e) == MMNC_OK);
    CHECK(T->nrows == n && T->ncols == m && mmnc_csr_check(T, &e) == MMNC_OK);
    ok = 1;
    for (mmnc_int i = 0; i < m; i++)
        for (mmnc_int j = 0; j < n; j++)
            if (entry(T, j, i) != dense[i * n + j]) ok = 0;
    CHECK(ok);
    CHECK(mmnc_csr_transpose(T, &TT, &e) == MMNC_OK);
    CHECK(test_csr_equal(A, TT));
    mmnc_csr_free(A);
    mmnc_csr_free(T);
    mmnc_csr_free(TT);
    free(r);
    free(c);
    free(v);
    free(dense);

    /* transpose of empty shapes */
    CHECK(mmnc_csr_from_triplets(0, 5, 0, NULL, NULL, NULL, &A, &e) == MMNC_OK);
    CHECK(mmnc_csr_transpose(A, &T, &e) == MMNC_OK);
    CHECK(T->nrows == 5 && T->ncols == 0 && T->nnz == 0 && mmnc_csr_check(T, &e) == MMNC_OK);
    mmnc_csr_free(A);
    mmnc_csr_free(T);
    CHECK(mmnc_csr_transpose(NULL, &T, &e) == MMNC_EINVAL);
}

/* The threaded transpose (large matrices) against the transpose assembled
 * from swapped triplets, for 1, 2 and 3 threads: the same arrays. */
static void test_transpose_threads(void)
{
    mmnc_rng rng;
    mmnc_err e = {0, ""};
    const mmnc_int m = 20000, n = 3000, nnz = 400000;
    mmnc_int *r = malloc(nnz * sizeof *r), *c = malloc(nnz * sizeof *c);
    double *v = malloc(nnz * sizeof *v);
    mmnc_csr *A = NULL, *ref = NULL;
    mmnc_rng_seed(&rng, 11);
    for (mmnc_int t = 0; t < nnz; t++) {
        r[t] = mmnc_rng_below(&rng, m / 2) * 2; /* odd rows empty */
        c[t] = t % 5 == 0 ? 17 : mmnc_rng_below(&rng, n - 1); /* a hot column, the last one empty */
        v[t] = 1.0 + (double)mmnc_rng_below(&rng, 100);
    }
    CHECK(mmnc_csr_from_triplets(m, n, nnz, r, c, v, &A, &e) == MMNC_OK);
    CHECK(mmnc_csr_from_triplets(n, m, nnz, c, r, v, &ref, &e) == MMNC_OK);
    for (int threads = 1; threads <= 3; threads++) {
        mmnc_csr *T = NULL;
#ifdef _OPENMP
        omp_set_num_threads(threads);
#endif
        CHECK(mmnc_csr_transpose(A, &T, &e) == MMNC_OK);
        CHECK(T && test_csr_equal(T, ref) && mmnc_csr_check(T, &e) == MMNC_OK);
        mmnc_csr_free(T);
    }
    mmnc_csr_free(A);
    mmnc_csr_free(ref);
    free(r);
    free(c);
    free(v);
}

/* Assembly from many triplets with duplicates (some cancelling to zero),
 * on 1, 2 and 3 threads, against a reference made by sorting the triplets
 * by (row, column, input position) and summing the runs in that order. */
typedef struct trip {
    mmnc_int r, c, t;
    double v;
} trip;

static int by_rct(const void *a, const void *b)
{
    const trip *x = a, *y = b;
    if (x->r != y->r) return x->r < y->r ? -1 : 1;
    if (x->c != y->c) return x->c < y->c ? -1 : 1;
    return (x->t > y->t) - (x->t < y->t);
}

static void test_triplets_threads(void)
{
    mmnc_rng rng;
    mmnc_err e = {0, ""};
    const mmnc_int m = 5000, n = 4000, nnz = 300000;
    mmnc_int *r = malloc(nnz * sizeof *r), *c = malloc(nnz * sizeof *c);
    double *v = malloc(nnz * sizeof *v);
    trip *tr = malloc(nnz * sizeof *tr);
    mmnc_csr *ref = NULL;
    mmnc_int q = 0;
    int ok = 1;
    mmnc_rng_seed(&rng, 5);
    for (mmnc_int t = 0; t < nnz; t++) {
        r[t] = mmnc_rng_below(&rng, m / 3) * 3; /* two rows in three empty */
        c[t] = mmnc_rng_below(&rng, n / 40);    /* many duplicates */
        v[t] = t % 7 == 0 ? -0.5 : 0.1 * (double)(1 + mmnc_rng_below(&rng, 9));
        tr[t] = (trip){r[t], c[t], t, v[t]};
    }
    qsort(tr, (size_t)nnz, sizeof *tr, by_rct);
    ref = mmnc_csr_alloc(m, n, nnz, &e);
    for (mmnc_int a = 0, b; a < nnz; a = b) { /* runs of one (row, column) */
        double sum = tr[a].v;
        for (b = a + 1; b < nnz && tr[b].r == tr[a].r && tr[b].c == tr[a].c; b++) sum += tr[b].v;
        if (sum != 0.0) {
            ref->colind[q] = tr[a].c;
            ref->val[q] = sum;
            ref->rowptr[tr[a].r + 1] = ++q;
        }
    }
    for (mmnc_int i = 0; i < m; i++)
        if (ref->rowptr[i + 1] < ref->rowptr[i]) ref->rowptr[i + 1] = ref->rowptr[i];
    ref->nnz = q;
    CHECK(q > 0 && q < nnz / 2 && ref->rowptr[m] == q); /* duplicates merged (values may be negative here) */
    for (int threads = 1; threads <= 3; threads++) {
        mmnc_csr *A = NULL;
#ifdef _OPENMP
        omp_set_num_threads(threads);
#endif
        CHECK(mmnc_csr_from_triplets(m, n, nnz, r, c, v, &A, &e) == MMNC_OK);
        if (!A || !test_csr_equal(A, ref)) ok = 0;
        mmnc_csr_free(A);
    }
    CHECK(ok);
    mmnc_csr_free(ref);
    free(r);
    free(c);
    free(v);
    free(tr);
}

static void test_check(void)
{
    mmnc_err e = {0, ""};
    mmnc_int r[] = {0, 0, 1}, c[] = {0, 1, 1};
    double v[] = {1, 2, 3};
    mmnc_csr *A = NULL;
    CHECK(mmnc_csr_from_triplets(2, 2, 3, r, c, v, &A, &e) == MMNC_OK);
    A->colind[0] = 1; /* row 0: 1, 1 */
    CHECK(mmnc_csr_check(A, &e) == MMNC_EINVAL && strstr(e.msg, "row 0") != NULL);
    A->colind[0] = 0;
    A->val[2] = -1;
    CHECK(mmnc_csr_check(A, &e) == MMNC_EINVAL && strstr(e.msg, "row 1") &&
          strstr(e.msg, "negative"));
    A->val[2] = NAN;
    CHECK(mmnc_csr_check(A, &e) == MMNC_EINVAL && strstr(e.msg, "finite"));
    A->val[2] = 3;
    A->colind[2] = 2;
    CHECK(mmnc_csr_check(A, &e) == MMNC_EINVAL && strstr(e.msg, "out of range"));
    A->colind[2] = 1;
    A->rowptr[1] = 3;
    A->rowptr[2] = 2;
    CHECK(mmnc_csr_check(A, &e) == MMNC_EINVAL);
    A->rowptr[1] = 2;
    A->rowptr[2] = 3;
    CHECK(mmnc_csr_check(A, &e) == MMNC_OK);
    CHECK(mmnc_csr_check(NULL, &e) == MMNC_EINVAL);
    mmnc_csr_free(A);
}

static char *slurp_gz(const char *path)
{
    gzFile gz = gzopen(path, "rb");
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    int k;
    if (!gz) {
        free(buf);
        return NULL;
    }
    while ((k = gzread(gz, buf + n, (unsigned)(cap - n - 1))) > 0) {
        n += (size_t)k;
        if (cap - n < 2) buf = realloc(buf, cap *= 2);
    }
    gzclose(gz);
    buf[n] = '\0';
    return buf;
}

static void test_write_mtx(void)
{
    mmnc_err e = {0, ""};
    mmnc_int r[] = {0, 0, 2}, c[] = {0, 3, 1};
    double vi[] = {1, 20, 3}, vr[] = {0.1, 1.0 / 3.0, 1e-300};
    mmnc_csr *A = NULL, *B = NULL;
    char path[300], *text;
    mmnc_data *d = NULL;

    snprintf(path, sizeof path, "%s", test_tmpfile("", ".mtx"));
    CHECK(mmnc_csr_from_triplets(3, 4, 3, r, c, vi, &A, &e) == MMNC_OK);
    CHECK(mmnc_csr_write_mtx(A, path, &e) == MMNC_OK);
    text = slurp_gz(path);
    CHECK(text && strcmp(text, "%%MatrixMarket matrix coordinate real general\n3 4 3\n"
                               "1 1 1\n1 4 20\n3 2 3\n") == 0);
    free(text);
    CHECK(mmnc_data_read(path, NULL, &d, &e) == MMNC_OK);
    CHECK(d && test_csr_equal(A, d->A));
    mmnc_data_free(d);
    d = NULL;
    mmnc_csr_free(A);

    /* non-integral values read back bit for bit, through gzip too */
    CHECK(mmnc_csr_from_triplets(3, 4, 3, r, c, vr, &A, &e) == MMNC_OK);
    for (int gz = 0; gz < 2; gz++) {
        snprintf(path, sizeof path, "%s", test_tmpfile("", gz ? ".mtx.gz" : ".mtx"));
        CHECK(mmnc_csr_write_mtx(A, path, &e) == MMNC_OK);
        CHECK(mmnc_data_read(path, NULL, &d, &e) == MMNC_OK);
        CHECK(d && test_csr_equal(A, d->A));
        mmnc_data_free(d);
        d = NULL;
        if (gz) { /* really compressed */
            FILE *fp = fopen(path, "rb");
            unsigned char m[2] = {0, 0};
            CHECK(fp && fread(m, 1, 2, fp) == 2 && m[0] == 0x1f && m[1] == 0x8b);
            if (fp) fclose(fp);
        }
    }

    /* a 0-entry matrix is written (reading it back is an empty-matrix error) */
    CHECK(mmnc_csr_from_triplets(2, 2, 0, NULL, NULL, NULL, &B, &e) == MMNC_OK);
    snprintf(path, sizeof path, "%s", test_tmpfile("", ".mtx"));
    CHECK(mmnc_csr_write_mtx(B, path, &e) == MMNC_OK);
    CHECK(mmnc_data_read(path, NULL, &d, &e) == MMNC_EINVAL && d == NULL);
    mmnc_csr_free(B);

    /* unwritable place: EIO, no file, no temporary left behind */
    CHECK(mmnc_csr_write_mtx(A, "/nonexistent-dir/x.mtx", &e) == MMNC_EIO);
    CHECK(strstr(e.msg, "/nonexistent-dir/x.mtx") != NULL);
    CHECK(!file_exists("/nonexistent-dir/x.mtx"));

    /* invalid matrix: refused, nothing written */
    snprintf(path, sizeof path, "%s.invalid.mtx", test_tmpfile("", ""));
    A->val[0] = -1;
    CHECK(mmnc_csr_write_mtx(A, path, &e) == MMNC_EINVAL && strstr(e.msg, "negative"));
    CHECK(!file_exists(path));
    mmnc_csr_free(A);
}

/* The entries are formatted in blocks on all threads: the same bytes for 1,
 * 2 and 3 threads (and through gzip), equal to lines made here one by one,
 * on a matrix with empty rows and a row longer than a block. */
static void test_write_mtx_threads(void)
{
    mmnc_rng rng;
    mmnc_err e = {0, ""};
    const mmnc_int m = 4000, n = 50000, nnz = 160000;
    mmnc_int *r = malloc(nnz * sizeof *r), *c = malloc(nnz * sizeof *c);
    double *v = malloc(nnz * sizeof *v);
    mmnc_csr *A = NULL;
    char path[300], *ref = malloc((size_t)nnz * 80 + 100), *s = ref, *text;
#ifdef _OPENMP
    int saved = omp_get_max_threads();
#endif
    mmnc_rng_seed(&rng, 5);
    for (mmnc_int t = 0; t < nnz; t++) {
        r[t] = t < n ? 7 : mmnc_rng_below(&rng, m / 2) * 2 + 1; /* row 7: every column; even rows empty */
        c[t] = t < n ? t : mmnc_rng_below(&rng, n);
        v[t] = (1.0 + (double)mmnc_rng_below(&rng, 1000)) / 7.0 * (t % 3 == 0 ? 1e-290 : 1.0);
    }
    CHECK(mmnc_csr_from_triplets(m, n, nnz, r, c, v, &A, &e) == MMNC_OK);
    s += sprintf(s, "%%%%MatrixMarket matrix coordinate real general\n%lld %lld %lld\n", (long long)m, (long long)n,
                 (long long)A->nnz);
    for (mmnc_int i = 0; i < m; i++)
        for (mmnc_int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
            char num[40];
            snprintf(num, sizeof num, "%.15g", A->val[p]);
            if (strtod(num, NULL) != A->val[p]) snprintf(num, sizeof num, "%.17g", A->val[p]);
            s += sprintf(s, "%lld %lld %s\n", (long long)i + 1, (long long)A->colind[p] + 1, num);
        }
    CHECK(A->nnz > 3 * 32768); /* several blocks */
    for (int threads = 1; threads <= 4; threads++) {
#ifdef _OPENMP
        omp_set_num_threads(threads < 4 ? threads : 2);
#endif
        snprintf(path, sizeof path, "%s", test_tmpfile("", threads == 4 ? ".mtx.gz" : ".mtx"));
        CHECK(mmnc_csr_write_mtx(A, path, &e) == MMNC_OK);
        text = slurp_gz(path);
        CHECK(text && strcmp(text, ref) == 0);
        free(text);
    }
#ifdef _OPENMP
    omp_set_num_threads(saved);
#endif
    mmnc_csr_free(A);
    free(ref);
    free(r);
    free(c);
    free(v);
}

/* Every allocation failure gives MMNC_ENOMEM and leaks nothing (run under
 * ASan/valgrind to check the leaks). */
static void test_alloc_failures(void)
{
    mmnc_int r[] = {1, 0, 1, 2, 0, 1}, c[] = {3, 2, 0, 1, 2, 3};
    double v[] = {1, 4, 5, 2, 6, 0.5};
    long n;
    int bad = 0, failures = 0;
    mmnc_csr *A = NULL, *T = NULL;
    mmnc_err e;
    char path[300];
    for (n = 1;; n++) {
        int st;
        mmnc_i_fail_after(n);
        st = mmnc_csr_from_triplets(3, 4, 6, r, c, v, &A, &e);
        mmnc_i_fail_after(0);
        if (st == MMNC_OK) break;
        failures++;
        bad += st != MMNC_ENOMEM || A != NULL;
    }
    CHECK(bad == 0 && failures >= 4);
    for (n = 1, failures = 0;; n++) {
        int st;
        mmnc_i_fail_after(n);
        st = mmnc_csr_transpose(A, &T, &e);
        mmnc_i_fail_after(0);
        if (st == MMNC_OK) break;
        failures++;
        bad += st != MMNC_ENOMEM || T != NULL;
    }
    CHECK(bad == 0 && failures >= 3);
    snprintf(path, sizeof path, "%s", test_tmpfile("", ".mtx.gz"));
    for (n = 1, failures = 0;; n++) {
        int st;
        mmnc_i_fail_after(n);
        st = mmnc_csr_write_mtx(A, path, &e);
        mmnc_i_fail_after(0);
        if (st == MMNC_OK) break;
        failures++;
        bad += st != MMNC_ENOMEM;
    }
    CHECK(bad == 0 && failures >= 2);
    mmnc_csr_free(A);
    mmnc_csr_free(T);
}

int main(void)
{
    test_alloc();
    test_from_triplets();
    test_random();
    test_wide_columns();
    test_transpose_threads();
    test_triplets_threads();
    test_check();
    test_write_mtx();
    test_write_mtx_threads();
    test_alloc_failures();
    return test_done();
}
