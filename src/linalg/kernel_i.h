/*
 * kernel_i.h -- the per-iteration kernels shared by the solvers (private).
 *
 * Every kernel is a sparse-times-skinny product over independent rows of P
 * or of its transpose Pt, so it parallelises without atomics and gives the
 * same bits for any thread count, and so that a row-partitioned (MPI)
 * version only adds one reduction of the k x |X| block.
 *
 * Layouts: "nx x k" and "ny x k" blocks are row-major (item-major), so the
 * k values of one row or column of the data are contiguous.
 */
#ifndef MMNC_KERNEL_I_H
#define MMNC_KERNEL_I_H

#include "core/mmnc_i.h"

/* T = (W P)^T, nx x k: T[x*k+z] = sum_y W[z,y] P[y,x].  Hard labels (W
 * NULL) make it a scatter of rows; soft W is k x ny (W[y*k+z]).  O(nnz (k)).
 * Distributed: each rank scatters its rows, then T is summed across ranks
 * (collective; so are mmnc_i_pz and mmnc_i_stats_from). */
void mmnc_i_pzx(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels, const double *W, double *T);

/* The same T from the rows of P alone (pmfs without P^T): T[x*k + z] sums,
 * over the rows y in increasing order, labels (or l8, its bytes) ?
 * [z == label(y)] v(e) : W[y*k + z] v(e), v(e) = vals[e] / sqrt(rsq[y])
 * (vals NULL: P's values; rsq NULL: v(e) = vals[e]).  Threads take ranges of columns (each
 * reads its part of every row), so every sum is made in the order of a pass
 * over P^T: the same bits as that pass, for any thread count.  Local to
 * this rank (no sum across ranks).  O(nnz k + ny log(row length) threads). */
void mmnc_i_col_scatter(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels, const uint8_t *l8, const double *W,
                        const double *vals, const double *rsq, double *T);

/* T and pz of hard labels as mmnc_i_pzx and mmnc_i_pz make them, but every
 * sum exact (mmnc_i_fix_add) and rounded once: the same bits in any order
 * of the rows, for any number of threads and of ranks (collective: the
 * limbs are summed across ranks).  work holds mmnc_i_fix_work(p, k)
 * int64s (at most 8 MB, or 32 k bytes).  O(nnz + nx k). */
size_t mmnc_i_fix_work(const mmnc_pmf *p, mmnc_int k);
void mmnc_i_pzx_fix(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels, double *T, double *pz, int64_t *work);

/* P_Z from hard labels or soft W.  O(ny k), serial (deterministic). */
void mmnc_i_pz(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels, const double *W, double *pz);

/* S = P D_x^{-1} T, ny x k: S[y*k+z] = sum_x P[y,x] T[x*k+z] / px[x].  Tx
 * (nx x k) is scratch.  O(nnz k). */
void mmnc_i_row_gather(const mmnc_pmf *p, mmnc_int k, const double *T, double *Tx, double *S);

/* The same rows of S one at a time: fn(ctx, y, s) for every row y (in any
 * order, from the threads), s the k values of row y; S, if not NULL, keeps
 * them (then this is mmnc_i_row_gather), else s is a per-thread buffer that
 * lasts until fn returns.  MMNC_OK, or MMNC_ENOMEM for the buffers. */
typedef void (*mmnc_i_row_fn)(void *ctx, mmnc_int y, const double *s);
int mmnc_i_row_gather_each(const mmnc_pmf *p, mmnc_int k, const double *T, double *Tx, double *S,
                           mmnc_i_row_fn fn, void *ctx);

/* out[z] = sum over e in [e0, e1), in that order, of val[e] M[colind[e]*k + z]
 * (z < k): one row of a sparse-times-skinny product.  out must not overlap
 * M.  mmnc_i_gather_for(k) returns a version with k fixed at compile time
 * for k <= 16 (the sums in registers) and a general one otherwise; all
 * make the same sums in the same order, so the same bits.  Prefetches the
 * row of M that nonzero e + 16 will need (nnz: the end of colind). */
typedef void (*mmnc_i_gather_fn)(const mmnc_int *colind, const double *val, mmnc_int e0, mmnc_int e1,
                                 mmnc_int nnz, const double *M, mmnc_int k, double *out);
mmnc_i_gather_fn mmnc_i_gather_for(mmnc_int k);

/* Screening in single precision (Algorithm 2's hard steps; bench/NOTES.md,
 * "Algorithm 2's scores screened in single precision").  A k = 10 row of
 * Tx in doubles is 80 bytes, two cache lines at a random place per
 * nonzero; in floats, padded to a stride of 8 (k <= 8) or 16 (k <= 16)
 * floats on aligned lines, it is one.  The solver decides
 * each row from these approximate scores when a rigorous error bound proves
 * the decision equal to the double-precision one, and recomputes the row
 * in doubles otherwise: the same results either way.
 *
 * mmnc_i_f32_stride: floats per row of F (8 or 16), 0 when k is outside
 * 2..16 (no screening).  mmnc_i_tx_f32: Tx = D_x^{-1} T (as
 * mmnc_i_row_gather_each makes it) and F[x*stride + z] = (float)Tx[x*k + z]
 * (the padding zero); F aligned to 64 bytes.  O(nx k). */
mmnc_int mmnc_i_f32_stride(mmnc_int k);
void mmnc_i_tx_f32(const mmnc_pmf *p, mmnc_int k, const double *T, double *Tx, float *F);

/* For every row y (in any order, from the threads): s[z] = sum over the
 * row's nonzeros e, in order, of val[e] (double)F[colind[e]*stride + z] in
 * double precision (z < k), and s[k] = sum of val[e]; then fn(ctx, y, s).
 * s is a per-thread buffer.  MMNC_OK, or MMNC_ENOMEM for the buffers. */
int mmnc_i_row_gather32_each(const mmnc_pmf *p, mmnc_int k, const float *F, mmnc_i_row_fn fn, void *ctx);

/* The screen's mode (mmnc_i_tuning.screen): 0 never screen, 1 when Tx
 * outgrows the L2 cache (the default), 2 whenever k allows; -1 in tune (or
 * tune NULL) reads the environment's MMNC_SCREEN (0, 1 or 2), else 1.  And
 * the screen's counters, added to counts (atomically; NULL: not counted):
 * rows scored by the screen, rows of those recomputed in doubles, passes
 * that recomputed every row (before a partial step or a refill). */
int mmnc_i_screen_mode(const mmnc_i_tuning *tune);
void mmnc_i_screen_count(mmnc_i_counts *counts, int64_t rows, int64_t exact, int64_t full);

/* Spectrum of B_{Z,X} = D_z^{-1/2} T^T D_x^{-1/2}: the k x k Gram matrix
 * G = B B^T (summed over fixed blocks of x in a fixed order; distributed,
 * every rank sums all the blocks of its copy of T, so every rank has the
 * bits of one process without a collective) and its eigen-decomposition.  sigma (k, descending), U (k x k row-major, column i
 * = left singular vector i).  Clusters with pz = 0 give zero rows.
 * Returns MMNC_OK or an error from LAPACK.  O(k^2 nx + k^3). */
int mmnc_i_spectrum(const mmnc_pmf *p, mmnc_int k, const double *T, const double *pz, double *sigma,
                    double *U, mmnc_err *err);

/* Exact I(X;Z) in nats from T and pz, its terms summed exactly
 * (mmnc_i_fix_add): the same bits however the clusters are numbered (and, T
 * and pz being exact, for any number of ranks).  NAN when out of memory.
 * O(k nx). */
double mmnc_i_mutual_info(const mmnc_pmf *p, mmnc_int k, const double *T, const double *pz);

/* Fill stats s (initialised for k) from T and pz: spectrum, norms, MI. */
int mmnc_i_stats_from(const mmnc_pmf *p, mmnc_int k, const double *T, const double *pz, mmnc_stats *s,
                      mmnc_err *err);

#endif
