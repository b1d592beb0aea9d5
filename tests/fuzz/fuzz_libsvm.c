/*
 * fuzz_libsvm.c -- libFuzzer harness of the libsvm reader (mmnc_data_read with
 * format MMNC_FMT_LIBSVM; the first byte picks 0- or 1-based indices).  A matrix read must pass mmnc_csr_check.
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
    o.format = MMNC_FMT_LIBSVM;
    o.libsvm_zero_based = sel & 1;
    if ((fd = fuzz_file(data + 1, size - 1, path)) < 0) return 0;
    if (mmnc_data_read(path, &o, &d, &e) == MMNC_OK && mmnc_csr_check(d->A, &e) != MMNC_OK) {
        fprintf(stderr, "fuzz_libsvm: read an invalid matrix: %s\n", e.msg);
        abort();
    }
    mmnc_data_free(d);
    close(fd);
    return 0;
}
