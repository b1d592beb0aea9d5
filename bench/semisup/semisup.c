/*
 * semisup.c -- what labels buy (mmnc_params.fixed_label): the ACC on the
 * unlabelled rows of a labelled corpus with a fraction of its rows labelled
 * (random rows, fixed seed, the true class as label), against the
 * unsupervised run's ACC on the same rows; k = the number of classes, every
 * other parameter the default (or the algorithm given).
 *
 *   semisup DATA MAT_VAR TRUTH TRUTH_VAR [FRACTION [ALGORITHM [SEED]]]
 *
 * e.g. semisup classic3.mat A classic3.mat labels 0.05
 * Output: one line: rows, k, labelled rows, ACC unsupervised, ACC labelled,
 * seconds of each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmnc.h"

static double acc_free(const mmnc_result *r, const mmnc_int *truth, const mmnc_int *fixed)
{
    mmnc_int n = 0, *pred = malloc(r->ny * sizeof *pred), *tr = malloc(r->ny * sizeof *tr);
    mmnc_scores sc;
    for (mmnc_int y = 0; y < r->ny; y++)
        if (fixed[y] < 0) pred[n] = r->label[y], tr[n] = truth[y], n++;
    sc.acc = -1;
    mmnc_evaluate(n, pred, tr, &sc, NULL);
    free(pred), free(tr);
    return sc.acc;
}

int main(int argc, char **argv)
{
    mmnc_read_opts o;
    mmnc_data *d = NULL;
    mmnc_pmf *p = NULL;
    mmnc_int n = 0, *truth = NULL, nclasses = 0, *fixed, nheld = 0, rd, cd;
    mmnc_params prm;
    mmnc_result *r0 = NULL, *r1 = NULL;
    mmnc_err err = {0, ""};
    mmnc_rng rng;
    double frac = argc > 5 ? atof(argv[5]) : 0.05;
    uint64_t seed = argc > 7 ? strtoull(argv[7], NULL, 10) : 1;
    if (argc < 5) {
        fprintf(stderr, "usage: semisup DATA MAT_VAR TRUTH TRUTH_VAR [FRACTION [ALGORITHM [SEED]]]\n");
        return 2;
    }
    mmnc_read_opts_default(&o);
    o.mat_var = argv[2];
    if (mmnc_data_read(argv[1], &o, &d, &err) != MMNC_OK || mmnc_data_drop_empty(d, &rd, &cd, &err) != MMNC_OK ||
        mmnc_labels_read(argv[3], argv[4], d, &n, &truth, &nclasses, &err) != MMNC_OK ||
        mmnc_pmf_build(d->A, &p, &err) != MMNC_OK) {
        fprintf(stderr, "semisup: %s\n", err.msg);
        return 1;
    }
    fixed = malloc(p->ny * sizeof *fixed);
    mmnc_rng_seed(&rng, seed);
    for (mmnc_int y = 0; y < p->ny; y++) {
        fixed[y] = mmnc_rng_uniform(&rng) < frac ? truth[y] : -1;
        nheld += fixed[y] >= 0;
    }
    mmnc_params_default(&prm);
    prm.k = nclasses;
    if (argc > 6) prm.algorithm = !strcmp(argv[6], "nuclear") ? MMNC_ALG_NUCLEAR
                                  : !strcmp(argv[6], "frobenius") ? MMNC_ALG_FROBENIUS
                                                                   : MMNC_ALG_INFORMATION;
    if (mmnc_cluster(p, &prm, &r0, &err) != MMNC_OK) {
        fprintf(stderr, "semisup: %s\n", err.msg);
        return 1;
    }
    prm.fixed_label = fixed;
    if (mmnc_cluster(p, &prm, &r1, &err) != MMNC_OK) {
        fprintf(stderr, "semisup: %s\n", err.msg);
        return 1;
    }
    printf("rows %lld k %lld labelled %lld ACC(free rows) unsupervised %.4f labelled %.4f seconds %.1f %.1f"
           " kept %d (1 moves, 2-5 seeded; held rows at their label, cross-validated: moves %.4f, best seeded %.4f,"
           " margin %.4f)\n",
           (long long)p->ny, (long long)nclasses, (long long)nheld, acc_free(r0, truth, fixed),
           acc_free(r1, truth, fixed), r0->seconds, r1->seconds,
           r1->semi_kept, r1->semi_score_moves, r1->semi_score_seeded, r1->semi_margin);
    mmnc_result_free(r0);
    mmnc_result_free(r1);
    mmnc_pmf_free(p);
    mmnc_data_free(d);
    free(truth);
    free(fixed);
    return 0;
}
