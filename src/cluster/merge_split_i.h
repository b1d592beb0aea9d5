/*
 * merge_split_i.h -- the moves of the merge-split search (merge_split.c):
 * the pairs of clusters ranked by the gain of their merge, the cluster to
 * split with each, and the trial partition.  The search itself (trials run
 * as starts, the better kept) is the default's (default.c).
 */
#ifndef MMNC_MERGE_SPLIT_I_H
#define MMNC_MERGE_SPLIT_I_H

#include "cluster/solver_i.h"

typedef struct mmnc_i_ms mmnc_i_ms;

/* The ranking's tables for k clusters under the size prior gamma (0: none);
 * each row's entropy term made once.  Collective.  MMNC_ENOMEM. */
int mmnc_i_ms_open(const mmnc_pmf *p, mmnc_int k, double gamma, mmnc_i_ms **out, mmnc_err *err);
void mmnc_i_ms_close(mmnc_i_ms *ms); /* NULL is fine */

/* Rank the pairs of the partition `labels`: its sums, the losses D_s and
 * the gains g(i, j), best first (ties by (i, j)).  Collective. */
void mmnc_i_ms_rank(mmnc_i_ms *ms, const mmnc_int *labels);

/* J of the ranked partition (information.c's mmnc_i_info_objective). */
double mmnc_i_ms_objective(const mmnc_i_ms *ms);

/* I(X;Z) of the ranked partition: its J without the prior. */
double mmnc_i_ms_information(const mmnc_i_ms *ms);

/* The q-th pair in rank (i, j; its gain) and the cluster s to split with
 * it; 0 when there is no such pair or no cluster of two rows to split. */
int mmnc_i_ms_pair(const mmnc_i_ms *ms, mmnc_int q, mmnc_int *i, mmnc_int *j, mmnc_int *s, double *gain);

/* Trial t's partition lab2: j merged into i, s drawn at random into s and
 * j (from seed, restart and t, for all ranks' rows in the order of one
 * process), no cluster left empty.  Collective. */
void mmnc_i_ms_draw(const mmnc_pmf *p, mmnc_int k, uint64_t seed, int restart, int t, mmnc_int i, mmnc_int j,
                    mmnc_int s, const mmnc_int *labels, mmnc_int *lab2);

#endif /* MMNC_MERGE_SPLIT_I_H */
