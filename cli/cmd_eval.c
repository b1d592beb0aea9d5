/*
 * cmd_eval.c -- `mmnc eval`: score a clustering against reference labels.
 *
 *   mmnc eval [options] PRED TRUTH
 *
 * PRED is the labels file of `mmnc cluster` (a header line
 * "id<TAB>cluster<TAB>probability", then one line per item).  TRUTH is one
 * label per line (the k-th label is the item with id "k"), "id label" pairs, or a
 * variable of a .mat file.  Items are joined by id.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static const char *CMD = "eval";

static void usage(FILE *fp)
{
    fprintf(fp,
            "Usage: mmnc eval [options] PRED TRUTH\n"
            "\n"
            "Score the clustering PRED (the labels file written by 'mmnc cluster') against\n"
            "the reference labels TRUTH, joined by item id.  TRUTH is one label per line\n"
            "(the k-th label belongs to the item with id k, as in Matrix Market files;\n"
            "lines starting with # or %% are skipped, blank lines are errors), or lines of\n"
            "'id label' pairs (detected when every line has two fields), or a variable of\n"
            "a MATLAB .mat file.  Labels are arbitrary strings or numbers.  PRED and\n"
            "TRUTH (text) may be gzip or xz files, pipes, or - for standard input.\n"
            "\n"
            "Reported: ACC (best one-to-one matching of clusters to classes), NMI\n"
            "(arithmetic-mean normalisation), ARI, purity, and the paper's Reuters\n"
            "measures against the K largest classes (K = number of clusters): their\n"
            "coverage, the overall accuracy (matched items / all items) and the\n"
            "k-accuracy (matched items / items in those classes).\n"
            "\n"
            "Options:\n"
            "  --mat-var NAME   variable holding the labels in a .mat TRUTH (default " MMNC_DEFAULT_LABELS_VAR ")\n"
            "  --json           print a JSON object instead of the table\n"
            "  -h, --help       show this help and exit\n"
            "\n"
            "Items of TRUTH without a prediction are excluded (their number and the first\n"
            "ids are printed on stderr).  An item of PRED with cluster -1 (unassigned:\n"
            "'mmnc predict' gives it to a row with no known column) is refused: it has no\n"
            "cluster to be scored in.\n"
            "Exit status: 0 success, 1 bad input, 2 usage error.\n");
}

/* ---- a string -> index hash map ----------------------------------------- */

typedef struct strmap {
    char **key; /* borrowed */
    long long *val;
    size_t cap, size;
} strmap;

static size_t sm_slot(const strmap *m, const char *key)
{
    size_t s = (size_t)(cli_hash(key, strlen(key)) & (m->cap - 1));
    while (m->key[s] && strcmp(m->key[s], key) != 0) s = (s + 1) & (m->cap - 1);
    return s;
}

static void sm_free(strmap *m)
{
    free(m->key);
    free(m->val);
    memset(m, 0, sizeof *m);
}

/* The value of key, or -1. */
static long long sm_get(const strmap *m, const char *key)
{
    size_t s;
    if (m->cap == 0) return -1;
    s = sm_slot(m, key);
    return m->key[s] ? m->val[s] : -1;
}

/* Insert key (not copied) with val unless present; *found gets the value
 * already stored or -1.  Returns 0, or -1 when out of memory. */
static int sm_put(strmap *m, char *key, long long val, long long *found)
{
    size_t s;
    if (2 * (m->size + 1) > m->cap) {
        strmap g;
        g.cap = m->cap ? 2 * m->cap : 64;
        g.size = m->size;
        g.key = calloc(g.cap, sizeof *g.key);
        g.val = malloc(g.cap * sizeof *g.val);
        if (!g.key || !g.val) {
            free(g.key);
            free(g.val);
            return -1;
        }
        for (size_t t = 0; t < m->cap; t++) {
            if (!m->key[t]) continue;
            size_t r = sm_slot(&g, m->key[t]);
            g.key[r] = m->key[t];
            g.val[r] = m->val[t];
        }
        sm_free(m);
        *m = g;
    }
    s = sm_slot(m, key);
    if (m->key[s]) {
        *found = m->val[s];
        return 0;
    }
    *found = -1;
    m->key[s] = key;
    m->val[s] = val;
    m->size++;
    return 0;
}

/* ---- growable arrays and line reading ------------------------------------ */

typedef struct strvec {
    char **s;
    long long n, cap;
} strvec;

static int sv_push(strvec *v, char *s)
{
    if (v->n == v->cap) {
        long long cap = v->cap ? 2 * v->cap : 256;
        char **t = realloc(v->s, (size_t)cap * sizeof *t);
        if (!t) return -1;
        v->s = t;
        v->cap = cap;
    }
    v->s[v->n++] = s;
    return 0;
}

static void sv_free(strvec *v)
{
    for (long long i = 0; i < v->n; i++) free(v->s[i]);
    free(v->s);
    memset(v, 0, sizeof *v);
}

typedef struct intvec {
    mmnc_int *x;
    long long n, cap;
} intvec;

static int iv_push(intvec *v, mmnc_int x)
{
    if (v->n == v->cap) {
        long long cap = v->cap ? 2 * v->cap : 256;
        mmnc_int *t = realloc(v->x, (size_t)cap * sizeof *t);
        if (!t) return -1;
        v->x = t;
        v->cap = cap;
    }
    v->x[v->n++] = x;
    return 0;
}

/* Read one line without its "\n" or "\r\n"; returns its length or -1 at end
 * of file (or on a read error: check ferror). */
static long long read_line(FILE *fp, char **buf, size_t *cap)
{
    ssize_t len = getline(buf, cap, fp);
    if (len < 0) return -1;
    if (len > 0 && (*buf)[len - 1] == '\n') (*buf)[--len] = '\0';
    if (len > 0 && (*buf)[len - 1] == '\r') (*buf)[--len] = '\0';
    return (long long)len;
}

/* The whole of path (a file, a pipe, "-", gzip or xz) read through one
 * open, as a stream over memory that starts after a byte-order mark: *buf
 * (mmnc_free it after fclose) keeps the bytes.  NULL with the message
 * printed on failure. */
static FILE *open_whole(const char *cmd, const char *path, char **buf, size_t *len)
{
    mmnc_err err = {0, ""};
    FILE *fp;
    size_t bom;
    *buf = NULL;
    if (mmnc_file_read_all(path, buf, len, &err) != MMNC_OK) {
        cli_lib_fail(cmd, &err);
        return NULL;
    }
    bom = cli_bom_len(*buf, *len);
    /* fmemopen of 0 bytes is not portable: an empty stream is /dev/null */
    fp = *len > bom ? fmemopen(*buf + bom, *len - bom, "rb") : fopen("/dev/null", "rb");
    if (!fp) {
        cli_fail(cmd, "%s: %s", path, strerror(errno));
        mmnc_free(*buf);
        *buf = NULL;
    }
    return fp;
}

/* ---- PRED ------------------------------------------------------------------ */

typedef struct pred_file {
    strvec id;      /* item ids, owned */
    intvec cluster; /* 1-based cluster numbers */
    strmap index;   /* id -> item */
} pred_file;

static void pred_free(pred_file *p)
{
    sm_free(&p->index);
    sv_free(&p->id);
    free(p->cluster.x);
    memset(p, 0, sizeof *p);
}

static int read_pred(const char *path, pred_file *p)
{
    static const char header[] = "id\tcluster\tprobability";
    char *line = NULL, *whole;
    size_t cap = 0, size;
    long long lineno = 0, len;
    int rc = CLI_EXIT_OK;
    FILE *fp = open_whole(CMD, path, &whole, &size);

    if (!fp) return CLI_EXIT_FAIL;
    while ((len = read_line(fp, &line, &cap)) >= 0) {
        char *f2, *f3, *end, *id;
        long long k, first;
        double prob;
        lineno++;
        if (lineno == 1) {
            if (strcmp(line, header) != 0) {
                rc = cli_fail(CMD,
                              "%s:1: expected the header 'id<TAB>cluster<TAB>probability' "
                              "of a labels file written by 'mmnc cluster'",
                              path);
                goto cleanup;
            }
            continue;
        }
        if ((size_t)len != strlen(line)) {
            rc = cli_fail(CMD, "%s:%lld: unexpected NUL byte", path, lineno);
            goto cleanup;
        }
        f2 = strchr(line, '\t');
        f3 = f2 ? strchr(f2 + 1, '\t') : NULL;
        if (!f2 || !f3 || strchr(f3 + 1, '\t') || f2 == line) {
            rc = cli_fail(CMD, "%s:%lld: expected 'id<TAB>cluster<TAB>probability'", path,
                          lineno);
            goto cleanup;
        }
        *f2++ = '\0';
        *f3++ = '\0';
        errno = 0;
        k = strtoll(f2, &end, 10);
        if (k == -1 && end != f2 && *end == '\0') {
            /* An unassigned row ('mmnc predict' gives -1 to a row with no
             * known column) is no cluster: scoring it as one would count it
             * right when it is alone in its class. */
            rc = cli_fail(CMD,
                          "%s:%lld: item '%s' has cluster -1 (unassigned): it has no cluster to "
                          "be scored in; score the assigned items explicitly (e.g. "
                          "awk -F'\\t' '$2 != -1' %s > assigned.tsv) and report how many were "
                          "left out",
                          path, lineno, line, path);
            goto cleanup;
        }
        if (end == f2 || *end != '\0' || errno == ERANGE || k < 1) {
            rc = cli_fail(CMD, "%s:%lld: expected a cluster number >= 1, got '%s'", path,
                          lineno, f2);
            goto cleanup;
        }
        if (mmnc_number_parse(f3, strlen(f3), &prob, NULL) != MMNC_OK || !(prob >= 0.0 && prob <= 1.0)) {
            rc = cli_fail(CMD, "%s:%lld: expected a probability in [0, 1] (a decimal number), got '%s'", path,
                          lineno, f3);
            goto cleanup;
        }
        id = strdup(line);
        if (!id || sv_push(&p->id, id) != 0) {
            free(id);
            rc = cli_fail(CMD, "out of memory");
            goto cleanup;
        }
        if (iv_push(&p->cluster, (mmnc_int)k) != 0 ||
            sm_put(&p->index, id, p->id.n - 1, &first) != 0) {
            rc = cli_fail(CMD, "out of memory");
            goto cleanup;
        }
        if (first >= 0) {
            /* Items are on lines 2, 3, ...: item j on line j + 2. */
            rc = cli_fail(CMD, "%s:%lld: duplicate id '%s' (first on line %lld)", path, lineno,
                          id, first + 2);
            goto cleanup;
        }
    }
    if (ferror(fp)) {
        rc = cli_fail(CMD, "%s: read error: %s", path, strerror(errno));
        goto cleanup;
    }
    if (lineno == 0) {
        rc = cli_fail(CMD, "%s:1: expected the header 'id<TAB>cluster<TAB>probability', got an "
                      "empty file", path);
        goto cleanup;
    }
    if (p->id.n == 0) {
        rc = cli_fail(CMD, "%s:2: expected 'id<TAB>cluster<TAB>probability', got the end of the "
                      "file (no items)", path);
        goto cleanup;
    }
cleanup:
    free(line);
    fclose(fp);
    mmnc_free(whole);
    return rc;
}

/* ---- TRUTH --------------------------------------------------------------- */

typedef struct truth_file {
    strvec id;     /* pairs: item ids (owned); empty for one label per line */
    intvec label;  /* class of each item, 0-based */
    strmap ids;    /* pairs: id -> item, for duplicate detection */
    strvec names;  /* pairs: label strings (owned) */
    strmap labels; /* pairs: label string -> class */
} truth_file;

static void truth_free(truth_file *t)
{
    sm_free(&t->ids);
    sm_free(&t->labels);
    sv_free(&t->id);
    sv_free(&t->names);
    free(t->label.x);
    memset(t, 0, sizeof *t);
}

/* Split line into whitespace-separated fields; at most max are stored, the
 * count of all fields is returned. */
static int split_ws(char *line, char **field, int max)
{
    int nf = 0;
    char *s = line;
    for (;;) {
        while (*s == ' ' || *s == '\t') s++;
        if (!*s) break;
        if (nf < max) field[nf] = s;
        nf++;
        while (*s && *s != ' ' && *s != '\t') s++;
        if (*s) *s++ = '\0';
    }
    return nf;
}

/* The class of the label string name (numbered in order of first
 * appearance), added if new.  0 or an exit status. */
static int class_of(const char *cmd, truth_file *t, const char *label, mmnc_int *cls)
{
    long long c = sm_get(&t->labels, label), first;
    char *name;
    if (c < 0) {
        c = t->names.n;
        name = strdup(label);
        if (!name || sv_push(&t->names, name) != 0) {
            free(name);
            return cli_fail(cmd, "out of memory");
        }
        if (sm_put(&t->labels, name, c, &first) != 0) return cli_fail(cmd, "out of memory");
    }
    *cls = (mmnc_int)c;
    return CLI_EXIT_OK;
}

/* One label per line (or a libsvm line, whose first field is its label):
 * the second pass over a TRUTH that is not "id label" pairs; path: the
 * file as the messages name it. */
static int read_truth_single(const char *cmd, FILE *fp, const char *path, truth_file *t)
{
    char *line = NULL, *field[2];
    size_t cap = 0;
    long long lineno = 0, len;
    int rc = CLI_EXIT_OK, nf;
    mmnc_int cls;
    rewind(fp);
    while ((len = read_line(fp, &line, &cap)) >= 0) {
        char *p = line;
        lineno++;
        while (*p == ' ' || *p == '\t') p++;
        if (!*p || *p == '#' || *p == '%') continue; /* blank lines were checked by the first pass */
        if ((size_t)len != strlen(line)) {
            rc = cli_fail(cmd, "%s:%lld: unexpected NUL byte", path, lineno);
            break;
        }
        nf = split_ws(p, field, 2);
        if (nf > 1 && !strchr(field[1], ':')) {
            rc = cli_fail(cmd, "%s:%lld: expected one label (or a libsvm line), found %d fields", path, lineno, nf);
            break;
        }
        if ((rc = class_of(cmd, t, field[0], &cls)) != CLI_EXIT_OK) break;
        if (iv_push(&t->label, cls) != 0) {
            rc = cli_fail(cmd, "out of memory");
            break;
        }
    }
    if (rc == CLI_EXIT_OK && t->label.n == 0) rc = cli_fail(cmd, "%s: no labels found", path);
    free(line);
    return rc;
}

/*
 * Read TRUTH through one open (a file, a pipe, "-", gzip or xz).  When
 * every line (ignoring comment lines that start with '#' or '%', as the
 * library does, and blank lines) has exactly two fields, it is "id label"
 * pairs: *kind = 2, ids in t->id.  Otherwise it is one label per line (or
 * libsvm): *kind = 1, the k-th label belongs to item k, so a blank line
 * before the last label is an error rather than silently shifting every
 * later item.  A MAT file (*kind = 0) is left to the library.  t->label
 * gets the classes.  A line whose second field holds a ':' is a libsvm
 * line, as mmnc_labels_read reads it ("label idx:val"), not a pair, so
 * that eval and cluster --truth read a TRUTH alike.  The
 * messages name the file `path`, or `shown` when not NULL (the user's name
 * of a copy read here: cli_truth_labels).  Returns 0 or an exit status.
 */
static int read_truth(const char *cmd, const char *path, const char *shown, truth_file *t, int *kind)
{
    char *line = NULL, *field[2], *whole;
    size_t cap = 0, size;
    long long lineno = 0, len, blank = 0, nonblank = 0;
    int rc = CLI_EXIT_OK, pairs = 1;
    FILE *fp = open_whole(cmd, path, &whole, &size);

    if (shown) path = shown; /* from here on, path is what the messages say */
    *kind = 0;
    if (!fp) return CLI_EXIT_FAIL;
    if (size >= 6 && memcmp(whole, "MATLAB", 6) == 0) goto cleanup;
    while ((len = read_line(fp, &line, &cap)) >= 0) {
        char *id = NULL, *p = line;
        long long first;
        mmnc_int cls;
        int nf;
        lineno++;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '#' || *p == '%') continue;
        if (!*p && (size_t)len == strlen(line)) {
            if (!blank) blank = lineno;
            continue;
        }
        if (blank && !pairs) {
            rc = cli_fail(cmd, "%s:%lld: expected a label, found a blank line (the k-th label "
                          "belongs to the item with id k)", path, blank);
            goto cleanup;
        }
        if (!pairs) continue;
        nonblank++;
        nf = (size_t)len == strlen(line) ? split_ws(line, field, 2) : 0;
        if (nf != 2 || strchr(field[1], ':')) {
            pairs = 0;
            truth_free(t);
            if (blank) {
                rc = cli_fail(cmd, "%s:%lld: expected a label, found a blank line (the k-th "
                              "label belongs to the item with id k)", path, blank);
                goto cleanup;
            }
            continue;
        }
        id = strdup(field[0]);
        if (!id || sv_push(&t->id, id) != 0) {
            free(id);
            rc = cli_fail(cmd, "out of memory");
            goto cleanup;
        }
        if (sm_put(&t->ids, id, lineno, &first) != 0) {
            rc = cli_fail(cmd, "out of memory");
            goto cleanup;
        }
        if (first >= 0) {
            rc = cli_fail(cmd, "%s:%lld: duplicate id '%s' (first on line %lld)", path, lineno,
                          id, first);
            goto cleanup;
        }
        if ((rc = class_of(cmd, t, field[1], &cls)) != CLI_EXIT_OK) goto cleanup;
        if (iv_push(&t->label, cls) != 0) {
            rc = cli_fail(cmd, "out of memory");
            goto cleanup;
        }
    }
    if (pairs && nonblank > 0) *kind = 2;
    else if ((rc = read_truth_single(cmd, fp, path, t)) == CLI_EXIT_OK) *kind = 1;
cleanup:
    if (rc != CLI_EXIT_OK || *kind == 0) truth_free(t);
    free(line);
    fclose(fp);
    mmnc_free(whole);
    return rc;
}

/* ---- items of TRUTH left out ----------------------------------------------- */

#define EXCLUDED_SHOWN 3 /* ids named in the warning */

/* The items of TRUTH that are not scored: how many, and the first ids. */
typedef struct excluded {
    long long n;
    int shown;
    char id[EXCLUDED_SHOWN][48];
} excluded;

static void excluded_add(excluded *e, const char *id)
{
    if (e->shown < EXCLUDED_SHOWN) {
        char *d = e->id[e->shown++];
        size_t len = strlen(id), max = sizeof e->id[0] - 1;
        if (len > max) snprintf(d, max + 1, "%.*s...", (int)(max - 3), id);
        else memcpy(d, id, len + 1);
    }
    e->n++;
}

/* "mmnc CMD: N of TOTAL items of PATH WHY and are excluded: 'a', 'b', 'c'
 * and N - 3 more" on stderr: the one warning of mmnc eval and mmnc cluster
 * --truth for items of TRUTH that cannot be scored. */
static void excluded_warn(const char *cmd, const excluded *e, long long total, const char *path, const char *why)
{
    if (e->n == 0) return;
    fprintf(stderr, "mmnc %s: %lld of %lld items of %s %s and are excluded: ", cmd, e->n, total, path, why);
    for (int i = 0; i < e->shown; i++) {
        fputs(i == 0 ? "" : i + 1 < e->shown || e->n > e->shown ? ", " : " and ", stderr);
        fputc('\'', stderr);
        cli_tsv_field(stderr, e->id[i]); /* no line break from a quoted id */
        fputc('\'', stderr);
    }
    if (e->n > e->shown) fprintf(stderr, " and %lld more", e->n - e->shown);
    fputc('\n', stderr);
}

/* ---- TRUTH of mmnc cluster --------------------------------------------------- */

/* The items of an "id label" TRUTH (read from path, named `shown`) that name
 * no row of d, which mmnc_labels_read passes over, said on stderr as mmnc eval
 * says the items without a prediction: how many, and the first ids.  The
 * other kinds of TRUTH (a label for every row) are not checked.  0 or an
 * exit status. */
static int unknown_ids(const char *cmd, const char *path, const char *shown, const mmnc_data *d)
{
    truth_file t = {0};
    strvec rows = {0};
    strmap known = {0};
    excluded e = {0};
    int kind = 0, rc;
    long long found;
    if ((rc = read_truth(cmd, path, shown, &t, &kind)) != CLI_EXIT_OK || kind != 2) goto cleanup;
    for (mmnc_int y = 0; y < d->A->nrows; y++) {
        char buf[32], *id = strdup(mmnc_data_row_id(d, y, buf));
        if (!id || sv_push(&rows, id) != 0) {
            free(id);
            rc = cli_fail(cmd, "out of memory");
            goto cleanup;
        }
        if (sm_put(&known, id, y, &found) != 0) { /* rows owns id */
            rc = cli_fail(cmd, "out of memory");
            goto cleanup;
        }
    }
    for (long long i = 0; i < t.id.n; i++)
        if (sm_get(&known, t.id.s[i]) < 0) excluded_add(&e, t.id.s[i]);
    excluded_warn(cmd, &e, t.id.n, shown, "name no row of nonzero mass");
cleanup:
    sm_free(&known);
    sv_free(&rows);
    truth_free(&t);
    return rc;
}

/* A TRUTH that cannot be read twice (standard input, a pipe, a FIFO, a
 * process substitution) read once, its text (decompressed) copied to a
 * temporary file of $TMPDIR (or /tmp), *tmp (malloc'd), which both reads of
 * cli_truth_labels take; *tmp NULL for a regular file, read as it is.  The
 * copy's name is registered for the signals (cli_tmp_name); the caller
 * removes it (the name stays registered: unlinking a name that is gone is
 * harmless).  0 or an exit status. */
static int truth_once(const char *cmd, const char *path, char **tmp)
{
    mmnc_err err = {0, ""};
    const char *dir = getenv("TMPDIR");
    struct stat st;
    char *text = NULL;
    size_t len = 0, done = 0;
    int fd, e = 0, rc = CLI_EXIT_OK;
    *tmp = NULL;
    if (strcmp(path, "-") && stat(path, &st) == 0 && S_ISREG(st.st_mode)) return CLI_EXIT_OK;
    if (mmnc_file_read_all(path, &text, &len, &err) != MMNC_OK) return cli_lib_fail(cmd, &err);
    if (!dir || !*dir) dir = "/tmp";
    if (!(*tmp = malloc(strlen(dir) + sizeof "/mmnc-truth-XXXXXX"))) {
        mmnc_free(text);
        return cli_fail(cmd, "out of memory");
    }
    sprintf(*tmp, "%s/mmnc-truth-XXXXXX", dir);
    cli_tmp_hold(); /* no signal between the file's making and its registration */
    if ((fd = mkstemp(*tmp)) >= 0) cli_tmp_name(*tmp, 0);
    else e = errno;
    cli_tmp_release();
    while (fd >= 0 && !e && done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) e = w < 0 ? errno : ENOSPC;
        else done += (size_t)w;
    }
    if (fd >= 0 && close(fd) != 0 && !e) e = errno;
    if (e) {
        rc = cli_fail(cmd, "%s: cannot %s a copy in %s, to read it twice: %s (set TMPDIR to a writable directory "
                           "with room)", path, fd < 0 ? "make" : "write", dir, strerror(e));
        if (fd >= 0) unlink(*tmp);
        free(*tmp);
        *tmp = NULL;
    }
    mmnc_free(text);
    return rc;
}

int cli_truth_labels(const char *cmd, const char *path, const char *var, const mmnc_data *d, mmnc_int want,
                     mmnc_int **truth, mmnc_int *nclasses)
{
    mmnc_err err = {0, ""};
    mmnc_int n = 0;
    char *tmp = NULL, *at;
    int rc;
    *truth = NULL;
    if ((rc = truth_once(cmd, path, &tmp)) != CLI_EXIT_OK) return rc;
    if (mmnc_labels_read(tmp ? tmp : path, var, d, &n, truth, nclasses, &err) != MMNC_OK) {
        if (tmp && (at = strstr(err.msg, tmp)) != NULL) { /* the file as the user named it */
            mmnc_err e = err;
            snprintf(e.msg, sizeof e.msg, "%.*s%s%s", (int)(at - err.msg), err.msg, path, at + strlen(tmp));
            err = e;
        }
        rc = cli_lib_fail(cmd, &err);
    } else if (n != want) {
        rc = cli_fail(cmd, "%s: %lld labels for %lld rows", path, (long long)n, (long long)want);
    } else {
        rc = unknown_ids(cmd, tmp ? tmp : path, path, d);
    }
    if (tmp) unlink(tmp);
    free(tmp);
    if (rc != CLI_EXIT_OK) {
        mmnc_free(*truth);
        *truth = NULL;
    }
    return rc;
}

/* ---- the command ---------------------------------------------------------- */

static void print_json(FILE *fp, const char *pred, const char *truth, const mmnc_scores *s,
                       long long no_pred, long long no_truth)
{
    fputs("{\"pred\": ", fp);
    cli_json_string(fp, pred);
    fputs(", \"truth\": ", fp);
    cli_json_string(fp, truth);
    const char *name[7] = {"acc", "nmi", "ari", "purity", "coverage", "overall", "kacc"};
    const double v[7] = {s->acc, s->nmi, s->ari, s->purity, s->coverage, s->overall, s->kacc};
    fprintf(fp, ", \"n\": %lld, \"clusters\": %lld, \"classes\": %lld", (long long)s->n,
            (long long)s->nclusters, (long long)s->nclasses);
    for (int i = 0; i < 7; i++) {
        fprintf(fp, ", \"%s\": ", name[i]);
        cli_json_number(fp, v[i], 10);
    }
    fprintf(fp, ", \"truth_without_prediction\": %lld, \"prediction_without_truth\": %lld}\n", no_pred,
            no_truth);
}

static void print_table(FILE *fp, const mmnc_scores *s)
{
    fprintf(fp, "n            %lld\n", (long long)s->n);
    fprintf(fp, "clusters     %lld\n", (long long)s->nclusters);
    fprintf(fp, "classes      %lld\n", (long long)s->nclasses);
    fprintf(fp, "ACC          %.2f%%\n", 100.0 * s->acc);
    fprintf(fp, "NMI          %.4f\n", s->nmi);
    fprintf(fp, "ARI          %.4f\n", s->ari);
    fprintf(fp, "purity       %.2f%%\n", 100.0 * s->purity);
    fprintf(fp, "coverage     %.2f%%\n", 100.0 * s->coverage);
    fprintf(fp, "overall      %.2f%%\n", 100.0 * s->overall);
    fprintf(fp, "k-accuracy   %.2f%%\n", 100.0 * s->kacc);
}

int cmd_eval(int argc, char **argv)
{
    enum { OPT_MAT_VAR = 256, OPT_JSON };
    static const struct option longopts[] = {
        {"mat-var", required_argument, NULL, OPT_MAT_VAR},
        {"json", no_argument, NULL, OPT_JSON},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *mat_var = MMNC_DEFAULT_LABELS_VAR, *pred_path, *truth_path;
    int json = 0, c, rc = CLI_EXIT_OK, kind = 0;
    pred_file pred = {0};
    truth_file truth = {0};
    mmnc_int ntruth = 0, nclasses = 0, *lib_labels = NULL, *pl = NULL, *tl = NULL;
    long long m = 0, no_truth = 0;
    excluded no_pred = {0};
    char idbuf[32];
    mmnc_err err = {0, ""};
    mmnc_scores s;
    unsigned char *has_truth = NULL;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_MAT_VAR:
            if (!*optarg) return cli_usage_error(CMD, "--mat-var needs a variable name");
            mat_var = optarg;
            break;
        case OPT_JSON: json = 1; break;
        case 'h': usage(stdout); return CLI_EXIT_OK;
        case ':': return cli_usage_error(CMD, "option '%s' needs a value", argv[optind - 1]);
        default:
            if (optopt > 0 && optopt < 256) return cli_usage_error(CMD, "unknown option '-%c'", optopt);
            if (optopt >= 256) return cli_usage_error(CMD, "option '%s' takes no value", argv[optind - 1]);
            return cli_usage_error(CMD, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (argc - optind != 2)
        return cli_usage_error(CMD, "expected two files, PRED and TRUTH (got %d)", argc - optind);
    pred_path = argv[optind];
    truth_path = argv[optind + 1];

    rc = read_pred(pred_path, &pred);
    if (rc != CLI_EXIT_OK) goto cleanup;
    rc = read_truth(CMD, truth_path, NULL, &truth, &kind);
    if (rc != CLI_EXIT_OK) goto cleanup;
    if (kind) {
        ntruth = (mmnc_int)truth.label.n;
    } else if (mmnc_labels_read(truth_path, mat_var, NULL, &ntruth, &lib_labels, &nclasses,
                                &err) != MMNC_OK) {
        rc = cli_lib_fail(CMD, &err);
        goto cleanup;
    }

    /* Join by id: pl/tl get the cluster and the class of every item that has
     * both. */
    pl = malloc(((size_t)ntruth + 1) * sizeof *pl);
    tl = malloc(((size_t)ntruth + 1) * sizeof *tl);
    has_truth = calloc((size_t)pred.id.n + 1, 1);
    if (!pl || !tl || !has_truth) {
        rc = cli_fail(CMD, "out of memory");
        goto cleanup;
    }
    for (mmnc_int i = 0; i < ntruth; i++) {
        const char *id;
        long long j;
        if (kind == 2) {
            id = truth.id.s[i];
        } else {
            snprintf(idbuf, sizeof idbuf, "%lld", (long long)i + 1);
            id = idbuf;
        }
        j = sm_get(&pred.index, id);
        if (j < 0) {
            excluded_add(&no_pred, id);
            continue;
        }
        has_truth[j] = 1;
        pl[m] = pred.cluster.x[j];
        tl[m] = kind ? truth.label.x[i] : lib_labels[i];
        m++;
    }
    for (long long j = 0; j < pred.id.n; j++) no_truth += !has_truth[j];
    if (m == 0) {
        rc = cli_fail(CMD,
                      "no item of %s has a prediction in %s (ids there look like '%s'; "
                      "here like '%s')%s",
                      truth_path, pred_path, pred.id.s[0], kind == 2 ? no_pred.id[0] : "1",
                      kind == 2 ? "" : ": a TRUTH of one label per line gives the items 1, 2, ... by line; "
                                       "for items known by name (mmnc cluster --row-names), give 'id label' lines");
        goto cleanup;
    }
    excluded_warn(CMD, &no_pred, ntruth, truth_path, "have no prediction");
    if (no_truth > 0)
        fprintf(stderr, "mmnc %s: %lld of %lld items of %s have no reference label and are "
                "excluded\n", CMD, no_truth, pred.id.n, pred_path);

    if (mmnc_evaluate((mmnc_int)m, pl, tl, &s, &err) != MMNC_OK) {
        rc = cli_lib_fail(CMD, &err);
        goto cleanup;
    }
    if (json) print_json(stdout, pred_path, truth_path, &s, no_pred.n, no_truth);
    else print_table(stdout, &s);
    if (fflush(stdout) != 0 || ferror(stdout)) rc = cli_fail(CMD, "cannot write the output");

cleanup:
    pred_free(&pred);
    truth_free(&truth);
    mmnc_free(lib_labels);
    free(pl);
    free(tl);
    free(has_truth);
    return rc;
}
