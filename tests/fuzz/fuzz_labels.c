/*
 * fuzz_labels.c -- libFuzzer harness of the label file readers
 * (mmnc_labels_read): plain labels, "id label" pairs, libsvm labels; the
 * first byte picks reading alone or against a data set of 3 rows whose ids
 * are 1..3 (the matching of ids to rows).  With that data set the same
 * file is also read as the given clusters of semi-supervision
 * (mmnc_fixed_labels_read, k = 1 + data[0] / 2 % 4): every entry -1 or a
 * cluster below k, some row free, some labelled.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const mmnc_int ri[3] = {0, 1, 2}, ci[3] = {0, 1, 0};
    static const double v[3] = {1, 2, 3};
    char path[64];
    mmnc_data ds = {0};
    mmnc_int n = 0, *lab = NULL, nc = 0, *fx = NULL, nfx = 0, k = 1 + (size ? data[0] / 2 % 4 : 0);
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
        if (ds.A && mmnc_fixed_labels_read(path, &ds, k, &fx, &nfx, NULL, &e) == MMNC_OK) {
            mmnc_int held = 0;
            for (mmnc_int i = 0; i < 3; i++) {
                if (fx[i] < -1 || fx[i] >= k) abort();
                held += fx[i] >= 0;
            }
            if (held != nfx || held == 0 || held == 3) abort();
        }
        close(fd);
    }
    mmnc_free(lab);
    mmnc_free(fx);
    mmnc_csr_free(ds.A);
    return 0;
}
