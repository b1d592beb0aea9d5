/*
 * default.c -- the default clustering (MMNC_ALG_INFORMATION): the
 * information objective with a prior on the cluster sizes, and the chain
 * of steps that finds and checks its optimum.
 *
 *   maximise    J = I(X;Z) - gamma (|Y| / nnz) H_rows(Z)      (information.c)
 *   over        hard clusterings of the rows, gamma = mmnc_params.size_prior
 *
 * The chain, in the order it runs:
 *
 * 1. Starts (mmnc_i_default_start), each from a random partition: the
 *    single-row moves (moves.c) of I(X;Z) alone until a sweep moves fewer
 *    than move_tol |Y| rows, then those of J as far.  From a random
 *    partition, whose clusters carry almost no information yet, the prior
 *    alone would pull every row into the largest cluster before any
 *    structure forms; so it joins once the prior-free optimum is there.
 * 2. The guard, at the end of each start: the prior's partition is kept
 *    only if its nuclear norm ||B_{Z,X}||_* is at least that of the
 *    prior-free optimum it started from (where the data hardly separates
 *    real clusters the prior would merge them, and merging lowers the
 *    norm), and only if it predicts held-out rows better than no
 *    clustering: its leave-one-row-out predictive information G
 *    (select.c) above zero, unless the prior-free optimum's is no higher.
 *    The norm is blind to one collapse: on short rows the prior can pull
 *    nearly every row into one cluster beside a few rows isolated by their
 *    rare words, each of which adds a singular value near 1; G falls below
 *    zero there, since the giant cluster no longer predicts the rare words
 *    that the isolated rows hold.  Otherwise the start returns the
 *    prior-free optimum.
 * 3. The agreement rule (mmnc_params.agreement): the prior is kept for the
 *    whole run only if the starts' partitions with it agree with one
 *    another (mean adjusted Rand index, select.c) at least as well as their
 *    prior-free optima; an objective that fits the data's groups is found
 *    again from other starts, one that works against them is not.  Else
 *    the run becomes, bit for bit, that of size_prior = 0: the prior-free
 *    optimum of best I(X;Z), and no prior from here on.
 * 4. The start of best J is kept (cluster.c), and its moves go on until no
 *    row moves (the polish): a local optimum of J, or of I(X;Z) where the
 *    guard kept the prior-free partition.
 * 5. The merge-split search (k >= 3): single-row moves stop where one
 *    cluster holds two natural groups while another group is cut in two.
 *    A trial merges the pair of clusters whose merge loses least and splits
 *    the cluster that describes its rows worst (merge_split.c), then runs
 *    as a start does, both phases and the guard; a round tries two pairs
 *    side by side, and the better trial is kept if its J is higher (by more
 *    than 1e-12 relative).  A trial whose guard refused the prior returns a
 *    prior-free partition and is judged as one: its I(X;Z) must also rise,
 *    and reach the kept start's prior-free optimum (prior_free_ok).  A round without a gain ends the search, as does
 *    the budget of mmnc_params.merge_split trials; the last kept trial is
 *    polished, so the result is again a local optimum of single-row moves.
 *    With held rows (mmnc_params.fixed_label) the pairs whose clusters both
 *    hold some are passed over, a held row of the split cluster stays in
 *    it, and the merged-away cluster is one without held rows.
 *
 * Held rows (semi-supervision) are never moved by the moves of any step
 * (moves.c), so every start, polish, trial and refinement keeps them.
 *
 * Every step is the same for any number of threads and ranks (exact sums,
 * draws in the order of one process), so the result is.
 */
#include <math.h>
#include <string.h>

#include "cluster/default_i.h"
#include "cluster/merge_split_i.h"
#include "cluster/moves_i.h"
#include "cluster/trace_i.h"

/* ||B_{Z,X}||_* of the hard clustering whose sums are T, pz (collective). */
static int nuclear_norm(const mmnc_pmf *p, mmnc_int k, const double *T, const double *pz, double *sigma, double *U,
                        double *nuc, mmnc_err *err)
{
    int status = mmnc_i_spectrum(p, k, T, pz, sigma, U, err);
    *nuc = 0.0;
    for (mmnc_int z = 0; z < k; z++) *nuc += sigma[z];
    return status;
}

/* The guard (step 2) on the prior's partition `labels`, whose sums m
 * holds, against the prior-free optimum `keep` and its norm nuc0: sets
 * run->prior_kept and prior_why, and puts keep back where it refuses.
 * Collective. */
static int guard(const mmnc_pmf *p, mmnc_int k, const mmnc_i_tuning *tune, int restart, mmnc_i_moves *m,
                 mmnc_int *labels, const mmnc_int *keep, double nuc0, double *sigma, double *U, mmnc_i_dstart *ds,
                 mmnc_i_run *run, mmnc_err *err)
{
    double nuc1, g0 = 0.0, g1 = 1.0;
    int status;
    if (ds->prior_part)
        for (mmnc_int y = 0; y < p->ny; y++) ds->prior_part[y] = (int32_t)labels[y];
    if ((status = nuclear_norm(p, k, mmnc_i_moves_T(m), mmnc_i_moves_pz(m), sigma, U, &nuc1, err)) != MMNC_OK)
        return status;
    run->prior_kept = nuc1 >= nuc0;
    if (run->prior_kept && tune->guard_loo) {
        if ((status = mmnc_i_loo_score(p, k, labels, &g1, NULL, err)) != MMNC_OK) return status;
        if (!(g1 > 0.0)) { /* unless the prior-free partition predicts no better */
            if ((status = mmnc_i_loo_score(p, k, keep, &g0, NULL, err)) != MMNC_OK) return status;
            run->prior_kept = g1 >= g0;
        }
        if (!run->prior_kept) run->prior_why = MMNC_PRIOR_PREDICTIVE;
    } else if (!run->prior_kept) {
        run->prior_why = MMNC_PRIOR_NORM;
    }
    TRACE_GUARD(restart, nuc0, nuc1, g0, g1, run->prior_kept);
    if (!run->prior_kept) {
        memcpy(labels, keep, (size_t)p->ny * sizeof *keep);
        mmnc_i_moves_refresh(m, labels);
    }
    return MMNC_OK;
}

int mmnc_i_default_start(const mmnc_pmf *p, const mmnc_params *prm, const mmnc_i_tuning *tune, int restart,
                         mmnc_int *labels, double *W, mmnc_i_run *run, mmnc_i_dstart *ds, mmnc_err *err)
{
    mmnc_int k = prm->k, ny = p->ny, *keep = NULL;
    mmnc_i_moves *m = NULL;
    mmnc_i_dstart none = {0};
    double few = prm->move_tol * (double)p->ny_all, nuc0 = 0.0, *sigma = NULL, *U = NULL;
    int status = MMNC_OK, it = 0, prior;
#ifdef MMNC_TRACE_SWEEPS
    int track = 1;
#else
    int track = prm->progress != NULL;
#endif
    if (!ds) ds = &none;
    MMNC_ALLOC(sigma, k, err, status);
    MMNC_ALLOC(U, k * k, err, status);
    if (prm->size_prior > 0.0) MMNC_ALLOC(keep, ny > 0 ? ny : 1, err, status);
    if ((status = mmnc_i_moves_open(p, k, prm->seed, restart, W, track, tune, &m, err)) != MMNC_OK) goto cleanup;
    mmnc_i_moves_hold(m, prm->fixed_label);
    mmnc_i_moves_refresh(m, labels);
    prior = prm->size_prior > 0.0 && mmnc_i_moves_nnz(m) > 0;
    run->iterations = 0;
    run->converged = 0;
    run->prior_kept = -1;
    run->prior_why = 0;
    ds->settled = 0;
    /* the phases of a start of the default (ds given; not of a trial or a refinement) */
    if (prior && ds != &none && (status = mmnc_i_phase(prm, restart, "phase 1 (prior-free)", err)) != MMNC_OK)
        goto cleanup;
    if (prior) { /* step 1, first phase: I(X;Z) alone; keep its optimum and norm */
        if ((status = mmnc_i_info_sweeps(m, prm, restart, -1, 0, 0.0, few, labels, &it, run, &ds->settled, err)) !=
            MMNC_OK)
            goto cleanup;
        mmnc_i_moves_refresh(m, labels);
        if ((status = nuclear_norm(p, k, mmnc_i_moves_T(m), mmnc_i_moves_pz(m), sigma, U, &nuc0, err)) != MMNC_OK)
            goto cleanup;
        memcpy(keep, labels, (size_t)ny * sizeof *keep);
        ds->free_objective = mmnc_i_info_objective(p, k, mmnc_i_moves_T(m), mmnc_i_moves_pz(m), mmnc_i_moves_nc(m),
                                                   0.0, mmnc_i_moves_nnz(m));
        ds->free_iterations = it;
        ds->free_settled = ds->settled;
        ds->free_converged = run->converged;
        if (ds->free_part)
            for (mmnc_int y = 0; y < ny; y++) ds->free_part[y] = (int32_t)labels[y];
    }
    if (prior && ds != &none && (status = mmnc_i_phase(prm, restart, "phase 2 (size prior)", err)) != MMNC_OK)
        goto cleanup;
    /* step 1, second phase (the only one without a prior): J */
    if ((status = mmnc_i_info_sweeps(m, prm, restart, -1, 1, prm->size_prior, few, labels, &it, run, &ds->settled,
                                     err)) != MMNC_OK)
        goto cleanup;
    mmnc_i_moves_refresh(m, labels); /* fresh sums for the objective: no drift in what is reported */
    if (prior && (status = guard(p, k, tune, restart, m, labels, keep, nuc0, sigma, U, ds, run, err)) != MMNC_OK)
        goto cleanup;
    run->objective = mmnc_i_info_objective(p, k, mmnc_i_moves_T(m), mmnc_i_moves_pz(m), mmnc_i_moves_nc(m),
                                           prm->size_prior, mmnc_i_moves_nnz(m));
    run->information = prior ? mmnc_i_info_objective(p, k, mmnc_i_moves_T(m), mmnc_i_moves_pz(m),
                                                     mmnc_i_moves_nc(m), 0.0, mmnc_i_moves_nnz(m))
                             : run->objective;
    {
        int64_t decided, exact;
        mmnc_i_moves_counts(m, &ds->pruned, &decided, &exact);
        TRACE_COSTS(restart, -1, decided, exact, ds->pruned);
    }
    memset(W, 0, (size_t)(ny * k) * sizeof(double));
    for (mmnc_int y = 0; y < ny; y++) W[y * k + labels[y]] = 1.0;
cleanup:
    mmnc_i_moves_close(m);
    mmnc_i_free(sigma);
    mmnc_i_free(U);
    mmnc_i_free(keep);
    return status;
}

/* The state across the starts of one mmnc_cluster (default_i.h). */
struct mmnc_i_default {
    const mmnc_pmf *p;
    mmnc_params prm;           /* the run's parameters; size_prior 0 once the agreement rule refuses it */
    const mmnc_i_tuning *tune;
    int agree;                 /* the agreement rule applies */
    mmnc_i_dstart *rec;        /* restarts */
    int32_t *part0, *part1;    /* agree: each start's prior-free optimum and prior's partition (restarts x ny) */
};

int mmnc_i_default_open(const mmnc_pmf *p, const mmnc_params *prm, const mmnc_i_tuning *tune, mmnc_i_default **out,
                        mmnc_err *err)
{
    mmnc_i_default *d = NULL;
    int status = MMNC_OK, n = prm->restarts;
    *out = NULL;
    MMNC_CALLOC(d, 1, err, status);
    d->p = p;
    d->prm = *prm;
    d->tune = tune;
    d->agree = prm->size_prior > 0.0 && n >= 2 && prm->select == MMNC_SELECT_OBJECTIVE && prm->agreement;
    MMNC_CALLOC(d->rec, n, err, status);
    if (d->agree) {
        MMNC_CALLOC(d->part0, (mmnc_int)n * p->ny, err, status);
        MMNC_CALLOC(d->part1, (mmnc_int)n * p->ny, err, status);
        for (int i = 0; i < n; i++)
            d->rec[i].free_part = d->part0 + (mmnc_int)i * p->ny, d->rec[i].prior_part = d->part1 + (mmnc_int)i * p->ny;
    }
    *out = d;
    d = NULL;
cleanup:
    mmnc_i_default_close(d);
    return status;
}

void mmnc_i_default_close(mmnc_i_default *d)
{
    if (!d) return;
    mmnc_i_free(d->rec);
    mmnc_i_free(d->part0);
    mmnc_i_free(d->part1);
    mmnc_i_free(d);
}

int mmnc_i_default_run_start(mmnc_i_default *d, int i, mmnc_int *labels, double *W, mmnc_i_run *run, mmnc_err *err)
{
    mmnc_i_dstart *ds = &d->rec[i];
    int status = mmnc_i_default_start(d->p, &d->prm, d->tune, i, labels, W, run, ds, err);
    ds->objective = run->objective;
    ds->information = run->information;
    ds->prior_kept = run->prior_kept;
    return status;
}

int mmnc_i_default_choose(const mmnc_i_default *d, const mmnc_result *r)
{
    const mmnc_i_dstart *b = &d->rec[r->best_restart];
    int a = -1;
    if (b->prior_kept != 0) return r->best_restart;
    for (int i = 0; i < d->prm.restarts; i++)
        if (d->rec[i].prior_kept == 1 && (a < 0 || d->rec[i].objective > d->rec[a].objective)) a = i;
    if (a < 0 || b->information > d->rec[a].information + 1e-12 * fabs(d->rec[a].information)) return r->best_restart;
    return a;
}

/* Step 3, the agreement rule, after every start succeeded: the mean
 * adjusted Rand index of the starts' partitions with the prior and of
 * their prior-free optima.  If the prior's agree less, the run goes on as
 * one with size_prior = 0 from the same starts: r takes the prior-free
 * optimum with the best I(X;Z) (ties to the lower start; each start's
 * objective and sweeps those of its first phase), and d->prm.size_prior
 * becomes 0 for the polish and the trials.  That is the result of
 * size_prior = 0 bit for bit: a start's first phase is that run's only
 * phase (the same visits, the same moves).  Returns 1 in *refused then. */
static int agreement_rule(mmnc_i_default *d, mmnc_result *r, int *refused, mmnc_err *err)
{
    mmnc_int k = d->prm.k, ny = d->p->ny;
    int n = d->prm.restarts, best = 0, status;
    *refused = 0;
    if ((status = mmnc_i_agreement(d->p, k, n, d->part1, &r->agreement_prior, err)) != MMNC_OK ||
        (status = mmnc_i_agreement(d->p, k, n, d->part0, &r->agreement_free, err)) != MMNC_OK)
        return status;
    if (r->agreement_prior >= r->agreement_free) return MMNC_OK;
    for (int i = 0; i < n; i++) {
        mmnc_i_dstart *f = &d->rec[i];
        if (f->free_objective > d->rec[best].free_objective) best = i;
        r->restart_objective[i] = f->free_objective;
        r->restart_iterations[i] = f->free_iterations;
        r->restart_converged[i] = f->free_converged;
        f->settled = f->free_settled;
    }
    r->best_restart = r->objective_restart = best;
    r->objective = d->rec[best].free_objective;
    r->iterations = d->rec[best].free_iterations;
    r->converged = d->rec[best].free_converged;
    memset(r->W, 0, (size_t)(ny * k) * sizeof *r->W);
    for (mmnc_int y = 0; y < ny; y++) r->W[y * k + d->part0[(mmnc_int)best * ny + y]] = 1.0;
    r->size_prior_kept = 0;
    r->size_prior_refused = MMNC_PRIOR_AGREEMENT;
    d->prm.size_prior = 0.0;
    *refused = 1;
    return MMNC_OK;
}

int mmnc_i_default_finish(mmnc_i_default *d, mmnc_int *labels, mmnc_result *r, mmnc_err *err)
{
    const mmnc_params *prm = &d->prm;
    mmnc_int k = prm->k, ny = d->p->ny;
    int status = MMNC_OK, refused = 0;
    if (d->agree && ((status = mmnc_i_phase(prm, -1, "agreement rule", err)) != MMNC_OK ||
                     (status = agreement_rule(d, r, &refused, err)) != MMNC_OK))
        return status;
    if (prm->move_tol > 0.0 && !d->rec[r->best_restart].settled && r->iterations < prm->max_iter) {
        /* step 4: the move tolerance stopped the kept start; its moves go on until no row
         * moves, on the objective of the partition it returned */
        mmnc_params rp = *prm;
        mmnc_i_run run = MMNC_I_RUN_INIT;
        rp.max_iter = prm->max_iter - r->iterations;
        if ((status = mmnc_i_phase(prm, r->best_restart, "polish", err)) != MMNC_OK) return status;
        mmnc_i_argmax_labels(k, ny, r->W, labels);
        if ((status = mmnc_i_information(d->p, &rp, d->tune, r->best_restart, r->size_prior_kept == 1, labels, r->W,
                                         &run, err)) != MMNC_OK)
            return status;
        r->objective = run.objective;
        r->iterations += run.iterations;
        r->polish_sweeps = run.iterations;
        r->converged = run.converged;
    }
    if (prm->merge_split > 0 && k >= 3 && r->converged) {
        /* step 5, from a local optimum only: not after a start stopped by max_iter */
        mmnc_i_run run = MMNC_I_RUN_INIT;
        run.prior_kept = r->size_prior_kept;
        run.prior_why = r->size_prior_refused;
        if ((status = mmnc_i_phase(prm, r->best_restart, "merge-split", err)) != MMNC_OK) return status;
        mmnc_i_argmax_labels(k, ny, r->W, labels);
        /* the floor: the kept start's prior-free optimum, which a trial that returns a prior-free
         * partition must reach (where the prior ran; the guard or the polish already keeps a
         * prior-free current partition at or above it) */
        double floor = prm->size_prior > 0.0 ? d->rec[r->best_restart].free_objective : -HUGE_VAL;
        if ((status = mmnc_i_default_merge_split(d->p, prm, d->tune, r->best_restart, floor, labels, r->W, &run,
                                                 &r->merge_split_tried, &r->merge_split_kept, err)) != MMNC_OK)
            return status;
        r->objective = run.objective;
        r->size_prior_kept = run.prior_kept;
        r->size_prior_refused = run.prior_why;
        r->iterations += run.iterations;
        r->merge_split_sweeps = run.iterations;
    }
    if (refused) r->size_prior_kept = 0, r->size_prior_refused = MMNC_PRIOR_AGREEMENT;
    return MMNC_OK;
}

#define MERGE_SPLIT_TRIALS 2 /* trials a round */

/* A trial whose guard refused the prior returns a prior-free partition,
 * which is judged as one: its J may rise only because a poor prior-free
 * optimum has less entropy of sizes, so it must also raise I(X;Z) above
 * the current partition's and reach the floor (the kept start's prior-free
 * optimum).  Then a result that reports the prior refused is never below
 * the prior-free optimum it started from.  mmnc_i_default_choose applies
 * the same judgement to the starts. */
static int prior_free_ok(const mmnc_i_run *r, double cur_info, double floor)
{
    if (r->prior_kept != 0) return 1;
    return r->information > cur_info + 1e-12 * fabs(cur_info) && r->information >= floor;
}

/* Trial t of the merge-split search: its partition (merge_split.c), then a
 * start from there. */
static int trial(const mmnc_pmf *p, const mmnc_params *rp, const mmnc_i_tuning *tune, int restart, int t, mmnc_int i,
                 mmnc_int j, mmnc_int s, const mmnc_int *labels, mmnc_int *lab2, double *W2, mmnc_i_run *r2,
                 mmnc_err *err)
{
    mmnc_i_ms_draw(p, rp->k, rp->seed, restart, t, i, j, s, labels, lab2);
    if (rp->fixed_label) /* held rows stay: j took none (held_count), s's stay in s */
        for (mmnc_int y = 0; y < p->ny; y++)
            if (rp->fixed_label[y] >= 0) lab2[y] = rp->fixed_label[y];
    return mmnc_i_default_start(p, rp, tune, restart, lab2, W2, r2, NULL, err);
}

int mmnc_i_default_merge_split(const mmnc_pmf *p, const mmnc_params *prm, const mmnc_i_tuning *tune, int restart,
                               double floor, mmnc_int *labels, double *W, mmnc_i_run *run, int *tried, int *kept,
                               mmnc_err *err)
{
    mmnc_int k = prm->k, ny = p->ny, ny1 = ny > 0 ? ny : 1;
    mmnc_i_ms *ms = NULL;
    double *W2 = NULL, cur = 0.0, cur_info = 0.0;
    mmnc_int *lab2 = NULL;
    int64_t *held_count = NULL; /* semi-supervision: the held rows of each cluster (all ranks) */
    mmnc_params rp = *prm;
    mmnc_err errs[MERGE_SPLIT_TRIALS];
    int status = MMNC_OK, ranked = 0, par;
    *tried = *kept = 0;
    if (k < 3 || prm->merge_split <= 0) return MMNC_OK;
    /* rp.max_iter: each trial is capped as a start is; rp.progress: its sweeps are reported (as the kept
     * start's, restart) and a nonzero return stops them, as it stops a start */
    MMNC_ALLOC(W2, MERGE_SPLIT_TRIALS * ny1 * k, err, status);
    MMNC_ALLOC(lab2, MERGE_SPLIT_TRIALS * ny1, err, status);
    if ((status = mmnc_i_ms_open(p, k, prm->size_prior, &ms, err)) != MMNC_OK) goto cleanup;
    if (prm->fixed_label) {
        MMNC_CALLOC(held_count, k, err, status);
        for (mmnc_int y = 0; y < ny; y++)
            if (prm->fixed_label[y] >= 0) held_count[prm->fixed_label[y]]++;
        mmnc_i_disum(p, held_count, k);
    }
    /* the trials of a round side by side, one thread each, as the starts (cluster.c) */
    par = mmnc_i_team_size() > 1 && !mmnc_i_distributed(p) && mmnc_i_moves_side_by_side(p, k);
    while (*tried < prm->merge_split) {
        mmnc_int ci[MERGE_SPLIT_TRIALS], cj[MERGE_SPLIT_TRIALS], cs[MERGE_SPLIT_TRIALS];
        double gain[MERGE_SPLIT_TRIALS];
        mmnc_i_run r2[MERGE_SPLIT_TRIALS];
        int st[MERGE_SPLIT_TRIALS], n = 0, best = -1;
        mmnc_int q = 0;
        if (!ranked) { /* the current labels' sums (collective), losses and gains */
            mmnc_i_ms_rank(ms, labels);
            if (*tried == 0) cur = mmnc_i_ms_objective(ms), cur_info = mmnc_i_ms_information(ms);
            ranked = 1;
        }
        /* a round: the best pairs in rank, as many as MERGE_SPLIT_TRIALS and the budget allow; with
         * held rows, two clusters that both hold some never merge, and one that holds some is the
         * one kept (i) */
        while (n < MERGE_SPLIT_TRIALS && *tried + n < prm->merge_split &&
               mmnc_i_ms_pair(ms, q++, &ci[n], &cj[n], &cs[n], &gain[n])) {
            if (held_count && held_count[cj[n]] > 0) {
                mmnc_int t = ci[n];
                if (held_count[t] > 0) continue;
                ci[n] = cj[n], cj[n] = t;
            }
            r2[n] = (mmnc_i_run)MMNC_I_RUN_INIT;
            n++;
        }
        if (n == 0) break;
        if (par && n > 1) {
#pragma omp parallel for schedule(static, 1) num_threads(n)
            for (int t = 0; t < n; t++)
                st[t] = trial(p, &rp, tune, restart, *tried + t, ci[t], cj[t], cs[t], labels, lab2 + t * ny1,
                              W2 + t * ny1 * k, &r2[t], &errs[t]);
        } else {
            for (int t = 0; t < n; t++)
                st[t] = trial(p, &rp, tune, restart, *tried + t, ci[t], cj[t], cs[t], labels, lab2 + t * ny1,
                              W2 + t * ny1 * k, &r2[t], &errs[t]);
        }
        for (int t = 0; t < n; t++) {
            if (st[t] != MMNC_OK) {
                if (err) *err = errs[t];
                status = st[t];
                goto cleanup;
            }
            TRACE_MERGE_SPLIT(*tried + t, ci[t], cj[t], gain[t], cs[t], cur, r2[t].objective, r2[t].iterations);
            run->iterations += r2[t].iterations;
            if (r2[t].objective > cur + 1e-12 * fabs(cur) && prior_free_ok(&r2[t], cur_info, floor) &&
                (best < 0 || r2[t].objective > r2[best].objective))
                best = t;
        }
        *tried += n;
        if (best < 0) break; /* a round without a gain ends the search */
        memcpy(labels, lab2 + best * ny1, (size_t)ny * sizeof *labels);
        memcpy(W, W2 + best * ny1 * k, (size_t)(ny * k) * sizeof *W);
        cur = r2[best].objective;
        cur_info = r2[best].information;
        run->prior_kept = r2[best].prior_kept;
        run->prior_why = r2[best].prior_why;
        (*kept)++;
        ranked = 0;
    }
    if (*kept > 0) { /* the last kept trial stopped at the tolerance: its moves until no row moves, on
                        the objective of the partition it returned (as the kept start's polish) */
        mmnc_i_run r3 = MMNC_I_RUN_INIT;
        if ((status = mmnc_i_information(p, &rp, tune, restart, run->prior_kept == 1, labels, W, &r3, err)) != MMNC_OK)
            goto cleanup;
        run->iterations += r3.iterations;
        cur = r3.objective;
    }
    run->objective = cur;
cleanup:
    mmnc_i_ms_close(ms);
    mmnc_i_free(held_count);
    mmnc_i_free(W2);
    mmnc_i_free(lab2);
    return status;
}
