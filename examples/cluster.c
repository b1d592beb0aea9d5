/*
 * cluster.c -- a complete use of libmmnc: read a Matrix Market file, cluster
 * its rows with Algorithm 2 and print each row's cluster.
 *
 *   example_cluster data.mtx 3
 */
#include <stdio.h>
#include <stdlib.h>

#include "mmnc.h"

int main(int argc, char **argv)
{
    mmnc_err err = {0, ""};
    mmnc_read_opts ro;
    mmnc_data *d = NULL;
    mmnc_pmf *p = NULL;
    mmnc_params prm;
    mmnc_result *r = NULL;
    char id[32];
    int rc = 1;
    if (argc != 3) {
        fprintf(stderr, "usage: %s DATA K\n", argv[0]);
        return 2;
    }
    mmnc_read_opts_default(&ro);
    mmnc_params_default(&prm);
    prm.k = atoi(argv[2]);
    if (mmnc_data_read(argv[1], &ro, &d, &err) || mmnc_data_drop_empty(d, NULL, NULL, &err) ||
        mmnc_pmf_build(d->A, &p, &err) || mmnc_cluster(p, &prm, &r, &err)) {
        fprintf(stderr, "error: %s\n", err.msg);
        goto done;
    }
    printf("# nuclear norm %.6f, mutual information %.6f nats\n", r->stats.nuclear, r->stats.mi);
    for (mmnc_int y = 0; y < r->ny; y++)
        printf("%s\t%lld\t%.3f\n", mmnc_data_row_id(d, y, id), (long long)r->label[y] + 1, r->W[y * r->k + r->label[y]]);
    rc = 0;
done:
    mmnc_result_free(r);
    mmnc_pmf_free(p);
    mmnc_data_free(d);
    return rc;
}
