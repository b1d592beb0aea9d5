/*
 * information.c -- the information objective: hard clusterings that
 * maximise the exact mutual information, with a prior on the cluster sizes,
 * by sequential single-row moves.
 *
 *   maximise    J = I(X;Z) - gamma (|Y| / nnz) H_rows(Z),
 *               I(X;Z) = sum_{z,x} P(z,x) log( P(z,x) / (P(z) P(x)) ),
 *               H_rows(Z) = - sum_z (n_z / |Y|) log(n_z / |Y|), n_z = rows in z
 *   over        hard W = P_{Z|Y} (each row in one cluster), P(z,x) = (W P_{Y,X})_{zx}
 *
 * gamma = mmnc_params.size_prior (0: I(X;Z) alone).  For counts with N
 * tokens, N I(X;Z) - |Y| H_rows(Z) is the classification log-likelihood of a
 * mixture of multinomials up to a constant (the second term: which cluster a
 * row belongs to); gamma (|Y| / nnz) weighs the sizes with a row's evidence
 * counted in distinct columns over gamma, which does not depend on the scale
 * of the values (README, "The default", says how gamma was chosen).  Moving a
 * row into cluster c (n_c rows without it) changes the prior term by
 * (gamma / nnz) [(n_c + 1) log(n_c + 1) - n_c log n_c], added to the
 * information cost below at each decision (it is O(k) a row).
 *
 * With gamma > 0 the moves run in two phases: I(X;Z) alone until no row
 * moves, then J until no row moves (from a random partition, whose clusters
 * carry almost no information yet, the prior would pull every row into the
 * largest cluster before any structure forms).  And a guard: the partition
 * of the second phase is kept only if its nuclear norm ||B_{Z,X}||_* is at
 * least that of the first phase's; otherwise the first phase's is returned
 * (where the data hardly separates real clusters the prior would merge
 * them, and merging lowers the norm).  The norm is blind to one collapse:
 * on short rows (a dozen words) the prior can pull nearly every row into
 * one cluster beside a few rows left alone, and those few, isolated by
 * their rare words, each add a singular value near 1, so the norm rises.
 * So the guard also asks the prior's partition to predict held-out rows
 * better than no clustering: its leave-one-row-out predictive information
 * G (src/cluster/select.c; 0 for a single cluster) must be above zero, unless the
 * prior-free partition's is no higher (then neither predicts, and the norm
 * decides).  The collapse has G < 0, since the giant cluster no longer
 * predicts the rare words of its rows that the few isolated ones hold
 * (bench/NOTES.md, "Short documents").  Within each phase the objective
 * never decreases; the objective reported is J of the partition returned.
 * A start also hands its two partitions, the first phase's and the
 * second's before the guard, to the agreement rule of mmnc_cluster
 * (cluster.c), which keeps the prior for the whole run only if the starts
 * agree with one another at least as well with it as without it.
 *
 * This is the objective of the sequential information bottleneck (Slonim,
 * Friedman, Tishby, SIGIR 2002) and of the row half of information-
 * theoretic co-clustering (Dhillon, Mallela, Modha, KDD 2003); it is the
 * exact form of the paper's local approximation
 * I(X;Z) ~ (||B_{Z,X}||_F^2 - 1) / 2 (Qiu, Makur, Zheng 2018, Prop. 2).
 * Unlike the norms, it weighs each cluster by its mass, so it does not
 * reward splitting off tiny, nearly disconnected groups of rows.
 *
 * A move takes row y out of its cluster c0 and merges it into the cluster
 * c that loses the least information by the merge:
 *
 *   d(y, c) = sum_x [ a_x log a_x + b_x log b_x - (a_x + b_x) log(a_x + b_x) ]
 *             + (p_y + p_c) log(p_y + p_c) - p_y log p_y - p_c log p_c,
 *
 * a_x = P(y,x), b_x = P(c,x) without y, p_c = P(c) without y: d(y, c) is
 * (p_y + p_c) times the Jensen-Shannon divergence of P(x|y) and P(x|c)
 * with weights proportional to p_y, p_c, and I(X;Z) after the move is
 * I(X;Z without y) - d(y, c).  So moving y to the c of least d never
 * lowers I(X;Z): it rises by d(y, c0) - d(y, c).  A column with b_x = 0
 * contributes a_x log a_x - a_x log a_x = 0 to the bracket, so only the
 * row's own columns are read: O(nnz(y) k) per row, O(nnz k) per sweep.
 *
 * Details.  A sweep visits the rows in an order drawn once per start from
 * the seed (the order matters: rows stored by class, as in many corpora,
 * visited in storage order do worse); a row moves only if it gains more
 * than 1e-12 of the cost (ties keep it), and a row alone in its cluster
 * stays, so no cluster empties.  A phase's sweeps stop when no row moved,
 * when fewer than move_tol |Y| rows moved (mmnc_params.move_tol: the late
 * sweeps, which move a few rows each, cost nearly as much as the early
 * ones), or after max_iter sweeps in all.  mmnc_cluster then polishes the
 * kept start (polish >= 0): moves on the objective of the partition it
 * returned until no row moves, so the result is a local optimum of J (or
 * of I(X;Z) where the guard kept the prior-free partition).
 *
 * The moves are sequential (each sees the previous ones); the threads make
 * the costs of a block of rows ahead (where the sweep has threads of its
 * own: not in the starts run side by side, one thread each), and each row
 * remakes those that earlier moves made stale (see sweep), so every
 * decision is the one-row-at-a-time decision and the result does not
 * depend on the number of threads.  A distributed run visits all ranks'
 * rows in the order of one process and replays its decisions on every
 * rank (see sweep_dist): the same clustering for any number of ranks, and
 * the same bits: the cluster sums made afresh (refresh) are exact sums
 * (mmnc_i_pzx_fix), as are P_X and the total of the pmf, so every phase
 * starts from the sums of one process.  The ranks share the making of the
 * costs, but every rank
 * replays every decision and receives every row once a sweep: the sweeps
 * are sequential by nature, and more ranks bring memory for the matrix, not
 * speed.  The objective reported at the end is made from sums made afresh.
 *
 * Speed.  Nearly all the time goes to the O(nnz(y) k) sums of the costs,
 * one logarithm each.  Those sums run without a branch (a column where
 * cluster c has no mass gives -a log a, which the same expression yields),
 * with a logarithm made of arithmetic alone (mmnc_i_flog, solver_i.h) that
 * the compiler vectorises, in clones for AVX-512, AVX2 and plain x86-64
 * chosen at run time: the same bits on every machine and for every vector
 * width.  From k = VECTOR_MIN_K on the vector runs across the k clusters of
 * an entry; below, where it would be mostly empty, across the row's entries
 * (gathered in chunks, summed in fixed lanes): 1.9x to 2.2x the scalar sums
 * of the C library's logarithm at k = 2..6, which made the same clusterings
 * on every development corpus.  The row's own cluster's cost (the row drawn
 * out of it) is summed apart, in the same way, for every k (own_sum: 1.3x at
 * k = 20..65 on Reuters21578 against the scalar sums, the same labels).
 * Where only a few costs are stale (late sweeps) they
 * are remade one by one; beyond k / REDO_ALL of them all k are remade,
 * which gives the same bits (a cost depends only on its cluster's sums).
 * From k = VECTOR_MIN_K on, the rows of T and BL of the entry PREFETCH_AHEAD
 * ahead are fetched while an entry is summed (the two tables, 16 k bytes a
 * column, outgrow the core's caches; 1.1-1.2x at k = 65 on Reuters21578).
 * And from k = PRUNE_MIN_K on (serial runs), a decision makes the exact
 * costs of only the clusters that bounds, a few vector operations a term
 * without a logarithm, cannot rule out (see costs_pruned): the same
 * decisions, 1.5-2.1x faster at k = 65 on Reuters21578, for 4 k more bytes
 * a column (the table of log b).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/solver_i.h"
#ifdef _OPENMP
#include <omp.h>
#endif

#ifdef MMNC_TRACE_SWEEPS
/* Compiled with -DMMNC_TRACE_SWEEPS, every sweep of a start prints a line on
 * stderr: the start, whether it is a polish (-1: a start's own phases), the
 * phase (0: I(X;Z) alone, 1: with the prior), the sweep, the rows moved and
 * the phase's objective after it (bench/peers/race_sim.py reads them); */
#include <stdio.h>
#define TRACE_SWEEP(restart, polish, phase, it, moved, obj)                                                  \
    fprintf(stderr, "sweep start %d polish %d phase %d it %d moved %lld objective %.9f\n", (restart), (polish), \
            (phase), (it), (long long)(moved), (obj))
/* and at the end of a start, its decisions, the exact costs they made
 * besides the row's own cluster's, and the costs that bounds ruled out
 * (decisions of threads' blocks whose costs were made ahead not counted). */
#define TRACE_COSTS(restart, polish, decided, exact, pruned)                                                    \
    fprintf(stderr, "costs start %d polish %d decisions %lld exact %lld pruned %lld\n", (restart), (polish),     \
            (long long)(decided), (long long)(exact), (long long)(pruned))
/* and the guard's verdict: the nuclear norms of the prior-free and the
 * prior's partitions of a start, the prior's leave-one-row-out predictive
 * information (1 where not made) and the prior-free's (0 where not made). */
#define TRACE_GUARD(restart, nuc0, nuc1, g0, g1, kept)                                                          \
    fprintf(stderr, "guard start %d prior_free %.9f prior %.9f loo_prior %.6f loo_prior_free %.6f kept %d\n", (restart), \
            (nuc0), (nuc1), (g1), (g0), (kept))
/* and each merge-split move: the pair merged, its gain, the cluster split,
 * the objective before and after, the sweeps. */
#define TRACE_MERGE_SPLIT(t, i, j, gain, s, before, after, sweeps)                                            \
    fprintf(stderr, "merge-split %d merge %lld %lld gain %.6g split %lld objective %.9f -> %.9f sweeps %d\n", (t), \
            (long long)(i), (long long)(j), (gain), (long long)(s), (before), (after), (sweeps))
#else
#define TRACE_SWEEP(restart, polish, phase, it, moved, obj) ((void)0)
#define TRACE_COSTS(restart, polish, decided, exact, pruned) ((void)0)
#define TRACE_GUARD(restart, nuc0, nuc1, g0, g1, kept) ((void)0)
#define TRACE_MERGE_SPLIT(t, i, j, gain, s, before, after, sweeps) ((void)0)
#endif

/* v log v for v >= 0 (0 for 0), outside the vector loops. */
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
} moves;

/* Every cluster changed (the sums were made afresh). */
static void all_changed(moves *m, mmnc_int k)
{
    m->clock++;
    for (mmnc_int c = 0; c < k; c++) m->changed[c] = m->clock;
}

#define REDO_ALL 4 /* more than k / REDO_ALL costs stale: all k are remade, side by side in the vector
                      unit (the same bits: a cost depends only on its cluster's sums and the row) */

/* The clones of the loops of the costs for vector units from none to the
 * widest (the same bits: mmnc_i_flog, no contracted multiply-adds, the
 * same order of the sums); not under the sanitizers, which do not take
 * ifuncs. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#define VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define VECTOR_CLONES
#endif

#define PREFETCH_AHEAD 2
#define PREFETCH_FEW 8 /* the same for the costs of a few clusters (pruned decisions) */

/* acc[j] += sum_x b log b - (a + b) log(a + b) over a row's entries (col,
 * val), b = T[x][c] with c = redo[j] (c = j when nr = k): -a log a where b
 * = 0, as b log b is 0 there, so the loop has no branch. */
VECTOR_CLONES static void entry_costs(const mmnc_int *col, const double *val, mmnc_int n, mmnc_int k,
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
 * so the bits depend neither on the vector width nor on the chunks.  (The
 * crossover was measured on Reuters21578: across the entries 1.35x faster
 * at k = 10, even at k = 16, 1.1x slower at k = 65.) */
#define VECTOR_MIN_K 16
#define ROW_BUF 2048 /* gathered values a chunk (v and bl each) */
#define ROW_CHUNK 256 /* entries a chunk at most */
#define ROW_LANES 8

/* out[i] = b log b for b >= 0 (0 for 0), by mmnc_i_flog. */
VECTOR_CLONES static void map_xlogx(const double *restrict b, double *restrict out, mmnc_int m)
{
    for (mmnc_int i = 0; i < m; i++) {
        double v = b[i] > 1e-300 ? b[i] : 1e-300;
        out[i] = b[i] * mmnc_i_flog(v);
    }
}

/* v[i] = bl[i] - v[i] log v[i] (v > 0), in place. */
VECTOR_CLONES static void map_terms(double *restrict v, const double *restrict bl, mmnc_int m)
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
 * sums (most decisions of late sweeps and pruned ones need c0's cost alone:
 * before, its vector sum was made and thrown away). */
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
 * case).  On Reuters21578 at k = 65 a decision makes about 0.3 exact costs
 * besides its own cluster's instead of 64 (bench/NOTES.md, "Pruned
 * decisions").  In serial runs from k = PRUNE_MIN_K; below, the few
 * clusters' sums across the row's entries are as fast; the distributed
 * moves make every cost, as before.  mmnc_i_prune switches it for tests. */
#define PRUNE_MIN_K 16
#define PRUNE_NEAR 0.5
#define PRUNE_LOG1P_NEAR 0.40546510810816438198 /* log(1 + PRUNE_NEAR) */
#define PRUNE_MARGIN 3e-5
int mmnc_i_prune = -1;

/* The table's entry for b = T[x][c]: log b + 1, +inf for b = 0. */
static inline float bound_entry(double b)
{
    return b > 0.0 ? (float)(log(b) + 1.0) : INFINITY;
}

/* out[i] = log v[i] for v > 0 (else 0), by mmnc_i_flog. */
VECTOR_CLONES static void map_log(const double *restrict v, double *restrict out, mmnc_int m)
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
VECTOR_CLONES static double entry_bounds(const mmnc_int *col, const double *val, mmnc_int n, mmnc_int k,
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
VECTOR_CLONES static void bound_mass(double py, const double *pz, const mmnc_int *redo, mmnc_int nr,
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
        if (m->track) dbl -= bl[c0] + bl[c1]; /* (a read of BL's lines, which are written anyway: 0.8% of
                                                   the samples at k = 65, so only where the sum is shown) */
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

/* The threads a parallel region here would have: 1 inside the starts run
 * side by side (no nested teams) or with one thread.  A block's costs made
 * ahead by a team of one would be made twice where moves make them stale. */
static int team_size(void)
{
#ifdef _OPENMP
    if (omp_get_active_level() >= omp_get_max_active_levels()) return 1;
    return omp_get_max_threads();
#else
    return 1;
#endif
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
    int par = p->nnz * k > MMNC_I_OMP_MIN_WORK && team_size() > 1;
    for (mmnc_int b0 = 0; b0 < ny; b0 += bs) {
        mmnc_int b1 = b0 + bs < ny ? b0 + bs : ny;
        if (par) {
#pragma omp parallel for schedule(static)
            for (mmnc_int i = b0; i < b1; i++) {
                mmnc_int y = order[i];
                if (!alone(labels[y], nc)) row_costs(p, k, y, labels[y], T, BL, pz, nc, m, m->redo + (i - b0) * k);
            }
        }
        for (mmnc_int i = b0; i < b1; i++) {
            mmnc_int y = order[i], c0 = labels[y], c1, e0 = P->rowptr[y];
            if (alone(c0, nc)) continue;
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
            if (y >= 0 && y < ny && !alone(labels[y], nc))
                row_costs(p, k, y, labels[y], T, BL, pz, nc, m, m->redo + (i - b0) * k);
        }
        for (mmnc_int i = b0; i < b1; i++) {
            mmnc_int y = order[i] - y0;
            if (y >= 0 && y < ny) mine += (int64_t)rec_size(k, P->rowptr[y + 1] - P->rowptr[y]);
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
                if (y < 0 || y >= ny) continue;
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
        for (off = 0; off < total;) { /* the records by position */
            int64_t *h = (int64_t *)(*buf + off);
            at[h[0] - b0] = *buf + off;
            off += (int64_t)rec_size(k, h[2]);
        }
        /* the decisions, in order, the same on every rank */
        for (mmnc_int i = b0; i < b1; i++) {
            int64_t *h = (int64_t *)at[i - b0];
            mmnc_int c0 = h[1], n = h[2], c1, y = order[i] - y0;
            double py, *cost = (double *)(h + REC_HEAD);
            const mmnc_int *col = h + REC_HEAD + k;
            const double *val = (const double *)(h + REC_HEAD + k + n);
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

/* - size_prior (|Y| / nnz) H_rows(Z), the prior's term of J (0 without a
 * prior), summed exactly. */
static double prior_term(const mmnc_pmf *p, mmnc_int k, const int64_t *nc, double size_prior, int64_t nnz_all)
{
    double n = (double)p->ny_all;
    int64_t h[MMNC_I_FIX_LIMBS] = {0};
    if (!(size_prior > 0.0) || nnz_all <= 0) return 0.0;
    for (mmnc_int c = 0; c < k; c++)
        if (nc[c] > 0) mmnc_i_fix_add(h, (double)nc[c] / n * log((double)nc[c] / n));
    return size_prior * n / (double)nnz_all * mmnc_i_fix_value(h);
}

/* J = I(X;Z) - size_prior (|Y| / nnz) H_rows(Z) (= I(X;Z) without a prior),
 * summed exactly: the J that compares starts and trials, the same bits for
 * a partition however its clusters are numbered, and for any number of
 * ranks. */
static double objective(const mmnc_pmf *p, mmnc_int k, const double *T, const double *pz, const int64_t *nc,
                        double size_prior, int64_t nnz_all)
{
    return mmnc_i_mutual_info(p, k, T, pz) + prior_term(p, k, nc, size_prior, nnz_all);
}

/* J as shown after every sweep (the progress function, MMNC_TRACE_SWEEPS),
 * from the sum of the table the moves keep, BL = T log T (m->blsum, made at
 * each refresh and updated by each move): I(X;Z) = sum BL - sum_z P(z) log
 * P(z) - sum_x P(x) log P(x) (hx, the last sum), since T's rows sum to P_Z
 * and its columns to P_X.  O(k) where objective makes k |X| logarithms
 * (that was 2-6% of a run's time); objective's value up to roundings. */
static double shown_objective(const mmnc_pmf *p, mmnc_int k, double blsum, const double *pz, const int64_t *nc,
                              double size_prior, int64_t nnz_all, double hx)
{
    double s = blsum - hx;
    for (mmnc_int c = 0; c < k; c++) s -= xlogx(pz[c]);
    return s + prior_term(p, k, nc, size_prior, nnz_all);
}

/* ||B_{Z,X}||_* of the hard clustering whose sums are T, pz (collective). */
static int nuclear_norm(const mmnc_pmf *p, mmnc_int k, const double *T, const double *pz, double *sigma, double *U,
                        double *nuc, mmnc_err *err)
{
    int status = mmnc_i_spectrum(p, k, T, pz, sigma, U, err);
    *nuc = 0.0;
    for (mmnc_int z = 0; z < k; z++) *nuc += sigma[z];
    return status;
}

/* The columns numbered by frequency inside the solver.  Per nonzero the
 * moves read the k-rows of T and BL at its column; on power-law data in
 * another column order (alphabetical terms, say) those reads scatter over
 * tables beyond the caches, and a random order made the sweeps 1.3-1.6x
 * slower on the MSR co-occurrence matrix (bench/NOTES.md, "the order of the
 * columns").  So where the two tables exceed MMNC_I_COLUMN_ORDER_BYTES the
 * solver keeps T and BL with the columns numbered by decreasing nonzeros
 * (ties by index) and its own copy of the column indices so numbered, in
 * each row's order: every sum runs over the same values in the same order,
 * and the result is the same bits.  T leaves the solver (objective, norm)
 * in the input's order.  Serial runs only (the distributed moves send the
 * input's columns). */
#define MMNC_I_COLUMN_ORDER_BYTES ((size_t)4 << 20)
int mmnc_i_column_order = -1;

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

/* Make rn (all NULL where not worth it or distributed); MMNC_OK or ENOMEM. */
static int renumber_make(const mmnc_pmf *p, mmnc_int k, renumber *rn, mmnc_err *err)
{
    const mmnc_csr *P = p->P;
    mmnc_int nx = p->nx;
    column_count *cnt = NULL;
    int status = MMNC_OK, want = mmnc_i_column_order;
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

int mmnc_i_guard_loo = 1;

int mmnc_i_information(const mmnc_pmf *p, const mmnc_params *prm, int restart, int polish, mmnc_int *labels,
                       double *W, mmnc_i_run *run, mmnc_err *err)
{
    mmnc_int k = prm->k, ny = p->ny, nx = p->nx, nall = p->ny_all, *order = NULL;
    unsigned char *buf = NULL; /* distributed: a block's rows */
    size_t cap = 0;
    int64_t nnz_all = p->nnz;
    double *T = NULL, *BL = NULL, *pz = NULL;
    int64_t *nc = NULL, *fix = NULL;
    double wpri, few, hx = 0.0, nuc0 = 0.0, *sigma = NULL, *U = NULL;
    mmnc_int *keep = NULL;
    moves m = {NULL, W, NULL, NULL, NULL, NULL, NULL, 0.0, 64, 0, 0, 0.0, NULL, NULL, 0, 0, 0}; /* W (ny x k) holds the costs until the end */
    renumber rn = {NULL, NULL, NULL};
    int status = MMNC_OK;
    mmnc_rng rng;
    MMNC_ALLOC(T, nx * k, err, status);
    MMNC_ALLOC(BL, nx * k, err, status);
    MMNC_ALLOC(pz, k, err, status);
    MMNC_ALLOC(nc, k, err, status);
    MMNC_ALLOC(fix, mmnc_i_fix_work(p, k), err, status);
    MMNC_ALLOC(sigma, k, err, status);
    MMNC_ALLOC(U, k * k, err, status);
    if (prm->size_prior > 0.0) MMNC_ALLOC(keep, ny > 0 ? ny : 1, err, status);
    MMNC_ALLOC(order, nall > 0 ? nall : 1, err, status);
    MMNC_ALLOC(m.seen, ny > 0 ? ny : 1, err, status);
    MMNC_ALLOC(m.changed, k, err, status);
    mmnc_i_disum(p, &nnz_all, 1);
    if (nnz_all > 0 && nall > 0 && (double)SWEEP_BLOCK_WORK * nall / ((double)nnz_all * k) > m.block)
        m.block = (mmnc_int)((double)SWEEP_BLOCK_WORK * nall / ((double)nnz_all * k));
    if (m.block > nall) m.block = nall > 0 ? nall : 1;
    MMNC_ALLOC(m.redo, m.block * k, err, status);
    MMNC_ALLOC(m.acc, m.block * k, err, status);
    MMNC_ALLOC(m.gain, k, err, status);
    if ((status = renumber_make(p, k, &rn, err)) != MMNC_OK) goto cleanup;
    m.col = rn.col ? rn.col : p->P->colind;
    if (!mmnc_i_distributed(p) && (mmnc_i_prune > 0 || (mmnc_i_prune < 0 && k >= PRUNE_MIN_K))) {
        MMNC_ALLOC(m.L1, nx * k, err, status);
        MMNC_ALLOC(m.lo, m.block * k, err, status);
    }
    /* the order of the visits: all ranks' rows, drawn from the seed and the start */
    mmnc_rng_seed(&rng, prm->seed * 0x2545f4914f6cdd1dULL + (uint64_t)restart);
    for (mmnc_int y = 0; y < ny; y++) m.seen[y] = -1;
    for (mmnc_int y = 0; y < nall; y++) order[y] = y;
    for (mmnc_int y = nall - 1; y > 0; y--) { /* Fisher-Yates */
        mmnc_int j = mmnc_rng_below(&rng, y + 1), t = order[y];
        order[y] = order[j];
        order[j] = t;
    }
#ifdef MMNC_TRACE_SWEEPS
    m.track = 1;
#else
    m.track = prm->progress != NULL;
#endif
    if (m.track)
        for (mmnc_int x = 0; x < nx; x++) hx += xlogx(p->px[x]); /* for shown_objective */
    refresh(p, k, labels, T, BL, pz, nc, &rn, &m, fix);
    all_changed(&m, k);
    wpri = prm->size_prior > 0.0 && nnz_all > 0 ? prm->size_prior / (double)nnz_all : 0.0;
    /* a phase of a start ends when a sweep moves fewer rows than this; a polish only when none moves */
    few = polish < 0 ? prm->move_tol * (double)nall : 0.0;
    run->iterations = 0;
    run->pruned = 0;
    run->converged = 0;
    run->settled = 0;
    run->prior_kept = polish < 0 ? -1 : wpri > 0.0 ? polish : -1;
    run->prior_why = 0;
    /* Two phases when there is a size prior: I(X;Z) alone until (nearly) no
     * row moves, then J.  From a random partition, where the clusters carry
     * almost no information yet, the prior alone would pull the rows into
     * the largest cluster before any structure forms.  A polish has one
     * phase, on J (polish = 1) or on I(X;Z) alone (0), and no guard. */
    for (int phase = wpri > 0.0 && polish < 0 ? 0 : 1, it = 0; phase < 2; phase++) {
        double wp = phase && polish != 0 ? wpri : 0.0, gamma = phase && polish != 0 ? prm->size_prior : 0.0;
        if (phase == 1 && wpri > 0.0 && polish < 0) { /* keep the prior-free optimum and its norm */
            refresh(p, k, labels, T, BL, pz, nc, &rn, &m, fix);
            all_changed(&m, k);
            if ((status = nuclear_norm(p, k, input_order(p, k, T, &rn), pz, sigma, U, &nuc0, err)) != MMNC_OK) goto cleanup;
            memcpy(keep, labels, (size_t)ny * sizeof *keep);
            run->free_objective = objective(p, k, input_order(p, k, T, &rn), pz, nc, 0.0, nnz_all);
            run->free_iterations = it;
            run->free_settled = run->settled;
            run->free_converged = run->converged;
            if (run->free_part)
                for (mmnc_int y = 0; y < ny; y++) run->free_part[y] = (int32_t)labels[y];
        }
        m.w = wp;
        for (mmnc_int c = 0; c < k; c++) m.gain[c] = prior_gain(wp, nc[c]);
        run->converged = 0;
        for (; it < prm->max_iter; it++) {
            int64_t moved = 0;
            if (!mmnc_i_distributed(p)) moved = sweep(p, k, order, labels, T, BL, pz, nc, &m);
            else {
                moved = sweep_dist(p, k, order, labels, T, BL, pz, nc, &m, &buf, &cap, &status, err);
                if (status != MMNC_OK) goto cleanup;
            }
            run->iterations = it + 1;
            TRACE_SWEEP(restart, polish, phase, it, moved, shown_objective(p, k, m.blsum, pz, nc, gamma, nnz_all, hx));
            if (prm->progress &&
                (status = mmnc_i_progress(prm, restart, it + 1, shown_objective(p, k, m.blsum, pz, nc, gamma, nnz_all, hx),
                                          err)) != MMNC_OK)
                goto cleanup;
            run->settled = moved == 0;
            if (moved == 0 || (double)moved < few) {
                run->converged = 1;
                it++;
                break;
            }
        }
    }
    refresh(p, k, labels, T, BL, pz, nc, &rn, &m, fix); /* fresh sums for the objective: no drift in what is reported */
    if (wpri > 0.0 && polish < 0) { /* the guard: the prior's partition must not lower the nuclear norm, and
                                       must predict held-out rows better than no clustering */
        double nuc1, g0 = 0.0, g1 = 1.0;
        if (run->prior_part)
            for (mmnc_int y = 0; y < ny; y++) run->prior_part[y] = (int32_t)labels[y];
        if ((status = nuclear_norm(p, k, input_order(p, k, T, &rn), pz, sigma, U, &nuc1, err)) != MMNC_OK) goto cleanup;
        run->prior_kept = nuc1 >= nuc0;
        if (run->prior_kept && mmnc_i_guard_loo) {
            if ((status = mmnc_i_loo_score(p, k, labels, &g1, NULL, err)) != MMNC_OK) goto cleanup;
            if (!(g1 > 0.0)) { /* unless the prior-free partition predicts no better */
                if ((status = mmnc_i_loo_score(p, k, keep, &g0, NULL, err)) != MMNC_OK) goto cleanup;
                run->prior_kept = g1 >= g0;
            }
            if (!run->prior_kept) run->prior_why = MMNC_PRIOR_PREDICTIVE;
        } else if (!run->prior_kept) {
            run->prior_why = MMNC_PRIOR_NORM;
        }
        TRACE_GUARD(restart, nuc0, nuc1, g0, g1, run->prior_kept);
        if (!run->prior_kept) {
            memcpy(labels, keep, (size_t)ny * sizeof *keep);
            refresh(p, k, labels, T, BL, pz, nc, &rn, &m, fix);
        }
    }
    run->objective = objective(p, k, input_order(p, k, T, &rn), pz, nc, prm->size_prior, nnz_all);
    run->pruned = m.pruned;
    TRACE_COSTS(restart, polish, m.decided, m.exact, m.pruned);
    memset(W, 0, (size_t)(ny * k) * sizeof(double));
    for (mmnc_int y = 0; y < ny; y++) W[y * k + labels[y]] = 1.0;
cleanup:
    mmnc_i_free(T);
    mmnc_i_free(BL);
    mmnc_i_free(pz);
    mmnc_i_free(nc);
    mmnc_i_free(fix);
    mmnc_i_free(sigma);
    mmnc_i_free(U);
    mmnc_i_free(keep);
    mmnc_i_free(order);
    mmnc_i_free(m.seen);
    mmnc_i_free(m.changed);
    mmnc_i_free(m.redo);
    mmnc_i_free(m.acc);
    mmnc_i_free(m.gain);
    mmnc_i_free(m.L1);
    mmnc_i_free(m.lo);
    renumber_free(&rn);
    mmnc_i_free(buf);
    return status;
}

/* The merge-split search (mmnc_params.merge_split).  The single-row moves
 * stop at a local optimum where a cluster may hold two natural groups while
 * another natural group is cut in two: no single row's move undoes that.
 * One merge-split move merges the pair of clusters whose merge loses least
 * and splits the cluster whose rows it describes worst, then lets the moves
 * settle.  Merging j into i (the other rows in place) changes J by
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
 * A trial for a pair (i, j): s the cluster of largest D_s other than i and
 * j among those of two rows or more; j's rows join i, and s's rows are
 * drawn at random into s and j (a fresh split, as the starts are fresh
 * partitions; a half left empty by the draws gets a row as the starts'
 * empty clusters do); then the trial runs as a start does from its random
 * partition: the moves of I(X;Z), those of J, and the guard (with a prior),
 * each phase until a sweep moves fewer than move_tol |Y| rows.  So a trial
 * is a start from a perturbation of the kept partition, judged by J as the
 * starts are; without the phases and the guard the prior alone would take
 * over (on small planted data, trials on J merged two planted groups and
 * left a one-row cluster: J higher, the partition worse).  A round tries
 * the next two pairs in rank (the pairs of largest g first), side by side
 * on two threads; the better trial is kept if J rose (by more than 1e-12
 * relative), and the pairs are ranked again; a round without a gain ends
 * the search, as does the budget of mmnc_params.merge_split trials.  After
 * a kept trial its moves run on until no row moves (on J, or on I(X;Z)
 * where its guard kept the prior-free partition), so the result is again a
 * local optimum of single-row moves.  The draws are made for all ranks' rows in the order of one
 * process from the seed and the trial's number, every sum is collective
 * and the rounds are the same with one thread or two: the same result for
 * any number of threads and ranks.  Cost: O(k^2 nx) a ranking (the pairs'
 * gains, zero sums skipped) and about a start's sweeps a round. */
#define MERGE_SPLIT_FAILS 2 /* trials a round */

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

/* One trial of the merge-split search: j merged into i, s split at random
 * into s and j (the draws for all ranks' rows in one order, from the seed
 * and the trial's number t), then the moves to the tolerance. */
static int merge_split_trial(const mmnc_pmf *p, const mmnc_params *rp, int restart, int t, mmnc_int i,
                             mmnc_int j, mmnc_int s, const mmnc_int *labels, mmnc_int *lab2, double *W2,
                             mmnc_i_run *r2, mmnc_err *err)
{
    mmnc_rng rng;
    mmnc_rng_seed(&rng, rp->seed * 0x9e3779b97f4a7c15ULL + (uint64_t)restart * 0x100000001b3ULL +
                            (uint64_t)t * 0xd1b54a32d192ed03ULL + 1);
    for (mmnc_int y = 0; y < p->y0; y++) (void)mmnc_rng_below(&rng, 2);
    for (mmnc_int y = 0; y < p->ny; y++) {
        mmnc_int half = mmnc_rng_below(&rng, 2);
        lab2[y] = labels[y] == j ? i : labels[y] == s && half ? j : labels[y];
    }
    for (mmnc_int y = p->y0 + p->ny; y < p->ny_all; y++) (void)mmnc_rng_below(&rng, 2);
    mmnc_i_fill_empty(p, rp->k, lab2, NULL, NULL, &rng); /* a half the draws left empty (collective) */
    return mmnc_i_information(p, rp, restart, -1, lab2, W2, r2, err);
}

int mmnc_i_merge_split(const mmnc_pmf *p, const mmnc_params *prm, int restart, mmnc_int *labels, double *W,
                       mmnc_i_run *run, int *tried, int *kept, mmnc_err *err)
{
    mmnc_int k = prm->k, ny = p->ny, nx = p->nx, npairs = k * (k - 1) / 2, next = 0;
    const mmnc_csr *P = p->P;
    double *T = NULL, *pz = NULL, *D = NULL, *W2 = NULL, *rowent = NULL, *tl = NULL, cur = 0.0, wpri = 0.0;
    int64_t *nc = NULL, *fix = NULL, nnz_all = p->nnz;
    mmnc_int *lab2 = NULL, *nz = NULL, ny1 = ny > 0 ? ny : 1;
    pair_gain *pg = NULL;
    mmnc_params rp = *prm;
    mmnc_err errs[MERGE_SPLIT_FAILS];
    int status = MMNC_OK, ranked = 0, par = 0;
    *tried = *kept = 0;
    if (k < 3 || prm->merge_split <= 0) return MMNC_OK;
    /* rp.max_iter: each trial is capped as a start is; rp.progress: its sweeps are reported (as the kept
     * start's, restart) and a nonzero return stops them, as it stops a start */
    MMNC_ALLOC(T, nx * k, err, status);
    MMNC_ALLOC(pz, k, err, status);
    MMNC_ALLOC(D, k, err, status);
    MMNC_ALLOC(nc, k, err, status);
    MMNC_ALLOC(fix, mmnc_i_fix_work(p, k), err, status);
    MMNC_ALLOC(W2, MERGE_SPLIT_FAILS * ny1 * k, err, status);
    MMNC_ALLOC(rowent, ny1, err, status);
    MMNC_ALLOC(lab2, MERGE_SPLIT_FAILS * ny1, err, status);
    MMNC_ALLOC(pg, npairs, err, status);
    MMNC_ALLOC(nz, k, err, status);
    MMNC_ALLOC(tl, k, err, status);
    mmnc_i_disum(p, &nnz_all, 1);
    if (prm->size_prior > 0.0 && nnz_all > 0) wpri = prm->size_prior / (double)nnz_all;
    for (mmnc_int y = 0; y < ny; y++) {
        double s = -xlogx(p->py[y]);
        for (mmnc_int e = P->rowptr[y]; e < P->rowptr[y + 1]; e++) s += xlogx(P->val[e]);
        rowent[y] = s;
    }
#ifdef _OPENMP
    /* the trials of a round side by side, one thread each, as the starts (cluster.c) */
    par = team_size() > 1 && !mmnc_i_distributed(p) && (2 * nx + ny) * k <= ((mmnc_int)1 << 25);
#endif
    while (*tried < prm->merge_split) {
        mmnc_int ci[MERGE_SPLIT_FAILS], cj[MERGE_SPLIT_FAILS], cs[MERGE_SPLIT_FAILS];
        mmnc_i_run r2[MERGE_SPLIT_FAILS];
        int st[MERGE_SPLIT_FAILS], n = 0, best = -1;
        if (!ranked) { /* the current labels' sums (collective), losses and gains */
            mmnc_i_pzx_fix(p, k, labels, T, pz, fix);
            mmnc_i_label_counts(p, k, labels, nc);
            memset(fix, 0, (size_t)k * MMNC_I_FIX_LIMBS * sizeof *fix); /* D exact, as T: the same bits on any ranks */
            for (mmnc_int y = 0; y < ny; y++) mmnc_i_fix_add(fix + labels[y] * MMNC_I_FIX_LIMBS, rowent[y]);
            mmnc_i_disum(p, fix, k * MMNC_I_FIX_LIMBS);
            for (mmnc_int c = 0; c < k; c++) D[c] = mmnc_i_fix_value(fix + c * MMNC_I_FIX_LIMBS);
            if (*tried == 0) cur = objective(p, k, T, pz, nc, prm->size_prior, nnz_all);
            rank_pairs(nx, k, T, pz, nc, wpri, D, pg, nz, tl);
            ranked = 1;
            next = 0;
        }
        /* a round: the next pairs in rank, as many as MERGE_SPLIT_FAILS and the budget allow */
        while (n < MERGE_SPLIT_FAILS && next + n < npairs && *tried + n < prm->merge_split) {
            mmnc_int s = -1, i = pg[next + n].i, j = pg[next + n].j;
            for (mmnc_int c = 0; c < k; c++)
                if (c != i && c != j && nc[c] >= 2 && (s < 0 || D[c] > D[s])) s = c;
            if (s < 0) break; /* no cluster to split: every other one holds a single row */
            ci[n] = i, cj[n] = j, cs[n] = s;
            r2[n] = (mmnc_i_run)MMNC_I_RUN_INIT;
            n++;
        }
        if (n == 0) break;
        if (par && n > 1) {
#pragma omp parallel for schedule(static, 1) num_threads(n)
            for (int t = 0; t < n; t++)
                st[t] = merge_split_trial(p, &rp, restart, *tried + t, ci[t], cj[t], cs[t], labels,
                                          lab2 + t * ny1, W2 + t * ny1 * k, &r2[t], &errs[t]);
        } else {
            for (int t = 0; t < n; t++)
                st[t] = merge_split_trial(p, &rp, restart, *tried + t, ci[t], cj[t], cs[t], labels,
                                          lab2 + t * ny1, W2 + t * ny1 * k, &r2[t], &errs[t]);
        }
        for (int t = 0; t < n; t++) {
            if (st[t] != MMNC_OK) {
                if (err) *err = errs[t];
                status = st[t];
                goto cleanup;
            }
            TRACE_MERGE_SPLIT(*tried + t, ci[t], cj[t], pg[next + t].gain, cs[t], cur, r2[t].objective,
                              r2[t].iterations);
            run->iterations += r2[t].iterations;
            if (r2[t].objective > cur + 1e-12 * fabs(cur) && (best < 0 || r2[t].objective > r2[best].objective))
                best = t;
        }
        *tried += n;
        if (best < 0) break; /* a round without a gain ends the search */
        memcpy(labels, lab2 + best * ny1, (size_t)ny * sizeof *labels);
        memcpy(W, W2 + best * ny1 * k, (size_t)(ny * k) * sizeof *W);
        cur = r2[best].objective;
        run->prior_kept = r2[best].prior_kept;
        run->prior_why = r2[best].prior_why;
        (*kept)++;
        ranked = 0;
    }
    if (*kept > 0) { /* the last kept trial stopped at the tolerance: its moves until no row moves, on
                        the objective of the partition it returned (as the kept start's polish) */
        mmnc_i_run r3 = MMNC_I_RUN_INIT;
        if ((status = mmnc_i_information(p, &rp, restart, run->prior_kept == 1, labels, W, &r3, err)) != MMNC_OK)
            goto cleanup;
        run->iterations += r3.iterations;
        cur = r3.objective;
    }
    run->objective = cur;
cleanup:
    mmnc_i_free(T);
    mmnc_i_free(pz);
    mmnc_i_free(D);
    mmnc_i_free(fix);
    mmnc_i_free(nc);
    mmnc_i_free(W2);
    mmnc_i_free(rowent);
    mmnc_i_free(lab2);
    mmnc_i_free(pg);
    mmnc_i_free(nz);
    mmnc_i_free(tl);
    return status;
}
