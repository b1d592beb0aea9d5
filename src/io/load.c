/*
 * load.c -- a data set ready for its pmf (mmnc_data_load): read whole, or
 * the rows of this rank's part (read_part.c), then transformed and without
 * empty rows and columns.
 */
#include <string.h>

#include "core/mmnc_i.h"

/* Prefix err's message with the path (for the steps whose messages do not
 * name the file); returns status. */
static int name_file(mmnc_err *err, int status, const char *path)
{
    char msg[MMNC_ERRMSG_SIZE];
    if (!err) return status;
    memcpy(msg, err->msg, sizeof msg);
    msg[sizeof msg - 1] = 0;
    return mmnc_i_err(err, status, "%s: %s", path, msg);
}

void mmnc_load_opts_default(mmnc_load_opts *o)
{
    memset(o, 0, sizeof *o);
    mmnc_read_opts_default(&o->read);
    o->map = MMNC_MAP_NONE;
    o->drop_empty = 1;
}

int mmnc_data_load(const char *path, const mmnc_load_opts *o, const mmnc_dist *dist, mmnc_data **out,
                   mmnc_int *rows_dropped, mmnc_int *cols_dropped, mmnc_err *err)
{
    mmnc_load_opts def;
    mmnc_data *d = NULL;
    mmnc_int y0 = 0, rd = 0, cd = 0;
    int status;
    if (!path || !out) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_data_load: NULL argument");
    *out = NULL;
    if (!o) mmnc_load_opts_default(&def), o = &def;
    if (dist && o->transpose)
        return mmnc_i_err(err, MMNC_EINVAL, "%s: cannot transpose a part of the rows: transpose the file first", path);
    if (dist) status = mmnc_data_read_part(path, &o->read, dist->rank, dist->size, dist, &d, &y0, err);
    else status = mmnc_data_read(path, &o->read, &d, err);
    /* A failed read already names the file; the steps below are named by it. */
    if (status == MMNC_OK &&
        ((o->transpose && (status = mmnc_data_transpose(d, err)) != MMNC_OK) ||
         (o->map != MMNC_MAP_NONE && (status = mmnc_data_map_values(d, o->map, err)) != MMNC_OK) ||
         (o->normalize_rows && (status = mmnc_data_normalize_rows(d, err)) != MMNC_OK)))
        name_file(err, status, path);
    /* every rank must reach the collective drop below, or none */
    if (dist && (status = mmnc_i_agree(dist, status, err)) != MMNC_OK) goto cleanup;
    if (status != MMNC_OK) goto cleanup;
    if (o->drop_empty) {
        status = dist ? mmnc_data_drop_empty_dist(d, dist, &rd, &cd, err) : mmnc_data_drop_empty(d, &rd, &cd, err);
        if (status != MMNC_OK) {
            name_file(err, status, path);
            goto cleanup;
        }
    }
    if (rows_dropped) *rows_dropped = rd;
    if (cols_dropped) *cols_dropped = cd;
    *out = d;
    d = NULL;
cleanup:
    mmnc_data_free(d);
    return status;
}
