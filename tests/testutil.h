/*
 * testutil.h -- a minimal test harness: CHECK macros that count, and a
 * summary line "N passed, N failed" printed by test_done().
 */
#ifndef MMNC_TESTUTIL_H
#define MMNC_TESTUTIL_H

#include <math.h>
#include <stdio.h>
#include "mmnc.h"

extern int test_passed, test_failed;

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (cond) test_passed++;                                                         \
        else {                                                                           \
            test_failed++;                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);     \
        }                                                                                \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                            \
    do {                                                                                 \
        double ca_ = (a), cb_ = (b);                                                     \
        if (fabs(ca_ - cb_) <= (tol)) test_passed++;                                     \
        else {                                                                           \
            test_failed++;                                                               \
            fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.12g, %s = %.12g (tol %g)\n", \
                    __FILE__, __LINE__, #a, ca_, #b, cb_, (double)(tol));                \
        }                                                                                \
    } while (0)

#define CHECK_OK(call)                                                                   \
    do {                                                                                 \
        mmnc_err e_ = {0, ""};                                                           \
        int s_ = (call);                                                                 \
        (void)e_;                                                                        \
        if (s_ == MMNC_OK) test_passed++;                                                \
        else {                                                                           \
            test_failed++;                                                               \
            fprintf(stderr, "%s:%d: %s returned %d\n", __FILE__, __LINE__, #call, s_);   \
        }                                                                                \
    } while (0)

/* Same shape, structure and values, bit for bit. */
int test_csr_equal(const mmnc_csr *A, const mmnc_csr *B);

/* A progress callback's record (mmnc_params.progress = test_trace_record,
 * progress_ctx = a zeroed test_trace): the objective and start of each call;
 * with stop_after set, it asks the run to stop. */
typedef struct test_trace {
    double obj[4096];
    int restart[4096];
    int n;
    int stop_after; /* > 0: ask the run to stop at this call (returns 1) */
} test_trace;
int test_trace_record(void *ctx, int restart, int iter, double obj);

/* A library call that builds a data set: returns its status and *out. */
typedef int (*test_data_fn)(void *ctx, mmnc_data **out, mmnc_err *err);
/* Run fn with the n-th allocation failing, n = 1, 2, ... until it succeeds
 * (the result is freed): returns how many runs failed, and adds to *bad
 * those that did not return MMNC_ENOMEM with *out NULL. */
long test_each_alloc_failure(test_data_fn fn, void *ctx, long *bad);

/* mmnc_cluster(p, prm) with the n-th allocation failing, n = 1, 2, ...
 * until it succeeds: returns how many runs failed, and adds to *bad those
 * that did not return MMNC_ENOMEM with no result. */
long test_cluster_alloc_failures(const mmnc_pmf *p, const mmnc_params *prm, long *bad);

/* Print the summary; returns the process exit status. */
int test_done(void);

/* Path of a file in the source tree (MMNC_SOURCE_DIR/rel), static buffer. */
const char *test_src(const char *rel);

/* Write text to a fresh temporary file; returns its path (static buffer per call index).
 * The file is removed when the program exits. */
const char *test_tmpfile(const char *contents, const char *suffix);

/* Random sparse nr x nc matrix, values 1..9 with the given density, plus an
 * entry in every row and column (so none is empty).  Deterministic. */
mmnc_csr *test_random_csr(mmnc_int nr, mmnc_int nc, double density, uint64_t seed);

/* Planted partition counts: row y in group y mod k, column x in group
 * x mod k, Poisson counts of rate `in` inside the row's group and `out`
 * elsewhere, plus one count in every row and column (none is empty).
 * truth (ny) gets the groups.  Deterministic. */
mmnc_csr *test_planted_csr(mmnc_int ny, mmnc_int nx, mmnc_int k, double in, double out, uint64_t seed,
                           mmnc_int *truth);

#endif
