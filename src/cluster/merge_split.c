/*
 * merge_split.c -- the moves of the merge-split search (mmnc_params.merge_split):
 * which pair of clusters to merge, which cluster to split, and the trial
 * partition that does both.  default.c runs the trials and keeps the best.
 *
 * The single-row moves stop at a local optimum where a cluster may hold
 * two natural groups while another natural group is cut in two: no single
 * row's move undoes that.  Merging j into i (the other rows in place)
 * changes J = I(X;Z) - gamma (|Y| / nnz) H_rows(Z) by
 *
 *   g(i, j) = sum_x [(T_i + T_j) log(T_i + T_j) - T_i log T_i - T_j log T_j]
 *             - [(p_i + p_j) log(p_i + p_j) - p_i log p_i - p_j log p_j]
 *             + (gamma / nnz) [(n_i + n_j) log(n_i + n_j) - n_i log n_i - n_j log n_j]
 *
 * (T_c = P(c, x), p_c = P(c), n_c its rows: the first two lines are minus
 * (p_i + p_j) times a Jensen-Shannon divergence, the last the prior's
 * gain), and cluster s loses about its rows the information
 *
 *   D_s = P(s) I(X; Y | Z = s) = sum_{y in s} [sum_x P log P - p_y log p_y]
 *                               - [sum_x T_s log T_s - p_s log p_s].
 *
 * The pairs are ranked by g, largest first.  The trial for a pair (i, j)
 * splits s, the cluster of largest D_s other than i and j among those of
 * two rows or more: j's rows join i, and s's rows are drawn at random into
 * s and j (a fresh split, as the starts are fresh partitions; a half left
 * empty by the draws gets a row as the starts' empty clusters do).  The
 * draws are made for all ranks' rows in the order of one process from the
 * seed, the start and the trial's number, and every sum is exact and
 * collective: the same trials for any number of threads and ranks.
 * Cost: O(k^2 nx) a ranking (zero sums skipped).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/merge_split_i.h"

/* v log v for v >= 0 (0 for 0). */
static inline double xlogx(double v) { return v > 0.0 ? v * log(v) : 0.0; }

typedef struct pair_gain {
    double gain;
    mmnc_int i, j;
} pair_gain;

/* Decreasing gain, ties by (i, j). */
static int by_gain(const void *a, const void *b)
{
    const pair_gain *u = a, *v = b;
    if (u->gain != v->gain) return u->gain > v->gain ? -1 : 1;
    if (u->i != v->i) return u->i < v->i ? -1 : 1;
    return (u->j > v->j) - (u->j < v->j);
}

/* The merges' gains g (pg, best first) and the losses D of the clustering
 * whose sums are T (nx x k), pz, nc; D holds the rows' part on entry
 * (sum_{y in s} of sum_x P log P - p_y log p_y, over all ranks' rows); nz
 * and tl are k scratch.  A column adds to the pairs of clusters that both
 * have it, column by column in order (the same sums in any build): O(the
 * pairs of nonzero sums over the columns), at most O(k^2 nx). */
static void rank_pairs(mmnc_int nx, mmnc_int k, const double *T, const double *pz, const int64_t *nc,
                       double wpri, double *D, pair_gain *pg, mmnc_int *nz, double *tl)
{
    mmnc_int q = 0;
    for (mmnc_int i = 0; i < k; i++)
        for (mmnc_int j = i + 1; j < k; j++) pg[q].gain = 0.0, pg[q].i = i, pg[q].j = j, q++;
    for (mmnc_int c = 0; c < k; c++) D[c] += xlogx(pz[c]);
    for (mmnc_int x = 0; x < nx; x++) {
        const double *t = T + x * k;
        mmnc_int m = 0;
        for (mmnc_int c = 0; c < k; c++)
            if (t[c] > 0.0) {
                tl[c] = xlogx(t[c]);
                D[c] -= tl[c];
                nz[m++] = c;
            }
        for (mmnc_int a = 0; a < m; a++) {
            mmnc_int i = nz[a];
            pair_gain *row = pg + i * k - i * (i + 1) / 2 - i - 1; /* row[j] is the pair (i, j), j > i */
            for (mmnc_int b = a + 1; b < m; b++) {
                mmnc_int j = nz[b];
                row[j].gain += xlogx(t[i] + t[j]) - tl[i] - tl[j];
            }
        }
    }
    for (q = 0; q < k * (k - 1) / 2; q++) {
        mmnc_int i = pg[q].i, j = pg[q].j;
        pg[q].gain -= xlogx(pz[i] + pz[j]) - xlogx(pz[i]) - xlogx(pz[j]);
        pg[q].gain += wpri * (xlogx((double)(nc[i] + nc[j])) - xlogx((double)nc[i]) - xlogx((double)nc[j]));
    }
    qsort(pg, (size_t)q, sizeof *pg, by_gain);
}


/* The ranking of one partition (merge_split_i.h). */
struct mmnc_i_ms {
    const mmnc_pmf *p;
    mmnc_int k, npairs;
    double size_prior, wpri; /* gamma and gamma / nnz (0 without a prior) */
    int64_t nnz_all;
    double *T, *pz, *D, *rowent, *tl;
    int64_t *nc, *fix;
    mmnc_int *nz;
    pair_gain *pg;
};

int mmnc_i_ms_open(const mmnc_pmf *p, mmnc_int k, double size_prior, mmnc_i_ms **out, mmnc_err *err)
{
    const mmnc_csr *P = p->P;
    mmnc_int nx = p->nx, ny = p->ny, ny1 = ny > 0 ? ny : 1;
    mmnc_i_ms *ms = NULL;
    int status = MMNC_OK;
    *out = NULL;
    MMNC_CALLOC(ms, 1, err, status);
    ms->p = p;
    ms->k = k;
    ms->npairs = k * (k - 1) / 2;
    ms->size_prior = size_prior;
    ms->nnz_all = p->nnz;
    MMNC_ALLOC(ms->T, nx * k, err, status);
    MMNC_ALLOC(ms->pz, k, err, status);
    MMNC_ALLOC(ms->D, k, err, status);
    MMNC_ALLOC(ms->nc, k, err, status);
    MMNC_ALLOC(ms->fix, mmnc_i_fix_work(p, k), err, status);
    MMNC_ALLOC(ms->rowent, ny1, err, status);
    MMNC_ALLOC(ms->pg, ms->npairs > 0 ? ms->npairs : 1, err, status);
    MMNC_ALLOC(ms->nz, k, err, status);
    MMNC_ALLOC(ms->tl, k, err, status);
    mmnc_i_disum(p, &ms->nnz_all, 1);
    if (size_prior > 0.0 && ms->nnz_all > 0) ms->wpri = size_prior / (double)ms->nnz_all;
    for (mmnc_int y = 0; y < ny; y++) {
        double s = -xlogx(p->py[y]);
        for (mmnc_int e = P->rowptr[y]; e < P->rowptr[y + 1]; e++) s += xlogx(P->val[e]);
        ms->rowent[y] = s;
    }
    *out = ms;
    ms = NULL;
cleanup:
    mmnc_i_ms_close(ms);
    return status;
}

void mmnc_i_ms_close(mmnc_i_ms *ms)
{
    if (!ms) return;
    mmnc_i_free(ms->T);
    mmnc_i_free(ms->pz);
    mmnc_i_free(ms->D);
    mmnc_i_free(ms->fix);
    mmnc_i_free(ms->nc);
    mmnc_i_free(ms->rowent);
    mmnc_i_free(ms->pg);
    mmnc_i_free(ms->nz);
    mmnc_i_free(ms->tl);
    mmnc_i_free(ms);
}

void mmnc_i_ms_rank(mmnc_i_ms *ms, const mmnc_int *labels)
{
    const mmnc_pmf *p = ms->p;
    mmnc_int k = ms->k;
    int64_t *fix = ms->fix;
    mmnc_i_pzx_fix(p, k, labels, ms->T, ms->pz, fix);
    mmnc_i_label_counts(p, k, labels, ms->nc);
    memset(fix, 0, (size_t)k * MMNC_I_FIX_LIMBS * sizeof *fix); /* D exact, as T: the same bits on any ranks */
    for (mmnc_int y = 0; y < p->ny; y++) mmnc_i_fix_add(fix + labels[y] * MMNC_I_FIX_LIMBS, ms->rowent[y]);
    mmnc_i_disum(p, fix, k * MMNC_I_FIX_LIMBS);
    for (mmnc_int c = 0; c < k; c++) ms->D[c] = mmnc_i_fix_value(fix + c * MMNC_I_FIX_LIMBS);
    rank_pairs(p->nx, k, ms->T, ms->pz, ms->nc, ms->wpri, ms->D, ms->pg, ms->nz, ms->tl);
}

double mmnc_i_ms_objective(const mmnc_i_ms *ms)
{
    return mmnc_i_info_objective(ms->p, ms->k, ms->T, ms->pz, ms->nc, ms->size_prior, ms->nnz_all);
}

double mmnc_i_ms_information(const mmnc_i_ms *ms)
{
    return mmnc_i_info_objective(ms->p, ms->k, ms->T, ms->pz, ms->nc, 0.0, ms->nnz_all);
}

int mmnc_i_ms_pair(const mmnc_i_ms *ms, mmnc_int q, mmnc_int *i, mmnc_int *j, mmnc_int *s, double *gain)
{
    mmnc_int k = ms->k, split = -1;
    if (q >= ms->npairs) return 0;
    *i = ms->pg[q].i;
    *j = ms->pg[q].j;
    *gain = ms->pg[q].gain;
    for (mmnc_int c = 0; c < k; c++)
        if (c != *i && c != *j && ms->nc[c] >= 2 && (split < 0 || ms->D[c] > ms->D[split])) split = c;
    *s = split;
    return split >= 0; /* no cluster to split: every other one holds a single row */
}

void mmnc_i_ms_draw(const mmnc_pmf *p, mmnc_int k, uint64_t seed, int restart, int t, mmnc_int i, mmnc_int j,
                    mmnc_int s, const mmnc_int *labels, mmnc_int *lab2)
{
    mmnc_rng rng;
    mmnc_rng_seed(&rng, seed * 0x9e3779b97f4a7c15ULL + (uint64_t)restart * 0x100000001b3ULL +
                            (uint64_t)t * 0xd1b54a32d192ed03ULL + 1);
    for (mmnc_int y = 0; y < p->y0; y++) (void)mmnc_rng_below(&rng, 2);
    for (mmnc_int y = 0; y < p->ny; y++) {
        mmnc_int half = mmnc_rng_below(&rng, 2);
        lab2[y] = labels[y] == j ? i : labels[y] == s && half ? j : labels[y];
    }
    for (mmnc_int y = p->y0 + p->ny; y < p->ny_all; y++) (void)mmnc_rng_below(&rng, 2);
    mmnc_i_fill_empty(p, k, lab2, NULL, NULL, &rng); /* a half the draws left empty (collective) */
}
