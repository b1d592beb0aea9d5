/*
 * test_dmm.c -- the Dirichlet mixture's evidence (MMNC_ALG_DMM): the
 * evidence never decreases from sweep to sweep, the reported objective is
 * the evidence summed here from its definition (alpha at its maximum for
 * the labels, beta at its maximum above its least value), planted partitions with
 * unequal sizes and unequal row lengths are recovered, the same bits for
 * any thread count, held rows stay, a row alone that would leave its
 * cluster (the refill), the gains and a local optimum on counts of every
 * size, fractional values, allocation
 * failures, the default's choice (MMNC_ALG_AUTO), the starts'
 * agreement, and presence data (every count 1) recovered.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/solver_i.h"
#include "core/mmnc_i.h"
#include "testutil.h"

/* Planted groups of unequal sizes (sizes[g] rows) and unequal row lengths
 * (log-uniform from lo to 300 counts): a row's count goes to its group's
 * block of columns with probability `in`, else to any column. */
static mmnc_csr *planted(const int *sizes, int ng, mmnc_int nx, double in, uint64_t seed, mmnc_int **truth, double lo)
{
    mmnc_int ny = 0, n = 0, t = 0, y = 0;
    mmnc_int *ri, *ci;
    double *v;
    mmnc_csr *A = NULL;
    mmnc_rng rng;
    for (int g = 0; g < ng; g++) ny += sizes[g];
    n = ny * 300;
    ri = malloc((size_t)n * sizeof *ri), ci = malloc((size_t)n * sizeof *ci), v = malloc((size_t)n * sizeof *v);
    *truth = malloc((size_t)ny * sizeof **truth);
    mmnc_rng_seed(&rng, seed);
    for (int g = 0; g < ng; g++)
        for (int i = 0; i < sizes[g]; i++, y++) {
            int len = (int)exp(log(lo) + mmnc_rng_uniform(&rng) * (log(300.0) - log(lo)));
            (*truth)[y] = g;
            for (int d = 0; d < len; d++) {
                mmnc_int x = mmnc_rng_uniform(&rng) < in ? g + ng * mmnc_rng_below(&rng, nx / ng)
                                                         : mmnc_rng_below(&rng, nx);
                ri[t] = y, ci[t] = x, v[t++] = 1.0;
            }
        }
    for (mmnc_int x = 0; x < nx; x++) ri[t] = x % ny, ci[t] = x, v[t++] = 1.0; /* no empty column */
    mmnc_csr_from_triplets(ny, nx, t, ri, ci, v, &A, NULL);
    free(ri), free(ci), free(v);
    return A;
}

/* The evidence of hard labels, summed from its definition (dmm.c), over
 * the total count. */
static double evidence(const mmnc_pmf *p, mmnc_int k, const mmnc_int *lab, double a, double b)
{
    const mmnc_csr *P = p->P;
    double *N = calloc((size_t)(k * p->nx), sizeof *N), *Nz = calloc((size_t)k, sizeof *Nz);
    double *nz = calloc((size_t)k, sizeof *nz), V = (double)p->nx, e, total = 0.0;
    for (mmnc_int y = 0; y < p->ny; y++)
        for (mmnc_int j = P->rowptr[y]; j < P->rowptr[y + 1]; j++) {
            double c = nearbyint(P->val[j] * p->total);
            N[lab[y] * p->nx + P->colind[j]] += c;
            Nz[lab[y]] += c;
            total += c;
        }
    for (mmnc_int y = 0; y < p->ny; y++) nz[lab[y]] += 1.0;
    e = lgamma((double)k * a) - lgamma((double)p->ny + (double)k * a);
    for (mmnc_int z = 0; z < k; z++) {
        e += lgamma(nz[z] + a) - lgamma(a) + lgamma(V * b) - lgamma(Nz[z] + V * b);
        for (mmnc_int x = 0; x < p->nx; x++)
            if (N[z * p->nx + x] > 0) e += lgamma(N[z * p->nx + x] + b) - lgamma(b);
    }
    free(N), free(Nz), free(nz);
    return e / total;
}

typedef struct trace {
    double last[8];
    int n, falls;
} trace;

static int on_sweep(void *ctx, int restart, int iter, double objective)
{
    trace *t = ctx;
    if (restart >= 0 && restart < 8) {
        if (iter > 1 && objective < t->last[restart] - 1e-12 * fabs(t->last[restart])) t->falls++;
        t->last[restart] = objective;
        t->n++;
    }
    return 0;
}

/* For beta's least value 0 (free), the default's and one above the
 * evidence's own: the evidence never falls from sweep to sweep, the
 * objective is the evidence summed from its definition, alpha is its
 * maximum for the labels, and beta its maximum over beta >= the least
 * value: inside, a step either way lowers it; at the bound, a step up. */
static void test_monotone_and_objective(void)
{
    static const int sizes[] = {300, 100, 40, 20};
    static const double least[] = {0.0, MMNC_DEFAULT_DMM_BETA, 5.0};
    int bound = 0, inside = 0;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        mmnc_int *truth = NULL;
        mmnc_csr *A = planted(sizes, 4, 200, 0.35, seed, &truth, 3);
        mmnc_pmf *p = NULL;
        CHECK_OK(mmnc_pmf_build(A, &p, NULL));
        for (int i = 0; i < 3; i++) {
            mmnc_params prm;
            mmnc_result *r = NULL;
            trace t = {{0}, 0, 0};
            mmnc_params_default(&prm);
            prm.algorithm = MMNC_ALG_DMM;
            prm.k = 4;
            prm.seed = seed;
            prm.threads = 1;
            prm.dmm_beta = least[i];
            prm.progress = on_sweep;
            prm.progress_ctx = &t;
            CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
            CHECK(t.n > 8 && t.falls == 0);
            if (r) {
                double e = evidence(p, 4, r->label, r->dmm_alpha, r->dmm_beta), b = r->dmm_beta;
                CHECK(fabs(e - r->objective) <= 1e-9 * fabs(e));
                CHECK(r->dmm_alpha > 0 && b > 0 && b >= least[i] && r->converged);
                CHECK(evidence(p, 4, r->label, r->dmm_alpha * 1.05, b) < e);
                CHECK(evidence(p, 4, r->label, r->dmm_alpha / 1.05, b) < e);
                CHECK(evidence(p, 4, r->label, r->dmm_alpha, b * 1.05) < e);
                if (b > least[i]) {
                    CHECK(evidence(p, 4, r->label, r->dmm_alpha, b / 1.05) < e);
                    inside++;
                } else {
                    bound++;
                }
            }
            mmnc_result_free(r);
        }
        mmnc_pmf_free(p);
        mmnc_csr_free(A);
        free(truth);
    }
    CHECK(inside >= 3 && bound >= 3); /* both cases met */
}

/* Groups of 400, 120, 40 and 15 rows, lengths 12 to 300: every row found. */
static void test_planted_unequal(void)
{
    static const int sizes[] = {400, 120, 40, 15};
    int exact = 0;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        mmnc_int *truth = NULL;
        mmnc_csr *A = planted(sizes, 4, 400, 0.6, seed, &truth, 12);
        mmnc_pmf *p = NULL;
        mmnc_params prm;
        mmnc_result *r = NULL;
        mmnc_scores sc;
        CHECK_OK(mmnc_pmf_build(A, &p, NULL));
        mmnc_params_default(&prm);
        prm.algorithm = MMNC_ALG_DMM;
        prm.k = 4;
        prm.seed = seed;
        CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
        if (r && mmnc_evaluate(p->ny, r->label, truth, &sc, NULL) == MMNC_OK) exact += sc.acc == 1.0;
        if (r && sc.acc < 1.0) printf("planted seed %d: ACC %.4f\n", (int)seed, sc.acc);
        mmnc_result_free(r);
        mmnc_pmf_free(p);
        mmnc_csr_free(A);
        free(truth);
    }
    CHECK(exact == 4);
}

static void test_threads_and_held(void)
{
    static const int sizes[] = {200, 80, 30};
    mmnc_int *truth = NULL, *fixed;
    mmnc_csr *A = planted(sizes, 3, 150, 0.3, 7, &truth, 3);
    mmnc_pmf *p = NULL;
    mmnc_result *r[3] = {NULL, NULL, NULL};
    CHECK_OK(mmnc_pmf_build(A, &p, NULL));
    fixed = malloc((size_t)p->ny * sizeof *fixed);
    for (mmnc_int y = 0; y < p->ny; y++) fixed[y] = y % 10 == 0 ? (truth[y] + 1) % 3 : -1; /* against the data */
    for (int t = 0; t < 3; t++) {
        mmnc_params prm;
        mmnc_params_default(&prm);
        prm.algorithm = MMNC_ALG_DMM;
        prm.k = 3;
        prm.threads = t + 1;
        CHECK_OK(mmnc_cluster(p, &prm, &r[t], NULL));
    }
    if (r[0] && r[1] && r[2]) {
        CHECK(!memcmp(r[0]->label, r[1]->label, (size_t)p->ny * sizeof(mmnc_int)));
        CHECK(!memcmp(r[0]->label, r[2]->label, (size_t)p->ny * sizeof(mmnc_int)));
        CHECK(r[0]->objective == r[1]->objective && r[0]->objective == r[2]->objective);
    }
    for (int t = 0; t < 3; t++) mmnc_result_free(r[t]), r[t] = NULL;
    {
        mmnc_params prm;
        int moved = 0;
        mmnc_params_default(&prm);
        prm.algorithm = MMNC_ALG_DMM;
        prm.k = 3;
        prm.fixed_label = fixed;
        CHECK_OK(mmnc_cluster(p, &prm, &r[0], NULL));
        for (mmnc_int y = 0; r[0] && y < p->ny; y++) moved += fixed[y] >= 0 && r[0]->label[y] != fixed[y];
        CHECK(r[0] && moved == 0 && r[0]->nfixed > 0);
        mmnc_result_free(r[0]);
    }
    free(fixed);
    free(truth);
    mmnc_pmf_free(p);
    mmnc_csr_free(A);
}

/* Counts of every size the moves score in their own way (1, 2..16,
 * 17..128 and above 128): the converged labels are a local optimum of the
 * evidence summed from its definition (no row that is not alone in its
 * cluster raises it by moving to another cluster, at the alpha and beta of
 * the result), and every g(y, c) - g(y, own) the moves compute, in either
 * form, is the evidence's change. */
static void test_counts_of_every_size(void)
{
    enum { NY = 60, NX = 24, K = 3 };
    mmnc_int ri[NY * 8], ci[NY * 8], lab[NY], nz[K] = {0};
    double v[NY * 8];
    mmnc_csr *A = NULL;
    mmnc_pmf *p = NULL;
    mmnc_params prm;
    mmnc_result *r = NULL;
    mmnc_rng rng;
    int t = 0, worse = 0, big = 0;
    mmnc_rng_seed(&rng, 11);
    for (mmnc_int y = 0; y < NY; y++)
        for (int d = 0; d < 8; d++) { /* 8 entries, 4 in the row's block, 4 outside it (a column drawn twice sums) */
            mmnc_int g = y % K, x = d < 4 ? g * (NX / K) + 2 * d + (mmnc_int)mmnc_rng_below(&rng, 2)
                                          : (mmnc_int)(d - 4) * (NX / 4) + (mmnc_int)mmnc_rng_below(&rng, NX / 4);
            double u = mmnc_rng_uniform(&rng), w = mmnc_rng_uniform(&rng);
            if (d >= 4 && x / (NX / K) == g) x = (x + NX / K) % NX; /* the other half outside the block */
            ri[t] = y, ci[t] = x;
            v[t] = u < 0.25 ? 1.0                  /* 1 */
                 : u < 0.5 ? 2.0 + floor(15.0 * w) /* 2..16 */
                 : u < 0.75 ? 17.0 + floor(112.0 * w) /* 17..128 */
                            : 129.0 + floor(400.0 * w); /* 129..528 */
            big += v[t] > 16.0;
            t++;
        }
    CHECK_OK(mmnc_csr_from_triplets(NY, NX, t, ri, ci, v, &A, NULL));
    CHECK(big > NY);
    CHECK_OK(mmnc_pmf_build(A, &p, NULL));
    mmnc_params_default(&prm);
    prm.algorithm = MMNC_ALG_DMM;
    prm.k = K;
    prm.seed = 3;
    prm.threads = 1;
    CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
    if (r) {
        double e = evidence(p, K, r->label, r->dmm_alpha, r->dmm_beta);
        CHECK(r->converged && fabs(e - r->objective) <= 1e-9 * fabs(e));
        memcpy(lab, r->label, sizeof lab);
        for (mmnc_int y = 0; y < NY; y++) nz[lab[y]]++;
        for (mmnc_int y = 0; y < NY; y++)
            for (mmnc_int c = 0; c < K && nz[lab[y]] > 1; c++) {
                mmnc_int own = lab[y];
                if (c == own) continue;
                lab[y] = c;
                worse += evidence(p, K, lab, r->dmm_alpha, r->dmm_beta) > e + 1e-12 * fabs(e);
                lab[y] = own;
            }
        CHECK(worse == 0);
        /* every gain is the evidence's change, in both forms of the moves */
        double g[K], g2[K], err = 0.0;
        int differ = 0;
        for (mmnc_int y = 0; y < NY; y++) {
            CHECK_OK(mmnc_i_dmm_gains(p, K, lab, r->dmm_alpha, r->dmm_beta, y, g, g2, NULL));
            for (mmnc_int c = 0; c < K; c++) {
                mmnc_int own = lab[y];
                lab[y] = c;
                double ec = evidence(p, K, lab, r->dmm_alpha, r->dmm_beta) * p->total;
                lab[y] = own;
                err = fmax(err, fabs((g[c] - g[own]) - (ec - e * p->total)) / (1.0 + fabs(g[c] - g[own])));
                differ += g2[c] != g[c];
            }
        }
        CHECK(err < 1e-9 && differ == 0);
        if (!(err < 1e-9 && differ == 0)) printf("gains: error %.3g, %d differ between the two forms\n", err, differ);
    }
    mmnc_result_free(r);
    mmnc_pmf_free(p);
    mmnc_csr_free(A);
}

/* Values that are not counts: the same partition at another scale is not
 * promised (the evidence reads the values as counts), but the run ends,
 * converged, with every cluster used and a finite objective. */
static void test_fractional(void)
{
    static const int sizes[] = {100, 50};
    mmnc_int *truth = NULL;
    mmnc_csr *A = planted(sizes, 2, 60, 0.5, 3, &truth, 3);
    mmnc_pmf *p = NULL;
    mmnc_params prm;
    mmnc_result *r = NULL;
    for (mmnc_int j = 0; j < A->nnz; j++) A->val[j] *= 0.37;
    CHECK_OK(mmnc_pmf_build(A, &p, NULL));
    mmnc_params_default(&prm);
    prm.algorithm = MMNC_ALG_DMM;
    prm.k = 2;
    CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
    if (r) {
        CHECK(isfinite(r->objective) && r->converged);
        CHECK(r->stats.pz[0] > 0 && r->stats.pz[1] > 0);
    }
    mmnc_result_free(r);
    r = NULL;
    { /* counts summing above 1e300, where lgamma overflows: refused, by the default too */
        mmnc_err e = {0, ""};
        mmnc_pmf_free(p);
        p = NULL;
        for (mmnc_int j = 0; j < A->nnz; j++) A->val[j] *= 1e297;
        CHECK_OK(mmnc_pmf_build(A, &p, NULL));
        CHECK(mmnc_cluster(p, &prm, &r, &e) == MMNC_EINVAL && r == NULL && strstr(e.msg, "above 1e300"));
        prm.algorithm = MMNC_ALG_AUTO;
        CHECK(mmnc_cluster(p, &prm, &r, &e) == MMNC_EINVAL && r == NULL && strstr(e.msg, "-a information"));
        prm.algorithm = MMNC_ALG_INFORMATION;
        CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
        CHECK(r && isfinite(r->objective));
        mmnc_result_free(r);
    }
    mmnc_pmf_free(p);
    mmnc_csr_free(A);
    free(truth);
}

static void test_alloc_failures(void)
{
    mmnc_csr *A = test_random_csr(40, 30, 0.2, 9);
    mmnc_pmf *p = NULL;
    mmnc_params prm;
    long bad = 0;
    CHECK_OK(mmnc_pmf_build(A, &p, NULL));
    mmnc_params_default(&prm);
    prm.algorithm = MMNC_ALG_DMM;
    prm.k = 3;
    prm.restarts = 2;
    CHECK(test_cluster_alloc_failures(p, &prm, &bad) > 10 && bad == 0);
    mmnc_pmf_free(p);
    mmnc_csr_free(A);
}

/* MMNC_ALG_AUTO: the Dirichlet mixture on counts, the information
 * objective on values that are not whole numbers and with column clusters. */
static void test_auto(void)
{
    static const int sizes[] = {60, 40};
    mmnc_int *truth = NULL;
    mmnc_csr *A = planted(sizes, 2, 40, 0.6, 5, &truth, 5);
    mmnc_pmf *p = NULL, *q = NULL;
    mmnc_params prm;
    mmnc_result *r = NULL;
    CHECK_OK(mmnc_pmf_build(A, &p, NULL));
    mmnc_params_default(&prm);
    CHECK(prm.algorithm == MMNC_ALG_AUTO);
    prm.k = 2;
    CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
    CHECK(r && r->algorithm == MMNC_ALG_DMM && r->dmm_beta > 0);
    mmnc_result_free(r), r = NULL;
    prm.col_clusters = 2; /* co-clustering: the Dirichlet mixture's form */
    CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
    CHECK(r && r->algorithm == MMNC_ALG_DMM && r->l == 2 && r->dmm_beta >= prm.dmm_beta);
    mmnc_result_free(r), r = NULL;
    prm.col_clusters = 0;
    A->val[0] += 0.5; /* one value not a whole number */
    CHECK_OK(mmnc_pmf_build(A, &q, NULL));
    CHECK_OK(mmnc_cluster(q, &prm, &r, NULL));
    CHECK(r && r->algorithm == MMNC_ALG_INFORMATION && isnan(r->dmm_alpha));
    mmnc_result_free(r), r = NULL;
    prm.col_clusters = 2; /* and there co-clustering's I(Z;W) */
    CHECK_OK(mmnc_cluster(q, &prm, &r, NULL));
    CHECK(r && r->algorithm == MMNC_ALG_INFORMATION && r->l == 2 && isnan(r->dmm_alpha));
    mmnc_result_free(r);
    mmnc_pmf_free(p), mmnc_pmf_free(q);
    mmnc_csr_free(A);
    free(truth);
}

/* A start the single-row moves cannot leave: groups 0 and 1 in one
 * cluster, group 2 in another less one row, that row alone in the third
 * (a row alone stays).  Its row would raise E by joining group 2's
 * cluster: the refill moves it and splits the largest cluster into the
 * emptied one, so every group is found and E rises. */
static void test_refill(void)
{
    static const int sizes[] = {60, 60, 60};
    for (uint64_t seed = 1; seed <= 3; seed++) {
        mmnc_int *truth = NULL, *lab;
        mmnc_csr *A = planted(sizes, 3, 150, 0.7, seed, &truth, 30);
        mmnc_pmf *p = NULL;
        mmnc_params prm;
        mmnc_i_run run = MMNC_I_RUN_INIT;
        mmnc_scores sc;
        double *W, e0;
        CHECK_OK(mmnc_pmf_build(A, &p, NULL));
        lab = malloc((size_t)p->ny * sizeof *lab);
        W = malloc((size_t)(p->ny * 3) * sizeof *W);
        for (mmnc_int y = 0; y < p->ny; y++) lab[y] = truth[y] == 2 ? 1 : 0;
        lab[120] = 2;
        mmnc_params_default(&prm);
        prm.algorithm = MMNC_ALG_DMM;
        prm.k = 3;
        prm.max_iter = 100;
        run.dmm_alpha = 1.0, run.dmm_beta = 0.1; /* from these labels, alpha and beta */
        e0 = evidence(p, 3, lab, 1.0, 0.1);
        CHECK_OK(mmnc_i_dmm(p, &prm, 0, 0.0, lab, W, &run, NULL));
        CHECK(mmnc_evaluate(p->ny, lab, truth, &sc, NULL) == MMNC_OK && sc.acc == 1.0);
        CHECK(run.converged && run.objective > e0);
        free(lab), free(W), free(truth);
        mmnc_pmf_free(p);
        mmnc_csr_free(A);
    }
}

/* The same start, with the third cluster held by a row unlike every group:
 * most of its counts fall in columns that only its own (one-row) group
 * favours, so it lowers E by leaving (checked from E's definition).  The
 * refill still moves it and splits the largest cluster, because the whole
 * change raises E: the three groups are found and E rises. */
static void test_refill_outlier(void)
{
    static const int sizes[] = {60, 60, 60, 1};
    for (uint64_t seed = 1; seed <= 3; seed++) {
        mmnc_int *truth = NULL, *lab, *moved, out = 180;
        mmnc_csr *A = planted(sizes, 4, 160, 0.9, seed, &truth, 60);
        mmnc_pmf *p = NULL;
        mmnc_params prm;
        mmnc_i_run run = MMNC_I_RUN_INIT;
        mmnc_scores sc;
        double *W, e0;
        CHECK_OK(mmnc_pmf_build(A, &p, NULL));
        lab = malloc((size_t)p->ny * sizeof *lab), moved = malloc((size_t)p->ny * sizeof *moved);
        W = malloc((size_t)(p->ny * 3) * sizeof *W);
        for (mmnc_int y = 0; y < p->ny; y++) lab[y] = truth[y] == 2 ? 1 : 0;
        lab[out] = 2;
        e0 = evidence(p, 3, lab, 1.0, 0.1);
        for (mmnc_int c = 0; c < 2; c++) { /* the premise: the row loses by leaving for either cluster */
            memcpy(moved, lab, (size_t)p->ny * sizeof *lab);
            moved[out] = c;
            CHECK(evidence(p, 3, moved, 1.0, 0.1) < e0);
        }
        mmnc_params_default(&prm);
        prm.algorithm = MMNC_ALG_DMM;
        prm.k = 3;
        prm.max_iter = 100;
        run.dmm_alpha = 1.0, run.dmm_beta = 0.1;
        CHECK_OK(mmnc_i_dmm(p, &prm, 0, 0.0, lab, W, &run, NULL));
        CHECK(mmnc_evaluate(out, lab, truth, &sc, NULL) == MMNC_OK && sc.acc == 1.0); /* the 180 group rows */
        CHECK(run.converged && run.objective > e0);
        free(lab), free(moved), free(W), free(truth);
        mmnc_pmf_free(p);
        mmnc_csr_free(A);
    }
}

/* mmnc_result.agreement, the mean adjusted Rand index between the starts'
 * partitions (what `mmnc sweep` reads): 1 where every start finds the
 * planted groups, low where the counts have no groups, NAN for one start. */
static void test_agreement(void)
{
    static const int sizes[] = {100, 100, 100};
    double in[2] = {0.9, 0.0}, got[2];
    for (int c = 0; c < 2; c++) {
        mmnc_int *truth = NULL;
        mmnc_csr *A = planted(sizes, 3, 300, in[c], 1, &truth, 20);
        mmnc_pmf *p = NULL;
        mmnc_params prm;
        mmnc_result *r = NULL;
        CHECK_OK(mmnc_pmf_build(A, &p, NULL));
        mmnc_params_default(&prm);
        prm.algorithm = MMNC_ALG_DMM;
        prm.k = 3;
        CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
        got[c] = r ? r->agreement : NAN;
        mmnc_result_free(r);
        r = NULL;
        prm.restarts = 1;
        CHECK_OK(mmnc_cluster(p, &prm, &r, NULL));
        CHECK(r && isnan(r->agreement));
        mmnc_result_free(r);
        mmnc_pmf_free(p);
        mmnc_csr_free(A);
        free(truth);
    }
    CHECK(got[0] == 1.0);
    CHECK(got[1] < 0.5);
    if (!(got[0] == 1.0 && got[1] < 0.5)) printf("agreement: planted %.4f, no groups %.4f\n", got[0], got[1]);
}

/* Presence data (every count 1, as a pattern file, --map binary or short
 * texts without a repeated word): the rows alone give no finite beta, their
 * evidence rising to beta = infinity, so the first phase runs at the least
 * beta.  Groups of 10 rows, each row 4 distinct columns of its group's 13,
 * are recovered exactly by the default (at a first beta of hundreds the
 * rows piled into one cluster: ACC 0.37 to 0.4). */
static void test_presence(void)
{
    enum { NG = 3, PER = 10, W = 13, LEN = 4, NY = NG * PER, NX = NG * W };
    int exact = 0;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        mmnc_int ri[NY * LEN + NX], ci[NY * LEN + NX], truth[NY], t = 0;
        double v[NY * LEN + NX];
        int seen[NX] = {0};
        mmnc_csr *A = NULL;
        mmnc_pmf *p = NULL;
        mmnc_params prm;
        mmnc_result *r = NULL;
        mmnc_scores sc;
        mmnc_rng rng;
        mmnc_err e = {0, ""};
        mmnc_rng_seed(&rng, seed);
        for (mmnc_int y = 0; y < NY; y++) {
            int used[W] = {0};
            truth[y] = y % NG;
            for (int d = 0; d < LEN;) {
                int c = (int)mmnc_rng_below(&rng, W);
                if (used[c]) continue;
                used[c] = 1, d++;
                seen[truth[y] * W + c] = 1;
                ri[t] = y, ci[t] = truth[y] * W + c, v[t++] = 1.0;
            }
        }
        for (mmnc_int x = 0; x < NX; x++) /* no empty column: a column none drew goes to a row of its group */
            if (!seen[x]) ri[t] = x / W + NG * (x % PER), ci[t] = x, v[t++] = 1.0;
        CHECK_OK(mmnc_csr_from_triplets(NY, NX, t, ri, ci, v, &A, NULL));
        if (!A) continue;
        if (mmnc_pmf_build(A, &p, &e) != MMNC_OK) printf("presence: %s\n", e.msg);
        mmnc_params_default(&prm);
        prm.k = NG;
        prm.seed = seed;
        if (mmnc_cluster(p, &prm, &r, &e) != MMNC_OK) printf("presence: %s\n", e.msg);
        if (r && r->algorithm == MMNC_ALG_DMM && mmnc_evaluate(NY, r->label, truth, &sc, NULL) == MMNC_OK) {
            exact += sc.acc == 1.0;
            if (sc.acc < 1.0) printf("presence seed %d: ACC %.4f, beta %g\n", (int)seed, sc.acc, r->dmm_beta);
        }
        mmnc_result_free(r);
        mmnc_pmf_free(p);
        mmnc_csr_free(A);
    }
    CHECK(exact == 4);
}

int main(void)
{
    test_auto();
    test_monotone_and_objective();
    test_planted_unequal();
    test_presence();
    test_refill();
    test_refill_outlier();
    test_threads_and_held();
    test_counts_of_every_size();
    test_fractional();
    test_alloc_failures();
    test_agreement();
    return test_done();
}
