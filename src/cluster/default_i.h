/*
 * default_i.h -- the default clustering (default.c): the information
 * objective with a size prior, its starts with two phases and a guard, the
 * agreement rule, the polish and the merge-split search, as mmnc_cluster
 * (cluster.c) runs them for MMNC_ALG_INFORMATION.
 */
#ifndef MMNC_DEFAULT_I_H
#define MMNC_DEFAULT_I_H

#include "cluster/solver_i.h"

/* What the default keeps of one start besides its mmnc_i_run. */
typedef struct mmnc_i_dstart {
    int settled;         /* the last sweep moved no row (not stopped by move_tol or max_iter) */
    int64_t pruned;      /* costs that the moves' bounds ruled out */
    /* with a size prior: the prior-free optimum (the end of the first phase) */
    double free_objective; /* its I(X;Z) */
    int free_iterations;   /* the first phase's sweeps */
    int free_settled, free_converged;
    /* where the start writes its prior-free optimum and the prior's partition
     * (before the guard), ny labels each, if not NULL: the agreement rule's */
    int32_t *free_part, *prior_part;
    /* the start's outcome (mmnc_i_default_run_start): J, I(X;Z) and the guard's verdict */
    double objective, information;
    int prior_kept;
} mmnc_i_dstart;

/* One start from `labels`: the moves of I(X;Z) until a sweep moves fewer
 * than prm->move_tol |Y| rows, then with a size prior those of J as far,
 * and the guard, which returns the prior-free optimum where the prior's
 * partition lowers the nuclear norm or does not predict held-out rows
 * (tune->guard_loo).  At most prm->max_iter sweeps in all.  labels updated,
 * W one-hot, run->objective = J of the partition returned, run->prior_kept
 * and prior_why the guard's verdict; ds (may be NULL) filled.  Collective. */
int mmnc_i_default_start(const mmnc_pmf *p, const mmnc_params *prm, const mmnc_i_tuning *tune, int restart,
                         mmnc_int *labels, double *W, mmnc_i_run *run, mmnc_i_dstart *ds, mmnc_err *err);

/* The merge-split search from `labels`, a local optimum whose
 * run->prior_kept says on which objective (J: 1; I(X;Z) where the guard
 * kept the prior-free partition: 0; -1 no prior): at most prm->merge_split
 * trials, each a start from a merge-split partition (merge_split_i.h), the
 * better of a round kept where its J is higher (and, where its guard
 * refused the prior, its I(X;Z) higher than the current partition's and at
 * least `floor`, the kept start's prior-free optimum; -HUGE_VAL for none).
 * labels and W (one-hot)
 * become each kept trial's; run->objective (J of the result),
 * run->prior_kept, prior_why and iterations (the sweeps) updated; *tried,
 * *kept counted.  Collective. */
int mmnc_i_default_merge_split(const mmnc_pmf *p, const mmnc_params *prm, const mmnc_i_tuning *tune, int restart,
                               double floor, mmnc_int *labels, double *W, mmnc_i_run *run, int *tried, int *kept,
                               mmnc_err *err);

/* The default's state across the starts of one mmnc_cluster: a record per
 * start, and the partitions of the agreement rule where it applies. */
typedef struct mmnc_i_default mmnc_i_default;
int mmnc_i_default_open(const mmnc_pmf *p, const mmnc_params *prm, const mmnc_i_tuning *tune, mmnc_i_default **out,
                        mmnc_err *err);
void mmnc_i_default_close(mmnc_i_default *d); /* NULL is fine */

/* Start i (mmnc_i_default_start) from labels, recorded in d.  Starts may
 * run side by side: each writes only its own record. */
/* The start to keep, after every start succeeded, r->best_restart being
 * the one of best J: that one, unless its guard refused the prior and a
 * start whose guard kept it has at least its I(X;Z); then the best J among
 * those (ties to the lower start).  A prior-free partition is judged as one,
 * as in the merge-split search (default.c, prior_free_ok). */
int mmnc_i_default_choose(const mmnc_i_default *d, const mmnc_result *r);

int mmnc_i_default_run_start(mmnc_i_default *d, int i, mmnc_int *labels, double *W, mmnc_i_run *run,
                             mmnc_err *err);

/* After every start: the agreement rule, the polish of the kept start
 * r->best_restart (r->W, r->objective, r->iterations, r->converged as the
 * start left them) and the merge-split search, r updated (its W, objective,
 * iterations, converged, best_restart and restart arrays where the
 * agreement rule refuses the prior; the diagnostics).  labels is ny
 * scratch.  Collective. */
int mmnc_i_default_finish(mmnc_i_default *d, mmnc_int *labels, mmnc_result *r, mmnc_err *err);

#endif /* MMNC_DEFAULT_I_H */
