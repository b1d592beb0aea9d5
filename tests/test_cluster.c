/*
 * test_cluster.c -- couplings and both algorithms:
 *   - B_{Z,X} = B_{Z,Y} B_{Y,X} (paper, Prop. 1) and the reported statistics
 *     against a dense computation; merging clusters never raises the norms;
 *   - the paper's two-community example (section 3.2, m = n = 50): the
 *     intuitive clustering has the larger Frobenius norm for s > 1;
 *   - a planted partition is recovered by Algorithm 1 and Algorithm 2;
 *   - Algorithm 2's objective never decreases (free and prescribed P_Z);
 *   - a prescribed P_Z is met exactly with at most k-1 fractional columns;
 *   - same seed, same result for 1 and 2 threads; k = 1; k = |Y|; bad params;
 *   - a progress or event function that says stop ends the run; the events
 *     of the starts and phases.
 */
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cluster/solver_i.h"
#include "core/mmnc_i.h"
#include "testutil.h"

static mmnc_pmf *from_dense(mmnc_int nr, mmnc_int nc, const double *D)
{
    mmnc_int n = 0, *ri = malloc(nr * nc * sizeof(mmnc_int)), *ci = malloc(nr * nc * sizeof(mmnc_int));
    double *v = malloc(nr * nc * sizeof(double));
    mmnc_csr *A = NULL;
    mmnc_pmf *p = NULL;
    for (mmnc_int i = 0; i < nr; i++)
        for (mmnc_int j = 0; j < nc; j++)
            if (D[i * nc + j] != 0) ri[n] = i, ci[n] = j, v[n++] = D[i * nc + j];
    mmnc_csr_from_triplets(nr, nc, n, ri, ci, v, &A, NULL);
    mmnc_pmf_build(A, &p, NULL);
    mmnc_csr_free(A);
    free(ri), free(ci), free(v);
    return p;
}

/* Planted partition (test_planted_csr) as a pmf. */
static mmnc_pmf *planted(mmnc_int ny, mmnc_int nx, mmnc_int k, double in, double out, uint64_t seed, mmnc_int *truth)
{
    mmnc_csr *A = test_planted_csr(ny, nx, k, in, out, seed, truth);
    mmnc_pmf *p = NULL;
    mmnc_pmf_build(A, &p, NULL);
    mmnc_csr_free(A);
    return p;
}

static void test_composition(void)
{
    mmnc_int truth[30], k = 3;
    mmnc_pmf *p = planted(30, 20, k, 2.0, 0.5, 4, truth);
    mmnc_rng rng;
    double *W = malloc(k * p->ny * sizeof(double));
    mmnc_rng_seed(&rng, 9);
    for (mmnc_int y = 0; y < p->ny; y++) {
        double s = 0;
        for (mmnc_int z = 0; z < k; z++) s += (W[y * k + z] = mmnc_rng_uniform(&rng) + 0.01);
        for (mmnc_int z = 0; z < k; z++) W[y * k + z] /= s;
    }
    /* dense B_{Z,Y} B_{Y,X} */
    double pz[3] = {0, 0, 0};
    for (mmnc_int y = 0; y < p->ny; y++)
        for (mmnc_int z = 0; z < k; z++) pz[z] += W[y * k + z] * p->py[y];
    double *BZX = calloc(k * p->nx, sizeof(double));
    for (mmnc_int y = 0; y < p->ny; y++)
        for (mmnc_int e = p->P->rowptr[y]; e < p->P->rowptr[y + 1]; e++) {
            mmnc_int x = p->P->colind[e];
            double byx = p->P->val[e] / sqrt(p->py[y] * p->px[x]);
            for (mmnc_int z = 0; z < k; z++) BZX[z * p->nx + x] += W[y * k + z] * sqrt(p->py[y] / pz[z]) * byx;
        }
    double s[3], sup[3], *Bc = malloc(k * p->nx * sizeof(double));
    memcpy(Bc, BZX, k * p->nx * sizeof(double));
    LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'N', k, p->nx, Bc, p->nx, s, NULL, 1, NULL, 1, sup);
    /* exact MI */
    double mi = 0;
    for (mmnc_int z = 0; z < k; z++)
        for (mmnc_int x = 0; x < p->nx; x++) {
            double pzx = BZX[z * p->nx + x] * sqrt(pz[z] * p->px[x]);
            if (pzx > 0) mi += pzx * log(pzx / (pz[z] * p->px[x]));
        }
    mmnc_stats st;
    CHECK_OK(mmnc_stats_init(&st, k, NULL));
    CHECK_OK(mmnc_coupling_stats(p, k, NULL, W, &st, NULL));
    for (mmnc_int z = 0; z < k; z++) CHECK_NEAR(st.sigma[z], s[z], 1e-10);
    for (mmnc_int z = 0; z < k; z++) CHECK_NEAR(st.pz[z], pz[z], 1e-12);
    CHECK_NEAR(st.sigma[0], 1.0, 1e-10);
    CHECK_NEAR(st.nuclear, s[0] + s[1] + s[2], 1e-10);
    CHECK_NEAR(st.frob * st.frob, s[0] * s[0] + s[1] * s[1] + s[2] * s[2], 1e-10);
    CHECK_NEAR(st.mi_local, 0.5 * (st.frob * st.frob - 1), 1e-12);
    CHECK_NEAR(st.mi, mi, 1e-12);
    /* merging clusters 1 and 2 is a contraction: norms do not grow */
    double *W2 = malloc(2 * p->ny * sizeof(double));
    for (mmnc_int y = 0; y < p->ny; y++) W2[y * 2] = W[y * k], W2[y * 2 + 1] = W[y * k + 1] + W[y * k + 2];
    mmnc_stats st2;
    CHECK_OK(mmnc_stats_init(&st2, 2, NULL));
    CHECK_OK(mmnc_coupling_stats(p, 2, NULL, W2, &st2, NULL));
    CHECK(st2.nuclear <= st.nuclear + 1e-12);
    CHECK(st2.frob <= st.frob + 1e-12);
    CHECK(st2.mi <= st.mi + 1e-12);
    /* bad kernels are refused */
    W[0] = 2.0;
    CHECK(mmnc_coupling_stats(p, k, NULL, W, &st, NULL) == MMNC_EINVAL);
    mmnc_stats_free(&st), mmnc_stats_free(&st2);
    free(W), free(W2), free(BZX), free(Bc);
    mmnc_pmf_free(p);
}

/* The paper's example: P = [s1 1; 1 s1] with m = n = 50 blocks. */
static void test_two_communities(void)
{
    const mmnc_int m = 50, n = 50;
    const double svals[] = {1.05, 1.25, 1.5, 2, 3, 4, 5, 7.5, 10, 15, 20};
    double *D = malloc(2 * m * 2 * n * sizeof(double));
    mmnc_int lab1[100], lab2[100];
    for (mmnc_int y = 0; y < 2 * m; y++) lab1[y] = y < m ? 0 : 1, lab2[y] = y == 2 * m - 1 ? 1 : 0;
    for (size_t t = 0; t < sizeof svals / sizeof svals[0]; t++) {
        double s = svals[t];
        for (mmnc_int y = 0; y < 2 * m; y++)
            for (mmnc_int x = 0; x < 2 * n; x++) D[y * 2 * n + x] = ((y < m) == (x < n)) ? s : 1.0;
        mmnc_pmf *p = from_dense(2 * m, 2 * n, D);
        mmnc_stats a, b;
        mmnc_stats_init(&a, 2, NULL);
        mmnc_stats_init(&b, 2, NULL);
        CHECK_OK(mmnc_coupling_stats(p, 2, lab1, NULL, &a, NULL));
        CHECK_OK(mmnc_coupling_stats(p, 2, lab2, NULL, &b, NULL));
        /* closed form for the intuitive clustering: sigma_2 = (s - 1) / (s + 1) */
        CHECK_NEAR(a.sigma[1], (s - 1) / (s + 1), 1e-12);
        CHECK(a.frob > b.frob);
        if (s == 3) {
            /* both algorithms find the intuitive clustering */
            for (int alg = 1; alg <= 2; alg++) {
                mmnc_params prm;
                mmnc_result *r = NULL;
                mmnc_params_default(&prm);
                prm.algorithm = alg;
                prm.k = 2;
                prm.restarts = 3;
                CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
                mmnc_scores sc;
                CHECK_OK(mmnc_evaluate(2 * m, r->label, lab1, &sc, NULL));
                CHECK_NEAR(sc.acc, 1.0, 1e-12);
                CHECK(r->stats.frob >= a.frob - 1e-6);
                mmnc_result_free(r);
            }
        }
        mmnc_stats_free(&a), mmnc_stats_free(&b);
        mmnc_pmf_free(p);
    }
    free(D);
}

typedef test_trace trace;
#define record test_trace_record

static int monotone(const trace *t, int skip_first)
{
    for (int i = 1; i < t->n; i++) {
        if (t->restart[i] != t->restart[i - 1]) continue;
        if (skip_first && (i == 1 || t->restart[i - 2] != t->restart[i])) continue;
        if (t->obj[i] < t->obj[i - 1] - 1e-12) return 0;
    }
    return 1;
}

static void test_planted_and_monotone(void)
{
    const mmnc_int ny = 400, nx = 200, k = 4;
    mmnc_int truth[400];
    mmnc_pmf *p = planted(ny, nx, k, 0.6, 0.15, 21, truth);
    for (int alg = 1; alg <= 2; alg++) {
        mmnc_params prm;
        mmnc_result *r = NULL;
        mmnc_scores sc;
        mmnc_params_default(&prm);
        prm.algorithm = alg;
        prm.k = k;
        CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
        CHECK_OK(mmnc_evaluate(ny, r->label, truth, &sc, NULL));
        CHECK(sc.acc >= 0.99);
        /* W is column-stochastic */
        double worst = 0;
        for (mmnc_int y = 0; y < ny; y++) {
            double s = 0;
            for (mmnc_int z = 0; z < k; z++) {
                s += r->W[y * k + z];
                if (r->W[y * k + z] < 0) worst = 1;
            }
            worst = fmax(worst, fabs(s - 1));
        }
        CHECK_NEAR(worst, 0, 1e-9);
        mmnc_result_free(r);
    }
    /* Algorithm 2 from random starts on a noisier problem: never decreasing */
    mmnc_pmf *q = planted(300, 150, 5, 0.3, 0.2, 5, truth);
    trace *t = calloc(1, sizeof(trace));
    mmnc_params prm;
    mmnc_result *r = NULL;
    mmnc_params_paper(&prm); /* the best objective kept: no start above it */
    prm.k = 5;
    prm.restarts = 6;
    prm.progress = record;
    prm.progress_ctx = t;
    CHECK_OK(mmnc_cluster(q, &prm, &r, NULL));
    CHECK(t->n > 12);
    CHECK(monotone(t, 0));
    for (int i = 0; i < r->restarts; i++) CHECK(r->restart_objective[i] <= r->objective);
    mmnc_result_free(r);
#ifdef MMNC_HAVE_GLPK
    /* prescribed P_Z: met exactly, at most k-1 fractional columns, monotone after the first step */
    double pz[5] = {0.3, 0.25, 0.2, 0.15, 0.1};
    memset(t, 0, sizeof *t);
    prm.pz = pz;
    prm.restarts = 2;
    CHECK_OK(mmnc_cluster(q, &prm, &r, NULL));
    for (int z = 0; z < 5; z++) CHECK_NEAR(r->stats.pz[z], pz[z], 1e-9);
    int frac = 0;
    for (mmnc_int y = 0; y < q->ny; y++) {
        double mx = 0;
        for (int z = 0; z < 5; z++) mx = fmax(mx, r->W[y * 5 + z]);
        if (mx < 1 - 1e-9) frac++;
    }
    CHECK(frac <= 4);
    CHECK(monotone(t, 1));
    mmnc_result_free(r);
#endif
    free(t);
    mmnc_pmf_free(q);
    mmnc_pmf_free(p);
}

static void test_determinism_and_edges(void)
{
    mmnc_int truth[200];
    mmnc_pmf *p = planted(200, 120, 3, 0.4, 0.2, 8, truth);
    for (int alg = 1; alg <= 2; alg++) {
        mmnc_params prm;
        mmnc_result *r1 = NULL, *r2 = NULL;
        mmnc_params_default(&prm);
        prm.algorithm = alg;
        prm.k = 3;
        prm.seed = 42;
        prm.threads = 1;
        CHECK_OK(mmnc_cluster(p, &prm, &r1, NULL));
        prm.threads = 2;
#ifdef _OPENMP
        { /* the host program's OpenMP settings survive the call */
            int threads = omp_get_max_threads(), levels = omp_get_max_active_levels();
            omp_set_max_active_levels(3);
            CHECK_OK(mmnc_cluster(p, &prm, &r2, NULL));
            CHECK(omp_get_max_active_levels() == 3);
            CHECK(omp_get_max_threads() == threads);
            omp_set_max_active_levels(levels);
        }
#else
        CHECK_OK(mmnc_cluster(p, &prm, &r2, NULL));
#endif
        CHECK(memcmp(r1->W, r2->W, 3 * p->ny * sizeof(double)) == 0);
        CHECK(r1->objective == r2->objective);
        mmnc_result_free(r1), mmnc_result_free(r2);
    }
    /* k = 1 */
    mmnc_params prm;
    mmnc_result *r = NULL;
    mmnc_err err = {0, ""};
    mmnc_params_default(&prm);
    prm.k = 1;
    CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
    CHECK_NEAR(r->stats.nuclear, 1.0, 1e-12);
    CHECK_NEAR(r->stats.mi, 0.0, 1e-12);
    mmnc_result_free(r), r = NULL;
    /* k = |Y| on a small problem: every cluster non-empty */
    mmnc_int t6[6];
    mmnc_pmf *s = planted(6, 5, 2, 2.0, 0.5, 3, t6);
    prm.k = 6;
    prm.restarts = 2;
    CHECK_OK(mmnc_cluster(s, &prm, &r, NULL));
    CHECK(r->stats.empty == 0);
    mmnc_result_free(r), r = NULL;
    /* bad parameters */
    prm.k = 7;
    CHECK(mmnc_cluster(s, &prm, &r, &err) == MMNC_EINVAL && r == NULL);
    CHECK(strstr(err.msg, "number of rows") != NULL);
    prm.k = 0;
    CHECK(mmnc_cluster(s, &prm, &r, &err) == MMNC_EINVAL);
    prm.k = 2;
    double badpz[2] = {0.5, 0.0};
    prm.pz = badpz;
    CHECK(mmnc_cluster(s, &prm, &r, &err) == MMNC_EINVAL);
    CHECK(mmnc_params_check(&prm, 6) != NULL);
    prm.pz = NULL;
    CHECK(mmnc_params_check(&prm, 6) == NULL);
    mmnc_pmf_free(s);
    mmnc_pmf_free(p);
}

static void test_frobenius_marginal(void)
{
    mmnc_int truth[300];
    mmnc_pmf *p = planted(300, 150, 3, 0.5, 0.2, 13, truth);
    double pz[3] = {0.5, 0.3, 0.2};
    mmnc_params prm;
    mmnc_result *r = NULL;
    mmnc_params_default(&prm);
    prm.algorithm = MMNC_ALG_FROBENIUS;
    prm.k = 3;
    prm.pz = pz;
    CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
    /* the penalty holds the marginal near the target */
    double srt[3] = {r->stats.pz[0], r->stats.pz[1], r->stats.pz[2]};
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (srt[j] > srt[i]) { double t = srt[i]; srt[i] = srt[j]; srt[j] = t; }
    for (int z = 0; z < 3; z++) CHECK_NEAR(srt[z], pz[z], 0.1);
    CHECK(r->lambda == 10.0 && r->step == 0.1);
    mmnc_result_free(r), r = NULL;
#ifdef MMNC_HAVE_GLPK
    /* exact marginal: P_Z met to round-off, F never decreasing after the first LP step */
    trace *t = calloc(1, sizeof(trace));
    prm.exact_marginal = 1;
    prm.restarts = 2;
    prm.progress = record;
    prm.progress_ctx = t;
    CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
    for (int z = 0; z < 3; z++) CHECK_NEAR(r->stats.pz[z], pz[z], 1e-9);
    CHECK_NEAR(r->objective, r->stats.frob * r->stats.frob, 1e-9);
    CHECK(monotone(t, 1));
    CHECK(t->n >= 4);
    mmnc_result_free(r);
    free(t);
#endif
    mmnc_pmf_free(p);
}

static void test_alloc_failures(void)
{
    mmnc_int truth[60];
    mmnc_pmf *p = planted(60, 30, 3, 1.0, 0.2, 2, truth);
    int fails = 0;
    for (int alg = 1; alg <= 2; alg++)
        for (long n = 1; n < 5000; n++) {
            mmnc_params prm;
            mmnc_result *r = NULL;
            mmnc_params_default(&prm);
            prm.algorithm = alg;
            prm.k = 3;
            prm.restarts = 2;
            prm.max_iter = 5;
            mmnc_i_fail_after(n);
            int st = mmnc_cluster(p, &prm, &r, NULL);
            mmnc_i_fail_after(0);
            if (st == MMNC_OK) {
                mmnc_result_free(r);
                break;
            }
            CHECK(r == NULL);
            fails++;
        }
    CHECK(fails > 10);
    mmnc_pmf_free(p);
}

/* A pmf without P^T (MMNC_PMF_NO_TRANSPOSE, built from A's own arrays with
 * MMNC_PMF_TAKE) gives the same bits as the two-copy pmf: every solver path
 * (the default's too), the DTM products and the SVD, on 1 and 2 threads. */
static void test_one_copy(void)
{
    mmnc_csr *A = test_random_csr(1500, 300, 0.08, 5), *B = test_random_csr(1500, 300, 0.08, 5);
    mmnc_pmf *p2 = NULL, *p1 = NULL;
    mmnc_err err = {0, ""};
    CHECK(A && B);
    if (!A || !B) return;
    CHECK_OK(mmnc_pmf_build(A, &p2, &err));
    CHECK_OK(mmnc_pmf_build_ex(B, MMNC_PMF_TAKE | MMNC_PMF_NO_TRANSPOSE, &p1, &err));
    if (!p1 || !p2) return;
    CHECK(p1->Pt == NULL && p2->Pt != NULL);
    CHECK(B->nnz == 0 && B->colind == NULL && B->val == NULL && B->nrows == 1500); /* taken */
    CHECK(memcmp(p1->px, p2->px, 300 * sizeof(double)) == 0 && memcmp(p1->py, p2->py, 1500 * sizeof(double)) == 0);
    for (int t = 1; t <= 2; t++) {
        double *X = malloc(1500 * 7 * sizeof(double)), *Y1 = malloc(300 * 7 * sizeof(double)),
               *Y2 = malloc(300 * 7 * sizeof(double));
        for (int i = 0; i < 1500 * 7; i++) X[i] = sin(i + 1.0);
        mmnc_i_threads saved = mmnc_i_threads_push(t);
        mmnc_dtm_tmul(p1, 7, X, Y1);
        mmnc_dtm_tmul(p2, 7, X, Y2);
        mmnc_i_threads_pop(saved);
        CHECK(memcmp(Y1, Y2, 300 * 7 * sizeof(double)) == 0);
        free(X), free(Y1), free(Y2);
        struct { int alg, init, exact, pz; } cases[] = {
            {2, MMNC_INIT_RANDOM, 0, 0}, {2, MMNC_INIT_SPECTRAL, 0, 0}, {1, MMNC_INIT_KMEANSPP, 0, 0},
            {MMNC_ALG_INFORMATION, MMNC_INIT_RANDOM, 0, 0}, /* the default: exact sums from P's rows alone */
#ifdef MMNC_HAVE_GLPK
            {2, MMNC_INIT_RANDOM, 0, 1}, {1, MMNC_INIT_RANDOM, 1, 0},
#endif
        };
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            mmnc_params prm;
            mmnc_result *r1 = NULL, *r2 = NULL;
            double pz[6] = {1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6};
            mmnc_params_default(&prm);
            prm.algorithm = cases[c].alg;
            prm.init = cases[c].init;
            prm.exact_marginal = cases[c].exact;
            prm.pz = cases[c].pz ? pz : NULL;
            prm.k = 6;
            prm.restarts = 2;
            prm.max_iter = cases[c].exact ? 5 : cases[c].alg == 1 ? 40 : 0;
            prm.threads = t;
            CHECK_OK(mmnc_cluster(p1, &prm, &r1, &err));
            CHECK_OK(mmnc_cluster(p2, &prm, &r2, &err));
            if (!r1 || !r2) continue;
            if (memcmp(r1->W, r2->W, 6 * 1500 * sizeof(double)) != 0 || r1->objective != r2->objective) {
                CHECK(!"one copy and two copies agree");
                fprintf(stderr, "  case %zu, %d threads: %.17g vs %.17g\n", c, t, r1->objective, r2->objective);
            }
            mmnc_result_free(r1), mmnc_result_free(r2);
        }
    }
    mmnc_pmf_free(p1), mmnc_pmf_free(p2);
    mmnc_csr_free(A), mmnc_csr_free(B);
}

/* The screen's counters over the runs of run_screen. */
static mmnc_i_counts screen_counts;

/* One Algorithm 2 run with the screen in the given mode (kernel_i.h). */
static mmnc_result *run_screen(const mmnc_pmf *p, const mmnc_params *prm, int mode)
{
    mmnc_result *r = NULL;
    mmnc_i_tuning tune = MMNC_I_TUNING_DEFAULT;
    tune.screen = mode;
    tune.counts = &screen_counts;
    CHECK_OK(mmnc_i_cluster(p, prm, &tune, &r, NULL));
    return r;
}

static void counts_of(int64_t *rows, int64_t *exact, int64_t *full)
{
    *rows = screen_counts.screen_rows;
    *exact = screen_counts.screen_exact;
    *full = screen_counts.screen_full;
}

/* Same labels, objective bits and iterations for every start. */
static int same_runs(const mmnc_result *a, const mmnc_result *b)
{
    if (!a || !b || a->restarts != b->restarts || a->ny != b->ny) return 0;
    if (memcmp(a->label, b->label, (size_t)a->ny * sizeof(mmnc_int)) != 0) return 0;
    if (memcmp(&a->objective, &b->objective, sizeof(double)) != 0) return 0;
    for (int i = 0; i < a->restarts; i++)
        if (memcmp(&a->restart_objective[i], &b->restart_objective[i], sizeof(double)) != 0 ||
            a->restart_iterations[i] != b->restart_iterations[i])
            return 0;
    return a->iterations == b->iterations && a->best_restart == b->best_restart;
}

/* The single-precision screen of Algorithm 2 (nuclear.c) decides rows only
 * when its error bound proves the double-precision decision, so every run
 * is the same with and without it: k = 2..16 (both strides of F), three
 * kinds of start, weak and strong structure, 1 and 2 threads.  A matrix of
 * equal rows ties every score exactly: each row must take the double path. */
static void test_screen(void)
{
    static const mmnc_int ks[] = {2, 3, 5, 8, 9, 10, 12, 16};
    int64_t rows0, exact0, full0, rows1, exact1, full1;
    counts_of(&rows0, &exact0, &full0);
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        mmnc_int k = ks[i], *truth = malloc(400 * sizeof(mmnc_int));
        for (int strong = 0; strong <= 1; strong++) {
            mmnc_pmf *p = planted(400, 160, k, strong ? 3.0 : 0.35, strong ? 0.3 : 0.25, 100 + k, truth);
            for (int init = MMNC_INIT_RANDOM; init <= MMNC_INIT_SPECTRAL; init++) {
                mmnc_params prm;
                mmnc_result *a, *b, *c;
                mmnc_params_default(&prm);
                prm.algorithm = MMNC_ALG_NUCLEAR; /* the screen is Algorithm 2's */
                prm.k = k;
                prm.init = init;
                prm.restarts = 3;
                prm.seed = 7 + (uint64_t)k;
                prm.threads = 1;
                a = run_screen(p, &prm, 0);
                b = run_screen(p, &prm, 2);
                prm.threads = 2;
                c = run_screen(p, &prm, 2);
                CHECK(same_runs(a, b));
                CHECK(same_runs(a, c));
                if (a && b) CHECK(memcmp(a->W, b->W, (size_t)(k * p->ny) * sizeof(double)) == 0);
                mmnc_result_free(a), mmnc_result_free(b), mmnc_result_free(c);
            }
            mmnc_pmf_free(p);
        }
        free(truth);
    }
    counts_of(&rows1, &exact1, &full1);
    CHECK(rows1 - rows0 > 0);                       /* the screen ran */
    CHECK(exact1 - exact0 < (rows1 - rows0) / 2);   /* and decided most rows itself */
    CHECK(full1 - full0 > 0);                       /* and the exact recomputes were reached */
    printf("screen: %lld rows scored, %lld recomputed in doubles, %lld passes recomputing every row\n",
           (long long)(rows1 - rows0), (long long)(exact1 - exact0), (long long)(full1 - full0));
    /* equal rows: every score ties, no row can be decided in floats */
    {
        double D[60 * 12];
        for (int j = 0; j < 60 * 12; j++) D[j] = 1.0 + (j % 12 == 3);
        mmnc_pmf *p = from_dense(60, 12, D);
        mmnc_params prm;
        mmnc_result *a, *b;
        mmnc_params_default(&prm);
        prm.algorithm = MMNC_ALG_NUCLEAR;
        prm.k = 10;
        prm.restarts = 2;
        a = run_screen(p, &prm, 0);
        counts_of(&rows0, &exact0, &full0);
        b = run_screen(p, &prm, 2);
        counts_of(&rows1, &exact1, &full1);
        CHECK(same_runs(a, b));
        CHECK(rows1 - rows0 > 0 && exact1 - exact0 == rows1 - rows0);
        mmnc_result_free(a), mmnc_result_free(b);
        mmnc_pmf_free(p);
    }
}

/* A progress function that asks to stop ends the run: every algorithm, starts
 * side by side or not, returns MMNC_ECANCELED, no result, and the function is
 * not called again once it has said stop. */
static void test_cancel(void)
{
    mmnc_int truth[300];
    mmnc_pmf *p = planted(300, 150, 5, 0.3, 0.2, 5, truth);
    for (int alg = 1; alg <= 3; alg++)
        for (int threads = 1; threads <= 2; threads++) {
            trace *t = calloc(1, sizeof(trace));
            mmnc_params prm;
            mmnc_result *r = NULL;
            mmnc_err err = {0, ""};
            mmnc_params_default(&prm);
            prm.algorithm = alg;
            prm.k = 5;
            prm.threads = threads;
            prm.progress = record;
            prm.progress_ctx = t;
            t->stop_after = 3;
            CHECK(mmnc_cluster(p, &prm, &r, &err) == MMNC_ECANCELED);
            CHECK(err.code == MMNC_ECANCELED && strstr(err.msg, "stopped") != NULL);
            CHECK(r == NULL);
            CHECK(t->n == 3);
            /* the same run without the stop completes */
            memset(t, 0, sizeof *t);
            CHECK_OK(mmnc_cluster(p, &prm, &r, &err));
            CHECK(t->n > 3);
            mmnc_result_free(r);
            free(t);
        }
    /* the refinement reports its sweeps too, and a stop at its first call ends the run (it
     * would finish if the refinement did not call the progress function) */
    for (int refine = MMNC_REFINE_EACH; refine <= MMNC_REFINE_CHOSEN; refine++) {
        trace *t = calloc(1, sizeof(trace));
        mmnc_params prm;
        mmnc_result *r = NULL;
        mmnc_err err = {0, ""};
        int unrefined;
        mmnc_params_default(&prm);
        prm.algorithm = MMNC_ALG_NUCLEAR;
        prm.k = 5;
        prm.restarts = 2;
        prm.threads = 1;
        prm.progress = record;
        prm.progress_ctx = t;
        CHECK_OK(mmnc_cluster(p, &prm, &r, &err));
        mmnc_result_free(r);
        unrefined = t->n;
        memset(t, 0, sizeof *t);
        prm.refine = refine;
        CHECK_OK(mmnc_cluster(p, &prm, &r, &err));
        CHECK(t->n > unrefined + 1);
        mmnc_result_free(r);
        r = NULL;
        if (refine == MMNC_REFINE_CHOSEN) { /* the solver's calls, then the refinement's first */
            memset(t, 0, sizeof *t);
            t->stop_after = unrefined + 1;
            CHECK(mmnc_cluster(p, &prm, &r, &err) == MMNC_ECANCELED && r == NULL);
            CHECK(t->n == unrefined + 1);
        }
        free(t);
    }
    /* the spectral embedding of spectral starts reports its iterations (restart -1) before
     * the starts, and a stop there ends the run */
    {
        trace *t = calloc(1, sizeof(trace));
        mmnc_params prm;
        mmnc_result *r = NULL;
        mmnc_err err = {0, ""};
        int emb = 0, first_start = -1;
        mmnc_params_default(&prm);
        prm.algorithm = MMNC_ALG_NUCLEAR;
        prm.init = MMNC_INIT_SPECTRAL;
        prm.k = 5;
        prm.restarts = 3;
        prm.progress = record;
        prm.progress_ctx = t;
        CHECK_OK(mmnc_cluster(p, &prm, &r, &err));
        mmnc_result_free(r);
        r = NULL;
        for (int i = 0; i < t->n; i++) {
            if (t->restart[i] < 0) emb++;
            else if (first_start < 0) first_start = i;
        }
        CHECK(emb > 0 && first_start == emb); /* all of the embedding's calls come first */
        memset(t, 0, sizeof *t);
        t->stop_after = 1;
        CHECK(mmnc_cluster(p, &prm, &r, &err) == MMNC_ECANCELED && r == NULL);
        CHECK(t->n == 1 && t->restart[0] == -1 && strstr(err.msg, "SVD") != NULL);
        free(t);
    }
    mmnc_pmf_free(p);
}

/* What an event function hears (mmnc_params.event). */
typedef struct events {
    int n, begun[8], ended[8], converged[8], iter[8], phases, open, overlap, stop_after;
    char phase[16][32];
    int phase_restart[16];
} events;

static int on_event(void *ctx, const mmnc_event *ev)
{
    events *e = ctx;
    e->n++;
    if (ev->restarts != 6) e->overlap = 100; /* wrong fields: fail below */
    if (ev->kind == MMNC_EV_START_BEGIN) {
        e->begun[ev->restart]++;
        e->open++;
        if (e->open > e->overlap) e->overlap = e->open;
    } else if (ev->kind == MMNC_EV_START_END) {
        e->ended[ev->restart]++;
        e->open--;
        e->converged[ev->restart] = ev->converged;
        e->iter[ev->restart] = ev->iter;
        if (ev->iter < 1 || ev->iter > ev->max_iter || ev->objective != ev->objective) e->overlap = 100;
    } else if (ev->kind == MMNC_EV_PHASE && e->phases < 16) {
        snprintf(e->phase[e->phases], sizeof e->phase[0], "%s", ev->phase);
        e->phase_restart[e->phases++] = ev->restart;
    }
    return e->stop_after > 0 && e->n >= e->stop_after;
}

/* The events of a run: every start begins and ends once, its iterations and
 * convergence as the result has them; the phases named; the results the
 * same bits as without an event function, one thread or two; a nonzero
 * return stops the run. */
static void test_events(void)
{
    mmnc_int truth[300];
    mmnc_pmf *p = planted(300, 150, 5, 0.3, 0.2, 5, truth);
    for (int threads = 1; threads <= 2; threads++)
        for (int cap = 0; cap <= 1; cap++) {
            events e;
            mmnc_params prm;
            mmnc_result *r = NULL, *r0 = NULL;
            mmnc_err err = {0, ""};
            int spectral = 0, phase1 = 0, phase2 = 0, capped = 0;
            memset(&e, 0, sizeof e);
            mmnc_params_default(&prm);
            prm.algorithm = MMNC_ALG_INFORMATION; /* its phases */
            prm.k = 5;
            prm.restarts = 6;
            prm.threads = threads;
            prm.init = MMNC_INIT_SPECTRAL;
            prm.max_iter = cap; /* 0: the default cap; 1: every start stops at it */
            prm.agreement = 0; /* (its refusal would give the starts their first phases' figures) */
            CHECK_OK(mmnc_cluster(p, &prm, &r0, &err));
            prm.event = on_event;
            prm.event_ctx = &e;
            CHECK_OK(mmnc_cluster(p, &prm, &r, &err));
            CHECK(r && r0 && memcmp(r->label, r0->label, 300 * sizeof(mmnc_int)) == 0 && r->objective == r0->objective);
            CHECK(e.overlap <= threads);
            for (int i = 0; i < 6; i++) {
                CHECK(e.begun[i] == 1 && e.ended[i] == 1);
                CHECK(r && e.iter[i] == r->restart_iterations[i] && e.converged[i] == r->restart_converged[i]);
                capped += r && !r->restart_converged[i];
            }
            CHECK(capped == (cap ? 6 : 0));
            for (int i = 0; i < e.phases; i++) {
                spectral += !strcmp(e.phase[i], "spectral embedding") && e.phase_restart[i] == -1;
                phase1 += !strcmp(e.phase[i], "phase 1 (prior-free)") && e.phase_restart[i] >= 0;
                phase2 += !strcmp(e.phase[i], "phase 2 (size prior)") && e.phase_restart[i] >= 0;
            }
            CHECK(spectral == 1 && phase1 == 6 && phase2 == 6);
            CHECK(!strcmp(e.phase[0], "spectral embedding"));
            mmnc_result_free(r);
            mmnc_result_free(r0);
            r = NULL;
            /* a stop at the third event ends the run */
            memset(&e, 0, sizeof e);
            e.stop_after = 3;
            CHECK(mmnc_cluster(p, &prm, &r, &err) == MMNC_ECANCELED && r == NULL);
            CHECK(e.n == 3 && strstr(err.msg, "event function") != NULL);
        }
    mmnc_pmf_free(p);
}

int main(void)
{
    test_composition();
    test_two_communities();
    test_planted_and_monotone();
    test_determinism_and_edges();
    test_frobenius_marginal();
    test_alloc_failures();
    test_one_copy();
    test_screen();
    test_cancel();
    test_events();
    return test_done();
}
