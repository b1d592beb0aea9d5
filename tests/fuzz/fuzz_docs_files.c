/*
 * fuzz_docs_files.c -- libFuzzer harness of mmnc_docs_build over a
 * directory tree of files with odd names.
 *
 * Input: byte 0 picks the options (as fuzz_docs: lines, stop words, min_df,
 * max_df, max_vocab, drop_empty, min_count); byte 1 the layout (below); the
 * rest is split at NUL bytes into at most 64 files.  A file's first line
 * (up to '\n') is its path under a fresh directory made by mkdtemp, the
 * rest its text.  In the path, '/' makes subdirectories and byte 0x01
 * stands for a newline; empty, "." and ".." components are left out, a
 * component is cut at 255 bytes and a path at 300 components or 4000
 * bytes, so names may hold spaces, tabs, newlines, a leading '-' or '.',
 * invalid UTF-8 and 255 bytes, and directories may nest beyond the 256
 * levels the walk enters (every walk must then fail with MMNC_EINVAL).  A
 * path that cannot be made (a file where a directory is, or the reverse)
 * is skipped; the same path twice keeps the last text.  Layout bits: 1 a
 * symbolic link to the first file, 2 a link to a directory (not entered),
 * 4 a dangling link, 8 a link to itself (a loop), 16 the directory given
 * with a trailing '/', 32 given twice.
 *
 * Three builds: (1) the directory with the default options: the rows must
 * be exactly the visible files (no component starting with '.', links to
 * files included), named by their paths (escaped as mmnc.h says), in bytewise
 * order of the paths; (2) the
 * directory with the options of byte 0; (3) the list of those files, in
 * that order, with the same options: the same status, matrix and names as
 * (2) (unless nested too deep).  Each result must pass mmnc_csr_check,
 * have one name per row and column and whole positive counts; no file
 * descriptor may stay open.  The directory is removed afterwards.
 */
#include "fuzz_common.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>

#define MAX_FILES 64
#define MAX_DEPTH 300      /* components of a path: the walk stops at 256 */
#define NAME_MAX_BYTES 255 /* bytes of a component */
#define REL_MAX 4000       /* bytes of a path below the directory, with its NUL */
#define ROOT_MAX 512       /* the directory (a longer $TMPDIR: the input is skipped) */
#define FULL_MAX (ROOT_MAX + REL_MAX + 2)

typedef struct tree {
    char root[ROOT_MAX];      /* the temporary directory */
    char *rel[MAX_FILES + 4]; /* paths below root of the files a walk must find */
    int nrel;
    int maxdepth;             /* of the directories a walk enters */
    char firstfile[REL_MAX];  /* path below root of the first file made, or "" */
    char firstdir[REL_MAX];   /* of the first directory made, or "" */
} tree;

static int is_visible(const char *rel)
{
    for (const char *p = rel; *p; p++)
        if (*p == '.' && (p == rel || p[-1] == '/')) return 0;
    return 1;
}

static void add_rel(tree *t, const char *rel)
{
    for (int k = 0; k < t->nrel; k++)
        if (strcmp(t->rel[k], rel) == 0) return; /* written twice: one file */
    if (!(t->rel[t->nrel] = strdup(rel))) abort();
    t->nrel++;
}

/* Make the file of one chunk: spec[0 .. ns-1] is its path, text its bytes. */
static void make_file(tree *t, const uint8_t *spec, size_t ns, const uint8_t *text, size_t nt)
{
    char rel[REL_MAX], full[FULL_MAX];
    size_t n = 0, b = 0;
    int depth = 0, fd;
    while (b <= ns && depth < MAX_DEPTH) {
        size_t e = b, len;
        while (e < ns && spec[e] != '/') e++;
        len = e - b < NAME_MAX_BYTES ? e - b : NAME_MAX_BYTES;
        if (len > 0 && !(len == 1 && spec[b] == '.') && !(len == 2 && spec[b] == '.' && spec[b + 1] == '.')) {
            if (n + 1 + len >= REL_MAX) break; /* the path is full */
            if (n) rel[n++] = '/';
            for (size_t k = 0; k < len; k++) rel[n++] = spec[b + k] == 1 ? '\n' : (char)spec[b + k];
            depth++;
        }
        b = e + 1;
    }
    if (n == 0) n = (size_t)snprintf(rel, sizeof rel, "unnamed");
    rel[n] = '\0';
    /* the directories on the way; the walk refuses those deeper than 256 */
    depth = 0;
    for (size_t k = 0; k < n; k++)
        if (rel[k] == '/') {
            struct stat st;
            rel[k] = '\0';
            depth++;
            snprintf(full, sizeof full, "%s/%s", t->root, rel);
            if (mkdir(full, 0700) == 0 && !t->firstdir[0]) snprintf(t->firstdir, sizeof t->firstdir, "%s", rel);
            if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode) && is_visible(rel) && depth > t->maxdepth)
                t->maxdepth = depth;
            rel[k] = '/';
        }
    snprintf(full, sizeof full, "%s/%s", t->root, rel);
    if ((fd = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) return;
    for (size_t off = 0; off < nt;) {
        ssize_t w = write(fd, text + off, nt - off);
        if (w <= 0) break;
        off += (size_t)w;
    }
    close(fd);
    if (!t->firstfile[0]) snprintf(t->firstfile, sizeof t->firstfile, "%s", rel);
    if (is_visible(rel)) add_rel(t, rel);
}

static void make_link(tree *t, const char *target, const char *name, int counts)
{
    char full[FULL_MAX];
    snprintf(full, sizeof full, "%s/%s", t->root, name);
    if (symlink(target, full) == 0 && counts) add_rel(t, name);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    (void)st, (void)flag, (void)f;
    return remove(p) != 0 && errno != ENOENT ? -1 : 0;
}

/* A path as mmnc_docs_build names its document (mmnc.h): \\, \n, \t, \r for
 * those characters, \xhh for other control bytes, DEL and bytes that are
 * not valid UTF-8, every other character as it is.  out holds 4 strlen(p)
 * + 1 bytes. */
static void escaped(const char *p, char *out)
{
    const unsigned char *u = (const unsigned char *)p;
    size_t n = strlen(p), i = 0;
    while (i < n) {
        unsigned char c = u[i];
        size_t len = 0;
        if (c == '\\' || c == '\n' || c == '\t' || c == '\r') {
            *out++ = '\\';
            *out++ = c == '\\' ? '\\' : c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
            i++;
            continue;
        }
        if (c >= 0x20 && c < 0x7f) len = 1;
        else if (c >= 0xc2 && c <= 0xdf) len = 2;
        else if (c >= 0xe0 && c <= 0xef) len = 3;
        else if (c >= 0xf0 && c <= 0xf4) len = 4;
        if (len > 1) { /* a valid sequence: continuation bytes, no overlong form, surrogate or > U+10FFFF */
            unsigned lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80, hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
            if (i + len > n || u[i + 1] < lo || u[i + 1] > hi) len = 0;
            for (size_t j = 2; len && j < len; j++)
                if ((u[i + j] & 0xc0) != 0x80) len = 0;
        }
        if (len == 0) {
            out += sprintf(out, "\\x%02x", c);
            i++;
            continue;
        }
        memcpy(out, u + i, len);
        out += len;
        i += len;
    }
    *out = '\0';
}

static int by_bytes(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The lowest free file descriptor: the same before and after the builds,
 * or one was left open. */
static int lowest_fd(void)
{
    int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) close(fd);
    return fd;
}

/* Each result: a valid matrix, named rows and columns, whole positive
 * counts, rows as the info says. */
static void check_result(const mmnc_data *d, const mmnc_docs_info *info, const mmnc_docs_opts *o)
{
    mmnc_err e = {0, ""};
    const mmnc_csr *A = d->A;
    if (mmnc_csr_check(A, &e) != MMNC_OK || !d->row_names || !d->col_names || A->ncols != info->terms ||
        A->ncols < 1 || A->nrows != (o->drop_empty ? info->docs - info->empty : info->docs) ||
        (!o->lines && info->docs != info->files))
        abort();
    for (mmnc_int k = 0; k < A->nnz; k++)
        if (A->val[k] < 1 || A->val[k] != (double)(int64_t)A->val[k]) abort();
    for (mmnc_int i = 0; i < A->nrows; i++)
        if (!d->row_names[i]) abort();
    for (mmnc_int j = 0; j < A->ncols; j++)
        if (!d->col_names[j] || !*d->col_names[j] || strlen(d->col_names[j]) > 255) abort();
}

static int same_result(const mmnc_data *a, const mmnc_data *b)
{
    const mmnc_csr *A = a->A, *B = b->A;
    if (A->nrows != B->nrows || A->ncols != B->ncols || A->nnz != B->nnz) return 0;
    if (memcmp(A->rowptr, B->rowptr, (size_t)(A->nrows + 1) * sizeof *A->rowptr) != 0 ||
        (A->nnz && (memcmp(A->colind, B->colind, (size_t)A->nnz * sizeof *A->colind) != 0 ||
                    memcmp(A->val, B->val, (size_t)A->nnz * sizeof *A->val) != 0)))
        return 0;
    for (mmnc_int i = 0; i < A->nrows; i++)
        if (strcmp(a->row_names[i], b->row_names[i]) != 0) return 0;
    for (mmnc_int j = 0; j < A->ncols; j++)
        if (strcmp(a->col_names[j], b->col_names[j]) != 0) return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *tmp = getenv("TMPDIR");
    tree t;
    char dirarg[ROOT_MAX + 1], **full = NULL;
    const char *dirs[2], **list = NULL;
    mmnc_docs_opts o, def;
    mmnc_docs_info info;
    mmnc_data *d1 = NULL, *d2 = NULL, *d3 = NULL;
    mmnc_err e = {0, ""};
    uint8_t sel, lay;
    int nfiles = 0, ndirs, s1, s2, s3, fd0, deep;
    size_t b;

    if (size < 2) return 0;
    sel = data[0];
    lay = data[1];
    memset(&t, 0, sizeof t);
    /* $TMPDIR, else /dev/shm (memory: a quarter faster than a disk), else /tmp */
    snprintf(t.root, sizeof t.root, "%s/mmnc-fuzz-docs-XXXXXX", tmp && *tmp ? tmp : "/dev/shm");
    if (!mkdtemp(t.root)) {
        if (tmp && *tmp) return 0;
        snprintf(t.root, sizeof t.root, "/tmp/mmnc-fuzz-docs-XXXXXX");
        if (!mkdtemp(t.root)) return 0;
    }
    fd0 = lowest_fd();

    /* the files: chunks between NUL bytes, path line then text */
    b = 2;
    while (b <= size && nfiles < MAX_FILES) {
        const uint8_t *c = data + b, *z = memchr(c, 0, size - b), *nl;
        size_t n = z ? (size_t)(z - c) : size - b;
        nl = memchr(c, '\n', n);
        if (nl) make_file(&t, c, (size_t)(nl - c), nl + 1, n - (size_t)(nl - c) - 1);
        else make_file(&t, c, n, c, 0);
        nfiles++;
        b += n + 1;
    }
    if ((lay & 1) && t.firstfile[0]) make_link(&t, t.firstfile, "-> first\tfile", 1); /* even to a hidden file */
    if (lay & 2) make_link(&t, t.firstdir[0] ? t.firstdir : ".", "link to a directory", 0);
    if (lay & 4) make_link(&t, "nowhere/\xff\xfe", "dangling \xc3\x28 link", 0);
    if (lay & 8) make_link(&t, "loop", "loop", 0);
    qsort(t.rel, (size_t)t.nrel, sizeof *t.rel, by_bytes);
    deep = t.maxdepth > 256;

    snprintf(dirarg, sizeof dirarg, "%s%s", t.root, (lay & 16) ? "/" : "");
    dirs[0] = dirs[1] = dirarg;
    ndirs = (lay & 32) ? 2 : 1;

    /* (1) default options: the rows are the visible files, in order */
    mmnc_docs_opts_default(&def);
    s1 = mmnc_docs_build(dirs, 1, &def, &d1, &info, &e);
    if ((s1 == MMNC_OK) != (d1 != NULL)) abort();
    if (t.nrel == 0 && s1 == MMNC_OK) abort(); /* no file to read, yet a result */
    if (deep && s1 != MMNC_EINVAL) abort();     /* directories nested more than 256 deep */
    if (s1 == MMNC_OK) {
        check_result(d1, &info, &def);
        if (info.files != t.nrel || d1->A->nrows != t.nrel) abort();
        for (int k = 0; k < t.nrel; k++) {
            char path[FULL_MAX], want[4 * FULL_MAX + 1];
            snprintf(path, sizeof path, "%s/%s", t.root, t.rel[k]);
            escaped(path, want);
            if (strcmp(d1->row_names[k], want) != 0) abort();
        }
    }

    /* (2) the options of byte 0 on the directory (given once or twice) */
    fuzz_docs_opts(sel, &o);
    s2 = mmnc_docs_build(dirs, ndirs, &o, &d2, &info, &e);
    if ((s2 == MMNC_OK) != (d2 != NULL) || (deep && s2 != MMNC_EINVAL)) abort();
    if (s2 == MMNC_OK) check_result(d2, &info, &o);

    /* (3) the same files named one by one: the same result */
    if (t.nrel > 0) {
        int np = ndirs * t.nrel;
        if (!(full = calloc((size_t)t.nrel, sizeof *full)) || !(list = calloc((size_t)np, sizeof *list))) abort();
        for (int k = 0; k < t.nrel; k++) {
            size_t m = strlen(dirarg) + strlen(t.rel[k]) + 2;
            if (!(full[k] = malloc(m))) abort();
            snprintf(full[k], m, "%s%s%s", dirarg, (lay & 16) ? "" : "/", t.rel[k]);
        }
        for (int k = 0; k < np; k++) list[k] = full[k % t.nrel];
        s3 = mmnc_docs_build(list, np, &o, &d3, &info, &e);
        if ((s3 == MMNC_OK) != (d3 != NULL)) abort();
        if (s3 != s2 && !deep) {
            fprintf(stderr, "fuzz_docs_files: directory %d, files %d: %s\n", s2, s3, e.msg);
            abort();
        }
        if (s3 == MMNC_OK) {
            check_result(d3, &info, &o);
            if (!deep && !same_result(d2, d3)) abort();
        }
        for (int k = 0; k < t.nrel; k++) free(full[k]);
        free(full);
        free(list);
    } else if (s2 == MMNC_OK) {
        abort();
    }

    mmnc_data_free(d1);
    mmnc_data_free(d2);
    mmnc_data_free(d3);
    if (lowest_fd() != fd0) abort(); /* a descriptor left open */
    for (int k = 0; k < t.nrel; k++) free(t.rel[k]);
    nftw(t.root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}
