/*
 * mpi.c -- the process layer of mmnc-mpi (cli.h, "Processes") over
 * MPI_COMM_WORLD.  The library's collectives are libmmnc_mpi's
 * (mmnc_mpi_dist); here are the tool's own: agreeing on exit statuses,
 * sending output parts, gathered rows and a warning's example to rank 0,
 * and every rank's strings to every rank.
 *
 * Rank r reads part r of the rows (mmnc_data_load with the job's dist:
 * balanced by nonzeros; a binary file is read in place).  Only MPI-1/2
 * calls with int counts, split into pieces below 2^30 elements, so that
 * the code runs on Open MPI and MPICH alike.
 *
 * Failure: MPI's default error handler aborts the job on a communication
 * error; main() calls MPI_Abort after a rank prints a runtime error, so a
 * rank that fails never leaves the others waiting in a collective.
 */
#ifdef MMNC_MPI
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "mmnc_mpi.h"

#define PIECE (1 << 30) /* elements per MPI call */

static mmnc_dist *g_dist; /* the library's collectives (mmnc_mpi_dist) */

/* End the whole job.  What this rank wrote to stderr goes through the
 * launcher, which stops forwarding once the job is torn down: under load,
 * MPICH's hydra lost the message and its own "Abort" line in 1 of 40 jobs
 * (tests/mpi's truncated case).  So flush, and give it a moment first. */
static void abort_job(int rc)
{
    struct timespec pause = {0, 300000000}; /* 0.3 s */
    fflush(stdout);
    fflush(stderr);
    nanosleep(&pause, NULL);
    MPI_Abort(MPI_COMM_WORLD, rc);
}

/* A failure inside a collective helper: say what and where, end the job. */
static void fatal(const char *what)
{
    fprintf(stderr, "mmnc-mpi [rank %d of %d]: %s\n", g_dist->rank, g_dist->size, what);
    abort_job(1);
}

void cli_mpi_init(int *argc, char ***argv)
{
    mmnc_err err = {0, ""};
    MPI_Init(argc, argv);
    if (mmnc_mpi_dist(MPI_COMM_WORLD, &g_dist, &err) != MMNC_OK) {
        fprintf(stderr, "mmnc-mpi: %s\n", err.msg);
        abort_job(1);
    }
}

void cli_mpi_finish(int rc)
{
    fflush(stdout);
    fflush(stderr);
    /* A usage error is found alike on every rank before any collective:
     * all ranks stop by themselves.  Any other failure may be one rank's
     * own, with the others waiting in a collective: end the whole job. */
    if (rc != CLI_EXIT_OK && rc != CLI_EXIT_USAGE && g_dist->size > 1) abort_job(rc);
    mmnc_mpi_dist_free(g_dist);
    MPI_Finalize();
}

void cli_comm_stats(double *seconds, double *summed_bytes)
{
    mmnc_mpi_dist_stats(g_dist, seconds, summed_bytes);
}

int cli_rank(void) { return g_dist->rank; }
int cli_nranks(void) { return g_dist->size; }
const mmnc_dist *cli_dist(void) { return g_dist; }

int cli_agree(int rc)
{
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return rc;
}

int cli_warn_agree(int rc, cli_warn_example *ex, char **buf)
{
    int64_t mine[2] = {rc, ex->n}, *every = malloc((size_t)g_dist->size * sizeof mine), sizes[2];
    int from = -1, worst = rc;
    *buf = NULL;
    if (!every) fatal("out of memory");
    MPI_Allgather(mine, 2, MPI_INT64_T, every, 2, MPI_INT64_T, MPI_COMM_WORLD);
    ex->n = 0;
    for (int r = 0; r < g_dist->size; r++) {
        if (every[2 * r] > worst) worst = (int)every[2 * r];
        if (from < 0 && every[2 * r + 1] > 0) from = r;
        ex->n += every[2 * r + 1];
    }
    free(every);
    /* the example of a later rank goes to rank 0: v, then "a\0b\0" */
    if (worst != CLI_EXIT_OK || from <= 0) return worst;
    if (g_dist->rank == from) {
        size_t la = strlen(ex->a) + 1, lb = strlen(ex->b) + 1;
        char *out;
        if (la + lb > PIECE) fatal("a row id of more than 1 GB");
        if (!(out = malloc(la + lb))) fatal("out of memory");
        memcpy(out, ex->a, la);
        memcpy(out + la, ex->b, lb);
        sizes[0] = ex->v;
        sizes[1] = (int64_t)(la + lb);
        MPI_Send(sizes, 2, MPI_INT64_T, 0, 2, MPI_COMM_WORLD);
        MPI_Send(out, (int)(la + lb), MPI_BYTE, 0, 3, MPI_COMM_WORLD);
        free(out);
    } else if (g_dist->rank == 0) {
        MPI_Recv(sizes, 2, MPI_INT64_T, from, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (!(*buf = malloc((size_t)sizes[1]))) fatal("out of memory");
        MPI_Recv(*buf, (int)sizes[1], MPI_BYTE, from, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        ex->v = sizes[0];
        ex->a = *buf;
        ex->b = *buf + strlen(*buf) + 1;
    }
    return CLI_EXIT_OK;
}

int cli_strs_agree(const char *cmd, int rc, const char *mine, size_t len, char **all, size_t *nall, size_t *at)
{
    int64_t me[2] = {rc, (int64_t)len}, *every = malloc((size_t)g_dist->size * sizeof me), total = 0;
    int worst = rc;
    (void)cmd;
    *all = NULL;
    *nall = *at = 0;
    if (!every) fatal("out of memory");
    MPI_Allgather(me, 2, MPI_INT64_T, every, 2, MPI_INT64_T, MPI_COMM_WORLD);
    for (int r = 0; r < g_dist->size; r++) {
        if (every[2 * r] > worst) worst = (int)every[2 * r];
        if (r == g_dist->rank) *at = (size_t)total;
        total += every[2 * r + 1];
    }
    if (worst != CLI_EXIT_OK) {
        free(every);
        return worst;
    }
    if (!(*all = malloc(total ? (size_t)total : 1))) fatal("out of memory");
    if (len) memcpy(*all + *at, mine, len);
    /* each rank's part from that rank, in pieces of int counts */
    for (int64_t r = 0, from = 0; r < g_dist->size; from += every[2 * r + 1], r++)
        for (int64_t a = 0; a < every[2 * r + 1]; a += PIECE)
            MPI_Bcast(*all + from + a, (int)(every[2 * r + 1] - a < PIECE ? every[2 * r + 1] - a : PIECE), MPI_BYTE,
                      (int)r, MPI_COMM_WORLD);
    *nall = (size_t)total;
    free(every);
    return CLI_EXIT_OK;
}

void cli_masks_or(uint64_t *m, mmnc_int n)
{
    for (mmnc_int at = 0; at < n; at += PIECE)
        MPI_Allreduce(MPI_IN_PLACE, m + at, (int)(n - at < PIECE ? n - at : PIECE), MPI_UINT64_T, MPI_BOR,
                      MPI_COMM_WORLD);
}

mmnc_int cli_nnz_all(const mmnc_pmf *p)
{
    int64_t n = p->nnz;
    MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    return n;
}

int cli_write_parts(const char *cmd, FILE *fp, const char *buf, size_t len)
{
    int bad = 0;
    if (g_dist->rank == 0) {
        char *in = NULL;
        if (len && fwrite(buf, 1, len, fp) != len) bad = 1;
        for (int r = 1; r < g_dist->size; r++) {
            uint64_t n;
            MPI_Recv(&n, 1, MPI_UINT64_T, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (uint64_t at = 0; at < n; at += PIECE) {
                int m = (int)(n - at < PIECE ? n - at : PIECE);
                if (!in && !(in = malloc(PIECE))) fatal("out of memory");
                MPI_Recv(in, m, MPI_BYTE, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (fwrite(in, 1, (size_t)m, fp) != (size_t)m) bad = 1;
            }
        }
        free(in);
    } else {
        uint64_t n = len;
        MPI_Send(&n, 1, MPI_UINT64_T, 0, 0, MPI_COMM_WORLD);
        for (uint64_t at = 0; at < n; at += PIECE)
            MPI_Send(buf + at, (int)(n - at < PIECE ? n - at : PIECE), MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
    return bad ? cli_fail(cmd, "write error") : CLI_EXIT_OK;
}

/* Rank 0: *all = every rank's n = p->ny integers v, in rank order (as doubles
 * on the wire: exact below 2^53); elsewhere NULL. */
static int gather_ints(const char *cmd, const mmnc_pmf *p, const mmnc_int *v, mmnc_int **all)
{
    double *mine = malloc((size_t)(p->ny ? p->ny : 1) * sizeof(double)), *every = NULL;
    *all = NULL;
    if (!mine) return cli_fail(cmd, "out of memory");
    for (mmnc_int y = 0; y < p->ny; y++) mine[y] = (double)v[y];
    if (g_dist->rank == 0 && (!(every = malloc((size_t)p->ny_all * sizeof(double))) ||
                             !(*all = malloc((size_t)p->ny_all * sizeof(mmnc_int)))))
        fatal("out of memory (the gathered rows)");
    g_dist->gatherv(g_dist, mine, p->ny, every, 0);
    if (g_dist->rank == 0)
        for (mmnc_int y = 0; y < p->ny_all; y++) (*all)[y] = (mmnc_int)every[y];
    free(mine);
    free(every);
    return CLI_EXIT_OK;
}

int cli_gather_labels(const char *cmd, const mmnc_pmf *p, const mmnc_int *label, mmnc_int **all)
{
    return gather_ints(cmd, p, label, all);
}

int cli_gather_rows(const char *cmd, const mmnc_pmf *p, const double *X, mmnc_int width, double **all)
{
    *all = NULL;
    if (g_dist->rank == 0 && !(*all = malloc((size_t)(p->ny_all * width) * sizeof(double))))
        fatal("out of memory (the gathered rows)");
    g_dist->gatherv(g_dist, X, p->ny * width, *all, 0);
    return CLI_EXIT_OK;
}

int cli_gather_orig(const char *cmd, const mmnc_pmf *p, const mmnc_data *d, mmnc_int **all)
{
    mmnc_int *mine = malloc((size_t)(p->ny ? p->ny : 1) * sizeof(mmnc_int));
    int rc;
    *all = NULL;
    if (!mine) return cli_fail(cmd, "out of memory");
    for (mmnc_int y = 0; y < p->ny; y++) mine[y] = d->row_orig ? d->row_orig[y] : p->y0 + y;
    rc = gather_ints(cmd, p, mine, all);
    free(mine);
    return rc;
}

/* Rank 0: *all = every rank's row names (d->row_names; NULL for a row
 * without one), in row order, malloc'd strings; NULL where no rank's data
 * has row names (then on every rank).  Collective. */
static int gather_names(const mmnc_pmf *p, const mmnc_data *d, char ***all)
{
    int have = d->row_names != NULL, any = 0;
    uint64_t len = 0;
    char *buf = NULL;
    *all = NULL;
    MPI_Allreduce(&have, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!any) return CLI_EXIT_OK;
    /* this rank's rows: a byte 1 and the name with its NUL, or a byte 0 */
    for (mmnc_int y = 0; y < p->ny; y++) len += 1 + (have && d->row_names[y] ? strlen(d->row_names[y]) + 1 : 0);
    if (!(buf = malloc(len ? len : 1))) fatal("out of memory (the row names)");
    len = 0;
    for (mmnc_int y = 0; y < p->ny; y++) {
        const char *s = have ? d->row_names[y] : NULL;
        buf[len++] = s != NULL;
        if (s) memcpy(buf + len, s, strlen(s) + 1), len += strlen(s) + 1;
    }
    if (g_dist->rank == 0) {
        mmnc_int at = 0;
        if (!(*all = calloc((size_t)(p->ny_all ? p->ny_all : 1), sizeof(char *)))) fatal("out of memory (the row names)");
        for (int r = 0; r < g_dist->size; r++) {
            uint64_t n = len, i = 0;
            char *in = buf;
            if (r > 0) {
                MPI_Recv(&n, 1, MPI_UINT64_T, r, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (!(in = malloc(n ? n : 1))) fatal("out of memory (the row names)");
                for (uint64_t o = 0; o < n; o += PIECE)
                    MPI_Recv(in + o, (int)(n - o < PIECE ? n - o : PIECE), MPI_BYTE, r, 5, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
            }
            while (i < n && at < p->ny_all) {
                if (in[i++]) {
                    size_t l = strlen(in + i);
                    if (!((*all)[at] = strdup(in + i))) fatal("out of memory (the row names)");
                    i += l + 1;
                }
                at++;
            }
            if (in != buf) free(in);
        }
    } else {
        MPI_Send(&len, 1, MPI_UINT64_T, 0, 4, MPI_COMM_WORLD);
        for (uint64_t o = 0; o < len; o += PIECE)
            MPI_Send(buf + o, (int)(len - o < PIECE ? len - o : PIECE), MPI_BYTE, 0, 5, MPI_COMM_WORLD);
    }
    free(buf);
    return CLI_EXIT_OK;
}

static void free_names(char **names, mmnc_int n)
{
    if (!names) return;
    for (mmnc_int y = 0; y < n; y++) free(names[y]);
    free(names);
}

int cli_truth_read(const char *cmd, const char *path, const char *var, const cli_namer *nm, const mmnc_pmf *p,
                   mmnc_int **truth, mmnc_int *nclasses)
{
    /* Rank 0 reads the labels of all rows through a skeleton of the data
     * set that has the rows' original indices and names, gathered: so rows
     * are matched and classes numbered as in one process.  The rows are
     * named as cli_fixed_read names them. */
    mmnc_err err = {0, ""};
    mmnc_data skel = {0}, view;
    cli_namer sn = *nm;
    char **rn = NULL;
    int rc = CLI_EXIT_OK;
    *truth = NULL;
    if ((rc = cli_gather_orig(cmd, p, nm->d, &skel.row_orig)) != CLI_EXIT_OK) abort_job(rc);
    gather_names(p, nm->d, &skel.row_names);
    if (g_dist->rank == 0) {
        skel.A = mmnc_csr_alloc(p->ny_all, p->nx, 0, &err);
        if (!skel.A) fatal("out of memory");
        memset(skel.A->rowptr, 0, (size_t)(p->ny_all + 1) * sizeof(mmnc_int));
        skel.orig_rows = nm->d->orig_rows;
        skel.orig_cols = nm->d->orig_cols;
        sn.d = &skel;
        sn.rfill = sn.cfill = NULL; /* nm's are of this rank's rows */
        if ((rc = cli_namer_fill(cmd, &sn, 0, NULL)) == CLI_EXIT_OK && (rc = cli_row_view(cmd, &sn, &view, &rn)) == CLI_EXIT_OK)
            rc = cli_truth_labels(cmd, path, var, &view, p->ny_all, truth, nclasses);
        cli_row_view_free(&skel, rn);
        cli_namer_free_fill(&sn);
        mmnc_csr_free(skel.A);
    }
    free(skel.row_orig);
    free_names(skel.row_names, p->ny_all);
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rc;
}
int cli_fixed_read(const char *cmd, const char *path, const cli_namer *nm, const mmnc_pmf *p, mmnc_int k,
                   mmnc_int **mine, mmnc_int **all, mmnc_int *given, mmnc_int *dropped)
{
    /* Rank 0 reads the file against a skeleton of every row (their original
     * indices and names, gathered, as cli_truth_read), then sends the whole
     * to every rank, which keeps its rows y0 .. y0 + ny - 1. */
    mmnc_data skel = {0};
    mmnc_err err = {0, ""};
    cli_namer sn = *nm;
    int64_t counts[2] = {0, 0};
    mmnc_int *every = NULL;
    int rc = CLI_EXIT_OK;
    *mine = *all = NULL;
    if ((rc = cli_gather_orig(cmd, p, nm->d, &skel.row_orig)) != CLI_EXIT_OK) abort_job(rc);
    gather_names(p, nm->d, &skel.row_names);
    if (g_dist->rank == 0) {
        if (!(skel.A = mmnc_csr_alloc(p->ny_all, p->nx, 0, &err))) fatal("out of memory");
        memset(skel.A->rowptr, 0, (size_t)(p->ny_all + 1) * sizeof(mmnc_int));
        skel.orig_rows = nm->d->orig_rows;
        skel.orig_cols = nm->d->orig_cols;
        sn.d = &skel;
        sn.rfill = sn.cfill = NULL; /* nm's are of this rank's rows */
        if ((rc = cli_namer_fill(cmd, &sn, 0, NULL)) == CLI_EXIT_OK)
            rc = cli_fixed_read_named(cmd, path, &sn, k, &every, &counts[0], &counts[1]);
        cli_namer_free_fill(&sn);
        mmnc_csr_free(skel.A);
    }
    free(skel.row_orig);
    free_names(skel.row_names, p->ny_all);
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc != CLI_EXIT_OK) {
        free(every);
        return rc;
    }
    MPI_Bcast(counts, 2, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (g_dist->rank != 0 && !(every = malloc((size_t)(p->ny_all ? p->ny_all : 1) * sizeof(mmnc_int))))
        fatal("out of memory (the given labels)");
    for (mmnc_int at = 0; at < p->ny_all; at += PIECE)
        MPI_Bcast(every + at, (int)(p->ny_all - at < PIECE ? p->ny_all - at : PIECE), MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (!(*mine = malloc((size_t)(p->ny ? p->ny : 1) * sizeof(mmnc_int)))) fatal("out of memory (the given labels)");
    memcpy(*mine, every + p->y0, (size_t)p->ny * sizeof(mmnc_int));
    *given = counts[0];
    *dropped = counts[1];
    if (g_dist->rank == 0) *all = every;
    else free(every);
    return CLI_EXIT_OK;
}
#endif
