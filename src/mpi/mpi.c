/*
 * mpi.c -- mmnc_dist over MPI (mmnc_mpi.h): the library's collectives for
 * the ranks of a communicator.  The only file that touches MPI; compiled
 * into libmmnc_mpi when CMake finds MPI, never into libmmnc.
 *
 * Every collective gives all ranks the same bits: sums are a
 * reduce-scatter (each block summed once, on its owner) followed by an
 * allgather, so no rank can take a different branch from a last-bit
 * difference.  Only MPI-1/2 calls with int counts, split into pieces below
 * 2^30 elements, so that the code runs on Open MPI and MPICH alike.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "core/mmnc_i.h"
#include "mmnc_mpi.h"

#define PIECE (1 << 30) /* elements per MPI call */

typedef struct mpi_ctx {
    MPI_Comm comm;   /* our duplicate of the caller's */
    int *cnt, *dsp;  /* size: counts and displacements of the v-collectives */
    double *tmp;     /* reduce-scatter block */
    size_t tmp_cap;
    double seconds;  /* spent in the collectives */
    double bytes;    /* the payloads of the reductions (8 a number), allgathers (all ranks') and broadcasts */
} mpi_ctx;

static mpi_ctx *ctx_of(const mmnc_dist *d) { return (mpi_ctx *)d->ctx; }

/* n elements in size contiguous blocks, as even as can be: counts and displacements. */
static void split(mmnc_int n, int size, int *cnt, int *dsp)
{
    for (int r = 0; r < size; r++) {
        mmnc_int a = n * r / size, b = n * (r + 1) / size;
        cnt[r] = (int)(b - a);
        dsp[r] = (int)a;
    }
}

/* mmnc_dist's sum: per piece, a reduce-scatter (each block summed once, by
 * its owner, so in one order) and an allgather of the blocks: every rank
 * gets the same bits.  Without memory for a block the reduction is made in
 * place, with the same sums. */
static void op_sum(const mmnc_dist *d, double *x, mmnc_int n)
{
    mpi_ctx *c = ctx_of(d);
    double t0 = MPI_Wtime();
    for (mmnc_int at = 0; at < n; at += PIECE) {
        mmnc_int m = n - at < PIECE ? n - at : PIECE;
        size_t need = (size_t)(m / d->size + 1);
        split(m, d->size, c->cnt, c->dsp);
        if (need > c->tmp_cap) {
            mmnc_i_free(c->tmp);
            c->tmp = mmnc_i_malloc(need, sizeof(double));
            c->tmp_cap = c->tmp ? need : 0;
        }
        if (c->tmp) {
            MPI_Reduce_scatter(x + at, c->tmp, c->cnt, MPI_DOUBLE, MPI_SUM, c->comm);
            MPI_Allgatherv(c->tmp, c->cnt[d->rank], MPI_DOUBLE, x + at, c->cnt, c->dsp, MPI_DOUBLE, c->comm);
        } else { /* no memory for the block: the same sums, in place */
            MPI_Reduce_scatter(MPI_IN_PLACE, x + at, c->cnt, MPI_DOUBLE, MPI_SUM, c->comm);
            memmove(x + at + c->dsp[d->rank], x + at, (size_t)c->cnt[d->rank] * sizeof(double));
            MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, x + at, c->cnt, c->dsp, MPI_DOUBLE, c->comm);
        }
    }
    c->bytes += 8.0 * (double)n;
    c->seconds += MPI_Wtime() - t0;
}

/* Element-wise allreduce in pieces: exact (max, integer sums), so every rank
 * gets the same bits whatever MPI's algorithm. */
static void allreduce(const mmnc_dist *d, void *x, mmnc_int n, MPI_Datatype t, size_t size, MPI_Op op)
{
    mpi_ctx *c = ctx_of(d);
    double t0 = MPI_Wtime();
    for (mmnc_int at = 0; at < n; at += PIECE)
        MPI_Allreduce(MPI_IN_PLACE, (char *)x + (size_t)at * size, (int)(n - at < PIECE ? n - at : PIECE), t, op,
                      c->comm);
    c->bytes += (double)size * (double)n;
    c->seconds += MPI_Wtime() - t0;
}

/* mmnc_dist's max and integer sum: exact, so any MPI algorithm gives the same bits. */
static void op_max(const mmnc_dist *d, double *x, mmnc_int n) { allreduce(d, x, n, MPI_DOUBLE, sizeof *x, MPI_MAX); }
static void op_isum(const mmnc_dist *d, int64_t *x, mmnc_int n) { allreduce(d, x, n, MPI_INT64_T, sizeof *x, MPI_SUM); }

/* mmnc_dist's allgather of a few bytes per rank (one MPI call). */
static void op_allgather(const mmnc_dist *d, const void *in, size_t bytes, void *out)
{
    mpi_ctx *c = ctx_of(d);
    double t0 = MPI_Wtime();
    MPI_Allgather(in, (int)bytes, MPI_BYTE, out, (int)bytes, MPI_BYTE, c->comm);
    c->bytes += (double)bytes * (double)d->size;
    c->seconds += MPI_Wtime() - t0;
}

/* mmnc_dist's broadcast from root, in pieces below 2^30 bytes. */
static void op_bcast(const mmnc_dist *d, void *buf, size_t bytes, int root)
{
    mpi_ctx *c = ctx_of(d);
    double t0 = MPI_Wtime();
    for (size_t at = 0; at < bytes; at += PIECE)
        MPI_Bcast((char *)buf + at, (int)(bytes - at < PIECE ? bytes - at : PIECE), MPI_BYTE, root, c->comm);
    c->bytes += (double)bytes;
    c->seconds += MPI_Wtime() - t0;
}

/* Every rank's count n on root, in c->cnt with displacements in c->dsp.
 * int counts: the transport LP that uses gatherv/scatterv is limited to
 * 2^30 entries by GLPK anyway; beyond int range the job is ended, as MPI
 * ends it on a communication error (the collectives cannot fail). */
static void counts(const mmnc_dist *d, mmnc_int n, int root)
{
    mpi_ctx *c = ctx_of(d);
    int me = (int)n;
    if (n > INT32_MAX) MPI_Abort(c->comm, 1);
    MPI_Gather(&me, 1, MPI_INT, c->cnt, 1, MPI_INT, root, c->comm);
    if (d->rank == root) {
        long long at = 0;
        for (int r = 0; r < d->size; r++) {
            if (at > INT32_MAX) MPI_Abort(c->comm, 1);
            c->dsp[r] = (int)at;
            at += c->cnt[r];
        }
    }
}

/* mmnc_dist's gather of every rank's n doubles on root, in rank order. */
static void op_gatherv(const mmnc_dist *d, const double *in, mmnc_int n, double *out, int root)
{
    mpi_ctx *c = ctx_of(d);
    double t0 = MPI_Wtime();
    counts(d, n, root);
    MPI_Gatherv(in, (int)n, MPI_DOUBLE, out, c->cnt, c->dsp, MPI_DOUBLE, root, c->comm);
    c->seconds += MPI_Wtime() - t0;
}

/* mmnc_dist's scatter from root: each rank gets its n doubles, in rank order. */
static void op_scatterv(const mmnc_dist *d, const double *in, double *out, mmnc_int n, int root)
{
    mpi_ctx *c = ctx_of(d);
    double t0 = MPI_Wtime();
    counts(d, n, root);
    MPI_Scatterv(in, c->cnt, c->dsp, MPI_DOUBLE, out, (int)n, MPI_DOUBLE, root, c->comm);
    c->seconds += MPI_Wtime() - t0;
}

int mmnc_mpi_dist(MPI_Comm comm, mmnc_dist **out, mmnc_err *err)
{
    mmnc_dist *d = NULL;
    mpi_ctx *c = NULL;
    int size, status = MMNC_OK;
    if (!out) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_mpi_dist: NULL argument");
    *out = NULL;
    MPI_Comm_size(comm, &size);
    d = mmnc_i_calloc(1, sizeof *d);
    c = mmnc_i_calloc(1, sizeof *c);
    if (c) {
        c->cnt = mmnc_i_malloc((size_t)size, sizeof(int));
        c->dsp = mmnc_i_malloc((size_t)size, sizeof(int));
    }
    if (!d || !c || !c->cnt || !c->dsp) status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    /* agree before the collective dup, so that no rank is left in it */
    MPI_Allreduce(MPI_IN_PLACE, &status, 1, MPI_INT, MPI_MAX, comm);
    if (status != MMNC_OK) {
        mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
        goto cleanup;
    }
    MPI_Comm_dup(comm, &c->comm);
    MPI_Comm_rank(c->comm, &d->rank);
    d->size = size;
    d->ctx = c;
    d->sum = op_sum;
    d->max = op_max;
    d->isum = op_isum;
    d->allgather = op_allgather;
    d->bcast = op_bcast;
    d->gatherv = op_gatherv;
    d->scatterv = op_scatterv;
    *out = d;
    return MMNC_OK;
cleanup:
    if (c) {
        mmnc_i_free(c->cnt);
        mmnc_i_free(c->dsp);
    }
    mmnc_i_free(c);
    mmnc_i_free(d);
    return status;
}

void mmnc_mpi_dist_free(mmnc_dist *d)
{
    mpi_ctx *c;
    if (!d) return;
    c = ctx_of(d);
    MPI_Comm_free(&c->comm);
    mmnc_i_free(c->cnt);
    mmnc_i_free(c->dsp);
    mmnc_i_free(c->tmp);
    mmnc_i_free(c);
    mmnc_i_free(d);
}

void mmnc_mpi_dist_stats(const mmnc_dist *d, double *seconds, double *summed_bytes)
{
    if (seconds) *seconds = d ? ctx_of(d)->seconds : 0.0;
    if (summed_bytes) *summed_bytes = d ? ctx_of(d)->bytes : 0.0;
}
