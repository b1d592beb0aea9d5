/*
 * dmm.c -- the Dirichlet multinomial mixture: the evidence of a hard
 * partition of the rows, raised by single-row moves (MMNC_ALG_DMM).
 *
 *   maximise  E(z, alpha, beta) = log p(C, z | alpha, beta)
 *             = sum_c [lgamma(n_c + alpha) - lgamma(alpha)] - lgamma(|Y| + k alpha) + lgamma(k alpha)
 *             + sum_c [lgamma(V beta) - lgamma(N_c + V beta) + sum_x (lgamma(N_cx + beta) - lgamma(beta))]
 *   over      hard labels z: Y -> {0..k-1}, no cluster empty, alpha > 0 and
 *             beta >= beta_0 (mmnc_params.dmm_beta; 1/2, Jeffreys' prior, by default)
 *
 * C = the input's values as counts (P_{Y,X} times their total, mmnc_pmf.total);
 * n_c = rows in cluster c, N_cx = the counts of column x in c, N_c = sum_x
 * N_cx, V = |X|.  The model: each row y draws one cluster from mixing weights
 * pi ~ Dirichlet(alpha), then its L_y counts from the cluster's distribution
 * over the columns, phi_c ~ Dirichlet(beta); E is the log-probability of the
 * counts and the labels with pi and phi integrated out (the multinomial
 * coefficients of the rows, which no label changes, left out).  This is the
 * model of GSDMM (Yin and Wang, KDD 2014), which samples it by collapsed
 * Gibbs sweeps; here it is maximised, and alpha and beta are the evidence's
 * own (type-II maximum likelihood) instead of fixed.  beta_0: a column c
 * holds once is worth log((1 + beta) / beta) nats against one c never saw,
 * and the beta fitted to the partitions the moves make is small on text
 * (they gather the rows of a rare column, and the fit rewards that), so
 * that rare columns a few rows share would outweigh the common ones many
 * share; Jeffreys' 1/2 bounds that at log 3 (docs/dmm.md, "The least
 * beta").
 *
 * What the model says a row weighs.  With y out of its cluster, putting it in c
 * changes E by
 *
 *   g(y, c) = log(n_c + alpha) + sum_{x in y} sum_{j < C_yx} log(N_cx + beta + j)
 *             - sum_{j < L_y} log(N_c + V beta + j),
 *
 * the log-probability of the row under c's Dirichlet-compound predictive
 * distribution plus the log of c's share of the rows.  Three things follow
 * that the information objective (information.c) needed corrections for:
 * the first term is a size prior in rows with its weight fixed by the model
 * (one row, one draw of a cluster); beta smooths each cluster's distribution,
 * so a short row is judged on a cluster's smoothed frequencies, and a new
 * column in a cluster costs log(beta / (N_c + V beta)), which makes the
 * evidence of a split fall where the halves do not differ beyond what beta
 * explains; and E is a marginal likelihood, so partitions with more clusters
 * than the data support have a lower one (an Occam factor), which
 * I(X;Z) does not have.  A row still weighs its counts: a long row's
 * g differs between clusters by more than a short row's.
 *
 * Moves.  A sweep visits the rows in an order drawn once from the seed and
 * the start; each row is taken out of its cluster and put in the cluster of
 * the largest g (it stays on a tie within 1e-12 relative, and a row alone in
 * its cluster stays, so no cluster empties): E never decreases.  The first
 * sweeps run at alpha = 1 and the beta that the rows themselves support
 * (the fixed point with every row a cluster of its own; row_beta) or
 * beta_0 if larger; from then on, before each sweep, alpha and beta are set by
 * Minka's fixed points for the current labels (T. Minka, "Estimating a
 * Dirichlet distribution", 2000/2012), beta stopped at beta_0, each round
 * of which raises E with the labels held: the run is a coordinate ascent
 * of one function.  (Fitted to a
 * random start, whose clusters all look alike, beta would grow without
 * bound and hold every row where it is.)  A phase ends after a sweep that
 * moves no row or fewer than `few` (mmnc_params.move_tol of them; the start
 * converged when the second does), or the run after prm->max_iter sweeps;
 * the kept start is then polished (cluster.c): the second phase again from
 * its labels, alpha and beta, until no row moves.  When a phase settles, a
 * row alone in its cluster leaves for its best other cluster, the cluster
 * it empties is refilled by halving the cluster of the largest count, and
 * the change is kept only if E rises (refill below; at most k kept and 2
 * refused a run).  Without it a start that put two groups in one cluster
 * and left one row alone in another stays there (planted groups of equal
 * size: bench/NOTES.md).  The objective reported is
 * E over the total count (nats a count), the value the starts are compared
 * by.
 *
 * Costs: O(nnz(y) k) a row, O(nnz k) a sweep; 4 |X| k + nnz + |Y| doubles
 * (the table, which keeps column x's k values log(N_cx + beta) beside its
 * k sums N_cx so that a row's own cluster is scored from the cache lines
 * its other clusters read, and asks for them a few nonzeros ahead; the sums
 * the fixed points read one by one; the counts; the row lengths).  A count
 * of 1 adds a table entry (and its own cluster's term is the third table
 * value); a whole count c of 2..128 multiplies its c factors, 16 at a
 * time, into the row's product for the cluster, kept as mantissa and
 * exponent (split), so that a row takes one logarithm a cluster for all
 * such counts; a larger or fractional count a difference of log-gamma
 * functions.  The row's length
 * against each cluster goes by logarithms of products of 16 factors up to
 * a length of 128.  log(n_c + alpha), lgamma(N_c + V beta) and the length
 * term for lengths up to 16 are kept per cluster and renewed when c
 * changes.  The loop over the clusters is cloned for the vector units
 * (MMNC_I_VECTOR_CLONES), the same bits in each.  The sweeps are
 * sequential and on one thread: the same bits for any number of threads;
 * starts run side by side (cluster.c).
 *
 * Ranks.  A distributed run either gathers the pmf and shares out the
 * starts (cluster.c: one process's result), or sweeps side by side
 * (mmnc_moves in mmnc.h): each rank visits its own rows, in the order the
 * one-process run visits all rows, and moves them against its copy of the
 * table, which holds the sums of all rows at the ranks' last meeting plus
 * its own moves since (add records them in D).  A meeting (merge) sums
 * every rank's changes, k |X| + 2 k + 1 integers (or, where the ranks
 * changed fewer than half the cells, each rank's changed cells broadcast),
 * after which every rank's table is the sums of all rows again, the same
 * bits on every rank; so the fixed points, E and the choices made from them are the same
 * on every rank.  No cluster empties: each cluster has a keeper, the
 * highest rank holding one of its rows at the sweep's start, which keeps
 * its last one (keepers, stays).  A rank decides against sums that lack
 * the other ranks' moves since the meeting, so a sweep side by side may
 * lower E: it is kept if E did not fall, else undone and made in turns
 * (sweep_ranks), where each rank in turn moves its rows against the sums of
 * all moves before: the sequential moves in rank order, which never lower
 * E.  The refill's sweeps between two clusters go in turns too.  Per rank
 * and sweep: O(nnz / R + k |X|) work and one to DMM_MEETS meetings of at
 * most k |X| numbers each; memory the rank's rows, the table and 3 k |X|
 * integers of changes.  One rank is one
 * process, bit for bit; R ranks give the same bits every time, and other
 * bits for another R.
 */
#include <math.h>
#include <string.h>

#include "cluster/solver_i.h"

/* The fixed points stop when a round changes alpha and beta by less than
 * this (relative), or after DMM_HYPER_ROUNDS rounds. */
#define DMM_HYPER_TOL 1e-10
#define DMM_HYPER_ROUNDS 1000
/* Integer sums below this go through a histogram in the fixed points. */
#define DMM_HIST 1024
/* logs: the logarithms of the whole N_cx below this read from a list */
#define DMM_LOGS 64
/* A rising factorial of up to this many factors is their product, where
 * every factor is below DMM_PRODUCT_BELOW (16 factors of 1e17: 1e272, and
 * twice that, finite), taken into a row's product (split) or one
 * logarithm. */
#define DMM_PRODUCT 16
#define DMM_PRODUCT_BELOW 1e17
/* A whole count up to this goes into a row's products DMM_PRODUCT factors
 * at a time (split), a larger one by two log-gamma functions. */
#define DMM_COUNT 128
/* A row's length against a cluster goes by products up to this length, by
 * two log-gamma functions above. */
#define DMM_LENGTH 128
/* The moves ask for a column's table this many nonzeros ahead. */
#define DMM_AHEAD 6
/* Ranks side by side: at most this many merges a sweep (sweep_ranks). */
#define DMM_MEETS 16

typedef struct dmm {
    const mmnc_pmf *p;
    mmnc_int k, ny, nx;
    double alpha, beta;
    double beta_min; /* the fixed points keep beta >= beta_min (mmnc_params.dmm_beta) */
    double *cnt;   /* nnz: the counts of P's entries */
    double *len;   /* ny: L_y */
    double *T;     /* nx x 3k: column x's k values log(N_cx + beta), its k sums N_cx, its k log(N_cx - 1 + beta) */
    double *Nz;    /* k: N_c */
    double *nz;    /* k: n_c */
    double *lna;   /* k: log(n_c + alpha) */
    double *lgz;   /* k: lgamma(N_c + V beta) */
    int64_t *ver;  /* k: cluster c's version, renewed with lna and lgz */
    double *lc;    /* k x (DMM_PRODUCT + 1): length_log(N_c + V beta, L) for a whole L up to DMM_PRODUCT */
    int64_t *lcv;  /* k x (DMM_PRODUCT + 1): the version of c that lc was made from */
    double *g;     /* k scratch */
    double *t;     /* k scratch */
    double *pm, *pe; /* k: a row's products of the factors of its counts of 2..DMM_COUNT, as 2^pe pm (split) */
    int64_t *hist; /* DMM_HIST: histogram of the integer N_cx below DMM_HIST */
    double *big;   /* the other N_cx > 0 (nbig of them), at most nx k */
    mmnc_int nbig;
    double total;  /* sum of the counts (of every rank's rows) */
    int integer;   /* every count an integer: N exact */
    /* Ranks side by side (a distributed pmf: d->ny, cnt and len are this
     * rank's rows; the table, Nz and nz the sums of all rows at the last
     * merge plus this rank's moves since) */
    const mmnc_dist *dist;
    int64_t *D;    /* nx k + 2 k + 1: this rank's changes to N_cx (x-major), n_c and N_c since the last merge */
    int64_t *Down; /* nx k + size (2 k + 1): D before a dense merge summed it, or a sparse merge's messages */
    mmnc_int *chg; /* the cells of N that D changed since the last merge (nchg of them), each once */
    unsigned char *mark; /* nx k: the cell is in chg */
    mmnc_int nchg;
    int64_t *rc;   /* size: the ranks' changed cells, in a merge */
    int64_t *tv;   /* 2 (2 k + 1): this rank's and all ranks' changes to n_c, N_c and the rows moved */
    double *cand;  /* 3 size: the ranks' candidates of a refill (best_rank) */
    double *loc;   /* k: this rank's rows in each cluster */
    unsigned char *keeper; /* k: this rank keeps its last row of c in c while the ranks sweep side by side */
    int side;      /* the ranks sweep side by side now (stays) */
    int64_t last;  /* the rows the last sweep moved (all ranks), -1 before the first */
} dmm;

/* The digamma function for x > 0: recurrence up to 6, then the asymptotic
 * series (error below 1e-13 there). */
static double digamma(double x)
{
    double r = 0.0, f;
    while (x < 6.0) r -= 1.0 / x, x += 1.0;
    f = 1.0 / (x * x);
    return r + log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

static double lgam(double x)
{
    int sign;
    return lgamma_r(x, &sign);
}

/* The product of the c factors b (b + 1) ... (b + c - 1), for a whole c
 * of 2..DMM_PRODUCT. */
static inline double rising_product(double b, int c)
{
    double t = b;
    for (int j = 1; j < c; j++) t *= b + j;
    return t;
}

/* sum_{j < c} log(b + j) = lgamma(b + c) - lgamma(b): for a whole c up to
 * DMM_PRODUCT (prod: b + c small enough that the product stays finite) one
 * logarithm of the product of the c factors, which is also the more
 * accurate where b is large, else the difference of log-gamma functions. */
static inline double rising_log(double b, double c, int prod)
{
    if (c == 1.0) return mmnc_i_flog(b);
    if (prod && c <= DMM_PRODUCT && c == floor(c)) return mmnc_i_flog(rising_product(b, (int)c));
    return lgam(b + c) - lgam(b);
}

/* rising_log for a row's length L against a cluster: for a whole L up to
 * DMM_LENGTH, the sum of the logarithms of the products of DMM_PRODUCT
 * factors at a time (one product where L <= DMM_PRODUCT). */
static inline double length_log(double b, double L, int prod)
{
    if (prod && L <= DMM_LENGTH && L == floor(L)) {
        double r = 0.0;
        for (int i0 = 0; i0 < (int)L; i0 += DMM_PRODUCT) {
            int i1 = i0 + DMM_PRODUCT < (int)L ? i0 + DMM_PRODUCT : (int)L;
            double t = b + i0;
            for (int i = i0 + 1; i < i1; i++) t *= b + i;
            r += mmnc_i_flog(t);
        }
        return r;
    }
    return lgam(b + L) - lgam(b);
}

/* *m times v, split as 2^e m with m in [1, 2): the exponent added to *e.
 * v positive and normal, *m in [1, 2) (so m v stays finite: v is a
 * product of at most DMM_PRODUCT factors below DMM_PRODUCT_BELOW).  By
 * arithmetic alone, no branch, as mmnc_i_flog: a row's products over its
 * nonzeros are one logarithm a cluster instead of one a nonzero. */
static inline void split(double *m, double *e, double v)
{
    uint64_t u, ue;
    double x = *m * v, f;
    memcpy(&u, &x, sizeof u);
    ue = (u >> 52) | 0x4330000000000000ULL; /* 2^52 + the biased exponent */
    memcpy(&f, &ue, sizeof f);
    *e += f - (4503599627370496.0 + 1023.0);
    u = (u & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
    memcpy(m, &u, sizeof u);
}

/* log(2^e m) of split's product: e log 2 in two parts, as mmnc_i_flog. */
static inline double split_log(double m, double e)
{
    return e * 6.93147180369123816490e-01 + (e * 1.90821492927058770002e-10 + mmnc_i_flog(m));
}

/* The c factors b (b + 1) ... (b + c - 1), for a whole c of 1..DMM_COUNT,
 * multiplied into 2^e m (split) DMM_PRODUCT at a time. */
static inline void rising_split(double *m, double *e, double b, int c)
{
    for (int i0 = 0; i0 < c; i0 += DMM_PRODUCT)
        split(m, e, rising_product(b + i0, c - i0 < DMM_PRODUCT ? c - i0 : DMM_PRODUCT));
}

/* A cell's logarithms from its sum: t[0] = log(N + beta), t[2k] = the
 * same less a count of 1, log(max(N - 1, 0) + beta), the term of a row's
 * count of 1 in its own cluster. */
static inline void cell(double *t, mmnc_int k, double beta)
{
    double r = t[k] - 1.0;
    t[0] = mmnc_i_flog(t[k] + beta);
    t[2 * k] = mmnc_i_flog((r > 0.0 ? r : 0.0) + beta);
}

/* The table's logarithms from the sums.  Where every count is whole, the
 * cells below DMM_LOGS (most cells of sparse data hold 0, 1 or 2) read
 * theirs from a list made once: the same logarithms of the same arguments
 * as cell's, without a branch a cell. */
static void logs(dmm *d)
{
    mmnc_int k = d->k;
    double lv[DMM_LOGS + 1]; /* lv[v + 1] = log(v + beta), lv[0] = lv[1] */
    if (!d->integer) {
        for (mmnc_int x = 0; x < d->nx; x++)
            for (mmnc_int c = 0; c < k; c++) cell(d->T + x * 3 * k + c, k, d->beta);
        return;
    }
    for (int v = 0; v < DMM_LOGS; v++) lv[v + 1] = mmnc_i_flog((double)v + d->beta);
    lv[0] = lv[1];
    for (mmnc_int x = 0; x < d->nx; x++) {
        double *t = d->T + x * 3 * k;
        for (mmnc_int c = 0; c < k; c++) {
            double v = t[k + c];
            if (v >= 0.0 && v < DMM_LOGS) {
                int i = (int)v;
                t[c] = lv[i + 1], t[2 * k + c] = lv[i];
            } else
                cell(t + c, k, d->beta);
        }
    }
}

/* Cluster c's terms of g that no row changes: lna and lgz. */
static void head(dmm *d, mmnc_int c)
{
    d->lna[c] = log(d->nz[c] + d->alpha);
    d->lgz[c] = lgam(d->Nz[c] + (double)d->nx * d->beta);
    d->ver[c]++;
}

/* The entries of D: N_cx, then n_c, N_c, and one more (merge's rows moved). */
static mmnc_int dsize(const dmm *d) { return d->nx * d->k + 2 * d->k + 1; }

/* Rebuild N, Nz, nz and the table from the labels (ranks: of every rank's
 * rows, one integer sum; collective). */
static void sums(dmm *d, const mmnc_int *lab)
{
    const mmnc_csr *P = d->p->P;
    mmnc_int k = d->k, nx = d->nx;
    if (d->dist) {
        int64_t *D = d->D;
        for (mmnc_int j = 0; j < d->nchg; j++) d->mark[d->chg[j]] = 0; /* changes not merged: dropped */
        d->nchg = 0;
        memset(D, 0, (size_t)dsize(d) * sizeof *D);
        memset(d->loc, 0, (size_t)k * sizeof *d->loc);
        for (mmnc_int y = 0; y < d->ny; y++) {
            mmnc_int c = lab[y];
            for (mmnc_int j = P->rowptr[y]; j < P->rowptr[y + 1]; j++) D[P->colind[j] * k + c] += (int64_t)d->cnt[j];
            D[nx * k + c] += 1;
            D[nx * k + k + c] += (int64_t)d->len[y];
            d->loc[c] += 1.0;
        }
        d->dist->isum(d->dist, D, dsize(d) - 1);
        for (mmnc_int x = 0; x < nx; x++)
            for (mmnc_int c = 0; c < k; c++) d->T[x * 3 * k + k + c] = (double)D[x * k + c];
        for (mmnc_int c = 0; c < k; c++) d->nz[c] = (double)D[nx * k + c], d->Nz[c] = (double)D[nx * k + k + c];
        memset(D, 0, (size_t)dsize(d) * sizeof *D);
    } else {
        memset(d->T, 0, (size_t)(nx * 3 * k) * sizeof *d->T);
        memset(d->Nz, 0, (size_t)k * sizeof *d->Nz);
        memset(d->nz, 0, (size_t)k * sizeof *d->nz);
        for (mmnc_int y = 0; y < d->ny; y++) {
            mmnc_int c = lab[y];
            for (mmnc_int j = P->rowptr[y]; j < P->rowptr[y + 1]; j++) d->T[P->colind[j] * 3 * k + k + c] += d->cnt[j];
            d->Nz[c] += d->len[y];
            d->nz[c] += 1.0;
        }
    }
    logs(d);
    for (mmnc_int c = 0; c < k; c++) head(d, c);
}

/* Row y in (sign 1) or out of (-1) cluster c (ranks: the change kept in D
 * for the next merge). */
static void add(dmm *d, mmnc_int y, mmnc_int c, double sign)
{
    const mmnc_csr *P = d->p->P;
    mmnc_int k = d->k;
    for (mmnc_int j = P->rowptr[y]; j < P->rowptr[y + 1]; j++) {
        double *t = d->T + P->colind[j] * 3 * k + c;
        t[k] += sign * d->cnt[j];
        if (t[k] < 0.0) t[k] = 0.0; /* fractional counts: no negative remainder */
        cell(t, k, d->beta);
    }
    if (d->dist) {
        int64_t s = (int64_t)sign;
        for (mmnc_int j = P->rowptr[y]; j < P->rowptr[y + 1]; j++) {
            mmnc_int i = P->colind[j] * k + c;
            d->D[i] += s * (int64_t)d->cnt[j];
            if (!d->mark[i]) d->mark[i] = 1, d->chg[d->nchg++] = i;
        }
        d->D[d->nx * k + c] += s;
        d->D[d->nx * k + k + c] += s * (int64_t)d->len[y];
        d->loc[c] += sign;
    }
    d->Nz[c] += sign * d->len[y];
    if (d->Nz[c] < 0.0) d->Nz[c] = 0.0;
    d->nz[c] += sign;
    head(d, c);
}

/* The other ranks' change o to cell i of N: its sum and logarithms. */
static inline void take(dmm *d, mmnc_int i, int64_t o)
{
    mmnc_int k = d->k;
    double *t = d->T + (i / k) * 3 * k + i % k;
    t[k] += (double)o;
    cell(t, k, d->beta);
}

/* Ranks: every rank's changes since the last merge summed, so that every
 * rank's table, Nz and nz are the sums of all rows again, the same bits on
 * every rank.  Dense: one integer sum of the nx k + 2 k + 1 numbers of D.
 * Sparse, where the ranks changed fewer than nx k / 2 cells together (a
 * late sweep moves few rows): each rank broadcasts its changed cells
 * (index, change) and its 2 k + 1 sums, and every rank adds the others'.
 * Integer sums either way: the same bits.  moved: this rank's rows moved
 * since; returns those of all ranks.  Collective. */
static int64_t merge(dmm *d, int64_t moved)
{
    const mmnc_dist *dist = d->dist;
    mmnc_int k = d->k, base = d->nx * k, tail = 2 * k + 1, n = dsize(d);
    int size = dist->size, rank = dist->rank;
    int64_t *D = d->D, *O = d->Down, *own = d->tv, *all = d->tv + tail, m = 0, total = 0;
    D[n - 1] = moved;
    memcpy(own, D + base, (size_t)tail * sizeof *own);
    for (mmnc_int j = 0; j < d->nchg; j++) m += D[d->chg[j]] != 0;
    dist->allgather(dist, &m, sizeof m, d->rc);
    for (int r = 0; r < size; r++) total += d->rc[r];
    if (2 * total < base) { /* sparse: each rank's message, tail then pairs, at its offset in O */
        int64_t off = 0, *h;
        for (int r = 0; r < rank; r++) off += tail + 2 * d->rc[r];
        h = O + off;
        memcpy(h, own, (size_t)tail * sizeof *h);
        h += tail;
        for (mmnc_int j = 0; j < d->nchg; j++)
            if (D[d->chg[j]] != 0) *h++ = d->chg[j], *h++ = D[d->chg[j]];
        memset(all, 0, (size_t)tail * sizeof *all);
        off = 0;
        for (int r = 0; r < size; r++) {
            h = O + off;
            dist->bcast(dist, h, (size_t)(tail + 2 * d->rc[r]) * sizeof *h, r);
            for (mmnc_int c = 0; c < tail; c++) all[c] += h[c];
            if (r != rank)
                for (int64_t e = 0; e < d->rc[r]; e++) take(d, (mmnc_int)h[tail + 2 * e], h[tail + 2 * e + 1]);
            off += tail + 2 * d->rc[r];
        }
        for (mmnc_int j = 0; j < d->nchg; j++) D[d->chg[j]] = 0;
        memset(D + base, 0, (size_t)tail * sizeof *D);
    } else { /* dense */
        memcpy(O, D, (size_t)n * sizeof *D);
        dist->isum(dist, D, n);
        for (mmnc_int i = 0; i < base; i++)
            if (D[i] != O[i]) take(d, i, D[i] - O[i]);
        memcpy(all, D + base, (size_t)tail * sizeof *all);
        memset(D, 0, (size_t)n * sizeof *D);
    }
    for (mmnc_int j = 0; j < d->nchg; j++) d->mark[d->chg[j]] = 0;
    d->nchg = 0;
    for (mmnc_int c = 0; c < k; c++) { /* the others' changes to n_c and N_c */
        int64_t on = all[c] - own[c], oN = all[k + c] - own[k + c];
        if (on != 0 || oN != 0) {
            d->nz[c] += (double)on, d->Nz[c] += (double)oN;
            head(d, c);
        }
    }
    return all[2 * k];
}

/* Ranks: the keeper of each cluster, the highest rank that holds a row of
 * it (one max of k numbers); while the ranks sweep side by side the
 * keeper keeps its last row of c in c and the others' rows may all leave,
 * so no cluster empties.  Collective. */
static void keepers(dmm *d)
{
    mmnc_int k = d->k;
    double me = (double)d->dist->rank + 1.0;
    for (mmnc_int c = 0; c < k; c++) d->t[c] = d->loc[c] > 0.0 ? me : 0.0;
    d->dist->max(d->dist, d->t, k);
    for (mmnc_int c = 0; c < k; c++) d->keeper[c] = d->t[c] == me;
}

/* Whether a row of cluster c stays in it for want of another row there:
 * no cluster empties.  One process, and ranks in turns: c has no other
 * row; ranks side by side: this rank is c's keeper and holds no other row
 * of c. */
static inline int stays(const dmm *d, mmnc_int c)
{
    return d->side ? d->keeper[c] && d->loc[c] <= 1.0 : d->nz[c] <= 1.0;
}

/* Ask for the cache lines of v[0..n) ahead of their use. */
static inline void prefetch(const double *v, mmnc_int n)
{
    for (mmnc_int i = 0; i < n; i += 8) __builtin_prefetch(v + i);
    __builtin_prefetch(v + n - 1);
}

/* g(y, c) for every c into d->g from the sums as they are: row y is in
 * cluster own, whose g is made from its sums less the row (in the same
 * pass, from the same column of the table). */
MMNC_I_VECTOR_CLONES static void gains(dmm *d, mmnc_int y, mmnc_int own)
{
    const mmnc_csr *P = d->p->P;
    mmnc_int k = d->k;
    double vb = (double)d->nx * d->beta, L = d->len[y], b = d->beta, *g = d->g, *t = d->t;
    double nzo = d->nz[own] - 1.0, Nzo = fmax(d->Nz[own] - L, 0.0);
    int prod = d->total + vb < DMM_PRODUCT_BELOW;
    double go = log(nzo + d->alpha) - length_log(Nzo + vb, L, prod);
    if (prod && L <= DMM_PRODUCT && L == floor(L)) { /* as length_log, kept per cluster and length */
        int m = (int)L;
        for (mmnc_int c = 0; c < k; c++) {
            mmnc_int i = c * (DMM_PRODUCT + 1) + m;
            if (d->lcv[i] != d->ver[c]) {
                double r = d->Nz[c] + vb;
                for (int j = 1; j < m; j++) r *= d->Nz[c] + vb + j;
                d->lc[i] = 0.0 + mmnc_i_flog(r);
                d->lcv[i] = d->ver[c];
            }
            g[c] = d->lna[c] - d->lc[i];
        }
    } else if (prod && L <= DMM_LENGTH && L == floor(L)) { /* as length_log, cluster by cluster */
        int m = (int)L;
        for (mmnc_int c = 0; c < k; c++) g[c] = 0.0;
        for (int i0 = 0; i0 < m; i0 += DMM_PRODUCT) {
            int i1 = i0 + DMM_PRODUCT < m ? i0 + DMM_PRODUCT : m;
            for (mmnc_int c = 0; c < k; c++) t[c] = d->Nz[c] + vb + i0;
            for (int i = i0 + 1; i < i1; i++)
                for (mmnc_int c = 0; c < k; c++) t[c] *= d->Nz[c] + vb + i;
            for (mmnc_int c = 0; c < k; c++) g[c] += mmnc_i_flog(t[c]);
        }
        for (mmnc_int c = 0; c < k; c++) g[c] = d->lna[c] - g[c];
    } else {
        for (mmnc_int c = 0; c < k; c++) g[c] = d->lna[c] - (lgam(d->Nz[c] + vb + L) - d->lgz[c]);
    }
    mmnc_int j0 = P->rowptr[y], j1 = P->rowptr[y + 1];
    for (mmnc_int j = j0; j < j1 && j < j0 + DMM_AHEAD; j++) prefetch(d->T + P->colind[j] * 3 * k, 3 * k);
    double om = 1.0, oe = 0.0, *pm = d->pm, *pe = d->pe; /* the products of the counts of 2..DMM_COUNT */
    int split_any = 0;
    for (mmnc_int j = j0; j < j1; j++) {
        mmnc_int x = P->colind[j];
        double cy = d->cnt[j];
        const double *ln = d->T + x * 3 * k, *n = ln + k;
        if (j + DMM_AHEAD < j1) prefetch(d->T + P->colind[j + DMM_AHEAD] * 3 * k, 3 * k);
        if (cy == 1.0) {
            go += ln[2 * k + own];
            for (mmnc_int c = 0; c < k; c++) g[c] += ln[c];
        } else if (prod && cy <= DMM_COUNT && cy == floor(cy)) { /* rising products, split */
            int m = (int)cy;
            double r = n[own] - cy; /* the own cluster's sum less the row, not below 0 */
            r = r > 0.0 ? r : 0.0;
            if (!split_any)
                for (mmnc_int c = 0; c < k; c++) pm[c] = 1.0, pe[c] = 0.0;
            split_any = 1;
            rising_split(&om, &oe, r + b, m);
            for (int i0 = 0; i0 < m; i0 += DMM_PRODUCT) { /* DMM_PRODUCT factors at a time */
                int i1 = i0 + DMM_PRODUCT < m ? i0 + DMM_PRODUCT : m;
                for (mmnc_int c = 0; c < k; c++) t[c] = n[c] + b + i0;
                for (int i = i0 + 1; i < i1; i++)
                    for (mmnc_int c = 0; c < k; c++) t[c] *= n[c] + b + i;
                for (mmnc_int c = 0; c < k; c++) split(pm + c, pe + c, t[c]);
            }
        } else {
            double r = n[own] - cy;
            go += rising_log((r > 0.0 ? r : 0.0) + b, cy, prod);
            for (mmnc_int c = 0; c < k; c++) g[c] += lgam(n[c] + b + cy) - lgam(n[c] + b);
        }
    }
    if (split_any) {
        for (mmnc_int c = 0; c < k; c++) g[c] += split_log(pm[c], pe[c]);
        go += split_log(om, oe);
    }
    g[own] = go;
}

/* g(y, own) as gains makes it, and g(y, other), into d->g[own] and
 * d->g[other] only: the same terms in the same order. */
static void gains2(dmm *d, mmnc_int y, mmnc_int own, mmnc_int other)
{
    const mmnc_csr *P = d->p->P;
    mmnc_int k = d->k;
    double vb = (double)d->nx * d->beta, L = d->len[y], b = d->beta;
    double nzo = d->nz[own] - 1.0, Nzo = fmax(d->Nz[own] - L, 0.0);
    int prod = d->total + vb < DMM_PRODUCT_BELOW;
    double go = log(nzo + d->alpha) - length_log(Nzo + vb, L, prod);
    double gc = d->lna[other] - length_log(d->Nz[other] + vb, L, prod);
    double om = 1.0, oe = 0.0, cm = 1.0, ce = 0.0;
    int split_any = 0;
    for (mmnc_int j = P->rowptr[y]; j < P->rowptr[y + 1]; j++) {
        const double *ln = d->T + P->colind[j] * 3 * k, *n = ln + k;
        double cy = d->cnt[j], r = n[own] - cy;
        if (cy == 1.0) {
            go += ln[2 * k + own];
            gc += ln[other];
        } else if (prod && cy <= DMM_COUNT && cy == floor(cy)) {
            int m = (int)cy;
            r = r > 0.0 ? r : 0.0;
            split_any = 1;
            rising_split(&om, &oe, r + b, m);
            rising_split(&cm, &ce, n[other] + b, m);
        } else {
            go += rising_log((r > 0.0 ? r : 0.0) + b, cy, prod);
            gc += lgam(n[other] + b + cy) - lgam(n[other] + b);
        }
    }
    if (split_any) {
        gc += split_log(cm, ce);
        go += split_log(om, oe);
    }
    d->g[own] = go;
    d->g[other] = gc;
}

/* The histogram of the integer N_cx in [1, DMM_HIST), and the list of the
 * other N_cx > 0. */
static void histogram(dmm *d)
{
    memset(d->hist, 0, DMM_HIST * sizeof *d->hist);
    d->nbig = 0;
    for (mmnc_int x = 0; x < d->nx; x++)
        for (mmnc_int c = 0; c < d->k; c++) {
            double v = d->T[(x * 3 + 1) * d->k + c];
            if (v > 0.0 && v < DMM_HIST && v == floor(v)) d->hist[(int)v]++;
            else if (v > 0.0) d->big[d->nbig++] = v;
        }
}

/* sum over the N_cx > 0 of f(N_cx + b) - f(b), f = digamma or lgamma. */
static double sum_cells(const dmm *d, double b, double (*f)(double))
{
    double s = 0.0, fb = f(b);
    for (int v = 1; v < DMM_HIST; v++)
        if (d->hist[v]) s += (double)d->hist[v] * (f(v + b) - fb);
    for (mmnc_int i = 0; i < d->nbig; i++) s += f(d->big[i] + b) - fb;
    return s;
}

/* Minka's fixed points for alpha and beta, the labels held, until they
 * settle; beta no lower than beta_min. */
static void fit_hyper(dmm *d)
{
    mmnc_int k = d->k;
    double V = (double)d->nx, D = (double)d->p->ny_all;
    histogram(d);
    for (int r = 0; r < DMM_HYPER_ROUNDS; r++) {
        double num = sum_cells(d, d->beta, digamma), den = 0.0, a0 = d->alpha, b0 = d->beta;
        for (mmnc_int c = 0; c < k; c++) den += digamma(d->Nz[c] + V * d->beta) - digamma(V * d->beta);
        den *= V;
        if (num > 0.0 && den > 0.0) d->beta = fmin(fmax(d->beta * num / den, fmax(d->beta_min, 1e-8)), 1e4);
        num = 0.0;
        for (mmnc_int c = 0; c < k; c++) num += digamma(d->nz[c] + d->alpha) - digamma(d->alpha);
        den = (double)k * (digamma(D + (double)k * d->alpha) - digamma((double)k * d->alpha));
        if (num > 0.0 && den > 0.0) d->alpha = fmin(fmax(d->alpha * num / den, 1e-8), 1e8);
        if (fabs(d->alpha - a0) <= DMM_HYPER_TOL * a0 && fabs(d->beta - b0) <= DMM_HYPER_TOL * b0) break;
    }
    logs(d);
    for (mmnc_int c = 0; c < k; c++) head(d, c);
}

/* Minka's fixed point for beta with every row a cluster of its own: the
 * smoothing the rows themselves support, the first phase's beta, into *beta.
 * The counts and the row lengths go through histograms as the cells do in
 * fit_hyper.  That evidence has a finite maximum only where the rows repeat
 * their columns more than draws from the uniform distribution would: for
 * large beta its derivative is [sum_y L_y (L_y - 1) / V - sum_{y,x}
 * n_yx (n_yx - 1)] / (2 beta^2).  Where the repeats are not more (every
 * count 1: a pattern matrix, --map binary, texts without a repeated word)
 * it rises to beta = infinity, where every cluster looks alike and the
 * moves pile the rows into the largest; the rows then say nothing of beta,
 * and the first phase runs at beta_0 (0.1 where beta_0 is 0). */
static int row_beta(dmm *d, double *beta, mmnc_err *err)
{
    const mmnc_csr *P = d->p->P;
    double V = (double)d->nx, b = 0.1, *big = NULL;
    int64_t *lh = NULL; /* DMM_HIST: histogram of the whole row lengths below DMM_HIST */
    mmnc_int nbig = 0, nb = 0;
    int status = MMNC_OK;
    memset(d->hist, 0, DMM_HIST * sizeof *d->hist);
    lh = mmnc_i_calloc(DMM_HIST, sizeof *lh);
    status = lh ? MMNC_OK : mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    if ((status = d->dist ? mmnc_i_agree(d->dist, status, err) : status) != MMNC_OK) goto cleanup;
    for (mmnc_int y = 0; y < d->ny; y++) {
        double L = d->len[y];
        if (L > 0.0 && L < DMM_HIST && L == floor(L)) lh[(int)L]++;
        else if (L > 0.0) nbig++;
        for (mmnc_int j = P->rowptr[y]; j < P->rowptr[y + 1] && L > 0.0; j++) {
            double v = d->cnt[j];
            if (v > 0.0 && v < DMM_HIST && v == floor(v)) d->hist[(int)v]++;
            else if (v > 0.0) nbig++;
        }
    }
    /* the other counts, then the other lengths (from nlen on) */
    big = mmnc_i_malloc((size_t)(nbig > 0 ? nbig : 1), sizeof *big);
    status = big ? MMNC_OK : mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    if ((status = d->dist ? mmnc_i_agree(d->dist, status, err) : status) != MMNC_OK) goto cleanup;
    for (mmnc_int y = 0; y < d->ny; y++)
        for (mmnc_int j = P->rowptr[y]; j < P->rowptr[y + 1] && d->len[y] > 0.0; j++) {
            double v = d->cnt[j];
            if (v > 0.0 && !(v < DMM_HIST && v == floor(v))) big[nb++] = v;
        }
    mmnc_int nlen = nb;
    for (mmnc_int y = 0; y < d->ny; y++) {
        double L = d->len[y];
        if (L > 0.0 && !(L < DMM_HIST && L == floor(L))) big[nb++] = L;
    }
    if (d->dist) { /* every rank's: the histograms summed, the other counts and lengths gathered in rank order */
        const mmnc_dist *dist = d->dist;
        int size = dist->size;
        int64_t mine[2] = {nlen, nb - nlen}, *all = NULL, nc = 0, nl = 0, oc = 0, ol = 0;
        double *g = NULL;
        dist->isum(dist, d->hist, DMM_HIST);
        dist->isum(dist, lh, DMM_HIST);
        all = mmnc_i_malloc((size_t)(2 * size), sizeof *all);
        if ((status = mmnc_i_agree(dist, all ? MMNC_OK : mmnc_i_err(err, MMNC_ENOMEM, "out of memory"), err)) !=
            MMNC_OK) {
            mmnc_i_free(all);
            goto cleanup;
        }
        dist->allgather(dist, mine, sizeof mine, all);
        for (int r = 0; r < size; r++) nc += all[2 * r], nl += all[2 * r + 1];
        g = mmnc_i_malloc((size_t)(nc + nl > 0 ? nc + nl : 1), sizeof *g);
        status = mmnc_i_agree(dist, g ? MMNC_OK : mmnc_i_err(err, MMNC_ENOMEM, "out of memory"), err);
        if (status != MMNC_OK) {
            mmnc_i_free(all);
            mmnc_i_free(g);
            goto cleanup;
        }
        for (int r = 0; r < size; r++) {
            if (r == dist->rank) {
                memcpy(g + oc, big, (size_t)nlen * sizeof *g);
                memcpy(g + nc + ol, big + nlen, (size_t)(nb - nlen) * sizeof *g);
            }
            if (all[2 * r] > 0) dist->bcast(dist, g + oc, (size_t)all[2 * r] * sizeof *g, r);
            if (all[2 * r + 1] > 0) dist->bcast(dist, g + nc + ol, (size_t)all[2 * r + 1] * sizeof *g, r);
            oc += all[2 * r], ol += all[2 * r + 1];
        }
        mmnc_i_free(all);
        mmnc_i_free(big);
        big = g;
        nlen = (mmnc_int)nc, nb = (mmnc_int)(nc + nl);
    }
    { /* the repeats of a column within a row against those of uniform draws of the row's length */
        double rep = 0.0, uni = 0.0;
        for (int v = 2; v < DMM_HIST; v++) rep += (double)d->hist[v] * v * (v - 1.0);
        for (mmnc_int i = 0; i < nlen; i++) rep += big[i] * (big[i] - 1.0);
        for (int v = 2; v < DMM_HIST; v++) uni += (double)lh[v] * v * (v - 1.0) / V;
        for (mmnc_int i = nlen; i < nb; i++) uni += big[i] * (big[i] - 1.0) / V;
        if (!(rep > uni)) { /* the rows' evidence rises to beta = infinity: they say nothing of beta */
            b = fmax(d->beta_min, 0.1);
            goto done;
        }
    }
    for (int r = 0; r < DMM_HYPER_ROUNDS; r++) {
        double num = (double)d->hist[1] / b, den = 0.0, b0 = b, pb = digamma(b), pvb = digamma(V * b);
        for (int v = 2; v < DMM_HIST; v++)
            if (d->hist[v]) num += (double)d->hist[v] * (digamma(v + b) - pb);
        for (mmnc_int i = 0; i < nlen; i++) num += digamma(big[i] + b) - pb;
        for (int v = 1; v < DMM_HIST; v++)
            if (lh[v]) den += (double)lh[v] * (digamma(v + V * b) - pvb);
        for (mmnc_int i = nlen; i < nb; i++) den += digamma(big[i] + V * b) - pvb;
        den *= V;
        if (!(num > 0.0 && den > 0.0)) break;
        b = fmin(fmax(b * num / den, 1e-8), 1e4);
        if (fabs(b - b0) <= DMM_HYPER_TOL * b0) break;
    }
done:
    *beta = b;
cleanup:
    mmnc_i_free(big);
    mmnc_i_free(lh);
    return status;
}

/* E(z, alpha, beta) of the current sums (the histogram current). */
static double evidence(const dmm *d)
{
    mmnc_int k = d->k;
    double a = d->alpha, b = d->beta, V = (double)d->nx, D = (double)d->p->ny_all, e;
    e = lgam((double)k * a) - lgam(D + (double)k * a) + sum_cells(d, b, lgam);
    for (mmnc_int c = 0; c < k; c++)
        e += lgam(d->nz[c] + a) - lgam(a) + lgam(V * b) - lgam(d->Nz[c] + V * b);
    return e;
}

/* One sweep in `order`; the rows moved.  fixed: the held rows (>= 0), which
 * stay, or NULL. */
static mmnc_int sweep_part(dmm *d, const mmnc_int *order, mmnc_int i0, mmnc_int i1, const mmnc_int *fixed, mmnc_int *lab)
{
    const mmnc_csr *P = d->p->P;
    mmnc_int moved = 0, k = d->k;
    for (mmnc_int i = i0; i < i1; i++) {
        mmnc_int y = order[i], c0 = lab[y], c1 = c0;
        if (i + 4 < d->ny) { /* the rows ahead in the random order: their places, then their entries */
            mmnc_int y4 = order[i + 4];
            __builtin_prefetch(P->rowptr + y4), __builtin_prefetch(d->len + y4), __builtin_prefetch(lab + y4);
        }
        if (i + 2 < d->ny) {
            mmnc_int j = P->rowptr[order[i + 2]];
            __builtin_prefetch(P->colind + j), __builtin_prefetch(d->cnt + j);
        }
        if (stays(d, c0) || d->len[y] <= 0.0 || (fixed && fixed[y] >= 0)) continue;
        gains(d, y, c0);
        for (mmnc_int c = 0; c < k; c++)
            if (d->g[c] > d->g[c1]) c1 = c;
        if (c1 == c0 || !(d->g[c1] - d->g[c0] > 1e-12 * fabs(d->g[c0]))) continue;
        add(d, y, c0, -1.0);
        add(d, y, c1, 1.0);
        lab[y] = c1;
        moved++;
    }
    return moved;
}

static mmnc_int sweep(dmm *d, const mmnc_int *order, const mmnc_int *fixed, mmnc_int *lab)
{
    return sweep_part(d, order, 0, d->ny, fixed, lab);
}

/* Row y from cluster `from` to `to`. */
static void move_row(dmm *d, mmnc_int y, mmnc_int from, mmnc_int to, mmnc_int *lab)
{
    add(d, y, from, -1.0);
    add(d, y, to, 1.0);
    lab[y] = to;
}

/* E of the sums as they are. */
static double energy(dmm *d)
{
    histogram(d);
    return evidence(d);
}

/* Sweeps in `order` at the alpha and beta as they are, each row of the
 * clusters a and b between those two only, until no row moves or max_iter
 * sweeps; the sweeps made.  Ranks: in turns (rank after rank, each against
 * the sums of all moves before), so E rises with every move as in one
 * process. */
static int sweeps_within(dmm *d, const mmnc_int *order, const mmnc_int *fixed, mmnc_int *lab, mmnc_int a, mmnc_int b,
                         int max_iter)
{
    int it = 0, turns = d->dist ? d->dist->size : 1;
    while (it < max_iter) {
        int64_t moved = 0;
        it++;
        for (int r = 0; r < turns; r++) {
            int64_t m = 0;
            for (mmnc_int i = 0; i < d->ny && (!d->dist || r == d->dist->rank); i++) {
                mmnc_int y = order[i], c0 = lab[y], c1;
                if ((c0 != a && c0 != b) || stays(d, c0) || d->len[y] <= 0.0 || (fixed && fixed[y] >= 0)) continue;
                c1 = c0 == a ? b : a;
                gains2(d, y, c0, c1);
                if (!(d->g[c1] - d->g[c0] > 1e-12 * fabs(d->g[c0]))) continue;
                move_row(d, y, c0, c1, lab);
                m++;
            }
            moved += d->dist ? merge(d, m) : m;
        }
        if (!d->integer) sums(d, lab);
        if (moved == 0) break;
    }
    return it;
}

/* Ranks: this rank's candidate (gain, cluster s it leaves, cluster `to`)
 * against every rank's: the largest gain wins, the lowest rank at a tie;
 * returns the winning rank (-1 if none), *s and *to its clusters on every
 * rank.  Collective. */
static int best_rank(dmm *d, double gain, mmnc_int *s, mmnc_int *to)
{
    int size = d->dist->size, w = -1;
    double mine[3] = {gain, (double)*s, (double)*to}, *all = d->cand;
    d->dist->allgather(d->dist, mine, sizeof mine, all);
    for (int r = 0; r < size; r++)
        if (all[3 * r + 1] >= 0.0 && (w < 0 || all[3 * r] > all[3 * w])) w = r;
    if (w >= 0) *s = (mmnc_int)all[3 * w + 1], *to = (mmnc_int)all[3 * w + 2];
    return w;
}

/* A row alone in its cluster stays in the moves (no cluster empties).  Here
 * such a row leaves, for the cluster of its largest g, and the emptied
 * cluster s is refilled: the cluster t of the largest count is halved at
 * random into t and s, and the halves' rows move between the two until
 * none moves.  Kept only if E rises at the alpha and beta as they are;
 * otherwise the labels and sums are as they were.  The row's own move may
 * lower E (a row unlike every cluster is explained best alone), so it is
 * the whole change that is judged.  Of several such rows, the one that
 * gains most (or loses least) by leaving.  Returns 1 if kept, 0 if not,
 * -1 if no row is alone in its cluster.  save: |Y| labels of scratch;
 * *sweeps gets the sweeps between t and s.  Ranks: the halves are drawn
 * row by row from (coin, the row's index), the same on any number of
 * ranks; collective. */
static int refill(dmm *d, const mmnc_int *order, const mmnc_int *fixed, mmnc_int *lab, mmnc_int *save, mmnc_rng *rng,
                  uint64_t coin, int max_iter, int *sweeps)
{
    mmnc_int k = d->k, ny = d->ny, s = -1, t = -1, to = -1, ys = -1;
    double e0, e1, best = -HUGE_VAL;
    int64_t halved = 0;
    if (k < 2) return -1;
    for (mmnc_int i = 0; i < ny; i++) {
        mmnc_int y = order[i], c0 = lab[y], c1 = -1;
        if (d->nz[c0] != 1.0 || d->len[y] <= 0.0 || (fixed && fixed[y] >= 0)) continue;
        gains(d, y, c0);
        for (mmnc_int c = 0; c < k; c++)
            if (c != c0 && (c1 < 0 || d->g[c] > d->g[c1])) c1 = c;
        double gain = d->g[c1] - d->g[c0];
        if (s < 0 || gain > best) best = gain, s = c0, ys = y, to = c1;
    }
    if (d->dist && best_rank(d, best, &s, &to) != d->dist->rank) ys = -1;
    if (s < 0) return -1;
    e0 = energy(d);
    memcpy(save, lab, (size_t)ny * sizeof *lab);
    if (ys >= 0) move_row(d, ys, s, to, lab);
    if (d->dist) merge(d, 0), keepers(d), d->side = 1;
    for (mmnc_int c = 0; c < k; c++)
        if (c != s && (t < 0 || d->Nz[c] > d->Nz[t])) t = c;
    for (mmnc_int i = 0; i < ny; i++) { /* halve t into t and s */
        mmnc_int y = order[i];
        if (lab[y] != t || (fixed && fixed[y] >= 0) || stays(d, t)) continue;
        if (d->dist ? (int)(mmnc_i_mix64(coin ^ (uint64_t)(d->p->y0 + y) * 0x9e3779b97f4a7c15ULL) & 1)
                    : mmnc_rng_below(rng, 2) != 0)
            move_row(d, y, t, s, lab), halved++;
    }
    if (d->dist) d->side = 0, merge(d, halved);
    if (d->nz[s] > 0.0) *sweeps += sweeps_within(d, order, fixed, lab, t, s, max_iter);
    e1 = energy(d);
    if (d->nz[s] > 0.0 && e1 - e0 > 1e-12 * fabs(e0)) return 1;
    memcpy(lab, save, (size_t)ny * sizeof *lab);
    sums(d, lab);
    return 0;
}

static void dmm_close(dmm *d)
{
    mmnc_i_free(d->cnt);
    mmnc_i_free(d->len);
    mmnc_i_free(d->T);
    mmnc_i_free(d->Nz);
    mmnc_i_free(d->nz);
    mmnc_i_free(d->lna);
    mmnc_i_free(d->lgz);
    mmnc_i_free(d->ver);
    mmnc_i_free(d->lc);
    mmnc_i_free(d->lcv);
    mmnc_i_free(d->g);
    mmnc_i_free(d->t);
    mmnc_i_free(d->pm);
    mmnc_i_free(d->pe);
    mmnc_i_free(d->hist);
    mmnc_i_free(d->big);
    mmnc_i_free(d->D);
    mmnc_i_free(d->Down);
    mmnc_i_free(d->chg);
    mmnc_i_free(d->mark);
    mmnc_i_free(d->rc);
    mmnc_i_free(d->tv);
    mmnc_i_free(d->cand);
    mmnc_i_free(d->loc);
    mmnc_i_free(d->keeper);
}

/* The state of p's rows in k clusters: the counts (P times the total, an
 * integer where it is one to 1e-9), alpha = 1, beta = 0.1, beta_min 0. */
static int dmm_open(dmm *d, const mmnc_pmf *p, mmnc_int k, mmnc_err *err)
{
    const mmnc_csr *P = p->P;
    mmnc_int ny = p->ny, nx = p->nx;
    int status = MMNC_OK;
    memset(d, 0, sizeof *d);
    d->p = p, d->k = k, d->ny = ny, d->nx = nx;
    d->alpha = 1.0, d->beta = 0.1;
    d->integer = 1;
    d->last = -1;
    MMNC_ALLOC(d->cnt, P->nnz > 0 ? P->nnz : 1, err, status);
    MMNC_CALLOC(d->len, ny > 0 ? ny : 1, err, status);
    MMNC_ALLOC(d->T, nx * 3 * k, err, status);
    MMNC_ALLOC(d->Nz, k, err, status);
    MMNC_ALLOC(d->nz, k, err, status);
    MMNC_ALLOC(d->lna, k, err, status);
    MMNC_ALLOC(d->lgz, k, err, status);
    MMNC_CALLOC(d->ver, k, err, status);
    MMNC_ALLOC(d->lc, k * (DMM_PRODUCT + 1), err, status);
    MMNC_ALLOC(d->lcv, k * (DMM_PRODUCT + 1), err, status);
    MMNC_ALLOC(d->g, k, err, status);
    MMNC_ALLOC(d->t, k, err, status);
    MMNC_ALLOC(d->pm, k, err, status);
    MMNC_ALLOC(d->pe, k, err, status);
    MMNC_ALLOC(d->hist, DMM_HIST, err, status);
    MMNC_ALLOC(d->big, nx * k, err, status);
    for (mmnc_int i = 0; i < k * (DMM_PRODUCT + 1); i++) d->lcv[i] = -1; /* made from no version */
    for (mmnc_int y = 0; y < ny; y++)
        for (mmnc_int j = P->rowptr[y]; j < P->rowptr[y + 1]; j++) {
            double c = P->val[j] * p->total, r = nearbyint(c);
            if (fabs(c - r) <= 1e-9 * r) c = r;
            else d->integer = 0;
            d->cnt[j] = c;
            d->len[y] += c;
            d->total += c;
        }
    if (mmnc_i_distributed(p)) { /* the ranks side by side (ranks_open) */
        MMNC_CALLOC(d->D, dsize(d), err, status);
        MMNC_ALLOC(d->Down, nx * k + (mmnc_int)p->dist->size * (2 * k + 1), err, status);
        MMNC_ALLOC(d->chg, nx * k > 0 ? nx * k : 1, err, status);
        MMNC_CALLOC(d->mark, nx * k > 0 ? nx * k : 1, err, status);
        MMNC_ALLOC(d->rc, p->dist->size, err, status);
        MMNC_ALLOC(d->tv, 2 * (2 * k + 1), err, status);
        MMNC_ALLOC(d->cand, 3 * (mmnc_int)p->dist->size, err, status);
        MMNC_CALLOC(d->loc, k, err, status);
        MMNC_CALLOC(d->keeper, k, err, status);
    }
    return MMNC_OK;
cleanup:
    dmm_close(d);
    return status;
}

/* dmm_open, and on the ranks of a distributed pmf, the total of all ranks'
 * counts: whole counts only (cluster.c gathers the others).  Collective. */
static int ranks_open(dmm *d, const mmnc_pmf *p, mmnc_int k, mmnc_err *err)
{
    int s0 = dmm_open(d, p, k, err), status = mmnc_i_agree(p->dist, s0, err);
    if (status != MMNC_OK && s0 == MMNC_OK) dmm_close(d);
    if (status != MMNC_OK || !mmnc_i_distributed(p)) return status;
    int64_t t[2] = {(int64_t)d->total, !d->integer};
    p->dist->isum(p->dist, t, 2);
    if (t[1]) {
        dmm_close(d);
        return mmnc_i_err(err, MMNC_EINVAL, "the Dirichlet mixture on several ranks takes whole counts only");
    }
    d->dist = p->dist;
    d->total = (double)t[0];
    return MMNC_OK;
}

int mmnc_i_dmm_objective(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels, double beta, double *objective,
                         mmnc_i_run *fit, mmnc_err *err)
{
    dmm d;
    int status;
    if ((status = ranks_open(&d, p, k, err)) != MMNC_OK) return status;
    d.beta = fmax(d.beta, beta), d.beta_min = beta;
    sums(&d, labels);
    fit_hyper(&d);
    histogram(&d);
    *objective = d.total > 0.0 ? evidence(&d) / d.total : 0.0;
    if (fit) fit->dmm_alpha = d.alpha, fit->dmm_beta = d.beta;
    dmm_close(&d);
    return MMNC_OK;
}

int mmnc_i_dmm_gains(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels, double alpha, double beta, mmnc_int y,
                     double *g, double *g2, mmnc_err *err)
{
    dmm d;
    int status;
    if ((status = dmm_open(&d, p, k, err)) != MMNC_OK) return status;
    d.alpha = alpha, d.beta = beta;
    sums(&d, labels);
    gains(&d, y, labels[y]);
    memcpy(g, d.g, (size_t)k * sizeof *g);
    for (mmnc_int c = 0; c < k; c++) {
        gains2(&d, y, labels[y], c == labels[y] ? (c + 1) % k : c);
        g2[c] = d.g[c];
    }
    dmm_close(&d);
    return MMNC_OK;
}

/* Ranks: one sweep of every rank's rows side by side, each rank against
 * the sums of the last merge and its own moves since.  The sweep's rows
 * (each rank's own, in the visiting order) go in `meets` blocks, merged
 * after each: DMM_MEETS times the share of the rows that the last sweep
 * moved, at least 1 and at most DMM_MEETS (the first sweep), so that the
 * first sweeps from a random start, where most rows move, see the other
 * ranks' moves often, and the later ones meet once.  The sweep is kept if
 * E did not fall; else it is undone and made again in turns, rank after
 * rank, each against the sums of all moves before (the sequential moves
 * in rank order, which never lower E).  *e: E before, then after; save: ny
 * labels of scratch.  Returns the rows moved (all ranks).  Collective. */
static int64_t sweep_ranks(dmm *d, const mmnc_int *order, const mmnc_int *fixed, mmnc_int *lab, mmnc_int *save,
                           double *e)
{
    int64_t moved = 0;
    double e1, f = d->last < 0 ? 1.0 : (double)d->last / (double)d->p->ny_all;
    int meets = (int)ceil(DMM_MEETS * f);
    meets = meets < 1 ? 1 : meets > DMM_MEETS ? DMM_MEETS : meets;
    memcpy(save, lab, (size_t)d->ny * sizeof *lab);
    for (int b = 0; b < meets; b++) {
        int64_t m;
        keepers(d);
        d->side = 1;
        m = sweep_part(d, order, d->ny * b / meets, d->ny * (b + 1) / meets, fixed, lab);
        d->side = 0;
        moved += merge(d, m);
    }
    d->last = moved;
    if (moved == 0) return 0;
    e1 = energy(d);
    if (!(e1 < *e - 1e-12 * fabs(*e))) {
        *e = e1;
        return moved;
    }
    memcpy(lab, save, (size_t)d->ny * sizeof *lab);
    sums(d, lab);
    moved = 0;
    for (int r = 0; r < d->dist->size; r++)
        moved += merge(d, r == d->dist->rank ? sweep(d, order, fixed, lab) : 0);
    d->last = moved;
    *e = energy(d);
    return moved;
}

int mmnc_i_dmm(const mmnc_pmf *p, const mmnc_params *prm, int restart, double few, mmnc_int *labels, double *W,
               mmnc_i_run *run, mmnc_err *err)
{
    mmnc_int k = prm->k, ny = p->ny, nall = p->ny_all, *order = NULL, *save = NULL, refills = 0, fails = 0;
    int extra = 0; /* the refills' sweeps */
    uint64_t coin = 0;
    double e = 0.0; /* ranks: E of the sums as they are */
    mmnc_rng rng;
    dmm d;
    int status;
    if ((status = ranks_open(&d, p, k, err)) != MMNC_OK) return status;
    order = mmnc_i_malloc((size_t)(nall > 0 ? nall : 1), sizeof *order);
    save = mmnc_i_malloc((size_t)(ny > 0 ? ny : 1), sizeof *save);
    status = mmnc_i_agree(p->dist, order && save ? MMNC_OK : mmnc_i_err(err, MMNC_ENOMEM, "out of memory"), err);
    if (status != MMNC_OK) goto cleanup;
    /* the order of the sweeps, drawn once from the seed and the start over all rows; each rank visits its
     * own in that order */
    mmnc_rng_seed(&rng, prm->seed * 0x9e3779b97f4a7c15ULL + (uint64_t)restart * 0x2545f4914f6cdd1dULL + 0xd33dULL);
    for (mmnc_int y = 0; y < nall; y++) order[y] = y;
    for (mmnc_int y = nall - 1; y > 0; y--) {
        mmnc_int j = mmnc_rng_below(&rng, y + 1), t = order[y];
        order[y] = order[j], order[j] = t;
    }
    if (d.dist) {
        mmnc_int n = 0;
        for (mmnc_int i = 0; i < nall; i++)
            if (order[i] >= p->y0 && order[i] < p->y0 + ny) order[n++] = order[i] - p->y0;
        coin = mmnc_i_mix64(prm->seed * 0x9e3779b97f4a7c15ULL + (uint64_t)restart * 0x2545f4914f6cdd1dULL + 0xc01ULL);
    }
    int fitting = run->dmm_alpha > 0.0 && run->dmm_beta > 0.0; /* a polish: from the start's alpha and beta */
    d.beta_min = prm->dmm_beta;
    if (fitting) d.alpha = run->dmm_alpha, d.beta = run->dmm_beta;
    else if ((status = row_beta(&d, &d.beta, err)) != MMNC_OK) goto cleanup;
    d.beta = fmax(d.beta, d.beta_min);
    sums(&d, labels);
    if (d.dist) e = energy(&d);
    run->converged = 0;
    run->iterations = 0;
    for (int it = 0; it < prm->max_iter; it++) {
        int64_t moved = d.dist ? sweep_ranks(&d, order, prm->fixed_label, labels, save, &e)
                               : sweep(&d, order, prm->fixed_label, labels);
        run->iterations = it + 1 + extra;
        if (!d.integer) sums(&d, labels); /* fractional counts: no drift between sweeps */
        if (prm->progress) {
            histogram(&d);
            if ((status = mmnc_i_progress(prm, restart, it + 1, evidence(&d) / d.total, err)) != MMNC_OK) goto cleanup;
        }
        int settled = moved == 0 || (double)moved < few, kept = 0;
        while (settled && refills < k && fails < 2) { /* refills while they raise E */
            int made = 0, ok = refill(&d, order, prm->fixed_label, labels, save, &rng,
                                      coin + (uint64_t)(refills + fails) * 0x9e3779b97f4a7c15ULL, prm->max_iter, &made);
            extra += made;
            run->iterations = it + 1 + extra;
            if (ok <= 0) {
                fails += ok == 0;
                break;
            }
            refills++, kept++;
        }
        if (kept) { /* the moves go on in this phase */
            if (fitting) fit_hyper(&d);
            if (d.dist) e = energy(&d);
            continue;
        }
        if (settled && fitting) {
            run->converged = 1;
            break;
        }
        fitting |= settled; /* the first phase settled: alpha and beta are fitted from now on */
        if (fitting) fit_hyper(&d);
        if (d.dist) e = energy(&d);
    }
    histogram(&d);
    run->objective = d.total > 0.0 ? evidence(&d) / d.total : 0.0;
    run->dmm_alpha = d.alpha;
    run->dmm_beta = d.beta;
    memset(W, 0, (size_t)(ny * k) * sizeof *W);
    for (mmnc_int y = 0; y < ny; y++) W[y * k + labels[y]] = 1.0;
cleanup:
    dmm_close(&d);
    mmnc_i_free(order);
    mmnc_i_free(save);
    return status;
}
