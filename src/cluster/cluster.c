/*
 * cluster.c -- parameters, restarts and results of mmnc_cluster: runs the
 * chosen solver from several starts and keeps the start with the best
 * objective, or (the default) the best objective among the starts whose
 * predictive information is close to the best (select.c).  With the
 * information objective's size prior, the agreement rule first chooses
 * between the prior and none by how well the starts' partitions agree with
 * one another under each (agreement_rule below).  Never chosen by anything
 * but the data.
 */
#include <math.h>
#include <string.h>

#include "cluster/solver_i.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* Start of restart i: with the spectral default, starts cycle through
 * spectral, k-means++ and random so that restarts explore different basins. */
static int start_method(int init, int i)
{
    static const int cycle[3] = {MMNC_INIT_SPECTRAL, MMNC_INIT_KMEANSPP, MMNC_INIT_RANDOM};
    if (init == MMNC_INIT_SPECTRAL) return cycle[i % 3];
    return init;
}

/* The caller's progress function, called by one start at a time; once it
 * asks to stop, every start is told to stop without calling it again. */
typedef struct progress_lock {
    mmnc_progress_fn fn;
    void *ctx;
    int stop;
} progress_lock;

static int locked_progress(void *ctx, int restart, int iter, double objective)
{
    progress_lock *pl = ctx;
    int stop;
#pragma omp critical(mmnc_progress)
    {
        if (!pl->stop) pl->stop = pl->fn(pl->ctx, restart, iter, objective) != 0;
        stop = pl->stop;
    }
    return stop;
}

/* What the starts share; each writes only its own slots (tid, i) and the
 * best result under a lock. */
typedef struct starts {
    const mmnc_pmf *p;
    const mmnc_params *prm;
    mmnc_int k, ny;
    double lambda, step;
    const double *emb;
    mmnc_int *labels;
    double *W;
    mmnc_err *errs;
    int *st;
    int *settled; /* restarts: information: the start ended on a sweep without moves */
    /* the agreement rule (NULL where it does not apply): each start's prior-free optimum and
     * prior's partition (restarts x ny), and the prior-free optimum's run */
    int32_t *part0, *part1;
    mmnc_i_run *free_run;
    mmnc_result *r;
    mmnc_err *err;
} starts;

/* lab[y] = argmax_z w[y*k + z], the smallest z on ties (as the result's labels). */
static void argmax_labels(mmnc_int k, mmnc_int ny, const double *w, mmnc_int *lab)
{
    for (mmnc_int y = 0; y < ny; y++) {
        mmnc_int best = 0;
        for (mmnc_int z = 1; z < k; z++)
            if (w[y * k + z] > w[y * k + best]) best = z;
        lab[y] = best;
    }
}

/* Start i on the buffers lab, w: the solver's run and, under the guarded
 * rule, its score (from the argmax labels). */
static int run_start(const starts *c, int i, mmnc_int *lab, double *w, mmnc_i_run *run, int score, mmnc_err *err)
{
    const mmnc_params *prm = c->prm;
    mmnc_int k = c->k, ny = c->ny;
    mmnc_rng rng;
    int s1;
    mmnc_rng_seed(&rng, prm->seed * 0x9e3779b97f4a7c15ULL + (uint64_t)i);
    s1 = mmnc_i_init_labels(c->p, k, start_method(prm->init, i), c->emb, &rng, lab, err);
    if (s1 == MMNC_OK) {
        if (prm->algorithm == MMNC_ALG_NUCLEAR) s1 = mmnc_i_nuclear(c->p, prm, i, lab, w, run, err);
        else if (prm->algorithm == MMNC_ALG_INFORMATION) s1 = mmnc_i_information(c->p, prm, i, -1, lab, w, run, err);
        else if (prm->exact_marginal) s1 = mmnc_i_frobenius_exact(c->p, prm, i, lab, w, run, err);
        else s1 = mmnc_i_frobenius(c->p, prm, c->lambda, c->step, i, lab, w, run, err);
    }
    if (s1 == MMNC_OK && prm->refine == MMNC_REFINE_EACH) {
        mmnc_params rp = *prm;
        mmnc_i_run rr = MMNC_I_RUN_INIT;
        rp.max_iter = 100;
        rp.move_tol = 0.0;
        argmax_labels(k, ny, w, lab);
        s1 = mmnc_i_information(c->p, &rp, i, -1, lab, w, &rr, err);
        run->objective = rr.objective;
        run->iterations += rr.iterations;
        run->prior_kept = rr.prior_kept;
        run->prior_why = rr.prior_why;
    }
    if (s1 == MMNC_OK && score) {
        argmax_labels(k, ny, w, lab);
        s1 = mmnc_i_loo_score(c->p, k, lab, &c->r->restart_score[i], &c->r->restart_alpha[i], err);
    }
    return s1;
}

/* Start i on the buffers of thread tid; the best objective so far is kept in r. */
static void one_start(const starts *c, int i, int tid)
{
    const mmnc_params *prm = c->prm;
    mmnc_int k = c->k, ny = c->ny;
    mmnc_result *r = c->r;
    mmnc_int *lab = c->labels + (mmnc_int)tid * ny;
    double *w = c->W + (mmnc_int)tid * ny * k;
    mmnc_i_run run = MMNC_I_RUN_INIT;
    int s1;
    if (c->part0) run.free_part = c->part0 + (mmnc_int)i * ny, run.prior_part = c->part1 + (mmnc_int)i * ny;
    s1 = run_start(c, i, lab, w, &run, prm->select == MMNC_SELECT_PREDICTIVE, &c->errs[tid]);
    if (c->free_run) c->free_run[i] = run;
    c->st[i] = s1;
    c->settled[i] = run.settled;
    r->restart_objective[i] = run.objective;
    r->restart_iterations[i] = run.iterations;
    r->restart_init[i] = start_method(prm->init, i);
#pragma omp critical(mmnc_best)
    if (s1 == MMNC_OK &&
        (r->best_restart < 0 || run.objective > r->objective || (run.objective == r->objective && i < r->best_restart))) {
        r->best_restart = i;
        r->objective = run.objective;
        r->iterations = run.iterations;
        r->size_prior_kept = run.prior_kept;
        r->size_prior_refused = run.prior_why;
        r->converged = run.converged;
        memcpy(r->W, w, (size_t)(ny * k) * sizeof(double));
    }
    if (s1 != MMNC_OK) { /* keep this start's message */
#pragma omp critical(mmnc_err)
        if (c->err && c->err->code == MMNC_OK) *c->err = c->errs[tid];
    }
}

/* After every start succeeded (r holds the best objective's W): under the
 * predictive rule the chosen start, if it is not that one, is run again into
 * r->W (the same seed gives the same bits); then MMNC_REFINE_CHOSEN refines
 * r->W by information moves.  c's labels and W are scratch. */
static int choose_and_refine(const starts *c)
{
    const mmnc_params *prm = c->prm;
    mmnc_result *r = c->r;
    mmnc_int k = c->k, ny = c->ny;
    int status = MMNC_OK;
    if (prm->select == MMNC_SELECT_PREDICTIVE) {
        int chosen;
        for (int i = 0; i < prm->restarts; i++) c->st[i] = 1; /* now: start i may be chosen */
        chosen = mmnc_i_select(prm->restarts, r->restart_objective, r->restart_score, c->st, prm->select_tol);
        if (chosen != r->best_restart) {
            mmnc_i_run run = MMNC_I_RUN_INIT;
            if ((status = run_start(c, chosen, c->labels, c->W, &run, 0, c->err)) != MMNC_OK) return status;
            memcpy(r->W, c->W, (size_t)(ny * k) * sizeof(double));
            r->best_restart = chosen;
            r->objective = run.objective;
            r->iterations = run.iterations;
            r->size_prior_kept = run.prior_kept;
            r->size_prior_refused = run.prior_why;
            r->converged = run.converged;
        }
    }
    if (prm->algorithm == MMNC_ALG_INFORMATION && prm->move_tol > 0.0 && !c->settled[r->best_restart] &&
        r->iterations < prm->max_iter) {
        /* the move tolerance stopped the kept start: its moves go on until no row moves, on
         * the objective of the partition it returned (J, or I(X;Z) where the guard kept the
         * prior-free one) */
        mmnc_params rp = *prm;
        mmnc_i_run run = MMNC_I_RUN_INIT;
        rp.max_iter = prm->max_iter - r->iterations;
        argmax_labels(k, ny, r->W, c->labels);
        if ((status = mmnc_i_information(c->p, &rp, r->best_restart, r->size_prior_kept == 1, c->labels, r->W, &run,
                                         c->err)) != MMNC_OK)
            return status;
        r->objective = run.objective;
        r->iterations += run.iterations;
        r->polish_sweeps = run.iterations;
        r->converged = run.converged;
    }
    if (prm->algorithm == MMNC_ALG_INFORMATION && prm->merge_split > 0 && k >= 3 && r->converged) {
        /* from a local optimum only: not after a start stopped by max_iter */
        mmnc_i_run run = MMNC_I_RUN_INIT;
        run.prior_kept = r->size_prior_kept;
        run.prior_why = r->size_prior_refused;
        argmax_labels(k, ny, r->W, c->labels);
        if ((status = mmnc_i_merge_split(c->p, prm, r->best_restart, c->labels, r->W, &run, &r->merge_split_tried,
                                         &r->merge_split_kept, c->err)) != MMNC_OK)
            return status;
        r->objective = run.objective;
        r->size_prior_kept = run.prior_kept;
        r->size_prior_refused = run.prior_why;
        r->iterations += run.iterations;
        r->merge_split_sweeps = run.iterations;
    }
    if (prm->refine == MMNC_REFINE_CHOSEN) { /* labels only: W one-hot */
        mmnc_params rp = *prm;
        mmnc_i_run run = MMNC_I_RUN_INIT;
        rp.max_iter = 100;
        rp.move_tol = 0.0;
        argmax_labels(k, ny, r->W, c->labels);
        if ((status = mmnc_i_information(c->p, &rp, r->best_restart, -1, c->labels, r->W, &run, c->err)) != MMNC_OK)
            return status;
        r->objective = run.objective;
        r->iterations += run.iterations;
        r->refine_sweeps = run.iterations;
        r->size_prior_kept = run.prior_kept;
        r->size_prior_refused = run.prior_why;
        if (prm->select == MMNC_SELECT_PREDICTIVE)
            status = mmnc_i_loo_score(c->p, k, c->labels, &r->refined_score, NULL, c->err);
    }
    return status;
}

/* The agreement rule (mmnc_params.agreement), after every start succeeded:
 * the mean adjusted Rand index of the starts' partitions with the prior
 * (c->part1) and of their prior-free optima (c->part0).  If the prior's
 * agree less, the run goes on as one with size_prior = 0 from the same
 * starts: r takes the prior-free optimum with the best I(X;Z) (ties to the
 * lower start; each start's objective and sweeps those of its first
 * phase), and prm->size_prior becomes 0 for the polish and the trials.
 * That is the result of size_prior = 0 bit for bit: a start's first phase
 * is that run's only phase (the same visits, the same moves). */
static int agreement_rule(const starts *c, mmnc_params *prm)
{
    mmnc_result *r = c->r;
    mmnc_int k = c->k, ny = c->ny;
    int n = prm->restarts, best = 0, status;
    if ((status = mmnc_i_agreement(c->p, k, n, c->part1, &r->agreement_prior, c->err)) != MMNC_OK ||
        (status = mmnc_i_agreement(c->p, k, n, c->part0, &r->agreement_free, c->err)) != MMNC_OK)
        return status;
    if (r->agreement_prior >= r->agreement_free) return MMNC_OK;
    for (int i = 0; i < n; i++) {
        const mmnc_i_run *f = &c->free_run[i];
        if (f->free_objective > c->free_run[best].free_objective) best = i;
        r->restart_objective[i] = f->free_objective;
        r->restart_iterations[i] = f->free_iterations;
        c->settled[i] = f->free_settled;
    }
    r->best_restart = r->objective_restart = best;
    r->objective = c->free_run[best].free_objective;
    r->iterations = c->free_run[best].free_iterations;
    r->converged = c->free_run[best].free_converged;
    memset(r->W, 0, (size_t)(ny * k) * sizeof *r->W);
    for (mmnc_int y = 0; y < ny; y++) r->W[y * k + c->part0[(mmnc_int)best * ny + y]] = 1.0;
    r->size_prior_kept = 0;
    r->size_prior_refused = MMNC_PRIOR_AGREEMENT;
    prm->size_prior = 0.0;
    return MMNC_OK;
}

/* Long (~150 lines) by intent: check and normalise the parameters, run
 * the starts (side by side or one after another, see below), then the
 * statistics of the kept start -- one sequence that shares the checked
 * parameters and the result being filled. */
int mmnc_cluster(const mmnc_pmf *p, const mmnc_params *prm_in, mmnc_result **out, mmnc_err *err)
{
    progress_lock plock = {prm_in ? prm_in->progress : NULL, prm_in ? prm_in->progress_ctx : NULL, 0};
    mmnc_params prm;
    mmnc_result *r = NULL;
    mmnc_int k, ny;
    mmnc_int *labels = NULL;
    mmnc_err *errs = NULL;
    int *st = NULL, *settled = NULL, agree;
    int32_t *part0 = NULL, *part1 = NULL;
    mmnc_i_run *free_run = NULL;
    double *W = NULL, *emb = NULL, *pzn = NULL, t0 = mmnc_i_now(), lambda = 0.0, step = 0.0;
    mmnc_i_threads saved_threads;
    int status = MMNC_OK, hard;
    const char *msg;
    if (!p || !prm_in || !out) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_cluster: NULL argument");
    *out = NULL;
    if ((msg = mmnc_params_check(prm_in, p->ny_all)) != NULL) {
        if (prm_in->k > p->ny_all)
            return mmnc_i_err(err, MMNC_EINVAL, "k = %lld must not exceed the number of rows (%lld)",
                              (long long)prm_in->k, (long long)p->ny_all);
        return mmnc_i_err(err, MMNC_EINVAL, "%s", msg);
    }
    prm = *prm_in;
    if (err) err->code = MMNC_OK, err->msg[0] = '\0';
    if (prm.progress) prm.progress = locked_progress, prm.progress_ctx = &plock;
    k = prm.k;
    ny = p->ny;
    if (!(prm.algorithm == MMNC_ALG_NUCLEAR && !prm.pz)) prm.refine = MMNC_REFINE_NONE; /* soft results */
    if (prm.max_iter == 0)
        prm.max_iter = prm.algorithm == MMNC_ALG_NUCLEAR ? 300 : prm.algorithm == MMNC_ALG_INFORMATION ? 100
                     : prm.exact_marginal ? 100 : 3000;
    if (prm.algorithm == MMNC_ALG_FROBENIUS) {
        lambda = prm.lambda > 0 ? prm.lambda : 10.0;
        step = prm.step > 0 ? prm.step : 1.0 / lambda;
    }
#ifndef MMNC_HAVE_GLPK
    if (prm.algorithm == MMNC_ALG_NUCLEAR && prm.pz)
        return mmnc_i_err(err, MMNC_EUNSUP, "this build has no GLPK: a prescribed P_Z for Algorithm 2 needs it");
    if (prm.algorithm == MMNC_ALG_FROBENIUS && prm.exact_marginal)
        return mmnc_i_err(err, MMNC_EUNSUP, "this build has no GLPK: the exact marginal for Algorithm 1 needs it");
#endif
    saved_threads = mmnc_i_threads_push(prm.threads);
    MMNC_CALLOC(r, 1, err, status);
    r->k = k;
    r->ny = ny;
    r->algorithm = prm.algorithm;
    r->restarts = prm.restarts;
    r->lambda = lambda;
    r->step = step;
    r->best_restart = -1;
    r->size_prior_kept = -1;
    r->agreement_prior = r->agreement_free = NAN;
    r->select = prm.select;
    r->refine = prm.refine;
    if ((status = mmnc_stats_init(&r->stats, k, err)) != MMNC_OK) goto cleanup;
    MMNC_ALLOC(r->label, ny, err, status);
    MMNC_ALLOC(r->W, ny * k, err, status);
    MMNC_ALLOC(r->restart_objective, prm.restarts, err, status);
    MMNC_ALLOC(r->restart_iterations, prm.restarts, err, status);
    MMNC_ALLOC(r->restart_init, prm.restarts, err, status);
    if (prm.select == MMNC_SELECT_PREDICTIVE) {
        MMNC_CALLOC(r->restart_score, prm.restarts, err, status);
        MMNC_CALLOC(r->restart_alpha, prm.restarts, err, status);
    }
    MMNC_ALLOC(labels, ny, err, status);
    MMNC_ALLOC(W, ny * k, err, status);
    if (prm.pz) { /* normalise exactly */
        double s = 0.0;
        MMNC_ALLOC(pzn, k, err, status);
        for (mmnc_int z = 0; z < k; z++) s += prm.pz[z];
        for (mmnc_int z = 0; z < k; z++) pzn[z] = prm.pz[z] / s;
        prm.pz = pzn;
    }
    if (k > 1 && (prm.init == MMNC_INIT_SPECTRAL)) {
        MMNC_ALLOC(emb, ny * (k - 1), err, status);
        if ((status = mmnc_i_spectral_embedding(p, k, &prm, emb, err)) != MMNC_OK) goto cleanup;
    }
    /* Starts are independent: on small problems run them side by side (each
     * start's kernels then run on one thread), on large ones one after the
     * other with threaded kernels.  Every start computes the same bits either
     * way, and ties go to the lowest start, so the choice never shows in the
     * result.  GLPK keeps global state: LP starts run one at a time. */
    {
        int nt = 1, par;
#ifdef _OPENMP
        nt = omp_get_max_threads();
#endif
        /* distributed: the starts' collectives must come in one order */
        /* the information moves' kernels are sequential sweeps whose threads
         * meet every few hundred rows: side by side whenever a start's sums
         * (|X| k twice, |Y| k costs) take at most 256 MB */
        par = nt > 1 && prm.restarts > 1 &&
              (p->nnz * k <= 20000000 ||
               (prm.algorithm == MMNC_ALG_INFORMATION && (2 * p->nx + ny) * k <= ((mmnc_int)1 << 25))) &&
              !mmnc_i_distributed(p) &&
              !(prm.algorithm == MMNC_ALG_NUCLEAR && prm.pz) && !(prm.algorithm == MMNC_ALG_FROBENIUS && prm.exact_marginal);
        if (!par) nt = 1;
        if (nt > prm.restarts) nt = prm.restarts;
        mmnc_i_free(labels);
        mmnc_i_free(W);
        labels = NULL;
        W = NULL;
        MMNC_ALLOC(labels, (mmnc_int)nt * ny, err, status);
        MMNC_ALLOC(W, (mmnc_int)nt * ny * k, err, status);
        MMNC_CALLOC(errs, nt, err, status);
        MMNC_CALLOC(st, prm.restarts, err, status);
        MMNC_CALLOC(settled, prm.restarts, err, status);
        agree = prm.algorithm == MMNC_ALG_INFORMATION && prm.size_prior > 0.0 && prm.restarts >= 2 &&
                prm.select == MMNC_SELECT_OBJECTIVE && prm.agreement;
        if (agree) {
            MMNC_CALLOC(part0, (mmnc_int)prm.restarts * ny, err, status);
            MMNC_CALLOC(part1, (mmnc_int)prm.restarts * ny, err, status);
            MMNC_CALLOC(free_run, prm.restarts, err, status);
        }
        {
            starts c = {p, &prm, k, ny, lambda, step, emb, labels, W, errs, st, settled, part0, part1, free_run, r, err};
            /* A team of one would still make every kernel's region a nested one,
             * which libgomp serves with new threads each time: no region here
             * unless the starts really run side by side. */
            if (par) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
                for (int i = 0; i < prm.restarts; i++) {
                    int tid = 0;
#ifdef _OPENMP
                    tid = omp_get_thread_num();
#endif
                    one_start(&c, i, tid);
                }
            } else {
                for (int i = 0; i < prm.restarts; i++) one_start(&c, i, 0);
            }
        }
        for (int i = 0; i < prm.restarts && status == MMNC_OK; i++) status = st[i];
        if (status != MMNC_OK && err && err->code == MMNC_OK) mmnc_i_err(err, status, "a start failed");
        if (status != MMNC_OK) goto cleanup;
        r->objective_restart = r->best_restart;
        {
            starts c = {p, &prm, k, ny, lambda, step, emb, labels, W, errs, st, settled, part0, part1, free_run, r, err};
            int refused;
            if (agree && (status = agreement_rule(&c, &prm)) != MMNC_OK) goto cleanup;
            refused = r->size_prior_refused == MMNC_PRIOR_AGREEMENT;
            if ((status = choose_and_refine(&c)) != MMNC_OK) goto cleanup;
            if (refused) r->size_prior_kept = 0, r->size_prior_refused = MMNC_PRIOR_AGREEMENT;
        }
    }
    for (mmnc_int y = 0; y < ny; y++) {
        mmnc_int best = 0;
        for (mmnc_int z = 1; z < k; z++)
            if (r->W[y * k + z] > r->W[y * k + best]) best = z;
        r->label[y] = best;
    }
    /* Algorithm 2's hard steps leave W one-hot: its statistics from the
     * labels make the same sums (the other terms add +0.0) without a
     * gather of |Y| x k rows. */
    hard = (prm.algorithm == MMNC_ALG_NUCLEAR && !prm.pz) || prm.algorithm == MMNC_ALG_INFORMATION;
    if ((status = hard ? mmnc_coupling_stats(p, k, r->label, NULL, &r->stats, err)
                       : mmnc_coupling_stats(p, k, NULL, r->W, &r->stats, err)) != MMNC_OK)
        goto cleanup;
    r->seconds = mmnc_i_now() - t0;
    *out = r;
    r = NULL;
cleanup:
    mmnc_i_threads_pop(saved_threads);
    mmnc_result_free(r);
    mmnc_i_free(labels);
    mmnc_i_free(W);
    mmnc_i_free(emb);
    mmnc_i_free(pzn);
    mmnc_i_free(errs);
    mmnc_i_free(st);
    mmnc_i_free(settled);
    mmnc_i_free(part0);
    mmnc_i_free(part1);
    mmnc_i_free(free_run);
    return status;
}
