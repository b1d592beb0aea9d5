/*
 * metrics.c -- external clustering measures (ACC, NMI, ARI, purity, the
 * paper's Reuters measures) and the Hungarian algorithm behind ACC.
 *
 * Everything is computed from the C x K contingency table n_ck (classes by
 * clusters), built sparse (at most n nonzeros) in O(n + C + K):
 *
 *   NMI    = I(C;K) / ((H(C) + H(K)) / 2)             (sklearn's default)
 *   ARI    = 2 (tp tn - fn fp) / ((tp+fn)(fn+tn) + (tp+fp)(fp+tn))
 *            over ordered pairs of distinct items, 1 when fp = fn = 0
 *            (sklearn's adjusted_rand_score; equal to Hubert-Arabie's form)
 *   ACC    = max over one-to-one maps m: clusters -> classes of
 *            sum_k n_{m(k),k} / n
 *   purity = sum_k max_c n_ck / n
 *   Reuters: the K largest classes (ties: the smaller label) are matched one
 *            to one to the K clusters; overall = matched / n, kacc =
 *            matched / items in those classes, coverage = their share of n.
 *
 * ACC needs a dense assignment problem.  A maximum-weight matching never
 * gains from zero-weight edges, so it splits over the connected components
 * of the bipartite graph of nonzero cells; each component is solved on its
 * own dense block.  A typical clustering has one big component (no gain),
 * but degenerate inputs such as all-singleton labelings become O(n) instead
 * of needing an n x n table.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/mmnc_i.h"

/* ---- Hungarian algorithm --------------------------------------------------- */

/* Workspace for hungarian_core, sized for up to len - 1 rows and columns. */
typedef struct hung_ws {
    double *u, *v, *minv;
    mmnc_int *p, *way;
    unsigned char *used;
} hung_ws;

static void hung_ws_free(hung_ws *ws)
{
    mmnc_i_free(ws->u);
    mmnc_i_free(ws->v);
    mmnc_i_free(ws->minv);
    mmnc_i_free(ws->p);
    mmnc_i_free(ws->way);
    mmnc_i_free(ws->used);
    memset(ws, 0, sizeof *ws);
}

/* Arrays of len entries each (len = 1 + the larger side of the problem). */
static int hung_ws_alloc(hung_ws *ws, mmnc_int len, mmnc_err *err)
{
    int status = MMNC_OK;
    memset(ws, 0, sizeof *ws);
    MMNC_ALLOC(ws->u, len, err, status);
    MMNC_ALLOC(ws->v, len, err, status);
    MMNC_ALLOC(ws->minv, len, err, status);
    MMNC_ALLOC(ws->p, len, err, status);
    MMNC_ALLOC(ws->way, len, err, status);
    MMNC_ALLOC(ws->used, len, err, status);
cleanup:
    if (status != MMNC_OK) hung_ws_free(ws);
    return status;
}

/*
 * Shortest augmenting path Hungarian algorithm (Kuhn-Munkres with the
 * potentials of Jonker-Volgenant; the O(n^2 m) form of e-maxx):
 *
 *   min  sum_i cost(i, s(i))  over injective s: {1..n} -> {1..m},  n <= m,
 *   cost(i, j) = shift - w[(i-1) rs + (j-1) cs]  >= 0.
 *
 * Rows are added one at a time; each addition runs a Dijkstra-like search on
 * reduced costs cost(i,j) - u_i - v_j >= 0 for the rows already placed, then
 * flips the augmenting path.  On return ws->p[j] (j = 1..m) is the row
 * assigned to column j, or 0.  The costs must be finite.
 */
static void hungarian_core(mmnc_int n, mmnc_int m, const double *w, mmnc_int rs, mmnc_int cs,
                           double shift, hung_ws *ws)
{
    double *u = ws->u, *v = ws->v, *minv = ws->minv;
    mmnc_int *p = ws->p, *way = ws->way;
    unsigned char *used = ws->used;

    for (mmnc_int i = 0; i <= n; i++) u[i] = 0.0;
    for (mmnc_int j = 0; j <= m; j++) {
        v[j] = 0.0;
        p[j] = 0;
        way[j] = 0;
    }
    for (mmnc_int i = 1; i <= n; i++) {
        mmnc_int j0 = 0;
        p[0] = i;
        for (mmnc_int j = 0; j <= m; j++) {
            minv[j] = HUGE_VAL;
            used[j] = 0;
        }
        do {
            mmnc_int i0 = p[j0], j1 = 0;
            double delta = HUGE_VAL;
            const double *wrow = w + (i0 - 1) * rs;
            used[j0] = 1;
            for (mmnc_int j = 1; j <= m; j++) {
                if (used[j]) continue;
                double cur = (shift - wrow[(j - 1) * cs]) - u[i0] - v[j];
                if (cur < minv[j]) {
                    minv[j] = cur;
                    way[j] = j0;
                }
                /* j1 == 0 picks the first free column even if every
                 * candidate is +inf, so the loop always advances. */
                if (minv[j] < delta || j1 == 0) {
                    delta = minv[j];
                    j1 = j;
                }
            }
            for (mmnc_int j = 0; j <= m; j++) {
                if (used[j]) {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
        } while (p[j0] != 0);
        do { /* flip the augmenting path */
            mmnc_int j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0 != 0);
    }
}

/* Solve the nr x nc problem (row-major w, finite) into assign[nr]; rows are
 * the smaller side of hungarian_core, transposing when nr > nc. */
static void hungarian_solve(mmnc_int nr, mmnc_int nc, const double *w, double shift,
                            hung_ws *ws, mmnc_int *assign)
{
    for (mmnc_int i = 0; i < nr; i++) assign[i] = -1;
    if (nr == 0 || nc == 0) return;
    if (nr <= nc) {
        hungarian_core(nr, nc, w, nc, 1, shift, ws);
        for (mmnc_int j = 1; j <= nc; j++)
            if (ws->p[j] != 0) assign[ws->p[j] - 1] = j - 1;
    } else {
        hungarian_core(nc, nr, w, 1, nc, shift, ws);
        for (mmnc_int j = 1; j <= nr; j++)
            if (ws->p[j] != 0) assign[j - 1] = ws->p[j] - 1;
    }
}

int mmnc_assignment_max(mmnc_int nr, mmnc_int nc, const double *w, mmnc_int *assign,
                        mmnc_err *err)
{
    int status = MMNC_OK;
    hung_ws ws = {0};
    double wmax = -HUGE_VAL, wmin = HUGE_VAL;

    if (nr < 0 || nc < 0)
        return mmnc_i_err(err, MMNC_EINVAL, "assignment: negative size %lld x %lld",
                          (long long)nr, (long long)nc);
    if (nr > 0 && !assign) return mmnc_i_err(err, MMNC_EINVAL, "assignment: assign is NULL");
    if (nr > 0 && nc > 0 && !w) return mmnc_i_err(err, MMNC_EINVAL, "assignment: w is NULL");
    if (nc > 0 && nr > INT64_MAX / nc)
        return mmnc_i_err(err, MMNC_EINVAL, "assignment: %lld x %lld is too large",
                          (long long)nr, (long long)nc);
    for (mmnc_int t = 0; t < nr * nc; t++) {
        if (!isfinite(w[t]))
            return mmnc_i_err(err, MMNC_EINVAL, "assignment: w[%lld][%lld] is not finite",
                              (long long)(t / nc), (long long)(t % nc));
        if (w[t] > wmax) wmax = w[t];
        if (w[t] < wmin) wmin = w[t];
    }
    if (nr * nc > 0 && !isfinite(wmax - wmin))
        return mmnc_i_err(err, MMNC_EINVAL, "assignment: the range of the weights overflows");
    if (nr == 0 || nc == 0) {
        for (mmnc_int i = 0; i < nr; i++) assign[i] = -1;
        return MMNC_OK;
    }
    status = hung_ws_alloc(&ws, (nr > nc ? nr : nc) + 1, err);
    if (status != MMNC_OK) goto cleanup;
    hungarian_solve(nr, nc, w, wmax, &ws, assign);
cleanup:
    hung_ws_free(&ws);
    return status;
}

/* ---- label remapping ------------------------------------------------------- */

/* Open-addressing hash set of nonnegative labels (-1 marks an empty slot),
 * with a dense id per label.  Fibonacci hashing; load factor <= 1/2. */
typedef struct lhash {
    mmnc_int *key, *val;
    size_t cap, size;
    int bits;
} lhash;

/* The slot of key, or the empty slot where it would go: Fibonacci hashing
 * to the top bits, then linear probing. */
static size_t lh_slot(const lhash *h, mmnc_int key)
{
    uint64_t x = (uint64_t)key * 0x9e3779b97f4a7c15ULL;
    size_t s = (size_t)(x >> (64 - h->bits)), mask = h->cap - 1;
    while (h->key[s] != -1 && h->key[s] != key) s = (s + 1) & mask;
    return s;
}

/* An empty set of 2^bits slots. */
static int lh_init(lhash *h, int bits, mmnc_err *err)
{
    int status = MMNC_OK;
    h->bits = bits;
    h->cap = (size_t)1 << bits;
    h->size = 0;
    h->key = h->val = NULL;
    MMNC_ALLOC(h->key, h->cap, err, status);
    MMNC_ALLOC(h->val, h->cap, err, status);
    for (size_t s = 0; s < h->cap; s++) h->key[s] = -1;
cleanup:
    if (status != MMNC_OK) {
        mmnc_i_free(h->key);
        mmnc_i_free(h->val);
        h->key = h->val = NULL;
    }
    return status;
}

static void lh_free(lhash *h)
{
    mmnc_i_free(h->key);
    mmnc_i_free(h->val);
    h->key = h->val = NULL;
}

/* Insert key if absent (value = insertion rank); grows as needed. */
static int lh_add(lhash *h, mmnc_int key, mmnc_err *err)
{
    size_t s = lh_slot(h, key);
    if (h->key[s] == key) return MMNC_OK;
    if (2 * (h->size + 1) > h->cap) {
        lhash g;
        int status = lh_init(&g, h->bits + 1, err);
        if (status != MMNC_OK) return status;
        for (size_t t = 0; t < h->cap; t++) {
            if (h->key[t] == -1) continue;
            size_t r = lh_slot(&g, h->key[t]);
            g.key[r] = h->key[t];
            g.val[r] = h->val[t];
        }
        g.size = h->size;
        lh_free(h);
        *h = g;
        s = lh_slot(h, key);
    }
    h->key[s] = key;
    h->val[s] = (mmnc_int)h->size++;
    return MMNC_OK;
}

static int cmp_int(const void *a, const void *b)
{
    mmnc_int x = *(const mmnc_int *)a, y = *(const mmnc_int *)b;
    return (x > y) - (x < y);
}

/* dense[i] = rank of lab[i] among the distinct labels (so dense ids follow
 * the order of the label values); *ndistinct = their number.  Labels must be
 * >= 0.  O(n + D log D) for D distinct labels. */
static int densify(mmnc_int n, const mmnc_int *lab, mmnc_int *dense, mmnc_int *ndistinct,
                   mmnc_err *err)
{
    int status = MMNC_OK;
    lhash h = {0};
    mmnc_int *vals = NULL, d = 0;

    status = lh_init(&h, 4, err);
    if (status != MMNC_OK) goto cleanup;
    for (mmnc_int i = 0; i < n; i++) {
        status = lh_add(&h, lab[i], err);
        if (status != MMNC_OK) goto cleanup;
    }
    MMNC_ALLOC(vals, h.size, err, status);
    for (size_t s = 0; s < h.cap; s++)
        if (h.key[s] != -1) vals[d++] = h.key[s];
    qsort(vals, (size_t)d, sizeof *vals, cmp_int);
    for (mmnc_int r = 0; r < d; r++) h.val[lh_slot(&h, vals[r])] = r;
    for (mmnc_int i = 0; i < n; i++) dense[i] = h.val[lh_slot(&h, lab[i])];
    *ndistinct = d;
cleanup:
    lh_free(&h);
    mmnc_i_free(vals);
    return status;
}

/* ---- matching on a sparse table ---------------------------------------- */

/*
 * Maximum total count of a one-to-one matching between the rows (where
 * rowsel == NULL or rowsel[i] != 0) and the columns of the nr x nc sparse
 * table (rowptr, colind, cnt), all counts > 0.  Solved per connected
 * component of the bipartite graph of nonzero cells.
 */
static int match_sparse(mmnc_int nr, mmnc_int nc, const mmnc_int *rowptr, const mmnc_int *colind,
                        const mmnc_int *cnt, const unsigned char *rowsel, double *matched,
                        mmnc_err *err)
{
    int status = MMNC_OK;
    mmnc_int nv = nr + nc, ncomp = 0, maxside = 0, maxblock = 0;
    mmnc_int *parent = NULL, *comp = NULL, *cstart = NULL, *order = NULL, *loc = NULL;
    mmnc_int *assign = NULL, *nrow = NULL, *ncol = NULL, *next = NULL;
    double *block = NULL, total = 0.0;
    hung_ws ws = {0};

    MMNC_ALLOC(parent, nv, err, status);
    MMNC_ALLOC(comp, nv, err, status);
    MMNC_ALLOC(loc, nv, err, status);
    MMNC_ALLOC(order, nv, err, status);
    for (mmnc_int x = 0; x < nv; x++) parent[x] = x;
    for (mmnc_int i = 0; i < nr; i++) {
        if (rowsel && !rowsel[i]) continue;
        for (mmnc_int t = rowptr[i]; t < rowptr[i + 1]; t++) {
            mmnc_int a = mmnc_i_uf_find(parent, i), b = mmnc_i_uf_find(parent, nr + colind[t]);
            if (a != b) parent[a > b ? a : b] = a < b ? a : b;
        }
    }
    /* Number the components by their smallest vertex; count their sizes. */
    for (mmnc_int x = 0; x < nv; x++) {
        mmnc_int r = mmnc_i_uf_find(parent, x);
        comp[x] = r == x ? ncomp++ : comp[r];
    }
    MMNC_CALLOC(cstart, ncomp + 1, err, status);
    MMNC_CALLOC(nrow, ncomp, err, status);
    MMNC_CALLOC(ncol, ncomp, err, status);
    MMNC_ALLOC(next, ncomp, err, status);
    for (mmnc_int x = 0; x < nv; x++) {
        if (x < nr) loc[x] = nrow[comp[x]]++;
        else loc[x] = ncol[comp[x]]++;
    }
    for (mmnc_int c = 0; c < ncomp; c++) {
        mmnc_int r = nrow[c], k = ncol[c];
        cstart[c + 1] = cstart[c] + r + k;
        if (r == 0 || k == 0) continue;
        if (r > maxside) maxside = r;
        if (k > maxside) maxside = k;
        if (k > INT64_MAX / r || r * k > (mmnc_int)(SIZE_MAX / sizeof(double))) {
            status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory: a %lld x %lld matching problem",
                                (long long)r, (long long)k);
            goto cleanup;
        }
        if (r * k > maxblock) maxblock = r * k;
    }
    /* Vertices grouped by component, rows before columns (increasing x). */
    for (mmnc_int c = 0; c < ncomp; c++) next[c] = cstart[c];
    for (mmnc_int x = 0; x < nv; x++) order[next[comp[x]]++] = x;
    if (maxblock > 0) {
        MMNC_ALLOC(block, maxblock, err, status);
        MMNC_ALLOC(assign, maxside, err, status);
        status = hung_ws_alloc(&ws, maxside + 1, err);
        if (status != MMNC_OK) goto cleanup;
    }
    for (mmnc_int c = 0; c < ncomp; c++) {
        mmnc_int r = 0, k, first = cstart[c], last = cstart[c + 1];
        double wmax = 0.0;
        while (first + r < last && order[first + r] < nr) r++;
        k = last - first - r;
        if (r == 0 || k == 0) continue;
        if (r == 1 && k == 1) { /* the common degenerate case: one cell */
            mmnc_int i = order[first];
            total += (double)cnt[rowptr[i]];
            continue;
        }
        memset(block, 0, (size_t)(r * k) * sizeof *block);
        for (mmnc_int a = 0; a < r; a++) {
            mmnc_int i = order[first + a];
            for (mmnc_int t = rowptr[i]; t < rowptr[i + 1]; t++) {
                double x = (double)cnt[t];
                block[a * k + loc[nr + colind[t]]] = x;
                if (x > wmax) wmax = x;
            }
        }
        hungarian_solve(r, k, block, wmax, &ws, assign);
        for (mmnc_int a = 0; a < r; a++)
            if (assign[a] >= 0) total += block[a * k + assign[a]];
    }
    *matched = total;
cleanup:
    mmnc_i_free(parent);
    mmnc_i_free(comp);
    mmnc_i_free(cstart);
    mmnc_i_free(order);
    mmnc_i_free(loc);
    mmnc_i_free(assign);
    mmnc_i_free(nrow);
    mmnc_i_free(ncol);
    mmnc_i_free(next);
    mmnc_i_free(block);
    hung_ws_free(&ws);
    return status;
}

/* ---- the scores ------------------------------------------------------------ */

typedef struct class_size {
    mmnc_int size, id;
} class_size;

/* Larger classes first, then smaller id (= smaller label value). */
static int cmp_class(const void *a, const void *b)
{
    const class_size *x = a, *y = b;
    if (x->size != y->size) return x->size > y->size ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* sum_i x_i log x_i over counts, in long double. */
static long double xlogx(mmnc_int x) { return x > 0 ? (long double)x * logl((long double)x) : 0.0L; }

/* See mmnc.h.  Every score is read from the one sparse contingency table
 * built first, in order -- NMI, ARI, purity, ACC, the Reuters measures --
 * each a commented paragraph below; one function, since they all share
 * that table. */
int mmnc_evaluate(mmnc_int n, const mmnc_int *pred, const mmnc_int *truth, mmnc_scores *out,
                  mmnc_err *err)
{
    int status = MMNC_OK;
    mmnc_int K = 0, C = 0, nnz = 0;
    mmnc_int *p = NULL, *t = NULL, *rowptr = NULL, *colind = NULL, *cnt = NULL;
    mmnc_int *csize = NULL, *ksize = NULL, *mark = NULL, *pos = NULL, *next = NULL, *items = NULL;
    unsigned char *sel = NULL;
    class_size *order = NULL;
    long double ln = 0.0L;

    if (out) memset(out, 0, sizeof *out);
    if (!pred || !truth || !out)
        return mmnc_i_err(err, MMNC_EINVAL, "evaluate: %s is NULL",
                          !pred ? "pred" : !truth ? "truth" : "out");
    if (n <= 0) return mmnc_i_err(err, MMNC_EINVAL, "evaluate: no items (n = %lld)", (long long)n);
    for (mmnc_int i = 0; i < n; i++) {
        if (pred[i] == -1) /* not one more cluster: it would be right when alone in its class */
            return mmnc_i_err(err, MMNC_EINVAL,
                              "evaluate: pred[%lld] = -1, an unassigned item (mmnc_model_predict's -1), "
                              "has no cluster to be scored in: leave such items out and count them",
                              (long long)i);
        if (pred[i] < 0)
            return mmnc_i_err(err, MMNC_EINVAL, "evaluate: pred[%lld] = %lld is negative",
                              (long long)i, (long long)pred[i]);
        if (truth[i] < 0)
            return mmnc_i_err(err, MMNC_EINVAL, "evaluate: truth[%lld] = %lld is negative",
                              (long long)i, (long long)truth[i]);
    }

    MMNC_ALLOC(p, n, err, status);
    MMNC_ALLOC(t, n, err, status);
    status = densify(n, pred, p, &K, err);
    if (status != MMNC_OK) goto cleanup;
    status = densify(n, truth, t, &C, err);
    if (status != MMNC_OK) goto cleanup;

    /* Sparse contingency table, rows = classes, columns = clusters: bucket
     * the items by class, then merge equal clusters within each class. */
    MMNC_CALLOC(csize, C, err, status);
    MMNC_CALLOC(ksize, K, err, status);
    MMNC_ALLOC(rowptr, C + 1, err, status);
    MMNC_ALLOC(colind, n, err, status);
    MMNC_ALLOC(cnt, n, err, status);
    MMNC_ALLOC(items, n, err, status);
    MMNC_ALLOC(next, C, err, status);
    MMNC_ALLOC(mark, K, err, status);
    MMNC_ALLOC(pos, K, err, status);
    for (mmnc_int i = 0; i < n; i++) {
        csize[t[i]]++;
        ksize[p[i]]++;
    }
    next[0] = 0;
    for (mmnc_int c = 1; c < C; c++) next[c] = next[c - 1] + csize[c - 1];
    for (mmnc_int i = 0; i < n; i++) items[next[t[i]]++] = i;
    for (mmnc_int k = 0; k < K; k++) mark[k] = -1;
    for (mmnc_int c = 0, s = 0; c < C; c++) {
        rowptr[c] = nnz;
        for (mmnc_int e = s + csize[c]; s < e; s++) {
            mmnc_int k = p[items[s]];
            if (mark[k] != c) {
                mark[k] = c;
                pos[k] = nnz;
                colind[nnz] = k;
                cnt[nnz++] = 0;
            }
            cnt[pos[k]]++;
        }
    }
    rowptr[C] = nnz;

    out->n = n;
    out->nclusters = K;
    out->nclasses = C;
    ln = logl((long double)n);

    /* NMI.  H = log n - (1/n) sum a log a;  I = (1/n) sum n_ck log(n n_ck / (a_c b_k)). */
    if (C == 1 && K == 1) {
        out->nmi = 1.0; /* both labelings unsplit: a perfect match (sklearn) */
    } else if (C == 1 || K == 1) {
        out->nmi = 0.0; /* I(C;K) = 0 exactly */
    } else {
        long double hc = 0.0L, hk = 0.0L, mi = 0.0L, nmi;
        for (mmnc_int c = 0; c < C; c++) hc += xlogx(csize[c]);
        for (mmnc_int k = 0; k < K; k++) hk += xlogx(ksize[k]);
        for (mmnc_int c = 0; c < C; c++) {
            long double lc = logl((long double)csize[c]);
            for (mmnc_int e = rowptr[c]; e < rowptr[c + 1]; e++) {
                long double x = (long double)cnt[e];
                mi += x * (logl(x) + ln - lc - logl((long double)ksize[colind[e]]));
            }
        }
        hc = ln - hc / (long double)n;
        hk = ln - hk / (long double)n;
        mi /= (long double)n;
        if (mi < 0.0L) mi = 0.0L;
        nmi = mi / ((hc + hk) / 2.0L);
        out->nmi = (double)(nmi > 1.0L ? 1.0L : nmi);
    }

    /* ARI from the pair confusion matrix over ordered pairs (i, j), i != j. */
    {
        long double sq = 0.0L, sc = 0.0L, sk = 0.0L, N = (long double)n;
        long double tp, fp, fn, tn;
        for (mmnc_int e = 0; e < nnz; e++) sq += (long double)cnt[e] * (long double)cnt[e];
        for (mmnc_int c = 0; c < C; c++) sc += (long double)csize[c] * (long double)csize[c];
        for (mmnc_int k = 0; k < K; k++) sk += (long double)ksize[k] * (long double)ksize[k];
        tp = sq - N;
        fp = sk - sq; /* same cluster, different class */
        fn = sc - sq; /* same class, different cluster */
        tn = N * N - fp - fn - sq;
        if (fp == 0.0L && fn == 0.0L) out->ari = 1.0;
        else
            out->ari = (double)(2.0L * (tp * tn - fn * fp) /
                                ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn)));
    }

    /* Purity: the largest class count in each cluster. */
    {
        mmnc_int s = 0;
        for (mmnc_int k = 0; k < K; k++) pos[k] = 0; /* reused: column maxima */
        for (mmnc_int e = 0; e < nnz; e++)
            if (cnt[e] > pos[colind[e]]) pos[colind[e]] = cnt[e];
        for (mmnc_int k = 0; k < K; k++) s += pos[k];
        out->purity = (double)s / (double)n;
    }

    /* ACC: best one-to-one matching of clusters to classes. */
    {
        double m = 0.0;
        status = match_sparse(C, K, rowptr, colind, cnt, NULL, &m, err);
        if (status != MMNC_OK) goto cleanup;
        out->acc = m / (double)n;
    }

    /* Reuters measures: the K largest classes (all if C <= K). */
    {
        mmnc_int top = K < C ? K : C, covered = 0;
        double m = 0.0;
        MMNC_ALLOC(order, C, err, status);
        MMNC_CALLOC(sel, C, err, status);
        for (mmnc_int c = 0; c < C; c++) {
            order[c].size = csize[c];
            order[c].id = c;
        }
        qsort(order, (size_t)C, sizeof *order, cmp_class);
        for (mmnc_int r = 0; r < top; r++) {
            sel[order[r].id] = 1;
            covered += order[r].size;
        }
        status = match_sparse(C, K, rowptr, colind, cnt, sel, &m, err);
        if (status != MMNC_OK) goto cleanup;
        out->coverage = (double)covered / (double)n;
        out->overall = m / (double)n;
        out->kacc = m / (double)covered;
    }

cleanup:
    if (status != MMNC_OK) memset(out, 0, sizeof *out);
    mmnc_i_free(p);
    mmnc_i_free(t);
    mmnc_i_free(rowptr);
    mmnc_i_free(colind);
    mmnc_i_free(cnt);
    mmnc_i_free(csize);
    mmnc_i_free(ksize);
    mmnc_i_free(mark);
    mmnc_i_free(pos);
    mmnc_i_free(next);
    mmnc_i_free(items);
    mmnc_i_free(sel);
    mmnc_i_free(order);
    return status;
}
