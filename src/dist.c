/*
 * dist.c -- distributed runs: the rows of P_{Y,X} split across processes
 * (mmnc.h, "Distributed runs"; docs/mpi.md).  The collectives are the
 * caller's function pointers (mmnc_dist); this file builds a rank's pmf
 * and agrees on errors.  Reading a rank's rows is load.c's.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mmnc_i.h"

int mmnc_i_agree(const mmnc_dist *dist, int status, mmnc_err *err)
{
    int *all;
    if (!dist || dist->size <= 1) return status;
    all = mmnc_i_malloc((size_t)dist->size, sizeof(int));
    if (!all) {
        /* cannot take part: the caller's error path must end the job (the
         * other ranks are in the collective) */
        return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    }
    dist->allgather(dist, &status, sizeof status, all);
    for (int r = 0; r < dist->size; r++)
        if (all[r] != MMNC_OK) {
            int code = all[r];
            mmnc_i_free(all);
            if (status != MMNC_OK) return status; /* this rank's own message */
            return mmnc_i_err(err, code, "rank %d failed (%s): see its message", r, mmnc_strerror(code));
        }
    mmnc_i_free(all);
    return MMNC_OK;
}

int mmnc_pmf_build_dist(mmnc_csr *A, int flags, const mmnc_dist *dist, mmnc_pmf **out, mmnc_err *err)
{
    mmnc_pmf *p = NULL;
    int64_t cnt[2], *ny_of = NULL;
    int status = MMNC_OK;
    if (!A || !out) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_pmf_build_dist: NULL argument");
    if (!dist || dist->size <= 1) {
        if ((status = mmnc_pmf_build_ex(A, flags, out, err)) == MMNC_OK) (*out)->dist = dist;
        return status;
    }
    *out = NULL;
    /* Every step below either fails on all ranks alike (global quantities)
     * or is followed by mmnc_i_agree, so no rank is left in a collective. */
    status = mmnc_i_agree(dist, mmnc_csr_check(A, err), err);
    if (status != MMNC_OK) return status;
    cnt[0] = A->nrows;
    cnt[1] = A->nnz;
    dist->isum(dist, cnt, 2);
    if (cnt[0] == 0 || A->ncols == 0 || cnt[1] == 0)
        return mmnc_i_err(err, MMNC_EINVAL, "the matrix is empty (%lld x %lld, %lld nonzeros)", (long long)cnt[0],
                          (long long)A->ncols, (long long)cnt[1]);
    p = mmnc_i_calloc(1, sizeof *p);
    ny_of = mmnc_i_malloc((size_t)dist->size, sizeof(int64_t));
    if (!p || !ny_of) status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    if ((status = mmnc_i_agree(dist, status, err)) != MMNC_OK) goto cleanup;
    p->ny = A->nrows;
    p->nx = A->ncols;
    p->nnz = A->nnz;
    p->dist = dist;
    p->total = mmnc_i_total(A, dist);
    if (!(p->total > 0.0) || !isfinite(p->total)) {
        status = mmnc_i_err(err, MMNC_EINVAL, "the matrix values sum to %g; need a positive finite sum", p->total);
        goto cleanup;
    }
    {
        int64_t me = A->nrows;
        dist->allgather(dist, &me, sizeof me, ny_of);
        p->y0 = 0;
        p->ny_all = 0;
        for (int r = 0; r < dist->size; r++) {
            if (r < dist->rank) p->y0 += ny_of[r];
            p->ny_all += ny_of[r];
        }
    }
    status = mmnc_i_pmf_fill(p, A, flags, err); /* P_X below, once the ranks agree */
    for (mmnc_int y = 0; y < p->ny && status == MMNC_OK; y++)
        if (!(p->py[y] > 0.0))
            status = mmnc_i_err(err, MMNC_EINVAL, "row %lld has zero mass: drop empty rows first",
                                (long long)(p->y0 + y) + 1);
    if ((status = mmnc_i_agree(dist, status, err)) != MMNC_OK) goto cleanup;
    if ((status = mmnc_i_pmf_px(p, err)) != MMNC_OK) goto cleanup; /* P_X summed across the ranks */
    for (mmnc_int x = 0; x < p->nx; x++)
        if (!(p->px[x] > 0.0)) {
            status = mmnc_i_err(err, MMNC_EINVAL, "column %lld has zero mass: drop empty columns first", (long long)x + 1);
            goto cleanup;
        }
    *out = p;
    p = NULL;
cleanup:
    mmnc_pmf_free(p);
    mmnc_i_free(ny_of);
    return status;
}
