/*
 * cocluster_i.h -- co-clustering (cocluster.c), which mmnc_cluster runs
 * when mmnc_params.col_clusters > 0.
 */
#ifndef MMNC_COCLUSTER_I_H
#define MMNC_COCLUSTER_I_H

#include "mmnc.h"

/* The co-clustering of P_{Y,X} into prm->k row and prm->col_clusters column
 * clusters that maximises I(Z;W), or ||B_{Z,W}||_* with MMNC_ALG_NUCLEAR
 * (cocluster.c opens with the problem): the
 * starts side by side, the best kept.  prm is checked (mmnc_params_check)
 * and its progress and event functions serialised by the caller.  Not
 * distributed (MMNC_EUNSUP).  Time per alternation O(nnz + |Y| k t_Y +
 * |X| l t_X), t the clusters of the other side an item touches; memory
 * O((|Y| + |X| k + k l) threads). */
int mmnc_i_cocluster(const mmnc_pmf *p, const mmnc_params *prm, mmnc_result **out, mmnc_err *err);

#endif
