/*
 * fuzz_bin.c -- libFuzzer harness of the binary matrix reader
 * (mmnc_data_read_bin) with the section checksums off (MMNC_BIN_NO_VERIFY),
 * so that the fuzzer reaches the structure checks behind them.  An input of
 * a whole header or more gets the magic, its own size and a valid header
 * checksum written in: otherwise nearly every mutation would stop at the
 * header checksum.  The first byte picks mmap or pread.  A matrix read must
 * pass mmnc_csr_check.
 */
#include "fuzz_common.h"
#include "io/io_i.h" /* mmnc_i_xxh64 */

#define HEADER 384
#define H_FILE_BYTES 16
#define H_CHECKSUM 24


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t magic[8] = {0x89, 'M', 'M', 'N', 'C', '\r', '\n', 0x1a};
    char path[64];
    mmnc_data *d = NULL;
    mmnc_err e = {0, ""};
    uint8_t *buf;
    int fd, flags = MMNC_BIN_NO_VERIFY;

    if (size == 0) return 0;
    if (data[0] & 1) flags |= MMNC_BIN_NO_MMAP;
    data++;
    size--;
    if (!(buf = malloc(size ? size : 1))) return 0;
    memcpy(buf, data, size);
    if (size >= HEADER) {
        memcpy(buf, magic, 8);
        fuzz_put64(buf + H_FILE_BYTES, size);
        fuzz_put64(buf + H_CHECKSUM, 0);
        fuzz_put64(buf + H_CHECKSUM, mmnc_i_xxh64(buf, HEADER, 0));
    }
    fd = fuzz_file(buf, size, path);
    free(buf);
    if (fd < 0) return 0;
    if (mmnc_data_read_bin(path, flags, &d, &e) == MMNC_OK && mmnc_csr_check(d->A, &e) != MMNC_OK) {
        fprintf(stderr, "fuzz_bin: read an invalid matrix: %s\n", e.msg);
        abort();
    }
    mmnc_data_free(d);
    close(fd);
    return 0;
}
