/*
 * fuzz_libsvm.c -- libFuzzer harness of the libsvm reader (mmnc_data_read,
 * MMNC_FMT_LIBSVM); the first byte picks 0- or 1-based indices.  A matrix
 * read must pass mmnc_csr_check.
 */
#include "fuzz_common.h"

static void set_opts(mmnc_read_opts *o, uint8_t sel)
{
    o->format = MMNC_FMT_LIBSVM;
    o->libsvm_zero_based = sel & 1;
}

FUZZ_MATRIX_HARNESS("fuzz_libsvm", set_opts)
