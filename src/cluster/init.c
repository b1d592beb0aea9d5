/*
 * init.c -- starting clusterings for the solvers.
 *
 *   random    uniform labels;
 *   kmeans++  D^2 seeding (Arthur and Vassilvitskii 2007), weighted by P_Y,
 *             of the rows of P_{X|Y} in the chi^2 metric
 *             d(y, y') = sum_x (P(x|y) - P(x|y'))^2 / P(x), i.e. Euclidean
 *             distance between rows of [P_Y]^{-1/2} B_{Y,X}; each row then
 *             joins its nearest seed;
 *   spectral  weighted k-means (k-means++ seeding, then Lloyd) of the rows
 *             of [P_Y]^{-1/2} U_{2..k}, U the DTM's leading left singular
 *             vectors: the ACE embedding of the paper, section 5.
 */
#include <math.h>
#include <string.h>

#include "cluster/solver_i.h"

/* A candidate row for an empty cluster: the smallest (key, row) wins. */
typedef struct cand {
    double key;
    int64_t row, from; /* global row (-1: none), its cluster */
} cand;

void mmnc_i_label_counts(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels, int64_t *count)
{
    memset(count, 0, (size_t)k * sizeof(int64_t));
    for (mmnc_int y = 0; y < p->ny; y++) count[labels[y]]++;
    mmnc_i_disum(p, count, k);
}

void mmnc_i_fill_empty(const mmnc_pmf *p, mmnc_int k, mmnc_int *labels, int64_t *counted, const double *score,
                       mmnc_rng *rng)
{
    mmnc_int ny = p->ny;
    int nr = mmnc_i_distributed(p) ? p->dist->size : 1;
    int64_t *count = counted ? counted : mmnc_i_calloc((size_t)k, sizeof(int64_t));
    cand *all = mmnc_i_malloc((size_t)nr, sizeof(cand));
    /* callers tolerate empty clusters (this only improves them), but all
     * ranks must take the same path: a failed allocation is a failed job */
    if (!count || !all) {
        if (!counted) mmnc_i_free(count);
        mmnc_i_free(all);
        return;
    }
    if (!counted) mmnc_i_label_counts(p, k, labels, count);
    for (mmnc_int z = 0; z < k; z++) {
        cand me = {INFINITY, -1, -1}, best;
        if (count[z] > 0) continue;
        if (score) { /* the row that fits its own cluster worst */
            for (mmnc_int y = 0; y < ny; y++)
                if (count[labels[y]] >= 2 && score[y] < me.key) me.key = score[y], me.row = p->y0 + y;
        } else { /* the first row from a random position on */
            mmnc_int start = rng ? mmnc_rng_below(rng, p->ny_all) : 0;
            for (mmnc_int y = 0; y < ny; y++) {
                mmnc_int d = (p->y0 + y - start + p->ny_all) % p->ny_all;
                if (count[labels[y]] >= 2 && (double)d < me.key) me.key = (double)d, me.row = p->y0 + y;
            }
        }
        if (me.row >= 0) me.from = labels[me.row - p->y0];
        best = me;
        if (nr > 1) {
            p->dist->allgather(p->dist, &me, sizeof me, all);
            best = all[0];
            for (int r = 1; r < nr; r++)
                if (all[r].row >= 0 && (best.row < 0 || all[r].key < best.key ||
                                        (all[r].key == best.key && all[r].row < best.row)))
                    best = all[r];
        }
        if (best.row < 0) break; /* k > |Y|: nothing to take */
        count[best.from]--;
        count[z] = 1;
        if (best.row >= p->y0 && best.row < p->y0 + ny) labels[best.row - p->y0] = z;
    }
    if (!counted) mmnc_i_free(count);
    mmnc_i_free(all);
}

/* Draw an index with probability w[i] / sum(w). */
static mmnc_int draw(const double *w, mmnc_int n, mmnc_rng *rng)
{
    double total = 0.0, u, acc = 0.0;
    for (mmnc_int i = 0; i < n; i++) total += w[i];
    if (!(total > 0.0)) return mmnc_rng_below(rng, n);
    u = mmnc_rng_uniform(rng) * total;
    for (mmnc_int i = 0; i < n; i++) {
        acc += w[i];
        if (u < acc && w[i] > 0.0) return i;
    }
    for (mmnc_int i = n - 1; i >= 0; i--)
        if (w[i] > 0.0) return i;
    return n - 1;
}

/* draw() over the rows of all ranks (w: this rank's weights): the global
 * row, the same on every rank, as one process would draw it. */
static mmnc_int draw_rows(const mmnc_pmf *p, const double *w, mmnc_rng *rng, mmnc_err *err)
{
    int nr = p->dist->size, owner = -1;
    double mine = 0.0, *tot = NULL, total = 0.0, u, acc = 0.0;
    int64_t pick = -1;
    for (mmnc_int i = 0; i < p->ny; i++) mine += w[i];
    if (!(tot = mmnc_i_malloc((size_t)nr, sizeof(double)))) {
        mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
        return -1;
    }
    p->dist->allgather(p->dist, &mine, sizeof mine, tot);
    for (int r = 0; r < nr; r++) total += tot[r];
    if (!(total > 0.0)) {
        mmnc_i_free(tot);
        return mmnc_rng_below(rng, p->ny_all);
    }
    u = mmnc_rng_uniform(rng) * total;
    for (int r = 0; r < nr; r++) {
        if (tot[r] > 0.0) owner = r; /* the last one with weight, if round-off runs past the end */
        if (tot[r] > 0.0 && u < acc + tot[r]) break;
        acc += tot[r];
    }
    if (p->dist->rank == owner) {
        double a = acc;
        for (mmnc_int i = 0; i < p->ny && pick < 0; i++) {
            a += w[i];
            if (u < a && w[i] > 0.0) pick = p->y0 + i;
        }
        for (mmnc_int i = p->ny - 1; i >= 0 && pick < 0; i--)
            if (w[i] > 0.0) pick = p->y0 + i;
    }
    p->dist->bcast(p->dist, &pick, sizeof pick, owner);
    mmnc_i_free(tot);
    return pick;
}

int64_t mmnc_i_draw_row(const mmnc_pmf *p, const double *w, mmnc_rng *rng, mmnc_err *err)
{
    if (!mmnc_i_distributed(p)) return p->y0 + draw(w, p->ny, rng);
    return draw_rows(p, w, rng, err);
}

/* The rank that holds global row g (distributed). */
static int owner_of(const mmnc_pmf *p, mmnc_int g, mmnc_err *err)
{
    int owner;
    int64_t me = p->y0, *at = mmnc_i_malloc((size_t)p->dist->size, sizeof(int64_t));
    if (!at) {
        mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
        return -1;
    }
    p->dist->allgather(p->dist, &me, sizeof me, at);
    for (owner = p->dist->size - 1; owner > 0 && at[owner] > g; owner--) {}
    mmnc_i_free(at);
    return owner;
}

/* k-means++ on the chi^2 rows of the data. */
static int kmeanspp_rows(const mmnc_pmf *p, mmnc_int k, mmnc_rng *rng, mmnc_int *labels, mmnc_err *err)
{
    const mmnc_csr *P = p->P;
    mmnc_int ny = p->ny, nx = p->nx;
    double *norm2 = NULL, *d2 = NULL, *w = NULL, *center = NULL, cnorm;
    int status = MMNC_OK;
    MMNC_ALLOC(norm2, ny, err, status);
    MMNC_ALLOC(d2, ny, err, status);
    MMNC_ALLOC(w, ny, err, status);
    MMNC_CALLOC(center, nx, err, status);
#pragma omp parallel for schedule(static) if (p->nnz > MMNC_I_OMP_MIN_WORK)
    for (mmnc_int y = 0; y < ny; y++) {
        double s = 0.0;
        for (mmnc_int e = P->rowptr[y]; e < P->rowptr[y + 1]; e++) {
            double v = P->val[e] / p->py[y];
            s += v * v / p->px[P->colind[e]];
        }
        norm2[y] = s;
        d2[y] = INFINITY;
        labels[y] = 0;
    }
    for (mmnc_int c = 0; c < k; c++) {
        mmnc_int y0, g, len;
        const double *wc = p->py;
        if (c > 0) {
            for (mmnc_int y = 0; y < ny; y++) w[y] = p->py[y] * d2[y];
            wc = w;
        }
        if (!mmnc_i_distributed(p)) {
            y0 = draw(wc, ny, rng);
            for (mmnc_int e = P->rowptr[y0]; e < P->rowptr[y0 + 1]; e++)
                center[P->colind[e]] = P->val[e] / p->py[y0] / p->px[P->colind[e]];
            cnorm = norm2[y0];
        } else { /* the seed's row comes from the rank that holds it */
            int owner;
            if ((g = draw_rows(p, wc, rng, err)) < 0 || (owner = owner_of(p, g, err)) < 0) {
                status = MMNC_ENOMEM;
                goto cleanup;
            }
            y0 = g - p->y0; /* local index on the owner */
            int64_t hdr[1] = {p->dist->rank == owner ? P->rowptr[y0 + 1] - P->rowptr[y0] : 0};
            p->dist->bcast(p->dist, hdr, sizeof hdr, owner);
            len = hdr[0];
            if (len > 0) {
                double *buf = NULL;
                MMNC_ALLOC(buf, 2 * len + 1, err, status);
                if (p->dist->rank == owner) {
                    for (mmnc_int e = P->rowptr[y0], i = 0; e < P->rowptr[y0 + 1]; e++, i++) {
                        buf[2 * i] = (double)P->colind[e];
                        buf[2 * i + 1] = P->val[e] / p->py[y0] / p->px[P->colind[e]];
                    }
                    buf[2 * len] = norm2[y0];
                }
                p->dist->bcast(p->dist, buf, (size_t)(2 * len + 1) * sizeof(double), owner);
                for (mmnc_int i = 0; i < len; i++) center[(mmnc_int)buf[2 * i]] = buf[2 * i + 1];
                cnorm = buf[2 * len];
                mmnc_i_free(buf);
            } else {
                cnorm = 0.0;
            }
        }
#pragma omp parallel for schedule(dynamic, 256) if (p->nnz > MMNC_I_OMP_MIN_WORK)
        for (mmnc_int y = 0; y < ny; y++) {
            double dot = 0.0;
            for (mmnc_int e = P->rowptr[y]; e < P->rowptr[y + 1]; e++) dot += P->val[e] / p->py[y] * center[P->colind[e]];
            double d = norm2[y] + cnorm - 2.0 * dot;
            if (d < 0.0) d = 0.0;
            if (d < d2[y]) d2[y] = d, labels[y] = c;
        }
        memset(center, 0, (size_t)nx * sizeof(double)); /* O(|X|) per seed, k seeds */
    }
cleanup:
    mmnc_i_free(norm2);
    mmnc_i_free(d2);
    mmnc_i_free(w);
    mmnc_i_free(center);
    return status;
}

/* Weighted k-means (k-means++ seeding, then Lloyd) of n points in R^d: the
 * rows of p (distributed: this rank's rows; the seeds are drawn and the
 * centroids summed over all ranks). */
static int kmeans_dense(const mmnc_pmf *p, mmnc_int n, mmnc_int d, const double *X, const double *wt, mmnc_int k,
                        mmnc_rng *rng, mmnc_int *labels, mmnc_err *err)
{
    int dist = mmnc_i_distributed(p);
    double *C = NULL, *d2 = NULL, *w = NULL, *cw = NULL;
    int status = MMNC_OK;
    MMNC_ALLOC(C, k * (d ? d : 1), err, status);
    MMNC_ALLOC(d2, n, err, status);
    MMNC_ALLOC(w, n, err, status);
    MMNC_ALLOC(cw, k, err, status);
    for (mmnc_int i = 0; i < n; i++) d2[i] = INFINITY, labels[i] = 0;
    for (mmnc_int c = 0; c < k; c++) {
        mmnc_int i0;
        const double *wc = wt;
        if (c > 0) {
            for (mmnc_int i = 0; i < n; i++) w[i] = wt[i] * d2[i];
            wc = w;
        }
        if (!dist) {
            i0 = draw(wc, n, rng);
            memcpy(C + c * d, X + i0 * d, (size_t)d * sizeof(double));
        } else { /* the seed point comes from the rank that holds it */
            mmnc_int g = draw_rows(p, wc, rng, err);
            int owner = g < 0 ? -1 : owner_of(p, g, err);
            if (owner < 0) {
                status = MMNC_ENOMEM;
                goto cleanup;
            }
            if (p->dist->rank == owner) memcpy(C + c * d, X + (g - p->y0) * d, (size_t)d * sizeof(double));
            p->dist->bcast(p->dist, C + c * d, (size_t)d * sizeof(double), owner);
        }
#pragma omp parallel for schedule(static) if (n * d > MMNC_I_OMP_MIN_WORK)
        for (mmnc_int i = 0; i < n; i++) {
            double s = 0.0;
            for (mmnc_int j = 0; j < d; j++) {
                double t = X[i * d + j] - C[c * d + j];
                s += t * t;
            }
            if (s < d2[i]) d2[i] = s, labels[i] = c;
        }
    }
    for (int it = 0; it < 100; it++) {
        mmnc_int changed = 0;
        memset(C, 0, (size_t)(k * d) * sizeof(double));
        memset(cw, 0, (size_t)k * sizeof(double));
        for (mmnc_int i = 0; i < n; i++) {
            cw[labels[i]] += wt[i];
            for (mmnc_int j = 0; j < d; j++) C[labels[i] * d + j] += wt[i] * X[i * d + j];
        }
        mmnc_i_dsum(p, C, k * d);
        mmnc_i_dsum(p, cw, k);
        for (mmnc_int c = 0; c < k; c++)
            for (mmnc_int j = 0; j < d; j++) C[c * d + j] = cw[c] > 0 ? C[c * d + j] / cw[c] : INFINITY;
#pragma omp parallel for schedule(static) reduction(+ : changed) if (n * d * k > MMNC_I_OMP_MIN_WORK)
        for (mmnc_int i = 0; i < n; i++) {
            mmnc_int best = labels[i];
            double bd = INFINITY;
            for (mmnc_int c = 0; c < k; c++) {
                if (!(cw[c] > 0)) continue;
                double s = 0.0;
                for (mmnc_int j = 0; j < d; j++) {
                    double t = X[i * d + j] - C[c * d + j];
                    s += t * t;
                }
                if (s < bd) bd = s, best = c;
            }
            if (best != labels[i]) labels[i] = best, changed++;
        }
        {
            int64_t c = changed;
            mmnc_i_disum(p, &c, 1);
            changed = c;
        }
        if (!changed) break;
    }
cleanup:
    mmnc_i_free(C);
    mmnc_i_free(d2);
    mmnc_i_free(w);
    mmnc_i_free(cw);
    return status;
}

int mmnc_i_spectral_embedding(const mmnc_pmf *p, mmnc_int k, const mmnc_params *prm, double *emb, mmnc_err *err)
{
    double *sigma = NULL, *U = NULL;
    mmnc_int r = k;
    int status = MMNC_OK;
    if (k < 2) return MMNC_OK;
    if (r > p->nx) r = p->nx;
    if (r > p->ny_all) r = p->ny_all;
    MMNC_ALLOC(sigma, r, err, status);
    MMNC_ALLOC(U, (p->ny ? p->ny : 1) * r, err, status);
    /* its iterations reported as restart -1 (mmnc_params.progress) */
    status = mmnc_i_svds_progress(p, r, 1e-4, 40, prm->seed, prm->progress, prm->progress_ctx, -1, sigma, U, err);
    if (status == MMNC_ENOCONV) status = MMNC_OK; /* a start needs no precision */
    if (status != MMNC_OK) goto cleanup;
    for (mmnc_int y = 0; y < p->ny; y++) {
        double s = 1.0 / sqrt(p->py[y]);
        for (mmnc_int j = 1; j < k; j++) emb[y * (k - 1) + j - 1] = j < r ? U[y * r + j] * s : 0.0;
    }
cleanup:
    mmnc_i_free(sigma);
    mmnc_i_free(U);
    return status;
}

int mmnc_i_init_labels(const mmnc_pmf *p, mmnc_int k, int method, const double *emb, mmnc_rng *rng,
                       mmnc_int *labels, mmnc_err *err)
{
    int status = MMNC_OK;
    if (k == 1) {
        for (mmnc_int y = 0; y < p->ny; y++) labels[y] = 0;
        return MMNC_OK;
    }
    switch (method) {
    case MMNC_INIT_RANDOM:
        /* distributed: every rank draws the labels of all rows and keeps its
         * own, so that the labels and the generator's state are those of one
         * process (O(|Y|) draws, small next to an iteration) */
        for (mmnc_int y = 0; y < p->ny_all; y++) {
            mmnc_int z = mmnc_rng_below(rng, k);
            if (y >= p->y0 && y < p->y0 + p->ny) labels[y - p->y0] = z;
        }
        break;
    case MMNC_INIT_KMEANSPP:
        status = kmeanspp_rows(p, k, rng, labels, err);
        break;
    case MMNC_INIT_SPECTRAL:
        if (!emb) return mmnc_i_err(err, MMNC_EINVAL, "spectral start without an embedding");
        status = kmeans_dense(p, p->ny, k - 1, emb, p->py, k, rng, labels, err);
        break;
    default:
        return mmnc_i_err(err, MMNC_EINVAL, "unknown initialisation %d", method);
    }
    if (status == MMNC_OK) mmnc_i_fill_empty(p, k, labels, NULL, NULL, rng);
    return status;
}
