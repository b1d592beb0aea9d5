/*
 * test_io.c -- reading data sets, labels and names: every text format,
 * plain and gzip, format detection, every kind of bad input (status code and
 * a message naming file and line), the Reuters-21578 files when present, and
 * every out-of-memory exit.  The parallel Matrix Market reader: large
 * generated files read with 1 and 2 threads and tiny blocks give the same
 * bits, and the first error in file order on its line.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#ifdef MMNC_HAVE_MATIO
#include <matio.h>
#endif

#include "io/io_i.h"
#include "testutil.h"

#define REUTERS_DIR MMNC_SOURCE_DIR "/../shared/data/reuters21578/"

static double entry(const mmnc_csr *A, mmnc_int i, mmnc_int j)
{
    for (mmnc_int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
        if (A->colind[p] == j) return A->val[p];
    return 0.0;
}


/* A gzip file with the given contents; path in a static buffer per call. */
static const char *gz_tmpfile(const char *contents, const char *suffix)
{
    const char *path = test_tmpfile("", suffix);
    gzFile gz = gzopen(path, "wb");
    gzwrite(gz, contents, (unsigned)strlen(contents));
    gzclose(gz);
    return path;
}

static long file_size(const char *path)
{
    FILE *fp = fopen(path, "rb");
    long n;
    fseek(fp, 0, SEEK_END);
    n = ftell(fp);
    fclose(fp);
    return n;
}

/* Read `contents` (plain file) with format fmt and expect status `code`, a
 * message naming the file and (if line > 0) ":line:", and containing what. */
static void expect_error(const char *contents, int gz, mmnc_format fmt, int code, int line,
                         const char *what, int srcline)
{
    const char *path = gz ? gz_tmpfile(contents, ".txt.gz") : test_tmpfile(contents, ".txt");
    const char *base = strrchr(path, '/') + 1;
    mmnc_read_opts o;
    mmnc_data *d = (mmnc_data *)1;
    mmnc_err e = {0, ""};
    char tag[32];
    int st, ok;
    mmnc_read_opts_default(&o);
    o.format = fmt;
    st = mmnc_data_read(path, &o, &d, &e);
    snprintf(tag, sizeof tag, ":%d:", line);
    ok = st == code && e.code == code && d == NULL && strstr(e.msg, base) != NULL &&
         (line <= 0 || strstr(e.msg, tag) != NULL) && (!what || strstr(e.msg, what) != NULL);
    if (ok) test_passed++;
    else {
        test_failed++;
        fprintf(stderr, "%s:%d: expected status %d at line %d with '%s'; got %d: %s\n",
                __FILE__, srcline, code, line, what ? what : "", st, e.msg);
    }
}
#define EXPECT_ERROR(c, gz, fmt, code, line, what) \
    expect_error(c, gz, fmt, code, line, what, __LINE__)

static mmnc_data *read_ok(const char *path, const mmnc_read_opts *o, int srcline)
{
    mmnc_data *d = NULL;
    mmnc_err e = {0, ""};
    int st = mmnc_data_read(path, o, &d, &e);
    if (st == MMNC_OK && d) test_passed++;
    else {
        test_failed++;
        fprintf(stderr, "%s:%d: mmnc_data_read(%s) failed: %d %s\n", __FILE__, srcline, path, st,
                e.msg);
    }
    return d;
}
#define READ_OK(path, o) read_ok(path, o, __LINE__)

static void test_mtx(void)
{
    const char *real =
        "%%MatrixMarket matrix coordinate real general\n"
        "% a comment\n"
        "%\n"
        "3 4 5\n"
        "1 1 1.5\n"
        "3 4 2e0\n"
        "  1 1   0.5  \n" /* duplicate: summed */
        "2 2 0\n"        /* explicit zero: dropped */
        "3 1 7\r\n";
    for (int gz = 0; gz < 2; gz++) {
        const char *path = gz ? gz_tmpfile(real, ".mtx.gz") : test_tmpfile(real, ".mtx");
        mmnc_data *d = READ_OK(path, NULL);
        if (!d) continue;
        CHECK(d->A->nrows == 3 && d->A->ncols == 4 && d->A->nnz == 3);
        CHECK(entry(d->A, 0, 0) == 2.0 && entry(d->A, 2, 3) == 2.0 && entry(d->A, 2, 0) == 7.0);
        CHECK(d->row_names == NULL && d->col_names == NULL && d->orig_rows == 3 &&
              d->orig_cols == 4);
        mmnc_data_free(d);
    }
    {
        const char *pat = "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 1\n";
        mmnc_data *d = READ_OK(test_tmpfile(pat, ".mtx"), NULL);
        if (d) CHECK(d->A->nnz == 2 && entry(d->A, 0, 1) == 1 && entry(d->A, 1, 0) == 1);
        mmnc_data_free(d);
    }
    {
        const char *in = "%%MatrixMarket MATRIX Coordinate INTEGER General\n1 1 1\n1 1 3\n";
        mmnc_data *d = READ_OK(test_tmpfile(in, ".mtx"), NULL);
        if (d) CHECK(d->A->nnz == 1 && d->A->val[0] == 3);
        mmnc_data_free(d);
    }
    /* banner-less "MTX-like" text: '%' comment, "rows cols nnz", triplets */
    {
        const char *like = "%% made by some tool\n2 3 2\n1 3 4\n2 1 1\n";
        mmnc_read_opts o;
        mmnc_data *d = READ_OK(test_tmpfile(like, ".txt"), NULL);
        if (d) CHECK(d->A->nrows == 2 && d->A->ncols == 3 && entry(d->A, 0, 2) == 4);
        mmnc_data_free(d);
        mmnc_read_opts_default(&o);
        o.format = MMNC_FMT_MTX;
        d = READ_OK(test_tmpfile("2 3 1\n2 3 4\n", ".txt"), &o);
        if (d) CHECK(d->A->nrows == 2 && entry(d->A, 1, 2) == 4);
        mmnc_data_free(d);
        /* read as triplets on request: the size line becomes an entry */
        o.format = MMNC_FMT_TRIPLET;
        d = READ_OK(test_tmpfile(like, ".txt"), &o);
        if (d) CHECK(d->A->nrows == 2 && d->row_names && strcmp(d->row_names[0], "2") == 0 &&
                     entry(d->A, 0, 0) == 2);
        mmnc_data_free(d);
    }

    /* the one-pass reader of common lines and the general one around it */
    {
        const char *odd = "%%MatrixMarket matrix coordinate real general\n"
                          "3 3 12\n"
                          "1 1 3\r\r\n"
                          "1\t2\t.5\n"
                          "1 3 5.\n"
                          "2 1 0000000000000001\n" /* 16 digits: strtod */
                          "2 2 123456789012345\n"
                          "002 3 1.25e1\n"
                          "3 1 +2\n"
                          "3 2 3\v\n"
                          "  3 3\t 7   \n"
                          "1 1 0.1\n"
                          "2 2 -0\n"
                          "1 2 1e-1";
        mmnc_data *d = READ_OK(test_tmpfile(odd, ".mtx"), NULL);
        if (d) {
            double s11 = 3, s12 = 0.5;
            s11 += 0.1;
            s12 += 0.1;
            CHECK(d->A->nnz == 9 && entry(d->A, 0, 0) == s11 && entry(d->A, 0, 1) == s12 &&
                  entry(d->A, 0, 2) == 5 && entry(d->A, 1, 0) == 1 &&
                  entry(d->A, 1, 1) == 123456789012345.0 && entry(d->A, 1, 2) == 12.5 &&
                  entry(d->A, 2, 0) == 2 && entry(d->A, 2, 1) == 3 && entry(d->A, 2, 2) == 7);
        }
        mmnc_data_free(d);
    }
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n1 2 .\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 4, "found '1 2 .'");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 1.2.3\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 3, "found '1 2 1.2.3'");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 1\n"
                 "1000000000000000001 1 1\n", 0, MMNC_FMT_AUTO, MMNC_EFORMAT, 3,
                 "expected 'row col value'");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 1\n2 2 1\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 4, "expected 'row col', found '2 2 1'");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1\r2\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 4, "found '2 2 1?2'");

    /* bad Matrix Market input */
    /* array: column by column, zeros not stored; symmetric: each column's lower part */
    {
        mmnc_data *d = READ_OK(test_tmpfile("%%MatrixMarket matrix array real general\n% c\n2 3\n1\n0\n3\n4\n0\n6.5\n",
                                            ".mtx"), NULL);
        if (d) {
            CHECK(d->A->nrows == 2 && d->A->ncols == 3 && d->A->nnz == 4 && entry(d->A, 0, 0) == 1 &&
                  entry(d->A, 0, 1) == 3 && entry(d->A, 1, 1) == 4 && entry(d->A, 1, 2) == 6.5);
            mmnc_data_free(d);
        }
        d = READ_OK(test_tmpfile("%%MatrixMarket matrix array integer symmetric\n3 3\n1\n2\n0\n4\n5\n6\n", ".mtx"),
                    NULL);
        if (d) {
            CHECK(d->A->nnz == 7 && entry(d->A, 1, 0) == 2 && entry(d->A, 0, 1) == 2 && entry(d->A, 1, 1) == 4 &&
                  entry(d->A, 2, 1) == 5 && entry(d->A, 1, 2) == 5 && entry(d->A, 2, 2) == 6 && entry(d->A, 0, 2) == 0);
            mmnc_data_free(d);
        }
    }
    EXPECT_ERROR("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", 0, MMNC_FMT_AUTO, MMNC_EFORMAT, 5,
                 "truncated: expected 4 values, found 3");
    EXPECT_ERROR("%%MatrixMarket matrix array real general\n1 1\n1\n2\n", 0, MMNC_FMT_AUTO, MMNC_EFORMAT, 4,
                 "more values than the 1");
    EXPECT_ERROR("%%MatrixMarket matrix array real general\n2 2\n1 2\n", 0, MMNC_FMT_AUTO, MMNC_EFORMAT, 3,
                 "expected one value");
    EXPECT_ERROR("%%MatrixMarket matrix array pattern general\n1 1\n1\n", 0, MMNC_FMT_AUTO, MMNC_EFORMAT, 1,
                 "only coordinate");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 1, "only coordinate");
    /* symmetric (SciPy's mmwrite): the lower triangle, mirrored; nothing above the diagonal */
    {
        mmnc_data *d = READ_OK(test_tmpfile("%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n"
                                            "1 1 2\n3 1 4\n3 2 5\n", ".mtx"), NULL);
        if (d) {
            CHECK(d->A->nnz == 5 && entry(d->A, 0, 0) == 2 && entry(d->A, 2, 0) == 4 && entry(d->A, 0, 2) == 4 &&
                  entry(d->A, 1, 2) == 5 && entry(d->A, 2, 1) == 5);
            mmnc_data_free(d);
        }
    }
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1\n1 2 1\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 0, "above the diagonal");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate pattern symmetric\n2 3 1\n1 1\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 0, "must be square");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", 0, MMNC_FMT_AUTO,
                 MMNC_EFORMAT, 1, "only coordinate");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n% c\n2 2\n1 1 1\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 3, "expected 'rows cols entries'");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n1 abc 2\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 4, "expected 'row col value', found '1 abc 2'");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n1 2\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 4, "expected 'row col value'");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n1 2 3 4\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 4, "expected 'row col value'");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n1 2 1x\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 4, "expected 'row col value'");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 nan\n2 2 1\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 3, "not a finite number");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 Inf\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 4, "not a finite number");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1e999\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 4, "not a finite number");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 -1\n2 2 1\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 3, "negative value");
    /* decimal numbers only; a nonzero literal below DBL_MIN is not read as 0 or as a subnormal */
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 0x10\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 4, "expected a decimal number, found '0x10'");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 0X1p-3\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 4, "expected a decimal number, found '0X1p-3'");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1e-400\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 4, "value '1e-400' is below DBL_MIN = 2.2250738585072014e-308");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 0.00001e-396\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 4, "(it would be read as 0)");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1e-320\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 4, "(it would be read as a subnormal number)");
    EXPECT_ERROR("%%MatrixMarket matrix array real general\n2 1\n1\n1e-310\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 4, "below DBL_MIN");
    /* integer: every value whole (on the one-pass lines and on the others) */
    EXPECT_ERROR("%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 1 1\n2 2 4\n3 3 2.5\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 5, "value '2.5' is not an integer: the header declares integer values");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 1\n2 2 25e-1\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 4, "the header declares integer values");
    EXPECT_ERROR("%%MatrixMarket matrix array integer general\n2 1\n1\n0.5\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 4, "value '0.5' is not an integer");
    {
        mmnc_data *d = READ_OK(test_tmpfile("%%MatrixMarket matrix coordinate real general\n3 3 4\n"
                                            "1 1 0e-400\n1 2 2.5e-308\n2 2 -0.0\n3 3 1e308\n", ".mtx"), NULL);
        if (d) CHECK(d->A->nnz == 2 && entry(d->A, 0, 1) == 2.5e-308 && entry(d->A, 2, 2) == 1e308);
        mmnc_data_free(d);
        d = READ_OK(test_tmpfile("%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 3.0\n2 2 2e1\n",
                                 ".mtx"), NULL);
        if (d) CHECK(d->A->nnz == 2 && entry(d->A, 0, 0) == 3 && entry(d->A, 1, 1) == 20);
        mmnc_data_free(d);
    }
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n3 1 1\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 4, "out of range");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 2\n0 1 1\n2 1 1\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 3, "out of range");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 2 1\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 4, "truncated: expected 3 entries, found 2");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 1\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 4, "more entries");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n% only comments\n", 0,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 2, "no size line");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 0\n", 0,
                 MMNC_FMT_AUTO, MMNC_EINVAL, 0, "no nonzero entries");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n0 0 0\n", 1, MMNC_FMT_AUTO,
                 MMNC_EINVAL, 0, "no nonzero entries");
    EXPECT_ERROR("", 0, MMNC_FMT_AUTO, MMNC_EFORMAT, 0, "empty");
    EXPECT_ERROR("", 1, MMNC_FMT_AUTO, MMNC_EFORMAT, 0, "empty");
    EXPECT_ERROR("", 0, MMNC_FMT_MTX, MMNC_EFORMAT, 0, "empty");
    EXPECT_ERROR("\xEF\xBB\xBF", 0, MMNC_FMT_TRIPLET, MMNC_EFORMAT, 0, "empty");
    EXPECT_ERROR("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n1 2 1,5\n", 1,
                 MMNC_FMT_AUTO, MMNC_EFORMAT, 4, "found '1 2 1,5'");
    {
        char bin[] = "1 1 1\n2 2 \0003\n";
        const char *path = test_tmpfile("", ".txt");
        FILE *fp = fopen(path, "wb");
        mmnc_data *d = NULL;
        mmnc_err e;
        fwrite(bin, 1, sizeof bin - 1, fp);
        fclose(fp);
        CHECK(mmnc_data_read(path, NULL, &d, &e) == MMNC_EFORMAT && strstr(e.msg, "NUL"));
    }
}

/* Truncated and corrupt gzip files are errors, never partial matrices. */
static void test_bad_gzip(void)
{
    size_t cap = 1 << 20, n = 0;
    char *text = malloc(cap);
    const char *path;
    long size;
    mmnc_data *d = NULL;
    mmnc_err e;
    mmnc_rng rng;
    mmnc_rng_seed(&rng, 3);
    n += (size_t)snprintf(text, cap, "%%%%MatrixMarket matrix coordinate real general\n"
                                     "1000 1000 20000\n");
    for (int t = 0; t < 20000; t++)
        n += (size_t)snprintf(text + n, cap - n, "%lld %lld %lld\n",
                              (long long)mmnc_rng_below(&rng, 1000) + 1,
                              (long long)mmnc_rng_below(&rng, 1000) + 1,
                              (long long)mmnc_rng_below(&rng, 9) + 1);
    path = gz_tmpfile(text, ".mtx.gz");
    d = READ_OK(path, NULL);
    mmnc_data_free(d);
    size = file_size(path);

    /* cut inside the deflate stream, and cut just the 8-byte trailer */
    CHECK(truncate(path, size / 2) == 0);
    d = (mmnc_data *)1;
    CHECK(mmnc_data_read(path, NULL, &d, &e) == MMNC_EFORMAT && d == NULL);
    CHECK(strstr(e.msg, "truncated") && strstr(e.msg, strrchr(path, '/') + 1));
    path = gz_tmpfile(text, ".mtx.gz");
    CHECK(truncate(path, size - 4) == 0);
    CHECK(mmnc_data_read(path, NULL, &d, &e) == MMNC_EFORMAT && strstr(e.msg, "truncated"));

    /* flipped bytes in the middle: corrupt data or a failed CRC */
    path = gz_tmpfile(text, ".mtx.gz");
    {
        FILE *fp = fopen(path, "r+b");
        unsigned char junk[64];
        memset(junk, 0xA5, sizeof junk);
        fseek(fp, size / 2, SEEK_SET);
        fwrite(junk, 1, sizeof junk, fp);
        fclose(fp);
    }
    CHECK(mmnc_data_read(path, NULL, &d, &e) == MMNC_EFORMAT && d == NULL);
    CHECK(strstr(e.msg, strrchr(path, '/') + 1) != NULL);
    /* a CRC error only (last data byte changed in the trailer) */
    path = gz_tmpfile(text, ".mtx.gz");
    {
        FILE *fp = fopen(path, "r+b");
        unsigned char b;
        fseek(fp, size - 8, SEEK_SET);
        CHECK(fread(&b, 1, 1, fp) == 1);
        b ^= 0xFF;
        fseek(fp, size - 8, SEEK_SET);
        fwrite(&b, 1, 1, fp);
        fclose(fp);
    }
    CHECK(mmnc_data_read(path, NULL, &d, &e) == MMNC_EFORMAT && d == NULL);
    free(text);

    /* missing file */
    CHECK(mmnc_data_read("/nonexistent/x.mtx", NULL, &d, &e) == MMNC_EIO &&
          strstr(e.msg, "/nonexistent/x.mtx"));
}

static void test_triplets(void)
{
    mmnc_read_opts o;
    mmnc_data *d;
    char buf[32];
    const char *tri = "# words\n"
                      "doc1 apple 2\n"
                      "doc2 pear 1.25\n"
                      "\n"
                      "doc1 pear 3\n"
                      "% another comment\n"
                      "doc1 apple 1\n" /* duplicate */
                      "doc3 fig 0\n";  /* zero: dropped, but the keys exist */
    d = READ_OK(test_tmpfile(tri, ".txt"), NULL);
    if (d) {
        CHECK(d->A->nrows == 3 && d->A->ncols == 3 && d->A->nnz == 3);
        CHECK(strcmp(d->row_names[0], "doc1") == 0 && strcmp(d->row_names[2], "doc3") == 0);
        CHECK(strcmp(d->col_names[1], "pear") == 0);
        CHECK(entry(d->A, 0, 0) == 3 && entry(d->A, 1, 1) == 1.25 && entry(d->A, 0, 1) == 3);
        CHECK(strcmp(mmnc_data_row_id(d, 1, buf), "doc2") == 0);
        CHECK(strcmp(mmnc_data_col_id(d, 2, buf), "fig") == 0);
        mmnc_data_free(d);
    }
    /* gzip, and a comma delimiter with blanks and an empty trailing field */
    mmnc_read_opts_default(&o);
    o.delim = ',';
    o.extra_fields = 1; /* the empty field after "2," */
    d = READ_OK(gz_tmpfile("a, x ,1\nb,y y,2,\n", ".csv.gz"), &o);
    if (d) {
        CHECK(d->A->nnz == 2 && strcmp(d->col_names[0], "x") == 0 &&
              strcmp(d->col_names[1], "y y") == 0 && entry(d->A, 1, 1) == 2);
        mmnc_data_free(d);
    }
    /* MovieLens u.data: "user item rating time", rows = items */
    mmnc_read_opts_default(&o);
    o.row_field = 2;
    o.col_field = 1;
    o.value_field = 3;
    o.extra_fields = 1; /* the timestamp */
    d = READ_OK(test_tmpfile("196\t242\t3\t881250949\n186\t302\t3\t891717742\n"
                             "22\t377\t1\t878887116\n196\t302\t5\t881250950\n",
                             ".data"),
                &o);
    if (d) {
        CHECK(d->A->nrows == 3 && d->A->ncols == 3);
        CHECK(strcmp(d->row_names[0], "242") == 0 && strcmp(d->col_names[1], "186") == 0);
        CHECK(entry(d->A, 1, 0) == 5 && entry(d->A, 1, 1) == 3 && entry(d->A, 2, 2) == 1);
        mmnc_data_free(d);
    }
    /* value_field = 0: each line counts 1; "::" as in MovieLens 1M via delim ':' */
    mmnc_read_opts_default(&o);
    o.value_field = 0;
    o.extra_fields = 1;
    d = READ_OK(test_tmpfile("a b\na b\nb c extra\n", ".txt"), &o);
    if (d) CHECK(d->A->nnz == 2 && entry(d->A, 0, 0) == 2 && entry(d->A, 1, 1) == 1);
    mmnc_data_free(d);
    /* header: the first line that is not a comment names the fields */
    mmnc_read_opts_default(&o);
    o.delim = ',';
    o.header = 1;
    d = READ_OK(test_tmpfile("# ratings\nuser,item,rating\nu1,i1,2\nu2,i1,3\n", ".csv"), &o);
    if (d) CHECK(d->A->nrows == 2 && d->A->ncols == 1 && strcmp(d->row_names[0], "u1") == 0 && entry(d->A, 1, 0) == 3);
    mmnc_data_free(d);
    o.format = MMNC_FMT_MTX;
    d = NULL;
    {
        mmnc_err e3 = {0, ""};
        CHECK(mmnc_data_read(test_tmpfile("a,b,1\n", ".csv"), &o, &d, &e3) == MMNC_EINVAL && d == NULL);
    }
    mmnc_read_opts_default(&o);
    o.value_field = 0;
    /* by default a field after the named ones is an error: a dense CSV is not triplets */
    o.extra_fields = 0;
    d = NULL;
    {
        mmnc_err e2 = {0, ""};
        CHECK(mmnc_data_read(test_tmpfile("a b\nb c extra\n", ".txt"), &o, &d, &e2) == MMNC_EFORMAT);
        CHECK(strstr(e2.msg, ":2: expected 2 fields") != NULL && strstr(e2.msg, "found more") != NULL);
        o.delim = ',';
        o.value_field = 3;
        CHECK(mmnc_data_read(test_tmpfile("1,2,3,4\n5,6,7,8\n", ".csv"), &o, &d, &e2) == MMNC_EFORMAT);
        CHECK(strstr(e2.msg, ":1: expected 3 fields") != NULL);
        CHECK(d == NULL);
    }
    mmnc_read_opts_default(&o);
    o.delim = ':';
    o.row_field = 1;
    o.col_field = 3;
    o.value_field = 5;
    o.extra_fields = 1;
    d = READ_OK(test_tmpfile("1::1193::5::978300760\n1::661::3::978302109\n", ".dat"), &o);
    if (d) CHECK(d->A->nnz == 2 && strcmp(d->col_names[1], "661") == 0 && d->A->val[1] == 3);
    mmnc_data_free(d);

    /* bad triplets */
    EXPECT_ERROR("a b 1\nc d\n", 0, MMNC_FMT_AUTO, MMNC_EFORMAT, 2, "expected at least 3 fields");
    EXPECT_ERROR("a b 1\nc d e\n", 0, MMNC_FMT_AUTO, MMNC_EFORMAT, 2,
                 "expected a number in field 3, found 'e'");
    EXPECT_ERROR("a b 1\n# c\nc d NaN\n", 0, MMNC_FMT_AUTO, MMNC_EFORMAT, 3, "not a finite");
    EXPECT_ERROR("a b inf\n", 1, MMNC_FMT_AUTO, MMNC_EFORMAT, 1, "not a finite");
    EXPECT_ERROR("a b 1\nc d +0x10\n", 0, MMNC_FMT_AUTO, MMNC_EFORMAT, 2, "expected a decimal number, found '+0x10'");
    EXPECT_ERROR("a b 1\nc d 3e-320\n", 1, MMNC_FMT_AUTO, MMNC_EFORMAT, 2,
                 "value '3e-320' is below DBL_MIN = 2.2250738585072014e-308, the smallest nonzero magnitude read "
                 "(it would be read as a subnormal number)");
    EXPECT_ERROR("a b 1\nc d -0.5\n", 1, MMNC_FMT_TRIPLET, MMNC_EFORMAT, 2, "negative");
    EXPECT_ERROR("a b 0\n", 0, MMNC_FMT_AUTO, MMNC_EINVAL, 0, "no nonzero");
    EXPECT_ERROR("# nothing\n", 0, MMNC_FMT_AUTO, MMNC_EINVAL, 0, "no nonzero");
    {
        mmnc_err e;
        mmnc_read_opts_default(&o);
        o.row_field = 2;
        o.col_field = 2;
        CHECK(mmnc_data_read(test_tmpfile("a b 1\n", ".txt"), &o, &d, &e) == MMNC_EINVAL);
        o.row_field = 0;
        CHECK(mmnc_data_read(test_tmpfile("a b 1\n", ".txt"), &o, &d, &e) == MMNC_EINVAL);
        mmnc_read_opts_default(&o);
        o.delim = ',';
        CHECK(mmnc_data_read(test_tmpfile("a,,1\n", ".txt"), &o, &d, &e) == MMNC_EFORMAT &&
              strstr(e.msg, ":1:") && strstr(e.msg, "empty"));
        /* every key a fractional number: a 3-column table, not triplets (auto); forced: string keys */
        CHECK(mmnc_data_read(test_tmpfile("# t\n6.70,6.64,0.49\n1.25,3.5e0,2.75\n", ".csv"), &o, &d, &e) ==
                  MMNC_EFORMAT &&
              strstr(e.msg, ":2: every row and column key is a number with a fraction ('6.70' and '6.64'") &&
              strstr(e.msg, "MMNC_FMT_DENSE"));
        o.format = MMNC_FMT_TRIPLET;
        d = READ_OK(test_tmpfile("6.70,6.64,0.49\n1.25,3.50,2.75\n", ".csv"), &o);
        if (d) CHECK(d->A->nrows == 2 && d->A->ncols == 2 && strcmp(d->col_names[1], "3.50") == 0);
        mmnc_data_free(d);
        /* one integer key among them: triplets, as before */
        o.format = MMNC_FMT_AUTO;
        d = READ_OK(test_tmpfile("6.70,6.64,0.49\n1.25,3,2.75\n", ".csv"), &o);
        if (d) CHECK(d->A->nrows == 2 && d->A->ncols == 2);
        mmnc_data_free(d);
    }
}

static void test_libsvm(void)
{
    mmnc_read_opts o;
    mmnc_data *d;
    const char *svm = "+1 1:0.5 3:2 # comment\n"
                      "-1\n" /* empty row: kept, dropped later by drop_empty */
                      "2 qid:4 2:1 2:1 5:0\n";
    d = READ_OK(test_tmpfile(svm, ".svm"), NULL);
    if (d) {
        CHECK(d->A->nrows == 3 && d->A->ncols == 5 && d->A->nnz == 3); /* 5:0 sets ncols */
        CHECK(entry(d->A, 0, 0) == 0.5 && entry(d->A, 0, 2) == 2 && entry(d->A, 2, 1) == 2);
        CHECK(d->A->rowptr[2] - d->A->rowptr[1] == 0);
        mmnc_data_free(d);
    }
    mmnc_read_opts_default(&o);
    o.libsvm_zero_based = 1;
    d = READ_OK(gz_tmpfile("1 0:1 2:3\n", ".svm.gz"), &o);
    if (d) CHECK(d->A->ncols == 3 && entry(d->A, 0, 0) == 1 && entry(d->A, 0, 2) == 3);
    mmnc_data_free(d);

    EXPECT_ERROR("1 1:1\n1 0:2\n", 0, MMNC_FMT_AUTO, MMNC_EFORMAT, 2, "feature index 0");
    EXPECT_ERROR("1 1:1\n1:2 3:4\n", 0, MMNC_FMT_LIBSVM, MMNC_EFORMAT, 2, "no label");
    EXPECT_ERROR("1 1:1\n1 2:x\n", 0, MMNC_FMT_AUTO, MMNC_EFORMAT, 2,
                 "expected 'index:value', found '2:x'");
    EXPECT_ERROR("1 1:1\n1 2\n", 0, MMNC_FMT_AUTO, MMNC_EFORMAT, 2, "expected 'index:value'");
    EXPECT_ERROR("1 1:1\n1 2:-1\n", 1, MMNC_FMT_AUTO, MMNC_EFORMAT, 2, "negative");
    EXPECT_ERROR("1 1:nan\n", 0, MMNC_FMT_AUTO, MMNC_EFORMAT, 1, "finite");
    EXPECT_ERROR("1 1:1 2:0x1A\n", 0, MMNC_FMT_AUTO, MMNC_EFORMAT, 1, "expected a decimal number, found '0x1A'");
    EXPECT_ERROR("1 1:1\n1 2:1e-400\n", 0, MMNC_FMT_AUTO, MMNC_EFORMAT, 2, "value '1e-400' is below DBL_MIN");
    EXPECT_ERROR("1\n2\n", 0, MMNC_FMT_LIBSVM, MMNC_EINVAL, 0, "no nonzero");
}

static void test_labels_names(void)
{
    mmnc_err e;
    mmnc_int n, *lab = NULL, ncl, nn;
    char **names = NULL;
    mmnc_data *d;

    /* one label per line: classes in order of first appearance */
    CHECK(mmnc_labels_read(test_tmpfile("earn\nacq\nearn\ncrude\n\n", ".txt"), NULL, NULL, &n,
                           &lab, &ncl, &e) == MMNC_OK);
    CHECK(n == 4 && ncl == 3 && lab[0] == 0 && lab[1] == 1 && lab[2] == 0 && lab[3] == 2);
    free(lab);
    /* a blank line inside would shift the later labels: refused, with its line */
    lab = NULL;
    CHECK(mmnc_labels_read(test_tmpfile("earn\nacq\nearn\n\ncrude\n", ".txt"), NULL, NULL, &n,
                           &lab, &ncl, &e) == MMNC_EFORMAT);
    CHECK(lab == NULL && strstr(e.msg, ":4: expected a label, found a blank line") != NULL);
    /* libsvm file: the first token of each line */
    CHECK(mmnc_labels_read(test_tmpfile("3 1:1\n-1 2:2\n3\n", ".svm"), NULL, NULL, &n, &lab, &ncl,
                           &e) == MMNC_OK);
    CHECK(n == 3 && ncl == 2 && lab[0] == 0 && lab[1] == 1 && lab[2] == 0);
    free(lab);

    /* matched to a data set's rows by id, after a drop */
    d = READ_OK(test_tmpfile("d1 w 1\nd2 w 1\nd3 v 1\nd4 w 0\n", ".txt"), NULL);
    if (d) {
        mmnc_int rd, cd;
        CHECK(mmnc_data_drop_empty(d, &rd, &cd, &e) == MMNC_OK && rd == 1 && d->A->nrows == 3);
        CHECK(mmnc_labels_read(test_tmpfile("d3 z\nd1 x\nd2 y\nd4 x\n", ".txt"), NULL, d, &n,
                               &lab, &ncl, &e) == MMNC_OK);
        CHECK(n == 3 && ncl == 3 && lab[0] == 0 && lab[1] == 1 && lab[2] == 2);
        free(lab);
        CHECK(mmnc_labels_read(test_tmpfile("d3 z\nd1 x\n", ".txt"), NULL, d, &n, &lab, &ncl,
                               &e) == MMNC_EFORMAT &&
              strstr(e.msg, "no label for row id 'd2'"));
        CHECK(mmnc_labels_read(test_tmpfile("a\nb\nc\nd\n", ".txt"), NULL, d, &n, &lab, &ncl,
                               &e) == MMNC_OK);
        CHECK(n == 3 && ncl == 3);
        free(lab);
        CHECK(mmnc_labels_read(test_tmpfile("a\nb\n", ".txt"), NULL, d, &n, &lab, &ncl, &e) ==
                  MMNC_EFORMAT &&
              strstr(e.msg, "2 labels"));
        mmnc_data_free(d);
    }
    CHECK(mmnc_labels_read(test_tmpfile("1 a\n2 b\n2 c\n", ".txt"), NULL, NULL, &n, &lab, &ncl,
                           &e) == MMNC_EFORMAT &&
          strstr(e.msg, ":3:") && strstr(e.msg, "duplicate id"));
    CHECK(mmnc_labels_read(test_tmpfile("a\nb c\n", ".txt"), NULL, NULL, &n, &lab, &ncl, &e) ==
              MMNC_EFORMAT &&
          strstr(e.msg, ":2:") && strstr(e.msg, "expected one label"));
    CHECK(mmnc_labels_read(test_tmpfile("", ".txt"), NULL, NULL, &n, &lab, &ncl, &e) ==
          MMNC_EFORMAT);

    /* names: one per line, Latin-1 converted to UTF-8 */
    CHECK(mmnc_names_read(test_tmpfile("alpha\nCaf\xe9\nna\xc3\xafve\n", ".txt"), 0, &nn,
                          &names, &e) == MMNC_OK);
    CHECK(nn == 3 && strcmp(names[0], "alpha") == 0 && strcmp(names[1], "Caf\xc3\xa9") == 0 &&
          strcmp(names[2], "na\xc3\xafve") == 0);
    mmnc_names_free(nn, names);
    /* a blank line would shift the names after it: refused, naming its line
     * (also at the start, with blanks only, and in CRLF text); blank lines
     * that end the file are not names */
    CHECK(mmnc_names_read(test_tmpfile("alpha\nbeta\n\ngamma\n", ".txt"), 0, &nn, &names, &e) == MMNC_EFORMAT &&
          strstr(e.msg, ".txt:3: empty name") && names == NULL && nn == 0);
    CHECK(mmnc_names_read(test_tmpfile("\nalpha\n", ".txt"), 0, &nn, &names, &e) == MMNC_EFORMAT &&
          strstr(e.msg, ".txt:1: empty name"));
    CHECK(mmnc_names_read(test_tmpfile("alpha\r\n \t\r\nbeta\r\n", ".txt"), 0, &nn, &names, &e) ==
              MMNC_EFORMAT && strstr(e.msg, ".txt:2: empty name"));
    CHECK(mmnc_names_read(test_tmpfile("alpha\r\nbeta\r\n\r\n\n  \n", ".txt"), 0, &nn, &names, &e) == MMNC_OK &&
          nn == 2 && strcmp(names[0], "alpha") == 0 && strcmp(names[1], "beta") == 0);
    mmnc_names_free(nn, names);
    CHECK(mmnc_names_read(test_tmpfile("alpha\nbeta", ".txt"), 0, &nn, &names, &e) == MMNC_OK && nn == 2 &&
          strcmp(names[1], "beta") == 0);
    mmnc_names_free(nn, names);
    CHECK(mmnc_names_read(test_tmpfile("\n\n", ".txt"), 0, &nn, &names, &e) == MMNC_EFORMAT &&
          strstr(e.msg, "no names found"));
    /* keyed: blank lines skipped, an empty name refused */
    CHECK(mmnc_names_read(test_tmpfile("1|a\n\n2|b\n", ".txt"), 1, &nn, &names, &e) == MMNC_OK && nn == 2);
    mmnc_names_free(nn, names);
    CHECK(mmnc_names_read(test_tmpfile("1|a\n2|\n3|c\n", ".txt"), 1, &nn, &names, &e) == MMNC_EFORMAT &&
          strstr(e.msg, ".txt:2: empty name for id 2"));
    CHECK(mmnc_names_read(test_tmpfile("1\ta\n2\t \t x\n", ".txt"), 1, &nn, &names, &e) == MMNC_EFORMAT &&
          strstr(e.msg, ".txt:2: empty name for id 2"));
    /* keyed: MovieLens u.item ("id|name|date|...") and "id<TAB>name" */
    CHECK(mmnc_names_read(gz_tmpfile("1|Toy Story (1995)|01-Jan-1995||http://x|0|1\n"
                                     "3|Four Rooms (1995)|01-Jan-1995||http://y|0|0\n",
                                     ".item.gz"),
                          1, &nn, &names, &e) == MMNC_OK);
    CHECK(nn == 3 && strcmp(names[0], "Toy Story (1995)") == 0 && names[1] == NULL &&
          strcmp(names[2], "Four Rooms (1995)") == 0);
    mmnc_names_free(nn, names);
    CHECK(mmnc_names_read(test_tmpfile("2\tbeta gamma\n1\talpha\n", ".tsv"), 1, &nn, &names, &e) ==
          MMNC_OK);
    CHECK(nn == 2 && strcmp(names[0], "alpha") == 0 && strcmp(names[1], "beta gamma") == 0);
    mmnc_names_free(nn, names);
    CHECK(mmnc_names_read(test_tmpfile("1|a\nx|b\n", ".txt"), 1, &nn, &names, &e) ==
              MMNC_EFORMAT &&
          strstr(e.msg, ":2:"));
    CHECK(mmnc_names_read(test_tmpfile("1|a\n1|b\n", ".txt"), 1, &nn, &names, &e) ==
              MMNC_EFORMAT &&
          strstr(e.msg, "duplicate"));
    mmnc_names_free(0, NULL);
}

/* names[0..n) after mmnc_names_unique are `want`, the '|'-separated list
 * ("~" for a NULL entry). */
static int names_are(char **names, mmnc_int n, const char *want)
{
    char buf[256] = "";
    for (mmnc_int i = 0; i < n; i++) {
        strcat(buf, i ? "|" : "");
        strcat(buf, names[i] ? names[i] : "~");
    }
    if (strcmp(buf, want) != 0) fprintf(stderr, "names: got %s, expected %s\n", buf, want);
    return strcmp(buf, want) == 0;
}

/* A repeated name gets the first free NAME#k in order; the first appearance
 * of every name, and a name like a suffix that is given, keep their text. */
static void test_names_unique(void)
{
    static const struct {
        const char *file, *want;
        int keyed;
        mmnc_int renamed, first0, first1;
    } cases[] = {
        {"a\nb\na\nc\na\n", "a|b|a#2|c|a#3", 0, 2, 2, 0},
        {"a\na\na#2\n", "a|a#3|a#2", 0, 1, 1, 0},       /* a#2 is a name: the repeat takes a#3 */
        {"a#2\na\na\na\n", "a#2|a|a#3|a#4", 0, 2, 2, 1},
        {"a#2\na#2\na\na\n", "a#2|a#2#2|a|a#3", 0, 2, 1, 0},
        {"x\ny\nz\n", "x|y|z", 0, 0, -1, -1},            /* nothing repeats: nothing changes */
        {"1|x\n4|x\n2|y\n", "x|y|~|x#2", 1, 1, 3, 0},   /* keyed: in the order of the ids, gaps kept */
    };
    mmnc_err e;
    mmnc_int nn, renamed, first[2];
    char **names;

    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        CHECK(mmnc_names_read(test_tmpfile(cases[c].file, ".txt"), cases[c].keyed, &nn, &names, &e) == MMNC_OK);
        CHECK(mmnc_names_unique(nn, names, &renamed, first, &e) == MMNC_OK);
        CHECK(names_are(names, nn, cases[c].want));
        CHECK(renamed == cases[c].renamed && first[0] == cases[c].first0 && first[1] == cases[c].first1);
        /* distinct names are left as they are */
        CHECK(mmnc_names_unique(nn, names, &renamed, NULL, &e) == MMNC_OK && renamed == 0);
        CHECK(names_are(names, nn, cases[c].want));
        mmnc_names_free(nn, names);
    }
    /* empty names (which no names file gives) repeat too */
    names = mmnc_i_calloc(3, sizeof *names);
    CHECK(names && (names[0] = mmnc_i_strdup("")) && (names[1] = mmnc_i_strdup("")) && (names[2] = mmnc_i_strdup("q")));
    CHECK(mmnc_names_unique(3, names, &renamed, first, &e) == MMNC_OK && names_are(names, 3, "|#2|q") &&
          renamed == 1 && first[0] == 1 && first[1] == 0);
    mmnc_names_free(3, names);
    CHECK(mmnc_names_unique(0, NULL, &renamed, first, &e) == MMNC_OK && renamed == 0 && first[0] == -1);
    CHECK(mmnc_names_unique(-1, NULL, NULL, NULL, &e) == MMNC_EINVAL);

    /* many repeats and given suffixes: all distinct, the first of each kept */
    {
        enum { N = 3000 };
        char text[N * 8], *t = text;
        unsigned r = 12345;
        int ok = 1;
        for (int i = 0; i < N; i++) {
            r = r * 1103515245u + 12345u;
            if ((r >> 16) % 3 == 0) t += sprintf(t, "w%u#%u\n", (r >> 8) % 7, (r >> 20) % 9);
            else t += sprintf(t, "w%u\n", (r >> 8) % 7);
        }
        CHECK(mmnc_names_read(test_tmpfile(text, ".txt"), 0, &nn, &names, &e) == MMNC_OK && nn == N);
        CHECK(mmnc_names_unique(nn, names, &renamed, NULL, &e) == MMNC_OK && renamed > N / 2);
        for (mmnc_int i = 0; i < nn && ok; i++)
            for (mmnc_int j = i + 1; j < nn && ok; j++) ok = strcmp(names[i], names[j]) != 0;
        CHECK(ok);
        mmnc_names_free(nn, names);
    }

    /* out of memory at every allocation: an error, and the names as they were */
    {
        const char *path = test_tmpfile("a\nb\na\na\n", ".txt");
        int bad = 0, failures = 0;
        for (long k = 1;; k++) {
            int st;
            CHECK(mmnc_names_read(path, 0, &nn, &names, &e) == MMNC_OK);
            mmnc_i_fail_after(k);
            st = mmnc_names_unique(nn, names, &renamed, first, &e);
            mmnc_i_fail_after(0);
            if (st == MMNC_OK) {
                bad += !names_are(names, nn, "a|b|a#2|a#3");
                mmnc_names_free(nn, names);
                break;
            }
            failures++;
            bad += st != MMNC_ENOMEM || !names_are(names, nn, "a|b|a|a") || first[0] != -1;
            mmnc_names_free(nn, names);
        }
        CHECK(bad == 0 && failures > 5);
    }
}

#ifdef MMNC_HAVE_MATIO
/* A small MAT file with a dense and a sparse variable, written by matio. */
static void test_mat_small(void)
{
    const char *path = test_tmpfile("", ".mat");
    size_t dims[2] = {2, 3};
    double dense[6] = {1, 0, 0, 2, 3, 0}; /* column-major: [1 0 3; 0 2 0] */
    double neg[6] = {1, 0, 0, -2, 3, 0};
    double sub[6] = {1, 0, 0, 1e-310, 3, 0}; /* a subnormal at (2, 2) */
    double labels[2] = {7, 5};
    mat_uint32_t ir[3] = {0, 1, 0}, jc[4] = {0, 1, 2, 3};
    double sdata[3] = {4, 5, 6};
    mat_sparse_t sp;
    mat_t *mat;
    matvar_t *v;
    mmnc_read_opts o;
    mmnc_data *d;
    mmnc_err e;
    mmnc_int n, *lab, ncl;

    memset(&sp, 0, sizeof sp);
    sp.nzmax = 3;
    sp.ir = ir;
    sp.nir = 3;
    sp.jc = jc;
    sp.njc = 4;
    sp.ndata = 3;
    sp.data = sdata;
    mat = Mat_CreateVer(path, NULL, MAT_FT_MAT5);
    CHECK(mat != NULL);
    if (!mat) return;
    v = Mat_VarCreate("D", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, dense, 0);
    Mat_VarWrite(mat, v, MAT_COMPRESSION_NONE);
    Mat_VarFree(v);
    v = Mat_VarCreate("N", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, neg, 0);
    Mat_VarWrite(mat, v, MAT_COMPRESSION_NONE);
    Mat_VarFree(v);
    v = Mat_VarCreate("S", MAT_C_SPARSE, MAT_T_DOUBLE, 2, dims, &sp, MAT_F_DONT_COPY_DATA);
    Mat_VarWrite(mat, v, MAT_COMPRESSION_ZLIB);
    Mat_VarFree(v);
    dims[1] = 1;
    v = Mat_VarCreate("L", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, labels, 0);
    Mat_VarWrite(mat, v, MAT_COMPRESSION_NONE);
    Mat_VarFree(v);
    dims[1] = 3;
    v = Mat_VarCreate("U", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, sub, 0);
    Mat_VarWrite(mat, v, MAT_COMPRESSION_NONE);
    Mat_VarFree(v);
    sdata[1] = 5e-324; /* S with a subnormal at (2, 2) */
    v = Mat_VarCreate("T", MAT_C_SPARSE, MAT_T_DOUBLE, 2, dims, &sp, MAT_F_DONT_COPY_DATA);
    Mat_VarWrite(mat, v, MAT_COMPRESSION_NONE);
    Mat_VarFree(v);
    Mat_Close(mat);

    mmnc_read_opts_default(&o);
    o.mat_var = "D";
    d = READ_OK(path, &o);
    if (d) CHECK(d->A->nnz == 3 && entry(d->A, 0, 0) == 1 && entry(d->A, 1, 1) == 2 &&
                 entry(d->A, 0, 2) == 3);
    mmnc_data_free(d);
    o.mat_var = "S";
    o.format = MMNC_FMT_MAT;
    d = READ_OK(path, &o);
    if (d) CHECK(d->A->nnz == 3 && entry(d->A, 0, 0) == 4 && entry(d->A, 1, 1) == 5 &&
                 entry(d->A, 0, 2) == 6);
    mmnc_data_free(d);
    o.mat_var = "N";
    CHECK(mmnc_data_read(path, &o, &d, &e) == MMNC_EFORMAT && strstr(e.msg, "negative"));
    /* a subnormal value is refused as the text readers refuse it, naming the
     * file, the variable and the entry (dense and sparse variables alike) */
    o.mat_var = "U";
    CHECK(mmnc_data_read(path, &o, &d, &e) == MMNC_EFORMAT && strstr(e.msg, path) &&
          strstr(e.msg, "variable 'U': value 1e-310 at (2, 2) is below DBL_MIN = 2.2250738585072014e-308") &&
          d == NULL);
    o.mat_var = "T";
    CHECK(mmnc_data_read(path, &o, &d, &e) == MMNC_EFORMAT && strstr(e.msg, "variable 'T': value 4.94066e-324 at (2, 2)"));
    o.mat_var = "nope";
    CHECK(mmnc_data_read(path, &o, &d, &e) == MMNC_EFORMAT && strstr(e.msg, "'nope'") &&
          strstr(e.msg, "D, N, S, L"));
    CHECK(mmnc_labels_read(path, "L", NULL, &n, &lab, &ncl, &e) == MMNC_OK);
    CHECK(n == 2 && ncl == 2 && lab[0] == 0 && lab[1] == 1);
    free(lab);
    CHECK(mmnc_labels_read(path, "D", NULL, &n, &lab, &ncl, &e) == MMNC_EFORMAT &&
          strstr(e.msg, "vector"));
    o.format = MMNC_FMT_MAT;
    o.mat_var = "D";
    CHECK(mmnc_data_read(test_tmpfile("1 1 1\n", ".txt"), &o, &d, &e) == MMNC_EFORMAT);
}
#endif

static void test_reuters(void)
{
    const char *mat = REUTERS_DIR "Reuters21578.mat";
    const char *coo = REUTERS_DIR "Reuters21578.fea.coo.txt.gz";
    const char *gnd = REUTERS_DIR "Reuters21578.gnd.txt";
    mmnc_data *a = NULL, *b = NULL;
    mmnc_int n1, n2, *l1 = NULL, *l2 = NULL, c1, c2;
    mmnc_err e;
    double s = 0;

    if (access(coo, R_OK) != 0) {
        printf("skipping the Reuters-21578 checks: %s not found\n", coo);
        return;
    }
    b = READ_OK(coo, NULL); /* AUTO: '%' comment + "rows cols nnz" -> Matrix Market */
    if (b) {
        CHECK(b->A->nrows == 8293 && b->A->ncols == 18933 && b->A->nnz == 389455);
        for (mmnc_int p = 0; p < b->A->nnz; p++) s += b->A->val[p];
        CHECK(s == 560940);
    }
    CHECK(mmnc_labels_read(gnd, NULL, b, &n2, &l2, &c2, &e) == MMNC_OK && n2 == 8293 && c2 == 65);
#ifdef MMNC_HAVE_MATIO
    a = READ_OK(mat, NULL);
    if (a && b) CHECK(test_csr_equal(a->A, b->A));
    CHECK(mmnc_labels_read(mat, NULL, a, &n1, &l1, &c1, &e) == MMNC_OK && n1 == 8293 && c1 == 65);
    if (l1 && l2) {
        int same = 1;
        for (mmnc_int i = 0; i < n1; i++) same &= l1[i] == l2[i];
        CHECK(same);
    }
    {
        mmnc_read_opts o;
        mmnc_data *x = (mmnc_data *)1;
        mmnc_read_opts_default(&o);
        o.mat_var = "nosuch";
        CHECK(mmnc_data_read(mat, &o, &x, &e) == MMNC_EFORMAT && x == NULL);
        CHECK(strstr(e.msg, "'nosuch'") && strstr(e.msg, "fea") && strstr(e.msg, "gnd"));
    }
#else
    (void)mat;
    (void)n1;
    (void)c1;
#endif
    mmnc_data_free(a);
    mmnc_data_free(b);
    free(l1);
    free(l2);
}

/* Every allocation failure gives MMNC_ENOMEM and leaks nothing. */
static void test_alloc_failures(void)
{
    const char *tri = gz_tmpfile("x a 1\ny b 2\nx b 3\nz c 1\n", ".txt.gz");
    const char *mtx = test_tmpfile("%%MatrixMarket matrix coordinate real general\n"
                                   "2 2 2\n1 1 1\n2 2 2\n", ".mtx");
    const char *svm = test_tmpfile("1 1:1 4:2\n2 2:3\n", ".svm");
    const char *lab = test_tmpfile("x 1\ny 2\nz 1\n", ".txt");
    const char *nam = test_tmpfile("1|a\n3|c\n", ".txt");
    const char *paths[3] = {tri, mtx, svm};
    mmnc_err e;
    int bad = 0, failures = 0;

    for (int k = 0; k < 3; k++) {
        for (long n = 1;; n++) {
            mmnc_data *d = NULL;
            int st;
            mmnc_i_fail_after(n);
            st = mmnc_data_read(paths[k], NULL, &d, &e);
            mmnc_i_fail_after(0);
            if (st == MMNC_OK) {
                mmnc_data_free(d);
                break;
            }
            failures++;
            bad += st != MMNC_ENOMEM || d != NULL;
        }
    }
    CHECK(bad == 0 && failures > 10);
    {
        mmnc_data *d = READ_OK(tri, NULL);
        for (long n = 1; d; n++) {
            mmnc_int cnt, *l = NULL, nc;
            int st;
            mmnc_i_fail_after(n);
            st = mmnc_labels_read(lab, NULL, d, &cnt, &l, &nc, &e);
            mmnc_i_fail_after(0);
            if (st == MMNC_OK) {
                free(l);
                break;
            }
            bad += st != MMNC_ENOMEM || l != NULL;
        }
        mmnc_data_free(d);
    }
    for (long n = 1;; n++) {
        mmnc_int cnt;
        char **names = NULL;
        int st;
        mmnc_i_fail_after(n);
        st = mmnc_names_read(nam, 1, &cnt, &names, &e);
        mmnc_i_fail_after(0);
        if (st == MMNC_OK) {
            mmnc_names_free(cnt, names);
            break;
        }
        bad += st != MMNC_ENOMEM || names != NULL;
    }
#ifdef MMNC_HAVE_MATIO
    if (access(REUTERS_DIR "Reuters21578.mat", R_OK) == 0) {
        for (long n = 1;; n++) {
            mmnc_data *d = NULL;
            int st;
            mmnc_i_fail_after(n);
            st = mmnc_data_read(REUTERS_DIR "Reuters21578.mat", NULL, &d, &e);
            mmnc_i_fail_after(0);
            if (st == MMNC_OK) {
                mmnc_data_free(d);
                break;
            }
            bad += st != MMNC_ENOMEM || d != NULL;
        }
    }
#endif
    CHECK(bad == 0);
}

/* ------------------------------------------------------------------------ */
/* The parallel Matrix Market reader                                         */
/* ------------------------------------------------------------------------ */

/* A growing text. */
typedef struct gtext {
    char *s;
    size_t n, cap;
} gtext;

static void gt_add(gtext *t, const char *fmt, ...) MMNC_PRINTF(2, 3);
static void gt_add(gtext *t, const char *fmt, ...)
{
    va_list ap;
    int k;
    if (t->cap - t->n < 8192) {
        t->cap = t->cap ? 2 * t->cap : 1 << 16;
        t->s = realloc(t->s, t->cap);
    }
    va_start(ap, fmt);
    k = vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
    va_end(ap);
    t->n += (size_t)k;
}

/* A generated Matrix Market file and what a reader must make of it. */
typedef struct genmtx {
    char *text;              /* NUL-terminated, no newline after the last line */
    size_t len;
    mmnc_int m, n, nent;     /* nent entry lines */
    mmnc_int *ri, *ci;       /* the entries in file order, 0-based */
    double *v;
    long long *eline;        /* the line of each entry */
    long long nlines;        /* lines in the file */
} genmtx;

/*
 * About 14 bytes per entry of an m x n matrix: duplicates, zeros, every
 * value syntax (integers, decimals, exponents, 17 digits, a sign), blanks
 * and tabs around and between the fields, '%' comments and blank lines
 * between entries, a line of several kB every 40000 entries, CRLF line ends
 * if crlf, and `declared` entries in the size line.  With sorted, the
 * entries come row by row (some rows empty), columns nondecreasing in a
 * row (duplicates adjacent).
 */
static void gen_mtx(genmtx *g, mmnc_int m, mmnc_int n, mmnc_int nent, mmnc_int declared, int crlf,
                    int sorted, uint64_t seed)
{
    static const char *pad[] = {"", " ", "\t", "  "};
    static const char *sep[] = {" ", "\t", "   ", " \t "};
    const char *eol = crlf ? "\r\n" : "\n";
    gtext t = {0};
    mmnc_rng rng;
    long long line = 3;
    mmnc_int si = 0, sj = 0; /* the sorted walk */
    mmnc_rng_seed(&rng, seed);
    memset(g, 0, sizeof *g);
    g->m = m;
    g->n = n;
    g->nent = nent;
    g->ri = malloc((size_t)nent * sizeof(mmnc_int));
    g->ci = malloc((size_t)nent * sizeof(mmnc_int));
    g->v = malloc((size_t)nent * sizeof(double));
    g->eline = malloc((size_t)nent * sizeof(long long));
    gt_add(&t, "%%%%MatrixMarket matrix coordinate real general%s%% generated%s%lld %lld %lld%s",
           eol, eol, (long long)m, (long long)n, (long long)declared, eol);
    for (mmnc_int k = 0; k < nent; k++) {
        char val[64];
        mmnc_int i = mmnc_rng_below(&rng, m), j = mmnc_rng_below(&rng, n);
        if (sorted) {
            if (mmnc_rng_below(&rng, nent / m + 1) == 0 && si + 2 < m) {
                si += 1 + mmnc_rng_below(&rng, 2);
                sj = mmnc_rng_below(&rng, 3);
            } else if (sj + 3 < n) {
                sj += mmnc_rng_below(&rng, 3);
            }
            i = si;
            j = sj;
        }
        switch (mmnc_rng_below(&rng, 7)) {
        case 0: snprintf(val, sizeof val, "%d", (int)mmnc_rng_below(&rng, 10)); break;
        case 1: snprintf(val, sizeof val, "%.3f", 100 * mmnc_rng_uniform(&rng)); break;
        case 2: snprintf(val, sizeof val, "%.17g", 1e3 * mmnc_rng_uniform(&rng)); break;
        case 3: snprintf(val, sizeof val, "%de-%d", (int)mmnc_rng_below(&rng, 100), (int)mmnc_rng_below(&rng, 4)); break;
        case 4: snprintf(val, sizeof val, "+%d.5", (int)mmnc_rng_below(&rng, 50)); break;
        case 5: snprintf(val, sizeof val, mmnc_rng_below(&rng, 50) ? ".25" : "-0"); break;
        default: snprintf(val, sizeof val, "1"); break;
        }
        if (mmnc_rng_below(&rng, 500) == 0) {
            gt_add(&t, "%s%s", mmnc_rng_below(&rng, 2) ? "% a comment" : " \t", eol);
            line++;
        }
        if (k % 40000 == 39999) /* longer than the tiny blocks below */
            gt_add(&t, "%lld%*s%lld %s", (long long)i + 1, 5000, "", (long long)j + 1, val);
        else
            gt_add(&t, "%s%lld%s%lld%s%s%s", pad[mmnc_rng_below(&rng, 4)], (long long)i + 1,
                   sep[mmnc_rng_below(&rng, 4)], (long long)j + 1, sep[mmnc_rng_below(&rng, 4)],
                   val, pad[mmnc_rng_below(&rng, 4)]);
        if (k + 1 < nent) gt_add(&t, "%s", eol);
        g->ri[k] = i;
        g->ci[k] = j;
        g->v[k] = strtod(val, NULL);
        g->eline[k] = ++line;
    }
    g->text = t.s;
    g->len = t.n;
    g->nlines = line;
}

static void gen_free(genmtx *g)
{
    free(g->text);
    free(g->ri);
    free(g->ci);
    free(g->v);
    free(g->eline);
}

/* text[0..*len) with line `line` (no newline in it) replaced by the n
 * bytes at s (NULs allowed); *len is updated, text freed. */
static char *replace_line(char *text, size_t *len, long long line, const char *s, size_t n)
{
    char *b = text, *e, *t;
    size_t head, tail;
    for (long long l = 1; l < line; l++) b = memchr(b, '\n', *len - (size_t)(b - text)) + 1;
    e = memchr(b, '\n', *len - (size_t)(b - text));
    if (!e) e = text + *len;
    if (e > b && e[-1] == '\r') e--;
    head = (size_t)(b - text);
    tail = *len - (size_t)(e - text);
    t = malloc(head + n + tail + 1);
    memcpy(t, text, head);
    memcpy(t + head, s, n);
    memcpy(t + head + n, e, tail);
    t[head + n + tail] = '\0';
    *len = head + n + tail;
    free(text);
    return t;
}

/* g's text with up to two lines replaced (line 0: none), in a temporary file. */
static const char *with_lines(const genmtx *g, long long l1, const char *s1, size_t n1,
                              long long l2, const char *s2, size_t n2)
{
    const char *path = test_tmpfile("", ".mtx");
    size_t len = g->len;
    char *t = malloc(len + 1);
    FILE *fp = fopen(path, "wb");
    memcpy(t, g->text, len + 1);
    if (l1) t = replace_line(t, &len, l1, s1, n1);
    if (l2) t = replace_line(t, &len, l2, s2, n2);
    fwrite(t, 1, len, fp);
    fclose(fp);
    free(t);
    return path;
}
#define WITH_LINE(g, l, s) with_lines(g, l, s, sizeof(s) - 1, 0, NULL, 0)

/* The reader's configurations: threads x (block, piece) sizes.  The 256-byte
 * blocks run on one thread: thousands of parallel regions crawl on a busy
 * machine, and the pieces do not depend on the threads. */
static const struct {
    int threads;
    size_t block, piece;
} mtx_cfg[] = {{1, 0, 0}, {2, 0, 0}, {1, 4096, 512}, {2, 4096, 512}, {1, 256, 32}};
#define NCFG ((int)(sizeof mtx_cfg / sizeof mtx_cfg[0]))

static int read_cfg(const char *path, int c, mmnc_data **d, mmnc_err *e)
{
    mmnc_i_threads saved = mmnc_i_threads_push(mtx_cfg[c].threads);
    mmnc_i_tuning tune = MMNC_I_TUNING_DEFAULT;
    int st;
    tune.mtx_block = mtx_cfg[c].block;
    tune.mtx_piece = mtx_cfg[c].piece;
    *d = (mmnc_data *)1;
    st = mmnc_i_data_read(path, NULL, &tune, d, e);
    mmnc_i_threads_pop(saved);
    return st;
}

/* The same bits: shape, structure and values. */
static int csr_same_bits(const mmnc_csr *A, const mmnc_csr *B)
{
    return A->nrows == B->nrows && A->ncols == B->ncols && A->nnz == B->nnz &&
           !memcmp(A->rowptr, B->rowptr, (size_t)(A->nrows + 1) * sizeof(mmnc_int)) &&
           !memcmp(A->colind, B->colind, (size_t)A->nnz * sizeof(mmnc_int)) &&
           !memcmp(A->val, B->val, (size_t)A->nnz * sizeof(double));
}

/* path fails in every configuration with code, ":line:" and what. */
static void expect_mtx_error(const char *path, int code, long long line, const char *what,
                             int srcline)
{
    char tag[40];
    snprintf(tag, sizeof tag, "%s:%lld: ", strrchr(path, '/') + 1, line);
    for (int c = 0; c < NCFG; c++) {
        mmnc_data *d;
        mmnc_err e = {0, ""};
        int st = read_cfg(path, c, &d, &e);
        if (st == code && d == NULL && strstr(e.msg, tag) && strstr(e.msg, what)) {
            test_passed++;
        } else {
            test_failed++;
            fprintf(stderr, "%s:%d: %d threads, blocks %zu/%zu: expected %d '%s...%s'; got %d: %s\n",
                    __FILE__, srcline, mtx_cfg[c].threads, mtx_cfg[c].block, mtx_cfg[c].piece,
                    code, tag, what, st, e.msg);
            if (st == MMNC_OK) mmnc_data_free(d);
        }
    }
}
#define EXPECT_MTX_ERROR(path, code, line, what) \
    expect_mtx_error(path, code, line, what, __LINE__)

/* A large file read with 1 and 2 threads, big and tiny blocks, LF and CRLF,
 * entries in random or sorted order, plain and gzip: the same bits as the
 * triplets put through mmnc_csr_from_triplets (the line-by-line reader's
 * path). */
static void test_mtx_parallel(void)
{
    for (int kind = 0; kind < 3; kind++) {
        int crlf = kind == 1, sorted = kind == 2;
        genmtx g;
        mmnc_csr *E = NULL;
        const char *paths[2];
        gen_mtx(&g, sorted ? 3000 : 300, sorted ? 2000 : 200, 120000, 120000, crlf, sorted,
                11 + (uint64_t)kind);
        CHECK(g.len > (1u << 20)); /* past the first megabyte the line reader holds */
        CHECK_OK(mmnc_csr_from_triplets(g.m, g.n, g.nent, g.ri, g.ci, g.v, &E, NULL));
        paths[0] = test_tmpfile(g.text, ".mtx");
        paths[1] = gz_tmpfile(g.text, ".mtx.gz");
        for (int f = 0; f < 2; f++)
            for (int c = 0; c < NCFG; c++) {
                mmnc_data *d;
                mmnc_err e = {0, ""};
                int st = read_cfg(paths[f], c, &d, &e);
                if (st != MMNC_OK) {
                    test_failed++;
                    fprintf(stderr, "%s:%d: config %d, %s: %s\n", __FILE__, __LINE__, c, paths[f], e.msg);
                    continue;
                }
                CHECK(E && csr_same_bits(d->A, E));
                mmnc_data_free(d);
            }
        mmnc_csr_free(E);
        gen_free(&g);
    }
    /* one line, longer than many blocks, at the end without a newline */
    {
        char text[4096];
        int k = snprintf(text, sizeof text, "%%%%MatrixMarket matrix coordinate pattern general\n"
                                            "3 3 2\n2 3\n");
        mmnc_data *d;
        mmnc_err e;
        memset(text + k, ' ', 2000);
        snprintf(text + k + 2000, sizeof text - (size_t)k - 2000, "3%*s1", 1000, "");
        for (int c = 0; c < NCFG; c++) {
            int st = read_cfg(test_tmpfile(text, ".mtx"), c, &d, &e);
            CHECK(st == MMNC_OK);
            if (st == MMNC_OK) {
                CHECK(d->A->nnz == 2 && entry(d->A, 1, 2) == 1 && entry(d->A, 2, 0) == 1);
                mmnc_data_free(d);
            }
        }
    }
}

/* Every allocation failure of the block reader (its buffer grows past the
 * first megabyte): MMNC_ENOMEM and nothing leaked. */
static void test_mtx_parallel_alloc(void)
{
    genmtx g;
    const char *path;
    int bad = 0;
    long n;
    gen_mtx(&g, 300, 200, 120000, 120000, 0, 0, 7);
    path = test_tmpfile(g.text, ".mtx");
    for (n = 1;; n++) {
        mmnc_data *d = NULL;
        mmnc_err e;
        mmnc_i_threads saved = mmnc_i_threads_push(2);
        int st;
        mmnc_i_fail_after(n);
        st = mmnc_data_read(path, NULL, &d, &e);
        mmnc_i_fail_after(0);
        mmnc_i_threads_pop(saved);
        if (st == MMNC_OK) {
            mmnc_data_free(d);
            break;
        }
        bad += st != MMNC_ENOMEM || d != NULL;
    }
    CHECK(g.len > (1u << 20) && bad == 0 && n > 10);
    gen_free(&g);
}

/* Errors in large files: the first in file order, on its line, whatever the
 * threads and blocks. */
static void test_mtx_parallel_errors(void)
{
    genmtx g, c;
    long long T, q1, q3;
    gen_mtx(&g, 300, 200, 100000, 100000, 0, 0, 5);
    T = g.nlines;
    q1 = g.eline[g.nent / 4];
    q3 = g.eline[3 * g.nent / 4];

    /* a bad value near the end, and on the last line (no newline) */
    EXPECT_MTX_ERROR(WITH_LINE(&g, g.eline[g.nent - 10], "1 2 x"), MMNC_EFORMAT,
                     g.eline[g.nent - 10], "expected 'row col value', found '1 2 x'");
    EXPECT_MTX_ERROR(WITH_LINE(&g, T, "1 2 3 4"), MMNC_EFORMAT, T, "found '1 2 3 4'");
    /* errors in two distant pieces (and blocks): the earlier one */
    EXPECT_MTX_ERROR(with_lines(&g, q1, "1 1 -1", 6, q3, "0 1 1", 5), MMNC_EFORMAT, q1,
                     "negative value '-1'");
    EXPECT_MTX_ERROR(with_lines(&g, q3, "1 1 -1", 6, q1, "301 1 1", 7), MMNC_EFORMAT, q1,
                     "index (301, 1) out of range");
    /* a NUL byte past the first megabyte, on its line */
    EXPECT_MTX_ERROR(WITH_LINE(&g, q3, "1 2 \0003"), MMNC_EFORMAT, q3, "NUL byte");
    /* the size line: too few entries declared (the error is on the first
     * entry too many, before a bad line after it), too many */
    gen_mtx(&c, 300, 200, 100000, 75000, 0, 0, 5);
    EXPECT_MTX_ERROR(test_tmpfile(c.text, ".mtx"), MMNC_EFORMAT, c.eline[75000],
                     "more entries than the 75000 declared");
    EXPECT_MTX_ERROR(WITH_LINE(&c, c.eline[85000], "x"), MMNC_EFORMAT, c.eline[75000],
                     "more entries than the 75000 declared");
    EXPECT_MTX_ERROR(WITH_LINE(&c, c.eline[70000], "x"), MMNC_EFORMAT, c.eline[70000],
                     "expected 'row col value', found 'x'");
    gen_free(&c);
    gen_mtx(&c, 300, 200, 100000, 100001, 0, 0, 5);
    EXPECT_MTX_ERROR(test_tmpfile(c.text, ".mtx"), MMNC_EFORMAT, c.nlines,
                     "truncated: expected 100001 entries, found 100000");
    gen_free(&c);
    /* CRLF: the message shows the line without its CR */
    gen_mtx(&c, 300, 200, 100000, 100000, 1, 0, 5);
    EXPECT_MTX_ERROR(WITH_LINE(&c, c.eline[95000], "1 abc 2"), MMNC_EFORMAT, c.eline[95000],
                     "found '1 abc 2'");
    gen_free(&c);
    gen_free(&g);
}

static void test_detect(void)
{
    mmnc_data *d;
    /* triplets whose first line is three integers but no '%' comment: triplets */
    d = READ_OK(test_tmpfile("1 2 3\n4 5 6\n", ".txt"), NULL);
    if (d) CHECK(d->row_names != NULL && d->A->nrows == 2);
    mmnc_data_free(d);
    /* '#' comment then integers: triplets */
    d = READ_OK(test_tmpfile("# c\n1 2 3\n", ".txt"), NULL);
    if (d) CHECK(d->row_names != NULL);
    mmnc_data_free(d);
    /* '%' comment, size line, then an entry out of range: reported as Matrix Market */
    EXPECT_ERROR("% c\n2 2 1\n3 3 1\n", 0, MMNC_FMT_AUTO, MMNC_EFORMAT, 3, "out of range");
}

/* A name with a line break is refused by the writer of side files (it
 * would shift every later name), and nothing is written. */
static void test_write_names(void)
{
    mmnc_data *d = READ_OK(test_tmpfile("a b 1\nc b 2\n", ".txt"), NULL);
    char *out = strdup(test_tmpfile("", ".mtx")), *side = NULL;
    mmnc_err e;
    int wr = -1, wc = -1;
    if (!d || !out) return;
    remove(out);
    mmnc_free(d->row_names[1]);
    d->row_names[1] = strdup("c\nd");
    CHECK(mmnc_data_write_mtx(d, out, &wr, &wc, &e) == MMNC_EINVAL && wr == 0 && wc == 0 &&
          strstr(e.msg, "the name of row 2 holds a line break"));
    CHECK(mmnc_mtx_side_path(out, ".rows", &side, &e) == MMNC_OK && access(out, F_OK) != 0 && access(side, F_OK) != 0);
    mmnc_free(side);
    free(out);
    mmnc_data_free(d);
}

/* A UTF-8 byte-order mark at the start of a text file is skipped by every
 * reader (plain and gzip): it is never part of the first label, name, id
 * or key. */
static void test_bom(void)
{
    mmnc_err e;
    mmnc_int n, *lab = NULL, ncl, nn, *fx = NULL, nf, ns;
    char **names = NULL;
    mmnc_data *d;

    CHECK(mmnc_labels_read(test_tmpfile("\xEF\xBB\xBF" "a\na\nb\n", ".txt"), NULL, NULL, &n, &lab, &ncl, &e) ==
          MMNC_OK);
    CHECK(n == 3 && ncl == 2 && lab[0] == 0 && lab[1] == 0 && lab[2] == 1);
    free(lab);
    lab = NULL;
    CHECK(mmnc_labels_read(gz_tmpfile("\xEF\xBB\xBF" "a\na\nb\n", ".txt.gz"), NULL, NULL, &n, &lab, &ncl, &e) ==
          MMNC_OK);
    CHECK(n == 3 && ncl == 2);
    free(lab);
    lab = NULL;
    d = READ_OK(test_tmpfile("\xEF\xBB\xBF" "d1 w 1\nd2 v 1\n", ".txt"), NULL);
    if (d) {
        CHECK(d->row_names && strcmp(d->row_names[0], "d1") == 0);
        CHECK(mmnc_labels_read(test_tmpfile("\xEF\xBB\xBF" "d1 x\nd2 y\n", ".txt"), NULL, d, &n, &lab, &ncl, &e) ==
              MMNC_OK);
        CHECK(n == 2 && ncl == 2);
        free(lab);
        lab = NULL;
        CHECK(mmnc_fixed_labels_read(test_tmpfile("\xEF\xBB\xBF" "d1\t2\n", ".tsv"), d, 2, &fx, &nf, &ns, &e) ==
              MMNC_OK);
        CHECK(fx && nf == 1 && fx[0] == 1 && fx[1] == -1);
        mmnc_free(fx);
        mmnc_data_free(d);
    }
    d = READ_OK(test_tmpfile("\xEF\xBB\xBF" "id,a,b,c\nr1,1,0,2\nr2,0,3,0\n", ".csv"), NULL);
    if (d) CHECK(d->A->nrows == 2 && d->col_names && strcmp(d->col_names[0], "a") == 0);
    mmnc_data_free(d);
    CHECK(mmnc_names_read(test_tmpfile("\xEF\xBB\xBF" "alpha\nbeta\n", ".txt"), 0, &nn, &names, &e) == MMNC_OK);
    CHECK(nn == 2 && strcmp(names[0], "alpha") == 0);
    mmnc_names_free(nn, names);
    names = NULL;
    CHECK(mmnc_names_read(test_tmpfile("\xEF\xBB\xBF" "1|alpha\n", ".txt"), 1, &nn, &names, &e) == MMNC_OK);
    CHECK(nn == 1 && strcmp(names[0], "alpha") == 0);
    mmnc_names_free(nn, names);
    /* only at the start: a mark on a later line is text */
    CHECK(mmnc_names_read(test_tmpfile("alpha\n\xEF\xBB\xBF" "beta\n", ".txt"), 0, &nn, &names, &e) == MMNC_OK);
    CHECK(nn == 2 && strcmp(names[1], "\xEF\xBB\xBF" "beta") == 0);
    mmnc_names_free(nn, names);
}

/* mmnc_fixed_labels_read: "ID CLUSTER" lines matched to the rows' ids. */
static void test_fixed_labels(void)
{
    mmnc_err e;
    mmnc_int *fx = NULL, nf = -1, ns = -1, rd, cd;
    mmnc_data *d = READ_OK(test_tmpfile("d1 w 1\nd2 w 1\nd3 v 1\n", ".txt"), NULL);

    if (d) {
        /* a labels.tsv header, a comment, a blank line, extra fields, tabs and blanks */
        CHECK(mmnc_fixed_labels_read(test_tmpfile("id\tcluster\tprobability\nd3\t2\t0.9\n# c\n\n  d1 1\n", ".tsv"), d,
                                     2, &fx, &nf, &ns, &e) == MMNC_OK);
        CHECK(fx && nf == 2 && ns == 0 && fx[0] == 0 && fx[1] == -1 && fx[2] == 1);
        mmnc_free(fx);
        fx = NULL;
#define FIXED_ERR(text, k, pat)                                                                   \
    do {                                                                                          \
        CHECK(mmnc_fixed_labels_read(test_tmpfile(text, ".txt"), d, k, &fx, &nf, &ns, &e) ==      \
              MMNC_EFORMAT);                                                                      \
        CHECK(fx == NULL && nf == 0 && strstr(e.msg, pat) != NULL);                               \
        if (!strstr(e.msg, pat)) fprintf(stderr, "  message: %s\n", e.msg);                      \
    } while (0)
        FIXED_ERR("d1 1\nd9 2\n", 2, ":2: expected the id of a row of the data, found 'd9'");
        FIXED_ERR("d1 1\nd2 x\n", 2, ":2: expected a cluster, an integer 1..2, found 'x'");
        FIXED_ERR("d1 1.5\n", 2, ":1: expected a cluster, an integer 1..2, found '1.5'");
        FIXED_ERR("d1 3\n", 2, ":1: cluster 3 is outside 1..2 (k)");
        FIXED_ERR("d1 0\n", 2, ":1: cluster 0 is outside 1..2 (k)");
        FIXED_ERR("d1 -1\n", 2, ":1: cluster -1 is outside 1..2 (k)");
        FIXED_ERR("d1 1\n# c\nd1 2\n", 2, ":3: duplicate id 'd1'");
        FIXED_ERR("d1 1\nd2\n", 2, ":2: expected 'ID CLUSTER'");
        FIXED_ERR("id cluster\nname cluster\n", 2, ":2: expected a cluster");
        FIXED_ERR("d1 1\nd2 2\nd3 1\n", 2, "all 3 rows are labelled: nothing left to cluster");
        FIXED_ERR("id\tcluster\n# none\n", 2, "no row labelled");
        FIXED_ERR("", 2, "no row labelled");
#undef FIXED_ERR
        CHECK(mmnc_fixed_labels_read(test_tmpfile("d1 1\n", ".txt"), d, 0, &fx, &nf, &ns, &e) == MMNC_EINVAL);
        CHECK(mmnc_fixed_labels_read("/nonexistent/fixed.txt", d, 2, &fx, &nf, &ns, &e) == MMNC_EIO);
        /* two rows with one id (a binary file can hold such names): the
         * message names the file and the rows, not the function */
        {
            char *keep = d->row_names[2], *path = mmnc_i_strdup(test_tmpfile("d1 1\n", ".txt"));
            d->row_names[2] = d->row_names[0];
            CHECK(path && mmnc_fixed_labels_read(path, d, 2, &fx, &nf, &ns, &e) == MMNC_EINVAL && fx == NULL);
            CHECK(path && strncmp(e.msg, path, strlen(path)) == 0 &&
                  strstr(e.msg, ": rows 1 and 3 of the data have the same id 'd1'") &&
                  !strstr(e.msg + strlen(path), "mmnc_"));
            d->row_names[2] = keep;
            mmnc_i_free(path);
        }
        mmnc_data_free(d);
    }
    /* rows known by number: the id of a dropped row is skipped, a number beyond the rows is not a row */
    d = READ_OK(test_tmpfile("%%MatrixMarket matrix coordinate real general\n4 2 3\n1 1 1\n3 2 1\n4 1 2\n", ".mtx"), NULL);
    if (d) {
        CHECK(mmnc_data_drop_empty(d, &rd, &cd, &e) == MMNC_OK && rd == 1 && d->A->nrows == 3);
        CHECK(mmnc_fixed_labels_read(test_tmpfile("2 1\n4 2\n", ".txt"), d, 2, &fx, &nf, &ns, &e) == MMNC_OK);
        CHECK(fx && nf == 1 && ns == 1 && fx[0] == -1 && fx[1] == -1 && fx[2] == 1);
        mmnc_free(fx);
        fx = NULL;
        CHECK(mmnc_fixed_labels_read(test_tmpfile("2 1\n", ".txt"), d, 2, &fx, &nf, &ns, &e) == MMNC_EFORMAT &&
              strstr(e.msg, "no row labelled (the rows it names were all dropped as empty)"));
        CHECK(mmnc_fixed_labels_read(test_tmpfile("2 1\n2 1\n1 1\n", ".txt"), d, 2, &fx, &nf, &ns, &e) == MMNC_EFORMAT &&
              strstr(e.msg, ":2: duplicate id '2'"));
        CHECK(mmnc_fixed_labels_read(test_tmpfile("1 1\n5 1\n", ".txt"), d, 2, &fx, &nf, &ns, &e) == MMNC_EFORMAT &&
              strstr(e.msg, ":2: expected the id of a row of the data, found '5'"));
        mmnc_data_free(d);
    }
}

/* One number in the readers' syntax (the CLI's options): decimal only, in
 * any locale, finite; the other forms strtod reads refused with a reason. */
static void test_number_parse(void)
{
    static const struct {
        const char *s;
        double v;      /* when accepted */
        const char *why; /* NULL: accepted */
    } cases[] = {
        {"0.25", 0.25, NULL}, {"-3", -3, NULL}, {".5", 0.5, NULL}, {"5.", 5, NULL}, {"1e-3", 1e-3, NULL},
        {"2.5E+10", 2.5e10, NULL}, {"+7", 7, NULL}, {"0.1000000000000000055511151231257827", 0.1, NULL},
        {"0x1p-3", 0, "expected a decimal number, found '0x1p-3'"},
        {"0X10", 0, "expected a decimal number, found '0X10'"},
        {"inf", 0, "value 'inf' is not a finite number"}, {"-Infinity", 0, "value '-Infinity' is not a finite number"},
        {"nan", 0, "value 'nan' is not a finite number"}, {"1e999", 0, "value '1e999' is not a finite number"},
        {"0,5", 0, "expected a number, found '0,5'"}, {" 1", 0, "expected a number, found ' 1'"},
        {"1 ", 0, "expected a number, found '1 '"}, {"", 0, "expected a number, found ''"},
        {"1e", 0, "expected a number, found '1e'"}, {"abc", 0, "expected a number, found 'abc'"},
    };
    mmnc_err e;
    double v;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int st = mmnc_number_parse(cases[c].s, strlen(cases[c].s), &v, &e);
        if (!cases[c].why) CHECK(st == MMNC_OK && v == cases[c].v);
        else CHECK(st == MMNC_EFORMAT && !strcmp(e.msg, cases[c].why));
    }
    /* a field of a longer string: s[0..n) alone */
    CHECK(mmnc_number_parse("0.5,0.25", 3, &v, &e) == MMNC_OK && v == 0.5);
    CHECK(mmnc_number_parse(NULL, 0, &v, &e) == MMNC_EINVAL && mmnc_number_parse("1", 1, NULL, &e) == MMNC_EINVAL);
}

/* A NUL byte is refused naming its own line, also past the reader's first
 * block of 1 MB. */
static void test_nul_line(void)
{
    static const struct {
        long lines; /* plain lines before the one with the NUL */
        const char *tag;
    } cases[] = {{0, ":1: NUL byte"}, {2, ":3: NUL byte"}, {300000, ":300001: NUL byte"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *path = test_tmpfile("", ".txt");
        FILE *fp = fopen(path, "wb");
        mmnc_data *d = NULL;
        mmnc_err e = {0, ""};
        int st;
        CHECK(fp != NULL);
        if (!fp) continue;
        for (long l = 0; l < cases[i].lines; l++) fputs("1 2 3\n", fp);
        fwrite("7 \0 8\n1 1 1\n", 1, 12, fp);
        fclose(fp);
        st = mmnc_data_read(path, NULL, &d, &e);
        CHECK(st == MMNC_EFORMAT && d == NULL && strstr(e.msg, cases[i].tag) != NULL);
        if (!strstr(e.msg, cases[i].tag)) fprintf(stderr, "expected '%s': %s\n", cases[i].tag, e.msg);
        mmnc_data_free(d);
    }
}

int main(void)
{
    test_number_parse();
    test_mtx();
    test_bad_gzip();
    test_triplets();
    test_libsvm();
    test_detect();
    test_mtx_parallel();
    test_mtx_parallel_errors();
    test_mtx_parallel_alloc();
    test_labels_names();
    test_names_unique();
    test_fixed_labels();
    test_bom();
    test_nul_line();
    test_write_names();
#ifdef MMNC_HAVE_MATIO
    test_mat_small();
#endif
    test_reuters();
    test_alloc_failures();
    return test_done();
}
