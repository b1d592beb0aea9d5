/*
 * moves.c -- the engine of the information objective: single-row moves
 * over the cluster sums, one sweep at a time (moves_i.h).
 *
 * A move takes row y out of its cluster c0 and merges it into the cluster
 * c that loses the least information by the merge:
 *
 *   d(y, c) = sum_x [ a_x log a_x + b_x log b_x - (a_x + b_x) log(a_x + b_x) ]
 *             + (p_y + p_c) log(p_y + p_c) - p_y log p_y - p_c log p_c
 *             - w [(n_c + 1) log(n_c + 1) - n_c log n_c],
 *
 * a_x = P(y,x), b_x = P(c,x) without y, p_c = P(c) without y, n_c the rows
 * of c without y, w = gamma / nnz the size prior's weight (0: none).  The
 * first two lines are (p_y + p_c) times the Jensen-Shannon divergence of
 * P(x|y) and P(x|c); I(X;Z) after the move is I(X;Z without y) - d(y, c)
 * (without the prior's line), so moving y to the c of least d never lowers
 * the objective J = I(X;Z) - gamma (|Y| / nnz) H_rows(Z) of information.c.
 * A column with b_x = 0 adds a_x log a_x - a_x log a_x = 0 to the bracket,
 * so only the row's own columns are read: O(nnz(y) k) a row, O(nnz k) a
 * sweep.
 *
 * A sweep visits the rows in an order drawn once from the seed and the
 * start (rows stored by class, as in many corpora, visited in storage
 * order do worse); a row moves only if it gains more than 1e-12 of the
 * cost (ties keep it), and a row alone in its cluster stays, so no cluster
 * empties.
 *
 * The moves are sequential (each sees the previous ones).  The threads
 * make the costs of a block of rows ahead, and each row remakes those that
 * earlier moves made stale (sweep), so every decision is the
 * one-row-at-a-time decision and the result does not depend on the number
 * of threads.  A distributed sweep visits all ranks' rows in the order of
 * one process and replays its decisions on every rank (sweep_dist): the
 * same clustering and the same bits for any number of ranks, since the
 * sums made afresh (refresh) are exact sums (mmnc_i_pzx_fix).  Every rank
 * replays every decision and receives every row once a sweep: more ranks
 * bring memory for the matrix, not speed.  The batch passes (below, "Batch
 * steps"; mmnc_params.moves) are the form that threads and ranks share out.
 *
 * Nearly all the time goes to the sums of the costs, one logarithm a term.
 * They run without a branch, with a logarithm of arithmetic alone
 * (mmnc_i_flog) that the compiler vectorises, in clones for AVX-512, AVX2
 * and plain x86-64 chosen at run time: the same bits on every machine.
 * From k = VECTOR_MIN_K on the vector runs across the k clusters of an
 * entry, below across the row's entries; a row's own cluster's cost is
 * summed apart (own_sum).  Costs stay valid while their cluster does not
 * change, so a row remakes only the stale ones (costs_of).  From k =
 * PRUNE_MIN_K on (serial runs) bounds without a logarithm rule out most
 * clusters before their exact cost is made (costs_pruned); the columns are
 * numbered by frequency where the tables outgrow the caches (renumber).
 * Each of these gives the same decisions, so the same bits.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/moves_i.h"
#ifdef _OPENMP
#include <omp.h>
#endif

static inline double xlogx(double v) { return v > 0.0 ? v * log(v) : 0.0; }

/* What a sweep keeps between rows and sweeps.  A row's cost to cluster c
 * depends only on its own values and on cluster c's sums (and, for its own
 * cluster, on itself), so a cost made earlier is still exact, bit for bit,
 * while cluster c has not changed: each row keeps its k costs (cost, ny x
 * k) and the clock of when they were made (seen), each cluster the clock of
 * its last change (changed), and a row recomputes only the costs of the
 * clusters changed since.  Late sweeps, where few rows move, then cost
 * O(nnz(y) x changed clusters) a row instead of O(nnz(y) k). */
typedef struct moves {
    const mmnc_int *col; /* the column of each nonzero of P as the sums T, BL number them (see renumber) */
    double *cost;     /* ny x k */
    int64_t *seen;    /* ny; -1: never */
    int64_t *changed; /* k */
    mmnc_int *redo;   /* block x k scratch: the clusters to recompute */
    double *acc;      /* block x k scratch: their sums */
    double *gain;     /* k: the prior's gain of adding a row to each cluster (prior_gain(w, n_c)) */
    double w;         /* the prior's weight in this phase (0: none) */
    mmnc_int block;   /* rows per block (SWEEP_BLOCK_WORK / (k x the mean row length), >= 64) */
    int64_t clock;
    int track;        /* keep blsum: the objective is shown after every sweep */
    double blsum;     /* sum of BL, kept where track (shown_objective) */
    /* Pruned decisions (see costs_pruned); NULL where the costs are all made. */
    float *L1;        /* nx x k, numbered as T: log b + 1 for b = T > 0, +inf for 0 (single precision) */
    double *lo;       /* block x k scratch: lower bounds of the costs */
    int64_t pruned;   /* costs ruled out at the decisions */
    int64_t decided;  /* MMNC_TRACE_SWEEPS: decisions (rows not alone in their cluster) */
    int64_t exact;    /* MMNC_TRACE_SWEEPS: exact costs made at the decisions besides the own cluster's */
    const mmnc_int *held; /* ny: mmnc_params.fixed_label (>= 0: the row never moves), or NULL */
} moves;

/* Is row y (local) held at its label (semi-supervision)?  It is then never decided. */
static inline int held(const moves *m, mmnc_int y) { return m->held && m->held[y] >= 0; }

/* Every cluster changed (the sums were made afresh). */
static void all_changed(moves *m, mmnc_int k)
{
    m->clock++;
    for (mmnc_int c = 0; c < k; c++) m->changed[c] = m->clock;
}

#define REDO_ALL 4 /* more than k / REDO_ALL costs stale: all k are remade, side by side in the vector
                      unit (the same bits: a cost depends only on its cluster's sums and the row) */

#define PREFETCH_AHEAD 2
#define PREFETCH_FEW 8 /* the same for the costs of a few clusters (pruned decisions) */

/* acc[j] += sum_x b log b - (a + b) log(a + b) over a row's entries (col,
 * val), b = T[x][c] with c = redo[j] (c = j when nr = k): -a log a where b
 * = 0, as b log b is 0 there, so the loop has no branch. */
MMNC_I_VECTOR_CLONES static void entry_costs(const mmnc_int *col, const double *val, mmnc_int n, mmnc_int k,
                                             const double *restrict T, const double *restrict BL, const mmnc_int *redo,
                                             mmnc_int nr, double *restrict acc)
{
    for (mmnc_int e = 0; e < n; e++) {
        double a = val[e];
        const double *t = T + col[e] * k, *bl = BL + col[e] * k;
        if (nr * REDO_ALL > k) { /* the next rows of T and BL, while this one is summed */
            if (e + PREFETCH_AHEAD < n) {
                const char *tn = (const char *)(T + col[e + PREFETCH_AHEAD] * k),
                           *bn = (const char *)(BL + col[e + PREFETCH_AHEAD] * k);
                for (mmnc_int o = 0; o < k * (mmnc_int)sizeof(double); o += 64) {
                    __builtin_prefetch(tn + o);
                    __builtin_prefetch(bn + o);
                }
            }
        } else if (e + PREFETCH_FEW < n) { /* a few values a row: only theirs, further ahead */
            const double *tn = T + col[e + PREFETCH_FEW] * k, *bn = BL + col[e + PREFETCH_FEW] * k;
            for (mmnc_int j = 0; j < nr; j++) {
                __builtin_prefetch(tn + redo[j]);
                __builtin_prefetch(bn + redo[j]);
            }
        }
        if (nr == k) {
            for (mmnc_int c = 0; c < k; c++) {
                double v = a + t[c];
                acc[c] += bl[c] - v * mmnc_i_flog(v);
            }
        } else {
            for (mmnc_int j = 0; j < nr; j++) {
                double v = a + t[redo[j]];
                acc[j] += bl[redo[j]] - v * mmnc_i_flog(v);
            }
        }
    }
}

/* entry_costs for few clusters (k < VECTOR_MIN_K), where a vector across
 * the clusters would be mostly empty: the vector runs across the row's
 * entries instead.  In chunks of at most ROW_CHUNK entries, the values
 * a + b (and, for c0, b without y and its b log b) are gathered entry by
 * entry, their terms made in one vector loop (map_terms) and summed in
 * ROW_LANES partial sums, an entry's lane fixed by its position in the row,
 * so the bits depend neither on the vector width nor on the chunks.  Below
 * VECTOR_MIN_K the vector across the entries is the faster one (bench/NOTES.md,
 * "The default's code: figures moved out of its comments"). */
#define VECTOR_MIN_K 16
#define ROW_BUF 2048 /* gathered values a chunk (v and bl each) */
#define ROW_CHUNK 256 /* entries a chunk at most */
#define ROW_LANES 8

/* out[i] = b log b for b >= 0 (0 for 0), by mmnc_i_flog. */
MMNC_I_VECTOR_CLONES static void map_xlogx(const double *restrict b, double *restrict out, mmnc_int m)
{
    for (mmnc_int i = 0; i < m; i++) {
        double v = b[i] > 1e-300 ? b[i] : 1e-300;
        out[i] = b[i] * mmnc_i_flog(v);
    }
}

/* v[i] = bl[i] - v[i] log v[i] (v > 0), in place. */
MMNC_I_VECTOR_CLONES static void map_terms(double *restrict v, const double *restrict bl, mmnc_int m)
{
    for (mmnc_int i = 0; i < m; i++) v[i] = bl[i] - v[i] * mmnc_i_flog(v[i]);
}

#if defined(__GNUC__) && !defined(__clang__)
#define NO_MEMCPY_CALLS __attribute__((optimize("no-tree-loop-distribute-patterns"))) /* gathers of k < 8 values */
#else
#define NO_MEMCPY_CALLS
#endif

NO_MEMCPY_CALLS static void entry_costs_few(const mmnc_int *col, const double *val, mmnc_int n, mmnc_int k, mmnc_int c0,
                            const double *T, const double *BL, const mmnc_int *redo, mmnc_int nr, double *acc)
{
    double v[ROW_BUF], bl[ROW_BUF], s[VECTOR_MIN_K * ROW_LANES];
    double b0[ROW_CHUNK], bl0[ROW_CHUNK];
    mmnc_int j0 = -1; /* the position of c0 in redo, if there */
    for (mmnc_int j = 0; j < nr; j++) {
        if (redo[j] == c0) j0 = j;
        for (int l = 0; l < ROW_LANES; l++) s[j * ROW_LANES + l] = 0.0;
    }
    mmnc_int chunk = ROW_BUF / nr < ROW_CHUNK ? ROW_BUF / nr : ROW_CHUNK;
    for (mmnc_int e0 = 0; e0 < n; e0 += chunk) {
        mmnc_int m = n - e0 < chunk ? n - e0 : chunk;
        /* gather, entry by entry: v[i nr + j] = a + b, bl[i nr + j] = b log b */
        if (nr == k)
            for (mmnc_int i = 0; i < m; i++) {
                const double *t = T + col[e0 + i] * k, *tl = BL + col[e0 + i] * k;
                double a = val[e0 + i];
                for (mmnc_int c = 0; c < k; c++) v[i * k + c] = a + t[c], bl[i * k + c] = tl[c];
            }
        else
            for (mmnc_int i = 0; i < m; i++) {
                const double *t = T + col[e0 + i] * k, *tl = BL + col[e0 + i] * k;
                double a = val[e0 + i];
                for (mmnc_int j = 0; j < nr; j++) v[i * nr + j] = a + t[redo[j]], bl[i * nr + j] = tl[redo[j]];
            }
        if (j0 >= 0) { /* y drawn out of c0: its b is T - a */
            for (mmnc_int i = 0; i < m; i++) {
                double a = val[e0 + i], b = T[col[e0 + i] * k + c0] - a;
                b0[i] = b < 0.0 ? 0.0 : b;
            }
            map_xlogx(b0, bl0, m);
            for (mmnc_int i = 0; i < m; i++) v[i * nr + j0] = val[e0 + i] + b0[i], bl[i * nr + j0] = bl0[i];
        }
        map_terms(v, bl, nr * m);
        for (mmnc_int i = 0; i < m; i++) {
            double *q = s + ((e0 + i) & (ROW_LANES - 1));
            for (mmnc_int j = 0; j < nr; j++) q[j * ROW_LANES] += v[i * nr + j];
        }
    }
    for (mmnc_int j = 0; j < nr; j++) {
        const double *q = s + j * ROW_LANES;
        acc[j] += ((q[0] + q[1]) + (q[2] + q[3])) + ((q[4] + q[5]) + (q[6] + q[7]));
    }
}

/* sum_x b log b - (a + b) log(a + b) over a row's entries (col, val) with b
 * = T[x][c0] - a (the row drawn out of its cluster c0; 0 where rounding
 * makes it negative), the cost's sum for c0 from VECTOR_MIN_K on: in chunks,
 * the logarithms in the vector unit, ROW_LANES partial sums with an entry's
 * lane fixed by its position (as entry_costs_few makes c0's). */
static double own_sum(const mmnc_int *col, const double *val, mmnc_int n, mmnc_int k, mmnc_int c0, const double *T)
{
    double v[ROW_CHUNK], b0[ROW_CHUNK], bl0[ROW_CHUNK], q[ROW_LANES] = {0.0};
    for (mmnc_int e0 = 0; e0 < n; e0 += ROW_CHUNK) {
        mmnc_int m = n - e0 < ROW_CHUNK ? n - e0 : ROW_CHUNK;
        for (mmnc_int i = 0; i < m; i++) {
            double a = val[e0 + i], b = T[col[e0 + i] * k + c0] - a;
            b0[i] = b < 0.0 ? 0.0 : b;
            v[i] = a + b0[i];
        }
        map_xlogx(b0, bl0, m);
        map_terms(v, bl0, m);
        for (mmnc_int i = 0; i < m; i++) q[(e0 + i) & (ROW_LANES - 1)] += v[i];
    }
    return ((q[0] + q[1]) + (q[2] + q[3])) + ((q[4] + q[5]) + (q[6] + q[7]));
}

/* The exact costs (in cost) of a row with n entries (col, val) and mass py,
 * in c0, to the nr clusters redo[] (all k where nr = k; a list may come
 * back reordered, c0 last), as of the current sums; acc is nr scratch.  A
 * cost depends only on the row and its cluster's sums: the same bits
 * whichever other clusters are made with it.  From VECTOR_MIN_K on, c0's sum
 * (y drawn out of it) is made apart, so a list leaves it out of the vector
 * sums (most decisions of late sweeps and pruned ones need c0's cost
 * alone). */
static void exact_costs(const mmnc_int *col, const double *val, mmnc_int n, double py, mmnc_int k, mmnc_int c0,
                        const double *T, const double *BL, const double *pz, mmnc_int *redo, mmnc_int nr,
                        double *acc, double *cost)
{
    double pc0 = pz[c0] - py;
    for (mmnc_int j = 0; j < nr; j++) acc[j] = 0.0;
    if (k < VECTOR_MIN_K) {
        entry_costs_few(col, val, n, k, c0, T, BL, redo, nr, acc);
    } else if (nr == k) {
        entry_costs(col, val, n, k, T, BL, redo, nr, acc);
    } else { /* c0's sum is made below: the others only (c0 moved last in redo) */
        mmnc_int m = 0;
        for (mmnc_int j = 0; j < nr; j++)
            if (redo[j] != c0) redo[m++] = redo[j];
        if (m < nr) redo[m] = c0;
        if (m > 0) entry_costs(col, val, n, k, T, BL, redo, m, acc);
    }
    for (mmnc_int j = 0; j < nr; j++) {
        mmnc_int c = redo[j];
        double pc = c == c0 ? pc0 : pz[c];
        if (c == c0 && k >= VECTOR_MIN_K) acc[j] = own_sum(col, val, n, k, c0, T); /* y drawn out of c0 */
        cost[c] = acc[j] + (xlogx(py + pc) - xlogx(pc));
    }
}

/* The costs (in c0) of a row with n entries (col, val) and mass py to the
 * clusters changed since they were last made (*seen; all of them the first
 * time), as of the current sums; redo and acc are k scratch. */
static void costs_of(const mmnc_int *col, const double *val, mmnc_int n, double py, mmnc_int k, mmnc_int c0,
                     const double *T, const double *BL, const double *pz, const moves *m, double *cost,
                     int64_t *seen, mmnc_int *redo, double *acc)
{
    mmnc_int nr = 0;
    for (mmnc_int c = 0; c < k; c++)
        if (*seen < 0 || m->changed[c] > *seen) redo[nr++] = c;
    *seen = m->clock;
    if (nr == 0) return;
    if (nr > k / REDO_ALL)
        for (nr = 0; nr < k; nr++) redo[nr] = nr;
    exact_costs(col, val, n, py, k, c0, T, BL, pz, redo, nr, acc, cost);
}

/* Is the row alone in its cluster c0 (it then stays)?  Counted in rows, not
 * mass: the masses carry the roundings of the moves (and of the ranks'
 * sums), and a row that a rounding residue made look not alone would empty
 * its cluster, differently for different numbers of ranks. */
static int alone(mmnc_int c0, const int64_t *nc)
{
    return nc[c0] <= 1;
}

/* The prior's gain (gamma / nnz = w) of adding a row to a cluster of n rows: w [(n+1) log(n+1) - n log n]. */
static inline double prior_gain(double w, int64_t n)
{
    return w > 0.0 ? w * (xlogx((double)(n + 1)) - xlogx((double)n)) : 0.0;
}

/* Pruned decisions.  A move needs the exact costs of only the clusters that
 * could be the row's least; the others can be ruled out by lower bounds
 * that cost a few vector operations a term instead of a logarithm.  With
 * f(v) = v log v convex, the term of an entry (a = P(y,x), b = P(c,x) > 0)
 * in cost c is g = b log b - (a + b) log(a + b) = -(f(a + b) - f(b)), and
 *
 *   g >= -a (log b + 1) - a^2 / (2 b),
 *
 * since f(a + b) - f(b) - a f'(b) = b h(a / b), h(r) = (1 + r) log(1 + r) - r
 * <= r^2 / 2 (and g <= -a (log b + 1): the bound is tight where b >> a).
 * Where b < PRUNE_NEAR a ("near", where it is loose) the bound is, from
 * f(a + b) - f(b) <= a f'(a + b), g >= -a (log a + log(1 + PRUNE_NEAR) + 1);
 * where b = 0 the term is -a log a exactly.  One table beside T, L1 = log b
 * + 1 (+inf for b = 0), single precision, kept by the moves, gives them all:
 * a^2 / (2 b) = (a / 2) (a / b) is bounded by (a / 2) 2^ceil(log2(a / b)),
 * made from L1 with the exponent's bits (at most twice the term; no
 * division).  Where L1 is read, b >= PRUNE_NEAR a, so |L1| <= |log a| + 1.7
 * and the terms, made and summed in single precision a few entries at a
 * time, carry roundings below 4e-6 of the row's scale sum_x a (|log a| + 1).
 * costs_pruned makes the exact cost of the row's own cluster, then that of
 * the cluster of least lower bound if that bound could beat it, then of
 * every cluster whose lo_c - gain_c is not above the least exact cost (less
 * its gain) by more than a margin, PRUNE_MARGIN of the scale plus 1e-14 a
 * term (several times the roundings of either sum); the others stay
 * unknown (NAN) and decide skips them.  The cluster chosen, so every label
 * and objective, is the same bits as with every cost made: the exact costs
 * are made by the same code, and the clusters ruled out cannot be the least
 * (test_information's test_pruned compares on data built to reach every
 * case).  At large k a decision makes few exact costs besides its own
 * cluster's (bench/NOTES.md, "Pruned decisions").  In serial runs from
 * k = PRUNE_MIN_K; below, the few
 * clusters' sums across the row's entries are as fast; the distributed
 * moves make every cost.  mmnc_i_tuning.prune switches it for tests. */
#define PRUNE_MIN_K 16
#define PRUNE_NEAR 0.5
#define PRUNE_LOG1P_NEAR 0.40546510810816438198 /* log(1 + PRUNE_NEAR) */
#define PRUNE_MARGIN 3e-5

/* The table's entry for b = T[x][c]: log b + 1, +inf for b = 0. */
static inline float bound_entry(double b)
{
    return b > 0.0 ? (float)(log(b) + 1.0) : INFINITY;
}

/* out[i] = log v[i] for v > 0 (else 0), by mmnc_i_flog. */
MMNC_I_VECTOR_CLONES static void map_log(const double *restrict v, double *restrict out, mmnc_int m)
{
    for (mmnc_int i = 0; i < m; i++) {
        double w = v[i] > 1e-300 ? v[i] : 1e-300;
        out[i] = v[i] > 0.0 ? mmnc_i_flog(w) : 0.0;
    }
}

/* 2^t for an integer-valued t in [-126, 127], from the bits. */
static inline float pow2f(float t)
{
    float s = t + (8388608.0f + 127.0f); /* 2^23 + the biased exponent */
    uint32_t u;
    memcpy(&u, &s, sizeof u);
    u <<= 23;
    memcpy(&s, &u, sizeof s);
    return s;
}

#define LOG2E 1.44269504088896340736
#define LOG_NEAR -0.69314718055994530942 /* log PRUNE_NEAR */
#define BOUND_CHUNK 8 /* entries whose terms are summed in single precision before a sum in double */
#define BOUND_MIN_A 1e-30 /* smaller values are left out of the bounds (the margin covers them) */

/* lo[j] += the lower bounds above of a row's entries' terms in cluster c =
 * redo[j] (c = j when nr = k); returns the scale sum_x a (|log a| + 1).  The
 * terms are made and summed in single precision, BOUND_CHUNK entries at a
 * time (flo: nr scratch), each chunk's sums then added in double; a
 * term is at most 5.6 a (|log a| + 1) in size, so the roundings stay below
 * 4e-6 of the scale.  Values below BOUND_MIN_A are left out (their terms,
 * below 1e-28, are within the margin's 1e-14 a term). */
MMNC_I_VECTOR_CLONES static double entry_bounds(const mmnc_int *col, const double *val, mmnc_int n, mmnc_int k,
                                                const float *restrict L1, const mmnc_int *redo, mmnc_int nr,
                                                double *restrict lo, float *restrict flo)
{
    double scale = 0.0, lav[ROW_CHUNK];
    for (mmnc_int e0 = 0; e0 < n; e0 += ROW_CHUNK) {
        mmnc_int m = n - e0 < ROW_CHUNK ? n - e0 : ROW_CHUNK;
        map_log(val + e0, lav, m);
        for (mmnc_int i0 = 0; i0 < m; i0 += BOUND_CHUNK) {
            mmnc_int i1 = m - i0 < BOUND_CHUNK ? m : i0 + BOUND_CHUNK;
            for (mmnc_int j = 0; j < nr; j++) flo[j] = 0.0f;
            for (mmnc_int i = i0; i < i1; i++) {
                mmnc_int e = e0 + i;
                double a = val[e], la = lav[i];
                float base, na, ha, thr, c1, lnear;
                const float *l1 = L1 + col[e] * k;
                if (!(a >= BOUND_MIN_A)) continue;
                scale += a * (fabs(la) + 1.0);
                base = (float)(-a * la);              /* b = 0: exact */
                na = (float)-a;
                ha = (float)(0.5 * a);
                thr = (float)(la + (1.0 + LOG_NEAR));   /* L1 >= thr: b >= PRUNE_NEAR a */
                c1 = (float)((la + 1.0) * LOG2E + 1e-3); /* c1 - L1 log2(e) = log2(a / b) + 1e-3, */
                                                         /* above every rounding of the two */
                lnear = (float)(-a * (la + (PRUNE_LOG1P_NEAR + 1.0)));
                if (e + PREFETCH_AHEAD < n) {
                    const char *ln = (const char *)(L1 + col[e + PREFETCH_AHEAD] * k);
                    for (mmnc_int o = 0; o < k * (mmnc_int)sizeof(float); o += 64) __builtin_prefetch(ln + o);
                }
                if (nr == k) {
                    for (mmnc_int c = 0; c < k; c++) {
                        float h = l1[c], u = na * h, gap = ha * pow2f(ceilf(c1 - h * (float)LOG2E));
                        float tl = h >= thr ? u - gap : lnear;
                        flo[c] += h < INFINITY ? tl : base;
                    }
                } else {
                    for (mmnc_int j = 0; j < nr; j++) {
                        float h = l1[redo[j]], u = na * h, gap = ha * pow2f(ceilf(c1 - h * (float)LOG2E));
                        float tl = h >= thr ? u - gap : lnear;
                        flo[j] += h < INFINITY ? tl : base;
                    }
                }
            }
            for (mmnc_int j = 0; j < nr; j++) lo[j] += flo[j];
        }
    }
    return scale;
}

/* mass[j] = (py + p) log(py + p) - p log p, p = pz[redo[j]] > 0: the cost's
 * cluster term, by mmnc_i_flog (for the bounds only). */
MMNC_I_VECTOR_CLONES static void bound_mass(double py, const double *pz, const mmnc_int *redo, mmnc_int nr,
                                            double *restrict mass)
{
    for (mmnc_int j = 0; j < nr; j++) {
        double p = pz[redo[j]], q = p > 1e-300 ? p : 1e-300, v = py + q;
        mass[j] = v * mmnc_i_flog(v) - p * mmnc_i_flog(q);
    }
}

/* The costs a decision needs (see the comment above PRUNE_MIN_K): those of
 * clusters changed since *seen become unknown (NAN); then the exact cost of
 * c0 and of every cluster whose lower bound could be the least are made.
 * redo, acc, lo are k scratch. */
static mmnc_int costs_pruned(const mmnc_int *col, const double *val, mmnc_int n, double py, mmnc_int k,
                             mmnc_int c0, const double *T, const double *BL, const double *pz, const int64_t *nc,
                             const moves *m, double *cost, int64_t *seen, mmnc_int *redo, double *acc, double *lo)
{
    mmnc_int nu = 0, ns = 0, jmin = -1, made = 0;
    double best, scale, margin;
    for (mmnc_int c = 0; c < k; c++)
        if (*seen < 0 || m->changed[c] > *seen) cost[c] = NAN;
    *seen = m->clock;
    if (isnan(cost[c0])) {
        redo[0] = c0;
        exact_costs(col, val, n, py, k, c0, T, BL, pz, redo, 1, acc, cost);
    }
    best = cost[c0] - prior_gain(m->w, nc[c0] - 1);
    for (mmnc_int c = 0; c < k; c++) {
        if (c == c0) continue;
        if (isnan(cost[c])) redo[nu++] = c;
        else if (cost[c] - m->gain[c] < best) best = cost[c] - m->gain[c];
    }
    if (nu == 0) return 0;
    if (nu > k / REDO_ALL) { /* bounds of all k, side by side in the vector unit */
        for (mmnc_int c = 0; c < k; c++) lo[c] = 0.0;
        scale = entry_bounds(col, val, n, k, m->L1, redo, k, lo, (float *)acc);
        for (mmnc_int j = 0; j < nu; j++) lo[j] = lo[redo[j]];
    } else {
        for (mmnc_int j = 0; j < nu; j++) lo[j] = 0.0;
        scale = entry_bounds(col, val, n, k, m->L1, redo, nu, lo, (float *)acc);
    }
    bound_mass(py, pz, redo, nu, acc);
    for (mmnc_int j = 0; j < nu; j++) {
        lo[j] += acc[j] - m->gain[redo[j]];
        if (jmin < 0 || lo[j] < lo[jmin]) jmin = j;
    }
    margin = PRUNE_MARGIN * (scale + fabs(best)) + 1e-14 * (double)(n + 2);
    if (!(lo[jmin] > best + margin)) { /* the likeliest first: its exact cost lowers the bar */
        mmnc_int c = redo[jmin];
        exact_costs(col, val, n, py, k, c0, T, BL, pz, &c, 1, acc, cost);
        if (cost[c] - m->gain[c] < best) best = cost[c] - m->gain[c];
        margin = PRUNE_MARGIN * (scale + fabs(best)) + 1e-14 * (double)(n + 2);
        made = 1;
    }
    for (mmnc_int j = 0; j < nu; j++)
        if (j != jmin && !(lo[j] > best + margin)) redo[ns++] = redo[j];
    if (ns > 0) exact_costs(col, val, n, py, k, c0, T, BL, pz, redo, ns, acc, cost);
    return nu - ns - made;
}

/* This rank's row y (local index): its costs, kept in m (all that changed,
 * or, pruned, those a decision needs); returns the number ruled out. */
static mmnc_int row_costs(const mmnc_pmf *p, mmnc_int k, mmnc_int y, mmnc_int c0, const double *T, const double *BL,
                      const double *pz, const int64_t *nc, moves *m, mmnc_int *redo)
{
    const mmnc_csr *P = p->P;
    mmnc_int e0 = P->rowptr[y];
    size_t off = (size_t)(redo - m->redo);
    if (m->L1)
        return costs_pruned(m->col + e0, P->val + e0, P->rowptr[y + 1] - e0, p->py[y], k, c0, T, BL, pz, nc, m,
                     m->cost + y * k, m->seen + y, redo, m->acc + off, m->lo + off);
    costs_of(m->col + e0, P->val + e0, P->rowptr[y + 1] - e0, p->py[y], k, c0, T, BL, pz, m, m->cost + y * k,
             m->seen + y, redo, m->acc + off);
    return 0;
}

#define SWEEP_BLOCK_WORK 262144 /* nonzeros x k a block of rows makes side by side (about a millisecond):
                                   fewer, larger blocks wait less on a busy machine */

/* The cluster that row y (in c0, costs `cost`) moves to: the least cost
 * minus the prior's gain, if it gains more than 1e-12 of the cost; else c0. */
static mmnc_int decide(mmnc_int k, mmnc_int c0, const double *cost, const int64_t *nc, const moves *m)
{
    mmnc_int c1 = c0;
    double e0 = cost[c0] - prior_gain(m->w, nc[c0] - 1), e1 = e0;
    for (mmnc_int c = 0; c < k; c++) {
        double ec = c == c0 ? e0 : cost[c] - m->gain[c]; /* NAN (pruned: not a candidate) is never less */
        if (ec < e1) c1 = c, e1 = ec;
    }
    return c1 != c0 && e1 < e0 - 1e-12 * fabs(e0) ? c1 : c0;
}

/* Move a row (n entries col, val; mass py) from c0 to c1 in the sums. */
static void move(const mmnc_int *col, const double *val, mmnc_int n, double py, mmnc_int k, mmnc_int c0,
                 mmnc_int c1, double *T, double *BL, double *pz, int64_t *nc, moves *m)
{
    double dbl = 0.0; /* the change of sum BL (m->track) */
    for (mmnc_int e = 0; e < n; e++) {
        double a = val[e], *t = T + col[e] * k, *bl = BL + col[e] * k;
        t[c0] -= a;
        if (t[c0] < 0.0) t[c0] = 0.0;
        t[c1] += a;
        if (m->track) dbl -= bl[c0] + bl[c1]; /* a read of BL's lines that costs a little: only where the
                                                   sum is shown */
        bl[c0] = xlogx(t[c0]);
        bl[c1] = xlogx(t[c1]);
        if (m->track) dbl += bl[c0] + bl[c1];
        if (m->L1) {
            mmnc_int o = col[e] * k;
            m->L1[o + c0] = bound_entry(t[c0]);
            m->L1[o + c1] = bound_entry(t[c1]);
        }
    }
    m->blsum += dbl;
    pz[c0] -= py;
    pz[c1] += py;
    nc[c0]--;
    nc[c1]++;
    m->gain[c0] = prior_gain(m->w, nc[c0]);
    m->gain[c1] = prior_gain(m->w, nc[c1]);
    m->clock++;
    m->changed[c0] = m->changed[c1] = m->clock;
}

#ifdef MMNC_TRACE_SWEEPS
/* The costs to clusters other than c0 that row y's decision cannot take
 * from its cache (changed since it was made, or ruled out before). */
static mmnc_int unknown_costs(const moves *m, mmnc_int k, mmnc_int y, mmnc_int c0)
{
    mmnc_int u = 0;
    for (mmnc_int c = 0; c < k; c++)
        u += c != c0 && (m->seen[y] < 0 || m->changed[c] > m->seen[y] || isnan(m->cost[y * k + c]));
    return u;
}
#endif

/* Sweep the rows in the order `order`; T, BL (b log b) and pz are the
 * cluster sums, updated move by move.  Returns the number of moves.
 *
 * Blocks of m->block rows: the threads first make the block's costs as
 * of the sums at its start; then the rows are decided one by one, in order,
 * each first remaking its costs to the clusters that earlier rows of the
 * block changed.  Every decision thus sees exactly the sums (and the bits)
 * of a one-row-at-a-time sweep, for any number of threads. */
static mmnc_int sweep(const mmnc_pmf *p, mmnc_int k, const mmnc_int *order, mmnc_int *labels, double *T,
                      double *BL, double *pz, int64_t *nc, moves *m)
{
    const mmnc_csr *P = p->P;
    mmnc_int moved = 0, ny = p->ny, bs = m->block;
    int par = p->nnz * k > MMNC_I_OMP_MIN_WORK && mmnc_i_team_size() > 1;
    for (mmnc_int b0 = 0; b0 < ny; b0 += bs) {
        mmnc_int b1 = b0 + bs < ny ? b0 + bs : ny;
        if (par) {
#pragma omp parallel for schedule(static)
            for (mmnc_int i = b0; i < b1; i++) {
                mmnc_int y = order[i];
                if (!alone(labels[y], nc) && !held(m, y))
                    row_costs(p, k, y, labels[y], T, BL, pz, nc, m, m->redo + (i - b0) * k);
            }
        }
        for (mmnc_int i = b0; i < b1; i++) {
            mmnc_int y = order[i], c0 = labels[y], c1, e0 = P->rowptr[y];
            if (alone(c0, nc) || held(m, y)) continue;
#ifdef MMNC_TRACE_SWEEPS
            {
                mmnc_int ruled, need = unknown_costs(m, k, y, c0);
                m->pruned += ruled = row_costs(p, k, y, c0, T, BL, pz, nc, m, m->redo);
                m->exact += need - ruled;
                m->decided++;
            }
#else
            m->pruned += row_costs(p, k, y, c0, T, BL, pz, nc, m, m->redo);
#endif
            if ((c1 = decide(k, c0, m->cost + y * k, nc, m)) == c0) continue;
            move(m->col + e0, P->val + e0, P->rowptr[y + 1] - e0, p->py[y], k, c0, c1, T, BL, pz, nc, m);
            labels[y] = c1;
            moved++;
        }
    }
    return moved;
}

/* A distributed sweep visits the rows in the order of one process (a
 * permutation of all ranks' rows) and makes the same decisions.  Per block
 * of positions in that order, each rank makes the costs of its own rows (as
 * sweep does), then every rank receives every row of the block -- its
 * columns, values, cluster and costs as of the block's start, and the clock
 * they were made at -- and replays the decisions in order, each row first
 * remaking the costs that earlier moves made stale.  The cluster sums, the
 * clocks and so every decision are then the same on all ranks and the same
 * as one process's.  The records are 8-byte fields: position, cluster, n,
 * seen, P_Y(y), k costs, n columns, n values. */
#define REC_HEAD 5

static size_t rec_size(mmnc_int k, mmnc_int n) { return (size_t)(REC_HEAD + k + 2 * n) * 8; }

static mmnc_int sweep_dist(const mmnc_pmf *p, mmnc_int k, const mmnc_int *order, mmnc_int *labels, double *T,
                           double *BL, double *pz, int64_t *nc, moves *m, unsigned char **buf,
                           size_t *cap, int *status, mmnc_err *err)
{
    const mmnc_csr *P = p->P;
    const mmnc_dist *d = p->dist;
    mmnc_int moved = 0, ny = p->ny, y0 = p->y0, nall = p->ny_all, bs = m->block;
    int size = d->size, par = p->nnz * k > MMNC_I_OMP_MIN_WORK;
    int64_t *bytes = mmnc_i_malloc((size_t)size, sizeof(int64_t));
    unsigned char **at = mmnc_i_malloc((size_t)(bs > 0 ? bs : 1), sizeof(unsigned char *));
    int ok = bytes && at;
    *status = mmnc_i_agree(d, ok ? MMNC_OK : mmnc_i_err(err, MMNC_ENOMEM, "out of memory"), err);
    if (*status != MMNC_OK) goto done;
    for (mmnc_int b0 = 0; b0 < nall; b0 += bs) {
        mmnc_int b1 = b0 + bs < nall ? b0 + bs : nall;
        int64_t mine = 0, total = 0, off;
        /* this rank's rows of the block: their costs, side by side */
#pragma omp parallel for schedule(static) if (par)
        for (mmnc_int i = b0; i < b1; i++) {
            mmnc_int y = order[i] - y0;
            if (y >= 0 && y < ny && !alone(labels[y], nc) && !held(m, y))
                row_costs(p, k, y, labels[y], T, BL, pz, nc, m, m->redo + (i - b0) * k);
        }
        /* a held row is not sent: no rank decides it */
        for (mmnc_int i = b0; i < b1; i++) {
            mmnc_int y = order[i] - y0;
            if (y >= 0 && y < ny && !held(m, y)) mine += (int64_t)rec_size(k, P->rowptr[y + 1] - P->rowptr[y]);
        }
        d->allgather(d, &mine, sizeof mine, bytes);
        for (int r = 0; r < size; r++) total += bytes[r];
        if ((size_t)total > *cap) { /* the same sizes on every rank: all grow or none */
            unsigned char *nb = mmnc_i_malloc((size_t)total, 1);
            ok = nb != NULL;
            *status = mmnc_i_agree(d, ok ? MMNC_OK : mmnc_i_err(err, MMNC_ENOMEM, "out of memory"), err);
            if (*status != MMNC_OK) {
                mmnc_i_free(nb);
                goto done;
            }
            mmnc_i_free(*buf);
            *buf = nb;
            *cap = (size_t)total;
        }
        off = 0;
        for (int r = 0; r < d->rank; r++) off += bytes[r];
        { /* pack this rank's rows at its offset */
            int64_t *h = (int64_t *)(*buf + off);
            for (mmnc_int i = b0; i < b1; i++) {
                mmnc_int y = order[i] - y0, e0, n;
                if (y < 0 || y >= ny || held(m, y)) continue;
                e0 = P->rowptr[y];
                n = P->rowptr[y + 1] - e0;
                h[0] = i;
                h[1] = labels[y];
                h[2] = n;
                h[3] = m->seen[y];
                memcpy(h + 4, &p->py[y], 8);
                memcpy(h + REC_HEAD, m->cost + y * k, (size_t)k * 8);
                memcpy(h + REC_HEAD + k, P->colind + e0, (size_t)n * 8);
                memcpy(h + REC_HEAD + k + n, P->val + e0, (size_t)n * 8);
                h += REC_HEAD + k + 2 * n;
            }
        }
        off = 0;
        for (int r = 0; r < size; r++) {
            if (bytes[r] > 0) d->bcast(d, *buf + off, (size_t)bytes[r], r);
            off += bytes[r];
        }
        for (mmnc_int i = b0; i < b1; i++) at[i - b0] = NULL;
        for (off = 0; off < total;) { /* the records by position */
            int64_t *h = (int64_t *)(*buf + off);
            at[h[0] - b0] = *buf + off;
            off += (int64_t)rec_size(k, h[2]);
        }
        /* the decisions, in order, the same on every rank */
        for (mmnc_int i = b0; i < b1; i++) {
            int64_t *h = (int64_t *)at[i - b0];
            mmnc_int c0, n, c1, y = order[i] - y0;
            double py, *cost;
            const mmnc_int *col;
            const double *val;
            if (!h) continue; /* a held row */
            c0 = h[1], n = h[2];
            cost = (double *)(h + REC_HEAD);
            col = h + REC_HEAD + k;
            val = (const double *)(h + REC_HEAD + k + n);
            memcpy(&py, h + 4, 8);
            if (alone(c0, nc)) continue;
            costs_of(col, val, n, py, k, c0, T, BL, pz, m, cost, h + 3, m->redo, m->acc);
            if (y >= 0 && y < ny) { /* the row's own rank keeps its costs */
                memcpy(m->cost + y * k, cost, (size_t)k * 8);
                m->seen[y] = h[3];
            }
            c1 = decide(k, c0, cost, nc, m);
            if (c1 == c0) continue;
            move(col, val, n, py, k, c0, c1, T, BL, pz, nc, m);
            if (y >= 0 && y < ny) labels[y] = c1;
            moved++;
        }
    }
done:
    mmnc_i_free(bytes);
    mmnc_i_free(at);
    return moved;
}

/* The columns numbered by frequency inside the solver.  Per nonzero the
 * moves read the k-rows of T and BL at its column; on power-law data in
 * another column order (alphabetical terms, say) those reads scatter over
 * tables beyond the caches and slow the sweeps (bench/NOTES.md, "the order
 * of the columns").  So where the two tables exceed MMNC_I_COLUMN_ORDER_BYTES the
 * solver keeps T and BL with the columns numbered by decreasing nonzeros
 * (ties by index) and its own copy of the column indices so numbered, in
 * each row's order: every sum runs over the same values in the same order,
 * and the result is the same bits.  T leaves the solver (objective, norm)
 * in the input's order.  Serial runs only (the distributed moves send the
 * input's columns). */
#define MMNC_I_COLUMN_ORDER_BYTES ((size_t)4 << 20)

typedef struct renumber {
    mmnc_int *col; /* nnz: the new number of each nonzero's column; NULL: none */
    mmnc_int *nw;  /* nx: the new number of each column */
    double *Tu;    /* nx x k: T in the input's order */
} renumber;

typedef struct column_count {
    int64_t count;
    mmnc_int x;
} column_count;

/* Decreasing count, ties by index. */
static int by_count(const void *a, const void *b)
{
    const column_count *u = a, *v = b;
    if (u->count != v->count) return u->count > v->count ? -1 : 1;
    return (u->x > v->x) - (u->x < v->x);
}

/* Make rn (all NULL where not worth it or distributed; want: mmnc_i_tuning.column_order);
 * MMNC_OK or ENOMEM. */
static int renumber_make(const mmnc_pmf *p, mmnc_int k, int want, renumber *rn, mmnc_err *err)
{
    const mmnc_csr *P = p->P;
    mmnc_int nx = p->nx;
    column_count *cnt = NULL;
    int status = MMNC_OK;
    if (want < 0) want = (size_t)nx * (size_t)k * 2 * sizeof(double) > MMNC_I_COLUMN_ORDER_BYTES;
    if (!want || mmnc_i_distributed(p) || nx < 2) return MMNC_OK;
    MMNC_CALLOC(cnt, nx, err, status);
    MMNC_ALLOC(rn->nw, nx, err, status);
    MMNC_ALLOC(rn->Tu, nx * k, err, status);
    MMNC_ALLOC(rn->col, P->nnz > 0 ? P->nnz : 1, err, status);
    for (mmnc_int x = 0; x < nx; x++) cnt[x].x = x;
    for (mmnc_int e = 0; e < P->nnz; e++) cnt[P->colind[e]].count++;
    qsort(cnt, (size_t)nx, sizeof *cnt, by_count);
    for (mmnc_int x = 0; x < nx; x++) rn->nw[cnt[x].x] = x;
#pragma omp parallel for schedule(static) if (P->nnz > MMNC_I_OMP_MIN_WORK)
    for (mmnc_int e = 0; e < P->nnz; e++) rn->col[e] = rn->nw[P->colind[e]];
cleanup:
    mmnc_i_free(cnt);
    return status;
}

static void renumber_free(renumber *rn)
{
    mmnc_i_free(rn->col);
    mmnc_i_free(rn->nw);
    mmnc_i_free(rn->Tu);
}

/* T in the input's order: T itself, or rn->Tu made from it. */
static const double *input_order(const mmnc_pmf *p, mmnc_int k, const double *T, const renumber *rn)
{
    if (!rn->col) return T;
#pragma omp parallel for schedule(static) if (p->nx * k > MMNC_I_OMP_MIN_WORK)
    for (mmnc_int x = 0; x < p->nx; x++) memcpy(rn->Tu + x * k, T + rn->nw[x] * k, (size_t)k * sizeof *T);
    return rn->Tu;
}

/* T = P_{Z,X}^T (columns numbered as rn says), pz and BL = T log T afresh
 * from the labels (collective); the bounds' tables too where m has them.
 * T and pz are exact sums (mmnc_i_pzx_fix, fix its work): the same bits for
 * any number of ranks, so every phase starts from the same sums. */
static void refresh(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels, double *T, double *BL, double *pz,
                    int64_t *nc, const renumber *rn, moves *m, int64_t *fix)
{
    for (mmnc_int c = 0; c < k; c++) nc[c] = 0;
    for (mmnc_int y = 0; y < p->ny; y++) nc[labels[y]]++;
    mmnc_i_disum(p, nc, k);
    mmnc_i_pzx_fix(p, k, labels, rn->col ? rn->Tu : T, pz, fix);
    if (rn->col) {
#pragma omp parallel for schedule(static) if (p->nx * k > MMNC_I_OMP_MIN_WORK)
        for (mmnc_int x = 0; x < p->nx; x++) memcpy(T + rn->nw[x] * k, rn->Tu + x * k, (size_t)k * sizeof *T);
    }
#pragma omp parallel for schedule(static) if (p->nx * k > MMNC_I_OMP_MIN_WORK)
    for (mmnc_int i = 0; i < p->nx * k; i++) BL[i] = xlogx(T[i]);
    m->blsum = 0.0;
    if (m->track)
        for (mmnc_int i = 0; i < p->nx * k; i++) m->blsum += BL[i];
    if (m->L1) {
#pragma omp parallel for schedule(static) if (p->nx * k > MMNC_I_OMP_MIN_WORK)
        for (mmnc_int i = 0; i < p->nx * k; i++) m->L1[i] = bound_entry(T[i]);
    }
}

/* The state of the sweeps of one start or polish (moves_i.h). */
struct mmnc_i_moves {
    const mmnc_pmf *p;
    mmnc_int k;
    mmnc_int *order;      /* all ranks' rows in the order of the visits */
    double *T, *BL, *pz;  /* the cluster sums P_{Z,X}^T (nx x k, columns as rn numbers them), T log T, P_Z */
    int64_t *nc, *fix;    /* rows per cluster; the exact sums' work */
    int64_t nnz_all;      /* nonzeros of all ranks */
    double hx;            /* sum_x P(x) log P(x), where the objective is shown (track) */
    renumber rn;
    moves m;
    unsigned char *buf;   /* distributed: a block's rows */
    size_t cap;
    /* batch steps (mmnc_i_moves_batch), made at the first */
    mmnc_int *to;         /* block: each row's decision (-1: none) */
};

int mmnc_i_moves_open(const mmnc_pmf *p, mmnc_int k, uint64_t seed, int restart, double *cost, int track,
                      const mmnc_i_tuning *tune, mmnc_i_moves **out, mmnc_err *err)
{
    mmnc_int ny = p->ny, nx = p->nx, nall = p->ny_all;
    mmnc_i_moves *v = NULL;
    int status = MMNC_OK;
    mmnc_rng rng;
    *out = NULL;
    MMNC_CALLOC(v, 1, err, status);
    v->p = p;
    v->k = k;
    v->nnz_all = p->nnz;
    v->m.cost = cost;
    v->m.block = 64;
    MMNC_ALLOC(v->T, nx * k, err, status);
    MMNC_ALLOC(v->BL, nx * k, err, status);
    MMNC_ALLOC(v->pz, k, err, status);
    MMNC_ALLOC(v->nc, k, err, status);
    MMNC_ALLOC(v->fix, mmnc_i_fix_work(p, k), err, status);
    MMNC_ALLOC(v->order, nall > 0 ? nall : 1, err, status);
    MMNC_ALLOC(v->m.seen, ny > 0 ? ny : 1, err, status);
    MMNC_ALLOC(v->m.changed, k, err, status);
    mmnc_i_disum(p, &v->nnz_all, 1);
    if (v->nnz_all > 0 && nall > 0 && (double)SWEEP_BLOCK_WORK * nall / ((double)v->nnz_all * k) > v->m.block)
        v->m.block = (mmnc_int)((double)SWEEP_BLOCK_WORK * nall / ((double)v->nnz_all * k));
    if (v->m.block > nall) v->m.block = nall > 0 ? nall : 1;
    MMNC_ALLOC(v->m.redo, v->m.block * k, err, status);
    MMNC_ALLOC(v->m.acc, v->m.block * k, err, status);
    MMNC_ALLOC(v->m.gain, k, err, status);
    if ((status = renumber_make(p, k, tune->column_order, &v->rn, err)) != MMNC_OK) goto cleanup;
    v->m.col = v->rn.col ? v->rn.col : p->P->colind;
    if (!mmnc_i_distributed(p) && (tune->prune > 0 || (tune->prune < 0 && k >= PRUNE_MIN_K))) {
        MMNC_ALLOC(v->m.L1, nx * k, err, status);
        MMNC_ALLOC(v->m.lo, v->m.block * k, err, status);
    }
    /* the order of the visits: all ranks' rows, drawn from the seed and the start */
    mmnc_rng_seed(&rng, seed * 0x2545f4914f6cdd1dULL + (uint64_t)restart);
    for (mmnc_int y = 0; y < ny; y++) v->m.seen[y] = -1;
    for (mmnc_int y = 0; y < nall; y++) v->order[y] = y;
    for (mmnc_int y = nall - 1; y > 0; y--) { /* Fisher-Yates */
        mmnc_int j = mmnc_rng_below(&rng, y + 1), t = v->order[y];
        v->order[y] = v->order[j];
        v->order[j] = t;
    }
    v->m.track = track;
    if (track)
        for (mmnc_int x = 0; x < nx; x++) v->hx += xlogx(p->px[x]);
    *out = v;
    v = NULL;
cleanup:
    mmnc_i_moves_close(v);
    return status;
}

void mmnc_i_moves_close(mmnc_i_moves *v)
{
    if (!v) return;
    mmnc_i_free(v->T);
    mmnc_i_free(v->BL);
    mmnc_i_free(v->pz);
    mmnc_i_free(v->nc);
    mmnc_i_free(v->fix);
    mmnc_i_free(v->order);
    mmnc_i_free(v->m.seen);
    mmnc_i_free(v->m.changed);
    mmnc_i_free(v->m.redo);
    mmnc_i_free(v->m.acc);
    mmnc_i_free(v->m.gain);
    mmnc_i_free(v->m.L1);
    mmnc_i_free(v->m.lo);
    renumber_free(&v->rn);
    mmnc_i_free(v->buf);
    mmnc_i_free(v->to);
    mmnc_i_free(v);
}

void mmnc_i_moves_refresh(mmnc_i_moves *v, const mmnc_int *labels)
{
    refresh(v->p, v->k, labels, v->T, v->BL, v->pz, v->nc, &v->rn, &v->m, v->fix);
    all_changed(&v->m, v->k);
}

void mmnc_i_moves_hold(mmnc_i_moves *v, const mmnc_int *fixed_label) { v->m.held = fixed_label; }

void mmnc_i_moves_weight(mmnc_i_moves *v, double w)
{
    v->m.w = w;
    for (mmnc_int c = 0; c < v->k; c++) v->m.gain[c] = prior_gain(w, v->nc[c]);
}

int64_t mmnc_i_moves_sweep(mmnc_i_moves *v, mmnc_int *labels, int *status, mmnc_err *err)
{
    *status = MMNC_OK;
    if (!mmnc_i_distributed(v->p)) return sweep(v->p, v->k, v->order, labels, v->T, v->BL, v->pz, v->nc, &v->m);
    return sweep_dist(v->p, v->k, v->order, labels, v->T, v->BL, v->pz, v->nc, &v->m, &v->buf, &v->cap, status, err);
}

const mmnc_pmf *mmnc_i_moves_p(const mmnc_i_moves *v) { return v->p; }
const double *mmnc_i_moves_T(mmnc_i_moves *v) { return input_order(v->p, v->k, v->T, &v->rn); }
const double *mmnc_i_moves_pz(const mmnc_i_moves *v) { return v->pz; }
const int64_t *mmnc_i_moves_nc(const mmnc_i_moves *v) { return v->nc; }
int64_t mmnc_i_moves_nnz(const mmnc_i_moves *v) { return v->nnz_all; }
double mmnc_i_moves_blsum(const mmnc_i_moves *v) { return v->m.blsum; }
double mmnc_i_moves_hx(const mmnc_i_moves *v) { return v->hx; }

void mmnc_i_moves_counts(const mmnc_i_moves *v, int64_t *pruned, int64_t *decided, int64_t *exact)
{
    *pruned = v->m.pruned;
    *decided = v->m.decided;
    *exact = v->m.exact;
}

/* Batch steps.  A sequential move sees every earlier one, so its decisions
 * cannot be shared out: the threads make the costs of a block ahead, but
 * each row remakes those that earlier moves made stale, in order (sweep),
 * and under MPI every rank replays every decision (sweep_dist).  A batch
 * pass decides the rows of a block of positions in the visiting order all
 * against the same sums, those at the block's start (T, P_Z, the rows of
 * each cluster), each row alone: the same costs (row_costs) and rule
 * (decide) as a sequential move, with nothing remade.  Any number of
 * threads, and of ranks each deciding its own rows, makes the same
 * decisions.  The moves are then applied in the visiting order (move;
 * under MPI every rank receives only the rows that move), a row skipped if
 * earlier moves of the block left it alone in its cluster, so no cluster
 * empties.  The sums evolve by the same moves in the same order on every
 * rank: the labels and the bits are the same for any number of threads and
 * ranks.  Blocks are the engine's (m->block rows, a function of |Y|, nnz
 * and k alone).
 *
 * Each decision alone raises J (moves.c's d(y, c)); taken together they
 * need not, as each assumes the block's other rows where they were.  The
 * monotone batch rule for I(X;Z) is the Bregman (KL) k-means step, the row
 * step of information-theoretic co-clustering (Dhillon, Mallela, Modha,
 * KDD 2003), with the prior added:
 *
 *   I(Y;X) - I(Z;X) = sum_y p(y) KL( p(x|y) || p(x|z(y)) ),
 *   -H_rows(Z) = max_r sum_z (n_z / |Y|) log r_z   (at r_z = n_z / |Y|),
 *
 * so with w = gamma / nnz, J = I(Y;X) - min_{q,r} F(z, q, r),
 * F = sum_y [ p(y) KL( p(x|y) || q_{z(y)} ) - w log r_{z(y)} ] (the KL's
 * best centroid is the mean): lowering F row by row with q, r held, then
 * setting q, r from the new z, never lowers J.  Its row cost,
 * e(y, z) = - sum_x P(y,x) log T(x,z) + P(y) log P(z) - w log n_z, stalls on
 * sparse rows: a column of the row that no other row of z holds makes e
 * infinite, so a row can go almost only where it is.  A step of either
 * rule over the whole matrix at once stops well short of the sequential
 * moves; per block, the sequential decision follows them (bench/NOTES.md,
 * "Batch moves").  Since it is not monotone, the caller (information.c)
 * keeps a pass only if the exact J rises, else undoes it and ends the
 * batch phase: across kept passes J rises strictly.
 * The sums are kept move by move, as a sweep keeps them (the same moves
 * in the same order on every rank: the same bits), so the rows' costs stay
 * cached across passes.  Returns the rows moved (all ranks).  Collective. */
#define BATCH_REC_HEAD 5 /* position, from, to, n, P_Y(y); then n columns, n values */

int64_t mmnc_i_moves_batch(mmnc_i_moves *v, mmnc_int *labels, int *status, mmnc_err *err)
{
    const mmnc_pmf *p = v->p;
    const mmnc_csr *P = p->P;
    const mmnc_dist *d = p->dist;
    moves *m = &v->m;
    mmnc_int k = v->k, ny = p->ny, nall = p->ny_all, bs = m->block, y0 = mmnc_i_distributed(p) ? p->y0 : 0;
    const mmnc_int *order = v->order;
    int64_t moved = 0, *bytes = NULL;
    int dist = mmnc_i_distributed(p), size = dist ? d->size : 1, ok = 1;
    int par = p->nnz * k > MMNC_I_OMP_MIN_WORK && mmnc_i_team_size() > 1;
    unsigned char **at = NULL;
    if (!v->to) v->to = mmnc_i_malloc((size_t)(bs > 0 ? bs : 1), sizeof(mmnc_int));
    if (dist) {
        bytes = mmnc_i_malloc((size_t)size, sizeof(int64_t));
        at = mmnc_i_malloc((size_t)(bs > 0 ? bs : 1), sizeof(unsigned char *));
    }
    ok = v->to && (!dist || (bytes && at));
    *status = mmnc_i_agree(d, ok ? MMNC_OK : mmnc_i_err(err, MMNC_ENOMEM, "out of memory"), err);
    if (*status != MMNC_OK) goto done;
    for (mmnc_int b0 = 0; b0 < nall; b0 += bs) {
        mmnc_int b1 = b0 + bs < nall ? b0 + bs : nall;
        /* this rank's rows of the block: their decisions, all against the block's start */
#pragma omp parallel for schedule(static) if (par)
        for (mmnc_int i = b0; i < b1; i++) {
            mmnc_int y = order[i] - y0;
            v->to[i - b0] = -1;
            if (y < 0 || y >= ny || alone(labels[y], v->nc) || held(m, y)) continue;
            row_costs(p, k, y, labels[y], v->T, v->BL, v->pz, v->nc, m, m->redo + (i - b0) * k);
            v->to[i - b0] = decide(k, labels[y], m->cost + y * k, v->nc, m);
        }
        if (!dist) { /* the moves in order */
            for (mmnc_int i = b0; i < b1; i++) {
                mmnc_int y = order[i], c0 = labels[y], c1 = v->to[i - b0], e0 = P->rowptr[y];
                if (c1 < 0 || c1 == c0 || alone(c0, v->nc)) continue;
                move(m->col + e0, P->val + e0, P->rowptr[y + 1] - e0, p->py[y], k, c0, c1, v->T, v->BL, v->pz, v->nc,
                     m);
                labels[y] = c1;
                moved++;
            }
            continue;
        }
        { /* distributed: every rank receives the rows that move, and applies them in order */
            int64_t mine = 0, total = 0, off = 0;
            for (mmnc_int i = b0; i < b1; i++) {
                mmnc_int y = order[i] - y0;
                if (y >= 0 && y < ny && v->to[i - b0] >= 0 && v->to[i - b0] != labels[y])
                    mine += (BATCH_REC_HEAD + 2 * (int64_t)(P->rowptr[y + 1] - P->rowptr[y])) * 8;
            }
            d->allgather(d, &mine, sizeof mine, bytes);
            for (int r = 0; r < size; r++) total += bytes[r];
            if ((size_t)total > v->cap) { /* the same sizes on every rank: all grow or none */
                unsigned char *nb = mmnc_i_malloc((size_t)total, 1);
                *status = mmnc_i_agree(d, nb ? MMNC_OK : mmnc_i_err(err, MMNC_ENOMEM, "out of memory"), err);
                if (*status != MMNC_OK) {
                    mmnc_i_free(nb);
                    goto done;
                }
                mmnc_i_free(v->buf);
                v->buf = nb;
                v->cap = (size_t)total;
            }
            for (int r = 0; r < d->rank; r++) off += bytes[r];
            {
                int64_t *h = (int64_t *)(v->buf + off);
                for (mmnc_int i = b0; i < b1; i++) {
                    mmnc_int y = order[i] - y0, e0, n;
                    if (y < 0 || y >= ny || v->to[i - b0] < 0 || v->to[i - b0] == labels[y]) continue;
                    e0 = P->rowptr[y];
                    n = P->rowptr[y + 1] - e0;
                    h[0] = i;
                    h[1] = labels[y];
                    h[2] = v->to[i - b0];
                    h[3] = n;
                    memcpy(h + 4, &p->py[y], 8);
                    memcpy(h + BATCH_REC_HEAD, P->colind + e0, (size_t)n * 8);
                    memcpy(h + BATCH_REC_HEAD + n, P->val + e0, (size_t)n * 8);
                    h += BATCH_REC_HEAD + 2 * n;
                }
            }
            off = 0;
            for (int r = 0; r < size; r++) {
                if (bytes[r] > 0) d->bcast(d, v->buf + off, (size_t)bytes[r], r);
                off += bytes[r];
            }
            for (mmnc_int i = b0; i < b1; i++) at[i - b0] = NULL;
            for (off = 0; off < total;) {
                int64_t *h = (int64_t *)(v->buf + off);
                at[h[0] - b0] = v->buf + off;
                off += (BATCH_REC_HEAD + 2 * h[3]) * 8;
            }
            for (mmnc_int i = b0; i < b1; i++) {
                int64_t *h = (int64_t *)at[i - b0];
                mmnc_int y = order[i] - y0, c0, c1, n;
                double py;
                if (!h) continue;
                c0 = h[1], c1 = h[2], n = h[3];
                if (alone(c0, v->nc)) continue;
                memcpy(&py, h + 4, 8);
                move(h + BATCH_REC_HEAD, (const double *)(h + BATCH_REC_HEAD + n), n, py, k, c0, c1, v->T, v->BL,
                     v->pz, v->nc, m);
                if (y >= 0 && y < ny) labels[y] = c1;
                moved++;
            }
        }
    }
done:
    mmnc_i_free(bytes);
    mmnc_i_free(at);
    return moved;
}
