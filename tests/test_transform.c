/*
 * test_transform.c -- in-place transforms of data sets: transpose, value
 * maps (the MovieLens rating map), row normalisation, and dropping empty
 * rows and columns with the id maps and names following.
 */
#include <stdlib.h>
#include <string.h>

#include "core/mmnc_i.h"
#include "testutil.h"

static double entry(const mmnc_csr *A, mmnc_int i, mmnc_int j)
{
    for (mmnc_int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
        if (A->colind[p] == j) return A->val[p];
    return 0.0;
}


/* A data set from triplets, with no ids (identity) and no names. */
static mmnc_data *make(mmnc_int m, mmnc_int n, mmnc_int nnz, const mmnc_int *r, const mmnc_int *c,
                       const double *v)
{
    mmnc_data *d = calloc(1, sizeof *d);
    mmnc_err e;
    /* mmnc_data_free releases with the library's allocator, which is malloc */
    if (mmnc_csr_from_triplets(m, n, nnz, r, c, v, &d->A, &e) != MMNC_OK) {
        free(d);
        return NULL;
    }
    d->orig_rows = m;
    d->orig_cols = n;
    return d;
}

static char **names(const char *prefix, mmnc_int n)
{
    char **s = malloc((size_t)n * sizeof *s);
    for (mmnc_int i = 0; i < n; i++) {
        s[i] = malloc(32);
        snprintf(s[i], 32, "%s%lld", prefix, (long long)i);
    }
    return s;
}

static void test_transpose(void)
{
    mmnc_int r[] = {0, 1, 1}, c[] = {2, 0, 1};
    double v[] = {1, 2, 3};
    mmnc_data *d = make(2, 3, 3, r, c, v), *d0 = make(2, 3, 3, r, c, v);
    mmnc_err e;
    char buf[32];
    d->row_names = names("r", 2);
    d->col_names = names("c", 3);
    CHECK(mmnc_data_transpose(d, &e) == MMNC_OK);
    CHECK(d->A->nrows == 3 && d->A->ncols == 2 && d->orig_rows == 3 && d->orig_cols == 2);
    CHECK(entry(d->A, 2, 0) == 1 && entry(d->A, 0, 1) == 2 && entry(d->A, 1, 1) == 3);
    CHECK(strcmp(mmnc_data_row_id(d, 2, buf), "c2") == 0);
    CHECK(strcmp(mmnc_data_col_id(d, 1, buf), "r1") == 0);
    CHECK(mmnc_data_transpose(d, &e) == MMNC_OK);
    CHECK(test_csr_equal(d->A, d0->A) && strcmp(d->row_names[1], "r1") == 0);
    CHECK(mmnc_data_transpose(NULL, &e) == MMNC_EINVAL);
    mmnc_data_free(d);
    mmnc_data_free(d0);
}

static void test_maps(void)
{
    /* MovieLens ratings 1..5 under 3^(r-1) - 1: 0, 2, 8, 26, 80; rating 1 is dropped */
    mmnc_int r[] = {0, 0, 1, 1, 2}, c[] = {0, 1, 0, 2, 2};
    double v[] = {1, 2, 3, 4, 5};
    mmnc_data *d = make(3, 3, 5, r, c, v);
    mmnc_err e;
    CHECK(mmnc_data_map_values(d, MMNC_MAP_RATING3, &e) == MMNC_OK);
    CHECK(d->A->nnz == 4 && entry(d->A, 0, 0) == 0 && entry(d->A, 0, 1) == 2);
    CHECK(entry(d->A, 1, 0) == 8 && entry(d->A, 1, 2) == 26 && entry(d->A, 2, 2) == 80);
    CHECK(mmnc_csr_check(d->A, &e) == MMNC_OK);
    CHECK(mmnc_data_map_values(d, MMNC_MAP_BINARY, &e) == MMNC_OK);
    CHECK(d->A->nnz == 4 && entry(d->A, 2, 2) == 1 && entry(d->A, 1, 2) == 1);
    CHECK(mmnc_data_map_values(d, MMNC_MAP_LOG1P, &e) == MMNC_OK);
    CHECK_NEAR(entry(d->A, 0, 1), log(2.0), 1e-15);
    CHECK(mmnc_data_map_values(d, MMNC_MAP_NONE, &e) == MMNC_OK && d->A->nnz == 4);
    CHECK(mmnc_data_map_values(d, (mmnc_valmap)42, &e) == MMNC_EINVAL);
    mmnc_data_free(d);

    /* half-star ratings below 1 would turn negative: refused, data unchanged */
    {
        double h[] = {0.5, 2, 3, 4, 5};
        d = make(3, 3, 5, r, c, h);
        CHECK(mmnc_data_map_values(d, MMNC_MAP_RATING3, &e) == MMNC_EINVAL);
        CHECK(strstr(e.msg, "row 1") != NULL && strstr(e.msg, "below 1"));
        CHECK(d->A->nnz == 5 && entry(d->A, 0, 0) == 0.5);
        mmnc_data_free(d);
    }

    /* normalisation: rows sum to 1, empty rows untouched */
    {
        mmnc_int r2[] = {0, 0, 2}, c2[] = {0, 1, 1};
        double v2[] = {1, 3, 5};
        d = make(3, 2, 3, r2, c2, v2);
        CHECK(mmnc_data_normalize_rows(d, &e) == MMNC_OK);
        CHECK(entry(d->A, 0, 0) == 0.25 && entry(d->A, 0, 1) == 0.75 && entry(d->A, 2, 1) == 1);
        CHECK(d->A->rowptr[2] == d->A->rowptr[1]);
        mmnc_data_free(d);
    }
}

static void test_drop_empty(void)
{
    mmnc_err e;
    mmnc_int rd, cd;
    char buf[32];
    /* 5 x 6, rows 1 and 3 and columns 0, 2, 5 empty */
    mmnc_int r[] = {0, 0, 2, 4, 4}, c[] = {1, 3, 4, 1, 4};
    double v[] = {1, 2, 3, 4, 5};
    mmnc_data *d = make(5, 6, 5, r, c, v);
    d->row_names = names("r", 5);
    d->col_names = names("c", 6);
    CHECK(mmnc_data_drop_empty(d, &rd, &cd, &e) == MMNC_OK);
    CHECK(rd == 2 && cd == 3 && d->A->nrows == 3 && d->A->ncols == 3 && d->A->nnz == 5);
    CHECK(d->orig_rows == 5 && d->orig_cols == 6);
    CHECK(d->row_orig[0] == 0 && d->row_orig[1] == 2 && d->row_orig[2] == 4);
    CHECK(d->col_orig[0] == 1 && d->col_orig[1] == 3 && d->col_orig[2] == 4);
    CHECK(strcmp(d->row_names[1], "r2") == 0 && strcmp(d->col_names[2], "c4") == 0);
    CHECK(entry(d->A, 0, 1) == 2 && entry(d->A, 2, 0) == 4 && entry(d->A, 1, 2) == 3);
    CHECK(mmnc_csr_check(d->A, &e) == MMNC_OK);
    /* nothing more to drop */
    CHECK(mmnc_data_drop_empty(d, &rd, &cd, &e) == MMNC_OK && rd == 0 && cd == 0);

    /* the rating map empties row 0 ('r0' only had a rating 1); ids compose */
    d->A->val[0] = 1; /* (r0, c1) */
    d->A->val[1] = 1; /* (r0, c3): column c3 has only this entry */
    CHECK(mmnc_data_map_values(d, MMNC_MAP_RATING3, &e) == MMNC_OK);
    CHECK(mmnc_data_drop_empty(d, &rd, &cd, &e) == MMNC_OK && rd == 1 && cd == 1);
    CHECK(d->A->nrows == 2 && d->row_orig[0] == 2 && d->row_orig[1] == 4);
    CHECK(d->A->ncols == 2 && d->col_orig[0] == 1 && d->col_orig[1] == 4);
    CHECK(strcmp(mmnc_data_row_id(d, 0, buf), "r2") == 0);
    mmnc_i_free(d->row_names[0]); /* a missing name gives the numeric id */
    d->row_names[0] = NULL;
    CHECK(strcmp(mmnc_data_row_id(d, 0, buf), "3") == 0);
    CHECK(strcmp(mmnc_data_col_id(d, 1, buf), "c4") == 0);
    mmnc_data_free(d);

    /* removals that cascade: row 0 sums to 0 through a negative entry (only a
     * hand-made matrix can do this); dropping it and column 1 empties row 1
     * and column 0, which a second round removes */
    {
        mmnc_int r2[] = {0, 0, 1, 2}, c2[] = {0, 1, 1, 2};
        double v2[] = {1, -1, 1, 1};
        d = make(3, 3, 4, r2, c2, v2);
        CHECK(mmnc_data_drop_empty(d, &rd, &cd, &e) == MMNC_OK);
        CHECK(rd == 2 && cd == 2 && d->A->nrows == 1 && d->A->ncols == 1 && d->A->nnz == 1);
        CHECK(d->row_orig[0] == 2 && d->col_orig[0] == 2);
        CHECK(strcmp(mmnc_data_row_id(d, 0, buf), "3") == 0);
        mmnc_data_free(d);
    }

    /* nothing left: EINVAL, data unchanged; 0 x 0 too */
    {
        mmnc_int r3[] = {0}, c3[] = {0};
        double v3[] = {0};
        d = make(2, 2, 1, r3, c3, v3);
        CHECK(mmnc_data_drop_empty(d, &rd, &cd, &e) == MMNC_EINVAL && strstr(e.msg, "nothing"));
        CHECK(d->A->nrows == 2 && d->A->ncols == 2 && d->row_orig == NULL);
        mmnc_data_free(d);
        d = make(0, 0, 0, NULL, NULL, NULL);
        CHECK(mmnc_data_drop_empty(d, NULL, NULL, &e) == MMNC_EINVAL);
        mmnc_data_free(d);
    }
    /* 1 x 1 */
    {
        mmnc_int z = 0;
        double one = 1;
        d = make(1, 1, 1, &z, &z, &one);
        CHECK(mmnc_data_drop_empty(d, &rd, &cd, &e) == MMNC_OK && rd == 0 && cd == 0);
        mmnc_data_free(d);
    }
    CHECK(mmnc_data_drop_empty(NULL, &rd, &cd, &e) == MMNC_EINVAL);
}

static void test_alloc_failures(void)
{
    mmnc_int r[] = {0, 0, 2, 4, 4}, c[] = {1, 3, 4, 1, 4};
    double v[] = {1, 2, 3, 4, 5};
    int bad = 0, failures = 0;
    mmnc_err e;
    for (long n = 1;; n++) {
        mmnc_data *d = make(5, 6, 5, r, c, v), *ref = make(5, 6, 5, r, c, v);
        int st;
        mmnc_int rd, cd;
        d->row_names = names("r", 5);
        d->col_names = names("c", 6);
        mmnc_i_fail_after(n);
        st = mmnc_data_drop_empty(d, &rd, &cd, &e);
        mmnc_i_fail_after(0);
        if (st == MMNC_OK) {
            mmnc_data_free(d);
            mmnc_data_free(ref);
            break;
        }
        failures++;
        bad += st != MMNC_ENOMEM || !test_csr_equal(d->A, ref->A); /* unchanged on failure */
        mmnc_data_free(d);
        mmnc_data_free(ref);
    }
    CHECK(bad == 0 && failures >= 5);
    for (long n = 1;; n++) {
        mmnc_data *d = make(5, 6, 5, r, c, v);
        int st;
        mmnc_i_fail_after(n);
        st = mmnc_data_transpose(d, &e);
        mmnc_i_fail_after(0);
        bad += st != MMNC_OK && (st != MMNC_ENOMEM || d->A->nrows != 5);
        mmnc_data_free(d);
        if (st == MMNC_OK) break;
    }
    CHECK(bad == 0);
}

/* A one-process mmnc_dist: every collective of one rank is the identity. */
static void one_sum(const mmnc_dist *d, double *x, mmnc_int n) {}
static void one_isum(const mmnc_dist *d, int64_t *x, mmnc_int n) {}
static void one_allgather(const mmnc_dist *d, const void *in, size_t bytes, void *out) { memcpy(out, in, bytes); }
static void one_bcast(const mmnc_dist *d, void *buf, size_t bytes, int root) {}
static void one_gatherv(const mmnc_dist *d, const double *in, mmnc_int n, double *out, int root)
{
    memcpy(out, in, (size_t)n * sizeof *in);
}
static void one_scatterv(const mmnc_dist *d, const double *in, double *out, mmnc_int n, int root)
{
    memcpy(out, in, (size_t)n * sizeof *in);
}

/* mmnc_data_load: read, transform and drop in one call, whole or as rank
 * 0 of 1; the failures name the file. */
static void test_load(void)
{
    /* 4 x 3: rows 2 and 3 and column 3 empty */
    const char *path = test_tmpfile("%%MatrixMarket matrix coordinate real general\n4 3 3\n1 1 2\n1 2 1\n4 2 3\n",
                                    ".mtx");
    mmnc_dist one = {0, 1, NULL, one_sum, one_sum, one_isum, one_allgather, one_bcast, one_gatherv, one_scatterv};
    mmnc_load_opts o;
    mmnc_data *d = NULL;
    mmnc_int rd = -1, cd = -1;
    mmnc_err e;
    char buf[32];
    mmnc_load_opts_default(&o);
    CHECK(o.drop_empty == 1 && o.transpose == 0 && o.map == MMNC_MAP_NONE && o.read.row_field == 1);
    for (int dist = 0; dist < 2; dist++) {
        CHECK(mmnc_data_load(path, &o, dist ? &one : NULL, &d, &rd, &cd, &e) == MMNC_OK);
        CHECK(d && d->A->nrows == 2 && d->A->ncols == 2 && rd == 2 && cd == 1);
        CHECK(d && strcmp(mmnc_data_row_id(d, 1, buf), "4") == 0 && entry(d->A, 1, 1) == 3);
        mmnc_data_free(d);
        d = NULL;
    }
    o.transpose = 1;
    o.map = MMNC_MAP_BINARY;
    CHECK(mmnc_data_load(path, &o, NULL, &d, NULL, NULL, &e) == MMNC_OK);
    CHECK(d && d->A->nrows == 2 && d->A->ncols == 2 && entry(d->A, 1, 1) == 1 && entry(d->A, 0, 0) == 1);
    CHECK(d && strcmp(mmnc_data_col_id(d, 1, buf), "4") == 0);
    mmnc_data_free(d);
    d = NULL;
    CHECK(mmnc_data_load(path, &o, &one, &d, NULL, NULL, &e) == MMNC_EINVAL && !d);
    CHECK(strstr(e.msg, path) != NULL);
    CHECK(mmnc_data_load("no/such/file.mtx", NULL, NULL, &d, NULL, NULL, &e) == MMNC_EIO && !d);
    CHECK(strstr(e.msg, "no/such/file.mtx") != NULL);
}

/* The names of side files, and a data set with ids written as Matrix
 * Market with its .rows file (its columns are 1..n: no .cols). */
static void test_write_mtx(void)
{
    const char *cases[][3] = {{"a.mtx", ".rows", "a.rows"}, {"d/a.mtx.gz", ".vocab", "d/a.vocab"},
                              {"a.txt", ".cols", "a.txt.cols"}, {".mtx", ".rows", ".rows"}};
    mmnc_int r[] = {0, 1}, c[] = {0, 1};
    double v[] = {1, 2};
    mmnc_data *d = make(2, 2, 2, r, c, v), *back = NULL;
    char *side = NULL, *out = NULL;
    int wr = -1, wc = -1;
    mmnc_err e;
    for (int i = 0; i < 4; i++) {
        CHECK(mmnc_mtx_side_path(cases[i][0], cases[i][1], &side, &e) == MMNC_OK);
        CHECK(side && strcmp(side, cases[i][2]) == 0);
        mmnc_free(side);
    }
    d->row_names = names("r", 2);
    out = strdup(test_tmpfile("", ".mtx"));
    CHECK(mmnc_data_write_mtx(d, out, &wr, &wc, &e) == MMNC_OK && wr == 1 && wc == 0);
    CHECK(mmnc_mtx_side_path(out, ".rows", &side, &e) == MMNC_OK);
    {
        mmnc_int n = 0;
        char **ids = NULL;
        CHECK(mmnc_names_read(side, 0, &n, &ids, &e) == MMNC_OK && n == 2);
        CHECK(ids && strcmp(ids[0], "r0") == 0 && strcmp(ids[1], "r1") == 0);
        mmnc_names_free(n, ids);
    }
    CHECK(mmnc_data_read(out, NULL, &back, &e) == MMNC_OK && back->A->nnz == 2 && entry(back->A, 1, 1) == 2);
    mmnc_data_free(back);
    remove(side);
    remove(out);
    mmnc_free(side);
    free(out);
    mmnc_data_free(d);
}

/* Dropping empty rows and columns compacts the matrix in place: the result
 * against a dense reference, with the first and last rows, a run of rows and
 * scattered columns empty; every allocation failing in turn leaves the data
 * as it was. */
static void test_drop_empty_in_place(void)
{
    enum { M = 40, N = 30 };
    static const int empty_row[] = {3, 5, 6, 7, M - 1}, empty_col[] = {2, 11, N - 1};
    double D[M][N];
    mmnc_int r[M * N], c[M * N], nnz = 0, kr = 0, kc = 0, newr[M], newc[N];
    double v[M * N];
    mmnc_data *d, *d0;
    const mmnc_csr *A0;
    memset(D, 0, sizeof D);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            int skip = (i * 7 + j * 3) % 5 != 0;
            for (size_t t = 0; t < sizeof empty_row / sizeof *empty_row; t++) skip |= i == empty_row[t];
            for (size_t t = 0; t < sizeof empty_col / sizeof *empty_col; t++) skip |= j == empty_col[t];
            if (skip) continue;
            D[i][j] = 1.0 + i + 0.01 * j;
            r[nnz] = i, c[nnz] = j, v[nnz++] = D[i][j];
        }
    /* row 3 sums to 0 through entries that cancel (dropped with them);
     * explicit zeros (made -1 here, set to 0 below: the triplets would drop
     * them) in column 2 (dropped with them) and in kept rows, the first rows
     * among them (compacted away before any row moves) */
    D[3][0] = 2.0, D[3][4] = -2.0;
    r[nnz] = 3, c[nnz] = 0, v[nnz++] = 2.0;
    r[nnz] = 3, c[nnz] = 4, v[nnz++] = -2.0;
    for (int i = 1; i < M; i += 3) r[nnz] = i, c[nnz] = 2, v[nnz++] = -1.0;
    r[nnz] = 0, c[nnz] = 1, v[nnz++] = -1.0;
    r[nnz] = 10, c[nnz] = 1, v[nnz++] = -1.0;
    r[nnz] = 21, c[nnz] = 8, v[nnz++] = -1.0;
    for (int i = 0; i < M; i++) {
        double t = 0;
        for (int j = 0; j < N; j++) t += D[i][j];
        newr[i] = t > 0 ? kr++ : -1;
    }
    for (int j = 0; j < N; j++) {
        double t = 0;
        for (int i = 0; i < M; i++) t += newr[i] >= 0 ? D[i][j] : 0.0;
        newc[j] = t > 0 ? kc++ : -1;
    }
    d = make(M, N, nnz, r, c, v);
    d0 = make(M, N, nnz, r, c, v); /* the matrix as it was, to compare with after a failure */
    if (!d || !d0) return;
    for (mmnc_int e = 0; e < nnz; e++)
        if (d->A->val[e] == -1.0) d->A->val[e] = d0->A->val[e] = 0.0;
    CHECK(d->A->nnz == nnz);
    d->row_names = names("r", M);
    A0 = d0->A;
    for (long f = 1; f < 100; f++) {
        mmnc_int rd = -1, cd = -1;
        mmnc_i_fail_after(f);
        int st = mmnc_data_drop_empty(d, &rd, &cd, NULL);
        mmnc_i_fail_after(0);
        if (st != MMNC_OK) {
            CHECK(st == MMNC_ENOMEM && d->A->nrows == M && d->A->ncols == N && d->A->nnz == nnz &&
                  d->row_orig == NULL && strcmp(d->row_names[1], "r1") == 0);
            CHECK(memcmp(d->A->rowptr, A0->rowptr, (M + 1) * sizeof(mmnc_int)) == 0 &&
                  memcmp(d->A->colind, A0->colind, (size_t)nnz * sizeof(mmnc_int)) == 0 &&
                  memcmp(d->A->val, A0->val, (size_t)nnz * sizeof(double)) == 0);
            continue;
        }
        CHECK(rd == M - kr && cd == N - kc && d->A->nrows == kr && d->A->ncols == kc);
        CHECK(mmnc_csr_check(d->A, NULL) == MMNC_OK);
        for (int i = 0; i < M; i++) {
            if (newr[i] < 0) continue;
            CHECK(d->row_orig[newr[i]] == i);
            CHECK(d->row_names[newr[i]] && atoi(d->row_names[newr[i]] + 1) == i);
            for (int j = 0; j < N; j++)
                if (newc[j] >= 0) CHECK(entry(d->A, newr[i], newc[j]) == D[i][j]);
        }
        for (int j = 0; j < N; j++)
            if (newc[j] >= 0) CHECK(d->col_orig[newc[j]] == j);
        {
            mmnc_int want = 0;
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) want += newr[i] >= 0 && newc[j] >= 0 && D[i][j] != 0;
            CHECK(d->A->nnz == want && want < nnz);
        }
        break;
    }
    mmnc_data_free(d0);
    mmnc_data_free(d);
}

int main(void)
{
    test_transpose();
    test_maps();
    test_drop_empty();
    test_drop_empty_in_place();
    test_alloc_failures();
    test_load();
    test_write_mtx();
    return test_done();
}
