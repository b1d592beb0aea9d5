/*
 * write.c -- a data set as Matrix Market text with its ids: the matrix
 * (mmnc_csr_write_mtx) and, beside it, the ids of the rows and columns in
 * side files named after it (mmnc_mtx_side_path).
 */
#include <string.h>

#include "core/mmnc_i.h"

/* 1 if s (length n) ends with suffix. */
static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int mmnc_mtx_side_path(const char *path, const char *ext, char **out, mmnc_err *err)
{
    size_t n, stem;
    if (!path || !ext || !out) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_mtx_side_path: NULL argument");
    n = stem = strlen(path);
    if (ends_with(path, n, ".mtx.gz")) stem = n - 7;
    else if (ends_with(path, n, ".mtx")) stem = n - 4;
    if (!(*out = mmnc_i_malloc(stem + strlen(ext) + 1, 1))) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    memcpy(*out, path, stem);
    strcpy(*out + stem, ext);
    return MMNC_OK;
}

/* The ids of the rows (cols = 0) or columns, one per line. */
static void write_ids(FILE *fp, const mmnc_data *d, int cols)
{
    mmnc_int n = cols ? d->A->ncols : d->A->nrows;
    char buf[32];
    for (mmnc_int i = 0; i < n; i++)
        fprintf(fp, "%s\n", cols ? mmnc_data_col_id(d, i, buf) : mmnc_data_row_id(d, i, buf));
}

/* The first name (1-based) holding a line break, which would shift every
 * later line of a side file; 0 if none. */
static mmnc_int broken_name(char *const *names, mmnc_int n)
{
    for (mmnc_int i = 0; names && i < n; i++)
        if (names[i] && strpbrk(names[i], "\n\r")) return i + 1;
    return 0;
}

int mmnc_data_write_mtx(const mmnc_data *d, const char *path, int *wrote_rows, int *wrote_cols, mmnc_err *err)
{
    int need[2], status = MMNC_OK;
    char *side[2] = {NULL, NULL};
    mmnc_outfile o[2] = {{0}, {0}};
    if (wrote_rows) *wrote_rows = 0;
    if (wrote_cols) *wrote_cols = 0;
    if (!d || !d->A || !path) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_data_write_mtx: NULL argument");
    need[0] = d->row_names || d->row_orig;
    need[1] = d->col_names || d->col_orig;
    for (int t = 0; t < 2; t++) {
        mmnc_int b = broken_name(t ? d->col_names : d->row_names, t ? d->A->ncols : d->A->nrows);
        if (b)
            return mmnc_i_err(err, MMNC_EINVAL, "%s: the name of %s %lld holds a line break: a side file has one "
                              "name a line", path, t ? "column" : "row", (long long)b);
    }
    /* the side files first, to temporary names: all files or none */
    for (int t = 0; t < 2; t++) {
        if (!need[t]) continue;
        if ((status = mmnc_mtx_side_path(path, t ? ".cols" : ".rows", &side[t], err)) != MMNC_OK ||
            (status = mmnc_outfile_open(&o[t], side[t], err)) != MMNC_OK)
            goto cleanup;
        write_ids(o[t].fp, d, t);
    }
    if ((status = mmnc_csr_write_mtx(d->A, path, err)) != MMNC_OK) goto cleanup;
    for (int t = 0; t < 2; t++) {
        if (!need[t]) continue;
        if ((status = mmnc_outfile_commit(&o[t], err)) != MMNC_OK) {
            remove(path);
            if (t == 1 && need[0]) remove(side[0]);
            goto cleanup;
        }
    }
    if (wrote_rows) *wrote_rows = need[0];
    if (wrote_cols) *wrote_cols = need[1];
cleanup:
    for (int t = 0; t < 2; t++) {
        mmnc_outfile_abort(&o[t]);
        mmnc_i_free(side[t]);
    }
    return status;
}
