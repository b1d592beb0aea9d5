/*
 * csr.c -- compressed sparse row matrices: allocation, assembly from
 * triplets, transpose, structural check and Matrix Market output.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/mmnc_i.h"
#ifdef _OPENMP
#include <omp.h>
#endif

mmnc_csr *mmnc_csr_alloc(mmnc_int nrows, mmnc_int ncols, mmnc_int nnz, mmnc_err *err)
{
    mmnc_csr *A = NULL;
    if (nrows < 0 || ncols < 0 || nnz < 0) {
        mmnc_i_err(err, MMNC_EINVAL, "mmnc_csr_alloc: negative size (%lld x %lld, nnz %lld)",
                   (long long)nrows, (long long)ncols, (long long)nnz);
        return NULL;
    }
    A = mmnc_i_calloc(1, sizeof *A);
    if (!A) goto nomem;
    A->nrows = nrows;
    A->ncols = ncols;
    A->nnz = nnz;
    A->rowptr = mmnc_i_calloc((size_t)nrows + 1, sizeof(mmnc_int));
    A->colind = mmnc_i_malloc(nnz ? (size_t)nnz : 1, sizeof(mmnc_int));
    A->val = mmnc_i_malloc(nnz ? (size_t)nnz : 1, sizeof(double));
    if (!A->rowptr || !A->colind || !A->val) goto nomem;
    return A;
nomem:
    mmnc_csr_free(A);
    mmnc_i_err(err, MMNC_ENOMEM, "out of memory (%lld x %lld matrix with %lld entries)",
               (long long)nrows, (long long)ncols, (long long)nnz);
    return NULL;
}

void mmnc_csr_free(mmnc_csr *A)
{
    if (!A) return;
    mmnc_i_free(A->rowptr);
    mmnc_i_free(A->colind);
    mmnc_i_free(A->val);
    mmnc_i_free(A);
}

/*
 * Two stable counting sorts (by column, then by row) leave every row with
 * its columns in increasing order and duplicates adjacent, so one sweep sums
 * them and drops zeros.  O(nnz + nrows + ncols) time, 2 nnz + ncols extra.
 */
/* Threads for a stable counting scatter of n items over nkeys keys: each
 * thread keeps nkeys counts, worth it when they are few against the items. */
static int scatter_threads(mmnc_int n, mmnc_int nkeys)
{
    int nt = 1;
#ifdef _OPENMP
    nt = omp_get_max_threads();
    if (n < MMNC_I_OMP_MIN_WORK || nkeys > n / 4) nt = 1;
    if (nt > 64) nt = 64;
#else
    (void)n;
    (void)nkeys;
#endif
    return nt;
}

/* Called by every thread of a team: cnt[t * nkeys + key], thread t's count
 * of a key, becomes thread t's first slot among that key's items, and ptr
 * (nkeys + 1, ptr[0] = 0) the keys' starts.  Items of a key then come in
 * thread order, i.e. in the order of one pass over the threads' ranges. */
static void counts_to_starts(mmnc_int *cnt, int team, mmnc_int nkeys, mmnc_int *ptr)
{
#pragma omp for schedule(static)
    for (mmnc_int j = 0; j < nkeys; j++) {
        mmnc_int c = 0;
        for (int w = 0; w < team; w++) {
            mmnc_int n = cnt[(mmnc_int)w * nkeys + j];
            cnt[(mmnc_int)w * nkeys + j] = c;
            c += n;
        }
        ptr[j + 1] = c;
    }
#pragma omp single
    for (mmnc_int j = 0; j < nkeys; j++) ptr[j + 1] += ptr[j];
}

/* Rows with their columns in increasing order and duplicates adjacent:
 * sum the duplicates in place (in storage order), drop zeros, shrink. */
static void sum_duplicates(mmnc_csr *A)
{
    mmnc_int i, p = 0, q = 0, nrows = A->nrows;
    for (i = 0; i < nrows; i++) {
        mmnc_int end = A->rowptr[i + 1];
        A->rowptr[i] = q;
        while (p < end) {
            mmnc_int c = A->colind[p];
            double s = A->val[p++];
            while (p < end && A->colind[p] == c) s += A->val[p++];
            if (s != 0.0) {
                A->colind[q] = c;
                A->val[q++] = s;
            }
        }
    }
    A->rowptr[nrows] = q;
    if (q < A->nnz) {
        /* shrinking: a failed realloc keeps the larger block, which is fine */
        mmnc_int *ci2 = mmnc_i_realloc(A->colind, q ? (size_t)q : 1, sizeof(mmnc_int));
        double *v2;
        if (ci2) A->colind = ci2;
        v2 = mmnc_i_realloc(A->val, q ? (size_t)q : 1, sizeof(double));
        if (v2) A->val = v2;
    }
    A->nnz = q;
}

/* Triplet order for the sorting path: row, then column, then position in
 * the input (so duplicates are summed in input order, as by the scatter). */
typedef struct trip {
    mmnc_int i, j, t;
} trip;

static int trip_cmp(const void *a, const void *b)
{
    const trip *x = a, *y = b;
    if (x->i != y->i) return x->i < y->i ? -1 : 1;
    if (x->j != y->j) return x->j < y->j ? -1 : 1;
    return (x->t > y->t) - (x->t < y->t);
}

/* mmnc_csr_from_triplets when the columns far outnumber the entries (a
 * libsvm feature index of 1e9 on a few lines): a comparison sort needs
 * O(nnz) memory where the counting scatter needs O(ncols) per thread.  The
 * same matrix, bit for bit.  O(nnz log nnz + nrows). */
static int from_triplets_sorting(mmnc_int nrows, mmnc_int ncols, mmnc_int nnz, const mmnc_int *ri,
                                 const mmnc_int *ci, const double *v, mmnc_csr **out, mmnc_err *err)
{
    int status = MMNC_OK;
    mmnc_csr *A = NULL;
    trip *tr = NULL;
    mmnc_int t;

    MMNC_ALLOC(tr, nnz ? nnz : 1, err, status);
    for (t = 0; t < nnz; t++) tr[t] = (trip){ri[t], ci[t], t};
    qsort(tr, (size_t)nnz, sizeof *tr, trip_cmp);
    if (!(A = mmnc_csr_alloc(nrows, ncols, nnz, err))) {
        status = MMNC_ENOMEM;
        goto cleanup;
    }
    for (t = 0; t < nnz; t++) {
        A->rowptr[tr[t].i + 1]++;
        A->colind[t] = tr[t].j;
        A->val[t] = v[tr[t].t];
    }
    for (mmnc_int i = 0; i < nrows; i++) A->rowptr[i + 1] += A->rowptr[i];
    sum_duplicates(A);
    *out = A;
    A = NULL;

cleanup:
    mmnc_csr_free(A);
    mmnc_i_free(tr);
    return status;
}

int mmnc_csr_from_triplets(mmnc_int nrows, mmnc_int ncols, mmnc_int nnz, const mmnc_int *ri,
                           const mmnc_int *ci, const double *v, mmnc_csr **out, mmnc_err *err)
{
    int status = MMNC_OK;
    mmnc_csr *A = NULL;
    mmnc_int *colptr = NULL, *trow = NULL, *fill = NULL;
    double *tval = NULL;
    mmnc_int t;
    int nt;

    /* check inputs */
    if (!out) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_csr_from_triplets: out is NULL");
    *out = NULL;
    if (nrows < 0 || ncols < 0 || nnz < 0)
        return mmnc_i_err(err, MMNC_EINVAL, "mmnc_csr_from_triplets: negative size");
    if (nnz > 0 && (!ri || !ci || !v))
        return mmnc_i_err(err, MMNC_EINVAL, "mmnc_csr_from_triplets: NULL triplet array");
    for (t = 0; t < nnz; t++) {
        if (ri[t] < 0 || ri[t] >= nrows || ci[t] < 0 || ci[t] >= ncols)
            return mmnc_i_err(err, MMNC_EINVAL,
                              "mmnc_csr_from_triplets: entry %lld at (%lld, %lld) is outside "
                              "the %lld x %lld matrix",
                              (long long)t, (long long)ri[t], (long long)ci[t], (long long)nrows,
                              (long long)ncols);
    }

    if (ncols / 8 > nnz + 1024) return from_triplets_sorting(nrows, ncols, nnz, ri, ci, v, out, err);

    /* Two stable counting sorts, by column and then by row, so that the
     * duplicates of an entry end up side by side in input order.  Threads
     * take contiguous ranges of the sequence being sorted, each with its
     * own key counts, and each puts its items after those of the ranges
     * before: the same order as one pass. */
    nt = scatter_threads(nnz, nrows > ncols ? nrows : ncols);
    MMNC_CALLOC(colptr, ncols + 1, err, status);
    MMNC_ALLOC(trow, nnz, err, status);
    MMNC_ALLOC(tval, nnz, err, status);
    MMNC_ALLOC(fill, (mmnc_int)nt * (nrows > ncols ? nrows : ncols) + 1, err, status);
    A = mmnc_csr_alloc(nrows, ncols, nnz, err);
    if (!A) {
        status = MMNC_ENOMEM;
        goto cleanup;
    }
#pragma omp parallel num_threads(nt)
    {
        int th = 0, team = 1;
#ifdef _OPENMP
        th = omp_get_thread_num();
        team = omp_get_num_threads();
#endif
        mmnc_int s0 = (mmnc_int)((double)nnz * th / team), s1 = (mmnc_int)((double)nnz * (th + 1) / team);
        mmnc_int *cnt = fill + (mmnc_int)th * ncols;
        /* bucket the triplets by column: trow, tval in column order */
        memset(cnt, 0, (size_t)ncols * sizeof(mmnc_int));
        for (mmnc_int u = s0; u < s1; u++) cnt[ci[u]]++;
#pragma omp barrier
        counts_to_starts(fill, team, ncols, colptr);
        for (mmnc_int u = s0; u < s1; u++) {
            mmnc_int pp = colptr[ci[u]] + cnt[ci[u]]++;
            trow[pp] = ri[u];
            tval[pp] = v[u];
        }
#pragma omp barrier
        /* then by row, walking the columns in order: colind, val */
        cnt = fill + (mmnc_int)th * nrows;
        memset(cnt, 0, (size_t)nrows * sizeof(mmnc_int));
        for (mmnc_int pp = s0; pp < s1; pp++) cnt[trow[pp]]++;
#pragma omp barrier
        counts_to_starts(fill, team, nrows, A->rowptr);
        if (s0 < s1) {
            mmnc_int lo = 0, hi = ncols - 1; /* the column of item s0: the last jj with colptr[jj] <= s0 */
            while (lo < hi) {
                mmnc_int mid = lo + (hi - lo + 1) / 2;
                if (colptr[mid] <= s0) lo = mid;
                else hi = mid - 1;
            }
            for (mmnc_int pp = s0, jj = lo; pp < s1; pp++) {
                while (colptr[jj + 1] <= pp) jj++;
                mmnc_int qq = A->rowptr[trow[pp]] + cnt[trow[pp]]++;
                A->colind[qq] = jj;
                A->val[qq] = tval[pp];
            }
        }
    }

    sum_duplicates(A);
    *out = A;
    A = NULL;

cleanup:
    mmnc_csr_free(A);
    mmnc_i_free(colptr);
    mmnc_i_free(fill);
    mmnc_i_free(trow);
    mmnc_i_free(tval);
    return status;
}

/* The first row of part t of nt, the parts balanced by nonzeros: the last
 * row whose rowptr is at most t nnz / nt. */
static mmnc_int part_start(const mmnc_csr *A, int t, int nt)
{
    mmnc_int target = (mmnc_int)((double)A->nnz * t / nt), lo = 0, hi = A->nrows;
    if (t == 0) return 0;
    if (t == nt) return A->nrows;
    while (lo < hi) { /* first row with rowptr > target, minus one */
        mmnc_int mid = lo + (hi - lo) / 2;
        if (A->rowptr[mid] <= target) lo = mid + 1;
        else hi = mid;
    }
    return lo > 0 ? lo - 1 : 0;
}

int mmnc_csr_transpose(const mmnc_csr *A, mmnc_csr **out, mmnc_err *err)
{
    int status = MMNC_OK, nt;
    mmnc_csr *T = NULL;
    mmnc_int *fill = NULL, nc;

    if (!out) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_csr_transpose: out is NULL");
    *out = NULL;
    if (!A || !A->rowptr) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_csr_transpose: A is NULL");
    nc = A->ncols;

    T = mmnc_csr_alloc(A->ncols, A->nrows, A->nnz, err);
    if (!T) return MMNC_ENOMEM;
    /* Threads take contiguous ranges of rows, each with its own column
     * counts, so that its entries land after those of the rows before:
     * the same matrix as one pass. */
    nt = scatter_threads(A->nnz, nc);
    MMNC_ALLOC(fill, (mmnc_int)nt * nc + 1, err, status); /* fill[t * nc + j]: thread t's next slot in column j */
#pragma omp parallel num_threads(nt)
    {
        int t = 0, team = 1;
#ifdef _OPENMP
        t = omp_get_thread_num();
        team = omp_get_num_threads();
#endif
        mmnc_int r0 = part_start(A, t, team), r1 = part_start(A, t + 1, team);
        mmnc_int *cnt = fill + (mmnc_int)t * nc;
        memset(cnt, 0, (size_t)nc * sizeof(mmnc_int));
        for (mmnc_int p = A->rowptr[r0]; p < A->rowptr[r1]; p++) cnt[A->colind[p]]++;
#pragma omp barrier
        counts_to_starts(fill, team, nc, T->rowptr);
        for (mmnc_int i = r0; i < r1; i++) {
            for (mmnc_int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
                mmnc_int j = A->colind[p], q = T->rowptr[j] + cnt[j]++;
                T->colind[q] = i;
                T->val[q] = A->val[p];
            }
        }
    }
    *out = T;
    T = NULL;

cleanup:
    mmnc_csr_free(T);
    mmnc_i_free(fill);
    return status;
}

int mmnc_csr_check(const mmnc_csr *A, mmnc_err *err)
{
    mmnc_int i, p;
    if (!A) return mmnc_i_err(err, MMNC_EINVAL, "matrix is NULL");
    if (A->nrows < 0 || A->ncols < 0 || A->nnz < 0)
        return mmnc_i_err(err, MMNC_EINVAL, "negative matrix size %lld x %lld, nnz %lld",
                          (long long)A->nrows, (long long)A->ncols, (long long)A->nnz);
    if (!A->rowptr || (A->nnz > 0 && (!A->colind || !A->val)))
        return mmnc_i_err(err, MMNC_EINVAL, "matrix arrays are NULL");
    if (A->rowptr[0] != 0)
        return mmnc_i_err(err, MMNC_EINVAL, "rowptr[0] = %lld, expected 0",
                          (long long)A->rowptr[0]);
    if (A->rowptr[A->nrows] != A->nnz)
        return mmnc_i_err(err, MMNC_EINVAL, "rowptr[nrows] = %lld, expected nnz = %lld",
                          (long long)A->rowptr[A->nrows], (long long)A->nnz);
    for (i = 0; i < A->nrows; i++) {
        if (A->rowptr[i + 1] < A->rowptr[i] || A->rowptr[i + 1] > A->nnz)
            return mmnc_i_err(err, MMNC_EINVAL, "row %lld: rowptr is not monotone", (long long)i);
        for (p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
            mmnc_int c = A->colind[p];
            double v = A->val[p];
            if (c < 0 || c >= A->ncols)
                return mmnc_i_err(err, MMNC_EINVAL, "row %lld: column %lld out of range 0..%lld",
                                  (long long)i, (long long)c, (long long)A->ncols - 1);
            if (p > A->rowptr[i] && c <= A->colind[p - 1])
                return mmnc_i_err(err, MMNC_EINVAL,
                                  "row %lld: columns not strictly increasing (%lld after %lld)",
                                  (long long)i, (long long)c, (long long)A->colind[p - 1]);
            if (!isfinite(v))
                return mmnc_i_err(err, MMNC_EINVAL, "row %lld, column %lld: value is not finite",
                                  (long long)i, (long long)c);
            if (v < 0)
                return mmnc_i_err(err, MMNC_EINVAL, "row %lld, column %lld: negative value %g",
                                  (long long)i, (long long)c, v);
        }
    }
    return MMNC_OK;
}

/* ---- Matrix Market output ------------------------------------------------ */

/* Buffered writer over a FILE* or a gzFile. */
typedef struct writer {
    FILE *fp;
    gzFile gz;
    char buf[1 << 16];
    size_t len;
    int bad;
} writer;

/* Write out the buffer; the first failure is kept in w->bad (reported at the end). */
static void wflush(writer *w)
{
    if (w->len == 0 || w->bad) {
        w->len = 0;
        return;
    }
    if (w->gz) {
        if (gzwrite(w->gz, w->buf, (unsigned)w->len) != (int)w->len) w->bad = 1;
    } else if (fwrite(w->buf, 1, w->len, w->fp) != w->len) {
        w->bad = 1;
    }
    w->len = 0;
}

/* Room for n more bytes (n <= the buffer) at the end of the buffer, flushing
 * first if needed. */
static char *wroom(writer *w, size_t n)
{
    if (w->len + n > sizeof w->buf) wflush(w);
    return w->buf + w->len;
}

/* x in decimal at s; returns the end. */
static char *fmt_int(char *s, long long x)
{
    char tmp[24];
    int k = 0;
    unsigned long long u = x < 0 ? 0ULL - (unsigned long long)x : (unsigned long long)x;
    if (x < 0) *s++ = '-';
    do {
        tmp[k++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (k) *s++ = tmp[--k];
    return s;
}

/* v at s (at most 32 bytes): an integer where all values are, else the
 * shortest of %.15g / %.17g that reads back exactly; returns the end. */
static char *fmt_double(char *s, double v, int integral)
{
    int n;
    if (integral) return fmt_int(s, (long long)v);
    n = snprintf(s, 32, "%.15g", v);
    if (strtod(s, NULL) != v) n = snprintf(s, 32, "%.17g", v);
    return s + n;
}

/* x in decimal. */
static void wint(writer *w, long long x)
{
    char *s = wroom(w, 24);
    w->len = (size_t)(fmt_int(s, x) - w->buf);
}

/* A short string (the banner and size lines). */
static void wstr(writer *w, const char *str)
{
    size_t n = strlen(str);
    char *s = wroom(w, n);
    memcpy(s, str, n);
    w->len += n;
}

/* n bytes at s, after what the writer holds. */
static void wbytes(writer *w, const char *s, size_t n)
{
    wflush(w);
    if (w->bad || n == 0) return;
    if (w->gz) {
        if (gzwrite(w->gz, s, (unsigned)n) != (int)n) w->bad = 1;
    } else if (fwrite(s, 1, n, w->fp) != n) {
        w->bad = 1;
    }
}

/* The entries are formatted in blocks of WRITE_BLOCK (the last shorter),
 * one block a thread at a time, each into a buffer of its own, and the
 * buffers are written in order: the same bytes for any number of threads.
 * An entry takes at most ENTRY_MAX bytes: two indices of at most 20
 * characters, two spaces, the 32 bytes that fmt_double may touch and a
 * newline. */
#define WRITE_BLOCK 32768
#define ENTRY_MAX 80

/* Entries p0 .. p1 - 1 of A as Matrix Market lines at out; returns the bytes. */
static size_t fmt_entries(const mmnc_csr *A, mmnc_int p0, mmnc_int p1, int integral, char *out)
{
    mmnc_int lo = 0, hi = A->nrows - 1, i, p = p0;
    char *s = out;
    while (lo < hi) { /* i: the last row with rowptr[i] <= p0, i.e. the row of entry p0 */
        mmnc_int mid = lo + (hi - lo + 1) / 2;
        if (A->rowptr[mid] <= p0)
            lo = mid;
        else
            hi = mid - 1;
    }
    for (i = lo; p < p1; i++) {
        mmnc_int end = A->rowptr[i + 1] < p1 ? A->rowptr[i + 1] : p1;
        for (; p < end; p++) {
            s = fmt_int(s, (long long)i + 1);
            *s++ = ' ';
            s = fmt_int(s, (long long)A->colind[p] + 1);
            *s++ = ' ';
            s = fmt_double(s, A->val[p], integral);
            *s++ = '\n';
        }
    }
    return (size_t)(s - out);
}

int mmnc_csr_write_mtx(const mmnc_csr *A, const char *path, mmnc_err *err)
{
    int status = MMNC_OK, integral = 1, opened = 0, nt = 1;
    mmnc_outfile of = {NULL, NULL, NULL};
    writer *w = NULL;
    char *buf = NULL;
    size_t plen, bsize, *len = NULL;
    mmnc_int p, b0, nblocks;

    if (!A || !path) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_csr_write_mtx: NULL argument");
    if ((status = mmnc_csr_check(A, err)) != MMNC_OK) {
        char msg[MMNC_ERRMSG_SIZE];
        if (err) {
            memcpy(msg, err->msg, sizeof msg);
            mmnc_i_err(err, status, "%s: cannot write an invalid matrix: %.900s", path, msg);
        }
        return status;
    }
    for (p = 0; p < A->nnz; p++) {
        double v = A->val[p];
        if (v != floor(v) || fabs(v) >= 9007199254740992.0) {
            integral = 0;
            break;
        }
    }
    nblocks = (A->nnz + WRITE_BLOCK - 1) / WRITE_BLOCK;
#ifdef _OPENMP
    nt = omp_get_max_threads();
    if (nt > 64) nt = 64;
#endif
    if (nt > nblocks) nt = nblocks > 0 ? (int)nblocks : 1;
    bsize = (size_t)(A->nnz < WRITE_BLOCK ? A->nnz + 1 : WRITE_BLOCK) * ENTRY_MAX; /* a block's buffer */
    MMNC_CALLOC(w, 1, err, status);
    MMNC_ALLOC(buf, (size_t)nt * bsize, err, status);
    MMNC_ALLOC(len, nt, err, status);
    if ((status = mmnc_outfile_open(&of, path, err)) != MMNC_OK) goto cleanup;
    opened = 1;
    w->fp = of.fp;
    plen = strlen(path);
    if (plen > 3 && strcmp(path + plen - 3, ".gz") == 0) {
        /* compress into the same temporary file, through a duplicate descriptor
         * so that the atomic writer still owns (and closes) its FILE */
        int fd = dup(fileno(of.fp));
        if (fd < 0 || !(w->gz = gzdopen(fd, "wb"))) {
            if (fd >= 0) close(fd);
            status = mmnc_i_err(err, MMNC_EIO, "%s: cannot start gzip output", path);
            goto cleanup;
        }
    }
    wstr(w, "%%MatrixMarket matrix coordinate real general\n");
    wint(w, A->nrows);
    wstr(w, " ");
    wint(w, A->ncols);
    wstr(w, " ");
    wint(w, A->nnz);
    wstr(w, "\n");
    for (b0 = 0; b0 < nblocks && !w->bad; b0 += nt) { /* nt blocks side by side, then written in order */
        mmnc_int nb = nblocks - b0 < nt ? nblocks - b0 : nt;
#pragma omp parallel for schedule(static, 1) num_threads(nt) if (nb > 1)
        for (mmnc_int j = 0; j < nb; j++) {
            mmnc_int p0 = (b0 + j) * WRITE_BLOCK, p1 = p0 + WRITE_BLOCK < A->nnz ? p0 + WRITE_BLOCK : A->nnz;
            len[j] = fmt_entries(A, p0, p1, integral, buf + (size_t)j * bsize);
        }
        for (mmnc_int j = 0; j < nb; j++) wbytes(w, buf + (size_t)j * bsize, len[j]);
    }
    wflush(w);
    if (w->gz) {
        int rc = gzclose_w(w->gz);
        w->gz = NULL;
        if (rc != Z_OK) w->bad = 1;
    }
    if (w->bad) {
        status = mmnc_i_err(err, MMNC_EIO, "%s: write failed", path);
        goto cleanup;
    }
    opened = 0;
    status = mmnc_outfile_commit(&of, err);

cleanup:
    if (w && w->gz) gzclose_w(w->gz);
    if (opened) mmnc_outfile_abort(&of);
    mmnc_i_free(w);
    mmnc_i_free(buf);
    mmnc_i_free(len);
    return status;
}

void mmnc_i_part_rows(mmnc_int nrows, mmnc_int (*get)(void *ctx, mmnc_int i), void *ctx, int part, int nparts,
                      mmnc_int *first, mmnc_int *end)
{
    mmnc_int nnz = get(ctx, nrows);
    /* the first row y with rowptr[y] >= e, for e = the part's share bounds */
    for (int side = 0; side < 2; side++) {
        int r = part + side;
        mmnc_int lo = 0, hi = nrows, e;
        if (r == 0) { *first = 0; continue; }
        if (r == nparts) { *end = nrows; continue; }
        e = (mmnc_int)((double)r / (double)nparts * (double)nnz);
        while (lo < hi) { /* smallest y in [0, nrows] with rowptr[y] >= e */
            mmnc_int mid = lo + (hi - lo) / 2;
            if (get(ctx, mid) >= e) hi = mid;
            else lo = mid + 1;
        }
        if (side == 0) *first = lo;
        else *end = lo;
    }
    if (*end < *first) *end = *first;
}
