/*
 * fuzz_mtx.c -- libFuzzer harness of the Matrix Market reader
 * (mmnc_data_read, MMNC_FMT_MTX); the first byte picks MTX or AUTO (format
 * detection, and whichever reader it picks).  A matrix read must pass
 * mmnc_csr_check.
 */
#include "fuzz_common.h"

static void set_opts(mmnc_read_opts *o, uint8_t sel)
{
    o->format = sel & 1 ? MMNC_FMT_AUTO : MMNC_FMT_MTX; /* AUTO: detection, and every reader it picks */
}

FUZZ_MATRIX_HARNESS("fuzz_mtx", set_opts)
