/*
 * mat.c -- MATLAB .mat input through libmatio (the only file that uses
 * matio).  Level-5 files (v6, v7 compressed) are read by any matio build;
 * v7.3 (HDF5) needs a matio built with HDF5.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/io_i.h"

int mmnc_i_mat_sniff(const char *path)
{
    char head[6];
    struct stat st;
    FILE *fp;
    int yes;
    /* only a regular file: reading a pipe here would lose its start */
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || !(fp = fopen(path, "rb"))) return 0;
    yes = fread(head, 1, 6, fp) == 6 && memcmp(head, "MATLAB", 6) == 0;
    fclose(fp);
    return yes;
}


#ifndef MMNC_HAVE_MATIO

int mmnc_i_mat_read(const char *path, const char *var, mmnc_data **out, mmnc_err *err)
{
    (void)var;
    if (out) *out = NULL;
    return mmnc_i_err(err, MMNC_EUNSUP, "%s: cannot read a MAT file: this build has no libmatio",
                      path ? path : "(null)");
}

int mmnc_i_mat_read_vector(const char *path, const char *var, mmnc_int *n, double **out,
                           mmnc_err *err)
{
    (void)var;
    if (n) *n = 0;
    if (out) *out = NULL;
    return mmnc_i_err(err, MMNC_EUNSUP, "%s: cannot read a MAT file: this build has no libmatio",
                      path ? path : "(null)");
}

#else

#include <matio.h>

/* matio reports problems through a log hook that prints by default; the
 * library must not print, so keep the last message for our error text. */
static _Thread_local char mat_lastmsg[256];

/* matio's log hook: keeps the message instead of printing it. */
static void mat_log(int level, char *message)
{
    (void)level;
    snprintf(mat_lastmsg, sizeof mat_lastmsg, "%s", message ? message : "");
}

/* Open path with matio, reading its messages through mat_log.  The file is
 * opened with fopen first, so that a missing or unreadable file gets
 * strerror's message (MMNC_EIO) rather than matio's. */
static int mat_open(const char *path, mat_t **mat, mmnc_err *err)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        int e = errno;
        return mmnc_i_err(err, MMNC_EIO, "%s: cannot open: %s", path, strerror(e));
    }
    fclose(fp);
    mat_lastmsg[0] = '\0';
    Mat_LogInitFunc("mmnc", mat_log);
    *mat = Mat_Open(path, MAT_ACC_RDONLY);
    if (!*mat)
        return mmnc_i_err(err, MMNC_EFORMAT, "%s: not a readable MAT file%s%s", path,
                          mat_lastmsg[0] ? ": " : "", mat_lastmsg);
    return MMNC_OK;
}

/* Read `var`, or fail with the list of the file's variables. */
static matvar_t *mat_var(mat_t *mat, const char *path, const char *var, mmnc_err *err)
{
    matvar_t *v;
    char list[600];
    size_t n = 0, i, len = 0;
    char **dir;

    mat_lastmsg[0] = '\0';
    v = Mat_VarRead(mat, var);
    if (v) return v;
    list[0] = '\0';
    Mat_Rewind(mat);
    dir = Mat_GetDir(mat, &n); /* owned by mat */
    for (i = 0; dir && i < n && len + 4 < sizeof list; i++) {
        int k = snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                         dir[i] ? dir[i] : "?");
        if (k < 0) break;
        len += (size_t)k;
        if (len >= sizeof list) len = sizeof list - 1;
    }
    mmnc_i_err(err, MMNC_EFORMAT, "%s: no readable variable '%s' (the file has: %s)", path, var,
               n ? list : "no variables");
    return NULL;
}

/* Element k of a numeric array of class t, as a double (NAN for other classes). */
static double mat_value(const void *data, enum matio_types t, size_t k)
{
    switch (t) {
    case MAT_T_DOUBLE: return ((const double *)data)[k];
    case MAT_T_SINGLE: return ((const float *)data)[k];
    case MAT_T_INT8: return ((const int8_t *)data)[k];
    case MAT_T_UINT8: return ((const uint8_t *)data)[k];
    case MAT_T_INT16: return ((const int16_t *)data)[k];
    case MAT_T_UINT16: return ((const uint16_t *)data)[k];
    case MAT_T_INT32: return ((const int32_t *)data)[k];
    case MAT_T_UINT32: return ((const uint32_t *)data)[k];
    case MAT_T_INT64: return (double)((const int64_t *)data)[k];
    case MAT_T_UINT64: return (double)((const uint64_t *)data)[k];
    default: return NAN;
    }
}

/* 1 for the numeric classes mat_value can read. */
static int mat_type_ok(enum matio_types t)
{
    switch (t) {
    case MAT_T_DOUBLE: case MAT_T_SINGLE: case MAT_T_INT8: case MAT_T_UINT8:
    case MAT_T_INT16: case MAT_T_UINT16: case MAT_T_INT32: case MAT_T_UINT32:
    case MAT_T_INT64: case MAT_T_UINT64: return 1;
    default: return 0;
    }
}

/* MMNC_EFORMAT, naming the variable and the 1-based (i, j), for a value that
 * is not finite, negative, or nonzero and below DBL_MIN: a subnormal number,
 * which the text readers refuse too (mmnc_i_check_value) and which would
 * reach the pmf with reduced precision, or as 0 once divided by the total. */
static int check_value(double x, const char *path, const char *var, size_t i, size_t j,
                       mmnc_err *err)
{
    if (!isfinite(x))
        return mmnc_i_err(err, MMNC_EFORMAT, "%s: variable '%s': value at (%zu, %zu) is not finite",
                          path, var, i + 1, j + 1);
    if (x < 0)
        return mmnc_i_err(err, MMNC_EFORMAT, "%s: variable '%s': negative value %g at (%zu, %zu)",
                          path, var, x, i + 1, j + 1);
    if (x > 0 && x < DBL_MIN)
        return mmnc_i_err(err, MMNC_EFORMAT, "%s: variable '%s': value %g at (%zu, %zu) is below DBL_MIN = "
                          "%.17g, the smallest nonzero magnitude read (a subnormal number)",
                          path, var, x, i + 1, j + 1, DBL_MIN);
    return MMNC_OK;
}

int mmnc_i_mat_read(const char *path, const char *var, mmnc_data **out, mmnc_err *err)
{
    int status = MMNC_OK;
    mat_t *mat = NULL;
    matvar_t *mv = NULL;
    mmnc_data *d = NULL;
    mmnc_int *ri = NULL, *ci = NULL, nnz = 0;
    double *vv = NULL;
    size_t nrows, ncols, i, j, k;

    if (!out) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_data_read: out is NULL");
    *out = NULL;
    if (!path) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_data_read: path is NULL");
    if (!var || !*var) var = MMNC_DEFAULT_MAT_VAR;

    if ((status = mat_open(path, &mat, err)) != MMNC_OK) goto cleanup;
    if (!(mv = mat_var(mat, path, var, err))) {
        status = MMNC_EFORMAT;
        goto cleanup;
    }
    if (mv->rank != 2) {
        status = mmnc_i_err(err, MMNC_EFORMAT, "%s: variable '%s' has %d dimensions, expected 2",
                            path, var, mv->rank);
        goto cleanup;
    }
    if (mv->isComplex) {
        status = mmnc_i_err(err, MMNC_EFORMAT, "%s: variable '%s' is complex, expected real",
                            path, var);
        goto cleanup;
    }
    nrows = mv->dims[0];
    ncols = mv->dims[1];
    if (nrows > (size_t)INT64_MAX / 2 || ncols > (size_t)INT64_MAX / 2) {
        status = mmnc_i_err(err, MMNC_EFORMAT, "%s: variable '%s' is too large", path, var);
        goto cleanup;
    }

    if (mv->class_type == MAT_C_SPARSE) {
        mat_sparse_t *sp = mv->data;
        if (!sp || !sp->jc || sp->njc < ncols + 1 || !mat_type_ok(mv->data_type)) {
            status = mmnc_i_err(err, MMNC_EFORMAT, "%s: variable '%s': unreadable sparse data",
                                path, var);
            goto cleanup;
        }
        nnz = sp->jc[ncols];
        if ((size_t)nnz > sp->nir || (size_t)nnz > sp->ndata || (nnz && (!sp->ir || !sp->data))) {
            status = mmnc_i_err(err, MMNC_EFORMAT,
                                "%s: variable '%s': sparse column pointers exceed the data", path,
                                var);
            goto cleanup;
        }
        MMNC_ALLOC(ri, nnz, err, status);
        MMNC_ALLOC(ci, nnz, err, status);
        MMNC_ALLOC(vv, nnz, err, status);
        for (j = 0; j < ncols; j++) {
            if (sp->jc[j] > sp->jc[j + 1]) {
                status = mmnc_i_err(err, MMNC_EFORMAT,
                                    "%s: variable '%s': sparse column pointers not monotone at "
                                    "column %zu", path, var, j + 1);
                goto cleanup;
            }
            for (k = sp->jc[j]; k < sp->jc[j + 1]; k++) {
                double x = mat_value(sp->data, mv->data_type, k);
                if (sp->ir[k] >= nrows) {
                    status = mmnc_i_err(err, MMNC_EFORMAT,
                                        "%s: variable '%s': row index %u out of range in "
                                        "column %zu",
                                        path, var, (unsigned)sp->ir[k] + 1, j + 1);
                    goto cleanup;
                }
                if ((status = check_value(x, path, var, sp->ir[k], j, err)) != MMNC_OK)
                    goto cleanup;
                ri[k] = sp->ir[k];
                ci[k] = (mmnc_int)j;
                vv[k] = x;
            }
        }
    } else if (mat_type_ok(mv->data_type) && mv->data) {
        /* dense, column-major: keep the nonzeros */
        size_t total = nrows * ncols, cnt = 0;
        for (k = 0; k < total; k++) cnt += mat_value(mv->data, mv->data_type, k) != 0;
        MMNC_ALLOC(ri, cnt, err, status);
        MMNC_ALLOC(ci, cnt, err, status);
        MMNC_ALLOC(vv, cnt, err, status);
        for (j = 0, k = 0; j < ncols; j++) {
            for (i = 0; i < nrows; i++, k++) {
                double x = mat_value(mv->data, mv->data_type, k);
                if (x == 0) continue;
                if ((status = check_value(x, path, var, i, j, err)) != MMNC_OK) goto cleanup;
                ri[nnz] = (mmnc_int)i;
                ci[nnz] = (mmnc_int)j;
                vv[nnz++] = x;
            }
        }
    } else {
        status = mmnc_i_err(err, MMNC_EFORMAT,
                            "%s: variable '%s' is not a numeric matrix (sparse or dense)", path,
                            var);
        goto cleanup;
    }

    MMNC_CALLOC(d, 1, err, status);
    d->orig_rows = (mmnc_int)nrows;
    d->orig_cols = (mmnc_int)ncols;
    if ((status = mmnc_csr_from_triplets((mmnc_int)nrows, (mmnc_int)ncols, nnz, ri, ci, vv, &d->A,
                                         err)) != MMNC_OK)
        goto cleanup;
    *out = d;
    d = NULL;

cleanup:
    mmnc_data_free(d);
    mmnc_i_free(ri);
    mmnc_i_free(ci);
    mmnc_i_free(vv);
    if (mv) Mat_VarFree(mv);
    if (mat) Mat_Close(mat);
    return status;
}

int mmnc_i_mat_read_vector(const char *path, const char *var, mmnc_int *n, double **out,
                           mmnc_err *err)
{
    int status = MMNC_OK;
    mat_t *mat = NULL;
    matvar_t *mv = NULL;
    double *x = NULL;
    size_t len, k;

    if (!n || !out) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_labels_read: NULL output");
    *n = 0;
    *out = NULL;
    if (!var || !*var) var = MMNC_DEFAULT_LABELS_VAR;
    if ((status = mat_open(path, &mat, err)) != MMNC_OK) goto cleanup;
    if (!(mv = mat_var(mat, path, var, err))) {
        status = MMNC_EFORMAT;
        goto cleanup;
    }
    if (mv->rank != 2 || (mv->dims[0] != 1 && mv->dims[1] != 1) || mv->isComplex ||
        mv->class_type == MAT_C_SPARSE || !mat_type_ok(mv->data_type) || !mv->data) {
        status = mmnc_i_err(err, MMNC_EFORMAT,
                            "%s: variable '%s' is not a dense real vector (n x 1 or 1 x n)", path,
                            var);
        goto cleanup;
    }
    len = mv->dims[0] * mv->dims[1];
    MMNC_ALLOC(x, len, err, status);
    for (k = 0; k < len; k++) {
        x[k] = mat_value(mv->data, mv->data_type, k);
        if (!isfinite(x[k])) {
            status = mmnc_i_err(err, MMNC_EFORMAT, "%s: variable '%s': entry %zu is not finite",
                                path, var, k + 1);
            goto cleanup;
        }
    }
    *n = (mmnc_int)len;
    *out = x;
    x = NULL;

cleanup:
    mmnc_i_free(x);
    if (mv) Mat_VarFree(mv);
    if (mat) Mat_Close(mat);
    return status;
}

#endif /* MMNC_HAVE_MATIO */
