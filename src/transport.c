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

#include "solver_i.h"

#ifdef MMNC_HAVE_GLPK
#include <glpk.h>
#include <limits.h>
#include <setjmp.h>

struct mmnc_i_transport {
    glp_prob *lp;
    mmnc_int ny, k;
    int solved;
};

static void on_glpk_error(void *info)
{
    longjmp(*(jmp_buf *)info, 1);
}

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
    const mmnc_pmf *p;
    mmnc_int k;
    const double *pz;
    mmnc_i_transport *t;
    int *ia, *ja;
    double *ar;
} build_args;

static int do_build(void *v)
{
    build_args *a = v;
    mmnc_int ny = a->p->ny, k = a->k, n = 0;
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
                a->ar[n] = a->p->py[y] * (double)ny;
            }
        }
    glp_load_matrix(lp, (int)n, a->ia, a->ja, a->ar);
    return MMNC_OK;
}

int mmnc_i_transport_new(const mmnc_pmf *p, mmnc_int k, const double *pz, mmnc_i_transport **out, mmnc_err *err)
{
    build_args a = {p, k, pz, NULL, NULL, NULL, NULL};
    mmnc_int nz = p->ny * (2 * k - 1);
    int status = MMNC_OK;
    *out = NULL;
    if (p->ny * k >= INT_MAX / 2 || nz >= INT_MAX / 2)
        return mmnc_i_err(err, MMNC_EINVAL, "the transportation LP (%lld x %lld) is too large for GLPK",
                          (long long)k, (long long)p->ny);
    MMNC_CALLOC(a.t, 1, err, status);
    MMNC_ALLOC(a.ia, nz + 1, err, status);
    MMNC_ALLOC(a.ja, nz + 1, err, status);
    MMNC_ALLOC(a.ar, nz + 1, err, status);
    a.t->ny = p->ny;
    a.t->k = k;
    glp_term_out(GLP_OFF);
    if ((status = guarded(do_build, &a, err)) != MMNC_OK) {
        a.t->lp = NULL; /* freed with the environment */
        goto cleanup;
    }
    *out = a.t;
    a.t = NULL;
cleanup:
    mmnc_i_transport_free(a.t);
    mmnc_i_free(a.ia);
    mmnc_i_free(a.ja);
    mmnc_i_free(a.ar);
    return status;
}

typedef struct solve_args {
    mmnc_i_transport *t;
    const double *C;
    double *W;
    int rc, st;
} solve_args;

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

int mmnc_i_transport_solve(mmnc_i_transport *t, const double *C, double *W, mmnc_err *err)
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

void mmnc_i_transport_free(mmnc_i_transport *t)
{
    if (!t) return;
    if (t->lp) glp_delete_prob(t->lp);
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
