/*
 * test_model.c -- saved models and prediction of new rows (src/model/model.c):
 *   - write / read round trip, bit for bit (fields, arrays, ids, and the
 *     file written again is the same bytes);
 *   - a corrupt byte, a truncated file, a newer version, unknown feature
 *     flags, trailing bytes, an empty file, a binary matrix and a text file
 *     are refused with the message that says which;
 *   - predicting the training rows gives back the training labels, for the
 *     default, Algorithm 2 without refinement and the information
 *     objective (the agreement is printed; a floor is tested);
 *   - a held-out half of planted data assigned by the model against a
 *     refit on everything (ACC of both printed and tested);
 *   - column matching by id (permuted, unknown, named twice), empty rows, the soft
 *     probabilities, thread-count determinism, allocation failures;
 *   - the rows' log-likelihood under the model's mixture (mmnc_model_loglik)
 *     recomputed the long way, and summing to 1 over every small row;
 *   - a Dirichlet mixture's co-clustering model predicts by its posterior
 *     over column clusters, and its likelihood sums to 1.
 */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "io/io_i.h"
#include "testutil.h"

static mmnc_pmf *pmf_of(const mmnc_csr *A)
{
    mmnc_pmf *p = NULL;
    mmnc_pmf_build(A, &p, NULL);
    return p;
}

static mmnc_result *fit(const mmnc_pmf *p, mmnc_int k, int alg, int refine, uint64_t seed)
{
    mmnc_params prm;
    mmnc_result *r = NULL;
    mmnc_err e = {0, ""};
    mmnc_params_default(&prm);
    prm.k = k;
    prm.algorithm = alg;
    prm.refine = refine;
    prm.seed = seed;
    if (alg == MMNC_ALG_NUCLEAR && refine == MMNC_REFINE_CHOSEN) { /* the previous default: alpha from the selection */
        prm.init = MMNC_INIT_SPECTRAL;
        prm.select = MMNC_SELECT_PREDICTIVE;
    }
    if (mmnc_cluster(p, &prm, &r, &e) != MMNC_OK) fprintf(stderr, "fit: %s\n", e.msg);
    return r;
}

static mmnc_model *model_of(const mmnc_pmf *p, const mmnc_result *r, int alg, int refine)
{
    mmnc_params prm;
    mmnc_model *m = NULL;
    mmnc_err e = {0, ""};
    mmnc_params_default(&prm);
    prm.algorithm = alg;
    prm.refine = refine;
    if (mmnc_model_from_result(p, NULL, r, &prm, 0x1234abcdULL, "-k 3 --test", &m, &e) != MMNC_OK)
        fprintf(stderr, "model_of: %s\n", e.msg);
    return m;
}

static double agreement(mmnc_int n, const mmnc_int *a, const mmnc_int *b)
{
    mmnc_int same = 0;
    for (mmnc_int i = 0; i < n; i++) same += a[i] == b[i];
    return n ? (double)same / (double)n : 1.0;
}

static int models_equal(const mmnc_model *a, const mmnc_model *b)
{
    mmnc_int k = a->k, nx = a->ncols;
    if (a->k != b->k || a->ncols != b->ncols || a->algorithm != b->algorithm || a->refine != b->refine ||
        a->hard != b->hard || memcmp(&a->alpha, &b->alpha, 8) || memcmp(&a->objective, &b->objective, 8) ||
        memcmp(&a->mutual_information, &b->mutual_information, 8) || a->train_rows != b->train_rows ||
        memcmp(&a->train_mass, &b->train_mass, 8) || a->seed != b->seed || a->input_hash != b->input_hash ||
        strcmp(a->version, b->version) || (!a->options != !b->options) ||
        (a->options && strcmp(a->options, b->options)))
        return 0;
    if (memcmp(a->px, b->px, nx * 8) || memcmp(a->pz, b->pz, k * 8) || memcmp(a->pzx, b->pzx, k * nx * 8)) return 0;
    for (mmnc_int j = 0; j < nx; j++)
        if (strcmp(a->col_ids[j], b->col_ids[j])) return 0;
    if (a->l != b->l || a->nheld != b->nheld) return 0;
    if (a->l > 0 && (memcmp(a->col_label, b->col_label, nx * sizeof(mmnc_int)) ||
                     memcmp(a->block_pz, b->block_pz, k * a->l * 8)))
        return 0;
    if (a->nheld > 0 && (memcmp(a->held_hash, b->held_hash, a->nheld * 8) ||
                         memcmp(a->held_label, b->held_label, a->nheld * sizeof(mmnc_int))))
        return 0;
    if (!a->cluster_rows != !b->cluster_rows ||
        (a->cluster_rows && (memcmp(a->cluster_rows, b->cluster_rows, k * sizeof(mmnc_int)) ||
                             memcmp(&a->dmm_alpha, &b->dmm_alpha, 8) || memcmp(&a->dmm_beta, &b->dmm_beta, 8))))
        return 0;
    return 1;
}

static unsigned char *slurp(const char *path, size_t *n)
{
    char *d = NULL;
    if (mmnc_file_read_all(path, &d, n, NULL) != MMNC_OK) return NULL;
    return (unsigned char *)d;
}

static void spit(const char *path, const unsigned char *b, size_t n)
{
    FILE *fp = fopen(path, "wb");
    fwrite(b, 1, n, fp);
    fclose(fp);
}

/* Read path and expect EFORMAT with `want` in the message. */
static void expect_refused(const char *path, const char *want)
{
    mmnc_model *m = NULL;
    mmnc_err e = {0, ""};
    int s = mmnc_model_read(path, &m, &e);
    CHECK(s == MMNC_EFORMAT && m == NULL);
    CHECK(strstr(e.msg, want) != NULL);
    CHECK(strncmp(e.msg, path, strlen(path)) == 0); /* names the file */
    if (!strstr(e.msg, want)) fprintf(stderr, "  got '%s', wanted '%s'\n", e.msg, want);
    mmnc_model_free(m);
}

static void put64(unsigned char *p, uint64_t x)
{
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(x >> 8 * i);
}

/* The header checksum made again, over the header size the file states. */
static void reseal(unsigned char *b)
{
    put64(b + 24, 0);
    put64(b + 24, mmnc_i_xxh64(b, (size_t)b[12] | (size_t)b[13] << 8, 0));
}

static void test_round_trip_and_refusals(void)
{
    mmnc_int truth[300];
    mmnc_csr *A = test_planted_csr(300, 60, 3, 0.8, 0.2, 7, truth);
    mmnc_pmf *p = pmf_of(A);
    mmnc_result *r = fit(p, 3, MMNC_ALG_NUCLEAR, MMNC_REFINE_CHOSEN, 1);
    mmnc_model *m = model_of(p, r, MMNC_ALG_NUCLEAR, MMNC_REFINE_CHOSEN), *m2 = NULL;
    mmnc_err e = {0, ""};
    char path[200], path2[240], bad[240];
    unsigned char *b, *b2, *c;
    size_t n = 0, n2 = 0;
    snprintf(path, sizeof path, "%s.mmnc", test_tmpfile("", ".model"));
    snprintf(path2, sizeof path2, "%s.again.mmnc", path);
    snprintf(bad, sizeof bad, "%s.bad.mmnc", path);
    CHECK(m != NULL && m->hard == 1 && m->refine == MMNC_REFINE_CHOSEN && m->k == 3 && m->ncols == 60);
    CHECK(m->alpha == r->restart_alpha[r->best_restart]);
    CHECK_NEAR(m->mutual_information, r->stats.mi, 0);
    CHECK(m->train_rows == 300 && m->train_mass == p->total && m->input_hash == 0x1234abcdULL);
    CHECK(!strcmp(m->col_ids[0], "1") && !strcmp(m->col_ids[59], "60"));
    CHECK_OK(mmnc_model_write(m, path, &e));
    CHECK(mmnc_model_read(path, &m2, &e) == MMNC_OK);
    CHECK(m2 && models_equal(m, m2));
    CHECK_OK(mmnc_model_write(m2, path2, &e));
    b = slurp(path, &n);
    b2 = slurp(path2, &n2);
    CHECK(b && b2 && n == n2 && !memcmp(b, b2, n));
    mmnc_free(b2);

    c = malloc(n);
    /* a flipped byte in P_{Z,X} (the third section, after P_X and P_Z) */
    memcpy(c, b, n);
    c[512 + 64 * 2 + 8 * 3 + 8 * 60 + 5] ^= 0x10;
    spit(bad, c, n);
    expect_refused(bad, "checksum mismatch in the P_{Z,X} section");
    /* a flipped byte in the header */
    memcpy(c, b, n);
    c[50] ^= 1;
    spit(bad, c, n);
    expect_refused(bad, "corrupt header (checksum mismatch)");
    /* truncated, at several places */
    spit(bad, b, n - 1);
    expect_refused(bad, "truncated: header says");
    spit(bad, b, 100);
    expect_refused(bad, "truncated: header says");
    spit(bad, b, 10);
    expect_refused(bad, "truncated: file has 10 bytes");
    spit(bad, b, 0);
    expect_refused(bad, "file is empty");
    /* trailing bytes */
    memcpy(c, b, n);
    {
        unsigned char *l = malloc(n + 3);
        memcpy(l, b, n);
        memset(l + n, 0, 3);
        spit(bad, l, n + 3);
        expect_refused(bad, "3 bytes of unexpected data after the end");
        free(l);
    }
    /* a newer version, resealed: refused before anything else is trusted */
    c[8] = 4;
    reseal(c);
    spit(bad, c, n);
    expect_refused(bad, "model format version 4 is newer than this mmnc supports (3)");
    /* unknown required features */
    memcpy(c, b, n);
    c[32] = 4;
    reseal(c);
    spit(bad, c, n);
    expect_refused(bad, "uses features this mmnc does not support (flags 0x4)");
    /* foreign files: a binary matrix, a text file */
    {
        mmnc_data d = {A, NULL, NULL, NULL, NULL, A->nrows, A->ncols};
        CHECK_OK(mmnc_data_write_bin(&d, bad, &e));
        expect_refused(bad, "not an mmnc model (bad magic): it is an mmnc binary matrix");
        expect_refused(test_tmpfile("1 2 3\n", ".txt"), "not an mmnc model (bad magic)");
    }
    /* a missing file is EIO naming it */
    {
        mmnc_model *none = NULL;
        CHECK(mmnc_model_read("/nonexistent/model.mmnc", &none, &e) == MMNC_EIO && none == NULL &&
              strstr(e.msg, "/nonexistent/model.mmnc"));
    }

    /* every allocation of a read may fail, cleanly */
    for (long k = 1; k < 200; k++) {
        mmnc_model *f = NULL;
        int s;
        mmnc_i_fail_after(k);
        s = mmnc_model_read(path, &f, &e);
        mmnc_i_fail_after(0);
        CHECK(s == MMNC_OK || s == MMNC_ENOMEM);
        mmnc_model_free(f);
        if (s == MMNC_OK) break;
    }
    free(c);
    mmnc_free(b);
    remove(path), remove(path2), remove(bad);
    mmnc_model_free(m);
    mmnc_model_free(m2);
    mmnc_result_free(r);
    mmnc_pmf_free(p);
    mmnc_csr_free(A);
}

/* Predicting the training rows: how often the training label comes back. */
static void test_training_rows(void)
{
    static const struct {
        int alg, refine;
        const char *name;
        double floor;
    } runs[] = {{MMNC_ALG_NUCLEAR, MMNC_REFINE_CHOSEN, "default (nuclear + refine chosen)", 0.98},
                {MMNC_ALG_NUCLEAR, MMNC_REFINE_NONE, "nuclear, refine none", 0.98},
                {MMNC_ALG_INFORMATION, MMNC_REFINE_NONE, "information", 0.98},
                {MMNC_ALG_FROBENIUS, MMNC_REFINE_NONE, "frobenius", 0.95}};
    mmnc_int truth[600], label[600];
    double proba[600 * 4];
    mmnc_csr *A = test_planted_csr(600, 120, 4, 0.5, 0.25, 11, truth);
    mmnc_pmf *p = pmf_of(A);
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        mmnc_result *r = fit(p, 4, runs[i].alg, runs[i].refine, 3);
        mmnc_model *m = model_of(p, r, runs[i].alg, runs[i].refine);
        mmnc_int empty = -1;
        double agree, worst = 0.0;
        CHECK_OK(mmnc_model_predict(m, A, NULL, label, proba, &empty, NULL));
        CHECK(empty == 0);
        agree = agreement(600, label, r->label);
        for (mmnc_int y = 0; y < 600; y++) {
            double s = 0.0;
            for (int z = 0; z < 4; z++) s += proba[y * 4 + z];
            if (fabs(s - 1.0) > worst) worst = fabs(s - 1.0);
        }
        CHECK(worst < 1e-12);
        printf("training rows predicted, %s: %.2f%% agree with the training labels\n", runs[i].name, 100 * agree);
        CHECK(agree >= runs[i].floor);
        mmnc_model_free(m);
        mmnc_result_free(r);
    }
    mmnc_pmf_free(p);
    mmnc_csr_free(A);
}

/* Rows of A listed in rows[0..n-1], as a new matrix. */
static mmnc_csr *take_rows(const mmnc_csr *A, const mmnc_int *rows, mmnc_int n)
{
    mmnc_int nnz = 0, t = 0;
    for (mmnc_int i = 0; i < n; i++) nnz += A->rowptr[rows[i] + 1] - A->rowptr[rows[i]];
    mmnc_int *ri = malloc((nnz + 1) * sizeof(mmnc_int)), *ci = malloc((nnz + 1) * sizeof(mmnc_int));
    double *v = malloc((nnz + 1) * sizeof(double));
    mmnc_csr *B = NULL;
    for (mmnc_int i = 0; i < n; i++)
        for (mmnc_int e = A->rowptr[rows[i]]; e < A->rowptr[rows[i] + 1]; e++) ri[t] = i, ci[t] = A->colind[e], v[t++] = A->val[e];
    mmnc_csr_from_triplets(n, A->ncols, nnz, ri, ci, v, &B, NULL);
    free(ri), free(ci), free(v);
    return B;
}

/* Train on half the rows, assign the other half; refit on all for comparison. */
static void test_held_out(void)
{
    enum { NY = 800, NX = 160, K = 4 };
    mmnc_int truth[NY], tr[NY / 2], te[NY / 2], ttr[NY / 2], tte[NY / 2], lab[NY / 2], sub[NY / 2];
    mmnc_csr *A = test_planted_csr(NY, NX, K, 0.45, 0.25, 19, truth), *Atr, *Ate;
    mmnc_pmf *ptr_, *pall;
    mmnc_result *rtr, *rall;
    mmnc_model *m;
    mmnc_scores s_pred, s_refit, s_train;
    mmnc_int ntr = 0, nte = 0, *map = malloc(NX * sizeof(mmnc_int));
    mmnc_rng rng;
    mmnc_rng_seed(&rng, 5);
    for (mmnc_int y = 0; y < NY; y++) { /* a random half, balanced */
        if ((mmnc_rng_uniform(&rng) < 0.5 && ntr < NY / 2) || nte == NY / 2) tr[ntr] = y, ttr[ntr++] = truth[y];
        else te[nte] = y, tte[nte++] = truth[y];
    }
    Atr = take_rows(A, tr, ntr);
    Ate = take_rows(A, te, nte);
    {
        mmnc_int rd = 0, cd = 0;
        mmnc_data d = {Atr, NULL, NULL, NULL, NULL, Atr->nrows, Atr->ncols};
        /* a column may be empty in the training half: drop it as the CLI does; its id stays */
        CHECK_OK(mmnc_data_drop_empty(&d, &rd, &cd, NULL));
        CHECK(rd == 0);
        Atr = d.A;
        ptr_ = pmf_of(Atr);
        rtr = fit(ptr_, K, MMNC_ALG_NUCLEAR, MMNC_REFINE_CHOSEN, 1);
        {
            mmnc_params prm;
            mmnc_err e = {0, ""};
            mmnc_params_default(&prm);
            m = NULL;
            CHECK_OK(mmnc_model_from_result(ptr_, &d, rtr, &prm, 0, NULL, &m, &e));
        }
        {
            mmnc_data dte = {Ate, NULL, NULL, NULL, NULL, Ate->nrows, Ate->ncols};
            mmnc_int unknown = -1;
            CHECK_OK(mmnc_model_match(m, &dte, map, &unknown, NULL));
            CHECK(unknown == cd);
        }
        mmnc_free(d.col_orig);
        mmnc_free(d.row_orig);
    }
    CHECK_OK(mmnc_model_predict(m, Ate, map, lab, NULL, NULL, NULL));
    pall = pmf_of(A);
    rall = fit(pall, K, MMNC_ALG_NUCLEAR, MMNC_REFINE_CHOSEN, 1);
    for (mmnc_int i = 0; i < nte; i++) sub[i] = rall->label[te[i]];
    CHECK_OK(mmnc_evaluate(nte, lab, tte, &s_pred, NULL));
    CHECK_OK(mmnc_evaluate(nte, sub, tte, &s_refit, NULL));
    CHECK_OK(mmnc_evaluate(ntr, rtr->label, ttr, &s_train, NULL));
    printf("held-out half (%d rows, planted k = %d): ACC %.2f%% predicted by the model of the other half "
           "(its training ACC %.2f%%), %.2f%% by a refit on all rows\n",
           (int)nte, K, 100 * s_pred.acc, 100 * s_train.acc, 100 * s_refit.acc);
    /* The refit sees twice the rows, so it may do better; the model must
     * assign new rows about as well as it fits its own (chance: 25%). */
    CHECK(s_pred.acc >= s_train.acc - 0.05);
    CHECK(s_pred.acc >= s_refit.acc - 0.10);
    CHECK(s_pred.acc >= 0.75);
    free(map);
    mmnc_model_free(m);
    mmnc_result_free(rtr);
    mmnc_result_free(rall);
    mmnc_pmf_free(ptr_);
    mmnc_pmf_free(pall);
    mmnc_csr_free(Atr);
    mmnc_csr_free(Ate);
    mmnc_csr_free(A);
}

/* Ids, permutation, unknown columns, empty rows, thread counts. */
static void test_match_and_threads(void)
{
    mmnc_int truth[200], n = 0;
    mmnc_csr *A = test_planted_csr(200, 40, 2, 1.0, 0.2, 3, truth), *B = NULL;
    mmnc_pmf *p = pmf_of(A);
    char *names[40], *pnames[41];
    mmnc_data d = {A, NULL, names, NULL, NULL, 200, 40};
    mmnc_result *r = fit(p, 2, MMNC_ALG_INFORMATION, MMNC_REFINE_NONE, 2);
    mmnc_params prm;
    mmnc_model *m = NULL;
    mmnc_int map[41], unknown = -1, empty = -1, lab1[201], lab2[201], base[200];
    double pr1[201 * 2], pr2[201 * 2];
    mmnc_err e = {0, ""};
    for (int j = 0; j < 40; j++) {
        names[j] = malloc(16);
        snprintf(names[j], 16, "w%d", j);
    }
    mmnc_params_default(&prm);
    prm.algorithm = MMNC_ALG_INFORMATION;
    CHECK_OK(mmnc_model_from_result(p, &d, r, &prm, 0, NULL, &m, &e));
    CHECK(!strcmp(m->col_ids[7], "w7"));
    CHECK_OK(mmnc_model_predict(m, A, NULL, base, NULL, NULL, NULL));
    /* the same data with its columns reversed, one unknown column, and an
     * extra row holding only the unknown column */
    {
        mmnc_int *ri = malloc((A->nnz + 1) * sizeof(mmnc_int)), *ci = malloc((A->nnz + 1) * sizeof(mmnc_int));
        double *v = malloc((A->nnz + 1) * sizeof(double));
        for (mmnc_int y = 0; y < 200; y++)
            for (mmnc_int t = A->rowptr[y]; t < A->rowptr[y + 1]; t++) ri[n] = y, ci[n] = 39 - A->colind[t], v[n++] = A->val[t];
        ri[n] = 200, ci[n] = 40, v[n++] = 5;
        mmnc_csr_from_triplets(201, 41, n, ri, ci, v, &B, NULL);
        free(ri), free(ci), free(v);
    }
    for (int j = 0; j < 40; j++) pnames[j] = names[39 - j];
    pnames[40] = "never-seen";
    {
        mmnc_data dn = {B, NULL, pnames, NULL, NULL, 201, 41};
        CHECK_OK(mmnc_model_match(m, &dn, map, &unknown, &e));
    }
    CHECK(unknown == 1 && map[40] == -1 && map[0] == 39 && map[39] == 0);
    { /* new data naming two columns alike: refused if the model knows the name, ignored if not */
        mmnc_data dn = {B, NULL, pnames, NULL, NULL, 201, 41};
        pnames[40] = pnames[7];
        CHECK(mmnc_model_match(m, &dn, map, &unknown, &e) == MMNC_EINVAL && strstr(e.msg, "'w32'") &&
              strstr(e.msg, "columns 8 and 41"));
        pnames[40] = "never-seen", pnames[39] = "never-seen";
        CHECK_OK(mmnc_model_match(m, &dn, map, &unknown, &e));
        CHECK(unknown == 2 && map[39] == -1 && map[40] == -1);
        pnames[39] = names[0];
        CHECK_OK(mmnc_model_match(m, &dn, map, &unknown, &e));
    }
#ifdef _OPENMP
    omp_set_num_threads(1);
#endif
    CHECK_OK(mmnc_model_predict(m, B, map, lab1, pr1, &empty, NULL));
#ifdef _OPENMP
    omp_set_num_threads(2);
#endif
    CHECK_OK(mmnc_model_predict(m, B, map, lab2, pr2, NULL, NULL));
    CHECK(empty == 1 && lab1[200] == -1 && pr1[400] == 0.0 && pr1[401] == 0.0);
    CHECK(!memcmp(lab1, lab2, sizeof lab1) && !memcmp(pr1, pr2, sizeof pr1));
    CHECK(!memcmp(lab1, base, sizeof base)); /* permuted columns: the same labels */
    /* a bad map, a bad matrix */
    map[3] = 40;
    CHECK(mmnc_model_predict(m, B, map, lab1, NULL, NULL, &e) == MMNC_EINVAL && strstr(e.msg, "map[3]"));
    CHECK(mmnc_model_predict(m, B, NULL, lab1, NULL, NULL, &e) == MMNC_EINVAL);
    /* duplicate ids are refused when the model is built */
    {
        mmnc_model *m2 = NULL;
        char *keep = names[5];
        names[5] = names[9];
        CHECK(mmnc_model_from_result(p, &d, r, &prm, 0, NULL, &m2, &e) == MMNC_EINVAL && strstr(e.msg, "'w9'") &&
              m2 == NULL);
        names[5] = keep;
    }
    for (int j = 0; j < 40; j++) free(names[j]);
    mmnc_model_free(m);
    mmnc_result_free(r);
    mmnc_pmf_free(p);
    mmnc_csr_free(A);
    mmnc_csr_free(B);
}

/* The version-1 layout (docs/model-format.md as version 1 had it: no
 * column clusters, no held rows, slots 6 and 7 unused, bytes 120..127
 * reserved), written here byte by byte: the files mmnc wrote before
 * version 2, which must still load. */
static void write_v1(const mmnc_model *m, const char *path)
{
    enum { NS = 6 };
    unsigned char h[384], *sec[NS];
    uint64_t len[NS], off[NS], end = 384, ids = 0, pos = 0;
    mmnc_int k = m->k, nx = m->ncols;
    FILE *fp;
    for (mmnc_int j = 0; j < nx; j++) ids += strlen(m->col_ids[j]) + 1;
    len[0] = 8 * nx, len[1] = 8 * k, len[2] = 8 * k * nx, len[3] = 8 * (nx + 1) + ids;
    len[4] = strlen(m->version), len[5] = m->options ? strlen(m->options) : 0;
    for (int i = 0; i < NS; i++) sec[i] = calloc(len[i] + 1, 1);
    memcpy(sec[0], m->px, len[0]);
    memcpy(sec[1], m->pz, len[1]);
    memcpy(sec[2], m->pzx, len[2]);
    for (mmnc_int j = 0; j < nx; j++) {
        put64(sec[3] + 8 * j, pos);
        memcpy(sec[3] + 8 * (nx + 1) + pos, m->col_ids[j], strlen(m->col_ids[j]) + 1);
        pos += strlen(m->col_ids[j]) + 1;
    }
    put64(sec[3] + 8 * nx, pos);
    memcpy(sec[4], m->version, len[4]);
    if (m->options) memcpy(sec[5], m->options, len[5]);
    memset(h, 0, sizeof h);
    memcpy(h, "\x89MMOD\r\n\x1a", 8);
    h[8] = 1;   /* version */
    h[13] = 1;  /* header size 384 = 0x180 */
    h[12] = 0x80;
    h[36] = (unsigned char)m->algorithm, h[40] = (unsigned char)m->refine, h[44] = (unsigned char)m->hard;
    put64(h + 48, (uint64_t)k), put64(h + 56, (uint64_t)nx), put64(h + 64, (uint64_t)m->train_rows);
    memcpy(h + 72, &m->train_mass, 8), memcpy(h + 80, &m->alpha, 8), memcpy(h + 88, &m->objective, 8);
    memcpy(h + 96, &m->mutual_information, 8), put64(h + 104, m->seed), put64(h + 112, m->input_hash);
    for (int i = 0; i < NS; i++) {
        if (i == 5 && !m->options) { off[i] = 0; continue; }
        off[i] = (end + 63) / 64 * 64;
        end = off[i] + len[i];
        put64(h + 128 + 32 * i, off[i]), put64(h + 136 + 32 * i, len[i]);
        put64(h + 144 + 32 * i, mmnc_i_xxh64(sec[i], len[i], 0));
    }
    put64(h + 16, end);
    put64(h + 24, mmnc_i_xxh64(h, 384, 0));
    fp = fopen(path, "wb");
    fwrite(h, 1, 384, fp);
    for (uint64_t at = 384, i = 0; i < NS; i++) {
        if (!off[i]) continue;
        while (at < off[i]) fputc(0, fp), at++;
        fwrite(sec[i], 1, len[i], fp);
        at += len[i];
    }
    fclose(fp);
    for (int i = 0; i < NS; i++) free(sec[i]);
}

/* A version-1 file (generated above) loads as the model it was, without
 * column clusters or held rows, and predicts the same bits. */
static void test_version1(void)
{
    mmnc_int truth[300], l1[300], l2[300];
    double p1[300 * 3], p2[300 * 3];
    mmnc_csr *A = test_planted_csr(300, 60, 3, 0.8, 0.2, 7, truth);
    mmnc_pmf *p = pmf_of(A);
    mmnc_result *r = fit(p, 3, MMNC_ALG_INFORMATION, MMNC_REFINE_NONE, 1);
    mmnc_model *m = model_of(p, r, MMNC_ALG_INFORMATION, MMNC_REFINE_NONE), *m1 = NULL;
    mmnc_err e = {0, ""};
    char path[200];
    snprintf(path, sizeof path, "%s.v1.mmnc", test_tmpfile("", ".model"));
    write_v1(m, path);
    CHECK(mmnc_model_read(path, &m1, &e) == MMNC_OK);
    if (!m1) fprintf(stderr, "  version 1: %s\n", e.msg);
    CHECK(m1 && models_equal(m, m1) && m1->l == 0 && m1->nheld == 0 && !m1->col_label && !m1->held_hash);
    CHECK_OK(mmnc_model_predict(m, A, NULL, l1, p1, NULL, NULL));
    if (m1) CHECK_OK(mmnc_model_predict(m1, A, NULL, l2, p2, NULL, NULL));
    CHECK(m1 && !memcmp(l1, l2, sizeof l1) && !memcmp(p1, p2, sizeof p1));
    {   /* a version-1 file with a section in slot 6 is refused: the slot is version 2's */
        size_t n = 0;
        unsigned char *b = slurp(path, &n);
        put64(b + 128 + 32 * 6, 384), put64(b + 136 + 32 * 6, 8);
        reseal(b);
        spit(path, b, n);
        expect_refused(path, "invalid header: unknown section 6");
        mmnc_free(b);
    }
    remove(path);
    mmnc_model_free(m1);
    mmnc_model_free(m);
    mmnc_result_free(r);
    mmnc_pmf_free(p);
    mmnc_csr_free(A);
}

/* Co-clustering models: l, col_label and block_pz written and read back;
 * a column unknown to the model is assigned from the new rows' clusters. */
static void test_col_clusters(void)
{
    enum { NY = 300, NX = 60, K = 3, L = 3 };
    mmnc_int truth[NY], lab[NY], map[2 * NX + 1], cl[2 * NX + 1], assigned = -1, unassigned = -1, same = 0;
    mmnc_csr *A = test_planted_csr(NY, NX, K, 0.8, 0.1, 13, truth), *B = NULL;
    mmnc_pmf *p = pmf_of(A);
    mmnc_params prm;
    mmnc_result *r = NULL;
    mmnc_model *m = NULL, *m2 = NULL;
    mmnc_err e = {0, ""};
    char path[200];
    mmnc_params_default(&prm);
    prm.k = K;
    prm.algorithm = MMNC_ALG_INFORMATION;
    prm.col_clusters = L;
    prm.seed = 4;
    CHECK_OK(mmnc_cluster(p, &prm, &r, &e));
    CHECK_OK(mmnc_model_from_result(p, NULL, r, &prm, 0, "--col-clusters 3", &m, &e));
    CHECK(m && m->l == L && !memcmp(m->col_label, r->col_label, NX * sizeof(mmnc_int)) &&
          !memcmp(m->block_pz, r->block_pz, K * L * 8) && m->nheld == 0);
    snprintf(path, sizeof path, "%s.cocl.mmnc", test_tmpfile("", ".model"));
    CHECK_OK(mmnc_model_write(m, path, &e));
    CHECK_OK(mmnc_model_read(path, &m2, &e));
    CHECK(m2 && models_equal(m, m2));
    /* a block that is not the sum of its columns is refused */
    {
        size_t n = 0;
        unsigned char *b = slurp(path, &n);
        uint64_t off = 0, bytes = 0;
        for (int i = 0; i < 8; i++) off |= (uint64_t)b[128 + 32 * 6 + i] << 8 * i, bytes |= (uint64_t)b[136 + 32 * 6 + i] << 8 * i;
        CHECK(bytes == 8 * (NX + K * L));
        b[off + 8 * NX + 6] ^= 0x08; /* an exponent bit of block (1, 1) */
        put64(b + 144 + 32 * 6, mmnc_i_xxh64(b + off, bytes, 0));
        reseal(b);
        spit(path, b, n);
        expect_refused(path, "invalid model: block (1, 1) of P_{Z,W}");
        mmnc_free(b);
    }
    /* new data: the training rows, each column twice (the second copy under
     * an id the model does not know), and one unknown column without mass */
    {
        mmnc_int *ri = malloc(2 * A->nnz * sizeof(mmnc_int)), *ci = malloc(2 * A->nnz * sizeof(mmnc_int)), n = 0;
        double *v = malloc(2 * A->nnz * sizeof(double));
        for (mmnc_int y = 0; y < NY; y++)
            for (mmnc_int t = A->rowptr[y]; t < A->rowptr[y + 1]; t++) {
                ri[n] = y, ci[n] = A->colind[t], v[n++] = A->val[t];
                ri[n] = y, ci[n] = NX + A->colind[t], v[n++] = A->val[t];
            }
        mmnc_csr_from_triplets(NY, 2 * NX + 1, n, ri, ci, v, &B, NULL);
        free(ri), free(ci), free(v);
    }
    for (mmnc_int j = 0; j < 2 * NX + 1; j++) map[j] = j < NX ? j : -1;
    CHECK_OK(mmnc_model_predict(m2, B, map, lab, NULL, NULL, &e));
    CHECK_OK(mmnc_model_predict_cols(m2, B, map, lab, cl, &assigned, &unassigned, &e));
    CHECK(assigned == NX && unassigned == 1 && cl[2 * NX] == -1);
    for (mmnc_int x = 0; x < NX; x++) {
        CHECK(cl[x] == m2->col_label[x]);
        same += cl[NX + x] == m2->col_label[x];
    }
    printf("co-clustering model: %lld of %d unknown copies of the training columns assigned their column's "
           "cluster\n", (long long)same, NX);
    CHECK(same >= NX * 95 / 100);
    /* no column clusters, a bad map */
    {
        mmnc_model *plain = model_of(p, r, MMNC_ALG_INFORMATION, MMNC_REFINE_NONE);
        mmnc_int keep = plain->l;
        CHECK(keep == L); /* from_result takes them from the result */
        plain->l = 0;
        CHECK(mmnc_model_predict_cols(plain, B, map, lab, cl, NULL, NULL, &e) == MMNC_EINVAL &&
              strstr(e.msg, "no column clusters"));
        plain->l = keep;
        mmnc_model_free(plain);
        map[2] = NX;
        CHECK(mmnc_model_predict_cols(m2, B, map, lab, cl, NULL, NULL, &e) == MMNC_EINVAL && strstr(e.msg, "map[2]"));
    }
    remove(path);
    mmnc_model_free(m);
    mmnc_model_free(m2);
    mmnc_result_free(r);
    mmnc_pmf_free(p);
    mmnc_csr_free(A);
    mmnc_csr_free(B);
}

/* Held rows (semi-supervision): a result whose rows 0, 10, 20, ... were
 * held at a label the rule would not give them, built by hand (mmnc_cluster
 * fills result->fixed where it implements fixed_label).  Predicting the
 * training file gives every held row its label back, at any scale and
 * column order; every other row gets the same bits as from the model
 * without held rows. */
static void test_held_rows(void)
{
    enum { NY = 300, NX = 60, K = 3 };
    mmnc_int truth[NY], l0[NY], l1[NY], l2[NY + 1], held = -1, nheld = 0, map[NX];
    double p0[NY * K], p1[NY * K];
    mmnc_csr *A = test_planted_csr(NY, NX, K, 0.8, 0.2, 23, truth), *B = NULL;
    mmnc_pmf *p = pmf_of(A);
    mmnc_result *r = fit(p, K, MMNC_ALG_INFORMATION, MMNC_REFINE_NONE, 6);
    mmnc_model *m0, *mh, *back = NULL;
    mmnc_err e = {0, ""};
    char path[200];
    unsigned char *fixed = calloc(NY, 1);
    for (mmnc_int y = 0; y < NY; y += 10) fixed[y] = 1, r->label[y] = (r->label[y] + 1) % K, nheld++;
    for (mmnc_int y = 0; y < NY; y++) /* the kernel follows the labels, as a run's would */
        for (mmnc_int z = 0; z < K; z++) r->W[y * K + z] = z == r->label[y];
    m0 = model_of(p, r, MMNC_ALG_INFORMATION, MMNC_REFINE_NONE);
    r->fixed = fixed, r->nfixed = nheld;
    mh = model_of(p, r, MMNC_ALG_INFORMATION, MMNC_REFINE_NONE);
    CHECK(m0 && m0->nheld == 0 && mh && mh->nheld == nheld);
    CHECK_OK(mmnc_model_predict_ex(m0, A, NULL, l0, p0, NULL, &held, &e));
    CHECK(held == 0);
    CHECK_OK(mmnc_model_predict_ex(mh, A, NULL, l1, p1, NULL, &held, &e));
    {
        mmnc_int back_at_rule = 0, moved = 0, same_free = 1;
        for (mmnc_int y = 0; y < NY; y++) {
            if (fixed[y]) {
                back_at_rule += l0[y] == r->label[y];
                CHECK(l1[y] == r->label[y] && p1[y * K + l1[y]] == 1.0);
            } else {
                same_free &= l0[y] == l1[y] && !memcmp(p0 + y * K, p1 + y * K, K * 8);
            }
            moved += l0[y] != l1[y];
        }
        printf("held rows: %lld of %lld matched when the training file is predicted; the model without them gives "
               "%lld of them their held label\n", (long long)held, (long long)nheld, (long long)back_at_rule);
        CHECK(held == nheld && same_free && back_at_rule < nheld && moved > 0);
    }
    /* the same rows at another scale, columns reversed (mapped back) */
    {
        mmnc_int *ri = malloc(A->nnz * sizeof(mmnc_int)), *ci = malloc(A->nnz * sizeof(mmnc_int)), n = 0;
        double *v = malloc(A->nnz * sizeof(double));
        for (mmnc_int y = 0; y < NY; y++)
            for (mmnc_int t = A->rowptr[y]; t < A->rowptr[y + 1]; t++)
                ri[n] = y, ci[n] = NX - 1 - A->colind[t], v[n++] = 3.7 * A->val[t];
        mmnc_csr_from_triplets(NY, NX, n, ri, ci, v, &B, NULL);
        free(ri), free(ci), free(v);
        for (mmnc_int j = 0; j < NX; j++) map[j] = NX - 1 - j;
    }
    CHECK_OK(mmnc_model_predict_ex(mh, B, map, l2, NULL, NULL, &held, &e));
    CHECK(held == nheld && !memcmp(l1, l2, sizeof l1));
    /* written and read back; a row held at two labels is not kept */
    snprintf(path, sizeof path, "%s.held.mmnc", test_tmpfile("", ".model"));
    CHECK_OK(mmnc_model_write(mh, path, &e));
    CHECK_OK(mmnc_model_read(path, &back, &e));
    CHECK(back && models_equal(mh, back));
    CHECK(mmnc_model_row_hash(0, A->colind, A->val, NULL) == 0); /* no mass: no hash */
    /* a copy of row 0 as an extra row: held with row 0 at another label, neither is kept;
     * at the same label, one record for both */
    {
        mmnc_int *ri = malloc((A->nnz + NX) * sizeof(mmnc_int)), *ci = malloc((A->nnz + NX) * sizeof(mmnc_int)), n = 0;
        double *v = malloc((A->nnz + NX) * sizeof(double));
        mmnc_csr *C = NULL;
        mmnc_pmf *pc;
        mmnc_result rc;
        unsigned char fc[NY + 1];
        mmnc_params prm;
        for (mmnc_int y = 0; y < NY; y++)
            for (mmnc_int t = A->rowptr[y]; t < A->rowptr[y + 1]; t++) ri[n] = y, ci[n] = A->colind[t], v[n++] = A->val[t];
        for (mmnc_int t = A->rowptr[0]; t < A->rowptr[1]; t++) ri[n] = NY, ci[n] = A->colind[t], v[n++] = A->val[t];
        mmnc_csr_from_triplets(NY + 1, NX, n, ri, ci, v, &C, NULL);
        free(ri), free(ci), free(v);
        pc = pmf_of(C);
        memset(&rc, 0, sizeof rc);
        rc.k = K, rc.ny = NY + 1, rc.algorithm = MMNC_ALG_INFORMATION, rc.best_restart = 0;
        rc.label = malloc((NY + 1) * sizeof(mmnc_int));
        rc.W = calloc((NY + 1) * K, sizeof(double));
        memset(fc, 0, sizeof fc);
        fc[0] = fc[10] = fc[NY] = 1;
        rc.fixed = fc, rc.nfixed = 3;
        mmnc_params_default(&prm);
        prm.algorithm = MMNC_ALG_INFORMATION;
        for (int same = 0; same < 2; same++) {
            mmnc_model *mc = NULL;
            for (mmnc_int y = 0; y <= NY; y++) rc.label[y] = y < NY ? r->label[y] : (r->label[0] + !same) % K;
            for (mmnc_int y = 0; y <= NY; y++)
                for (mmnc_int z = 0; z < K; z++) rc.W[y * K + z] = z == rc.label[y];
            CHECK_OK(mmnc_model_from_result(pc, NULL, &rc, &prm, 0, NULL, &mc, &e));
            CHECK(mc && mc->nheld == (same ? 2 : 1));
            if (mc) CHECK_OK(mmnc_model_predict_ex(mc, C, NULL, l2, NULL, NULL, &held, &e));
            CHECK(held == (same ? 3 : 1) && l2[10] == r->label[10]);
            mmnc_model_free(mc);
        }
        free(rc.label), free(rc.W);
        mmnc_pmf_free(pc);
        mmnc_csr_free(C);
    }
    remove(path);
    r->fixed = NULL, r->nfixed = 0;
    free(fixed);
    mmnc_model_free(back);
    mmnc_model_free(m0);
    mmnc_model_free(mh);
    mmnc_result_free(r);
    mmnc_pmf_free(p);
    mmnc_csr_free(A);
    mmnc_csr_free(B);
}

/* The Dirichlet mixture's models: alpha, beta and the clusters' rows kept
 * and read back; a row gets the mixture's posterior (mmnc.h), checked the
 * long way on the training rows; rows of about five counts predicted again
 * keep their training label at least as often as under the information
 * rule (what such a model got without the clusters' rows). */
static void test_dmm_rule(void)
{
    enum { NY = 600, NX = 200, K = 4 };
    mmnc_int truth[NY], lab[NY], lab_info[NY], *rows;
    int64_t cnt[K] = {0};
    double proba[NY * K];
    mmnc_csr *A = test_planted_csr(NY, NX, K, 0.025, 0.015, 3, truth);
    mmnc_pmf *p = pmf_of(A);
    mmnc_result *r = fit(p, K, MMNC_ALG_DMM, MMNC_REFINE_NONE, 1);
    mmnc_model *m = model_of(p, r, MMNC_ALG_DMM, MMNC_REFINE_NONE), *m2 = NULL;
    mmnc_err e = {0, ""};
    char path[200];
    int ok = 1;
    double a_dmm, a_info;
    CHECK(r && m && m->cluster_rows && m->dmm_alpha == r->dmm_alpha && m->dmm_beta == r->dmm_beta);
    if (!r || !m || !m->cluster_rows) goto done;
    for (mmnc_int y = 0; y < NY; y++) cnt[r->label[y]]++;
    for (mmnc_int z = 0; z < K; z++) ok &= m->cluster_rows[z] == cnt[z];
    CHECK(ok);
    snprintf(path, sizeof path, "%s.dmm.mmnc", test_tmpfile("", ".model"));
    CHECK_OK(mmnc_model_write(m, path, &e));
    CHECK(mmnc_model_read(path, &m2, &e) == MMNC_OK && m2 && models_equal(m, m2));
    remove(path);
    CHECK_OK(mmnc_model_predict(m, A, NULL, lab, proba, NULL, NULL));
    ok = 1;
    for (mmnc_int y = 0; y < NY; y++) { /* the posterior the long way: the label is its argmax */
        double sc[K], best = -INFINITY, n = 0.0, t = 0.0;
        for (mmnc_int e2 = A->rowptr[y]; e2 < A->rowptr[y + 1]; e2++) n += A->val[e2];
        for (mmnc_int z = 0; z < K; z++) {
            double nz = m->pz[z] * m->train_mass + NX * m->dmm_beta;
            sc[z] = log(m->cluster_rows[z] + m->dmm_alpha) - (lgamma(nz + n) - lgamma(nz));
            for (mmnc_int e2 = A->rowptr[y]; e2 < A->rowptr[y + 1]; e2++) {
                double a = m->pzx[z * NX + A->colind[e2]] * m->train_mass + m->dmm_beta;
                sc[z] += lgamma(a + A->val[e2]) - lgamma(a);
            }
            if (sc[z] > best) best = sc[z];
        }
        ok &= lab[y] >= 0 && sc[lab[y]] >= best - 1e-9 * fabs(best);
        for (mmnc_int z = 0; z < K; z++) t += proba[y * K + z];
        ok &= fabs(t - 1.0) < 1e-12;
        for (mmnc_int z = 0; z < K && lab[y] >= 0; z++) /* proba: exp(sc) normalised */
            ok &= fabs(proba[y * K + z] / proba[y * K + lab[y]] - exp(sc[z] - sc[lab[y]])) < 1e-6;
    }
    CHECK(ok);
    rows = m->cluster_rows; /* the same model without the clusters' rows: the information rule */
    m->cluster_rows = NULL;
    CHECK_OK(mmnc_model_predict(m, A, NULL, lab_info, NULL, NULL, NULL));
    a_dmm = agreement(NY, lab, r->label), a_info = agreement(NY, lab_info, r->label);
    printf("training rows predicted, dmm: %.2f%% agree with the training labels (the information rule: %.2f%%)\n",
           100 * a_dmm, 100 * a_info);
    CHECK(a_dmm >= a_info && a_dmm >= 0.99);
    m->cluster_rows = rows;
    m->cluster_rows[0]++; /* the rows no longer sum to the training rows: refused */
    CHECK(mmnc_model_write(m, path, &e) == MMNC_EINVAL && strstr(e.msg, "Dirichlet mixture"));
    m->cluster_rows[0]--;
done:
    mmnc_model_free(m2);
    mmnc_model_free(m);
    mmnc_result_free(r);
    mmnc_pmf_free(p);
    mmnc_csr_free(A);
}

static mmnc_csr *dense_csr(mmnc_int nr, mmnc_int nc, const double *val)
{
    mmnc_int ri[64], ci[64], t = 0;
    double v[64];
    mmnc_csr *B = NULL;
    for (mmnc_int i = 0; i < nr; i++)
        for (mmnc_int j = 0; j < nc; j++)
            if (val[i * nc + j] != 0.0) ri[t] = i, ci[t] = j, v[t++] = val[i * nc + j];
    mmnc_csr_from_triplets(nr, nc, t, ri, ci, v, &B, NULL);
    return B;
}

/* log sum_z exp(s[z]) */
static double lse(const double *s, int k)
{
    double mx = -INFINITY, t = 0.0;
    for (int z = 0; z < k; z++) mx = s[z] > mx ? s[z] : mx;
    for (int z = 0; z < k; z++) t += exp(s[z] - mx);
    return mx + log(t);
}

/* The likelihood of a model of 3 columns summed over every row of 3
 * counts, each row's with its multinomial coefficient 3!/(a! b! c!): 1
 * for a proper distribution. */
static double total_probability(const mmnc_model *m)
{
    double v[10 * 3], f[4] = {1, 1, 2, 6}, coef[10], ll[10], total = 0.0;
    int t = 0;
    mmnc_csr *R;
    for (int a0 = 0; a0 <= 3; a0++)
        for (int a1 = 0; a0 + a1 <= 3; a1++, t++)
            v[3 * t] = a0, v[3 * t + 1] = a1, v[3 * t + 2] = 3 - a0 - a1,
            coef[t] = 6.0 / (f[a0] * f[a1] * f[3 - a0 - a1]);
    R = dense_csr(10, 3, v);
    CHECK_OK(mmnc_model_loglik(m, R, NULL, ll, NULL, NULL));
    for (int i = 0; i < 10; i++) total += coef[i] * exp(ll[i]);
    mmnc_csr_free(R);
    return total;
}

/* mmnc_model_loglik: the mixture's likelihood the long way (lgamma, and
 * log q), zero for a row without known mass, unknown columns left out; a
 * proper distribution (summed over every row of 3 counts on 3 columns,
 * with the multinomial coefficients, it is 1); the same bits on 1 and 2
 * threads. */
static void test_loglik(void)
{
    enum { NY = 400, NX = 120, K = 3 };
    static const double small[5 * 3] = {5, 0, 1, 0, 4, 2, 3, 1, 0, 0, 0, 6, 1, 1, 1};
    mmnc_int truth[NY], map[NX];
    double ll[NY + 1], mass[NY + 1], ll2[NY + 1];
    mmnc_csr *A = test_planted_csr(NY, NX, K, 0.05, 0.02, 5, truth), *S = dense_csr(5, 3, small);
    mmnc_pmf *p = pmf_of(A), *ps = pmf_of(S);
    mmnc_err e = {0, ""};
    for (int alg = 0; alg < 2; alg++) {
        int a = alg ? MMNC_ALG_INFORMATION : MMNC_ALG_DMM, ok = 1;
        mmnc_result *r = fit(p, K, a, MMNC_REFINE_NONE, 2), *rs = fit(ps, 2, a, MMNC_REFINE_NONE, 1);
        mmnc_model *m = model_of(p, r, a, MMNC_REFINE_NONE), *ms = model_of(ps, rs, a, MMNC_REFINE_NONE);
        double total = 0.0;
        CHECK(m && ms && (alg || (m->cluster_rows && ms->cluster_rows)));
        if (!m || !ms) goto next;
        for (mmnc_int j = 0; j < NX; j++) map[j] = j % 7 == 3 ? -1 : j; /* some columns unknown */
        CHECK_OK(mmnc_model_loglik(m, A, map, ll, mass, &e));
        for (mmnc_int y = 0; y < NY; y++) {
            double sc[K], n = 0.0, rows = 0.0;
            for (mmnc_int z = 0; z < K && !alg; z++) rows += (double)m->cluster_rows[z];
            for (mmnc_int e2 = A->rowptr[y]; e2 < A->rowptr[y + 1]; e2++) n += map[A->colind[e2]] >= 0 ? A->val[e2] : 0;
            for (mmnc_int z = 0; z < K; z++) {
                double nz = m->pz[z] * m->train_mass + NX * m->dmm_beta, am = m->alpha / (double)m->train_rows;
                sc[z] = alg ? log(m->pz[z])
                            : log((m->cluster_rows[z] + m->dmm_alpha) / (rows + K * m->dmm_alpha)) -
                                  (lgamma(nz + n) - lgamma(nz));
                for (mmnc_int e2 = A->rowptr[y]; e2 < A->rowptr[y + 1]; e2++) {
                    mmnc_int x = map[A->colind[e2]];
                    double v = A->val[e2], c = m->pzx[z * NX + (x < 0 ? 0 : x)];
                    if (x < 0) continue;
                    sc[z] += alg ? v * log((c + am * m->px[x]) / (m->pz[z] + am))
                                 : lgamma(c * m->train_mass + m->dmm_beta + v) - lgamma(c * m->train_mass + m->dmm_beta);
                }
            }
            ok &= fabs(ll[y] - lse(sc, K)) <= 1e-9 * fabs(ll[y]) && mass[y] == n;
        }
        CHECK(ok);
#ifdef _OPENMP
        omp_set_num_threads(1);
        CHECK_OK(mmnc_model_loglik(m, A, map, ll2, NULL, &e));
        omp_set_num_threads(2);
        CHECK(memcmp(ll, ll2, sizeof(double) * NY) == 0);
#endif
        for (mmnc_int j = 0; j < NX; j++) map[j] = -1; /* no known column: the empty observation */
        map[0] = 0;
        CHECK_OK(mmnc_model_loglik(m, A, map, ll, mass, &e));
        ok = 1;
        for (mmnc_int y = 0; y < NY; y++)
            ok &= A->rowptr[y + 1] > A->rowptr[y] && A->colind[A->rowptr[y]] == 0 ? mass[y] > 0 : ll[y] == 0.0 && mass[y] == 0;
        CHECK(ok);
        total = total_probability(ms);
        printf("loglik, %s: rows of 3 counts on 3 columns, total probability %.15f\n", alg ? "information" : "dmm", total);
        CHECK(fabs(total - 1.0) < 1e-12);
        CHECK(mmnc_model_loglik(m, A, NULL, NULL, NULL, &e) == MMNC_EINVAL);
    next:
        mmnc_model_free(m);
        mmnc_model_free(ms);
        mmnc_result_free(r);
        mmnc_result_free(rs);
    }
    mmnc_pmf_free(p);
    mmnc_pmf_free(ps);
    mmnc_csr_free(A);
    mmnc_csr_free(S);
}

/* A Dirichlet mixture's co-clustering model: the rule is the mixture's
 * posterior over the row's counts summed by column clusters (N_zw, L beta),
 * recomputed the long way; the training rows come back at their labels; the
 * likelihood, with each column's share of its cluster, sums to 1 over every
 * row of 3 counts on the 3 columns of a small model. */
static void test_dmm_blocks(void)
{
    enum { NY = 300, NX = 90, K = 3, L = 6 };
    static const double small[6 * 3] = {5, 1, 0, 4, 2, 0, 0, 1, 6, 0, 2, 5, 3, 3, 1, 1, 0, 4};
    mmnc_int truth[NY], lab[NY];
    double proba[NY * K];
    mmnc_csr *A = test_planted_csr(NY, NX, K, 0.05, 0.02, 7, truth), *S = dense_csr(6, 3, small);
    mmnc_pmf *p = pmf_of(A), *ps = pmf_of(S);
    mmnc_params prm;
    mmnc_result *r = NULL, *rs = NULL;
    mmnc_model *m = NULL, *ms = NULL;
    mmnc_err e = {0, ""};
    int ok = 1, same = 0;
    mmnc_params_default(&prm);
    prm.k = K;
    prm.algorithm = MMNC_ALG_DMM;
    prm.col_clusters = L;
    prm.seed = 3;
    CHECK_OK(mmnc_cluster(p, &prm, &r, &e));
    prm.k = 2;
    prm.col_clusters = 2;
    CHECK_OK(mmnc_cluster(ps, &prm, &rs, &e));
    if (!r || !rs) goto done;
    m = model_of(p, r, MMNC_ALG_DMM, MMNC_REFINE_NONE);
    ms = model_of(ps, rs, MMNC_ALG_DMM, MMNC_REFINE_NONE);
    CHECK(m && ms && m->l == L && m->cluster_rows && ms->l == 2 && ms->cluster_rows);
    if (!m || !ms || !m->cluster_rows || !ms->cluster_rows) goto done;
    CHECK_OK(mmnc_model_predict(m, A, NULL, lab, proba, NULL, &e));
    for (mmnc_int y = 0; y < NY; y++) {
        double sc[K], cw[L] = {0}, n = 0.0, best = -INFINITY;
        for (mmnc_int e2 = A->rowptr[y]; e2 < A->rowptr[y + 1]; e2++)
            cw[m->col_label[A->colind[e2]]] += A->val[e2], n += A->val[e2];
        for (mmnc_int z = 0; z < K; z++) {
            double nz = m->pz[z] * m->train_mass + L * m->dmm_beta;
            sc[z] = log(m->cluster_rows[z] + m->dmm_alpha) - (lgamma(nz + n) - lgamma(nz));
            for (mmnc_int w = 0; w < L; w++) {
                double a = m->block_pz[z * L + w] * m->train_mass + m->dmm_beta;
                sc[z] += lgamma(a + cw[w]) - lgamma(a);
            }
            if (sc[z] > best) best = sc[z];
        }
        ok &= sc[lab[y]] >= best - 1e-9 * fabs(best);
        for (mmnc_int z = 0; z < K; z++)
            ok &= fabs(proba[y * K + z] / proba[y * K + lab[y]] - exp(sc[z] - sc[lab[y]])) < 1e-6;
        same += lab[y] == r->label[y];
    }
    CHECK(ok);
    printf("dmm co-clustering model: %d of %d training rows predicted at their label\n", same, (int)NY);
    CHECK(same >= NY - 3);
    {
        double total = total_probability(ms);
        printf("loglik, dmm co-clustering (L = 2 of 3 columns): total probability %.15f\n", total);
        CHECK(fabs(total - 1.0) < 1e-12);
    }
done:
    mmnc_model_free(m);
    mmnc_model_free(ms);
    mmnc_result_free(r);
    mmnc_result_free(rs);
    mmnc_pmf_free(p);
    mmnc_pmf_free(ps);
    mmnc_csr_free(A);
    mmnc_csr_free(S);
}

int main(void)
{
    test_round_trip_and_refusals();
    test_training_rows();
    test_held_out();
    test_match_and_threads();
    test_version1();
    test_col_clusters();
    test_held_rows();
    test_dmm_rule();
    test_loglik();
    test_dmm_blocks();
    return test_done();
}
