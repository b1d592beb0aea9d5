/*
 * information.c -- the information objective and the sweeps that raise it.
 *
 *   maximise    J = I(X;Z) - gamma (|Y| / nnz) H_rows(Z),
 *               I(X;Z) = sum_{z,x} P(z,x) log( P(z,x) / (P(z) P(x)) ),
 *               H_rows(Z) = - sum_z (n_z / |Y|) log(n_z / |Y|), n_z = rows in z
 *   over        hard W = P_{Z|Y} (each row in one cluster), P(z,x) = (W P_{Y,X})_{zx}
 *
 * gamma = mmnc_params.size_prior (0: I(X;Z) alone).  For counts with N
 * tokens, N I(X;Z) - |Y| H_rows(Z) is the classification log-likelihood of
 * a mixture of multinomials up to a constant (the second term: which
 * cluster a row belongs to); gamma (|Y| / nnz) weighs the sizes with a
 * row's evidence counted in distinct columns over gamma, which does not
 * depend on the scale of the values (docs/default.md derives it).
 *
 * This is the objective of the sequential information bottleneck (Slonim,
 * Friedman, Tishby, SIGIR 2002) and of the row half of information-
 * theoretic co-clustering (Dhillon, Mallela, Modha, KDD 2003); it is the
 * exact form of the paper's local approximation
 * I(X;Z) ~ (||B_{Z,X}||_F^2 - 1) / 2 (Qiu, Makur, Zheng 2018, Prop. 2).
 * Unlike the norms, it weighs each cluster by its mass, so it does not
 * reward splitting off tiny, nearly disconnected groups of rows.
 *
 * The single-row moves that raise it are moves.c's; here are the exact J,
 * the sweeps of one phase (the moves of one objective until they settle)
 * and the polish.  Within a phase J never decreases.  With
 * mmnc_params.moves = MMNC_MOVES_BATCH a phase first makes batch passes
 * (moves.c, "Batch steps"), each kept only if it raises the exact J.  The default's
 * starts, guard and chain that use them are default.c's.
 */
#include <math.h>
#include <string.h>

#include "cluster/moves_i.h"
#include "cluster/trace_i.h"

/* v log v for v >= 0 (0 for 0). */
static inline double xlogx(double v) { return v > 0.0 ? v * log(v) : 0.0; }

/* - size_prior (|Y| / nnz) H_rows(Z), the prior's term of J (0 without a
 * prior), summed exactly. */
static double prior_term(const mmnc_pmf *p, mmnc_int k, const int64_t *nc, double size_prior, int64_t nnz_all)
{
    double n = (double)p->ny_all;
    int64_t h[MMNC_I_FIX_LIMBS] = {0};
    if (!(size_prior > 0.0) || nnz_all <= 0) return 0.0;
    for (mmnc_int c = 0; c < k; c++)
        if (nc[c] > 0) mmnc_i_fix_add(h, (double)nc[c] / n * log((double)nc[c] / n));
    return size_prior * n / (double)nnz_all * mmnc_i_fix_value(h);
}

/* J = I(X;Z) - size_prior (|Y| / nnz) H_rows(Z) (= I(X;Z) without a prior),
 * summed exactly: the J that compares starts and trials, the same bits for
 * a partition however its clusters are numbered, and for any number of
 * ranks. */
double mmnc_i_info_objective(const mmnc_pmf *p, mmnc_int k, const double *T, const double *pz, const int64_t *nc,
                             double size_prior, int64_t nnz_all)
{
    return mmnc_i_mutual_info(p, k, T, pz) + prior_term(p, k, nc, size_prior, nnz_all);
}

/* J as shown after every sweep (the progress function, MMNC_TRACE_SWEEPS),
 * from the sum of the table the moves keep, BL = T log T (made at each
 * refresh and updated by each move): I(X;Z) = sum BL - sum_z P(z) log
 * P(z) - sum_x P(x) log P(x) (hx, the last sum), since T's rows sum to P_Z
 * and its columns to P_X.  O(k) where the exact objective makes k |X|
 * logarithms; its value up to roundings. */
static double shown_objective(const mmnc_pmf *p, mmnc_int k, const mmnc_i_moves *m, double size_prior)
{
    const double *pz = mmnc_i_moves_pz(m);
    double s = mmnc_i_moves_blsum(m) - mmnc_i_moves_hx(m);
    for (mmnc_int c = 0; c < k; c++) s -= xlogx(pz[c]);
    return s + prior_term(p, k, mmnc_i_moves_nc(m), size_prior, mmnc_i_moves_nnz(m));
}

/* The batch phase of mmnc_params.moves = MMNC_MOVES_BATCH, before a phase's
 * sequential sweeps: batch steps (moves.c, "Batch steps": J never falls in
 * exact arithmetic) while each raises the exact J and moves at least `few`
 * rows (and one), each counted as a sweep in *it.  A step that does not
 * raise J (roundings, or moves that gain nothing) is undone (the sums
 * then made afresh) and ends the phase, so J rises strictly across kept
 * steps and the phase ends.  J is the exact sum over the sums the moves
 * keep, the same bits for any number of threads and ranks.  Collective. */
static int batch_phase(mmnc_i_moves *m, const mmnc_params *prm, int restart, int polish, int phase, double gamma,
                       double few, mmnc_int *labels, int *it, mmnc_i_run *run, mmnc_err *err)
{
    const mmnc_pmf *p = mmnc_i_moves_p(m);
    mmnc_int k = prm->k, ny = p->ny;
    int64_t nnz_all = mmnc_i_moves_nnz(m);
    mmnc_int *prev = NULL;
    double j0, j1;
    int status = MMNC_OK;
    (void)polish, (void)phase;
    prev = mmnc_i_malloc((size_t)(ny > 0 ? ny : 1), sizeof *prev);
    if ((status = mmnc_i_agree(p->dist, prev ? MMNC_OK : mmnc_i_err(err, MMNC_ENOMEM, "out of memory"), err)) !=
        MMNC_OK)
        goto done;
    j0 = mmnc_i_info_objective(p, k, mmnc_i_moves_T(m), mmnc_i_moves_pz(m), mmnc_i_moves_nc(m), gamma, nnz_all);
    while (*it < prm->max_iter) {
        int64_t moved;
        memcpy(prev, labels, (size_t)ny * sizeof *prev);
        moved = mmnc_i_moves_batch(m, labels, &status, err);
        if (status != MMNC_OK) goto done;
        if (moved == 0) break;
        j1 = mmnc_i_info_objective(p, k, mmnc_i_moves_T(m), mmnc_i_moves_pz(m), mmnc_i_moves_nc(m), gamma, nnz_all);
        if (!(j1 > j0)) { /* no rise: undo the step, and the sequential moves go on from before it */
            memcpy(labels, prev, (size_t)ny * sizeof *prev);
            mmnc_i_moves_refresh(m, labels);
            break;
        }
        j0 = j1;
        run->iterations = ++*it;
        TRACE_SWEEP(restart, polish, phase, *it - 1, moved, j1);
        if (prm->progress && (status = mmnc_i_progress(prm, restart, *it, j1, err)) != MMNC_OK) goto done;
        if ((double)moved < few) break;
    }
done:
    mmnc_i_free(prev);
    return status;
}

int mmnc_i_info_sweeps(mmnc_i_moves *m, const mmnc_params *prm, int restart, int polish, int phase, double gamma,
                       double few, mmnc_int *labels, int *it, mmnc_i_run *run, int *settled, mmnc_err *err)
{
    const mmnc_pmf *p = mmnc_i_moves_p(m);
    mmnc_int k = prm->k;
    int64_t nnz_all = mmnc_i_moves_nnz(m);
    int status = MMNC_OK;
    mmnc_i_moves_weight(m, gamma > 0.0 && nnz_all > 0 ? gamma / (double)nnz_all : 0.0);
    run->converged = 0;
    if (prm->moves == MMNC_MOVES_BATCH &&
        (status = batch_phase(m, prm, restart, polish, phase, gamma, few, labels, it, run, err)) != MMNC_OK)
        return status;
    for (; *it < prm->max_iter; (*it)++) {
        int64_t moved = mmnc_i_moves_sweep(m, labels, &status, err);
        if (status != MMNC_OK) return status;
        run->iterations = *it + 1;
        TRACE_SWEEP(restart, polish, phase, *it, moved, shown_objective(p, k, m, gamma));
        if (prm->progress &&
            (status = mmnc_i_progress(prm, restart, *it + 1, shown_objective(p, k, m, gamma), err)) != MMNC_OK)
            return status;
        *settled = moved == 0;
        if (moved == 0 || (double)moved < few) {
            run->converged = 1;
            (*it)++;
            break;
        }
    }
    return MMNC_OK;
}

int mmnc_i_information(const mmnc_pmf *p, const mmnc_params *prm, const mmnc_i_tuning *tune, int restart, int prior,
                       mmnc_int *labels, double *W, mmnc_i_run *run, mmnc_err *err)
{
    mmnc_int k = prm->k, ny = p->ny;
    mmnc_i_moves *m = NULL;
    double gamma = prior ? prm->size_prior : 0.0;
    int status, it = 0, settled = 0;
#ifdef MMNC_TRACE_SWEEPS
    int track = 1;
#else
    int track = prm->progress != NULL;
#endif
    run->iterations = 0;
    run->converged = 0;
    run->prior_kept = prm->size_prior > 0.0 ? prior : -1;
    run->prior_why = 0;
    if ((status = mmnc_i_moves_open(p, k, prm->seed, restart, W, track, tune, &m, err)) != MMNC_OK) return status;
    mmnc_i_moves_hold(m, prm->fixed_label);
    mmnc_i_moves_refresh(m, labels);
    status = mmnc_i_info_sweeps(m, prm, restart, prior, 1, gamma, 0.0, labels, &it, run, &settled, err);
    if (status == MMNC_OK) {
        int64_t pruned, decided, exact;
        mmnc_i_moves_refresh(m, labels); /* fresh sums for the objective: no drift in what is reported */
        run->objective = mmnc_i_info_objective(p, k, mmnc_i_moves_T(m), mmnc_i_moves_pz(m), mmnc_i_moves_nc(m),
                                               prm->size_prior, mmnc_i_moves_nnz(m));
        mmnc_i_moves_counts(m, &pruned, &decided, &exact);
        TRACE_COSTS(restart, prior, decided, exact, pruned);
        memset(W, 0, (size_t)(ny * k) * sizeof(double));
        for (mmnc_int y = 0; y < ny; y++) W[y * k + labels[y]] = 1.0;
    }
    mmnc_i_moves_close(m);
    return status;
}
