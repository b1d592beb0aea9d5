/*
 * coupling.c -- statistics of a clustering kernel W = P_{Z|Y}: P_Z, the
 * singular values of B_{Z,X} = [P_Z]^{-1/2} W P_{Y,X} [P_X]^{-1/2}, its
 * Frobenius and nuclear norms, I(X;Z) and its local approximation
 * (||B_{Z,X}||_F^2 - 1) / 2 (paper, Proposition 2), and the most
 * characteristic columns of each cluster.
 */
#include <math.h>
#include <string.h>

#include "linalg/kernel_i.h"

int mmnc_stats_init(mmnc_stats *s, mmnc_int k, mmnc_err *err)
{
    int status = MMNC_OK;
    memset(s, 0, sizeof *s);
    s->k = k;
    MMNC_CALLOC(s->pz, k, err, status);
    MMNC_CALLOC(s->sigma, k, err, status);
    return MMNC_OK;
cleanup:
    mmnc_stats_free(s);
    return status;
}

void mmnc_stats_free(mmnc_stats *s)
{
    if (!s) return;
    mmnc_i_free(s->pz);
    mmnc_i_free(s->sigma);
    s->pz = s->sigma = NULL;
}

/* Fill s from T = P_{Z,X}^T and pz (both already computed). */
int mmnc_i_stats_from(const mmnc_pmf *p, mmnc_int k, const double *T, const double *pz, mmnc_stats *s,
                      mmnc_err *err)
{
    double *U = NULL;
    int status = MMNC_OK;
    MMNC_ALLOC(U, k * k, err, status);
    if ((status = mmnc_i_spectrum(p, k, T, pz, s->sigma, U, err)) != MMNC_OK) goto cleanup;
    memcpy(s->pz, pz, (size_t)k * sizeof(double));
    s->frob = 0.0;
    s->nuclear = 0.0;
    s->empty = 0;
    for (mmnc_int z = 0; z < k; z++) {
        s->frob += s->sigma[z] * s->sigma[z];
        s->nuclear += s->sigma[z];
        if (!(pz[z] > 0.0)) s->empty++;
    }
    s->mi_local = 0.5 * (s->frob - 1.0);
    s->frob = sqrt(s->frob);
    s->mi = mmnc_i_mutual_info(p, k, T, pz);
cleanup:
    mmnc_i_free(U);
    return status;
}

int mmnc_coupling_stats(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels, const double *W,
                        mmnc_stats *out, mmnc_err *err)
{
    double *T = NULL, *pz = NULL;
    int64_t *fix = NULL;
    int status = MMNC_OK;
    if (!p || !out || (!labels && !W) || (labels && W))
        return mmnc_i_err(err, MMNC_EINVAL, "mmnc_coupling_stats: give exactly one of labels and W");
    if (k < 1) return mmnc_i_err(err, MMNC_EINVAL, "k must be at least 1");
    if (out->k != k || !out->pz || !out->sigma)
        return mmnc_i_err(err, MMNC_EINVAL, "mmnc_coupling_stats: stats not initialised for k = %lld", (long long)k);
    if (labels) {
        for (mmnc_int y = 0; y < p->ny; y++)
            if (labels[y] < 0 || labels[y] >= k)
                return mmnc_i_err(err, MMNC_EINVAL, "label of row %lld is %lld, outside 0..%lld", (long long)y,
                                  (long long)labels[y], (long long)k - 1);
    } else {
        for (mmnc_int y = 0; y < p->ny; y++) {
            double s = 0.0;
            for (mmnc_int z = 0; z < k; z++) {
                double w = W[y * k + z];
                if (!(w >= 0.0) || !isfinite(w))
                    return mmnc_i_err(err, MMNC_EINVAL, "W[%lld, %lld] = %g is not a probability", (long long)z,
                                      (long long)y, w);
                s += w;
            }
            if (fabs(s - 1.0) > 1e-8)
                return mmnc_i_err(err, MMNC_EINVAL, "column %lld of W sums to %.12g, not 1", (long long)y, s);
        }
    }
    MMNC_ALLOC(T, p->nx * k, err, status);
    MMNC_ALLOC(pz, k, err, status);
    if (labels) { /* exact sums: the same bits for any number of ranks */
        MMNC_ALLOC(fix, mmnc_i_fix_work(p, k), err, status);
        mmnc_i_pzx_fix(p, k, labels, T, pz, fix);
    } else {
        mmnc_i_pzx(p, k, NULL, W, T);
        mmnc_i_pz(p, k, NULL, W, pz);
    }
    status = mmnc_i_stats_from(p, k, T, pz, out, err);
cleanup:
    mmnc_i_free(T);
    mmnc_i_free(pz);
    mmnc_i_free(fix);
    return status;
}

/* Min-heap of (score, col) of size n, smallest score at the root. */
static void heap_push(double *hs, mmnc_int *hc, mmnc_int *size, mmnc_int cap, double s, mmnc_int c)
{
    mmnc_int i;
    if (*size < cap) {
        i = (*size)++;
        while (i > 0) {
            mmnc_int parent = (i - 1) / 2;
            if (hs[parent] <= s) break;
            hs[i] = hs[parent];
            hc[i] = hc[parent];
            i = parent;
        }
        hs[i] = s;
        hc[i] = c;
        return;
    }
    if (s <= hs[0]) return;
    i = 0;
    for (;;) {
        mmnc_int l = 2 * i + 1, r = l + 1, m = i;
        double ms = s;
        if (l < cap && hs[l] < ms) m = l, ms = hs[l];
        if (r < cap && hs[r] < ms) m = r, ms = hs[r];
        if (m == i) break;
        hs[i] = hs[m];
        hc[i] = hc[m];
        i = m;
    }
    hs[i] = s;
    hc[i] = c;
}

int mmnc_top_columns(const mmnc_pmf *p, const mmnc_result *r, mmnc_int ntop, mmnc_int *cols, double *score,
                     mmnc_err *err)
{
    double *T = NULL, *hs = NULL;
    mmnc_int *hc = NULL, k;
    int status = MMNC_OK;
    if (!p || !r || !cols || !score || ntop < 1)
        return mmnc_i_err(err, MMNC_EINVAL, "mmnc_top_columns: bad arguments");
    k = r->k;
    MMNC_ALLOC(T, p->nx * k, err, status);
    MMNC_ALLOC(hs, ntop, err, status);
    MMNC_ALLOC(hc, ntop, err, status);
    mmnc_i_pzx(p, k, NULL, r->W, T);
    for (mmnc_int z = 0; z < k; z++) {
        mmnc_int size = 0;
        double pz = r->stats.pz[z];
        if (pz > 0.0)
            for (mmnc_int x = 0; x < p->nx; x++) {
                double q = T[x * k + z] / pz;
                if (q > 0.0) heap_push(hs, hc, &size, ntop, q * log(q / p->px[x]), x);
            }
        /* Sort the heap descending by score (ties by column) into the output. */
        for (mmnc_int i = 0; i < ntop; i++) {
            cols[z * ntop + i] = -1;
            score[z * ntop + i] = 0.0;
        }
        for (mmnc_int i = 0; i < size; i++) {
            mmnc_int pos = i;
            double s = hs[i];
            mmnc_int c = hc[i];
            while (pos > 0 && (score[z * ntop + pos - 1] < s ||
                               (score[z * ntop + pos - 1] == s && cols[z * ntop + pos - 1] > c))) {
                score[z * ntop + pos] = score[z * ntop + pos - 1];
                cols[z * ntop + pos] = cols[z * ntop + pos - 1];
                pos--;
            }
            score[z * ntop + pos] = s;
            cols[z * ntop + pos] = c;
        }
    }
cleanup:
    mmnc_i_free(T);
    mmnc_i_free(hs);
    mmnc_i_free(hc);
    return status;
}
