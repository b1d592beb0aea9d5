/*
 * fuzz_docs.c -- libFuzzer harness of the document x term builder
 * (mmnc_docs_build) on one file (plain, gzip or xz), one document per file
 * or per line; the first byte picks --lines, the English stop words,
 * min_df / max_df (counts or fractions), max_vocab and drop_empty.  The
 * matrix must pass mmnc_csr_check, hold whole positive counts, name every
 * row and column, and its columns must be in order of decreasing count.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    const char *paths[1] = {path};
    mmnc_docs_opts o;
    mmnc_docs_info info;
    mmnc_data *d = NULL;
    mmnc_err e = {0, ""};
    uint8_t sel;
    int fd;

    if (size == 0) return 0;
    sel = data[0];
    fuzz_docs_opts(sel, &o);
    if ((fd = fuzz_file(data + 1, size - 1, path)) < 0) return 0;
    if (mmnc_docs_build(paths, 1, &o, &d, &info, &e) == MMNC_OK) {
        const mmnc_csr *A = d->A;
        double *colsum;
        if (mmnc_csr_check(A, &e) != MMNC_OK || !d->row_names || !d->col_names || A->ncols != info.terms ||
            A->nrows != (o.drop_empty ? info.docs - info.empty : info.docs) || A->ncols < 1)
            abort();
        if (!(colsum = calloc((size_t)A->ncols, sizeof *colsum))) abort();
        for (mmnc_int k = 0; k < A->nnz; k++) {
            if (A->val[k] < 1 || A->val[k] != (double)(int64_t)A->val[k]) abort();
            colsum[A->colind[k]] += A->val[k];
        }
        for (mmnc_int j = 0; j < A->ncols; j++) {
            if (!d->col_names[j] || !*d->col_names[j] || strlen(d->col_names[j]) > 255) abort();
            if (j > 0 && colsum[j] > colsum[j - 1]) abort(); /* decreasing count */
        }
        for (mmnc_int i = 0; i < A->nrows; i++)
            if (!d->row_names[i] || strncmp(d->row_names[i], path, strlen(path)) != 0) abort();
        free(colsum);
    }
    mmnc_data_free(d);
    close(fd);
    return 0;
}
