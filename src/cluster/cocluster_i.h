/*
 * cocluster_i.h -- co-clustering (cocluster.c), which mmnc_cluster runs
 * when mmnc_params.col_clusters > 0.
 */
#ifndef MMNC_COCLUSTER_I_H
#define MMNC_COCLUSTER_I_H

#include "mmnc.h"

/* The co-clustering of P_{Y,X} into prm->k row and prm->col_clusters column
 * clusters that maximises I(Z;W), ||B_{Z,W}||_* with MMNC_ALG_NUCLEAR, or
 * the Dirichlet mixture's evidence with column clusters with MMNC_ALG_DMM
 * (cocluster.c states the problems): the
 * starts side by side, the best kept.  rl0: the rows alone's answer,
 * start 0's rows (the information and Dirichlet forms; NULL: none); the nuclear form
 * makes one start, from rl0 and the column labels cl0.  prm is checked (mmnc_params_check)
 * and its progress and event functions serialised by the caller.  Not
 * distributed (the caller gathers a distributed pmf, mmnc_i_pmf_gather).  Time per alternation O(nnz + |Y| k t_Y +
 * |X| l t_X), t the clusters of the other side an item touches; memory
 * O((|Y| + |X| k + k l) threads). */
int mmnc_i_cocluster(const mmnc_pmf *p, const mmnc_params *prm, const mmnc_int *rl0, const mmnc_int *cl0,
                     mmnc_result **out, mmnc_err *err);

/* A distributed pmf p gathered whole into *w on every rank, the bits one
 * process's pmf would hold (collective); free with mmnc_i_pmf_gathered_free. */
int mmnc_i_pmf_gather(const mmnc_pmf *p, mmnc_pmf *w, mmnc_err *err);
void mmnc_i_pmf_gathered_free(mmnc_pmf *w);

/* The aggregated pmf of one side: rows (side 0) P_{Y,W}, |Y| x l, the
 * columns summed by their clusters cl; or (side 1) P_{X,Z}, |X| x k, the
 * transpose with the rows summed by their clusters rl (cl unused).  P's
 * values are multiplied by `scale` before they are summed (p->total: the
 * counts, so that the result's total is the count total; 1: the same
 * bits as P's values). */
int mmnc_i_cocluster_blocks(const mmnc_pmf *p, int side, const mmnc_int *rl, mmnc_int k, const mmnc_int *cl,
                            mmnc_int l, double scale, mmnc_pmf **out, mmnc_err *err);

#endif
