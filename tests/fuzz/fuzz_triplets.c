/*
 * fuzz_triplets.c -- libFuzzer harness of the triplet text reader
 * (mmnc_data_read, MMNC_FMT_TRIPLET); the first byte picks the delimiter,
 * the key fields and the value field.  A matrix read must pass
 * mmnc_csr_check.
 */
#include "fuzz_common.h"

static void set_opts(mmnc_read_opts *o, uint8_t sel)
{
    static const char delims[4] = {0, ',', '\t', ';'};
    o->format = MMNC_FMT_TRIPLET;
    o->delim = delims[sel & 3];
    o->row_field = 1 + ((sel >> 2) & 1);
    o->col_field = 3 - o->row_field;
    o->value_field = (sel >> 3) & 1 ? 0 : 3 + ((sel >> 4) & 1);
}

FUZZ_MATRIX_HARNESS("fuzz_triplets", set_opts)
