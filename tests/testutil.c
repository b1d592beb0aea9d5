#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/mmnc_i.h"
#include "testutil.h"

int test_passed = 0, test_failed = 0;

int test_done(void)
{
    printf("%d passed, %d failed\n", test_passed, test_failed);
    return test_failed ? 1 : 0;
}

long test_each_alloc_failure(test_data_fn fn, void *ctx, long *bad)
{
    long failures = 0;
    for (long n = 1;; n++) {
        mmnc_data *d = NULL;
        mmnc_err e;
        int st;
        mmnc_i_fail_after(n);
        st = fn(ctx, &d, &e);
        mmnc_i_fail_after(0);
        if (st == MMNC_OK) {
            mmnc_data_free(d);
            return failures;
        }
        failures++;
        *bad += st != MMNC_ENOMEM || d != NULL;
    }
}

long test_cluster_alloc_failures(const mmnc_pmf *p, const mmnc_params *prm, long *bad)
{
    long failures = 0;
    for (long n = 1;; n++) {
        mmnc_result *r = NULL;
        int st;
        mmnc_i_fail_after(n);
        st = mmnc_cluster(p, prm, &r, NULL);
        mmnc_i_fail_after(0);
        if (st == MMNC_OK) {
            mmnc_result_free(r);
            return failures;
        }
        failures++;
        *bad += st != MMNC_ENOMEM || r != NULL;
    }
}

const char *test_src(const char *rel)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", MMNC_SOURCE_DIR, rel);
    return buf;
}

/* The files test_tmpfile made, removed when the test program exits. */
static char **tmp_made = NULL;
static size_t tmp_count = 0, tmp_cap = 0;

static void tmp_remove(void)
{
    for (size_t i = 0; i < tmp_count; i++) {
        unlink(tmp_made[i]);
        free(tmp_made[i]);
    }
    free(tmp_made);
    tmp_made = NULL;
    tmp_count = tmp_cap = 0;
}

const char *test_tmpfile(const char *contents, const char *suffix)
{
    static char bufs[16][256];
    static int next = 0;
    char *path = bufs[next++ % 16];
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(path, 256, "%s/mmnc_test_XXXXXX%s", dir, suffix ? suffix : "");
    int fd = mkstemps(path, suffix ? (int)strlen(suffix) : 0);
    if (fd < 0) return NULL;
    if (tmp_count == tmp_cap) {
        size_t cap = tmp_cap ? 2 * tmp_cap : 64;
        char **grown = realloc(tmp_made, cap * sizeof *grown);
        if (grown) {
            if (!tmp_made) atexit(tmp_remove);
            tmp_made = grown;
            tmp_cap = cap;
        }
    }
    if (tmp_count < tmp_cap && (tmp_made[tmp_count] = strdup(path)) != NULL) tmp_count++;
    size_t n = strlen(contents);
    if (write(fd, contents, n) != (ssize_t)n) {
        close(fd);
        return NULL;
    }
    close(fd);
    return path;
}

int test_csr_equal(const mmnc_csr *A, const mmnc_csr *B)
{
    if (A->nrows != B->nrows || A->ncols != B->ncols || A->nnz != B->nnz) return 0;
    for (mmnc_int i = 0; i <= A->nrows; i++)
        if (A->rowptr[i] != B->rowptr[i]) return 0;
    for (mmnc_int p = 0; p < A->nnz; p++)
        if (A->colind[p] != B->colind[p] || A->val[p] != B->val[p]) return 0;
    return 1;
}

/* Random sparse nr x nc matrix with every row and column nonzero. */
mmnc_csr *test_random_csr(mmnc_int nr, mmnc_int nc, double density, uint64_t seed)
{
    mmnc_rng rng;
    mmnc_int cap = nr * nc + nr + nc, n = 0;
    mmnc_int *ri = malloc(cap * sizeof(mmnc_int)), *ci = malloc(cap * sizeof(mmnc_int));
    double *v = malloc(cap * sizeof(double));
    mmnc_csr *A = NULL;
    mmnc_rng_seed(&rng, seed);
    for (mmnc_int i = 0; i < nr; i++)
        for (mmnc_int j = 0; j < nc; j++)
            if (mmnc_rng_uniform(&rng) < density) ri[n] = i, ci[n] = j, v[n++] = 1 + mmnc_rng_below(&rng, 9);
    for (mmnc_int i = 0; i < nr; i++) ri[n] = i, ci[n] = i % nc, v[n++] = 1;
    for (mmnc_int j = 0; j < nc; j++) ri[n] = j % nr, ci[n] = j, v[n++] = 1;
    mmnc_csr_from_triplets(nr, nc, n, ri, ci, v, &A, NULL);
    free(ri), free(ci), free(v);
    return A;
}

mmnc_csr *test_planted_csr(mmnc_int ny, mmnc_int nx, mmnc_int k, double in, double out, uint64_t seed,
                           mmnc_int *truth)
{
    mmnc_rng rng;
    mmnc_int cap = ny * nx + ny + nx, n = 0;
    mmnc_int *ri = malloc(cap * sizeof(mmnc_int)), *ci = malloc(cap * sizeof(mmnc_int));
    double *v = malloc(cap * sizeof(double));
    mmnc_csr *A = NULL;
    mmnc_rng_seed(&rng, seed);
    for (mmnc_int y = 0; y < ny; y++) {
        truth[y] = y % k;
        for (mmnc_int x = 0; x < nx; x++) {
            double rate = (x % k == truth[y]) ? in : out, L = exp(-rate), prod = mmnc_rng_uniform(&rng);
            int c = 0;
            while (prod > L) c++, prod *= mmnc_rng_uniform(&rng);
            if (c) ri[n] = y, ci[n] = x, v[n++] = c;
        }
        ri[n] = y, ci[n] = y % nx, v[n++] = 1; /* no empty rows */
    }
    for (mmnc_int x = 0; x < nx; x++) ri[n] = x % ny, ci[n] = x, v[n++] = 1;
    mmnc_csr_from_triplets(ny, nx, n, ri, ci, v, &A, NULL);
    free(ri), free(ci), free(v);
    return A;
}

int test_trace_record(void *ctx, int restart, int iter, double obj)
{
    test_trace *t = ctx;
    (void)iter;
    if (t->n < 4096) t->obj[t->n] = obj, t->restart[t->n] = restart, t->n++;
    return t->stop_after > 0 && t->n >= t->stop_after;
}
