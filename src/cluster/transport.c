/*
 * transport.c -- the W step of Algorithm 2 with a prescribed marginal P_Z:
 * a transportation linear program solved exactly by GLPK's simplex method.
 *
 *   maximise    sum_{y,z} C[y,z] W[z,y]
 *   subject to  sum_z W[z,y] = 1                  for every y  (|Y| rows)
 *               sum_y P_Y(y) W[z,y] = P_Z(z)       for z < k-1  (the last
 *                                                  row is implied by the others)
 *               W >= 0
 *
 * An optimal vertex has at most k-1 fractional columns.  Coefficients are
 * scaled by |Y| so that both constraint rows and costs are O(1) for GLPK's
 * absolute tolerances.  The problem object is kept between calls, so each
 * later solve starts from the previous optimal basis (warm start).  GLPK is
 * confined to this file; its error hook turns internal failures into
 * MMNC_ELP instead of abort().
 */
#include <string.h>

#include "cluster/solver_i.h"

#ifdef MMNC_HAVE_GLPK
#include <glpk.h>
#include <limits.h>
#include <setjmp.h>

struct mmnc_i_transport {
    glp_prob *lp;     /* on the root rank only when distributed */
    mmnc_int ny, k;   /* ny: the rows of the LP (all ranks' rows) */
    int solved;
    const mmnc_pmf *p;
    double *Call, *Wall; /* distributed, on the root: all ranks' C and W */
};

/* GLPK's error hook: back to guarded's setjmp instead of GLPK's abort(). */
static void on_glpk_error(void *info)
{
    longjmp(*(jmp_buf *)info, 1);
}

/* fn(arg) with GLPK's error hook set, so that an internal GLPK failure
 * becomes MMNC_ELP (GLPK's environment is freed then, as its manual asks)
 * instead of ending the process. */
static int guarded(int (*fn)(void *), void *arg, mmnc_err *err)
{
    jmp_buf env;
    int rc;
    if (setjmp(env)) {
        glp_error_hook(NULL, NULL);
        glp_free_env();
        return mmnc_i_err(err, MMNC_ELP, "GLPK stopped with an internal error");
    }
    glp_error_hook(on_glpk_error, &env);
    rc = fn(arg);
    glp_error_hook(NULL, NULL);
    return rc;
}

typedef struct build_args {
    mmnc_int ny;
    const double *py;
    mmnc_int k;
    const double *pz;
    mmnc_i_transport *t;
    int *ia, *ja;
    double *ar;
} build_args;

/* Build the LP of the file's comment in a->t->lp: one row per y (sum_z
 * W = 1), k - 1 marginal rows scaled by |Y|, |Y| k nonnegative columns.
 * Run through guarded. */
static int do_build(void *v)
{
    build_args *a = v;
    mmnc_int ny = a->ny, k = a->k, n = 0;
    glp_prob *lp = glp_create_prob();
    a->t->lp = lp;
    glp_set_obj_dir(lp, GLP_MAX);
    glp_add_rows(lp, (int)(ny + k - 1));
    for (mmnc_int y = 0; y < ny; y++) glp_set_row_bnds(lp, (int)y + 1, GLP_FX, 1.0, 1.0);
    for (mmnc_int z = 0; z + 1 < k; z++) {
        double b = a->pz[z] * (double)ny;
        glp_set_row_bnds(lp, (int)(ny + z) + 1, GLP_FX, b, b);
    }
    glp_add_cols(lp, (int)(ny * k));
    for (mmnc_int y = 0; y < ny; y++)
        for (mmnc_int z = 0; z < k; z++) {
            int col = (int)(y * k + z) + 1;
            glp_set_col_bnds(lp, col, GLP_LO, 0.0, 0.0);
            n++;
            a->ia[n] = (int)y + 1;
            a->ja[n] = col;
            a->ar[n] = 1.0;
            if (z + 1 < k) {
                n++;
                a->ia[n] = (int)(ny + z) + 1;
                a->ja[n] = col;
                a->ar[n] = a->py[y] * (double)ny;
            }
        }
    glp_load_matrix(lp, (int)n, a->ia, a->ja, a->ar);
    return MMNC_OK;
}

/*
 * Distributed runs: the LP couples all rows through the marginal rows, so it
 * is solved on rank 0: each step gathers C (|Y| k doubles) there and
 * scatters the plan W back, O(|Y| k) traffic and memory on rank 0 per LP
 * step (docs/mpi.md).  A decomposition by the k marginal multipliers would
 * avoid it; not done.
 */
int mmnc_i_transport_new(const mmnc_pmf *p, mmnc_int k, const double *pz, mmnc_i_transport **out, mmnc_err *err)
{
    int dist = mmnc_i_distributed(p), root = !dist || p->dist->rank == 0;
    build_args a = {p->ny_all, p->py, k, pz, NULL, NULL, NULL, NULL};
    mmnc_int nz = p->ny_all * (2 * k - 1);
    double *pyall = NULL;
    int status = MMNC_OK;
    *out = NULL;
    if (p->ny_all * k >= INT_MAX / 2 || nz >= INT_MAX / 2)
        return mmnc_i_err(err, MMNC_EINVAL, "the transportation LP (%lld x %lld) is too large for GLPK",
                          (long long)k, (long long)p->ny_all);
    MMNC_CALLOC(a.t, 1, err, status);
    a.t->ny = p->ny_all;
    a.t->k = k;
    a.t->p = p;
    if (dist && root) {
        MMNC_ALLOC(pyall, p->ny_all, err, status);
        MMNC_ALLOC(a.t->Call, p->ny_all * k, err, status);
        MMNC_ALLOC(a.t->Wall, p->ny_all * k, err, status);
        a.py = pyall;
    }
cleanup:
    if (dist) {
        if ((status = mmnc_i_agree(p->dist, status, err)) != MMNC_OK) goto done;
        p->dist->gatherv(p->dist, p->py, p->ny, pyall, 0);
    } else if (status != MMNC_OK) {
        goto done;
    }
    if (root) {
        a.ia = mmnc_i_malloc((size_t)nz + 1, sizeof(int));
        a.ja = mmnc_i_malloc((size_t)nz + 1, sizeof(int));
        a.ar = mmnc_i_malloc((size_t)nz + 1, sizeof(double));
        if (!a.ia || !a.ja || !a.ar) status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
        if (status == MMNC_OK) {
            glp_term_out(GLP_OFF);
            if ((status = guarded(do_build, &a, err)) != MMNC_OK) a.t->lp = NULL; /* freed with the environment */
        }
    }
    if (dist) status = mmnc_i_agree(p->dist, status, err);
    if (status == MMNC_OK) {
        *out = a.t;
        a.t = NULL;
    }
done:
    mmnc_i_transport_free(a.t);
    mmnc_i_free(a.ia);
    mmnc_i_free(a.ja);
    mmnc_i_free(a.ar);
    mmnc_i_free(pyall);
    return status;
}

typedef struct solve_args {
    mmnc_i_transport *t;
    const double *C;
    double *W;
    int rc, st;
} solve_args;

/* Set the costs C (scaled by |Y|) and run the simplex method, from the
 * previous basis after the first solve (again from an advanced basis if
 * that fails); W gets the plan, each column clipped at 0 and renormalised
 * against round-off.  Run through guarded. */
static int do_solve(void *v)
{
    solve_args *a = v;
    glp_prob *lp = a->t->lp;
    mmnc_int ny = a->t->ny, k = a->t->k;
    glp_smcp parm;
    for (mmnc_int i = 0; i < ny * k; i++) glp_set_obj_coef(lp, (int)i + 1, a->C[i] * (double)ny);
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = GLP_OFF;
    if (!a->t->solved) {
        glp_scale_prob(lp, GLP_SF_AUTO);
        glp_adv_basis(lp, 0);
    }
    a->rc = glp_simplex(lp, &parm);
    if (a->rc == 0) a->st = glp_get_status(lp);
    if (a->rc != 0 && a->t->solved) { /* a stale basis: start afresh once */
        glp_adv_basis(lp, 0);
        a->rc = glp_simplex(lp, &parm);
        if (a->rc == 0) a->st = glp_get_status(lp);
    }
    if (a->rc == 0 && a->st == GLP_OPT) {
        for (mmnc_int y = 0; y < ny; y++) {
            double s = 0.0;
            for (mmnc_int z = 0; z < k; z++) {
                double w = glp_get_col_prim(lp, (int)(y * k + z) + 1);
                if (w < 0.0) w = 0.0;
                a->W[y * k + z] = w;
                s += w;
            }
            for (mmnc_int z = 0; z < k; z++) a->W[y * k + z] = s > 0 ? a->W[y * k + z] / s : 1.0 / (double)k;
        }
        a->t->solved = 1;
    }
    return MMNC_OK;
}

/* One LP step on this process, GLPK's failures as MMNC_ELP; after an internal
 * error the problem object is gone with GLPK's environment. */
static int solve_here(mmnc_i_transport *t, const double *C, double *W, mmnc_err *err)
{
    solve_args a = {t, C, W, 0, 0};
    int status = guarded(do_solve, &a, err);
    if (status != MMNC_OK) {
        t->lp = NULL;
        return status;
    }
    if (a.rc != 0) return mmnc_i_err(err, MMNC_ELP, "GLPK simplex failed (code %d)", a.rc);
    if (a.st != GLP_OPT) return mmnc_i_err(err, MMNC_ELP, "GLPK found no optimal transport plan (status %d)", a.st);
    return MMNC_OK;
}

int mmnc_i_transport_solve(mmnc_i_transport *t, const double *C, double *W, mmnc_err *err)
{
    const mmnc_pmf *p = t->p;
    int status = MMNC_OK;
    if (!mmnc_i_distributed(p)) return solve_here(t, C, W, err);
    p->dist->gatherv(p->dist, C, p->ny * t->k, t->Call, 0);
    if (p->dist->rank == 0) status = solve_here(t, t->Call, t->Wall, err);
    if ((status = mmnc_i_agree(p->dist, status, err)) != MMNC_OK) return status;
    p->dist->scatterv(p->dist, t->Wall, W, p->ny * t->k, 0);
    return MMNC_OK;
}

void mmnc_i_transport_free(mmnc_i_transport *t)
{
    if (!t) return;
    if (t->lp) glp_delete_prob(t->lp);
    mmnc_i_free(t->Call);
    mmnc_i_free(t->Wall);
    mmnc_i_free(t);
}

#else /* no GLPK */

struct mmnc_i_transport {
    int unused;
};

int mmnc_i_transport_new(const mmnc_pmf *p, mmnc_int k, const double *pz, mmnc_i_transport **out, mmnc_err *err)
{
    *out = NULL;
    return mmnc_i_err(err, MMNC_EUNSUP, "this build has no GLPK: a prescribed P_Z for Algorithm 2 needs it");
}

int mmnc_i_transport_solve(mmnc_i_transport *t, const double *C, double *W, mmnc_err *err)
{
    return mmnc_i_err(err, MMNC_EUNSUP, "this build has no GLPK");
}

void mmnc_i_transport_free(mmnc_i_transport *t) { (void)t; }

#endif
