/*
 * model.c -- saved models (docs/model-format.md) and the out-of-sample rule
 * that assigns rows not seen in training.
 *
 * A model keeps the learned joint P_{Z,X} = W P_{Y,X}, its marginals P_Z,
 * P_X, the column ids and provenance.  A new row y enters only through its
 * column distribution r(x) = P(x|y) (its values over the known columns,
 * normalised) and, for the soft probabilities of the information rule, its
 * counts n(x).  Each objective gives its own rule, derived by adding y with
 * a small mass e to the training data and asking which assignment raises the
 * objective most to first order in e.
 *
 * 1. Information moves (MMNC_ALG_INFORMATION, or Algorithm 2 followed by
 *    MMNC_REFINE_CHOSEN / MMNC_REFINE_EACH), and a Dirichlet mixture's
 *    model without its alpha, beta and row counts (written before format
 *    version 3).  The objective is I(X;Z).  Putting y into z changes it by
 *
 *        e sum_x r(x) log( P(x|z) / P(x) ) + (terms that do not depend on z) + O(e^2),
 *
 *    so y goes to argmax_z sum_x r(x) log q(x|z), the cluster whose column
 *    distribution gives the row the highest likelihood.  A cluster that never
 *    met a column x would give it probability 0 (log 0), so q is the
 *    cluster's distribution smoothed toward P_X by a pseudo-mass a, exactly
 *    as the leave-one-row-out selection score does (src/cluster/select.c):
 *
 *        q(x|z) = ( P(z,x) + a P(x) ) / ( P(z) + a ),  a = alpha / |Y_train|,
 *
 *    alpha in average training rows (mmnc_result.restart_alpha of the kept
 *    start under the predictive selection; else chosen the same way, by the
 *    leave-one-row-out predictive information of the returned labels over
 *    the same grid, src/cluster/select.c).  Soft probabilities:
 *    the posterior of a mixture of multinomials with weights P_Z and
 *    components q(.|z), given the row's values n(x) as counts:
 *
 *        P(z | y) = P_Z(z) prod_x q(x|z)^n(x) / sum_z' (...),
 *
 *    a softmax of log P_Z(z) + sum_x n(x) log q(x|z).  The scale of the
 *    values matters here (and only here): doubling every count squares the
 *    likelihood ratios, as more evidence should; rows of normalised
 *    frequencies get flat probabilities.  The label is the argmax of the
 *    likelihood (without the prior), the first-order rule above.
 *
 * 2. Algorithm 2 with hard steps and no refinement.  Algorithm 2's own
 *    assignment step (src/cluster/nuclear.c), whose scores come from the SVD of
 *    B_{Z,X} = U S V^T, recomputed from the stored P_{Z,X} (a k x k Gram
 *    matrix):
 *
 *        c(z) = sum_j s(j) Mp(j, z),  s(j) = sum_x r(x) P(j,x) / P(x),
 *        Mp = [P_Z]^{-1/2} U_+ S_+^{-1} U_+^T [P_Z]^{-1/2},
 *
 *    y goes to argmax_z c(z) (the Ky Fan linearisation of ||B_{Z,X}||_* at
 *    the learned coupling, maximised over the new column of W).  The step is
 *    hard and so is the training W: the probabilities are one-hot.  The
 *    same rule serves Algorithm 2 with a prescribed P_Z (a soft LP result):
 *    a row of negligible mass does not move the marginal, so the LP's step
 *    for it is the unconstrained argmax; its probabilities are one-hot.
 *
 * 3. Algorithm 1 (soft, ||B_{Z,X}||_F^2 with a target P_Z).  The gradient of
 *    ||B_{Z,X}||_F^2 = sum_{z,x} P(z,x)^2 / (P(z) P(x)) in the new column of
 *    W, at the (held) marginal P_Z, per unit of the row's mass, is
 *    2 h(z), h(z) = sum_x r(x) P(x|z) / P(x); Algorithm 1's projected step
 *    moves the column from the stationary column P_Z along P_Z(z) h(z) (its
 *    projection is weighted by sqrt(P_Z) in A = [P_Z]^{-1/2} W [P_Y]^{1/2}).
 *    Normalised, that direction is
 *
 *        P(z | y) = P_Z(z) h(z) = sum_x r(x) P(z | x),
 *
 *    the row's columns passed through the learned channel P_{Z|X}: a soft
 *    assignment that sums to 1 by construction.  The label is its argmax
 *    (as mmnc_cluster labels by argmax W).  The best single-row response at
 *    fixed P_Z would be argmax h(z), a vertex that favours small clusters;
 *    Algorithm 1 keeps its marginal by the penalty, which the P_Z weight
 *    stands for here.
 *
 * 4. The Dirichlet mixture (MMNC_ALG_DMM, with cluster_rows, dmm_alpha,
 *    dmm_beta).  Its evidence E (docs/dmm.md) is a likelihood, so the rule
 *    needs no first-order argument: a new row y, its values n(x) as
 *    counts (n their sum), joins z with the probability the mixture gives
 *    it given the training partition, the score of its single-row move,
 *
 *        log P(z | y) = log(m_z + alpha)
 *                     + sum_x [lgamma(N_zx + n(x) + beta) - lgamma(N_zx + beta)]
 *                     - [lgamma(N_z + n + V beta) - lgamma(N_z + V beta)] + const,
 *
 *    m_z the training rows of z, N_zx = P(z,x) N and N_z = P(z) N with N
 *    the training mass, V the columns.  A co-clustering model (l > 0) is
 *    the mixture over the L column clusters (docs/algorithms.md,
 *    "Co-clustering"): the row's counts summed by column cluster, n(w),
 *    in place of n(x), N_zw = P(z,w) N in place of N_zx, and L in place
 *    of V (the columns' shares within their cluster do not depend on z).
 *    The label is its argmax, the probabilities its softmax.  A training
 *    row predicted again is counted in its own cluster as well, so it
 *    nearly always keeps its training label.
 *
 * Every rule but the mixture's gives a row the same label at any scale;
 * columns the model does not know are ignored, and a row without mass on a
 * known column gets label -1 and zero probabilities.  Rows are independent and
 * each is computed serially in a fixed order: the same bits for any number
 * of threads.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "io/io_i.h"
#include "cluster/solver_i.h"

#define MOD_VERSION 3
#define MOD_HEADER 512    /* version 3; versions 1 and 2: MOD_HEADER_V2 */
#define MOD_HEADER_V2 384
#define MOD_ALIGN 64
#define MOD_NSEC 12       /* version 3's section table; versions 1 and 2: 8 */

static const unsigned char MAGIC[8] = {0x89, 'M', 'M', 'O', 'D', '\r', '\n', 0x1a};

enum { S_PX, S_PZ, S_PZX, S_IDS, S_VERSION, S_OPTIONS, S_COLS, S_HELD, S_DMM, S_USED };
static const char *const SEC_NAME[S_USED] = {"P_X", "P_Z", "P_{Z,X}", "column id", "version", "options",
                                             "column clusters", "held rows", "Dirichlet mixture"};

enum { H_VERSION = 8, H_HEADER_BYTES = 12, H_FILE_BYTES = 16, H_CHECKSUM = 24, H_FLAGS = 32, H_ALG = 36,
       H_REFINE = 40, H_HARD = 44, H_K = 48, H_NCOLS = 56, H_ROWS = 64, H_MASS = 72, H_ALPHA = 80,
       H_OBJECTIVE = 88, H_MI = 96, H_SEED = 104, H_HASH = 112, H_L = 120, H_TABLE = 128, H_SLOT = 32 };

/* Little-endian doubles of the file, bit for bit. */
static double getf(const unsigned char *p)
{
    uint64_t u = mmnc_i_get64(p);
    double d;
    memcpy(&d, &u, 8);
    return d;
}
static void putf(unsigned char *p, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    mmnc_i_put64(p, u);
}

void mmnc_model_free(mmnc_model *m)
{
    if (!m) return;
    if (m->col_ids)
        for (mmnc_int j = 0; j < m->ncols; j++) mmnc_i_free(m->col_ids[j]);
    mmnc_i_free(m->col_ids);
    mmnc_i_free(m->px);
    mmnc_i_free(m->pz);
    mmnc_i_free(m->pzx);
    mmnc_i_free(m->version);
    mmnc_i_free(m->options);
    mmnc_i_free(m->col_label);
    mmnc_i_free(m->block_pz);
    mmnc_i_free(m->held_hash);
    mmnc_i_free(m->held_label);
    mmnc_i_free(m->cluster_rows);
    mmnc_i_free(m);
}

/* ------------------------------------------------------------------------ */
/* The content hash of a row (held rows)                                     */
/* ------------------------------------------------------------------------ */

static int cmp_pair(const void *a, const void *b)
{
    mmnc_int x = ((const mmnc_int *)a)[0], y = ((const mmnc_int *)b)[0];
    return (x > y) - (x < y);
}

/* The row's (column, value) pairs sorted by column, the values summed in
 * that order and each divided by the sum and rounded to float: the same
 * bits for the row at any scale and in any column order, up to the values
 * within a few ulps of a float's rounding boundary (mmnc.h, "Held rows"). */
uint64_t mmnc_model_row_hash(mmnc_int n, const mmnc_int *cols, const double *val, mmnc_int *scratch)
{
    mmnc_int m = 0;
    double sum = 0.0;
    uint64_t h = 0x6d6d6e63686c6452ULL; /* "mmnchldR" */
    for (mmnc_int i = 0; i < n; i++)
        if (cols[i] >= 0 && val[i] != 0.0) scratch[2 * m] = cols[i], scratch[2 * m + 1] = i, m++;
    if (m == 0) return 0;
    qsort(scratch, (size_t)m, 2 * sizeof(mmnc_int), cmp_pair);
    for (mmnc_int i = 0; i < m; i++) sum += val[scratch[2 * i + 1]];
    if (!(sum > 0.0) || !isfinite(sum)) return 0;
    for (mmnc_int i = 0; i < m; i++) {
        float f = (float)(val[scratch[2 * i + 1]] / sum);
        uint32_t bits;
        memcpy(&bits, &f, 4);
        h = mmnc_i_mix64(h ^ (uint64_t)scratch[2 * i]) + 0x9e3779b97f4a7c15ULL;
        h = mmnc_i_mix64(h ^ bits) + 0x9e3779b97f4a7c15ULL;
    }
    return h ? h : 1;
}

/* The held row of hash h: its index in m->held_hash, or -1. */
static mmnc_int held_find(const mmnc_model *m, uint64_t h)
{
    mmnc_int lo = 0, hi = m->nheld;
    while (lo < hi) {
        mmnc_int mid = lo + (hi - lo) / 2;
        if (m->held_hash[mid] < h) lo = mid + 1;
        else hi = mid;
    }
    return lo < m->nheld && m->held_hash[lo] == h ? lo : -1;
}

/* ------------------------------------------------------------------------ */
/* Column ids: an open-addressing table of the model's ids                   */
/* ------------------------------------------------------------------------ */

typedef struct idtab {
    mmnc_int *slot; /* model column + 1, or 0 = free */
    uint64_t mask;
} idtab;

/* Build the table; *dup = the second of two equal ids (then MMNC_EINVAL is
 * the caller's to report), else -1. */
static int idtab_build(char *const *ids, mmnc_int n, idtab *t, mmnc_int *dup, mmnc_err *err)
{
    uint64_t size = 16;
    *dup = -1;
    while (size < 2 * (uint64_t)n) size <<= 1;
    t->mask = size - 1;
    if (!(t->slot = mmnc_i_calloc((size_t)size, sizeof(mmnc_int))))
        return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    for (mmnc_int j = 0; j < n; j++) {
        uint64_t h = mmnc_i_fnv1a(ids[j], strlen(ids[j])) & t->mask;
        while (t->slot[h]) {
            if (!strcmp(ids[t->slot[h] - 1], ids[j])) {
                *dup = j;
                return MMNC_OK;
            }
            h = (h + 1) & t->mask;
        }
        t->slot[h] = j + 1;
    }
    return MMNC_OK;
}

static mmnc_int idtab_find(const idtab *t, char *const *ids, const char *s)
{
    uint64_t h = mmnc_i_fnv1a(s, strlen(s)) & t->mask;
    while (t->slot[h]) {
        if (!strcmp(ids[t->slot[h] - 1], s)) return t->slot[h] - 1;
        h = (h + 1) & t->mask;
    }
    return -1;
}

/* MMNC_OK if the ids are distinct, else MMNC_EINVAL (code) naming the id. */
static int ids_distinct(char *const *ids, mmnc_int n, int code, const char *where, mmnc_err *err)
{
    idtab t = {NULL, 0};
    mmnc_int dup;
    int status = idtab_build(ids, n, &t, &dup, err);
    mmnc_i_free(t.slot);
    if (status == MMNC_OK && dup >= 0)
        status = mmnc_i_err(err, code, "%scolumn id '%s' is given to two columns (the second is column %lld): "
                                      "a model matches new data by column id, so ids must be distinct",
                            where, ids[dup], (long long)dup + 1);
    return status;
}

/* ------------------------------------------------------------------------ */
/* From a clustering result                                                  */
/* ------------------------------------------------------------------------ */

static int cmp_held(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* The held rows of r (r->fixed) as (hash, label) pairs, every rank's in a
 * distributed run (an allgather of the counts, then a broadcast from each
 * rank), sorted by hash; a hash held at two labels is dropped, one held at
 * one label kept once. */
static int held_rows(const mmnc_pmf *p, const mmnc_result *r, mmnc_model *m, mmnc_err *err)
{
    const mmnc_csr *P = p->P;
    const mmnc_dist *d = mmnc_i_distributed(p) ? p->dist : NULL;
    mmnc_int mine = 0, total = 0, maxrow = 1, keep = 0, off = 0;
    int64_t *cnt = NULL;
    uint64_t *pair = NULL;
    mmnc_int *scratch = NULL;
    int status = MMNC_OK, ok;
    for (mmnc_int y = 0; r->fixed && y < r->ny; y++)
        if (r->fixed[y]) {
            mine++;
            if (P->rowptr[y + 1] - P->rowptr[y] > maxrow) maxrow = P->rowptr[y + 1] - P->rowptr[y];
        }
    if (d) {
        int64_t me = mine;
        ok = (cnt = mmnc_i_malloc((size_t)d->size, sizeof(int64_t))) != NULL;
        if ((status = mmnc_i_agree(d, ok ? MMNC_OK : mmnc_i_err(err, MMNC_ENOMEM, "out of memory"), err)) != MMNC_OK)
            goto cleanup;
        d->allgather(d, &me, sizeof me, cnt);
        for (int q = 0; q < d->size; q++) {
            if (q < d->rank) off += (mmnc_int)cnt[q];
            total += (mmnc_int)cnt[q];
        }
    } else {
        total = mine;
    }
    if (total == 0) goto cleanup;
    pair = mmnc_i_malloc((size_t)total * 2, sizeof(uint64_t));
    scratch = mmnc_i_malloc((size_t)maxrow * 2, sizeof(mmnc_int));
    ok = pair && scratch;
    status = ok ? MMNC_OK : mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    if (d) status = mmnc_i_agree(d, status, err);
    if (status != MMNC_OK) goto cleanup;
    for (mmnc_int y = 0, i = off; r->fixed && y < r->ny; y++)
        if (r->fixed[y]) {
            mmnc_int e0 = P->rowptr[y];
            pair[2 * i] = mmnc_model_row_hash(P->rowptr[y + 1] - e0, P->colind + e0, P->val + e0, scratch);
            pair[2 * i + 1] = (uint64_t)r->label[y];
            i++;
        }
    if (d) {
        mmnc_int at = 0;
        for (int q = 0; q < d->size; at += (mmnc_int)cnt[q], q++)
            if (cnt[q] > 0) d->bcast(d, pair + 2 * at, (size_t)cnt[q] * 2 * sizeof(uint64_t), q);
    }
    qsort(pair, (size_t)total, 2 * sizeof(uint64_t), cmp_held);
    for (mmnc_int i = 0; i < total;) { /* a run of one hash: kept once if it has one label */
        mmnc_int j = i + 1, same = 1;
        while (j < total && pair[2 * j] == pair[2 * i]) same &= pair[2 * j + 1] == pair[2 * i + 1], j++;
        if (same && pair[2 * i] != 0) pair[2 * keep] = pair[2 * i], pair[2 * keep + 1] = pair[2 * i + 1], keep++;
        i = j;
    }
    if (keep > 0) {
        MMNC_ALLOC(m->held_hash, keep, err, status);
        MMNC_ALLOC(m->held_label, keep, err, status);
        for (mmnc_int i = 0; i < keep; i++) m->held_hash[i] = pair[2 * i], m->held_label[i] = (mmnc_int)pair[2 * i + 1];
        m->nheld = keep;
    }
cleanup:
    mmnc_i_free(cnt);
    mmnc_i_free(pair);
    mmnc_i_free(scratch);
    return status;
}

int mmnc_model_from_result(const mmnc_pmf *p, const mmnc_data *d, const mmnc_result *r, const mmnc_params *prm,
                           uint64_t input_hash, const char *options, mmnc_model **out, mmnc_err *err)
{
    mmnc_model *m = NULL;
    double *T = NULL;
    int64_t *fix = NULL;
    int status = MMNC_OK, hard_steps;
    mmnc_int k, nx;
    char buf[32];
    if (!p || !r || !prm || !out) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_model_from_result: NULL argument");
    *out = NULL;
    k = r->k;
    nx = p->nx;
    if (r->ny != p->ny || k < 1 || !r->W || !r->label)
        return mmnc_i_err(err, MMNC_EINVAL, "mmnc_model_from_result: the result (%lld rows) is not of this pmf "
                                            "(%lld rows)", (long long)r->ny, (long long)p->ny);
    if (d && (!d->A || d->A->ncols != nx))
        return mmnc_i_err(err, MMNC_EINVAL, "mmnc_model_from_result: the data has %lld columns, the pmf %lld",
                          d && d->A ? (long long)d->A->ncols : -1LL, (long long)nx);
    /* which W the solver left: one-hot after hard steps (labels suffice) */
    hard_steps = r->algorithm == MMNC_ALG_INFORMATION || r->algorithm == MMNC_ALG_DMM ||
                 (r->algorithm == MMNC_ALG_NUCLEAR && !prm->pz);
    MMNC_CALLOC(m, 1, err, status);
    m->k = k;
    m->ncols = nx;
    m->algorithm = r->algorithm;
    m->refine = r->refine;
    m->hard = hard_steps;
    m->alpha = r->restart_alpha && r->best_restart >= 0 ? r->restart_alpha[r->best_restart] : 1.0;
    if (!r->restart_alpha && hard_steps) { /* the selection did not choose one: the same cross-validation */
        double score;
        if ((status = mmnc_i_loo_score(p, k, r->label, &score, &m->alpha, err)) != MMNC_OK) goto cleanup;
    }
    if (!(m->alpha > 0.0) || !isfinite(m->alpha)) m->alpha = 1.0;
    m->objective = r->objective;
    m->mutual_information = r->stats.mi;
    m->train_rows = p->ny_all;
    m->train_mass = p->total;
    m->seed = prm->seed;
    m->input_hash = input_hash;
    MMNC_ALLOC(m->px, nx, err, status);
    MMNC_ALLOC(m->pz, k, err, status);
    MMNC_ALLOC(m->pzx, k * nx, err, status);
    MMNC_ALLOC(T, nx * k, err, status);
    memcpy(m->px, p->px, (size_t)nx * sizeof(double));
    if (hard_steps) { /* exact sums (collective): the same bits for any number of ranks */
        MMNC_ALLOC(fix, mmnc_i_fix_work(p, k), err, status);
        mmnc_i_pzx_fix(p, k, r->label, T, m->pz, fix);
    } else {
        mmnc_i_pzx(p, k, NULL, r->W, T);    /* collective */
        mmnc_i_pz(p, k, NULL, r->W, m->pz); /* collective */
    }
    for (mmnc_int z = 0; z < k; z++)
        for (mmnc_int x = 0; x < nx; x++) m->pzx[z * nx + x] = T[x * k + z];
    MMNC_CALLOC(m->col_ids, nx, err, status);
    for (mmnc_int x = 0; x < nx; x++) {
        const char *id;
        if (d) id = mmnc_data_col_id(d, x, buf);
        else snprintf(buf, sizeof buf, "%lld", (long long)x + 1), id = buf;
        if (!(m->col_ids[x] = mmnc_i_strdup(id))) {
            status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
            goto cleanup;
        }
    }
    if ((status = ids_distinct(m->col_ids, nx, MMNC_EINVAL, "", err)) != MMNC_OK) goto cleanup;
    if (r->l > 0) { /* co-clustering: the columns' clusters and the blocks */
        mmnc_int l = r->l;
        if (r->nx != nx || !r->col_label || !r->block_pz) {
            status = mmnc_i_err(err, MMNC_EINVAL, "mmnc_model_from_result: the result's column clusters (%lld "
                                                  "columns) are not of this pmf (%lld columns)", (long long)r->nx,
                                (long long)nx);
            goto cleanup;
        }
        MMNC_ALLOC(m->col_label, nx, err, status);
        MMNC_ALLOC(m->block_pz, k * l, err, status);
        memcpy(m->col_label, r->col_label, (size_t)nx * sizeof(mmnc_int));
        memcpy(m->block_pz, r->block_pz, (size_t)(k * l) * sizeof(double));
        m->l = l;
    }
    if ((status = held_rows(p, r, m, err)) != MMNC_OK) goto cleanup;
    if (r->algorithm == MMNC_ALG_DMM && r->dmm_alpha > 0.0 && isfinite(r->dmm_alpha) && r->dmm_beta > 0.0 &&
        isfinite(r->dmm_beta)) { /* the mixture's rule: its alpha, beta and the rows of each cluster */
        int64_t *cnt = mmnc_i_malloc((size_t)k, sizeof(int64_t));
        m->cluster_rows = mmnc_i_malloc((size_t)k, sizeof(mmnc_int));
        status = cnt && m->cluster_rows ? MMNC_OK : mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
        if (mmnc_i_distributed(p)) status = mmnc_i_agree(p->dist, status, err);
        if (status != MMNC_OK) {
            mmnc_i_free(cnt);
            goto cleanup;
        }
        mmnc_i_label_counts(p, k, r->label, cnt); /* collective */
        for (mmnc_int z = 0; z < k; z++) m->cluster_rows[z] = (mmnc_int)cnt[z];
        mmnc_i_free(cnt);
        m->dmm_alpha = r->dmm_alpha;
        m->dmm_beta = r->dmm_beta;
    }
    if (!(m->version = mmnc_i_strdup(MMNC_VERSION_STRING)) || (options && !(m->options = mmnc_i_strdup(options)))) {
        status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
        goto cleanup;
    }
    *out = m;
    m = NULL;
cleanup:
    mmnc_i_free(T);
    mmnc_i_free(fix);
    mmnc_model_free(m);
    return status;
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct msec {
    const void *data;
    uint64_t bytes, off;
} msec;

/* The column-id string table (binary format's: u64 offsets[n+1], then the
 * NUL-terminated strings). */
static int ids_table(const mmnc_model *m, unsigned char **out, uint64_t *bytes, mmnc_err *err)
{
    uint64_t sb = 0, n = (uint64_t)m->ncols, pos = 0;
    unsigned char *b;
    for (uint64_t j = 0; j < n; j++) sb += strlen(m->col_ids[j]) + 1;
    *bytes = 8 * (n + 1) + sb;
    if (!(b = mmnc_i_malloc((size_t)*bytes, 1))) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    for (uint64_t j = 0; j < n; j++) {
        size_t len = strlen(m->col_ids[j]) + 1;
        mmnc_i_put64(b + 8 * j, pos);
        memcpy(b + 8 * (n + 1) + pos, m->col_ids[j], len);
        pos += len;
    }
    mmnc_i_put64(b + 8 * n, pos);
    *out = b;
    return MMNC_OK;
}

/* MMNC_EINVAL unless the model has what the file must hold: k, columns,
 * arrays, non-empty ids, version. */
static int check_model(const mmnc_model *m, mmnc_err *err)
{
    if (!m || m->k < 1 || m->ncols < 1 || !m->px || !m->pz || !m->pzx || !m->col_ids || !m->version)
        return mmnc_i_err(err, MMNC_EINVAL, "mmnc_model_write: incomplete model (k, ncols, arrays, ids, version)");
    if (m->l < 0 || (m->l > 0 && (!m->col_label || !m->block_pz)) || m->nheld < 0 ||
        (m->nheld > 0 && (!m->held_hash || !m->held_label)))
        return mmnc_i_err(err, MMNC_EINVAL, "mmnc_model_write: incomplete model (column clusters or held rows)");
    for (mmnc_int j = 0; j < m->ncols && m->l > 0; j++)
        if (m->col_label[j] < 0 || m->col_label[j] >= m->l)
            return mmnc_i_err(err, MMNC_EINVAL, "mmnc_model_write: column %lld has cluster %lld (expected 0 to %lld)",
                              (long long)j + 1, (long long)m->col_label[j], (long long)m->l - 1);
    for (mmnc_int i = 0; i < m->nheld; i++)
        if ((i > 0 && m->held_hash[i] <= m->held_hash[i - 1]) || m->held_label[i] < 0 || m->held_label[i] >= m->k)
            return mmnc_i_err(err, MMNC_EINVAL, "mmnc_model_write: held row %lld: hashes must increase and labels "
                                                "lie in 0..k-1", (long long)i + 1);
    for (mmnc_int j = 0; j < m->ncols; j++)
        if (!m->col_ids[j] || !m->col_ids[j][0])
            return mmnc_i_err(err, MMNC_EINVAL, "mmnc_model_write: column %lld has no id", (long long)j + 1);
    if (m->cluster_rows) {
        int ok = m->algorithm == MMNC_ALG_DMM && m->dmm_alpha > 0.0 && isfinite(m->dmm_alpha) && m->dmm_beta > 0.0 &&
                 isfinite(m->dmm_beta);
        mmnc_int sum = 0;
        for (mmnc_int z = 0; z < m->k && ok; z++) ok = m->cluster_rows[z] >= 0, sum += m->cluster_rows[z];
        if (!ok || sum != m->train_rows)
            return mmnc_i_err(err, MMNC_EINVAL, "mmnc_model_write: the Dirichlet mixture's part needs algorithm dmm, "
                                                "positive alpha and beta, and cluster rows >= 0 summing to the "
                                                "training rows");
    }
    return MMNC_OK;
}

int mmnc_model_write(const mmnc_model *m, const char *path, mmnc_err *err)
{
    unsigned char h[MOD_HEADER], *ids = NULL, *cols = NULL, *held = NULL, *dmm = NULL;
    static const unsigned char zeros[MOD_ALIGN] = {0};
    msec s[S_USED];
    uint64_t ids_bytes = 0, end = MOD_HEADER;
    mmnc_outfile o = {0};
    int status;
    if (!path) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_model_write: NULL path");
    if ((status = check_model(m, err)) != MMNC_OK) return status;
    if (!MMNC_I_HOST_LITTLE) return mmnc_i_err(err, MMNC_EUNSUP, "%s: model files are written on little-endian hosts only", path);
    if ((status = ids_table(m, &ids, &ids_bytes, err)) != MMNC_OK) return status;
    s[S_PX] = (msec){m->px, 8 * (uint64_t)m->ncols, 0};
    s[S_PZ] = (msec){m->pz, 8 * (uint64_t)m->k, 0};
    s[S_PZX] = (msec){m->pzx, 8 * (uint64_t)m->k * (uint64_t)m->ncols, 0};
    s[S_IDS] = (msec){ids, ids_bytes, 0};
    s[S_VERSION] = (msec){m->version, strlen(m->version), 0};
    s[S_OPTIONS] = (msec){m->options, m->options ? strlen(m->options) : 0, 0};
    s[S_COLS] = (msec){NULL, 0, 0};
    s[S_HELD] = (msec){NULL, 0, 0};
    s[S_DMM] = (msec){NULL, 0, 0};
    if (m->l > 0) { /* i64 col_label[ncols], then f64 block_pz[k l] */
        uint64_t nb = 8 * ((uint64_t)m->ncols + (uint64_t)m->k * (uint64_t)m->l);
        if (!(cols = mmnc_i_malloc((size_t)nb, 1))) { status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory"); goto cleanup; }
        for (mmnc_int j = 0; j < m->ncols; j++) mmnc_i_put64(cols + 8 * j, (uint64_t)m->col_label[j]);
        for (mmnc_int i = 0; i < m->k * m->l; i++) putf(cols + 8 * (m->ncols + i), m->block_pz[i]);
        s[S_COLS] = (msec){cols, nb, 0};
    }
    if (m->nheld > 0) { /* (u64 hash, i64 label) per held row */
        uint64_t nb = 16 * (uint64_t)m->nheld;
        if (!(held = mmnc_i_malloc((size_t)nb, 1))) { status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory"); goto cleanup; }
        for (mmnc_int i = 0; i < m->nheld; i++) {
            mmnc_i_put64(held + 16 * i, m->held_hash[i]);
            mmnc_i_put64(held + 16 * i + 8, (uint64_t)m->held_label[i]);
        }
        s[S_HELD] = (msec){held, nb, 0};
    }
    if (m->cluster_rows) { /* f64 alpha, f64 beta, i64 rows[k] */
        uint64_t nb = 16 + 8 * (uint64_t)m->k;
        if (!(dmm = mmnc_i_malloc((size_t)nb, 1))) { status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory"); goto cleanup; }
        putf(dmm, m->dmm_alpha);
        putf(dmm + 8, m->dmm_beta);
        for (mmnc_int z = 0; z < m->k; z++) mmnc_i_put64(dmm + 16 + 8 * z, (uint64_t)m->cluster_rows[z]);
        s[S_DMM] = (msec){dmm, nb, 0};
    }
    memset(h, 0, sizeof h);
    memcpy(h, MAGIC, 8);
    mmnc_i_put32(h + H_VERSION, MOD_VERSION);
    mmnc_i_put32(h + H_HEADER_BYTES, MOD_HEADER);
    mmnc_i_put32(h + H_FLAGS, 0);
    mmnc_i_put32(h + H_ALG, (uint32_t)m->algorithm);
    mmnc_i_put32(h + H_REFINE, (uint32_t)m->refine);
    mmnc_i_put32(h + H_HARD, (uint32_t)(m->hard != 0));
    mmnc_i_put64(h + H_K, (uint64_t)m->k);
    mmnc_i_put64(h + H_NCOLS, (uint64_t)m->ncols);
    mmnc_i_put64(h + H_ROWS, (uint64_t)m->train_rows);
    putf(h + H_MASS, m->train_mass);
    putf(h + H_ALPHA, m->alpha);
    putf(h + H_OBJECTIVE, m->objective);
    putf(h + H_MI, m->mutual_information);
    mmnc_i_put64(h + H_SEED, m->seed);
    mmnc_i_put64(h + H_HASH, m->input_hash);
    mmnc_i_put64(h + H_L, (uint64_t)m->l);
    for (int i = 0; i < S_USED; i++) {
        unsigned char *t = h + H_TABLE + H_SLOT * i;
        if ((i == S_OPTIONS && !m->options) || (i > S_OPTIONS && !s[i].data)) continue; /* absent */
        s[i].off = (end + MOD_ALIGN - 1) / MOD_ALIGN * MOD_ALIGN;
        end = s[i].off + s[i].bytes;
        mmnc_i_put64(t, s[i].off);
        mmnc_i_put64(t + 8, s[i].bytes);
        mmnc_i_put64(t + 16, mmnc_i_xxh64(s[i].data, (size_t)s[i].bytes, 0));
    }
    mmnc_i_put64(h + H_FILE_BYTES, end);
    mmnc_i_put64(h + H_CHECKSUM, mmnc_i_xxh64(h, MOD_HEADER, 0));
    if ((status = mmnc_outfile_open(&o, path, err)) != MMNC_OK) goto cleanup;
    fwrite(h, 1, MOD_HEADER, o.fp);
    {
        uint64_t at = MOD_HEADER;
        for (int i = 0; i < S_USED; i++) {
            if (!s[i].off) continue;
            fwrite(zeros, 1, (size_t)(s[i].off - at), o.fp);
            if (s[i].bytes) fwrite(s[i].data, 1, (size_t)s[i].bytes, o.fp);
            at = s[i].off + s[i].bytes;
        }
    }
    status = mmnc_outfile_commit(&o, err); /* checks every write */
cleanup:
    mmnc_outfile_abort(&o);
    mmnc_i_free(ids);
    mmnc_i_free(cols);
    mmnc_i_free(held);
    mmnc_i_free(dmm);
    return status;
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                   */
/* ------------------------------------------------------------------------ */

/* Fill err with "path: message"; returns code. */
static int rerr(const char *path, int code, mmnc_err *err, const char *fmt, ...) MMNC_PRINTF(4, 5);
static int rerr(const char *path, int code, mmnc_err *err, const char *fmt, ...)
{
    char msg[MMNC_ERRMSG_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return mmnc_i_err(err, code, "%s: %s", path, msg);
}

/* n doubles of the file into a new *out, each finite and >= 0 (> 0 when
 * positive), else MMNC_EFORMAT naming what. */
static int copy_f64(const char *path, const unsigned char *src, mmnc_int n, double **out, const char *what, int positive,
                    mmnc_err *err)
{
    double *a = mmnc_i_malloc((size_t)(n ? n : 1), sizeof(double));
    if (!a) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    *out = a;
    for (mmnc_int i = 0; i < n; i++) {
        a[i] = getf(src + 8 * i);
        if (!isfinite(a[i]) || a[i] < 0.0 || (positive && a[i] == 0.0))
            return rerr(path, MMNC_EFORMAT, err, "invalid %s: entry %lld is %g (expected finite and %s)", what,
                        (long long)i + 1, a[i], positive ? "> 0" : ">= 0");
    }
    return MMNC_OK;
}

/* The column-id string table: offsets from 0 to the strings' size, each
 * id non-empty and NUL-terminated (the layout ids_table writes). */
static int read_ids(const char *path, const unsigned char *b, uint64_t bytes, mmnc_model *m, mmnc_err *err)
{
    uint64_t n = (uint64_t)m->ncols, sb = bytes - 8 * (n + 1), prev = 0;
    const unsigned char *str = b + 8 * (n + 1);
    if (mmnc_i_get64(b) != 0 || mmnc_i_get64(b + 8 * n) != sb)
        return rerr(path, MMNC_EFORMAT, err, "invalid column id table: offsets must run from 0 to %llu",
                    (unsigned long long)sb);
    if (!(m->col_ids = mmnc_i_calloc((size_t)n, sizeof(char *)))) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    for (uint64_t j = 0; j < n; j++) {
        uint64_t a = mmnc_i_get64(b + 8 * j), e = mmnc_i_get64(b + 8 * (j + 1));
        if (a != prev || e <= a + 1 || e > sb || memchr(str + a, 0, (size_t)(e - a)) != str + e - 1)
            return rerr(path, MMNC_EFORMAT, err,
                        "invalid column id table: entry %llu (bytes %llu to %llu) is not one non-empty NUL-terminated id",
                        (unsigned long long)j + 1, (unsigned long long)a, (unsigned long long)e);
        if (!(m->col_ids[j] = mmnc_i_strdup((const char *)str + a))) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
        prev = e;
    }
    return MMNC_OK;
}

/* A text section (no NUL byte) as a new NUL-terminated string. */
static int read_text(const char *path, const unsigned char *b, uint64_t bytes, char **out, const char *what,
                     mmnc_err *err)
{
    if (memchr(b, 0, (size_t)bytes))
        return rerr(path, MMNC_EFORMAT, err, "invalid %s section: it holds a NUL byte", what);
    if (!(*out = mmnc_i_malloc((size_t)bytes + 1, 1))) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    memcpy(*out, b, (size_t)bytes);
    (*out)[bytes] = '\0';
    return MMNC_OK;
}

/* The header: magic, version, size, checksums, fields, section table. */
static int read_header(const char *path, const unsigned char *b, size_t len, mmnc_model *m, msec *s, mmnc_err *err)
{
    unsigned char h[MOD_HEADER];
    uint64_t sum, fbytes, prev_end;
    uint32_t version, flags;
    int hsize, nsec;
    if (len == 0) return rerr(path, MMNC_EFORMAT, err, "file is empty");
    if (memcmp(b, MAGIC, len < 8 ? len : 8) != 0)
        return rerr(path, MMNC_EFORMAT, err, "not an mmnc model (bad magic)%s",
                    mmnc_i_bin_magic(b, len) ? ": it is an mmnc binary matrix" : "");
    if (len < 12)
        return rerr(path, MMNC_EFORMAT, err, "truncated: file has %zu bytes, less than the %d-byte header", len,
                    MOD_HEADER_V2);
    version = mmnc_i_get32(b + H_VERSION);
    if (version > MOD_VERSION)
        return rerr(path, MMNC_EFORMAT, err, "model format version %u is newer than this mmnc supports (%d)", version,
                    MOD_VERSION);
    if (version == 0) return rerr(path, MMNC_EFORMAT, err, "corrupt header (format version 0)");
    memset(s, 0, S_USED * sizeof *s); /* the sections of later versions: absent */
    hsize = version >= 3 ? MOD_HEADER : MOD_HEADER_V2;
    nsec = version >= 3 ? MOD_NSEC : 8;
    prev_end = (uint64_t)hsize;
    if (len < (size_t)hsize) {
        if (len >= H_FILE_BYTES + 8)
            return rerr(path, MMNC_EFORMAT, err, "truncated: header says %llu bytes, file has %zu",
                        (unsigned long long)mmnc_i_get64(b + H_FILE_BYTES), len);
        return rerr(path, MMNC_EFORMAT, err, "truncated: file has %zu bytes, less than the %d-byte header", len, hsize);
    }
    memcpy(h, b, (size_t)hsize);
    sum = mmnc_i_get64(h + H_CHECKSUM);
    memset(h + H_CHECKSUM, 0, 8);
    if (mmnc_i_xxh64(h, (size_t)hsize, 0) != sum)
        return rerr(path, MMNC_EFORMAT, err, "corrupt header (checksum mismatch)");
    fbytes = mmnc_i_get64(h + H_FILE_BYTES);
    if (fbytes > len)
        return rerr(path, MMNC_EFORMAT, err, "truncated: header says %llu bytes, file has %zu",
                    (unsigned long long)fbytes, len);
    if (fbytes < len)
        return rerr(path, MMNC_EFORMAT, err, "%llu bytes of unexpected data after the end (header says %llu bytes, "
                    "file has %zu)", (unsigned long long)(len - fbytes), (unsigned long long)fbytes, len);
    flags = mmnc_i_get32(h + H_FLAGS);
    if (mmnc_i_get32(h + H_HEADER_BYTES) != (uint32_t)hsize)
        return rerr(path, MMNC_EFORMAT, err, "invalid header: header size %u, expected %d", mmnc_i_get32(h + H_HEADER_BYTES),
                    hsize);
    if (flags != 0)
        return rerr(path, MMNC_EFORMAT, err, "uses features this mmnc does not support (flags 0x%x)", flags);
    m->algorithm = (int)mmnc_i_get32(h + H_ALG);
    m->refine = (int)mmnc_i_get32(h + H_REFINE);
    m->hard = (int)mmnc_i_get32(h + H_HARD);
    m->k = (mmnc_int)mmnc_i_get64(h + H_K);
    m->ncols = (mmnc_int)mmnc_i_get64(h + H_NCOLS);
    m->train_rows = (mmnc_int)mmnc_i_get64(h + H_ROWS);
    m->train_mass = getf(h + H_MASS);
    m->alpha = getf(h + H_ALPHA);
    m->objective = getf(h + H_OBJECTIVE);
    m->mutual_information = getf(h + H_MI);
    m->seed = mmnc_i_get64(h + H_SEED);
    m->input_hash = mmnc_i_get64(h + H_HASH);
    m->l = version >= 2 ? (mmnc_int)mmnc_i_get64(h + H_L) : 0; /* reserved, zero, in version 1 */
    if (m->algorithm < MMNC_ALG_FROBENIUS || m->algorithm > MMNC_ALG_DMM || m->refine < MMNC_REFINE_NONE ||
        m->refine > MMNC_REFINE_CHOSEN || (m->hard != 0 && m->hard != 1))
        return rerr(path, MMNC_EFORMAT, err, "invalid header: algorithm %d (1 to 4), refine %d (0 to 2), hard %d (0 or 1)",
                    m->algorithm, m->refine, m->hard);
    if (m->k < 1 || m->ncols < 1 || (uint64_t)m->k > len / 8 || (uint64_t)m->ncols > len / 8 ||
        (uint64_t)m->k * (uint64_t)m->ncols > len / 8 || m->train_rows < m->k || !(m->alpha > 0.0) ||
        !isfinite(m->alpha) || !isfinite(m->train_mass) || !(m->train_mass > 0.0))
        return rerr(path, MMNC_EFORMAT, err,
                    "invalid header: k = %lld, %lld columns, %lld training rows of mass %g, alpha %g (expected k and "
                    "columns >= 1 that fit the file, rows >= k, positive mass and alpha)",
                    (long long)m->k, (long long)m->ncols, (long long)m->train_rows, m->train_mass, m->alpha);
    if (m->l < 0 || m->l > m->ncols || (uint64_t)m->k * (uint64_t)m->l > len / 8)
        return rerr(path, MMNC_EFORMAT, err, "invalid header: %lld column clusters (expected 0 to the %lld columns)",
                    (long long)m->l, (long long)m->ncols);
    for (int i = 0; i < nsec; i++) {
        const unsigned char *t = h + H_TABLE + H_SLOT * i;
        uint64_t off = mmnc_i_get64(t), bytes = mmnc_i_get64(t + 8), want = 0;
        int ok;
        if (i >= S_OPTIONS && off == 0 && bytes == 0) { /* absent */
            if (i < S_USED) s[i] = (msec){NULL, 0, 0};
            continue;
        }
        if (i >= S_USED || (version < 2 && i > S_OPTIONS) || (version < 3 && i > S_HELD))
            return rerr(path, MMNC_EFORMAT, err, "invalid header: unknown section %d", i);
        if (off == 0) return rerr(path, MMNC_EFORMAT, err, "invalid header: no %s section", SEC_NAME[i]);
        switch (i) {
        case S_PX: want = 8 * (uint64_t)m->ncols; break;
        case S_PZ: want = 8 * (uint64_t)m->k; break;
        case S_PZX: want = 8 * (uint64_t)m->k * (uint64_t)m->ncols; break;
        case S_IDS: want = 8 * ((uint64_t)m->ncols + 1); break;
        case S_COLS: want = 8 * ((uint64_t)m->ncols + (uint64_t)m->k * (uint64_t)m->l); break;
        case S_DMM: want = 16 + 8 * (uint64_t)m->k; break;
        default: want = 0; break;
        }
        if (i == S_HELD) ok = bytes > 0 && bytes % 16 == 0;
        else if (i == S_DMM) ok = m->algorithm == MMNC_ALG_DMM && bytes == want;
        else if (i == S_COLS) ok = m->l > 0 && bytes == want;
        else ok = (i == S_IDS || i >= S_VERSION) ? bytes >= want : bytes == want;
        if (!ok && i == S_HELD)
            return rerr(path, MMNC_EFORMAT, err, "invalid header: the %s section has %llu bytes, expected a positive "
                        "multiple of 16", SEC_NAME[i], (unsigned long long)bytes);
        if (!ok && i == S_COLS && m->l == 0)
            return rerr(path, MMNC_EFORMAT, err, "invalid header: a %s section, and 0 column clusters", SEC_NAME[i]);
        if (!ok && i == S_DMM && m->algorithm != MMNC_ALG_DMM)
            return rerr(path, MMNC_EFORMAT, err, "invalid header: a %s section in a model of algorithm %d",
                        SEC_NAME[i], m->algorithm);
        if (!ok)
            return rerr(path, MMNC_EFORMAT, err, "invalid header: the %s section has %llu bytes, expected %s%llu",
                        SEC_NAME[i], (unsigned long long)bytes, i == S_IDS ? "at least " : "", (unsigned long long)want);
        if (off % MOD_ALIGN || off < prev_end || off > len || bytes > len - off)
            return rerr(path, MMNC_EFORMAT, err, "invalid header: the %s section (%llu bytes at %llu) is misplaced",
                        SEC_NAME[i], (unsigned long long)bytes, (unsigned long long)off);
        if (mmnc_i_xxh64(b + off, (size_t)bytes, 0) != mmnc_i_get64(t + 16))
            return rerr(path, MMNC_EFORMAT, err,
                        "checksum mismatch in the %s section (bytes %llu to %llu): the file is corrupt", SEC_NAME[i],
                        (unsigned long long)off, (unsigned long long)(off + bytes));
        s[i] = (msec){b + off, bytes, off};
        prev_end = off + bytes;
    }
    if (m->l > 0 && !s[S_COLS].data)
        return rerr(path, MMNC_EFORMAT, err, "invalid header: %lld column clusters, and no %s section", (long long)m->l,
                    SEC_NAME[S_COLS]);
    return MMNC_OK;
}

/* The column clusters section: each label in 0..l-1, the blocks finite,
 * >= 0, and P(z, w) the sum of P(z, x) over the columns x of w (within
 * 1e-6, as check_marginals). */
static int read_cols(const char *path, const unsigned char *b, mmnc_model *m, mmnc_err *err)
{
    mmnc_int k = m->k, l = m->l, nx = m->ncols;
    double *sum;
    int status;
    if (!(m->col_label = mmnc_i_malloc((size_t)nx, sizeof(mmnc_int)))) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    for (mmnc_int j = 0; j < nx; j++) {
        m->col_label[j] = (mmnc_int)mmnc_i_get64(b + 8 * j);
        if (m->col_label[j] < 0 || m->col_label[j] >= l)
            return rerr(path, MMNC_EFORMAT, err, "invalid column clusters: column %lld has cluster %lld (expected 0 to "
                        "%lld)", (long long)j + 1, (long long)m->col_label[j], (long long)l - 1);
    }
    if ((status = copy_f64(path, b + 8 * nx, k * l, &m->block_pz, "P_{Z,W}", 0, err)) != MMNC_OK) return status;
    if (!(sum = mmnc_i_calloc((size_t)(k * l), sizeof(double)))) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    for (mmnc_int z = 0; z < k; z++)
        for (mmnc_int x = 0; x < nx; x++) sum[z * l + m->col_label[x]] += m->pzx[z * nx + x];
    for (mmnc_int i = 0; i < k * l; i++)
        if (fabs(sum[i] - m->block_pz[i]) > 1e-6) {
            status = rerr(path, MMNC_EFORMAT, err, "invalid model: block (%lld, %lld) of P_{Z,W} is %.17g, its columns "
                          "of P_{Z,X} sum to %.17g", (long long)(i / l) + 1, (long long)(i % l) + 1, m->block_pz[i],
                          sum[i]);
            break;
        }
    mmnc_i_free(sum);
    return status;
}

/* The held rows section: hashes strictly increasing and nonzero, labels in 0..k-1. */
static int read_held(const char *path, const unsigned char *b, uint64_t bytes, mmnc_model *m, mmnc_err *err)
{
    mmnc_int n = (mmnc_int)(bytes / 16);
    if (!(m->held_hash = mmnc_i_malloc((size_t)n, sizeof(uint64_t))) ||
        !(m->held_label = mmnc_i_malloc((size_t)n, sizeof(mmnc_int))))
        return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    m->nheld = n;
    for (mmnc_int i = 0; i < n; i++) {
        m->held_hash[i] = mmnc_i_get64(b + 16 * i);
        m->held_label[i] = (mmnc_int)mmnc_i_get64(b + 16 * i + 8);
        if (m->held_hash[i] == 0 || (i > 0 && m->held_hash[i] <= m->held_hash[i - 1]) || m->held_label[i] < 0 ||
            m->held_label[i] >= m->k)
            return rerr(path, MMNC_EFORMAT, err, "invalid held rows: entry %lld (hash %016llx, label %lld): hashes "
                        "must be nonzero and increase, labels lie in 0 to %lld", (long long)i + 1,
                        (unsigned long long)m->held_hash[i], (long long)m->held_label[i], (long long)m->k - 1);
    }
    return MMNC_OK;
}

/* The Dirichlet mixture's section: alpha and beta finite and > 0, the
 * clusters' rows >= 0 summing to the training rows. */
static int read_dmm(const char *path, const unsigned char *b, mmnc_model *m, mmnc_err *err)
{
    mmnc_int sum = 0;
    m->dmm_alpha = getf(b);
    m->dmm_beta = getf(b + 8);
    if (!(m->dmm_alpha > 0.0) || !isfinite(m->dmm_alpha) || !(m->dmm_beta > 0.0) || !isfinite(m->dmm_beta))
        return rerr(path, MMNC_EFORMAT, err, "invalid Dirichlet mixture: alpha %g, beta %g (expected finite and > 0)",
                    m->dmm_alpha, m->dmm_beta);
    if (!(m->cluster_rows = mmnc_i_malloc((size_t)m->k, sizeof(mmnc_int))))
        return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    for (mmnc_int z = 0; z < m->k; z++) {
        m->cluster_rows[z] = (mmnc_int)mmnc_i_get64(b + 16 + 8 * z);
        if (m->cluster_rows[z] < 0 || m->cluster_rows[z] > m->train_rows - sum)
            return rerr(path, MMNC_EFORMAT, err, "invalid Dirichlet mixture: cluster %lld has %lld rows (expected 0 to "
                        "the %lld training rows in all)", (long long)z + 1, (long long)m->cluster_rows[z],
                        (long long)m->train_rows);
        sum += m->cluster_rows[z];
    }
    if (sum != m->train_rows)
        return rerr(path, MMNC_EFORMAT, err, "invalid Dirichlet mixture: the clusters hold %lld rows, the header says "
                    "%lld training rows", (long long)sum, (long long)m->train_rows);
    return MMNC_OK;
}

/* P_{Z,X} must have the marginals P_Z and P_X (to rounding). */
static int check_marginals(const char *path, const mmnc_model *m, mmnc_err *err)
{
    mmnc_int k = m->k, nx = m->ncols;
    double tx = 0.0, tz = 0.0;
    for (mmnc_int x = 0; x < nx; x++) tx += m->px[x];
    for (mmnc_int z = 0; z < k; z++) tz += m->pz[z];
    if (fabs(tx - 1.0) > 1e-6 || fabs(tz - 1.0) > 1e-6)
        return rerr(path, MMNC_EFORMAT, err, "invalid model: P_X sums to %.17g and P_Z to %.17g (expected 1)", tx, tz);
    for (mmnc_int z = 0; z < k; z++) {
        double s = 0.0;
        for (mmnc_int x = 0; x < nx; x++) s += m->pzx[z * nx + x];
        if (fabs(s - m->pz[z]) > 1e-6)
            return rerr(path, MMNC_EFORMAT, err, "invalid model: row %lld of P_{Z,X} sums to %.17g, P_Z says %.17g",
                        (long long)z + 1, s, m->pz[z]);
    }
    for (mmnc_int x = 0; x < nx; x++) {
        double s = 0.0;
        for (mmnc_int z = 0; z < k; z++) s += m->pzx[z * nx + x];
        if (fabs(s - m->px[x]) > 1e-6 * (m->px[x] + 1e-9))
            return rerr(path, MMNC_EFORMAT, err, "invalid model: column %lld of P_{Z,X} sums to %.17g, P_X says %.17g",
                        (long long)x + 1, s, m->px[x]);
    }
    return MMNC_OK;
}

int mmnc_model_read(const char *path, mmnc_model **out, mmnc_err *err)
{
    char *data = NULL;
    size_t len = 0;
    const unsigned char *b;
    mmnc_model *m = NULL;
    msec s[S_USED];
    int status;
    if (!path || !out) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_model_read: NULL argument");
    *out = NULL;
    if (!MMNC_I_HOST_LITTLE) return mmnc_i_err(err, MMNC_EUNSUP, "%s: model files are read on little-endian hosts only", path);
    if ((status = mmnc_file_read_all(path, &data, &len, err)) != MMNC_OK) return status;
    b = (const unsigned char *)data;
    MMNC_CALLOC(m, 1, err, status);
    if ((status = read_header(path, b, len, m, s, err)) != MMNC_OK) goto cleanup;
    if ((status = copy_f64(path, s[S_PX].data, m->ncols, &m->px, "P_X", 1, err)) != MMNC_OK ||
        (status = copy_f64(path, s[S_PZ].data, m->k, &m->pz, "P_Z", 0, err)) != MMNC_OK ||
        (status = copy_f64(path, s[S_PZX].data, m->k * m->ncols, &m->pzx, "P_{Z,X}", 0, err)) != MMNC_OK ||
        (status = check_marginals(path, m, err)) != MMNC_OK ||
        (status = read_ids(path, s[S_IDS].data, s[S_IDS].bytes, m, err)) != MMNC_OK ||
        (status = read_text(path, s[S_VERSION].data, s[S_VERSION].bytes, &m->version, "version", err)) != MMNC_OK ||
        (s[S_OPTIONS].data &&
         (status = read_text(path, s[S_OPTIONS].data, s[S_OPTIONS].bytes, &m->options, "options", err)) != MMNC_OK) ||
        (s[S_COLS].data && (status = read_cols(path, s[S_COLS].data, m, err)) != MMNC_OK) ||
        (s[S_HELD].data && (status = read_held(path, s[S_HELD].data, s[S_HELD].bytes, m, err)) != MMNC_OK) ||
        (s[S_DMM].data && (status = read_dmm(path, s[S_DMM].data, m, err)) != MMNC_OK))
        goto cleanup;
    {
        char where[MMNC_ERRMSG_SIZE / 2];
        snprintf(where, sizeof where, "%s: invalid model: ", path);
        if ((status = ids_distinct(m->col_ids, m->ncols, MMNC_EFORMAT, where, err)) != MMNC_OK) goto cleanup;
    }
    *out = m;
    m = NULL;
cleanup:
    mmnc_model_free(m);
    mmnc_free(data);
    return status;
}

/* ------------------------------------------------------------------------ */
/* Matching and prediction                                                   */
/* ------------------------------------------------------------------------ */

int mmnc_model_match(const mmnc_model *m, const mmnc_data *d, mmnc_int *map, mmnc_int *unknown, mmnc_err *err)
{
    idtab t = {NULL, 0};
    mmnc_int dup, miss = 0, *first;
    char buf[32];
    int status;
    if (!m || !d || !d->A || !map) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_model_match: NULL argument");
    if ((status = idtab_build(m->col_ids, m->ncols, &t, &dup, err)) != MMNC_OK) return status;
    if (dup >= 0) { /* only a model built by hand gets here: from_result and read refuse them */
        mmnc_i_free(t.slot);
        return ids_distinct(m->col_ids, m->ncols, MMNC_EINVAL, "mmnc_model_match: ", err);
    }
    for (mmnc_int j = 0; j < d->A->ncols; j++) {
        map[j] = idtab_find(&t, m->col_ids, mmnc_data_col_id(d, j, buf));
        miss += map[j] < 0;
    }
    mmnc_i_free(t.slot);
    if (!(first = mmnc_i_malloc((size_t)(m->ncols > 0 ? m->ncols : 1), sizeof *first)))
        return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    for (mmnc_int x = 0; x < m->ncols; x++) first[x] = -1;
    for (mmnc_int j = 0; j < d->A->ncols && status == MMNC_OK; j++) { /* two columns of one known id: ambiguous */
        if (map[j] < 0) continue;
        if (first[map[j]] >= 0)
            status = mmnc_i_err(err, MMNC_EINVAL, "column id '%s' is given to two columns of the data (columns %lld "
                                                  "and %lld): new data is matched to the model by column id, so "
                                                  "the ids the model knows must be distinct",
                                m->col_ids[map[j]], (long long)first[map[j]] + 1, (long long)j + 1);
        else
            first[map[j]] = j;
    }
    mmnc_i_free(first);
    if (status == MMNC_OK && unknown) *unknown = miss;
    return status;
}

typedef enum { RULE_INFORMATION, RULE_NUCLEAR, RULE_CHANNEL, RULE_DMM } rule;

/* Which of the rules of the file's comment (1 information, 2 nuclear, 3
 * channel, 4 the Dirichlet mixture) the model's algorithm and refinement
 * call for. */
static rule model_rule(const mmnc_model *m)
{
    if (m->algorithm == MMNC_ALG_DMM && m->cluster_rows) return RULE_DMM;
    if (m->algorithm == MMNC_ALG_INFORMATION || m->algorithm == MMNC_ALG_DMM || m->refine != MMNC_REFINE_NONE)
        return RULE_INFORMATION;
    if (m->algorithm == MMNC_ALG_NUCLEAR) return RULE_NUCLEAR;
    return RULE_CHANNEL;
}

/* What the rule needs per column, x-major (M[x*w + j]), and per cluster. */
typedef struct prep {
    rule r;
    mmnc_int k, w;
    double *M;  /* information: log q(x|z); nuclear: P(z,x) / P(x) (then times Mp); channel: P(z|x);
                   the mixture: N_zx + beta, or with column clusters N_zw + beta (w-major) */
    double *Mp; /* nuclear: k x k; the mixture: N_z + V beta, or N_z + L beta (k) */
    double *lpz; /* information: log P_Z(z); the mixture: log(m_z + alpha) */
    mmnc_int l;  /* the mixture with column clusters: L, else 0 */
    const mmnc_int *cl; /* then each column's cluster */
    double *lpx; /* then log(P(x) / P(W(x))), each column's share of its cluster */
} prep;

/* lgamma(a + v) - lgamma(a), a > 0, v >= 0: for a whole v up to 16 (and a
 * below 1e15, so that no product overflows) the log of the product
 * a (a + 1) ... (a + v - 1), as the mixture's moves sum it
 * (src/cluster/dmm.c). */
static double lgamma_step(double a, double v)
{
    int sign;
    if (v == 0.0) return 0.0;
    if (v <= 16.0 && v == floor(v) && a < 1e15) {
        double f = a;
        for (double j = 1.0; j < v; j += 1.0) f *= a + j;
        return log(f);
    }
    return lgamma_r(a + v, &sign) - lgamma_r(a, &sign);
}

static void prep_free(prep *q)
{
    mmnc_i_free(q->M);
    mmnc_i_free(q->Mp);
    mmnc_i_free(q->lpz);
    mmnc_i_free(q->lpx);
}

/* Rule r's tables, made once for all rows: log q(x|z) and log P_Z
 * (information); P(z,x) / P(x) and the score matrix Mp from the spectrum
 * of the stored P_{Z,X}, as the solver forms them (nuclear); P(z|x)
 * (channel); N_zx + beta, N_z + V beta and log(m_z + alpha) (the
 * mixture). */
static int prepare(const mmnc_model *m, rule r, prep *q, mmnc_err *err)
{
    mmnc_int k = m->k, nx = m->ncols;
    int status = MMNC_OK;
    double *sigma = NULL, *U = NULL, *T = NULL;
    q->r = r;
    q->k = k;
    MMNC_ALLOC(q->M, nx * k, err, status);
    if (q->r == RULE_DMM && m->l > 0) { /* N_zw + beta, N_z + L beta, log(m_z + alpha), log(P(x) / P(W(x))) */
        double b = m->dmm_beta, *pw = NULL;
        mmnc_int l = m->l;
        q->l = l;
        q->cl = m->col_label;
        MMNC_ALLOC(q->lpz, k, err, status);
        MMNC_ALLOC(q->Mp, k, err, status);
        MMNC_ALLOC(q->lpx, nx, err, status);
        if (!(pw = mmnc_i_calloc((size_t)l, sizeof *pw))) {
            status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
            goto cleanup;
        }
        for (mmnc_int z = 0; z < k; z++) {
            q->lpz[z] = log((double)m->cluster_rows[z] + m->dmm_alpha);
            q->Mp[z] = m->pz[z] * m->train_mass + (double)l * b;
            for (mmnc_int w = 0; w < l; w++) q->M[w * k + z] = m->block_pz[z * l + w] * m->train_mass + b;
        }
        for (mmnc_int x = 0; x < nx; x++) pw[m->col_label[x]] += m->px[x];
        for (mmnc_int x = 0; x < nx; x++) q->lpx[x] = log(m->px[x] / pw[m->col_label[x]]);
        mmnc_i_free(pw);
    } else if (q->r == RULE_DMM) { /* N_zx + beta, N_z + V beta, log(m_z + alpha) */
        double b = m->dmm_beta;
        MMNC_ALLOC(q->lpz, k, err, status);
        MMNC_ALLOC(q->Mp, k, err, status);
        for (mmnc_int z = 0; z < k; z++) {
            q->lpz[z] = log((double)m->cluster_rows[z] + m->dmm_alpha);
            q->Mp[z] = m->pz[z] * m->train_mass + (double)nx * b;
            for (mmnc_int x = 0; x < nx; x++) q->M[x * k + z] = m->pzx[z * nx + x] * m->train_mass + b;
        }
    } else if (q->r == RULE_INFORMATION) {
        double a = m->alpha / (double)m->train_rows;
        MMNC_ALLOC(q->lpz, k, err, status);
        for (mmnc_int z = 0; z < k; z++) {
            double lden = log(m->pz[z] + a);
            q->lpz[z] = m->pz[z] > 0.0 ? log(m->pz[z]) : -INFINITY;
            for (mmnc_int x = 0; x < nx; x++) q->M[x * k + z] = log(m->pzx[z * nx + x] + a * m->px[x]) - lden;
        }
    } else if (q->r == RULE_NUCLEAR) {
        mmnc_pmf fake;
        memset(&fake, 0, sizeof fake);
        fake.nx = nx;
        fake.px = m->px;
        MMNC_ALLOC(T, nx * k, err, status);
        MMNC_ALLOC(sigma, k, err, status);
        MMNC_ALLOC(U, k * k, err, status);
        MMNC_ALLOC(q->Mp, k * k, err, status);
        for (mmnc_int x = 0; x < nx; x++)
            for (mmnc_int z = 0; z < k; z++) T[x * k + z] = m->pzx[z * nx + x];
        if ((status = mmnc_i_spectrum(&fake, k, T, m->pz, sigma, U, err)) != MMNC_OK) goto cleanup;
        mmnc_i_score_matrix(k, sigma, U, m->pz, q->Mp);
        for (mmnc_int x = 0; x < nx; x++)
            for (mmnc_int z = 0; z < k; z++) q->M[x * k + z] = T[x * k + z] / m->px[x];
    } else {
        for (mmnc_int x = 0; x < nx; x++)
            for (mmnc_int z = 0; z < k; z++) q->M[x * k + z] = m->pzx[z * nx + x] / m->px[x];
    }
cleanup:
    mmnc_i_free(T);
    mmnc_i_free(sigma);
    mmnc_i_free(U);
    return status;
}

/* Row i's sums over its known columns: s[z] = sum_x lgamma_step(N_zx +
 * beta, n(x)) (the mixture), sum_w lgamma_step(N_zw + beta, n(w)) over
 * the row's counts summed by column clusters (the mixture with them; cw, l
 * zeros on entry and on return, and wl: l scratch; *share = sum_x n(x)
 * log(P(x) / P(W(x)))), or sum_x n(x) M[x][z] (the others); returns the
 * row's mass on those columns. */
static double row_sums(const prep *q, const mmnc_csr *A, const mmnc_int *map, mmnc_int i, double *s, double *cw,
                       mmnc_int *wl, double *share)
{
    mmnc_int k = q->k, nw = 0;
    double mass = 0.0, sh = 0.0;
    for (mmnc_int z = 0; z < k; z++) s[z] = 0.0;
    for (mmnc_int e = A->rowptr[i]; e < A->rowptr[i + 1]; e++) {
        mmnc_int x = map ? map[A->colind[e]] : A->colind[e];
        double v = A->val[e];
        if (x < 0 || v == 0.0) continue;
        mass += v;
        if (q->l > 0) {
            mmnc_int w = q->cl[x];
            if (cw[w] == 0.0) wl[nw++] = w;
            cw[w] += v;
            sh += v * q->lpx[x];
        } else if (q->r == RULE_DMM) {
            for (mmnc_int z = 0; z < k; z++) s[z] += lgamma_step(q->M[x * k + z], v);
        } else {
            for (mmnc_int z = 0; z < k; z++) s[z] += v * q->M[x * k + z];
        }
    }
    for (mmnc_int j = 0; j < nw; j++) { /* the column clusters in the order the row first meets them */
        mmnc_int w = wl[j];
        for (mmnc_int z = 0; z < k; z++) s[z] += lgamma_step(q->M[w * k + z], cw[w]);
        cw[w] = 0.0;
    }
    if (share) *share = sh;
    return mass;
}

/* Row i: label and, if proba, its k probabilities.  s and c: k scratch;
 * cw and wl: row_sums's. */
static mmnc_int predict_row(const prep *q, const mmnc_csr *A, const mmnc_int *map, mmnc_int i, double *s, double *c,
                            double *cw, mmnc_int *wl, double *proba)
{
    mmnc_int k = q->k, best = 0;
    double mass = row_sums(q, A, map, i, s, cw, wl, NULL);
    if (!(mass > 0.0)) {
        if (proba)
            for (mmnc_int z = 0; z < k; z++) proba[z] = 0.0;
        return -1;
    }
    if (q->r == RULE_NUCLEAR) { /* c = s Mp, summed as in cluster/nuclear.c */
        for (mmnc_int z = 0; z < k; z++) c[z] = 0.0;
        for (mmnc_int j = 0; j < k; j++)
            for (mmnc_int z = 0; z < k; z++) c[z] += s[j] * q->Mp[j * k + z];
    } else if (q->r == RULE_DMM) { /* the mixture's posterior, up to a constant */
        for (mmnc_int z = 0; z < k; z++) c[z] = q->lpz[z] + s[z] - lgamma_step(q->Mp[z], mass);
    } else {
        for (mmnc_int z = 0; z < k; z++) c[z] = s[z];
    }
    for (mmnc_int z = 1; z < k; z++) /* ties to the smallest z */
        if (c[z] > c[best]) best = z;
    if (!proba) return best;
    if (q->r == RULE_INFORMATION || q->r == RULE_DMM) { /* the mixture's posterior, the values as counts */
        double mx = -INFINITY, t = 0.0;
        for (mmnc_int z = 0; z < k; z++) {
            if (q->r == RULE_INFORMATION) c[z] += q->lpz[z];
            if (c[z] > mx) mx = c[z];
        }
        for (mmnc_int z = 0; z < k; z++) t += (proba[z] = isfinite(c[z]) ? exp(c[z] - mx) : 0.0);
        if (!(t > 0.0) || !isfinite(t)) /* every likelihood 0 (a model built by hand): all on the label */
            for (mmnc_int z = 0; z < k; z++) proba[z] = z == best, t = 1.0;
        for (mmnc_int z = 0; z < k; z++) proba[z] /= t;
    } else if (q->r == RULE_NUCLEAR) {
        for (mmnc_int z = 0; z < k; z++) proba[z] = z == best ? 1.0 : 0.0;
    } else { /* sum_x r(x) P(z|x), normalised by its own sum: the stored P_{Z,X} sums to P_X to rounding only */
        double t = 0.0;
        for (mmnc_int z = 0; z < k; z++) t += s[z];
        for (mmnc_int z = 0; z < k; z++) proba[z] = t > 0.0 ? s[z] / t : (z == best);
    }
    return best;
}

/* Row i's held row, by the hash of its content on the model's columns
 * (cols, hs: scratch of 1 and 2 row lengths), or -1. */
static mmnc_int held_row(const mmnc_model *m, const mmnc_csr *A, const mmnc_int *map, mmnc_int i, mmnc_int *cols,
                         mmnc_int *hs)
{
    mmnc_int e0 = A->rowptr[i], n = A->rowptr[i + 1] - e0;
    uint64_t h;
    for (mmnc_int e = 0; e < n; e++) cols[e] = map ? map[A->colind[e0 + e]] : A->colind[e0 + e];
    h = mmnc_model_row_hash(n, cols, A->val + e0, hs);
    return h ? held_find(m, h) : -1;
}

/* Per thread, w doubles and row_sums's cw (l zeros) in *d, and its wl (l)
 * in *wl: nt of each. */
static int row_scratch(const prep *q, int nt, mmnc_int w, double **d, mmnc_int **wl, mmnc_err *err)
{
    *d = mmnc_i_calloc((size_t)nt * (size_t)(w + q->l), sizeof **d);
    *wl = mmnc_i_malloc((size_t)nt * (size_t)(q->l > 0 ? q->l : 1), sizeof **wl);
    return *d && *wl ? MMNC_OK : mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
}

/* The checks of new rows that every use of the model makes: A well
 * formed, its columns the model's or mapped onto them by map. */
static int check_rows(const mmnc_model *m, const mmnc_csr *A, const mmnc_int *map, const char *fn, mmnc_err *err)
{
    if (!map && A->ncols > m->ncols)
        return mmnc_i_err(err, MMNC_EINVAL, "%s: the matrix has %lld columns, the model %lld (map its columns with "
                                            "mmnc_model_match)", fn, (long long)A->ncols, (long long)m->ncols);
    if (map)
        for (mmnc_int j = 0; j < A->ncols; j++)
            if (map[j] < -1 || map[j] >= m->ncols)
                return mmnc_i_err(err, MMNC_EINVAL, "%s: map[%lld] = %lld is not a model column (0 to %lld) or -1",
                                  fn, (long long)j, (long long)map[j], (long long)m->ncols - 1);
    return mmnc_csr_check(A, err);
}

int mmnc_model_predict(const mmnc_model *m, const mmnc_csr *A, const mmnc_int *map, mmnc_int *label, double *proba,
                       mmnc_int *empty, mmnc_err *err)
{
    return mmnc_model_predict_ex(m, A, map, label, proba, empty, NULL, err);
}

int mmnc_model_predict_ex(const mmnc_model *m, const mmnc_csr *A, const mmnc_int *map, mmnc_int *label,
                          double *proba, mmnc_int *empty, mmnc_int *held, mmnc_err *err)
{
    prep q;
    int status = MMNC_OK;
    mmnc_int nempty = 0, nheld = 0, k, n, rowmax = 1, *wscratch = NULL;
    double *scratch = NULL;
    mmnc_int *iscratch = NULL;
    if (!m || !A || !label) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_model_predict: NULL argument");
    memset(&q, 0, sizeof q);
    k = m->k;
    n = A->nrows;
    if ((status = check_rows(m, A, map, "mmnc_model_predict", err)) != MMNC_OK) return status;
    if ((status = prepare(m, model_rule(m), &q, err)) != MMNC_OK) goto cleanup;
    {
        int nt = 1;
#ifdef _OPENMP
        nt = omp_get_max_threads();
#endif
        if ((status = row_scratch(&q, nt, 2 * k, &scratch, &wscratch, err)) != MMNC_OK) goto cleanup;
        if (m->nheld > 0) { /* per thread: the row's model columns and the hash's sort */
            for (mmnc_int i = 0; i < n; i++)
                if (A->rowptr[i + 1] - A->rowptr[i] > rowmax) rowmax = A->rowptr[i + 1] - A->rowptr[i];
            MMNC_ALLOC(iscratch, (mmnc_int)nt * 3 * rowmax, err, status);
        }
#pragma omp parallel if (A->nnz * k > MMNC_I_OMP_MIN_WORK) reduction(+ : nempty, nheld)
        {
            int tid = 0;
#ifdef _OPENMP
            tid = omp_get_thread_num();
#endif
            double *s = scratch + (mmnc_int)tid * (2 * k + q.l), *c = s + k, *cw = c + k;
            mmnc_int *wl = wscratch + (mmnc_int)tid * q.l;
            mmnc_int *cols = iscratch ? iscratch + (mmnc_int)tid * 3 * rowmax : NULL;
#pragma omp for schedule(static)
            for (mmnc_int i = 0; i < n; i++) {
                mmnc_int h = cols ? held_row(m, A, map, i, cols, cols + rowmax) : -1;
                if (h >= 0) { /* a held row's content: its label */
                    label[i] = m->held_label[h];
                    nheld++;
                    if (proba)
                        for (mmnc_int z = 0; z < k; z++) proba[i * k + z] = z == label[i] ? 1.0 : 0.0;
                    continue;
                }
                label[i] = predict_row(&q, A, map, i, s, c, cw, wl, proba ? proba + i * k : NULL);
                nempty += label[i] < 0;
            }
        }
    }
    if (empty) *empty = nempty;
    if (held) *held = nheld;
cleanup:
    mmnc_i_free(scratch);
    mmnc_i_free(iscratch);
    mmnc_i_free(wscratch);
    prep_free(&q);
    return status;
}

int mmnc_model_loglik(const mmnc_model *m, const mmnc_csr *A, const mmnc_int *map, double *loglik, double *mass,
                      mmnc_err *err)
{
    prep q;
    int status = MMNC_OK;
    mmnc_int k, n, *wscratch = NULL;
    double lnorm = 0.0, *scratch = NULL;
    if (!m || !A || !loglik) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_model_loglik: NULL argument");
    memset(&q, 0, sizeof q);
    k = m->k;
    n = A->nrows;
    if ((status = check_rows(m, A, map, "mmnc_model_loglik", err)) != MMNC_OK) return status;
    if ((status = prepare(m, model_rule(m) == RULE_DMM ? RULE_DMM : RULE_INFORMATION, &q, err)) != MMNC_OK)
        goto cleanup;
    if (q.r == RULE_DMM) { /* the mixing weights' normaliser: log(sum_z m_z + k alpha) */
        double rows = 0.0;
        for (mmnc_int z = 0; z < k; z++) rows += (double)m->cluster_rows[z];
        lnorm = log(rows + (double)k * m->dmm_alpha);
    }
    {
        int nt = 1;
#ifdef _OPENMP
        nt = omp_get_max_threads();
#endif
        if ((status = row_scratch(&q, nt, k, &scratch, &wscratch, err)) != MMNC_OK) goto cleanup;
#pragma omp parallel if (A->nnz * k > MMNC_I_OMP_MIN_WORK)
        {
            int tid = 0;
#ifdef _OPENMP
            tid = omp_get_thread_num();
#endif
            double *s = scratch + (mmnc_int)tid * (k + q.l), *cw = s + k;
            mmnc_int *wl = wscratch + (mmnc_int)tid * q.l;
#pragma omp for schedule(static)
            for (mmnc_int i = 0; i < n; i++) {
                double share = 0.0, w = row_sums(&q, A, map, i, s, cw, wl, &share), mx = -INFINITY, t = 0.0;
                if (mass) mass[i] = w;
                if (!(w > 0.0)) { /* no mass: the empty observation, probability 1 */
                    loglik[i] = 0.0;
                    continue;
                }
                for (mmnc_int z = 0; z < k; z++) {
                    s[z] += q.r == RULE_DMM ? q.lpz[z] - lnorm - lgamma_step(q.Mp[z], w) : q.lpz[z];
                    if (s[z] > mx) mx = s[z];
                }
                if (!isfinite(mx)) { /* every cluster gives the row probability 0 */
                    loglik[i] = mx;
                    continue;
                }
                for (mmnc_int z = 0; z < k; z++) t += exp(s[z] - mx);
                loglik[i] = mx + log(t) + share;
            }
        }
    }
cleanup:
    mmnc_i_free(scratch);
    mmnc_i_free(wscratch);
    prep_free(&q);
    return status;
}

int mmnc_model_predict_cols(const mmnc_model *m, const mmnc_csr *A, const mmnc_int *map, const mmnc_int *label,
                            mmnc_int *col_label, mmnc_int *assigned, mmnc_int *unassigned, mmnc_err *err)
{
    mmnc_int k, l, nc, nu = 0, nassigned = 0, nunassigned = 0, *slot = NULL;
    double *lq = NULL, *r = NULL, *pw = NULL, *pz = NULL, b;
    int status = MMNC_OK;
    if (!m || !A || !label || !col_label) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_model_predict_cols: NULL argument");
    if (m->l < 1 || !m->col_label || !m->block_pz)
        return mmnc_i_err(err, MMNC_EINVAL, "mmnc_model_predict_cols: the model has no column clusters (a "
                                            "co-clustering model has: col_clusters > 0)");
    k = m->k, l = m->l, nc = A->ncols;
    if (!map && nc > m->ncols)
        return mmnc_i_err(err, MMNC_EINVAL, "mmnc_model_predict_cols: the matrix has %lld columns, the model %lld (map "
                                            "its columns with mmnc_model_match)", (long long)nc, (long long)m->ncols);
    for (mmnc_int j = 0; map && j < nc; j++)
        if (map[j] < -1 || map[j] >= m->ncols)
            return mmnc_i_err(err, MMNC_EINVAL, "mmnc_model_predict_cols: map[%lld] = %lld is not a model column "
                                                "(0 to %lld) or -1", (long long)j, (long long)map[j],
                              (long long)m->ncols - 1);
    if ((status = mmnc_csr_check(A, err)) != MMNC_OK) return status;
    MMNC_ALLOC(slot, nc ? nc : 1, err, status);
    for (mmnc_int j = 0; j < nc; j++) {
        mmnc_int x = map ? map[j] : j;
        col_label[j] = x >= 0 ? m->col_label[x] : -1;
        slot[j] = x >= 0 ? -1 : nu++;
    }
    if (nu > 0) {
        /* r(z | x): the unknown column's mass over the rows labelled z */
        MMNC_CALLOC(r, nu * k, err, status);
        for (mmnc_int i = 0; i < A->nrows; i++) {
            mmnc_int z = label[i];
            if (z < 0 || z >= k) continue;
            for (mmnc_int e = A->rowptr[i]; e < A->rowptr[i + 1]; e++)
                if (slot[A->colind[e]] >= 0) r[slot[A->colind[e]] * k + z] += A->val[e];
        }
        /* log q(z|w) = log( (P(z,w) + b P(z)) / (P(w) + b) ), b = alpha / ncols */
        MMNC_CALLOC(pw, l, err, status);
        MMNC_CALLOC(pz, k, err, status);
        MMNC_ALLOC(lq, k * l, err, status);
        for (mmnc_int z = 0; z < k; z++)
            for (mmnc_int w = 0; w < l; w++) pz[z] += m->block_pz[z * l + w], pw[w] += m->block_pz[z * l + w];
        b = m->alpha / (double)m->ncols;
        for (mmnc_int z = 0; z < k; z++)
            for (mmnc_int w = 0; w < l; w++) lq[z * l + w] = log(m->block_pz[z * l + w] + b * pz[z]) - log(pw[w] + b);
        for (mmnc_int j = 0; j < nc; j++) {
            const double *rj;
            mmnc_int best = -1;
            double bests = -INFINITY, mass = 0.0;
            if (slot[j] < 0) continue;
            rj = r + slot[j] * k;
            for (mmnc_int z = 0; z < k; z++)
                if (pz[z] > 0.0) mass += rj[z]; /* clusters without training mass have no q(z|.) */
            if (mass > 0.0)
                for (mmnc_int w = 0; w < l; w++) {
                    double sc = 0.0;
                    for (mmnc_int z = 0; z < k; z++)
                        if (pz[z] > 0.0 && rj[z] > 0.0) sc += rj[z] * lq[z * l + w];
                    if (best < 0 || sc > bests) best = w, bests = sc; /* ties to the smallest w */
                }
            col_label[j] = best;
            if (best >= 0) nassigned++;
            else nunassigned++;
        }
    }
    if (assigned) *assigned = nassigned;
    if (unassigned) *unassigned = nunassigned;
cleanup:
    mmnc_i_free(slot);
    mmnc_i_free(r);
    mmnc_i_free(pw);
    mmnc_i_free(pz);
    mmnc_i_free(lq);
    return status;
}
