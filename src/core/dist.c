/*
 * dist.c -- distributed runs: the rows of P_{Y,X} split across processes
 * (mmnc.h, "Distributed runs"; docs/mpi.md).  The collectives are the
 * caller's function pointers (mmnc_dist); this file makes the ranks agree
 * on a step's status.  A rank's pmf is built in linalg/pmf.c, its rows are
 * read by io/load.c.
 */
#include <stdio.h>
#include <string.h>

#include "core/mmnc_i.h"

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
