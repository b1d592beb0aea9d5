/*
 * fuzz_dense.c -- libFuzzer harness of the dense table reader
 * (mmnc_data_read, MMNC_FMT_DENSE) and of its detection (MMNC_FMT_AUTO);
 * the first byte picks the format, the separator and whether the header
 * line and the first column are forced, refused or detected.  A matrix read
 * must pass mmnc_csr_check, and its names must be strings.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char delims[4] = {0, ',', '\t', ';'};
    mmnc_read_opts o;
    mmnc_data *d = NULL;
    mmnc_err e = {0, ""};
    char path[64];
    uint8_t sel;
    int fd;

    if (size == 0) return 0;
    sel = data[0];
    mmnc_read_opts_default(&o);
    o.format = (sel & 1) ? MMNC_FMT_AUTO : MMNC_FMT_DENSE;
    if (o.format == MMNC_FMT_DENSE) o.delim = delims[(sel >> 1) & 3];
    o.dense_header = (int)((sel >> 3) % 3) - 1;
    o.dense_row_names = (int)((sel >> 5) % 3) - 1;
    if ((fd = fuzz_file(data + 1, size - 1, path)) < 0) return 0;
    if (mmnc_data_read(path, &o, &d, &e) == MMNC_OK) {
        if (mmnc_csr_check(d->A, &e) != MMNC_OK) {
            fprintf(stderr, "fuzz_dense: read an invalid matrix: %s\n", e.msg);
            abort();
        }
        for (mmnc_int i = 0; d->row_names && i < d->A->nrows; i++)
            if (!d->row_names[i] || !*d->row_names[i]) abort(); /* every row named, never "" */
        for (mmnc_int j = 0; d->col_names && j < d->A->ncols; j++)
            if (d->col_names[j]) (void)strlen(d->col_names[j]); /* ASan: a string or NULL */
    }
    mmnc_data_free(d);
    close(fd);
    return 0;
}
