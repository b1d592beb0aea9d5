/*
 * lines_i.h -- the pieces the text readers share (lines.c): a line reader
 * over stream.c, messages "file:line: ...", number and field parsing, and
 * a map of string keys.  Used by read.c (data files) and labels.c (label
 * and name files).
 */
#ifndef MMNC_LINES_I_H
#define MMNC_LINES_I_H

#include <stdlib.h>
#include <string.h>

#include "core/mmnc_i.h"

#define MMNC_I_IS_WS(c) ((c) == ' ' || (c) == '\t' || (c) == '\r' || (c) == '\v' || (c) == '\f')

/* Lines of a plain, gzip or xz file (or standard input for "-"), read in
 * 1 MB blocks; buf[beg..end) is the text not yet returned. */
typedef struct mmnc_i_lreader {
    mmnc_i_in *in;
    const char *path;
    char *buf;          /* cap + 1 bytes: room for a final NUL */
    size_t cap, beg, end;
    int eof;
    long long line;     /* number of the line last returned (1-based) */
} mmnc_i_lreader;

/* Opens path and reads the first block; a UTF-8 byte-order mark at the
 * start of the text is skipped (mmnc_i_bom_len). */
int mmnc_i_lr_open(mmnc_i_lreader *r, const char *path, mmnc_err *err);
/* The same over a stream already open (sniffed); r owns in from here on,
 * also on failure (mmnc_i_lr_close). */
int mmnc_i_lr_open_in(mmnc_i_lreader *r, const char *path, mmnc_i_in *in, mmnc_err *err);
/* Next line, NUL-terminated without its "\n" or "\r\n", in *s (length *n);
 * *s = NULL at the end of the file.  MMNC_EFORMAT for a NUL byte. */
int mmnc_i_lr_next(mmnc_i_lreader *r, char **s, size_t *n, mmnc_err *err);
void mmnc_i_lr_close(mmnc_i_lreader *r); /* also after a failed mmnc_i_lr_open, or on a zeroed r */

/* A printable excerpt of s[0..n) for error messages (buf: 80 bytes). */
const char *mmnc_i_excerpt(const char *s, size_t n, char *buf);
/* Fill err with "path:line: " and the message; returns code. */
int mmnc_i_line_err(const mmnc_i_lreader *r, int code, mmnc_err *err, const char *fmt, ...) MMNC_PRINTF(4, 5);

/* Unsigned decimal integer filling [b, e) exactly; 0 on failure. */
static inline int mmnc_i_parse_index(const char *b, const char *e, mmnc_int *x)
{
    mmnc_int v = 0;
    if (b >= e || e - b > 18) return 0;
    for (; b < e; b++) {
        unsigned d = (unsigned)(unsigned char)*b - '0';
        if (d > 9) return 0;
        v = 10 * v + (mmnc_int)d;
    }
    *x = v;
    return 1;
}

static inline int mmnc_i_is_comment(const char *s) { return *s == '%' || *s == '#'; }

static inline const char *mmnc_i_skip_ws(const char *p)
{
    while (MMNC_I_IS_WS(*p)) p++;
    return p;
}

static inline const char *mmnc_i_token_end(const char *p)
{
    while (*p && !MMNC_I_IS_WS(*p)) p++;
    return p;
}

#define MMNC_I_MAXFIELDS 64

/* Split s into at most maxf fields: by runs of blanks (delim == 0) or at
 * each delim with blanks around fields trimmed.  Returns the number found
 * (up to maxf). */
int mmnc_i_split_fields(char *s, char delim, int maxf, const char **b, const char **e);

/* String keys -> 0, 1, 2, ... in order of first appearance (open addressing,
 * linear probing, load <= 1/2).  names[] keeps the keys. */
typedef struct mmnc_i_keymap {
    char **names;
    uint64_t *hash;   /* hash of names[i] */
    mmnc_int n, cap;
    mmnc_int *slot;   /* index + 1, 0 = empty */
    size_t nslot;     /* power of two */
} mmnc_i_keymap;

void mmnc_i_keymap_free(mmnc_i_keymap *k);
/* Index of key s[0..n), inserted if new. */
int mmnc_i_keymap_get(mmnc_i_keymap *k, const char *s, size_t n, mmnc_int *idx, mmnc_err *err);
/* Index of key s[0..n), or -1. */
mmnc_int mmnc_i_keymap_find(const mmnc_i_keymap *k, const char *s, size_t n);

static const double mmnc_i_pow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
                                      1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

/* The digits and at most one '.' from p on (to e, or unbounded when e is
 * NULL): m the digits as an integer, *nd how many, *frac how many after the
 * point.  Returns where the scan stopped. */
static inline const char *mmnc_i_scan_decimal(const char *p, const char *e, uint64_t *m, int *nd, int *frac)
{
    int dot = 0;
    for (; !e || p < e; p++) {
        unsigned d = (unsigned)(unsigned char)*p - '0';
        if (d <= 9) {
            *m = 10 * *m + d;
            (*nd)++;
            *frac += dot;
        } else if (*p == '.' && !dot) {
            dot = 1;
        } else {
            break;
        }
    }
    return p;
}

/* The length of the decimal number that starts at b (before e): an
 * optional sign, digits with at most one '.' among or after them (at least
 * one digit), and an optional exponent 'e' or 'E', optional sign, digits --
 * "3", "-0.25", ".5", "5.", "1e-3", "2.5E+10".  0 if none starts there. */
static inline size_t mmnc_i_decimal_len(const char *b, const char *e)
{
    const char *p = b;
    int nd = 0;
    if (p < e && (*p == '-' || *p == '+')) p++;
    for (; p < e && (unsigned)(unsigned char)*p - '0' <= 9; p++) nd++;
    if (p < e && *p == '.')
        for (p++; p < e && (unsigned)(unsigned char)*p - '0' <= 9; p++) nd++;
    if (!nd) return 0;
    if (p < e && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1;
        if (q < e && (*q == '-' || *q == '+')) q++;
        if (q < e && (unsigned)(unsigned char)*q - '0' <= 9) {
            while (q < e && (unsigned)(unsigned char)*q - '0' <= 9) q++;
            p = q;
        }
    }
    return (size_t)(p - b);
}

/* A number filling [b, e) exactly (at most 79 bytes), in the C locale's
 * syntax whatever the process's locale.  Decimal numbers (mmnc_i_decimal_len)
 * are read as such: short plain ones ("12", "3.25", "-0.5") exactly as m /
 * 10^k with m < 2^53, a correctly rounded division, the others by strtod
 * on their digits and exponent alone (no decimal point, which the locale
 * would define), correctly rounded too.  The other forms strtod reads in the
 * C locale -- hexadecimal ("0x10", "0x1p-3"), "inf", "infinity", "nan" --
 * are numbers here too, so that a file's shape (a header line, a column of
 * row names) is not decided by a value the readers then refuse: a value
 * field is checked with mmnc_i_check_value or mmnc_i_check_number, which
 * refuse them.  Returns 0 if the field is not a number.  The short plain
 * decimals inline, the rest in mmnc_i_parse_number (lines.c). */
int mmnc_i_parse_number(const char *b, const char *e, double *x);
static inline int mmnc_i_parse_double(const char *b, const char *e, double *x)
{
    const char *p = b;
    int neg = 0, nd = 0, frac = 0;
    uint64_t m = 0;
    if (p < e && (*p == '-' || *p == '+')) neg = *p++ == '-';
    p = mmnc_i_scan_decimal(p, e, &m, &nd, &frac);
    if (p == e && nd > 0 && nd <= 15) {
        double v = (double)m;
        if (frac) v /= mmnc_i_pow10[frac];
        *x = neg ? -v : v;
        return 1;
    }
    return mmnc_i_parse_number(b, e, x);
}

/* 0 if the field [b, e), which mmnc_i_parse_double read as v, is a decimal
 * number (mmnc_i_decimal_len: not hexadecimal, "inf" or "nan") and finite;
 * else 1, with the reason, which quotes the field, in why
 * (MMNC_ERRMSG_SIZE bytes): "expected a decimal number, found '0x10'" or
 * "value 'nan' is not a finite number". */
int mmnc_i_check_number(double v, const char *b, const char *e, char *why);

/* 0 if the value field [b, e), which mmnc_i_parse_double read as v, is a
 * value the readers accept: a number mmnc_i_check_number accepts, >= 0,
 * and either 0 or of magnitude at least DBL_MIN (a nonzero literal that
 * would be read as 0, or as a subnormal number, is refused).  Else 1, with
 * the reason, which quotes the field, in why (MMNC_ERRMSG_SIZE bytes). */
int mmnc_i_check_value(double v, const char *b, const char *e, char *why);

/* Dense tables (dense.c): 1 if the text p[0..end) (the first block of a
 * file; at_eof: it is the whole file) is a dense table by the rules of
 * mmnc_data_read's MMNC_FMT_AUTO, 0 if not, -1 if out of memory; and the
 * reader of MMNC_FMT_DENSE. */
int mmnc_i_dense_detect(const char *p, const char *end, int at_eof);
int mmnc_i_read_dense(mmnc_i_lreader *r, const mmnc_read_opts *o, mmnc_data **out, mmnc_err *err);

#endif /* MMNC_LINES_I_H */
