/*
 * cluster.c -- the driver of mmnc_cluster: runs the chosen solver from
 * several starts (side by side where they are small, one after another
 * with threaded kernels where they are not), keeps the start with the best
 * objective or, under MMNC_SELECT_PREDICTIVE, the best objective among the
 * starts whose leave-one-row-out predictive information is close to the
 * best (select.c); then the default's chain (default.c) or the
 * refinement, and the statistics of the result.  The kept start is never
 * chosen by anything but the data.
 */
#include <math.h>
#include <string.h>

#include "cluster/cocluster_i.h"
#include "cluster/default_i.h"
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

/* The caller's progress and event functions, called by one start at a
 * time (under one lock: their calls never overlap); once either asks to
 * stop, every start is told to stop without calling them again. */
typedef struct progress_lock {
    mmnc_progress_fn fn;
    void *ctx;
    mmnc_event_fn efn;
    void *ectx;
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

static int locked_event(void *ctx, const mmnc_event *ev)
{
    progress_lock *pl = ctx;
    int stop;
#pragma omp critical(mmnc_progress)
    {
        if (!pl->stop) pl->stop = pl->efn(pl->ectx, ev) != 0;
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
    const mmnc_i_tuning *tune;
    mmnc_i_default *dflt; /* MMNC_ALG_INFORMATION: the default's records of the starts */
    int32_t *parts;       /* MMNC_ALG_DMM, two starts or more: each start's labels (restarts x ny) */
    mmnc_result *r;
    mmnc_err *err;
} starts;

/* Start i on the buffers lab, w: the solver's run and, under the guarded
 * rule, its score (from the argmax labels). */
static int run_start(const starts *c, int i, mmnc_int *lab, double *w, mmnc_i_run *run, int score, mmnc_err *err)
{
    const mmnc_params *prm = c->prm;
    mmnc_int k = c->k, ny = c->ny;
    mmnc_rng rng;
    int s1;
    mmnc_rng_seed(&rng, prm->seed * 0x9e3779b97f4a7c15ULL + (uint64_t)i);
    if (prm->fixed_label) /* semi-supervision: the held rows at their labels, the others around them */
        s1 = mmnc_i_seeded_labels(c->p, k, prm->fixed_label, i, start_method(prm->init, i), c->emb, &rng, lab, err);
    else
        s1 = mmnc_i_init_labels(c->p, k, start_method(prm->init, i), c->emb, &rng, lab, err);
    if (s1 == MMNC_OK) {
        if (prm->algorithm == MMNC_ALG_NUCLEAR) s1 = mmnc_i_nuclear(c->p, prm, c->tune, i, lab, w, run, err);
        else if (prm->algorithm == MMNC_ALG_INFORMATION) s1 = mmnc_i_default_run_start(c->dflt, i, lab, w, run, err);
        else if (prm->algorithm == MMNC_ALG_DMM)
            s1 = mmnc_i_dmm(c->p, prm, i, prm->move_tol * (double)c->p->ny_all, lab, w, run, err);
        else if (prm->exact_marginal) s1 = mmnc_i_frobenius_exact(c->p, prm, i, lab, w, run, err);
        else s1 = mmnc_i_frobenius(c->p, prm, c->lambda, c->step, i, lab, w, run, err);
    }
    if (s1 == MMNC_OK && prm->refine == MMNC_REFINE_EACH) {
        mmnc_params rp = *prm;
        mmnc_i_run rr = MMNC_I_RUN_INIT;
        rp.max_iter = MMNC_DEFAULT_MAX_ITER_INFORMATION;
        rp.move_tol = 0.0;
        mmnc_i_argmax_labels(k, ny, w, lab);
        s1 = mmnc_i_default_start(c->p, &rp, c->tune, i, lab, w, &rr, NULL, err);
        run->objective = rr.objective;
        run->iterations += rr.iterations;
        run->prior_kept = rr.prior_kept;
        run->prior_why = rr.prior_why;
    }
    if (s1 == MMNC_OK && score) {
        mmnc_i_argmax_labels(k, ny, w, lab);
        s1 = mmnc_i_loo_score(c->p, k, lab, &c->r->restart_score[i], &c->r->restart_alpha[i], err);
    }
    return s1;
}

/* r takes start i's outcome and W as the kept start's. */
static void keep(mmnc_result *r, int i, const mmnc_i_run *run, const double *w)
{
    r->best_restart = i;
    r->objective = run->objective;
    r->iterations = run->iterations;
    r->size_prior_kept = run->prior_kept;
    r->size_prior_refused = run->prior_why;
    r->converged = run->converged;
    r->dmm_alpha = r->algorithm == MMNC_ALG_DMM ? run->dmm_alpha : NAN;
    r->dmm_beta = r->algorithm == MMNC_ALG_DMM ? run->dmm_beta : NAN;
    memcpy(r->W, w, (size_t)(r->ny * r->k) * sizeof(double));
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
    int s1 = mmnc_i_event(prm, MMNC_EV_START_BEGIN, i, 0, 0, NULL, NAN, &c->errs[tid]);
    if (s1 == MMNC_OK) s1 = run_start(c, i, lab, w, &run, prm->select == MMNC_SELECT_PREDICTIVE, &c->errs[tid]);
    if (s1 == MMNC_OK)
        s1 = mmnc_i_event(prm, MMNC_EV_START_END, i, run.iterations, run.converged, NULL, run.objective, &c->errs[tid]);
    c->st[i] = s1;
    if (s1 == MMNC_OK && c->parts) /* the Dirichlet mixture's labels, W one-hot from them */
        for (mmnc_int y = 0; y < ny; y++) c->parts[(mmnc_int)i * ny + y] = (int32_t)lab[y];
    r->restart_objective[i] = run.objective;
    r->restart_iterations[i] = run.iterations;
    r->restart_converged[i] = run.converged;
    r->restart_init[i] = start_method(prm->init, i);
#pragma omp critical(mmnc_best)
    if (s1 == MMNC_OK &&
        (r->best_restart < 0 || run.objective > r->objective || (run.objective == r->objective && i < r->best_restart))) {
        keep(r, i, &run, w);
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
            if ((status = mmnc_i_phase(prm, chosen, "chosen start again", c->err)) != MMNC_OK) return status;
            if ((status = run_start(c, chosen, c->labels, c->W, &run, 0, c->err)) != MMNC_OK) return status;
            keep(r, chosen, &run, c->W);
        }
    }
    if (prm->algorithm == MMNC_ALG_INFORMATION && prm->select == MMNC_SELECT_OBJECTIVE) {
        /* the default's choice among the starts' verdicts: run again into r->W if it is not the best J */
        int chosen = mmnc_i_default_choose(c->dflt, r);
        if (chosen != r->best_restart) {
            mmnc_i_run run = MMNC_I_RUN_INIT;
            if ((status = mmnc_i_phase(prm, chosen, "chosen start again", c->err)) != MMNC_OK) return status;
            if ((status = run_start(c, chosen, c->labels, c->W, &run, 0, c->err)) != MMNC_OK) return status;
            keep(r, chosen, &run, c->W);
        }
    }
    if (prm->algorithm == MMNC_ALG_INFORMATION && (status = mmnc_i_default_finish(c->dflt, c->labels, r, c->err)) != MMNC_OK)
        return status;
    if (prm->algorithm == MMNC_ALG_DMM && prm->move_tol > 0.0) { /* the kept start until no row moves */
        mmnc_i_run run = MMNC_I_RUN_INIT;
        run.dmm_alpha = r->dmm_alpha, run.dmm_beta = r->dmm_beta;
        if ((status = mmnc_i_phase(prm, r->best_restart, "polish", c->err)) != MMNC_OK) return status;
        mmnc_i_argmax_labels(k, ny, r->W, c->labels);
        if ((status = mmnc_i_dmm(c->p, prm, r->best_restart, 0.0, c->labels, r->W, &run, c->err)) != MMNC_OK)
            return status;
        r->objective = run.objective;
        r->polish_sweeps = run.iterations;
        r->iterations += run.iterations;
        r->converged = run.converged;
        r->dmm_alpha = run.dmm_alpha, r->dmm_beta = run.dmm_beta;
    }
    if (prm->refine == MMNC_REFINE_CHOSEN) { /* labels only: W one-hot */
        mmnc_params rp = *prm;
        mmnc_i_run run = MMNC_I_RUN_INIT;
        rp.max_iter = MMNC_DEFAULT_MAX_ITER_INFORMATION;
        rp.move_tol = 0.0;
        if ((status = mmnc_i_phase(prm, r->best_restart, "refine", c->err)) != MMNC_OK) return status;
        mmnc_i_argmax_labels(k, ny, r->W, c->labels);
        if ((status = mmnc_i_default_start(c->p, &rp, c->tune, r->best_restart, c->labels, r->W, &run, NULL, c->err)) !=
            MMNC_OK)
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

/* The semi-supervision rule's candidate `cand` for the held rows fixed
 * (a fold's or all of them) into lab: 0 the run itself (mmnc_i_cluster
 * with these labels, the rule not applied inside), 1 start 0's seeded
 * classifier, 2 the same transduced (mmnc_i_semi_transduce) from `seeded`,
 * candidate 1's labels for the same held rows where already made (else
 * NULL).  Collective. */
static int semi_candidate(const starts *c, int cand, const mmnc_int *fixed, const mmnc_int *seeded, mmnc_int *lab)
{
    const mmnc_params *prm = c->prm;
    mmnc_rng rng;
    int status;
    if (cand == 0) {
        mmnc_params in = *prm;
        mmnc_i_tuning tune = MMNC_I_TUNING_DEFAULT;
        mmnc_result *res = NULL;
        in.fixed_label = fixed;
        in.progress = NULL, in.event = NULL;
        if (c->tune) tune = *c->tune;
        tune.semi_inner = 1;
        if ((status = mmnc_i_cluster(c->p, &in, &tune, &res, c->err)) != MMNC_OK) return status;
        memcpy(lab, res->label, (size_t)c->ny * sizeof *lab);
        mmnc_result_free(res);
        return MMNC_OK;
    }
    if (cand == 2) {
        if (seeded) memcpy(lab, seeded, (size_t)c->ny * sizeof *lab);
        else if ((status = semi_candidate(c, 1, fixed, NULL, lab)) != MMNC_OK) return status;
        return mmnc_i_semi_transduce(c->p, c->k, fixed, lab, c->err);
    }
    mmnc_rng_seed(&rng, prm->seed * 0x9e3779b97f4a7c15ULL + 0);
    return mmnc_i_seeded_labels(c->p, c->k, fixed, 0, start_method(prm->init, 0), c->emb, &rng, lab, c->err);
}

/* The semi-supervision rule, after the run (r->label holds its result M).
 * Three candidates, in this order: M (the run), S (start 0's seeded
 * classifier trained on the held rows) and K (S transduced: hard EM over
 * all rows).  Each is scored by SEMI_FOLDS-fold cross-validation on the
 * held rows: the held rows are dealt into folds by a hash of the seed and
 * the row's global index; for each fold the candidate is made again with
 * that fold's rows free, and a held row is a hit where its fold's run put
 * it at its label.  The better seeded candidate (most hits, S on ties)
 * replaces M only when it beats M by more than one standard error of the
 * paired difference, h_seeded - h_M > sqrt(rows hit by one of the two
 * only) (the one-standard-error rule: with three candidates scored on the
 * same few held rows, the largest score is biased upward).  It is then
 * made once more with every held row: label, W one-hot, objective J of it
 * as the run defines it (I(X;Z) less the size prior's term, as the starts,
 * the guard's verdicts and the refinement report J; I(X;Z) alone once the
 * agreement rule dropped the prior; the evidence for the Dirichlet
 * mixture; the nuclear norm for Algorithm 2 without refinement: stats,
 * after), best_restart 0, iterations 0 (no sweep of the run made it).
 * lab is scratch (ny).  Collective: every rank takes the same branch, its
 * counts being sums over all ranks. */
#define SEMI_FOLDS 5
static int semi_rule(const starts *c, mmnc_int *lab, int *use_nuclear)
{
    const mmnc_params *prm = c->prm;
    const mmnc_pmf *p = c->p;
    mmnc_result *r = c->r;
    mmnc_int k = c->k, ny = c->ny, *ff = NULL, *sl = NULL; /* sl: candidate 1 of a fold */
    double *T = NULL, *pz = NULL;
    int64_t *work = NULL, *nc = NULL, nnz_all = p->nnz, cnt[MMNC_SEMI_CANDIDATES + 1], disc[2] = {0, 0};
    unsigned char *fold = NULL, *hit = NULL;
    int status, best = 1;
    mmnc_int values = 0;
    *use_nuclear = 0;
    /* Held rows of one label value: every candidate that puts a held row
     * there scores it a hit, so the scores cannot tell them apart; the
     * classifiers put every row at that value (the other clusters are
     * their seeds alone), which the run does not.  M is kept. */
    MMNC_CALLOC(nc, k, c->err, status);
    for (mmnc_int y = 0; y < ny; y++)
        if (prm->fixed_label[y] >= 0) nc[prm->fixed_label[y]] = 1;
    mmnc_i_disum(p, nc, k);
    for (mmnc_int z = 0; z < k; z++) values += nc[z] > 0;
    mmnc_i_free(nc);
    nc = NULL;
    if (values < 2) {
        r->semi_kept = MMNC_SEMI_MOVES;
        for (int cand = 0; cand < MMNC_SEMI_CANDIDATES; cand++) r->semi_scores[cand] = NAN;
        r->semi_score_moves = r->semi_score_seeded = r->semi_margin = NAN;
        return MMNC_OK;
    }
    MMNC_ALLOC(ff, ny > 0 ? ny : 1, c->err, status);
    MMNC_ALLOC(sl, ny > 0 ? ny : 1, c->err, status);
    MMNC_ALLOC(fold, ny > 0 ? ny : 1, c->err, status);
    MMNC_CALLOC(hit, ny > 0 ? ny : 1, c->err, status);
    for (mmnc_int y = 0; y < ny; y++)
        fold[y] = (unsigned char)(mmnc_i_mix64(prm->seed * 0x9e3779b97f4a7c15ULL ^ (uint64_t)(p->y0 + y)) % SEMI_FOLDS);
    memset(cnt, 0, sizeof cnt);
    for (mmnc_int y = 0; y < ny; y++) cnt[MMNC_SEMI_CANDIDATES] += prm->fixed_label[y] >= 0;
    for (int f = 0; f < SEMI_FOLDS; f++) {
        for (mmnc_int y = 0; y < ny; y++) ff[y] = fold[y] == f ? -1 : prm->fixed_label[y];
        for (int cand = 0; cand < MMNC_SEMI_CANDIDATES; cand++) {
            mmnc_int *out = cand == 1 ? sl : lab; /* kept for 2 */
            if ((status = semi_candidate(c, cand, ff, cand == 2 ? sl : NULL, out)) != MMNC_OK) goto cleanup;
            for (mmnc_int y = 0; y < ny; y++)
                if (prm->fixed_label[y] >= 0 && fold[y] == f && out[y] == prm->fixed_label[y])
                    cnt[cand]++, hit[y] |= (unsigned char)(1u << cand);
        }
    }
    mmnc_i_disum(p, cnt, MMNC_SEMI_CANDIDATES + 1);
    for (int cand = 0; cand < MMNC_SEMI_CANDIDATES; cand++) {
        r->semi_scores[cand] = (double)cnt[cand] / (double)cnt[MMNC_SEMI_CANDIDATES];
        if (cand > 1 && cnt[cand] > cnt[best]) best = cand;
    }
    for (mmnc_int y = 0; y < ny; y++) { /* held rows hit by M alone, by the best seeded alone */
        int m = hit[y] & 1, s = (hit[y] >> best) & 1;
        disc[0] += m && !s, disc[1] += s && !m;
    }
    mmnc_i_disum(p, disc, 2);
    r->semi_score_moves = r->semi_scores[0];
    r->semi_score_seeded = r->semi_scores[best];
    r->semi_margin = sqrt((double)(disc[0] + disc[1])) / (double)cnt[MMNC_SEMI_CANDIDATES];
    r->semi_kept = MMNC_SEMI_MOVES;
    if (!((double)(cnt[best] - cnt[0]) > sqrt((double)(disc[0] + disc[1])))) goto cleanup;
    r->semi_kept = 1 + best;
    if ((status = semi_candidate(c, best, prm->fixed_label, NULL, lab)) != MMNC_OK) goto cleanup;
    memcpy(r->label, lab, (size_t)ny * sizeof *lab);
    memset(r->W, 0, (size_t)(ny * k) * sizeof *r->W);
    for (mmnc_int y = 0; y < ny; y++) r->W[y * k + lab[y]] = 1.0;
    r->best_restart = 0;
    r->iterations = 0;
    if (prm->algorithm == MMNC_ALG_NUCLEAR && prm->refine == MMNC_REFINE_NONE) {
        *use_nuclear = 1;
        goto cleanup;
    }
    if (prm->algorithm == MMNC_ALG_DMM) {
        status = mmnc_i_dmm_objective(p, k, lab, prm->dmm_beta, &r->objective, NULL, c->err);
        goto cleanup;
    }
    MMNC_ALLOC(T, p->nx * k > 0 ? p->nx * k : 1, c->err, status);
    MMNC_ALLOC(pz, k, c->err, status);
    MMNC_ALLOC(work, mmnc_i_fix_work(p, k), c->err, status);
    MMNC_ALLOC(nc, k, c->err, status);
    mmnc_i_pzx_fix(p, k, lab, T, pz, work);
    mmnc_i_label_counts(p, k, lab, nc);
    mmnc_i_disum(p, &nnz_all, 1);
    r->objective = mmnc_i_info_objective(p, k, T, pz, nc,
                                         r->size_prior_refused == MMNC_PRIOR_AGREEMENT ? 0.0 : prm->size_prior, nnz_all);
cleanup:
    mmnc_i_free(T);
    mmnc_i_free(pz);
    mmnc_i_free(work);
    mmnc_i_free(nc);
    mmnc_i_free(ff);
    mmnc_i_free(sl);
    mmnc_i_free(fold);
    mmnc_i_free(hit);
    return status;
}

/* Whether start i runs here: every start, or where the ranks share them
 * out (mmnc_i_tuning.share), those with i % size == rank. */
static int mine(const starts *c, int i)
{
    const mmnc_dist *d = c->tune ? c->tune->share : NULL;
    return !d || i % d->size == d->rank;
}

/* After the ranks ran their shares of the starts: every rank gets every
 * start's objective, sweeps and convergence, and the best start (the
 * highest objective, ties to the lower start, as one process keeps it)
 * from the rank that ran it, so that r is what one process has.
 * Collective; status is this rank's. */
static int share_best(const starts *c, int status)
{
    const mmnc_dist *d = c->tune->share;
    const mmnc_params *prm = c->prm;
    mmnc_result *r = c->r;
    int n = prm->restarts, b = -1, owner;
    double *f = NULL, kept[5];
    int64_t *g = NULL;
    if ((status = mmnc_i_agree(d, status, c->err)) != MMNC_OK) return status;
    f = mmnc_i_malloc((size_t)n, sizeof *f);
    g = mmnc_i_malloc((size_t)(2 * n), sizeof *g);
    status = (f && g) ? MMNC_OK : mmnc_i_err(c->err, MMNC_ENOMEM, "out of memory");
    if ((status = mmnc_i_agree(d, status, c->err)) != MMNC_OK) goto cleanup;
    for (int i = 0; i < n; i++) { /* the others' entries 0: the sums are the owners' values */
        f[i] = mine(c, i) ? r->restart_objective[i] : 0.0;
        g[i] = mine(c, i) ? r->restart_iterations[i] : 0;
        g[n + i] = mine(c, i) ? r->restart_converged[i] : 0;
    }
    d->sum(d, f, n);
    d->isum(d, g, 2 * n);
    for (int i = 0; i < n; i++) {
        r->restart_objective[i] = f[i];
        r->restart_iterations[i] = (int)g[i];
        r->restart_converged[i] = (int)g[n + i];
        r->restart_init[i] = start_method(prm->init, i);
        if (b < 0 || f[i] > f[b]) b = i;
    }
    owner = b % d->size;
    kept[0] = r->objective, kept[1] = r->iterations, kept[2] = r->converged;
    kept[3] = r->dmm_alpha, kept[4] = r->dmm_beta;
    d->bcast(d, kept, sizeof kept, owner);
    d->bcast(d, r->W, (size_t)(r->ny * r->k) * sizeof *r->W, owner);
    r->best_restart = b;
    r->objective = kept[0], r->iterations = (int)kept[1], r->converged = (int)kept[2];
    r->dmm_alpha = kept[3], r->dmm_beta = kept[4];
cleanup:
    mmnc_i_free(f);
    mmnc_i_free(g);
    return status;
}

/* Run every start and keep the best objective in r (ties to the lower
 * start).  Starts are independent: on small problems they run side by side
 * (each start's kernels then on one thread), on large ones one after the
 * other with threaded kernels.  Every start computes the same bits either
 * way, so the choice never shows in the result.  *labels and *W are
 * reallocated for the threads' buffers. */
static int run_starts(starts *c, mmnc_int **labels, double **W)
{
    const mmnc_params *prm = c->prm;
    const mmnc_pmf *p = c->p;
    mmnc_int k = c->k, ny = c->ny;
    mmnc_err *err = c->err;
    int nt = 1, par, status = MMNC_OK;
#ifdef _OPENMP
    nt = omp_get_max_threads();
#endif
    /* side by side: not distributed (the starts' collectives must come in one order), not GLPK (global
     * state), and only where a start's tables are small enough: the information moves' kernels are
     * sequential sweeps whose threads meet every few hundred rows.  The Dirichlet mixture's start is
     * one thread's whatever its size (its own memory, 8 nnz + 32 |X| k bytes, below the pmf's) */
    par = nt > 1 && prm->restarts > 1 &&
          (p->nnz * k <= 20000000 || (prm->algorithm == MMNC_ALG_INFORMATION && mmnc_i_moves_side_by_side(p, k)) ||
           prm->algorithm == MMNC_ALG_DMM) &&
          !mmnc_i_distributed(p) && !(prm->algorithm == MMNC_ALG_NUCLEAR && prm->pz) &&
          !(prm->algorithm == MMNC_ALG_FROBENIUS && prm->exact_marginal);
    if (!par) nt = 1;
    if (nt > prm->restarts) nt = prm->restarts;
    mmnc_i_free(*labels);
    mmnc_i_free(*W);
    *labels = NULL;
    *W = NULL;
    MMNC_ALLOC(*labels, (mmnc_int)nt * ny, err, status);
    MMNC_ALLOC(*W, (mmnc_int)nt * ny * k, err, status);
    MMNC_CALLOC(c->errs, nt, err, status);
    MMNC_CALLOC(c->st, prm->restarts, err, status);
    c->labels = *labels;
    c->W = *W;
    /* A team of one would still make every kernel's region a nested one,
     * which libgomp serves with new threads each time: no region here
     * unless the starts really run side by side. */
    if (par) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
        for (int i = 0; i < prm->restarts; i++) {
            int tid = 0;
#ifdef _OPENMP
            tid = omp_get_thread_num();
#endif
            if (mine(c, i)) one_start(c, i, tid);
        }
    } else {
        for (int i = 0; i < prm->restarts; i++)
            if (mine(c, i)) one_start(c, i, 0);
    }
    for (int i = 0; i < prm->restarts && status == MMNC_OK; i++) status = mine(c, i) ? c->st[i] : MMNC_OK;
    if (status != MMNC_OK && err && err->code == MMNC_OK) mmnc_i_err(err, status, "a start failed");
    if (c->tune && c->tune->share) status = share_best(c, status);
cleanup:
    return status;
}

/* r->agreement of the Dirichlet mixture's starts (c->parts): where the
 * ranks shared the starts out, each start's labels first from the rank
 * that ran it.  Collective. */
static int starts_agreement(const starts *c)
{
    const mmnc_dist *d = c->tune ? c->tune->share : NULL;
    for (int i = 0; d && i < c->prm->restarts; i++)
        d->bcast(d, c->parts + (mmnc_int)i * c->ny, (size_t)c->ny * sizeof *c->parts, i % d->size);
    return mmnc_i_agreement(c->p, c->k, c->prm->restarts, c->parts, &c->r->agreement, c->err);
}

/* The parameters as the solvers take them: refine only where the result is
 * hard, the iteration cap and Algorithm 1's penalty and step filled in. */
static void normalise(mmnc_params *prm, double *lambda, double *step)
{
    if (!(prm->algorithm == MMNC_ALG_NUCLEAR && !prm->pz)) prm->refine = MMNC_REFINE_NONE; /* soft results */
    if (prm->max_iter == 0)
        prm->max_iter = prm->algorithm == MMNC_ALG_NUCLEAR       ? MMNC_DEFAULT_MAX_ITER_NUCLEAR
                      : prm->algorithm == MMNC_ALG_INFORMATION ? MMNC_DEFAULT_MAX_ITER_INFORMATION
                      : prm->algorithm == MMNC_ALG_DMM         ? MMNC_DEFAULT_MAX_ITER_INFORMATION
                      : prm->exact_marginal                    ? MMNC_DEFAULT_MAX_ITER_EXACT
                                                               : MMNC_DEFAULT_MAX_ITER_FROBENIUS;
    *lambda = *step = 0.0;
    if (prm->algorithm == MMNC_ALG_FROBENIUS) {
        *lambda = prm->lambda > 0 ? prm->lambda : MMNC_DEFAULT_LAMBDA;
        *step = prm->step > 0 ? prm->step : 1.0 / *lambda;
    }
}

/* Co-clustering (prm->col_clusters > 0), from the one-sided problem: the
 * rows A1 of this run without column clusters (its starts, init and
 * selection).  The information and Dirichlet forms make A1 their start 0; the nuclear
 * form also takes the columns C1 of the same run on P_{X,Z} for A1 (l
 * clusters), and its alternation from (A1, C1) ends at least at
 * ||A1 B C1^T||_* (cocluster.c). */
static int cocluster_whole(const mmnc_pmf *p, const mmnc_params *prm, const mmnc_i_tuning *tune, mmnc_result **out,
                           mmnc_err *err)
{
    mmnc_params sp = *prm;
    mmnc_result *r = NULL;
    mmnc_pmf *a = NULL;
    mmnc_int *rl = NULL, *cl = NULL, l = prm->col_clusters;
    int status;
    if (l > p->nx) return mmnc_i_cocluster(p, prm, NULL, NULL, out, err); /* which refuses it */
    MMNC_ALLOC(rl, p->ny, err, status);
    MMNC_ALLOC(cl, p->nx, err, status);
    sp.col_clusters = 0;
    if (tune->rows_auto) sp.algorithm = MMNC_ALG_AUTO; /* the default's rows: the Dirichlet mixture on counts */
    sp.progress = NULL, sp.progress_ctx = NULL; /* the caller's are serialised by a lock of their own */
    sp.event = NULL, sp.event_ctx = NULL;
    if ((status = mmnc_i_phase(prm, -1, "rows alone", err)) != MMNC_OK) goto cleanup;
    if ((status = mmnc_i_cluster(p, &sp, tune, &r, err)) != MMNC_OK) goto cleanup;
    memcpy(rl, r->label, (size_t)p->ny * sizeof(mmnc_int));
    mmnc_result_free(r);
    r = NULL;
    if (prm->algorithm != MMNC_ALG_NUCLEAR) {
        if ((status = mmnc_i_phase(prm, -1, "co-clustering starts", err)) != MMNC_OK) goto cleanup;
        status = mmnc_i_cocluster(p, prm, rl, NULL, out, err);
        goto cleanup;
    }
    if ((status = mmnc_i_phase(prm, -1, "columns for them (Algorithm 2)", err)) != MMNC_OK) goto cleanup;
    if ((status = mmnc_i_cocluster_blocks(p, 1, rl, prm->k, NULL, l, 1.0, &a, err)) != MMNC_OK) goto cleanup;
    sp.k = l;
    if ((status = mmnc_i_cluster(a, &sp, tune, &r, err)) != MMNC_OK) goto cleanup;
    memcpy(cl, r->label, (size_t)p->nx * sizeof(mmnc_int));
    if ((status = mmnc_i_phase(prm, -1, "alternation", err)) != MMNC_OK) goto cleanup;
    status = mmnc_i_cocluster(p, prm, rl, cl, out, err);
cleanup:
    mmnc_result_free(r);
    mmnc_pmf_free(a);
    mmnc_i_free(rl);
    mmnc_i_free(cl);
    return status;
}

/* Every rank's fixed_label, in rank order (the gathered pmf's rows): *all
 * (ny_all entries), freed by the caller.  Collective. */
static int gather_fixed(const mmnc_pmf *p, const mmnc_int *fixed, mmnc_int **all, mmnc_err *err)
{
    const mmnc_dist *d = p->dist;
    int64_t me = p->ny, *n = NULL;
    mmnc_int y = 0;
    int status = MMNC_OK;
    *all = NULL;
    n = mmnc_i_malloc((size_t)d->size, sizeof *n);
    *all = mmnc_i_malloc((size_t)(p->ny_all > 0 ? p->ny_all : 1), sizeof **all);
    if (!n || !*all) status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    if ((status = mmnc_i_agree(d, status, err)) != MMNC_OK) goto cleanup;
    d->allgather(d, &me, sizeof me, n);
    for (int q = 0; q < d->size; q++) {
        if (q == d->rank) memcpy(*all + y, fixed, (size_t)n[q] * sizeof(mmnc_int));
        if (n[q] > 0) d->bcast(d, *all + y, (size_t)n[q] * sizeof(mmnc_int), q);
        y += (mmnc_int)n[q];
    }
cleanup:
    mmnc_i_free(n);
    return status;
}

/* A run on the whole of a distributed pmf: gathered onto every rank (with
 * its held rows' labels), every rank runs one process's `run` on it (the
 * same bits everywhere) and keeps its rows' labels, W and held flags; the
 * rest of the result is whole (mmnc.h).  Co-clustering runs this way, and
 * the Dirichlet mixture with MMNC_MOVES_SEQUENTIAL, the predictive rule or
 * values that are not whole counts; its starts are then shared out among
 * the ranks (tune->share, share_best). */
typedef int (*whole_fn)(const mmnc_pmf *p, const mmnc_params *prm, const mmnc_i_tuning *tune, mmnc_result **out,
                        mmnc_err *err);
static int gathered(const mmnc_pmf *p, const mmnc_params *prm, const mmnc_i_tuning *tune, mmnc_result **out,
                    mmnc_err *err, whole_fn run)
{
    mmnc_pmf w;
    mmnc_params wp = *prm;
    mmnc_int *fixed = NULL;
    mmnc_result *r = NULL;
    int status;
    if ((status = mmnc_i_pmf_gather(p, &w, err)) == MMNC_OK && prm->fixed_label &&
        (status = gather_fixed(p, prm->fixed_label, &fixed, err)) == MMNC_OK)
        wp.fixed_label = fixed;
    if (status == MMNC_OK) status = run(&w, &wp, tune, &r, err);
    status = mmnc_i_agree(p->dist, status, err);
    if (status == MMNC_OK) {
        memmove(r->label, r->label + p->y0, (size_t)p->ny * sizeof(mmnc_int));
        memmove(r->W, r->W + p->y0 * r->k, (size_t)(p->ny * r->k) * sizeof(double));
        if (r->fixed) {
            memmove(r->fixed, r->fixed + p->y0, (size_t)p->ny);
            r->nfixed = 0;
            for (mmnc_int y = 0; y < p->ny; y++) r->nfixed += r->fixed[y];
        }
        r->ny = p->ny;
        *out = r;
        r = NULL;
    }
    mmnc_result_free(r);
    mmnc_i_free(fixed);
    mmnc_i_pmf_gathered_free(&w);
    return status;
}

/* Co-clustering of a pmf, distributed or not (gathered whole). */
static int cocluster(const mmnc_pmf *p, const mmnc_params *prm, const mmnc_i_tuning *tune, mmnc_result **out,
                     mmnc_err *err)
{
    if (!mmnc_i_distributed(p)) return cocluster_whole(p, prm, tune, out, err);
    return gathered(p, prm, tune, out, err, cocluster_whole);
}

/* Whether every value of p is a whole number (P times the total, to
 * 1e-9) on every rank.  Collective. */
static int whole_counts(const mmnc_pmf *p)
{
    const mmnc_csr *P = p->P;
    int64_t fractional = 0;
    for (mmnc_int j = 0; j < P->nnz && !fractional; j++) {
        double c = P->val[j] * p->total, r = nearbyint(c);
        fractional = !(r >= 1.0 && fabs(c - r) <= 1e-9 * r);
    }
    mmnc_i_disum(p, &fractional, 1);
    return !fractional;
}

/* MMNC_ALG_AUTO's choice: the Dirichlet mixture where every value is a
 * whole number (with column clusters too, in its co-clustering form),
 * else the information objective.  Collective. */
static int auto_algorithm(const mmnc_pmf *p)
{
    return whole_counts(p) ? MMNC_ALG_DMM : MMNC_ALG_INFORMATION;
}

/* Whether the Dirichlet mixture on the ranks of p gathers the pmf and
 * shares out its starts (mmnc_moves): asked for (MMNC_MOVES_SEQUENTIAL),
 * needed (the predictive rule, values that are not whole counts), or, by
 * MMNC_MOVES_AUTO, where the matrix has at most MMNC_DMM_GATHER_NNZ
 * nonzeros.  1: gather, 0: side by side, < 0: minus the status of an
 * error (moves = batch asked where it cannot run).  Collective. */
static int gather_dmm(const mmnc_pmf *p, const mmnc_params *prm, mmnc_err *err)
{
    int64_t nnz = p->nnz;
    if (prm->moves == MMNC_MOVES_SEQUENTIAL) return 1;
    if (prm->select == MMNC_SELECT_PREDICTIVE || !whole_counts(p)) {
        if (prm->moves == MMNC_MOVES_BATCH)
            return -mmnc_i_err(err, MMNC_EINVAL, "moves = batch (the ranks side by side) needs whole counts and "
                               "select = objective; %s: use moves = auto or sequential (the pmf gathered)",
                               prm->select == MMNC_SELECT_PREDICTIVE ? "select is predictive" : "these values are not whole counts");
        return 1;
    }
    if (prm->moves != MMNC_MOVES_AUTO) return 0;
    mmnc_i_disum(p, &nnz, 1);
    return nnz <= MMNC_DMM_GATHER_NNZ;
}

int mmnc_cluster(const mmnc_pmf *p, const mmnc_params *prm, mmnc_result **out, mmnc_err *err)
{
    const mmnc_i_tuning tune = MMNC_I_TUNING_DEFAULT;
    return mmnc_i_cluster(p, prm, &tune, out, err);
}

int mmnc_i_cluster(const mmnc_pmf *p, const mmnc_params *prm_in, const mmnc_i_tuning *tune, mmnc_result **out,
                   mmnc_err *err)
{
    progress_lock plock = {prm_in ? prm_in->progress : NULL, prm_in ? prm_in->progress_ctx : NULL,
                           prm_in ? prm_in->event : NULL, prm_in ? prm_in->event_ctx : NULL, 0};
    mmnc_params prm, chk;
    mmnc_result *r = NULL;
    const mmnc_int *fixed = prm_in ? prm_in->fixed_label : NULL;
    int64_t nheld = 0;
    mmnc_int k, ny;
    mmnc_int *labels = NULL;
    mmnc_i_default *dflt = NULL;
    double *W = NULL, *emb = NULL, *pzn = NULL, t0 = mmnc_i_now(), lambda, step;
    mmnc_i_threads saved_threads;
    starts c;
    int status = MMNC_OK, hard, nuclear_objective = 0;
    const char *msg;
    if (!p || !prm_in || !out) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_cluster: NULL argument");
    *out = NULL;
    chk = *prm_in;
    chk.fixed_label = NULL; /* checked below: this process's rows alone */
    if ((msg = mmnc_params_check(&chk, p->ny_all)) != NULL) {
        if (prm_in->k > p->ny_all)
            return mmnc_i_err(err, MMNC_EINVAL, "k = %lld must not exceed the number of rows (%lld)",
                              (long long)prm_in->k, (long long)p->ny_all);
        return mmnc_i_err(err, MMNC_EINVAL, "%s", msg);
    }
    if (fixed && (msg = mmnc_i_fixed_check(prm_in, fixed, p->ny, mmnc_i_distributed(p) ? p : NULL)) != NULL) {
        for (mmnc_int y = 0; y < p->ny; y++) /* name the first bad entry, where this process holds it */
            if (fixed[y] < -1 || fixed[y] >= prm_in->k)
                return mmnc_i_err(err, MMNC_EINVAL, "fixed_label[%lld] = %lld: expected -1 (free) or a cluster 0 .. %lld",
                                  (long long)(p->y0 + y), (long long)fixed[y], (long long)prm_in->k - 1);
        return mmnc_i_err(err, MMNC_EINVAL, "%s", msg);
    }
    prm = *prm_in;
    if (prm.algorithm == MMNC_ALG_AUTO) prm.algorithm = auto_algorithm(p);
    if (prm.algorithm == MMNC_ALG_DMM && !(p->total <= 1e300)) /* lgamma overflows above about 2.5e305 */
        return mmnc_i_err(err, MMNC_EINVAL, "the Dirichlet mixture takes the values as counts, and they sum to %.3g, "
                                            "above 1e300, where its log-gamma terms overflow: divide the values by a "
                                            "power of ten, or use the information objective (-a information)",
                          p->total);
    if (fixed) { /* no row held on any rank: the run of fixed_label NULL, bit for bit */
        for (mmnc_int y = 0; y < p->ny; y++) nheld += fixed[y] >= 0;
        int64_t all = nheld;
        mmnc_i_disum(p, &all, 1);
        if (all == 0) prm.fixed_label = NULL;
    }
    if (err) err->code = MMNC_OK, err->msg[0] = '\0';
    if (prm.progress) prm.progress = locked_progress, prm.progress_ctx = &plock;
    if (prm.event) prm.event = locked_event, prm.event_ctx = &plock;
    k = prm.k;
    ny = p->ny;
    normalise(&prm, &lambda, &step);
    if (prm.col_clusters > 0) { /* no labels there (mmnc_params_check) */
        mmnc_i_tuning ct = *tune;
        ct.rows_auto = prm_in->algorithm == MMNC_ALG_AUTO;
        status = cocluster(p, &prm, &ct, out, err);
        if (status == MMNC_OK) {
            (*out)->semi_score_moves = (*out)->semi_score_seeded = (*out)->semi_margin = NAN;
            for (int i = 0; i < MMNC_SEMI_CANDIDATES; i++) (*out)->semi_scores[i] = NAN;
        }
        return status;
    }
    int gather = prm.algorithm == MMNC_ALG_DMM && mmnc_i_distributed(p) ? gather_dmm(p, &prm, err) : 0;
    if (gather < 0) return -gather;
    if (gather) {
        /* one process's run on every rank (the ranks side by side need whole counts; dmm.c) */
        mmnc_i_tuning st = *tune;
        prm.progress = prm_in->progress, prm.progress_ctx = prm_in->progress_ctx; /* the inner run locks them */
        prm.event = prm_in->event, prm.event_ctx = prm_in->event_ctx;
        if (prm.select != MMNC_SELECT_PREDICTIVE) st.share = p->dist; /* the starts shared out among the ranks */
        return gathered(p, &prm, &st, out, err, mmnc_i_cluster);
    }
#ifndef MMNC_HAVE_GLPK
    if (prm.algorithm == MMNC_ALG_NUCLEAR && prm.pz)
        return mmnc_i_err(err, MMNC_EUNSUP, "this build has no GLPK: a prescribed P_Z for Algorithm 2 needs it");
    if (prm.algorithm == MMNC_ALG_FROBENIUS && prm.exact_marginal)
        return mmnc_i_err(err, MMNC_EUNSUP, "this build has no GLPK: the exact marginal for Algorithm 1 needs it");
#endif
    saved_threads = mmnc_i_threads_push(prm.threads);
    memset(&c, 0, sizeof c);
    MMNC_CALLOC(r, 1, err, status);
    r->k = k;
    r->ny = ny;
    r->algorithm = prm.algorithm;
    r->restarts = prm.restarts;
    r->lambda = lambda;
    r->step = step;
    r->best_restart = -1;
    r->size_prior_kept = -1;
    r->agreement_prior = r->agreement_free = r->agreement = NAN;
    r->semi_score_moves = r->semi_score_seeded = r->semi_margin = NAN;
    for (int i = 0; i < MMNC_SEMI_CANDIDATES; i++) r->semi_scores[i] = NAN;
    r->dmm_alpha = r->dmm_beta = NAN;
    r->select = prm.select;
    r->refine = prm.refine;
    if ((status = mmnc_stats_init(&r->stats, k, err)) != MMNC_OK) goto cleanup;
    if (fixed) {
        MMNC_CALLOC(r->fixed, ny > 0 ? ny : 1, err, status);
        for (mmnc_int y = 0; y < ny; y++) r->fixed[y] = fixed[y] >= 0;
        r->nfixed = nheld;
    }
    MMNC_ALLOC(r->label, ny, err, status);
    MMNC_ALLOC(r->W, ny * k, err, status);
    MMNC_ALLOC(r->restart_objective, prm.restarts, err, status);
    MMNC_ALLOC(r->restart_iterations, prm.restarts, err, status);
    MMNC_ALLOC(r->restart_init, prm.restarts, err, status);
    MMNC_ALLOC(r->restart_converged, prm.restarts, err, status);
    if (prm.select == MMNC_SELECT_PREDICTIVE) {
        MMNC_CALLOC(r->restart_score, prm.restarts, err, status);
        MMNC_CALLOC(r->restart_alpha, prm.restarts, err, status);
    }
    if (prm.pz) { /* normalise exactly */
        double s = 0.0;
        MMNC_ALLOC(pzn, k, err, status);
        for (mmnc_int z = 0; z < k; z++) s += prm.pz[z];
        for (mmnc_int z = 0; z < k; z++) pzn[z] = prm.pz[z] / s;
        prm.pz = pzn;
    }
    if (k > 1 && (prm.init == MMNC_INIT_SPECTRAL)) {
        MMNC_ALLOC(emb, ny * (k - 1), err, status);
        if ((status = mmnc_i_phase(&prm, -1, "spectral embedding", err)) != MMNC_OK) goto cleanup;
        if ((status = mmnc_i_spectral_embedding(p, k, &prm, emb, err)) != MMNC_OK) goto cleanup;
    }
    if (prm.algorithm == MMNC_ALG_INFORMATION && (status = mmnc_i_default_open(p, &prm, tune, &dflt, err)) != MMNC_OK)
        goto cleanup;
    c.p = p, c.prm = &prm, c.k = k, c.ny = ny, c.lambda = lambda, c.step = step, c.emb = emb;
    c.tune = tune, c.dflt = dflt, c.r = r, c.err = err;
    if (prm.algorithm == MMNC_ALG_DMM && prm.restarts > 1 && !tune->semi_inner) /* a fold's run: not read */
        MMNC_ALLOC(c.parts, (mmnc_int)prm.restarts * ny, err, status);
    if ((status = run_starts(&c, &labels, &W)) != MMNC_OK) goto cleanup;
    if (c.parts && (status = starts_agreement(&c)) != MMNC_OK) goto cleanup;
    r->objective_restart = r->best_restart;
    if ((status = choose_and_refine(&c)) != MMNC_OK) goto cleanup;
    mmnc_i_argmax_labels(k, ny, r->W, r->label);
    /* Algorithm 2's hard steps leave W one-hot: its statistics from the
     * labels make the same sums (the other terms add +0.0) without a
     * gather of |Y| x k rows. */
    hard = (prm.algorithm == MMNC_ALG_NUCLEAR && !prm.pz) || prm.algorithm == MMNC_ALG_INFORMATION ||
           prm.algorithm == MMNC_ALG_DMM;
    if (prm.fixed_label && hard && !tune->semi_inner && (status = semi_rule(&c, labels, &nuclear_objective)) != MMNC_OK) goto cleanup;
    if ((status = hard ? mmnc_coupling_stats(p, k, r->label, NULL, &r->stats, err)
                       : mmnc_coupling_stats(p, k, NULL, r->W, &r->stats, err)) != MMNC_OK)
        goto cleanup;
    if (nuclear_objective) r->objective = r->stats.nuclear;
    if (prm.algorithm == MMNC_ALG_INFORMATION)
        r->agreement = r->size_prior_refused == MMNC_PRIOR_AGREEMENT ? r->agreement_free : r->agreement_prior;
    r->seconds = mmnc_i_now() - t0;
    *out = r;
    r = NULL;
cleanup:
    mmnc_i_threads_pop(saved_threads);
    mmnc_result_free(r);
    mmnc_i_default_close(dflt);
    mmnc_i_free(labels);
    mmnc_i_free(W);
    mmnc_i_free(emb);
    mmnc_i_free(pzn);
    mmnc_i_free(c.errs);
    mmnc_i_free(c.st);
    mmnc_i_free(c.parts);
    return status;
}
