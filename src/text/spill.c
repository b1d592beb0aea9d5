/*
 * spill.c -- an external sort of (key, value) pairs: sorted runs written to
 * one temporary file, then a k-way merge that sums the values of equal keys.
 *
 * Used by cooc.c to bound the memory of its pair tables: a full table is
 * sorted in place and appended to the file as a run, then cleared.  At the
 * end the runs are merged, at most `fanin` at a time (more runs are first
 * merged in groups into longer runs, appended to the same file), and the
 * last merge hands every distinct key, in increasing order, with the sum of
 * its values to a callback -- as many times as the caller asks (cooc counts
 * the rows, then fills them).
 *
 * The file is made by mkstemp in $TMPDIR (or /tmp) and unlinked at once, so
 * that it disappears when it is closed, on every path (error, crash, kill).
 * Runs are written with pwrite at offsets reserved under a lock, so threads
 * may spill at the same time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/mmnc_i.h"

#define MIN_BUF 256 /* entries per merge buffer, at least (4 KB) */
#define MAX_BUF 8192 /* and at most (128 KB) */
#define MIN_FANIN 4
#define MAX_FANIN 64

typedef struct run {
    uint64_t off; /* entries from the start of the file */
    uint64_t n;
} run;

struct mmnc_i_spill {
    char *dir;       /* the temporary directory, for messages */
    int fd;          /* -1 until the first run */
    uint64_t end;    /* entries in the file */
    run *runs;
    size_t nruns, cap;
    size_t bufn;     /* entries per merge buffer */
    int fanin;
    int64_t first_runs;   /* runs handed in by mmnc_i_spill_run */
    int64_t bytes;        /* bytes written, merge passes included */
    int status, errnum;   /* the first failure, and its errno */
    const char *what;     /* "create", "write" or "read" */
};

int mmnc_i_spill_open(mmnc_i_spill **out, size_t merge_bytes, mmnc_err *err)
{
    const char *dir = getenv("TMPDIR");
    mmnc_i_spill *s;
    size_t per;

    *out = NULL;
    if (!dir || !*dir) dir = "/tmp";
    s = mmnc_i_calloc(1, sizeof *s);
    if (!s || !(s->dir = mmnc_i_strdup(dir))) {
        mmnc_i_free(s);
        return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    }
    s->fd = -1;
    /* merge_bytes buys `fanin` input buffers and one output buffer */
    per = merge_bytes / (MIN_BUF * sizeof(mmnc_i_kv)); /* buffers of the smallest size */
    s->fanin = per < MIN_FANIN + 1 ? MIN_FANIN : per > MAX_FANIN + 1 ? MAX_FANIN : (int)per - 1;
    per = merge_bytes / (size_t)(s->fanin + 1) / sizeof(mmnc_i_kv);
    s->bufn = per < MIN_BUF ? MIN_BUF : per > MAX_BUF ? MAX_BUF : per;
    *out = s;
    return MMNC_OK;
}

void mmnc_i_spill_close(mmnc_i_spill *s)
{
    if (!s) return;
    if (s->fd >= 0) close(s->fd);
    mmnc_i_free(s->runs);
    mmnc_i_free(s->dir);
    mmnc_i_free(s);
}

int64_t mmnc_i_spill_runs(const mmnc_i_spill *s) { return s ? s->first_runs : 0; }
int64_t mmnc_i_spill_bytes(const mmnc_i_spill *s) { return s ? s->bytes : 0; }

/* Record the first failure (callers hold the lock or run alone). */
static int fail(mmnc_i_spill *s, int status, const char *what, int errnum)
{
    if (s->status == MMNC_OK) {
        s->status = status;
        s->what = what;
        s->errnum = errnum;
    }
    return status;
}

int mmnc_i_spill_error(const mmnc_i_spill *s, mmnc_err *err)
{
    if (s->status == MMNC_ENOMEM) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    if (s->status == MMNC_OK) return MMNC_OK;
    return mmnc_i_err(err, s->status, "cannot %s the temporary file of sorted runs in %s: %s%s",
                      s->what, s->dir, s->errnum ? strerror(s->errnum) : "unexpected end of file",
                      !strcmp(s->what, "create") ? " (set TMPDIR to a writable directory)"
                      : !strcmp(s->what, "write") ? " (set TMPDIR to a directory with more room, "
                                                    "or raise the memory limit)"
                                                  : "");
}

/* Write (put) or read (get) exactly n entries at entry offset off: 0, an
 * errno, or for get -1 at an early end of the file. */
static int put(int fd, const mmnc_i_kv *p, size_t n, uint64_t off)
{
    const char *b = (const char *)p;
    size_t left = n * sizeof *p;
    off_t at = (off_t)(off * sizeof *p);
    while (left) {
        ssize_t w = pwrite(fd, b, left, at);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return w < 0 ? errno : ENOSPC;
        b += w;
        left -= (size_t)w;
        at += w;
    }
    return 0;
}

/* The read of put's pair (see above). */
static int get(int fd, mmnc_i_kv *p, size_t n, uint64_t off)
{
    char *b = (char *)p;
    size_t left = n * sizeof *p;
    off_t at = (off_t)(off * sizeof *p);
    while (left) {
        ssize_t r = pread(fd, b, left, at);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return r < 0 ? errno : -1; /* -1: the file is shorter than its runs */
        b += r;
        left -= (size_t)r;
        at += r;
    }
    return 0;
}

/* ---- in-place sort by key (introsort: no memory beyond the array) ---------- */

/* Sift a[i] down the max-heap a[0..n) by key. */
static void sift(mmnc_i_kv *a, size_t i, size_t n)
{
    mmnc_i_kv x = a[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && a[c + 1].key > a[c].key) c++;
        if (a[c].key <= x.key) break;
        a[i] = a[c];
        i = c;
    }
    a[i] = x;
}

/* Heapsort by key: intro_sort's fallback when its recursion gets too deep. */
static void heap_sort(mmnc_i_kv *a, size_t n)
{
    for (size_t i = n / 2; i-- > 0;) sift(a, i, n);
    for (size_t m = n; m > 1; m--) {
        mmnc_i_kv t = a[0];
        a[0] = a[m - 1];
        a[m - 1] = t;
        sift(a, 0, m - 1);
    }
}

/* Quicksort by key (median-of-three pivot, Hoare partition, the smaller
 * side first so the stack stays O(log n)), heapsort once depth is spent,
 * insertion sort below 17 entries: O(n log n) at worst, in place. */
static void intro_sort(mmnc_i_kv *a, size_t n, int depth)
{
    while (n > 16) {
        if (depth-- == 0) {
            heap_sort(a, n);
            return;
        }
        /* median of three as the pivot, Hoare partition */
        uint64_t x = a[0].key, y = a[n / 2].key, z = a[n - 1].key;
        uint64_t p = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
        size_t i = 0, j = n - 1;
        for (;;) {
            while (a[i].key < p) i++;
            while (a[j].key > p) j--;
            if (i >= j) break;
            mmnc_i_kv t = a[i];
            a[i] = a[j];
            a[j] = t;
            i++;
            j--;
        }
        /* [0, j] <= p <= [j+1, n): recurse on the smaller side */
        if (j + 1 < n - j - 1) {
            intro_sort(a, j + 1, depth);
            a += j + 1;
            n -= j + 1;
        } else {
            intro_sort(a + j + 1, n - j - 1, depth);
            n = j + 1;
        }
    }
    for (size_t i = 1; i < n; i++) { /* insertion sort of the short rest */
        mmnc_i_kv x = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1].key > x.key) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

void mmnc_i_kv_sort(mmnc_i_kv *a, size_t n)
{
    int depth = 0;
    for (size_t m = n; m > 1; m >>= 1) depth += 2;
    intro_sort(a, n, depth);
}

/* ---- runs ------------------------------------------------------------------------ */

/* Reserve room for a run of n entries: its offset, or a failure. */
static int reserve(mmnc_i_spill *s, uint64_t n, uint64_t *off)
{
    int status = MMNC_OK;
#pragma omp critical(mmnc_spill)
    {
        if (s->status != MMNC_OK) status = s->status;
        else if (s->fd < 0) {
            size_t len = strlen(s->dir);
            char *path = mmnc_i_malloc(len + 32, 1);
            if (!path) status = fail(s, MMNC_ENOMEM, "create", 0);
            else {
                memcpy(path, s->dir, len);
                strcpy(path + len, "/mmnc-cooc-runs.XXXXXX");
                s->fd = mkstemp(path);
                if (s->fd < 0) status = fail(s, MMNC_EIO, "create", errno);
                else unlink(path); /* gone when closed, whatever happens */
                mmnc_i_free(path);
            }
        }
        if (status == MMNC_OK && s->nruns == s->cap) {
            size_t cap = s->cap ? 2 * s->cap : 64;
            run *r = mmnc_i_realloc(s->runs, cap, sizeof *r);
            if (!r) status = fail(s, MMNC_ENOMEM, "write", 0);
            else {
                s->runs = r;
                s->cap = cap;
            }
        }
        if (status == MMNC_OK) {
            *off = s->end;
            s->end += n;
            s->runs[s->nruns].off = *off;
            s->runs[s->nruns].n = n;
            s->nruns++;
            s->bytes += (int64_t)(n * sizeof(mmnc_i_kv));
        }
    }
    return status;
}

int mmnc_i_spill_run(mmnc_i_spill *s, mmnc_i_kv *kv, size_t n)
{
    uint64_t off = 0;
    int status, e;
    if (n == 0) return MMNC_OK;
    mmnc_i_kv_sort(kv, n);
    if ((status = reserve(s, n, &off)) != MMNC_OK) return status;
    if ((e = put(s->fd, kv, n, off)) != 0) {
#pragma omp critical(mmnc_spill)
        fail(s, MMNC_EIO, "write", e);
        return MMNC_EIO;
    }
#pragma omp atomic
    s->first_runs++;
    return MMNC_OK;
}

/* ---- merging --------------------------------------------------------------------- */

typedef struct cursor {
    uint64_t off, left; /* of the run, still on disk */
    mmnc_i_kv *buf;
    size_t n, i;        /* entries in buf, next one */
} cursor;

/* The next entry of c into its buffer; 0 at the end of its run, -1 on error. */
static int refill(mmnc_i_spill *s, cursor *c)
{
    size_t n = c->left < s->bufn ? (size_t)c->left : s->bufn;
    int e;
    if (n == 0) return 0;
    if ((e = get(s->fd, c->buf, n, c->off)) != 0) {
        fail(s, MMNC_EIO, "read", e > 0 ? e : 0);
        return -1;
    }
    c->off += n;
    c->left -= n;
    c->n = n;
    c->i = 0;
    return 1;
}

/* The key at the front of cursor c. */
static uint64_t head(const cursor *c) { return c->buf[c->i].key; }

/* Sift h[i] down the min-heap of cursors h[0..n) by their front keys. */
static void heap_down(cursor **h, size_t n, size_t i)
{
    cursor *x = h[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && head(h[c + 1]) < head(h[c])) c++;
        if (head(h[c]) >= head(x)) break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

typedef struct outrun {
    mmnc_i_spill *s;
    mmnc_i_kv *buf;
    size_t n;
    uint64_t off; /* where the next flush goes */
} outrun;

/* Write the merge's output buffer at the end of the file. */
static int out_flush(outrun *o)
{
    int e;
    if (o->n == 0) return MMNC_OK;
    if ((e = put(o->s->fd, o->buf, o->n, o->off)) != 0) return fail(o->s, MMNC_EIO, "write", e);
    o->off += o->n;
    o->n = 0;
    return MMNC_OK;
}

/* A merged (key, sum) into the output run, flushed when the buffer is full. */
static int out_add(void *ctx, uint64_t key, uint64_t val)
{
    outrun *o = ctx;
    o->buf[o->n].key = key;
    o->buf[o->n].val = val;
    if (++o->n == o->s->bufn) return out_flush(o);
    return MMNC_OK;
}

/* Merge runs r[0..k-1], calling fn once per distinct key in increasing order
 * with the sum of its values. */
static int merge(mmnc_i_spill *s, const run *r, size_t k, mmnc_i_merge_fn fn, void *ctx)
{
    cursor *cur = mmnc_i_calloc(k, sizeof *cur);
    cursor **h = mmnc_i_malloc(k, sizeof *h);
    mmnc_i_kv *bufs = mmnc_i_malloc(k * s->bufn, sizeof *bufs);
    size_t nh = 0;
    int status = MMNC_OK;

    if (!cur || !h || !bufs) {
        status = fail(s, MMNC_ENOMEM, "read", 0);
        goto cleanup;
    }
    for (size_t i = 0; i < k; i++) {
        cur[i].off = r[i].off;
        cur[i].left = r[i].n;
        cur[i].buf = bufs + i * s->bufn;
        int got = refill(s, &cur[i]);
        if (got < 0) {
            status = s->status;
            goto cleanup;
        }
        if (got) h[nh++] = &cur[i];
    }
    for (size_t i = nh / 2; i-- > 0;) heap_down(h, nh, i);
    while (nh) {
        uint64_t key = head(h[0]), val = 0;
        /* every entry with this key: each run holds it at most once */
        while (nh && head(h[0]) == key) {
            cursor *c = h[0];
            val += c->buf[c->i].val;
            if (++c->i == c->n) {
                int got = refill(s, c);
                if (got < 0) {
                    status = s->status;
                    goto cleanup;
                }
                if (!got) h[0] = h[--nh];
            }
            if (nh) heap_down(h, nh, 0);
        }
        if ((status = fn(ctx, key, val)) != MMNC_OK) goto cleanup;
    }

cleanup:
    mmnc_i_free(bufs);
    mmnc_i_free(h);
    mmnc_i_free(cur);
    return status;
}

int mmnc_i_spill_merge(mmnc_i_spill *s, mmnc_i_merge_fn fn, void *ctx, mmnc_err *err)
{
    int status = MMNC_OK;
    if (s->status != MMNC_OK) return mmnc_i_spill_error(s, err);
    /* Too many runs for one merge: merge the oldest `fanin` into one longer
     * run at the end of the file, until few enough are left. */
    while (s->nruns > (size_t)s->fanin) {
        size_t k = (size_t)s->fanin;
        uint64_t n;
        outrun o = {s, NULL, 0, s->end};
        o.buf = mmnc_i_malloc(s->bufn, sizeof *o.buf);
        if (!o.buf) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
        status = merge(s, s->runs, k, out_add, &o);
        if (status == MMNC_OK) status = out_flush(&o);
        mmnc_i_free(o.buf);
        if (status != MMNC_OK) return mmnc_i_spill_error(s, err);
        n = o.off - s->end;
        memmove(s->runs, s->runs + k, (s->nruns - k) * sizeof *s->runs);
        s->nruns -= k;
        s->runs[s->nruns].off = s->end;
        s->runs[s->nruns].n = n;
        s->nruns++;
        s->end += n;
        s->bytes += (int64_t)(n * sizeof(mmnc_i_kv));
    }
    status = merge(s, s->runs, s->nruns, fn, ctx);
    if (status != MMNC_OK && s->status != MMNC_OK) return mmnc_i_spill_error(s, err);
    return status;
}
