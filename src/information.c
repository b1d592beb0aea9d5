/*
 * information.c -- the information objective: hard clusterings that
 * maximise the exact mutual information, by sequential single-row moves.
 *
 *   maximise    I(X;Z) = sum_{z,x} P(z,x) log( P(z,x) / (P(z) P(x)) )
 *   over        hard W = P_{Z|Y} (each row in one cluster), P(z,x) = (W P_{Y,X})_{zx}
 *
 * This is the objective of the sequential information bottleneck (Slonim,
 * Friedman, Tishby, SIGIR 2002) and of the row half of information-
 * theoretic co-clustering (Dhillon, Mallela, Modha, KDD 2003); it is the
 * exact form of the paper's local approximation
 * I(X;Z) ~ (||B_{Z,X}||_F^2 - 1) / 2 (Qiu, Makur, Zheng 2018, Prop. 2).
 * Unlike the norms, it weighs each cluster by its mass, so it does not
 * reward splitting off tiny, nearly disconnected groups of rows.
 *
 * A move takes row y out of its cluster c0 and merges it into the cluster
 * c that loses the least information by the merge:
 *
 *   d(y, c) = sum_x [ a_x log a_x + b_x log b_x - (a_x + b_x) log(a_x + b_x) ]
 *             + (p_y + p_c) log(p_y + p_c) - p_y log p_y - p_c log p_c,
 *
 * a_x = P(y,x), b_x = P(c,x) without y, p_c = P(c) without y: d(y, c) is
 * (p_y + p_c) times the Jensen-Shannon divergence of P(x|y) and P(x|c)
 * with weights proportional to p_y, p_c, and I(X;Z) after the move is
 * I(X;Z without y) - d(y, c).  So moving y to the c of least d never
 * lowers I(X;Z): it rises by d(y, c0) - d(y, c).  A column with b_x = 0
 * contributes a_x log a_x - a_x log a_x = 0 to the bracket, so only the
 * row's own columns are read: O(nnz(y) k) per row, O(nnz k) per sweep.
 *
 * Details.  A sweep visits the rows in an order drawn once per start from
 * the seed (the order matters: rows stored by class, as in many corpora,
 * visited in storage order do worse); a row moves only if it gains more than 1e-12 of the
 * cost (ties keep it), and a row alone in its cluster stays, so no cluster
 * empties.  Sweeps stop when no row moved or after max_iter sweeps.  The
 * moves are sequential (each sees the previous ones), so a sweep runs on
 * one thread and the result does not depend on the number of threads.  In
 * a distributed run the ranks take turns, each sweeping its rows in an order
 * drawn from the seed and its first row, the cluster sums made afresh
 * (summed across ranks) before the next rank's turn: deterministic for a
 * given number of ranks, but not the sequence of moves of one process, so
 * the refined clusterings of different rank counts are equally good local
 * optima, not the same one.  The
 * sums are also made afresh before every sweep, so that the incremental
 * updates never drift.
 */
#include <math.h>
#include <string.h>

#include "solver_i.h"

static inline double xlogx(double v) { return v > 0.0 ? v * log(v) : 0.0; }

/* Sweep this rank's rows in the order `order`; T, BL (b log b) and pz are
 * the cluster sums (including every row), updated move by move.  Returns
 * the number of moves. */
static mmnc_int sweep(const mmnc_pmf *p, mmnc_int k, const mmnc_int *order, mmnc_int *labels, double *T,
                      double *BL, double *pz, double *cost)
{
    const mmnc_csr *P = p->P;
    mmnc_int moved = 0;
    for (mmnc_int i = 0; i < p->ny; i++) {
        mmnc_int y = order[i], c0 = labels[y], c1, e0 = P->rowptr[y], e1 = P->rowptr[y + 1];
        double py = p->py[y], pc0;
        int alone;
        for (mmnc_int c = 0; c < k; c++) cost[c] = 0.0;
        /* y drawn out of c0: its b_x and p_c are T - a and pz - py */
        pc0 = pz[c0] - py;
        alone = !(pc0 > 1e-15 * pz[c0]);
        if (alone) continue;
        for (mmnc_int e = e0; e < e1; e++) {
            mmnc_int x = P->colind[e];
            double a = P->val[e];
            const double *t = T + x * k, *bl = BL + x * k;
            for (mmnc_int c = 0; c < k; c++) {
                double b = t[c], blog = bl[c];
                if (c == c0) {
                    b -= a;
                    if (b < 0.0) b = 0.0;
                    blog = xlogx(b);
                }
                if (b > 0.0) cost[c] += blog - xlogx(a + b);
                else cost[c] -= xlogx(a);
            }
        }
        for (mmnc_int c = 0; c < k; c++) {
            double pc = c == c0 ? pc0 : pz[c];
            cost[c] += xlogx(py + pc) - xlogx(pc);
        }
        c1 = c0;
        for (mmnc_int c = 0; c < k; c++)
            if (cost[c] < cost[c1]) c1 = c;
        if (c1 == c0 || !(cost[c1] < cost[c0] - 1e-12 * fabs(cost[c0]))) continue;
        for (mmnc_int e = e0; e < e1; e++) {
            mmnc_int x = P->colind[e];
            double a = P->val[e], *t = T + x * k, *bl = BL + x * k;
            t[c0] -= a;
            if (t[c0] < 0.0) t[c0] = 0.0;
            t[c1] += a;
            bl[c0] = xlogx(t[c0]);
            bl[c1] = xlogx(t[c1]);
        }
        pz[c0] = pc0;
        pz[c1] += py;
        labels[y] = c1;
        moved++;
    }
    return moved;
}

/* T = P_{Z,X}^T, pz and BL = T log T afresh from the labels (collective). */
static void refresh(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels, double *T, double *BL, double *pz)
{
    mmnc_i_pzx(p, k, labels, NULL, T);
    mmnc_i_pz(p, k, labels, NULL, pz);
#pragma omp parallel for schedule(static) if (p->nx * k > 100000)
    for (mmnc_int i = 0; i < p->nx * k; i++) BL[i] = xlogx(T[i]);
}

int mmnc_i_information(const mmnc_pmf *p, const mmnc_params *prm, int restart, mmnc_int *labels, double *W,
                       mmnc_i_run *run, mmnc_err *err)
{
    mmnc_int k = prm->k, ny = p->ny, nx = p->nx, *order = NULL;
    mmnc_i_rng rng;
    double *T = NULL, *BL = NULL, *pz = NULL, *cost = NULL;
    int status = MMNC_OK;
    MMNC_ALLOC(T, nx * k, err, status);
    MMNC_ALLOC(BL, nx * k, err, status);
    MMNC_ALLOC(pz, k, err, status);
    MMNC_ALLOC(cost, k, err, status);
    MMNC_ALLOC(order, ny > 0 ? ny : 1, err, status);
    /* the order of the visits: drawn from the seed, the start and (distributed) the first row */
    mmnc_i_rng_seed(&rng, (prm->seed * 0x2545f4914f6cdd1dULL + (uint64_t)restart) ^ ((uint64_t)p->y0 << 32));
    for (mmnc_int y = 0; y < ny; y++) order[y] = y;
    for (mmnc_int y = ny - 1; y > 0; y--) { /* Fisher-Yates */
        mmnc_int j = mmnc_i_rng_below(&rng, y + 1), t = order[y];
        order[y] = order[j];
        order[j] = t;
    }
    run->iterations = 0;
    run->converged = 0;
    for (int it = 0; it < prm->max_iter; it++) {
        int64_t moved = 0;
        /* fresh sums each sweep: no drift from the incremental updates */
        refresh(p, k, labels, T, BL, pz);
        if (!mmnc_i_distributed(p)) {
            moved = sweep(p, k, order, labels, T, BL, pz, cost);
        } else {
            /* the ranks in turn, each seeing the moves of those before it */
            for (int r = 0; r < p->dist->size; r++) {
                if (p->dist->rank == r) moved = sweep(p, k, order, labels, T, BL, pz, cost);
                refresh(p, k, labels, T, BL, pz);
            }
            mmnc_i_disum(p, &moved, 1);
        }
        run->iterations = it + 1;
        if (prm->progress) {
            refresh(p, k, labels, T, BL, pz);
            prm->progress(prm->progress_ctx, restart, it + 1, mmnc_i_mutual_info(p, k, T, pz));
        }
        if (moved == 0) {
            run->converged = 1;
            break;
        }
    }
    refresh(p, k, labels, T, BL, pz);
    run->objective = mmnc_i_mutual_info(p, k, T, pz);
    memset(W, 0, (size_t)(ny * k) * sizeof(double));
    for (mmnc_int y = 0; y < ny; y++) W[y * k + labels[y]] = 1.0;
cleanup:
    mmnc_i_free(T);
    mmnc_i_free(BL);
    mmnc_i_free(pz);
    mmnc_i_free(cost);
    mmnc_i_free(order);
    return status;
}
