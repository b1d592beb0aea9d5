/*
 * test_binfmt.c -- the binary matrix format: XXH64 against reference
 * digests, round trips (matrix bit for bit, names with NULL entries, id
 * maps, original shape) through mmap and pread, 32- and 64-bit column
 * indices, f32 and f64 values, a matrix spanning many checksum blocks with
 * 1 and 2 threads, truncation at every section boundary, a flipped byte in
 * every section, foreign and newer files, invalid contents behind valid
 * checksums, empty matrices, and every out-of-memory exit.
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "io/io_i.h"
#include "testutil.h"

/* The documented layout (docs/binary-format.md). */
#define HDR 384
#define H_VERSION 8
#define H_FILE_BYTES 16
#define H_CHECKSUM 24
#define H_FLAGS 32
#define H_INDEX_BYTES 36
#define H_VALUE_TYPE 40
#define H_BLOCK_LOG2 44
#define H_TABLE 128
enum { S_ROWPTR, S_COLIND, S_VALUES, S_ROW_ORIG, S_COL_ORIG, S_ROW_NAMES, S_COL_NAMES, S_USED };
static const char *const SNAME[S_USED] = {"rowptr", "column index", "value", "row_orig",
                                          "col_orig", "row name", "column name"};

static uint64_t g64(const unsigned char *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
}
static void p64(unsigned char *p, uint64_t x) { memcpy(p, &x, 8); }
static uint32_t g32(const unsigned char *p)
{
    uint32_t x;
    memcpy(&x, p, 4);
    return x;
}
static void p32(unsigned char *p, uint32_t x) { memcpy(p, &x, 4); }

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    unsigned char *b;
    long len;
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    b = malloc((size_t)len + 1);
    *n = fread(b, 1, (size_t)len, fp);
    fclose(fp);
    return b;
}

/* The bytes b[0..n) in a scratch file (one per process, rewritten by each
 * call, removed at exit); returns its path. */
static char spit_path[256];
static void spit_remove(void) { unlink(spit_path); }
static const char *spit(const unsigned char *b, size_t n)
{
    const char *path = spit_path;
    FILE *fp;
    if (!spit_path[0]) {
        snprintf(spit_path, sizeof spit_path, "%s", test_tmpfile("", ".bin"));
        atexit(spit_remove);
    }
    fp = fopen(path, "wb");
    fwrite(b, 1, n, fp);
    fclose(fp);
    return path;
}

/* Recompute the header checksum after editing header fields. */
static void reseal_header(unsigned char *b)
{
    p64(b + H_CHECKSUM, 0);
    p64(b + H_CHECKSUM, mmnc_i_xxh64(b, HDR, 0));
}

static uint64_t sec_off(const unsigned char *b, int k) { return g64(b + H_TABLE + 32 * k); }
static uint64_t sec_bytes(const unsigned char *b, int k) { return g64(b + H_TABLE + 32 * k + 8); }

/* Section k's checksum and the header's made to match its bytes again,
 * after a test changed them. */
static void reseal_section(unsigned char *b, int k)
{
    uint64_t digest = mmnc_i_xxh64(b + sec_off(b, k), (size_t)sec_bytes(b, k), 0);
    p64(b + H_TABLE + 32 * k + 16, mmnc_i_xxh64(&digest, 8, 0));
    reseal_header(b);
}

/* Read path expecting status code with `what` and the file's name in the message. */
static void expect_read_error(const char *path, int flags, int code, const char *what, int line)
{
    mmnc_data *d = (mmnc_data *)1;
    mmnc_err e = {0, ""};
    int st = mmnc_data_read_bin(path, flags, &d, &e);
    if (st == code && e.code == code && d == NULL && strstr(e.msg, path) &&
        (!what || strstr(e.msg, what)))
        test_passed++;
    else {
        test_failed++;
        fprintf(stderr, "%s:%d: expected %d with '%s', got %d: %s\n", __FILE__, line, code,
                what ? what : "", st, e.msg);
    }
    if (st == MMNC_OK) mmnc_data_free(d);
}
#define EXPECT_READ_ERROR(p, f, c, w) expect_read_error(p, f, c, w, __LINE__)

static int names_equal(char **a, char **b, mmnc_int n)
{
    if (!a || !b) return a == b;
    for (mmnc_int i = 0; i < n; i++) {
        if (!a[i] || !b[i]) {
            if (a[i] != b[i]) return 0;
        } else if (strcmp(a[i], b[i]) != 0) {
            return 0;
        }
    }
    return 1;
}

static int ints_equal(const mmnc_int *a, const mmnc_int *b, mmnc_int n)
{
    if (!a || !b) return a == b;
    return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

static int data_equal(const mmnc_data *a, const mmnc_data *b)
{
    return test_csr_equal(a->A, b->A) && names_equal(a->row_names, b->row_names, a->A->nrows) &&
           names_equal(a->col_names, b->col_names, a->A->ncols) &&
           ints_equal(a->row_orig, b->row_orig, a->A->nrows) &&
           ints_equal(a->col_orig, b->col_orig, a->A->ncols) && a->orig_rows == b->orig_rows &&
           a->orig_cols == b->orig_cols;
}

/* Write d, read it back with each flag combination, compare; returns the path. */
static const char *round_trip(const mmnc_data *d, int line)
{
    const char *path = test_tmpfile("", ".bin");
    mmnc_err e = {0, ""};
    int st = mmnc_data_write_bin(d, path, &e);
    if (st != MMNC_OK) {
        test_failed++;
        fprintf(stderr, "%s:%d: write failed: %s\n", __FILE__, line, e.msg);
        return path;
    }
    for (int flags = 0; flags < 4; flags++) {
        mmnc_data *r = NULL;
        st = mmnc_data_read_bin(path, flags, &r, &e);
        if (st == MMNC_OK && data_equal(d, r)) test_passed++;
        else {
            test_failed++;
            fprintf(stderr, "%s:%d: round trip (flags %d) failed: %d %s\n", __FILE__, line, flags,
                    st, st ? e.msg : "data differ");
        }
        mmnc_data_free(r);
    }
    return path;
}
#define ROUND_TRIP(d) round_trip(d, __LINE__)

static void test_xxh64(void)
{
    unsigned char buf[1280];
    for (int i = 0; i < 1280; i++) buf[i] = (unsigned char)i;
    /* reference digests from the xxHash library (XXH64, seed 0) */
    CHECK(mmnc_i_xxh64("", 0, 0) == 0xEF46DB3751D8E999ULL);
    CHECK(mmnc_i_xxh64("a", 1, 0) == 0xD24EC4F1A98C6E5BULL);
    CHECK(mmnc_i_xxh64("abc", 3, 0) == 0x44BC2CF5AD770999ULL);
    CHECK(mmnc_i_xxh64(buf, 1280, 0) == 0xAFC184AD7938A354ULL);
}

static mmnc_data *read_text(const char *contents, const char *suffix)
{
    mmnc_data *d = NULL;
    mmnc_err e = {0, ""};
    if (mmnc_data_read(test_tmpfile(contents, suffix), NULL, &d, &e) != MMNC_OK)
        fprintf(stderr, "read_text: %s\n", e.msg);
    return d;
}

static void test_round_trip(void)
{
    mmnc_err e = {0, ""};
    mmnc_data *d, *r = NULL;
    const char *path;
    size_t n;
    unsigned char *b;

    /* triplets: string keys, a key whose entries are all zero */
    d = read_text("alice item1 5\nbob item2 3.5\ncarol item1 0\nalice item3 1e-3\n"
                  "d\xc3\xa9j\xc3\xa0 item2 2\n", ".tsv");
    CHECK(d != NULL);
    if (!d) return;
    path = ROUND_TRIP(d);
    /* through mmnc_data_read, detected by the magic */
    CHECK(mmnc_data_read(path, NULL, &r, &e) == MMNC_OK && r && data_equal(d, r));
    mmnc_data_free(r);
    r = NULL;
    /* f64 values (1e-3 is not a float): the header says so */
    b = slurp(path, &n);
    CHECK(g32(b + H_VALUE_TYPE) == 1 && g32(b + H_INDEX_BYTES) == 4);
    CHECK(sec_off(b, S_ROW_NAMES) != 0 && sec_off(b, S_ROW_ORIG) == 0);
    for (int k = 0; k < S_USED; k++) CHECK(sec_off(b, k) % 64 == 0);
    free(b);
    /* after dropping the empty row: id maps */
    CHECK(mmnc_data_drop_empty(d, NULL, NULL, &e) == MMNC_OK && d->row_orig && d->A->nrows == 3);
    ROUND_TRIP(d);
    CHECK(mmnc_data_transpose(d, &e) == MMNC_OK);
    ROUND_TRIP(d);
    /* NULL names among others, and empty strings */
    mmnc_i_free(d->row_names[1]);
    d->row_names[1] = NULL;
    d->row_names[2][0] = '\0';
    ROUND_TRIP(d);
    mmnc_data_free(d);

    /* Matrix Market: counts are stored as floats, ids are identity */
    d = read_text("%%MatrixMarket matrix coordinate integer general\n3 4 4\n1 1 3\n1 4 1\n"
                  "3 2 16777216\n3 3 7\n", ".mtx");
    CHECK(d != NULL);
    if (!d) return;
    path = ROUND_TRIP(d);
    b = slurp(path, &n);
    CHECK(g32(b + H_VALUE_TYPE) == 2 && sec_off(b, S_ROW_NAMES) == 0 && sec_off(b, S_COL_ORIG) == 0);
    CHECK(sec_bytes(b, S_VALUES) == 4 * 4 && sec_bytes(b, S_COLIND) == 4 * 4);
    free(b);
    /* 16777217 is not a float: back to f64 */
    d->A->val[2] = 16777217.0;
    path = ROUND_TRIP(d);
    b = slurp(path, &n);
    CHECK(g32(b + H_VALUE_TYPE) == 1);
    free(b);
    mmnc_data_free(d);
}

/* A 3-row matrix with the given ncols and columns (sorted), filled by hand:
 * mmnc_csr_from_triplets would need O(ncols) memory. */
static mmnc_csr *wide(mmnc_int ncols, const mmnc_int *cols)
{
    mmnc_err e = {0, ""};
    mmnc_csr *A = mmnc_csr_alloc(3, ncols, 4, &e);
    const mmnc_int rowptr[4] = {0, 2, 3, 4};
    const double v[4] = {1, 2, 0.25, 4};
    memcpy(A->rowptr, rowptr, sizeof rowptr);
    memcpy(A->colind, cols, 4 * sizeof *cols);
    memcpy(A->val, v, sizeof v);
    return A;
}

/* Column indices beyond 2^31: stored in 64 bits. */
static void test_wide_indices(void)
{
    mmnc_err e = {0, ""};
    const mmnc_int c64[4] = {5, 3000000000LL, 2147483647LL, 2147483648LL};
    const mmnc_int c32[4] = {5, 2147483646LL, 2147483646LL, 0};
    mmnc_data d = {0};
    const char *path;
    unsigned char *b;
    size_t n;
    d.A = wide(3000000001LL, c64);
    CHECK(mmnc_csr_check(d.A, &e) == MMNC_OK);
    d.orig_rows = 3;
    d.orig_cols = 3000000001LL;
    path = ROUND_TRIP(&d);
    b = slurp(path, &n);
    CHECK(g32(b + H_INDEX_BYTES) == 8 && sec_bytes(b, S_COLIND) == 4 * 8);
    /* a column index beyond ncols in 64 bits */
    p64(b + sec_off(b, S_COLIND) + 8, 3000000001LL);
    EXPECT_READ_ERROR(spit(b, n), MMNC_BIN_NO_VERIFY, MMNC_EFORMAT, "row 1 has column 3000000002");
    free(b);
    mmnc_csr_free(d.A);
    /* ncols = 2^31 - 1 still fits 32 bits */
    d.A = wide(2147483647LL, c32);
    d.orig_cols = 2147483647LL;
    path = ROUND_TRIP(&d);
    b = slurp(path, &n);
    CHECK(g32(b + H_INDEX_BYTES) == 4);
    free(b);
    mmnc_csr_free(d.A);
}

/* A random matrix with about nnz entries, names on the columns. */
static mmnc_data *random_data(mmnc_int nrows, mmnc_int ncols, mmnc_int nnz, int integral,
                              uint64_t seed)
{
    mmnc_rng rng;
    mmnc_int *ri = malloc((size_t)nnz * sizeof *ri), *ci = malloc((size_t)nnz * sizeof *ci);
    double *v = malloc((size_t)nnz * sizeof *v);
    mmnc_data *d = calloc(1, sizeof *d);
    mmnc_err e = {0, ""};
    mmnc_rng_seed(&rng, seed);
    for (mmnc_int t = 0; t < nnz; t++) {
        ri[t] = mmnc_rng_below(&rng, nrows);
        ci[t] = mmnc_rng_below(&rng, ncols);
        v[t] = integral ? (double)(1 + mmnc_rng_below(&rng, 9)) : mmnc_rng_uniform(&rng) + 0.1;
    }
    if (mmnc_csr_from_triplets(nrows, ncols, nnz, ri, ci, v, &d->A, &e) != MMNC_OK) {
        fprintf(stderr, "random_data: %s\n", e.msg);
        exit(1);
    }
    d->orig_rows = nrows;
    d->orig_cols = ncols;
    d->col_names = mmnc_i_calloc((size_t)ncols, sizeof(char *));
    for (mmnc_int j = 0; j < ncols; j++) {
        char buf[32];
        snprintf(buf, sizeof buf, "c%lld", (long long)j * 7919);
        d->col_names[j] = mmnc_i_strdup(buf);
    }
    free(ri);
    free(ci);
    free(v);
    return d;
}

static void test_big(void)
{
    /* 3M entries: colind (4 bytes) and values span 12 to 24 blocks of 1 MB */
    for (int integral = 0; integral < 2; integral++) {
        mmnc_data *d = random_data(100000, 300000, 3000000, integral, 7 + integral);
        const char *path = ROUND_TRIP(d);
#ifdef _OPENMP
        for (int t = 1; t <= 2; t++) {
            mmnc_data *r = NULL;
            mmnc_err e = {0, ""};
            omp_set_num_threads(t);
            CHECK(mmnc_data_read_bin(path, 0, &r, &e) == MMNC_OK && r && data_equal(d, r));
            mmnc_data_free(r);
        }
#endif
        unlink(path);
        mmnc_data_free(d);
    }
}

/* A written file with names and id maps in every section; returns its bytes. */
static unsigned char *sample_file(size_t *n, mmnc_data **dout)
{
    mmnc_err e = {0, ""};
    mmnc_data *d = read_text("r1 c1 1\nr1 c2 2\nr2 c1 3\nr3 c3 0.5\nr4 c4 0\n", ".tsv");
    const char *path = test_tmpfile("", ".bin");
    mmnc_data_drop_empty(d, NULL, NULL, &e);
    unsigned char *b;
    CHECK(mmnc_data_write_bin(d, path, &e) == MMNC_OK);
    *dout = d;
    b = slurp(path, n);
    unlink(path);
    return b;
}

static void test_truncated(void)
{
    size_t n;
    mmnc_data *d;
    unsigned char *b = sample_file(&n, &d);
    size_t cuts[64];
    int nc = 0;
    size_t fixed[] = {1, 4, 7, 8, 11, 12, 20, 24, 100, HDR - 1, HDR};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) cuts[nc++] = fixed[i];
    for (int k = 0; k < S_USED; k++) {
        uint64_t off = sec_off(b, k), len = sec_bytes(b, k);
        CHECK(off != 0); /* the sample has every section */
        cuts[nc++] = (size_t)off;
        if (len > 1) cuts[nc++] = (size_t)(off + len / 2);
        if (off + len < n) cuts[nc++] = (size_t)(off + len);
    }
    cuts[nc++] = n - 1;
    for (int i = 0; i < nc; i++) {
        const char *path = spit(b, cuts[i]);
        char what[96];
        mmnc_data *r = (mmnc_data *)1;
        mmnc_err e = {0, ""};
        if (cuts[i] >= 24)
            snprintf(what, sizeof what, "truncated: header says %zu bytes, file has %zu", n, cuts[i]);
        else
            snprintf(what, sizeof what, "truncated: file has %zu bytes", cuts[i]);
        EXPECT_READ_ERROR(path, 0, MMNC_EFORMAT, what);
        /* the same through mmnc_data_read (auto-detected even when cut inside the magic) */
        CHECK(mmnc_data_read(path, NULL, &r, &e) == MMNC_EFORMAT && r == NULL &&
              strstr(e.msg, "truncated"));
    }
    EXPECT_READ_ERROR(spit(b, 0), 0, MMNC_EFORMAT, "file is empty");
    /* trailing bytes are refused too */
    {
        unsigned char *c = malloc(n + 3);
        memcpy(c, b, n);
        memset(c + n, 0, 3);
        EXPECT_READ_ERROR(spit(c, n + 3), 0, MMNC_EFORMAT, "3 bytes of unexpected data after the end");
        free(c);
    }
    free(b);
    mmnc_data_free(d);
}

static void test_flipped(void)
{
    size_t n;
    mmnc_data *d, *r;
    unsigned char *b = sample_file(&n, &d);
    mmnc_err e = {0, ""};
    for (int k = 0; k < S_USED; k++) {
        uint64_t off = sec_off(b, k), len = sec_bytes(b, k);
        for (uint64_t at = off; at < off + len; at += len / 3 + 1) {
            char what[64];
            b[at] ^= 0x10;
            snprintf(what, sizeof what, "checksum mismatch in the %s section", SNAME[k]);
            EXPECT_READ_ERROR(spit(b, n), 0, MMNC_EFORMAT, what);
            EXPECT_READ_ERROR(spit(b, n), MMNC_BIN_NO_MMAP, MMNC_EFORMAT, what);
            b[at] ^= 0x10;
        }
    }
    /* every header byte is covered by the header checksum */
    for (size_t at = 12; at < HDR; at += 13) {
        b[at] ^= 0x01;
        EXPECT_READ_ERROR(spit(b, n), 0, MMNC_EFORMAT, "corrupt header (checksum mismatch)");
        b[at] ^= 0x01;
    }
    /* padding between sections is not part of any section */
    {
        uint64_t pad = sec_off(b, S_ROWPTR) + sec_bytes(b, S_ROWPTR);
        CHECK(pad < sec_off(b, S_COLIND));
        b[pad] ^= 0xff;
        r = NULL;
        CHECK(mmnc_data_read_bin(spit(b, n), 0, &r, &e) == MMNC_OK && r && data_equal(d, r));
        mmnc_data_free(r);
        b[pad] ^= 0xff;
    }
    /* the untouched file still reads */
    r = NULL;
    CHECK(mmnc_data_read_bin(spit(b, n), 0, &r, &e) == MMNC_OK && r && data_equal(d, r));
    mmnc_data_free(r);
    free(b);
    mmnc_data_free(d);
}

static void test_foreign_and_newer(void)
{
    size_t n;
    mmnc_data *d;
    unsigned char *b = sample_file(&n, &d);
    mmnc_read_opts o;
    mmnc_data *r = (mmnc_data *)1;
    mmnc_err e = {0, ""};
    const char *txt = test_tmpfile("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n", ".mtx");
    EXPECT_READ_ERROR(txt, 0, MMNC_EFORMAT, "not an mmnc binary matrix (bad magic)");
    EXPECT_READ_ERROR(test_tmpfile("\x89PNG\r\n\x1a\n0000000000000000", ".png"), 0, MMNC_EFORMAT,
                      "bad magic");
    /* --format bin on a text file */
    mmnc_read_opts_default(&o);
    o.format = MMNC_FMT_BIN;
    CHECK(mmnc_data_read(txt, &o, &r, &e) == MMNC_EFORMAT && r == NULL && strstr(e.msg, "bad magic"));
    EXPECT_READ_ERROR("/nonexistent/x.bin", 0, MMNC_EIO, "cannot open");
    EXPECT_READ_ERROR(MMNC_SOURCE_DIR, 0, MMNC_EIO, "regular file");

    /* a newer version is named, whether or not its header checks out */
    p32(b + H_VERSION, 2);
    EXPECT_READ_ERROR(spit(b, n), 0, MMNC_EFORMAT,
                      "format version 2 is newer than this mmnc supports (1)");
    reseal_header(b);
    EXPECT_READ_ERROR(spit(b, n), 0, MMNC_EFORMAT,
                      "format version 2 is newer than this mmnc supports (1)");
    EXPECT_READ_ERROR(spit(b, 40), 0, MMNC_EFORMAT, "format version 2 is newer");
    p32(b + H_VERSION, 1);
    /* unknown required features */
    p32(b + H_FLAGS, 4);
    reseal_header(b);
    EXPECT_READ_ERROR(spit(b, n), 0, MMNC_EFORMAT, "does not support (flags 0x4)");
    p32(b + H_FLAGS, 0);
    /* invalid header fields behind a valid header checksum */
    p32(b + H_INDEX_BYTES, 2);
    reseal_header(b);
    EXPECT_READ_ERROR(spit(b, n), 0, MMNC_EFORMAT, "invalid header");
    p32(b + H_INDEX_BYTES, 4);
    p32(b + H_BLOCK_LOG2, 40);
    reseal_header(b);
    EXPECT_READ_ERROR(spit(b, n), 0, MMNC_EFORMAT, "invalid header");
    p32(b + H_BLOCK_LOG2, 20);
    p64(b + H_TABLE + 32 * S_COLIND, sec_off(b, S_COLIND) + 8); /* misaligned */
    reseal_header(b);
    EXPECT_READ_ERROR(spit(b, n), 0, MMNC_EFORMAT, "misplaced");
    p64(b + H_TABLE + 32 * S_COLIND, sec_off(b, S_COLIND) - 8);
    p64(b + H_TABLE + 32 * 7, 64); /* an unknown section */
    reseal_header(b);
    EXPECT_READ_ERROR(spit(b, n), 0, MMNC_EFORMAT, "unknown section 7");
    p64(b + H_TABLE + 32 * 7, 0);
    p64(b + 48, 1000); /* nrows: the rowptr section no longer fits */
    reseal_header(b);
    EXPECT_READ_ERROR(spit(b, n), 0, MMNC_EFORMAT, "the rowptr section has");
    free(b);
    mmnc_data_free(d);
}

/* Invalid contents behind matching checksums (read with MMNC_BIN_NO_VERIFY,
 * which skips only the checksums): every check still fires. */
static void test_invalid_contents(void)
{
    size_t n;
    mmnc_data *d;
    unsigned char *b = sample_file(&n, &d);
    const int NV = MMNC_BIN_NO_VERIFY;
    uint64_t rp = sec_off(b, S_ROWPTR), ci = sec_off(b, S_COLIND), va = sec_off(b, S_VALUES);
    uint64_t ro = sec_off(b, S_ROW_ORIG), rn = sec_off(b, S_ROW_NAMES);
    uint64_t save;
    float f;
    /* sample: rows r1 r2 r3 (3 x 3 after dropping r4, c4), entries (0,0) (0,1) (1,0) (2,2) */
    CHECK(d->A->nrows == 3 && d->A->nnz == 4 && g32(b + H_INDEX_BYTES) == 4 &&
          g32(b + H_VALUE_TYPE) == 2);
    save = g64(b + rp + 8);
    p64(b + rp + 8, 5);
    EXPECT_READ_ERROR(spit(b, n), NV, MMNC_EFORMAT, "invalid rowptr: row 1 ends at 5");
    p64(b + rp + 8, save);
    p64(b + rp, 1);
    EXPECT_READ_ERROR(spit(b, n), NV, MMNC_EFORMAT, "rowptr[0] = 1, expected 0");
    p64(b + rp, 0);
    p32(b + ci + 4, 7);
    EXPECT_READ_ERROR(spit(b, n), NV, MMNC_EFORMAT, "row 1 has column 8, but the matrix has 3 columns");
    p32(b + ci + 4, 0);
    EXPECT_READ_ERROR(spit(b, n), NV, MMNC_EFORMAT, "row 1 has column 1 after 1");
    p32(b + ci + 4, 1);
    f = -1.0f;
    memcpy(b + va + 8, &f, 4);
    EXPECT_READ_ERROR(spit(b, n), NV, MMNC_EFORMAT, "invalid value -1 at row 2, column 1");
    f = 1.0f / 0.0f;
    memcpy(b + va + 8, &f, 4);
    EXPECT_READ_ERROR(spit(b, n), NV, MMNC_EFORMAT, "invalid value inf");
    f = 3.0f;
    memcpy(b + va + 8, &f, 4);
    p64(b + ro + 16, 4);
    EXPECT_READ_ERROR(spit(b, n), NV, MMNC_EFORMAT, "invalid row_orig: entry 2 is 4, outside 0..3");
    p64(b + ro + 16, 2);
    /* names: offsets r1\0 r2\0 r3\0 = 0 3 6 9 */
    CHECK(g64(b + rn + 8) == 3 && b[rn + 32 + 2] == 0);
    b[rn + 32 + 2] = 'x'; /* "r1" loses its NUL */
    EXPECT_READ_ERROR(spit(b, n), NV, MMNC_EFORMAT, "row name table: entry 0 is not one NUL-terminated");
    b[rn + 32 + 2] = 0;
    p64(b + rn + 16, 2); /* offsets go backwards */
    EXPECT_READ_ERROR(spit(b, n), NV, MMNC_EFORMAT, "invalid row name table: offset 2 is 2");
    p64(b + rn + 16, 6);
    {
        mmnc_data *r = NULL;
        mmnc_err e = {0, ""};
        CHECK(mmnc_data_read_bin(spit(b, n), NV, &r, &e) == MMNC_OK && r && data_equal(d, r));
        mmnc_data_free(r);
    }
    free(b);
    mmnc_data_free(d);
}

/* Unsorted columns exactly where a block starts, in a file of many blocks:
 * the joint check (and mmap vs pread, 1 vs 2 threads) find it. */
static void test_block_joints(void)
{
    mmnc_data *d = random_data(1000, 5000, 800000, 1, 3);
    const char *path = test_tmpfile("", ".bin");
    mmnc_err e = {0, ""};
    unsigned char *b;
    size_t n;
    mmnc_int e0 = (1 << 20) / 4, row = 0; /* first entry of the second colind block */
    char bad[256];
    CHECK(mmnc_data_write_bin(d, path, &e) == MMNC_OK);
    b = slurp(path, &n);
    while (d->A->rowptr[row + 1] <= e0) row++;
    CHECK(d->A->rowptr[row] < e0 && d->A->rowptr[row + 1] > e0 + 1); /* inside a row */
    p32(b + sec_off(b, S_COLIND) + 4 * (uint64_t)e0, (uint32_t)d->A->colind[e0 - 1]);
    unlink(path);
    snprintf(bad, sizeof bad, "%s", spit(b, n));
    /* bad is the scratch file: nothing below calls spit() */
    for (int t = 1; t <= 2; t++) {
        char what[128];
#ifdef _OPENMP
        omp_set_num_threads(t);
#endif
        snprintf(what, sizeof what, "row %lld has column %lld after %lld", (long long)row + 1,
                 (long long)d->A->colind[e0 - 1] + 1, (long long)d->A->colind[e0 - 1] + 1);
        EXPECT_READ_ERROR(bad, MMNC_BIN_NO_VERIFY, MMNC_EFORMAT, what);
        EXPECT_READ_ERROR(bad, MMNC_BIN_NO_VERIFY | MMNC_BIN_NO_MMAP, MMNC_EFORMAT, what);
        EXPECT_READ_ERROR(bad, 0, MMNC_EFORMAT, "checksum mismatch in the column index section");
    }
    free(b);
    mmnc_data_free(d);
}

static void test_empty(void)
{
    mmnc_err e = {0, ""};
    mmnc_data d = {0}, *r = (mmnc_data *)1;
    const char *path;
    /* 0 x 0 and 3 x 2 without entries: written and read back as they are ... */
    for (int t = 0; t < 2; t++) {
        d.A = mmnc_csr_alloc(t ? 3 : 0, t ? 2 : 0, 0, &e);
        d.orig_rows = d.A->nrows;
        d.orig_cols = d.A->ncols;
        path = ROUND_TRIP(&d);
        /* ... but refused by mmnc_data_read, as the text readers do */
        r = (mmnc_data *)1;
        CHECK(mmnc_data_read(path, NULL, &r, &e) == MMNC_EINVAL && r == NULL &&
              strstr(e.msg, "has no nonzero entries") && strstr(e.msg, path));
        mmnc_csr_free(d.A);
    }
    /* the same message as for a text file without entries */
    r = (mmnc_data *)1;
    CHECK(mmnc_data_read(test_tmpfile("%%MatrixMarket matrix coordinate real general\n3 2 0\n", ".mtx"),
                         NULL, &r, &e) == MMNC_EINVAL && strstr(e.msg, "has no nonzero entries"));
}

static void test_write_errors(void)
{
    mmnc_err e = {0, ""};
    mmnc_data *d = read_text("a x 1\nb y 2\n", ".tsv");
    char path[256];
    snprintf(path, sizeof path, "%s", test_tmpfile("", ".bin"));
    unlink(path);
    /* invalid matrix */
    d->A->val[1] = -2;
    CHECK(mmnc_data_write_bin(d, path, &e) == MMNC_EINVAL && strstr(e.msg, "negative") &&
          access(path, F_OK) != 0);
    d->A->val[1] = 2;
    /* id map out of range */
    d->row_orig = mmnc_i_malloc(2, sizeof(mmnc_int));
    d->row_orig[0] = 0, d->row_orig[1] = 2;
    CHECK(mmnc_data_write_bin(d, path, &e) == MMNC_EINVAL && strstr(e.msg, "row_orig[1] = 2") &&
          access(path, F_OK) != 0);
    d->row_orig[1] = 1;
    /* unwritable place */
    CHECK(mmnc_data_write_bin(d, "/nonexistent/dir/x.bin", &e) == MMNC_EIO &&
          strstr(e.msg, "/nonexistent/dir/x.bin"));
    CHECK(mmnc_data_write_bin(NULL, path, &e) == MMNC_EINVAL);
    CHECK(mmnc_data_read_bin(path, 0, NULL, &e) == MMNC_EINVAL);
    mmnc_data_free(d);
}

/* A subnormal value, which only a file of 64-bit values can hold: the
 * reader refuses it naming the entry, as the text readers refuse "1e-310",
 * in the whole file and in a part; the writer will not write one. */
static void test_subnormal(void)
{
    mmnc_err e = {0, ""};
    mmnc_data *d = read_text("a x 0.1\na y 2\nb y 3\n", ".tsv"), *r = NULL;
    const char *path = test_tmpfile("", ".bin");
    unsigned char *b;
    size_t n;
    uint64_t va;
    double v = 1e-310;
    mmnc_int y0;
    CHECK_OK(mmnc_data_write_bin(d, path, &e));
    b = slurp(path, &n);
    CHECK(b && g32(b + H_VALUE_TYPE) == 1);
    if (!b) return;
    va = sec_off(b, S_VALUES);
    for (int t = 0; t < 2; t++) {
        memcpy(b + va + 8, &v, 8); /* row a, column y; then the checksums made to match */
        reseal_section(b, S_VALUES);
        if (t == 0) {
            EXPECT_READ_ERROR(spit(b, n), 0, MMNC_EFORMAT,
                              "value 1e-310 at row 1, column 2 is below DBL_MIN = 2.2250738585072014e-308");
            CHECK(mmnc_data_read_part(spit(b, n), NULL, 0, 2, NULL, &r, &y0, &e) == MMNC_EFORMAT &&
                  strstr(e.msg, "value 1e-310 at row 1, column 2 is below DBL_MIN") && r == NULL);
            v = DBL_MIN; /* the smallest normal double is a value */
        } else {
            CHECK(mmnc_data_read_bin(spit(b, n), 0, &r, &e) == MMNC_OK && r && r->A->val[1] == DBL_MIN);
            mmnc_data_free(r);
        }
    }
    free(b);
    d->A->val[1] = 1e-310;
    CHECK(mmnc_data_write_bin(d, path, &e) == MMNC_EINVAL && strstr(e.msg, "row 1, column 2 is below DBL_MIN"));
    mmnc_data_free(d);
}

/* Ids are distinct: the writer will not write a row (column) name twice, nor
 * a name that is the number of a row without one; the reader refuses a file
 * that holds one, in the whole file and in part 0 (which checks every row). */
static void test_repeated_names(void)
{
    mmnc_err e = {0, ""};
    mmnc_data *d = read_text("r1 x 1\nr2 y 2\nr3 x 3\n", ".tsv"), *r = NULL;
    const char *path = test_tmpfile("", ".bin");
    unsigned char *b;
    size_t n;
    uint64_t at;
    mmnc_int y0;
    char *keep;
    if (!d) return;
    CHECK_OK(mmnc_data_write_bin(d, path, &e));
    b = slurp(path, &n);
    if (!b) return;
    /* "r1\0r2\0r3\0" after the 4 offsets: r3 made r1, the checksums made to match */
    at = sec_off(b, S_ROW_NAMES);
    CHECK(!memcmp(b + at + 32, "r1\0r2\0r3", 9));
    b[at + 32 + 7] = '1';
    reseal_section(b, S_ROW_NAMES);
    EXPECT_READ_ERROR(spit(b, n), 0, MMNC_EFORMAT, "row id 'r1' is given to rows 1 and 3 (1-based)");
    CHECK(mmnc_data_read_part(spit(b, n), NULL, 0, 2, NULL, &r, &y0, &e) == MMNC_EFORMAT &&
          strstr(e.msg, "row id 'r1' is given to rows 1 and 3") && r == NULL);
    free(b);
    /* the writer */
    unlink(path);
    keep = d->row_names[2];
    d->row_names[2] = d->row_names[0];
    CHECK(mmnc_data_write_bin(d, path, &e) == MMNC_EINVAL &&
          strstr(e.msg, "cannot write: row id 'r1' is given to rows 1 and 3") && access(path, F_OK) != 0);
    d->row_names[2] = keep;
    keep = d->col_names[1];
    d->col_names[1] = d->col_names[0];
    CHECK(mmnc_data_write_bin(d, path, &e) == MMNC_EINVAL &&
          strstr(e.msg, "cannot write: column id 'x' is given to columns 1 and 2") && access(path, F_OK) != 0);
    d->col_names[1] = keep;
    /* row 2 without a name is known as 2, which row 3 is named */
    keep = d->row_names[1];
    d->row_names[1] = NULL;
    strcpy(d->row_names[2], "2");
    CHECK(mmnc_data_write_bin(d, path, &e) == MMNC_EINVAL && strstr(e.msg, "row id '2' is given to rows 2 and 3"));
    d->row_names[1] = keep;
    mmnc_data_free(d);
}

/* The part reader checks the id maps as the whole-file reader does: an
 * entry outside the original shape behind a valid checksum is refused, in
 * the rows of the part, in the rows part 0 checks for all, in the columns. */
static void test_part_orig_range(void)
{
    size_t n;
    mmnc_data *d, *r = NULL;
    mmnc_err e = {0, ""};
    mmnc_int y0;
    unsigned char *b = sample_file(&n, &d);
    uint64_t ro = sec_off(b, S_ROW_ORIG), co = sec_off(b, S_COL_ORIG);
    /* sample: 3 of 4 rows, 3 of 4 columns; row 3's original index made 4, then -1 */
    CHECK(ro && co && d->orig_rows == 4 && d->orig_cols == 4 && g64(b + ro + 16) == 2);
    for (int bad = 0; bad < 2; bad++) {
        p64(b + ro + 16, bad ? (uint64_t)-1 : 4);
        reseal_section(b, S_ROW_ORIG);
        EXPECT_READ_ERROR(spit(b, n), 0, MMNC_EFORMAT, "invalid row_orig: entry 2 is");
        for (int part = 0; part < 3; part += 2) { /* part 2 of 3 holds row 3; part 0 checks all rows */
            CHECK(mmnc_data_read_part(spit(b, n), NULL, part, 3, NULL, &r, &y0, &e) == MMNC_EFORMAT &&
                  strstr(e.msg, "invalid row_orig: entry 2 is") && strstr(e.msg, "outside 0..3") && r == NULL);
            mmnc_data_free(r);
            r = NULL;
        }
    }
    p64(b + ro + 16, 2);
    reseal_section(b, S_ROW_ORIG);
    p64(b + co + 8, 9);
    reseal_section(b, S_COL_ORIG);
    EXPECT_READ_ERROR(spit(b, n), 0, MMNC_EFORMAT, "invalid col_orig: entry 1 is 9, outside 0..3");
    CHECK(mmnc_data_read_part(spit(b, n), NULL, 1, 3, NULL, &r, &y0, &e) == MMNC_EFORMAT &&
          strstr(e.msg, "invalid col_orig: entry 1 is 9, outside 0..3") && r == NULL);
    mmnc_data_free(r);
    free(b);
    mmnc_data_free(d);
}

/* Without names a row's id is its 1-based original index: two rows (columns)
 * with one row_orig (col_orig) entry have one id, refused as a repeated name
 * is, by the writer, the reader and the part reader (columns on every part,
 * rows on part 0), for an original shape near the rows' and one far above. */
static void test_repeated_orig(void)
{
    mmnc_err e = {0, ""};
    mmnc_data *d = read_text("%%MatrixMarket matrix coordinate integer general\n6 6 4\n2 1 1\n4 3 2\n6 5 3\n"
                             "6 1 1\n", ".mtx"), *r = NULL;
    const char *path = test_tmpfile("", ".bin");
    unsigned char *b;
    size_t n;
    uint64_t ro, co;
    mmnc_int y0, keep;
    if (!d) return;
    /* rows 2, 4, 6 and columns 1, 3, 5 of 6 x 6 left: no names, both id maps */
    CHECK_OK(mmnc_data_drop_empty(d, NULL, NULL, &e));
    CHECK(d->A->nrows == 3 && d->A->ncols == 3 && d->row_orig && d->col_orig && !d->row_names && !d->col_names);
    if (!d->row_orig || !d->col_orig || d->A->nrows != 3 || d->A->ncols != 3) goto done;
    CHECK(d->row_orig[0] == 1 && d->row_orig[1] == 3 && d->row_orig[2] == 5 && d->col_orig[1] == 2);
    CHECK_OK(mmnc_data_write_bin(d, path, &e));
    b = slurp(path, &n);
    if (!b) goto done;
    /* the reader: row_orig 1 3 3 (ids 2 4 4), the checksums made to match */
    ro = sec_off(b, S_ROW_ORIG);
    co = sec_off(b, S_COL_ORIG);
    CHECK(ro && co && g64(b + ro + 16) == 5 && g64(b + co) == 0);
    p64(b + ro + 16, 3);
    reseal_section(b, S_ROW_ORIG);
    EXPECT_READ_ERROR(spit(b, n), 0, MMNC_EFORMAT, "row id '4' is given to rows 2 and 3 (1-based)");
    CHECK(mmnc_data_read_part(spit(b, n), NULL, 0, 2, NULL, &r, &y0, &e) == MMNC_EFORMAT &&
          strstr(e.msg, "row id '4' is given to rows 2 and 3") && r == NULL);
    mmnc_data_free(r);
    r = NULL;
    p64(b + ro + 16, 5);
    reseal_section(b, S_ROW_ORIG);
    /* col_orig 2 2 4 (ids 3 3 5): every part checks the columns */
    p64(b + co, 2);
    reseal_section(b, S_COL_ORIG);
    EXPECT_READ_ERROR(spit(b, n), 0, MMNC_EFORMAT, "column id '3' is given to columns 1 and 2 (1-based)");
    for (int part = 0; part < 2; part++) {
        CHECK(mmnc_data_read_part(spit(b, n), NULL, part, 2, NULL, &r, &y0, &e) == MMNC_EFORMAT &&
              strstr(e.msg, "column id '3' is given to columns 1 and 2") && r == NULL);
        mmnc_data_free(r);
        r = NULL;
    }
    free(b);
    /* the writer, nothing written */
    unlink(path);
    keep = d->row_orig[2];
    d->row_orig[2] = d->row_orig[1];
    CHECK(mmnc_data_write_bin(d, path, &e) == MMNC_EINVAL &&
          strstr(e.msg, "cannot write: row id '4' is given to rows 2 and 3 (1-based)") && access(path, F_OK) != 0);
    d->row_orig[2] = keep;
    keep = d->col_orig[2];
    d->col_orig[2] = d->col_orig[0];
    CHECK(mmnc_data_write_bin(d, path, &e) == MMNC_EINVAL &&
          strstr(e.msg, "cannot write: column id '1' is given to columns 1 and 3 (1-based)") && access(path, F_OK) != 0);
    d->col_orig[2] = keep;
    /* rows of a far larger original set (their values sorted, not a bitmap of
     * the original rows): the first repeat is named, distinct ones pass */
    d->orig_rows = (mmnc_int)1 << 40;
    d->row_orig[0] = d->orig_rows - 1;
    d->row_orig[1] = 7;
    d->row_orig[2] = d->orig_rows - 1;
    CHECK(mmnc_data_write_bin(d, path, &e) == MMNC_EINVAL &&
          strstr(e.msg, "row id '1099511627776' is given to rows 1 and 3 (1-based)") && access(path, F_OK) != 0);
    d->row_orig[1] = d->orig_rows - 1;
    d->row_orig[2] = 7;
    CHECK(mmnc_data_write_bin(d, path, &e) == MMNC_EINVAL && strstr(e.msg, "row id '1099511627776' is given to rows 1 and 2"));
    d->row_orig[0] = 0;
    CHECK(mmnc_data_write_bin(d, path, &e) == MMNC_OK);
    ROUND_TRIP(d);
    /* every allocation of the check failing: MMNC_ENOMEM, in both ways */
    for (int big = 0; big < 2; big++) {
        int bad = 0, failures = 0;
        d->orig_rows = big ? (mmnc_int)1 << 40 : 6;
        d->row_orig[0] = 1;
        d->row_orig[1] = 3;
        d->row_orig[2] = 5;
        unlink(path);
        for (long k = 1;; k++) {
            int st;
            mmnc_i_fail_after(k);
            st = mmnc_data_write_bin(d, path, &e);
            mmnc_i_fail_after(0);
            if (st == MMNC_OK) break;
            failures++;
            bad += st != MMNC_ENOMEM || access(path, F_OK) == 0;
        }
        for (int whole = 0; whole < 2; whole++)
            for (long k = 1;; k++) {
                int st;
                mmnc_i_fail_after(k);
                st = whole ? mmnc_data_read_bin(path, 0, &r, &e) : mmnc_data_read_part(path, NULL, 0, 2, NULL, &r, &y0, &e);
                mmnc_i_fail_after(0);
                if (st == MMNC_OK) {
                    bad += !r || r->row_orig[0] != 1;
                    mmnc_data_free(r);
                    r = NULL;
                    break;
                }
                failures++;
                bad += st != MMNC_ENOMEM || r != NULL;
            }
        CHECK(bad == 0 && failures > 10);
    }
done:
    mmnc_data_free(d);
}

static void test_out_of_memory(void)
{
    size_t n;
    mmnc_data *d;
    unsigned char *b = sample_file(&n, &d);
    const char *in = spit(b, n);
    char out[256];
    mmnc_err e = {0, ""};
    int bad = 0, failures = 0;
    snprintf(out, sizeof out, "%s", test_tmpfile("", ".bin"));
    unlink(out);
    for (int flags = 0; flags < 4; flags++) {
        for (long k = 1;; k++) {
            mmnc_data *r = (mmnc_data *)1;
            int st;
            mmnc_i_fail_after(k);
            st = mmnc_data_read_bin(in, flags, &r, &e);
            mmnc_i_fail_after(0);
            if (st == MMNC_OK) {
                bad += !data_equal(d, r);
                mmnc_data_free(r);
                break;
            }
            failures++;
            bad += st != MMNC_ENOMEM || r != NULL;
        }
    }
    for (long k = 1;; k++) {
        int st;
        mmnc_i_fail_after(k);
        st = mmnc_data_write_bin(d, out, &e);
        mmnc_i_fail_after(0);
        if (st == MMNC_OK) break;
        failures++;
        bad += st != MMNC_ENOMEM || access(out, F_OK) == 0;
    }
    CHECK(bad == 0 && failures > 20);
    free(b);
    mmnc_data_free(d);
}

/* Row parts (distributed runs): the parts of a binary file and of a text
 * file, concatenated, are the whole, with the file's row ids; the same
 * rows for both; empty parts when there are more parts than rows. */
static void test_parts(void)
{
    mmnc_err e = {0, ""};
    mmnc_csr *A = test_random_csr(300, 70, 0.05, 11);
    mmnc_data whole = {0}, *w2 = NULL;
    char mtx[64];
    const char *bin;
    CHECK(A != NULL);
    if (!A) return;
    whole.A = A;
    whole.orig_rows = A->nrows;
    whole.orig_cols = A->ncols;
    bin = ROUND_TRIP(&whole);
    snprintf(mtx, sizeof mtx, "%s", test_tmpfile("", ".mtx"));
    CHECK_OK(mmnc_csr_write_mtx(A, mtx, &e));
    CHECK_OK(mmnc_data_read(mtx, NULL, &w2, &e));
    for (int nparts = 1; nparts <= 7; nparts += 2) {
        for (int f = 0; f < 2; f++) {
            mmnc_int next = 0, enext = 0;
            for (int r = 0; r < nparts; r++) {
                mmnc_data *d = NULL;
                mmnc_int y0 = -1;
                if (mmnc_data_read_part(f ? mtx : bin, NULL, r, nparts, NULL, &d, &y0, &e) != MMNC_OK) {
                    CHECK(!"read_part");
                    fprintf(stderr, "  %s\n", e.msg);
                    continue;
                }
                CHECK(y0 == next);
                for (mmnc_int i = 0; i < d->A->nrows; i++) {
                    mmnc_int y = y0 + i, len = d->A->rowptr[i + 1] - d->A->rowptr[i];
                    CHECK(d->row_orig && d->row_orig[i] == y);
                    CHECK(len == A->rowptr[y + 1] - A->rowptr[y]);
                    for (mmnc_int q = 0; q < len; q++) {
                        CHECK(d->A->colind[d->A->rowptr[i] + q] == A->colind[A->rowptr[y] + q]);
                        CHECK(d->A->val[d->A->rowptr[i] + q] == A->val[A->rowptr[y] + q]);
                    }
                    enext += len;
                }
                CHECK(d->A->ncols == A->ncols && d->orig_rows == A->nrows);
                /* balanced by nonzeros: no part is far above its share */
                CHECK(d->A->nnz <= A->nnz / nparts + A->ncols);
                next = y0 + d->A->nrows;
                mmnc_data_free(d);
            }
            CHECK(next == A->nrows && enext == A->nnz);
        }
    }
    /* more parts than rows */
    {
        mmnc_data *d = NULL;
        mmnc_int y0 = 0;
        CHECK_OK(mmnc_data_read_part(bin, NULL, 500, 1000, NULL, &d, &y0, &e));
        CHECK(d && d->A->nrows <= 1);
        mmnc_data_free(d);
        CHECK(mmnc_data_read_part(bin, NULL, 3, 3, NULL, &d, &y0, &e) == MMNC_EINVAL);
    }
    /* every part verifies the whole file's checksums (dist NULL: all blocks) */
    {
        size_t n;
        unsigned char *b = slurp(bin, &n);
        mmnc_data *d = NULL;
        mmnc_int y0 = 0;
        CHECK(b != NULL);
        if (b) {
            b[n - 3] ^= 0x40;
            CHECK(mmnc_data_read_part(spit(b, n), NULL, 0, 4, NULL, &d, &y0, &e) == MMNC_EFORMAT &&
                  strstr(e.msg, "checksum mismatch") && d == NULL);
            free(b);
        }
    }
    mmnc_data_free(w2);
    mmnc_csr_free(A);
}

int main(void)
{
    test_xxh64();
    test_round_trip();
    test_wide_indices();
    test_big();
    test_truncated();
    test_flipped();
    test_foreign_and_newer();
    test_invalid_contents();
    test_block_joints();
    test_empty();
    test_write_errors();
    test_subnormal();
    test_repeated_names();
    test_part_orig_range();
    test_repeated_orig();
    test_out_of_memory();
    test_parts();
    return test_done();
}
