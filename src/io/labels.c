/*
 * labels.c -- the label and name files that go with a data set: class
 * labels (one per line, "id label" pairs, a MAT variable or a libsvm
 * file's first fields) and row or column names (one per line, or keyed),
 * made distinct where they serve as ids.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io_i.h"
#include "io/lines_i.h"

/* See mmnc.h.  One read of the file decides its kind (plain labels,
 * "id label" pairs, libsvm, MAT) line by line, then the labels are matched
 * to the data set's rows and numbered.  One function for all kinds, since
 * they share the key maps and the messages that name file and line. */
int mmnc_labels_read(const char *path, const char *mat_var, const mmnc_data *d, mmnc_int *n,
                     mmnc_int **out, mmnc_int *nclasses, mmnc_err *err)
{
    int status = MMNC_OK, mode = 0; /* 1: one label per line (or libsvm), 2: "id label" */
    mmnc_i_lreader r;
    mmnc_i_keymap labels = {0}, ids = {0};
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

    if (mmnc_i_mat_sniff(path)) {
        mmnc_int nv;
        if ((status = mmnc_i_mat_read_vector(path, mat_var ? mat_var : MMNC_DEFAULT_LABELS_VAR, &nv, &vec, err)))
            goto cleanup;
        MMNC_ALLOC(lab, nv, err, status);
        for (i = 0; i < nv; i++) {
            char num[40];
            int k = snprintf(num, sizeof num, "%.17g", vec[i]);
            if ((status = mmnc_i_keymap_get(&labels, num, (size_t)k, &lab[i], err))) goto cleanup;
        }
        nlab = nv;
        mode = 1;
    } else {
        long long blank = 0; /* first blank line, if any, since the last label */
        if ((status = mmnc_i_lr_open(&r, path, err)) != MMNC_OK) goto cleanup;
        for (;;) {
            const char *b[3], *e[3];
            int nf, m;
            mmnc_int id;
            if ((status = mmnc_i_lr_next(&r, &s, &len, err)) != MMNC_OK) goto cleanup;
            if (!s) break;
            if (!*mmnc_i_skip_ws(s)) {
                if (!blank) blank = r.line;
                continue;
            }
            if (mmnc_i_is_comment(mmnc_i_skip_ws(s))) continue;
            /* With one label per line, a blank line would shift every later
             * label to the wrong item: refuse it (trailing blanks are fine). */
            if (blank && mode != 2 && nlab > 0) {
                status = mmnc_i_err(err, MMNC_EFORMAT, "%s:%lld: expected a label, found a blank line", path, blank);
                goto cleanup;
            }
            blank = 0;
            nf = mmnc_i_split_fields(s, 0, 3, b, e);
            /* a libsvm line gives its first token, like a plain label */
            m = nf == 1 || (nf >= 2 && memchr(b[1], ':', (size_t)(e[1] - b[1]))) ? 1
                : nf == 2                                                        ? 2
                                                                                 : 0;
            if (!m || (mode && m != mode)) {
                status = mmnc_i_line_err(&r, MMNC_EFORMAT, err, "expected %s, found '%s'",
                                  mode == 1   ? "one label (or a libsvm line)"
                                  : mode == 2 ? "'id label'"
                                              : "'label' or 'id label'",
                                  mmnc_i_excerpt(s, len, ex));
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
                if ((status = mmnc_i_keymap_get(&ids, b[0], (size_t)(e[0] - b[0]), &id, err)))
                    goto cleanup;
                if (id != nlab) {
                    status = mmnc_i_line_err(&r, MMNC_EFORMAT, err, "duplicate id '%s'",
                                      mmnc_i_excerpt(b[0], (size_t)(e[0] - b[0]), ex));
                    goto cleanup;
                }
                status = mmnc_i_keymap_get(&labels, b[1], (size_t)(e[1] - b[1]), &lab[nlab], err);
            } else {
                status = mmnc_i_keymap_get(&labels, b[0], (size_t)(e[0] - b[0]), &lab[nlab], err);
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
            mmnc_int k = mmnc_i_keymap_find(&ids, rid, rl);
            if (k < 0) {
                status = mmnc_i_err(err, MMNC_EFORMAT, "%s: no label for row id '%s'", path,
                                    mmnc_i_excerpt(rid, rl, ex));
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
            mmnc_int o = d->row_orig ? d->row_orig[i] : i, num;
            const char *rid = d->row_names ? d->row_names[i] : NULL;
            if (o < 0 || o >= nlab) {
                status = mmnc_i_err(err, MMNC_EINVAL, "mmnc_labels_read: bad row_orig[%lld]",
                                    (long long)i);
                goto cleanup;
            }
            /* Line k is the k-th row as read; a row whose id is another
             * number (triplet keys in their order of first appearance)
             * would take the label of line k for id k, as mmnc eval reads
             * such a file, on one reading and not on the other: refuse. */
            if (rid && mmnc_i_parse_index(rid, rid + strlen(rid), &num) && num != o + 1) {
                status = mmnc_i_err(err, MMNC_EFORMAT,
                                    "%s: one label per line gives the rows by their place as read, but row "
                                    "%lld as read has the id '%s', a number that is not its place: give "
                                    "'id label' lines",
                                    path, (long long)o + 1, mmnc_i_excerpt(rid, strlen(rid), ex));
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
    mmnc_i_lr_close(&r);
    mmnc_i_keymap_free(&labels);
    mmnc_i_keymap_free(&ids);
    mmnc_i_free(lab);
    mmnc_i_free(res);
    mmnc_i_free(remap);
    mmnc_i_free(vec);
    return status;
}

/* An integer filling [b, e) exactly, with an optional sign; 0 if not. */
static int parse_signed(const char *b, const char *e, long long *x)
{
    mmnc_int v;
    int neg = b < e && (*b == '-' || *b == '+') ? *b++ == '-' : 0;
    if (!mmnc_i_parse_index(b, e, &v)) return 0;
    *x = neg ? -(long long)v : (long long)v;
    return 1;
}

/* See mmnc.h.  The rows' ids go into a key map first, so that each line is
 * one look-up; the ids of dropped rows are known by number alone (d keeps
 * no name of a row it dropped). */
int mmnc_fixed_labels_read(const char *path, const mmnc_data *d, mmnc_int k, mmnc_int **out,
                           mmnc_int *nfixed, mmnc_int *nskipped, mmnc_err *err)
{
    int status = MMNC_OK, first = 1;
    mmnc_i_lreader r;
    mmnc_i_keymap ids = {0}, skipped = {0};
    mmnc_int *res = NULL, ny, nfix = 0, i;
    char *s, ex[80];
    size_t len;

    memset(&r, 0, sizeof r);
    if (!path || !d || !out || !nfixed) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_fixed_labels_read: NULL argument");
    *out = NULL;
    *nfixed = 0;
    if (nskipped) *nskipped = 0;
    if (!d->A) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_fixed_labels_read: data has no matrix");
    if (k < 1) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_fixed_labels_read: k = %lld, expected >= 1", (long long)k);
    ny = d->A->nrows;
    MMNC_ALLOC(res, ny ? ny : 1, err, status);
    for (i = 0; i < ny; i++) {
        char buf[32];
        const char *rid = mmnc_data_row_id(d, i, buf);
        mmnc_int at;
        res[i] = -1;
        if ((status = mmnc_i_keymap_get(&ids, rid, strlen(rid), &at, err))) goto cleanup;
        if (at != i) {
            status = mmnc_i_err(err, MMNC_EINVAL, "%s: rows %lld and %lld of the data have the same id '%s', so an "
                                "id cannot say which of them a line labels", path, (long long)at + 1,
                                (long long)i + 1, mmnc_i_excerpt(rid, strlen(rid), ex));
            goto cleanup;
        }
    }
    if ((status = mmnc_i_lr_open(&r, path, err)) != MMNC_OK) goto cleanup;
    for (;;) {
        const char *b[2], *e[2], *t;
        long long z;
        mmnc_int row, orig;
        double num;
        int nf;
        if ((status = mmnc_i_lr_next(&r, &s, &len, err)) != MMNC_OK) goto cleanup;
        if (!s) break;
        t = mmnc_i_skip_ws(s);
        if (!*t || *t == '#') continue;
        /* tabs, as in labels.tsv, let an id hold spaces; else any blanks */
        nf = mmnc_i_split_fields(s, memchr(s, '\t', len) ? '\t' : 0, 2, b, e);
        if (nf < 2 || b[1] == e[1]) {
            status = mmnc_i_line_err(&r, MMNC_EFORMAT, err, "expected 'ID CLUSTER' (a row id, a cluster 1..%lld), "
                                     "found '%s'", (long long)k, mmnc_i_excerpt(s, len, ex));
            goto cleanup;
        }
        if (first && !mmnc_i_parse_double(b[1], e[1], &num)) { /* a header line */
            first = 0;
            continue;
        }
        first = 0;
        if (!parse_signed(b[1], e[1], &z)) {
            status = mmnc_i_line_err(&r, MMNC_EFORMAT, err, "expected a cluster, an integer 1..%lld, found '%s'",
                                     (long long)k, mmnc_i_excerpt(b[1], (size_t)(e[1] - b[1]), ex));
            goto cleanup;
        }
        if (z < 1 || z > k) {
            status = mmnc_i_line_err(&r, MMNC_EFORMAT, err, "cluster %lld is outside 1..%lld (k); leave out the "
                                     "line of a row that is free", z, (long long)k);
            goto cleanup;
        }
        row = mmnc_i_keymap_find(&ids, b[0], (size_t)(e[0] - b[0]));
        if (row >= 0) {
            if (res[row] >= 0) {
                status = mmnc_i_line_err(&r, MMNC_EFORMAT, err, "duplicate id '%s'",
                                         mmnc_i_excerpt(b[0], (size_t)(e[0] - b[0]), ex));
                goto cleanup;
            }
            res[row] = (mmnc_int)(z - 1);
            nfix++;
            continue;
        }
        /* not a row of d: a dropped one if it is an original row's number */
        if (!d->row_names && mmnc_i_parse_index(b[0], e[0], &orig) && orig >= 1 && orig <= d->orig_rows) {
            mmnc_int before = skipped.n, at;
            if ((status = mmnc_i_keymap_get(&skipped, b[0], (size_t)(e[0] - b[0]), &at, err))) goto cleanup;
            if (at < before) {
                status = mmnc_i_line_err(&r, MMNC_EFORMAT, err, "duplicate id '%s'",
                                         mmnc_i_excerpt(b[0], (size_t)(e[0] - b[0]), ex));
                goto cleanup;
            }
            continue;
        }
        status = mmnc_i_line_err(&r, MMNC_EFORMAT, err, "expected the id of a row of the data, found '%s'%s",
                                 mmnc_i_excerpt(b[0], (size_t)(e[0] - b[0]), ex),
                                 d->row_names ? " (rows are known by their names; a row dropped as empty is not known)"
                                              : "");
        goto cleanup;
    }
    if (nfix == 0) {
        status = mmnc_i_err(err, MMNC_EFORMAT, "%s: no row labelled%s", path,
                            skipped.n ? " (the rows it names were all dropped as empty)" : "");
        goto cleanup;
    }
    if (nfix == ny) {
        status = mmnc_i_err(err, MMNC_EFORMAT, "%s: all %lld rows are labelled: nothing left to cluster", path,
                            (long long)ny);
        goto cleanup;
    }
    *out = res;
    res = NULL;
    *nfixed = nfix;
    if (nskipped) *nskipped = skipped.n;

cleanup:
    mmnc_i_lr_close(&r);
    mmnc_i_keymap_free(&ids);
    mmnc_i_keymap_free(&skipped);
    mmnc_i_free(res);
    return status;
}

/* 1 if s[0..n) has the byte structure of UTF-8: lead bytes C2..F4, each
 * followed by its continuation bytes. */
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
    mmnc_i_lreader r;
    char **names = NULL, *s, ex[80];
    mmnc_int cnt = 0, cap = 0;
    long long blank = 0; /* first blank line since the last name, if any */
    size_t len;

    memset(&r, 0, sizeof r);
    if (!path || !n || !out) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_names_read: NULL argument");
    *n = 0;
    *out = NULL;
    if ((status = mmnc_i_lr_open(&r, path, err)) != MMNC_OK) goto cleanup;
    for (;;) {
        const char *nb = NULL, *ne = NULL;
        mmnc_int slot;
        if ((status = mmnc_i_lr_next(&r, &s, &len, err)) != MMNC_OK) goto cleanup;
        if (!s) break;
        if (keyed) {
            const char *sep, *q;
            mmnc_int id;
            if (!*mmnc_i_skip_ws(s)) continue;
            for (sep = s; *sep && *sep != '|' && *sep != '\t'; sep++) {}
            q = mmnc_i_skip_ws(s);
            {
                const char *ie = sep;
                while (ie > q && MMNC_I_IS_WS(ie[-1])) ie--;
                if (!*sep || !mmnc_i_parse_index(q, ie, &id) || id < 1 || id > MAX_NAME_ID) {
                    status = mmnc_i_line_err(&r, MMNC_EFORMAT, err,
                                      "expected 'id|name' or 'id<TAB>name' with a numeric id "
                                      "from 1, found '%s'", mmnc_i_excerpt(s, len, ex));
                    goto cleanup;
                }
            }
            /* names is indexed by id: bound the ids without a name, as
             * the rows a Matrix Market size line claims */
            if (id - 1 - cnt > MMNC_MAX_EMPTY_ROWS) {
                status = mmnc_i_line_err(&r, MMNC_EFORMAT, err,
                                         "id %lld is more than %lld (MMNC_MAX_EMPTY_ROWS) beyond the "
                                         "largest id so far (%lld)", (long long)id,
                                         (long long)MMNC_MAX_EMPTY_ROWS, (long long)cnt);
                goto cleanup;
            }
            nb = sep + 1;
            for (ne = nb; *ne && *ne != *sep; ne++) {}
            slot = id - 1;
            if (mmnc_i_skip_ws(nb) >= ne) {
                status = mmnc_i_line_err(&r, MMNC_EFORMAT, err, "empty name for id %lld", (long long)id);
                goto cleanup;
            }
        } else {
            /* Names go to the rows or columns in order: a blank line would
             * give each later one its predecessor's name.  Refuse it, unless
             * only blank lines follow (an editor's extra newline). */
            if (!*mmnc_i_skip_ws(s)) {
                if (!blank) blank = r.line;
                continue;
            }
            if (blank) {
                status = mmnc_i_err(err, MMNC_EFORMAT, "%s:%lld: empty name: expected one name a line (a blank "
                                    "line would shift the names after it; only the end of the file may be blank)",
                                    path, blank);
                goto cleanup;
            }
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
            status = mmnc_i_line_err(&r, MMNC_EFORMAT, err, "duplicate id %lld", (long long)slot + 1);
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
    mmnc_i_lr_close(&r);
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

/* See mmnc.h.  Every name as given goes into one key map first, so that a
 * suffix is never one of them; a suffix given to a repeat joins the map, so
 * that no later one is the same.  next[c] is the number the next repeat of
 * the c-th distinct name tries first, so each NAME#k is tried once; and
 * since the digits after the last '#' tell NAME and k apart, a NAME#k can
 * be taken only by a name as given: at most n numbers are passed over in
 * all, however the names and their suffixes collide. */
int mmnc_names_unique(mmnc_int n, char **names, mmnc_int *renamed, mmnc_int first[2], mmnc_err *err)
{
    int status = MMNC_OK;
    mmnc_i_keymap taken = {0};
    mmnc_int *key = NULL, *at = NULL, *next = NULL, cnt = 0, i;
    char **fresh = NULL;

    if (renamed) *renamed = 0;
    if (first) first[0] = first[1] = -1;
    if (n < 0 || (!names && n > 0)) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_names_unique: n < 0 or names NULL");
    if (n == 0) return MMNC_OK;
    MMNC_ALLOC(key, n, err, status);
    MMNC_ALLOC(at, n, err, status);
    MMNC_ALLOC(next, n, err, status);
    MMNC_CALLOC(fresh, n, err, status);
    for (i = 0; i < n; i++) {
        mmnc_int before = taken.n;
        if (!names[i]) continue;
        if ((status = mmnc_i_keymap_get(&taken, names[i], strlen(names[i]), &key[i], err)) != MMNC_OK) goto cleanup;
        if (taken.n > before) { /* its first appearance */
            at[key[i]] = i;
            next[key[i]] = 2;
        }
    }
    for (i = 0; i < n; i++) {
        size_t len;
        mmnc_int c, k, got;
        if (!names[i] || at[key[i]] == i) continue;
        c = key[i];
        len = strlen(names[i]);
        if (!(fresh[i] = mmnc_i_malloc(len + 24, 1))) {
            status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
            goto cleanup;
        }
        for (k = next[c];; k++) {
            snprintf(fresh[i], len + 24, "%s#%lld", names[i], (long long)k);
            if (mmnc_i_keymap_find(&taken, fresh[i], strlen(fresh[i])) < 0) break;
        }
        next[c] = k + 1;
        if ((status = mmnc_i_keymap_get(&taken, fresh[i], strlen(fresh[i]), &got, err)) != MMNC_OK) goto cleanup;
        if (cnt++ == 0 && first) {
            first[0] = i;
            first[1] = at[c];
        }
    }
    /* all or nothing: the array changes only once every new name is made */
    for (i = 0; i < n; i++)
        if (fresh[i]) {
            mmnc_i_free(names[i]);
            names[i] = fresh[i];
            fresh[i] = NULL;
        }
    if (renamed) *renamed = cnt;

cleanup:
    if (status != MMNC_OK && first) first[0] = first[1] = -1;
    if (fresh)
        for (i = 0; i < n; i++) mmnc_i_free(fresh[i]);
    mmnc_i_free(fresh);
    mmnc_i_free(key);
    mmnc_i_free(at);
    mmnc_i_free(next);
    mmnc_i_keymap_free(&taken);
    return status;
}
