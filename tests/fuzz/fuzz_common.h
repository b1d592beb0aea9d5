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

#endif
