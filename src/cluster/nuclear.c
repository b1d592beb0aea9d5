/*
 * nuclear.c -- Algorithm 2 of the paper: maximal nuclear norm coupling by
 * alternating maximisation.
 *
 *   maximise    ||B_{Z,X}||_*,  B_{Z,X} = [P_Z]^{-1/2} W P_{Y,X} [P_X]^{-1/2}
 *   over        W = P_{Z|Y} column-stochastic (k x |Y|)
 *               [and W P_Y = P_Z when a prescribed P_Z is given]
 *
 * By Ky Fan's principle (paper, eq. (20)-(22)) the norm is
 * max tr(F^T W P_{Y,X} G) over F^T [P_Z] F = G^T [P_X] G = I, attained at
 * F = [P_Z]^{-1/2} U, G = [P_X]^{-1/2} V from the SVD B_{Z,X} = U S V^T.
 * Each iteration
 *   1. forms T = (W P_{Y,X})^T (a row scatter for hard W) and the SVD of
 *      B_{Z,X} through its k x k Gram matrix (never |X| x |X|);
 *   2. scores C = F G^T P_{Y,X}^T.  With H = U_+ S_+^{-1} U_+^T over the
 *      singular values above 1e-10 sigma_1 (zero singular values have
 *      arbitrary vectors and must not steer), C = P [P_X]^{-1} T
 *      [P_Z]^{-1/2} H [P_Z]^{-1/2}: one O(nnz k) sparse product;
 *   3. maximises the linear objective sum C[y,z] W[z,y]: without a marginal
 *      constraint each y takes its best z (ties keep the current cluster);
 *      with a prescribed P_Z it is a transportation LP (transport.c).
 *
 * Without a prescribed P_Z the constraint on F moves with W (the paper
 * notes this), so step 3 alone could lower the norm.  We therefore accept
 * a step only if the norm strictly increases; otherwise we retry with the
 * half of the proposed moves that have the largest gain, and so on down to
 * a single move.  A cluster left empty is given the row that fits its
 * own cluster worst: splitting a cluster never lowers the nuclear norm
 * (merging is multiplication by a DTM, a contraction), so no division by
 * P_Z(z) = 0 ever happens.  Stopping rule: no row wants to move, or no
 * subset of the proposed moves increases the norm, or max_iter.  Hence the
 * norm never decreases across iterations.
 *
 * With a prescribed P_Z, F stays feasible across the W step, so plain
 * alternation is monotone (after the first LP step, which moves the start
 * onto the marginal); it stops when W or the norm stop changing.
 *
 * Held rows (mmnc_params.fixed_label) are left out of the moves of step 3,
 * so they keep their labels; the search, its acceptance rule and the
 * monotone norm are those of the free rows.  A prescribed P_Z with held
 * rows is refused (mmnc_params_check).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/solver_i.h"

/* What one W gives: T = (W P)^T, P_Z, the spectrum (sigma, U) of B_{Z,X}
 * and the objective obj = ||B_{Z,X}||_* = sum of sigma. */
typedef struct state {
    double *T, *pz, *sigma, *U;
    double obj;
} state;

static void state_free(state *s)
{
    mmnc_i_free(s->T);
    mmnc_i_free(s->pz);
    mmnc_i_free(s->sigma);
    mmnc_i_free(s->U);
}

/* 1 if every array of s could be allocated (the caller frees them either way). */
static int state_alloc(state *s, mmnc_int nx, mmnc_int k)
{
    s->T = mmnc_i_malloc((size_t)(nx * k), sizeof(double));
    s->pz = mmnc_i_malloc((size_t)k, sizeof(double));
    s->sigma = mmnc_i_malloc((size_t)k, sizeof(double));
    s->U = mmnc_i_malloc((size_t)(k * k), sizeof(double));
    return s->T && s->pz && s->sigma && s->U;
}

/* Fill s for hard labels (W NULL) or soft W: T, P_Z, the spectrum and the norm. */
static int evaluate(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels, const double *W, state *s, mmnc_err *err)
{
    int status;
    mmnc_i_pzx(p, k, labels, W, s->T);
    mmnc_i_pz(p, k, labels, W, s->pz);
    status = mmnc_i_spectrum(p, k, s->T, s->pz, s->sigma, s->U, err);
    s->obj = 0.0;
    for (mmnc_int z = 0; z < k; z++) s->obj += s->sigma[z];
    return status;
}

/* Mp = [P_Z]^{-1/2} U_+ S_+^{-1} U_+^T [P_Z]^{-1/2} (k x k), over the
 * singular values above 1e-10 sigma_1 (step 2 of the file's comment):
 * C = S Mp are the scores.  Rows and columns of empty clusters are 0. */
void mmnc_i_score_matrix(mmnc_int k, const double *sigma, const double *U, const double *pz, double *Mp)
{
    double floor = 1e-10 * (sigma[0] > 0 ? sigma[0] : 1.0);
    for (mmnc_int i = 0; i < k; i++)
        for (mmnc_int j = 0; j < k; j++) {
            double t = 0.0;
            if (pz[i] > 0.0 && pz[j] > 0.0) {
                for (mmnc_int a = 0; a < k; a++)
                    if (sigma[a] > floor) t += U[i * k + a] * U[j * k + a] / sigma[a];
                t /= sqrt(pz[i] * pz[j]);
            }
            Mp[i * k + j] = t;
        }
}

/* mmnc_i_score_matrix of a state. */
static void score_matrix(mmnc_int k, const state *s, double *Mp) { mmnc_i_score_matrix(k, s->sigma, s->U, s->pz, Mp); }

/* C = S Mp, all of it (the LP step needs every score). */
static void scores(const mmnc_pmf *p, mmnc_int k, const state *s, double *Mp, double *Tx, double *S, double *C)
{
    score_matrix(k, s, Mp);
    mmnc_i_row_gather(p, k, s->T, Tx, S);
#pragma omp parallel for schedule(static) if (p->ny * k * k > MMNC_I_OMP_MIN_WORK)
    for (mmnc_int y = 0; y < p->ny; y++) {
        const double *sy = S + y * k;
        double *cy = C + y * k;
        for (mmnc_int z = 0; z < k; z++) {
            double t = 0.0;
            for (mmnc_int j = 0; j < k; j++) t += sy[j] * Mp[j * k + z];
            cy[z] = t;
        }
    }
}

/* Without a prescribed P_Z only each row's best cluster matters: its scores
 * are formed row by row as S's row comes out of the gather, and only the
 * score of the row's own cluster and the best one are kept (no |Y| x k S
 * or C).  The same arithmetic in the same order as C = S Mp, so the same
 * moves. */
typedef struct best_ctx {
    mmnc_int k;
    const double *Mp;
    const mmnc_int *labels;
    double *own, *best;
    mmnc_int *to;
} best_ctx;

/* Row y's scores c = s Mp (each c[z] summed over j in order, as in C = S
 * Mp), its own cluster's score and the best; inlined with K a constant for
 * small k, the k scores stay in registers. */
static inline __attribute__((always_inline)) void best_of_row(const best_ctx *c, mmnc_int K, mmnc_int y,
                                                              const double *s)
{
    double sc[64];
    mmnc_int to = c->labels[y];
    for (mmnc_int z = 0; z < K; z++) sc[z] = 0.0;
    for (mmnc_int j = 0; j < K; j++)
        for (mmnc_int z = 0; z < K; z++) sc[z] += s[j] * c->Mp[j * K + z];
    double own = 0.0, best;
    for (mmnc_int z = 0; z < K; z++)
        if (z == to) own = sc[z];
    best = own; /* ties keep the current cluster */
    for (mmnc_int z = 0; z < K; z++)
        if (sc[z] > best) best = sc[z], to = z;
    c->own[y] = own;
    c->best[y] = best;
    c->to[y] = to;
}

#define ROW_BEST_K(K)                                               \
    static void row_best_##K(void *v, mmnc_int y, const double *s) \
    {                                                               \
        best_of_row(v, K, y, s);                                    \
    }
ROW_BEST_K(2)
ROW_BEST_K(3)
ROW_BEST_K(4)
ROW_BEST_K(5)
ROW_BEST_K(6)
ROW_BEST_K(7)
ROW_BEST_K(8)
ROW_BEST_K(9)
ROW_BEST_K(10)
ROW_BEST_K(11)
ROW_BEST_K(12)
ROW_BEST_K(13)
ROW_BEST_K(14)
ROW_BEST_K(15)
ROW_BEST_K(16)

/* The row function for the k without a compiled one (k = 1 or k > 16):
 * best_of_row itself up to k = 64, its buffer, else the scores one at a
 * time. */
static void row_best_any(void *v, mmnc_int y, const double *s)
{
    const best_ctx *c = v;
    mmnc_int to = c->labels[y];
    double own, best;
    if (c->k <= 64) {
        best_of_row(c, c->k, y, s);
        return;
    }
    own = 0.0;
    for (mmnc_int j = 0; j < c->k; j++) own += s[j] * c->Mp[j * c->k + to];
    best = own; /* ties keep the current cluster */
    for (mmnc_int z = 0; z < c->k; z++) {
        double t = 0.0;
        for (mmnc_int j = 0; j < c->k; j++) t += s[j] * c->Mp[j * c->k + z];
        if (t > best) best = t, to = z;
    }
    c->own[y] = own;
    c->best[y] = best;
    c->to[y] = to;
}

/* The row function for k: one compiled with k constant for k <= 16. */
static mmnc_i_row_fn row_best_for(mmnc_int k)
{
    static const mmnc_i_row_fn fixed[17] = {NULL,           NULL,           row_best_2,  row_best_3,  row_best_4,
                                            row_best_5,     row_best_6,     row_best_7,  row_best_8,  row_best_9,
                                            row_best_10,    row_best_11,    row_best_12, row_best_13, row_best_14,
                                            row_best_15,    row_best_16};
    return k >= 2 && k <= 16 ? fixed[k] : row_best_any;
}

/* The screen (linalg/kernel_i.h, mmnc_i_row_gather32_each): row y's scores from
 * single-precision Tx, c~ = s~ Mp, decide the row when an error bound
 * proves that the double-precision scores c of best_of_row pick the same
 * cluster; else recompute the row in doubles.
 *
 * The bound.  P >= 0 (mmnc_pmf_build) and T >= 0, so every term of s is
 * nonnegative.  With u = 2^-53, g_m = 1.01 m u, n the row's nonzeros and
 * |Mp| taken elementwise: the double path's s_j is within g_n of the exact
 * sum sigma_j, and c_z within g_k sum_j s_j |Mp_jz| of s Mp; rounding Tx to
 * float moves sigma_j by at most 2^-24 sigma_j + 2^-150 rho (rho the row's
 * mass; 2^-150 covers the subnormal range), and the screen's own sums add
 * g_n and g_k as above.  Hence |c~_z - c_z| <= eps a_z + tau_z rho with
 * a_z = sum_j s~_j |Mp_jz| <= (sum_j s~_j) max_j |Mp_jz| (s~ >= 0; the
 * right side is what is computed: k operations a row, not k^2),
 * eps = 2 (2^-24 + 5 g_(n+k+4)) and tau_z = 2^-147 sum_j |Mp_jz| (factors
 * of 2 to spare for the rounding of the bound itself and for
 * sigma <= s~ (1 + 2^-23)).  Underflow loses at most 2^-1075 an operation
 * in either path, carried through Mp: (n + k + 8) 2^-1000 (sum_j |Mp_jz| +
 * 1) more covers it, with what tau itself may lose (2^-1000, not a
 * smaller factor: subnormal operands would take the slow path of the FPU
 * for every row).  If c~_b - bound_b >
 * c~_z + bound_z for every z != b, c's maximum is attained at b alone, so
 * best_of_row (ties keep the current cluster) moves the row to b, or keeps
 * it there: the same decision.  NaN or Inf fail the test and take the
 * double path.
 *
 * A decided row keeps its screened scores in own and best: close, not the
 * same bits.  They order the moves only when a part of a step is tried and
 * rank the rows only when a cluster is left empty; the solver recomputes
 * every row in doubles first in those two cases (run_hard). */
typedef struct screen_ctx {
    best_ctx bc;
    const mmnc_pmf *p;
    const double *Tx, *cmax, *csum; /* max_j |Mp_jz|, sum_j |Mp_jz| */
    mmnc_i_gather_fn gather;
    int64_t exact; /* rows recomputed in doubles (atomic) */
} screen_ctx;

static inline __attribute__((always_inline)) void screen_row(screen_ctx *c, mmnc_int K, mmnc_int y, const double *s)
{
    const mmnc_csr *P = c->p->P;
    const double *Mp = c->bc.Mp;
    double sc[16], a[16], lo, ssum = 0.0;
    mmnc_int n = P->rowptr[y + 1] - P->rowptr[y], b = 0;
    double eps = 2.0 * (0x1p-24 + 5.0 * 1.01 * (double)(n + K + 4) * 0x1p-53), rho = s[K] * 0x1p-147;
    double unf = (double)(n + K + 8) * 0x1p-1000; /* a normal number, unlike 2^-1072 */
    int ok = 1;
    for (mmnc_int z = 0; z < K; z++) sc[z] = 0.0;
    for (mmnc_int j = 0; j < K; j++) {
        ssum += s[j];
        for (mmnc_int z = 0; z < K; z++) sc[z] += s[j] * Mp[j * K + z];
    }
    ssum *= eps;
    for (mmnc_int z = 0; z < K; z++) {
        a[z] = ssum * c->cmax[z] + rho * c->csum[z] + unf * (c->csum[z] + 1.0); /* the bound */
        if (sc[z] > sc[b]) b = z;
    }
    lo = sc[b] - a[b];
    for (mmnc_int z = 0; z < K; z++)
        if (z != b && !(lo > sc[z] + a[z])) ok = 0;
    if (ok) {
        c->bc.own[y] = sc[c->bc.labels[y]];
        c->bc.best[y] = sc[b];
        c->bc.to[y] = b;
    } else {
        double ex[16];
        c->gather(P->colind, P->val, P->rowptr[y], P->rowptr[y + 1], P->nnz, c->Tx, K, ex);
        best_of_row(&c->bc, K, y, ex);
#pragma omp atomic
        c->exact++;
    }
}

#define SCREEN_K(K)                                                  \
    static void screen_##K(void *v, mmnc_int y, const double *s)    \
    {                                                                \
        screen_row(v, K, y, s);                                      \
    }
SCREEN_K(2)
SCREEN_K(3)
SCREEN_K(4)
SCREEN_K(5)
SCREEN_K(6)
SCREEN_K(7)
SCREEN_K(8)
SCREEN_K(9)
SCREEN_K(10)
SCREEN_K(11)
SCREEN_K(12)
SCREEN_K(13)
SCREEN_K(14)
SCREEN_K(15)
SCREEN_K(16)

/* The screened row function for k, 2 <= k <= 16 (NULL otherwise). */
static mmnc_i_row_fn screen_for(mmnc_int k)
{
    static const mmnc_i_row_fn fixed[17] = {NULL,      NULL,      screen_2,  screen_3,  screen_4,  screen_5,
                                            screen_6,  screen_7,  screen_8,  screen_9,  screen_10, screen_11,
                                            screen_12, screen_13, screen_14, screen_15, screen_16};
    return k >= 2 && k <= 16 ? fixed[k] : NULL;
}

/* Screen this problem?  Mode 1: when Tx (nx k doubles) outgrows a core's
 * L2 cache, where its rows come from farther away and a row of floats on
 * one cache line pays for the screen (bench/NOTES.md, "Algorithm 2's
 * scores screened in single precision"). */
static int screen_wanted(const mmnc_pmf *p, mmnc_int k, const mmnc_i_tuning *tune)
{
    int mode = mmnc_i_screen_mode(tune);
    if (!mmnc_i_f32_stride(k) || mode == 0) return 0;
    return mode == 2 || (double)p->nx * (double)k * 8.0 > 2.0 * 1024 * 1024;
}

/* Buffers of one start: the current and the candidate state, and the scores. */
typedef struct work {
    state cur, nxt;
    double *Mp, *S, *C;
} work;

static void work_free(work *w)
{
    state_free(&w->cur);
    state_free(&w->nxt);
    mmnc_i_free(w->Mp);
    mmnc_i_free(w->S);
    mmnc_i_free(w->C);
}

/* all_scores: the |Y| x k S and C (the LP step); else only the start's states. */
static int work_alloc(work *w, mmnc_int nx, mmnc_int ny, mmnc_int k, int all_scores, mmnc_err *err)
{
    int ok = state_alloc(&w->cur, nx, k) & state_alloc(&w->nxt, nx, k);
    w->Mp = mmnc_i_malloc((size_t)(k * k), sizeof(double));
    if (all_scores) {
        w->S = mmnc_i_malloc((size_t)(ny * k), sizeof(double));
        w->C = mmnc_i_malloc((size_t)(ny * k), sizeof(double));
    }
    if (!ok || !w->Mp || (all_scores && (!w->S || !w->C))) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    return MMNC_OK;
}

typedef struct move {
    double gain;
    mmnc_int y, to;
} move;

/* qsort order of the moves: larger gain first, then lower row. */
static int by_gain(const void *a, const void *b)
{
    const move *u = a, *v = b;
    if (u->gain > v->gain) return -1;
    if (u->gain < v->gain) return 1;
    return (u->y > v->y) - (u->y < v->y);
}

/* Bits of a positive double, ordered as the doubles are. */
static uint64_t bits_of(double g)
{
    uint64_t u;
    memcpy(&u, &g, sizeof u);
    return u;
}

/* Local moves ranked before the threshold (gain bits > u, or == u with
 * global row <= ylast), mv sorted by by_gain: a prefix, found by bisection. */
static mmnc_int count_before(const move *mv, mmnc_int m, mmnc_int y0, uint64_t u, int64_t ylast)
{
    mmnc_int lo = 0, hi = m; /* first index not before the threshold */
    while (lo < hi) {
        mmnc_int mid = lo + (hi - lo) / 2;
        uint64_t b = bits_of(mv[mid].gain);
        if (b > u || (b == u && y0 + mv[mid].y <= ylast)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The number of this rank's moves among the `take` best over all ranks, by
 * gain (ties to the lower global row): the same set as the first `take` of
 * one process's sorted list.  mv (m local moves) is sorted by by_gain.
 * Bisection on the gain's bits, then on the row among equal gains: about
 * 64 + log2 |Y| one-integer sums, whatever the number of moves. */
static mmnc_int select_global(const mmnc_pmf *p, const move *mv, mmnc_int m, int64_t take)
{
    uint64_t lo = 0, hi = UINT64_C(0x7ff0000000000001); /* count(bits >= lo) >= take > count(>= hi) */
    int64_t c, need, ylo = -1, yhi;
    if (!mmnc_i_distributed(p)) return (mmnc_int)take;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        c = count_before(mv, m, p->y0, mid, INT64_MAX); /* gain bits >= mid */
        mmnc_i_disum(p, &c, 1);
        if (c >= take) lo = mid;
        else hi = mid;
    }
    /* moves with larger gains all go; of those with gain bits == lo, the
     * `need` with the smallest global rows */
    c = count_before(mv, m, p->y0, lo, -1); /* gain bits > lo */
    mmnc_i_disum(p, &c, 1);
    need = take - c;
    yhi = p->ny_all - 1; /* count(equal, row <= yhi) >= need > count(equal, row <= ylo) */
    while (yhi - ylo > 1) {
        int64_t mid = ylo + (yhi - ylo) / 2;
        c = count_before(mv, m, p->y0, lo, mid) - count_before(mv, m, p->y0, lo, -1);
        mmnc_i_disum(p, &c, 1);
        if (c >= need) yhi = mid;
        else ylo = mid;
    }
    return count_before(mv, m, p->y0, lo, yhi);
}

/* The moves (rows whose best cluster is not their own) in row order;
 * held rows (fixed[y] >= 0; fixed may be NULL) never move. */
static mmnc_int list_moves(mmnc_int ny, const mmnc_int *labels, const mmnc_int *to, const double *own,
                           const double *best, const mmnc_int *fixed, move *mv)
{
    mmnc_int m = 0;
    for (mmnc_int y = 0; y < ny; y++)
        if (to[y] != labels[y] && !(fixed && fixed[y] >= 0)) {
            mv[m].gain = best[y] - own[y];
            mv[m].y = y;
            mv[m].to = to[y];
            m++;
        }
    return m;
}

/* Is a cluster empty under these labels (over all ranks)?  Collective;
 * count keeps the sizes for mmnc_i_fill_empty. */
static int any_empty(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels, int64_t *count)
{
    mmnc_i_label_counts(p, k, labels, count);
    for (mmnc_int z = 0; z < k; z++)
        if (count[z] == 0) return 1;
    return 0;
}

/* Algorithm 2 without a prescribed P_Z, from labels: up to max_iter hard
 * iterations, each with its screen (single-precision scores, recomputed in
 * doubles when the bound fails) and the search for an accepted step (all
 * the moves, then the better half, ...).  One function, since the screen
 * and the search share the scores of the rows and the trial labels; the
 * kernels it calls are in linalg/kernel.c.  labels and W end as the last accepted
 * state. */
static int run_hard(const mmnc_pmf *p, const mmnc_params *prm, const mmnc_i_tuning *tune, int restart, mmnc_int *labels,
                    double *W, mmnc_i_run *run, mmnc_err *err)
{
    mmnc_int k = prm->k, ny = p->ny;
    work w = {0};
    mmnc_int *trial = NULL, *to = NULL;
    double *own = NULL, *best = NULL, *rs = NULL, *cmax = NULL, *csum = NULL;
    int64_t *count = NULL;
    float *F = NULL;
    char *Fraw = NULL;
    move *mv = NULL;
    int status = MMNC_OK, it, screen = screen_wanted(p, k, tune);
    if ((status = work_alloc(&w, p->nx, ny, k, 0, err)) != MMNC_OK) goto cleanup;
    MMNC_ALLOC(trial, ny ? ny : 1, err, status);
    MMNC_ALLOC(mv, ny ? ny : 1, err, status);
    MMNC_ALLOC(to, ny ? ny : 1, err, status);
    MMNC_ALLOC(own, ny ? ny : 1, err, status);
    MMNC_ALLOC(best, ny ? ny : 1, err, status);
    MMNC_ALLOC(rs, ny ? ny : 1, err, status);
    if (screen) { /* F on 64-byte lines: one line per row of 16 floats */
        MMNC_ALLOC(Fraw, (size_t)(p->nx * mmnc_i_f32_stride(k)) * sizeof(float) + 64, err, status);
        F = (float *)(Fraw + (64 - (uintptr_t)Fraw % 64) % 64);
        MMNC_ALLOC(cmax, k, err, status);
        MMNC_ALLOC(csum, k, err, status);
        MMNC_ALLOC(count, k, err, status);
    }
    if ((status = evaluate(p, k, labels, NULL, &w.cur, err)) != MMNC_OK) goto cleanup;
    run->converged = 0;
    for (it = 0; it < prm->max_iter; it++) {
        mmnc_int m;
        best_ctx bc = {k, w.Mp, labels, own, best, to};
        int exact = !screen; /* own and best are the double-precision scores */
        score_matrix(k, &w.cur, w.Mp);
        if (screen) {
            screen_ctx sc = {bc, p, w.nxt.T, cmax, csum, mmnc_i_gather_for(k), 0};
            for (mmnc_int z = 0; z < k; z++) csum[z] = cmax[z] = 0.0;
            for (mmnc_int j = 0; j < k; j++)
                for (mmnc_int z = 0; z < k; z++) {
                    double m = fabs(w.Mp[j * k + z]);
                    csum[z] += m;
                    cmax[z] = m > cmax[z] ? m : cmax[z];
                }
            mmnc_i_tx_f32(p, k, w.cur.T, w.nxt.T, F);
            if (mmnc_i_row_gather32_each(p, k, F, screen_for(k), &sc) != MMNC_OK) {
                status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
                goto cleanup;
            }
            mmnc_i_screen_count(tune->counts, ny, sc.exact, 0);
        } else if (mmnc_i_row_gather_each(p, k, w.cur.T, w.nxt.T, NULL, row_best_for(k), &bc) != MMNC_OK) {
            status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
            goto cleanup;
        }
        m = list_moves(ny, labels, to, own, best, prm->fixed_label, mv);
        int64_t mall = m; /* moves on all ranks */
        mmnc_i_disum(p, &mall, 1);
        if (mall == 0) {
            run->converged = 1;
            break;
        }
        int accepted = 0;
        for (int64_t take = mall; take >= 1; take /= 2) {
            /* The whole step takes every move, in any order: sort by gain only
             * when a part of it is tried, as the sort is a noticeable share of
             * an iteration (bench/NOTES.md, "Predicted gains").
             * Gains and the scores of a refill must be the double-precision
             * ones: recompute every row first after a screen (the same moves). */
            mmnc_int here = m;
            int need_exact = !exact && take == mall / 2, built = 0;
            if (!exact && take == mall) { /* every move: the same trial after a recompute */
                memcpy(trial, labels, (size_t)ny * sizeof(mmnc_int));
                for (mmnc_int i = 0; i < m; i++) trial[mv[i].y] = mv[i].to;
                need_exact = any_empty(p, k, trial, count);
                built = 1;
            }
            if (need_exact) {
                if (mmnc_i_row_gather_each(p, k, w.cur.T, w.nxt.T, NULL, row_best_for(k), &bc) != MMNC_OK) {
                    status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
                    goto cleanup;
                }
                m = list_moves(ny, labels, to, own, best, prm->fixed_label, mv);
                exact = 1;
                mmnc_i_screen_count(tune->counts, 0, 0, 1);
            }
            if (take == mall / 2) qsort(mv, (size_t)m, sizeof(move), by_gain);
            if (take < mall) here = select_global(p, mv, m, take);
            if (!built) {
                memcpy(trial, labels, (size_t)ny * sizeof(mmnc_int));
                for (mmnc_int i = 0; i < here; i++) trial[mv[i].y] = mv[i].to;
            }
            for (mmnc_int y = 0; y < ny; y++) rs[y] = trial[y] == labels[y] ? own[y] : best[y];
            if (prm->fixed_label) /* a held row never fills an empty cluster */
                for (mmnc_int y = 0; y < ny; y++)
                    if (prm->fixed_label[y] >= 0) rs[y] = INFINITY;
            mmnc_i_fill_empty(p, k, trial, built ? count : NULL, rs, NULL); /* built: counted */
            if ((status = evaluate(p, k, trial, NULL, &w.nxt, err)) != MMNC_OK) goto cleanup;
            if (w.nxt.obj > w.cur.obj * (1.0 + 1e-13)) {
                state t = w.cur;
                w.cur = w.nxt;
                w.nxt = t;
                memcpy(labels, trial, (size_t)ny * sizeof(mmnc_int));
                accepted = 1;
                break;
            }
        }
        if ((status = mmnc_i_progress(prm, restart, it + 1, w.cur.obj, err)) != MMNC_OK) goto cleanup;
        if (!accepted) {
            run->converged = 1;
            it++;
            break;
        }
    }
    run->iterations = it;
    run->objective = w.cur.obj;
    memset(W, 0, (size_t)(ny * k) * sizeof(double));
    for (mmnc_int y = 0; y < ny; y++) W[y * k + labels[y]] = 1.0;
cleanup:
    work_free(&w);
    mmnc_i_free(trial);
    mmnc_i_free(mv);
    mmnc_i_free(to);
    mmnc_i_free(own);
    mmnc_i_free(best);
    mmnc_i_free(rs);
    mmnc_i_free(Fraw);
    mmnc_i_free(cmax);
    mmnc_i_free(csum);
    mmnc_i_free(count);
    return status;
}

/* Algorithm 2 with a prescribed P_Z: each iteration scores every row
 * (C = S Mp) and solves the transportation LP for the next W
 * (transport.c); stops when W stops changing, the norm stops rising, or
 * at max_iter.  labels end as each row's argmax of W. */
static int run_prescribed(const mmnc_pmf *p, const mmnc_params *prm, int restart, mmnc_int *labels, double *W,
                          mmnc_i_run *run, mmnc_err *err)
{
    mmnc_int k = prm->k, ny = p->ny;
    work w = {0};
    double *Wn = NULL;
    mmnc_i_transport *tp = NULL;
    int status = MMNC_OK, it;
    if ((status = work_alloc(&w, p->nx, ny, k, 1, err)) != MMNC_OK) goto cleanup;
    MMNC_ALLOC(Wn, ny * k, err, status);
    if ((status = mmnc_i_transport_new(p, k, prm->pz, &tp, err)) != MMNC_OK) goto cleanup;
    memset(W, 0, (size_t)(ny * k) * sizeof(double));
    for (mmnc_int y = 0; y < ny; y++) W[y * k + labels[y]] = 1.0;
    if ((status = evaluate(p, k, NULL, W, &w.cur, err)) != MMNC_OK) goto cleanup;
    run->converged = 0;
    for (it = 0; it < prm->max_iter; it++) {
        double change = 0.0;
        scores(p, k, &w.cur, w.Mp, w.nxt.T, w.S, w.C);
        if ((status = mmnc_i_transport_solve(tp, w.C, Wn, err)) != MMNC_OK) goto cleanup;
        if ((status = evaluate(p, k, NULL, Wn, &w.nxt, err)) != MMNC_OK) goto cleanup;
        /* The start is off the marginal, so the first step may lower the norm;
         * afterwards the alternation is monotone up to LP round-off. */
        if (it > 0 && w.nxt.obj < w.cur.obj) {
            run->converged = 1;
            break;
        }
        for (mmnc_int i = 0; i < ny * k; i++)
            if (fabs(Wn[i] - W[i]) > change) change = fabs(Wn[i] - W[i]);
        mmnc_i_dmax(p, &change, 1);
        int flat = it > 0 && w.nxt.obj <= w.cur.obj * (1.0 + 1e-12);
        state t = w.cur;
        w.cur = w.nxt;
        w.nxt = t;
        memcpy(W, Wn, (size_t)(ny * k) * sizeof(double));
        if ((status = mmnc_i_progress(prm, restart, it + 1, w.cur.obj, err)) != MMNC_OK) goto cleanup;
        if (change < 1e-12 || flat) {
            run->converged = 1;
            it++;
            break;
        }
    }
    run->iterations = it;
    run->objective = w.cur.obj;
    for (mmnc_int y = 0; y < ny; y++) {
        mmnc_int best = 0;
        for (mmnc_int z = 1; z < k; z++)
            if (W[y * k + z] > W[y * k + best]) best = z;
        labels[y] = best;
    }
cleanup:
    mmnc_i_transport_free(tp);
    work_free(&w);
    mmnc_i_free(Wn);
    return status;
}

/* Algorithm 2 from the start labels (solver_i.h): with a prescribed P_Z
 * or with hard steps. */
int mmnc_i_nuclear(const mmnc_pmf *p, const mmnc_params *prm, const mmnc_i_tuning *tune, int restart,
                   mmnc_int *labels, double *W, mmnc_i_run *run, mmnc_err *err)
{
    if (prm->pz) return run_prescribed(p, prm, restart, labels, W, run, err);
    return run_hard(p, prm, tune, restart, labels, W, run, err);
}
