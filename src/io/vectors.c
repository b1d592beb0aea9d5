/*
 * vectors.c -- word vectors in the word2vec formats (Mikolov et al.'s
 * word2vec.c, also read and written by gensim, fastText and GloVe tools).
 *
 *   text:    "n d\n", then n lines "word v_1 ... v_d\n"
 *   binary:  "n d\n", then n records "word " + d little-endian float32 + "\n"
 *
 * Words are separated from their values by a space, so a word may not hold
 * white space.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/lines_i.h"

/* 1 if the word holds white space, which the word2vec formats cannot store. */
static int has_space(const char *w)
{
    for (; *w; w++)
        if (*w == ' ' || *w == '\t' || *w == '\n' || *w == '\r') return 1;
    return 0;
}

int mmnc_vectors_write(const char *path, mmnc_int n, mmnc_int d, char *const *words, const double *E,
                       int binary, mmnc_err *err)
{
    mmnc_outfile o;
    int status;
    float *row = NULL;
    if (!path || !words || !E || n < 1 || d < 1)
        return mmnc_i_err(err, MMNC_EINVAL, "mmnc_vectors_write: NULL argument or empty matrix");
    for (mmnc_int i = 0; i < n; i++)
        if (!words[i] || !words[i][0] || has_space(words[i]))
            return mmnc_i_err(err, MMNC_EINVAL, "word %lld is empty or holds white space: not writable in the "
                              "word2vec format", (long long)i + 1);
    if (binary && !(row = mmnc_i_malloc((size_t)d, sizeof(float))))
        return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    if ((status = mmnc_outfile_open(&o, path, err)) != MMNC_OK) {
        mmnc_i_free(row);
        return status;
    }
    fprintf(o.fp, "%lld %lld\n", (long long)n, (long long)d);
    for (mmnc_int i = 0; i < n; i++) {
        const double *e = E + i * d;
        fputs(words[i], o.fp);
        if (binary) {
            putc(' ', o.fp);
            for (mmnc_int j = 0; j < d; j++) row[j] = (float)e[j];
            /* IEEE float32, little-endian as on every machine word2vec runs on. */
            fwrite(row, sizeof(float), (size_t)d, o.fp);
        } else {
            for (mmnc_int j = 0; j < d; j++) fprintf(o.fp, " %.8g", (double)(float)e[j]);
        }
        putc('\n', o.fp);
    }
    mmnc_i_free(row);
    return mmnc_outfile_commit(&o, err);
}

/* ---- reading ----------------------------------------------------------------- */

typedef struct vreader {
    mmnc_i_in *in;
    const char *path;
    unsigned char buf[1 << 16];
    size_t beg, end;
    int eof;
    long long line;
} vreader;

/* Refill r->buf when it is empty (eof at the end of the input). */
static int vr_fill(vreader *r, mmnc_err *err)
{
    size_t got;
    int st;
    if (r->beg < r->end || r->eof) return MMNC_OK;
    if ((st = mmnc_i_in_read(r->in, r->buf, sizeof r->buf, &got, err)) != MMNC_OK) return st;
    r->beg = 0;
    r->end = got;
    if (got == 0) r->eof = 1;
    return MMNC_OK;
}

/* Next byte, or -1 at the end of the file (status in *st). */
static int vr_getc(vreader *r, int *st, mmnc_err *err)
{
    if (r->beg == r->end && (*st = vr_fill(r, err)) != MMNC_OK) return -1;
    if (r->beg == r->end) return -1;
    return r->buf[r->beg++];
}

/* Next field of at most cap - 1 bytes, up to a space, tab or newline
 * (the separator is consumed and returned in *sep, -1 at the end). */
static int vr_field(vreader *r, char *f, size_t cap, int *sep, mmnc_err *err)
{
    size_t n = 0;
    int c, st = MMNC_OK;
    for (;;) {
        c = vr_getc(r, &st, err);
        if (st != MMNC_OK) return st;
        if (c == ' ' || c == '\t' || c == '\n' || c == -1) break;
        if (c == '\r') continue;
        if (n + 1 >= cap)
            return mmnc_i_err(err, MMNC_EFORMAT, "%s:%lld: a field longer than %zu bytes", r->path, r->line,
                              cap - 1);
        f[n++] = (char)c;
    }
    f[n] = 0;
    *sep = c;
    return MMNC_OK;
}

/* Room for want records of d values: *words (NULL-filled beyond the old
 * *cap) and *E grown to want; *cap becomes want. */
static int grow_records(char ***words, float **E, mmnc_int *cap, mmnc_int want, mmnc_int d, mmnc_err *err)
{
    char **w = mmnc_i_realloc(*words, (size_t)want, sizeof *w);
    float *e;
    if (!w) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory (%lld word vectors)", (long long)want);
    *words = w;
    memset(w + *cap, 0, (size_t)(want - *cap) * sizeof *w);
    if (!(e = mmnc_i_realloc(*E, (size_t)(want * d), sizeof *e)))
        return mmnc_i_err(err, MMNC_ENOMEM, "out of memory (%lld word vectors)", (long long)want);
    *E = e;
    *cap = want;
    return MMNC_OK;
}

/* See mmnc.h.  A streaming parser of the word2vec formats (header, text or
 * binary records, tolerated blanks), every error naming file and line; one
 * function, since its only state is the input position. */
int mmnc_vectors_read(const char *path, int binary, mmnc_int *n_out, mmnc_int *d_out, char ***words_out,
                      float **E_out, mmnc_err *err)
{
    vreader *r = NULL;
    char f[1024], *end;
    int sep, status = MMNC_OK;
    long long n = 0, d = 0;
    char **words = NULL;
    float *E = NULL;
    mmnc_int i = 0, cap = 0, first;

    if (!path || !n_out || !d_out || !words_out || !E_out)
        return mmnc_i_err(err, MMNC_EINVAL, "mmnc_vectors_read: NULL argument");
    *n_out = *d_out = 0;
    *words_out = NULL;
    *E_out = NULL;
    MMNC_CALLOC(r, 1, err, status);
    r->path = path;
    r->line = 1;
    if ((status = mmnc_i_in_open(path, &r->in, err)) != MMNC_OK || (status = vr_fill(r, err)) != MMNC_OK)
        goto cleanup;
    r->beg = mmnc_i_bom_len(r->buf, r->end);
    /* header "n d" */
    if ((status = vr_field(r, f, sizeof f, &sep, err)) != MMNC_OK) goto cleanup;
    n = strtoll(f, &end, 10);
    if (!f[0] || *end || n < 1 || sep != ' ') {
        status = mmnc_i_err(err, MMNC_EFORMAT, "%s:1: expected the header \"WORDS DIMENSIONS\" of a word2vec file",
                            path);
        goto cleanup;
    }
    if ((status = vr_field(r, f, sizeof f, &sep, err)) != MMNC_OK) goto cleanup;
    d = strtoll(f, &end, 10);
    if (!f[0] || *end || d < 1 || d > 1000000 || (sep != '\n' && sep != ' ')) {
        status = mmnc_i_err(err, MMNC_EFORMAT, "%s:1: expected the header \"WORDS DIMENSIONS\" of a word2vec file",
                            path);
        goto cleanup;
    }
    while (sep == ' ') { /* tolerate trailing blanks on the header */
        int c = vr_getc(r, &status, err);
        if (status != MMNC_OK) goto cleanup;
        if (c == '\n') break;
        if (c != ' ' && c != '\r') {
            status = mmnc_i_err(err, MMNC_EFORMAT, "%s:1: expected the header \"WORDS DIMENSIONS\"", path);
            goto cleanup;
        }
    }
    if ((double)n * (double)d > 1e11) {
        status = mmnc_i_err(err, MMNC_EFORMAT, "%s:1: %lld x %lld vectors is implausibly large", path, n, d);
        goto cleanup;
    }
    /* the header is a claim: the arrays grow with the records read (a
     * header of 5e9 words on an empty file must not allocate 5e9 pointers),
     * from about 256 KB of values (one record of d <= 10^6 values at least) */
    first = 65536 / d < 1 ? 1 : 65536 / d;
    if ((status = grow_records(&words, &E, &cap, first < n ? first : n, d, err)) != MMNC_OK) goto cleanup;
    if (binary < 0) { /* text if the first record's first value parses as a number before a space */
        if ((status = vr_fill(r, err)) != MMNC_OK) goto cleanup;
        unsigned char *p = r->buf + r->beg, *e = r->buf + r->end, *sp = memchr(p, ' ', (size_t)(e - p));
        binary = 1;
        if (sp && sp + 1 < e) {
            char num[64];
            size_t k = 0;
            unsigned char *q = sp + 1;
            while (q < e && k < sizeof num - 1 && *q != ' ' && *q != '\n' && *q != '\r') num[k++] = (char)*q++;
            num[k] = 0;
            if (k > 0 && q < e && (*q == ' ' || *q == '\n' || *q == '\r')) {
                double x;
                if (!memchr(num, '\0', k) && mmnc_i_parse_double(num, num + k, &x)) binary = 0;
            }
        }
    }
    for (i = 0; i < n; i++) {
        r->line = binary ? i + 2 : r->line + 1;
        if (i == cap && (status = grow_records(&words, &E, &cap, cap * 2 < n ? cap * 2 : n, d, err)) != MMNC_OK)
            goto cleanup;
        if ((status = vr_field(r, f, sizeof f, &sep, err)) != MMNC_OK) goto cleanup;
        if (sep == -1 && !f[0]) {
            status = mmnc_i_err(err, MMNC_EFORMAT, "%s:%lld: truncated: the header (line 1) claims %lld words, the file holds %lld",
                                path, (long long)r->line, n, (long long)i);
            goto cleanup;
        }
        if (!f[0] || sep != ' ') {
            status = mmnc_i_err(err, MMNC_EFORMAT, "%s:%lld: expected a word and %lld values", path, r->line, d);
            goto cleanup;
        }
        if (!(words[i] = mmnc_i_strdup(f))) {
            status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
            goto cleanup;
        }
        float *row = E + i * d;
        if (binary) {
            unsigned char *dst = (unsigned char *)row;
            size_t need = (size_t)d * sizeof(float);
            while (need) {
                if ((status = vr_fill(r, err)) != MMNC_OK) goto cleanup;
                if (r->beg == r->end) {
                    status = mmnc_i_err(err, MMNC_EFORMAT, "%s: truncated in the values of word %lld ('%s')",
                                        path, (long long)i + 1, words[i]);
                    goto cleanup;
                }
                size_t m = r->end - r->beg < need ? r->end - r->beg : need;
                memcpy(dst, r->buf + r->beg, m);
                r->beg += m;
                dst += m;
                need -= m;
            }
            for (mmnc_int j = 0; j < d; j++)
                if (!isfinite(row[j])) {
                    status = mmnc_i_err(err, MMNC_EFORMAT, "%s: word %lld ('%s'): value %lld is not finite",
                                        path, (long long)i + 1, words[i], (long long)j + 1);
                    goto cleanup;
                }
            /* word2vec ends a record with '\n'; gensim too.  Tolerate none. */
            if (r->beg == r->end && (status = vr_fill(r, err)) != MMNC_OK) goto cleanup;
            if (r->beg < r->end && r->buf[r->beg] == '\n') r->beg++;
        } else {
            for (mmnc_int j = 0; j < d; j++) {
                if ((status = vr_field(r, f, sizeof f, &sep, err)) != MMNC_OK) goto cleanup;
                size_t flen = strlen(f);
                double v = 0.0;
                char why[MMNC_ERRMSG_SIZE];
                if (!f[0] || !mmnc_i_parse_double(f, f + flen, &v) || (j < d - 1 && sep != ' ')) {
                    status = mmnc_i_err(err, MMNC_EFORMAT, "%s:%lld: expected %lld numbers after '%s', got '%s'",
                                        path, r->line, d, words[i], f[0] ? f : (sep == '\n' ? "end of line" : "nothing"));
                    goto cleanup;
                }
                /* decimal and finite, as every text reader takes numbers */
                if (mmnc_i_check_number(v, f, f + flen, why)) {
                    status = mmnc_i_err(err, MMNC_EFORMAT, "%s:%lld: value %lld of word '%s': %s", path, r->line,
                                        (long long)j + 1, words[i], why);
                    goto cleanup;
                }
                if (fabs(v) > FLT_MAX) { /* finite as a double, infinite as the float it is stored in */
                    status = mmnc_i_err(err, MMNC_EFORMAT, "%s:%lld: value '%s' of '%s' is out of the range of a float",
                                        path, r->line, f, words[i]);
                    goto cleanup;
                }
                row[j] = (float)v;
            }
            /* the rest of the line may hold blanks only */
            while (sep == ' ') {
                int c = vr_getc(r, &status, err);
                if (status != MMNC_OK) goto cleanup;
                if (c == '\n' || c == -1) break;
                if (c != ' ' && c != '\r') {
                    status = mmnc_i_err(err, MMNC_EFORMAT, "%s:%lld: more than %lld values after '%s'", path,
                                        r->line, d, words[i]);
                    goto cleanup;
                }
            }
        }
    }
    *n_out = n;
    *d_out = d;
    *words_out = words;
    *E_out = E;
    words = NULL;
    E = NULL;
cleanup:
    if (words) mmnc_names_free(cap, words);
    mmnc_i_free(E);
    if (r) mmnc_i_in_close(r->in);
    mmnc_i_free(r);
    return status;
}
