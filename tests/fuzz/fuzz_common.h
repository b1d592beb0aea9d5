/*
 * fuzz_common.h -- shared by the libFuzzer harnesses tests/fuzz/fuzz_*.c.
 *
 * The readers take a path, so each input is written to an anonymous
 * in-memory file (memfd) and read back through /proc/self/fd/N: no disk,
 * and mmap works as on a regular file (the binary reader maps it).
 *
 * Built two ways (CMakeLists.txt): with clang -fsanitize=fuzzer for
 * `make fuzz` (MMNC_FUZZ=ON), and with tests/fuzz/replay.c as main() for
 * the CTest tests fuzz_regress_NAME, which replay tests/fuzz/corpus/NAME
 * and tests/fuzz/regress/NAME (every crash found, kept) under any compiler.
 */
#ifndef MMNC_FUZZ_COMMON_H
#define MMNC_FUZZ_COMMON_H

#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mmnc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Little-endian fields, for the harnesses that reseal a header. */
static inline uint64_t fuzz_get64(const uint8_t *p)
{
    uint64_t x = 0;
    for (int k = 7; k >= 0; k--) x = x << 8 | p[k];
    return x;
}
static inline void fuzz_put64(uint8_t *p, uint64_t x)
{
    for (int k = 0; k < 8; k++) p[k] = (uint8_t)(x >> (8 * k));
}

/* A memfd holding data[0 .. size-1]; its path in path (64 bytes).  -1 on
 * failure (the input is then skipped: not a finding). */
static inline int fuzz_file(const uint8_t *data, size_t size, char *path)
{
    int fd = memfd_create("mmnc-fuzz", MFD_CLOEXEC);
    size_t off = 0;
    if (fd < 0) return -1;
    while (off < size) {
        ssize_t w = write(fd, data + off, size - off);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        off += (size_t)w;
    }
    snprintf(path, 64, "/proc/self/fd/%d", fd);
    return fd;
}

/* Read data[0 .. size-1] with mmnc_data_read and options o; a matrix read
 * must pass mmnc_csr_check (else abort: a finding).  The text-matrix
 * harnesses (fuzz_mtx, fuzz_triplets, fuzz_libsvm) differ only in o. */
static inline void fuzz_read_matrix(const uint8_t *data, size_t size, const mmnc_read_opts *o, const char *who)
{
    char path[64];
    mmnc_data *d = NULL;
    mmnc_err e = {0, ""};
    int fd = fuzz_file(data, size, path);
    if (fd < 0) return;
    if (mmnc_data_read(path, o, &d, &e) == MMNC_OK && mmnc_csr_check(d->A, &e) != MMNC_OK) {
        fprintf(stderr, "%s: read an invalid matrix: %s\n", who, e.msg);
        abort();
    }
    mmnc_data_free(d);
    close(fd);
}

/* The harness of a text-matrix reader: set_opts(o, first byte) picks the
 * format and options, the other bytes are the file. */
#define FUZZ_MATRIX_HARNESS(who, set_opts)                                       \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                 \
    {                                                                            \
        mmnc_read_opts o;                                                        \
        if (size == 0) return 0;                                                 \
        mmnc_read_opts_default(&o);                                              \
        set_opts(&o, data[0]);                                                   \
        fuzz_read_matrix(data + 1, size - 1, &o, who);                           \
        return 0;                                                                \
    }

/* The options of mmnc_docs_build that a fuzz input's selector byte picks:
 * one document per line, English stop words, min_df, max_df, max_vocab,
 * drop_empty and min_count, each from its bits. */
static inline void fuzz_docs_opts(uint8_t sel, mmnc_docs_opts *o)
{
    mmnc_docs_opts_default(o);
    o->lines = sel & 1;
    o->stop_words = (sel & 2) ? mmnc_stop_words_english() : NULL;
    o->min_df = (sel & 4) ? 2 : ((sel & 8) ? 0.3 : 1);
    o->max_df = (sel & 16) ? 0.8 : 1;
    o->max_vocab = (sel & 32) ? 5 : 0;
    o->drop_empty = (sel >> 6) & 1;
    o->min_count = 1 + (sel >> 7);
}

#endif
