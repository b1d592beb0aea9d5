/*
 * read.c -- the data readers: data sets from text files (Matrix Market,
 * triplets, libsvm; plain, gzip or xz) and mmnc_data_read, which tells the
 * formats apart and delegates MATLAB files to mat.c and binary matrix
 * files to binfmt.c.  Lines come through lines.c.
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

#include "io/io_i.h"
#include "io/lines_i.h"

/* ------------------------------------------------------------------------ */
/* Numbers, triplets, the CSR builder                                        */
/* ------------------------------------------------------------------------ */


/* Validate the value field [b, e) read as v (mmnc_i_check_value); integer:
 * the Matrix Market header declares integer values, so v must be whole.
 * MMNC_OK if fine, else MMNC_EFORMAT naming r's line. */
static int check_value(const mmnc_i_lreader *r, double v, const char *b, const char *e, int integer, mmnc_err *err)
{
    char why[MMNC_ERRMSG_SIZE], ex[80];
    if (mmnc_i_check_value(v, b, e, why)) return mmnc_i_line_err(r, MMNC_EFORMAT, err, "%s", why);
    if (integer && v != floor(v))
        return mmnc_i_line_err(r, MMNC_EFORMAT, err, "value '%s' is not an integer: the header declares integer "
                               "values", mmnc_i_excerpt(b, (size_t)(e - b), ex));
    return MMNC_OK;
}

/* Growable triplet arrays. */
typedef struct tbuf {
    mmnc_int *ri, *ci;
    double *v;
    mmnc_int n, cap;
} tbuf;

/* Room for at least want triplets (capacity doubled from 1024). */
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

/* Append the triplet (i, j, x). */
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

/* 1 if [b, e) is the lowercase word w, ignoring the case of its letters. */
static int word_is(const char *b, const char *e, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(e - b) != n) return 0;
    for (size_t i = 0; i < n; i++)
        if ((b[i] | 0x20) != w[i]) return 0;
    return 1;
}

/* The banner "%%MatrixMarket matrix coordinate|array <field> general|symmetric"
 * (symmetric: what SciPy's mmwrite writes for a symmetric matrix; array: a
 * dense one, real or integer; integer: every value is a whole number). */
static int mtx_banner(const mmnc_i_lreader *r, const char *s, int *pattern, int *integer, int *symmetric,
                      int *array, mmnc_err *err)
{
    const char *b[4], *e[4], *p = s + 14;
    char ex[80];
    int k;
    for (k = 0; k < 4; k++) {
        p = mmnc_i_skip_ws(p);
        b[k] = p;
        e[k] = p = mmnc_i_token_end(p);
    }
    *array = word_is(b[1], e[1], "array");
    if (!word_is(b[0], e[0], "matrix") || !(word_is(b[1], e[1], "coordinate") || *array) ||
        !(word_is(b[2], e[2], "real") || word_is(b[2], e[2], "integer") ||
          (word_is(b[2], e[2], "pattern") && !*array)) ||
        !(word_is(b[3], e[3], "general") || word_is(b[3], e[3], "symmetric")) || *mmnc_i_skip_ws(p))
        return mmnc_i_line_err(r, MMNC_EFORMAT, err,
                        "only coordinate real/integer/pattern or array real/integer, general or symmetric, "
                        "is supported, found '%s'", mmnc_i_excerpt(s, strlen(s), ex));
    *pattern = word_is(b[2], e[2], "pattern");
    *integer = word_is(b[2], e[2], "integer");
    *symmetric = word_is(b[3], e[3], "symmetric");
    return MMNC_OK;
}

/*
 * The entry lines, on all cores.  The text after the size line is read in
 * blocks of about MTX_BLOCK bytes, each cut after its last newline (the rest
 * of the last line waits for the next block).  A block is cut at newlines
 * into pieces of about MTX_PIECE bytes, which the threads parse straight
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

/* Block and piece sizes in bytes (tests shrink them: mmnc_i_tuning). */
#define MTX_BLOCK ((size_t)32 << 20)
#define MTX_PIECE ((size_t)1 << 20)
#define MTX_MAXPIECES 1024

/* What the banner and the size line said. */
typedef struct mtx_hdr {
    const char *path;
    int pattern, integer, symmetric;
    mmnc_int m, n, nnz;
    size_t block, piece; /* the entries' block and piece sizes */
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
 * is mmnc_i_parse_double's m / 10^k).  One pass, no bounds: a '\n' must follow s.
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
        p = mmnc_i_scan_decimal(p, NULL, &m, &nd, &frac); /* stops at the line's '\n' at the latest */
        if (nd == 0 || nd > 15) return NULL;
        *px = frac ? (double)m / mmnc_i_pow10[frac] : (double)m;
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
    mmnc_i_lreader at = {.path = h->path, .line = line0}; /* only where a message points */
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
            i <= h->m && j >= 1 && j <= h->n && k < limit && (!h->integer || x == floor(x))) {
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
            status = mmnc_i_line_err(&at, MMNC_EFORMAT, err, "NUL byte: this is not a text file");
            break;
        }
        if (le > s && le[-1] == '\r') le--;
        while (p < le && MMNC_I_IS_WS(*p)) p++;
        if (p == le || *p == '%') {
            s = nl ? nl + 1 : end;
            continue;
        }
        b0 = p;
        while (p < le && !MMNC_I_IS_WS(*p)) p++;
        e0 = p;
        while (p < le && MMNC_I_IS_WS(*p)) p++;
        b1 = p;
        while (p < le && !MMNC_I_IS_WS(*p)) p++;
        e1 = p;
        while (p < le && MMNC_I_IS_WS(*p)) p++;
        b2 = p;
        while (p < le && !MMNC_I_IS_WS(*p)) p++;
        e2 = p;
        while (p < le && MMNC_I_IS_WS(*p)) p++;
        if (p < le || (h->pattern ? b2 != e2 : b2 == e2) || !mmnc_i_parse_index(b0, e0, &i) ||
            !mmnc_i_parse_index(b1, e1, &j) || (!h->pattern && !mmnc_i_parse_double(b2, e2, &x))) {
            status = mmnc_i_line_err(&at, MMNC_EFORMAT, err, "expected '%s', found '%s'",
                              h->pattern ? "row col" : "row col value",
                              mmnc_i_excerpt(s, (size_t)(le - s), ex));
            break;
        }
        if (i < 1 || i > h->m || j < 1 || j > h->n) {
            status = mmnc_i_line_err(&at, MMNC_EFORMAT, err,
                              "index (%lld, %lld) out of range: the matrix is %lld x %lld "
                              "(1-based)", (long long)i, (long long)j, (long long)h->m,
                              (long long)h->n);
            break;
        }
        if ((status = check_value(&at, x, b2, e2, h->integer, err)) != MMNC_OK) break;
        if (k == limit) {
            status = mmnc_i_line_err(&at, MMNC_EFORMAT, err,
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
static int mtx_block_parse(mmnc_i_lreader *r, const mtx_hdr *h, const char *text, size_t len,
                           mtx_part *pc, tbuf *t, mmnc_err *err)
{
    size_t np = (len + h->piece - 1) / h->piece;
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
static int block_fill(mmnc_i_lreader *r, size_t target, mmnc_err *err)
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
static int mtx_entries(mmnc_i_lreader *r, const mtx_hdr *h, tbuf *t, mmnc_err *err)
{
    int status = MMNC_OK;
    mtx_part *pc = NULL;

    MMNC_ALLOC(pc, MTX_MAXPIECES, err, status);
    for (;;) {
        size_t avail = r->end - r->beg, w, cut;
        if (!r->eof && avail < h->block) {
            if ((status = block_fill(r, h->block, err)) != MMNC_OK) goto cleanup;
            avail = r->end - r->beg;
        }
        if (avail == 0) break;
        w = avail < h->block ? avail : h->block;
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

/* A symmetric matrix stores its lower triangle: add the entries above the
 * diagonal.  Square, and nothing stored above the diagonal, as the format
 * says (SciPy's mmwrite keeps to it). */
static int mtx_mirror(const mtx_hdr *h, tbuf *t, mmnc_err *err)
{
    mmnc_int n0 = t->n, k;
    int status;
    if (h->m != h->n)
        return mmnc_i_err(err, MMNC_EFORMAT, "%s: a symmetric matrix must be square, found %lld x %lld", h->path,
                          (long long)h->m, (long long)h->n);
    for (k = 0; k < n0; k++) {
        mmnc_int i = t->ri[k], j = t->ci[k];
        if (i < j)
            return mmnc_i_err(err, MMNC_EFORMAT, "%s: symmetric, but entry %lld (row %lld, column %lld) is above "
                              "the diagonal: only the lower triangle is stored", h->path, (long long)k + 1,
                              (long long)i + 1, (long long)j + 1);
        if (i != j && (status = tbuf_push(t, j, i, t->v[k], err)) != MMNC_OK) return status;
    }
    return MMNC_OK;
}

/* Matrix Market array (after its banner): the size line "rows cols", then
 * one value per line, column by column; symmetric: the lower triangle of
 * each column (rows j..n), mirrored.  Zeros are not stored, so memory
 * follows the nonzeros, not rows x cols. */
static int read_mtx_array(mmnc_i_lreader *r, int integer, int symmetric, mmnc_data **out, mmnc_err *err)
{
    int status = MMNC_OK;
    mmnc_int m = -1, n = -1, i = 0, j = 0, total = 0, got = 0;
    tbuf t = {0};
    char *s, ex[80];
    size_t len;
    for (;;) {
        const char *p, *b[3], *e[3];
        double v;
        int nf;
        if ((status = mmnc_i_lr_next(r, &s, &len, err)) != MMNC_OK) goto cleanup;
        if (!s) break;
        p = mmnc_i_skip_ws(s);
        if (!*p || *p == '%') continue;
        nf = mmnc_i_split_fields(s, 0, 3, b, e);
        if (m < 0) {
            if (nf != 2 || !mmnc_i_parse_index(b[0], e[0], &m) || !mmnc_i_parse_index(b[1], e[1], &n) ||
                (m > 0 && n > INT64_MAX / 2 / m)) {
                m = -1;
                status = mmnc_i_line_err(r, MMNC_EFORMAT, err, "expected the array size 'rows cols', found '%s'",
                                         mmnc_i_excerpt(s, len, ex));
                goto cleanup;
            }
            if (symmetric && m != n) {
                status = mmnc_i_line_err(r, MMNC_EFORMAT, err, "a symmetric matrix must be square, found %lld x %lld",
                                         (long long)m, (long long)n);
                goto cleanup;
            }
            total = symmetric ? m * (m + 1) / 2 : m * n;
            continue;
        }
        if (nf != 1 || !mmnc_i_parse_double(b[0], e[0], &v)) {
            status = mmnc_i_line_err(r, MMNC_EFORMAT, err, "expected one value, found '%s'", mmnc_i_excerpt(s, len, ex));
            goto cleanup;
        }
        if ((status = check_value(r, v, b[0], e[0], integer, err)) != MMNC_OK) goto cleanup;
        if (got == total) {
            status = mmnc_i_line_err(r, MMNC_EFORMAT, err, "more values than the %lld of a %lld x %lld %s array",
                                     (long long)total, (long long)m, (long long)n, symmetric ? "symmetric" : "general");
            goto cleanup;
        }
        if (v != 0 && ((status = tbuf_push(&t, i, j, v, err)) != MMNC_OK ||
                       (symmetric && i != j && (status = tbuf_push(&t, j, i, v, err)) != MMNC_OK)))
            goto cleanup;
        got++;
        if (++i == m) i = symmetric ? ++j : (j++, 0);
    }
    if (m < 0) {
        status = mmnc_i_line_err(r, MMNC_EFORMAT, err, "no size line 'rows cols' found");
        goto cleanup;
    }
    if (got < total) {
        status = mmnc_i_line_err(r, MMNC_EFORMAT, err, "truncated: expected %lld values, found %lld",
                                 (long long)total, (long long)got);
        goto cleanup;
    }
    status = make_data(&t, m, n, out, err);
cleanup:
    tbuf_free(&t);
    return status;
}

/*
 * Matrix Market coordinate text.  The banner is optional: without it the
 * file is "coordinate real general" (the MTX-like text written by many
 * tools: '%' comments, "rows cols nnz", then triplets).  The banner,
 * comments and size line are read line by line, the entries in parallel
 * blocks (mtx_entries).
 */
static int read_mtx(mmnc_i_lreader *r, const mmnc_i_tuning *tune, mmnc_data **out, mmnc_err *err)
{
    int status = MMNC_OK, have_size = 0, banner = 0;
    mtx_hdr h = {.path = r->path,
                 .block = tune->mtx_block ? tune->mtx_block : MTX_BLOCK,
                 .piece = tune->mtx_piece ? tune->mtx_piece : MTX_PIECE};
    tbuf t = {0};
    char *s, ex[80];
    size_t len;

    while (!have_size) {
        const char *p, *b0, *e0, *b1, *e1, *b2, *e2;
        if ((status = mmnc_i_lr_next(r, &s, &len, err)) != MMNC_OK) goto cleanup;
        if (!s) break;
        if (r->line == 1 && strncmp(s, "%%", 2) == 0 && len >= 14 &&
            word_is(s + 2, s + 14, "matrixmarket")) {
            int array;
            if ((status = mtx_banner(r, s, &h.pattern, &h.integer, &h.symmetric, &array, err)) != MMNC_OK)
                goto cleanup;
            if (array) { /* dense: its own size line and values */
                status = read_mtx_array(r, h.integer, h.symmetric, out, err);
                goto cleanup;
            }
            banner = 1;
            continue;
        }
        p = mmnc_i_skip_ws(s);
        if (!*p || *p == '%') continue;
        b0 = p;
        e0 = p = mmnc_i_token_end(p);
        b1 = p = mmnc_i_skip_ws(p);
        e1 = p = mmnc_i_token_end(p);
        b2 = p = mmnc_i_skip_ws(p);
        e2 = p = mmnc_i_token_end(p);
        p = mmnc_i_skip_ws(p);
        if (*p || !mmnc_i_parse_index(b0, e0, &h.m) || !mmnc_i_parse_index(b1, e1, &h.n) ||
            !mmnc_i_parse_index(b2, e2, &h.nnz)) {
            status = mmnc_i_line_err(r, MMNC_EFORMAT, err, "expected 'rows cols entries'%s, found '%s'",
                              banner ? "" : " (read as Matrix Market without a banner)",
                              mmnc_i_excerpt(s, len, ex));
            goto cleanup;
        }
        /* the row pointers are the one array a claim sizes: bound it */
        if (h.m > h.nnz && h.m - h.nnz > MMNC_MAX_EMPTY_ROWS) {
            status = mmnc_i_line_err(r, MMNC_EFORMAT, err,
                                     "the size line claims %lld rows for %lld entries: at most "
                                     "entries + %lld rows (MMNC_MAX_EMPTY_ROWS) are read",
                                     (long long)h.m, (long long)h.nnz, (long long)MMNC_MAX_EMPTY_ROWS);
            goto cleanup;
        }
        have_size = 1;
    }
    if (!have_size) {
        status = mmnc_i_line_err(r, MMNC_EFORMAT, err, "no size line 'rows cols entries' found");
        goto cleanup;
    }
    /* reserve, but not blindly: the size line may be wrong */
    if ((status = tbuf_grow(&t, h.nnz < (1 << 20) ? h.nnz : (1 << 20), err)) != MMNC_OK)
        goto cleanup;
    if ((status = mtx_entries(r, &h, &t, err)) != MMNC_OK) goto cleanup;
    if (t.n < h.nnz) {
        status = mmnc_i_line_err(r, MMNC_EFORMAT, err, "truncated: expected %lld entries, found %lld",
                          (long long)h.nnz, (long long)t.n);
        goto cleanup;
    }
    if (h.symmetric && (status = mtx_mirror(&h, &t, err)) != MMNC_OK) goto cleanup;
    status = make_data(&t, h.m, h.n, out, err);

cleanup:
    tbuf_free(&t);
    return status;
}

/* ------------------------------------------------------------------------ */
/* Triplets                                                                  */
/* ------------------------------------------------------------------------ */

/* 1 if the key [b, e) is a number not written as an integer ("6.70",
 * "1e-3"): keys that all look so are the values of a table. */
static int fraction_key(const char *b, const char *e)
{
    double x;
    int marked = 0;
    for (const char *p = b; p < e && !marked; p++) marked = *p == '.' || *p == 'e' || *p == 'E';
    return marked && mmnc_i_parse_double(b, e, &x);
}

/* Triplet text: one entry a line, its row key, column key and value in the
 * fields o names (value 1 without a value field), fields split at blanks
 * or at o->delim.  Keys are strings, numbered in order of first appearance
 * and kept as the row and column names.  A line with more fields than
 * named is an error unless o->extra_fields, so that a dense table read as
 * triplets is caught with a hint; so is, in auto mode, a file whose keys
 * are all fractional numbers (a 3-column table split at o->delim). */
static int read_triplet(mmnc_i_lreader *r, const mmnc_read_opts *o, mmnc_data **out, mmnc_err *err)
{
    int status = MMNC_OK, header = o->header;
    int frac_keys = o->format == MMNC_FMT_AUTO; /* every key so far a number with a fraction */
    long long first_line = 0;
    char k1[80] = "", k2[80] = "";
    int maxf = o->row_field;
    mmnc_i_keymap rows = {0}, cols = {0};
    tbuf t = {0};
    mmnc_data *d = NULL;
    char *s, ex[80];
    size_t len;

    if (o->col_field > maxf) maxf = o->col_field;
    if (o->value_field > maxf) maxf = o->value_field;
    for (;;) {
        const char *b[MMNC_I_MAXFIELDS + 1], *e[MMNC_I_MAXFIELDS + 1], *p;
        mmnc_int i, j;
        double v = 1.0;
        int nf;
        if ((status = mmnc_i_lr_next(r, &s, &len, err)) != MMNC_OK) goto cleanup;
        if (!s) break;
        p = mmnc_i_skip_ws(s);
        if (!*p || mmnc_i_is_comment(p)) continue;
        if (header) { /* the column names of a CSV/TSV file */
            header = 0;
            continue;
        }
        /* one field more than named, to see one that should not be there */
        nf = mmnc_i_split_fields(s, o->delim, o->extra_fields ? maxf : maxf + 1, b, e);
        if (nf > maxf) {
            char vf[32] = "";
            if (o->value_field) snprintf(vf, sizeof vf, ", value in field %d", o->value_field);
            status = mmnc_i_line_err(r, MMNC_EFORMAT, err,
                              "expected %d fields (row key in field %d, column key in field %d%s), "
                              "found more: '%s' (to ignore the others: extra_fields = 1, "
                              "mmnc --extra-fields ignore; a dense table: MMNC_FMT_DENSE, mmnc --format dense)",
                              maxf, o->row_field, o->col_field, vf, mmnc_i_excerpt(s, len, ex));
            goto cleanup;
        }
        if (nf < maxf) {
            char vf[32] = "";
            if (o->value_field) snprintf(vf, sizeof vf, ", value in field %d", o->value_field);
            status = mmnc_i_line_err(r, MMNC_EFORMAT, err,
                              "expected at least %d fields (row key in field %d, column key in "
                              "field %d%s), found %d: '%s'%s",
                              maxf, o->row_field, o->col_field, vf, nf, mmnc_i_excerpt(s, len, ex),
                              !o->delim && (memchr(s, ',', len) || memchr(s, ';', len))
                                  ? " (fields are split at blanks: for CSV triplets give the separator, mmnc "
                                    "--delim ,; a dense table: mmnc --format dense)"
                                  : "");
            goto cleanup;
        }
        if (b[o->row_field - 1] == e[o->row_field - 1] ||
            b[o->col_field - 1] == e[o->col_field - 1]) {
            status = mmnc_i_line_err(r, MMNC_EFORMAT, err, "empty row or column key in '%s'",
                              mmnc_i_excerpt(s, len, ex));
            goto cleanup;
        }
        if (o->value_field) {
            const char *vb = b[o->value_field - 1], *ve = e[o->value_field - 1];
            if (!mmnc_i_parse_double(vb, ve, &v)) {
                char ex2[80];
                status = mmnc_i_line_err(r, MMNC_EFORMAT, err,
                                  "expected a number in field %d, found '%s' in '%s'",
                                  o->value_field, mmnc_i_excerpt(vb, (size_t)(ve - vb), ex),
                                  mmnc_i_excerpt(s, len, ex2));
                goto cleanup;
            }
            if ((status = check_value(r, v, vb, ve, 0, err)) != MMNC_OK) goto cleanup;
        }
        if (frac_keys) {
            const char *rb = b[o->row_field - 1], *re = e[o->row_field - 1];
            const char *cb = b[o->col_field - 1], *ce = e[o->col_field - 1];
            if (!first_line) {
                first_line = r->line;
                mmnc_i_excerpt(rb, (size_t)(re - rb), k1);
                mmnc_i_excerpt(cb, (size_t)(ce - cb), k2);
            }
            frac_keys = fraction_key(rb, re) && fraction_key(cb, ce);
        }
        if ((status = mmnc_i_keymap_get(&rows, b[o->row_field - 1],
                                 (size_t)(e[o->row_field - 1] - b[o->row_field - 1]), &i, err)) ||
            (status = mmnc_i_keymap_get(&cols, b[o->col_field - 1],
                                 (size_t)(e[o->col_field - 1] - b[o->col_field - 1]), &j, err)) ||
            (status = tbuf_push(&t, i, j, v, err)))
            goto cleanup;
    }
    if (frac_keys && first_line) {
        status = mmnc_i_err(err, MMNC_EFORMAT,
                            "%s:%lld: every row and column key is a number with a fraction ('%s' and '%s' on this "
                            "line): a table of numbers read as triplets?  Read it as a dense table (MMNC_FMT_DENSE, "
                            "mmnc --format dense), or force triplets to keep such keys (MMNC_FMT_TRIPLET, mmnc "
                            "--format triplet)", r->path, first_line, k1, k2);
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
    mmnc_i_keymap_free(&rows);
    mmnc_i_keymap_free(&cols);
    tbuf_free(&t);
    mmnc_data_free(d);
    return status;
}

/* ------------------------------------------------------------------------ */
/* libsvm                                                                    */
/* ------------------------------------------------------------------------ */

/* libsvm / svmlight text: "label index:value ...", one row a line; the
 * label is skipped (mmnc_labels_read reads it), qid: and "#" comments are
 * ignored, and indices are 1-based unless zero_based. */
static int read_libsvm(mmnc_i_lreader *r, int zero_based, mmnc_data **out, mmnc_err *err)
{
    int status = MMNC_OK;
    mmnc_int row = 0, maxcol = -1;
    tbuf t = {0};
    char *s, ex[80];
    size_t len;

    for (;;) {
        char *hash;
        const char *p, *b, *e, *colon;
        if ((status = mmnc_i_lr_next(r, &s, &len, err)) != MMNC_OK) goto cleanup;
        if (!s) break;
        if ((hash = memchr(s, '#', len)) != NULL) *hash = '\0'; /* svmlight comment */
        p = mmnc_i_skip_ws(s);
        if (!*p) continue;
        b = p;
        e = p = mmnc_i_token_end(p);
        if (memchr(b, ':', (size_t)(e - b))) {
            status = mmnc_i_line_err(r, MMNC_EFORMAT, err,
                              "expected 'label index:value ...', found no label in '%s'",
                              mmnc_i_excerpt(s, len, ex));
            goto cleanup;
        }
        for (;;) {
            mmnc_int j;
            double v;
            p = mmnc_i_skip_ws(p);
            if (!*p) break;
            b = p;
            e = p = mmnc_i_token_end(p);
            colon = memchr(b, ':', (size_t)(e - b));
            if (colon && word_is(b, colon, "qid")) continue;
            if (!colon || !mmnc_i_parse_index(b, colon, &j) || !mmnc_i_parse_double(colon + 1, e, &v)) {
                status = mmnc_i_line_err(r, MMNC_EFORMAT, err, "expected 'index:value', found '%s'",
                                  mmnc_i_excerpt(b, (size_t)(e - b), ex));
                goto cleanup;
            }
            if (!zero_based && j == 0) {
                status = mmnc_i_line_err(r, MMNC_EFORMAT, err,
                                  "feature index 0 in '%s' (indices are 1-based unless "
                                  "libsvm_zero_based is set)", mmnc_i_excerpt(b, (size_t)(e - b), ex));
                goto cleanup;
            }
            if ((status = check_value(r, v, colon + 1, e, 0, err)) != MMNC_OK) goto cleanup;
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
    o->row_field = MMNC_DEFAULT_ROW_FIELD;
    o->col_field = MMNC_DEFAULT_COL_FIELD;
    o->value_field = MMNC_DEFAULT_VALUE_FIELD;
    o->delim = 0;
    o->mat_var = MMNC_DEFAULT_MAT_VAR;
    o->libsvm_zero_based = 0;
}

/* Guess the text format from the first block of the file (not consumed).
 * dense: a dense table may be recognised (no triplet option given).
 * Returns -1 when out of memory. */
static int detect(const mmnc_i_lreader *r, int dense)
{
    const char *p = r->buf + r->beg, *end = r->buf + r->end;
    int started_with_percent = p < end && *p == '%';
    if (end - p >= 14 && p[0] == '%' && p[1] == '%' && word_is(p + 2, p + 14, "matrixmarket"))
        return MMNC_FMT_MTX;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *q = p, *b[4], *e[4];
        int nf = 0;
        if (!nl) nl = end;
        while (q < nl && MMNC_I_IS_WS(*q)) q++;
        if (q == nl || *q == '%' || *q == '#') {
            p = nl + 1;
            continue;
        }
        /* the first data line */
        while (q < nl && nf < 4) {
            b[nf] = q;
            while (q < nl && !MMNC_I_IS_WS(*q)) q++;
            e[nf++] = q;
            while (q < nl && MMNC_I_IS_WS(*q)) q++;
        }
        if (nf >= 2 && memchr(b[1], ':', (size_t)(e[1] - b[1])) &&
            !memchr(b[0], ':', (size_t)(e[0] - b[0])))
            return MMNC_FMT_LIBSVM;
        if (started_with_percent && nf == 3 && q == nl) {
            mmnc_int x;
            if (mmnc_i_parse_index(b[0], e[0], &x) && mmnc_i_parse_index(b[1], e[1], &x) &&
                mmnc_i_parse_index(b[2], e[2], &x))
                return MMNC_FMT_MTX;
        }
        break;
    }
    if (!dense) return MMNC_FMT_TRIPLET;
    switch (mmnc_i_dense_detect(r->buf + r->beg, end, r->eof)) {
    case 1: return MMNC_FMT_DENSE;
    case 0: return MMNC_FMT_TRIPLET;
    default: return -1;
    }
}

/* A file that opens with the Matrix Market banner, read in another text
 * format because it was forced (or because a header was asked for), would
 * have its size line read as data: MMNC_EFORMAT naming the banner. */
static int not_mtx(const mmnc_i_lreader *r, mmnc_format fmt, int header, mmnc_err *err)
{
    const char *p = r->buf + r->beg, *end = r->buf + r->end, *nl;
    char ex[80];
    if (end - p < 14 || p[0] != '%' || p[1] != '%' || !word_is(p + 2, p + 14, "matrixmarket")) return MMNC_OK;
    nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) nl = end;
    if (nl > p && nl[-1] == '\r') nl--;
    return mmnc_i_err(err, MMNC_EFORMAT, "%s:1: a Matrix Market file ('%s'), not %s%s: read it as Matrix Market "
                      "(MMNC_FMT_MTX or MMNC_FMT_AUTO; mmnc --format mtx or auto%s)", r->path,
                      mmnc_i_excerpt(p, (size_t)(nl - p), ex),
                      fmt == MMNC_FMT_DENSE ? "dense" : fmt == MMNC_FMT_LIBSVM ? "libsvm" : "triplet",
                      header ? " with a header line" : "", header ? ", without --header" : "");
}

/* MMNC_EINVAL with a readable message for read options that contradict each other. */
static int check_opts(const mmnc_read_opts *o, mmnc_err *err)
{
    if (o->format < MMNC_FMT_AUTO || o->format > MMNC_FMT_DENSE)
        return mmnc_i_err(err, MMNC_EINVAL, "unknown format %d", (int)o->format);
    if (o->row_field < 1 || o->row_field > MMNC_I_MAXFIELDS || o->col_field < 1 ||
        o->col_field > MMNC_I_MAXFIELDS || o->value_field < 0 || o->value_field > MMNC_I_MAXFIELDS)
        return mmnc_i_err(err, MMNC_EINVAL,
                          "field numbers must be between 1 and %d (value field: 0 to %d)",
                          MMNC_I_MAXFIELDS, MMNC_I_MAXFIELDS);
    if (o->row_field == o->col_field || o->row_field == o->value_field ||
        o->col_field == o->value_field)
        return mmnc_i_err(err, MMNC_EINVAL,
                          "row, column and value fields must differ (%d, %d, %d)", o->row_field,
                          o->col_field, o->value_field);
    if (o->header && o->format != MMNC_FMT_AUTO && o->format != MMNC_FMT_TRIPLET && o->format != MMNC_FMT_DENSE)
        return mmnc_i_err(err, MMNC_EINVAL, "a header line is read only in triplet text and dense tables");
    if (o->dense_header < -1 || o->dense_header > 1 || o->dense_row_names < -1 || o->dense_row_names > 1)
        return mmnc_i_err(err, MMNC_EINVAL, "dense_header and dense_row_names must be -1, 0 or 1");
    if (o->delim == '\n' || o->delim == '#' || o->delim == '%' || o->delim == '\r')
        return mmnc_i_err(err, MMNC_EINVAL, "invalid field separator");
    return MMNC_OK;
}

int mmnc_data_read(const char *path, const mmnc_read_opts *o, mmnc_data **out, mmnc_err *err)
{
    const mmnc_i_tuning tune = MMNC_I_TUNING_DEFAULT;
    return mmnc_i_data_read(path, o, &tune, out, err);
}

int mmnc_i_data_read(const char *path, const mmnc_read_opts *o, const mmnc_i_tuning *tune, mmnc_data **out,
                     mmnc_err *err)
{
    int status = MMNC_OK;
    mmnc_read_opts opts;
    mmnc_format fmt;
    mmnc_i_lreader r;
    mmnc_data *d = NULL;

    memset(&r, 0, sizeof r);
    if (!out) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_data_read: out is NULL");
    *out = NULL;
    if (!path) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_data_read: path is NULL");
    if (o) opts = *o;
    else mmnc_read_opts_default(&opts);
    if ((status = check_opts(&opts, err)) != MMNC_OK) return status;
    fmt = opts.format;

    if (fmt == MMNC_FMT_AUTO || fmt == MMNC_FMT_MTX || fmt == MMNC_FMT_TRIPLET || fmt == MMNC_FMT_LIBSVM ||
        fmt == MMNC_FMT_DENSE) {
        /* One open: the format is sniffed from the stream that is then read,
         * so a pipe, a FIFO or standard input keeps its first bytes. */
        mmnc_i_in *in;
        if ((status = mmnc_i_in_open(path, &in, err)) != MMNC_OK) goto cleanup;
        if (fmt == MMNC_FMT_AUTO && !strcmp(mmnc_i_in_kind(in), "plain")) {
            size_t hn;
            const unsigned char *h = mmnc_i_in_head(in, &hn);
            int regular = mmnc_i_in_regular(in);
            if (hn >= 5 && !memcmp(h, "\x89MMOD", 5)) { /* docs/model-format.md */
                mmnc_i_in_close(in);
                status = mmnc_i_err(err, MMNC_EFORMAT, "%s: a model saved by mmnc cluster --save-model, not a data "
                                    "file (mmnc_model_read and mmnc info read models from regular files)", path);
                goto cleanup;
            }
            if (mmnc_i_bin_magic(h, hn)) fmt = MMNC_FMT_BIN;
            else if (hn >= 6 && !memcmp(h, "MATLAB", 6)) fmt = MMNC_FMT_MAT;
            if (fmt != MMNC_FMT_AUTO) {
                mmnc_i_in_close(in);
                if (!regular) {
                    status = mmnc_i_err(err, MMNC_EUNSUP, "%s: a %s is read in place: give it as a regular file, "
                                        "not a pipe or standard input", path,
                                        fmt == MMNC_FMT_BIN ? "binary matrix file" : "MAT file");
                    goto cleanup;
                }
            }
        }
        if (fmt != MMNC_FMT_BIN && fmt != MMNC_FMT_MAT) {
            if ((status = mmnc_i_lr_open_in(&r, path, in, err)) != MMNC_OK) goto cleanup;
            if (r.beg == r.end) {
                status = mmnc_i_err(err, MMNC_EFORMAT, "%s: file is empty", path);
                goto cleanup;
            }
            if (fmt == MMNC_FMT_AUTO) {
                /* a dense table only where no triplet option says otherwise */
                int dense = opts.row_field == 1 && opts.col_field == 2 && opts.value_field == 3 && !opts.delim &&
                            !opts.extra_fields;
                int got = detect(&r, dense);
                if (got < 0) {
                    status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
                    goto cleanup;
                }
                fmt = (mmnc_format)got;
                if (opts.header && fmt != MMNC_FMT_DENSE) fmt = MMNC_FMT_TRIPLET; /* only they have one */
            }
            if (fmt != MMNC_FMT_MTX && (status = not_mtx(&r, fmt, opts.format == MMNC_FMT_AUTO, err)) != MMNC_OK)
                goto cleanup;
            if (fmt == MMNC_FMT_MTX) status = read_mtx(&r, tune, &d, err);
            else if (fmt == MMNC_FMT_DENSE) status = mmnc_i_read_dense(&r, &opts, &d, err);
            else if (fmt == MMNC_FMT_LIBSVM) status = read_libsvm(&r, opts.libsvm_zero_based, &d, err);
            else status = read_triplet(&r, &opts, &d, err);
            if (status) goto cleanup;
        }
    }
    if (fmt == MMNC_FMT_BIN) {
        status = mmnc_data_read_bin(path, opts.bin_no_verify ? MMNC_BIN_NO_VERIFY : 0, &d, err);
        if (status) goto cleanup;
    } else if (fmt == MMNC_FMT_MAT) {
        status = mmnc_i_mat_read(path, opts.mat_var ? opts.mat_var : MMNC_DEFAULT_MAT_VAR, &d, err);
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
    mmnc_i_lr_close(&r);
    mmnc_data_free(d);
    return status;
}

