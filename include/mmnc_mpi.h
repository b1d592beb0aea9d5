/*
 * mmnc_mpi.h -- libmmnc's collectives over MPI: distributed runs for a
 * library user (docs/mpi.md).  Part of libmmnc_mpi, built next to libmmnc
 * when CMake finds MPI (Open MPI or MPICH); link with -lmmnc_mpi -lmmnc and
 * the MPI library.
 *
 * A distributed run splits the rows of P_{Y,X} across the ranks of an MPI
 * communicator; every rank makes the same calls in the same order
 * (mmnc.h, "Distributed runs").  The whole sequence, after MPI_Init:
 *
 *     mmnc_dist *dist;
 *     mmnc_mpi_dist(MPI_COMM_WORLD, &dist, &err);            // the collectives
 *     mmnc_data_load(path, &lo, dist, &d, NULL, NULL, &err);  // my rows, empty ones dropped
 *     mmnc_pmf_build_dist(d->A, MMNC_PMF_TAKE, dist, &p, &err);
 *     mmnc_cluster(p, &prm, &res, &err);                      // res: this rank's rows
 *     ...
 *     mmnc_pmf_free(p); mmnc_data_free(d); mmnc_mpi_dist_free(dist);
 *
 * (examples/cluster_mpi.c is this, complete.)  Results: res->label and
 * res->W hold this rank's rows, p->y0 .. p->y0 + p->ny - 1 of p->ny_all;
 * the objective and the statistics are global and the same on every rank.
 */
#ifndef MMNC_MPI_H
#define MMNC_MPI_H

#include <mpi.h>

#include "mmnc.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Fill *out with the collectives of mmnc_dist over the ranks of comm:
 * rank and size are comm's; the calls run on a duplicate of comm
 * (MPI_Comm_dup), so they never match the caller's own messages.  Every
 * collective gives every rank the same bits: a sum is a reduce-scatter
 * (each block summed once, by its owner) then an allgather; max and the
 * integer sums are exact.  Counts are split into pieces below 2^30, so
 * any MPI-2 library will do.  Collective over comm (MPI must be
 * initialised).  *out: release with mmnc_mpi_dist_free before
 * MPI_Finalize.  Errors: MMNC_ENOMEM.  O(size) memory.
 *
 * The collectives cannot return a status (mmnc.h): a communication error
 * is handled by comm's error handler (MPI's default aborts the job), and a
 * gather or scatter of 2^31 or more values on one rank, which MPI's int
 * counts cannot express, calls MPI_Abort(comm, 1).  Memory they need is
 * allocated here or falls back to an in-place reduction.
 */
MMNC_API int mmnc_mpi_dist(MPI_Comm comm, mmnc_dist **out, mmnc_err *err);

/* Release what mmnc_mpi_dist made (collective over its comm: it frees the
 * duplicate communicator).  Accepts NULL. */
MMNC_API void mmnc_mpi_dist_free(mmnc_dist *d);

/* This rank's seconds spent in d's collectives so far, and the bytes of
 * their payloads: the numbers of the reductions (d->sum, d->isum, d->max:
 * the k x |X| blocks of the solvers, 8 bytes a number), what its
 * allgathers gathered and what its broadcasts carried: the cost of
 * distribution.  Either pointer may be NULL.  O(1). */
MMNC_API void mmnc_mpi_dist_stats(const mmnc_dist *d, double *seconds, double *summed_bytes);

#ifdef __cplusplus
}
#endif

#endif /* MMNC_MPI_H */
