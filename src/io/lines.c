/*
 * lines.c -- what the text readers share (lines_i.h): the line reader over
 * stream.c, messages that name file and line, field splitting, the check
 * of value fields (and mmnc_number_parse, the same syntax for one number)
 * and the string-key map.  The data readers (read.c) and the label and name files
 * (labels.c) read through it.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/lines_i.h"

#define LR_CHUNK ((size_t)1 << 20)

/* Move the unread text to the front of r->buf, double the buffer when one
 * line fills it, and read what fits; eof at a short read.  MMNC_EFORMAT
 * for a NUL byte, which no text file holds, naming its line. */
static int lr_fill(mmnc_i_lreader *r, mmnc_err *err)
{
    int st;
    size_t want, got;
    if (r->beg > 0) {
        memmove(r->buf, r->buf + r->beg, r->end - r->beg);
        r->end -= r->beg;
        r->beg = 0;
    }
    if (r->end == r->cap) { /* a line longer than the buffer */
        char *nb = mmnc_i_realloc(r->buf, 2 * r->cap + 1, 1);
        if (!nb) return mmnc_i_err(err, MMNC_ENOMEM, "%s: out of memory (line %lld is too long)",
                                   r->path, r->line + 1);
        r->buf = nb;
        r->cap *= 2;
    }
    want = r->cap - r->end;
    if ((st = mmnc_i_in_read(r->in, r->buf + r->end, want, &got, err)) != MMNC_OK) return st;
    const char *nul = memchr(r->buf + r->end, '\0', got);
    if (nul) { /* its line: the unread text starts at line r->line + 1 */
        long long line = r->line + 1;
        for (const char *c = r->buf; c < nul; c++) line += *c == '\n';
        return mmnc_i_err(err, MMNC_EFORMAT, "%s:%lld: NUL byte: this is not a text file", r->path, line);
    }
    r->end += got;
    if (got < want) r->eof = 1;
    return MMNC_OK;
}

int mmnc_i_lr_open(mmnc_i_lreader *r, const char *path, mmnc_err *err)
{
    mmnc_i_in *in;
    int st;
    memset(r, 0, sizeof *r);
    if ((st = mmnc_i_in_open(path, &in, err)) != MMNC_OK) return st;
    return mmnc_i_lr_open_in(r, path, in, err);
}

int mmnc_i_lr_open_in(mmnc_i_lreader *r, const char *path, mmnc_i_in *in, mmnc_err *err)
{
    int st;
    memset(r, 0, sizeof *r);
    r->path = path;
    r->in = in;
    r->cap = LR_CHUNK;
    r->buf = mmnc_i_malloc(r->cap + 1, 1);
    if (!r->buf) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    if ((st = lr_fill(r, err)) != MMNC_OK) return st;
    r->beg = mmnc_i_bom_len(r->buf, r->end);
    return MMNC_OK;
}

void mmnc_i_lr_close(mmnc_i_lreader *r)
{
    mmnc_i_in_close(r->in);
    mmnc_i_free(r->buf);
    r->in = NULL;
    r->buf = NULL;
}

int mmnc_i_lr_next(mmnc_i_lreader *r, char **s, size_t *n, mmnc_err *err)
{
    int st;
    for (;;) {
        char *b = r->buf + r->beg;
        char *nl = memchr(b, '\n', r->end - r->beg);
        size_t len;
        if (nl || (r->eof && r->beg < r->end)) {
            if (nl) {
                len = (size_t)(nl - b);
                r->beg += len + 1;
            } else {
                len = r->end - r->beg;
                r->beg = r->end;
            }
            b[len] = '\0'; /* buf has cap + 1 bytes */
            if (len && b[len - 1] == '\r') b[--len] = '\0';
            r->line++;
            *s = b;
            *n = len;
            return MMNC_OK;
        }
        if (r->eof) {
            *s = NULL;
            *n = 0;
            return MMNC_OK;
        }
        if ((st = lr_fill(r, err)) != MMNC_OK) return st;
    }
}

const char *mmnc_i_excerpt(const char *s, size_t n, char *buf /* 80 */)
{
    size_t i, k = 0;
    for (i = 0; i < n && k < 60; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[k++] = c == '\t' ? ' ' : (c < 32 || c == 127) ? '?' : (char)c;
    }
    if (i < n) {
        memcpy(buf + k, "...", 3);
        k += 3;
    }
    buf[k] = '\0';
    return buf;
}

int mmnc_i_line_err(const mmnc_i_lreader *r, int code, mmnc_err *err, const char *fmt, ...)
{
    char msg[MMNC_ERRMSG_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return mmnc_i_err(err, code, "%s:%lld: %s", r->path, r->line, msg);
}

int mmnc_i_split_fields(char *s, char delim, int maxf, const char **b, const char **e)
{
    int nf = 0;
    const char *p = s;
    if (!delim) {
        for (;;) {
            p = mmnc_i_skip_ws(p);
            if (!*p || nf == maxf) break;
            b[nf] = p;
            e[nf++] = p = mmnc_i_token_end(p);
        }
        return nf;
    }
    while (nf < maxf) {
        const char *q = p, *f;
        while (*q && *q != delim) q++;
        f = q;
        while (p < f && MMNC_I_IS_WS(*p) && *p != delim) p++;
        while (f > p && MMNC_I_IS_WS(f[-1]) && f[-1] != delim) f--;
        b[nf] = p;
        e[nf++] = f;
        if (!*q) break;
        p = q + 1;
    }
    return nf;
}

/* 1 if [b, e) is w (lower case), ignoring the case of [b, e). */
static int word_is(const char *b, const char *e, const char *w)
{
    for (; b < e && *w; b++, w++)
        if ((*b | 0x20) != *w) return 0;
    return b == e && !*w;
}

int mmnc_i_parse_number(const char *b, const char *e, double *x)
{
    char tmp[96];
    size_t n = (size_t)(e - b), k = 0;
    const char *p = b, *q;
    int neg = 0;
    if (n == 0 || n >= 80) return 0;
    if (mmnc_i_decimal_len(b, e) == n) {
        /* the digits, then the exponent less the digits after the point:
         * no decimal point left for the locale to define */
        long long ex = 0, frac = 0;
        int dot = 0, eneg = 0;
        if (*p == '-' || *p == '+') tmp[k++] = *p++;
        for (; p < e && *p != 'e' && *p != 'E'; p++) {
            if (*p == '.') dot = 1;
            else {
                tmp[k++] = *p;
                frac += dot;
            }
        }
        if (p < e) { /* the exponent, held within reach of any double's */
            if (*++p == '-' || *p == '+') eneg = *p++ == '-';
            for (; p < e; p++)
                if (ex < 100000) ex = 10 * ex + (*p - '0');
        }
        snprintf(tmp + k, sizeof tmp - k, "e%lld", (eneg ? -ex : ex) - frac);
        *x = strtod(tmp, NULL);
        return 1;
    }
    /* the C locale's other forms: infinities, NaNs, hexadecimal */
    if (*p == '-' || *p == '+') neg = *p++ == '-';
    if (word_is(p, e, "inf") || word_is(p, e, "infinity")) {
        *x = neg ? -HUGE_VAL : HUGE_VAL;
        return 1;
    }
    for (q = p; q < e && *q != '('; q++) {}
    if (word_is(p, q, "nan") && (q == e || e[-1] == ')')) {
        *x = NAN;
        return 1;
    }
    if (e - p > 2 && p[0] == '0' && (p[1] | 0x20) == 'x') {
        char *end;
        memcpy(tmp, b, n);
        tmp[n] = '\0';
        *x = strtod(tmp, &end);
        return end == tmp + n;
    }
    return 0;
}

int mmnc_i_check_number(double v, const char *b, const char *e, char *why)
{
    const char *p = b + (b < e && (*b == '-' || *b == '+'));
    char ex[80];
    int dec = mmnc_i_decimal_len(b, e) == (size_t)(e - b);
    if (dec && isfinite(v)) return 0;
    mmnc_i_excerpt(b, (size_t)(e - b), ex);
    if (dec || ((isnan(v) || isinf(v)) && !(e - p > 1 && p[0] == '0' && (p[1] | 0x20) == 'x')))
        snprintf(why, MMNC_ERRMSG_SIZE, "value '%s' is not a finite number", ex); /* "1e999", "inf", "nan" */
    else
        snprintf(why, MMNC_ERRMSG_SIZE, "expected a decimal number, found '%s'", ex);
    return 1;
}

int mmnc_i_check_value(double v, const char *b, const char *e, char *why)
{
    const char *p = b + (b < e && (*b == '-' || *b == '+'));
    char ex[80];
    if (mmnc_i_check_number(v, b, e, why)) return 1;
    if (v >= DBL_MIN) return 0;
    if (v == 0) { /* an underflow if a digit before the exponent is not 0 */
        while (p < e && *p != 'e' && *p != 'E' && (*p < '1' || *p > '9')) p++;
        if (p == e || *p == 'e' || *p == 'E') return 0;
    }
    mmnc_i_excerpt(b, (size_t)(e - b), ex);
    if (v < 0)
        snprintf(why, MMNC_ERRMSG_SIZE, "negative value '%s' (values must be >= 0)", ex);
    else
        snprintf(why, MMNC_ERRMSG_SIZE, "value '%s' is below DBL_MIN = %.17g, the smallest nonzero magnitude read "
                 "(it would be read as %s)", ex, DBL_MIN, v == 0 ? "0" : "a subnormal number");
    return 1;
}

int mmnc_number_parse(const char *s, size_t n, double *x, mmnc_err *err)
{
    char why[MMNC_ERRMSG_SIZE], ex[80];
    double v;
    if (!s || !x) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_number_parse: NULL argument");
    if (!mmnc_i_parse_double(s, s + n, &v))
        return mmnc_i_err(err, MMNC_EFORMAT, "expected a number, found '%s'", mmnc_i_excerpt(s, n, ex));
    if (mmnc_i_check_number(v, s, s + n, why)) return mmnc_i_err(err, MMNC_EFORMAT, "%s", why);
    *x = v;
    return MMNC_OK;
}

/* FNV-1a with its high bits folded into the low ones, which pick the slot. */
static uint64_t key_hash(const char *s, size_t n)
{
    uint64_t h = mmnc_i_fnv1a(s, n);
    return h ^ (h >> 29);
}

void mmnc_i_keymap_free(mmnc_i_keymap *k)
{
    if (k->names)
        for (mmnc_int i = 0; i < k->n; i++) mmnc_i_free(k->names[i]);
    mmnc_i_free(k->names);
    mmnc_i_free(k->hash);
    mmnc_i_free(k->slot);
    memset(k, 0, sizeof *k);
}

/* Re-place every key in a table of nslot slots (a power of two), from the
 * stored hashes. */
static int keymap_rehash(mmnc_i_keymap *k, size_t nslot, mmnc_err *err)
{
    mmnc_int *slot = mmnc_i_calloc(nslot, sizeof(mmnc_int));
    if (!slot) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    for (mmnc_int i = 0; i < k->n; i++) {
        size_t h = (size_t)k->hash[i] & (nslot - 1);
        while (slot[h]) h = (h + 1) & (nslot - 1);
        slot[h] = i + 1;
    }
    mmnc_i_free(k->slot);
    k->slot = slot;
    k->nslot = nslot;
    return MMNC_OK;
}

int mmnc_i_keymap_get(mmnc_i_keymap *k, const char *s, size_t n, mmnc_int *idx, mmnc_err *err)
{
    uint64_t h = key_hash(s, n);
    size_t pos;
    char *copy;
    int st;
    if (!k->slot && (st = keymap_rehash(k, 1024, err)) != MMNC_OK) return st;
    pos = (size_t)h & (k->nslot - 1);
    while (k->slot[pos]) {
        mmnc_int i = k->slot[pos] - 1;
        if (k->hash[i] == h && strncmp(k->names[i], s, n) == 0 && k->names[i][n] == '\0') {
            *idx = i;
            return MMNC_OK;
        }
        pos = (pos + 1) & (k->nslot - 1);
    }
    if (k->n == k->cap) {
        mmnc_int nc = k->cap ? 2 * k->cap : 256;
        char **nn = mmnc_i_realloc(k->names, (size_t)nc, sizeof(char *));
        uint64_t *nh;
        if (!nn) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
        k->names = nn;
        nh = mmnc_i_realloc(k->hash, (size_t)nc, sizeof(uint64_t));
        if (!nh) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
        k->hash = nh;
        k->cap = nc;
    }
    if (!(copy = mmnc_i_malloc(n + 1, 1))) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    memcpy(copy, s, n);
    copy[n] = '\0';
    k->names[k->n] = copy;
    k->hash[k->n] = h;
    k->slot[pos] = ++k->n;
    *idx = k->n - 1;
    if ((size_t)k->n * 2 > k->nslot) return keymap_rehash(k, 2 * k->nslot, err);
    return MMNC_OK;
}


mmnc_int mmnc_i_keymap_find(const mmnc_i_keymap *k, const char *s, size_t n)
{
    uint64_t h = key_hash(s, n);
    size_t pos;
    if (!k->slot) return -1;
    pos = (size_t)h & (k->nslot - 1);
    while (k->slot[pos]) {
        mmnc_int i = k->slot[pos] - 1;
        if (k->hash[i] == h && strncmp(k->names[i], s, n) == 0 && k->names[i][n] == '\0') return i;
        pos = (pos + 1) & (k->nslot - 1);
    }
    return -1;
}
