/*
 * io.c -- data sets from text files (Matrix Market, triplets, libsvm; plain,
 * gzip or xz), class labels and names.  MATLAB files are delegated to
 * io_mat.c.
 *
 * All text comes through stream.c in large blocks cut into lines with
 * memchr; numbers are parsed by hand (with strtod only for values that are
 * not short decimals), never with sscanf.  The entries of Matrix Market
 * files are parsed on all threads (mtx_entries), with the same result and
 * the same first error as a line-by-line read.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io_i.h"

#define LR_CHUNK ((size_t)1 << 20)
#define IS_WS(c) ((c) == ' ' || (c) == '\t' || (c) == '\r' || (c) == '\v' || (c) == '\f')

/* ------------------------------------------------------------------------ */
/* Line reader                                                               */
/* ------------------------------------------------------------------------ */

typedef struct lreader {
    mmnc_i_in *in;
    const char *path;
    char *buf;          /* cap + 1 bytes: room for a final NUL */
    size_t cap, beg, end;
    int eof;
    long long line;     /* number of the line last returned (1-based) */
} lreader;

static int lr_fill(lreader *r, mmnc_err *err)
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
    if (memchr(r->buf + r->end, '\0', got))
        return mmnc_i_err(err, MMNC_EFORMAT, "%s:%lld: NUL byte: this is not a text file",
                          r->path, r->line + 1);
    r->end += got;
    if (got < want) r->eof = 1;
    return MMNC_OK;
}

static int lr_open(lreader *r, const char *path, mmnc_err *err)
{
    int st;
    memset(r, 0, sizeof *r);
    r->path = path;
    if ((st = mmnc_i_in_open(path, &r->in, err)) != MMNC_OK) return st;
    r->cap = LR_CHUNK;
    r->buf = mmnc_i_malloc(r->cap + 1, 1);
    if (!r->buf) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    return lr_fill(r, err);
}

static void lr_close(lreader *r)
{
    mmnc_i_in_close(r->in);
    mmnc_i_free(r->buf);
    r->in = NULL;
    r->buf = NULL;
}

/* Next line, NUL-terminated without its "\n" or "\r\n", in *s (length *n);
 * *s = NULL at the end of the file. */
static int lr_next(lreader *r, char **s, size_t *n, mmnc_err *err)
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

/* ------------------------------------------------------------------------ */
/* Messages, numbers, keys                                                   */
/* ------------------------------------------------------------------------ */

/* A printable excerpt of s[0..n) for error messages. */
static const char *excerpt(const char *s, size_t n, char *buf /* 80 */)
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

static int line_err(const lreader *r, int code, mmnc_err *err, const char *fmt, ...)
    MMNC_PRINTF(4, 5);
static int line_err(const lreader *r, int code, mmnc_err *err, const char *fmt, ...)
{
    char msg[MMNC_ERRMSG_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return mmnc_i_err(err, code, "%s:%lld: %s", r->path, r->line, msg);
}

/* Unsigned decimal integer filling [b, e) exactly; 0 on failure. */
static int parse_index(const char *b, const char *e, mmnc_int *x)
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

static const double pow10tab[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
                                  1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

/* The digits and at most one '.' from p on (to e, or unbounded when e is
 * NULL): m the digits as an integer, *nd how many, *frac how many after the
 * point.  Returns where the scan stopped. */
static inline const char *scan_decimal(const char *p, const char *e, uint64_t *m, int *nd, int *frac)
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

/* A number filling [b, e) exactly.  Short plain decimals ("12", "3.25",
 * "-0.5") are exact as m / 10^k with m < 2^53, a correctly rounded division,
 * so they match strtod; anything else goes to strtod.  Returns 0 if the
 * field is not a number. */
static int parse_double(const char *b, const char *e, double *x)
{
    const char *p = b;
    int neg = 0, nd = 0, frac = 0;
    uint64_t m = 0;
    if (p < e && (*p == '-' || *p == '+')) neg = *p++ == '-';
    p = scan_decimal(p, e, &m, &nd, &frac);
    if (p == e && nd > 0 && nd <= 15) {
        double v = (double)m;
        if (frac) v /= pow10tab[frac];
        *x = neg ? -v : v;
        return 1;
    }
    {
        char tmp[80], *end;
        size_t n = (size_t)(e - b);
        if (n == 0 || n >= sizeof tmp) return 0;
        memcpy(tmp, b, n);
        tmp[n] = '\0';
        if (IS_WS(tmp[0])) return 0;
        *x = strtod(tmp, &end);
        return end == tmp + n;
    }
}

/* Validate a value; 0 if fine, else fills err. */
static int check_value(const lreader *r, double v, const char *b, const char *e, mmnc_err *err)
{
    char ex[80];
    if (isnan(v) || isinf(v))
        return line_err(r, MMNC_EFORMAT, err, "value '%s' is not a finite number",
                        excerpt(b, (size_t)(e - b), ex));
    if (v < 0)
        return line_err(r, MMNC_EFORMAT, err, "negative value '%s' (values must be >= 0)",
                        excerpt(b, (size_t)(e - b), ex));
    return MMNC_OK;
}

/* String keys -> 0, 1, 2, ... in order of first appearance (open addressing,
 * linear probing, load <= 1/2).  names[] keeps the keys. */
typedef struct keymap {
    char **names;
    uint64_t *hash;   /* hash of names[i] */
    mmnc_int n, cap;
    mmnc_int *slot;   /* index + 1, 0 = empty */
    size_t nslot;     /* power of two */
} keymap;

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h ^ (h >> 29);
}

static void keymap_free(keymap *k)
{
    if (k->names)
        for (mmnc_int i = 0; i < k->n; i++) mmnc_i_free(k->names[i]);
    mmnc_i_free(k->names);
    mmnc_i_free(k->hash);
    mmnc_i_free(k->slot);
    memset(k, 0, sizeof *k);
}

static int keymap_rehash(keymap *k, size_t nslot, mmnc_err *err)
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

/* Index of key s[0..n), inserted if new. */
static int keymap_get(keymap *k, const char *s, size_t n, mmnc_int *idx, mmnc_err *err)
{
    uint64_t h = hash_bytes(s, n);
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

/* Growable triplet arrays. */
typedef struct tbuf {
    mmnc_int *ri, *ci;
    double *v;
    mmnc_int n, cap;
} tbuf;

static int tbuf_grow(tbuf *t, mmnc_int want, mmnc_err *err)
{
    mmnc_int nc = t->cap ? t->cap : 1024;
    void *p;
    while (nc < want) nc *= 2;
    if (nc == t->cap) return MMNC_OK;
    if (!(p = mmnc_i_realloc(t->ri, (size_t)nc, sizeof(mmnc_int)))) goto nomem;
    t->ri = p;
    if (!(p = mmnc_i_realloc(t->ci, (size_t)nc, sizeof(mmnc_int)))) goto nomem;
    t->ci = p;
    if (!(p = mmnc_i_realloc(t->v, (size_t)nc, sizeof(double)))) goto nomem;
    t->v = p;
    t->cap = nc;
    return MMNC_OK;
nomem:
    return mmnc_i_err(err, MMNC_ENOMEM, "out of memory (%lld entries)", (long long)want);
}

static inline int tbuf_push(tbuf *t, mmnc_int i, mmnc_int j, double x, mmnc_err *err)
{
    if (t->n == t->cap) {
        int st = tbuf_grow(t, t->n + 1, err);
        if (st) return st;
    }
    t->ri[t->n] = i;
    t->ci[t->n] = j;
    t->v[t->n++] = x;
    return MMNC_OK;
}

static void tbuf_free(tbuf *t)
{
    mmnc_i_free(t->ri);
    mmnc_i_free(t->ci);
    mmnc_i_free(t->v);
}

/* 1 if the triplets are in range and sorted: rows nondecreasing, columns
 * nondecreasing within a row (duplicates adjacent). */
static int triplets_sorted(const tbuf *t, mmnc_int nrows, mmnc_int ncols)
{
    const mmnc_int *ri = t->ri, *ci = t->ci;
    int bad = 0;
    if (t->n == 0) return 1;
    bad = (uint64_t)ri[0] >= (uint64_t)nrows || (uint64_t)ci[0] >= (uint64_t)ncols;
#pragma omp parallel for schedule(static) reduction(| : bad) if (t->n > (1 << 16))
    for (mmnc_int k = 1; k < t->n; k++)
        bad |= ((uint64_t)ri[k] >= (uint64_t)nrows) | ((uint64_t)ci[k] >= (uint64_t)ncols) |
               (ri[k - 1] > ri[k]) | ((ri[k - 1] == ri[k]) & (ci[k - 1] > ci[k]));
    return !bad;
}

/* The CSR of sorted triplets (triplets_sorted, t->n > 0), built in place:
 * the column and value arrays of t become the matrix's (t loses them).
 * Sorted triplets are already in the order into which
 * mmnc_csr_from_triplets puts them (its counting sorts are stable), so the
 * duplicates are summed in the same order and zeros dropped alike: the same
 * matrix, bit for bit, without its two scatter passes and its copies.  On
 * all threads: chunks of whole rows, each compacted within itself, then
 * closed up in order -- nothing moves unless duplicates or zeros went. */
#define SORTED_CHUNKS 64
static int csr_from_sorted(tbuf *t, mmnc_int nrows, mmnc_int ncols, mmnc_csr **out, mmnc_err *err)
{
    const mmnc_int *ri = t->ri;
    mmnc_int *ci = t->ci, beg[SORTED_CHUNKS + 1], row[SORTED_CHUNKS + 1], cnt[SORTED_CHUNKS], q = 0;
    double *v = t->v;
    int nc = t->n > (1 << 16) ? SORTED_CHUNKS : 1, c;
    mmnc_csr *A = mmnc_i_calloc(1, sizeof *A);
    if (!A || !(A->rowptr = mmnc_i_calloc((size_t)nrows + 1, sizeof(mmnc_int)))) {
        mmnc_i_free(A);
        return mmnc_i_err(err, MMNC_ENOMEM, "out of memory (%lld x %lld matrix)",
                          (long long)nrows, (long long)ncols);
    }
    /* chunk c: triplets beg[c] .. beg[c+1]-1, rows row[c] .. row[c+1]-1 */
    beg[0] = row[0] = 0;
    beg[nc] = t->n;
    row[nc] = nrows;
    for (c = 1; c < nc; c++) {
        mmnc_int b = t->n / nc * c;
        if (b < beg[c - 1]) b = beg[c - 1];
        while (b > 0 && b < t->n && ri[b] == ri[b - 1]) b++;
        beg[c] = b;
        row[c] = b < t->n ? ri[b] : nrows;
    }
#pragma omp parallel for schedule(dynamic, 1) if (nc > 1)
    for (c = 0; c < nc; c++) {
        /* w <= k: each entry is written where a triplet already read was */
        mmnc_int k = beg[c], w = beg[c], e = beg[c + 1];
        for (mmnc_int i = row[c]; i < row[c + 1]; i++) {
            A->rowptr[i] = w;
            while (k < e && ri[k] == i) {
                mmnc_int j = ci[k];
                double sum = v[k++];
                while (k < e && ri[k] == i && ci[k] == j) sum += v[k++];
                if (sum != 0.0) {
                    ci[w] = j;
                    v[w++] = sum;
                }
            }
        }
        cnt[c] = w - beg[c];
    }
    for (c = 0; c < nc; c++) {
        mmnc_int shift = beg[c] - q;
        if (shift) {
            memmove(ci + q, ci + beg[c], (size_t)cnt[c] * sizeof(mmnc_int));
            memmove(v + q, v + beg[c], (size_t)cnt[c] * sizeof(double));
            for (mmnc_int i = row[c]; i < row[c + 1]; i++) A->rowptr[i] -= shift;
        }
        q += cnt[c];
    }
    A->nrows = nrows;
    A->ncols = ncols;
    A->nnz = q;
    A->rowptr[nrows] = q;
    /* shrink to the entries: a failed realloc keeps the larger block, which is fine */
    A->colind = mmnc_i_realloc(ci, q ? (size_t)q : 1, sizeof(mmnc_int));
    if (!A->colind) A->colind = ci;
    A->val = mmnc_i_realloc(v, q ? (size_t)q : 1, sizeof(double));
    if (!A->val) A->val = v;
    t->ci = NULL;
    t->v = NULL;
    t->n = t->cap = 0;
    *out = A;
    return MMNC_OK;
}

/* Build d from the triplets (zeros are dropped, duplicates summed in the
 * order of the triplets). */
static int make_data(tbuf *t, mmnc_int nrows, mmnc_int ncols, mmnc_data **out, mmnc_err *err)
{
    int status = MMNC_OK;
    mmnc_data *d = NULL;
    MMNC_CALLOC(d, 1, err, status);
    d->orig_rows = nrows;
    d->orig_cols = ncols;
    if (t->n > 0 && triplets_sorted(t, nrows, ncols))
        status = csr_from_sorted(t, nrows, ncols, &d->A, err);
    else
        status = mmnc_csr_from_triplets(nrows, ncols, t->n, t->ri, t->ci, t->v, &d->A, err);
    if (status) goto cleanup;
    *out = d;
    d = NULL;
cleanup:
    mmnc_data_free(d);
    return status;
}

/* ------------------------------------------------------------------------ */
/* Matrix Market                                                             */
/* ------------------------------------------------------------------------ */

static int is_comment(const char *s) { return *s == '%' || *s == '#'; }

static const char *skip_ws(const char *p)
{
    while (IS_WS(*p)) p++;
    return p;
}

static const char *token_end(const char *p)
{
    while (*p && !IS_WS(*p)) p++;
    return p;
}

static int word_is(const char *b, const char *e, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(e - b) != n) return 0;
    for (size_t i = 0; i < n; i++)
        if ((b[i] | 0x20) != w[i]) return 0;
    return 1;
}

/* The banner "%%MatrixMarket matrix coordinate <field> general". */
static int mtx_banner(const lreader *r, const char *s, int *pattern, mmnc_err *err)
{
    const char *b[4], *e[4], *p = s + 14;
    char ex[80];
    int k;
    for (k = 0; k < 4; k++) {
        p = skip_ws(p);
        b[k] = p;
        e[k] = p = token_end(p);
    }
    if (!word_is(b[0], e[0], "matrix") || !word_is(b[1], e[1], "coordinate") ||
        !(word_is(b[2], e[2], "real") || word_is(b[2], e[2], "integer") ||
          word_is(b[2], e[2], "pattern")) ||
        !word_is(b[3], e[3], "general") || *skip_ws(p))
        return line_err(r, MMNC_EFORMAT, err,
                        "only coordinate real/integer/pattern general is supported, found '%s'",
                        excerpt(s, strlen(s), ex));
    *pattern = word_is(b[2], e[2], "pattern");
    return MMNC_OK;
}

/*
 * The entry lines, on all cores.  The text after the size line is read in
 * blocks of about mtx_block bytes, each cut after its last newline (the rest
 * of the last line waits for the next block).  A block is cut at newlines
 * into pieces of about mtx_piece bytes, which the threads parse straight
 * into the triplet arrays: a first pass counts the lines of every piece,
 * which bounds its entries, so piece k writes from the sum of the line counts
 * of the pieces before it; the gaps that comment and blank lines leave are
 * closed afterwards, in order.  The pieces depend on the sizes only, never
 * on the number of threads, and are joined in file order, so the triplets --
 * hence the matrix -- are the same bits for any number of threads.
 *
 * Errors.  A piece stops at its first bad line and the threads write no
 * message.  The pieces are then taken in file order; the first one that
 * stopped, or whose entries run past the count of the size line, is parsed
 * again on one thread, with messages, the line number of its first line
 * (the line counts of the pieces before it) and the exact number of entries
 * still allowed.  It reports the first error in file order: the error of a
 * line-by-line read.  Decompression stays on one thread (it is the stream).
 */

/* Block and piece sizes in bytes (tests shrink them: mmnc_i_mtx_blocks). */
#define MTX_BLOCK ((size_t)32 << 20)
#define MTX_PIECE ((size_t)1 << 20)
#define MTX_MAXPIECES 1024
static size_t mtx_block = MTX_BLOCK, mtx_piece = MTX_PIECE;

void mmnc_i_mtx_blocks(size_t block, size_t piece)
{
    mtx_block = block ? block : MTX_BLOCK;
    mtx_piece = piece ? piece : MTX_PIECE;
}

/* What the banner and the size line said. */
typedef struct mtx_hdr {
    const char *path;
    int pattern;
    mmnc_int m, n, nnz;
} mtx_hdr;

/* One piece of a block: whole lines. */
typedef struct mtx_part {
    size_t beg, end;   /* bytes of the block */
    mmnc_int lines;    /* its lines: at most as many entries */
    mmnc_int off;      /* where its entries go in the triplet arrays */
    mmnc_int nent;     /* entries stored */
    int status;        /* MMNC_OK, or it stopped at a bad line */
} mtx_part;

/* Lines in s[0..n): the newlines, plus a last line without one.  Counted
 * in runs of 255 bytes into a byte, which compilers vectorise. */
static mmnc_int count_lines(const char *s, size_t n)
{
    mmnc_int c = 0;
    for (size_t i = 0; i < n;) {
        size_t run = n - i < 255 ? n - i : 255;
        unsigned char a = 0;
        for (size_t k = 0; k < run; k++) a += s[i + k] == '\n';
        c += a;
        i += run;
    }
    return c + (n > 0 && s[n - 1] != '\n');
}

/*
 * The common entry line: "i j value" (pattern: "i j") with blanks or tabs
 * around the fields, a plain decimal value of at most 15 digits, then '\n'
 * (after blanks or '\r').  Returns the byte after the '\n' with the fields
 * in *pi, *pj, *px; NULL for any other line, which the general code then
 * reads -- it gives the same result on the lines accepted here (the value
 * is parse_double's m / 10^k).  One pass, no bounds: a '\n' must follow s.
 */
static inline const char *mtx_fast(const char *s, int pattern, mmnc_int *pi, mmnc_int *pj,
                                   double *px)
{
    const char *p = s, *b;
    uint64_t i = 0, j = 0, m = 0;
    int nd = 0, frac = 0;
    unsigned d;
    while (*p == ' ' || *p == '\t') p++;
    for (b = p; (d = (unsigned)(unsigned char)*p - '0') <= 9; p++) i = 10 * i + d;
    if (p == b || p - b > 18 || (*p != ' ' && *p != '\t')) return NULL;
    while (*p == ' ' || *p == '\t') p++;
    for (b = p; (d = (unsigned)(unsigned char)*p - '0') <= 9; p++) j = 10 * j + d;
    if (p == b || p - b > 18) return NULL;
    if (!pattern) {
        if (*p != ' ' && *p != '\t') return NULL;
        while (*p == ' ' || *p == '\t') p++;
        p = scan_decimal(p, NULL, &m, &nd, &frac); /* stops at the line's '\n' at the latest */
        if (nd == 0 || nd > 15) return NULL;
        *px = frac ? (double)m / pow10tab[frac] : (double)m;
    }
    while (*p == ' ' || *p == '\t' || *p == '\r') p++;
    if (*p != '\n') return NULL;
    *pi = (mmnc_int)i;
    *pj = (mmnc_int)j;
    return p + 1;
}

/*
 * Parse the entry lines s[0..len), the first of which is line line0 + 1,
 * into ri/ci/v (one slot per line at most): the checks and messages of a
 * line-by-line read, and an error on the line of entry number limit + 1.
 * Stops at the first bad line; *nent = the entries stored before it.  err
 * may be NULL (the threads' pass: no message).
 */
static int mtx_lines(const mtx_hdr *h, const char *s, size_t len, long long line0, mmnc_int limit,
                     mmnc_int *ri, mmnc_int *ci, double *v, mmnc_int *nent, mmnc_err *err)
{
    const char *end = s + len, *fast_end = end;
    lreader at = {.path = h->path, .line = line0}; /* only where a message points */
    mmnc_int k = 0;
    int status = MMNC_OK;
    char ex[80];

    while (fast_end > s && fast_end[-1] != '\n') fast_end--; /* the lines before have a '\n' */
    while (s < end) {
        const char *nl, *le, *p, *b0, *e0, *b1, *e1, *b2, *e2;
        mmnc_int i, j;
        double x = 1.0;
        at.line++;
        if (s < fast_end && (p = mtx_fast(s, h->pattern, &i, &j, &x)) != NULL && i >= 1 &&
            i <= h->m && j >= 1 && j <= h->n && k < limit) {
            ri[k] = i - 1;
            ci[k] = j - 1;
            v[k++] = x;
            s = p;
            continue;
        }
        nl = memchr(s, '\n', (size_t)(end - s));
        le = nl ? nl : end;
        p = s;
        if (memchr(s, '\0', (size_t)(le - s))) {
            status = line_err(&at, MMNC_EFORMAT, err, "NUL byte: this is not a text file");
            break;
        }
        if (le > s && le[-1] == '\r') le--;
        while (p < le && IS_WS(*p)) p++;
        if (p == le || *p == '%') {
            s = nl ? nl + 1 : end;
            continue;
        }
        b0 = p;
        while (p < le && !IS_WS(*p)) p++;
        e0 = p;
        while (p < le && IS_WS(*p)) p++;
        b1 = p;
        while (p < le && !IS_WS(*p)) p++;
        e1 = p;
        while (p < le && IS_WS(*p)) p++;
        b2 = p;
        while (p < le && !IS_WS(*p)) p++;
        e2 = p;
        while (p < le && IS_WS(*p)) p++;
        if (p < le || (h->pattern ? b2 != e2 : b2 == e2) || !parse_index(b0, e0, &i) ||
            !parse_index(b1, e1, &j) || (!h->pattern && !parse_double(b2, e2, &x))) {
            status = line_err(&at, MMNC_EFORMAT, err, "expected '%s', found '%s'",
                              h->pattern ? "row col" : "row col value",
                              excerpt(s, (size_t)(le - s), ex));
            break;
        }
        if (i < 1 || i > h->m || j < 1 || j > h->n) {
            status = line_err(&at, MMNC_EFORMAT, err,
                              "index (%lld, %lld) out of range: the matrix is %lld x %lld "
                              "(1-based)", (long long)i, (long long)j, (long long)h->m,
                              (long long)h->n);
            break;
        }
        if ((status = check_value(&at, x, b2, e2, err)) != MMNC_OK) break;
        if (k == limit) {
            status = line_err(&at, MMNC_EFORMAT, err,
                              "more entries than the %lld declared in the size line",
                              (long long)h->nnz);
            break;
        }
        ri[k] = i - 1;
        ci[k] = j - 1;
        v[k++] = x;
        s = nl ? nl + 1 : end;
    }
    *nent = k;
    return status;
}

/* The entry lines text[0..len) (whole lines; r->line lines come before
 * them) appended to t, on all threads.  pc has MTX_MAXPIECES slots. */
static int mtx_block_parse(lreader *r, const mtx_hdr *h, const char *text, size_t len,
                           mtx_part *pc, tbuf *t, mmnc_err *err)
{
    size_t np = (len + mtx_piece - 1) / mtx_piece;
    mmnc_int lines = 0, left = h->nnz - t->n;
    int k, status;

    if (np < 1) np = 1;
    if (np > MTX_MAXPIECES) np = MTX_MAXPIECES;
    pc[0].beg = 0;
    for (k = 0; k < (int)np; k++) {
        size_t e = len;
        if (k + 1 < (int)np) {
            size_t from = len / np * (size_t)(k + 1);
            const char *nl;
            if (from < pc[k].beg) from = pc[k].beg;
            nl = memchr(text + from, '\n', len - from);
            if (nl) e = (size_t)(nl - text) + 1;
            pc[k + 1].beg = e;
        }
        pc[k].end = e;
    }
#pragma omp parallel for schedule(dynamic, 1) if (np > 1)
    for (k = 0; k < (int)np; k++) pc[k].lines = count_lines(text + pc[k].beg, pc[k].end - pc[k].beg);
    for (k = 0; k < (int)np; k++) {
        pc[k].off = t->n + lines;
        lines += pc[k].lines;
    }
    if ((status = tbuf_grow(t, t->n + lines, err)) != MMNC_OK) return status;
    /* `left` bounds every piece's entries: a size line far too small stops
     * the threads early. */
#pragma omp parallel for schedule(dynamic, 1) if (np > 1)
    for (k = 0; k < (int)np; k++)
        pc[k].status = mtx_lines(h, text + pc[k].beg, pc[k].end - pc[k].beg, 0, left,
                                 t->ri + pc[k].off, t->ci + pc[k].off, t->v + pc[k].off,
                                 &pc[k].nent, NULL);
    for (k = 0; k < (int)np; k++) {
        mtx_part *q = &pc[k];
        if (q->status != MMNC_OK || q->nent > h->nnz - t->n) {
            /* The first error in file order is in this piece (an entry past
             * the declared count is one too): parse it again for the
             * message.  It cannot succeed; the guard is for safety only. */
            mmnc_int nent;
            status = mtx_lines(h, text + q->beg, q->end - q->beg, r->line, h->nnz - t->n,
                               t->ri + q->off, t->ci + q->off, t->v + q->off, &nent, err);
            return status ? status
                          : mmnc_i_err(err, MMNC_EFORMAT, "%s: internal error reading line %lld",
                                       h->path, r->line + 1);
        }
        if (q->off != t->n) { /* close the gap of comment or blank lines */
            memmove(t->ri + t->n, t->ri + q->off, (size_t)q->nent * sizeof(mmnc_int));
            memmove(t->ci + t->n, t->ci + q->off, (size_t)q->nent * sizeof(mmnc_int));
            memmove(t->v + t->n, t->v + q->off, (size_t)q->nent * sizeof(double));
        }
        t->n += q->nent;
        r->line += q->lines;
    }
    return MMNC_OK;
}

/* Move the unread text r->buf[beg..end) to the front, grow the buffer to at
 * least `target` bytes and read until it holds `target` (or the input ends). */
static int block_fill(lreader *r, size_t target, mmnc_err *err)
{
    size_t want, got;
    int st;
    if (r->beg > 0) {
        memmove(r->buf, r->buf + r->beg, r->end - r->beg);
        r->end -= r->beg;
        r->beg = 0;
    }
    if (target > r->cap) {
        char *nb = mmnc_i_realloc(r->buf, target + 1, 1);
        if (!nb) return mmnc_i_err(err, MMNC_ENOMEM, "%s: out of memory reading line %lld",
                                   r->path, r->line + 1);
        r->buf = nb;
        r->cap = target;
    }
    want = target - r->end;
    if ((st = mmnc_i_in_read(r->in, r->buf + r->end, want, &got, err)) != MMNC_OK) return st;
    r->end += got;
    if (got < want) r->eof = 1;
    return MMNC_OK;
}

/* The entry lines after the size line (the next line of r) appended to t;
 * r->line ends as the number of lines of the file. */
static int mtx_entries(lreader *r, const mtx_hdr *h, tbuf *t, mmnc_err *err)
{
    int status = MMNC_OK;
    mtx_part *pc = NULL;

    MMNC_ALLOC(pc, MTX_MAXPIECES, err, status);
    for (;;) {
        size_t avail = r->end - r->beg, w, cut;
        if (!r->eof && avail < mtx_block) {
            if ((status = block_fill(r, mtx_block, err)) != MMNC_OK) goto cleanup;
            avail = r->end - r->beg;
        }
        if (avail == 0) break;
        w = avail < mtx_block ? avail : mtx_block;
        for (cut = w; cut > 0 && r->buf[r->beg + cut - 1] != '\n'; cut--) {}
        if (cut == 0) { /* a line longer than a block */
            const char *nl = memchr(r->buf + r->beg + w, '\n', avail - w);
            if (nl) {
                cut = (size_t)(nl - (r->buf + r->beg)) + 1;
            } else if (r->eof) {
                cut = avail; /* the last line, without a newline */
            } else {
                if ((status = block_fill(r, 2 * avail, err)) != MMNC_OK) goto cleanup;
                continue;
            }
        }
        if ((status = mtx_block_parse(r, h, r->buf + r->beg, cut, pc, t, err)) != MMNC_OK)
            goto cleanup;
        r->beg += cut;
    }

cleanup:
    mmnc_i_free(pc);
    return status;
}

/*
 * Matrix Market coordinate text.  The banner is optional: without it the
 * file is "coordinate real general" (the MTX-like text written by many
 * tools: '%' comments, "rows cols nnz", then triplets).  The banner,
 * comments and size line are read line by line, the entries in parallel
 * blocks (mtx_entries).
 */
static int read_mtx(lreader *r, mmnc_data **out, mmnc_err *err)
{
    int status = MMNC_OK, have_size = 0, banner = 0;
    mtx_hdr h = {.path = r->path};
    tbuf t = {0};
    char *s, ex[80];
    size_t len;

    while (!have_size) {
        const char *p, *b0, *e0, *b1, *e1, *b2, *e2;
        if ((status = lr_next(r, &s, &len, err)) != MMNC_OK) goto cleanup;
        if (!s) break;
        if (r->line == 1 && strncmp(s, "%%", 2) == 0 && len >= 14 &&
            word_is(s + 2, s + 14, "matrixmarket")) {
            if ((status = mtx_banner(r, s, &h.pattern, err)) != MMNC_OK) goto cleanup;
            banner = 1;
            continue;
        }
        p = skip_ws(s);
        if (!*p || *p == '%') continue;
        b0 = p;
        e0 = p = token_end(p);
        b1 = p = skip_ws(p);
        e1 = p = token_end(p);
        b2 = p = skip_ws(p);
        e2 = p = token_end(p);
        p = skip_ws(p);
        if (*p || !parse_index(b0, e0, &h.m) || !parse_index(b1, e1, &h.n) ||
            !parse_index(b2, e2, &h.nnz)) {
            status = line_err(r, MMNC_EFORMAT, err, "expected 'rows cols entries'%s, found '%s'",
                              banner ? "" : " (read as Matrix Market without a banner)",
                              excerpt(s, len, ex));
            goto cleanup;
        }
        have_size = 1;
    }
    if (!have_size) {
        status = line_err(r, MMNC_EFORMAT, err, "no size line 'rows cols entries' found");
        goto cleanup;
    }
    /* reserve, but not blindly: the size line may be wrong */
    if ((status = tbuf_grow(&t, h.nnz < (1 << 20) ? h.nnz : (1 << 20), err)) != MMNC_OK)
        goto cleanup;
    if ((status = mtx_entries(r, &h, &t, err)) != MMNC_OK) goto cleanup;
    if (t.n < h.nnz) {
        status = line_err(r, MMNC_EFORMAT, err, "truncated: expected %lld entries, found %lld",
                          (long long)h.nnz, (long long)t.n);
        goto cleanup;
    }
    status = make_data(&t, h.m, h.n, out, err);

cleanup:
    tbuf_free(&t);
    return status;
}

/* ------------------------------------------------------------------------ */
/* Triplets                                                                  */
/* ------------------------------------------------------------------------ */

#define MAXFIELDS 64

/* Split s into at most maxf fields: by runs of blanks (delim == 0) or at
 * each delim with blanks around fields trimmed.  Returns the number found
 * (up to maxf). */
static int split_fields(char *s, char delim, int maxf, const char **b, const char **e)
{
    int nf = 0;
    const char *p = s;
    if (!delim) {
        for (;;) {
            p = skip_ws(p);
            if (!*p || nf == maxf) break;
            b[nf] = p;
            e[nf++] = p = token_end(p);
        }
        return nf;
    }
    while (nf < maxf) {
        const char *q = p, *f;
        while (*q && *q != delim) q++;
        f = q;
        while (p < f && IS_WS(*p) && *p != delim) p++;
        while (f > p && IS_WS(f[-1]) && f[-1] != delim) f--;
        b[nf] = p;
        e[nf++] = f;
        if (!*q) break;
        p = q + 1;
    }
    return nf;
}

static int read_triplet(lreader *r, const mmnc_read_opts *o, mmnc_data **out, mmnc_err *err)
{
    int status = MMNC_OK;
    int maxf = o->row_field;
    keymap rows = {0}, cols = {0};
    tbuf t = {0};
    mmnc_data *d = NULL;
    char *s, ex[80];
    size_t len;

    if (o->col_field > maxf) maxf = o->col_field;
    if (o->value_field > maxf) maxf = o->value_field;
    for (;;) {
        const char *b[MAXFIELDS], *e[MAXFIELDS], *p;
        mmnc_int i, j;
        double v = 1.0;
        int nf;
        if ((status = lr_next(r, &s, &len, err)) != MMNC_OK) goto cleanup;
        if (!s) break;
        p = skip_ws(s);
        if (!*p || is_comment(p)) continue;
        nf = split_fields(s, o->delim, maxf, b, e);
        if (nf < maxf) {
            char vf[32] = "";
            if (o->value_field) snprintf(vf, sizeof vf, ", value in field %d", o->value_field);
            status = line_err(r, MMNC_EFORMAT, err,
                              "expected at least %d fields (row key in field %d, column key in "
                              "field %d%s), found %d: '%s'",
                              maxf, o->row_field, o->col_field, vf, nf, excerpt(s, len, ex));
            goto cleanup;
        }
        if (b[o->row_field - 1] == e[o->row_field - 1] ||
            b[o->col_field - 1] == e[o->col_field - 1]) {
            status = line_err(r, MMNC_EFORMAT, err, "empty row or column key in '%s'",
                              excerpt(s, len, ex));
            goto cleanup;
        }
        if (o->value_field) {
            const char *vb = b[o->value_field - 1], *ve = e[o->value_field - 1];
            if (!parse_double(vb, ve, &v)) {
                char ex2[80];
                status = line_err(r, MMNC_EFORMAT, err,
                                  "expected a number in field %d, found '%s' in '%s'",
                                  o->value_field, excerpt(vb, (size_t)(ve - vb), ex),
                                  excerpt(s, len, ex2));
                goto cleanup;
            }
            if ((status = check_value(r, v, vb, ve, err)) != MMNC_OK) goto cleanup;
        }
        if ((status = keymap_get(&rows, b[o->row_field - 1],
                                 (size_t)(e[o->row_field - 1] - b[o->row_field - 1]), &i, err)) ||
            (status = keymap_get(&cols, b[o->col_field - 1],
                                 (size_t)(e[o->col_field - 1] - b[o->col_field - 1]), &j, err)) ||
            (status = tbuf_push(&t, i, j, v, err)))
            goto cleanup;
    }
    if ((status = make_data(&t, rows.n, cols.n, &d, err)) != MMNC_OK) goto cleanup;
    d->row_names = rows.names;
    d->col_names = cols.names;
    rows.names = cols.names = NULL;
    rows.n = cols.n = 0;
    *out = d;
    d = NULL;

cleanup:
    keymap_free(&rows);
    keymap_free(&cols);
    tbuf_free(&t);
    mmnc_data_free(d);
    return status;
}

/* ------------------------------------------------------------------------ */
/* libsvm                                                                    */
/* ------------------------------------------------------------------------ */

static int read_libsvm(lreader *r, int zero_based, mmnc_data **out, mmnc_err *err)
{
    int status = MMNC_OK;
    mmnc_int row = 0, maxcol = -1;
    tbuf t = {0};
    char *s, ex[80];
    size_t len;

    for (;;) {
        char *hash;
        const char *p, *b, *e, *colon;
        if ((status = lr_next(r, &s, &len, err)) != MMNC_OK) goto cleanup;
        if (!s) break;
        if ((hash = memchr(s, '#', len)) != NULL) *hash = '\0'; /* svmlight comment */
        p = skip_ws(s);
        if (!*p) continue;
        b = p;
        e = p = token_end(p);
        if (memchr(b, ':', (size_t)(e - b))) {
            status = line_err(r, MMNC_EFORMAT, err,
                              "expected 'label index:value ...', found no label in '%s'",
                              excerpt(s, len, ex));
            goto cleanup;
        }
        for (;;) {
            mmnc_int j;
            double v;
            p = skip_ws(p);
            if (!*p) break;
            b = p;
            e = p = token_end(p);
            colon = memchr(b, ':', (size_t)(e - b));
            if (colon && word_is(b, colon, "qid")) continue;
            if (!colon || !parse_index(b, colon, &j) || !parse_double(colon + 1, e, &v)) {
                status = line_err(r, MMNC_EFORMAT, err, "expected 'index:value', found '%s'",
                                  excerpt(b, (size_t)(e - b), ex));
                goto cleanup;
            }
            if (!zero_based && j == 0) {
                status = line_err(r, MMNC_EFORMAT, err,
                                  "feature index 0 in '%s' (indices are 1-based unless "
                                  "libsvm_zero_based is set)", excerpt(b, (size_t)(e - b), ex));
                goto cleanup;
            }
            if ((status = check_value(r, v, colon + 1, e, err)) != MMNC_OK) goto cleanup;
            j -= !zero_based;
            if (j > maxcol) maxcol = j;
            if ((status = tbuf_push(&t, row, j, v, err)) != MMNC_OK) goto cleanup;
        }
        row++;
    }
    status = make_data(&t, row, maxcol + 1, out, err);

cleanup:
    tbuf_free(&t);
    return status;
}

/* ------------------------------------------------------------------------ */
/* Format detection and the public readers                                   */
/* ------------------------------------------------------------------------ */

void mmnc_read_opts_default(mmnc_read_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->format = MMNC_FMT_AUTO;
    o->row_field = 1;
    o->col_field = 2;
    o->value_field = 3;
    o->delim = 0;
    o->mat_var = "fea";
    o->libsvm_zero_based = 0;
}

/* 1 if the file starts with the MAT-file text header "MATLAB". */
static int is_mat_file(const char *path)
{
    char head[6];
    FILE *fp = fopen(path, "rb");
    int yes;
    if (!fp) return 0;
    yes = fread(head, 1, 6, fp) == 6 && memcmp(head, "MATLAB", 6) == 0;
    fclose(fp);
    return yes;
}

/* Guess the text format from the first block of the file (not consumed). */
static mmnc_format detect(const lreader *r)
{
    const char *p = r->buf + r->beg, *end = r->buf + r->end;
    int started_with_percent = p < end && *p == '%';
    if (end - p >= 14 && p[0] == '%' && p[1] == '%' && word_is(p + 2, p + 14, "matrixmarket"))
        return MMNC_FMT_MTX;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *q = p, *b[4], *e[4];
        int nf = 0;
        if (!nl) nl = end;
        while (q < nl && IS_WS(*q)) q++;
        if (q == nl || *q == '%' || *q == '#') {
            p = nl + 1;
            continue;
        }
        /* the first data line */
        while (q < nl && nf < 4) {
            b[nf] = q;
            while (q < nl && !IS_WS(*q)) q++;
            e[nf++] = q;
            while (q < nl && IS_WS(*q)) q++;
        }
        if (nf >= 2 && memchr(b[1], ':', (size_t)(e[1] - b[1])) &&
            !memchr(b[0], ':', (size_t)(e[0] - b[0])))
            return MMNC_FMT_LIBSVM;
        if (started_with_percent && nf == 3 && q == nl) {
            mmnc_int x;
            if (parse_index(b[0], e[0], &x) && parse_index(b[1], e[1], &x) &&
                parse_index(b[2], e[2], &x))
                return MMNC_FMT_MTX;
        }
        return MMNC_FMT_TRIPLET;
    }
    return MMNC_FMT_TRIPLET;
}

static int check_opts(const mmnc_read_opts *o, mmnc_err *err)
{
    if (o->format < MMNC_FMT_AUTO || o->format > MMNC_FMT_BIN)
        return mmnc_i_err(err, MMNC_EINVAL, "unknown format %d", (int)o->format);
    if (o->row_field < 1 || o->row_field > MAXFIELDS || o->col_field < 1 ||
        o->col_field > MAXFIELDS || o->value_field < 0 || o->value_field > MAXFIELDS)
        return mmnc_i_err(err, MMNC_EINVAL,
                          "field numbers must be between 1 and %d (value field: 0 to %d)",
                          MAXFIELDS, MAXFIELDS);
    if (o->row_field == o->col_field || o->row_field == o->value_field ||
        o->col_field == o->value_field)
        return mmnc_i_err(err, MMNC_EINVAL,
                          "row, column and value fields must differ (%d, %d, %d)", o->row_field,
                          o->col_field, o->value_field);
    if (o->delim == '\n' || o->delim == '#' || o->delim == '%' || o->delim == '\r')
        return mmnc_i_err(err, MMNC_EINVAL, "invalid field separator");
    return MMNC_OK;
}

int mmnc_data_read(const char *path, const mmnc_read_opts *o, mmnc_data **out, mmnc_err *err)
{
    int status = MMNC_OK;
    mmnc_read_opts opts;
    mmnc_format fmt;
    lreader r;
    mmnc_data *d = NULL;

    memset(&r, 0, sizeof r);
    if (!out) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_data_read: out is NULL");
    *out = NULL;
    if (!path) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_data_read: path is NULL");
    if (o) opts = *o;
    else mmnc_read_opts_default(&opts);
    if ((status = check_opts(&opts, err)) != MMNC_OK) return status;
    fmt = opts.format;

    if (fmt == MMNC_FMT_BIN || (fmt == MMNC_FMT_AUTO && mmnc_i_bin_sniff(path))) {
        status = mmnc_data_read_bin(path, opts.bin_no_verify ? MMNC_BIN_NO_VERIFY : 0, &d, err);
        if (status) goto cleanup;
    } else if (fmt == MMNC_FMT_MAT || (fmt == MMNC_FMT_AUTO && is_mat_file(path))) {
        status = mmnc_i_mat_read(path, opts.mat_var ? opts.mat_var : "fea", &d, err);
        if (status) goto cleanup;
    } else {
        if ((status = lr_open(&r, path, err)) != MMNC_OK) goto cleanup;
        if (r.end >= 3 && memcmp(r.buf, "\xEF\xBB\xBF", 3) == 0) r.beg = 3; /* UTF-8 BOM */
        if (r.beg == r.end) {
            status = mmnc_i_err(err, MMNC_EFORMAT, "%s: file is empty", path);
            goto cleanup;
        }
        if (fmt == MMNC_FMT_AUTO) fmt = detect(&r);
        if (fmt == MMNC_FMT_MTX) status = read_mtx(&r, &d, err);
        else if (fmt == MMNC_FMT_LIBSVM) status = read_libsvm(&r, opts.libsvm_zero_based, &d, err);
        else status = read_triplet(&r, &opts, &d, err);
        if (status) goto cleanup;
    }
    if (d->A->nnz == 0) {
        status = mmnc_i_err(err, MMNC_EINVAL, "%s: the matrix (%lld x %lld) has no nonzero entries",
                            path, (long long)d->A->nrows, (long long)d->A->ncols);
        goto cleanup;
    }
    *out = d;
    d = NULL;

cleanup:
    lr_close(&r);
    mmnc_data_free(d);
    return status;
}

void mmnc_data_drop_values(mmnc_data *d)
{
    if (!d || !d->A) return;
    mmnc_i_free(d->A->colind);
    mmnc_i_free(d->A->val);
    d->A->colind = NULL;
    d->A->val = NULL;
    d->A->nnz = 0;
    if (d->A->rowptr) memset(d->A->rowptr, 0, (size_t)(d->A->nrows + 1) * sizeof(mmnc_int));
}

void mmnc_data_free(mmnc_data *d)
{
    mmnc_int i;
    if (!d) return;
    if (d->row_names) {
        for (i = 0; d->A && i < d->A->nrows; i++) mmnc_i_free(d->row_names[i]);
        mmnc_i_free(d->row_names);
    }
    if (d->col_names) {
        for (i = 0; d->A && i < d->A->ncols; i++) mmnc_i_free(d->col_names[i]);
        mmnc_i_free(d->col_names);
    }
    mmnc_i_free(d->row_orig);
    mmnc_i_free(d->col_orig);
    mmnc_csr_free(d->A);
    mmnc_i_free(d);
}

const char *mmnc_data_row_id(const mmnc_data *d, mmnc_int i, char *buf)
{
    if (d->row_names && d->row_names[i]) return d->row_names[i];
    snprintf(buf, 32, "%lld", (long long)(d->row_orig ? d->row_orig[i] : i) + 1);
    return buf;
}

const char *mmnc_data_col_id(const mmnc_data *d, mmnc_int j, char *buf)
{
    if (d->col_names && d->col_names[j]) return d->col_names[j];
    snprintf(buf, 32, "%lld", (long long)(d->col_orig ? d->col_orig[j] : j) + 1);
    return buf;
}

/* ------------------------------------------------------------------------ */
/* Labels                                                                    */
/* ------------------------------------------------------------------------ */

int mmnc_labels_read(const char *path, const char *mat_var, const mmnc_data *d, mmnc_int *n,
                     mmnc_int **out, mmnc_int *nclasses, mmnc_err *err)
{
    int status = MMNC_OK, mode = 0; /* 1: one label per line (or libsvm), 2: "id label" */
    lreader r;
    keymap labels = {0}, ids = {0};
    mmnc_int *lab = NULL, nlab = 0, cap = 0, *res = NULL, *remap = NULL, nres = 0, ncls = 0, i;
    double *vec = NULL;
    char *s, ex[80];
    size_t len;

    memset(&r, 0, sizeof r);
    if (!path || !n || !out) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_labels_read: NULL argument");
    *n = 0;
    *out = NULL;
    if (nclasses) *nclasses = 0;
    if (d && !d->A) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_labels_read: data has no matrix");

    if (is_mat_file(path)) {
        mmnc_int nv;
        if ((status = mmnc_i_mat_read_vector(path, mat_var ? mat_var : "gnd", &nv, &vec, err)))
            goto cleanup;
        MMNC_ALLOC(lab, nv, err, status);
        for (i = 0; i < nv; i++) {
            char num[40];
            int k = snprintf(num, sizeof num, "%.17g", vec[i]);
            if ((status = keymap_get(&labels, num, (size_t)k, &lab[i], err))) goto cleanup;
        }
        nlab = nv;
        mode = 1;
    } else {
        long long blank = 0; /* first blank line, if any, since the last label */
        if ((status = lr_open(&r, path, err)) != MMNC_OK) goto cleanup;
        for (;;) {
            const char *b[3], *e[3];
            int nf, m;
            mmnc_int id;
            if ((status = lr_next(&r, &s, &len, err)) != MMNC_OK) goto cleanup;
            if (!s) break;
            if (!*skip_ws(s)) {
                if (!blank) blank = r.line;
                continue;
            }
            if (is_comment(skip_ws(s))) continue;
            /* With one label per line, a blank line would shift every later
             * label to the wrong item: refuse it (trailing blanks are fine). */
            if (blank && mode != 2 && nlab > 0) {
                status = mmnc_i_err(err, MMNC_EFORMAT, "%s:%lld: expected a label, found a blank line", path, blank);
                goto cleanup;
            }
            blank = 0;
            nf = split_fields(s, 0, 3, b, e);
            /* a libsvm line gives its first token, like a plain label */
            m = nf == 1 || (nf >= 2 && memchr(b[1], ':', (size_t)(e[1] - b[1]))) ? 1
                : nf == 2                                                        ? 2
                                                                                 : 0;
            if (!m || (mode && m != mode)) {
                status = line_err(&r, MMNC_EFORMAT, err, "expected %s, found '%s'",
                                  mode == 1   ? "one label (or a libsvm line)"
                                  : mode == 2 ? "'id label'"
                                              : "'label' or 'id label'",
                                  excerpt(s, len, ex));
                goto cleanup;
            }
            mode = m;
            if (nlab == cap) {
                mmnc_int *nl2;
                cap = cap ? 2 * cap : 1024;
                if (!(nl2 = mmnc_i_realloc(lab, (size_t)cap, sizeof(mmnc_int)))) {
                    status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
                    goto cleanup;
                }
                lab = nl2;
            }
            if (mode == 2) {
                if ((status = keymap_get(&ids, b[0], (size_t)(e[0] - b[0]), &id, err)))
                    goto cleanup;
                if (id != nlab) {
                    status = line_err(&r, MMNC_EFORMAT, err, "duplicate id '%s'",
                                      excerpt(b[0], (size_t)(e[0] - b[0]), ex));
                    goto cleanup;
                }
                status = keymap_get(&labels, b[1], (size_t)(e[1] - b[1]), &lab[nlab], err);
            } else {
                status = keymap_get(&labels, b[0], (size_t)(e[0] - b[0]), &lab[nlab], err);
            }
            if (status) goto cleanup;
            nlab++;
        }
        if (nlab == 0) {
            status = mmnc_i_err(err, MMNC_EFORMAT, "%s: no labels found", path);
            goto cleanup;
        }
    }

    /* labels of the requested rows */
    nres = d ? d->A->nrows : nlab;
    MMNC_ALLOC(res, nres, err, status);
    if (!d) {
        memcpy(res, lab, (size_t)nlab * sizeof(mmnc_int));
    } else if (mode == 2) {
        for (i = 0; i < nres; i++) {
            char buf[32];
            const char *rid = mmnc_data_row_id(d, i, buf);
            size_t rl = strlen(rid);
            uint64_t h = hash_bytes(rid, rl);
            size_t pos = (size_t)h & (ids.nslot - 1);
            mmnc_int k = -1;
            while (ids.slot[pos]) {
                mmnc_int c = ids.slot[pos] - 1;
                if (ids.hash[c] == h && strcmp(ids.names[c], rid) == 0) {
                    k = c;
                    break;
                }
                pos = (pos + 1) & (ids.nslot - 1);
            }
            if (k < 0) {
                status = mmnc_i_err(err, MMNC_EFORMAT, "%s: no label for row id '%s'", path,
                                    excerpt(rid, rl, ex));
                goto cleanup;
            }
            res[i] = lab[k];
        }
    } else {
        if (nlab != d->orig_rows) {
            status = mmnc_i_err(err, MMNC_EFORMAT,
                                "%s: %lld labels, but the data set has %lld rows (as read)", path,
                                (long long)nlab, (long long)d->orig_rows);
            goto cleanup;
        }
        for (i = 0; i < nres; i++) {
            mmnc_int o = d->row_orig ? d->row_orig[i] : i;
            if (o < 0 || o >= nlab) {
                status = mmnc_i_err(err, MMNC_EINVAL, "mmnc_labels_read: bad row_orig[%lld]",
                                    (long long)i);
                goto cleanup;
            }
            res[i] = lab[o];
        }
    }
    /* classes numbered in order of first appearance among the returned rows */
    MMNC_ALLOC(remap, labels.n, err, status);
    for (i = 0; i < labels.n; i++) remap[i] = -1;
    for (i = 0; i < nres; i++) {
        if (remap[res[i]] < 0) remap[res[i]] = ncls++;
        res[i] = remap[res[i]];
    }
    *n = nres;
    *out = res;
    res = NULL;
    if (nclasses) *nclasses = ncls;

cleanup:
    lr_close(&r);
    keymap_free(&labels);
    keymap_free(&ids);
    mmnc_i_free(lab);
    mmnc_i_free(res);
    mmnc_i_free(remap);
    mmnc_i_free(vec);
    return status;
}

/* ------------------------------------------------------------------------ */
/* Names                                                                     */
/* ------------------------------------------------------------------------ */

static int valid_utf8(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t k;
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF) k = 1;
        else if (c >= 0xE0 && c <= 0xEF) k = 2;
        else if (c >= 0xF0 && c <= 0xF4) k = 3;
        else return 0;
        if (i + k >= n) return 0;
        for (size_t j = 1; j <= k; j++)
            if ((s[i + j] & 0xC0) != 0x80) return 0;
        i += k + 1;
    }
    return 1;
}

/* Copy s[0..n) as UTF-8, converting from Latin-1 if it is not UTF-8. */
static char *dup_utf8(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    char *d;
    size_t i, k = 0;
    if (valid_utf8(u, n)) {
        if ((d = mmnc_i_malloc(n + 1, 1))) {
            memcpy(d, s, n);
            d[n] = '\0';
        }
        return d;
    }
    if (!(d = mmnc_i_malloc(2 * n + 1, 1))) return NULL;
    for (i = 0; i < n; i++) {
        if (u[i] < 0x80) {
            d[k++] = (char)u[i];
        } else {
            d[k++] = (char)(0xC0 | (u[i] >> 6));
            d[k++] = (char)(0x80 | (u[i] & 0x3F));
        }
    }
    d[k] = '\0';
    return d;
}

#define MAX_NAME_ID ((mmnc_int)1 << 31)

int mmnc_names_read(const char *path, int keyed, mmnc_int *n, char ***out, mmnc_err *err)
{
    int status = MMNC_OK;
    lreader r;
    char **names = NULL, *s, ex[80];
    mmnc_int cnt = 0, cap = 0;
    size_t len;

    memset(&r, 0, sizeof r);
    if (!path || !n || !out) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_names_read: NULL argument");
    *n = 0;
    *out = NULL;
    if ((status = lr_open(&r, path, err)) != MMNC_OK) goto cleanup;
    for (;;) {
        const char *nb = NULL, *ne = NULL;
        mmnc_int slot;
        if ((status = lr_next(&r, &s, &len, err)) != MMNC_OK) goto cleanup;
        if (!s) break;
        if (keyed) {
            const char *sep, *q;
            mmnc_int id;
            if (!*skip_ws(s)) continue;
            for (sep = s; *sep && *sep != '|' && *sep != '\t'; sep++) {}
            q = skip_ws(s);
            {
                const char *ie = sep;
                while (ie > q && IS_WS(ie[-1])) ie--;
                if (!*sep || !parse_index(q, ie, &id) || id < 1 || id > MAX_NAME_ID) {
                    status = line_err(&r, MMNC_EFORMAT, err,
                                      "expected 'id|name' or 'id<TAB>name' with a numeric id "
                                      "from 1, found '%s'", excerpt(s, len, ex));
                    goto cleanup;
                }
            }
            nb = sep + 1;
            for (ne = nb; *ne && *ne != *sep; ne++) {}
            slot = id - 1;
        } else {
            nb = s;
            ne = s + len;
            slot = cnt;
        }
        if (slot >= cap) {
            mmnc_int nc = cap ? 2 * cap : 1024, k;
            char **nn;
            while (nc <= slot) nc *= 2;
            if (!(nn = mmnc_i_realloc(names, (size_t)nc, sizeof(char *)))) {
                status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
                goto cleanup;
            }
            names = nn;
            for (k = cap; k < nc; k++) names[k] = NULL;
            cap = nc;
        }
        if (names[slot]) {
            status = line_err(&r, MMNC_EFORMAT, err, "duplicate id %lld", (long long)slot + 1);
            goto cleanup;
        }
        if (!(names[slot] = dup_utf8(nb, (size_t)(ne - nb)))) {
            status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
            goto cleanup;
        }
        if (slot + 1 > cnt) cnt = slot + 1;
    }
    if (cnt == 0) {
        status = mmnc_i_err(err, MMNC_EFORMAT, "%s: no names found", path);
        goto cleanup;
    }
    *n = cnt;
    *out = names;
    names = NULL;

cleanup:
    lr_close(&r);
    if (names) {
        for (mmnc_int k = 0; k < cap; k++) mmnc_i_free(names[k]);
        mmnc_i_free(names);
    }
    return status;
}

void mmnc_names_free(mmnc_int n, char **names)
{
    if (!names) return;
    for (mmnc_int i = 0; i < n; i++) mmnc_i_free(names[i]);
    mmnc_i_free(names);
}
