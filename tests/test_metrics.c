/*
 * test_metrics.c -- mmnc_evaluate and mmnc_assignment_max.
 *
 * Reference values for ARI and NMI come from scikit-learn 1.2.1
 * (sklearn.metrics.adjusted_rand_score and normalized_mutual_info_score with
 * the default arithmetic normalisation); ACC, purity and the Reuters
 * measures from scipy 1.10.1's linear_sum_assignment on sklearn's
 * contingency_matrix.  The labelings were drawn with numpy's
 * default_rng(20240601).
 */
#include <stdlib.h>
#include <string.h>

#include "core/mmnc_i.h"
#include "testutil.h"

#define TOL 1e-12

static void check_scores(const mmnc_scores *s, double acc, double nmi, double ari, double purity,
                         double coverage, double overall, double kacc)
{
    CHECK_NEAR(s->acc, acc, TOL);
    CHECK_NEAR(s->nmi, nmi, TOL);
    CHECK_NEAR(s->ari, ari, TOL);
    CHECK_NEAR(s->purity, purity, TOL);
    CHECK_NEAR(s->coverage, coverage, TOL);
    CHECK_NEAR(s->overall, overall, TOL);
    CHECK_NEAR(s->kacc, kacc, TOL);
}

static int same_scores(const mmnc_scores *a, const mmnc_scores *b)
{
    return a->n == b->n && a->nclusters == b->nclusters && a->nclasses == b->nclasses &&
           fabs(a->acc - b->acc) < TOL && fabs(a->nmi - b->nmi) < TOL &&
           fabs(a->ari - b->ari) < TOL && fabs(a->purity - b->purity) < TOL &&
           fabs(a->coverage - b->coverage) < TOL && fabs(a->overall - b->overall) < TOL &&
           fabs(a->kacc - b->kacc) < TOL;
}

/* ---- reference values from scikit-learn ------------------------------------ */

static const mmnc_int T0[] = {0, 2, 0, 1, 0, 1, 0, 2, 0, 0, 2, 1, 0, 1, 1,
                             1, 1, 2, 2, 2, 1, 1, 2, 0, 1, 2, 1, 2, 1, 2};
static const mmnc_int P0[] = {0, 3, 2, 0, 3, 0, 2, 2, 2, 0, 0, 2, 1, 1, 3,
                             0, 2, 0, 0, 0, 0, 0, 2, 2, 2, 2, 2, 0, 0, 0};
static const mmnc_int T1[] = {4, 4, 3, 3, 3, 0, 2, 1, 2, 0, 1, 4, 4, 2, 3, 1, 0, 3, 0, 4,
                             0, 4, 1, 1, 3, 1, 1, 2, 3, 2, 2, 1, 3, 4, 2, 0, 3, 3, 1, 1};
static const mmnc_int P1[] = {2, 0, 2, 2, 1, 1, 1, 0, 2, 0, 2, 0, 0, 1, 0, 1, 0, 2, 1, 1,
                             1, 1, 2, 2, 0, 2, 2, 2, 1, 1, 1, 2, 2, 2, 0, 2, 1, 2, 2, 0};
/* Large, sparse label values: two classes, six clusters. */
static const mmnc_int T2[] = {0,       1000003, 1000003, 1000003, 1000003, 0,       0,
                             1000003, 0,       1000003, 1000003, 1000003, 0,       1000003,
                             0,       1000003, 0,       0,       0,       0,       1000003,
                             0,       0,       0,       1000003};
static const mmnc_int P2[] = {
    123456796931, 123456828607, 123456804850, 123456796931, 123456828607, 123456804850,
    123456804850, 123456804850, 123456828607, 123456789012, 123456789012, 123456812769,
    123456812769, 123456796931, 123456820688, 123456804850, 123456812769, 123456804850,
    123456828607, 123456812769, 123456828607, 123456828607, 123456812769, 123456828607,
    123456820688};
/* Predictions equal to the truth for about 60% of the items. */
static const mmnc_int T3[] = {5, 6, 2, 3, 3, 4, 0, 1, 2, 2, 3, 6, 6, 5, 3, 3, 1, 6, 4, 4,
                             2, 1, 1, 6, 5, 5, 1, 3, 6, 5, 0, 2, 2, 0, 6, 6, 4, 4, 6, 5,
                             6, 6, 0, 0, 6, 4, 2, 3, 3, 0, 3, 2, 0, 2, 3, 0, 6, 3, 2, 1};
static const mmnc_int P3[] = {4, 6, 2, 3, 3, 4, 0, 1, 2, 2, 2, 3, 6, 5, 3, 2, 2, 6, 4, 4,
                             4, 1, 0, 6, 5, 5, 3, 3, 6, 4, 0, 2, 2, 2, 6, 5, 4, 4, 6, 5,
                             6, 6, 6, 5, 6, 5, 2, 3, 3, 0, 3, 2, 0, 2, 3, 0, 1, 3, 4, 3};

static const struct ref_case {
    mmnc_int n;
    const mmnc_int *truth, *pred;
    double ari, nmi, acc, purity, coverage, overall, kacc;
} REF[] = {
    {30, T0, P0, -0.01999642920906981, 0.054770727338250211, 0.36666666666666664,
     0.40000000000000002, 1, 0.36666666666666664, 0.36666666666666664},
    {40, T1, P1, 0.020678989248921149, 0.082499778008871094, 0.34999999999999998,
     0.34999999999999998, 0.67500000000000004, 0.32500000000000001, 0.48148148148148145},
    {25, T2, P2, -0.020268419611065461, 0.086741578783219572, 0.28000000000000003,
     0.64000000000000001, 1, 0.28000000000000003, 0.28000000000000003},
    {60, T3, P3, 0.46887645108862236, 0.6062552041787872, 0.71666666666666667,
     0.71666666666666667, 1, 0.71666666666666667, 0.71666666666666667},
};

static void test_sklearn_reference(void)
{
    for (size_t c = 0; c < sizeof REF / sizeof REF[0]; c++) {
        const struct ref_case *r = &REF[c];
        mmnc_scores s, s2;
        CHECK_OK(mmnc_evaluate(r->n, r->pred, r->truth, &s, NULL));
        CHECK(s.n == r->n);
        check_scores(&s, r->acc, r->nmi, r->ari, r->purity, r->coverage, r->overall, r->kacc);
        /* NMI, ARI and ACC are symmetric in the two labelings. */
        CHECK_OK(mmnc_evaluate(r->n, r->truth, r->pred, &s2, NULL));
        CHECK_NEAR(s2.nmi, s.nmi, TOL);
        CHECK_NEAR(s2.ari, s.ari, TOL);
        CHECK_NEAR(s2.acc, s.acc, TOL);
        CHECK(s2.nclusters == s.nclasses && s2.nclasses == s.nclusters);
    }
}

/* ---- hand-checked cases ----------------------------------------------------- */

static void test_perfect(void)
{
    mmnc_int t[] = {0, 0, 1, 1, 2, 2, 2};
    mmnc_int p[] = {5, 5, 3, 3, 9, 9, 9}; /* same partition, other names */
    mmnc_scores s;
    CHECK_OK(mmnc_evaluate(7, p, t, &s, NULL));
    CHECK(s.n == 7 && s.nclusters == 3 && s.nclasses == 3);
    check_scores(&s, 1, 1, 1, 1, 1, 1, 1);
}

/* Contingency [[2,1,0],[0,2,1],[1,0,2]]: ACC = purity = 6/9;
 * ARI = (3 - 81/36) / (9 - 81/36) = 1/9; NMI = (2/3) log 2 / log 3.
 * sklearn 1.2.1 agrees: 0.1111111111111111, 0.4206198357143052. */
static void test_hand_3x3(void)
{
    mmnc_int t[] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
    mmnc_int p[] = {0, 0, 1, 1, 1, 2, 2, 2, 0};
    mmnc_scores s;
    CHECK_OK(mmnc_evaluate(9, p, t, &s, NULL));
    check_scores(&s, 6.0 / 9, (2.0 / 3) * log(2.0) / log(3.0), 1.0 / 9, 6.0 / 9, 1, 6.0 / 9,
                 6.0 / 9);
    CHECK_NEAR(s.nmi, 0.4206198357143052, TOL);
}

static void test_one_cluster(void)
{
    mmnc_int t[] = {0, 0, 1, 1}, one[] = {7, 7, 7, 7}, single[] = {0, 1, 2, 3};
    mmnc_scores s;
    /* One cluster against two classes: sklearn gives ARI = NMI = 0. */
    CHECK_OK(mmnc_evaluate(4, one, t, &s, NULL));
    CHECK(s.nclusters == 1 && s.nclasses == 2);
    /* K = 1: the largest class (ties: the smaller label, class 0) covers 2 of 4 */
    check_scores(&s, 0.5, 0, 0, 0.5, 0.5, 0.5, 1.0);
    /* Both a single cluster: sklearn's convention is NMI = ARI = 1. */
    CHECK_OK(mmnc_evaluate(4, one, one, &s, NULL));
    check_scores(&s, 1, 1, 1, 1, 1, 1, 1);
    /* One item. */
    CHECK_OK(mmnc_evaluate(1, one, t, &s, NULL));
    check_scores(&s, 1, 1, 1, 1, 1, 1, 1);
    /* One cluster against singletons: ARI = NMI = 0 (sklearn). */
    CHECK_OK(mmnc_evaluate(4, one, single, &s, NULL));
    check_scores(&s, 0.25, 0, 0, 0.25, 0.25, 0.25, 1.0);
    CHECK_OK(mmnc_evaluate(4, single, one, &s, NULL));
    check_scores(&s, 0.25, 0, 0, 1, 1, 0.25, 0.25);
}

static void test_singletons(void)
{
    /* All singletons on both sides: a perfect match, and large: the matching
     * must split into n 1 x 1 problems instead of an n x n table. */
    mmnc_int n = 200000;
    mmnc_int *p = malloc((size_t)n * sizeof *p), *t = malloc((size_t)n * sizeof *t);
    mmnc_scores s;
    CHECK(p && t);
    if (!p || !t) {
        free(p);
        free(t);
        return;
    }
    for (mmnc_int i = 0; i < n; i++) {
        p[i] = (i * 7919) % n; /* a permutation: 7919 is prime, coprime to n */
        t[i] = INT64_MAX - i;
    }
    CHECK_OK(mmnc_evaluate(n, p, t, &s, NULL));
    CHECK(s.nclusters == n && s.nclasses == n);
    check_scores(&s, 1, 1, 1, 1, 1, 1, 1);
    /* Pairs of classes split into singleton clusters. */
    for (mmnc_int i = 0; i < n; i++) t[i] = i / 2;
    CHECK_OK(mmnc_evaluate(n, p, t, &s, NULL));
    CHECK(s.nclasses == n / 2);
    CHECK_NEAR(s.acc, 0.5, TOL);
    CHECK_NEAR(s.purity, 1.0, TOL);
    CHECK_NEAR(s.ari, 0.0, TOL); /* tp = fp = 0, so the numerator tp tn - fn fp is 0 */
    free(p);
    free(t);
}

/* Reuters measures: classes by size A=5 (label 1), B=3 (label 3), C=2
 * (label 7), D=2 (label 9), D listed first so that first-appearance order
 * differs from label order.  Three clusters: A and C in cluster 10, B in 20,
 * D in 30.  The three largest classes are A, B and C (C wins the tie with D
 * by its smaller label); matching: A->10, B->20, C->30 gives 5+3+0 = 8. */
static void test_reuters(void)
{
    mmnc_int t[] = {9, 9, 7, 7, 1, 1, 1, 1, 1, 3, 3, 3};
    mmnc_int p[] = {30, 30, 10, 10, 10, 10, 10, 10, 10, 20, 20, 20};
    mmnc_scores s;
    CHECK_OK(mmnc_evaluate(12, p, t, &s, NULL));
    CHECK(s.nclusters == 3 && s.nclasses == 4);
    CHECK_NEAR(s.coverage, 10.0 / 12, TOL);
    CHECK_NEAR(s.overall, 8.0 / 12, TOL);
    CHECK_NEAR(s.kacc, 8.0 / 10, TOL);
    CHECK_NEAR(s.acc, 10.0 / 12, TOL); /* on all classes D->30 counts */
    CHECK_NEAR(s.purity, 10.0 / 12, TOL);

    /* Two clusters: the top classes are A and B; [[4,1],[0,3]] -> 7. */
    {
        mmnc_int t2[] = {1, 1, 1, 1, 1, 3, 3, 3, 7, 7, 9, 9};
        mmnc_int p2[] = {0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1};
        CHECK_OK(mmnc_evaluate(12, p2, t2, &s, NULL));
        check_scores(&s, 7.0 / 12, s.nmi, s.ari, 7.0 / 12, 8.0 / 12, 7.0 / 12, 7.0 / 8);
    }
}

/* Renaming labels (any injective map) changes nothing. */
static void test_permutation_invariance(void)
{
    mmnc_rng rng;
    mmnc_int n = 500, p[500], t[500], p2[500], t2[500];
    mmnc_int cmap[12], kmap[9];
    mmnc_scores a, b;
    mmnc_rng_seed(&rng, 42);
    for (int rep = 0; rep < 20; rep++) {
        for (int c = 0; c < 12; c++) cmap[c] = (mmnc_int)(mmnc_rng_next(&rng) >> 2);
        for (int k = 0; k < 9; k++) kmap[k] = 1000 * (8 - k) + rep; /* reverses the order */
        for (mmnc_int i = 0; i < n; i++) {
            t[i] = mmnc_rng_below(&rng, 12);
            p[i] = mmnc_rng_below(&rng, 4) == 0 ? mmnc_rng_below(&rng, 9) : t[i] % 9;
            t2[i] = cmap[t[i]];
            p2[i] = kmap[p[i]];
        }
        CHECK_OK(mmnc_evaluate(n, p, t, &a, NULL));
        CHECK_OK(mmnc_evaluate(n, p2, t2, &b, NULL));
        /* The Reuters tie-break depends on label order (kmap reverses it),
         * so only the order-free measures must agree. */
        CHECK(a.n == b.n && a.nclusters == b.nclusters && a.nclasses == b.nclasses);
        CHECK_NEAR(a.acc, b.acc, TOL);
        CHECK_NEAR(a.nmi, b.nmi, TOL);
        CHECK_NEAR(a.ari, b.ari, TOL);
        CHECK_NEAR(a.purity, b.purity, TOL);
        CHECK(a.acc >= 0 && a.acc <= 1 && a.nmi >= 0 && a.nmi <= 1 && a.ari <= 1);
        CHECK(a.overall <= a.coverage + TOL && a.kacc <= 1 + TOL && a.acc <= a.purity + TOL);
    }
    /* Items in a different order: identical scores (including Reuters). */
    for (mmnc_int i = 0; i < n; i++) {
        p2[i] = p[n - 1 - i];
        t2[i] = t[n - 1 - i];
    }
    CHECK_OK(mmnc_evaluate(n, p, t, &a, NULL));
    CHECK_OK(mmnc_evaluate(n, p2, t2, &b, NULL));
    CHECK(same_scores(&a, &b));
}

static void test_errors(void)
{
    mmnc_int t[] = {0, 1, 2}, bad[] = {0, -1, 2};
    mmnc_scores s;
    mmnc_err e = {0, ""};
    s.acc = 0.5;
    CHECK(mmnc_evaluate(0, t, t, &s, &e) == MMNC_EINVAL);
    CHECK(e.code == MMNC_EINVAL && strstr(e.msg, "n = 0") != NULL);
    CHECK(s.n == 0 && s.acc == 0.0); /* zeroed on failure */
    CHECK(mmnc_evaluate(-3, t, t, &s, &e) == MMNC_EINVAL);
    CHECK(mmnc_evaluate(3, bad, t, &s, &e) == MMNC_EINVAL);
    CHECK(strstr(e.msg, "pred[1] = -1") != NULL);
    CHECK(mmnc_evaluate(3, t, bad, &s, &e) == MMNC_EINVAL);
    CHECK(strstr(e.msg, "truth[1] = -1") != NULL);
    CHECK(mmnc_evaluate(3, NULL, t, &s, &e) == MMNC_EINVAL);
    CHECK(mmnc_evaluate(3, t, NULL, &s, &e) == MMNC_EINVAL);
    CHECK(mmnc_evaluate(3, t, t, NULL, NULL) == MMNC_EINVAL);

    {
        double w[4] = {1, 2, 3, NAN};
        mmnc_int as[2];
        CHECK(mmnc_assignment_max(2, 2, w, as, &e) == MMNC_EINVAL);
        CHECK(strstr(e.msg, "w[1][1]") != NULL);
        w[3] = INFINITY;
        CHECK(mmnc_assignment_max(2, 2, w, as, &e) == MMNC_EINVAL);
        w[3] = 1e308;
        w[0] = -1e308;
        CHECK(mmnc_assignment_max(2, 2, w, as, &e) == MMNC_EINVAL); /* range overflows */
        w[0] = 1;
        CHECK(mmnc_assignment_max(-1, 2, w, as, &e) == MMNC_EINVAL);
        CHECK(mmnc_assignment_max(2, -1, w, as, &e) == MMNC_EINVAL);
        CHECK(mmnc_assignment_max(2, 2, NULL, as, &e) == MMNC_EINVAL);
        CHECK(mmnc_assignment_max(2, 2, w, NULL, &e) == MMNC_EINVAL);
        CHECK(mmnc_assignment_max(INT64_MAX / 2, 4, w, as, &e) == MMNC_EINVAL);
        /* Empty sides are fine: every row is left out. */
        as[0] = as[1] = 7;
        CHECK_OK(mmnc_assignment_max(2, 0, NULL, as, NULL));
        CHECK(as[0] == -1 && as[1] == -1);
        CHECK_OK(mmnc_assignment_max(0, 3, NULL, NULL, NULL));
    }
}

/* ---- Hungarian against brute force ------------------------------------------- */

/* Best total over injective maps of the smaller side into the larger. */
static double brute_best(int nr, int nc, const double *w, int i, unsigned used, double acc)
{
    double best = -HUGE_VAL;
    if (nr <= nc) {
        if (i == nr) return acc;
        for (int j = 0; j < nc; j++) {
            if (used & (1u << j)) continue;
            double v = brute_best(nr, nc, w, i + 1, used | (1u << j), acc + w[i * nc + j]);
            if (v > best) best = v;
        }
    } else { /* i runs over columns */
        if (i == nc) return acc;
        for (int r = 0; r < nr; r++) {
            if (used & (1u << r)) continue;
            double v = brute_best(nr, nc, w, i + 1, used | (1u << r), acc + w[r * nc + i]);
            if (v > best) best = v;
        }
    }
    return best;
}

static void test_hungarian_brute(void)
{
    mmnc_rng rng;
    double w[36];
    mmnc_int as[6];
    int bad = 0, trials = 0;
    mmnc_rng_seed(&rng, 7);
    for (int nr = 1; nr <= 6; nr++) {
        for (int nc = 1; nc <= 6; nc++) {
            for (int rep = 0; rep < 40; rep++) {
                int kind = rep % 4;
                for (int t = 0; t < nr * nc; t++) {
                    if (kind == 0) w[t] = mmnc_rng_uniform(&rng);
                    else if (kind == 1) w[t] = (double)mmnc_rng_below(&rng, 3); /* ties */
                    else if (kind == 2) w[t] = 100.0 * mmnc_rng_normal(&rng); /* negative */
                    else w[t] = mmnc_rng_below(&rng, 3) ? 0.0 : (double)mmnc_rng_below(&rng, 50);
                }
                int ok = mmnc_assignment_max(nr, nc, w, as, NULL) == MMNC_OK;
                unsigned seen = 0;
                int assigned = 0;
                double total = 0.0;
                for (int i = 0; ok && i < nr; i++) {
                    if (as[i] == -1) continue;
                    if (as[i] < 0 || as[i] >= nc || (seen & (1u << as[i]))) ok = 0;
                    else {
                        seen |= 1u << as[i];
                        assigned++;
                        total += w[i * nc + as[i]];
                    }
                }
                ok = ok && assigned == (nr < nc ? nr : nc);
                ok = ok && fabs(total - brute_best(nr, nc, w, 0, 0, 0.0)) <= 1e-9 * (1 + fabs(total));
                if (!ok) {
                    bad++;
                    fprintf(stderr, "hungarian mismatch: %d x %d, kind %d\n", nr, nc, kind);
                }
                trials++;
            }
        }
    }
    CHECK(bad == 0);
    CHECK(trials == 6 * 6 * 40);

    /* 3 x 3 by hand: the six permutations give 13, 11, 12, 15, 19 and
     * 11 + 4 + 9 = 24 (rows to columns 2, 1, 0). */
    {
        double m[9] = {7, 5, 11, 5, 4, 1, 9, 3, 2};
        CHECK_OK(mmnc_assignment_max(3, 3, m, as, NULL));
        CHECK(as[0] == 2 && as[1] == 1 && as[2] == 0);
    }
    /* Rectangular tall: rows left out get -1. */
    {
        double m[6] = {1, 0, 5, 0, 0, 2}; /* 3 x 2 */
        CHECK_OK(mmnc_assignment_max(3, 2, m, as, NULL));
        CHECK(as[0] == -1 && as[1] == 0 && as[2] == 1);
    }
}

/* A larger random case: the sparse-component ACC equals a dense Hungarian on
 * the full contingency table. */
static void test_acc_dense_agrees(void)
{
    mmnc_rng rng;
    enum { N = 3000, C = 40, K = 25 };
    static mmnc_int p[N], t[N];
    static double w[C * K];
    mmnc_int as[C];
    mmnc_scores s;
    double total = 0.0;
    mmnc_rng_seed(&rng, 99);
    for (int i = 0; i < N; i++) {
        t[i] = mmnc_rng_below(&rng, C);
        p[i] = mmnc_rng_below(&rng, 2) ? t[i] % K : mmnc_rng_below(&rng, K);
        w[t[i] * K + p[i]] += 1.0;
    }
    CHECK_OK(mmnc_assignment_max(C, K, w, as, NULL));
    for (int c = 0; c < C; c++)
        if (as[c] >= 0) total += w[c * K + as[c]];
    CHECK_OK(mmnc_evaluate(N, p, t, &s, NULL));
    CHECK(s.nclasses == C && s.nclusters == K);
    CHECK_NEAR(s.acc, total / N, TOL);
    CHECK(s.coverage < 1.0 && s.kacc >= s.overall);
}

#ifdef MMNC_FAULT_INJECTION
/* Every allocation failure returns MMNC_ENOMEM and leaks nothing (ASan). */
static void test_fault_injection(void)
{
    mmnc_int t[] = {9, 9, 7, 7, 1, 1, 1, 1, 1, 3, 3, 3};
    mmnc_int p[] = {30, 30, 10, 10, 10, 10, 10, 10, 10, 20, 20, 20};
    double w[6] = {1, 2, 3, 4, 5, 9};
    mmnc_int as[3];
    mmnc_scores s;
    mmnc_err e;
    int failures = 0, st;
    for (long k = 1; k < 10000; k++) {
        mmnc_i_fail_after(k);
        st = mmnc_evaluate(12, p, t, &s, &e);
        mmnc_i_fail_after(0);
        if (st == MMNC_OK) break;
        CHECK(st == MMNC_ENOMEM && e.code == MMNC_ENOMEM);
        failures++;
    }
    CHECK(failures > 10);
    CHECK_NEAR(s.overall, 8.0 / 12, TOL);
    failures = 0;
    for (long k = 1; k < 100; k++) {
        mmnc_i_fail_after(k);
        st = mmnc_assignment_max(2, 3, w, as, &e);
        mmnc_i_fail_after(0);
        if (st == MMNC_OK) break;
        CHECK(st == MMNC_ENOMEM);
        failures++;
    }
    CHECK(failures > 0);
    CHECK(as[0] == 1 && as[1] == 2); /* 2 + 9 = 11 beats 1 + 9, 3 + 5, ... */
}
#endif

int main(void)
{
    test_sklearn_reference();
    test_perfect();
    test_hand_3x3();
    test_one_cluster();
    test_singletons();
    test_reuters();
    test_permutation_invariance();
    test_errors();
    test_hungarian_brute();
    test_acc_dense_agrees();
#ifdef MMNC_FAULT_INJECTION
    test_fault_injection();
#endif
    return test_done();
}
