/*
 * dist.c -- distributed runs: the rows of P_{Y,X} split across processes
 * (mmnc.h, "Distributed runs"; docs/mpi.md).  The collectives are the
 * caller's function pointers (mmnc_dist); this file makes the ranks agree
 * on a step's status, and on the input they read.  A rank's pmf is built
 * in linalg/pmf.c, its rows are read by io/load.c.
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

/* One rank's share of mmnc_i_agree_input's allgather (no padding: the
 * bytes sent are the fields). */
typedef struct input_rec {
    int64_t status;
    mmnc_i_input in;
    char msg[MMNC_ERRMSG_SIZE];
} input_rec;

static int same_input(const mmnc_i_input *a, const mmnc_i_input *b)
{
    /* not the size: the same data parsed from files that differ in
     * comments or spacing gives the same answer */
    return a->kind == b->kind && a->nrows == b->nrows && a->ncols == b->ncols && a->nnz == b->nnz &&
           a->sum == b->sum;
}

/* "700 rows, 200 columns, 6912 nonzeros (60214 bytes, checksum ...)" */
static void describe(const mmnc_i_input *in, char *buf, size_t n)
{
    char bytes[32] = "";
    if (in->bytes >= 0) snprintf(bytes, sizeof bytes, "%lld bytes, ", (long long)in->bytes);
    snprintf(buf, n, "%s%lld rows, %lld columns, %lld nonzeros (%schecksum %016llx)",
             in->kind == 1 ? "a binary matrix of " : "", (long long)in->nrows, (long long)in->ncols,
             (long long)in->nnz, bytes, (unsigned long long)in->sum);
}

int mmnc_i_agree_input(const mmnc_dist *dist, int status, const char *path, const mmnc_i_input *in, mmnc_err *err)
{
    input_rec mine, *all;
    int r;
    if (!dist || dist->size <= 1) return status;
    all = mmnc_i_malloc((size_t)dist->size, sizeof *all);
    if (!all) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory"); /* as mmnc_i_agree */
    memset(&mine, 0, sizeof mine);
    mine.status = status;
    if (status == MMNC_OK && in) mine.in = *in;
    if (status != MMNC_OK && err) memcpy(mine.msg, err->msg, sizeof mine.msg - 1);
    dist->allgather(dist, &mine, sizeof mine, all);
    for (r = 0; r < dist->size && all[r].status == MMNC_OK; r++) continue;
    if (r < dist->size) {
        /* a read failed: its message on every rank, as the job may end
         * before the failing rank's own reaches the terminal */
        int code = (int)all[r].status;
        if (status == MMNC_OK)
            status = mmnc_i_err(err, code, "rank %d failed: %.1000s", r,
                                all[r].msg[0] ? all[r].msg : mmnc_strerror(code));
    } else {
        for (r = 1; r < dist->size && same_input(&all[r].in, &all[0].in); r++) continue;
        if (r < dist->size) {
            char a[200], b[200];
            describe(&all[r].in, a, sizeof a);
            describe(&all[0].in, b, sizeof b);
            status = mmnc_i_err(err, MMNC_EIO, "%s: rank %d read %s but rank 0 read %s: every rank must see the same input",
                                path, r, a, b);
        }
    }
    mmnc_i_free(all);
    return status;
}
