/*
 * transform.c -- in-place transforms of a data set: transpose, value maps,
 * row normalisation and removal of empty rows and columns.  Each transform
 * either succeeds or leaves the data set as it was.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/mmnc_i.h"

/* MMNC_EINVAL, naming the caller fn, unless d holds a matrix. */
static int check_data(const mmnc_data *d, const char *fn, mmnc_err *err)
{
    if (!d || !d->A || !d->A->rowptr)
        return mmnc_i_err(err, MMNC_EINVAL, "%s: data set or matrix is NULL", fn);
    return MMNC_OK;
}

int mmnc_data_transpose(mmnc_data *d, mmnc_err *err)
{
    int status;
    mmnc_csr *T = NULL;
    char **tn;
    mmnc_int *to, ti;
    if ((status = check_data(d, "mmnc_data_transpose", err)) != MMNC_OK) return status;
    if ((status = mmnc_csr_transpose(d->A, &T, err)) != MMNC_OK) return status;
    mmnc_csr_free(d->A);
    d->A = T;
    tn = d->row_names, d->row_names = d->col_names, d->col_names = tn;
    to = d->row_orig, d->row_orig = d->col_orig, d->col_orig = to;
    ti = d->orig_rows, d->orig_rows = d->orig_cols, d->orig_cols = ti;
    return MMNC_OK;
}

/* One value under the map m (mmnc_valmap in mmnc.h). */
static double map_one(mmnc_valmap m, double v)
{
    switch (m) {
    case MMNC_MAP_BINARY: return v > 0 ? 1.0 : 0.0;
    case MMNC_MAP_LOG1P: return log1p(v);
    case MMNC_MAP_RATING3: return pow(3.0, v - 1.0) - 1.0;
    default: return v;
    }
}

int mmnc_data_map_values(mmnc_data *d, mmnc_valmap m, mmnc_err *err)
{
    int status;
    mmnc_csr *A;
    mmnc_int i, p, q;
    if ((status = check_data(d, "mmnc_data_map_values", err)) != MMNC_OK) return status;
    if (m < MMNC_MAP_NONE || m > MMNC_MAP_RATING3)
        return mmnc_i_err(err, MMNC_EINVAL, "mmnc_data_map_values: unknown map %d", (int)m);
    if (m == MMNC_MAP_NONE) return MMNC_OK;
    A = d->A;
    /* validate first so that a failure leaves d unchanged */
    for (i = 0; i < A->nrows; i++) {
        for (p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
            double w = map_one(m, A->val[p]);
            if (!isfinite(w) || w < 0) {
                char buf[32];
                return mmnc_i_err(err, MMNC_EINVAL,
                                  "value map %s turns %g (row %s) into %g: values must stay "
                                  "finite and >= 0%s",
                                  m == MMNC_MAP_LOG1P ? "log(1+v)" : "3^(v-1)-1", A->val[p],
                                  mmnc_data_row_id(d, i, buf), w,
                                  m == MMNC_MAP_RATING3 ? " (ratings below 1 are not allowed)"
                                                        : "");
            }
        }
    }
    for (i = 0, q = 0, p = 0; i < A->nrows; i++) {
        mmnc_int end = A->rowptr[i + 1];
        A->rowptr[i] = q;
        for (; p < end; p++) {
            double w = map_one(m, A->val[p]);
            if (w != 0) {
                A->colind[q] = A->colind[p];
                A->val[q++] = w;
            }
        }
    }
    A->rowptr[A->nrows] = q;
    A->nnz = q;
    return MMNC_OK;
}

int mmnc_data_normalize_rows(mmnc_data *d, mmnc_err *err)
{
    int status;
    mmnc_csr *A;
    if ((status = check_data(d, "mmnc_data_normalize_rows", err)) != MMNC_OK) return status;
    A = d->A;
    for (mmnc_int i = 0; i < A->nrows; i++) {
        double s = 0;
        for (mmnc_int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) s += A->val[p];
        if (s != 0)
            for (mmnc_int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) A->val[p] /= s;
    }
    return MMNC_OK;
}

/* Keep rows with newrow[i] >= 0 and columns with newcol[j] >= 0 (nr, nc of
 * them), moving ids and names along.  The matrix is compacted in place (its
 * entries and rows only move towards the front), so no second copy is made;
 * d is untouched on failure (only the small arrays are allocated, first). */
static int keep_subset(mmnc_data *d, const mmnc_int *newrow, const mmnc_int *newcol, mmnc_int nr,
                       mmnc_int nc, mmnc_err *err)
{
    int status = MMNC_OK;
    mmnc_csr *A = d->A;
    mmnc_int *ro = NULL, *co = NULL, i, j, p, nnz = 0, start = 0;
    char **rn = NULL, **cn = NULL;

    MMNC_ALLOC(ro, nr, err, status);
    MMNC_ALLOC(co, nc, err, status);
    if (d->row_names) MMNC_ALLOC(rn, nr, err, status);
    if (d->col_names) MMNC_ALLOC(cn, nc, err, status);

    /* nothing can fail from here on */
    for (i = 0; i < A->nrows; i++) {
        mmnc_int k = newrow[i], end = A->rowptr[i + 1]; /* read before row k <= i's end overwrites it */
        if (k < 0) {
            if (d->row_names) mmnc_i_free(d->row_names[i]);
            start = end;
            continue;
        }
        ro[k] = d->row_orig ? d->row_orig[i] : i;
        if (rn) rn[k] = d->row_names[i];
        for (p = start; p < end; p++) {
            mmnc_int c = newcol[A->colind[p]];
            if (c >= 0 && A->val[p] != 0) {
                A->colind[nnz] = c;
                A->val[nnz++] = A->val[p];
            }
        }
        A->rowptr[k + 1] = nnz;
        start = end;
    }
    for (j = 0; j < A->ncols; j++) {
        mmnc_int k = newcol[j];
        if (k < 0) {
            if (d->col_names) mmnc_i_free(d->col_names[j]);
            continue;
        }
        co[k] = d->col_orig ? d->col_orig[j] : j;
        if (cn) cn[k] = d->col_names[j];
    }
    if (nnz < A->nnz) { /* the tail given back (a failed shrink keeps the larger arrays) */
        mmnc_int *ci = mmnc_i_realloc(A->colind, nnz ? (size_t)nnz : 1, sizeof *ci);
        double *v = mmnc_i_realloc(A->val, nnz ? (size_t)nnz : 1, sizeof *v);
        if (ci) A->colind = ci;
        if (v) A->val = v;
    }
    A->rowptr[0] = 0;
    A->nrows = nr;
    A->ncols = nc;
    A->nnz = nnz;
    mmnc_i_free(d->row_orig);
    mmnc_i_free(d->col_orig);
    d->row_orig = ro;
    d->col_orig = co;
    ro = co = NULL;
    if (d->row_names) {
        mmnc_i_free(d->row_names);
        d->row_names = rn;
        rn = NULL;
    }
    if (d->col_names) {
        mmnc_i_free(d->col_names);
        d->col_names = cn;
        cn = NULL;
    }

cleanup:
    mmnc_i_free(ro);
    mmnc_i_free(co);
    mmnc_i_free(rn);
    mmnc_i_free(cn);
    return status;
}

static int cmp_int(const void *a, const void *b)
{
    mmnc_int x = *(const mmnc_int *)a, y = *(const mmnc_int *)b;
    return (x > y) - (x < y);
}

/* A matrix with far more columns than entries (a libsvm file whose one
 * feature index is 10^9): renumber its columns to the ones that occur, in
 * order, before any per-column array is made, so that memory follows the
 * entries, not the claimed width.  col_orig keeps the original indices (the
 * ids in outputs are unchanged); the columns left out are empty, so they
 * count as dropped.  Only without column names (names already cost a slot
 * per column).  O(nnz log nnz) time, O(nnz) memory. */
static int compact_cols(mmnc_data *d, mmnc_int *dropped, mmnc_err *err)
{
    mmnc_csr *A = d->A;
    mmnc_int *u = NULL, *co = NULL, nu = 0;
    int status = MMNC_OK;
    *dropped = 0;
    if (d->col_names || A->ncols <= 8 * (A->nnz + 1024)) return MMNC_OK;
    MMNC_ALLOC(u, A->nnz ? A->nnz : 1, err, status);
    memcpy(u, A->colind, (size_t)A->nnz * sizeof(mmnc_int));
    qsort(u, (size_t)A->nnz, sizeof(mmnc_int), cmp_int);
    for (mmnc_int p = 0; p < A->nnz; p++)
        if (nu == 0 || u[p] != u[nu - 1]) u[nu++] = u[p];
    MMNC_ALLOC(co, nu ? nu : 1, err, status);
    /* nothing can fail from here on */
    for (mmnc_int j = 0; j < nu; j++) co[j] = d->col_orig ? d->col_orig[u[j]] : u[j];
    for (mmnc_int p = 0; p < A->nnz; p++) {
        mmnc_int *hit = bsearch(&A->colind[p], u, (size_t)nu, sizeof(mmnc_int), cmp_int);
        A->colind[p] = hit - u;
    }
    *dropped = A->ncols - nu;
    A->ncols = nu;
    mmnc_i_free(d->col_orig);
    d->col_orig = co;
    co = NULL;
cleanup:
    mmnc_i_free(u);
    mmnc_i_free(co);
    return status;
}

/*
 * The rounds run on masks over the original matrix: a row is alive while
 * the sum of its entries in alive columns is nonzero, and likewise for
 * columns; when no more rows or columns die, one rebuild keeps the alive
 * ones.  So a failure leaves d unchanged, and only one copy is made.
 */
static int drop_empty(mmnc_data *d, const mmnc_dist *dist, mmnc_int *rows_dropped, mmnc_int *cols_dropped,
                      mmnc_err *err)
{
    int status;
    mmnc_int *newrow = NULL, *newcol = NULL, i, j, p, nr, nc, compacted = 0;
    double *rs = NULL, *cs = NULL;
    const mmnc_csr *A;

    if (rows_dropped) *rows_dropped = 0;
    if (cols_dropped) *cols_dropped = 0;
    if ((status = check_data(d, "mmnc_data_drop_empty", err)) != MMNC_OK) return status;
    if (!dist) { /* distributed: every rank must keep the same columns */
        if ((status = compact_cols(d, &compacted, err)) != MMNC_OK) return status;
    }
    A = d->A;
    MMNC_ALLOC(rs, A->nrows, err, status);
    MMNC_ALLOC(cs, A->ncols, err, status);
    MMNC_ALLOC(newrow, A->nrows, err, status);
    MMNC_ALLOC(newcol, A->ncols, err, status);
    for (i = 0; i < A->nrows; i++) newrow[i] = 0; /* 0 alive, -1 dropped */
    for (j = 0; j < A->ncols; j++) newcol[j] = 0;
    nr = A->nrows;
    nc = A->ncols;
    if (dist) {
        int64_t t = nr;
        dist->isum(dist, &t, 1);
        nr = t;
    }
    for (;;) {
        mmnc_int nr2 = 0, nc2 = 0;
        int64_t neg = 0;
        memset(rs, 0, (size_t)A->nrows * sizeof(double));
        memset(cs, 0, (size_t)A->ncols * sizeof(double));
        for (i = 0; i < A->nrows; i++) {
            if (newrow[i] < 0) continue;
            for (p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
                mmnc_int c = A->colind[p];
                if (newcol[c] < 0) continue;
                rs[i] += A->val[p];
                cs[c] += A->val[p];
                neg += A->val[p] < 0;
            }
        }
        if (dist) dist->isum(dist, &neg, 1);
        if (dist) dist->sum(dist, cs, A->ncols); /* zero iff zero on every rank, in any order */
        for (i = 0; i < A->nrows; i++) {
            if (newrow[i] >= 0 && rs[i] == 0) newrow[i] = -1;
            nr2 += newrow[i] >= 0;
        }
        if (dist) { /* the loop and its verdict are global */
            int64_t t = nr2;
            dist->isum(dist, &t, 1);
            nr2 = t;
        }
        for (j = 0; j < A->ncols; j++) {
            if (newcol[j] >= 0 && cs[j] == 0) newcol[j] = -1;
            nc2 += newcol[j] >= 0;
        }
        if (nr2 == 0 || nc2 == 0) {
            status = mmnc_i_err(err, MMNC_EINVAL,
                                "nothing is left after dropping the empty rows and columns "
                                "of the %lld x %lld matrix",
                                (long long)A->nrows, (long long)A->ncols);
            goto cleanup;
        }
        if (nr2 == nr && nc2 == nc) break;
        nr = nr2;
        nc = nc2;
        if (neg == 0) break; /* no negative value: what was dropped held zeros only, no sum changes */
    }
    {
        mmnc_int k = 0, m0 = A->nrows, n0 = A->ncols, lr; /* keep_subset compacts A in place */
        for (i = 0; i < m0; i++)
            if (newrow[i] >= 0) newrow[i] = k++;
        lr = k;
        for (j = 0, k = 0; j < n0; j++)
            if (newcol[j] >= 0) newcol[j] = k++;
        if ((lr < m0 || nc < n0) && (status = keep_subset(d, newrow, newcol, lr, nc, err)) != MMNC_OK)
            goto cleanup;
        if (rows_dropped) *rows_dropped = m0 - lr;
        if (cols_dropped) *cols_dropped = n0 - nc + compacted;
        if (dist && rows_dropped) {
            int64_t t = *rows_dropped;
            dist->isum(dist, &t, 1);
            *rows_dropped = t;
        }
    }

cleanup:
    mmnc_i_free(rs);
    mmnc_i_free(cs);
    mmnc_i_free(newrow);
    mmnc_i_free(newcol);
    return status;
}

int mmnc_data_drop_empty(mmnc_data *d, mmnc_int *rows_dropped, mmnc_int *cols_dropped, mmnc_err *err)
{
    return drop_empty(d, NULL, rows_dropped, cols_dropped, err);
}

int mmnc_data_drop_empty_dist(mmnc_data *d, const mmnc_dist *dist, mmnc_int *rows_dropped,
                              mmnc_int *cols_dropped, mmnc_err *err)
{
    return drop_empty(d, dist, rows_dropped, cols_dropped, err);
}

int mmnc_i_data_keep_rows(mmnc_data *d, mmnc_int a, mmnc_int b, mmnc_err *err)
{
    mmnc_int *newrow = NULL, *newcol = NULL, m = d->A->nrows, n = d->A->ncols;
    int status = MMNC_OK;
    MMNC_ALLOC(newrow, m ? m : 1, err, status);
    MMNC_ALLOC(newcol, n ? n : 1, err, status);
    for (mmnc_int i = 0; i < m; i++) newrow[i] = i >= a && i < b ? i - a : -1;
    for (mmnc_int j = 0; j < n; j++) newcol[j] = j;
    status = keep_subset(d, newrow, newcol, b - a, n, err);
cleanup:
    mmnc_i_free(newrow);
    mmnc_i_free(newcol);
    return status;
}
