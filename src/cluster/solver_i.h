/*
 * solver_i.h -- private interface between the driver (cluster.c), the
 * starts (init.c), the solvers (nuclear.c, frobenius.c with transport.c,
 * information.c with moves.c), the default's chain (default.c) and the
 * selection rules (select.c).
 */
#ifndef MMNC_SOLVER_I_H
#define MMNC_SOLVER_I_H

#include <math.h>
#include <string.h>

#include "linalg/kernel_i.h"

/* One start's outcome. */
typedef struct mmnc_i_run {
    double objective;
    int iterations;
    int converged;
    int prior_kept; /* the size prior's verdict where the information moves ran with one (a start of the
                       default, or a refinement): 1 the prior's partition was kept, 0 the guard returned
                       the prior-free one (default.c); -1 no prior applied */
    int prior_why;  /* prior_kept = 0: the guard's reason, MMNC_PRIOR_NORM or MMNC_PRIOR_PREDICTIVE; else 0 */
    double information; /* I(X;Z) of the partition returned, where a start of the default sets it; else 0 */
    double dmm_alpha, dmm_beta; /* MMNC_ALG_DMM: the evidence's alpha and beta at the end; else 0 */
} mmnc_i_run;
/* A run before its start: no prior applied yet. */
#define MMNC_I_RUN_INIT {0.0, 0, 0, -1, 0, 0.0, 0.0, 0.0}

/* mmnc_cluster with the solvers' switches (mmnc_i_tuning); mmnc_cluster is
 * this with MMNC_I_TUNING_DEFAULT. */
int mmnc_i_cluster(const mmnc_pmf *p, const mmnc_params *prm, const mmnc_i_tuning *tune, mmnc_result **out,
                   mmnc_err *err);

/* Entries of a start's tables of the information moves (|X| k twice, |Y|
 * k costs) up to which starts and merge-split trials run side by side, one
 * thread each: at most 256 MB a start. */
#define MMNC_I_SIDE_BY_SIDE_ENTRIES ((mmnc_int)1 << 25)
static inline int mmnc_i_moves_side_by_side(const mmnc_pmf *p, mmnc_int k)
{
    return (2 * p->nx + p->ny) * k <= MMNC_I_SIDE_BY_SIDE_ENTRIES;
}

/* lab[y] = argmax_z W[y*k + z], the smallest z on ties: the labels of a
 * result (one-hot W: the cluster of row y). */
static inline void mmnc_i_argmax_labels(mmnc_int k, mmnc_int ny, const double *W, mmnc_int *lab)
{
    for (mmnc_int y = 0; y < ny; y++) {
        mmnc_int best = 0;
        for (mmnc_int z = 1; z < k; z++)
            if (W[y * k + z] > W[y * k + best]) best = z;
        lab[y] = best;
    }
}

/* mmnc_params_check's part for fixed_label (this rank's ny rows): NULL or
 * the message.  dist: the pmf whose ranks hold the other rows (the counts
 * then over all ranks; collective), or NULL for ny rows alone. */
const char *mmnc_i_fixed_check(const mmnc_params *p, const mmnc_int *fixed, mmnc_int ny, const mmnc_pmf *dist);

/* Report an iteration to the caller's progress function, if any:
 * MMNC_ECANCELED (with a message) when it asks to stop, else MMNC_OK. */
int mmnc_i_progress(const mmnc_params *prm, int restart, int iter, double objective, mmnc_err *err);
/* Report an event (mmnc_event: its kind and fields; restarts and max_iter
 * from prm) to the caller's event function, if any: MMNC_ECANCELED (with a
 * message) when it asks to stop, else MMNC_OK. */
int mmnc_i_event(const mmnc_params *prm, int kind, int restart, int iter, int converged, const char *phase,
                 double objective, mmnc_err *err);
/* An event of a phase (MMNC_EV_PHASE) of `restart` (-1: none). */
static inline int mmnc_i_phase(const mmnc_params *prm, int restart, const char *phase, mmnc_err *err)
{
    return mmnc_i_event(prm, MMNC_EV_PHASE, restart, 0, 0, phase, NAN, err);
}

/* Spectral embedding for starts: rows of [P_Y]^{-1/2} U_{2..k} (ny x (k-1)),
 * from the DTM's k leading left singular vectors, seeded by prm->seed; its
 * iterations are reported to prm->progress with restart -1. */
int mmnc_i_spectral_embedding(const mmnc_pmf *p, mmnc_int k, const mmnc_params *prm, double *emb, mmnc_err *err);

/* mmnc_dtm_svds (no V) that calls fn (may be NULL) after each iteration with
 * (ctx, restart, iteration, the change that tol is compared with); MMNC_ECANCELED
 * when it returns nonzero (svd.c). */
int mmnc_i_svds_progress(const mmnc_pmf *p, mmnc_int r, double tol, int maxit, uint64_t seed, mmnc_progress_fn fn,
                         void *ctx, int restart, double *sigma, double *U, mmnc_err *err);

/* Initial hard labels by `method` (mmnc_init).  emb is the spectral
 * embedding (needed for MMNC_INIT_SPECTRAL).  No cluster is left empty. */
int mmnc_i_init_labels(const mmnc_pmf *p, mmnc_int k, int method, const double *emb, mmnc_rng *rng,
                       mmnc_int *labels, mmnc_err *err);

/* A global row drawn with probability w[y] / sum(w) over all ranks' rows (w:
 * this rank's weights), the same on every rank; -1 (MMNC_ENOMEM) if memory
 * ran out.  Collective. */
int64_t mmnc_i_draw_row(const mmnc_pmf *p, const double *w, mmnc_rng *rng, mmnc_err *err);

/* The starts of a semi-supervised run (seeded.c): start 0 seeded k-means
 * from the held rows (fixed[y] >= 0), the others `method`'s start
 * renumbered to agree with them; held rows at their labels, no cluster
 * empty.  Collective. */
int mmnc_i_seeded_labels(const mmnc_pmf *p, mmnc_int k, const mmnc_int *fixed, int start, int method,
                         const double *emb, mmnc_rng *rng, mmnc_int *labels, mmnc_err *err);
/* The semi-supervision rule's transduction (seeded.c): from labels (start
 * 0's seeded classifier), hard EM over all rows, at most MMNC_I_SEMI_SWEEPS
 * sweeps; held rows at their labels, no cluster empty.  Collective. */
#define MMNC_I_SEMI_SWEEPS 50
/* The seeded centres' weights on the labelled rows' own column
 * distribution that the held rows choose from (seeded.c: q(x|z) =
 * l T(x,z) / P(z) + (1 - l) P(x)), in increasing order. */
#define MMNC_I_SEMI_CENTRES {0.5, 0.8, 0.95}
int mmnc_i_semi_transduce(const mmnc_pmf *p, mmnc_int k, const mmnc_int *fixed, mmnc_int *labels, mmnc_err *err);

/* Give every empty cluster one row, taken from a cluster with at least two
 * rows: the row with the smallest score[y] (the row's score in its cluster)
 * when score is given (ties to the lower row), else the first row from a random position
 * on.  Distributed: over all ranks' rows (collective), the same choice as
 * one process. */
/* Cluster sizes over all ranks (collective). */
void mmnc_i_label_counts(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels, int64_t *count);
/* counted: the sizes from mmnc_i_label_counts (updated), or NULL to count here. */
void mmnc_i_fill_empty(const mmnc_pmf *p, mmnc_int k, mmnc_int *labels, int64_t *counted, const double *score,
                       mmnc_rng *rng);

/* Algorithm 2's score matrix Mp = D_z^{-1/2} U_+ S_+^{-1} U_+^T D_z^{-1/2} from
 * the spectrum of B_{Z,X} (mmnc_i_spectrum), over the singular values above
 * 1e-10 sigma_1, so that a row's scores are c = s Mp with s = P_{y,X} [P_X]^{-1}
 * T (nuclear.c; also the out-of-sample rule of model.c).  O(k^3). */
void mmnc_i_score_matrix(mmnc_int k, const double *sigma, const double *U, const double *pz, double *Mp);

/* Algorithm 2 from the hard start `labels`.  Without a prescribed P_Z the
 * result is hard (labels updated, W filled one-hot); with prm->pz it is the
 * LP's soft W (labels = argmax). */
int mmnc_i_nuclear(const mmnc_pmf *p, const mmnc_params *prm, const mmnc_i_tuning *tune, int restart,
                   mmnc_int *labels, double *W, mmnc_i_run *run, mmnc_err *err);

/* The information objective (information.c).  J = I(X;Z) - gamma (|Y| /
 * nnz_all) H_rows(Z) of the hard clustering whose sums are T (nx x k, the
 * input's columns), pz and nc (rows per cluster, all ranks), summed exactly:
 * the same bits however the clusters are numbered and for any number of
 * ranks.  O(k nx). */
double mmnc_i_info_objective(const mmnc_pmf *p, mmnc_int k, const double *T, const double *pz, const int64_t *nc,
                             double gamma, int64_t nnz_all);
/* The sweeps of one phase on the moves m (moves_i.h): the moves of J with
 * weight gamma (0: I(X;Z)) until a sweep moves no row or fewer than `few`
 * (run->converged 1), or *it (the sweeps so far, counted on) reaches
 * prm->max_iter; run->iterations = *it, *settled: the last sweep moved no
 * row.  Each sweep is reported to prm->progress as iteration *it of
 * `restart` (polish and phase: for MMNC_TRACE_SWEEPS).  Collective. */
typedef struct mmnc_i_moves mmnc_i_moves;
int mmnc_i_info_sweeps(mmnc_i_moves *m, const mmnc_params *prm, int restart, int polish, int phase, double gamma,
                       double few, mmnc_int *labels, int *it, mmnc_i_run *run, int *settled, mmnc_err *err);
/* A polish: the moves of J (prior = 1) or of I(X;Z) alone (0) from
 * `labels` until no row moves, at most prm->max_iter sweeps; labels
 * updated, W one-hot, run->objective = J (with prm->size_prior) of the
 * result.  Collective. */
int mmnc_i_information(const mmnc_pmf *p, const mmnc_params *prm, const mmnc_i_tuning *tune, int restart, int prior,
                       mmnc_int *labels, double *W, mmnc_i_run *run, mmnc_err *err);

/* The Dirichlet multinomial mixture's evidence by single-row moves from
 * the hard start `labels` (dmm.c): a phase ends when a sweep moves no row
 * or fewer than `few`; labels updated, W one-hot, run->objective = the evidence over
 * the total count, run->dmm_alpha and dmm_beta its parameters.  Given
 * run->dmm_alpha and dmm_beta > 0 (a polish), the run starts from them
 * in the second phase. */
int mmnc_i_dmm(const mmnc_pmf *p, const mmnc_params *prm, int restart, double few, mmnc_int *labels, double *W,
               mmnc_i_run *run, mmnc_err *err);
/* The objective of mmnc_i_dmm for hard labels, alpha and beta fitted to
 * them (beta >= `beta`, as mmnc_params.dmm_beta): the evidence over the
 * total count; fit (or NULL) receives the fitted dmm_alpha and dmm_beta.
 * Not distributed. */
int mmnc_i_dmm_objective(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels, double beta, double *objective,
                         mmnc_i_run *fit, mmnc_err *err);
/* For the tests: g(y, c) of every cluster c as the moves score row y
 * against the sums of `labels` at alpha and beta, into g (k), and as
 * the two-cluster form (gains2) scores them, into g2 (k).  One process. */
int mmnc_i_dmm_gains(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels, double alpha, double beta, mmnc_int y,
                     double *g, double *g2, mmnc_err *err);

/* Algorithm 1 from the hard start `labels`; W (k x ny) is the soft result. */
int mmnc_i_frobenius(const mmnc_pmf *p, const mmnc_params *prm, double lambda, double step, int restart,
                     const mmnc_int *labels, double *W, mmnc_i_run *run, mmnc_err *err);

/* Algorithm 1 with the exact marginal: LP ascent steps on ||B_{Z,X}||_F^2
 * with P_Z = prm->pz (uniform if NULL).  Needs GLPK. */
int mmnc_i_frobenius_exact(const mmnc_pmf *p, const mmnc_params *prm, int restart, const mmnc_int *labels,
                           double *W, mmnc_i_run *run, mmnc_err *err);

/* The mean adjusted Rand index of the n(n-1)/2 pairs of the n partitions
 * parts[i * p->ny + y] (labels 0..k-1 of this rank's rows), rows counted
 * alike, over all ranks' rows (collective; the same bits for any number of
 * ranks: the pairs' tables are counted exactly).  n >= 2.  O(n^2 (|Y| + k^2))
 * time, at most 4M entries of table at a time (select.c). */
int mmnc_i_agreement(const mmnc_pmf *p, mmnc_int k, int n, const int32_t *parts, double *mean_ari, mmnc_err *err);

/* Leave-one-row-out predictive information of hard labels (select.c): the
 * score G and its pseudo-mass (in average rows) of mmnc_result.  Collective.
 * O(nnz + nx k) time, nx k memory. */
int mmnc_i_loo_score(const mmnc_pmf *p, mmnc_int k, const mmnc_int *labels, double *score, double *alpha,
                     mmnc_err *err);
/* The guarded rule: among the starts with ok[i] and score[i] >= max - tol |max|, the
 * best objective (ties to the lower start); -1 if no start is ok. */
int mmnc_i_select(int nstarts, const double *objective, const double *score, const int *ok, double tol);

/* Transportation LP: maximise sum_{y,z} C[y*k+z] W[y*k+z] over W >= 0 with
 * sum_z W[.,y] = 1 and sum_y W[z,y] py[y] = pz[z].  The state keeps the
 * GLPK problem between calls so that later solves start from the previous
 * basis. */
typedef struct mmnc_i_transport mmnc_i_transport;
int mmnc_i_transport_new(const mmnc_pmf *p, mmnc_int k, const double *pz, mmnc_i_transport **out, mmnc_err *err);
int mmnc_i_transport_solve(mmnc_i_transport *t, const double *C, double *W, mmnc_err *err);
void mmnc_i_transport_free(mmnc_i_transport *t);

/* A loop's clones for vector units from none to the widest, chosen once
 * at load time (GCC on x86-64): the same bits in each where the loop sums
 * in the same order and calls mmnc_i_flog, and the file is compiled without
 * contracted multiply-adds (CMakeLists.txt); not under the sanitizers,
 * which do not take ifuncs. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#define MMNC_I_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define MMNC_I_VECTOR_CLONES
#endif

/* The natural logarithm of a positive normal v by arithmetic alone, no
 * table and no branch, so that the loops of the moves vectorise and give the
 * same bits at any vector width and on any machine: v = 2^e m with m in
 * [sqrt(1/2), sqrt(2)), log m = 2 atanh(s) with s = (m - 1) / (m + 1),
 * |s| <= 0.1716, summed to s^19 (the first term left out is below 2^-55 of
 * the sum), and e log 2 in two parts.  Within a few ulp of log(v)
 * (tests/test_information.c).  The information moves' logarithm
 * (moves.c); needs <string.h>.  Its bits are the same only without
 * contracted multiply-adds (CMakeLists.txt compiles moves.c with
 * -ffp-contract=off). */
static inline double mmnc_i_flog(double v)
{
    uint64_t u, ue;
    double m, e, s, z, q;
    memcpy(&u, &v, sizeof u);
    ue = (u >> 52) | 0x4330000000000000ULL; /* 2^52 + the biased exponent */
    memcpy(&e, &ue, sizeof e);
    e -= 4503599627370496.0 + 1023.0;
    u = (u & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL; /* m in [1, 2) */
    memcpy(&m, &u, sizeof m);
    {
        double e1 = e + 1.0, mh = m * 0.5; /* both made, one chosen: no branch */
        int big = m > 1.4142135623730951;
        e = big ? e1 : e;
        m = big ? mh : m;
    }
    s = (m - 1.0) / (m + 1.0);
    z = s * s;
    q = 1.0 / 19.0;
    q = q * z + 1.0 / 17.0;
    q = q * z + 1.0 / 15.0;
    q = q * z + 1.0 / 13.0;
    q = q * z + 1.0 / 11.0;
    q = q * z + 1.0 / 9.0;
    q = q * z + 1.0 / 7.0;
    q = q * z + 1.0 / 5.0;
    q = q * z + 1.0 / 3.0;
    q = q * z + 1.0;
    /* log 2 = 6.93147180369123816490e-01 (exact times any e here) + 1.90821492927058770002e-10 */
    return e * 6.93147180369123816490e-01 + (e * 1.90821492927058770002e-10 + 2.0 * s * q);
}

#endif
