/*
 * moves_i.h -- the single-row moves of the information objective
 * (moves.c): the state of the sweeps of one start or polish, and its sums.
 *
 * Usage: open (the visiting order from seed and restart), refresh from
 * labels, set the prior's weight, sweep until few rows move; the sums are
 * read between sweeps.  Every call that reads or changes the sums of a
 * distributed pmf is collective.
 */
#ifndef MMNC_MOVES_I_H
#define MMNC_MOVES_I_H

#include "cluster/solver_i.h"

typedef struct mmnc_i_moves mmnc_i_moves;

/* The sweeps of k clusters over p, visiting all ranks' rows in an order
 * drawn from (seed, restart).  cost (ny x k) holds the rows' costs between
 * sweeps (the caller's W: its contents are undefined afterwards).  track:
 * keep the sum of T log T for mmnc_i_moves_blsum (the objective shown
 * after each sweep).  tune: prune, column_order.  MMNC_ENOMEM. */
int mmnc_i_moves_open(const mmnc_pmf *p, mmnc_int k, uint64_t seed, int restart, double *cost, int track,
                      const mmnc_i_tuning *tune, mmnc_i_moves **out, mmnc_err *err);
void mmnc_i_moves_close(mmnc_i_moves *m); /* NULL is fine */

/* The sums afresh from labels (exact: the same bits on any number of
 * ranks), every cached cost stale.  Collective. */
void mmnc_i_moves_refresh(mmnc_i_moves *m, const mmnc_int *labels);

/* Semi-supervision: the rows with fixed_label[y] >= 0 (this rank's rows;
 * NULL: none) are never moved by the sweeps and batch steps from now on;
 * the caller starts them at their labels. */
void mmnc_i_moves_hold(mmnc_i_moves *m, const mmnc_int *fixed_label);

/* The size prior's weight w = gamma / nnz of the moves from now on (0: the
 * moves of I(X;Z) alone). */
void mmnc_i_moves_weight(mmnc_i_moves *m, double w);

/* One sweep over the rows: labels and the sums updated move by move;
 * returns the rows moved.  Distributed: collective, *status MMNC_ENOMEM on
 * every rank when one rank lacks memory (else MMNC_OK). */
int64_t mmnc_i_moves_sweep(mmnc_i_moves *m, mmnc_int *labels, int *status, mmnc_err *err);

/* One batch step with the weight set (moves.c, "Batch steps"): every row's
 * single-row decision against the sums at its block's start, the moves
 * then applied in order; returns the rows moved (all ranks).  The same
 * labels for any number of threads and ranks.  Collective; *status
 * MMNC_ENOMEM on every rank when one rank lacks memory (else MMNC_OK). */
int64_t mmnc_i_moves_batch(mmnc_i_moves *m, mmnc_int *labels, int *status, mmnc_err *err);

/* The pmf; the sums: T = P_{Z,X}^T in the input's column order (nx x k; valid
 * until the next call on m), P_Z, the rows of each cluster (all ranks),
 * the nonzeros of all ranks, sum T log T (kept where track) and sum_x
 * P(x) log P(x) (made where track); the costs the bounds ruled out, the
 * decisions and the exact costs they made (the last two counted only under
 * MMNC_TRACE_SWEEPS). */
const mmnc_pmf *mmnc_i_moves_p(const mmnc_i_moves *m);
const double *mmnc_i_moves_T(mmnc_i_moves *m);
const double *mmnc_i_moves_pz(const mmnc_i_moves *m);
const int64_t *mmnc_i_moves_nc(const mmnc_i_moves *m);
int64_t mmnc_i_moves_nnz(const mmnc_i_moves *m);
double mmnc_i_moves_blsum(const mmnc_i_moves *m);
double mmnc_i_moves_hx(const mmnc_i_moves *m);
void mmnc_i_moves_counts(const mmnc_i_moves *m, int64_t *pruned, int64_t *decided, int64_t *exact);

#endif /* MMNC_MOVES_I_H */
