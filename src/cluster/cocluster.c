/*
 * cocluster.c -- co-clustering: the rows Y into k clusters Z and the
 * columns X into l clusters W at once (mmnc_params.col_clusters = l).
 *
 *   maximise    I(Z;W) = sum_{z,w} q(z,w) log( q(z,w) / (q(z) q(w)) ),
 *               q(z,w) = sum_{y in z, x in w} P(y,x)
 *   over        hard row labels Z(y) in 0..k-1 and column labels W(x) in 0..l-1
 *
 * The paper's conclusion proposes to cluster X in addition to Y, i.e. to
 * maximise ||A B C^T|| over a row kernel A and a column kernel C; this is
 * its exact information form, the objective of information-theoretic
 * co-clustering (Dhillon, Mallela, Modha, KDD 2003, Algorithm 1 there),
 * whose loss is I(X;Y) - I(Z;W) = D(P_{Y,X} || Q), Q(y,x) = q(z,w) P(y|z)
 * P(x|w) with z = Z(y), w = W(x).
 *
 * Alternation: a sweep of the rows, then one of the columns, each item in
 * turn moved to the cluster that raises I(Z;W) most, by the exact change
 * (which involves two rows of q for a row's move, two columns for a
 * column's), q updated after every move; the sequential form of ITCC's
 * steps (rows against P(W|z), columns against P(Z|w)), the sequential
 * information bottleneck's kind of move; it finds higher I(Z;W) than
 * ITCC's batch steps (bench/NOTES.md).  The candidates are the
 * two best other clusters by the first-order score sum_w P(y,w) log
 * q(w|z) (ITCC's), so a move costs O(touched k) multiply-adds and O(touched)
 * logarithms.  A move is made only when it raises I(Z;W) by more than
 * MOVE_EPS: I(Z;W) never decreases, and no cluster empties (taking a
 * cluster's last item into another is a merge, which never raises it).
 * Stopping rule: an alternation that moves no row and no column, or
 * max_iter alternations.  Several starts (start 0 from the rows alone's
 * answer rl0 with its columns fitted first by column sweeps, the others
 * from random or k-means++ rows; random columns, an empty column cluster
 * given a random column), run side by
 * side, one thread each, each in a fixed order: the best I(Z;W) (ties to
 * the lower start) is the same bits for any number of threads.
 *
 * With MMNC_ALG_NUCLEAR the objective is the norm form instead,
 * ||B_{Z,W}||_*, by Algorithm 2 on each side in turn (nuclear_alternation),
 * one start from the one-sided results (whose runs use the restarts).
 * With MMNC_ALG_DMM (the default on whole counts) it is the Dirichlet
 * mixture's evidence of the counts summed by column clusters
 * (dmm_alternation, which states it), the same starts as I(Z;W)'s.
 */
#include <math.h>
#include <string.h>

#include "cluster/cocluster_i.h"
#include "cluster/solver_i.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* v log v for v >= 0 (0 for 0). */
static inline double xlogx(double v) { return v > 0.0 ? v * log(v) : 0.0; }

/* log v for v >= 0 (-inf for 0). */
static inline double logz(double v) { return v > 0.0 ? log(v) : -INFINITY; }

/* One start's buffers: labels of both sides, q and the per-item sums. */
typedef struct costart {
    mmnc_int *rl, *cl;  /* ny, nx */
    double *q, *qz, *qw; /* k x l, k, l */
    double *xq, *xqz, *xqw; /* xlogx of each of them */
    double *lq, *lqz, *lqw; /* log of each of them (-inf for 0) */
    double *gq;         /* k x l, the Dirichlet form: lgamma(N_zw + beta) */
    double *acc;        /* max(k, l): one row's (column's) sums over the other side's clusters */
    mmnc_int *touched;  /* max(k, l) */
    double *T;          /* nx x k: P(z, x) */
    double *fit;        /* nx: the order in which the start's empty column clusters take columns */
    int64_t *size;      /* max(k, l) */
} costart;

static void costart_free(costart *s)
{
    mmnc_i_free(s->rl);
    mmnc_i_free(s->cl);
    mmnc_i_free(s->q);
    mmnc_i_free(s->qz);
    mmnc_i_free(s->qw);
    mmnc_i_free(s->xq);
    mmnc_i_free(s->xqz);
    mmnc_i_free(s->xqw);
    mmnc_i_free(s->lq);
    mmnc_i_free(s->lqz);
    mmnc_i_free(s->lqw);
    mmnc_i_free(s->gq);
    mmnc_i_free(s->acc);
    mmnc_i_free(s->touched);
    mmnc_i_free(s->T);
    mmnc_i_free(s->fit);
    mmnc_i_free(s->size);
    memset(s, 0, sizeof *s);
}

static int costart_alloc(const mmnc_pmf *p, mmnc_int k, mmnc_int l, costart *s, mmnc_err *err)
{
    mmnc_int m = k > l ? k : l;
    int status = MMNC_OK;
    memset(s, 0, sizeof *s);
    MMNC_ALLOC(s->rl, p->ny, err, status);
    MMNC_ALLOC(s->cl, p->nx, err, status);
    MMNC_ALLOC(s->q, k * l, err, status);
    MMNC_ALLOC(s->qz, k, err, status);
    MMNC_ALLOC(s->qw, l, err, status);
    MMNC_ALLOC(s->xq, k * l, err, status);
    MMNC_ALLOC(s->xqz, k, err, status);
    MMNC_ALLOC(s->xqw, l, err, status);
    MMNC_ALLOC(s->lq, k * l, err, status);
    MMNC_ALLOC(s->lqz, k, err, status);
    MMNC_ALLOC(s->lqw, l, err, status);
    MMNC_ALLOC(s->gq, k * l, err, status);
    MMNC_CALLOC(s->acc, m, err, status);
    MMNC_ALLOC(s->touched, m, err, status);
    MMNC_ALLOC(s->T, p->nx * k, err, status);
    MMNC_ALLOC(s->fit, p->nx, err, status);
    MMNC_ALLOC(s->size, m, err, status);
    return MMNC_OK;
cleanup:
    costart_free(s);
    return status;
}

/* q(z,w), q(z), q(w) of the labels, summed over P's entries in order. */
static void block_sums(const mmnc_pmf *p, mmnc_int k, mmnc_int l, costart *s)
{
    const mmnc_csr *P = p->P;
    memset(s->q, 0, (size_t)(k * l) * sizeof(double));
    for (mmnc_int y = 0; y < p->ny; y++) {
        double *qrow = s->q + s->rl[y] * l;
        for (mmnc_int j = P->rowptr[y]; j < P->rowptr[y + 1]; j++) qrow[s->cl[P->colind[j]]] += P->val[j];
    }
    memset(s->qw, 0, (size_t)l * sizeof(double));
    for (mmnc_int z = 0; z < k; z++) {
        double t = 0.0;
        for (mmnc_int w = 0; w < l; w++) t += s->q[z * l + w], s->qw[w] += s->q[z * l + w];
        s->qz[z] = t;
        s->xqz[z] = xlogx(t);
        s->lqz[z] = logz(t);
    }
    for (mmnc_int w = 0; w < l; w++) s->xqw[w] = xlogx(s->qw[w]), s->lqw[w] = logz(s->qw[w]);
    for (mmnc_int i = 0; i < k * l; i++) s->xq[i] = xlogx(s->q[i]), s->lq[i] = logz(s->q[i]);
}

/* I(Z;W) of the sums q, qz, qw. */
static double block_information(mmnc_int k, mmnc_int l, const costart *s)
{
    double v = 0.0;
    for (mmnc_int z = 0; z < k; z++)
        for (mmnc_int w = 0; w < l; w++) {
            double t = s->q[z * l + w];
            if (t > 0.0) v += t * log(t / (s->qz[z] * s->qw[w]));
        }
    return v;
}

/* Give each empty cluster of lab[0..n-1] (n items, m clusters) the item of
 * lowest fit among those in clusters of two or more (ties to the lower
 * item).  Returns the items moved. */
static int64_t fill_empty(mmnc_int n, mmnc_int m, mmnc_int *lab, const double *fit, int64_t *size)
{
    int64_t moved = 0;
    memset(size, 0, (size_t)m * sizeof(int64_t));
    for (mmnc_int i = 0; i < n; i++) size[lab[i]]++;
    for (mmnc_int c = 0; c < m; c++) {
        mmnc_int worst = -1;
        if (size[c] > 0) continue;
        for (mmnc_int i = 0; i < n; i++)
            if (size[lab[i]] >= 2 && (worst < 0 || fit[i] < fit[worst])) worst = i;
        if (worst < 0) break; /* more clusters than items with mass: left empty */
        size[lab[worst]]--;
        lab[worst] = c;
        size[c] = 1;
        moved++;
    }
    return moved;
}

/* The change of sum_j xlogx(q[j]) - xlogx(sum_j q[j]) when the item of mass
 * m with sums a[idx[i]] (over its nt touched entries) is added to the line
 * q of total Q (sign +1) or taken from it (-1): one half of an exact move's
 * change of I(Z;W). */
static double line_change(const double *q, const double *xq, double Q, double xQ, const double *a,
                          const mmnc_int *idx, mmnc_int nt, mmnc_int stride, double m, double sign)
{
    double d = 0.0;
    for (mmnc_int i = 0; i < nt; i++) {
        mmnc_int j = idx[i] * stride;
        d += xlogx(q[j] + sign * a[idx[i]]) - xq[j];
    }
    return d - (xlogx(Q + sign * m) - xQ);
}

/* The row sweep: each row in turn to the cluster that raises I(Z;W) most
 * (exact change, q updated after each move), if by more than MOVE_EPS. */
#define MOVE_EPS 1e-15
static int64_t row_sweep(const mmnc_pmf *p, mmnc_int k, mmnc_int l, costart *s)
{
    const mmnc_csr *P = p->P;
    int64_t moved = 0;
    for (mmnc_int y = 0; y < p->ny; y++) {
        mmnc_int nt = 0, cur = s->rl[y], best = cur;
        double m = p->py[y], leave = 0.0, bestv = MOVE_EPS;
        for (mmnc_int j = P->rowptr[y]; j < P->rowptr[y + 1]; j++) {
            mmnc_int w = s->cl[P->colind[j]];
            if (s->acc[w] == 0.0) s->touched[nt++] = w;
            s->acc[w] += P->val[j];
        }
        {
            mmnc_int c1 = -1, c2 = -1; /* the two best other clusters by the first-order score */
            double s1 = -INFINITY, s2 = -INFINITY;
            for (mmnc_int z = 0; z < k; z++) {
                double v = 0.0;
                if (z == cur) continue;
                for (mmnc_int i = 0; i < nt; i++) v += s->acc[s->touched[i]] * s->lq[z * l + s->touched[i]];
                v -= m * s->lqz[z];
                if (v > s1) s2 = s1, c2 = c1, s1 = v, c1 = z;
                else if (v > s2) s2 = v, c2 = z;
            }
            if (c1 >= 0)
                leave = line_change(s->q + cur * l, s->xq + cur * l, s->qz[cur], s->xqz[cur], s->acc, s->touched, nt,
                                    1, m, -1.0);
            for (int c = 0; c < 2; c++) {
                mmnc_int z = c ? c2 : c1;
                double v;
                if (z < 0) continue;
                v = leave + line_change(s->q + z * l, s->xq + z * l, s->qz[z], s->xqz[z], s->acc, s->touched, nt, 1,
                                        m, 1.0);
                if (v > bestv || (v == bestv && best != cur && z < best)) bestv = v, best = z;
            }
        }
        if (best != cur) {
            for (mmnc_int i = 0; i < nt; i++) {
                mmnc_int w = s->touched[i];
                s->q[cur * l + w] -= s->acc[w];
                s->q[best * l + w] += s->acc[w];
                s->xq[cur * l + w] = xlogx(s->q[cur * l + w]);
                s->xq[best * l + w] = xlogx(s->q[best * l + w]);
                s->lq[cur * l + w] = logz(s->q[cur * l + w]);
                s->lq[best * l + w] = logz(s->q[best * l + w]);
            }
            s->qz[cur] -= m;
            s->qz[best] += m;
            s->xqz[cur] = xlogx(s->qz[cur]);
            s->xqz[best] = xlogx(s->qz[best]);
            s->lqz[cur] = logz(s->qz[cur]);
            s->lqz[best] = logz(s->qz[best]);
            s->rl[y] = best;
            moved++;
        }
        for (mmnc_int i = 0; i < nt; i++) s->acc[s->touched[i]] = 0.0;
    }
    return moved;
}

/* The column sweep: each column in turn, as the rows. */
static int64_t col_sweep(const mmnc_pmf *p, mmnc_int k, mmnc_int l, costart *s)
{
    const mmnc_csr *P = p->P;
    int64_t moved = 0;
    memset(s->T, 0, (size_t)(p->nx * k) * sizeof(double));
    for (mmnc_int y = 0; y < p->ny; y++) {
        mmnc_int z = s->rl[y];
        for (mmnc_int j = P->rowptr[y]; j < P->rowptr[y + 1]; j++) s->T[P->colind[j] * k + z] += P->val[j];
    }
    for (mmnc_int x = 0; x < p->nx; x++) {
        const double *t = s->T + x * k;
        mmnc_int nt = 0, cur = s->cl[x], best = cur;
        double m = p->px[x], leave = 0.0, bestv = MOVE_EPS;
        for (mmnc_int z = 0; z < k; z++)
            if (t[z] > 0.0) s->touched[nt++] = z;
        {
            mmnc_int c1 = -1, c2 = -1;
            double s1 = -INFINITY, s2 = -INFINITY;
            for (mmnc_int w = 0; w < l; w++) {
                double v = 0.0;
                if (w == cur) continue;
                for (mmnc_int i = 0; i < nt; i++) v += t[s->touched[i]] * s->lq[s->touched[i] * l + w];
                v -= m * s->lqw[w];
                if (v > s1) s2 = s1, c2 = c1, s1 = v, c1 = w;
                else if (v > s2) s2 = v, c2 = w;
            }
            if (c1 >= 0) leave = line_change(s->q + cur, s->xq + cur, s->qw[cur], s->xqw[cur], t, s->touched, nt, l, m, -1.0);
            for (int c = 0; c < 2; c++) {
                mmnc_int w = c ? c2 : c1;
                double v;
                if (w < 0) continue;
                v = leave + line_change(s->q + w, s->xq + w, s->qw[w], s->xqw[w], t, s->touched, nt, l, m, 1.0);
                if (v > bestv || (v == bestv && best != cur && w < best)) bestv = v, best = w;
            }
        }
        if (best != cur) {
            for (mmnc_int i = 0; i < nt; i++) {
                mmnc_int z = s->touched[i];
                s->q[z * l + cur] -= t[z];
                s->q[z * l + best] += t[z];
                s->xq[z * l + cur] = xlogx(s->q[z * l + cur]);
                s->xq[z * l + best] = xlogx(s->q[z * l + best]);
                s->lq[z * l + cur] = logz(s->q[z * l + cur]);
                s->lq[z * l + best] = logz(s->q[z * l + best]);
            }
            s->qw[cur] -= m;
            s->qw[best] += m;
            s->xqw[cur] = xlogx(s->qw[cur]);
            s->xqw[best] = xlogx(s->qw[best]);
            s->lqw[cur] = logz(s->qw[cur]);
            s->lqw[best] = logz(s->qw[best]);
            s->cl[x] = best;
            moved++;
        }
    }
    return moved;
}

/* What the starts share; each writes only its own slots. */
typedef struct costarts {
    const mmnc_pmf *p;
    const mmnc_params *prm;
    mmnc_int k, l;
    int max_iter;
    const mmnc_int *rl0, *cl0; /* the nuclear form's start (|Y|, |X|), or NULL */
    double *info;    /* restarts: each start's I(Z;W) (the nuclear form: ||B_{Z,W}||_*; the Dirichlet
                        mixture's: E over the total count) */
    double *alpha, *beta; /* restarts: the Dirichlet mixture's alpha and beta at each start's end */
    int *iters, *conv;
    int *status;     /* restarts */
    mmnc_err *errs;  /* restarts */
} costarts;

/* The rows' blocks C_{Y,W}: row y's values summed by column cluster, each
 * sum in the order of the row's columns, the clusters in increasing order,
 * scaled by scale: the matrix mmnc_csr_from_triplets makes of the
 * triplets (y, cl[x], P(y, x) scale) in row order (the same bits), in one
 * pass over P without the triplets' three arrays of nnz. */
static int row_blocks(const mmnc_pmf *p, const mmnc_int *cl, mmnc_int l, double scale, mmnc_csr **out,
                      mmnc_err *err)
{
    const mmnc_csr *P = p->P;
    mmnc_int *last = NULL, *tl = NULL, nnz = 0;
    double *acc = NULL;
    mmnc_csr *A = NULL;
    int status = MMNC_OK;
    *out = NULL;
    MMNC_ALLOC(last, l, err, status);
    MMNC_ALLOC(tl, l, err, status);
    MMNC_ALLOC(acc, l, err, status);
    for (mmnc_int w = 0; w < l; w++) last[w] = -1;
    for (mmnc_int y = 0; y < p->ny; y++) /* each row's distinct clusters */
        for (mmnc_int j = P->rowptr[y]; j < P->rowptr[y + 1]; j++)
            if (last[cl[P->colind[j]]] != y) last[cl[P->colind[j]]] = y, nnz++;
    if (!(A = mmnc_csr_alloc(p->ny, l, nnz, err))) {
        status = MMNC_ENOMEM;
        goto cleanup;
    }
    for (mmnc_int w = 0; w < l; w++) last[w] = -1;
    A->rowptr[0] = 0;
    for (mmnc_int y = 0, q = 0; y < p->ny; y++) {
        mmnc_int nt = 0;
        for (mmnc_int j = P->rowptr[y]; j < P->rowptr[y + 1]; j++) {
            mmnc_int w = cl[P->colind[j]];
            double v = P->val[j] * scale;
            if (last[w] != y) last[w] = y, acc[w] = v, tl[nt++] = w;
            else acc[w] += v;
        }
        if (nt > 32) { /* many clusters: walk them all, in order */
            for (mmnc_int w = 0; w < l; w++)
                if (last[w] == y) A->colind[q] = w, A->val[q++] = acc[w];
        } else { /* few: sort them (insertion) */
            for (mmnc_int i = 1; i < nt; i++) {
                mmnc_int c = tl[i], h = i;
                for (; h > 0 && tl[h - 1] > c; h--) tl[h] = tl[h - 1];
                tl[h] = c;
            }
            for (mmnc_int i = 0; i < nt; i++) A->colind[q] = tl[i], A->val[q++] = acc[tl[i]];
        }
        A->rowptr[y + 1] = q;
    }
    *out = A;
    A = NULL;
cleanup:
    mmnc_csr_free(A);
    mmnc_i_free(last);
    mmnc_i_free(tl);
    mmnc_i_free(acc);
    return status;
}

/* See cocluster_i.h. */
int mmnc_i_cocluster_blocks(const mmnc_pmf *p, int side, const mmnc_int *rl, mmnc_int k, const mmnc_int *cl, mmnc_int l,
                     double scale, mmnc_pmf **out, mmnc_err *err)
{
    const mmnc_csr *P = p->P;
    mmnc_int *ri = NULL, *ci = NULL, t = 0;
    double *v = NULL;
    mmnc_csr *A = NULL;
    int status = MMNC_OK;
    *out = NULL;
    if (!side) {
        if ((status = row_blocks(p, cl, l, scale, &A, err)) == MMNC_OK) status = mmnc_pmf_build(A, out, err);
        goto cleanup;
    }
    MMNC_ALLOC(ri, p->nnz, err, status);
    MMNC_ALLOC(ci, p->nnz, err, status);
    MMNC_ALLOC(v, p->nnz, err, status);
    for (mmnc_int y = 0; y < p->ny; y++)
        for (mmnc_int j = P->rowptr[y]; j < P->rowptr[y + 1]; j++, t++) {
            ri[t] = side ? P->colind[j] : y;
            ci[t] = side ? rl[y] : cl[P->colind[j]];
            v[t] = P->val[j] * scale;
        }
    if ((status = mmnc_csr_from_triplets(side ? p->nx : p->ny, side ? k : l, p->nnz, ri, ci, v, &A, err)) ==
        MMNC_OK)
        status = mmnc_pmf_build(A, out, err);
cleanup:
    mmnc_csr_free(A);
    mmnc_i_free(ri);
    mmnc_i_free(ci);
    mmnc_i_free(v);
    return status;
}

/* ||B_{Z,W}||_* of the labels lab (k clusters) of the aggregated pmf a. */
static int block_nuclear(const mmnc_pmf *a, mmnc_int k, const mmnc_int *lab, double *v, mmnc_err *err)
{
    mmnc_stats st;
    int status;
    if ((status = mmnc_stats_init(&st, k, err)) != MMNC_OK) return status;
    status = mmnc_coupling_stats(a, k, lab, NULL, &st, err);
    *v = st.nuclear;
    mmnc_stats_free(&st);
    return status;
}

/* One side's step of the nuclear form: Algorithm 2 on the aggregated pmf
 * from the labels lab (kk clusters), kept only if ||B_{Z,W}||_* rose.
 * *moved: the items whose label changed. */
static int nuclear_side(const mmnc_pmf *p, const mmnc_params *prm, int restart, int side, costart *s, mmnc_int k,
                        mmnc_int l, double *norm, int64_t *moved, mmnc_err *err)
{
    const mmnc_i_tuning tune = MMNC_I_TUNING_DEFAULT;
    mmnc_pmf *a = NULL;
    mmnc_params sp = *prm;
    mmnc_i_run run = MMNC_I_RUN_INIT;
    mmnc_int kk = side ? l : k, n = side ? p->nx : p->ny, *lab = side ? s->cl : s->rl, *nl = NULL;
    double *W = NULL, before, after;
    int status;
    *moved = 0;
    if ((status = mmnc_i_cocluster_blocks(p, side, s->rl, k, s->cl, l, 1.0, &a, err)) != MMNC_OK) return status;
    sp.k = kk;
    sp.pz = NULL;
    sp.refine = MMNC_REFINE_NONE;
    sp.max_iter = MMNC_DEFAULT_MAX_ITER_NUCLEAR;
    sp.progress = NULL;
    sp.event = NULL;
    MMNC_ALLOC(nl, n, err, status);
    MMNC_ALLOC(W, n * kk, err, status);
    memcpy(nl, lab, (size_t)n * sizeof(mmnc_int));
    if ((status = block_nuclear(a, kk, lab, &before, err)) != MMNC_OK) goto cleanup;
    if ((status = mmnc_i_nuclear(a, &sp, &tune, restart, nl, W, &run, err)) != MMNC_OK) goto cleanup;
    if ((status = block_nuclear(a, kk, nl, &after, err)) != MMNC_OK) goto cleanup;
    *norm = before;
    if (after > before) {
        for (mmnc_int i = 0; i < n; i++) *moved += nl[i] != lab[i];
        memcpy(lab, nl, (size_t)n * sizeof(mmnc_int));
        *norm = after;
    }
cleanup:
    mmnc_pmf_free(a);
    mmnc_i_free(nl);
    mmnc_i_free(W);
    return status;
}

/* The nuclear form (prm->algorithm = MMNC_ALG_NUCLEAR):
 *   maximise ||B_{Z,W}||_*, B_{Z,W} = [P_Z]^{-1/2} P_{Z,W} [P_W]^{-1/2},
 * over hard row and column labels, by alternating maximisation: for fixed
 * column clusters B_{Z,W} = A B_{Y,W}, the paper's problem with B C^T in
 * place of B, solved by Algorithm 2 on the pmf P_{Y,W}; then the columns
 * likewise on P_{X,Z} (B_{W,Z} = B_{Z,W}^T, the same norm).  One start,
 * from the one-sided results A1, C1 (cluster.c): a step's labels are kept
 * only if the norm rose, so it never decreases and ends at least at
 * ||A1 B C1^T||_*; it stops when an alternation changes no label.
 * O(nnz + Algorithm 2 on a |Y| x l and a |X| x k pmf) per alternation. */
static int nuclear_alternation(const costarts *c, int i, costart *s, double *norm, int *it, mmnc_err *err)
{
    const mmnc_pmf *p = c->p;
    int status;
    mmnc_pmf *a = NULL;
    if ((status = mmnc_i_cocluster_blocks(p, 0, s->rl, c->k, s->cl, c->l, 1.0, &a, err)) == MMNC_OK)
        status = block_nuclear(a, c->k, s->rl, norm, err);
    mmnc_pmf_free(a);
    if (status != MMNC_OK) return status;
    if ((status = mmnc_i_progress(c->prm, i, 0, *norm, err)) != MMNC_OK) return status;
    for (*it = 0; *it < c->max_iter; (*it)++) {
        int64_t m1 = 0, m2 = 0;
        if ((status = nuclear_side(p, c->prm, i, 0, s, c->k, c->l, norm, &m1, err)) != MMNC_OK) return status;
        if ((status = nuclear_side(p, c->prm, i, 1, s, c->k, c->l, norm, &m2, err)) != MMNC_OK) return status;
        if ((status = mmnc_i_progress(c->prm, i, *it + 1, *norm, err)) != MMNC_OK) return status;
        if (m1 + m2 == 0) {
            c->conv[i] = 1;
            (*it)++;
            break;
        }
    }
    return MMNC_OK;
}

/* The Dirichlet mixture's form (prm->algorithm = MMNC_ALG_DMM, the
 * default's on whole counts):
 *
 *   maximise  E(Z, W, alpha, beta) = E_dmm(Z, alpha, beta; C_{Y,W}) + sum_x N_x log(N_x / N_{W(x)})
 *   over      hard row labels Z, column labels W, alpha > 0, beta >= beta_0
 *
 * C_{Y,W}: the counts summed by column clusters (|Y| x l), E_dmm the
 * Dirichlet mixture's evidence of dmm.c on them; N_x a column's count, N_w
 * its cluster's.  The model: the mixture of dmm.c whose cluster z draws
 * phi_z ~ Dirichlet(beta) over the l column clusters, and a count of a row
 * in z falls in column cluster w with probability phi_z(w), then on
 * column x of w with probability N_x / N_w (the block model of ITCC,
 * q(x|z) = q(w|z) P(x|w), with the within-block share at its maximum
 * likelihood); E is the log-probability of the counts and the row labels
 * with pi and phi integrated out.  With every column a cluster of its own
 * (l = |X|), E is the default's objective.  Alternation: the rows by
 * mmnc_i_dmm on C_{Y,W} (its sweeps, refills and fixed points), then the
 * columns by exact single-column moves at that beta until none moves, then
 * alpha and beta fitted to the new blocks; each step raises E (the first
 * row step of a random start runs dmm.c's first phase, and the progress
 * function hears of E after it).  A column moves to
 * the best of the two other clusters of highest first-order score
 * sum_z N_zx log(N_zw + beta) - N_x log N_w if E rises by more than
 * DMM_COL_EPS (N_x + 1); a column alone in its cluster stays. */
#define DMM_COL_EPS 1e-9

/* c, rounded to a whole number where it is one to 1e-9 (dmm.c's counts). */
static inline double count_of(double c)
{
    double r = nearbyint(c);
    return fabs(c - r) <= 1e-9 * r ? r : c;
}

/* The Dirichlet form's T: column x's counts in each row cluster, made
 * anew whenever the rows move. */
static void dmm_col_counts(const mmnc_pmf *p, mmnc_int k, costart *s)
{
    const mmnc_csr *P = p->P;
    memset(s->T, 0, (size_t)(p->nx * k) * sizeof(double));
    for (mmnc_int y = 0; y < p->ny; y++) {
        mmnc_int z = s->rl[y];
        for (mmnc_int j = P->rowptr[y]; j < P->rowptr[y + 1]; j++)
            s->T[P->colind[j] * k + z] += count_of(P->val[j] * p->total);
    }
}

/* The Dirichlet form's tables from T and the column labels: q = N_zw
 * (counts), qw = N_w, lq = log(N_zw + beta), gq = lgamma(N_zw + beta),
 * lqw = log N_w, size = columns a cluster. */
static void dmm_col_tables(const mmnc_pmf *p, mmnc_int k, mmnc_int l, double beta, costart *s)
{
    memset(s->q, 0, (size_t)(k * l) * sizeof(double));
    memset(s->qw, 0, (size_t)l * sizeof(double));
    memset(s->size, 0, (size_t)l * sizeof(int64_t));
    for (mmnc_int x = 0; x < p->nx; x++) {
        mmnc_int w = s->cl[x];
        s->size[w]++;
        for (mmnc_int z = 0; z < k; z++) {
            double t = s->T[x * k + z];
            if (t > 0.0) s->q[z * l + w] += t, s->qw[w] += t;
        }
    }
    for (mmnc_int i = 0; i < k * l; i++) s->lq[i] = log(s->q[i] + beta), s->gq[i] = lgamma(s->q[i] + beta);
    for (mmnc_int w = 0; w < l; w++) s->lqw[w] = logz(s->qw[w]);
}

/* The change of sum_z lgamma(N_zw + beta) - N_w log N_w when the column of
 * counts t (over its nt touched clusters, total n) joins cluster w (sign
 * +1) or leaves it (-1). */
static double dmm_col_change(const costart *s, mmnc_int l, mmnc_int w, const double *t, mmnc_int nt, double n,
                             double beta, double sign)
{
    double d = xlogx(s->qw[w]) - xlogx(s->qw[w] + sign * n);
    for (mmnc_int i = 0; i < nt; i++) {
        mmnc_int c = s->touched[i] * l + w;
        d += lgamma(s->q[c] + sign * t[s->touched[i]] + beta) - s->gq[c];
    }
    return d;
}

/* The first-order scores of a column of counts t over its nt touched
 * clusters: acc[w] = sum_i t[z_i] lq[z_i, w] for every w, each w's sum in
 * the order of the touched clusters (the same bits in every clone). */
MMNC_I_VECTOR_CLONES static void col_scores(double *acc, const double *lq, const double *t, const mmnc_int *touched,
                                            mmnc_int nt, mmnc_int l)
{
    memset(acc, 0, (size_t)l * sizeof(double));
    for (mmnc_int i = 0; i < nt; i++) {
        const double *lz = lq + touched[i] * l, tz = t[touched[i]];
        for (mmnc_int w = 0; w < l; w++) acc[w] += tz * lz[w];
    }
}

/* One sweep of the columns in the Dirichlet form at beta, T made for the
 * rows as they are (dmm_col_counts).  Returns the columns moved. */
static int64_t dmm_col_sweep(const mmnc_pmf *p, mmnc_int k, mmnc_int l, double beta, costart *s)
{
    int64_t moved = 0;
    dmm_col_tables(p, k, l, beta, s);
    for (mmnc_int x = 0; x < p->nx; x++) {
        const double *t = s->T + x * k;
        mmnc_int nt = 0, cur = s->cl[x], best = cur, c1 = -1, c2 = -1;
        double n = 0.0, leave, bestv, s1 = -INFINITY, s2 = -INFINITY;
        if (s->size[cur] < 2) continue;
        for (mmnc_int z = 0; z < k; z++)
            if (t[z] > 0.0) s->touched[nt++] = z, n += t[z];
        if (nt == 0) continue; /* no counts: E is the same in every cluster */
        col_scores(s->acc, s->lq, t, s->touched, nt, l);
        for (mmnc_int w = 0; w < l; w++) {
            double v = s->acc[w] - n * s->lqw[w];
            if (w == cur) continue;
            if (v > s1) s2 = s1, c2 = c1, s1 = v, c1 = w;
            else if (v > s2) s2 = v, c2 = w;
        }
        leave = dmm_col_change(s, l, cur, t, nt, n, beta, -1.0);
        bestv = DMM_COL_EPS * (n + 1.0);
        for (int c = 0; c < 2; c++) {
            mmnc_int w = c ? c2 : c1;
            double v;
            if (w < 0) continue;
            v = leave + dmm_col_change(s, l, w, t, nt, n, beta, 1.0);
            if (v > bestv || (v == bestv && best != cur && w < best)) bestv = v, best = w;
        }
        if (best != cur) {
            for (mmnc_int i = 0; i < nt; i++) {
                mmnc_int z = s->touched[i];
                s->q[z * l + cur] -= t[z];
                s->q[z * l + best] += t[z];
                s->lq[z * l + cur] = log(s->q[z * l + cur] + beta);
                s->lq[z * l + best] = log(s->q[z * l + best] + beta);
                s->gq[z * l + cur] = lgamma(s->q[z * l + cur] + beta);
                s->gq[z * l + best] = lgamma(s->q[z * l + best] + beta);
            }
            s->qw[cur] -= n;
            s->qw[best] += n;
            s->lqw[cur] = logz(s->qw[cur]);
            s->lqw[best] = logz(s->qw[best]);
            s->size[cur]--;
            s->size[best]++;
            s->cl[x] = best;
            moved++;
        }
    }
    memset(s->acc, 0, (size_t)l * sizeof(double)); /* row_sweep's accumulators start at zero */
    return moved;
}

/* E of the start's labels over the total count, into *e; the blocks
 * C_{Y,W} made anew into *a; alpha and beta fitted to them into run. */
static int dmm_energy(const costarts *c, costart *s, mmnc_pmf **a, mmnc_i_run *run, double *e, mmnc_err *err)
{
    const mmnc_pmf *p = c->p;
    double obj, cp = 0.0;
    int status;
    mmnc_pmf_free(*a);
    *a = NULL;
    if ((status = mmnc_i_cocluster_blocks(p, 0, s->rl, c->k, s->cl, c->l, p->total, a, err)) != MMNC_OK)
        return status;
    if ((status = mmnc_i_dmm_objective(*a, c->k, s->rl, c->prm->dmm_beta, &obj, run, err)) != MMNC_OK) return status;
    memset(s->qw, 0, (size_t)c->l * sizeof(double));
    for (mmnc_int x = 0; x < p->nx; x++) {
        double n = count_of(p->px[x] * p->total);
        cp += xlogx(n);
        s->qw[s->cl[x]] += n;
    }
    for (mmnc_int w = 0; w < c->l; w++) cp -= xlogx(s->qw[w]);
    *e = obj + cp / p->total;
    return MMNC_OK;
}

/* The rows' step of the Dirichlet form: mmnc_i_dmm on the blocks a from
 * the start's row labels (from run's alpha and beta where they are set).
 * *moved: the rows whose label changed. */
static int dmm_row_step(const costarts *c, int i, costart *s, const mmnc_pmf *a, mmnc_i_run *run, int64_t *moved,
                        mmnc_err *err)
{
    const mmnc_pmf *p = c->p;
    mmnc_params sp = *c->prm;
    mmnc_int *old = NULL;
    double *W = NULL;
    int status = MMNC_OK;
    *moved = 0;
    sp.k = c->k;
    sp.col_clusters = 0;
    sp.fixed_label = NULL;
    sp.progress = NULL;
    sp.event = NULL;
    sp.max_iter = c->max_iter;
    MMNC_ALLOC(old, p->ny, err, status);
    MMNC_ALLOC(W, p->ny * c->k, err, status);
    memcpy(old, s->rl, (size_t)p->ny * sizeof(mmnc_int));
    if ((status = mmnc_i_dmm(a, &sp, i, 0.0, s->rl, W, run, err)) != MMNC_OK) goto cleanup;
    for (mmnc_int y = 0; y < p->ny; y++) *moved += old[y] != s->rl[y];
cleanup:
    mmnc_i_free(old);
    mmnc_i_free(W);
    return status;
}

/* Start i of the Dirichlet form from its labels in s (start 0: the rows
 * alone's answer, with the columns fitted to it first). */
static int dmm_alternation(const costarts *c, int i, costart *s, int *it, mmnc_err *err)
{
    const mmnc_pmf *p = c->p;
    mmnc_i_run run = MMNC_I_RUN_INIT;
    mmnc_pmf *a = NULL;
    double e = 0.0;
    int status, fitted = 0, stale = 1; /* stale: the columns moved since E, a and run were made */
    *it = 0;
    if (i == 0 && c->rl0) {
        memcpy(s->rl, c->rl0, (size_t)p->ny * sizeof(mmnc_int));
        dmm_col_counts(p, c->k, s);
        for (int t = 0; t < c->max_iter; t++) {
            if ((status = dmm_energy(c, s, &a, &run, &e, err)) != MMNC_OK) goto cleanup;
            if (!(stale = dmm_col_sweep(p, c->k, c->l, run.dmm_beta, s) > 0)) break;
        }
        fitted = 1;
    }
    if (stale && (status = dmm_energy(c, s, &a, &run, &e, err)) != MMNC_OK) goto cleanup;
    if (fitted && (status = mmnc_i_progress(c->prm, i, 0, e, err)) != MMNC_OK) goto cleanup;
    for (*it = 0; *it < c->max_iter; (*it)++) {
        int64_t mr = 0, mc = 0, m;
        if (!fitted) run.dmm_alpha = run.dmm_beta = 0.0; /* a random start: dmm.c's first phase */
        if ((status = dmm_row_step(c, i, s, a, &run, &mr, err)) != MMNC_OK) goto cleanup;
        fitted = 1;
        dmm_col_counts(p, c->k, s);
        for (int t = 0; t < c->max_iter && (m = dmm_col_sweep(p, c->k, c->l, run.dmm_beta, s)) > 0; t++) mc += m;
        if ((status = dmm_energy(c, s, &a, &run, &e, err)) != MMNC_OK) goto cleanup;
        if ((status = mmnc_i_progress(c->prm, i, *it + 1, e, err)) != MMNC_OK) goto cleanup;
        if (mr + mc == 0) {
            c->conv[i] = 1;
            (*it)++;
            break;
        }
    }
    c->info[i] = e;
    c->alpha[i] = run.dmm_alpha;
    c->beta[i] = run.dmm_beta;
cleanup:
    mmnc_pmf_free(a);
    return status;
}

/* Start i into s: the alternation from its random labels (the nuclear
 * form: from rl0 and cl0). */
static int run_costart(const costarts *c, int i, costart *s, mmnc_err *err)
{
    const mmnc_pmf *p = c->p;
    const mmnc_params *prm = c->prm;
    mmnc_int k = c->k, l = c->l;
    mmnc_rng rng;
    int status, it;
    double info = 0.0;
    mmnc_rng_seed(&rng, prm->seed * 0x9e3779b97f4a7c15ULL + (uint64_t)i);
    if ((status = mmnc_i_event(prm, MMNC_EV_START_BEGIN, i, 0, 0, NULL, NAN, err)) != MMNC_OK) return status;
    c->conv[i] = 0;
    if (prm->algorithm == MMNC_ALG_NUCLEAR) {
        memcpy(s->rl, c->rl0, (size_t)p->ny * sizeof(mmnc_int));
        memcpy(s->cl, c->cl0, (size_t)p->nx * sizeof(mmnc_int));
        if ((status = nuclear_alternation(c, i, s, &c->info[i], &it, err)) != MMNC_OK) return status;
        c->iters[i] = it;
        return mmnc_i_event(prm, MMNC_EV_START_END, i, it, c->conv[i], NULL, c->info[i], err);
    }
    if ((status = mmnc_i_init_labels(p, k, prm->init, NULL, &rng, s->rl, err)) != MMNC_OK) return status;
    for (mmnc_int x = 0; x < p->nx; x++) s->cl[x] = mmnc_rng_below(&rng, l);
    for (mmnc_int x = 0; x < p->nx; x++) s->fit[x] = mmnc_rng_uniform(&rng); /* an empty cluster's first column */
    fill_empty(p->nx, l, s->cl, s->fit, s->size);
    if (prm->algorithm == MMNC_ALG_DMM) {
        if ((status = dmm_alternation(c, i, s, &it, err)) != MMNC_OK) return status;
        c->iters[i] = it;
        return mmnc_i_event(prm, MMNC_EV_START_END, i, it, c->conv[i], NULL, c->info[i], err);
    }
    if (i == 0 && c->rl0) { /* the rows alone's answer, the columns fitted to it first */
        memcpy(s->rl, c->rl0, (size_t)p->ny * sizeof(mmnc_int));
        block_sums(p, k, l, s);
        for (int t = 0; t < c->max_iter; t++) {
            int64_t moved = col_sweep(p, k, l, s);
            block_sums(p, k, l, s);
            if (!moved) break;
        }
    }
    block_sums(p, k, l, s);
    for (it = 0; it < c->max_iter; it++) {
        /* fresh sums after each sweep: no drift from the moves' updates */
        int64_t moved = row_sweep(p, k, l, s);
        block_sums(p, k, l, s);
        moved += col_sweep(p, k, l, s);
        block_sums(p, k, l, s);
        info = block_information(k, l, s);
        if ((status = mmnc_i_progress(prm, i, it + 1, info, err)) != MMNC_OK) return status;
        if (moved == 0) {
            c->conv[i] = 1;
            it++;
            break;
        }
    }
    c->info[i] = block_information(k, l, s);
    c->iters[i] = it;
    return mmnc_i_event(prm, MMNC_EV_START_END, i, it, c->conv[i], NULL, c->info[i], err);
}

/* See cocluster_i.h.  A distributed pmf gathered whole onto every rank: P (every rank's rows
 * in rank order, the bits each rank holds, so the bits of one process's
 * P), P_Y gathered likewise, P_X and the total as they are (global, exact
 * sums), the transpose made here (or P itself where P is symmetric, as
 * mmnc_pmf_build shares it).  Collective: an allgather of the sizes and a
 * broadcast of each rank's rows.  *w is freed by mmnc_i_pmf_gathered_free. */
int mmnc_i_pmf_gather(const mmnc_pmf *p, mmnc_pmf *w, mmnc_err *err)
{
    const mmnc_dist *d = p->dist;
    int64_t me[2] = {p->ny, p->nnz}, *all = NULL;
    mmnc_int ny = 0, nnz = 0, y = 0, e = 0;
    mmnc_csr *P = NULL;
    int status = MMNC_OK, sym = 1;
    memset(w, 0, sizeof *w);
    if (!(all = mmnc_i_malloc((size_t)d->size * 2, sizeof(int64_t))))
        status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    if ((status = mmnc_i_agree(d, status, err)) != MMNC_OK) goto cleanup;
    d->allgather(d, me, sizeof me, all);
    for (int q = 0; q < d->size; q++) ny += (mmnc_int)all[2 * q], nnz += (mmnc_int)all[2 * q + 1];
    P = mmnc_csr_alloc(ny, p->nx, nnz, err);
    w->py = mmnc_i_malloc((size_t)(ny ? ny : 1), sizeof(double));
    status = P && w->py ? MMNC_OK : mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    if ((status = mmnc_i_agree(d, status, err)) != MMNC_OK) goto cleanup;
    for (int q = 0; q < d->size; q++) {
        mmnc_int n = (mmnc_int)all[2 * q], m = (mmnc_int)all[2 * q + 1];
        if (q == d->rank) {
            for (mmnc_int i = 0; i <= n; i++) P->rowptr[y + i] = e + p->P->rowptr[i];
            memcpy(P->colind + e, p->P->colind, (size_t)m * sizeof(mmnc_int));
            memcpy(P->val + e, p->P->val, (size_t)m * sizeof(double));
            memcpy(w->py + y, p->py, (size_t)n * sizeof(double));
        }
        if (n > 0) {
            d->bcast(d, P->rowptr + y + 1, (size_t)n * sizeof(mmnc_int), q);
            d->bcast(d, w->py + y, (size_t)n * sizeof(double), q);
        }
        if (m > 0) {
            d->bcast(d, P->colind + e, (size_t)m * sizeof(mmnc_int), q);
            d->bcast(d, P->val + e, (size_t)m * sizeof(double), q);
        }
        y += n, e += m;
    }
    w->ny = w->ny_all = ny;
    w->nx = p->nx;
    w->nnz = nnz;
    w->P = P;
    w->px = p->px;
    w->total = p->total;
    P = NULL;
    if (w->ny == w->nx) { /* symmetric, as mmnc_pmf_build tells: P serves as its own transpose */
        mmnc_csr *T = NULL;
        if ((status = mmnc_csr_transpose(w->P, &T, err)) != MMNC_OK) goto cleanup;
        sym = !memcmp(T->rowptr, w->P->rowptr, (size_t)(ny + 1) * sizeof(mmnc_int)) &&
              !memcmp(T->colind, w->P->colind, (size_t)nnz * sizeof(mmnc_int)) &&
              !memcmp(T->val, w->P->val, (size_t)nnz * sizeof(double));
        if (sym) mmnc_csr_free(T), w->Pt = w->P;
        else w->Pt = T;
    } else {
        status = mmnc_csr_transpose(w->P, &w->Pt, err);
    }
cleanup:
    mmnc_csr_free(P);
    mmnc_i_free(all);
    return status;
}

/* See cocluster_i.h. */
void mmnc_i_pmf_gathered_free(mmnc_pmf *w)
{
    if (w->Pt != w->P) mmnc_csr_free(w->Pt);
    mmnc_csr_free(w->P);
    mmnc_i_free(w->py);
}

int mmnc_i_cocluster(const mmnc_pmf *p, const mmnc_params *prm, const mmnc_int *rl0, const mmnc_int *cl0,
                     mmnc_result **out, mmnc_err *err)
{
    mmnc_int k = prm->k, l = prm->col_clusters, ny = p->ny, nx = p->nx;
    int R = prm->algorithm == MMNC_ALG_NUCLEAR ? 1 : prm->restarts, status = MMNC_OK, best = -1;
    mmnc_params one = *prm; /* the nuclear form's events tell of its one start */
    double t0 = mmnc_i_now();
    costarts c;
    costart keep, *work = NULL;
    mmnc_result *r = NULL;
    mmnc_i_threads saved;
    int nthreads = 1;
    if (mmnc_i_distributed(p)) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_i_cocluster: a distributed pmf (gather it)");
    if (l > nx)
        return mmnc_i_err(err, MMNC_EINVAL, "col_clusters = %lld must not exceed the number of columns (%lld)",
                          (long long)l, (long long)nx);
    saved = mmnc_i_threads_push(prm->threads);
    memset(&c, 0, sizeof c);
    memset(&keep, 0, sizeof keep);
    one.restarts = R;
    c.p = p;
    c.prm = &one;
    c.k = k;
    c.l = l;
    c.max_iter = prm->max_iter > 0 ? prm->max_iter : MMNC_DEFAULT_MAX_ITER_INFORMATION;
    c.rl0 = rl0;
    c.cl0 = cl0;
    if (prm->algorithm == MMNC_ALG_NUCLEAR && (!rl0 || !cl0 || R != 1)) {
        status = mmnc_i_err(err, MMNC_EINVAL, "mmnc_i_cocluster: the nuclear form needs its start");
        goto cleanup;
    }
    MMNC_CALLOC(c.info, R, err, status);
    MMNC_CALLOC(c.alpha, R, err, status);
    MMNC_CALLOC(c.beta, R, err, status);
    MMNC_CALLOC(c.iters, R, err, status);
    MMNC_CALLOC(c.conv, R, err, status);
    MMNC_CALLOC(c.status, R, err, status);
    MMNC_CALLOC(c.errs, R, err, status);
    nthreads = mmnc_i_team_size();
    if (nthreads > R) nthreads = R;
    MMNC_CALLOC(work, nthreads, err, status);
    for (int t = 0; t < nthreads; t++)
        if ((status = costart_alloc(p, k, l, &work[t], err)) != MMNC_OK) goto cleanup;
    if ((status = costart_alloc(p, k, l, &keep, err)) != MMNC_OK) goto cleanup;
    /* starts side by side, one thread each; the best kept by the lowest index
     * among equals, whatever thread ran it */
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads) if (nthreads > 1)
    for (int i = 0; i < R; i++) {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        c.status[i] = run_costart(&c, i, &work[tid], &c.errs[i]);
        if (c.status[i] == MMNC_OK) {
#pragma omp critical(mmnc_cocluster_keep)
            if (best < 0 || c.info[i] > c.info[best] || (c.info[i] == c.info[best] && i < best)) {
                best = i;
                memcpy(keep.rl, work[tid].rl, (size_t)ny * sizeof(mmnc_int));
                memcpy(keep.cl, work[tid].cl, (size_t)nx * sizeof(mmnc_int));
            }
        }
    }
    for (int i = 0; i < R; i++)
        if (c.status[i] != MMNC_OK) {
            status = c.status[i];
            if (err) *err = c.errs[i];
            goto cleanup;
        }
    MMNC_CALLOC(r, 1, err, status);
    r->k = k;
    r->ny = ny;
    r->algorithm = prm->algorithm;
    r->restarts = R;
    r->best_restart = r->objective_restart = best;
    r->size_prior_kept = -1;
    r->agreement_prior = r->agreement_free = r->agreement = NAN;
    r->select = MMNC_SELECT_OBJECTIVE;
    r->refine = MMNC_REFINE_NONE;
    r->l = l;
    r->nx = nx;
    if ((status = mmnc_stats_init(&r->stats, k, err)) != MMNC_OK) goto cleanup;
    MMNC_ALLOC(r->label, ny, err, status);
    MMNC_CALLOC(r->W, ny * k, err, status);
    MMNC_ALLOC(r->col_label, nx, err, status);
    MMNC_ALLOC(r->block_pz, k * l, err, status);
    MMNC_ALLOC(r->restart_objective, R, err, status);
    MMNC_ALLOC(r->restart_iterations, R, err, status);
    MMNC_ALLOC(r->restart_init, R, err, status);
    MMNC_ALLOC(r->restart_converged, R, err, status);
    memcpy(r->label, keep.rl, (size_t)ny * sizeof(mmnc_int));
    memcpy(r->col_label, keep.cl, (size_t)nx * sizeof(mmnc_int));
    for (mmnc_int y = 0; y < ny; y++) r->W[y * k + r->label[y]] = 1.0;
    block_sums(p, k, l, &keep);
    memcpy(r->block_pz, keep.q, (size_t)(k * l) * sizeof(double));
    r->objective = prm->algorithm == MMNC_ALG_INFORMATION ? block_information(k, l, &keep) : c.info[best];
    r->dmm_alpha = prm->algorithm == MMNC_ALG_DMM ? c.alpha[best] : NAN;
    r->dmm_beta = prm->algorithm == MMNC_ALG_DMM ? c.beta[best] : NAN;
    for (int i = 0; i < R; i++) {
        r->restart_objective[i] = c.info[i];
        r->restart_iterations[i] = c.iters[i];
        r->restart_init[i] = i == 0 && rl0 ? MMNC_INIT_ROWS : prm->init;
        r->restart_converged[i] = c.conv[i];
    }
    r->iterations = c.iters[best];
    r->converged = c.conv[best];
    if ((status = mmnc_coupling_stats(p, k, r->label, NULL, &r->stats, err)) != MMNC_OK) goto cleanup;
    r->seconds = mmnc_i_now() - t0;
    *out = r;
    r = NULL;
cleanup:
    mmnc_i_threads_pop(saved);
    if (work)
        for (int t = 0; t < nthreads; t++) costart_free(&work[t]);
    mmnc_i_free(work);
    costart_free(&keep);
    mmnc_i_free(c.info);
    mmnc_i_free(c.alpha);
    mmnc_i_free(c.beta);
    mmnc_i_free(c.iters);
    mmnc_i_free(c.conv);
    mmnc_i_free(c.status);
    mmnc_i_free(c.errs);
    mmnc_result_free(r);
    return status;
}
