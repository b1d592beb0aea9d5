/*
 * seeded.c -- the starts of a semi-supervised run (mmnc_params.fixed_label):
 * the labelled ("held") rows start at their labels and the free rows are
 * placed around them.
 *
 * Start 0 is seeded k-means (Basu, Banerjee, Mooney 2002) in the geometry of
 * the information objective: cluster z's centre is the column distribution
 * of the rows labelled z, interpolated with the corpus's (Jelinek-Mercer),
 *
 *     q(x|z) = l T(x,z) / P(z) + (1 - l) P(x),   T(x,z) = sum_{y labelled z} P(y,x),
 *
 * the same weight l for every cluster (a smoothing in mass units, a P(x)
 * added to T, would give the clusters of few labelled rows a larger share
 * of P(x), and they would draw every plain row), and each free row y joins
 * the cluster with labelled rows that maximises
 *
 *     sum_x P(y,x) log q(x|z) + log(n_z + 1) / N     (smallest z on ties),
 *
 * n_z the rows labelled z and N the total of the input values: in counts,
 * sum_x N(y,x) log q(x|z) + log(n_z + 1), the posterior of a multinomial
 * naive Bayes classifier of the free rows, trained on the labelled ones,
 * its prior of cluster z at Laplace's estimate (n_z + 1) / (n + k).  The
 * weight l is the labelled rows' own choice among MMNC_I_SEMI_CENTRES
 * (0.5, 0.8, 0.95): the one under which most held rows are predicted at
 * their label when each is left out of its centre and count in turn (the
 * smaller l on ties, and the smallest without a held row).  How much a
 * centre should lean on its few labelled rows depends on the data (rows of
 * a dozen words in 65 classes want little smoothing, chapters of novels by
 * the same authors much), and the held rows are the only evidence of it.
 * A cluster no row is labelled with gets a seed as k-means++ would draw
 * it: a free row, with probability proportional to P(y) KL(P_{X|y} ||
 * nearest centre so far); the seed is its cluster's only row in this start
 * (the moves let it grow).  Clusters are seeded in increasing order.
 *
 * Starts 1, 2, ...: the start the run's init gives for all rows
 * (mmnc_i_init_labels), its clusters then renumbered to agree with the
 * labels by a greedy maximum matching on the overlaps n(c, z) (the held
 * rows labelled z that fell in cluster c): the largest n(c, z) first (ties
 * to the lower c, then z), each c and z matched once; clusters left
 * unmatched take the labels left, in increasing order.  Then the held rows
 * go back to their labels, and a cluster that this left empty gets a free
 * row (mmnc_i_fill_empty: the first free row, in row order, of a cluster
 * of two rows or more).
 *
 * Every sum is exact (mmnc_i_pzx_fix) or made row by row, and the draws
 * are those of one process over all ranks' rows: the same labels for any
 * number of threads and ranks.  Time for start 0: O(nnz k + |X| k) for the
 * first scoring of the free rows and the last, and O(nnz + |X| k) for each
 * cluster seeded (its centre made again, each free row scored against the
 * new centre alone); the weight's choice one centre update and three
 * scorings of the held rows; O(k^2 log k) the matching.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/solver_i.h"

/* log q(x|z) (nx x k) at weight l from the sums T (nx x (k+1)) and pz
 * (k+1) of mmnc_i_pzx_fix; only the columns with use[x] (all if NULL). */
static void fill_logq(const mmnc_pmf *p, mmnc_int k, const double *T, const double *pz, double l,
                      const unsigned char *use, double *logq)
{
    mmnc_int k1 = k + 1;
#pragma omp parallel for schedule(static) if (p->nx * k > MMNC_I_OMP_MIN_WORK)
    for (mmnc_int x = 0; x < p->nx; x++) {
        if (use && !use[x]) continue;
        for (mmnc_int z = 0; z < k; z++) {
            double v = pz[z] > 0.0 ? l * T[x * k1 + z] / pz[z] + (1.0 - l) * p->px[x] : p->px[x];
            logq[x * k + z] = v > 0.0 ? log(v) : -HUGE_VAL;
        }
    }
}

/* log q(x|z) (nx x k) at weight l and each cluster's labelled mass, from
 * labels lab in 0..k (k: no centre yet; collective).  T (nx x (k+1)), pz
 * (k+1) and work are scratch. */
static void centres(const mmnc_pmf *p, mmnc_int k, const mmnc_int *lab, double l, double *T, double *pz,
                    int64_t *work, double *logq)
{
    mmnc_i_pzx_fix(p, k + 1, lab, T, pz, work);
    fill_logq(p, k, T, pz, l, NULL, logq);
}

/* sum_x P(y,x) log q(x|z): row y's score against centre z. */
static double row_score(const mmnc_csr *P, mmnc_int k, mmnc_int y, const double *logq, mmnc_int z)
{
    double s = 0.0;
    for (mmnc_int e = P->rowptr[y]; e < P->rowptr[y + 1]; e++) s += P->val[e] * logq[P->colind[e] * k + z];
    return s;
}

/* The classifier's log prior of each cluster in the units of row_score:
 * lp[z] = log(n[z] + 1) / N, n[z] the rows the cluster holds and N the
 * total of p's values (P(y,x) N is the value of cell (y,x), a count where
 * the input is counts).  (n[z] + 1) / (n + k) is Laplace's estimate of the
 * cluster's share; its denominator, the same for every z, is left out. */
static void log_prior(const mmnc_pmf *p, mmnc_int k, const int64_t *n, double *lp)
{
    for (mmnc_int z = 0; z < k; z++) lp[z] = log((double)n[z] + 1.0) / p->total;
}

/* Row y's best centre among the clusters with have[z] (argmax of
 * row_score plus lp[z] where lp is not NULL, smallest z on ties) and that
 * score. */
static mmnc_int best_centre(const mmnc_pmf *p, mmnc_int k, mmnc_int y, const double *logq, const int64_t *have,
                            const double *lp, double *score)
{
    mmnc_int best = -1;
    double bs = -HUGE_VAL;
    for (mmnc_int z = 0; z < k; z++) {
        double s;
        if (!have[z]) continue;
        s = row_score(p->P, k, y, logq, z) + (lp ? lp[z] : 0.0);
        if (best < 0 || s > bs) best = z, bs = s;
    }
    *score = bs;
    return best;
}

/* The centre weight l of the held rows' choice (above): for each l of the
 * grid, each held row is predicted with its own counts taken out of its
 * cluster's centre (leave-one-out; a row alone in its cluster has no
 * centre there), and the l with the most rows at their label is kept.
 * lab (ny), use (nx) and cnt (k + 1) are scratch, the others as for
 * centres.  Collective. */
static double centre_weight(const mmnc_pmf *p, mmnc_int k, const mmnc_int *fixed, mmnc_int *lab, unsigned char *use,
                            int64_t *cnt, double *T, double *pz, int64_t *work, double *logq)
{
    static const double grid[] = MMNC_I_SEMI_CENTRES;
    enum { NW = sizeof grid / sizeof *grid };
    const mmnc_csr *P = p->P;
    mmnc_int ny = p->ny, k1 = k + 1;
    int64_t hits[NW];
    int best = 0;
    memset(hits, 0, sizeof hits);
    memset(use, 0, (size_t)p->nx);
    for (mmnc_int y = 0; y < ny; y++) {
        lab[y] = fixed[y] >= 0 ? fixed[y] : k;
        if (fixed[y] >= 0)
            for (mmnc_int e = P->rowptr[y]; e < P->rowptr[y + 1]; e++) use[P->colind[e]] = 1;
    }
    mmnc_i_pzx_fix(p, k1, lab, T, pz, work);
    mmnc_i_label_counts(p, k1, lab, cnt);
    for (int w = 0; w < NW; w++) {
        double l = grid[w];
        int64_t h = 0;
        fill_logq(p, k, T, pz, l, use, logq);
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : h) if (p->nnz * k > MMNC_I_OMP_MIN_WORK)
        for (mmnc_int y = 0; y < ny; y++) {
            mmnc_int c = fixed[y], bz = -1;
            double bs = -HUGE_VAL, rest;
            if (c < 0) continue;
            rest = pz[c] - p->py[y];
            for (mmnc_int z = 0; z < k; z++) {
                double sc = 0.0;
                if (!cnt[z] || (z == c && cnt[z] == 1)) continue;
                if (z == c)
                    for (mmnc_int e = P->rowptr[y]; e < P->rowptr[y + 1]; e++) {
                        mmnc_int x = P->colind[e];
                        double t = T[x * k1 + c] - P->val[e];
                        sc += P->val[e] * log(l * (t > 0.0 ? t : 0.0) / rest + (1.0 - l) * p->px[x]);
                    }
                else
                    sc = row_score(P, k, y, logq, z);
                sc += log((double)(cnt[z] - (z == c)) + 1.0) / p->total; /* log_prior without row y */
                if (bz < 0 || sc > bs) bz = z, bs = sc;
            }
            h += bz == c;
        }
        hits[w] = h;
    }
    mmnc_i_disum(p, hits, NW);
    for (int w = 1; w < NW; w++)
        if (hits[w] > hits[best]) best = w;
    return grid[best];
}

/* Start 0: seeded k-means from the held rows (above). */
static int seeded_kmeans(const mmnc_pmf *p, mmnc_int k, const mmnc_int *fixed, mmnc_rng *rng, mmnc_int *labels,
                         mmnc_err *err)
{
    const mmnc_csr *P = p->P;
    mmnc_int ny = p->ny, nx = p->nx, ny1 = ny > 0 ? ny : 1;
    double *T = NULL, *pz = NULL, *logq = NULL, *w = NULL, *rowent = NULL, *near = NULL, *lp = NULL, l;
    int64_t *work = NULL, *have = NULL, *held = NULL;
    mmnc_int *cl = NULL;
    unsigned char *use = NULL;
    int status = MMNC_OK;
    MMNC_ALLOC(T, nx * (k + 1), err, status);
    MMNC_ALLOC(pz, k + 1, err, status);
    MMNC_ALLOC(logq, nx * k, err, status);
    MMNC_ALLOC(w, ny1, err, status);
    MMNC_ALLOC(rowent, ny1, err, status);
    MMNC_ALLOC(near, ny1, err, status);
    MMNC_ALLOC(lp, k > 0 ? k : 1, err, status);
    MMNC_ALLOC(work, mmnc_i_fix_work(p, k + 1), err, status);
    MMNC_ALLOC(have, k + 1, err, status);
    MMNC_ALLOC(held, k + 1, err, status);
    MMNC_ALLOC(cl, ny1, err, status);
    MMNC_ALLOC(use, nx > 0 ? nx : 1, err, status);
    l = centre_weight(p, k, fixed, cl, use, have, T, pz, work, logq);
    /* the held rows at their labels, the free ones nowhere (cluster k) */
    for (mmnc_int y = 0; y < ny; y++) labels[y] = fixed[y] >= 0 ? fixed[y] : k;
    mmnc_i_label_counts(p, k + 1, labels, have);
    memcpy(held, have, (size_t)k * sizeof(int64_t));
    for (mmnc_int y = 0; y < ny; y++) { /* sum_x P(y,x) log P(x|y) */
        double s = 0.0;
        for (mmnc_int e = P->rowptr[y]; e < P->rowptr[y + 1]; e++) s += P->val[e] * log(P->val[e] / p->py[y]);
        rowent[y] = s;
    }
    for (mmnc_int z = 0, last = -1; z < k; z++) {
        int64_t g;
        if (have[z]) continue;
        /* k-means++: a free row, with weight P(y) KL(P_{X|y} || its nearest centre); the tiny floor lets a
         * draw among free rows happen when every weight is 0.  A seed changes only its own cluster's
         * centre, so a row's best score so far (near) is compared with the last seed's alone. */
        centres(p, k, labels, l, T, pz, work, logq);
#pragma omp parallel for schedule(dynamic, 256) if (p->nnz * k > MMNC_I_OMP_MIN_WORK)
        for (mmnc_int y = 0; y < ny; y++) {
            double s, d;
            w[y] = 0.0;
            if (labels[y] != k) continue;
            if (last < 0) {
                (void)best_centre(p, k, y, logq, have, NULL, &near[y]);
            } else {
                s = row_score(P, k, y, logq, last);
                if (s > near[y]) near[y] = s;
            }
            d = rowent[y] - near[y];
            w[y] = (d > 0.0 ? d : 0.0) + 1e-300;
        }
        if ((g = mmnc_i_draw_row(p, w, rng, err)) < 0) {
            status = MMNC_ENOMEM;
            goto cleanup;
        }
        if (g >= p->y0 && g < p->y0 + ny) labels[g - p->y0] = z;
        have[z] = 1;
        last = z;
    }
    centres(p, k, labels, l, T, pz, work, logq);
    {
        const int64_t *to = held; /* no row held at all (a fold of the rule's cross-validation): the seeds */
        mmnc_int nheld = 0;
        for (mmnc_int z = 0; z < k; z++) nheld += held[z] > 0;
        if (nheld == 0) to = have;
        log_prior(p, k, to, lp);
#pragma omp parallel for schedule(dynamic, 256) if (p->nnz * k > MMNC_I_OMP_MIN_WORK)
        for (mmnc_int y = 0; y < ny; y++) {
            double s;
            if (labels[y] == k) labels[y] = best_centre(p, k, y, logq, to, lp, &s);
        }
    }
cleanup:
    mmnc_i_free(T);
    mmnc_i_free(pz);
    mmnc_i_free(logq);
    mmnc_i_free(w);
    mmnc_i_free(rowent);
    mmnc_i_free(near);
    mmnc_i_free(lp);
    mmnc_i_free(work);
    mmnc_i_free(have);
    mmnc_i_free(held);
    mmnc_i_free(cl);
    mmnc_i_free(use);
    return status;
}

typedef struct overlap {
    int64_t n;
    mmnc_int c, z;
} overlap;

/* Larger overlap first, then lower c, then lower z. */
static int by_overlap(const void *a, const void *b)
{
    const overlap *u = a, *v = b;
    if (u->n != v->n) return u->n > v->n ? -1 : 1;
    if (u->c != v->c) return u->c < v->c ? -1 : 1;
    return (u->z > v->z) - (u->z < v->z);
}

/* Starts 1, 2, ...: renumber labels to agree with the held rows, then put
 * them back at their labels (above).  Collective. */
static int matched(const mmnc_pmf *p, mmnc_int k, const mmnc_int *fixed, mmnc_int *labels, mmnc_err *err)
{
    mmnc_int ny = p->ny, *perm = NULL, *used = NULL, next = 0;
    int64_t *n = NULL;
    overlap *ov = NULL;
    double *score = NULL;
    int status = MMNC_OK;
    MMNC_CALLOC(n, k * k, err, status);
    MMNC_ALLOC(ov, k * k, err, status);
    MMNC_ALLOC(perm, k, err, status);
    MMNC_CALLOC(used, k, err, status);
    MMNC_ALLOC(score, ny > 0 ? ny : 1, err, status);
    for (mmnc_int y = 0; y < ny; y++)
        if (fixed[y] >= 0) n[labels[y] * k + fixed[y]]++;
    mmnc_i_disum(p, n, k * k);
    for (mmnc_int c = 0; c < k; c++)
        for (mmnc_int z = 0; z < k; z++) ov[c * k + z].n = n[c * k + z], ov[c * k + z].c = c, ov[c * k + z].z = z;
    qsort(ov, (size_t)(k * k), sizeof *ov, by_overlap);
    for (mmnc_int c = 0; c < k; c++) perm[c] = -1;
    for (mmnc_int i = 0; i < k * k && ov[i].n > 0; i++)
        if (perm[ov[i].c] < 0 && !used[ov[i].z]) perm[ov[i].c] = ov[i].z, used[ov[i].z] = 1;
    for (mmnc_int c = 0; c < k; c++) {
        if (perm[c] >= 0) continue;
        while (used[next]) next++;
        perm[c] = next;
        used[next] = 1;
    }
    for (mmnc_int y = 0; y < ny; y++) {
        labels[y] = fixed[y] >= 0 ? fixed[y] : perm[labels[y]];
        score[y] = fixed[y] >= 0 ? INFINITY : 0.0; /* a held row never fills an empty cluster */
    }
    mmnc_i_fill_empty(p, k, labels, NULL, score, NULL);
cleanup:
    mmnc_i_free(n);
    mmnc_i_free(ov);
    mmnc_i_free(perm);
    mmnc_i_free(used);
    mmnc_i_free(score);
    return status;
}

int mmnc_i_seeded_labels(const mmnc_pmf *p, mmnc_int k, const mmnc_int *fixed, int start, int method,
                         const double *emb, mmnc_rng *rng, mmnc_int *labels, mmnc_err *err)
{
    int status;
    if (start == 0) return seeded_kmeans(p, k, fixed, rng, labels, err);
    if ((status = mmnc_i_init_labels(p, k, method, emb, rng, labels, err)) != MMNC_OK) return status;
    return matched(p, k, fixed, labels, err);
}

/*
 * Transduction, for the seeded candidates of the selection rule (cluster.c,
 * semi_rule): from labels (start 0's seeded classifier), it alternates,
 * as hard EM over all rows, the centres and counts n_z of the whole
 * partition (the same centres and prior, over every row of a cluster, held
 * and free) and each free row's best centre among the clusters with rows,
 * until no free row moves or MMNC_I_SEMI_SWEEPS sweeps, at the centre
 * weight the held rows choose (above); a cluster that this empties gets a
 * free row back (mmnc_i_fill_empty).  Time O(nnz k + nx k) a sweep, nx k
 * memory.
 */
int mmnc_i_semi_transduce(const mmnc_pmf *p, mmnc_int k, const mmnc_int *fixed, mmnc_int *labels, mmnc_err *err)
{
    mmnc_int ny = p->ny, nx = p->nx;
    double *T = NULL, *pz = NULL, *logq = NULL, *score = NULL, *lp = NULL, l;
    int64_t *work = NULL, *have = NULL;
    mmnc_int *cl = NULL;
    unsigned char *use = NULL;
    int status = MMNC_OK;
    MMNC_ALLOC(T, nx * (k + 1), err, status);
    MMNC_ALLOC(pz, k + 1, err, status);
    MMNC_ALLOC(logq, nx * k, err, status);
    MMNC_ALLOC(work, mmnc_i_fix_work(p, k + 1), err, status);
    MMNC_ALLOC(have, k + 1, err, status);
    MMNC_ALLOC(score, ny > 0 ? ny : 1, err, status);
    MMNC_ALLOC(lp, k > 0 ? k : 1, err, status);
    MMNC_ALLOC(cl, ny > 0 ? ny : 1, err, status);
    MMNC_ALLOC(use, nx > 0 ? nx : 1, err, status);
    l = centre_weight(p, k, fixed, cl, use, have, T, pz, work, logq);
    for (int sweep = 0; sweep < MMNC_I_SEMI_SWEEPS; sweep++) {
        int64_t moved = 0;
        mmnc_i_label_counts(p, k + 1, labels, have);
        centres(p, k, labels, l, T, pz, work, logq);
        log_prior(p, k, have, lp);
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : moved) if (p->nnz * k > MMNC_I_OMP_MIN_WORK)
        for (mmnc_int y = 0; y < ny; y++) {
            double s;
            mmnc_int z;
            if (fixed[y] >= 0) continue;
            z = best_centre(p, k, y, logq, have, lp, &s);
            if (z != labels[y]) labels[y] = z, moved++;
        }
        mmnc_i_disum(p, &moved, 1);
        if (moved == 0) break;
    }
    for (mmnc_int y = 0; y < ny; y++) score[y] = fixed[y] >= 0 ? INFINITY : 0.0; /* held rows stay */
    mmnc_i_fill_empty(p, k, labels, NULL, score, NULL);
cleanup:
    mmnc_i_free(T);
    mmnc_i_free(pz);
    mmnc_i_free(logq);
    mmnc_i_free(work);
    mmnc_i_free(have);
    mmnc_i_free(score);
    mmnc_i_free(lp);
    mmnc_i_free(cl);
    mmnc_i_free(use);
    return status;
}
