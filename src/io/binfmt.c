/*
 * binfmt.c -- mmnc's binary matrix files (docs/binary-format.md): a
 * versioned, checksummed, little-endian layout whose arrays start at 64-byte
 * boundaries, written atomically and read through mmap at memory speed.
 *
 * File: a 384-byte header (magic, version, sizes, types, a table of 8
 * sections, the header's own checksum), then the sections in table order,
 * each at a multiple of 64 bytes, zero padding between them.
 *
 * Checksums: XXH64 with seed 0 (Yann Collet's xxHash, 64-bit variant),
 * written here from its specification so that there is no dependency;
 * `xxhsum -H1` of a block gives the same digest.  A section's checksum is
 * the XXH64 of the little-endian XXH64 digests of its consecutive blocks of
 * 2^block_log2 bytes (the last one shorter; no blocks for an empty
 * section).  The blocks are independent, so the reader hashes, checks and
 * widens them in parallel, and the result cannot depend on the number of
 * threads.  XXH64 runs at several GB/s per core, well above what copying the
 * arrays out of the page cache costs.
 *
 * Reading makes one pass over each section: per block, hash the bytes where
 * they lie (in the map, or in a per-thread buffer filled by pread when the
 * file cannot be mapped), copy or widen them into the result and check them
 * (rowptr range and order, columns in range and increasing within the
 * block's rows, values finite, >= 0 and not subnormal).  Conditions that span two blocks
 * are checked afterwards; an error found in any block is described by a
 * serial scan, which reports the first offending entry.
 */
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "io/io_i.h"
#include "io/lines_i.h"

#define BIN_VERSION 1
#define BIN_HEADER 384 /* bytes, a multiple of BIN_ALIGN */
#define BIN_ALIGN 64
#define BIN_NSEC 8     /* slots in the section table (the last one unused in version 1) */
#define BIN_BLOCK_LOG2 20 /* checksum block written: 1 MB */
#define BIN_BLOCK_MIN 12
#define BIN_BLOCK_MAX 30
#ifndef MAP_POPULATE
#define MAP_POPULATE 0 /* Linux: fault the pages in up front, in the kernel */
#endif
#if defined(__linux__) && !defined(MADV_POPULATE_WRITE)
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older kernels answer EINVAL, harmlessly */
#endif

static const unsigned char MAGIC[8] = {0x89, 'M', 'M', 'N', 'C', '\r', '\n', 0x1a};

/* Sections, in file order. */
enum { SEC_ROWPTR, SEC_COLIND, SEC_VALUES, SEC_ROW_ORIG, SEC_COL_ORIG, SEC_ROW_NAMES,
       SEC_COL_NAMES, SEC_USED };
static const char *const SEC_NAME[SEC_USED] = {"rowptr", "column index", "value", "row_orig",
                                               "col_orig", "row name", "column name"};

/* Header fields: byte offsets. */
enum { H_VERSION = 8, H_HEADER_BYTES = 12, H_FILE_BYTES = 16, H_CHECKSUM = 24, H_FLAGS = 32,
       H_INDEX_BYTES = 36, H_VALUE_TYPE = 40, H_BLOCK_LOG2 = 44, H_NROWS = 48, H_NCOLS = 56,
       H_NNZ = 64, H_ORIG_ROWS = 72, H_ORIG_COLS = 80, H_TABLE = 128, H_SLOT = 32 };
enum { VT_F64 = 1, VT_F32 = 2 };

/* The values a binary matrix holds, as the text readers take them: finite,
 * >= 0, and 0 or at least DBL_MIN (a subnormal number is refused by every
 * reader: it would reach the pmf with reduced precision, or as 0). */
static inline int value_ok(double v) { return v == 0 || (v >= DBL_MIN && v <= DBL_MAX); }

/* The message for a value that fails value_ok, at 0-based (i, j) of path. */
static int value_err(const char *path, double v, mmnc_int i, mmnc_int j, int code, mmnc_err *err)
{
    if (v > 0 && v < DBL_MIN)
        return mmnc_i_err(err, code, "%s: value %g at row %lld, column %lld is below DBL_MIN = %.17g, the "
                          "smallest nonzero magnitude read (a subnormal number; 1-based)", path, v,
                          (long long)i + 1, (long long)j + 1, DBL_MIN);
    return mmnc_i_err(err, code, "%s: invalid value %g at row %lld, column %lld (values must be finite and >= 0; "
                      "1-based)", path, v, (long long)i + 1, (long long)j + 1);
}

/* An original index and its row, ordered by index, then row. */
typedef struct orig_at {
    mmnc_int v, i;
} orig_at;

static int orig_at_cmp(const void *a, const void *b)
{
    const orig_at *x = a, *y = b;
    return x->v != y->v ? (x->v > y->v) - (x->v < y->v) : (x->i > y->i) - (x->i < y->i);
}

/* first_repeat's key of original index v: v itself, or with a shift the
 * top 64 - shift bits of its Fibonacci hash. */
static inline uint64_t orig_key(mmnc_int v, unsigned shift)
{
    return shift ? ((uint64_t)v * 0x9E3779B97F4A7C15ULL) >> shift : (uint64_t)v;
}

/* The first repeat among n original indices o[i], each in 0 .. lim - 1:
 * *rep = the least i whose o[i] is an earlier o[*at] (the first of them),
 * or -1 when they are distinct.  One pass over two bitmaps of keys (seen,
 * seen twice): the index itself when lim <= 32 n, else a multiplicative
 * hash of it into 16 n to 32 n bits.  A key seen twice makes its rows
 * candidates, whose (index, row) pairs are sorted to find the repeat: none
 * when the indices are distinct and dense, about n / 32 by chance when
 * hashed.  O(n + lim / 64 + c log c) time for c candidates, bitmaps of at
 * most 8 n bytes. */
static int first_repeat(const mmnc_int *o, mmnc_int n, mmnc_int lim, mmnc_int *at, mmnc_int *rep, mmnc_err *err)
{
    uint64_t *seen = NULL, *twice = NULL, nbits = (uint64_t)lim;
    unsigned shift = 0;
    int any = 0;
    orig_at *c = NULL;
    mmnc_int nc = 0;
    int status = MMNC_OK;
    *at = *rep = -1;
    if ((uint64_t)lim / 32 > (uint64_t)n) /* few of many: hashed */
        for (nbits = 16, shift = 60; nbits < 16 * (uint64_t)n; nbits *= 2) shift--;
    MMNC_CALLOC(seen, nbits / 64 + 1, err, status);
    MMNC_CALLOC(twice, nbits / 64 + 1, err, status);
    for (mmnc_int i = 0; i < n; i++) {
        uint64_t k = orig_key(o[i], shift), bit = (uint64_t)1 << (k % 64);
        if (seen[k / 64] & bit) twice[k / 64] |= bit, any = 1;
        seen[k / 64] |= bit;
    }
    if (!any) goto cleanup;
    for (int fill = 0; fill < 2; fill++) { /* count, then fill */
        if (fill) MMNC_ALLOC(c, nc, err, status);
        nc = 0;
        for (mmnc_int i = 0; i < n; i++) {
            uint64_t k = orig_key(o[i], shift);
            if (!((twice[k / 64] >> (k % 64)) & 1)) continue;
            if (fill) c[nc] = (orig_at){o[i], i};
            nc++;
        }
    }
    qsort(c, (size_t)nc, sizeof *c, orig_at_cmp);
    /* a run of one index: its second row repeats its first */
    for (mmnc_int j = 1; j < nc; j++)
        if (c[j].v == c[j - 1].v && (j < 2 || c[j - 2].v != c[j].v) && (*rep < 0 || c[j].i < *rep))
            *rep = c[j].i, *at = c[j - 1].i;
cleanup:
    mmnc_i_free(seen);
    mmnc_i_free(twice);
    mmnc_i_free(c);
    return status;
}

/* MMNC_OK if the ids of n rows (columns, when cols) are distinct: names[i],
 * or for an entry without a name its 1-based original index (orig[i] + 1,
 * or i + 1), as mmnc_data_row_id gives them.  Else code, "path: " and pre
 * ("cannot write: " or "") before the id and the two rows.  names NULL: the
 * indices alone, each in 0 .. lim - 1 (checked before), compared by
 * first_repeat rather than as strings (files have 10^7 rows); without orig
 * too, 1 .. n. */
static int ids_distinct(char *const *names, const mmnc_int *orig, mmnc_int n, mmnc_int lim, int cols,
                        const char *path, const char *pre, int code, mmnc_err *err)
{
    mmnc_i_keymap ids = {0};
    int status = MMNC_OK;
    const char *what = cols ? "column" : "row";
    char buf[32], ex[80];
    const char *id = buf;
    mmnc_int at = -1, rep = -1;
    if (!names) {
        if (orig && (status = first_repeat(orig, n, lim, &at, &rep, err)) == MMNC_OK && rep >= 0)
            snprintf(buf, sizeof buf, "%lld", (long long)orig[rep] + 1);
    }
    for (mmnc_int i = 0; names && i < n && status == MMNC_OK && rep < 0; i++) {
        id = names[i];
        if (!id) {
            snprintf(buf, sizeof buf, "%lld", (long long)(orig ? orig[i] : i) + 1);
            id = buf;
        }
        if ((status = mmnc_i_keymap_get(&ids, id, strlen(id), &at, err)) == MMNC_OK && at != i) rep = i;
    }
    if (status == MMNC_OK && rep >= 0)
        status = mmnc_i_err(err, code, "%s: %s%s id '%s' is given to %ss %lld and %lld (1-based): the ids name "
                            "the %ss in the outputs and must be distinct", path, pre, what,
                            mmnc_i_excerpt(id, strlen(id), ex), what, (long long)at + 1, (long long)rep + 1, what);
    mmnc_i_keymap_free(&ids);
    return status;
}

/* ------------------------------------------------------------------------ */
/* XXH64                                                                     */
/* ------------------------------------------------------------------------ */

#define XP1 0x9E3779B185EBCA87ULL
#define XP2 0xC2B2AE3D27D4EB4FULL
#define XP3 0x165667B19E3779F9ULL
#define XP4 0x85EBCA77C2B2AE63ULL
#define XP5 0x27D4EB2F165667C5ULL

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
static inline uint64_t xround(uint64_t acc, uint64_t in) { return rotl64(acc + in * XP2, 31) * XP1; }
static inline uint64_t xmerge(uint64_t h, uint64_t v) { return (h ^ xround(0, v)) * XP1 + XP4; }

uint64_t mmnc_i_xxh64(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = data, *end = p + len;
    uint64_t h;
    if (len >= 32) {
        uint64_t v1 = seed + XP1 + XP2, v2 = seed + XP2, v3 = seed, v4 = seed - XP1;
        const unsigned char *limit = end - 32;
        do {
            v1 = xround(v1, mmnc_i_get64(p));
            v2 = xround(v2, mmnc_i_get64(p + 8));
            v3 = xround(v3, mmnc_i_get64(p + 16));
            v4 = xround(v4, mmnc_i_get64(p + 24));
            p += 32;
        } while (p <= limit);
        h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
        h = xmerge(xmerge(xmerge(xmerge(h, v1), v2), v3), v4);
    } else {
        h = seed + XP5;
    }
    h += (uint64_t)len;
    for (; p + 8 <= end; p += 8) h = rotl64(h ^ xround(0, mmnc_i_get64(p)), 27) * XP1 + XP4;
    if (p + 4 <= end) {
        h = rotl64(h ^ (uint64_t)mmnc_i_get32(p) * XP1, 23) * XP2 + XP3;
        p += 4;
    }
    for (; p < end; p++) h = rotl64(h ^ *p * XP5, 11) * XP1;
    h ^= h >> 33;
    h *= XP2;
    h ^= h >> 29;
    h *= XP3;
    return h ^ (h >> 32);
}

/* A section's checksum from the digests of its blocks (little-endian host). */
static uint64_t sec_checksum(const uint64_t *bh, uint64_t nb)
{
    return mmnc_i_xxh64(bh, (size_t)nb * 8, 0);
}

int mmnc_i_bin_magic(const unsigned char *head, size_t n)
{
    /* a prefix of the magic is a truncated binary file, reported as such */
    return n > 0 && memcmp(head, MAGIC, n < 8 ? n : 8) == 0;
}

int mmnc_i_bin_sniff(const char *path)
{
    unsigned char head[8];
    size_t n;
    struct stat st;
    FILE *fp;
    /* only a regular file: reading a pipe here would lose its start */
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || !(fp = fopen(path, "rb"))) return 0;
    n = fread(head, 1, 8, fp);
    fclose(fp);
    return mmnc_i_bin_magic(head, n);
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct sec {
    uint64_t off, bytes, sum; /* off == 0: absent */
} sec;

typedef struct rd {
    const char *path;
    int fd;
    const unsigned char *map; /* the whole file, or NULL: pread() into bounce */
    size_t maplen;
    uint64_t size, hsum;      /* the file's bytes, the header's checksum */
    size_t block;             /* checksum block bytes */
    unsigned char *bounce;    /* one block per thread when not mapped */
    size_t bstride;           /* bytes of a thread's part of bounce: a block, or the largest
                                 section if smaller (the header's block size is a claim) */
    int nthreads, verify;
    mmnc_int nrows, ncols, nnz, orig_rows, orig_cols;
    int ib, vt;               /* bytes per column index, value type */
    sec s[BIN_NSEC];
    uint64_t *bh;             /* per block: digest */
    int *bad, *ioerr;         /* per block: 1 invalid contents, 2 read error (errno) */
    mmnc_data *d;
} rd;

/* Fill err with "path: message"; returns code. */
static int rd_err(const rd *r, int code, mmnc_err *err, const char *fmt, ...) MMNC_PRINTF(4, 5);
static int rd_err(const rd *r, int code, mmnc_err *err, const char *fmt, ...)
{
    char msg[MMNC_ERRMSG_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return mmnc_i_err(err, code, "%s: %s", r->path, msg);
}

/* pread exactly n bytes at off; 0, or -1 with errno set (EIO at end of file). */
static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t got = pread(fd, p, n, (off_t)off);
        if (got < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (got == 0) {
            errno = EIO; /* the file shrank under us */
            return -1;
        }
        p += got;
        n -= (size_t)got;
        off += (uint64_t)got;
    }
    return 0;
}

/* x * y <= lim without overflow (all nonnegative). */
static int mul_le(uint64_t x, uint64_t y, uint64_t lim, uint64_t *out)
{
    if (y && x > lim / y) return 0;
    *out = x * y;
    return 1;
}

/* Open r->path and check its header: magic, version, checksum, the file's
 * size, the fields and the section table (each section's size from the
 * shape, its place aligned and inside the file, in order).  Every failure
 * says what is wrong: a truncated file, a newer version and a corrupt
 * header each have their own message.  The sections themselves are not
 * read. */
static int open_header(rd *r, mmnc_err *err)
{
    unsigned char h[BIN_HEADER];
    struct stat st;
    uint64_t fbytes, sum, prev_end = BIN_HEADER;
    uint32_t version, flags, blog;
    size_t n;

    r->fd = open(r->path, O_RDONLY | O_CLOEXEC);
    if (r->fd < 0) return rd_err(r, MMNC_EIO, err, "cannot open: %s", strerror(errno));
    if (fstat(r->fd, &st) != 0) return rd_err(r, MMNC_EIO, err, "cannot stat: %s", strerror(errno));
    if (!S_ISREG(st.st_mode))
        return rd_err(r, MMNC_EIO, err, "a binary matrix must be a regular file, not a pipe or device");
    r->size = (uint64_t)st.st_size;
    if (r->size == 0) return rd_err(r, MMNC_EFORMAT, err, "file is empty");
    n = r->size < BIN_HEADER ? (size_t)r->size : BIN_HEADER;
    if (read_at(r->fd, h, n, 0) != 0) return rd_err(r, MMNC_EIO, err, "read error: %s", strerror(errno));

    if (memcmp(h, MAGIC, n < 8 ? n : 8) != 0)
        return rd_err(r, MMNC_EFORMAT, err, "not an mmnc binary matrix (bad magic)");
    if (n < 12)
        return rd_err(r, MMNC_EFORMAT, err, "truncated: file has %llu bytes, less than the %d-byte header",
                      (unsigned long long)r->size, BIN_HEADER);
    version = mmnc_i_get32(h + H_VERSION);
    if (version > BIN_VERSION)
        return rd_err(r, MMNC_EFORMAT, err, "format version %u is newer than this mmnc supports (%d)",
                      version, BIN_VERSION);
    if (version == 0) return rd_err(r, MMNC_EFORMAT, err, "corrupt header (format version 0)");
    if (n < BIN_HEADER) {
        if (n >= H_FILE_BYTES + 8)
            return rd_err(r, MMNC_EFORMAT, err, "truncated: header says %llu bytes, file has %llu",
                          (unsigned long long)mmnc_i_get64(h + H_FILE_BYTES), (unsigned long long)r->size);
        return rd_err(r, MMNC_EFORMAT, err, "truncated: file has %llu bytes, less than the %d-byte header",
                      (unsigned long long)r->size, BIN_HEADER);
    }
    sum = mmnc_i_get64(h + H_CHECKSUM);
    memset(h + H_CHECKSUM, 0, 8);
    if (mmnc_i_xxh64(h, BIN_HEADER, 0) != sum)
        return rd_err(r, MMNC_EFORMAT, err, "corrupt header (checksum mismatch)");
    r->hsum = sum;
    fbytes = mmnc_i_get64(h + H_FILE_BYTES);
    if (fbytes > r->size)
        return rd_err(r, MMNC_EFORMAT, err, "truncated: header says %llu bytes, file has %llu",
                      (unsigned long long)fbytes, (unsigned long long)r->size);
    if (fbytes < r->size)
        return rd_err(r, MMNC_EFORMAT, err,
                      "%llu bytes of unexpected data after the end (header says %llu bytes, file has %llu)",
                      (unsigned long long)(r->size - fbytes), (unsigned long long)fbytes,
                      (unsigned long long)r->size);

    /* the header is intact: what remains wrong is an invalid writer */
    flags = mmnc_i_get32(h + H_FLAGS);
    r->ib = (int)mmnc_i_get32(h + H_INDEX_BYTES);
    r->vt = (int)mmnc_i_get32(h + H_VALUE_TYPE);
    blog = mmnc_i_get32(h + H_BLOCK_LOG2);
    r->nrows = (mmnc_int)mmnc_i_get64(h + H_NROWS);
    r->ncols = (mmnc_int)mmnc_i_get64(h + H_NCOLS);
    r->nnz = (mmnc_int)mmnc_i_get64(h + H_NNZ);
    r->orig_rows = (mmnc_int)mmnc_i_get64(h + H_ORIG_ROWS);
    r->orig_cols = (mmnc_int)mmnc_i_get64(h + H_ORIG_COLS);
    if (mmnc_i_get32(h + H_HEADER_BYTES) != BIN_HEADER)
        return rd_err(r, MMNC_EFORMAT, err, "invalid header: header size %u, expected %d",
                      mmnc_i_get32(h + H_HEADER_BYTES), BIN_HEADER);
    if (flags != 0)
        return rd_err(r, MMNC_EFORMAT, err,
                      "uses features this mmnc does not support (flags 0x%x)", flags);
    if ((r->ib != 4 && r->ib != 8) || (r->vt != VT_F64 && r->vt != VT_F32) ||
        blog < BIN_BLOCK_MIN || blog > BIN_BLOCK_MAX)
        return rd_err(r, MMNC_EFORMAT, err,
                      "invalid header: index bytes %d (4 or 8), value type %d (1 or 2), block 2^%u "
                      "(2^%d to 2^%d)", r->ib, r->vt, blog, BIN_BLOCK_MIN, BIN_BLOCK_MAX);
    r->block = (size_t)1 << blog;
    if (r->nrows < 0 || r->ncols < 0 || r->nnz < 0 || r->orig_rows < 0 || r->orig_cols < 0 ||
        (r->ib == 4 && (uint64_t)r->ncols > ((uint64_t)1 << 32)))
        return rd_err(r, MMNC_EFORMAT, err,
                      "invalid header: %lld x %lld matrix, %lld nonzeros, original shape %lld x %lld, "
                      "%d-byte column indices", (long long)r->nrows, (long long)r->ncols,
                      (long long)r->nnz, (long long)r->orig_rows, (long long)r->orig_cols, r->ib);

    for (int k = 0; k < BIN_NSEC; k++) {
        const unsigned char *t = h + H_TABLE + H_SLOT * k;
        uint64_t want = 0, per = 0, cnt = 0;
        int ok;
        r->s[k].off = mmnc_i_get64(t);
        r->s[k].bytes = mmnc_i_get64(t + 8);
        r->s[k].sum = mmnc_i_get64(t + 16);
        if (r->s[k].off == 0 && r->s[k].bytes == 0 && k >= SEC_ROW_ORIG) continue; /* absent */
        if (k >= SEC_USED)
            return rd_err(r, MMNC_EFORMAT, err, "invalid header: unknown section %d", k);
        if (r->s[k].off == 0)
            return rd_err(r, MMNC_EFORMAT, err, "invalid header: no %s section", SEC_NAME[k]);
        switch (k) {
        case SEC_ROWPTR: per = 8, cnt = (uint64_t)r->nrows + 1; break;
        case SEC_COLIND: per = (uint64_t)r->ib, cnt = (uint64_t)r->nnz; break;
        case SEC_VALUES: per = r->vt == VT_F64 ? 8 : 4, cnt = (uint64_t)r->nnz; break;
        case SEC_ROW_ORIG: case SEC_ROW_NAMES: per = 8, cnt = (uint64_t)r->nrows + (k == SEC_ROW_NAMES); break;
        default: per = 8, cnt = (uint64_t)r->ncols + (k == SEC_COL_NAMES); break;
        }
        ok = mul_le(cnt, per, r->size, &want);
        if (k == SEC_ROW_NAMES || k == SEC_COL_NAMES) ok = ok && r->s[k].bytes >= want;
        else ok = ok && r->s[k].bytes == want;
        if (!ok)
            return rd_err(r, MMNC_EFORMAT, err,
                          "invalid header: the %s section has %llu bytes, expected %s%llu x %llu",
                          SEC_NAME[k], (unsigned long long)r->s[k].bytes,
                          k >= SEC_ROW_NAMES ? "at least " : "", (unsigned long long)cnt,
                          (unsigned long long)per);
        if (r->s[k].off % BIN_ALIGN || r->s[k].off < prev_end || r->s[k].off > r->size ||
            r->s[k].bytes > r->size - r->s[k].off)
            return rd_err(r, MMNC_EFORMAT, err,
                          "invalid header: the %s section (%llu bytes at %llu) is misplaced",
                          SEC_NAME[k], (unsigned long long)r->s[k].bytes,
                          (unsigned long long)r->s[k].off);
        prev_end = r->s[k].off + r->s[k].bytes;
    }
    return MMNC_OK;
}

/* Fault in the pages of a fresh array that is about to be filled, in one
 * system call: filling fresh memory costs more in page faults, one per
 * 4 KB page, than in the copying itself.  Huge pages would be faster
 * still, but may stall on compaction.  A hint only: failure changes
 * nothing. */
static void prefault(void *p, size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
    uintptr_t page = 4096, a = ((uintptr_t)p + page - 1) & ~(page - 1);
    uintptr_t e = ((uintptr_t)p + bytes) & ~(page - 1);
    if (bytes >= ((size_t)1 << 20) && e > a) (void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#else
    (void)p, (void)bytes;
#endif
}

/* ---- one block --------------------------------------------------------- */

/* Largest row r with rowptr[r] <= e (rowptr valid, 0 <= e < nnz). */
static mmnc_int row_of(const mmnc_int *rowptr, mmnc_int nrows, mmnc_int e)
{
    mmnc_int lo = 0, hi = nrows; /* rowptr[lo] <= e < rowptr[hi] */
    while (hi - lo > 1) {
        mmnc_int mid = lo + (hi - lo) / 2;
        if (rowptr[mid] <= e) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* Copy, widen and check the n bytes p of block b of section k into the
 * result; 1 if something is invalid (described later by describe()). */
static int block_work(const rd *r, int k, uint64_t b, const unsigned char *p, size_t n)
{
    const mmnc_csr *A = r->d->A;
    uint64_t first = b * r->block;
    int bad = 0;
    switch (k) {
    case SEC_ROWPTR: {
        mmnc_int *dst = A->rowptr + first / 8, nnz = r->nnz;
        size_t m = n / 8, i;
        memcpy(dst, p, n);
        for (i = 0; i < m; i++) bad |= (dst[i] < 0) | (dst[i] > nnz);
        for (i = 1; i < m; i++) bad |= dst[i] < dst[i - 1];
        return bad;
    }
    case SEC_COLIND: {
        mmnc_int e0 = (mmnc_int)(first / (uint64_t)r->ib), e1 = e0 + (mmnc_int)(n / (size_t)r->ib);
        mmnc_int *dst = A->colind, row;
        uint64_t nc = (uint64_t)r->ncols;
        /* row by row, so that widening, the range and the order are one pass
         * over the source, which the hash has just brought into the cache */
        for (row = row_of(A->rowptr, r->nrows, e0); row < r->nrows && A->rowptr[row] < e1; row++) {
            mmnc_int lo = A->rowptr[row] > e0 ? A->rowptr[row] : e0;
            mmnc_int hi = A->rowptr[row + 1] < e1 ? A->rowptr[row + 1] : e1;
            if (lo >= hi) continue;
            if (r->ib == 4) {
                const uint32_t *src = (const uint32_t *)(const void *)p;
                uint32_t prev = src[lo - e0];
                dst[lo] = prev;
                bad |= prev >= nc;
                for (mmnc_int q = lo + 1; q < hi; q++) {
                    uint32_t c = src[q - e0];
                    dst[q] = c;
                    bad |= (c >= nc) | (c <= prev);
                    prev = c;
                }
            } else {
                const unsigned char *src = p + 8 * (size_t)(lo - e0);
                memcpy(dst + lo, src, 8 * (size_t)(hi - lo));
                bad |= (uint64_t)dst[lo] >= nc;
                for (mmnc_int q = lo + 1; q < hi; q++)
                    bad |= ((uint64_t)dst[q] >= nc) | (dst[q] <= dst[q - 1]);
            }
        }
        return bad;
    }
    case SEC_VALUES: {
        if (r->vt == VT_F64) {
            double *dst = A->val + first / 8;
            size_t m = n / 8;
            memcpy(dst, p, n);
            for (size_t i = 0; i < m; i++) bad |= !value_ok(dst[i]);
        } else {
            const float *src = (const float *)(const void *)p;
            double *dst = A->val + first / 4;
            size_t m = n / 4;
            for (size_t i = 0; i < m; i++) {
                dst[i] = src[i];
                bad |= !value_ok(dst[i]);
            }
        }
        return bad;
    }
    default: { /* row_orig, col_orig */
        mmnc_int *dst = (k == SEC_ROW_ORIG ? r->d->row_orig : r->d->col_orig) + first / 8;
        mmnc_int lim = k == SEC_ROW_ORIG ? r->orig_rows : r->orig_cols;
        size_t m = n / 8;
        memcpy(dst, p, n);
        for (size_t i = 0; i < m; i++) bad |= (dst[i] < 0) | (dst[i] >= lim);
        return bad;
    }
    }
}

/* ---- describing an invalid section -------------------------------------- */

/* Entries a .. b - 1 of the id map k (row_orig or col_orig), at o[0 ..
 * b - a - 1]: MMNC_OK if each is an original index, else the first that is
 * not, as an EFORMAT message. */
static int orig_in_range(const rd *r, int k, const mmnc_int *o, mmnc_int a, mmnc_int b, mmnc_err *err)
{
    mmnc_int lim = k == SEC_ROW_ORIG ? r->orig_rows : r->orig_cols;
    for (mmnc_int i = a; i < b; i++)
        if (o[i - a] < 0 || o[i - a] >= lim)
            return rd_err(r, MMNC_EFORMAT, err, "invalid %s: entry %lld is %lld, outside 0..%lld (the original %s)",
                          SEC_NAME[k], (long long)i, (long long)o[i - a], (long long)lim - 1,
                          k == SEC_ROW_ORIG ? "rows" : "columns");
    return MMNC_OK;
}

/* The first invalid entry of section k (already copied into the result),
 * as an EFORMAT message; also checks what spans blocks.  MMNC_OK if none. */
static int describe(const rd *r, int k, mmnc_err *err)
{
    const mmnc_csr *A = r->d->A;
    mmnc_int i, p;
    switch (k) {
    case SEC_ROWPTR:
        if (A->rowptr[0] != 0)
            return rd_err(r, MMNC_EFORMAT, err, "invalid rowptr: rowptr[0] = %lld, expected 0",
                          (long long)A->rowptr[0]);
        for (i = 0; i < r->nrows; i++)
            if (A->rowptr[i + 1] < A->rowptr[i] || A->rowptr[i + 1] > r->nnz)
                return rd_err(r, MMNC_EFORMAT, err,
                              "invalid rowptr: row %lld ends at %lld, before its start %lld or "
                              "after nnz = %lld", (long long)i + 1, (long long)A->rowptr[i + 1],
                              (long long)A->rowptr[i], (long long)r->nnz);
        if (A->rowptr[r->nrows] != r->nnz)
            return rd_err(r, MMNC_EFORMAT, err, "invalid rowptr: rowptr[nrows] = %lld, expected nnz = %lld",
                          (long long)A->rowptr[r->nrows], (long long)r->nnz);
        return MMNC_OK;
    case SEC_COLIND:
        for (i = 0; i < r->nrows; i++)
            for (p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
                if ((uint64_t)A->colind[p] >= (uint64_t)r->ncols)
                    return rd_err(r, MMNC_EFORMAT, err,
                                  "invalid column index: row %lld has column %lld, but the matrix "
                                  "has %lld columns (1-based)", (long long)i + 1,
                                  (long long)A->colind[p] + 1, (long long)r->ncols);
                if (p > A->rowptr[i] && A->colind[p] <= A->colind[p - 1])
                    return rd_err(r, MMNC_EFORMAT, err,
                                  "invalid column index: row %lld has column %lld after %lld "
                                  "(columns must increase within a row; 1-based)",
                                  (long long)i + 1, (long long)A->colind[p] + 1,
                                  (long long)A->colind[p - 1] + 1);
            }
        return MMNC_OK;
    case SEC_VALUES:
        for (i = 0; i < r->nrows; i++)
            for (p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
                if (!value_ok(A->val[p]))
                    return value_err(r->path, A->val[p], i, A->colind[p], MMNC_EFORMAT, err);
        return MMNC_OK;
    default:
        return orig_in_range(r, k, k == SEC_ROW_ORIG ? r->d->row_orig : r->d->col_orig, 0,
                             k == SEC_ROW_ORIG ? r->nrows : r->ncols, err);
    }
}

/* What block_work cannot see: the joints between blocks. 1 if all fine. */
static int joints_ok(const rd *r, int k, uint64_t nb)
{
    const mmnc_csr *A = r->d->A;
    if (k == SEC_ROWPTR) {
        mmnc_int per = (mmnc_int)(r->block / 8);
        if (A->rowptr[0] != 0 || A->rowptr[r->nrows] != r->nnz) return 0;
        for (uint64_t b = 1; b < nb; b++)
            if (A->rowptr[b * per] < A->rowptr[b * per - 1]) return 0;
    } else if (k == SEC_COLIND) {
        mmnc_int per = (mmnc_int)(r->block / (size_t)r->ib);
        for (uint64_t b = 1; b < nb; b++) {
            mmnc_int e = (mmnc_int)b * per;
            if (A->rowptr[row_of(A->rowptr, r->nrows, e)] < e && A->colind[e] <= A->colind[e - 1])
                return 0;
        }
    }
    return 1;
}

/* ---- sections ------------------------------------------------------------ */

/* Hash, copy and check the numeric section k, in parallel over blocks. */
static int run_section(rd *r, int k, mmnc_err *err)
{
    const sec *s = &r->s[k];
    int64_t nb = (int64_t)((s->bytes + r->block - 1) / r->block), b;
    int any = 0;

#pragma omp parallel for schedule(dynamic, 1) reduction(| : any) if (nb > 1)
    for (b = 0; b < nb; b++) {
        uint64_t at = (uint64_t)b * r->block;
        size_t n = s->bytes - at < r->block ? (size_t)(s->bytes - at) : r->block;
        const unsigned char *p;
        if (r->map) {
            p = r->map + s->off + at;
        } else {
            int t = 0;
#ifdef _OPENMP
            t = omp_get_thread_num();
#endif
            unsigned char *buf = r->bounce + (size_t)t * r->bstride;
            if (read_at(r->fd, buf, n, s->off + at) != 0) {
                r->bad[b] = 2;
                r->ioerr[b] = errno;
                any = 1;
                continue;
            }
            p = buf;
        }
        if (r->verify) r->bh[b] = mmnc_i_xxh64(p, n, 0);
        r->bad[b] = block_work(r, k, (uint64_t)b, p, n);
        any |= r->bad[b];
    }
    if (any)
        for (b = 0; b < nb; b++)
            if (r->bad[b] == 2)
                return rd_err(r, MMNC_EIO, err, "read error: %s", strerror(r->ioerr[b]));
    if (r->verify && sec_checksum(r->bh, (uint64_t)nb) != s->sum)
        return rd_err(r, MMNC_EFORMAT, err,
                      "checksum mismatch in the %s section (bytes %llu to %llu): the file is corrupt",
                      SEC_NAME[k], (unsigned long long)s->off,
                      (unsigned long long)(s->off + s->bytes));
    if (any || !joints_ok(r, k, (uint64_t)nb)) {
        int st = describe(r, k, err);
        return st ? st : rd_err(r, MMNC_EFORMAT, err, "invalid %s section", SEC_NAME[k]);
    }
    return MMNC_OK;
}

/* A string table: u64 offsets[n + 1] into the bytes that follow; entry i is
 * bytes[off[i] .. off[i+1]): empty for NULL, else a string with its NUL. */
static int read_names(rd *r, int k, mmnc_int n, char ***out, mmnc_err *err)
{
    int status = MMNC_OK;
    const sec *s = &r->s[k];
    unsigned char *own = NULL;
    const unsigned char *p, *blob;
    uint64_t nb = (s->bytes + r->block - 1) / r->block, blen, prev = 0;
    char **names = NULL;
    int64_t b;

    if (r->map) {
        p = r->map + s->off;
    } else {
        MMNC_ALLOC(own, s->bytes, err, status);
        if (read_at(r->fd, own, (size_t)s->bytes, s->off) != 0) {
            status = rd_err(r, MMNC_EIO, err, "read error: %s", strerror(errno));
            goto cleanup;
        }
        p = own;
    }
    if (r->verify) {
#pragma omp parallel for schedule(static) if (nb > 1)
        for (b = 0; b < (int64_t)nb; b++) {
            uint64_t at = (uint64_t)b * r->block;
            size_t len = s->bytes - at < r->block ? (size_t)(s->bytes - at) : r->block;
            r->bh[b] = mmnc_i_xxh64(p + at, len, 0);
        }
        if (sec_checksum(r->bh, nb) != s->sum) {
            status = rd_err(r, MMNC_EFORMAT, err,
                            "checksum mismatch in the %s section (bytes %llu to %llu): the file is "
                            "corrupt", SEC_NAME[k], (unsigned long long)s->off,
                            (unsigned long long)(s->off + s->bytes));
            goto cleanup;
        }
    }
    blob = p + 8 * ((uint64_t)n + 1);
    blen = s->bytes - 8 * ((uint64_t)n + 1);
    MMNC_CALLOC(names, n, err, status);
    for (mmnc_int i = 0; i <= n; i++) {
        uint64_t o = mmnc_i_get64(p + 8 * (uint64_t)i), len;
        if ((i == 0 && o != 0) || o < prev || o > blen || (i == n && o != blen)) {
            status = rd_err(r, MMNC_EFORMAT, err,
                            "invalid %s table: offset %lld is %llu (after %llu; %llu bytes of names)",
                            SEC_NAME[k], (long long)i, (unsigned long long)o,
                            (unsigned long long)prev, (unsigned long long)blen);
            goto cleanup;
        }
        len = o - prev;
        if (i > 0 && len > 0) {
            const unsigned char *str = blob + prev;
            if (memchr(str, '\0', (size_t)len) != str + len - 1) {
                status = rd_err(r, MMNC_EFORMAT, err,
                                "invalid %s table: entry %lld is not one NUL-terminated string",
                                SEC_NAME[k], (long long)i - 1);
                goto cleanup;
            }
            MMNC_ALLOC(names[i - 1], len, err, status);
            memcpy(names[i - 1], str, (size_t)len);
        }
        prev = o;
    }
    *out = names;
    names = NULL;
cleanup:
    if (names) {
        for (mmnc_int i = 0; i < n; i++) mmnc_i_free(names[i]);
        mmnc_i_free(names);
    }
    mmnc_i_free(own);
    return status;
}

int mmnc_data_read_bin(const char *path, int flags, mmnc_data **out, mmnc_err *err)
{
    int status = MMNC_OK;
    rd r;
    uint64_t nbmax = 1;
    mmnc_data *d = NULL;

    memset(&r, 0, sizeof r);
    r.fd = -1;
    if (!out) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_data_read_bin: out is NULL");
    *out = NULL;
    if (!path) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_data_read_bin: path is NULL");
    if (!MMNC_I_HOST_LITTLE)
        return mmnc_i_err(err, MMNC_EUNSUP, "%s: binary matrices need a little-endian machine", path);
    r.path = path;
    r.verify = !(flags & MMNC_BIN_NO_VERIFY);
    if ((status = open_header(&r, err)) != MMNC_OK) goto cleanup;

    MMNC_CALLOC(d, 1, err, status);
    r.d = d;
    d->orig_rows = r.orig_rows;
    d->orig_cols = r.orig_cols;
    if (!(d->A = mmnc_csr_alloc(r.nrows, r.ncols, r.nnz, err))) {
        status = MMNC_ENOMEM;
        goto cleanup;
    }
    if (r.s[SEC_ROW_ORIG].off) MMNC_ALLOC(d->row_orig, r.nrows, err, status);
    if (r.s[SEC_COL_ORIG].off) MMNC_ALLOC(d->col_orig, r.ncols, err, status);
    prefault(d->A->colind, (size_t)r.nnz * sizeof(mmnc_int));
    prefault(d->A->val, (size_t)r.nnz * sizeof(double));
    r.bstride = 1;
    for (int k = 0; k < SEC_USED; k++) {
        uint64_t nb = (r.s[k].bytes + r.block - 1) / r.block;
        if (nb > nbmax) nbmax = nb;
        if (r.s[k].bytes > r.bstride) r.bstride = r.s[k].bytes < r.block ? (size_t)r.s[k].bytes : r.block;
    }
    MMNC_ALLOC(r.bh, nbmax, err, status);
    MMNC_CALLOC(r.bad, nbmax, err, status);
    MMNC_CALLOC(r.ioerr, nbmax, err, status);

    r.nthreads = 1;
#ifdef _OPENMP
    r.nthreads = omp_get_max_threads();
#endif
    if (!(flags & MMNC_BIN_NO_MMAP) && (uint64_t)(size_t)r.size == r.size) {
        void *m = mmap(NULL, (size_t)r.size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, r.fd, 0);
        if (m != MAP_FAILED) {
            r.map = m;
            r.maplen = (size_t)r.size;
        }
    }
    if (!r.map) MMNC_ALLOC(r.bounce, (size_t)r.nthreads * r.bstride, err, status);

    for (int k = SEC_ROWPTR; k <= SEC_COL_ORIG; k++) {
        if (!r.s[k].off) continue;
        if ((status = run_section(&r, k, err)) != MMNC_OK) goto cleanup;
    }
    if (r.s[SEC_ROW_NAMES].off &&
        (status = read_names(&r, SEC_ROW_NAMES, r.nrows, &d->row_names, err)) != MMNC_OK)
        goto cleanup;
    if (r.s[SEC_COL_NAMES].off &&
        (status = read_names(&r, SEC_COL_NAMES, r.ncols, &d->col_names, err)) != MMNC_OK)
        goto cleanup;
    if ((status = ids_distinct(d->row_names, d->row_orig, r.nrows, r.orig_rows, 0, path, "", MMNC_EFORMAT, err)) != MMNC_OK ||
        (status = ids_distinct(d->col_names, d->col_orig, r.ncols, r.orig_cols, 1, path, "", MMNC_EFORMAT, err)) != MMNC_OK)
        goto cleanup;
    *out = d;
    d = NULL;

cleanup:
    if (r.map) munmap((void *)r.map, r.maplen);
    if (r.fd >= 0) close(r.fd);
    mmnc_i_free(r.bounce);
    mmnc_i_free(r.bh);
    mmnc_i_free(r.bad);
    mmnc_i_free(r.ioerr);
    mmnc_data_free(d);
    return status;
}

/* ---- one part of the rows (distributed runs) ----------------------------- */

/* n bytes of the file at off: in place in the map, else read into buf (n <=
 * the caller's buffer).  NULL on a read error (errno set). */
static const unsigned char *span(const rd *r, uint64_t off, size_t n, unsigned char *buf)
{
    if (r->map) return r->map + off;
    return read_at(r->fd, buf, n, off) == 0 ? buf : NULL;
}

/* rowptr[i] of the file, for mmnc_i_part_rows; -1 on a read error. */
static mmnc_int part_rowptr(void *ctx, mmnc_int i)
{
    const rd *r = ctx;
    unsigned char b[8];
    const unsigned char *p = span(r, r->s[SEC_ROWPTR].off + 8 * (uint64_t)i, 8, b);
    return p ? (mmnc_int)mmnc_i_get64(p) : -1; /* a read error shows as an invalid rowptr below */
}

/* Blocks of the largest section present (the slots verify_shared needs). */
static uint64_t max_blocks(const rd *r)
{
    uint64_t most = 1;
    for (int k = 0; k < SEC_USED; k++) {
        uint64_t nb = (r->s[k].bytes + r->block - 1) / r->block;
        if (r->s[k].off && nb > most) most = nb;
    }
    return most;
}

/* The checksums of every section present, the blocks shared among the
 * ranks of dist (each hashes a contiguous share; the digests are combined
 * by an integer sum of otherwise-zero slots).  Same verdict on every rank,
 * if every rank has the same header (agreed before) and enters: bh, of
 * max_blocks(r) slots, is allocated before the agreement. */
static int verify_shared(rd *r, const mmnc_dist *dist, int64_t *bh, mmnc_err *err)
{
    int rank = dist ? dist->rank : 0, size = dist ? dist->size : 1, status = MMNC_OK;
    for (int k = 0; k < SEC_USED; k++) {
        const sec *s = &r->s[k];
        uint64_t nb = (s->bytes + r->block - 1) / r->block, b0, b1;
        int ioerr = 0;
        if (!s->off) continue;
        memset(bh, 0, (size_t)nb * sizeof *bh);
        b0 = nb * (uint64_t)rank / (uint64_t)size;
        b1 = nb * (uint64_t)(rank + 1) / (uint64_t)size;
#pragma omp parallel for schedule(dynamic, 1) reduction(| : ioerr) if (b1 - b0 > 1)
        for (int64_t b = (int64_t)b0; b < (int64_t)b1; b++) {
            uint64_t at = (uint64_t)b * r->block;
            size_t n = s->bytes - at < r->block ? (size_t)(s->bytes - at) : r->block;
            unsigned char *buf = r->map ? NULL : mmnc_i_malloc(n, 1);
            const unsigned char *p = r->map || buf ? span(r, s->off + at, n, buf) : NULL;
            if (p) bh[b] = (int64_t)mmnc_i_xxh64(p, n, 0);
            else ioerr = 1;
            mmnc_i_free(buf);
        }
        /* a failed read leaves a zero digest: the checksum then fails on every rank */
        if (dist && size > 1) dist->isum(dist, bh, (mmnc_int)nb);
        if (sec_checksum((const uint64_t *)bh, nb) != s->sum) {
            status = rd_err(r, MMNC_EFORMAT, err,
                            "checksum mismatch in the %s section (bytes %llu to %llu): the file is corrupt%s",
                            SEC_NAME[k], (unsigned long long)s->off, (unsigned long long)(s->off + s->bytes),
                            ioerr ? " or could not be read" : "");
            break;
        }
    }
    return status;
}

/* Entries [a, b) of an i64 section (rowptr, row_orig, col_orig) into dst. */
static int read_i64s(const rd *r, int k, mmnc_int a, mmnc_int b, mmnc_int *dst, unsigned char *buf, mmnc_err *err)
{
    for (mmnc_int i = a; i < b;) {
        mmnc_int m = b - i < (mmnc_int)(r->block / 8) ? b - i : (mmnc_int)(r->block / 8);
        const unsigned char *p = span(r, r->s[k].off + 8 * (uint64_t)i, (size_t)m * 8, buf);
        if (!p) return rd_err(r, MMNC_EIO, err, "read error: %s", strerror(errno));
        for (mmnc_int j = 0; j < m; j++) dst[i - a + j] = (mmnc_int)mmnc_i_get64(p + 8 * j);
        i += m;
    }
    return MMNC_OK;
}

/* Names [a, b) of a string table (all of them when a = 0, b = n). */
static int read_names_part(const rd *r, int k, mmnc_int n, mmnc_int a, mmnc_int b, char ***out, mmnc_err *err)
{
    const sec *s = &r->s[k];
    uint64_t blen = s->bytes - 8 * ((uint64_t)n + 1), base = s->off + 8 * ((uint64_t)n + 1);
    mmnc_int *off = NULL;
    char **names = NULL;
    unsigned char *buf = NULL;
    int status = MMNC_OK;
    MMNC_ALLOC(off, b - a + 1, err, status);
    MMNC_CALLOC(names, b - a ? b - a : 1, err, status);
    MMNC_ALLOC(buf, r->block, err, status);
    if ((status = read_i64s(r, k, a, b + 1, off, buf, err)) != MMNC_OK) goto cleanup;
    for (mmnc_int i = a; i < b; i++) {
        uint64_t o0 = (uint64_t)off[i - a], o1 = (uint64_t)off[i - a + 1], len = o1 - o0;
        if (o1 < o0 || o1 > blen) {
            status = rd_err(r, MMNC_EFORMAT, err, "invalid %s table: offset %lld is %llu (after %llu; %llu bytes of names)",
                            SEC_NAME[k], (long long)i + 1, (unsigned long long)o1, (unsigned long long)o0,
                            (unsigned long long)blen);
            goto cleanup;
        }
        if (len == 0) continue;
        MMNC_ALLOC(names[i - a], len, err, status);
        if (read_at(r->fd, names[i - a], (size_t)len, base + o0) != 0) {
            status = rd_err(r, MMNC_EIO, err, "read error: %s", strerror(errno));
            goto cleanup;
        }
        if (memchr(names[i - a], '\0', (size_t)len) != names[i - a] + len - 1) {
            status = rd_err(r, MMNC_EFORMAT, err, "invalid %s table: entry %lld is not one NUL-terminated string",
                            SEC_NAME[k], (long long)i);
            goto cleanup;
        }
    }
    *out = names;
    names = NULL;
cleanup:
    if (names) {
        for (mmnc_int i = 0; i < b - a; i++) mmnc_i_free(names[i]);
        mmnc_i_free(names);
    }
    mmnc_i_free(off);
    mmnc_i_free(buf);
    return status;
}

/* ids_distinct over every row of the file (its names and row_orig read
 * whole): what mmnc_data_read_bin checks, for a reader of one part. */
static int part_ids_distinct(const rd *r, unsigned char *buf, mmnc_err *err)
{
    char **names = NULL;
    mmnc_int *orig = NULL;
    int status = MMNC_OK;
    if (r->s[SEC_ROW_NAMES].off &&
        (status = read_names_part(r, SEC_ROW_NAMES, r->nrows, 0, r->nrows, &names, err)) != MMNC_OK)
        goto cleanup;
    if (r->s[SEC_ROW_ORIG].off) {
        MMNC_ALLOC(orig, r->nrows ? r->nrows : 1, err, status);
        if ((status = read_i64s(r, SEC_ROW_ORIG, 0, r->nrows, orig, buf, err)) != MMNC_OK ||
            (status = orig_in_range(r, SEC_ROW_ORIG, orig, 0, r->nrows, err)) != MMNC_OK)
            goto cleanup;
    }
    status = ids_distinct(names, orig, r->nrows, r->orig_rows, 0, r->path, "", MMNC_EFORMAT, err);
cleanup:
    if (names)
        for (mmnc_int i = 0; i < r->nrows; i++) mmnc_i_free(names[i]);
    mmnc_i_free(names);
    mmnc_i_free(orig);
    return status;
}

int mmnc_i_bin_read_part(const char *path, int flags, int part, int nparts, const mmnc_dist *dist, mmnc_data **out,
                         mmnc_int *y0, mmnc_err *err)
{
    int status = MMNC_OK;
    rd r;
    mmnc_int first = 0, end = 0, e0, e1, m;
    mmnc_data *d = NULL;
    unsigned char *buf = NULL;
    int64_t *bh = NULL;
    mmnc_i_input in;

    memset(&r, 0, sizeof r);
    r.fd = -1;
    r.path = path;
    r.verify = !(flags & MMNC_BIN_NO_VERIFY);
    *out = NULL;
    if (!MMNC_I_HOST_LITTLE)
        status = mmnc_i_err(err, MMNC_EUNSUP, "%s: binary matrices need a little-endian machine", path);
    else status = open_header(&r, err);
    if (status == MMNC_OK && !(flags & MMNC_BIN_NO_MMAP) && (uint64_t)(size_t)r.size == r.size) {
        void *mp = mmap(NULL, (size_t)r.size, PROT_READ, MAP_PRIVATE, r.fd, 0);
        if (mp != MAP_FAILED) r.map = mp, r.maplen = (size_t)r.size;
    }
    if (status == MMNC_OK && r.verify && !(bh = mmnc_i_calloc((size_t)max_blocks(&r), sizeof *bh)))
        status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory"); /* not MMNC_CALLOC: agreed below */
    /* Every rank must have opened the same file (its header's checksum
     * covers the sections'), else the collective checks below would not
     * match: the first rank that cannot open it, or a header that differs
     * from rank 0's, ends the read on every rank. */
    in = (mmnc_i_input){1, (int64_t)r.size, r.nrows, r.ncols, r.nnz, r.hsum};
    if ((status = mmnc_i_agree_input(dist, status, path, &in, err)) != MMNC_OK) goto cleanup;
    if (r.verify && (status = verify_shared(&r, dist, bh, err)) != MMNC_OK) goto cleanup;
    mmnc_i_free(bh);
    bh = NULL;

    /* from here on, errors are this rank's own (the caller agrees on them) */
    MMNC_ALLOC(buf, r.block, err, status);
    mmnc_i_part_rows(r.nrows, part_rowptr, &r, part, nparts, &first, &end);
    m = end - first;
    e0 = part_rowptr(&r, first);
    e1 = part_rowptr(&r, end);
    if (e0 < 0 || e1 < e0 || e1 > r.nnz) {
        status = rd_err(&r, MMNC_EFORMAT, err, "invalid rowptr: rows %lld to %lld span entries %lld to %lld of %lld",
                        (long long)first, (long long)end, (long long)e0, (long long)e1, (long long)r.nnz);
        goto cleanup;
    }
    MMNC_CALLOC(d, 1, err, status);
    d->orig_rows = r.orig_rows;
    d->orig_cols = r.orig_cols;
    if (!(d->A = mmnc_csr_alloc(m, r.ncols, e1 - e0, err))) {
        status = MMNC_ENOMEM;
        goto cleanup;
    }
    if ((status = read_i64s(&r, SEC_ROWPTR, first, end + 1, d->A->rowptr, buf, err)) != MMNC_OK) goto cleanup;
    for (mmnc_int i = 0; i <= m; i++) {
        d->A->rowptr[i] -= e0;
        if (d->A->rowptr[i] < 0 || d->A->rowptr[i] > e1 - e0 || (i > 0 && d->A->rowptr[i] < d->A->rowptr[i - 1])) {
            status = rd_err(&r, MMNC_EFORMAT, err, "invalid rowptr at row %lld", (long long)(first + i));
            goto cleanup;
        }
    }
    /* column indices and values of the part, widened and checked */
    for (mmnc_int e = e0; e < e1;) {
        mmnc_int cnt = e1 - e < (mmnc_int)(r.block / 8) ? e1 - e : (mmnc_int)(r.block / 8);
        const unsigned char *pc = span(&r, r.s[SEC_COLIND].off + (uint64_t)e * (uint64_t)r.ib, (size_t)cnt * (size_t)r.ib, buf);
        if (!pc) { status = rd_err(&r, MMNC_EIO, err, "read error: %s", strerror(errno)); goto cleanup; }
        for (mmnc_int j = 0; j < cnt; j++)
            d->A->colind[e - e0 + j] = r.ib == 4 ? (mmnc_int)mmnc_i_get32(pc + 4 * j) : (mmnc_int)mmnc_i_get64(pc + 8 * j);
        {
            int vb = r.vt == VT_F64 ? 8 : 4;
            const unsigned char *pv = span(&r, r.s[SEC_VALUES].off + (uint64_t)e * (uint64_t)vb, (size_t)cnt * (size_t)vb, buf);
            if (!pv) { status = rd_err(&r, MMNC_EIO, err, "read error: %s", strerror(errno)); goto cleanup; }
            for (mmnc_int j = 0; j < cnt; j++) {
                double v;
                if (vb == 8) { uint64_t u = mmnc_i_get64(pv + 8 * j); memcpy(&v, &u, 8); }
                else { uint32_t u = mmnc_i_get32(pv + 4 * j); float f; memcpy(&f, &u, 4); v = f; }
                d->A->val[e - e0 + j] = v;
            }
        }
        e += cnt;
    }
    for (mmnc_int i = 0; i < m; i++)
        for (mmnc_int e = d->A->rowptr[i]; e < d->A->rowptr[i + 1]; e++) {
            mmnc_int c = d->A->colind[e];
            double v = d->A->val[e];
            if (c >= 0 && c < r.ncols && v > 0 && v < DBL_MIN) {
                status = value_err(path, v, first + i, c, MMNC_EFORMAT, err);
                goto cleanup;
            }
            if (c < 0 || c >= r.ncols || (e > d->A->rowptr[i] && c <= d->A->colind[e - 1]) || !value_ok(v)) {
                status = rd_err(&r, MMNC_EFORMAT, err, "invalid entry %lld (row %lld): column %lld, value %g",
                                (long long)(e + e0), (long long)(first + i), (long long)c, v);
                goto cleanup;
            }
        }
    /* ids: the file's original rows (so outputs name rows as the whole file does) */
    MMNC_ALLOC(d->row_orig, m ? m : 1, err, status);
    if (r.s[SEC_ROW_ORIG].off) {
        if ((status = read_i64s(&r, SEC_ROW_ORIG, first, end, d->row_orig, buf, err)) != MMNC_OK ||
            (status = orig_in_range(&r, SEC_ROW_ORIG, d->row_orig, first, end, err)) != MMNC_OK)
            goto cleanup;
    } else {
        for (mmnc_int i = 0; i < m; i++) d->row_orig[i] = first + i;
        if (d->orig_rows < r.nrows) d->orig_rows = r.nrows;
    }
    if (r.s[SEC_COL_ORIG].off) {
        MMNC_ALLOC(d->col_orig, r.ncols ? r.ncols : 1, err, status);
        if ((status = read_i64s(&r, SEC_COL_ORIG, 0, r.ncols, d->col_orig, buf, err)) != MMNC_OK ||
            (status = orig_in_range(&r, SEC_COL_ORIG, d->col_orig, 0, r.ncols, err)) != MMNC_OK)
            goto cleanup;
    }
    if (r.s[SEC_ROW_NAMES].off &&
        (status = read_names_part(&r, SEC_ROW_NAMES, r.nrows, first, end, &d->row_names, err)) != MMNC_OK)
        goto cleanup;
    if (r.s[SEC_COL_NAMES].off &&
        (status = read_names_part(&r, SEC_COL_NAMES, r.ncols, 0, r.ncols, &d->col_names, err)) != MMNC_OK)
        goto cleanup;
    if ((status = ids_distinct(d->col_names, d->col_orig, r.ncols, r.orig_cols, 1, path, "", MMNC_EFORMAT, err)) != MMNC_OK)
        goto cleanup;
    /* the rows' ids as the whole file has them: part 0 checks them for all */
    if (part == 0 && (r.s[SEC_ROW_NAMES].off || r.s[SEC_ROW_ORIG].off) && (status = part_ids_distinct(&r, buf, err)) != MMNC_OK)
        goto cleanup;
    *y0 = first;
    *out = d;
    d = NULL;
cleanup:
    if (r.map) munmap((void *)r.map, r.maplen);
    if (r.fd >= 0) close(r.fd);
    mmnc_i_free(bh);
    mmnc_i_free(buf);
    mmnc_data_free(d);
    return status;
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                   */
/* ------------------------------------------------------------------------ */

/* Sections are streamed through one staging block: each full block is
 * hashed and written; the block digests of the current section are kept. */
typedef struct wr {
    FILE *fp;
    unsigned char *buf;
    size_t block, len;
    uint64_t *bh, nb;
    uint64_t pos; /* file offset of the next byte */
} wr;

/* Hash and write the staged bytes: one checksum block of the current section. */
static void w_flush(wr *w)
{
    if (!w->len) return;
    w->bh[w->nb++] = mmnc_i_xxh64(w->buf, w->len, 0);
    fwrite(w->buf, 1, w->len, w->fp); /* errors: ferror at commit */
    w->pos += w->len;
    w->len = 0;
}

/* Append n bytes to the current section, a checksum block at a time. */
static void w_put(wr *w, const void *data, size_t n)
{
    const unsigned char *p = data;
    while (n > 0) {
        size_t take = w->block - w->len < n ? w->block - w->len : n;
        memcpy(w->buf + w->len, p, take);
        w->len += take;
        p += take;
        n -= take;
        if (w->len == w->block) w_flush(w);
    }
}

/* Start section s at the next multiple of BIN_ALIGN (zero padding before it). */
static void w_begin(wr *w, sec *s)
{
    static const unsigned char zeros[BIN_ALIGN];
    size_t pad = (size_t)((BIN_ALIGN - w->pos % BIN_ALIGN) % BIN_ALIGN);
    fwrite(zeros, 1, pad, w->fp);
    w->pos += pad;
    s->off = w->pos;
    w->nb = 0;
}

/* Close section s: its size and the checksum of its block digests. */
static void w_end(wr *w, sec *s)
{
    w_flush(w);
    s->bytes = w->pos - s->off;
    s->sum = sec_checksum(w->bh, w->nb);
}

/* Integers through a small buffer, narrowed to 32 bits when `narrow`. */
static void w_ints(wr *w, const mmnc_int *x, mmnc_int n, int narrow)
{
    if (!narrow) {
        w_put(w, x, (size_t)n * 8);
        return;
    }
    uint32_t tmp[1024];
    for (mmnc_int i = 0; i < n; i += 1024) {
        mmnc_int m = n - i < 1024 ? n - i : 1024;
        for (mmnc_int j = 0; j < m; j++) tmp[j] = (uint32_t)x[i + j];
        w_put(w, tmp, (size_t)m * 4);
    }
}

/* A string table: n + 1 offsets, then the strings with their NULs (NULL: empty). */
static void w_names(wr *w, char *const *names, mmnc_int n)
{
    uint64_t o = 0;
    w_put(w, &o, 8);
    for (mmnc_int i = 0; i < n; i++) {
        o += names[i] ? strlen(names[i]) + 1 : 0;
        w_put(w, &o, 8);
    }
    for (mmnc_int i = 0; i < n; i++)
        if (names[i]) w_put(w, names[i], strlen(names[i]) + 1);
}

/* MMNC_EINVAL unless every original id o[i] is in 0 .. lim - 1 (o may be NULL). */
static int check_orig(const mmnc_int *o, mmnc_int n, mmnc_int lim, const char *what,
                      const char *path, mmnc_err *err)
{
    for (mmnc_int i = 0; o && i < n; i++)
        if (o[i] < 0 || o[i] >= lim)
            return mmnc_i_err(err, MMNC_EINVAL,
                              "%s: cannot write: %s[%lld] = %lld is outside 0..%lld", path, what,
                              (long long)i, (long long)o[i], (long long)lim - 1);
    return MMNC_OK;
}

/* See mmnc.h.  The file is written in one pass: header, section table and
 * sections in file order, each section's checksum computed as it streams
 * out.  One function, because cutting it would pass the writer's offsets
 * and digests around for no reader's benefit. */
int mmnc_data_write_bin(const mmnc_data *d, const char *path, mmnc_err *err)
{
    int status = MMNC_OK, f32 = 0, narrow;
    mmnc_outfile of = {NULL, NULL, NULL};
    wr w;
    sec s[BIN_NSEC];
    unsigned char h[BIN_HEADER];
    const mmnc_csr *A;
    uint64_t maxbytes = 0;

    memset(&w, 0, sizeof w);
    memset(s, 0, sizeof s);
    if (!d || !d->A || !path) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_data_write_bin: NULL argument");
    if (!MMNC_I_HOST_LITTLE)
        return mmnc_i_err(err, MMNC_EUNSUP, "%s: binary matrices need a little-endian machine", path);
    A = d->A;
    if ((status = mmnc_csr_check(A, err)) != MMNC_OK) {
        if (err) {
            char msg[MMNC_ERRMSG_SIZE];
            memcpy(msg, err->msg, sizeof msg);
            mmnc_i_err(err, status, "%s: cannot write an invalid matrix: %.900s", path, msg);
        }
        return status;
    }
    for (mmnc_int i = 0; i < A->nrows; i++) /* what the reader would refuse */
        for (mmnc_int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
            if (!value_ok(A->val[p])) return value_err(path, A->val[p], i, A->colind[p], MMNC_EINVAL, err);
    if (d->orig_rows < 0 || d->orig_cols < 0)
        return mmnc_i_err(err, MMNC_EINVAL, "%s: cannot write: negative original shape", path);
    if ((status = check_orig(d->row_orig, A->nrows, d->orig_rows, "row_orig", path, err)) ||
        (status = check_orig(d->col_orig, A->ncols, d->orig_cols, "col_orig", path, err)) ||
        (status = ids_distinct(d->row_names, d->row_orig, A->nrows, d->orig_rows, 0, path, "cannot write: ", MMNC_EINVAL, err)) ||
        (status = ids_distinct(d->col_names, d->col_orig, A->ncols, d->orig_cols, 1, path, "cannot write: ", MMNC_EINVAL, err)))
        return status;

    /* narrow losslessly: 32-bit columns when they fit, floats when exact */
    narrow = A->ncols <= INT32_MAX;
    f32 = A->nnz > 0;
    for (mmnc_int p = 0; p < A->nnz && f32; p++)
        f32 = A->val[p] <= FLT_MAX && (double)(float)A->val[p] == A->val[p];

    w.block = (size_t)1 << BIN_BLOCK_LOG2;
    {
        /* the most blocks any section can have: its bytes bound the names' too */
        uint64_t rb = 8 * ((uint64_t)A->nrows + 1), cb = 8 * ((uint64_t)A->ncols + 1);
        uint64_t eb = 8 * (uint64_t)A->nnz;
        maxbytes = rb > cb ? rb : cb;
        if (eb > maxbytes) maxbytes = eb;
        for (int t = 0; t < 2; t++) {
            char *const *nm = t ? d->col_names : d->row_names;
            mmnc_int n = t ? A->ncols : A->nrows;
            uint64_t nbytes = 8 * ((uint64_t)n + 1);
            for (mmnc_int i = 0; nm && i < n; i++) nbytes += nm[i] ? strlen(nm[i]) + 1 : 0;
            if (nm && nbytes > maxbytes) maxbytes = nbytes;
        }
    }
    MMNC_ALLOC(w.buf, w.block, err, status);
    MMNC_ALLOC(w.bh, maxbytes / w.block + 1, err, status);
    if ((status = mmnc_outfile_open(&of, path, err)) != MMNC_OK) goto cleanup;
    w.fp = of.fp;
    memset(h, 0, sizeof h);
    fwrite(h, 1, BIN_HEADER, w.fp); /* rewritten at the end */
    w.pos = BIN_HEADER;

    w_begin(&w, &s[SEC_ROWPTR]);
    w_ints(&w, A->rowptr, A->nrows + 1, 0);
    w_end(&w, &s[SEC_ROWPTR]);
    w_begin(&w, &s[SEC_COLIND]);
    w_ints(&w, A->colind, A->nnz, narrow);
    w_end(&w, &s[SEC_COLIND]);
    w_begin(&w, &s[SEC_VALUES]);
    if (f32) {
        float tmp[1024];
        for (mmnc_int i = 0; i < A->nnz; i += 1024) {
            mmnc_int m = A->nnz - i < 1024 ? A->nnz - i : 1024;
            for (mmnc_int j = 0; j < m; j++) tmp[j] = (float)A->val[i + j];
            w_put(&w, tmp, (size_t)m * 4);
        }
    } else {
        w_put(&w, A->val, (size_t)A->nnz * 8);
    }
    w_end(&w, &s[SEC_VALUES]);
    if (d->row_orig) {
        w_begin(&w, &s[SEC_ROW_ORIG]);
        w_ints(&w, d->row_orig, A->nrows, 0);
        w_end(&w, &s[SEC_ROW_ORIG]);
    }
    if (d->col_orig) {
        w_begin(&w, &s[SEC_COL_ORIG]);
        w_ints(&w, d->col_orig, A->ncols, 0);
        w_end(&w, &s[SEC_COL_ORIG]);
    }
    if (d->row_names) {
        w_begin(&w, &s[SEC_ROW_NAMES]);
        w_names(&w, d->row_names, A->nrows);
        w_end(&w, &s[SEC_ROW_NAMES]);
    }
    if (d->col_names) {
        w_begin(&w, &s[SEC_COL_NAMES]);
        w_names(&w, d->col_names, A->ncols);
        w_end(&w, &s[SEC_COL_NAMES]);
    }

    memcpy(h, MAGIC, 8);
    mmnc_i_put32(h + H_VERSION, BIN_VERSION);
    mmnc_i_put32(h + H_HEADER_BYTES, BIN_HEADER);
    mmnc_i_put64(h + H_FILE_BYTES, w.pos);
    mmnc_i_put32(h + H_FLAGS, 0);
    mmnc_i_put32(h + H_INDEX_BYTES, narrow ? 4 : 8);
    mmnc_i_put32(h + H_VALUE_TYPE, f32 ? VT_F32 : VT_F64);
    mmnc_i_put32(h + H_BLOCK_LOG2, BIN_BLOCK_LOG2);
    mmnc_i_put64(h + H_NROWS, (uint64_t)A->nrows);
    mmnc_i_put64(h + H_NCOLS, (uint64_t)A->ncols);
    mmnc_i_put64(h + H_NNZ, (uint64_t)A->nnz);
    mmnc_i_put64(h + H_ORIG_ROWS, (uint64_t)d->orig_rows);
    mmnc_i_put64(h + H_ORIG_COLS, (uint64_t)d->orig_cols);
    for (int k = 0; k < BIN_NSEC; k++) {
        mmnc_i_put64(h + H_TABLE + H_SLOT * k, s[k].off);
        mmnc_i_put64(h + H_TABLE + H_SLOT * k + 8, s[k].bytes);
        mmnc_i_put64(h + H_TABLE + H_SLOT * k + 16, s[k].sum);
    }
    mmnc_i_put64(h + H_CHECKSUM, mmnc_i_xxh64(h, BIN_HEADER, 0));
    if (fseek(w.fp, 0, SEEK_SET) != 0 || fwrite(h, 1, BIN_HEADER, w.fp) != BIN_HEADER) {
        status = mmnc_i_err(err, MMNC_EIO, "%s: write failed: %s", path, strerror(errno));
        goto cleanup;
    }
    status = mmnc_outfile_commit(&of, err);

cleanup:
    if (status != MMNC_OK && of.path) mmnc_outfile_abort(&of);
    mmnc_i_free(w.buf);
    mmnc_i_free(w.bh);
    return status;
}
