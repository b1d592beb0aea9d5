/*
 * cluster_mpi.c -- libmmnc on the rows of several MPI ranks: each rank reads
 * its part of a data file, the ranks cluster together with Algorithm 2, and
 * rank 0 prints every row's cluster (mmnc_mpi.h).
 *
 *   mpirun -np 4 example_cluster_mpi data.bin 3
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmnc_mpi.h"

int main(int argc, char **argv)
{
    mmnc_err err = {0, ""};
    mmnc_load_opts lo;
    mmnc_dist *dist = NULL;
    mmnc_data *d = NULL;
    mmnc_pmf *p = NULL;
    mmnc_params prm;
    mmnc_result *r = NULL;
    char id[32], *mine = NULL, *all = NULL;
    int rc = 1, len = 0, *lens = NULL, *at = NULL;
    MPI_Init(&argc, &argv);
    if (argc != 3) {
        fprintf(stderr, "usage: mpirun -np N %s DATA K\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    mmnc_load_opts_default(&lo);
    mmnc_params_default(&prm);
    prm.k = atoi(argv[2]);
    /* every call is collective: a rank that fails makes them all fail */
    if (mmnc_mpi_dist(MPI_COMM_WORLD, &dist, &err) || mmnc_data_load(argv[1], &lo, dist, &d, NULL, NULL, &err) ||
        mmnc_pmf_build_dist(d->A, MMNC_PMF_TAKE, dist, &p, &err) || mmnc_cluster(p, &prm, &r, &err)) {
        fprintf(stderr, "error: %s\n", err.msg);
        goto done;
    }
    /* this rank's rows as text, gathered on rank 0 in rank (= row) order */
    for (mmnc_int y = 0; y < r->ny; y++)
        len += snprintf(NULL, 0, "%s\t%lld\n", mmnc_data_row_id(d, y, id), (long long)r->label[y] + 1);
    mine = malloc((size_t)len + 1);
    lens = malloc((size_t)dist->size * 2 * sizeof(int));
    if (!mine || !lens) goto done;
    at = lens + dist->size;
    for (mmnc_int y = 0, n = 0; y < r->ny; y++)
        n += sprintf(mine + n, "%s\t%lld\n", mmnc_data_row_id(d, y, id), (long long)r->label[y] + 1);
    MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (dist->rank == 0) {
        for (int q = 0, sum = 0; q < dist->size; sum += lens[q++]) at[q] = sum;
        all = malloc((size_t)(at[dist->size - 1] + lens[dist->size - 1]) + 1);
        if (!all) MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Gatherv(mine, len, MPI_CHAR, all, lens, at, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (dist->rank == 0) {
        printf("# %lld rows on %d ranks, nuclear norm %.6f\n", (long long)p->ny_all, dist->size, r->stats.nuclear);
        fwrite(all, 1, (size_t)(at[dist->size - 1] + lens[dist->size - 1]), stdout);
    }
    rc = 0;
done:
    free(all);
    free(lens);
    free(mine);
    mmnc_result_free(r);
    mmnc_pmf_free(p);
    mmnc_data_free(d);
    mmnc_mpi_dist_free(dist);
    if (rc) MPI_Abort(MPI_COMM_WORLD, rc); /* other ranks may wait in a collective */
    MPI_Finalize();
    return rc;
}
