/*
 * read_part.c -- the distributed reading: the rows of one part of a data
 * file, balanced by nonzeros (mmnc_data_read_part).  A binary file is read
 * in place (binfmt.c); any other is read whole and cut.
 *
 * Before their first collective the ranks agree on what they read
 * (mmnc_i_agree_input): a rank that cannot read the file, or reads another
 * file under the same name (a node's own disk, a copy being replaced),
 * ends the read on every rank with an error instead of a hang in a
 * collective or a clustering of rows from two different files.
 */
#include <string.h>
#include <sys/stat.h>

#include "io/io_i.h"

/* rowptr[i] of the row pointer ctx, for mmnc_i_part_rows. */
static mmnc_int rowptr_of(void *ctx, mmnc_int i)
{
    return ((const mmnc_int *)ctx)[i];
}

/* XXH64 of n ids or names (absent: nothing), chained from h. */
static uint64_t sum_ids(const mmnc_int *ids, char *const *names, mmnc_int n, uint64_t h)
{
    if (ids) h = mmnc_i_xxh64(ids, (size_t)n * sizeof *ids, h);
    for (mmnc_int i = 0; names && i < n; i++)
        h = names[i] ? mmnc_i_xxh64(names[i], strlen(names[i]) + 1, h) : mmnc_i_xxh64("", 0, h + 1);
    return h;
}

/* The record of a whole data set read from path: its shape and a checksum
 * of everything the outputs depend on (entries, ids, names), one pass over
 * memory at several GB/s, small beside the parsing that made it. */
static mmnc_i_input data_input(const mmnc_data *d, const char *path)
{
    const mmnc_csr *A = d->A;
    mmnc_i_input in = {2, -1, A->nrows, A->ncols, A->nnz, 0};
    mmnc_int shape[2] = {d->orig_rows, d->orig_cols};
    struct stat st;
    uint64_t h;
    if (stat(path, &st) == 0) in.bytes = (int64_t)st.st_size;
    h = mmnc_i_xxh64(shape, sizeof shape, 0);
    h = mmnc_i_xxh64(A->rowptr, (size_t)(A->nrows + 1) * sizeof *A->rowptr, h);
    h = mmnc_i_xxh64(A->colind, (size_t)A->nnz * sizeof *A->colind, h);
    h = mmnc_i_xxh64(A->val, (size_t)A->nnz * sizeof *A->val, h);
    h = sum_ids(d->row_orig, d->row_names, A->nrows, h);
    in.sum = sum_ids(d->col_orig, d->col_names, A->ncols, h);
    return in;
}

int mmnc_data_read_part(const char *path, const mmnc_read_opts *o, int part, int nparts,
                        const mmnc_dist *dist, mmnc_data **out, mmnc_int *y0, mmnc_err *err)
{
    mmnc_read_opts def;
    mmnc_data *d = NULL;
    mmnc_int first = 0, end = 0;
    int status, shared = dist && dist->size > 1;
    if (!path || !out || !y0) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_data_read_part: NULL argument");
    if (nparts < 1 || part < 0 || part >= nparts)
        return mmnc_i_err(err, MMNC_EINVAL, "mmnc_data_read_part: part %d of %d", part, nparts);
    *out = NULL;
    if (!o) mmnc_read_opts_default(&def), o = &def;
    if (o->format == MMNC_FMT_BIN || (o->format == MMNC_FMT_AUTO && mmnc_i_bin_sniff(path) == 1)) {
        /* agrees on the header before it verifies the checksums together */
        status = mmnc_i_bin_read_part(path, 0, part, nparts, dist, &d, &first, err);
    } else {
        mmnc_i_input in;
        memset(&in, 0, sizeof in);
        status = mmnc_data_read(path, o, &d, err);
        if (status == MMNC_OK && shared) in = data_input(d, path);
        /* the binary reader's agreement, at the same place in the sequence:
         * ranks that took different readers meet here and disagree */
        if ((status = mmnc_i_agree_input(dist, status, path, &in, err)) == MMNC_OK) {
            mmnc_i_part_rows(d->A->nrows, rowptr_of, d->A->rowptr, part, nparts, &first, &end);
            status = mmnc_i_data_keep_rows(d, first, end, err);
        }
    }
    /* this rank's own failures after the agreement on the input */
    if (shared) status = mmnc_i_agree(dist, status, err);
    if (status != MMNC_OK) {
        mmnc_data_free(d);
        return status;
    }
    *y0 = first;
    *out = d;
    return MMNC_OK;
}
