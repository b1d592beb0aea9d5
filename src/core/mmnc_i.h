/*
 * mmnc_i.h -- private helpers shared by the library's modules (not installed).
 *
 * Names: mmnc_i_* for cross-file private functions; file-local helpers are
 * static and unprefixed.
 */
#ifndef MMNC_I_H
#define MMNC_I_H

#include <stdarg.h>
#include <stdio.h>
#include "mmnc.h"

#if defined(__GNUC__)
#define MMNC_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define MMNC_PRINTF(a, b)
#endif

/* Fill err (if not NULL) with code and a formatted message; returns code so
 * that callers can write `return mmnc_i_err(err, MMNC_EINVAL, "...")`. */
int mmnc_i_err(mmnc_err *err, int code, const char *fmt, ...) MMNC_PRINTF(3, 4);

/* All allocation goes through these.  n * size overflow returns NULL.  In a
 * build with MMNC_FAULT_INJECTION the k-th call can be made to fail (see
 * mmnc_i_fail_after), so tests can reach every out-of-memory exit. */
void *mmnc_i_malloc(size_t n, size_t size);
void *mmnc_i_calloc(size_t n, size_t size);
void *mmnc_i_realloc(void *p, size_t n, size_t size);
void mmnc_i_free(void *p);
char *mmnc_i_strdup(const char *s);
#ifdef MMNC_FAULT_INJECTION
/* Make the n-th allocation from now fail (n >= 1); n = 0 disables. */
void mmnc_i_fail_after(long n);
long mmnc_i_alloc_count(void);
/* Make every allocation of more than bytes fail, and count them (0 = no
 * limit): the fuzz replay tests hold each input to a limit. */
void mmnc_i_alloc_limit(size_t bytes);
long mmnc_i_alloc_over(void);
#endif

/* Convenience: allocate or set ENOMEM and jump to cleanup. */
#define MMNC_ALLOC(ptr, n, err, status)                                                  \
    do {                                                                                 \
        (ptr) = mmnc_i_malloc((size_t)(n), sizeof(*(ptr)));                             \
        if (!(ptr)) {                                                                    \
            (status) = mmnc_i_err((err), MMNC_ENOMEM, "out of memory");                  \
            goto cleanup;                                                                \
        }                                                                                \
    } while (0)
#define MMNC_CALLOC(ptr, n, err, status)                                                 \
    do {                                                                                 \
        (ptr) = mmnc_i_calloc((size_t)(n), sizeof(*(ptr)));                             \
        if (!(ptr)) {                                                                    \
            (status) = mmnc_i_err((err), MMNC_ENOMEM, "out of memory");                  \
            goto cleanup;                                                                \
        }                                                                                \
    } while (0)

/* Input streams (io/stream.c): a plain, gzip or xz file, told apart by its
 * magic bytes, or standard input for the path "-".  mmnc_i_in_read reads up
 * to n decoded bytes; *got < n only at the end of the input.  Errors name
 * the file: MMNC_EIO (open or read), MMNC_EFORMAT (corrupt or truncated
 * compressed data, never a short read), MMNC_EUNSUP (xz without liblzma),
 * MMNC_ENOMEM. */
typedef struct mmnc_i_in mmnc_i_in;
int mmnc_i_in_open(const char *path, mmnc_i_in **out, mmnc_err *err);
int mmnc_i_in_read(mmnc_i_in *s, void *buf, size_t n, size_t *got, mmnc_err *err);
const char *mmnc_i_in_kind(const mmnc_i_in *s); /* "plain", "gzip" or "xz" */
/* The raw first bytes of the input (at least 8 unless it is shorter), valid
 * between mmnc_i_in_open and the first mmnc_i_in_read: the one place to
 * sniff a format from, for a pipe cannot be opened twice. */
const unsigned char *mmnc_i_in_head(const mmnc_i_in *s, size_t *n);
/* 1 if the input is a regular file opened by path (so that a reader that
 * needs to seek may open the path again), 0 for a pipe, FIFO, device or "-". */
int mmnc_i_in_regular(const mmnc_i_in *s);
void mmnc_i_in_close(mmnc_i_in *s);

/* 3 if text p[0..n) starts with the UTF-8 byte-order mark EF BB BF (which
 * editors on Windows write), else 0: the text readers skip it, so that it
 * never becomes part of a first name, label or number. */
static inline size_t mmnc_i_bom_len(const void *p, size_t n)
{
    const unsigned char *u = (const unsigned char *)p;
    return n >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF ? 3 : 0;
}

/* Switches of the library's internals for tests and benchmarks, passed
 * in (mmnc_i_cluster, mmnc_i_data_read): every setting but guard_loo gives
 * the same bits.  MMNC_I_TUNING_DEFAULT is what the public entry points use.
 *   prune         information moves: bounds rule out clusters before their
 *                 exact costs: -1 in serial runs from k = 16, 0 never, 1 always
 *   column_order  information moves: columns numbered by frequency inside:
 *                 -1 where the tables exceed 4 MB, 0 never, 1 always
 *   guard_loo     the default's guard also asks the prior's partition to
 *                 predict held-out rows (1, the rule), or judges by the norm (0)
 *   screen        Algorithm 2's single-precision screen: -1 the environment's
 *                 MMNC_SCREEN (0, 1 or 2) or 1; 0 never, 1 when Tx outgrows
 *                 the L2 cache, 2 whenever k allows
 *   mtx_block, mtx_piece  the Matrix Market reader's blocks and the threads'
 *                 pieces in bytes (0: 32 MB, 1 MB)
 *   counts        where not NULL, counters the solvers add to (atomically)
 *   share         where not NULL, the ranks among which the starts are shared. */
typedef struct mmnc_i_counts {
    int64_t screen_rows;  /* rows scored by the screen */
    int64_t screen_exact; /* of those, rows recomputed in doubles */
    int64_t screen_full;  /* passes that recomputed every row */
} mmnc_i_counts;
typedef struct mmnc_i_tuning {
    int prune, column_order, guard_loo, screen;
    size_t mtx_block, mtx_piece;
    mmnc_i_counts *counts;
    const struct mmnc_dist *share; /* where not NULL, the ranks that share out the starts of a whole
                                      (gathered) pmf: start i runs on rank i % size (cluster.c) */
    int semi_inner; /* a run of the semi-supervision rule's cross-validation: no rule inside it (cluster.c) */
    int rows_auto;  /* co-clustering asked with MMNC_ALG_AUTO: the rows alone by auto's choice (cluster.c) */
} mmnc_i_tuning;
#define MMNC_I_TUNING_DEFAULT {-1, -1, 1, -1, 0, 0, NULL, NULL, 0, 0}

/* The threads a parallel region would have here: 1 inside a region that
 * already runs side by side (no nested teams) or with one thread. */
int mmnc_i_team_size(void);

/* Wall-clock seconds since an arbitrary origin. */
double mmnc_i_now(void);

/* FNV-1a of s[0..n): the library's one string hash (callers fold or mix
 * its bits as their tables need). */
static inline uint64_t mmnc_i_fnv1a(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
    return h;
}

/* MurmurHash3's 64-bit finaliser: every input bit reaches every output
 * bit (the hash tables' slots, the model's row hashes). */
static inline uint64_t mmnc_i_mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* External sort of (key, value) pairs (text/spill.c): sorted runs on one
 * temporary file in $TMPDIR (or /tmp), made by mkstemp and unlinked at once,
 * then a k-way merge summing the values of equal keys.
 * open:  merge_bytes is the memory the merge may use for its buffers (at
 *        least 5 buffers of 4 KB are used whatever it is); no file yet.
 * run:   sort kv[0..n-1] by key (in place; keys distinct) and append it as
 *        a run; safe to call from several threads at once.  The file is
 *        created at the first run.
 * merge: hand every distinct key, in increasing order, with the sum of its
 *        values over all runs, to fn (which returns a status); may be called
 *        again (the first call may merge groups of runs into longer ones).
 * error: fill err with the first failure of run ("cannot write the
 *        temporary file of sorted runs in DIR: No space left on device").
 * Failures: MMNC_EIO (create, write or read the file), MMNC_ENOMEM. */
typedef struct mmnc_i_kv {
    uint64_t key, val;
} mmnc_i_kv;
typedef struct mmnc_i_spill mmnc_i_spill;
typedef int (*mmnc_i_merge_fn)(void *ctx, uint64_t key, uint64_t val);
int mmnc_i_spill_open(mmnc_i_spill **out, size_t merge_bytes, mmnc_err *err);
int mmnc_i_spill_run(mmnc_i_spill *s, mmnc_i_kv *kv, size_t n);
int mmnc_i_spill_merge(mmnc_i_spill *s, mmnc_i_merge_fn fn, void *ctx, mmnc_err *err);
int mmnc_i_spill_error(const mmnc_i_spill *s, mmnc_err *err);
int64_t mmnc_i_spill_runs(const mmnc_i_spill *s);  /* runs handed to mmnc_i_spill_run */
int64_t mmnc_i_spill_bytes(const mmnc_i_spill *s); /* bytes written, merges included */
void mmnc_i_spill_close(mmnc_i_spill *s);          /* NULL is fine */
void mmnc_i_kv_sort(mmnc_i_kv *a, size_t n);       /* by key, in place, O(n log n) */

/* Union-find: the root of x, halving the path on the way. */
mmnc_int mmnc_i_uf_find(mmnc_int *parent, mmnc_int x);

/* Fill p's P (copied or taken from A), Pt, py and this process's column
 * sums px, given p->ny, nx, nnz and total (linalg/pmf.c). */
int mmnc_i_pmf_fill(mmnc_pmf *p, mmnc_csr *A, int flags, mmnc_err *err);

/* The sum of A's values (finite, >= 0: mmnc_csr_check), and p's P_X (the
 * column sums of P), as exact sums rounded once (mmnc_i_fix_add; for the
 * total the values scaled by the power of two that brings the largest below
 * 1): the same bits for any number of ranks, so every rank of a distributed
 * run holds the P of one process.  Collective where dist (p->dist) has
 * several ranks (linalg/pmf.c). */
double mmnc_i_total(const mmnc_csr *A, const mmnc_dist *dist);
int mmnc_i_pmf_px(mmnc_pmf *p, mmnc_err *err);

/* mmnc_dtm_mul / mmnc_dtm_tmul keeping their large buffer (the panels of X)
 * in ws from one product to the next, so that an iteration does not map and
 * zero it again; same results.  ws starts as {NULL, 0} and ends with
 * mmnc_i_mulws_free (linalg/pmf.c). */
typedef struct mmnc_i_mulws {
    char *raw;
    size_t rawcap;
} mmnc_i_mulws;
void mmnc_i_dtm_mul_ws(const mmnc_pmf *p, mmnc_int m, const double *X, double *Y, mmnc_i_mulws *ws);
void mmnc_i_dtm_tmul_ws(const mmnc_pmf *p, mmnc_int m, const double *X, double *Y, mmnc_i_mulws *ws);
void mmnc_i_mulws_free(mmnc_i_mulws *ws);

/* The embedding's random start (linalg/svd.c): the |X| x m sparse sign
 * matrix Q, z nonzeros +-1 a row; col and sgn (|X| x z) hold each row's
 * columns and signs over sqrt(P_X).  For tests, which rebuild the first
 * iteration. */
void mmnc_i_sign_start(const mmnc_pmf *p, mmnc_int m, mmnc_int z, uint64_t seed, int32_t *col, double *sgn,
                       double *Q);

/* s[i] = sum of row i of A, exact and rounded once (mmnc_i_fix_add; |values| < 2^62), as
 * mmnc_i_pmf_px sums the columns: a symmetric P has P_Y = P_X bit for bit
 * (linalg/pmf.c). */
void mmnc_i_row_sums(const mmnc_csr *A, double *s);

/* Exact sums.  A value v is held as the integer round(v 2^90), in
 * MMNC_I_FIX_LIMBS signed limbs of 30 bits (limb i weighs 2^(30 i - 90)),
 * and added limb by limb: integer additions, so a sum is the same bits in
 * any order, on any number of threads, and summed across ranks by
 * mmnc_i_disum.  Only parts of v below 2^-91 are lost (rounded, the same
 * way every time); |v| < 2^62, and at most 2^32 values a sum between two
 * calls of mmnc_i_fix_carry, which brings the lower limbs back into [0,
 * 2^30) (the same sum).  mmnc_i_fix_value carries and rounds the sum to a
 * double, a function of the exact sum alone. */
#define MMNC_I_FIX_LIMBS 4
static inline void mmnc_i_fix_add(int64_t *l, double v)
{
    /* each step exact: the integer part (a conversion truncates, without a call) taken away, the rest
     * scaled by 2^30; the last limb rounded half away from zero */
    int64_t q = (int64_t)v;
    l[3] += q;
    v = (v - (double)q) * 0x1p30;
    q = (int64_t)v;
    l[2] += q;
    v = (v - (double)q) * 0x1p30;
    q = (int64_t)v;
    l[1] += q;
    v = (v - (double)q) * 0x1p30;
    l[0] += (int64_t)(v >= 0.0 ? v + 0.5 : v - 0.5);
}
void mmnc_i_fix_carry(int64_t *l);
double mmnc_i_fix_value(int64_t *l);

/* Work (entries touched, or multiply-adds) below which a loop runs on one
 * thread: starting an OpenMP team costs more than it saves.  Results never
 * depend on it (fixed partitions and summation orders). */
#define MMNC_I_OMP_MIN_WORK 100000

/* Set the OpenMP thread count for the duration of a call (0 = leave) and
 * nested parallelism off (kernels inside parallel starts run on one
 * thread); mmnc_i_threads_pop restores both as they were found, so the
 * host program's OpenMP settings survive every library call. */
typedef struct mmnc_i_threads {
    int num, levels;
} mmnc_i_threads;
mmnc_i_threads mmnc_i_threads_push(int threads);
void mmnc_i_threads_pop(mmnc_i_threads saved);

/* Part `part` of `nparts` of a binary matrix file (mmnc_data_read_part). */
int mmnc_i_bin_read_part(const char *path, int flags, int part, int nparts, const mmnc_dist *dist, mmnc_data **out,
                         mmnc_int *y0, mmnc_err *err);

/* Keep rows a .. b-1 of d (ids kept through row_orig / row_names). */
int mmnc_i_data_keep_rows(mmnc_data *d, mmnc_int a, mmnc_int b, mmnc_err *err);

/* Distributed runs (core/dist.c): the collectives of p->dist, no-ops for a
 * one-process pmf.  Every rank must call them in the same order. */
static inline int mmnc_i_distributed(const mmnc_pmf *p) { return p->dist && p->dist->size > 1; }
static inline void mmnc_i_dsum(const mmnc_pmf *p, double *x, mmnc_int n)
{
    if (mmnc_i_distributed(p)) p->dist->sum(p->dist, x, n);
}
static inline void mmnc_i_dmax(const mmnc_pmf *p, double *x, mmnc_int n)
{
    if (mmnc_i_distributed(p)) p->dist->max(p->dist, x, n);
}
static inline void mmnc_i_disum(const mmnc_pmf *p, int64_t *x, mmnc_int n)
{
    if (mmnc_i_distributed(p)) p->dist->isum(p->dist, x, n);
}
/* The status every rank returns after a step that may fail on some ranks:
 * MMNC_OK only if it succeeded everywhere; a rank that succeeded gets an
 * error naming the first rank that failed. */
int mmnc_i_agree(const mmnc_dist *dist, int status, mmnc_err *err);
/* What a rank read of its input, for mmnc_i_agree_input: ranks that read
 * the same file make the same record. */
typedef struct mmnc_i_input {
    int64_t kind;              /* how it was read: 1 a binary matrix (in place), 2 parsed whole */
    int64_t bytes;             /* the file's size (told, not compared: -1 unknown) */
    int64_t nrows, ncols, nnz; /* the whole file's */
    uint64_t sum;              /* a checksum of what was read: the binary header's, or of the data */
} mmnc_i_input;
/* mmnc_i_agree for reading path, the first collective after it: every rank
 * returns MMNC_OK only if every rank read it and made the same record.  A
 * rank whose read failed keeps its message; the others get it, prefixed
 * with the rank.  Records that differ are MMNC_EIO on every rank, with one
 * message naming the file and what rank 0 and the first other rank read.
 * One allgather of about 1 KB a rank; a no-op without dist or on one rank. */
int mmnc_i_agree_input(const mmnc_dist *dist, int status, const char *path, const mmnc_i_input *in, mmnc_err *err);
/* Rows [first, end) of part `part` of `nparts` for a CSR row pointer read
 * through get(i) = rowptr[i] (balanced by nonzeros, see mmnc_data_read_part). */
void mmnc_i_part_rows(mmnc_int nrows, mmnc_int (*get)(void *ctx, mmnc_int i), void *ctx, int part, int nparts,
                      mmnc_int *first, mmnc_int *end);

#endif /* MMNC_I_H */
