/*
 * select.c -- which of mmnc_cluster's starts is returned.
 *
 * The paper keeps the start with the best objective.  The norms reward
 * isolating small, nearly disconnected groups of rows: each contributes a
 * singular value near 1 whatever its mass, so on some data the highest norm
 * is a split into one cluster with most of the mass and a few tiny ones
 * (a corpus of reviews at k = 5, for one).  The exact I(X;Z) weighs
 * clusters by mass but, with many clusters, rewards splits that fit each
 * row's own noise.  The predictive rule (MMNC_SELECT_PREDICTIVE) judges
 * every start by how well its clusters predict rows they were not fitted
 * to: the leave-one-row-out predictive information
 *
 *     G(a) = sum_{y,x} P(y,x) log( q_{-y}(x | z(y)) / P(x) ),
 *     q_{-y}(x | z) = ( P(z,x) - P(y,x) [z = z(y)] + a P(x) ) / ( P(z) - P(y) + a ),
 *
 * the average log-likelihood gain, per unit of mass (per token for counts),
 * of predicting each row's columns from the other rows of its cluster, with
 * the cluster's column distribution smoothed toward P_X by a pseudo-mass a
 * (a Dirichlet prior centred on P_X).  G = max over a on the grid
 * a = 4^g / (4 |Y|), g = 0..7, i.e. from a quarter of an average row's
 * mass to 4096 rows' worth.  A row alone in its cluster predicts nothing
 * (q = P_X, gain 0), so a cluster earns its keep only by what its rows
 * share; a split that fits the rows' own noise, or a giant cluster left
 * over beside tiny isolated ones, predicts held-out rows worse than a
 * balanced one.  G is a plug-in-free estimate of I(X;Z) (cross-validated
 * over rows), comparable across starts and cluster sizes.
 *
 * Rule: among the starts with G_i >= max_j G_j - tol |max_j G_j| keep the one
 * with the best objective (ties to the lower start).  With tol = 0 (the
 * default) that is the start of the best G; a larger tol lets the objective
 * choose among the starts that predict almost as well.  The rule looks at
 * the data only, never at labels.
 *
 * The agreement of the starts (mmnc_i_agreement, for the agreement rule of
 * default.c) is the mean adjusted Rand index over the pairs of starts'
 * partitions, rows counted alike: for a pair with contingency table n_ij,
 * row sums a_i, column sums b_j and |Y| rows,
 *
 *     ARI = (S - E) / ((A + B) / 2 - E),   S = sum_ij C(n_ij, 2),
 *     A = sum_i C(a_i, 2), B = sum_j C(b_j, 2), E = A B / C(|Y|, 2),
 *
 * 1 for the same partition (and where the denominator vanishes), about 0
 * for unrelated ones (Hubert and Arabie 1985).
 */
#include <math.h>
#include <string.h>

#include "linalg/kernel_i.h"

#define LOO_GRID 8     /* values of the pseudo-mass a */
#define LOO_BLOCK 2048 /* rows per thread's task */

/* The pseudo-mass a of grid point g: 4^g / (4 |Y|), g = 0 .. LOO_GRID - 1. */
static double loo_alpha(int g, mmnc_int ny_all) { return ldexp(1.0, 2 * g - 2) / (double)ny_all; }

int mmnc_i_loo_score(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels, double *score, double *alpha,
                     mmnc_err *err)
{
    double *T = NULL, *pz = NULL, a[LOO_GRID], tot[LOO_GRID];
    int64_t *part = NULL, *fix = NULL;
    mmnc_int ny = p->ny, nx = p->nx, nb = (ny + LOO_BLOCK - 1) / LOO_BLOCK;
    const mmnc_csr *P = p->P;
    int status = MMNC_OK, best = 0;
    MMNC_ALLOC(T, nx * k, err, status);
    MMNC_ALLOC(pz, k, err, status);
    MMNC_ALLOC(fix, mmnc_i_fix_work(p, k), err, status);
    MMNC_CALLOC(part, (nb > 0 ? nb : 1) * LOO_GRID * MMNC_I_FIX_LIMBS, err, status); /* nb = 0: zeros */
    mmnc_i_pzx_fix(p, k, labels, T, pz, fix); /* collective */
    for (int g = 0; g < LOO_GRID; g++) a[g] = loo_alpha(g, p->ny_all);
    /* each row's terms summed in its order, the rows' sums exactly (mmnc_i_fix_add): the same bits for
     * any number of threads and of ranks */
#pragma omp parallel for schedule(dynamic, 1) if (p->nnz > MMNC_I_OMP_MIN_WORK)
    for (mmnc_int b = 0; b < nb; b++) {
        double acc[LOO_GRID], dl[LOO_GRID];
        int64_t l[LOO_GRID * MMNC_I_FIX_LIMBS] = {0};
        mmnc_int y1 = (b + 1) * LOO_BLOCK < ny ? (b + 1) * LOO_BLOCK : ny;
        for (mmnc_int y = b * LOO_BLOCK; y < y1; y++) {
            mmnc_int z = labels[y];
            double rest = pz[z] - p->py[y];
            if (rest < 0.0) rest = 0.0;
            for (int g = 0; g < LOO_GRID; g++) dl[g] = log(rest + a[g]), acc[g] = 0.0;
            for (mmnc_int e = P->rowptr[y]; e < P->rowptr[y + 1]; e++) {
                mmnc_int x = P->colind[e];
                double v = P->val[e], r = (T[x * k + z] - v) / p->px[x];
                if (r < 0.0) r = 0.0; /* rounding when y holds all of P(z, x) */
                for (int g = 0; g < LOO_GRID; g++) acc[g] += v * (log(r + a[g]) - dl[g]);
            }
            for (int g = 0; g < LOO_GRID; g++) mmnc_i_fix_add(l + g * MMNC_I_FIX_LIMBS, acc[g]);
        }
        memcpy(part + b * LOO_GRID * MMNC_I_FIX_LIMBS, l, sizeof l);
    }
    for (mmnc_int b = 1; b < nb; b++)
        for (int i = 0; i < LOO_GRID * MMNC_I_FIX_LIMBS; i++) part[i] += part[b * LOO_GRID * MMNC_I_FIX_LIMBS + i];
    mmnc_i_disum(p, part, LOO_GRID * MMNC_I_FIX_LIMBS);
    for (int g = 0; g < LOO_GRID; g++) tot[g] = mmnc_i_fix_value(part + g * MMNC_I_FIX_LIMBS);
    for (int g = 1; g < LOO_GRID; g++)
        if (tot[g] > tot[best]) best = g;
    *score = tot[best];
    if (alpha) *alpha = a[best] * (double)p->ny_all; /* in average rows' worth of mass */
cleanup:
    mmnc_i_free(T);
    mmnc_i_free(pz);
    mmnc_i_free(fix);
    mmnc_i_free(part);
    return status;
}

int mmnc_i_select(int nstarts, const double *objective, const double *score, const int *ok, double tol)
{
    double gmax = -INFINITY;
    int chosen = -1;
    for (int i = 0; i < nstarts; i++)
        if (ok[i] && score[i] > gmax) gmax = score[i];
    for (int i = 0; i < nstarts; i++) {
        if (!ok[i] || score[i] < gmax - tol * fabs(gmax)) continue;
        if (chosen < 0 || objective[i] > objective[chosen]) chosen = i;
    }
    return chosen;
}

/* pairs(c) = c (c - 1) / 2, exact in int64 for any count of rows. */
static int64_t pairs(int64_t c) { return c / 2 * (c - 1) + (c % 2) * ((c - 1) / 2); }

#define AGREEMENT_TABLE (1 << 22) /* entries of a pair's table counted at a time */

int mmnc_i_agreement(const mmnc_pmf *p, mmnc_int k, int n, const int32_t *parts, double *mean_ari, mmnc_err *err)
{
    mmnc_int ny = p->ny, band = k > 0 && AGREEMENT_TABLE / k > 0 ? AGREEMENT_TABLE / k : 1;
    int64_t *count = NULL, *tab = NULL, total = 0, *side = NULL;
    double sum = 0.0;
    int status = MMNC_OK;
    if (band > k) band = k;
    MMNC_CALLOC(count, (mmnc_int)n * k, err, status);
    MMNC_ALLOC(side, n, err, status);
    MMNC_ALLOC(tab, band * k, err, status);
    for (int i = 0; i < n; i++)
        for (mmnc_int y = 0; y < ny; y++) count[(mmnc_int)i * k + parts[(mmnc_int)i * ny + y]]++;
    mmnc_i_disum(p, count, (mmnc_int)n * k);
    for (mmnc_int z = 0; z < k; z++) total += count[z];
    for (int i = 0; i < n; i++) { /* sum over clusters of pairs of rows in one cluster */
        side[i] = 0;
        for (mmnc_int z = 0; z < k; z++) side[i] += pairs(count[(mmnc_int)i * k + z]);
    }
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            const int32_t *pa = parts + (mmnc_int)a * ny, *pb = parts + (mmnc_int)b * ny;
            int64_t same = 0; /* pairs of rows together in both */
            double expect, top;
            for (mmnc_int z0 = 0; z0 < k; z0 += band) { /* the table's rows z0 .. z0 + band - 1 */
                mmnc_int nb = k - z0 < band ? k - z0 : band;
                memset(tab, 0, (size_t)(nb * k) * sizeof *tab);
                for (mmnc_int y = 0; y < ny; y++)
                    if (pa[y] >= z0 && pa[y] < z0 + nb) tab[(pa[y] - z0) * k + pb[y]]++;
                mmnc_i_disum(p, tab, nb * k);
                for (mmnc_int e = 0; e < nb * k; e++) same += pairs(tab[e]);
            }
            expect = total > 1 ? (double)side[a] * (double)side[b] / (double)pairs(total) : 0.0;
            top = 0.5 * ((double)side[a] + (double)side[b]);
            sum += top == expect ? 1.0 : ((double)same - expect) / (top - expect);
        }
    *mean_ari = sum / ((double)n * (n - 1) / 2.0);
cleanup:
    mmnc_i_free(count);
    mmnc_i_free(side);
    mmnc_i_free(tab);
    return status;
}
