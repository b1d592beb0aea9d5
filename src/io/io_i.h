/*
 * io_i.h -- private interface between the readers of files (read.c,
 * labels.c), the MATLAB reader (mat.c), which is the only file that
 * touches libmatio, and the binary format (binfmt.c).
 */
#ifndef MMNC_IO_I_H
#define MMNC_IO_I_H

#include "core/mmnc_i.h"

/* Read variable `var` of the MAT file `path` (sparse, or dense numeric with
 * two dimensions) into a new data set with identity ids.  MMNC_EUNSUP in a
 * build without libmatio; MMNC_EFORMAT for a missing variable (the message
 * lists the variables in the file), a complex or non-numeric variable, NaN,
 * Inf or negative values.  A matrix without nonzeros is returned as is
 * (mmnc_data_read rejects it). */
int mmnc_i_mat_read(const char *path, const char *var, mmnc_data **out, mmnc_err *err);

/* 1 if the file starts with the MAT-file text header "MATLAB" (both
 * sniffs: 0 for anything but a regular file, which they leave unread). */
int mmnc_i_mat_sniff(const char *path);

/* Read the numeric vector (n x 1 or 1 x n, any real class) `var` of a MAT
 * file as doubles; *out (n entries) is released with mmnc_i_free. */
int mmnc_i_mat_read_vector(const char *path, const char *var, mmnc_int *n, double **out,
                           mmnc_err *err);

/* Binary matrix files (binfmt.c): 1 if the file starts with the binary
 * magic (or is a nonempty prefix of it, i.e. a truncated binary file). */
int mmnc_i_bin_sniff(const char *path);
/* The same test on the first n bytes of a file (mmnc_i_in_head). */
int mmnc_i_bin_magic(const unsigned char *head, size_t n);
/* Little-endian fields of the binary matrix and model files; the byte loops
 * compile to single loads and stores.  Both files are written and read on
 * little-endian hosts only (their arrays are copied as they lie). */
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define MMNC_I_HOST_LITTLE 0
#else
#define MMNC_I_HOST_LITTLE 1
#endif
static inline uint64_t mmnc_i_get64(const unsigned char *p)
{
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--) x = x << 8 | p[i];
    return x;
}
static inline uint32_t mmnc_i_get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline void mmnc_i_put64(unsigned char *p, uint64_t x)
{
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(x >> 8 * i);
}
static inline void mmnc_i_put32(unsigned char *p, uint32_t x)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(x >> 8 * i);
}

/* XXH64 of len bytes with the given seed (the checksum of binary files). */
uint64_t mmnc_i_xxh64(const void *data, size_t len, uint64_t seed);

/* mmnc_data_read with the reader's switches (mmnc_i_tuning: the Matrix
 * Market reader's block and piece sizes; tiny ones put lines across every
 * boundary); mmnc_data_read is this with MMNC_I_TUNING_DEFAULT. */
int mmnc_i_data_read(const char *path, const mmnc_read_opts *o, const mmnc_i_tuning *tune, mmnc_data **out,
                     mmnc_err *err);

#endif /* MMNC_IO_I_H */
