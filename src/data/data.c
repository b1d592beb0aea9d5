/*
 * data.c -- the life of a data set (mmnc_data): release it, or only its
 * values, and name its rows and columns by their original ids.
 */
#include <stdio.h>
#include <string.h>

#include "core/mmnc_i.h"

void mmnc_data_drop_values(mmnc_data *d)
{
    if (!d || !d->A) return;
    mmnc_i_free(d->A->colind);
    mmnc_i_free(d->A->val);
    d->A->colind = NULL;
    d->A->val = NULL;
    d->A->nnz = 0;
    if (d->A->rowptr) memset(d->A->rowptr, 0, (size_t)(d->A->nrows + 1) * sizeof(mmnc_int));
}

void mmnc_data_free(mmnc_data *d)
{
    mmnc_int i;
    if (!d) return;
    if (d->row_names) {
        for (i = 0; d->A && i < d->A->nrows; i++) mmnc_i_free(d->row_names[i]);
        mmnc_i_free(d->row_names);
    }
    if (d->col_names) {
        for (i = 0; d->A && i < d->A->ncols; i++) mmnc_i_free(d->col_names[i]);
        mmnc_i_free(d->col_names);
    }
    mmnc_i_free(d->row_orig);
    mmnc_i_free(d->col_orig);
    mmnc_csr_free(d->A);
    mmnc_i_free(d);
}

const char *mmnc_data_row_id(const mmnc_data *d, mmnc_int i, char *buf)
{
    if (d->row_names && d->row_names[i]) return d->row_names[i];
    snprintf(buf, 32, "%lld", (long long)(d->row_orig ? d->row_orig[i] : i) + 1);
    return buf;
}

const char *mmnc_data_col_id(const mmnc_data *d, mmnc_int j, char *buf)
{
    if (d->col_names && d->col_names[j]) return d->col_names[j];
    snprintf(buf, 32, "%lld", (long long)(d->col_orig ? d->col_orig[j] : j) + 1);
    return buf;
}
