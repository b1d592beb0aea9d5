/*
 * test_dense.c -- dense tables (MMNC_FMT_DENSE): header and row-name
 * column detected or forced, each separator, quoted fields, zeros not
 * stored; ragged, non-numeric, negative and NaN cells refused with file and
 * line; MMNC_FMT_AUTO recognising a dense table only where the rules of
 * mmnc.h say so (triplets stay triplets), pandas' header 0, 1, ... over
 * fractions; a Matrix Market banner under a forced text format refused;
 * every out-of-memory exit.
 */
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/io_i.h"
#include "io/lines_i.h"
#include "testutil.h"

static double entry(const mmnc_csr *A, mmnc_int i, mmnc_int j)
{
    for (mmnc_int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
        if (A->colind[p] == j) return A->val[p];
    return 0.0;
}

/* Read text as a file with format fmt and the dense options; status in *st. */
static mmnc_data *rd(const char *text, mmnc_format fmt, int header, int names, int *st, mmnc_err *e,
                     const char **path)
{
    mmnc_read_opts o;
    mmnc_data *d = NULL;
    const char *p = test_tmpfile(text, ".csv");
    mmnc_read_opts_default(&o);
    o.format = fmt;
    o.dense_header = header;
    o.dense_row_names = names;
    *st = mmnc_data_read(p, &o, &d, e);
    if (path) *path = p;
    else unlink(p);
    return d;
}

static int has(const mmnc_err *e, const char *s) { return strstr(e->msg, s) != NULL; }

static void test_shapes(void)
{
    mmnc_err e;
    int st;
    mmnc_data *d;

    /* pandas' to_csv: an empty corner, then names on both sides */
    d = rd(",a,b,c,d\nr1,1,0,2,0\nr2,0,3.5,0,1\n", MMNC_FMT_DENSE, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_OK && d && d->A->nrows == 2 && d->A->ncols == 4 && d->A->nnz == 4);
    if (d) {
        CHECK(d->row_names && !strcmp(d->row_names[1], "r2") && d->col_names && !strcmp(d->col_names[0], "a") &&
              !strcmp(d->col_names[3], "d"));
        CHECK(entry(d->A, 1, 1) == 3.5 && entry(d->A, 0, 2) == 2 && entry(d->A, 0, 1) == 0);
        CHECK(mmnc_csr_check(d->A, &e) == MMNC_OK);
    }
    mmnc_data_free(d);
    /* R's write.csv: the header one field short */
    d = rd("a;b;c\nr1;1;0;2\nr2;0;3;0\n", MMNC_FMT_DENSE, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_OK && d && d->A->ncols == 3 && d->row_names && !strcmp(d->row_names[0], "r1") &&
          !strcmp(d->col_names[2], "c") && entry(d->A, 1, 1) == 3);
    mmnc_data_free(d);
    /* a header whose first field titles the names: dropped */
    d = rd("doc\tx\ty\nd1\t1\t2\nd2\t3\t0\n", MMNC_FMT_DENSE, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_OK && d && d->A->ncols == 2 && !strcmp(d->col_names[0], "x") && !strcmp(d->row_names[1], "d2"));
    mmnc_data_free(d);
    /* numbers only: ids 1..n, no names; blanks as separators, comments and blank lines skipped */
    d = rd("# a comment\n 1 0 2\n\n0 3 0\n", MMNC_FMT_DENSE, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_OK && d && d->A->nrows == 2 && d->A->ncols == 3 && !d->row_names && !d->col_names &&
          d->A->nnz == 3);
    mmnc_data_free(d);
    /* forced: the first line is data, the first column values */
    d = rd("1,2,3\n4,5,6\n", MMNC_FMT_DENSE, -1, -1, &st, &e, NULL);
    CHECK(st == MMNC_OK && d && d->A->nrows == 2 && d->A->ncols == 3 && entry(d->A, 1, 0) == 4);
    mmnc_data_free(d);
    /* forced header of numbers (term ids) and names of numbers */
    d = rd("id,10,20\n7,1,0\n8,0,2\n", MMNC_FMT_DENSE, 1, 1, &st, &e, NULL);
    CHECK(st == MMNC_OK && d && d->A->ncols == 2 && !strcmp(d->col_names[1], "20") && !strcmp(d->row_names[0], "7"));
    mmnc_data_free(d);
    /* quoted fields: separators and doubled quotes inside */
    d = rd("\"\",\"a,b\",\"say \"\"hi\"\"\",c,d\n\"row, one\",1,\"2\",0,1\n", MMNC_FMT_DENSE, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_OK && d && d->A->ncols == 4 && !strcmp(d->col_names[0], "a,b") &&
          !strcmp(d->col_names[1], "say \"hi\"") && !strcmp(d->row_names[0], "row, one") && entry(d->A, 0, 1) == 2);
    mmnc_data_free(d);
    /* an explicit separator: a space */
    {
        mmnc_read_opts o;
        const char *p = test_tmpfile("1 2,5 3\n4 5 6\n", ".txt");
        mmnc_read_opts_default(&o);
        o.format = MMNC_FMT_DENSE;
        o.delim = '\t';
        d = NULL;
        st = mmnc_data_read(p, &o, &d, &e); /* one field per line, not a number */
        CHECK(st == MMNC_EFORMAT);
        mmnc_data_free(d);
        unlink(p);
    }
}

static void test_errors(void)
{
    mmnc_err e;
    int st;
    const char *p;
    char want[512];
    mmnc_data *d;

    d = rd("a,b,c,d\n1,0,2,0\n0,3,0\n", MMNC_FMT_DENSE, 0, 0, &st, &e, &p);
    snprintf(want, sizeof want, "%s:3: expected 4 fields (as line 2), got 3", p);
    CHECK(st == MMNC_EFORMAT && !d && has(&e, want));
    unlink(p);
    d = rd("a,b,c,d\n1,x,2,0\n", MMNC_FMT_DENSE, 0, 0, &st, &e, &p);
    snprintf(want, sizeof want, "%s:2: field 2 (column 'b'): expected a number, found 'x'", p);
    CHECK(st == MMNC_EFORMAT && !d && has(&e, want));
    unlink(p);
    d = rd("1,0,2,0\n0,-3,0,1\n", MMNC_FMT_DENSE, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_EFORMAT && has(&e, ":2: field 2: negative value '-3'"));
    d = rd("1,0,2,0\n0,nan,0,1\n", MMNC_FMT_DENSE, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_EFORMAT && has(&e, ":2: field 2: value 'nan' is not a finite number"));
    d = rd("a,b,c,d\n1,0,2,0\n0,0x10,0,1\n", MMNC_FMT_DENSE, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_EFORMAT && has(&e, ":3: field 2 (column 'b'): expected a decimal number, found '0x10'"));
    d = rd("1,0,2,0\n0,1e-400,0,1\n", MMNC_FMT_DENSE, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_EFORMAT && has(&e, ":2: field 2: value '1e-400' is below DBL_MIN"));
    d = rd("1,0,2,0\n0,4e-320,0,1\n", MMNC_FMT_DENSE, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_EFORMAT && has(&e, ":2: field 2: value '4e-320' is below DBL_MIN"));
    /* row names and column names are ids: each given once (names compared unquoted) */
    d = rd("id,a,b,c\nr1,5,4,0\n# c\n\nr2,0,1,6\n\"r1\",4,5,0\n", MMNC_FMT_DENSE, 0, 0, &st, &e, &p);
    snprintf(want, sizeof want, "%s:6: row name 'r1' is given twice (lines 2 and 6)", p);
    CHECK(st == MMNC_EFORMAT && !d && has(&e, want));
    unlink(p);
    d = rd("id,a,b,a\nr1,5,4,0\nr2,0,1,6\n", MMNC_FMT_AUTO, 0, 0, &st, &e, &p);
    snprintf(want, sizeof want, "%s:1: column name 'a' is given twice (fields 2 and 4)", p);
    CHECK(st == MMNC_EFORMAT && !d && has(&e, want));
    unlink(p);
    d = rd("a,b,a\nr1,5,4,0\nr2,0,1,6\n", MMNC_FMT_DENSE, 0, 0, &st, &e, NULL); /* R's write.csv */
    CHECK(st == MMNC_EFORMAT && has(&e, ":1: column name 'a' is given twice (fields 1 and 3)"));
    d = rd("\n# c\nb,a,c,a\n5,4,0,1\n0,1,6,1\n", MMNC_FMT_DENSE, 0, -1, &st, &e, NULL);
    CHECK(st == MMNC_EFORMAT && has(&e, ":3: column name 'a' is given twice (fields 2 and 4)"));
    /* the names column's title may be a column's name; empty names may repeat */
    d = rd("a,a,b,c\nr1,5,4,0\nr2,0,1,6\n", MMNC_FMT_DENSE, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_OK && d && d->A->ncols == 3 && !strcmp(d->col_names[0], "a") && !strcmp(d->row_names[1], "r2"));
    mmnc_data_free(d);
    d = rd(",a,,\n5,4,0,1\n0,1,6,1\n", MMNC_FMT_DENSE, 1, -1, &st, &e, NULL);
    CHECK(st == MMNC_OK && d && d->A->ncols == 4 && !d->col_names[0] && !d->col_names[2]);
    mmnc_data_free(d);
    d = rd("1,0,,0\n", MMNC_FMT_DENSE, -1, 0, &st, &e, NULL);
    CHECK(st == MMNC_EFORMAT && has(&e, ":1: field 3 is empty"));
    d = rd("a,b,c,d,e\n1,0,2,0\n", MMNC_FMT_DENSE, 1, -1, &st, &e, NULL);
    CHECK(st == MMNC_EFORMAT && has(&e, "the header line has 5"));
    d = rd("\"a,b\n", MMNC_FMT_DENSE, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_EFORMAT && has(&e, ":1: unbalanced quote"));
    d = rd("a,b,c\n", MMNC_FMT_DENSE, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_EFORMAT && has(&e, "no data lines after the header"));
    d = rd("x,0,0\ny,0,0\n", MMNC_FMT_DENSE, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_EINVAL && has(&e, "no nonzero entries"));
    d = rd("r1\nr2\n", MMNC_FMT_DENSE, -1, 1, &st, &e, NULL);
    CHECK(st == MMNC_EFORMAT && has(&e, "a row name and no value"));
    /* numbers are decimal: the other forms strtod reads are refused with
     * line and column, never read ("0x10" is not 16) */
    d = rd("a,b,c,d\n1,0,2,0\n0,-Infinity,0,1\n", MMNC_FMT_DENSE, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_EFORMAT && has(&e, ":3: field 2 (column 'b'): value '-Infinity' is not a finite number"));
    d = rd("a,b,c,d\n1,0,2,0\n0,NaN(1),0,1\n", MMNC_FMT_DENSE, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_EFORMAT && has(&e, ":3: field 2 (column 'b'): value 'NaN(1)' is not a finite number"));
    d = rd("a,b,c,d\n1,0,2,0\n0,0x1p4,0,1\n", MMNC_FMT_DENSE, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_EFORMAT && has(&e, ":3: field 2 (column 'b'): expected a decimal number, found '0x1p4'"));
    d = rd("a,b,c,d\n1,0,2,0\n0,1.5.2,0,1\n", MMNC_FMT_DENSE, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_EFORMAT && has(&e, ":3: field 2 (column 'b'): expected a number, found '1.5.2'"));
    d = rd("a;b;c;d\n1;0;2;0\n0;3,5;0;1\n", MMNC_FMT_DENSE, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_EFORMAT && has(&e, ":3: field 2 (column 'b'): expected a number, found '3,5'"));
    /* a column of hexadecimal ids under a header that names it: taken for
     * values (as any number would be), refused, with the way to name rows */
    d = rd("id,x,y,z\n0x1f,1,2,3\n0x2f,4,0,6\n", MMNC_FMT_AUTO, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_EFORMAT &&
          has(&e, ":2: field 1 (column 'id'): expected a decimal number, found '0x1f' (a first column of row names: "
                  "dense_row_names = 1, mmnc --first-column names)"));
    d = rd("id,x,y,z\n0x1f,1,2,3\n0x2f,4,0,6\n", MMNC_FMT_AUTO, 0, 1, &st, &e, NULL);
    CHECK(st == MMNC_OK && d && d->A->ncols == 3 && !strcmp(d->row_names[1], "0x2f") && entry(d->A, 1, 2) == 6);
    mmnc_data_free(d);
    /* a first line with NaN stays a line of data: refused, not taken for a header */
    d = rd("1,NaN,2,3\n4,5,6,7\n", MMNC_FMT_AUTO, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_EFORMAT && has(&e, ":1: field 2: value 'NaN' is not a finite number"));
    (void)d;
}

/* The number syntax of every text reader (mmnc_i_parse_double): decimal
 * numbers read as the C library reads them in the C locale, long ones
 * included (correctly rounded, no decimal point for a locale to define);
 * hexadecimal, infinities and NaNs read (for the readers' shape rules) and
 * refused as values; anything else not a number. */
static void test_numbers(void)
{
    static const char *const dec[] = {
        "0", "-0", "+7", "12", "3.25", "-0.5", ".5", "5.", "1e3", "2.5E+10", "1e-3", "-1.e5",
        "3.14159265358979323846264338327950288", "0.1000000000000000055511151231257827021181583404541015625",
        "123456789012345678901234567890", "9007199254740993", "1.7976931348623157e308", "2.2250738585072014e-308",
        "4.9406564584124654e-324", "0.000000000000000000000000000000123456789012345678", "1234567890123456789e-300",
        "1e400", "1e-400", "12345678901234567890e99999999999"};
    static const char *const other[] = {"0x10", "-0X1A", "0x1p-3", "inf", "-INF", "Infinity", "nan", "NaN(12)"};
    static const char *const none[] = {"", ".", "+", "-.", "e5", "1e", "1e+", "1.2.3", "1,5", "0x", "inf5", "nanx",
                                       "1 ", " 1", "1f", "--1", "1e5.0", "infinit", "NaN(", "0b101"};
    char why[MMNC_ERRMSG_SIZE];
    double x;
    for (size_t i = 0; i < sizeof dec / sizeof dec[0]; i++) {
        const char *s = dec[i], *e = s + strlen(s);
        double want = strtod(s, NULL);
        int ok = mmnc_i_decimal_len(s, e) == strlen(s) && mmnc_i_parse_double(s, e, &x) &&
                 memcmp(&x, &want, sizeof x) == 0 && mmnc_i_check_number(x, s, e, why) == !isfinite(want);
        CHECK(ok);
        if (!ok) fprintf(stderr, "  '%s': read %.17g, strtod %.17g\n", s, x, want);
    }
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        const char *s = other[i], *e = s + strlen(s);
        double want = strtod(s, NULL);
        CHECK(mmnc_i_decimal_len(s, e) != strlen(s) && mmnc_i_parse_double(s, e, &x) &&
              (isnan(want) ? isnan(x) : x == want) && mmnc_i_check_number(x, s, e, why) == 1 &&
              strstr(why, s));
    }
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        const char *s = none[i];
        CHECK(!mmnc_i_parse_double(s, s + strlen(s), &x));
        if (mmnc_i_parse_double(s, s + strlen(s), &x)) fprintf(stderr, "  '%s' read as %g\n", s, x);
    }
    CHECK(mmnc_i_check_number(1e308 * 10, "1e309", "1e309" + 5, why) == 1 && strstr(why, "'1e309' is not a finite"));
    CHECK(mmnc_i_check_number(16, "0x10", "0x10" + 4, why) == 1 && strstr(why, "expected a decimal number, found '0x10'"));
    /* a locale whose decimal point is a comma changes nothing (where one is
     * installed; CI installs one and sets MMNC_TEST_REQUIRE_LOCALE) */
    {
        const char *const loc[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "de_DE", "fr_FR"};
        const char *pi = "3.14159265358979323846", *comma = "3,14159265358979323846";
        double want = strtod(pi, NULL);
        size_t i;
        for (i = 0; i < sizeof loc / sizeof loc[0] && !setlocale(LC_NUMERIC, loc[i]); i++) {}
        if (i < sizeof loc / sizeof loc[0]) {
            CHECK(mmnc_i_parse_double(pi, pi + strlen(pi), &x) && x == want);
            CHECK(!mmnc_i_parse_double(comma, comma + strlen(comma), &x));
            setlocale(LC_NUMERIC, "C");
        } else if (getenv("MMNC_TEST_REQUIRE_LOCALE")) {
            CHECK(!"a de_DE or fr_FR locale is installed (MMNC_TEST_REQUIRE_LOCALE is set)");
        } else {
            printf("skipping the locale check: no de_DE or fr_FR locale installed\n");
        }
    }
}

/* What MMNC_FMT_AUTO makes of text: a dense table, or triplets (read or refused). */
static void test_detect(void)
{
    mmnc_err e;
    int st;
    mmnc_data *d;

    /* comma, four fields: dense, also with a ragged line reported as such */
    d = rd("1,0,2,0\n0,3,0,1\n", MMNC_FMT_AUTO, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_OK && d && d->A->nrows == 2 && d->A->ncols == 4);
    mmnc_data_free(d);
    d = rd("1,0,2,0\n0,3,0\n", MMNC_FMT_AUTO, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_EFORMAT && has(&e, "expected 4 fields (as line 1), got 3"));
    /* three comma fields: triplets (split at blanks: one field, refused, with the hint) */
    d = rd("1,2,5\n2,1,3\n", MMNC_FMT_AUTO, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_EFORMAT && has(&e, "expected at least 3 fields") && has(&e, "--format dense"));
    /* four tab-separated numbers (MovieLens u.data): triplets, not dense */
    d = rd("196\t242\t3\t881250949\n186\t302\t3\t891717742\n", MMNC_FMT_AUTO, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_EFORMAT && has(&e, "found more"));
    /* the same with a header line: dense */
    d = rd("a\tb\tc\td\n196\t242\t3\t881250949\n186\t302\t3\t891717742\n", MMNC_FMT_AUTO, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_OK && d && d->A->nrows == 2 && d->A->ncols == 4 && d->col_names);
    mmnc_data_free(d);
    /* tab-separated triplets with string keys stay triplets */
    d = rd("u1\ti1\t5\nu2\ti1\t3\n", MMNC_FMT_AUTO, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_OK && d && d->A->nrows == 2 && d->A->ncols == 1 && d->row_names);
    mmnc_data_free(d);
    /* a triplet option given: never dense */
    {
        mmnc_read_opts o;
        const char *p = test_tmpfile("a\tb\tc\td\n1\t2\t3\t4\n", ".tsv");
        mmnc_read_opts_default(&o);
        o.extra_fields = 1;
        d = NULL;
        st = mmnc_data_read(p, &o, &d, &e);
        CHECK(st == MMNC_EFORMAT && has(&e, "expected a number in field 3")); /* the header read as triplets */
        mmnc_data_free(d);
        unlink(p);
    }
    /* Matrix Market and libsvm are unaffected */
    d = rd("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n", MMNC_FMT_AUTO, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_OK && d && d->A->nrows == 2 && !d->col_names);
    mmnc_data_free(d);
    d = rd("1 1:1 4:2\n2 2:3\n", MMNC_FMT_AUTO, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_OK && d && d->A->ncols == 4);
    mmnc_data_free(d);
    /* pandas' to_csv(index=False) of a frame without names: 0, 1, ... over fractions names the columns */
    d = rd("0,1,2,3\n5.1,3.5,1.4,0.2\n4.9,3.0,1.4,0.2\n", MMNC_FMT_AUTO, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_OK && d && d->A->nrows == 2 && d->A->ncols == 4 && d->col_names &&
          !strcmp(d->col_names[3], "3") && !d->row_names);
    mmnc_data_free(d);
    /* 1 .. n with tabs: a header, hence dense; "3" among the fractions is still a fraction column */
    d = rd("# made by hand\n1\t2\t3\t4\n\n5.1\t3\t1.4\t0.2\n4.9\t3\t1.4\t0.2\n", MMNC_FMT_AUTO, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_OK && d && d->A->nrows == 2 && d->A->ncols == 4 && d->col_names && !strcmp(d->col_names[0], "1"));
    mmnc_data_free(d);
    /* over integers the line may be a row of counts: data; likewise numbers that do not count up */
    d = rd("0,1,2,3\n4,0,2,1\n", MMNC_FMT_AUTO, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_OK && d && d->A->nrows == 2 && !d->col_names);
    mmnc_data_free(d);
    d = rd("0,1,3,4\n5.1,3.5,1.4,0.2\n", MMNC_FMT_AUTO, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_OK && d && d->A->nrows == 2 && !d->col_names);
    mmnc_data_free(d);
    d = rd("0,1,2,3\n5.1,3.5,1.4,0.2\n", MMNC_FMT_DENSE, -1, 0, &st, &e, NULL); /* no header, as told */
    CHECK(st == MMNC_OK && d && d->A->nrows == 2 && !d->col_names);
    mmnc_data_free(d);
    d = rd("0,1,2\n5.1,3.5,1.4\n", MMNC_FMT_DENSE, 0, 0, &st, &e, NULL); /* three columns, forced */
    CHECK(st == MMNC_OK && d && d->A->nrows == 1 && d->A->ncols == 3 && d->col_names);
    mmnc_data_free(d);
    /* a Matrix Market file read as a forced text format: refused at its banner */
    d = rd("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n", MMNC_FMT_DENSE, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_EFORMAT &&
          has(&e, ":1: a Matrix Market file ('%%MatrixMarket matrix coordinate real general'), not dense"));
    d = rd("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n", MMNC_FMT_TRIPLET, 0, 0, &st, &e, NULL);
    CHECK(st == MMNC_EFORMAT && has(&e, "not triplet"));
    /* bad options */
    d = rd("1,2,3,4\n", MMNC_FMT_DENSE, 2, 0, &st, &e, NULL);
    CHECK(st == MMNC_EINVAL);
}

static int read_auto(void *ctx, mmnc_data **out, mmnc_err *err) { return mmnc_data_read(ctx, NULL, out, err); }

static void test_alloc_failures(void)
{
    const char *p = test_tmpfile(",a,b,c,d\nr1,1,0,2,0\nr2,0,3.5,0,1\n\"r3\",1,1,1,1\n", ".csv");
    long bad = 0, failures = test_each_alloc_failure(read_auto, (void *)p, &bad);
    mmnc_data *d = NULL;
    mmnc_err e;
    CHECK(bad == 0 && failures > 5);
    CHECK(mmnc_data_read(p, NULL, &d, &e) == MMNC_OK && d->A->nrows == 3 && d->A->nnz == 8);
    mmnc_data_free(d);
    unlink(p);
    /* the look below an index line (pandas' header) */
    p = test_tmpfile("0,1,2,3\n5.1,3.5,1.4,0.2\n4.9,3.0,1.4,0.2\n", ".csv");
    bad = 0;
    failures = test_each_alloc_failure(read_auto, (void *)p, &bad);
    CHECK(bad == 0 && failures > 5);
    unlink(p);
}

int main(void)
{
    test_shapes();
    test_errors();
    test_numbers();
    test_detect();
    test_alloc_failures();
    return test_done();
}
