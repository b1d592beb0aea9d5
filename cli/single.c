/*
 * single.c -- the process layer of the plain mmnc (cli.h, "Processes"):
 * one process holds all rows.  mmnc-mpi uses cli/mpi.c instead.
 */
#ifndef MMNC_MPI
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_rank(void) { return 0; }
int cli_nranks(void) { return 1; }
const mmnc_dist *cli_dist(void) { return NULL; }
int cli_agree(int rc) { return rc; }
int cli_warn_agree(int rc, cli_warn_example *ex, char **buf)
{
    (void)ex;
    *buf = NULL;
    return rc;
}
int cli_strs_agree(const char *cmd, int rc, const char *mine, size_t len, char **all, size_t *nall, size_t *at)
{
    *all = NULL;
    *nall = *at = 0;
    if (rc != CLI_EXIT_OK) return rc;
    if (!(*all = malloc(len ? len : 1))) return cli_fail(cmd, "out of memory");
    memcpy(*all, mine, len);
    *nall = len;
    return CLI_EXIT_OK;
}
void cli_masks_or(uint64_t *m, mmnc_int n)
{
    (void)m;
    (void)n;
}
void cli_comm_stats(double *seconds, double *summed_bytes) { *seconds = *summed_bytes = 0.0; }

mmnc_int cli_nnz_all(const mmnc_pmf *p) { return p->nnz; }

int cli_write_parts(const char *cmd, FILE *fp, const char *buf, size_t len)
{
    (void)cmd;
    if (len && fwrite(buf, 1, len, fp) != len) return cli_fail(cmd, "write error");
    return CLI_EXIT_OK;
}

int cli_gather_labels(const char *cmd, const mmnc_pmf *p, const mmnc_int *label, mmnc_int **all)
{
    *all = malloc((size_t)(p->ny ? p->ny : 1) * sizeof(mmnc_int));
    if (!*all) return cli_fail(cmd, "out of memory");
    memcpy(*all, label, (size_t)p->ny * sizeof(mmnc_int));
    return CLI_EXIT_OK;
}

int cli_gather_rows(const char *cmd, const mmnc_pmf *p, const double *X, mmnc_int width, double **all)
{
    *all = malloc((size_t)(p->ny * width > 0 ? p->ny * width : 1) * sizeof(double));
    if (!*all) return cli_fail(cmd, "out of memory");
    memcpy(*all, X, (size_t)(p->ny * width) * sizeof(double));
    return CLI_EXIT_OK;
}

int cli_gather_orig(const char *cmd, const mmnc_pmf *p, const mmnc_data *d, mmnc_int **all)
{
    *all = malloc((size_t)(p->ny ? p->ny : 1) * sizeof(mmnc_int));
    if (!*all) return cli_fail(cmd, "out of memory");
    for (mmnc_int y = 0; y < p->ny; y++) (*all)[y] = d->row_orig ? d->row_orig[y] : y;
    return CLI_EXIT_OK;
}

int cli_truth_read(const char *cmd, const char *path, const char *var, const cli_namer *nm, const mmnc_pmf *p,
                   mmnc_int **truth, mmnc_int *nclasses)
{
    mmnc_data view;
    char **rn = NULL;
    int rc = cli_row_view(cmd, nm, &view, &rn);
    *truth = NULL;
    if (rc == CLI_EXIT_OK) rc = cli_truth_labels(cmd, path, var, &view, p->ny, truth, nclasses);
    cli_row_view_free(&view, rn);
    return rc;
}
int cli_fixed_read(const char *cmd, const char *path, const cli_namer *nm, const mmnc_pmf *p, mmnc_int k,
                   mmnc_int **mine, mmnc_int **all, mmnc_int *given, mmnc_int *dropped)
{
    int rc;
    *all = NULL;
    if ((rc = cli_fixed_read_named(cmd, path, nm, k, mine, given, dropped)) != CLI_EXIT_OK) return rc;
    if (nm->d->A->nrows != p->ny) return cli_fail(cmd, "--labels %s: %lld rows of ids for %lld rows", path,
                                                  (long long)nm->d->A->nrows, (long long)p->ny);
    if (!(*all = malloc((size_t)(p->ny ? p->ny : 1) * sizeof(mmnc_int)))) return cli_fail(cmd, "out of memory");
    memcpy(*all, *mine, (size_t)p->ny * sizeof(mmnc_int));
    return CLI_EXIT_OK;
}
#endif
