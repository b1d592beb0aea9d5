/*
 * params.c -- the parameters of mmnc_cluster (defaults, the paper's
 * protocol, checks), the release of its result, and the report of an
 * iteration to the caller's progress function, which every solver makes,
 * and of an event to its event function.
 */
#include <math.h>
#include <string.h>

#include "cluster/solver_i.h"

void mmnc_params_default(mmnc_params *p)
{
    memset(p, 0, sizeof *p); /* pz, exact_marginal, progress: none */
    p->algorithm = MMNC_DEFAULT_ALGORITHM;
    p->k = MMNC_DEFAULT_K;
    p->seed = MMNC_DEFAULT_SEED;
    p->restarts = MMNC_DEFAULT_RESTARTS;
    p->init = MMNC_DEFAULT_INIT;
    p->select = MMNC_DEFAULT_SELECT;
    p->select_tol = MMNC_DEFAULT_SELECT_TOL;
    p->refine = MMNC_DEFAULT_REFINE;
    p->size_prior = MMNC_DEFAULT_SIZE_PRIOR;
    p->max_iter = MMNC_DEFAULT_MAX_ITER; /* 0: the cap of the algorithm, MMNC_DEFAULT_MAX_ITER_* */
    p->tol = MMNC_DEFAULT_TOL;
    p->move_tol = MMNC_DEFAULT_MOVE_TOL;
    p->merge_split = MMNC_DEFAULT_MERGE_SPLIT;
    p->agreement = MMNC_DEFAULT_AGREEMENT;
    p->moves = MMNC_DEFAULT_MOVES;
    p->lambda = 0.0; /* <= 0: MMNC_DEFAULT_LAMBDA */
    p->step = 0.0;   /* <= 0: 1 / lambda */
    p->threads = MMNC_DEFAULT_THREADS;
    p->col_clusters = MMNC_DEFAULT_COL_CLUSTERS;
    p->fixed_label = NULL;
    p->dmm_beta = MMNC_DEFAULT_DMM_BETA;
}

void mmnc_params_paper(mmnc_params *p)
{
    mmnc_params_default(p);
    p->algorithm = MMNC_ALG_NUCLEAR;
    p->init = MMNC_INIT_RANDOM; /* the protocol whatever the defaults */
    p->select = MMNC_SELECT_OBJECTIVE;
    p->refine = MMNC_REFINE_NONE;
}

const char *mmnc_params_check(const mmnc_params *p, mmnc_int ny)
{
    if (!p) return "no parameters";
    if (p->algorithm != MMNC_ALG_NUCLEAR && p->algorithm != MMNC_ALG_FROBENIUS && p->algorithm != MMNC_ALG_INFORMATION &&
        p->algorithm != MMNC_ALG_DMM && p->algorithm != MMNC_ALG_AUTO)
        return "algorithm must be 0 (auto), 1 (Frobenius), 2 (nuclear), 3 (information) or 4 (dmm)";
    if (p->k < 1) return "k must be at least 1";
    if (p->k > ny) return "k must not exceed the number of rows";
    if (p->restarts < 1) return "restarts must be at least 1";
    if (p->init < MMNC_INIT_RANDOM || p->init > MMNC_INIT_SPECTRAL) return "init must be random, kmeans++ or spectral";
    if (p->select != MMNC_SELECT_OBJECTIVE && p->select != MMNC_SELECT_PREDICTIVE)
        return "select must be objective or predictive";
    if (!(p->select_tol >= 0.0) || !isfinite(p->select_tol)) return "select_tol must be finite and >= 0";
    if (p->refine < MMNC_REFINE_NONE || p->refine > MMNC_REFINE_CHOSEN) return "refine must be none, each or chosen";
    if (!(p->size_prior >= 0.0) || !isfinite(p->size_prior)) return "size_prior must be finite and >= 0";
    if (p->max_iter < 0) return "max_iter must be >= 0 (0 selects the default)";
    if (!(p->tol > 0.0) || !isfinite(p->tol)) return "tol must be positive";
    if (!(p->move_tol >= 0.0 && p->move_tol < 1.0)) return "move_tol must be in [0, 1)";
    if (p->merge_split < 0) return "merge_split must be >= 0";
    if (p->agreement != 0 && p->agreement != 1) return "agreement must be 0 or 1";
    if (p->moves != MMNC_MOVES_SEQUENTIAL && p->moves != MMNC_MOVES_BATCH && p->moves != MMNC_MOVES_AUTO)
        return "moves must be sequential, batch or auto";
    if (!isfinite(p->lambda) || !isfinite(p->step)) return "lambda and step must be finite";
    if (p->threads < 0) return "threads must be >= 0";
    if (!(p->dmm_beta >= 0.0) || !isfinite(p->dmm_beta)) return "dmm_beta must be finite and >= 0 (0: fitted)";
    if (p->col_clusters < 0) return "col_clusters must be >= 0 (0: no column clustering)";
    if (p->col_clusters > 0 && p->algorithm != MMNC_ALG_INFORMATION && p->algorithm != MMNC_ALG_NUCLEAR &&
        p->algorithm != MMNC_ALG_DMM && p->algorithm != MMNC_ALG_AUTO)
        return "col_clusters applies to the Dirichlet mixture, the information objective and Algorithm 2 (nuclear) only";
    if (p->col_clusters > 0 && (p->pz || p->refine != MMNC_REFINE_NONE))
        return "col_clusters: no prescribed P_Z and no refine";
    if (p->col_clusters > 0 && p->init == MMNC_INIT_SPECTRAL)
        return "col_clusters: the rows start random or k-means++, not spectral";
    if (p->col_clusters > 0 && p->moves == MMNC_MOVES_BATCH)
        return "col_clusters: the sequential moves only (moves)";
    if (p->col_clusters > 0 && p->select != MMNC_SELECT_OBJECTIVE)
        return "col_clusters: the start of best objective is kept (select objective)";
    if (p->pz) {
        double s = 0.0;
        for (mmnc_int z = 0; z < p->k; z++) {
            if (!(p->pz[z] > 0.0) || !isfinite(p->pz[z])) return "every entry of P_Z must be positive";
            s += p->pz[z];
        }
        if (fabs(s - 1.0) > 1e-6) return "P_Z must sum to 1";
    }
    if (p->fixed_label) return mmnc_i_fixed_check(p, p->fixed_label, ny, NULL);
    return NULL;
}

const char *mmnc_i_fixed_check(const mmnc_params *p, const mmnc_int *fixed, mmnc_int ny, const mmnc_pmf *dist)
{
    int64_t c[3] = {0, 0, 0}; /* free rows; clusters no row is labelled with; entries out of range */
    int64_t *used;
    if (p->col_clusters > 0) return "fixed_label: co-clustering (col_clusters > 0) takes no labels";
    if (p->algorithm == MMNC_ALG_NUCLEAR && p->pz)
        return "fixed_label: not with a prescribed P_Z for Algorithm 2 (the held rows would fix part of it)";
    if (p->algorithm == MMNC_ALG_FROBENIUS && p->exact_marginal)
        return "fixed_label: not with the exact marginal of Algorithm 1";
    /* every rank to the end, with its counts summed: the same verdict on all */
    used = mmnc_i_calloc((size_t)p->k, sizeof *used);
    for (mmnc_int y = 0; y < ny; y++) {
        if (fixed[y] < -1 || fixed[y] >= p->k) c[2]++;
        else if (fixed[y] < 0) c[0]++;
        else if (used) used[fixed[y]] = 1;
    }
    if (dist && used) mmnc_i_disum(dist, used, p->k);
    c[1] = used ? 0 : -1;
    for (mmnc_int z = 0; used && z < p->k; z++) c[1] += used[z] == 0;
    mmnc_i_free(used);
    if (dist) mmnc_i_disum(dist, c, 3);
    if (c[2] > 0) return "fixed_label: every entry must be -1 (free) or a cluster 0 .. k-1";
    if (c[1] < 0) return "fixed_label: out of memory";
    if (c[0] == 0) return "fixed_label labels every row: nothing to cluster";
    if (c[0] < c[1]) return "fixed_label: fewer free rows than clusters no row is labelled with";
    return NULL;
}

void mmnc_result_free(mmnc_result *r)
{
    if (!r) return;
    mmnc_i_free(r->label);
    mmnc_i_free(r->W);
    mmnc_stats_free(&r->stats);
    mmnc_i_free(r->restart_objective);
    mmnc_i_free(r->restart_iterations);
    mmnc_i_free(r->restart_score);
    mmnc_i_free(r->restart_alpha);
    mmnc_i_free(r->restart_init);
    mmnc_i_free(r->restart_converged);
    mmnc_i_free(r->col_label);
    mmnc_i_free(r->block_pz);
    mmnc_i_free(r->fixed);
    mmnc_i_free(r);
}

int mmnc_i_progress(const mmnc_params *prm, int restart, int iter, double objective, mmnc_err *err)
{
    if (!prm->progress || !prm->progress(prm->progress_ctx, restart, iter, objective)) return MMNC_OK;
    return mmnc_i_err(err, MMNC_ECANCELED, "stopped by the progress function (start %d, iteration %d)",
                      restart + 1, iter);
}

int mmnc_i_event(const mmnc_params *prm, int kind, int restart, int iter, int converged, const char *phase,
                 double objective, mmnc_err *err)
{
    mmnc_event ev;
    if (!prm->event) return MMNC_OK;
    ev.kind = kind;
    ev.restart = restart;
    ev.restarts = prm->restarts;
    ev.iter = iter;
    ev.max_iter = prm->max_iter;
    ev.converged = converged;
    ev.phase = phase;
    ev.objective = objective;
    if (!prm->event(prm->event_ctx, &ev)) return MMNC_OK;
    return mmnc_i_err(err, MMNC_ECANCELED, "stopped by the event function (start %d%s%s)", restart + 1,
                      phase ? ", " : "", phase ? phase : "");
}
