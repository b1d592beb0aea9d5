/*
 * read_part.c -- the distributed reading: the rows of one part of a data
 * file, balanced by nonzeros (mmnc_data_read_part).  A binary file is read
 * in place (binfmt.c); any other is read whole and cut.
 */
#include "io/io_i.h"

/* rowptr[i] of the row pointer ctx, for mmnc_i_part_rows. */
static mmnc_int rowptr_of(void *ctx, mmnc_int i)
{
    return ((const mmnc_int *)ctx)[i];
}

int mmnc_data_read_part(const char *path, const mmnc_read_opts *o, int part, int nparts,
                        const mmnc_dist *dist, mmnc_data **out, mmnc_int *y0, mmnc_err *err)
{
    mmnc_read_opts def;
    mmnc_data *d = NULL;
    mmnc_int first = 0, end = 0;
    int status;
    if (!path || !out || !y0) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_data_read_part: NULL argument");
    if (nparts < 1 || part < 0 || part >= nparts)
        return mmnc_i_err(err, MMNC_EINVAL, "mmnc_data_read_part: part %d of %d", part, nparts);
    *out = NULL;
    if (!o) mmnc_read_opts_default(&def), o = &def;
    if (o->format == MMNC_FMT_BIN || (o->format == MMNC_FMT_AUTO && mmnc_i_bin_sniff(path) == 1))
        return mmnc_i_bin_read_part(path, 0, part, nparts, dist, out, y0, err);
    if ((status = mmnc_data_read(path, o, &d, err)) != MMNC_OK) return status;
    mmnc_i_part_rows(d->A->nrows, rowptr_of, d->A->rowptr, part, nparts, &first, &end);
    if ((status = mmnc_i_data_keep_rows(d, first, end, err)) != MMNC_OK) {
        mmnc_data_free(d);
        return status;
    }
    *y0 = first;
    *out = d;
    return MMNC_OK;
}
