/*
 * dense.c -- dense tables of numbers as data sets (MMNC_FMT_DENSE): CSV,
 * TSV, ';'- or space-separated lines, with an optional header line of
 * column names and an optional first column of row names; and the test
 * mmnc_data_read's MMNC_FMT_AUTO uses to recognise them (the rules are in
 * mmnc.h, at mmnc_data_read).
 *
 * Lines come through lines.c's line reader; fields are split here, since a
 * table may be wider than MMNC_I_MAXFIELDS and names may be quoted.  The
 * rows arrive in order, so the CSR is built directly, zeros left out.
 */
#include <string.h>

#include "io/lines_i.h"

#define SEP_BLANKS 0 /* runs of spaces and tabs */

/* The separator of a first line: a tab, else ';', else ',', else blanks. */
static int pick_sep(const char *s)
{
    if (strchr(s, '\t')) return '\t';
    if (strchr(s, ';')) return ';';
    if (strchr(s, ',')) return ',';
    return SEP_BLANKS;
}

/* Growable field boundaries. */
typedef struct fields {
    const char **b, **e;
    size_t n, cap;
} fields;

static void fields_free(fields *f)
{
    mmnc_i_free((void *)f->b);
    mmnc_i_free((void *)f->e);
    memset(f, 0, sizeof *f);
}

static int fields_push(fields *f, const char *b, const char *e)
{
    if (f->n == f->cap) {
        size_t nc = f->cap ? 2 * f->cap : 64;
        const char **nb = mmnc_i_realloc((void *)f->b, nc, sizeof *nb), **ne;
        if (!nb) return MMNC_ENOMEM;
        f->b = nb;
        if (!(ne = mmnc_i_realloc((void *)f->e, nc, sizeof *ne))) return MMNC_ENOMEM;
        f->e = ne;
        f->cap = nc;
    }
    f->b[f->n] = b;
    f->e[f->n++] = e;
    return MMNC_OK;
}

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* Split the NUL-terminated line s in place into f (quoted fields are
 * unquoted where they stand).  Returns MMNC_OK, MMNC_ENOMEM, or
 * MMNC_EFORMAT with *bad pointing at the offending quote. */
static int split(char *s, int sep, fields *f, const char **bad)
{
    char *p = s;
    f->n = 0;
    if (sep == SEP_BLANKS)
        while (is_blank(*p)) p++;
    if (sep == SEP_BLANKS && !*p) return MMNC_OK;
    for (;;) {
        char *b, *e;
        while (is_blank(*p) && *p != sep) p++;
        if (*p == '"') { /* quoted: up to the quote not doubled, "" is one quote */
            char *w;
            *bad = p;
            b = w = ++p;
            for (;;) {
                if (!*p) return MMNC_EFORMAT; /* no closing quote */
                if (*p == '"') {
                    if (p[1] != '"') break;
                    p++;
                }
                *w++ = *p++;
            }
            e = w;
            p++;
            while (is_blank(*p) && *p != sep) p++;
            if (*p && *p != sep && !(sep == SEP_BLANKS && is_blank(*p))) {
                *bad = p;
                return MMNC_EFORMAT; /* text after the closing quote */
            }
        } else {
            b = p;
            if (sep == SEP_BLANKS)
                while (*p && !is_blank(*p)) p++;
            else
                while (*p && *p != sep) p++;
            e = p;
            while (e > b && is_blank(e[-1])) e--;
        }
        if (fields_push(f, b, e)) return MMNC_ENOMEM;
        if (sep == SEP_BLANKS) {
            while (is_blank(*p)) p++;
            if (!*p) return MMNC_OK;
        } else {
            if (!*p) return MMNC_OK;
            p++; /* the separator */
        }
    }
}

/* 1 if the field [b, e) is a number (an empty field is not). */
static int is_number(const char *b, const char *e)
{
    double x;
    return b < e && mmnc_i_parse_double(b, e, &x);
}

/* 1 if one of the characters of set occurs in [b, e). */
static int strpbrk_range(const char *b, const char *e, const char *set)
{
    for (; b < e; b++)
        if (strchr(set, *b)) return 1;
    return 0;
}

/* 1 if the split first line is a header: a field after the first that is
 * not a number, or an empty first field. */
static int looks_like_header(const fields *f)
{
    if (f->n >= 2 && f->b[0] == f->e[0]) return 1;
    for (size_t j = 1; j < f->n; j++)
        if (!is_number(f->b[j], f->e[j])) return 1;
    return 0;
}

/* 1 if the split line is 0, 1, ..., n-1 or 1, 2, ..., n (n >= 2), plain
 * integers: the column names pandas' to_csv writes for a frame without
 * names (and the column numbers of other tools). */
static int index_line(const fields *f)
{
    mmnc_int first, x;
    if (f->n < 2 || !mmnc_i_parse_index(f->b[0], f->e[0], &first) || first > 1) return 0;
    for (size_t j = 1; j < f->n; j++)
        if (!mmnc_i_parse_index(f->b[j], f->e[j], &x) || x != first + (mmnc_int)j) return 0;
    return 1;
}

/* The next data line of *p .. end (complete lines, the last one too when
 * at_eof; blank lines and '#' or '%' comments skipped), copied into *tmp
 * (grown as needed, *tcap bytes) as a string, *p moved past it.  Returns 1
 * for a line, 0 when none is left (or only an incomplete one), 2 for a
 * line with a NUL byte (not text), -1 when out of memory. */
static int next_data_line(const char **p, const char *end, int at_eof, char **tmp, size_t *tcap)
{
    while (*p < end) {
        const char *nl = memchr(*p, '\n', (size_t)(end - *p)), *q = *p;
        size_t n;
        if (!nl && !at_eof) return 0;
        if (!nl) nl = end;
        n = (size_t)(nl - *p);
        while (q < nl && is_blank(*q)) q++;
        if (memchr(*p, '\0', n)) return 2;
        if (q == nl || *q == '#' || *q == '%') {
            *p = nl + 1;
            continue;
        }
        if (n + 1 > *tcap) {
            char *t = mmnc_i_realloc(*tmp, n + 1, 1);
            if (!t) return -1;
            *tmp = t;
            *tcap = n + 1;
        }
        memcpy(*tmp, *p, n);
        (*tmp)[n] = '\0';
        *p = nl + 1;
        return 1;
    }
    return 0;
}

/* 1 if one of the next data lines in p[0..end) (complete lines, the last
 * too when at_eof; at most 64, split at sep) holds a number not written
 * as an integer ("5.1", "3.0", "1e-3"): the columns are fractional, so an
 * index line above them (index_line) names them rather than being a row
 * of data.  0 if not, -1 when out of memory. */
static int later_fraction(const char *p, const char *end, int at_eof, int sep)
{
    fields f = {0};
    char *tmp = NULL;
    size_t tcap = 0;
    int ndata = 0, result = 0;
    const char *bad;
    while (ndata < 64 && !result) {
        int got = next_data_line(&p, end, at_eof, &tmp, &tcap);
        if (got < 0) goto nomem;
        if (got != 1) break;
        ndata++;
        switch (split(tmp, sep, &f, &bad)) {
        case MMNC_OK: break;
        case MMNC_ENOMEM: goto nomem;
        default: continue;
        }
        for (size_t j = 0; j < f.n && !result; j++)
            result = is_number(f.b[j], f.e[j]) && strpbrk_range(f.b[j], f.e[j], ".eE");
    }
    goto done;
nomem:
    result = -1;
done:
    fields_free(&f);
    mmnc_i_free(tmp);
    return result;
}

int mmnc_i_dense_detect(const char *p, const char *end, int at_eof)
{
    fields f = {0};
    char *tmp = NULL;
    size_t tcap = 0;
    long long F = -1, Fh = -1, ndata = 0;
    int sep = -1, result = 0;
    const char *bad;

    while (ndata < 64) {
        int got = next_data_line(&p, end, at_eof, &tmp, &tcap);
        if (got < 0) goto nomem;
        if (got == 2) goto done; /* not text */
        if (got == 0) break;     /* no more lines, or an incomplete one */
        if (sep < 0) sep = pick_sep(tmp);
        switch (split(tmp, sep, &f, &bad)) {
        case MMNC_OK: break;
        case MMNC_ENOMEM: goto nomem;
        default: goto done;
        }
        if (Fh < 0 && F < 0) {
            int h = looks_like_header(&f) || (index_line(&f) ? later_fraction(p, end, at_eof, sep) : 0);
            if (h < 0) goto nomem;
            if (h) {
                Fh = (long long)f.n;
                continue;
            }
        }
        if (Fh < 0) Fh = 0; /* no header */
        if (sep == ',' || sep == ';') { /* not default triplets: the first data line decides */
            result = f.n >= 4;
            goto done;
        }
        for (size_t j = 1; j < f.n; j++)
            if (!is_number(f.b[j], f.e[j])) goto done;
        if (F < 0) F = (long long)f.n;
        else if ((long long)f.n != F) goto done;
        ndata++;
    }
    if (F < 4 || (Fh > 0 && Fh != F && Fh != F - 1)) goto done;
    result = Fh > 0; /* blanks or tabs: only with a header line */
    goto done;
nomem:
    result = -1;
done:
    fields_free(&f);
    mmnc_i_free(tmp);
    return result;
}

/* Growable CSR and row names: the names are the keys of a map, in row
 * order, each given once (they are the rows' ids in the outputs). */
typedef struct dbuf {
    mmnc_int *rowptr, *colind;
    double *val;
    mmnc_i_keymap rnames;
    long long *rline; /* the line of each named row, for a name given twice */
    mmnc_int nrows, rcap, nnz, ncap;
} dbuf;

static void dbuf_free(dbuf *d)
{
    mmnc_i_free(d->rowptr);
    mmnc_i_free(d->colind);
    mmnc_i_free(d->val);
    mmnc_i_keymap_free(&d->rnames);
    mmnc_i_free(d->rline);
}

/* A NUL-terminated copy of [b, e), or NULL when out of memory. */
static char *dup_range(const char *b, const char *e)
{
    char *s = mmnc_i_malloc((size_t)(e - b) + 1, 1);
    if (s) {
        memcpy(s, b, (size_t)(e - b));
        s[e - b] = '\0';
    }
    return s;
}

/* Append one row: fields f from index first on are the values.  guessed:
 * the first field was taken for a value by detection (no option said), so
 * a message about it says how to read it as the row's name. */
static int add_row(const mmnc_i_lreader *r, dbuf *d, const fields *f, size_t first, char **colnames,
                   int names, int guessed, mmnc_err *err)
{
    char ex[80], ex2[80], why[MMNC_ERRMSG_SIZE];
    const char *hint = " (a first column of row names: dense_row_names = 1, mmnc --first-column names)";
    if (d->nrows + 1 >= d->rcap) {
        mmnc_int nc = d->rcap ? 2 * d->rcap : 1024;
        mmnc_int *a = mmnc_i_realloc(d->rowptr, (size_t)nc, sizeof *a);
        long long *ln;
        if (!a) goto nomem;
        d->rowptr = a;
        if (names) {
            if (!(ln = mmnc_i_realloc(d->rline, (size_t)nc, sizeof *ln))) goto nomem;
            d->rline = ln;
        }
        d->rcap = nc;
    }
    if (names && f->b[0] == f->e[0]) return mmnc_i_line_err(r, MMNC_EFORMAT, err, "empty row name in field 1");
    d->rowptr[d->nrows] = d->nnz;
    for (size_t j = first; j < f->n; j++) {
        double v;
        const char *b = f->b[j], *e = f->e[j];
        char col[96] = "";
        if (colnames && colnames[j - first])
            snprintf(col, sizeof col, " (column '%s')", mmnc_i_excerpt(colnames[j - first], strlen(colnames[j - first]), ex2));
        if (b == e) return mmnc_i_line_err(r, MMNC_EFORMAT, err, "field %zu%s is empty: expected a number", j + 1, col);
        if (!mmnc_i_parse_double(b, e, &v))
            return mmnc_i_line_err(r, MMNC_EFORMAT, err, "field %zu%s: expected a number, found '%s'%s", j + 1, col,
                                   mmnc_i_excerpt(b, (size_t)(e - b), ex), guessed && j == 0 ? hint : "");
        if (mmnc_i_check_value(v, b, e, why))
            return mmnc_i_line_err(r, MMNC_EFORMAT, err, "field %zu%s: %s%s", j + 1, col, why,
                                   guessed && j == 0 ? hint : "");
        if (v == 0) continue;
        if (d->nnz == d->ncap) {
            mmnc_int nc = d->ncap ? 2 * d->ncap : 4096;
            mmnc_int *a = mmnc_i_realloc(d->colind, (size_t)nc, sizeof *a);
            double *w;
            if (!a) goto nomem;
            d->colind = a;
            if (!(w = mmnc_i_realloc(d->val, (size_t)nc, sizeof *w))) goto nomem;
            d->val = w;
            d->ncap = nc;
        }
        d->colind[d->nnz] = (mmnc_int)(j - first);
        d->val[d->nnz++] = v;
    }
    /* the name last, so that a row refused above leaves no name behind */
    if (names) {
        mmnc_int at, before = d->rnames.n;
        int st = mmnc_i_keymap_get(&d->rnames, f->b[0], (size_t)(f->e[0] - f->b[0]), &at, err);
        if (st != MMNC_OK) return st;
        if (at < before)
            return mmnc_i_line_err(r, MMNC_EFORMAT, err, "row name '%s' is given twice (lines %lld and %lld)",
                                   mmnc_i_excerpt(f->b[0], (size_t)(f->e[0] - f->b[0]), ex), d->rline[at], r->line);
        d->rline[d->nrows] = r->line;
    }
    d->nrows++;
    return MMNC_OK;
nomem:
    return mmnc_i_err(err, MMNC_ENOMEM, "out of memory (%lld rows)", (long long)d->nrows + 1);
}

/* MMNC_EFORMAT naming the header line (line) and both fields if two of the
 * n column names (NULL: none given) are the same: the outputs know columns
 * by their names.  Column j is field j + hfield of the header. */
static int check_colnames(const char *path, long long line, char *const *hdr, size_t n, size_t hfield,
                          mmnc_err *err)
{
    mmnc_i_keymap seen = {0};
    size_t *field = mmnc_i_malloc(n ? n : 1, sizeof *field);
    int status = field ? MMNC_OK : mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    char ex[80];
    for (size_t j = 0; j < n && status == MMNC_OK; j++) {
        mmnc_int at, before = seen.n;
        if (!hdr[j]) continue;
        if ((status = mmnc_i_keymap_get(&seen, hdr[j], strlen(hdr[j]), &at, err)) != MMNC_OK) break;
        if (at < before)
            status = mmnc_i_err(err, MMNC_EFORMAT, "%s:%lld: column name '%s' is given twice (fields %zu and %zu)",
                                path, line, mmnc_i_excerpt(hdr[j], strlen(hdr[j]), ex), field[at] + hfield,
                                j + hfield);
        else
            field[at] = j;
    }
    mmnc_i_keymap_free(&seen);
    mmnc_i_free(field);
    return status;
}

/* The reader of MMNC_FMT_DENSE (lines_i.h): the header and the first data
 * line decide the shape (names or not, how many fields), then every line is
 * checked against it, so that an error names the line that breaks the
 * shape. */
int mmnc_i_read_dense(mmnc_i_lreader *r, const mmnc_read_opts *o, mmnc_data **out, mmnc_err *err)
{
    int status = MMNC_OK, sep = o->delim ? (o->delim == ' ' ? SEP_BLANKS : o->delim) : -1;
    int want_header = o->header ? 1 : o->dense_header, names = o->dense_row_names;
    fields f = {0};
    char **hdr = NULL, ex[80];
    size_t nh = 0, F = 0, ncols = 0, hfield = 1; /* column j is field j + hfield of the header */
    long long first_line = 0, hdr_line = 0;
    dbuf d = {0};
    mmnc_data *res = NULL;
    char *s;
    size_t len;

    for (;;) {
        const char *p, *bad = NULL;
        if ((status = mmnc_i_lr_next(r, &s, &len, err)) != MMNC_OK) goto cleanup;
        if (!s) break;
        p = mmnc_i_skip_ws(s);
        if (!*p || mmnc_i_is_comment(p)) continue;
        if (sep < 0) sep = pick_sep(s);
        if ((status = split(s, sep, &f, &bad)) != MMNC_OK) {
            status = status == MMNC_ENOMEM ? mmnc_i_err(err, MMNC_ENOMEM, "out of memory")
                                           : mmnc_i_line_err(r, MMNC_EFORMAT, err, "unbalanced quote at column %zu",
                                                             (size_t)(bad - s) + 1);
            goto cleanup;
        }
        if (!hdr && F == 0 && want_header == 0 && !looks_like_header(&f) && index_line(&f)) {
            /* 0, 1, 2, ... over fractional numbers: pandas' names, not a row */
            int h = later_fraction(r->buf + r->beg, r->buf + r->end, r->eof, sep);
            if (h < 0) {
                status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
                goto cleanup;
            }
            if (h) want_header = 1;
        }
        if (!hdr && F == 0 && want_header >= 0 && (want_header > 0 || looks_like_header(&f))) {
            want_header = -1; /* read */
            hdr_line = r->line;
            nh = f.n;
            MMNC_CALLOC(hdr, nh + 1, err, status);
            for (size_t j = 0; j < nh; j++)
                if (f.b[j] < f.e[j] && !(hdr[j] = dup_range(f.b[j], f.e[j]))) {
                    status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
                    goto cleanup;
                }
            continue;
        }
        if (F == 0) { /* the first data line fixes the shape */
            F = f.n;
            first_line = r->line;
            if (names == 0)
                names = (hdr && (nh + 1 == F || !hdr[0])) || !is_number(f.b[0], f.e[0]) ? 1 : -1;
            ncols = names > 0 ? F - 1 : F;
            if (hdr && nh != F && !(names > 0 && nh + 1 == F)) {
                status = mmnc_i_line_err(r, MMNC_EFORMAT, err,
                                         "%zu fields, but the header line has %zu: it should name every column "
                                         "(%zu)%s", F, nh, ncols, names > 0 ? ", with or without the row-name column" : "");
                goto cleanup;
            }
            if (ncols == 0) {
                status = mmnc_i_line_err(r, MMNC_EFORMAT, err, "a row name and no value: '%s'",
                                         mmnc_i_excerpt(s, len, ex));
                goto cleanup;
            }
            if (hdr && nh == F && names > 0) { /* the header's first field titles the names */
                mmnc_i_free(hdr[0]);
                memmove(hdr, hdr + 1, (nh - 1) * sizeof *hdr);
                hdr[--nh] = NULL;
                hfield = 2;
            }
            if (hdr && (status = check_colnames(r->path, hdr_line, hdr, nh, hfield, err)) != MMNC_OK) goto cleanup;
        } else if (f.n != F) {
            status = mmnc_i_line_err(r, MMNC_EFORMAT, err, "expected %zu fields (as line %lld), got %zu: '%s'", F,
                                     first_line, f.n, mmnc_i_excerpt(s, len, ex));
            goto cleanup;
        }
        if ((status = add_row(r, &d, &f, names > 0, hdr, names > 0, names < 0 && o->dense_row_names == 0, err)) !=
            MMNC_OK)
            goto cleanup;
    }
    if (F == 0) {
        status = mmnc_i_err(err, MMNC_EFORMAT, "%s: no data lines%s", r->path, hdr ? " after the header" : "");
        goto cleanup;
    }
    if (!d.rowptr) MMNC_CALLOC(d.rowptr, 1, err, status);
    if (!d.colind) MMNC_CALLOC(d.colind, 1, err, status);
    if (!d.val) MMNC_CALLOC(d.val, 1, err, status);
    MMNC_CALLOC(res, 1, err, status);
    MMNC_CALLOC(res->A, 1, err, status);
    d.rowptr[d.nrows] = d.nnz;
    res->A->nrows = res->orig_rows = d.nrows;
    res->A->ncols = res->orig_cols = (mmnc_int)ncols;
    res->A->nnz = d.nnz;
    res->A->rowptr = d.rowptr;
    res->A->colind = d.colind;
    res->A->val = d.val;
    d.rowptr = d.colind = NULL;
    d.val = NULL;
    if (names > 0) { /* the map's keys are the names of the rows, in order */
        res->row_names = d.rnames.names;
        d.rnames.names = NULL;
        d.rnames.n = 0;
    }
    if (hdr) {
        res->col_names = hdr;
        hdr = NULL;
    }
    *out = res;
    res = NULL;

cleanup:
    mmnc_data_free(res);
    dbuf_free(&d);
    if (hdr)
        for (size_t j = 0; j < nh; j++) mmnc_i_free(hdr[j]);
    mmnc_i_free(hdr);
    fields_free(&f);
    return status;
}
