/*
 * frobenius.c -- Algorithm 1 of the paper: maximal Frobenius norm coupling
 * by projected gradient ascent with a marginal penalty.
 *
 *   maximise    f(A) = ||A B||_F^2 - lambda ||A sqrt(P_Y) - sqrt(P_Z)||_2^2
 *   subject to  A^T sqrt(P_Z) = sqrt(P_Y),  A >= 0                (paper, eq. (17))
 *
 * with B = B_{Y,X} and A = B_{Z,Y} = [P_Z]^{-1/2} W [P_Y]^{1/2}, P_Z the
 * target marginal.  The constraint says W = P_{Z|Y} is column-stochastic.
 * The step is the paper's (Algorithm 1, line 7):
 *
 *   A <- proj( A + alpha (A B B^T - lambda (A sqrt(P_Y) - sqrt(P_Z)) sqrt(P_Y)^T) )
 *
 * where A B B^T is computed as (A B) B^T, two O(nnz k) sparse products, and
 * proj maps each column a onto {a >= 0, sqrt(P_Z) . a = sqrt(P_Y(y))}, a
 * weighted simplex: a_z = max(b_z - tau sqrt(P_Z(z)), 0) with tau found
 * exactly from the sorted breakpoints b_z / sqrt(P_Z(z)), O(k log k).
 *
 * Step size.  B B^T has sqrt(P_Y) as top eigenvector with eigenvalue 1,
 * so along the marginal direction the step multiplies the deviation
 * A sqrt(P_Y) - sqrt(P_Z) by 1 + alpha (1 - lambda): it oscillates once
 * alpha (lambda - 1) > 1 and diverges past 2.  The default alpha =
 * 1 / lambda makes that factor 1 / lambda (the deviation is nearly removed
 * each step) while every other direction grows by 1 + alpha sigma_i^2 <= 2.
 * Default lambda = 10 holds P_Z within a few percent on the test problems.
 *
 * The small step that the stiff marginal direction forces makes plain
 * ascent slow along the others, so the step carries heavy-ball momentum
 * 0.9 (Polyak): the stiff direction stays stable (alpha (lambda - 1) <
 * 2 (1 + 0.9)), the others move about ten times further per step, and the
 * fixed points are those of the plain projected step.  The momentum is dropped for one step whenever the
 * objective decreases (adaptive restart, O'Donoghue and Candes 2015).
 *
 * Start: W0 = 0.8 W_start + 0.2 P_Z 1^T from a hard start, entry-wise
 * positive as the paper requires (the uniform W = P_Z 1^T is a stationary
 * point, so a start must break the symmetry).  Stop when
 * max |W_t - W_{t-1}| < tol, or when the objective gained less than tol
 * (relative) over the last 10 steps, or after max_iter steps.
 *
 * Held rows (mmnc_params.fixed_label): their columns of A are one-hot,
 * A(z, y) = [z = label] sqrt(P_Y(y) / P_Z(z)) (W's column e_label, on the
 * constraint set), from the start on, and take no step: the ascent runs
 * over the free columns, the penalty and the norm over all.  The exact
 * marginal with held rows is refused (mmnc_params_check).
 */
#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cluster/solver_i.h"

#define MOMENTUM 0.9

/* Project b (k) onto {a >= 0, w . a = c}; idx (k) and bp (k) are scratch. */
static void project(mmnc_int k, const double *w, double c, double *a, mmnc_int *idx, double *bp)
{
    double sw = 0.0, swb = 0.0, tau = 0.0;
    /* sort the breakpoints a_z / w_z, descending, with their indices
     * (insertion sort: k is small; each breakpoint divided once) */
    for (mmnc_int i = 0; i < k; i++) {
        double t = a[i] / w[i];
        mmnc_int j = i;
        while (j > 0 && bp[j - 1] < t) {
            idx[j] = idx[j - 1];
            bp[j] = bp[j - 1];
            j--;
        }
        idx[j] = i;
        bp[j] = t;
    }
    for (mmnc_int j = 0; j < k; j++) {
        mmnc_int z = idx[j];
        sw += w[z] * w[z];
        swb += w[z] * a[z];
        tau = (swb - c) / sw;
        if (j + 1 == k || tau >= bp[j + 1]) break;
    }
    for (mmnc_int z = 0; z < k; z++) {
        double t = a[z] - tau * w[z];
        a[z] = t > 0.0 ? t : 0.0;
    }
}

/* Algorithm 1 from the hard start labels (solver_i.h): the iteration
 * (gradient, momentum, stopping rule, projected step) written out in one
 * function in the order of the paper's listing, so that the two read
 * alike; the projection is project() above. */
int mmnc_i_frobenius(const mmnc_pmf *p, const mmnc_params *prm, double lambda, double step, int restart,
                     const mmnc_int *labels, double *W, mmnc_i_run *run, mmnc_err *err)
{
    mmnc_int k = prm->k, ny = p->ny, nx = p->nx;
    const mmnc_csr *P = p->P, *Pt = p->Pt;
    double *A = NULL, *R = NULL, *Q = NULL, *v = NULL, *w = NULL, *isx = NULL, *dev = NULL, *part = NULL;
    double *bv = NULL, *btv = NULL; /* DTM entries in the order of P and of Pt */
    double *Aprev = NULL, prev_obj = -INFINITY, mom = 0.0, obj10 = -INFINITY;
    mmnc_int *scratch = NULL, stride = (k + 7) / 8 * 8 + 8; /* per thread, on cache lines of its own */
    double *bps = NULL;
    mmnc_i_gather_fn gather = mmnc_i_gather_for(k); /* k fixed at compile time up to 16 */
    int status = MMNC_OK, it, nthreads = 1;
    double obj = 0.0;
#ifdef _OPENMP
    nthreads = omp_get_max_threads();
#endif
    MMNC_ALLOC(A, ny * k, err, status);
    MMNC_ALLOC(Aprev, ny * k, err, status);
    MMNC_ALLOC(bv, p->nnz, err, status);
    if (Pt) MMNC_ALLOC(btv, p->nnz, err, status);
    MMNC_ALLOC(R, nx * k, err, status);
    MMNC_ALLOC(Q, ny * k, err, status);
    MMNC_ALLOC(v, ny, err, status);
    MMNC_ALLOC(w, k, err, status);
    MMNC_ALLOC(isx, nx, err, status);
    MMNC_ALLOC(dev, k, err, status);
    MMNC_ALLOC(scratch, (mmnc_int)nthreads * stride, err, status);
    MMNC_ALLOC(bps, (mmnc_int)nthreads * stride, err, status);
    MMNC_ALLOC(part, (ny + 4095) / 4096 + 1, err, status);
    for (mmnc_int y = 0; y < ny; y++) v[y] = sqrt(p->py[y]);
    for (mmnc_int x = 0; x < nx; x++) isx[x] = 1.0 / sqrt(p->px[x]);
    for (mmnc_int y = 0; y < ny; y++)
        for (mmnc_int e = P->rowptr[y]; e < P->rowptr[y + 1]; e++) bv[e] = P->val[e] * isx[P->colind[e]] / v[y];
    if (Pt)
        for (mmnc_int x = 0; x < nx; x++)
            for (mmnc_int e = Pt->rowptr[x]; e < Pt->rowptr[x + 1]; e++) btv[e] = Pt->val[e] * isx[x] / v[Pt->colind[e]];
    for (mmnc_int z = 0; z < k; z++) w[z] = prm->pz ? sqrt(prm->pz[z]) : sqrt(1.0 / (double)k);
    for (mmnc_int y = 0; y < ny; y++)
        for (mmnc_int z = 0; z < k; z++) {
            double wz = 0.2 * w[z] * w[z] + (labels[y] == z ? 0.8 : 0.0);
            A[y * k + z] = wz * v[y] / w[z];
        }
    if (prm->fixed_label) /* a held row's column: W = e_label, A = [P_Z]^{-1/2} e_label sqrt(P_Y(y)), for good */
        for (mmnc_int y = 0; y < ny; y++)
            if (prm->fixed_label[y] >= 0)
                for (mmnc_int z = 0; z < k; z++) A[y * k + z] = z == prm->fixed_label[y] ? v[y] / w[z] : 0.0;
    memcpy(Aprev, A, (size_t)(ny * k) * sizeof(double));
    run->converged = 0;
    for (it = 0; it < prm->max_iter; it++) {
        double fro2 = 0.0, pen = 0.0, change = 0.0;
        /* R = (A B)^T, nx x k, by columns of P (without P^T: the rows of P
         * scattered, the same sums) */
        if (!Pt) mmnc_i_col_scatter(p, k, NULL, NULL, A, bv, NULL, R);
        else
#pragma omp parallel for schedule(dynamic, 256) if (p->nnz * k > MMNC_I_OMP_MIN_WORK)
        for (mmnc_int x = 0; x < nx; x++)
            gather(Pt->colind, btv, Pt->rowptr[x], Pt->rowptr[x + 1], Pt->nnz, A, k, R + x * k);
        mmnc_i_dsum(p, R, nx * k); /* distributed: the ranks' parts of A B */
        for (mmnc_int x = 0; x < nx; x++)
            for (mmnc_int z = 0; z < k; z++) fro2 += R[x * k + z] * R[x * k + z];
        /* Q = (A B) B^T, ny x k, by rows of P */
#pragma omp parallel for schedule(dynamic, 256) if (p->nnz * k > MMNC_I_OMP_MIN_WORK)
        for (mmnc_int y = 0; y < ny; y++)
            gather(P->colind, bv, P->rowptr[y], P->rowptr[y + 1], P->nnz, R, k, Q + y * k);
        /* marginal deviation A sqrt(P_Y) - sqrt(P_Z) (serial: fixed order) */
        for (mmnc_int z = 0; z < k; z++) dev[z] = p->y0 == 0 ? -w[z] : 0.0; /* once, on the first rank */
        for (mmnc_int y = 0; y < ny; y++)
            for (mmnc_int z = 0; z < k; z++) dev[z] += A[y * k + z] * v[y];
        mmnc_i_dsum(p, dev, k);
        for (mmnc_int z = 0; z < k; z++) pen += dev[z] * dev[z];
        obj = fro2 - lambda * pen;
        if ((status = mmnc_i_progress(prm, restart, it, obj, err)) != MMNC_OK) goto cleanup;
        /* heavy-ball momentum, reset whenever the objective drops (adaptive restart) */
        mom = (obj < prev_obj) ? 0.0 : MOMENTUM;
        prev_obj = obj;
        /* plateau: less than tol relative gain over the last 10 iterations */
        if (it % 10 == 0) {
            if (it > 0 && obj - obj10 <= prm->tol * fabs(obj)) {
                run->converged = 1;
                it++;
                break;
            }
            obj10 = obj;
        }
        /* gradient step and projection, column by column; max |dW| per block */
        mmnc_int nb = (ny + 4095) / 4096;
#pragma omp parallel for schedule(dynamic, 2) if (nb > 1) /* rows differ in cost: balance them */
        for (mmnc_int b = 0; b < nb; b++) {
            int tid = 0;
#ifdef _OPENMP
            tid = omp_get_thread_num();
#endif
            double ch = 0.0, old[64];
            mmnc_int end = (b + 1) * 4096 < ny ? (b + 1) * 4096 : ny;
            for (mmnc_int y = b * 4096; y < end; y++) {
                double *a = A + y * k;
                double dmax = 0.0;
                if (prm->fixed_label && prm->fixed_label[y] >= 0) continue; /* held: no step */
                double *ap = Aprev + y * k;
                /* the pre-step row, to measure the change: on the stack for
                 * small k, else over this row of Q once each entry is used */
                double *prev = k <= 64 ? old : Q + y * k;
                for (mmnc_int z = 0; z < k; z++) {
                    double cur = a[z];
                    a[z] += step * (Q[y * k + z] - lambda * dev[z] * v[y]) + mom * (cur - ap[z]);
                    ap[z] = cur;
                    prev[z] = cur;
                }
                project(k, w, v[y], a, scratch + (mmnc_int)tid * stride, bps + (mmnc_int)tid * stride);
                for (mmnc_int z = 0; z < k; z++) {
                    double d = fabs(a[z] - prev[z]) * w[z] / v[y];
                    if (d > dmax) dmax = d;
                }
                if (dmax > ch) ch = dmax;
            }
            part[b] = ch;
        }
        for (mmnc_int b = 0; b < nb; b++)
            if (part[b] > change) change = part[b];
        mmnc_i_dmax(p, &change, 1);
        if (change < prm->tol) {
            run->converged = 1;
            it++;
            break;
        }
    }
    run->iterations = it;
    run->objective = obj;
    /* W = [P_Z]^{1/2} A [P_Y]^{-1/2}, renormalised against round-off */
    for (mmnc_int y = 0; y < ny; y++) {
        double s = 0.0;
        for (mmnc_int z = 0; z < k; z++) {
            double t = A[y * k + z] * w[z] / v[y];
            W[y * k + z] = t > 0.0 ? t : 0.0;
            s += W[y * k + z];
        }
        for (mmnc_int z = 0; z < k; z++) W[y * k + z] = s > 0.0 ? W[y * k + z] / s : 1.0 / (double)k;
        if (prm->fixed_label && prm->fixed_label[y] >= 0)
            for (mmnc_int z = 0; z < k; z++) W[y * k + z] = z == prm->fixed_label[y] ? 1.0 : 0.0;
    }
cleanup:
    mmnc_i_free(A);
    mmnc_i_free(Aprev);
    mmnc_i_free(bv);
    mmnc_i_free(btv);
    mmnc_i_free(R);
    mmnc_i_free(Q);
    mmnc_i_free(v);
    mmnc_i_free(w);
    mmnc_i_free(isx);
    mmnc_i_free(dev);
    mmnc_i_free(scratch);
    mmnc_i_free(bps);
    mmnc_i_free(part);
    return status;
}

/*
 * Algorithm 1 with the exact marginal (paper, eq. (9) with P_Z fixed):
 *
 *   maximise    F(W) = ||[P_Z]^{-1/2} W P_{Y,X} [P_X]^{-1/2}||_F^2
 *   subject to  W column-stochastic,  W P_Y = P_Z
 *
 * F is a convex quadratic in W (P_Z fixed), so stepping to the maximiser of
 * its linearisation over the feasible polytope never lowers it:
 * F(W') >= F(W) + <grad F(W), W' - W> >= F(W).  The gradient is
 * 2 [P_Z]^{-1} W P [P_X]^{-1} P^T, i.e. 2 S / P_Z with S = P [P_X]^{-1} T,
 * one O(nnz k) product, and the step is the same transportation LP as
 * Algorithm 2's (transport.c).  The hard start is off the marginal, so the
 * guarantee holds from the first LP step on.  No lambda, no step size.  Stops when W or
 * F stop changing, or after max_iter LP steps.
 */
int mmnc_i_frobenius_exact(const mmnc_pmf *p, const mmnc_params *prm, int restart, const mmnc_int *labels,
                           double *W, mmnc_i_run *run, mmnc_err *err)
{
    mmnc_int k = prm->k, ny = p->ny, nx = p->nx;
    double *T = NULL, *Tx = NULL, *S = NULL, *C = NULL, *Wn = NULL, *pz = NULL, obj = -INFINITY;
    mmnc_i_transport *tp = NULL;
    int status = MMNC_OK, it;
    MMNC_ALLOC(T, nx * k, err, status);
    MMNC_ALLOC(Tx, nx * k, err, status);
    MMNC_ALLOC(S, ny * k, err, status);
    MMNC_ALLOC(C, ny * k, err, status);
    MMNC_ALLOC(Wn, ny * k, err, status);
    MMNC_ALLOC(pz, k, err, status);
    for (mmnc_int z = 0; z < k; z++) pz[z] = prm->pz ? prm->pz[z] : 1.0 / (double)k;
    if ((status = mmnc_i_transport_new(p, k, pz, &tp, err)) != MMNC_OK) goto cleanup;
    memset(W, 0, (size_t)(ny * k) * sizeof(double));
    for (mmnc_int y = 0; y < ny; y++) W[y * k + labels[y]] = 1.0;
    run->converged = 0;
    for (it = 0; it <= prm->max_iter; it++) {
        double f = 0.0, change = 0.0;
        mmnc_i_pzx(p, k, NULL, W, T);
        mmnc_i_row_gather(p, k, T, Tx, S);
        for (mmnc_int y = 0; y < ny; y++)
            for (mmnc_int z = 0; z < k; z++) {
                f += W[y * k + z] * S[y * k + z] / pz[z];
                C[y * k + z] = 2.0 * S[y * k + z] / pz[z];
            }
        mmnc_i_dsum(p, &f, 1);
        if ((status = mmnc_i_progress(prm, restart, it, f, err)) != MMNC_OK) goto cleanup;
        /* The start is off the marginal, so only steps from a feasible plan
         * (it >= 2) are guaranteed not to lower F. */
        if (it > 1 && f <= obj * (1.0 + 1e-12)) { /* no gain: keep the previous plan */
            if (f < obj) memcpy(W, Wn, (size_t)(ny * k) * sizeof(double));
            else obj = f;
            run->converged = 1;
            break;
        }
        obj = f;
        if (it == prm->max_iter) break;
        memcpy(Wn, W, (size_t)(ny * k) * sizeof(double)); /* Wn: the plan we may fall back to */
        if ((status = mmnc_i_transport_solve(tp, C, W, err)) != MMNC_OK) goto cleanup;
        for (mmnc_int i = 0; i < ny * k; i++)
            if (fabs(W[i] - Wn[i]) > change) change = fabs(W[i] - Wn[i]);
        mmnc_i_dmax(p, &change, 1);
        if (change < 1e-12) {
            run->converged = 1;
            it++;
            break;
        }
    }
    run->iterations = it;
    run->objective = obj;
cleanup:
    mmnc_i_transport_free(tp);
    mmnc_i_free(T);
    mmnc_i_free(Tx);
    mmnc_i_free(S);
    mmnc_i_free(C);
    mmnc_i_free(Wn);
    mmnc_i_free(pz);
    return status;
}
