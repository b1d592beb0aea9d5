/*
 * fuzz_labels.c -- libFuzzer harness of the label file reader
 * (mmnc_labels_read): plain labels, "id label" pairs, libsvm labels; the
 * first byte picks reading alone or against a data set of 3 rows whose ids
 * are 1..3 (the matching of ids to rows).
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const mmnc_int ri[3] = {0, 1, 2}, ci[3] = {0, 1, 0};
    static const double v[3] = {1, 2, 3};
    char path[64];
    mmnc_data ds = {0};
    mmnc_int n = 0, *lab = NULL, nc = 0;
    mmnc_err e = {0, ""};
    int fd;

    if (size == 0) return 0;
    if ((data[0] & 1) && mmnc_csr_from_triplets(3, 2, 3, ri, ci, v, &ds.A, &e) != MMNC_OK) abort();
    ds.orig_rows = 3;
    ds.orig_cols = 2;
    if ((fd = fuzz_file(data + 1, size - 1, path)) >= 0) {
        if (mmnc_labels_read(path, NULL, ds.A ? &ds : NULL, &n, &lab, &nc, &e) == MMNC_OK) {
            if (ds.A && n != 3) abort();
            for (mmnc_int i = 0; i < n; i++)
                if (lab[i] < 0 || lab[i] >= nc) abort();
        }
        close(fd);
    }
    mmnc_free(lab);
    mmnc_csr_free(ds.A);
    return 0;
}
