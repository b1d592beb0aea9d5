/*
 * test_information.c -- the information objective, the predictive selection
 * and the default built on them:
 *   - the leave-one-row-out score is 0 for singleton clusters, positive for
 *     a real partition, and higher for the planted partition than for a
 *     random one;
 *   - the selection rule on hand-made scores;
 *   - information moves never lower I(X;Z) (every sweep), and refining a
 *     start never lowers its I(X;Z);
 *   - same seed, same bits for 1 and 2 threads (information, the default);
 *   - the same bits with the columns numbered by frequency inside the
 *     moves (mmnc_i_tuning.column_order) as without, below and above k = 16;
 *   - planted partitions with unequal cluster sizes are recovered by the
 *     default and by -a information;
 *   - mmnc_params_paper is the paper's protocol (random starts, the best
 *     objective, no refinement);
 *   - the moves' logarithm (mmnc_i_flog) is within 2 ulp of log over the
 *     whole range of normal numbers;
 *   - with the move tolerance the starts stop early and the kept one ends
 *     a local optimum of its objective (brute force), the same bits for 1
 *     and 2 threads;
 *   - the pruned decisions (mmnc_i_tuning.prune) give the same bits as every cost
 *     made, on planted data and on values spanning twelve orders of
 *     magnitude, and do rule out most costs;
 *   - the merge-split search undoes a merged pair and a cut group that the
 *     single-row moves leave in place, and never lowers the objective;
 *   - the guard refuses a prior's partition that predicts held-out rows
 *     worse than no clustering, even where its nuclear norm is higher;
 *   - the starts' agreement (mmnc_i_agreement) is the adjusted Rand index
 *     counted by pairs of rows, also with the table in bands; the agreement
 *     rule returns size_prior = 0's result bit for bit where the prior's
 *     partitions disagree (short rows in equal groups) and agreement = 0's
 *     where they agree (long rows in unequal groups);
 *   - the batch moves (MMNC_MOVES_BATCH): a phase's batch passes never
 *     lower J or I(X;Z) (each kept pass raises the exact objective, and the
 *     phase ends no lower than it began), on planted and random matrices,
 *     below and above k = 16; the same bits for 1 and 2 threads, from one
 *     start and from several side by side.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/default_i.h"
#include "cluster/moves_i.h"
#include "testutil.h"

/* Planted partition with unequal row groups: group g holds share[g] of the
 * rows; columns in k equal groups; Poisson counts with rate `in` in the
 * group's own columns and `out` elsewhere.  Rows are stored in a shuffled
 * order (truth gives each row's group). */
static mmnc_pmf *planted_unequal(mmnc_int ny, mmnc_int nx, mmnc_int k, const double *share, double in, double out,
                                 uint64_t seed, mmnc_int *truth)
{
    mmnc_rng rng;
    mmnc_int n = 0, cap = 64, *ri = malloc(cap * sizeof(mmnc_int)), *ci = malloc(cap * sizeof(mmnc_int));
    double *v = malloc(cap * sizeof(double)), acc = 0;
    mmnc_csr *A = NULL;
    mmnc_pmf *p = NULL;
    mmnc_rng_seed(&rng, seed);
    for (mmnc_int y = 0, g = 0; y < ny; y++) {
        while (g < k - 1 && y >= (acc + share[g]) * ny) acc += share[g++];
        truth[y] = g;
    }
    for (mmnc_int y = ny - 1; y > 0; y--) { /* shuffle the rows */
        mmnc_int j = mmnc_rng_below(&rng, y + 1), t = truth[y];
        truth[y] = truth[j], truth[j] = t;
    }
    for (mmnc_int y = 0; y < ny; y++)
        for (mmnc_int x = 0; x < nx; x++) {
            double rate = (x % k == truth[y]) ? in : out, L = exp(-rate), prod = mmnc_rng_uniform(&rng);
            int c = 0;
            while (prod > L) c++, prod *= mmnc_rng_uniform(&rng);
            if (x == y % nx) c++; /* no empty row or column */
            if (c == 0) continue;
            if (n == cap) {
                cap *= 2;
                ri = realloc(ri, cap * sizeof(mmnc_int)), ci = realloc(ci, cap * sizeof(mmnc_int));
                v = realloc(v, cap * sizeof(double));
            }
            ri[n] = y, ci[n] = x, v[n++] = c;
        }
    mmnc_csr_from_triplets(ny, nx, n, ri, ci, v, &A, NULL);
    mmnc_pmf_build(A, &p, NULL);
    mmnc_csr_free(A);
    free(ri), free(ci), free(v);
    return p;
}

static double exact_mi(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels)
{
    mmnc_stats s;
    double mi;
    mmnc_stats_init(&s, k, NULL);
    mmnc_coupling_stats(p, k, labels, NULL, &s, NULL);
    mi = s.mi;
    mmnc_stats_free(&s);
    return mi;
}

static void test_score(void)
{
    const double share[3] = {0.5, 0.3, 0.2};
    mmnc_int truth[300], lab[300], single[300];
    mmnc_pmf *p = planted_unequal(300, 90, 3, share, 1.0, 0.1, 3, truth);
    mmnc_rng rng;
    double g_truth, g_rand, g_single, g_one, a;
    mmnc_rng_seed(&rng, 9);
    for (mmnc_int y = 0; y < 300; y++) lab[y] = mmnc_rng_below(&rng, 3), single[y] = y;
    CHECK_OK(mmnc_i_loo_score(p, 3, truth, &g_truth, &a, NULL));
    CHECK_OK(mmnc_i_loo_score(p, 3, lab, &g_rand, NULL, NULL));
    CHECK_OK(mmnc_i_loo_score(p, 300, single, &g_single, NULL, NULL));
    memset(lab, 0, sizeof lab);
    CHECK_OK(mmnc_i_loo_score(p, 1, lab, &g_one, NULL, NULL));
    CHECK(g_truth > 0.1);
    CHECK(g_truth > g_rand + 0.1);
    CHECK(g_truth <= exact_mi(p, 3, truth) + 1e-12); /* held out: no more than the plug-in I(X;Z) */
    CHECK_NEAR(g_single, 0.0, 1e-12);                /* a row alone predicts nothing */
    CHECK(g_one <= 1e-12);                           /* one cluster: P_X itself, up to the smoothing */
    CHECK(a >= 0.25 && a <= 4096);
    mmnc_pmf_free(p);
}

static void test_rule(void)
{
    double obj[5] = {3.0, 2.0, 2.5, 4.0, 1.0}, sc[5] = {0.30, 0.40, 0.39, 0.20, 0.41};
    int ok[5] = {1, 1, 1, 1, 0};
    CHECK(mmnc_i_select(5, obj, sc, ok, 0.0) == 1);   /* best score among the ok starts */
    CHECK(mmnc_i_select(5, obj, sc, ok, 0.05) == 2);  /* 0.39 >= 0.38: the better objective */
    CHECK(mmnc_i_select(5, obj, sc, ok, 0.3) == 0);   /* 0.30 >= 0.28 */
    CHECK(mmnc_i_select(5, obj, sc, ok, 1e6) == 3);   /* every start: the best objective */
    ok[1] = ok[2] = 0, ok[0] = ok[3] = 0;
    CHECK(mmnc_i_select(5, obj, sc, ok, 0.0) == -1);
    double tie_o[3] = {1.0, 1.0, 1.0}, tie_s[3] = {0.2, 0.2, 0.2};
    int all[3] = {1, 1, 1};
    CHECK(mmnc_i_select(3, tie_o, tie_s, all, 0.0) == 0); /* ties to the lower start */
}

static void test_monotone_and_planted(void)
{
    const double share[4] = {0.45, 0.3, 0.15, 0.1};
    mmnc_int truth[600];
    mmnc_pmf *p = planted_unequal(600, 160, 4, share, 0.5, 0.15, 11, truth);
    test_trace *t = calloc(1, sizeof(test_trace));
    mmnc_params prm;
    mmnc_result *r = NULL, *r2 = NULL;
    mmnc_scores sc;
    /* -a information from random starts: I(X;Z) never decreases, sweep by sweep */
    mmnc_params_default(&prm);
    prm.algorithm = MMNC_ALG_INFORMATION;
    prm.algorithm = MMNC_ALG_INFORMATION;
    prm.size_prior = 0.0;
    prm.k = 4;
    prm.init = MMNC_INIT_RANDOM;
    prm.restarts = 4;
    prm.merge_split = 0; /* the trials (reported too) start from perturbed partitions: test_merge_split */
    prm.progress = test_trace_record;
    prm.progress_ctx = t;
    CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
    CHECK(t->n >= 8);
    int mono = 1;
    for (int i = 1; i < t->n; i++)
        if (t->restart[i] == t->restart[i - 1] && t->obj[i] < t->obj[i - 1] - 1e-12) mono = 0;
    CHECK(mono);
    CHECK_NEAR(r->objective, r->stats.mi, 1e-12);
    /* the value shown after each sweep (from the moves' table of T log T) is the objective of
     * the partition: each start's last one is its objective, the kept start's (after its
     * polish) the result's */
    for (int s = 0; s < r->restarts; s++) {
        int last = -1;
        for (int i = 0; i < t->n; i++)
            if (t->restart[i] == s) last = i;
        CHECK(last >= 0);
        if (last >= 0)
            CHECK_NEAR(t->obj[last], s == r->best_restart ? r->objective : r->restart_objective[s], 1e-12);
    }
    CHECK_OK(mmnc_evaluate(600, r->label, truth, &sc, NULL));
    CHECK(sc.acc >= 0.97);
    mmnc_result_free(r);
    /* with the size prior: J = I(X;Z) - gamma (|Y| / nnz) H_rows(Z) never decreases within a
     * phase (I(X;Z) alone first, then J: one drop at most, where J takes over) */
    t->n = 0;
    mmnc_params_default(&prm);
    prm.algorithm = MMNC_ALG_INFORMATION;
    prm.k = 4;
    prm.restarts = 4;
    prm.merge_split = 0;
    prm.agreement = 0; /* the guard's verdicts below; the agreement rule: test_agreement_rule */
    prm.progress = test_trace_record;
    prm.progress_ctx = t;
    CHECK(prm.algorithm == MMNC_ALG_INFORMATION && prm.size_prior == MMNC_SIZE_PRIOR_DEFAULT);
    CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
    {
        int drops[64] = {0}, ok = 1;
        for (int i = 1; i < t->n; i++)
            if (t->restart[i] == t->restart[i - 1] && t->obj[i] < t->obj[i - 1] - 1e-12 && t->restart[i] < 64)
                drops[t->restart[i]]++;
        for (int i = 0; i < 64; i++) ok &= drops[i] <= 1;
        CHECK(ok);
    }
    {
        double h = 0.0, n = 600.0;
        mmnc_int cnt[4] = {0};
        for (int y = 0; y < 600; y++) cnt[r->label[y]]++;
        for (int z = 0; z < 4; z++)
            if (cnt[z]) h -= cnt[z] / n * log(cnt[z] / n);
        CHECK_NEAR(r->objective, r->stats.mi - prm.size_prior * n / (double)p->nnz * h, 1e-12);
    }
    /* the default recovers the unequal partition: on this weak signal the prior's partition
     * (every start: all rows in about one cluster) loses nuclear norm, and the guard returns
     * the prior-free optimum */
    CHECK_OK(mmnc_evaluate(600, r->label, truth, &sc, NULL));
    CHECK(sc.acc >= 0.97);
    CHECK(r->size_prior_kept == 0 && r->size_prior_refused == MMNC_PRIOR_NORM);
    mmnc_result_free(r);
    prm.agreement = 1; /* the default recovers it too */
    prm.progress = NULL;
    CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
    CHECK_OK(mmnc_evaluate(600, r->label, truth, &sc, NULL));
    CHECK(sc.acc >= 0.97);
    mmnc_result_free(r);
    /* a stronger signal: the prior's partition is kept (and is the planted one) */
    {
        mmnc_int truth2[600];
        mmnc_pmf *p2 = planted_unequal(600, 160, 4, share, 1.0, 0.15, 11, truth2);
        mmnc_params_default(&prm);
        prm.algorithm = MMNC_ALG_INFORMATION;
        prm.k = 4;
        prm.restarts = 4;
        CHECK_OK(mmnc_cluster(p2, &prm, &r, NULL));
        CHECK_OK(mmnc_evaluate(600, r->label, truth2, &sc, NULL));
        CHECK(sc.acc >= 0.97);
        CHECK(r->size_prior_kept == 1);
        mmnc_result_free(r);
        prm.size_prior = 0.0;
        CHECK_OK(mmnc_cluster(p2, &prm, &r, NULL));
        CHECK(r->size_prior_kept == -1);
        mmnc_result_free(r);
        mmnc_pmf_free(p2);
    }
    /* refining never lowers I(X;Z): Algorithm 2 from spectral starts, the predictive
     * selection, refined (size prior 0), against the same start without refinement */
    mmnc_params_default(&prm);
    prm.algorithm = MMNC_ALG_INFORMATION;
    prm.algorithm = MMNC_ALG_NUCLEAR;
    prm.init = MMNC_INIT_SPECTRAL;
    prm.select = MMNC_SELECT_PREDICTIVE;
    prm.refine = MMNC_REFINE_CHOSEN;
    prm.size_prior = 0.0;
    prm.k = 4;
    CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
    CHECK_OK(mmnc_evaluate(600, r->label, truth, &sc, NULL));
    CHECK(sc.acc >= 0.97);
    CHECK(r->refine == MMNC_REFINE_CHOSEN && r->restart_score != NULL);
    prm.refine = MMNC_REFINE_NONE;
    CHECK_OK(mmnc_cluster(p, &prm, &r2, NULL));
    CHECK(r2->best_restart == r->best_restart);
    CHECK(r->stats.mi >= r2->stats.mi - 1e-12);
    CHECK(r->refined_score >= 0.0);
    mmnc_result_free(r), mmnc_result_free(r2);
    free(t);
    mmnc_pmf_free(p);
}

/* prm on 1 and on 2 threads: the same labels, objective, scores, kept start
 * and polish, bit for bit. */
static void check_threads(const mmnc_pmf *p, mmnc_params prm)
{
    mmnc_result *a = NULL, *b = NULL;
    prm.threads = 1;
    CHECK_OK(mmnc_cluster(p, &prm, &a, NULL));
    prm.threads = 2;
    CHECK_OK(mmnc_cluster(p, &prm, &b, NULL));
    CHECK(memcmp(a->label, b->label, (size_t)p->ny * sizeof(mmnc_int)) == 0);
    CHECK(memcmp(&a->objective, &b->objective, sizeof(double)) == 0);
    CHECK(!a->restart_score == !b->restart_score);
    if (a->restart_score && b->restart_score)
        CHECK(memcmp(a->restart_score, b->restart_score, a->restarts * sizeof(double)) == 0);
    CHECK(a->best_restart == b->best_restart && a->polish_sweeps == b->polish_sweeps);
    CHECK(a->merge_split_tried == b->merge_split_tried && a->merge_split_kept == b->merge_split_kept &&
          a->merge_split_sweeps == b->merge_split_sweeps);
    mmnc_result_free(a), mmnc_result_free(b);
}

static void test_threads_and_paper(void)
{
    const double share[3] = {0.6, 0.25, 0.15};
    mmnc_int truth[500];
    mmnc_pmf *p = planted_unequal(500, 120, 3, share, 0.35, 0.2, 17, truth);
    for (int alg = 2; alg <= 3; alg++) {
        mmnc_params prm;
        mmnc_params_default(&prm);
        prm.algorithm = MMNC_ALG_INFORMATION;
        prm.algorithm = alg;
        prm.k = 3;
        check_threads(p, prm);
    }
    /* the paper's protocol: random starts, the best norm, no refinement */
    mmnc_params prm, q;
    mmnc_result *r = NULL;
    mmnc_params_paper(&prm);
    mmnc_params_default(&q);
    q.algorithm = MMNC_ALG_INFORMATION;
    CHECK(prm.algorithm == MMNC_ALG_NUCLEAR && prm.init == MMNC_INIT_RANDOM && prm.select == MMNC_SELECT_OBJECTIVE &&
          prm.refine == MMNC_REFINE_NONE);
    CHECK(q.algorithm == MMNC_ALG_INFORMATION && q.init == MMNC_INIT_RANDOM && q.select == MMNC_SELECT_OBJECTIVE &&
          q.refine == MMNC_REFINE_NONE && q.size_prior == MMNC_SIZE_PRIOR_DEFAULT &&
          q.move_tol == MMNC_MOVE_TOL_DEFAULT);
    prm.k = 3;
    CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
    CHECK(r->restart_score == NULL && r->best_restart == r->objective_restart);
    for (int i = 0; i < r->restarts; i++) CHECK(r->restart_objective[i] <= r->objective);
    mmnc_result_free(r);
    /* soft results are never refined */
    mmnc_params_default(&prm);
    prm.algorithm = MMNC_ALG_INFORMATION;
    prm.algorithm = MMNC_ALG_FROBENIUS;
    prm.k = 3;
    prm.restarts = 2;
    prm.max_iter = 50;
    CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
    CHECK(r->refine == MMNC_REFINE_NONE);
    mmnc_result_free(r);
    /* bad values */
    mmnc_params_default(&prm);
    prm.algorithm = MMNC_ALG_INFORMATION;
    prm.refine = 7;
    CHECK(mmnc_params_check(&prm, 10) != NULL);
    mmnc_params_default(&prm);
    prm.algorithm = MMNC_ALG_INFORMATION;
    prm.select = 5;
    CHECK(mmnc_params_check(&prm, 10) != NULL);
    mmnc_params_default(&prm);
    prm.algorithm = MMNC_ALG_INFORMATION;
    prm.select_tol = -1;
    CHECK(mmnc_params_check(&prm, 10) != NULL);
    mmnc_params_default(&prm);
    prm.algorithm = MMNC_ALG_INFORMATION;
    prm.size_prior = -1;
    CHECK(mmnc_params_check(&prm, 10) != NULL);
    prm.size_prior = NAN;
    CHECK(mmnc_params_check(&prm, 10) != NULL);
    mmnc_pmf_free(p);
}

/* mmnc_i_flog against log: random exponents and mantissas, the ends of the
 * mantissa interval around sqrt(2), powers of two and 1 itself. */
static void test_flog(void)
{
    mmnc_rng rng;
    double worst = 0.0;
    int n = 0;
    mmnc_rng_seed(&rng, 5);
    for (int i = 0; i < 2000000; i++) {
        double v, l, d;
        if (i < 1000000) v = ldexp(1.0 + mmnc_rng_uniform(&rng), (int)mmnc_rng_below(&rng, 2040) - 1020);
        else if (i < 1500000) v = ldexp(1.4142135623730951 * (1.0 + 1e-6 * (mmnc_rng_uniform(&rng) - 0.5)),
                                        (int)mmnc_rng_below(&rng, 200) - 100);
        else v = 1.0 + 1e-3 * (mmnc_rng_uniform(&rng) - 0.5);
        l = log(v);
        d = fabs(mmnc_i_flog(v) - l);
        /* 2 ulp of the result, or of 1e-300 x ... near log = 0: 2 ulp of |v - 1| */
        if (d > 2.0 * 2.220446049250313e-16 * fmax(fabs(l), fabs(v - 1.0))) n++;
        if (fabs(l) > 0.0 && d / fabs(l) > worst) worst = d / fabs(l);
    }
    for (int e = -1022; e <= 1023; e++) n += mmnc_i_flog(ldexp(1.0, e)) != e * log(2.0) &&
                                              fabs(mmnc_i_flog(ldexp(1.0, e)) - e * log(2.0)) > 4.5e-16 * fabs(e * log(2.0));
    CHECK(mmnc_i_flog(1.0) == 0.0);
    CHECK(n == 0);
    CHECK(worst < 4.5e-16);
}

/* The moves number the columns by frequency inside where their tables are
 * large (mmnc_i_tuning.column_order): the labels, objectives and every start's
 * objective must be the same bits as without, for the few-cluster sums (k <
 * 16) and the vector ones, on 1 and 2 threads. */
static void test_column_order(void)
{
    const double share[4] = {0.4, 0.3, 0.2, 0.1};
    mmnc_int truth[600], sorted = 1;
    mmnc_pmf *p = planted_unequal(600, 240, 4, share, 0.3, 0.12, 23, truth);
    for (mmnc_int x = 1; x < p->nx; x++) /* the renumbering must not be the identity */
        if (p->Pt->rowptr[x + 1] - p->Pt->rowptr[x] > p->Pt->rowptr[x] - p->Pt->rowptr[x - 1]) sorted = 0;
    CHECK(!sorted);
    for (mmnc_int k = 4; k <= 20; k += 16)
        for (int threads = 1; threads <= 2; threads++) {
            mmnc_params prm;
            mmnc_result *a = NULL, *b = NULL;
            mmnc_params_default(&prm);
            prm.algorithm = MMNC_ALG_INFORMATION;
            prm.k = k;
            prm.threads = threads;
            mmnc_i_tuning off = MMNC_I_TUNING_DEFAULT, on = MMNC_I_TUNING_DEFAULT;
            off.column_order = 0;
            on.column_order = 1;
            CHECK_OK(mmnc_i_cluster(p, &prm, &off, &a, NULL));
            CHECK_OK(mmnc_i_cluster(p, &prm, &on, &b, NULL));
            CHECK(memcmp(a->label, b->label, 600 * sizeof(mmnc_int)) == 0);
            CHECK(memcmp(&a->objective, &b->objective, sizeof(double)) == 0);
            CHECK(memcmp(a->restart_objective, b->restart_objective, a->restarts * sizeof(double)) == 0);
            CHECK(a->best_restart == b->best_restart);
            mmnc_result_free(a), mmnc_result_free(b);
        }
    mmnc_pmf_free(p);
}

/* J of the hard clustering `labels` (gamma = 0: I(X;Z)), from exact sums. */
static double exact_j(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels, double gamma)
{
    double h = 0.0, n = (double)p->ny;
    mmnc_int *cnt = calloc((size_t)k, sizeof *cnt);
    for (mmnc_int y = 0; y < p->ny; y++) cnt[labels[y]]++;
    for (mmnc_int z = 0; z < k; z++)
        if (cnt[z]) h -= cnt[z] / n * log(cnt[z] / n);
    free(cnt);
    return exact_mi(p, k, labels) - gamma * n / (double)p->nnz * h;
}

/* The move tolerance: the starts stop early (fewer sweeps than without it),
 * the kept start goes on until no row moves, so the result is a local
 * optimum of its objective (J where the prior's partition was kept, else
 * I(X;Z)): no single row's move to another cluster raises it, checked by
 * brute force.  The same bits for 1 and 2 threads, with the starts side by
 * side and with one start whose sweeps have the two threads (costs made
 * ahead); and bad values are refused. */
static void test_move_tol(void)
{
    const double share[4] = {0.4, 0.3, 0.2, 0.1};
    mmnc_int truth[600];
    mmnc_pmf *p = planted_unequal(600, 240, 4, share, 0.6, 0.12, 29, truth);
    mmnc_params prm;
    mmnc_result *r = NULL, *r0 = NULL;
    int sweeps = 0, sweeps0 = 0, worse = 0;
    mmnc_params_default(&prm);
    prm.algorithm = MMNC_ALG_INFORMATION;
    CHECK(prm.move_tol == MMNC_MOVE_TOL_DEFAULT && prm.move_tol > 0.0);
    prm.k = 6; /* more clusters than planted groups: the starts stop early, and the kept one is polished */
    prm.move_tol = 0.05;
    CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
    prm.move_tol = 0.0;
    CHECK_OK(mmnc_cluster(p, &prm, &r0, NULL));
    for (int i = 0; i < r->restarts; i++) sweeps += r->restart_iterations[i], sweeps0 += r0->restart_iterations[i];
    CHECK(sweeps < sweeps0);
    CHECK(r0->polish_sweeps == 0);
    CHECK(r->converged && r->polish_sweeps >= 1 && r->size_prior_kept >= 0);
    {
        double gamma = r->size_prior_kept == 1 ? prm.size_prior : 0.0, j = exact_j(p, 6, r->label, gamma);
        mmnc_int *lab = malloc(600 * sizeof *lab), cnt[6] = {0};
        memcpy(lab, r->label, 600 * sizeof *lab);
        for (int y = 0; y < 600; y++) cnt[lab[y]]++;
        for (int y = 0; y < 600; y++) {
            mmnc_int c0 = lab[y];
            if (cnt[c0] == 1) continue; /* a row alone in its cluster stays */
            for (mmnc_int c = 0; c < 6; c++) {
                if (c == c0) continue;
                lab[y] = c;
                if (exact_j(p, 6, lab, gamma) > j + 1e-9 * fabs(j)) worse++;
            }
            lab[y] = c0;
        }
        free(lab);
        CHECK(worse == 0);
    }
    mmnc_result_free(r), mmnc_result_free(r0);
    for (mmnc_int k = 4; k <= 20; k += 16)
        for (int restarts = 1; restarts <= 4; restarts += 3) {
            mmnc_params_default(&prm);
            prm.algorithm = MMNC_ALG_INFORMATION;
            prm.k = k;
            prm.restarts = restarts;
            prm.move_tol = 0.05;
            check_threads(p, prm);
        }
    mmnc_params_default(&prm);
    prm.algorithm = MMNC_ALG_INFORMATION;
    prm.move_tol = -0.1;
    CHECK(mmnc_params_check(&prm, 10) != NULL);
    prm.move_tol = 1.0;
    CHECK(mmnc_params_check(&prm, 10) != NULL);
    prm.move_tol = NAN;
    CHECK(mmnc_params_check(&prm, 10) != NULL);
    mmnc_pmf_free(p);
}

/* Do the labels match truth up to a renaming of the clusters (k groups)? */
static int same_partition(mmnc_int ny, mmnc_int k, const mmnc_int *labels, const mmnc_int *truth)
{
    mmnc_int *map = malloc((size_t)k * sizeof *map), *inv = malloc((size_t)k * sizeof *inv);
    int ok = 1;
    for (mmnc_int z = 0; z < k; z++) map[z] = inv[z] = -1;
    for (mmnc_int y = 0; y < ny && ok; y++) {
        mmnc_int z = labels[y], g = truth[y];
        if (map[z] < 0 && inv[g] < 0) map[z] = g, inv[g] = z;
        ok = map[z] == g && inv[g] == z;
    }
    free(map), free(inv);
    return ok;
}

/* The merge-split search.  Four planted groups of equal size, labelled
 * with groups 0 and 1 in one cluster and group 2 cut in two by the rows'
 * parity, then moved until no row moves: a local optimum of single-row
 * moves (checked) that is not the planted partition.  mmnc_i_default_merge_split
 * must find the planted partition, raise the objective and report it as
 * the objective of its labels (I(X;Z) without the prior, J with it); from
 * a random partition's optimum it never lowers J; the same
 * bits for 1 and 2 threads through mmnc_cluster, with trials kept; bad
 * values refused.  It fails if the trials' objectives are not compared
 * (a worse trial kept) or if no trial is made. */
static void test_merge_split(void)
{
    const double share[4] = {0.25, 0.25, 0.25, 0.25};
    mmnc_int truth[400], lab[400];
    mmnc_pmf *p = planted_unequal(400, 200, 4, share, 0.9, 0.1, 61, truth);
    double *W = malloc(400 * 4 * sizeof(double));
    mmnc_params prm;
    const mmnc_i_tuning tune = MMNC_I_TUNING_DEFAULT;
    int tried = 0, kept = 0;
    for (int prior = 0; prior <= 1; prior++) {
        mmnc_i_run run = MMNC_I_RUN_INIT;
        double before, gamma;
        mmnc_params_default(&prm);
        prm.algorithm = MMNC_ALG_INFORMATION;
        prm.k = 4;
        prm.max_iter = 100;
        if (!prior) prm.size_prior = 0.0; /* I(X;Z) alone */
        gamma = prm.size_prior;
        for (mmnc_int y = 0; y < 400; y++)
            lab[y] = truth[y] <= 1 ? 0 : truth[y] == 2 ? 1 + (y & 1) : 3;
        CHECK_OK(mmnc_i_information(p, &prm, &tune, 0, prior, lab, W, &run, NULL));
        CHECK(!same_partition(400, 4, lab, truth)); /* the moves alone do not undo it */
        before = run.objective;
        CHECK_NEAR(before, exact_j(p, 4, lab, gamma), 1e-9);
        run.prior_kept = prior ? 1 : -1;
        CHECK_OK(mmnc_i_default_merge_split(p, &prm, &tune, 0, -HUGE_VAL, lab, W, &run, &tried, &kept, NULL));
        CHECK(tried >= 1 && tried <= prm.merge_split && kept >= 1);
        CHECK(run.objective > before);
        CHECK_NEAR(run.objective, exact_j(p, 4, lab, gamma), 1e-9);
        CHECK(same_partition(400, 4, lab, truth));
    }
    /* from random partitions' optima of I(X;Z) under a prior (as where the
     * guard kept the prior-free optimum), k = 6: J never lower, and the
     * reported objective J of the result */
    for (uint64_t seed = 1; seed <= 2; seed++) {
        mmnc_i_run run = MMNC_I_RUN_INIT;
        mmnc_rng rng;
        double before;
        mmnc_int lab6[400];
        mmnc_params_default(&prm);
        prm.algorithm = MMNC_ALG_INFORMATION;
        prm.k = 6;
        prm.max_iter = 100;
        prm.seed = seed;
        mmnc_rng_seed(&rng, seed);
        for (mmnc_int y = 0; y < 400; y++) lab6[y] = mmnc_rng_below(&rng, 6);
        double *W6 = malloc(400 * 6 * sizeof(double));
        CHECK_OK(mmnc_i_information(p, &prm, &tune, 0, 0, lab6, W6, &run, NULL));
        before = exact_j(p, 6, lab6, prm.size_prior);
        CHECK_NEAR(run.objective, before, 1e-9);
        run.prior_kept = 0;
        CHECK_OK(mmnc_i_default_merge_split(p, &prm, &tune, 0, -HUGE_VAL, lab6, W6, &run, &tried, &kept, NULL));
        CHECK(run.objective >= before && tried >= 1);
        CHECK_NEAR(run.objective, exact_j(p, 6, lab6, prm.size_prior), 1e-9);
        CHECK(kept == 0 || run.prior_kept >= 0);
        free(W6);
    }
    /* through mmnc_cluster: trials made, the same bits on 1 and 2 threads, off with 0 */
    {
        mmnc_result *r = NULL;
        mmnc_params_default(&prm);
        prm.algorithm = MMNC_ALG_INFORMATION;
        CHECK(prm.merge_split == MMNC_MERGE_SPLIT_DEFAULT && prm.merge_split > 0);
        prm.k = 6;
        prm.restarts = 3;
        CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
        CHECK(r->merge_split_tried >= 2 && r->merge_split_sweeps > 0);
        mmnc_result_free(r);
        check_threads(p, prm);
        /* the trials report their sweeps to the progress function, and its
         * stop ends them: the calls without trials, then a stop at the
         * first call past those cancels the run (it would finish if the
         * trials did not call it) */
        {
            test_trace *t = calloc(1, sizeof(test_trace));
            mmnc_params q = prm;
            mmnc_err e;
            int before_trials;
            q.progress = test_trace_record;
            q.progress_ctx = t;
            q.merge_split = 0;
            CHECK_OK(mmnc_cluster(p, &q, &r, NULL));
            mmnc_result_free(r);
            before_trials = t->n;
            memset(t, 0, sizeof *t);
            q.merge_split = prm.merge_split;
            CHECK_OK(mmnc_cluster(p, &q, &r, NULL));
            CHECK(t->n > before_trials + 1); /* the trials' sweeps reported */
            mmnc_result_free(r);
            r = NULL;
            memset(t, 0, sizeof *t);
            t->stop_after = before_trials + 1;
            CHECK(mmnc_cluster(p, &q, &r, &e) == MMNC_ECANCELED && r == NULL);
            CHECK(t->n == before_trials + 1);
            free(t);
        }
        prm.merge_split = 0;
        CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
        CHECK(r->merge_split_tried == 0 && r->merge_split_sweeps == 0);
        mmnc_result_free(r);
        prm.merge_split = -1;
        CHECK(mmnc_params_check(&prm, 10) != NULL);
    }
    free(W);
    mmnc_pmf_free(p);
}

/* Rows of 1 to 60 entries whose values span 1e-12 to 1 (log-uniform) over
 * columns of very unequal popularity: the bounds of the pruned decisions
 * meet every case (a cluster without the column, b far below and far above
 * a, tiny values next to large ones). */
static mmnc_pmf *wild_pmf(mmnc_int ny, mmnc_int nx, uint64_t seed)
{
    mmnc_rng rng;
    mmnc_int n = 0, cap = ny * 60, *ri = malloc(cap * sizeof(mmnc_int)), *ci = malloc(cap * sizeof(mmnc_int));
    double *v = malloc(cap * sizeof(double));
    mmnc_csr *A = NULL;
    mmnc_pmf *p = NULL;
    mmnc_rng_seed(&rng, seed);
    for (mmnc_int y = 0; y < ny; y++) {
        mmnc_int len = 1 + mmnc_rng_below(&rng, 60);
        for (mmnc_int i = 0; i < len; i++) {
            double u = mmnc_rng_uniform(&rng);
            ri[n] = y;
            ci[n] = (mmnc_int)(nx * u * u * u) % nx; /* popular low columns */
            v[n++] = pow(10.0, -12.0 * mmnc_rng_uniform(&rng));
        }
    }
    for (mmnc_int x = 0; x < nx; x++) ri[n] = x % ny, ci[n] = x, v[n++] = 1e-6; /* no empty column */
    CHECK_OK(mmnc_csr_from_triplets(ny, nx, n, ri, ci, v, &A, NULL));
    CHECK_OK(mmnc_pmf_build(A, &p, NULL));
    mmnc_csr_free(A);
    free(ri), free(ci), free(v);
    return p;
}

/* Both runs of prm, every cost made and pruned: the same bits. */
static void check_pruned(const mmnc_pmf *p, const mmnc_params *prm)
{
    mmnc_result *a = NULL, *b = NULL;
    mmnc_i_tuning all = MMNC_I_TUNING_DEFAULT, pruned = MMNC_I_TUNING_DEFAULT;
    all.prune = 0;
    pruned.prune = 1;
    CHECK_OK(mmnc_i_cluster(p, prm, &all, &a, NULL));
    CHECK_OK(mmnc_i_cluster(p, prm, &pruned, &b, NULL));
    CHECK(memcmp(a->label, b->label, (size_t)p->ny * sizeof(mmnc_int)) == 0);
    CHECK(memcmp(&a->objective, &b->objective, sizeof(double)) == 0);
    CHECK(memcmp(a->restart_objective, b->restart_objective, a->restarts * sizeof(double)) == 0);
    CHECK(a->best_restart == b->best_restart && a->polish_sweeps == b->polish_sweeps);
    CHECK(a->merge_split_tried == b->merge_split_tried && a->merge_split_kept == b->merge_split_kept &&
          a->merge_split_sweeps == b->merge_split_sweeps);
    mmnc_result_free(a), mmnc_result_free(b);
}

/* Pruned decisions: the same labels, objectives and every start's
 * objective as with every cost made, on planted data and on wild values,
 * below and above k = 16, with and without the size prior, on 1 and 2
 * threads (the starts side by side, and one start whose sweeps make costs
 * ahead).  And the bounds do rule out most costs (run.pruned), so the
 * comparison is not vacuous; with every cost made none is. */
static void test_pruned(void)
{
    const double share[4] = {0.4, 0.3, 0.2, 0.1};
    mmnc_int truth[600];
    mmnc_pmf *planted = planted_unequal(600, 240, 4, share, 0.3, 0.12, 31, truth), *wild = wild_pmf(500, 300, 37);
    mmnc_pmf *data[2] = {planted, wild};
    for (int d = 0; d < 2; d++)
        for (mmnc_int k = 5; k <= 45; k += 20)
            for (int threads = 1; threads <= 2; threads++)
                for (int restarts = 1; restarts <= 4; restarts += 3) {
                    mmnc_params prm;
                    mmnc_params_default(&prm);
                    prm.algorithm = MMNC_ALG_INFORMATION;
                    prm.k = k;
                    prm.threads = threads;
                    prm.restarts = restarts;
                    prm.size_prior = restarts == 1 ? 0.0 : MMNC_SIZE_PRIOR_DEFAULT;
                    prm.merge_split = 2; /* one round of trials (their moves pruned too), at a bounded cost */
                    check_pruned(data[d], &prm);
                }
    for (int d = 0; d < 2; d++) {
        const mmnc_pmf *p = data[d];
        mmnc_int k = 20, *labels = malloc((size_t)p->ny * sizeof *labels);
        double *W = malloc((size_t)(p->ny * k) * sizeof *W);
        mmnc_params prm;
        mmnc_i_run run = MMNC_I_RUN_INIT;
        mmnc_i_dstart ds = {0};
        mmnc_rng rng;
        mmnc_params_default(&prm);
        prm.algorithm = MMNC_ALG_INFORMATION;
        prm.k = k;
        prm.max_iter = 100;
        for (int prune = 0; prune <= 1; prune++) {
            mmnc_i_tuning tune = MMNC_I_TUNING_DEFAULT;
            mmnc_rng_seed(&rng, 3);
            for (mmnc_int y = 0; y < p->ny; y++) labels[y] = mmnc_rng_below(&rng, k);
            tune.prune = prune;
            CHECK_OK(mmnc_i_default_start(p, &prm, &tune, 0, labels, W, &run, &ds, NULL));
            /* at least half the other clusters ruled out a row, over the sweeps */
            if (prune) CHECK(ds.pruned > (int64_t)run.iterations * p->ny * (k - 1) / 2);
            else CHECK(ds.pruned == 0);
        }
        free(labels), free(W);
    }
    mmnc_pmf_free(planted), mmnc_pmf_free(wild);
}

/* The guard's blind spot.  Five planted groups of 40 short rows (6
 * tokens, 70% from the group's 20 words) and four outlier rows, each with
 * five words of its own (count 3) that appear once more in one random
 * row.  The prior (the default's weight, strong on rows this short)
 * collapses the prior-free optimum into one cluster of 200 rows beside the
 * four outliers alone, and that partition's nuclear norm is the higher
 * (each outlier a singular value near 0.85): the norm alone keeps it.  Its
 * leave-one-row-out predictive information is below zero (the giant
 * cluster no longer predicts the outliers' words in the rows that share
 * them), so the guard refuses it.  The test fails without that check
 * (mmnc_i_tuning.guard_loo = 0: the collapse is returned, checked). */
static mmnc_pmf *outliers_pmf(uint64_t seed)
{
    enum { G = 5, PER = 40, COMMON = 20, NY = G * PER + 4 };
    mmnc_int ri[NY * 8 + 64], ci[NY * 8 + 64], n = 0, nx = G * COMMON;
    double v[NY * 8 + 64];
    mmnc_rng rng;
    mmnc_csr *A = NULL;
    mmnc_pmf *p = NULL;
    mmnc_rng_seed(&rng, seed);
    for (mmnc_int y = 0; y < G * PER; y++)
        for (int t = 0; t < 6; t++) {
            mmnc_int x = mmnc_rng_uniform(&rng) < 0.7 ? (y / PER) * COMMON + mmnc_rng_below(&rng, COMMON)
                                                       : mmnc_rng_below(&rng, G * COMMON);
            ri[n] = y, ci[n] = x, v[n++] = 1.0; /* duplicates are summed */
        }
    for (mmnc_int o = 0; o < 4; o++) {
        mmnc_int y = G * PER + o;
        ri[n] = y, ci[n] = mmnc_rng_below(&rng, G * COMMON), v[n++] = 1.0;
        for (int w = 0; w < 5; w++, nx++) {
            ri[n] = y, ci[n] = nx, v[n++] = 3.0;
            ri[n] = mmnc_rng_below(&rng, G * PER), ci[n] = nx, v[n++] = 1.0;
        }
    }
    CHECK_OK(mmnc_csr_from_triplets(NY, nx, n, ri, ci, v, &A, NULL));
    CHECK_OK(mmnc_pmf_build(A, &p, NULL));
    mmnc_csr_free(A);
    return p;
}

static void test_guard_loo(void)
{
    for (uint64_t seed = 1; seed <= 3; seed++) {
        mmnc_pmf *p = outliers_pmf(seed);
        mmnc_params prm;
        mmnc_result *r = NULL;
        mmnc_int largest[2];
        for (int loo = 0; loo <= 1; loo++) {
            mmnc_int cnt[5] = {0};
            mmnc_params_default(&prm);
            prm.algorithm = MMNC_ALG_INFORMATION;
            prm.k = 5;
            prm.agreement = 0; /* the guard alone */
            mmnc_i_tuning tune = MMNC_I_TUNING_DEFAULT;
            tune.guard_loo = loo;
            CHECK_OK(mmnc_i_cluster(p, &prm, &tune, &r, NULL));
            largest[loo] = 0;
            for (mmnc_int y = 0; y < p->ny; y++) cnt[r->label[y]]++;
            for (int z = 0; z < 5; z++)
                if (cnt[z] > largest[loo]) largest[loo] = cnt[z];
            if (loo == 0) CHECK(r->size_prior_kept == 1 && r->size_prior_refused == 0);
            else CHECK(r->size_prior_kept == 0 && r->size_prior_refused == MMNC_PRIOR_PREDICTIVE); /* the reason */
            mmnc_result_free(r);
        }
        CHECK(largest[0] >= 195);  /* the norm alone: the collapse */
        CHECK(largest[1] <= 100); /* with the check: no cluster holds half the rows */
        mmnc_pmf_free(p);
    }
}

/* Short rows in equal groups: group g = y / PER, each row TOK tokens, a
 * token from its group's own COMMON columns with probability `own`, else
 * from any column. */
static mmnc_pmf *short_rows_pmf(int groups, int per, int tok, double own, uint64_t seed)
{
    enum { COMMON = 30 };
    mmnc_int ny = (mmnc_int)groups * per, n = 0, *ri = malloc((size_t)(ny * tok) * sizeof *ri),
             *ci = malloc((size_t)(ny * tok) * sizeof *ci);
    double *v = malloc((size_t)(ny * tok) * sizeof *v);
    mmnc_rng rng;
    mmnc_csr *A = NULL;
    mmnc_pmf *p = NULL;
    mmnc_rng_seed(&rng, seed);
    for (mmnc_int y = 0; y < ny; y++)
        for (int t = 0; t < tok; t++) {
            ri[n] = y, v[n] = 1.0; /* duplicates are summed */
            ci[n++] = mmnc_rng_uniform(&rng) < own ? (y / per) * COMMON + mmnc_rng_below(&rng, COMMON)
                                                   : mmnc_rng_below(&rng, (mmnc_int)groups * COMMON);
        }
    CHECK_OK(mmnc_csr_from_triplets(ny, (mmnc_int)groups * COMMON, n, ri, ci, v, &A, NULL));
    CHECK_OK(mmnc_pmf_build(A, &p, NULL));
    mmnc_csr_free(A);
    free(ri), free(ci), free(v);
    return p;
}

/* The mean adjusted Rand index by the pairs of rows themselves. */
static double brute_ari(mmnc_int ny, const int32_t *a, const int32_t *b)
{
    double tp = 0, fp = 0, fn = 0, tn = 0;
    for (mmnc_int i = 0; i < ny; i++)
        for (mmnc_int j = i + 1; j < ny; j++) {
            int sa = a[i] == a[j], sb = b[i] == b[j];
            tp += sa && sb, fp += !sa && sb, fn += sa && !sb, tn += !sa && !sb;
        }
    if (fp == 0 && fn == 0) return 1.0;
    return 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn));
}

static void test_agreement_index(void)
{
    const double share[3] = {0.5, 0.3, 0.2};
    mmnc_int truth[300];
    mmnc_pmf *p = planted_unequal(300, 90, 3, share, 1.0, 0.1, 3, truth);
    int32_t parts[4 * 300];
    mmnc_rng rng;
    double m, want = 0.0;
    mmnc_rng_seed(&rng, 5);
    for (int i = 0; i < 4; i++)
        for (mmnc_int y = 0; y < 300; y++) /* partitions near the truth, each a little different */
            parts[i * 300 + y] = (int32_t)(mmnc_rng_uniform(&rng) < 0.3 * i ? mmnc_rng_below(&rng, 7) : truth[y]);
    CHECK_OK(mmnc_i_agreement(p, 7, 4, parts, &m, NULL));
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++) want += brute_ari(300, parts + i * 300, parts + j * 300) / 6.0;
    CHECK_NEAR(m, want, 1e-12);
    CHECK(m > 0.1 && m < 0.9);
    for (mmnc_int y = 0; y < 300; y++) parts[300 + y] = parts[y] == 2 ? 5 : parts[y]; /* renamed: the same */
    CHECK_OK(mmnc_i_agreement(p, 7, 2, parts, &m, NULL));
    CHECK_NEAR(m, 1.0, 1e-15);
    /* the table in bands: k = 3000 (k^2 > 4M entries), the same index as counted by pairs */
    for (int i = 0; i < 2; i++)
        for (mmnc_int y = 0; y < 300; y++) parts[i * 300 + y] = (int32_t)(truth[y] * 1000 + mmnc_rng_below(&rng, 4) * 333);
    CHECK_OK(mmnc_i_agreement(p, 3000, 2, parts, &m, NULL));
    CHECK_NEAR(m, brute_ari(300, parts, parts + 300), 1e-12);
    mmnc_pmf_free(p);
}

/* The agreement rule: on short rows in equal groups the prior pulls the
 * starts into different merges, and the rule returns the result
 * of size_prior = 0 bit for bit; on planted groups of unequal sizes with
 * long rows it keeps the prior, and the result is that of agreement = 0. */
static void test_agreement_rule(void)
{
    const double share[4] = {0.45, 0.3, 0.15, 0.1};
    int refused = 0;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        mmnc_pmf *p = short_rows_pmf(6, 60, 6, 0.6, seed);
        mmnc_params prm;
        mmnc_result *r = NULL, *r0 = NULL;
        mmnc_params_default(&prm);
        prm.algorithm = MMNC_ALG_INFORMATION;
        prm.k = 6;
        CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
        CHECK(r->agreement_prior == r->agreement_prior && r->agreement_free == r->agreement_free);
        if (r->agreement_prior < r->agreement_free) {
            refused++;
            CHECK(r->size_prior_kept == 0 && r->size_prior_refused == MMNC_PRIOR_AGREEMENT);
            prm.size_prior = 0.0;
            CHECK_OK(mmnc_cluster(p, &prm, &r0, NULL));
            CHECK(memcmp(r->label, r0->label, (size_t)p->ny * sizeof *r->label) == 0);
            CHECK(r->objective == r0->objective && r->best_restart == r0->best_restart);
            CHECK(memcmp(r->restart_objective, r0->restart_objective, 8 * sizeof(double)) == 0);
            CHECK(isnan(r0->agreement_prior)); /* no prior, no rule */
            mmnc_result_free(r0);
        }
        mmnc_result_free(r);
        mmnc_pmf_free(p);
    }
    CHECK(refused == 3);
    for (uint64_t seed = 1; seed <= 2; seed++) {
        mmnc_int truth[600];
        mmnc_pmf *p = planted_unequal(600, 160, 4, share, 1.0, 0.15, 10 + seed, truth);
        mmnc_params prm;
        mmnc_result *r = NULL, *r0 = NULL;
        mmnc_params_default(&prm);
        prm.algorithm = MMNC_ALG_INFORMATION;
        prm.k = 4;
        CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
        CHECK(r->agreement_prior >= r->agreement_free);
        CHECK(r->size_prior_refused != MMNC_PRIOR_AGREEMENT);
        prm.agreement = 0;
        CHECK_OK(mmnc_cluster(p, &prm, &r0, NULL));
        CHECK(memcmp(r->label, r0->label, (size_t)p->ny * sizeof *r->label) == 0 && r->objective == r0->objective);
        CHECK(isnan(r0->agreement_prior));
        mmnc_result_free(r);
        mmnc_result_free(r0);
        mmnc_pmf_free(p);
    }
}

/* The objectives reported after each pass of a phase (the progress function). */
typedef struct seen_objectives {
    int n;
    double v[256];
} seen_objectives;

static int record_objective(void *ctx, int restart, int iter, double objective)
{
    seen_objectives *s = ctx;
    (void)restart, (void)iter;
    if (s->n < 256) s->v[s->n++] = objective;
    return 0;
}

/* Batch moves.  From random labels, a phase on I(X;Z) and then one on J:
 * the batch passes report the exact objective, which must rise strictly
 * from pass to pass (the undone pass is not reported), the sequential sweeps
 * after them must not fall (their objective is a running sum: 1e-9), and
 * each phase ends at least where it began (exact objectives).  Then
 * mmnc_cluster with batch moves: the same bits on 1 and 2 threads. */
static void test_batch(void)
{
    const double share[4] = {0.4, 0.3, 0.2, 0.1};
    mmnc_int truth[600];
    mmnc_pmf *planted = planted_unequal(600, 240, 4, share, 0.3, 0.12, 41, truth), *wild = wild_pmf(500, 300, 43);
    mmnc_pmf *data[2] = {planted, wild};
    for (int d = 0; d < 2; d++)
        for (mmnc_int k = 4; k <= 24; k += 20)
            for (uint64_t seed = 1; seed <= 3; seed++) {
                const mmnc_pmf *p = data[d];
                mmnc_i_tuning tune = MMNC_I_TUNING_DEFAULT;
                mmnc_int *labels = malloc((size_t)p->ny * sizeof *labels);
                double *W = malloc((size_t)(p->ny * k) * sizeof *W);
                mmnc_i_moves *m = NULL;
                mmnc_params prm;
                mmnc_rng rng;
                seen_objectives seen;
                mmnc_params_default(&prm);
                prm.algorithm = MMNC_ALG_INFORMATION;
                prm.k = k;
                prm.moves = MMNC_MOVES_BATCH;
                prm.max_iter = 100;
                prm.progress = record_objective;
                prm.progress_ctx = &seen;
                mmnc_rng_seed(&rng, seed);
                for (mmnc_int y = 0; y < p->ny; y++) labels[y] = y < k ? y : mmnc_rng_below(&rng, k);
                CHECK_OK(mmnc_i_moves_open(p, k, seed, 0, W, 1, &tune, &m, NULL));
                mmnc_i_moves_refresh(m, labels);
                for (int phase = 0; phase < 2; phase++) {
                    double gamma = phase ? MMNC_SIZE_PRIOR_DEFAULT : 0.0, j0, j1;
                    int it = 0, settled = 0, batch = 0;
                    mmnc_i_run run = MMNC_I_RUN_INIT;
                    j0 = mmnc_i_info_objective(p, k, mmnc_i_moves_T(m), mmnc_i_moves_pz(m), mmnc_i_moves_nc(m),
                                               gamma, mmnc_i_moves_nnz(m));
                    seen.n = 0;
                    CHECK_OK(mmnc_i_info_sweeps(m, &prm, 0, 0, phase, gamma, 0.0, labels, &it, &run, &settled,
                                                NULL));
                    mmnc_i_moves_refresh(m, labels);
                    j1 = mmnc_i_info_objective(p, k, mmnc_i_moves_T(m), mmnc_i_moves_pz(m), mmnc_i_moves_nc(m),
                                               gamma, mmnc_i_moves_nnz(m));
                    CHECK(j1 >= j0);
                    if (phase == 0) CHECK(seen.n >= 1 && seen.v[0] > j0); /* from random labels: kept */
                    for (int i = 1; i < seen.n; i++) {
                        if (seen.v[i] > seen.v[i - 1]) batch += i == batch + 1;
                        CHECK(seen.v[i] >= seen.v[i - 1] - 1e-9 * fabs(seen.v[i - 1]));
                    }
                    if (phase == 0) CHECK(batch >= 1); /* more than one pass rose */
                }
                /* a local optimum of single-row moves: one more sweep moves nothing */
                {
                    int status;
                    CHECK(mmnc_i_moves_sweep(m, labels, &status, NULL) == 0 && status == MMNC_OK);
                }
                mmnc_i_moves_close(m);
                free(labels), free(W);
            }
    for (int d = 0; d < 2; d++)
        for (int restarts = 1; restarts <= 3; restarts += 2) {
            mmnc_params prm;
            mmnc_params_default(&prm);
            prm.algorithm = MMNC_ALG_INFORMATION;
            prm.k = 5;
            prm.restarts = restarts;
            prm.moves = MMNC_MOVES_BATCH;
            check_threads(data[d], prm);
        }
    {
        mmnc_params prm;
        mmnc_params_default(&prm);
        prm.algorithm = MMNC_ALG_INFORMATION;
        CHECK(prm.moves == MMNC_MOVES_AUTO && mmnc_params_check(&prm, 10) == NULL);
        prm.moves = MMNC_MOVES_SEQUENTIAL;
        CHECK(mmnc_params_check(&prm, 10) == NULL);
        prm.moves = 3;
        CHECK(mmnc_params_check(&prm, 10) != NULL);
    }
    mmnc_pmf_free(planted), mmnc_pmf_free(wild);
}

int main(void)
{
    test_batch();
    test_agreement_index();
    test_agreement_rule();
    test_flog();
    test_score();
    test_rule();
    test_monotone_and_planted();
    test_threads_and_paper();
    test_column_order();
    test_move_tol();
    test_pruned();
    test_merge_split();
    test_guard_loo();
    return test_done();
}
