/*
 * fuzz_triplets.c -- libFuzzer harness of the triplet text reader (mmnc_data_read with
 * format MMNC_FMT_TRIPLET; the first byte picks the delimiter and fields).  A matrix read must pass mmnc_csr_check.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    mmnc_read_opts o;
    mmnc_data *d = NULL;
    mmnc_err e = {0, ""};
    int fd;
    uint8_t sel = size ? data[0] : 0;

    if (size == 0) return 0;
    mmnc_read_opts_default(&o);
    o.format = MMNC_FMT_TRIPLET;
    {
        static const char delims[4] = {0, ',', '\t', ';'};
        o.delim = delims[sel & 3];
        o.row_field = 1 + ((sel >> 2) & 1);
        o.col_field = 3 - o.row_field;
        o.value_field = (sel >> 3) & 1 ? 0 : 3 + ((sel >> 4) & 1);
    }
    if ((fd = fuzz_file(data + 1, size - 1, path)) < 0) return 0;
    if (mmnc_data_read(path, &o, &d, &e) == MMNC_OK && mmnc_csr_check(d->A, &e) != MMNC_OK) {
        fprintf(stderr, "fuzz_triplets: read an invalid matrix: %s\n", e.msg);
        abort();
    }
    mmnc_data_free(d);
    close(fd);
    return 0;
}
