/*
 * mmnc.h -- probabilistic clustering by maximal matrix norm couplings.
 *
 * This header is the manual of libmmnc.
 *
 * Reference: D. Qiu, A. Makur, L. Zheng, "Probabilistic Clustering using
 * Maximal Matrix Norm Couplings", Allerton 2018 (called "the paper" below).
 *
 * Model.  A nonnegative co-occurrence matrix with rows Y (the things to
 * cluster: documents, movies, words) and columns X (terms, users, contexts)
 * is normalised to a joint pmf P_{Y,X}.  Its divergence transition matrix
 * (DTM) is
 *
 *     B_{Y,X} = [P_Y]^{-1/2} P_{Y,X} [P_X]^{-1/2},
 *
 * whose largest singular value is 1 with singular vectors sqrt(P_Y) and
 * sqrt(P_X).  A clustering is a column-stochastic k x |Y| kernel
 * W = P_{Z|Y}; it induces P_{Z,X} = W P_{Y,X}, P_Z = W P_Y and
 *
 *     B_{Z,X} = [P_Z]^{-1/2} W P_{Y,X} [P_X]^{-1/2}.
 *
 * Algorithms.  mmnc_cluster learns W from random (or spectral, k-means++)
 * starts by one of four objectives (mmnc_params.algorithm), or by the
 * choice between the first two that the data make
 * (MMNC_ALG_AUTO, the default of mmnc_params_default):
 *   - the Dirichlet mixture (MMNC_ALG_DMM; the default's where the values are
 *     counts): the evidence of a mixture of
 *     multinomials of the rows' counts with Dirichlet priors on the mixing
 *     weights (alpha) and on each cluster's column distribution (beta),
 *     maximised over hard labels by sequential single-row moves and over
 *     alpha and beta by fixed points between sweeps, beta no less than
 *     mmnc_params.dmm_beta (Jeffreys' 1/2 by default) (docs/dmm.md);
 *   - the information objective (MMNC_ALG_INFORMATION; the default's where
 *     the values are not all whole numbers, or with column clusters): the
 *     exact mutual information I(X;Z) with a prior
 *     on the cluster sizes, J = I(X;Z) - gamma (|Y| / nnz) H_rows(Z), raised
 *     by sequential single-row moves (the sequential information
 *     bottleneck's).  A guard keeps the prior's partition only if it does
 *     not lower ||B_{Z,X}||_* and predicts held-out rows, an agreement rule
 *     only if the starts agree with one another at least as well with it as
 *     without, and merge-split trials then leave optima that no single row's
 *     move can (docs/default.md);
 *   - Algorithm 2 (MMNC_ALG_NUCLEAR): ||B_{Z,X}||_*, alternating
 *     maximisation of a Ky Fan bound (paper, Alg. 2): hard labels, or with a
 *     prescribed P_Z solved exactly as a transportation LP;
 *   - Algorithm 1 (MMNC_ALG_FROBENIUS): ||B_{Z,X}||_F^2 with a target P_Z,
 *     projected gradient ascent with a marginal penalty (paper, Alg. 1): a
 *     soft kernel.
 * Algorithm 2's hard labels may be refined by the information moves
 * (mmnc_params.refine).
 *
 * The header, in order: the table of defaults; errors, atomic output files
 * and random numbers; sparse matrices and data sets, with the readers
 * (mmnc_data_read: Matrix Market, triplets, libsvm, MATLAB, dense CSV/TSV,
 * mmnc's binary format; mmnc_data_load) and writers; the joint pmf and the
 * DTM (products, SVD, components) and distributed runs, whose rows are
 * split across MPI ranks (mmnc_dist; mmnc_mpi.h, docs/mpi.md); embeddings
 * of the rows by the DTM's singular vectors (mmnc_embed) and word2vec
 * files; statistics of a coupling; clustering (mmnc_cluster); saved models
 * and the prediction of new rows (mmnc_model_*, docs/model-format.md);
 * scores against reference labels (mmnc_evaluate); and matrices from
 * text: word co-occurrences (mmnc_cooc_build) and documents x terms
 * (mmnc_docs_build).
 *
 * Conventions.
 *   - Indices are mmnc_int (64-bit), 0-based inside the library.
 *   - Every function that can fail returns a status (MMNC_OK == 0 or one of
 *     the MMNC_E* codes) and, when err is not NULL, fills err with the same
 *     code and a message that names the file, the line and what was expected
 *     where that applies.  The library never prints, exits or aborts.
 *   - Outputs come last; objects returned through `**out` belong to the
 *     caller and are released with the matching *_free function, which
 *     accepts NULL.
 *   - Results are deterministic given params.seed and do not depend on the
 *     number of threads: every parallel reduction uses a fixed partition and
 *     a fixed summation order.
 *   - Threads: the kernels use OpenMP; BLAS and LAPACK calls are small.  With
 *     the pthreads build of OpenBLAS, call openblas_set_num_threads(1) (or set
 *     OPENBLAS_NUM_THREADS=1) before clustering, as the mmnc tool does: its
 *     idle workers spin and take a core from the OpenMP threads.
 *   - Precision: everything is computed in double precision.  Algorithm 2's
 *     hard steps with 2 <= k <= 16 first score each row from a single-
 *     precision copy of the |X| x k block they gather (one aligned cache
 *     line per nonzero; k = 10 in doubles takes two); a row is decided from those scores only when
 *     a rigorous bound on their rounding error proves the decision the same
 *     as in doubles, and is recomputed in doubles otherwise.  The results are
 *     bit for bit those of the double-precision path.  The environment
 *     variable MMNC_SCREEN=0 turns the screen off and MMNC_SCREEN=2 uses it
 *     at every size (by default only where the block outgrows the L2
 *     cache): for tests and timing, since the results do not change.
 */
#ifndef MMNC_H
#define MMNC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MMNC_API marks the functions libmmnc exports; the library is built with
 * -fvisibility=hidden, so nothing else (no mmnc_i_* helper) is visible. */
#if defined(__GNUC__) && __GNUC__ >= 4
#define MMNC_API __attribute__((visibility("default")))
#else
#define MMNC_API
#endif

#define MMNC_VERSION_MAJOR 0
#define MMNC_VERSION_MINOR 1
#define MMNC_VERSION_PATCH 0
#define MMNC_VERSION_STRING "0.1.0"

typedef int64_t mmnc_int;

/* ------------------------------------------------------------------------ */
/* Defaults                                                                  */
/* ------------------------------------------------------------------------ */

/*
 * Every default of the library, in one table: mmnc_params_default and the
 * *_opts_default functions fill their structs from it, `mmnc COMMAND --help`
 * prints it, and the Python package reads it from the library; the fields
 * below name these macros instead of restating a value, and
 * tests/defaults/run.sh checks the help texts, this header and Python
 * against the table.  Numbers are plain literals, printed as written.
 * Options that are off by default (flags, MMNC_FMT_AUTO, MMNC_MAP_NONE,
 * NULL callbacks) are documented with their fields.
 */

/* mmnc_params (mmnc_cluster; `mmnc cluster`, `mmnc sweep`, Python's MMNC) */
#define MMNC_DEFAULT_ALGORITHM   MMNC_ALG_AUTO
#define MMNC_DEFAULT_K           2      /* clusters, 1 <= k <= rows */
#define MMNC_DEFAULT_SEED        1      /* also of mmnc_embed_opts and `mmnc info --sv` */
#define MMNC_DEFAULT_RESTARTS    8      /* >= 1 */
#define MMNC_DEFAULT_INIT        MMNC_INIT_RANDOM
#define MMNC_DEFAULT_SELECT      MMNC_SELECT_OBJECTIVE
#define MMNC_DEFAULT_SELECT_TOL  0.0    /* >= 0 */
#define MMNC_DEFAULT_REFINE      MMNC_REFINE_NONE
#define MMNC_DEFAULT_SIZE_PRIOR  7.0    /* gamma >= 0 */
#define MMNC_DEFAULT_MOVE_TOL    0.002  /* in [0, 1) */
#define MMNC_DEFAULT_MERGE_SPLIT 8      /* >= 0 */
#define MMNC_DEFAULT_AGREEMENT   1      /* 0 or 1 */
#define MMNC_DEFAULT_MOVES       MMNC_MOVES_AUTO
#define MMNC_DEFAULT_COL_CLUSTERS 0     /* >= 0; 0: no column clustering */
#define MMNC_DEFAULT_DMM_BETA    0.5    /* >= 0: beta's least value (Jeffreys' prior); 0: none */
#define MMNC_DEFAULT_TOL         1e-6   /* Algorithm 1, > 0 */
#define MMNC_DEFAULT_LAMBDA      10.0   /* Algorithm 1's penalty where lambda <= 0; its step where
                                           step <= 0 is 1 / lambda */
#define MMNC_DEFAULT_THREADS     0      /* OpenMP's default; also of the option structs */
/* The iteration cap per start where max_iter = 0 (the default): */
#define MMNC_DEFAULT_MAX_ITER             0
#define MMNC_DEFAULT_MAX_ITER_NUCLEAR     300  /* Algorithm 2 */
#define MMNC_DEFAULT_MAX_ITER_INFORMATION 100  /* sweeps of the information moves, and of refine */
#define MMNC_DEFAULT_MAX_ITER_FROBENIUS   3000 /* Algorithm 1 */
#define MMNC_DEFAULT_MAX_ITER_EXACT       100  /* Algorithm 1 with exact_marginal */
/* The characteristic columns per cluster that `mmnc cluster` lists (mmnc_top_columns) */
#define MMNC_DEFAULT_TOP         10

/* mmnc_read_opts and mmnc_labels_read */
#define MMNC_DEFAULT_ROW_FIELD   1      /* triplets: 1-based fields */
#define MMNC_DEFAULT_COL_FIELD   2
#define MMNC_DEFAULT_VALUE_FIELD 3      /* 0: each line counts 1 */
#define MMNC_DEFAULT_MAT_VAR     "fea"  /* the data's variable in a .mat file */
#define MMNC_DEFAULT_LABELS_VAR  "gnd"  /* the labels' variable in a .mat file */

/* mmnc_embed_opts (mmnc_embed; `mmnc embed`, Python's embed) */
#define MMNC_DEFAULT_EMBED_DIM         640  /* the paper's; >= 1 */
#define MMNC_DEFAULT_EMBED_SIGMA_POWER 0.0  /* unscaled */
#define MMNC_DEFAULT_EMBED_OVERSAMPLE  (-1) /* < 0: max(20, d/4) */
#define MMNC_DEFAULT_EMBED_TOL         1e-3 /* > 0 */
#define MMNC_DEFAULT_EMBED_MAX_ITER    50   /* >= 1 */

/* mmnc_cooc_opts (mmnc_cooc_build; `mmnc cooc`, Python's cooc) */
#define MMNC_DEFAULT_COOC_WINDOW     5      /* 1 <= window <= MMNC_COOC_WINDOW_MAX */
#define MMNC_DEFAULT_COOC_WEIGHTING  1      /* 1: harmonic (1/d), 0: flat */
#define MMNC_DEFAULT_COOC_MIN_COUNT  5      /* >= 1 */
#define MMNC_DEFAULT_COOC_MAX_VOCAB  0      /* 0: no limit */
#define MMNC_DEFAULT_COOC_SENTENCES  1
#define MMNC_DEFAULT_COOC_MAX_MEMORY 0      /* 0: no limit, else >= MMNC_COOC_MEMORY_MIN */
#define MMNC_COOC_WINDOW_MAX         1000
#define MMNC_COOC_MEMORY_MIN         65536  /* bytes */

/* mmnc_docs_opts (mmnc_docs_build; `mmnc docs`) */
#define MMNC_DEFAULT_DOCS_MIN_DF     1      /* >= 1: documents, in (0, 1): a fraction of them */
#define MMNC_DEFAULT_DOCS_MAX_DF     1      /* <= 1: a fraction (1: no limit), > 1: documents */
#define MMNC_DEFAULT_DOCS_MIN_COUNT  1      /* >= 1 */
#define MMNC_DEFAULT_DOCS_MAX_VOCAB  0      /* 0: no limit */

/* The names of earlier releases */
#define MMNC_SIZE_PRIOR_DEFAULT  MMNC_DEFAULT_SIZE_PRIOR
#define MMNC_MOVE_TOL_DEFAULT    MMNC_DEFAULT_MOVE_TOL
#define MMNC_MERGE_SPLIT_DEFAULT MMNC_DEFAULT_MERGE_SPLIT

/* ------------------------------------------------------------------------ */
/* Status codes and errors                                                   */
/* ------------------------------------------------------------------------ */

enum {
    MMNC_OK = 0,
    MMNC_EINVAL = 1,  /* invalid argument or parameter */
    MMNC_ENOMEM = 2,  /* allocation failed */
    MMNC_EIO = 3,     /* cannot open, read or write a file */
    MMNC_EFORMAT = 4, /* malformed or unsupported file contents */
    MMNC_ENOCONV = 5, /* an iterative method did not converge */
    MMNC_ELP = 6,     /* the LP solver failed */
    MMNC_EUNSUP = 7,  /* feature not compiled in (GLPK, matio, ...) */
    MMNC_ECANCELED = 8 /* stopped at the caller's request (mmnc_params.progress returned nonzero) */
};

#define MMNC_ERRMSG_SIZE 1024

/* Error record filled by failing calls.  code == MMNC_OK means no error. */
typedef struct mmnc_err {
    int code;
    char msg[MMNC_ERRMSG_SIZE];
} mmnc_err;

/* Short description of a status code ("invalid argument", ...). */
MMNC_API const char *mmnc_strerror(int code);

/* Release an array that the library returned to the caller (the labels of
 * mmnc_labels_read, the vectors of mmnc_vectors_read, ...): the one way to
 * free such memory, since the library may allocate with its own wrapper.
 * Objects with their own *_free (mmnc_csr_free, mmnc_names_free, ...) are
 * released with that.  Accepts NULL.  O(1). */
MMNC_API void mmnc_free(void *p);

/* The whole decoded contents of a plain, gzip or xz file, or of standard
 * input for "-", read through one open (so a pipe, a FIFO or a process
 * substitution works): *data gets *len bytes and a final NUL (the contents
 * may hold NUL bytes of their own), released with mmnc_free.  Errors name
 * the file: MMNC_EIO, MMNC_EFORMAT (corrupt or truncated compressed data),
 * MMNC_EUNSUP (xz without liblzma), MMNC_ENOMEM; *data is then NULL.
 * Time and memory O(size). */
MMNC_API int mmnc_file_read_all(const char *path, char **data, size_t *len, mmnc_err *err);

/* ------------------------------------------------------------------------ */
/* Atomic output files and random numbers                                    */
/* ------------------------------------------------------------------------ */

/*
 * An output file that appears whole or not at all: mmnc_outfile_open
 * creates a temporary file beside path (mmnc_outfile_tmp_path) and opens
 * it for writing in o->fp (binary mode); write to o->fp with stdio;
 * mmnc_outfile_commit closes it, checks that every write succeeded, flushes
 * it to the disk (fsync) and renames it to path (replacing a file there);
 * mmnc_outfile_abort closes and removes it.  Every opened file must be
 * committed or aborted (abort after a commit, or on a zeroed struct, does
 * nothing).  The library's own writers (mmnc_csr_write_mtx,
 * mmnc_data_write_bin, mmnc_vectors_write, mmnc_model_write) write this way.
 * Errors: MMNC_EIO naming path (cannot create the temporary file; a write,
 * close, sync or rename failed, in which case the temporary file is
 * removed), MMNC_ENOMEM.  After an error o->fp is NULL and nothing is left
 * to free.
 *
 * mmnc_outfile_tmp_path: the temporary name that mmnc_outfile_open uses for
 * path in this process: path's directory, then ".mmnc-PID-HASH" (the
 * process id, 16 hex digits of a hash of path's base name).  It is short
 * and does not grow with path's base name, so any name that fits the file
 * system has one; and it is known before the file exists, for a caller that
 * removes temporary files when a signal ends the process.  *tmp: free with
 * mmnc_free.  Errors: MMNC_EINVAL (NULL argument), MMNC_ENOMEM.  O(length).
 */
typedef struct mmnc_outfile {
    FILE *fp;   /* write here between open and commit */
    char *path; /* owned by the library */
    char *tmp;  /* owned by the library */
} mmnc_outfile;
MMNC_API int mmnc_outfile_open(mmnc_outfile *o, const char *path, mmnc_err *err);
MMNC_API int mmnc_outfile_commit(mmnc_outfile *o, mmnc_err *err);
MMNC_API int mmnc_outfile_tmp_path(const char *path, char **tmp, mmnc_err *err);
MMNC_API void mmnc_outfile_abort(mmnc_outfile *o);

/*
 * The library's random numbers: xoshiro256** seeded by splitmix64, the
 * generator behind every seed in mmnc_params and the option structs.  The
 * state lives with the caller (no globals); the same seed gives the same
 * sequence on every platform.  Each call is O(1) (mmnc_rng_below: expected
 * O(1), rejection sampling keeps it unbiased).
 */
typedef struct mmnc_rng {
    uint64_t s[4];
} mmnc_rng;
MMNC_API void mmnc_rng_seed(mmnc_rng *r, uint64_t seed);
MMNC_API uint64_t mmnc_rng_next(mmnc_rng *r);          /* 64 random bits */
MMNC_API double mmnc_rng_uniform(mmnc_rng *r);         /* in [0, 1), 53 bits */
MMNC_API mmnc_int mmnc_rng_below(mmnc_rng *r, mmnc_int n); /* in [0, n), n >= 1 */
MMNC_API double mmnc_rng_normal(mmnc_rng *r);          /* standard normal (Box-Muller) */

/* ------------------------------------------------------------------------ */
/* Sparse matrices (compressed sparse rows)                                  */
/* ------------------------------------------------------------------------ */

/*
 * Row i holds entries colind[rowptr[i] .. rowptr[i+1]-1] with values val[..],
 * columns strictly increasing within a row, no explicit zeros when produced
 * by the library.  The transpose of a CSR matrix is its CSC form.
 */
typedef struct mmnc_csr {
    mmnc_int nrows, ncols, nnz;
    mmnc_int *rowptr; /* nrows + 1 */
    mmnc_int *colind; /* nnz */
    double *val;      /* nnz */
} mmnc_csr;

/* Allocate an nrows x ncols matrix with room for nnz entries (rowptr zeroed).
 * Returns NULL and fills err on failure.  O(nrows + nnz) memory. */
MMNC_API mmnc_csr *mmnc_csr_alloc(mmnc_int nrows, mmnc_int ncols, mmnc_int nnz, mmnc_err *err);
MMNC_API void mmnc_csr_free(mmnc_csr *A);

/* Build a CSR matrix from 0-based triplets (ri[t], ci[t], v[t]).  Duplicate
 * entries are summed; entries that are (or sum to) zero are dropped; columns
 * are sorted within rows.  Indices must lie in range (MMNC_EINVAL otherwise).
 * O(nnz + nrows + ncols) time and memory; when ncols exceeds 8 (nnz + 1024)
 * (a few entries with a huge column index), a comparison sort instead:
 * O(nnz log nnz + nrows) time, O(nnz + nrows) memory, the same result. */
MMNC_API int mmnc_csr_from_triplets(mmnc_int nrows, mmnc_int ncols, mmnc_int nnz,
                           const mmnc_int *ri, const mmnc_int *ci, const double *v,
                           mmnc_csr **out, mmnc_err *err);

/* out = A^T (equivalently the CSC form of A).  O(nnz + nrows + ncols). */
MMNC_API int mmnc_csr_transpose(const mmnc_csr *A, mmnc_csr **out, mmnc_err *err);

/* Check structure (monotone rowptr, sorted in-range columns) and values
 * (finite, >= 0).  MMNC_EINVAL with the offending row on failure. */
MMNC_API int mmnc_csr_check(const mmnc_csr *A, mmnc_err *err);

/* Write A as a Matrix Market "coordinate real general" file, 1-based.  The
 * file is written to a temporary name and renamed into place, so a failed
 * write leaves no partial file.  A path ending in ".gz" is compressed.
 * Values are integers where all are, else the shortest of %.15g and %.17g
 * that reads back exactly.  The lines are formatted on all threads (OpenMP),
 * in blocks of entries written in order: the same bytes for any number.
 * O(nnz); buffers of at most 2.6 MB a thread. */
MMNC_API int mmnc_csr_write_mtx(const mmnc_csr *A, const char *path, mmnc_err *err);

/* ------------------------------------------------------------------------ */
/* Data sets: a matrix with the original ids of its rows and columns         */
/* ------------------------------------------------------------------------ */

typedef struct mmnc_data {
    mmnc_csr *A;        /* nonnegative co-occurrence values, rows = Y */
    char **row_names;   /* NULL, or A->nrows strings: original row ids */
    char **col_names;   /* NULL, or A->ncols strings: original column ids */
    mmnc_int *row_orig; /* NULL (identity), or the original 0-based index of each row */
    mmnc_int *col_orig; /* NULL (identity), or the original 0-based index of each column */
    mmnc_int orig_rows, orig_cols; /* shape as read, before any drop */
} mmnc_data;

MMNC_API void mmnc_data_free(mmnc_data *d);

/* Release the nonzeros of d->A, keeping its shape and the ids: d->A becomes
 * an empty nrows x ncols matrix.  For after mmnc_pmf_build, which copies
 * what it needs, when d is kept only to name rows and columns (and to read
 * labels against it): saves 16 bytes per nonzero of peak memory. */
MMNC_API void mmnc_data_drop_values(mmnc_data *d);

/* The original id of row i (resp. column j) as a string: row_names[i] if
 * present, else the 1-based original index written into buf.  buf must hold
 * 32 bytes.  Returns a pointer to the id (into d or into buf). */
MMNC_API const char *mmnc_data_row_id(const mmnc_data *d, mmnc_int i, char *buf);
MMNC_API const char *mmnc_data_col_id(const mmnc_data *d, mmnc_int j, char *buf);

/* The name of a side file of a Matrix Market file, as mmnc names them (the
 * ids written by mmnc_data_write_mtx, the vocabulary of `mmnc cooc`): path
 * without ".mtx" or ".mtx.gz", plus ext (".rows", ".cols", ".vocab"); a
 * path with neither ending gets ext appended.  *out: free with mmnc_free.
 * Errors: MMNC_EINVAL (NULL argument), MMNC_ENOMEM.  O(length). */
MMNC_API int mmnc_mtx_side_path(const char *path, const char *ext, char **out, mmnc_err *err);

/* Write d as Matrix Market to path (mmnc_csr_write_mtx: 1-based, ".gz"
 * compressed) and, when its row ids are not 1..nrows (row_names or
 * row_orig set), the id of each row, one per line (mmnc_data_row_id), to
 * the side file ".rows" (mmnc_mtx_side_path); likewise the columns to
 * ".cols".  All the files or none: each goes to a temporary name first,
 * the side files are renamed after the matrix.  *wrote_rows, *wrote_cols
 * (may be NULL): 1 if that side file was written.  Errors: MMNC_EINVAL
 * (also for a name holding a line break, which a side file of one name a
 * line cannot hold; nothing is written), MMNC_EIO naming the file,
 * MMNC_ENOMEM.  O(nnz + nrows + ncols + id bytes). */
MMNC_API int mmnc_data_write_mtx(const mmnc_data *d, const char *path, int *wrote_rows, int *wrote_cols,
                                 mmnc_err *err);

typedef enum {
    MMNC_FMT_AUTO = 0, /* from the file contents and name (see mmnc_data_read) */
    MMNC_FMT_MTX,      /* Matrix Market coordinate: real, integer or pattern; general */
    MMNC_FMT_TRIPLET,  /* text "row col [value]" with string keys */
    MMNC_FMT_LIBSVM,   /* libsvm/svmlight: "label idx:val idx:val ..." one row per line */
    MMNC_FMT_MAT,      /* MATLAB v5/v7 .mat (libmatio): a sparse or dense variable */
    MMNC_FMT_BIN,      /* mmnc's binary matrix file (mmnc_data_write_bin, docs/binary-format.md) */
    MMNC_FMT_DENSE     /* a dense table: CSV, TSV, semicolon- or space-separated numbers, with an
                          optional header line of column names and first column of row names */
} mmnc_format;

typedef struct mmnc_read_opts {
    mmnc_format format;  /* default MMNC_FMT_AUTO */
    /* Triplet text: 1-based field numbers of the row key, the column key and
     * the value (value_field = 0: each line counts 1).  Defaults
     * MMNC_DEFAULT_ROW_FIELD, MMNC_DEFAULT_COL_FIELD, MMNC_DEFAULT_VALUE_FIELD. */
    int row_field, col_field, value_field;
    char delim;          /* field separator; 0 = any run of spaces/tabs (default; dense tables:
                            detected, see mmnc_data_read) */
    const char *mat_var; /* MAT: variable to read (default MMNC_DEFAULT_MAT_VAR) */
    int libsvm_zero_based; /* libsvm: 1 = feature indices start at 0 (default: at 1) */
    int bin_no_verify;   /* binary: 1 = skip the section checksums (structure and values are
                            still checked) (default: verify) */
    int extra_fields;    /* triplets: fields after the last one named above: 0 = a line with
                            them is an error (default: a dense CSV read as triplets must not
                            pass silently), 1 = ignored (MovieLens u.data's timestamp) */
    int header;          /* triplets: the first line that is not blank or a comment names the
                            columns (CSV/TSV with a header) and is skipped (default: no); dense:
                            the same as dense_header = 1 */
    int dense_header;    /* dense: 1 = the first line (not blank or a comment) names the columns,
                            -1 = it does not, 0 = decide from the line (default; see
                            mmnc_data_read) */
    int dense_row_names; /* dense: 1 = the first field of each line names the row, -1 = every
                            field is a value, 0 = decide (default; see mmnc_data_read) */
} mmnc_read_opts;

MMNC_API void mmnc_read_opts_default(mmnc_read_opts *o);

/* Sizes come from content, not claims: the most rows without entries
 * (2^24, 128 MB of row pointers) that a Matrix Market size line may claim
 * beyond its entry count, and the most ids without a name that a keyed
 * names file may skip (mmnc_names_read).  Every other reader sizes its arrays by what it
 * has read (lines, entries, words), never by a count written in the file. */
#define MMNC_MAX_EMPTY_ROWS ((mmnc_int)1 << 24)

/*
 * Read a data file (plain, gzip or xz, detected by magic bytes; "-" reads
 * standard input) into *out.  A UTF-8 byte-order mark at the start of a
 * text file is skipped, here and in the other text readers (labels, names,
 * fixed labels, word vectors).  MMNC_FMT_AUTO picks the binary format for
 * files starting with its magic bytes (see mmnc_data_read_bin), MAT for
 * files starting with "MATLAB", Matrix
 * Market for files starting with "%%MatrixMarket", and also for files that
 * start with a '%' comment line and whose first other line is three integers
 * "rows cols entries" (Matrix Market text without its banner, as many tools
 * write it); libsvm when the second field of the first data line has the
 * form "i:v"; a dense table when that is unambiguous (below); triplets
 * otherwise.
 *   Dense detection (MMNC_FMT_AUTO, only when no triplet option is set:
 *   fields, delim and extra_fields at their defaults): the separator of the
 *   first data line is a tab if it has one, else ';' if it has one, else
 *   ',' if it has one, else runs of spaces.  A first line that would be a
 *   header (below) is set aside.  With ',' or ';' (triplets split on
 *   blanks, so such lines are not default triplets) the table is dense when
 *   the first data line has F >= 4 fields; the dense reader then reports any
 *   ragged or non-numeric line.  With tabs or spaces it is dense only when
 *   there is a header line and the complete lines of the first block (at
 *   most 64 data lines) all have the same number F >= 4 of fields (the
 *   header F or F - 1), every one a number except perhaps the first:
 *   all-numeric tab-separated lines are ambiguous (MovieLens u.data's four
 *   fields are a triplet and a timestamp) and stay triplets.  A file of 3
 *   or fewer fields per line stays triplets ("1,2,5" is a triplet with
 *   delim ','): force dense with MMNC_FMT_DENSE.
 *   - Matrix Market: coordinate real/integer/pattern, general or symmetric
 *     (the lower triangle stored, mirrored here; an entry above the diagonal
 *     or a non-square symmetric matrix is MMNC_EFORMAT), and array
 *     real/integer (dense, column by column, "rows cols" size line; zeros
 *     are not stored), general or symmetric; ids are the
 *     1-based indices (row_names = col_names = NULL).  Exactly `entries`
 *     entries must follow the size line, and the size line may claim at
 *     most entries + MMNC_MAX_EMPTY_ROWS rows (the matrix keeps a row
 *     pointer per row: a claim of 10^9 rows would cost 8 GB before any
 *     entry is read); more is MMNC_EFORMAT naming the line and the size.
 *     Columns are only a number (a claim of 10^12 costs nothing).  Without the banner (AUTO as above,
 *     or MMNC_FMT_MTX) the file is read as coordinate real general.  With
 *     it, the file is read as Matrix Market only: a forced MMNC_FMT_TRIPLET,
 *     MMNC_FMT_DENSE or MMNC_FMT_LIBSVM, or o->header, would read its size
 *     line as data and is MMNC_EFORMAT "file:1: a Matrix Market file
 *     ('%%MatrixMarket ...'), not dense: ...".
 *   - Triplets: lines of fields; '#' and '%' start comment lines; keys are
 *     arbitrary strings, mapped to rows/columns in order of first appearance;
 *     row_names/col_names keep them (a key whose entries are all 0 still
 *     gets its row/column).  Duplicates are summed.  In MMNC_FMT_AUTO a
 *     file whose row and column keys are all numbers not written as
 *     integers ("6.70", "1e-3") is MMNC_EFORMAT naming its first data line:
 *     it is a table of numbers split at delim (read it with
 *     MMNC_FMT_DENSE); MMNC_FMT_TRIPLET keeps such keys as strings.
 *   - libsvm: one row per line (blank and '#' lines are skipped, "qid:" and
 *     trailing "# ..." are ignored), the label is ignored (read labels with
 *     mmnc_labels_read); ids are row numbers and feature indices; ncols is
 *     the largest feature index (+1 when zero-based).
 *   - Dense: one row per line of fields separated by o->delim, or as
 *     detected above (tab, ';', ',', or runs of spaces); blank lines and
 *     lines starting with '#' or '%' are skipped; a field may be quoted
 *     with double quotes ("" inside is one quote).  The first line is a
 *     header of column names (col_names) when o->dense_header or o->header
 *     say so, or, undecided, when one of its fields after the first is not
 *     a number or its first field is empty, or when it is the plain
 *     integers 0, 1, ..., n-1 or 1, 2, ..., n (n >= 2: what pandas' to_csv
 *     writes for columns without names) and a data line below it in the
 *     first block (at most 64) holds a number not written as an integer
 *     ("5.1", "3.0", "1e-3"); over integers alone such a line may be a row
 *     of counts and stays data (say o->header).  The first field of each line
 *     names the row (row_names) when o->dense_row_names says so, or,
 *     undecided, when the first field of the first data line is not a
 *     number, when the header has one field fewer than the data lines (R's
 *     write.csv) or when the header's first field is empty (pandas'
 *     to_csv); the row names are the rows' ids, so a name on two lines is
 *     MMNC_EFORMAT "file:line: row name 'r1' is given twice (lines 2 and 3)",
 *     and so is a column name given twice in the header ("file:line: column
 *     name 'a' is given twice (fields 2 and 4)"; empty names may repeat).
 *     Every line has the same number of fields (MMNC_EFORMAT
 *     "file:line: expected N fields (as line L), got M"); every value
 *     field is a finite decimal number >= 0 (below; a decimal comma is not
 *     read: use ';' or a tab between fields and '.' in numbers); zeros are
 *     not stored.
 *     Without a header the column ids are 1, 2, ...; without row names
 *     the row ids are the line order 1, 2, ....  The separator is chosen
 *     from the raw first line (a quoted name holding a tab or ';' misleads
 *     it: set delim).
 *   - binary: as mmnc_data_read_bin (checksums verified unless
 *     o->bin_no_verify); ids, names and the original shape come back as
 *     they were written.
 * Values in text are decimal numbers: an optional sign, digits with at
 * most one '.' among or after them ("3", "0.25", ".5", "5."), then an
 * optional exponent ("1e-3", "2.5E+10"); at most 79 characters.  They are
 * read as the C library reads them in the C locale, correctly rounded,
 * whatever the process's locale (a comma is never a decimal point).  The
 * other forms the C library reads -- hexadecimal ("0x10", "0x1p-3"),
 * "inf", "infinity", "nan" -- are MMNC_EFORMAT naming the line (and in a
 * dense table the field and its column): "expected a decimal number,
 * found '0x10'", "value 'nan' is not a finite number"; anything else is
 * "expected a number".  Where a dense table's header line and row-name
 * column are detected, those forms count as numbers, so that a line of
 * data holding one is refused rather than taken for a header, and a first
 * column of "0x1f" ids is refused with the hint to name it
 * (dense_row_names = 1).  Values are finite and
 * >= 0; a nonzero value must be at least DBL_MIN (about 2.2e-308): a
 * literal such as "1e-400" that would be read as 0 or as a subnormal number
 * is MMNC_EFORMAT.  A Matrix Market file whose header says integer holds
 * whole numbers only ("2.5" is MMNC_EFORMAT).  MAT and binary files hold
 * doubles, under the same rule: a negative, non-finite or subnormal one
 * (nonzero, below DBL_MIN) is MMNC_EFORMAT naming the file and the entry
 * ("file: variable 'fea': value 1e-310 at (2, 3) is below DBL_MIN = ...").
 * Entries with value 0 are allowed and dropped.
 * Errors: MMNC_EIO (cannot open/read), MMNC_EFORMAT (malformed line, NaN or
 * Inf, negative value, a value that is not decimal or below DBL_MIN, index
 * out of range, truncated or corrupt file, empty file, wrong format), and MMNC_EINVAL for invalid options or an empty matrix
 * (no nonzero entries); the message names file and line.
 * O(file size) time, O(nnz) memory beyond the result for triplets.
 */
MMNC_API int mmnc_data_read(const char *path, const mmnc_read_opts *o, mmnc_data **out, mmnc_err *err);

/* Read s[0..n) whole as a number in the syntax of the values in text
 * (mmnc_data_read): a decimal number, read in any locale as in the C
 * locale, correctly rounded, finite.  Blanks around it are not part of it;
 * its sign and range are the caller's to check (0, negative and subnormal
 * numbers are returned).  The other forms the C library reads are refused:
 * MMNC_EFORMAT "expected a decimal number, found '0x1p-3'", "value 'inf' is
 * not a finite number" (also "1e999"), and "expected a number, found 'x'"
 * for the rest (empty, blanks, more than 79 characters).  The command-line
 * tool reads its options' numbers so.  Errors: also MMNC_EINVAL (s or x
 * NULL).  O(n). */
MMNC_API int mmnc_number_parse(const char *s, size_t n, double *x, mmnc_err *err);

/* Read class labels, one per row: a text file with one label per line, or a
 * text file of "id label" pairs (matched to d's row ids when d != NULL), or a
 * MAT file variable (name in mat_var, NULL: MMNC_DEFAULT_LABELS_VAR).  A libsvm file gives
 * the first field of each line.  Labels are arbitrary strings (numbers from
 * a MAT file are formatted with %.17g) mapped to 0..nclasses-1 in order of
 * first appearance among the returned rows; *out has
 * `n` entries.  When d is given, labels are reordered to d's rows (after
 * drops, via d->row_orig; a file of plain labels must then have
 * d->orig_rows of them, and "id label" files must name every row id).
 * A file of plain labels is refused (MMNC_EFORMAT) when a row's id is a
 * number other than its 1-based place as read (triplet keys come in their
 * order of first appearance): line k would label id k on one reading (as
 * `mmnc eval` reads it) and the k-th row read on the other.
 * Errors as for mmnc_data_read. */
MMNC_API int mmnc_labels_read(const char *path, const char *mat_var, const mmnc_data *d,
                     mmnc_int *n, mmnc_int **out, mmnc_int *nclasses, mmnc_err *err);

/* Read the given clusters of a semi-supervised run (mmnc_params.fixed_label)
 * for the rows of d: a text file (plain, gzip or xz) of lines "ID CLUSTER",
 * fields separated by tabs (then an ID may hold spaces) or else by blanks.
 * ID is a row id as mmnc_data_row_id gives it (the first column of the
 * labels.tsv of `mmnc cluster`: row names where d has them, else original
 * row numbers from 1); CLUSTER an integer 1..k (the numbering of
 * labels.tsv).  Further fields are ignored, and so is a first line whose
 * second field is not a number (a header such as labels.tsv's
 * "id cluster probability"): an edited labels.tsv of an earlier run can be
 * given back.  Blank lines and lines starting with '#' are ignored.
 * *out: d->A->nrows entries (free with mmnc_free), the 0-based cluster of
 * each labelled row, -1 for the others; *nfixed the rows labelled.
 * The id of an original row that d has dropped (row_orig) is skipped and
 * counted in *nskipped (may be NULL); rows are known by number only then:
 * when d has row_names, the names of dropped rows are not kept and such an
 * id is unknown.
 * Errors: MMNC_EINVAL (NULL argument, d without a matrix, k < 1; two rows
 * of d with one id, naming the file and both rows), MMNC_EIO, MMNC_ENOMEM,
 * and MMNC_EFORMAT naming file
 * and line for an id that is no row of d, a duplicate id, a cluster that
 * is not an integer or outside 1..k, a line of one field; and naming the
 * file when no row is labelled or when every row is (nothing left to
 * cluster).  O(file size + rows of d + id bytes). */
MMNC_API int mmnc_fixed_labels_read(const char *path, const mmnc_data *d, mmnc_int k, mmnc_int **out,
                                    mmnc_int *nfixed, mmnc_int *nskipped, mmnc_err *err);

/* Read a names file: one name per line (UTF-8; Latin-1 bytes are converted),
 * or "id<TAB>name" / "id|name" pairs when `keyed` (MovieLens u.item).  For
 * keyed files names[i] is the name of the entry whose id is i+1 (1-based
 * numeric ids) and missing ids get NULL; an id more than
 * MMNC_MAX_EMPTY_ROWS beyond the largest before it is MMNC_EFORMAT naming
 * the line (the array has a slot per id).  Names are kept as written, a
 * repeated one too (mmnc_names_unique makes them distinct).  A name is
 * never empty: in a plain file a blank line (empty, or blanks only) before
 * a later name would shift every name after it, and is MMNC_EFORMAT
 * "file:line: empty name: ..."; blank lines at the end of the file are
 * ignored.  A keyed file skips blank lines, and an empty name after the
 * separator is MMNC_EFORMAT "file:line: empty name for id N".
 * O(file size + largest id). */
MMNC_API int mmnc_names_read(const char *path, int keyed, mmnc_int *n, char ***out, mmnc_err *err);
MMNC_API void mmnc_names_free(mmnc_int n, char **names);

/* Make names[0..n) distinct where they are to serve as ids (a names file may
 * repeat a name: MovieLens u.item repeats film titles).  In index order, the
 * second appearance of NAME becomes "NAME#2", the third "NAME#3", and so on;
 * a suffix that is already a name (one of names[] as given, or one given to
 * an earlier repeat) is passed over for the next number.  The first
 * appearance of each name, and every name that repeats none, keeps its
 * text; NULL entries (the ids a keyed file leaves out) stay NULL.  A renamed
 * entry is freed and replaced (release the array with mmnc_names_free).
 * *renamed (may be NULL): how many entries were renamed.  first (may be
 * NULL): first[0] and first[1], the indices of the first renamed entry and
 * of the earlier entry it repeated, -1 when none was renamed.
 * Errors: MMNC_EINVAL (n < 0, or names NULL with n > 0), MMNC_ENOMEM (then
 * names[] is as it was).  O(n + bytes of the names) expected. */
MMNC_API int mmnc_names_unique(mmnc_int n, char **names, mmnc_int *renamed, mmnc_int first[2], mmnc_err *err);

/*
 * Binary matrix files: a data set in a form that loads at memory speed.
 * The byte layout is specified in docs/binary-format.md; in short, a
 * little-endian file of a 384-byte header (magic "\x89MMNC\r\n\x1a",
 * format version, shape, nnz, index width, value type, a table of
 * sections, an XXH64 checksum of the header) followed by the sections, each
 * starting at a multiple of 64 bytes so that they can be used in place from
 * a memory map: rowptr (i64, nrows + 1), colind (u32 when ncols < 2^31,
 * else i64), values (f64, or f32 when every value is exactly a float),
 * and optionally row_orig, col_orig (i64) and row_names, col_names
 * (string tables).  Each section carries an XXH64-based checksum.
 */

/* Write d to path in the binary format, atomically (a temporary file
 * renamed into place; nothing is left at path on failure).  Everything in d
 * is kept: the matrix (bit for bit), row_names/col_names (NULL entries
 * included), row_orig/col_orig and orig_rows/orig_cols.  Column indices are
 * stored in 32 bits when ncols < 2^31 and values in 32 bits when every one
 * of them is exactly representable as a float (e.g. counts); reading gives
 * the same doubles back.  A matrix without nonzeros may be written.
 * Errors: MMNC_EINVAL (d invalid: mmnc_csr_check fails, a value is
 * subnormal, which the reader would refuse, a row_orig / col_orig
 * entry outside [0, orig_rows) / [0, orig_cols), or two rows (columns)
 * with one id as mmnc_data_row_id gives them, a name repeated, a name
 * that is the number of a row without one, or without names a row_orig
 * (col_orig) value given twice: "path: cannot write: row id 'r1' is given
 * to rows 1 and 3 (1-based): ..."), MMNC_EIO, MMNC_ENOMEM, MMNC_EUNSUP on
 * a big-endian host.
 * O(nnz + nrows + ncols + name bytes) time (O(nrows log nrows) for the
 * row_orig of fewer than orig_rows / 64 rows, columns alike), O(1) extra
 * memory (one 1 MB block) besides the check of the ids: a table of the
 * names, or at most 8 bytes a row (column) for row_orig (col_orig). */
MMNC_API int mmnc_data_write_bin(const mmnc_data *d, const char *path, mmnc_err *err);

/* Flags of mmnc_data_read_bin. */
#define MMNC_BIN_NO_VERIFY 1 /* skip the section checksums (structure and values are still checked) */
#define MMNC_BIN_NO_MMAP 2   /* read with pread() instead of mapping the file (e.g. a file that
                                another process may truncate: a mapped read would get SIGBUS) */

/* Read a binary matrix file (mmnc_data_write_bin) into *out, which owns its
 * memory (the file is memory-mapped while reading, or read with pread()
 * where mapping fails).  Checked: the magic, the format version, the header
 * checksum, the file size, the section table, every section's checksum
 * (unless flags has MMNC_BIN_NO_VERIFY), the CSR structure (rowptr
 * monotone from 0 to nnz, columns in range and strictly increasing in each
 * row), values (finite, >= 0, and 0 or at least DBL_MIN, as the text
 * readers take them: a subnormal one names its row and column), the id maps
 * and the name tables, whose ids must be distinct, as the data readers
 * keep them (a dense table's row name given twice is refused; without
 * names, no row_orig value twice): a repeated one is MMNC_EFORMAT "path:
 * row id 'r1' is given to rows 1 and 3 (1-based): ..." (columns alike).
 * A matrix
 * without nonzeros is returned as is (mmnc_data_read rejects it).
 * Errors (the message starts with the path): MMNC_EFORMAT for a file that
 * is not a binary matrix ("not an mmnc binary matrix (bad magic)"), of a
 * newer format version ("format version N is newer than this mmnc supports
 * (1)"), truncated ("truncated: header says N bytes, file has M"), with a
 * checksum mismatch (naming the section) or invalid contents; MMNC_EIO,
 * MMNC_ENOMEM, MMNC_EUNSUP on a big-endian host.
 * Checksums, checks and the widening of 32-bit indices and values run in
 * parallel over fixed 1 MB blocks (OpenMP); the result does not depend on
 * the number of threads.  O(file size) time, no memory beyond the result
 * (plus one block per thread without mmap) but the check of the ids'
 * (as mmnc_data_write_bin's). */
MMNC_API int mmnc_data_read_bin(const char *path, int flags, mmnc_data **out, mmnc_err *err);

/* Transforms, applied in place. */

/* Swap rows and columns (and their ids).  O(nnz). */
MMNC_API int mmnc_data_transpose(mmnc_data *d, mmnc_err *err);

typedef enum {
    MMNC_MAP_NONE = 0,
    MMNC_MAP_BINARY,  /* v -> 1 for v > 0 */
    MMNC_MAP_LOG1P,   /* v -> log(1 + v) */
    MMNC_MAP_RATING3  /* v -> 3^(v-1) - 1, the paper's MovieLens rating map */
} mmnc_valmap;

/* Map every stored value; entries that become 0 are removed.  O(nnz). */
MMNC_API int mmnc_data_map_values(mmnc_data *d, mmnc_valmap m, mmnc_err *err);

/* Scale each nonzero row to sum 1 (zero rows are left alone).  O(nnz). */
MMNC_API int mmnc_data_normalize_rows(mmnc_data *d, mmnc_err *err);

/* Remove rows and columns whose values sum to 0, repeating until none is
 * left (removing a row may empty a column).  row_orig/col_orig and the names
 * follow.  Counts of removed rows/columns are returned (may be NULL).
 * MMNC_EINVAL if nothing is left.  O(nnz) per round.  A matrix without
 * column names whose columns outnumber 8 (nnz + 1024) first has its columns
 * renumbered to those that occur (O(nnz log nnz), col_orig keeps the ids),
 * so memory follows the entries, not the width (a libsvm index of 10^9). */
MMNC_API int mmnc_data_drop_empty(mmnc_data *d, mmnc_int *rows_dropped, mmnc_int *cols_dropped,
                         mmnc_err *err);

/* ------------------------------------------------------------------------ */
/* Joint pmf and the DTM                                                     */
/* ------------------------------------------------------------------------ */

/*
 * The joint pmf P_{Y,X} = A / sum(A), stored by rows (P) and, unless built
 * with MMNC_PMF_NO_TRANSPOSE, also by columns (Pt = P^T), so that both
 * W P and B x products run over independent rows or columns without
 * atomics.  Without Pt the W P products scatter the rows of P, each thread
 * over a range of columns, adding in the same order: the results are the
 * same, bit for bit, for half the memory (16 bytes per nonzero less) and a
 * slower W P product (bench/NOTES.md).  A symmetric matrix (equal to its
 * transpose, values included, as the co-occurrence counts of `mmnc cooc`
 * are) is its own transpose: Pt is then P itself, with or without
 * MMNC_PMF_NO_TRANSPOSE, one copy for the price of one pass over it
 * (distributed pmfs keep a transpose of their rows).  Marginals are
 * strictly positive (mmnc_pmf_build refuses zero rows or columns).
 */
typedef struct mmnc_dist mmnc_dist;

typedef struct mmnc_pmf {
    mmnc_int ny, nx, nnz;
    mmnc_csr *P;   /* |Y| x |X|, sums to 1 */
    mmnc_csr *Pt;  /* |X| x |Y|, the transpose (P itself when P is symmetric), or NULL (MMNC_PMF_NO_TRANSPOSE,
                      P not symmetric) */
    double *py;    /* P_Y, |Y| */
    double *px;    /* P_X, |X| */
    double total;  /* sum of the input values */
    /* py, px and total are exact sums rounded once: the same bits for any
     * order and any split of the rows (a symmetric P has py = px). */
    /* Distributed runs (mmnc_pmf_build_dist): this process holds rows
     * y0 .. y0 + ny - 1 of ny_all; nnz is the local count, px and total are
     * global.  Otherwise dist is NULL, y0 = 0 and ny_all = ny. */
    mmnc_int y0, ny_all;
    const mmnc_dist *dist;
} mmnc_pmf;

/* Normalise A to a joint pmf.  MMNC_EINVAL if A is empty, has a negative or
 * non-finite value, values whose sum is below DBL_MIN (a subnormal total,
 * whose reciprocal overflows), or a zero row or column (drop them first with
 * mmnc_data_drop_empty), or a row or column whose values are all below
 * 2^-91 of the total (the resolution of the exact sums of py and px: values
 * spanning more than about 27 orders of magnitude; the message names the
 * row or column, its largest value and the total).  O(nnz) time, 2 nnz
 * extra memory. */
MMNC_API int mmnc_pmf_build(const mmnc_csr *A, mmnc_pmf **out, mmnc_err *err);
MMNC_API void mmnc_pmf_free(mmnc_pmf *p);

/* Flags of mmnc_pmf_build_ex. */
#define MMNC_PMF_TAKE 1         /* take A's column indices and values instead of copying them (scaled in
                                   place); A is left an empty nrows x ncols matrix, as
                                   mmnc_data_drop_values leaves it, even on failure once taken */
#define MMNC_PMF_NO_TRANSPOSE 2 /* keep one copy of the matrix (Pt = NULL, or P where P is symmetric): see above */

/* mmnc_pmf_build with flags: with both, the pmf costs no memory beyond A
 * itself and O(|X| + |Y|). */
MMNC_API int mmnc_pmf_build_ex(mmnc_csr *A, int flags, mmnc_pmf **out, mmnc_err *err);

/*
 * Distributed runs.  The rows of P_{Y,X} are split in contiguous ranges
 * across processes (the ranks of an MPI job; see mmnc_mpi.h and
 * docs/mpi.md); each holds its rows of P and of P^T restricted to them,
 * and the k x |X| products of the solvers are summed across ranks.  The
 * library itself has no MPI dependency: the collectives are these function
 * pointers, which the caller fills (mmnc_mpi_dist() does it with MPI).
 * Every rank must make the same calls in the same order.  Each collective
 * gives every rank the same bits (so that all ranks take the same
 * decisions).  The pmf (total, P_X) and the sums the information
 * objective rests on are exact integer sums (isum), so the default's
 * clustering and figures are those of one process bit for bit; the soft
 * products of Algorithms 1 and 2 are sums of doubles over ranks, not the
 * sums of one process bit for bit, so their objectives agree with a
 * one-process run to rounding and their clusterings agree except at exact
 * ties.  The library only calls them, and
 * never fails inside them: a communication error is the caller's (MPI's
 * default handler aborts the job).
 */
struct mmnc_dist {
    int rank, size;
    void *ctx;
    /* x[0..n-1] <- the element-wise sum (max) over ranks, on every rank */
    void (*sum)(const mmnc_dist *d, double *x, mmnc_int n);
    void (*max)(const mmnc_dist *d, double *x, mmnc_int n);
    void (*isum)(const mmnc_dist *d, int64_t *x, mmnc_int n);
    /* out (size * bytes) <- the `bytes` of every rank at in, in rank order */
    void (*allgather)(const mmnc_dist *d, const void *in, size_t bytes, void *out);
    void (*bcast)(const mmnc_dist *d, void *buf, size_t bytes, int root);
    /* gatherv: root's out <- every rank's n doubles at in, in rank order
     * (out ignored elsewhere); scatterv: the inverse (in ignored off root) */
    void (*gatherv)(const mmnc_dist *d, const double *in, mmnc_int n, double *out, int root);
    void (*scatterv)(const mmnc_dist *d, const double *in, double *out, mmnc_int n, int root);
};

/* The pmf of this rank's rows A (flags as mmnc_pmf_build_ex; every rank with the same ncols; ranks hold
 * consecutive row ranges in rank order, so y0 is the number of rows on lower
 * ranks): P_X and the total are summed across ranks.  Collective.  The checks of mmnc_pmf_build, agreed across ranks:
 * if any rank finds a problem, every rank returns an error (the others'
 * message says which rank).  A rank may hold no rows. */
MMNC_API int mmnc_pmf_build_dist(mmnc_csr *A, int flags, const mmnc_dist *dist, mmnc_pmf **out, mmnc_err *err);

/* mmnc_data_drop_empty for a row slice: rows with zero mass are dropped
 * locally, columns with zero mass across all ranks are dropped on every
 * rank (the same columns).  Counts are global.  Collective. */
MMNC_API int mmnc_data_drop_empty_dist(mmnc_data *d, const mmnc_dist *dist, mmnc_int *rows_dropped,
                              mmnc_int *cols_dropped, mmnc_err *err);

/* Rows part of nparts of a data file, balanced by nonzeros: part r holds the
 * rows y with floor(r nnz / nparts) <= rowptr[y] < floor((r+1) nnz / nparts)
 * (empty rows go with the part of their position).  *y0 is the first row's
 * index in the whole file, and row_orig holds the original indices, so ids
 * in outputs are the file's.  A binary file (mmnc convert) is read in
 * place: only the part's ranges are copied, and its checksums are verified
 * by all parts together (each hashes 1/nparts of the blocks; the block
 * digests are summed with dist->isum), so pass the dist of the job, or NULL
 * to hash every block locally.  Other formats are read whole and sliced
 * (memory O(file) per process while reading).  Collective when dist is
 * given: before any other collective the ranks agree on what they read
 * (how, rows, columns, nonzeros and a checksum: the binary header's, or an
 * XXH64 of the parsed matrix), so a rank that cannot read the file, or
 * reads another file under the same path, makes every rank return
 * MMNC_EIO / MMNC_EFORMAT with a message naming the file and the ranks,
 * never a hang or a mixed result. */
MMNC_API int mmnc_data_read_part(const char *path, const mmnc_read_opts *o, int part, int nparts,
                        const mmnc_dist *dist, mmnc_data **out, mmnc_int *y0, mmnc_err *err);

/* How mmnc_data_load prepares a data set for its pmf. */
typedef struct mmnc_load_opts {
    mmnc_read_opts read; /* how to read the file (mmnc_read_opts_default) */
    int transpose;       /* swap rows and columns after reading (mmnc_data_transpose); not with a
                            dist, whose parts are row ranges of the file (default: no) */
    mmnc_valmap map;     /* mmnc_data_map_values (default MMNC_MAP_NONE) */
    int normalize_rows;  /* mmnc_data_normalize_rows, after the map (default: no) */
    int drop_empty;      /* drop empty rows and columns last (default: yes): mmnc_pmf_build
                            refuses them */
} mmnc_load_opts;

MMNC_API void mmnc_load_opts_default(mmnc_load_opts *o);

/*
 * Read a data set ready for mmnc_pmf_build_dist: the whole file when dist is
 * NULL (mmnc_data_read), else the rows of part dist->rank of dist->size
 * (mmnc_data_read_part); then transpose, map, normalize_rows and drop
 * empty rows and columns (mmnc_data_drop_empty, or mmnc_data_drop_empty_dist
 * with a dist: columns empty on every rank) as o says (NULL: defaults).
 * The distributed sequence is then
 *
 *     mmnc_data_load(path, &o, dist, &d, &rows_dropped, &cols_dropped, &err);
 *     mmnc_pmf_build_dist(d->A, MMNC_PMF_TAKE, dist, &p, &err);
 *
 * after which d keeps the ids of this rank's rows (d->row_orig: indices in
 * the file) and every column, for naming outputs.
 * *out: free with mmnc_data_free.  rows_dropped, cols_dropped (may be
 * NULL): the numbers dropped (over all ranks).  Errors as the steps';
 * messages name the file.  With a dist the call is collective and agreed:
 * if one rank fails, every rank returns an error (the others' message
 * names the rank that failed).  MMNC_EINVAL for transpose with a dist.
 * Time and memory: those of the steps, O(file size).
 */
MMNC_API int mmnc_data_load(const char *path, const mmnc_load_opts *o, const mmnc_dist *dist, mmnc_data **out,
                            mmnc_int *rows_dropped, mmnc_int *cols_dropped, mmnc_err *err);

/* Y = B X and Y = B^T X for the DTM B = B_{Y,X}, never formed: X is
 * ncols(B) x m (resp. nrows(B) x m), row-major, and so is Y.  O(nnz m).
 * Distributed pmf: B X gives this rank's rows; B^T X takes this rank's
 * rows of X and returns the whole Y on every rank (collective). */
MMNC_API void mmnc_dtm_mul(const mmnc_pmf *p, mmnc_int m, const double *X, double *Y);
MMNC_API void mmnc_dtm_tmul(const mmnc_pmf *p, mmnc_int m, const double *X, double *Y);

/*
 * Leading r singular triplets of the DTM by randomised block subspace
 * iteration (Halko, Martinsson, Tropp 2011, Alg. 4.4) with r + oversample
 * columns and a Rayleigh-Ritz step, until the r Ritz values change by less
 * than tol (relative) or maxit iterations.  sigma (r) descending; U (|Y| x r)
 * and V (|X| x r) row-major, either may be NULL.  Deterministic given seed.
 * O(iters * nnz * (r + oversample)) time.  MMNC_ENOCONV if maxit is reached
 * (the results are still written).
 */
MMNC_API int mmnc_dtm_svds(const mmnc_pmf *p, mmnc_int r, double tol, int maxit, uint64_t seed,
                  double *sigma, double *U, double *V, mmnc_err *err);

/* mmnc_dtm_svds with the block size r + oversample chosen by the caller
 * (oversample < 0: r/2, at least 10, as mmnc_dtm_svds) and the number of
 * iterations done returned in *iters (may be NULL).  A larger oversample
 * converges in fewer, costlier iterations: the error of sigma_j shrinks like
 * (sigma_{r+oversample+1} / sigma_j)^2 per iteration.  Each iteration costs
 * two sparse products, O(nnz l), and two orthonormalisations, O((|Y| + |X|)
 * l^2), with l = r + oversample; memory (|Y| + |X| + 12 l) l doubles, and
 * |X| l + nnz / threads more during a product. */
MMNC_API int mmnc_dtm_svds_ex(const mmnc_pmf *p, mmnc_int r, mmnc_int oversample, double tol, int maxit,
                     uint64_t seed, double *sigma, double *U, double *V, int *iters, mmnc_err *err);

/* Connected components of the bipartite graph of A (rows and columns are
 * vertices, nonzeros are edges).  comp_row (nrows) may be NULL.  The
 * multiplicity of singular value 1 of the DTM equals this number.
 * O(nnz + nrows + ncols). */
MMNC_API int mmnc_components(const mmnc_csr *A, mmnc_int *ncomp, mmnc_int *comp_row, mmnc_err *err);

/* ------------------------------------------------------------------------ */
/* Embeddings from the DTM                                                   */
/* ------------------------------------------------------------------------ */

/* A progress function, called by the long computations that take one
 * (mmnc_embed, mmnc_cooc_build, mmnc_cluster: mmnc_embed_opts.progress,
 * mmnc_cooc_opts.progress, mmnc_params.progress)
 * about once per iteration with ctx, where they are (restart, iter) and a
 * figure of their progress (objective), as each documents.  Return 0 to go
 * on, nonzero to stop: the computation then returns MMNC_ECANCELED. */
typedef int (*mmnc_progress_fn)(void *ctx, int restart, int iter, double objective);

typedef struct mmnc_embed_opts {
    mmnc_int dim;        /* d, the number of coordinates per row (default MMNC_DEFAULT_EMBED_DIM) */
    int keep_trivial;    /* 1: keep the pair sigma = 1, U = sqrt(P_Y), which gives every row
                            the same coordinate 1 (default: drop it) */
    double sigma_power;  /* scale coordinate j by sigma_j^sigma_power (default
                            MMNC_DEFAULT_EMBED_SIGMA_POWER; 0 is the paper's [P_Y]^{-1/2} U) */
    mmnc_int oversample; /* extra columns of the subspace iteration; < 0: max(20, d/4) (default
                            MMNC_DEFAULT_EMBED_OVERSAMPLE) */
    double tol;          /* stop when the singular values change by less than tol (relative to
                            sigma_1) in an iteration (default MMNC_DEFAULT_EMBED_TOL) */
    int maxit;           /* at most this many iterations (default MMNC_DEFAULT_EMBED_MAX_ITER) */
    uint64_t seed;       /* of the random start (default MMNC_DEFAULT_SEED) */
    int threads;         /* 0 = OpenMP's default (default MMNC_DEFAULT_THREADS) */
    mmnc_progress_fn progress; /* called after each iteration with restart 0, iter its number and,
                            as objective, the change that tol is compared with; nonzero stops
                            the computation (MMNC_ECANCELED, E and sigma not written); in a
                            distributed run every rank must return the same (default NULL) */
    void *progress_ctx;
} mmnc_embed_opts;

MMNC_API void mmnc_embed_opts_default(mmnc_embed_opts *o);

/*
 * Embed the rows Y of the pmf p (words, for a word x context matrix) in d =
 * o->dim dimensions (paper, Sec. 5.3: the ACE features of the DTM): row y is
 *
 *     E[y][j] = sigma_j^power * U[y][j] / sqrt(P_Y(y)),  j = 1..d,
 *
 * where U holds the left singular vectors of the DTM B_{Y,X} for its
 * largest singular values after the trivial one (sigma = 1, u = sqrt(P_Y)),
 * computed as those of B - sqrt(P_Y) sqrt(P_X)^T (the trivial pair
 * deflated; keep_trivial puts it first: coordinate 0 exactly 1 with sigma
 * 1, then the d - 1 others as without it).  So every other coordinate is
 * orthogonal to the trivial one, sum_y P_Y(y) E[y][j] = 0, also where the
 * data has several connected components and 1 is a singular value more
 * than once (without the deflation rounding picked a basis of that space,
 * which could add a constant to every row's first coordinate).  Past the
 * rank of B (sigma_j <= 1e-12), coordinate j is a null vector of B
 * orthogonal to the others and to the trivial one, any such (no structure
 * of the data; the trivial vector is a null vector of the deflated B, and
 * rounding used to return it there).  Rows
 * close in cosine co-occur with the same contexts beyond what their
 * frequencies explain.  E is |Y| x d, row-major (caller-allocated); sigma (d,
 * may be NULL) receives the singular values used; *iters (may be NULL) the
 * iterations done.  Deterministic given o->seed for any number of threads.
 * Errors: MMNC_EINVAL (d < 1 or d + 1 > min(|Y|, |X|), bad options);
 * MMNC_ENOCONV when o->maxit iterations did not reach o->tol (E and sigma
 * are still written: the best estimate so far); MMNC_ECANCELED when
 * o->progress asked to stop; MMNC_ENOMEM.
 * The subspace iteration is mmnc_dtm_svds_ex's, leaner and shifted: it
 * starts from a sparse random sign matrix (8 entries +-1 a row of the |X| x
 * l block; Martinsson & Tropp 2020), not orthonormalised, whose product
 * costs O(8 nnz) instead of O(nnz l); per iteration the Ritz values come
 * from the Gram matrix of B Q (an l x l symmetric eigenproblem); the next block is Q = orth(B^T B Q - c Q) with c
 * half the smallest Ritz value (a Chebyshev filter of degree 1: the unwanted
 * part of the spectrum of B^T B is damped about that centre, so the
 * subspace converges in fewer iterations than without the shift); only the
 * |X| x l block is orthonormalised (one CholeskyQR round while kappa^2 eps <
 * tol / 1000, else two); the |Y| x l block never: the Rayleigh-Ritz step
 * takes the eigenvectors Vs of that last Gram matrix, U = (B Q) Vs S^{-1}
 * (by a QR of B Q instead when the d-th value is below 1e-3 times the
 * first, as for a B of lower rank than d).  The vectors agree with
 * mmnc_dtm_svds_ex's to the tolerance, not bit for bit.
 * Time O(iters (nnz l + (|Y| + |X|) l^2)) with l = d + oversample; memory
 * 16 bytes per nonzero for P and P^T, two |X| x l blocks and one |Y| x l
 * block of doubles, and a copy of the larger in the products' panels.
 */
MMNC_API int mmnc_embed(const mmnc_pmf *p, const mmnc_embed_opts *o, double *sigma, double *E, int *iters,
               mmnc_err *err);

/*
 * How well converged the embedding E and sigma of mmnc_embed (called with
 * the same p and o) are: for each coordinate j, with u = E[:, j] sqrt(P_Y)
 * (the left singular vector, up to scale) and B' = B less its trivial pair,
 *
 *     res[j] = || B' B'^T u - sigma_j^2 u || / (sigma_j^2 || u ||),
 *
 * the relative residual of u as an eigenvector of B' B'^T: 0 for an exact
 * triplet, larger the further u is from one (for a mix of singular
 * vectors, about the relative spread of their sigma^2); coordinate 0 under
 * keep_trivial: 0.  A check of the stopping rule, which watches the
 * singular values, not the vectors: the values settle faster than the
 * vectors, so the residuals can stay well above tol.  Costs two products
 * with d columns (computed 64 at a time) beyond mmnc_embed's; deterministic for any
 * number of threads; collective under MPI (E holds this rank's rows).
 * Errors: MMNC_EINVAL, MMNC_ENOMEM.
 */
MMNC_API int mmnc_embed_residuals(const mmnc_pmf *p, const mmnc_embed_opts *o, const double *sigma, const double *E,
                                  double *res, mmnc_err *err);

/*
 * Write n vectors of d coordinates (E, n x d row-major) with their words in
 * the word2vec format that word2vec, gensim and most embedding tools read:
 * "n d" on the first line, then per word either the word and its d values
 * as text ("%.8g" of the float32 value; binary = 0) or the word, a space, d
 * little-endian float32 and a newline (binary = 1).  Atomic: written to a
 * temporary file renamed into place.  MMNC_EINVAL if a word is empty or
 * holds white space; MMNC_EIO.  O(n d).
 */
MMNC_API int mmnc_vectors_write(const char *path, mmnc_int n, mmnc_int d, char *const *words, const double *E,
                       int binary, mmnc_err *err);

/*
 * Read a word2vec file (text or binary; binary < 0 tells them apart by the
 * first record, 0 or 1 forces one) as written by mmnc_vectors_write,
 * word2vec or gensim; plain, gzip or xz.  *words (n, free with
 * mmnc_names_free) and *E (n x d float32, row-major, free with mmnc_free).
 * MMNC_EFORMAT with file and line for a bad header, a short or long record,
 * a non-finite value or a truncated file; MMNC_EIO; MMNC_ENOMEM.  O(n d).
 */
MMNC_API int mmnc_vectors_read(const char *path, int binary, mmnc_int *n, mmnc_int *d, char ***words, float **E,
                      mmnc_err *err);

/* ------------------------------------------------------------------------ */
/* Couplings: statistics of a given kernel W = P_{Z|Y}                        */
/* ------------------------------------------------------------------------ */

typedef struct mmnc_stats {
    mmnc_int k;
    double *pz;       /* P_Z, k */
    double *sigma;    /* singular values of B_{Z,X}, k, descending (0 for empty clusters) */
    double frob;      /* ||B_{Z,X}||_F */
    double nuclear;   /* ||B_{Z,X}||_* */
    double mi;        /* exact I(X;Z) in nats */
    double mi_local;  /* (||B_{Z,X}||_F^2 - 1) / 2, the local approximation */
    mmnc_int empty;   /* clusters with P_Z(z) == 0 */
} mmnc_stats;

/*
 * Statistics of the kernel given either by hard labels (labels[y] in 0..k-1,
 * W == NULL) or by a soft kernel W (k x |Y|, column y at W + y*k, columns
 * summing to 1; labels == NULL).  *out is filled (allocate with
 * mmnc_stats_init, release with mmnc_stats_free).  O(nnz (k if soft) + k^2 |X|).
 */
MMNC_API int mmnc_stats_init(mmnc_stats *s, mmnc_int k, mmnc_err *err);
MMNC_API void mmnc_stats_free(mmnc_stats *s);
MMNC_API int mmnc_coupling_stats(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels, const double *W,
                        mmnc_stats *out, mmnc_err *err);

/* ------------------------------------------------------------------------ */
/* Clustering                                                                */
/* ------------------------------------------------------------------------ */

typedef enum {
    MMNC_ALG_AUTO = 0,      /* the default: MMNC_ALG_DMM where every value of the input is a
                               whole number (counts) and no column clusters are asked, else
                               MMNC_ALG_INFORMATION; mmnc_result.algorithm says which ran */
    MMNC_ALG_FROBENIUS = 1, /* paper Algorithm 1 */
    MMNC_ALG_NUCLEAR = 2,   /* paper Algorithm 2 */
    MMNC_ALG_INFORMATION = 3, /* exact I(X;Z) with a prior on the cluster sizes
                                (mmnc_params.size_prior), by sequential single-row moves
                                (src/cluster/default.c; docs/default.md) */
    MMNC_ALG_DMM = 4         /* the evidence of a Dirichlet multinomial mixture of the rows'
                                counts, alpha and beta its own (beta >= mmnc_params.dmm_beta),
                                by sequential single-row moves (src/cluster/dmm.c); counts
                                summing above 1e300 (lgamma overflows): MMNC_EINVAL */
} mmnc_algorithm;

typedef enum {
    MMNC_INIT_RANDOM = 0,   /* uniform random hard labels */
    MMNC_INIT_KMEANSPP = 1, /* k-means++ seeding of the rows of P_{X|Y} in the chi^2 metric */
    MMNC_INIT_SPECTRAL = 2, /* k-means++ + Lloyd on the DTM's leading singular vectors */
    MMNC_INIT_ROWS = 3      /* reported only (mmnc_result.restart_init), never a params.init:
                               a co-clustering start from the rows clustered alone (start 0) */
} mmnc_init;

/* Which start mmnc_cluster returns. */
typedef enum {
    MMNC_SELECT_OBJECTIVE = 0, /* the best objective (the paper's protocol) */
    MMNC_SELECT_PREDICTIVE = 1 /* the start with the best leave-one-row-out predictive
                                  information (mmnc_result.restart_score); with select_tol > 0
                                  the best objective among the starts within select_tol
                                  (relative) of it */
} mmnc_select;

/* Refinement of the solver's result by information moves (mmnc_params.refine). */
typedef enum {
    MMNC_REFINE_NONE = 0,
    MMNC_REFINE_EACH = 1,  /* every start, before the selection */
    MMNC_REFINE_CHOSEN = 2 /* the kept start, after the selection */
} mmnc_refine;

/* How the information moves, and the Dirichlet mixture's, run
 * (mmnc_params.moves).  The Dirichlet mixture (MMNC_ALG_DMM) in one
 * process makes its sequential moves whatever the value.  On the R ranks
 * of a distributed pmf it runs one of two ways:
 * - side by side (MMNC_MOVES_BATCH; whole counts): each rank sweeps its own
 *   rows against the sums of all rows as they were at the ranks' last
 *   meeting plus its own moves since; the ranks meet one to 16 times a
 *   sweep (an integer sum of the k |X| + 2 k changes, or, where few cells
 *   changed, each rank's changed cells broadcast), more often while many
 *   rows move.  A sweep is kept if the evidence did not fall, else it
 *   is made again in turns, rank after rank (src/cluster/dmm.c).  Per rank
 *   and sweep: O(nnz / R) work, O(k |X|) numbers exchanged, the rows
 *   never, and each rank holds its own rows only.  The result is the same
 *   for a given number of ranks, every time, and differs between rank
 *   counts (one rank: one process's).
 * - gathered (MMNC_MOVES_SEQUENTIAL): the pmf gathered onto every rank, the
 *   starts shared out among the ranks: one process's result on any number
 *   of ranks, each rank holding the whole matrix.
 * MMNC_MOVES_AUTO gathers where the matrix has at most MMNC_DMM_GATHER_NNZ
 * nonzeros (ranks beyond the starts then wait), else side by side.
 * Values that are not whole counts and the predictive rule always gather;
 * MMNC_MOVES_BATCH with either is refused (MMNC_EINVAL). */
#define MMNC_DMM_GATHER_NNZ ((int64_t)1 << 25)
typedef enum {
    MMNC_MOVES_SEQUENTIAL = 0, /* single-row moves, each seeing the previous ones: every rank
                                  replays every decision, so more ranks do not make them faster */
    MMNC_MOVES_BATCH = 1,      /* each phase first makes batch passes: the rows of each block
                                  of the visiting order decided side by side (over threads and
                                  ranks) against the cluster sums at the block's start, then
                                  applied in order; a pass is kept only if the objective rises.
                                  Then the sequential moves from there, so the result is again a
                                  local optimum of single-row moves (src/cluster/moves.c, "Batch
                                  steps").  Experimental: on 2 cores not yet faster than the
                                  sequential moves (bench/NOTES.md, "Batch moves").  The
                                  Dirichlet mixture: its ranks side by side (above) */
    MMNC_MOVES_AUTO = 2        /* the information moves sequential; the Dirichlet mixture's ranks
                                  gathered or side by side by its size (above) */
} mmnc_moves;

/* mmnc_params.progress (mmnc_progress_fn, declared with the embeddings) is
 * called about once per iteration of a start (restart: its index;
 * objective: the solver's; for the information moves, J from the sums the
 * moves keep, the result's exact J up to roundings).  Return 0 to go on;
 * nonzero stops the run: every start ends at its next call and mmnc_cluster
 * returns MMNC_ECANCELED with no result (how an interactive caller stops a
 * long run: the Python binding returns 1 on Ctrl-C).  The kept start's
 * polish and the merge-split trials report their sweeps as the kept start's
 * (restart) and stop likewise, and so does the refinement (refine: its
 * sweeps, with its own objective, the information objective J).  The
 * spectral embedding that MMNC_INIT_SPECTRAL starts from reports its
 * iterations with restart = -1 and, as objective, the largest change of its
 * singular values in the iteration (relative to the first), and stops
 * likewise.  Calls are serialised (one at a time) even when starts run on
 * several threads.  In a distributed run every rank must return the same. */

/* What mmnc_params.event reports (mmnc_event.kind). */
typedef enum {
    MMNC_EV_START_BEGIN = 1, /* start `restart` begins (after the spectral embedding, if any) */
    MMNC_EV_START_END = 2,   /* start `restart` ended: iter its iterations (sweeps), converged
                                whether it met its stopping rule before max_iter, objective the
                                objective it reached (that of mmnc_result.restart_objective) */
    MMNC_EV_PHASE = 3        /* a phase begins: `phase` names it (below) */
} mmnc_event_kind;

/* One event of mmnc_cluster, read-only and valid during the call only.
 * New fields may be added at the end; a callback reads those it knows.
 *
 * The phases (MMNC_EV_PHASE), each with the start it concerns (restart,
 * -1 for none): "spectral embedding" (restart -1, before the starts of
 * MMNC_INIT_SPECTRAL); within a start of the default with a size prior,
 * "phase 1 (prior-free)" and "phase 2 (size prior)" (docs/default.md,
 * "The chain"); after the starts, "chosen start again" (the predictive
 * rule, or the default's judgement of a refused prior, reruns the chosen
 * start when it is not the one of best objective),
 * "agreement rule", "polish", "merge-split" and "refine" (MMNC_REFINE_CHOSEN),
 * those that run, in that order; the nuclear co-clustering's "rows alone
 * (Algorithm 2)", "columns for them (Algorithm 2)" and "alternation"
 * (restart -1).  Other phases may be added; a caller shows the name as it
 * is. */
typedef struct mmnc_event {
    int kind;          /* mmnc_event_kind */
    int restart;       /* the start, 0 .. restarts - 1; -1 where none */
    int restarts;      /* the starts of the run */
    int iter;          /* MMNC_EV_START_END: the start's iterations (sweeps); else 0 */
    int max_iter;      /* the iteration cap per start (max_iter with its default filled in) */
    int converged;     /* MMNC_EV_START_END: 1 the start met its stopping rule, 0 it stopped at
                          max_iter; else 0 */
    const char *phase; /* MMNC_EV_PHASE: the phase's name; else NULL */
    double objective;  /* MMNC_EV_START_END: the start's objective; else NAN */
} mmnc_event;

/* mmnc_params.event: called at each event of the run with event_ctx and the
 * event; return 0 to go on, nonzero to stop the run as the progress
 * function does (mmnc_cluster returns MMNC_ECANCELED).  Calls are
 * serialised with each other and with those of the progress function, on
 * whichever thread runs the start (starts may run side by side: the events
 * of different starts then interleave, each start's in order).  In a
 * distributed run every rank makes the same calls and must return the same. */
typedef int (*mmnc_event_fn)(void *ctx, const mmnc_event *ev);

typedef struct mmnc_params {
    int algorithm;      /* mmnc_algorithm (default MMNC_DEFAULT_ALGORITHM) */
    mmnc_int k;         /* number of clusters, 1 <= k <= |Y| (default MMNC_DEFAULT_K) */
    uint64_t seed;      /* RNG seed (default MMNC_DEFAULT_SEED) */
    int restarts;       /* independent starts; `select` says which is kept (default
                           MMNC_DEFAULT_RESTARTS) */
    int init;           /* mmnc_init (default MMNC_DEFAULT_INIT).  MMNC_INIT_SPECTRAL cycles the
                           starts through spectral, k-means++ and random, so that they explore
                           different basins (docs/default.md, "Starts") */
    int select;         /* mmnc_select (default MMNC_DEFAULT_SELECT) */
    double select_tol;  /* MMNC_SELECT_PREDICTIVE: the starts whose score G is at least
                           max G - select_tol |max G| compete on the objective; 0 keeps the best
                           G alone (default MMNC_DEFAULT_SELECT_TOL) */
    int max_iter;       /* iteration cap per start; 0 selects MMNC_DEFAULT_MAX_ITER_NUCLEAR,
                           _FROBENIUS, _EXACT or _INFORMATION (sweeps, also of refine) by
                           algorithm (default MMNC_DEFAULT_MAX_ITER) */
    int refine;         /* mmnc_refine: information moves (with size_prior) from the hard labels
                           of Algorithm 2 without a prescribed P_Z; the result's objective is then
                           theirs; ignored for soft results (default MMNC_DEFAULT_REFINE) */
    double size_prior;  /* gamma >= 0 of the information objective (MMNC_ALG_INFORMATION, refine):
                           J = I(X;Z) - gamma (|Y| / nnz) H_rows(Z), H_rows the entropy of the
                           cluster sizes in rows; 0 = I(X;Z) alone (docs/default.md, "The
                           objective") (default MMNC_DEFAULT_SIZE_PRIOR) */
    double tol;         /* Alg. 1: stop when max |W_t - W_{t-1}| < tol or the objective gained
                           less than tol (relative) over 10 steps (default MMNC_DEFAULT_TOL) */
    double move_tol;    /* information: a start's sweeps (each phase's) stop once one moves fewer
                           than move_tol |Y| rows; the kept start's then go on until no row moves.
                           0: every start until no row moves; refine always goes on until then
                           (default MMNC_DEFAULT_MOVE_TOL) */
    const double *pz;   /* k target marginal, or NULL.  Alg. 2: prescribed P_Z solved by the
                           transportation LP (needs GLPK); Alg. 1: target (NULL = uniform) */
    double lambda;      /* Alg. 1 marginal penalty; <= 0 selects MMNC_DEFAULT_LAMBDA, as
                           mmnc_params_default does */
    double step;        /* Alg. 1 step size alpha (paper's Alg. 1, line 7); <= 0 selects
                           1 / lambda, as mmnc_params_default does */
    int exact_marginal; /* Alg. 1: hold W P_Y = P_Z exactly, by transportation-LP ascent steps
                           instead of the penalty; no lambda or step (needs GLPK) (default: no) */
    int threads;        /* OpenMP threads; 0 = OpenMP's default (default MMNC_DEFAULT_THREADS) */
    mmnc_progress_fn progress; /* called about once per iteration (above), or NULL; nonzero stops
                           the run */
    void *progress_ctx;
    int merge_split;    /* information, k >= 3: at most this many merge-split trials after the
                           kept start, in rounds of two, until a round gains nothing; none after
                           a start stopped by max_iter; 0: none (docs/default.md, "Merge-split
                           trials") (default MMNC_DEFAULT_MERGE_SPLIT) */
    int agreement;      /* information with size_prior > 0, restarts >= 2, MMNC_SELECT_OBJECTIVE:
                           1 = the prior is kept only if the starts' partitions with it agree with
                           one another at least as well as their prior-free optima do (else the
                           result is that of size_prior = 0 from the same starts); 0 = the prior
                           always (docs/default.md, "The agreement rule") (default
                           MMNC_DEFAULT_AGREEMENT) */
    mmnc_event_fn event; /* called at each start's beginning and end and at each phase
                           (mmnc_event, above), or NULL (default NULL) */
    void *event_ctx;
    int moves;          /* mmnc_moves, information moves (MMNC_ALG_INFORMATION, refine): batch
                           steps spread over threads and ranks before the sequential moves, or
                           the sequential moves alone; either gives the same result for any
                           number of threads and ranks.  The Dirichlet mixture on several ranks:
                           side by side, gathered, or by its size (above; default
                           MMNC_DEFAULT_MOVES) */
    mmnc_int col_clusters; /* l > 0: co-cluster, i.e. cluster the columns X into l clusters W as
                           well, maximising the Dirichlet mixture's evidence with column clusters
                           (MMNC_ALG_DMM, and MMNC_ALG_AUTO on whole counts), I(Z;W)
                           (MMNC_ALG_INFORMATION) or ||B_{Z,W}||_* (MMNC_ALG_NUCLEAR)
                           ("Co-clustering" below); 0: the rows alone (default
                           MMNC_DEFAULT_COL_CLUSTERS) */
    const mmnc_int *fixed_label; /* semi-supervision: NULL, or one entry a row (in a distributed
                           run this process's rows y0 .. y0 + ny - 1), fixed_label[y] = z in
                           0 .. k-1 holds row y in cluster z for the whole run, -1 leaves it free;
                           at least one row free ("Semi-supervision" below) (default NULL) */
    double dmm_beta;    /* MMNC_ALG_DMM: the least value of beta, the Dirichlet parameter of each
                           cluster's column distribution: the evidence fits beta over
                           beta >= dmm_beta (the first sweeps run at dmm_beta where the rows
                           support less); 0: over every beta > 0.  A larger beta smooths every
                           cluster more, so that the columns many rows share weigh more than rare
                           ones a few rows share (docs/dmm.md, "The least beta") (default
                           MMNC_DEFAULT_DMM_BETA) */
} mmnc_params;

/* Every field as the table "Defaults" gives it (MMNC_DEFAULT_*); pz,
 * progress, progress_ctx, event, event_ctx and fixed_label NULL, exact_marginal off, lambda and step 0
 * (MMNC_DEFAULT_LAMBDA and 1 / lambda). */
MMNC_API void mmnc_params_default(mmnc_params *p);
/* The paper's protocol: Algorithm 2 (MMNC_ALG_NUCLEAR) from random starts
 * (MMNC_INIT_RANDOM), the best nuclear norm kept (MMNC_SELECT_OBJECTIVE),
 * no refinement (MMNC_REFINE_NONE); the rest as mmnc_params_default. */
MMNC_API void mmnc_params_paper(mmnc_params *p);

/* NULL if the parameters are valid for a problem with ny rows, else a
 * message ("k must be between 1 and the number of rows (5)"). */
MMNC_API const char *mmnc_params_check(const mmnc_params *p, mmnc_int ny);

/* mmnc_result.semi_kept: the semi-supervision rule's candidates, in the
 * rule's order ("Semi-supervision" below). */
#define MMNC_SEMI_MOVES 1      /* the run's own partition */
#define MMNC_SEMI_CLASSIFIER 2 /* the seeded classifier of the held rows */
#define MMNC_SEMI_TRANSDUCED 3 /* MMNC_SEMI_CLASSIFIER then hard EM over all rows */
#define MMNC_SEMI_CANDIDATES 3

typedef struct mmnc_result {
    /* The results */
    mmnc_int k, ny;
    int algorithm;      /* mmnc_algorithm of the run */
    mmnc_int *label;    /* ny: argmax_z P(z|y) (smallest z on ties) */
    double *W;          /* k x ny: P(z|y) at W[y*k + z] */
    mmnc_stats stats;   /* of the returned W */
    double objective;   /* the solver's objective: ||B_{Z,X}||_* (Alg. 2), the penalised
                           ||A B||_F^2 - lambda ||A sqrt(P_Y) - sqrt(P_Z)||^2 (Alg. 1),
                           I(X;Z) - size_prior (|Y| / nnz) H_rows(Z) (information, refine), or
                           the log evidence over the total count (dmm) */
    int iterations;     /* of the kept start */
    int converged;      /* the kept start met its stopping rule before max_iter */
    int best_restart;   /* index of the kept start */
    int restarts;
    double *restart_objective; /* restarts: the objective each start reached */
    double seconds;     /* wall time of mmnc_cluster */

    /* Diagnostics: how the result was found; may change between versions */
    int select;         /* the rule that chose best_restart (mmnc_select) */
    int objective_restart; /* the start with the best objective (= best_restart under
                              MMNC_SELECT_OBJECTIVE, except in the default where that start's
                              guard refused the size prior and a start that kept it has at least
                              its I(X;Z): best_restart is then the best objective among those,
                              docs/default.md) */
    double *restart_score, *restart_alpha; /* restarts, under MMNC_SELECT_PREDICTIVE (else NULL):
                           each start's leave-one-row-out predictive information G, and the
                           smoothing (in average rows) that gave it (docs/default.md, "The
                           predictive score") */
    int *restart_init;  /* restarts: the mmnc_init of each start (MMNC_INIT_ROWS for a
                           co-clustering start from the rows clustered alone) */
    int *restart_iterations; /* restarts: the iterations of each start */
    int refine;         /* the mmnc_refine applied (MMNC_REFINE_NONE for soft results) */
    int refine_sweeps;  /* MMNC_REFINE_CHOSEN: sweeps of the refinement */
    double refined_score; /* MMNC_REFINE_CHOSEN under MMNC_SELECT_PREDICTIVE: the score G after it */
    int polish_sweeps;  /* information with move_tol > 0: sweeps of the kept start after the
                           tolerance stopped it, until no row moved (counted in iterations) */
    int size_prior_kept; /* information moves with size_prior > 0: 1 if the result is the prior's
                            partition, 0 if the guard or the agreement rule refused it
                            (size_prior_refused), -1 when no prior applied */
    int size_prior_refused; /* size_prior_kept = 0: why, MMNC_PRIOR_NORM, MMNC_PRIOR_PREDICTIVE or
                           MMNC_PRIOR_AGREEMENT; else 0 */
    int merge_split_tried, merge_split_kept; /* information with merge_split: the trials made and
                           kept (the objective rose) */
    int merge_split_sweeps; /* their sweeps, the last polish included (counted in iterations) */
    double agreement_prior, agreement_free; /* the agreement rule: the mean adjusted Rand index
                           between the starts' partitions with the prior and between their
                           prior-free optima; NAN where the rule did not apply */
    double agreement;   /* the mean adjusted Rand index between the starts' partitions under the
                           objective of the result: the Dirichlet mixture's starts; where the
                           information objective's agreement rule ran, agreement_prior, or
                           agreement_free where it refused the prior.  What `mmnc sweep` reads;
                           NAN for one start, the information objective without the rule, the
                           other algorithms and co-clustering */
    double lambda, step; /* Alg. 1: the values used */
    int *restart_converged; /* restarts: 1 where the start met its stopping rule, 0 where it
                           stopped at max_iter */
    double dmm_alpha, dmm_beta; /* MMNC_ALG_DMM: the Dirichlet parameters of the kept start (the
                           evidence's own, fitted with the labels, beta no less than
                           mmnc_params.dmm_beta); else NAN */

    /* Co-clustering (mmnc_params.col_clusters > 0); else l = 0 and NULL */
    mmnc_int l, nx;      /* column clusters; columns */
    mmnc_int *col_label; /* nx: the cluster 0..l-1 of each column */
    double *block_pz;    /* k x l row-major: P(z, w) at block_pz[z * l + w] */

    /* Semi-supervision (mmnc_params.fixed_label); else nfixed = 0 and NULL */
    mmnc_int nfixed;     /* rows held (this process's, in a distributed run) */
    unsigned char *fixed; /* ny: 1 where the row was held at its given label, else 0 */
    int semi_kept;       /* semi-supervision: the candidate kept (MMNC_SEMI_MOVES ...; "Semi-supervision"
                           below), 0 no labels (or Algorithm 1, whose soft result the rule does not judge) */
    double semi_scores[MMNC_SEMI_CANDIDATES]; /* each candidate's score, by semi_kept - 1: the share of
                           held rows put at their label with their fold left free (cross-validation);
                           NAN where semi_kept = 0, and where the held rows have one label value */
    double semi_score_moves, semi_score_seeded; /* semi_scores[0], and the better of the seeded two's */
    double semi_margin;  /* one standard error of their difference: sqrt(held rows hit by one of the
                           two only) / held rows; the seeded one is kept only when it scores higher
                           by more than this */
} mmnc_result;

/* mmnc_result.size_prior_refused (docs/default.md, "The guard") */
#define MMNC_PRIOR_NORM 1       /* the guard: the prior's partition lowered the nuclear norm */
#define MMNC_PRIOR_PREDICTIVE 2 /* the guard: its leave-one-row-out predictive information was
                                   not above zero */
#define MMNC_PRIOR_AGREEMENT 3  /* the agreement rule: the whole run used I(X;Z) alone */

/*
 * Co-clustering (mmnc_params.col_clusters = l > 0; the paper's conclusion:
 * cluster X in addition to Y).  The rows go to k clusters Z and the
 * columns to l clusters W, hard.  Three objectives, by the algorithm.
 *
 * MMNC_ALG_DMM (and MMNC_ALG_AUTO where every value is a whole number):
 * the Dirichlet mixture's model (MMNC_ALG_DMM above) with each cluster's
 * distribution over the columns in block form, q(x|z) = phi_z(W(x))
 * N_x / N_{W(x)}: phi_z ~ Dirichlet(beta) over the l column clusters, and
 * within a column cluster the columns in proportion to their counts N_x.
 * The objective is the log-evidence of the counts and row labels, over the
 * total count,
 *
 *     E = [ E_dmm(Z, alpha, beta; C_{Y,W}) + sum_x N_x log(N_x / N_{W(x)}) ] / N,
 *
 * E_dmm the Dirichlet mixture's evidence of the counts summed by column
 * clusters, C_{Y,W}; with every column a cluster of its own it is the
 * Dirichlet mixture's objective.  Each start alternates the rows (the
 * Dirichlet mixture's moves, refills and fitted alpha and beta >= dmm_beta
 * on C_{Y,W}, until no row moves) and the columns (single-column moves by
 * the exact change of E at that beta, until none moves; a column alone in
 * its cluster stays), then fits alpha and beta to the new blocks: E never
 * decreases after a start's first row step.  Start 0 is the answer of
 * mmnc_cluster with the same parameters and no column clusters, its
 * columns fitted to it first; the others are random (their first row step
 * runs the Dirichlet mixture's first phase).  The start of highest E is
 * kept; result dmm_alpha and dmm_beta are its parameters.
 *
 * MMNC_ALG_INFORMATION (and MMNC_ALG_AUTO on values that are not whole
 * numbers): the hard row and column clusters that maximise
 *
 *     I(Z;W) = sum_{z,w} P(z,w) log( P(z,w) / (P(z) P(w)) ),
 *     P(z,w) = sum over the rows y of z and the columns x of w of P(y,x),
 *
 * the objective of information-theoretic co-clustering (Dhillon, Mallela,
 * Modha, KDD 2003), whose loss I(X;Y) - I(Z;W) is the divergence of P_{Y,X}
 * from its block model.  Each start alternates a sweep of the rows and one
 * of the columns, each item moved in turn to the cluster that raises
 * I(Z;W) most (the exact change; the candidates are the two best by ITCC's
 * score, argmax_z sum_w P(y,w) log P(w|z) for a row, the same with P(z|w)
 * for a column); a start stops when an alternation moves nothing, or at
 * max_iter alternations (0: MMNC_DEFAULT_MAX_ITER_INFORMATION).  I(Z;W)
 * never decreases.  Start 0's rows are the answer of mmnc_cluster with the
 * same parameters and no column clusters (with MMNC_ALG_AUTO, auto's
 * choice for the rows alone: the Dirichlet mixture on whole counts),
 * its columns fitted to them by column sweeps before the alternation;
 * the other starts' rows are random or k-means++ (init; not spectral),
 * every start's columns random.  The start of best I(Z;W) is kept (select
 * objective; ties to the lower start).
 * The starts run side by side, one thread each: the same bits for any
 * number of threads.  size_prior, move_tol, merge_split and agreement do
 * not apply and are ignored; pz and refine must be unset (MMNC_EINVAL).
 *
 * With MMNC_ALG_NUCLEAR the objective is the nuclear form of the paper's
 * conclusion, ||B_{Z,W}||_* = ||A B C^T||_* for hard kernels A (rows) and
 * C (columns), B_{Z,W} = [P_Z]^{-1/2} P_{Z,W} [P_W]^{-1/2}, by alternating
 * maximisation: for fixed C, Algorithm 2 on the pmf P_{Y,W} (the paper's
 * problem with B C^T in place of B), then for fixed A Algorithm 2 on
 * P_{X,Z}; a side's new labels are kept only if the norm rose, so it never
 * decreases; max_iter caps the alternations (Algorithm 2 within each runs
 * to MMNC_DEFAULT_MAX_ITER_NUCLEAR iterations).  It makes one start, from
 * the one-sided results: the rows A1 of mmnc_cluster on P_{Y,X} with the
 * same parameters and no column clusters (its restarts, init and
 * selection), the columns C1 of the same run on P_{X,Z} for A1 (l
 * clusters); so the norm returned is at least ||A1 B C1^T||_*.
 *
 * The result: label and a one-hot W of the rows, stats of that row
 * clustering, objective = E, I(Z;W) or ||B_{Z,W}||_*, by the form,
 * restart_objective each start's (the nuclear form: restarts = 1), iterations in alternations, and
 * l, nx, col_label and block_pz.  A distributed pmf is gathered whole onto
 * every rank (collective: an allgather of the sizes and a broadcast of each
 * rank's rows), every rank runs the one-process co-clustering on it and
 * keeps its rows' label and W (col_label and block_pz whole): the result of
 * one process, bit for bit, at the price of every rank holding the whole
 * matrix, O(nnz_all + |Y|) memory per rank beyond its part (docs/mpi.md).
 * The nuclear form: O(nnz + Algorithm 2 on a |Y| x l and a |X| x k pmf)
 * per alternation; the Dirichlet form: O(nnz) to sum the blocks, the
 * Dirichlet mixture's sweeps on C_{Y,W} (O(nnz(C_{Y,W}) k) each) and
 * O(nnz + |X| k l) a column sweep;
 * MMNC_EINVAL if l exceeds the columns.  Time per alternation
 * O(nnz + |Y| k t_Y + |X| l t_X), t_Y <= l (t_X <= k) the column (row)
 * clusters a row (column) touches; memory O(|X| k + |Y| + k l) per thread.
 */

/*
 * Semi-supervision (mmnc_params.fixed_label; the paper's conclusion: "add
 * constraints that fix certain columns of P_{Z|Y} if a subset of the data
 * is labeled").  A labelled row y keeps the one-hot kernel column
 * P(.|y) = e_{fixed_label[y]} in every start, every iteration and the
 * result, for every algorithm: the objective is maximised over the free
 * rows' columns alone.  Cluster z is the cluster of the rows labelled z;
 * clusters no row is labelled with are free.  The starts place the free
 * rows around the labelled ones (src/cluster/seeded.c): start 0 is seeded
 * k-means, each free row to the labelled cluster of multinomial naive
 * Bayes, argmax_z sum_x N(y,x) log q(x|z) + log(n_z + 1), N(y,x) = P(y,x)
 * times the input's total (the counts, where the input is counts),
 * q(.|z) = l P(.|z) + (1 - l) P_X, P(.|z) the column distribution of the
 * n_z rows labelled z ((n_z + 1) / (n + k) is Laplace's estimate of the
 * cluster's share) and l one of 0.5, 0.8, 0.95: the one that predicts
 * most labelled rows at their label when each is left out of its
 * cluster's centre and count in turn (the smaller on ties); k-means++
 * seeds among the free rows for clusters without labels, which the moves
 * grow.  The other starts are the init's, renumbered to agree with the
 * labels by a greedy maximum matching on the overlaps, the labelled rows
 * then put back.
 * restart_init still names the init of each start.
 *
 * The selection rule (hard results: the Dirichlet mixture, information,
 * Algorithm 2, refine).  After the run three partitions are candidates, in
 * this order (semi_kept - 1): M, the run's result (MMNC_SEMI_MOVES); S,
 * start 0's seeded classifier above (MMNC_SEMI_CLASSIFIER); K, S
 * transduced: hard EM over all rows, alternating the centres and the
 * counts n_z of the whole partition and each free row's best centre, until
 * no free row moves (at most 50 sweeps; MMNC_SEMI_TRANSDUCED).  Each
 * is scored by 5-fold cross-validation on the held rows: held row y
 * (global index) is in fold (MurmurHash3's 64-bit finaliser of
 * seed * 0x9e3779b97f4a7c15 ^ y) mod 5; for each fold the candidate is made again with the fold's
 * rows free (M: the whole run again, without the rule), and the score
 * (semi_scores) is the share of held rows that their fold's run put at
 * their label.  The better seeded candidate (S on ties) replaces
 * M only when its score exceeds M's by more than one standard error of
 * the paired difference (semi_margin: sqrt(held rows hit by exactly one
 * of the two) / held rows; three candidates scored on the same few rows
 * make the largest score biased upward).  Then label and a one-hot W are
 * that candidate's made with every held row, the objective is the run's
 * objective of it (J as the run reports it; the nuclear norm for
 * Algorithm 2 without refine), stats its own, best_restart 0 and
 * iterations 0 (no sweep of the run made it).  Else the result is M's,
 * unchanged.  Where the held rows have one label value, M is kept and no
 * candidate is scored (semi_scores NAN): every candidate that gives the
 * held rows that value scores them all, and the classifiers put every row
 * there, the other clusters being their seeds alone.  semi_kept,
 * semi_scores and semi_margin say which and why.
 * Algorithm 1 (soft) is not judged (semi_kept 0).  The counts are exact
 * sums over all rows and ranks (the rule runs in a distributed run too,
 * with the same collectives: the same choice and bits for any number of
 * threads and ranks).  Cost: five more runs for M's folds, and for the
 * seeded candidates five classifiers and five transductions from them
 * (one more where a seeded one is kept), O(nnz k + nx k) a sweep
 * (docs/algorithms.md, "Semi-supervision", gives where this chooses well
 * and where not).
 *
 *   - information (and refine): the moves never move a held row; the
 *     merge-split search passes over pairs of clusters that both hold
 *     labelled rows (and merges away the one without); the guard and the
 *     agreement rule are unchanged.
 *   - Algorithm 2: held rows are left out of the moves; a prescribed P_Z
 *     with fixed_label is MMNC_EINVAL.
 *   - Algorithm 1: held columns of A stay one-hot and take no step;
 *     exact_marginal with fixed_label is MMNC_EINVAL.
 *   - co-clustering (col_clusters > 0) with fixed_label is MMNC_EINVAL.
 *
 * MMNC_EINVAL also for an entry outside -1 .. k-1 (mmnc_cluster names the
 * first), every row labelled, or fewer free rows than clusters no row is
 * labelled with.  In a distributed run these counts are over all ranks
 * (mmnc_cluster checks them collectively; mmnc_params_check sees the ny
 * entries it is given).  No row held on any rank is the run of
 * fixed_label NULL, bit for bit.  The result's label and W hold the held
 * rows at their labels (one-hot), fixed and nfixed say which.  The same
 * bits for any number of threads and ranks.
 */

/*
 * Cluster the rows of P_{Y,X} into k clusters (see mmnc_params), or
 * co-cluster rows and columns (col_clusters, above).
 * Returns MMNC_EINVAL for invalid parameters (with mmnc_params_check's
 * message), MMNC_EUNSUP if a prescribed P_Z is given to Alg. 2 without GLPK,
 * MMNC_ELP if the LP solver fails, MMNC_ECANCELED (*out NULL) when
 * prm->progress asked to stop.  Time per iteration O(nnz k + k^2 |X|);
 * memory O(k (|X| + |Y|)) beyond the pmf.
 */
MMNC_API int mmnc_cluster(const mmnc_pmf *p, const mmnc_params *prm, mmnc_result **out, mmnc_err *err);
MMNC_API void mmnc_result_free(mmnc_result *r);

/*
 * The most characteristic columns of each cluster: for cluster z the ntop
 * columns x with the largest score P(x|z) log(P(x|z) / P(x)), i.e. the terms
 * that contribute most to D(P_{X|Z=z} || P_X).  cols and score are k x ntop
 * row-major; unused slots (fewer columns with P(x|z) > 0) get -1 and 0.
 * O(nnz + k |X| log ntop).
 */
MMNC_API int mmnc_top_columns(const mmnc_pmf *p, const mmnc_result *r, mmnc_int ntop, mmnc_int *cols,
                     double *score, mmnc_err *err);

/* ------------------------------------------------------------------------ */
/* Saved models and prediction of new rows                                  */
/* ------------------------------------------------------------------------ */

/*
 * A learned clustering, kept so that rows that arrive later can be assigned
 * (docs/model-format.md gives the file layout: the binary format's
 * conventions, versioned and checksummed).  Everything prediction needs is
 * a function of the learned joint P_{Z,X} = W P_{Y,X}: the out-of-sample
 * rule of each objective is derived in src/model/model.c.  A new row y
 * enters through r(x) = P(x|y), its values on the known columns
 * normalised, and the rule is the assignment that raises the run's
 * objective most when y is added with a small mass:
 *
 *   - information moves (MMNC_ALG_INFORMATION, or refine != NONE):
 *     label = argmax_z sum_x r(x) log q(x|z), with
 *     q(x|z) = (P(z,x) + a P(x)) / (P(z) + a) and a = alpha / train_rows
 *     (the smoothing of the predictive selection, src/cluster/select.c); proba =
 *     the posterior of a mixture of multinomials q(.|z) with weights P_Z,
 *     the row's values taken as counts (so larger counts, sharper
 *     probabilities);
 *   - the Dirichlet mixture (MMNC_ALG_DMM, with cluster_rows): the
 *     mixture's posterior of the row's cluster given the training
 *     partition, the row's values n(x) as counts (n their sum), as a move
 *     of the row scores it (docs/dmm.md):
 *       log(m_z + alpha) + sum_x [lgamma(N_zx + n(x) + beta) - lgamma(N_zx + beta)]
 *                        - [lgamma(N_z + n + V beta) - lgamma(N_z + V beta)],
 *     m_z = cluster_rows[z], N_zx = P(z,x) train_mass, N_z = P(z)
 *     train_mass, V = ncols; label its argmax, proba its softmax (the
 *     label depends on the row's scale: these are counts).  A mixture's
 *     model without cluster_rows (format versions 1 and 2) gets the
 *     information rule;
 *   - Algorithm 2 without refinement (hard steps, or a prescribed P_Z):
 *     Algorithm 2's assignment step, label = argmax_z c(z) with
 *     c = s [P_Z]^{-1/2} U_+ S_+^{-1} U_+^T [P_Z]^{-1/2}, s(j) = sum_x r(x)
 *     P(j,x) / P(x), from the SVD B_{Z,X} = U S V^T of the stored joint;
 *     proba one-hot (the step is hard);
 *   - Algorithm 1: proba(z) = sum_x r(x) P(z|x), the direction in which
 *     Algorithm 1's projected gradient step moves a new column from the
 *     stationary column P_Z; label = its argmax.
 * Labels are the same for any scale of the row but the mixture's; ties go
 * to the smallest z.
 *
 * Held rows.  A row identical to a row held at a given label in training
 * (mmnc_result.fixed, semi-supervision) gets that label, with one-hot
 * proba; every other row follows the rule above, unchanged.  "Identical"
 * is decided by a 64-bit hash of the row's content (mmnc_model_row_hash):
 * its model columns in increasing order and its values there normalised
 * to sum 1 and rounded to float, so that the row read again, at any scale,
 * in any column order, with any columns the model does not know, hashes
 * the same (the rounding absorbs the few ulps by which the training pmf's
 * P(y,x) = A(y,x) / total and the row read again differ; for integer
 * counts whose row sum is below 2^25 the rounding cannot separate them).
 * Held rows of the same content but different labels are not kept (they
 * follow the rule).
 *
 * Columns of a co-clustering model (l > 0).  A training column keeps its
 * cluster col_label.  A column that the model does not know is assigned
 * by the column-side counterpart of the information rule, from the rows
 * of the new data and their predicted clusters: with r(z) the column's
 * mass over the rows labelled z (normalised; rows labelled -1 do not
 * count), adding the column with a small mass e to column cluster w
 * changes I(Z;W) by e sum_z r(z) log P(z|w) plus terms that do not depend
 * on w, so it goes to argmax_w sum_z r(z) log q(z|w), with
 * q(z|w) = (P(z,w) + b P(z)) / (P(w) + b) and b = alpha / ncols (the
 * row rule's smoothing, in average training columns).  A column with no
 * mass on a labelled row is unassigned (-1) (mmnc_model_predict_cols).
 */
typedef struct mmnc_model {
    mmnc_int k, ncols;  /* clusters; columns of the training data (after drops) */
    int algorithm;      /* mmnc_algorithm of the run; refine says if information moves followed */
    int refine;         /* mmnc_refine applied (MMNC_REFINE_NONE for soft results) */
    int hard;           /* 1 if the training kernel was hard (labels), 0 if soft (Alg. 1, LP) */
    char **col_ids;     /* ncols: the id of each column as mmnc_data_col_id gives it (a name,
                           or the 1-based original index as text); new data is matched by id */
    double *px;         /* ncols: P_X of the training data */
    double *pz;         /* k: P_Z */
    double *pzx;        /* k x ncols row-major: P(z, x) at pzx[z * ncols + x] */
    double alpha;       /* smoothing pseudo-mass of the information rule, in units of an
                           average training row's mass (the selection's a, or 1) */
    double objective;   /* the run's objective; mutual_information: its I(X;Z) */
    double mutual_information;
    mmnc_int train_rows; /* |Y| of the training data */
    double train_mass;  /* total mass of the training matrix before normalisation */
    uint64_t seed;      /* the run's seed */
    uint64_t input_hash; /* caller's hash of the training input (0 = unknown) */
    char *version;      /* mmnc version that wrote it (MMNC_VERSION_STRING) */
    char *options;      /* free text: the options of the run (may be NULL) */
    /* Co-clustering (mmnc_params.col_clusters > 0); else l = 0 and NULL */
    mmnc_int l;         /* column clusters */
    mmnc_int *col_label; /* ncols: the cluster 0..l-1 of each training column */
    double *block_pz;   /* k x l row-major: P(z, w) at block_pz[z * l + w] */
    /* Held rows (semi-supervision: mmnc_result.fixed); else nheld = 0 and NULL */
    mmnc_int nheld;     /* held rows, one entry per distinct content */
    uint64_t *held_hash; /* nheld, strictly increasing: mmnc_model_row_hash of each held row */
    mmnc_int *held_label; /* nheld: the label it was held at, 0..k-1 */
    /* The Dirichlet mixture (algorithm MMNC_ALG_DMM); else NULL and 0 */
    mmnc_int *cluster_rows; /* k: the training rows of each cluster */
    double dmm_alpha, dmm_beta; /* the run's alpha and beta (mmnc_result.dmm_alpha, dmm_beta) */
} mmnc_model;

/* Build a model from a clustering result r of the pmf p, clustered with
 * the parameters prm (its pz says whether the result was soft, its seed is
 * recorded).  d (may be NULL) names the columns by mmnc_data_col_id (else
 * they are "1".."ncols"; d->A must have p's columns); the ids must be
 * distinct (MMNC_EINVAL naming the id otherwise: new data is matched by
 * them).  alpha is r->restart_alpha of the kept start when the predictive
 * selection ran, else 1.  options (may be NULL) and input_hash are
 * provenance copied into the model.  With a distributed pmf the call is
 * collective (P_{Z,X} is summed over the ranks) and every rank gets the
 * model.  A co-clustering result (r->l > 0) gives l, col_label and
 * block_pz; a result with held rows (r->nfixed > 0, r->fixed) gives the
 * held rows' hashes and labels (every rank's, in a distributed run); a
 * Dirichlet mixture's result (r->algorithm MMNC_ALG_DMM with positive
 * dmm_alpha and dmm_beta) gives cluster_rows, dmm_alpha and dmm_beta.
 * Errors: MMNC_EINVAL, MMNC_ENOMEM.  O(nnz + k ncols + nfixed log nfixed). */
MMNC_API int mmnc_model_from_result(const mmnc_pmf *p, const mmnc_data *d, const mmnc_result *r,
                                    const mmnc_params *prm, uint64_t input_hash, const char *options,
                                    mmnc_model **out, mmnc_err *err);
MMNC_API void mmnc_model_free(mmnc_model *m);

/* Write m to path atomically (mmnc_outfile); read it back, verifying the
 * checksums, the sizes, the values (finite, P_X > 0, the marginals of
 * P_{Z,X} equal to P_Z and P_X within 1e-6) and that the ids are distinct.
 * A foreign file ("not an mmnc model (bad magic)"), a newer format version
 * ("model format version N is newer than this mmnc supports (3)") or
 * unknown required features, a truncated ("truncated: header says N bytes,
 * file has M") or corrupt file ("checksum mismatch in the P_X section
 * ..."): MMNC_EFORMAT with a message that starts with the path and says
 * which; MMNC_EIO when the file cannot be read or written; MMNC_EUNSUP on a
 * big-endian host.  A model file may be gzip- or xz-compressed (read as
 * mmnc_file_read_all reads).  O(k ncols + id bytes). */
MMNC_API int mmnc_model_write(const mmnc_model *m, const char *path, mmnc_err *err);
MMNC_API int mmnc_model_read(const char *path, mmnc_model **out, mmnc_err *err);

/* Map the columns of new data d onto the model's: map[j] = the model column
 * with the same id as column j of d, or -1 (unknown, ignored by
 * prediction).  *unknown (may be NULL) = columns of d with no match.  Two
 * columns of d with one id that the model knows: MMNC_EINVAL naming the id
 * and both columns (columns of one unknown id are ignored alike).
 * O(ncols + d's columns) expected (hashing). */
MMNC_API int mmnc_model_match(const mmnc_model *m, const mmnc_data *d, mmnc_int *map, mmnc_int *unknown,
                              mmnc_err *err);

/* Assign the rows of A (nonnegative counts, any scale; its columns are
 * mapped by map, NULL = A's columns are the model's, A->ncols <= m->ncols)
 * with the model's out-of-sample rule (above): label[i] in 0..k-1, or -1
 * for a row with no mass on a known column; proba (may be NULL) gets k
 * values per row (row-major, summing to 1; zeros for a row labelled -1).
 * *empty (may be NULL) = rows labelled -1.  Errors: MMNC_EINVAL (A fails
 * mmnc_csr_check, a map entry outside -1..ncols-1), MMNC_ENOMEM.
 * Deterministic for any thread count (each row is computed alone, in a
 * fixed order).  O(nnz k + k ncols + k^3). */
MMNC_API int mmnc_model_predict(const mmnc_model *m, const mmnc_csr *A, const mmnc_int *map, mmnc_int *label,
                                double *proba, mmnc_int *empty, mmnc_err *err);

/* The same with *held (may be NULL) = rows given the label of a held row
 * (above).  mmnc_model_predict is this with held NULL. */
MMNC_API int mmnc_model_predict_ex(const mmnc_model *m, const mmnc_csr *A, const mmnc_int *map, mmnc_int *label,
                                   double *proba, mmnc_int *empty, mmnc_int *held, mmnc_err *err);

/* The log-likelihood of each row of A (columns as in mmnc_model_predict)
 * under the model read as a generative mixture, up to the row's
 * multinomial coefficient, which no model changes:
 *
 *   the Dirichlet mixture (rule 4):  log sum_z (m_z + alpha) / (sum_z' m_z' + k alpha)
 *       * prod_x Gamma(N_zx + n(x) + beta) / Gamma(N_zx + beta)
 *       * Gamma(N_z + V beta) / Gamma(N_z + n + V beta),
 *     with column clusters (m->l > 0) the same over the row's counts summed
 *     by cluster, n(w), with N_zw and L beta, times prod_x (P(x) /
 *     P(W(x)))^n(x), each column's share of its cluster,
 *   every other model (rule 1's mixture):  log sum_z P_Z(z) prod_x q(x|z)^n(x),
 *       q(x|z) = (P(z,x) + a P(x)) / (P_Z(z) + a),  a = alpha / training rows,
 *
 * n(x) the row's values as counts, n their sum over the known columns.
 * loglik[i] = 0 for a row without mass there (the empty observation);
 * mass (may be NULL): mass[i] = n.  Held rows are scored by the mixture
 * like any other.  sum_i loglik[i] / sum_i mass[i] is the mean
 * log-likelihood per token, exp(-it) the perplexity: on held-out rows it
 * compares models of different k.  Errors as mmnc_model_predict.  The
 * same bits for any thread count.  O(nnz k + k ncols). */
MMNC_API int mmnc_model_loglik(const mmnc_model *m, const mmnc_csr *A, const mmnc_int *map, double *loglik,
                               double *mass, mmnc_err *err);

/* The hash by which a row is matched to the held rows (above): the n
 * entries cols[i] (model columns, any order, each at most once; entries
 * with cols[i] < 0 or val[i] == 0 are skipped) with values val[i] (any
 * scale).  0 for a row without mass (no held row has that hash).  scratch:
 * 2 n mmnc_int.  O(n log n). */
MMNC_API uint64_t mmnc_model_row_hash(mmnc_int n, const mmnc_int *cols, const double *val, mmnc_int *scratch);

/* Co-clustering models (m->l > 0): the column cluster of each column j of A
 * (mapped by map as in mmnc_model_predict), given label, the rows' clusters
 * that mmnc_model_predict gave: col_label[j] = m->col_label[map[j]] for a
 * column the model knows, else the column rule above, -1 for a column with
 * no mass on a row of label >= 0.  *assigned and *unassigned (may be NULL):
 * the unknown columns given a cluster, and those left at -1.  MMNC_EINVAL
 * for a model without column clusters or a bad map.  O(nnz + A->ncols l k
 * + k l). */
MMNC_API int mmnc_model_predict_cols(const mmnc_model *m, const mmnc_csr *A, const mmnc_int *map,
                                     const mmnc_int *label, mmnc_int *col_label, mmnc_int *assigned,
                                     mmnc_int *unassigned, mmnc_err *err);

/* ------------------------------------------------------------------------ */
/* Evaluation against reference labels                                      */
/* ------------------------------------------------------------------------ */

typedef struct mmnc_scores {
    mmnc_int n;          /* items */
    mmnc_int nclusters;  /* distinct predicted labels */
    mmnc_int nclasses;   /* distinct true labels */
    double acc;          /* accuracy under the best one-to-one matching (Hungarian) */
    double nmi;          /* normalised mutual information, arithmetic-mean normalisation */
    double ari;          /* adjusted Rand index */
    double purity;       /* sum over clusters of the largest class count, / n */
    /* The paper's Reuters measures, against the nclusters largest classes:
     * coverage = share of items in those classes; clusters are matched one
     * to one to them (Hungarian); overall = matched items / n; kacc =
     * matched items / items in those classes. */
    double coverage, overall, kacc;
} mmnc_scores;

/* Score predicted labels pred[i] (any integers >= 0) against truth[i]
 * (any integers >= 0).  O(n + C K + min(C,K)^2 max(C,K)). */
MMNC_API int mmnc_evaluate(mmnc_int n, const mmnc_int *pred, const mmnc_int *truth, mmnc_scores *out,
                  mmnc_err *err);

/* Maximum-weight matching of rows to columns of the nr x nc matrix w
 * (row-major): assign[i] = column matched to row i, or -1 when nr > nc and
 * row i is left out.  Hungarian algorithm, O(min^2 max). */
MMNC_API int mmnc_assignment_max(mmnc_int nr, mmnc_int nc, const double *w, mmnc_int *assign,
                        mmnc_err *err);

/* ------------------------------------------------------------------------ */
/* Word co-occurrence from text                                              */
/* ------------------------------------------------------------------------ */

typedef struct mmnc_cooc_opts {
    int window;          /* context words on each side, 1..MMNC_COOC_WINDOW_MAX (default
                            MMNC_DEFAULT_COOC_WINDOW) */
    int weighting;       /* 0: each pair counts 1; 1: a pair at distance d counts 1/d (default
                            MMNC_DEFAULT_COOC_WEIGHTING) */
    mmnc_int min_count;  /* keep words seen at least this often, >= 1 (default
                            MMNC_DEFAULT_COOC_MIN_COUNT) */
    mmnc_int max_vocab;  /* keep at most this many most frequent words; 0 = no limit (default
                            MMNC_DEFAULT_COOC_MAX_VOCAB) */
    int sentences;       /* 1: windows do not cross sentence ends . ! ? (default
                            MMNC_DEFAULT_COOC_SENTENCES) */
    int threads;         /* 0 = OpenMP's default (default MMNC_DEFAULT_THREADS) */
    const char *tokens;  /* if not NULL: write the token stream to this file (below) */
    size_t max_memory;   /* bytes for the pair tables; 0 = no limit (default
                            MMNC_DEFAULT_COOC_MAX_MEMORY); else at least MMNC_COOC_MEMORY_MIN:
                            beyond it, sorted runs go to a temporary file ("Memory" below) */
    mmnc_progress_fn progress; /* called after each block of text read (threads x 1 MiB) with
                            restart = the pass (1: the words' counts, 2: the pairs'), iter =
                            the blocks of the pass so far and, as objective, the tokens read
                            in the pass so far; nonzero stops the counting (MMNC_ECANCELED,
                            nothing returned) (default NULL) */
    void *progress_ctx;
} mmnc_cooc_opts;

MMNC_API void mmnc_cooc_opts_default(mmnc_cooc_opts *o);

/*
 * Build the word x word co-occurrence matrix of the text files paths[0 ..
 * npaths-1] (plain or gzip, detected by zlib).  A[w][c] is the weighted
 * number of times c occurs within `window` tokens of w: summed over every
 * occurrence p of w and q of c with 0 < |p - q| <= window, of 1 (flat) or
 * 1/|p - q| (harmonic).  A is symmetric; a word near itself counts on the
 * diagonal from both sides.
 *
 * Tokens: maximal runs of word characters -- ASCII letters and digits and
 * every non-ASCII character outside the Unicode punctuation, symbol and
 * space blocks (so accented and non-Latin letters) -- joined by single inner
 * apostrophes or hyphens ("don't", "well-known"; U+2019 and U+2010 count as
 * ' and -, and are stored as such); ASCII letters are lower-cased.  Bytes
 * that are not valid UTF-8 are read as Windows-1252 and stored as UTF-8.
 * Tokens longer than 255 bytes are ignored.
 * Windows: out-of-vocabulary tokens are removed before windowing (as
 * word2vec and GloVe do), so `window` counts vocabulary words.  A window
 * never crosses a paragraph break (a line of only spaces), the end of a
 * file, or, when o->sentences, a sentence end (. ! ? except a period right
 * after Mr, Mrs, Ms, Dr, St, Messrs, Mme, Mlle, Rev, Prof, Capt, Col, Lt,
 * Gen, Sgt, Hon).  No header or footer is stripped: Project Gutenberg
 * boilerplate is counted like the text (its words are mostly rare).
 *
 * Vocabulary: the words seen at least min_count times, at most max_vocab of
 * them; rows and columns are in order of decreasing count, ties by bytewise
 * word order, and (*vocab)[i] is the word of row i (UTF-8).  A vocabulary
 * word may have an empty row (drop it with mmnc_data_drop_empty).
 *
 * Token stream (o->tokens): the text as the windows see it, in vocabulary
 * words only, one line per window segment (a sentence, or the text between
 * two breaks), words separated by single spaces, and an empty line after a
 * paragraph (a blank line or the end of a file).  It is what word2vec-style
 * trainers read (gensim's LineSentence), so that they train on the same
 * corpus and vocabulary as this matrix.  Written atomically, only when the
 * whole call succeeds.
 *
 * Outputs: *out (free with mmnc_csr_free); *vocab (may be NULL; free with
 * mmnc_names_free(*nvocab, *vocab)); *nvocab = |V|; *ntokens (may be NULL) =
 * tokens read, in or out of the vocabulary.
 *
 * Determinism: counts are accumulated as integers (1/d as lcm(1..window)/d
 * units for window <= 18; beyond, 1/d rounded to a multiple of 2^-24), so
 * the result is bitwise the same for any number of threads and any
 * max_memory.
 *
 * Memory: the pair counts are kept in one hash table per thread (16 bytes
 * a slot, 35% to 70% full: 23 to 46 bytes per distinct pair, i.e. per two
 * nonzeros of the result, which take 32), and without a limit the result is
 * built through a copy of its entries (another 16 bytes per nonzero).  With
 * o->max_memory > 0, each of the T threads' tables is held to
 * max_memory / T bytes, counting the old table while it grows (but no less
 * than 256 slots, 6 KB); a full table is sorted by (row, column) in place
 * and written as a run to one temporary file in $TMPDIR (or /tmp), then
 * emptied.  At the end the runs, and what is left in the tables, are merged
 * (at most 64 at a time, in buffers of at most max_memory bytes in all;
 * more runs are first merged in groups), summing equal pairs, straight into
 * the result, without the copy.  The file is created with mkstemp and
 * unlinked at once: it never outlives the call, whatever happens.  The
 * limit covers the pair tables and the merge, not the result (in memory,
 * 16 bytes per nonzero), the vocabulary (pass 1 counts every distinct token
 * in memory) or the text blocks (1 MB per thread).  Disk: 16 bytes per
 * pair per run, more when merges in groups are needed.
 *
 * Errors: MMNC_EINVAL for bad options or when no word occurs min_count
 * times; MMNC_EIO for a file that cannot be opened or read (the message
 * names it); MMNC_EFORMAT for corrupt or truncated gzip data (never a
 * partial result) and for a NUL byte, which text never holds ("PATH: NUL
 * byte at offset N": binary input is refused); MMNC_EIO when the temporary
 * file cannot be created, written (a full disk) or read back, the message
 * naming its directory (never a partial result); MMNC_EINVAL for a
 * max_memory below MMNC_COOC_MEMORY_MIN; MMNC_ENOMEM.
 * Two streaming passes; time O(corpus * window), plus O(P log P) for P
 * pairs spilled; memory O(distinct words + nonzero pairs) per thread (the
 * pairs: at most max_memory when set) plus 1 MB of text per thread, never
 * the corpus.
 */
MMNC_API int mmnc_cooc_build(const char *const *paths, int npaths, const mmnc_cooc_opts *o,
                    mmnc_csr **out, char ***vocab, mmnc_int *nvocab, mmnc_int *ntokens,
                    mmnc_err *err);

/* What mmnc_cooc_build_ex did (all zero after a failure). */
typedef struct mmnc_cooc_info {
    mmnc_int tokens;       /* tokens read, in or out of the vocabulary */
    int64_t runs;          /* sorted runs written to the temporary file (0: none) */
    int64_t spilled_bytes; /* bytes written to it, merges in groups included */
} mmnc_cooc_info;

/* mmnc_cooc_build, reporting into *info (may be NULL) instead of *ntokens. */
MMNC_API int mmnc_cooc_build_ex(const char *const *paths, int npaths, const mmnc_cooc_opts *o,
                                mmnc_csr **out, char ***vocab, mmnc_int *nvocab,
                                mmnc_cooc_info *info, mmnc_err *err);

/*
 * Split text[0 .. n-1] into the tokens mmnc_cooc_build counts (same rules:
 * lower-cased ASCII, UTF-8 out, Windows-1252 bytes converted), calling
 * fn(ctx, word, len) for each token (word is not NUL-terminated and lives
 * only during the call) and fn(ctx, NULL, 0) at each window break: a blank
 * line and, when `sentences`, a sentence end.  Tokens longer than 255 bytes
 * are skipped.  Use it to map other text (queries, test sentences) onto a
 * vocabulary made by mmnc_cooc_build.  O(n).
 */
typedef void (*mmnc_token_fn)(void *ctx, const char *word, size_t len);
MMNC_API void mmnc_tokenize(const char *text, size_t n, int sentences, mmnc_token_fn fn, void *ctx);

/* ------------------------------------------------------------------------ */
/* Document x term matrices from text                                        */
/* ------------------------------------------------------------------------ */

typedef struct mmnc_docs_opts {
    int lines;           /* 0: each file is one document (default); 1: each line that is not
                            blank is one, named "FILE:LINE" (LINE 1-based, blank lines counted) */
    double min_df;       /* keep terms in at least this many documents: >= 1 a count (a whole
                            number), in (0, 1) a fraction of the documents (default
                            MMNC_DEFAULT_DOCS_MIN_DF) */
    double max_df;       /* keep terms in at most this many documents: <= 1 a fraction (1: no
                            limit), > 1 a count (a whole number) (default MMNC_DEFAULT_DOCS_MAX_DF) */
    mmnc_int min_count;  /* keep terms seen at least this often in all, >= 1 (default
                            MMNC_DEFAULT_DOCS_MIN_COUNT) */
    mmnc_int max_vocab;  /* then keep at most this many, the most frequent; 0 = all (default
                            MMNC_DEFAULT_DOCS_MAX_VOCAB) */
    const char *const *stop_words; /* NULL-terminated words never counted, or NULL (default);
                            each is tokenised like the text (so "Don't" stops "don't"), e.g.
                            mmnc_stop_words_english() or a file's (mmnc_stop_words_read) */
    int drop_empty;      /* 1: leave out documents without a kept term; 0: keep them as empty
                            rows, so that row i is the i-th document (default) */
} mmnc_docs_opts;

MMNC_API void mmnc_docs_opts_default(mmnc_docs_opts *o);

/* A built-in English stop-word list (about 300 function words: articles,
 * pronouns, auxiliaries, prepositions, conjunctions, common adverbs, the
 * contractions "don't", "it's", ...), written for mmnc, lower case, sorted,
 * NULL-terminated; static, not to be freed.  O(1). */
MMNC_API const char *const *mmnc_stop_words_english(void);

/* Read a stop-word file (plain, gzip or xz; "-" reads standard input): one
 * word a line, each line as written less the blanks around it (tokenised
 * by mmnc_docs_build like the text, so a line of two words stops both, and
 * bytes that are not UTF-8 are read as the text's are).  Blank lines (empty,
 * or blanks only) and comment lines, whose first character other than a
 * blank is '#', are skipped: stop-word lists are often written so, and no
 * token starts with '#'.  *out: the *n words followed by a NULL, so that it
 * may serve as mmnc_docs_opts.stop_words; free with mmnc_names_free(*n,
 * *out).  Errors: MMNC_EINVAL (NULL argument), MMNC_EIO (cannot open or
 * read), MMNC_ENOMEM, MMNC_EFORMAT for a NUL byte ("file:line: NUL byte:
 * ...") and for a file without a word ("file: no stop words found ...").
 * O(file size). */
MMNC_API int mmnc_stop_words_read(const char *path, mmnc_int *n, char ***out, mmnc_err *err);

/* What mmnc_docs_build saw (all counts before drop_empty). */
typedef struct mmnc_docs_info {
    mmnc_int files;      /* regular files read */
    mmnc_int docs;       /* documents found */
    mmnc_int empty;      /* documents without a kept term (dropped iff drop_empty) */
    mmnc_int tokens;     /* tokens read, stop words included */
    mmnc_int stopped;    /* tokens that were stop words */
    mmnc_int terms_seen; /* distinct terms other than stop words */
    mmnc_int terms;      /* terms kept: the columns */
} mmnc_docs_info;

/*
 * Build the document x term count matrix of text: A[d][t] = how often term
 * t occurs in document d.  paths[0 .. npaths-1] are files (plain, gzip or
 * xz, mmnc_file_read_all; "-" is standard input) or directories; a
 * directory is walked recursively, its regular files (symbolic links
 * followed, links to directories not entered, names starting with '.'
 * skipped) taken in bytewise order of their paths, so the result does not
 * depend on the order the file system lists them.  Each file is a document
 * named by its path (the path given, joined with '/' to the entries below
 * a directory), or, with o->lines, each non-blank line is one ("PATH:N").
 * The path in a name is escaped so that a name is one line of a .rows
 * file, one field of a TSV and valid UTF-8 in JSON: a backslash is
 * doubled, a newline, tab and carriage return are written \n, \t, \r, and
 * every other control byte and every byte that is not part of a valid
 * UTF-8 character (RFC 3629) is \xHH (two lower-case hex digits); valid
 * UTF-8 characters are kept.  printf '%b' gives the path back.
 * Tokens: mmnc_tokenize's rules (lower-cased ASCII, UTF-8, inner ' and -;
 * no sentence or paragraph breaks matter here).
 * Terms: stop words are removed first; then the terms seen min_count times
 * in at least min_df and at most max_df documents (fractions of all
 * documents, the empty included) are kept, at most max_vocab of them (the
 * most frequent).  Columns are in order of decreasing count, ties by
 * decreasing document frequency, then bytewise order of the terms.
 * Output: *out with row_names (the documents) and col_names (the terms),
 * free with mmnc_data_free; mmnc_data_write_mtx writes it with its .rows
 * and .cols side files.  *info (may be NULL) gets the counts.
 * One thread, a fixed order: the same bits on every run.
 * Errors (the message names the file): MMNC_EINVAL for bad options, no
 * paths, a directory without files, no documents, or no term left after the
 * filters (saying which); MMNC_EIO for a file or directory that cannot be
 * read; MMNC_EFORMAT for corrupt compressed data and for a NUL byte ("PATH:
 * NUL byte at offset N: this is not a text file"); MMNC_ENOMEM.
 * Time O(text + T log T) for T tokens of the largest document plus the
 * sorts of paths and terms; memory O(largest file + distinct terms + nonzeros).
 */
MMNC_API int mmnc_docs_build(const char *const *paths, int npaths, const mmnc_docs_opts *o, mmnc_data **out,
                             mmnc_docs_info *info, mmnc_err *err);

#ifdef __cplusplus
}
#endif

#endif /* MMNC_H */
