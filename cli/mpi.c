/*
 * mpi.c -- the process layer of mmnc-mpi (cli.h, "Processes"), and the
 * library's collectives (mmnc_dist) over MPI_COMM_WORLD.
 *
 * Rank r reads part r of the rows (mmnc_data_read_part: balanced by
 * nonzeros; a binary file is read in place).  Every collective gives all
 * ranks the same bits: sums are a reduce-scatter (each block summed once,
 * on its owner) followed by an allgather, so no rank can take a different
 * branch from a last-bit difference.  Only MPI-1/2 calls with int counts,
 * split into pieces below 2^30 elements, so that the code runs on Open MPI
 * and MPICH alike.
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

#define PIECE (1 << 30) /* elements per MPI call */

static mmnc_dist g_dist;
static double g_comm;       /* seconds spent in the library's collectives */
static double g_bytes;      /* doubles summed by op_sum (the k x |X| blocks) */
static double *g_tmp;     /* reduce-scatter block */
static size_t g_tmp_cap;

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
    fprintf(stderr, "mmnc-mpi [rank %d of %d]: %s\n", g_dist.rank, g_dist.size, what);
    abort_job(1);
}

static void split(mmnc_int n, int size, int *cnt, int *dsp)
{
    for (int r = 0; r < size; r++) {
        mmnc_int a = n * r / size, b = n * (r + 1) / size;
        cnt[r] = (int)(b - a);
        dsp[r] = (int)a;
    }
}

static void op_sum(const mmnc_dist *d, double *x, mmnc_int n)
{
    double t0 = MPI_Wtime();
    int size = d->size, *cnt = malloc((size_t)size * sizeof(int)), *dsp = malloc((size_t)size * sizeof(int));
    if (!cnt || !dsp) fatal("out of memory");
    for (mmnc_int at = 0; at < n; at += PIECE) {
        mmnc_int m = n - at < PIECE ? n - at : PIECE;
        size_t need = (size_t)(m / size + 1);
        split(m, size, cnt, dsp);
        if (need > g_tmp_cap) {
            free(g_tmp);
            if (!(g_tmp = malloc(need * sizeof(double)))) fatal("out of memory");
            g_tmp_cap = need;
        }
        MPI_Reduce_scatter(x + at, g_tmp, cnt, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allgatherv(g_tmp, cnt[d->rank], MPI_DOUBLE, x + at, cnt, dsp, MPI_DOUBLE, MPI_COMM_WORLD);
    }
    free(cnt);
    free(dsp);
    g_bytes += 8.0 * (double)n;
    g_comm += MPI_Wtime() - t0;
}

/* Element-wise allreduce in pieces: exact (max, integer sums), so every rank
 * gets the same bits whatever MPI's algorithm. */
static void allreduce(void *x, mmnc_int n, MPI_Datatype t, size_t size, MPI_Op op)
{
    double t0 = MPI_Wtime();
    for (mmnc_int at = 0; at < n; at += PIECE)
        MPI_Allreduce(MPI_IN_PLACE, (char *)x + (size_t)at * size, (int)(n - at < PIECE ? n - at : PIECE), t, op,
                      MPI_COMM_WORLD);
    g_comm += MPI_Wtime() - t0;
}

static void op_max(const mmnc_dist *d, double *x, mmnc_int n) { allreduce(x, n, MPI_DOUBLE, sizeof *x, MPI_MAX); }
static void op_isum(const mmnc_dist *d, int64_t *x, mmnc_int n) { allreduce(x, n, MPI_INT64_T, sizeof *x, MPI_SUM); }

static void op_allgather(const mmnc_dist *d, const void *in, size_t bytes, void *out)
{
    double t0 = MPI_Wtime();
    MPI_Allgather(in, (int)bytes, MPI_BYTE, out, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
    g_comm += MPI_Wtime() - t0;
}

static void op_bcast(const mmnc_dist *d, void *buf, size_t bytes, int root)
{
    double t0 = MPI_Wtime();
    for (size_t at = 0; at < bytes; at += PIECE)
        MPI_Bcast((char *)buf + at, (int)(bytes - at < PIECE ? bytes - at : PIECE), MPI_BYTE, root, MPI_COMM_WORLD);
    g_comm += MPI_Wtime() - t0;
}

/* Counts of every rank for gatherv/scatterv, on root (int: the transport LP
 * that uses them is limited to 2^30 entries by GLPK anyway). */
static int *counts(const mmnc_dist *d, mmnc_int n, int root, int **dsp)
{
    int me = (int)n, *cnt = malloc((size_t)d->size * sizeof(int));
    *dsp = malloc((size_t)d->size * sizeof(int));
    if (!cnt || !*dsp) fatal("out of memory");
    if (n > INT32_MAX) fatal("more than 2^31 values to gather or scatter on one rank (MPI's int counts)");
    MPI_Gather(&me, 1, MPI_INT, cnt, 1, MPI_INT, root, MPI_COMM_WORLD);
    if (d->rank == root) {
        long long at = 0;
        for (int r = 0; r < d->size; r++) {
            if (at > INT32_MAX) fatal("more than 2^31 values to gather or scatter on rank 0 (MPI's int counts)");
            (*dsp)[r] = (int)at;
            at += cnt[r];
        }
    }
    return cnt;
}

static void op_gatherv(const mmnc_dist *d, const double *in, mmnc_int n, double *out, int root)
{
    double t0 = MPI_Wtime();
    int *dsp, *cnt = counts(d, n, root, &dsp);
    MPI_Gatherv(in, (int)n, MPI_DOUBLE, out, cnt, dsp, MPI_DOUBLE, root, MPI_COMM_WORLD);
    free(cnt);
    free(dsp);
    g_comm += MPI_Wtime() - t0;
}

static void op_scatterv(const mmnc_dist *d, const double *in, double *out, mmnc_int n, int root)
{
    double t0 = MPI_Wtime();
    int *dsp, *cnt = counts(d, n, root, &dsp);
    MPI_Scatterv(in, cnt, dsp, MPI_DOUBLE, out, (int)n, MPI_DOUBLE, root, MPI_COMM_WORLD);
    free(cnt);
    free(dsp);
    g_comm += MPI_Wtime() - t0;
}

void cli_mpi_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_dist.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_dist.size);
    g_dist.sum = op_sum;
    g_dist.max = op_max;
    g_dist.isum = op_isum;
    g_dist.allgather = op_allgather;
    g_dist.bcast = op_bcast;
    g_dist.gatherv = op_gatherv;
    g_dist.scatterv = op_scatterv;
}

void cli_mpi_finish(int rc)
{
    free(g_tmp);
    g_tmp = NULL;
    fflush(stdout);
    fflush(stderr);
    /* A usage error is found alike on every rank before any collective:
     * all ranks stop by themselves.  Any other failure may be one rank's
     * own, with the others waiting in a collective: end the whole job. */
    if (rc != CLI_EXIT_OK && rc != CLI_EXIT_USAGE && g_dist.size > 1) abort_job(rc);
    MPI_Finalize();
}

void cli_comm_stats(double *seconds, double *summed_bytes)
{
    *seconds = g_comm;
    *summed_bytes = g_bytes;
}

int cli_rank(void) { return g_dist.rank; }
int cli_nranks(void) { return g_dist.size; }

int cli_agree(int rc)
{
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return rc;
}

int cli_load_pmf(const char *cmd, const char *path, const cli_load *l, int quiet, mmnc_data **d, mmnc_pmf **p,
                 mmnc_int *rows_dropped, mmnc_int *cols_dropped)
{
    mmnc_err err = {0, ""};
    mmnc_int y0 = 0;
    *d = NULL;
    *p = NULL;
    *rows_dropped = *cols_dropped = 0;
    if (l->transpose)
        return cli_usage_error(cmd, "--transpose is not available with MPI: write the transposed matrix once "
                                    "with 'mmnc convert --transpose' and read that");
    if (!strcmp(path, "-"))
        return cli_usage_error(cmd, "standard input reaches rank 0 only: give the ranks a file (mmnc convert - FILE.bin)");
    if (mmnc_data_read_part(path, &l->ro, g_dist.rank, g_dist.size, &g_dist, d, &y0, &err) != MMNC_OK ||
        (l->map != MMNC_MAP_NONE && mmnc_data_map_values(*d, l->map, &err) != MMNC_OK) ||
        (l->normalize_rows && mmnc_data_normalize_rows(*d, &err) != MMNC_OK))
        goto fail;
    if (l->drop_empty && mmnc_data_drop_empty_dist(*d, &g_dist, rows_dropped, cols_dropped, &err) != MMNC_OK)
        goto fail;
    if (!quiet && g_dist.rank == 0 && (*rows_dropped || *cols_dropped))
        fprintf(stderr, "mmnc %s: dropped %lld rows and %lld columns with zero mass\n", cmd, (long long)*rows_dropped,
                (long long)*cols_dropped);
    if (mmnc_pmf_build_dist((*d)->A, cli_pmf_flags(cmd, l, (*d)->A, quiet), &g_dist, p, &err) != MMNC_OK)
        goto fail;
    return CLI_EXIT_OK;
fail:
    mmnc_data_free(*d);
    *d = NULL;
    return cli_fail(cmd, "%s: %s", path, err.msg);
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
    if (g_dist.rank == 0) {
        char *in = NULL;
        if (len && fwrite(buf, 1, len, fp) != len) bad = 1;
        for (int r = 1; r < g_dist.size; r++) {
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
    if (g_dist.rank == 0 && (!(every = malloc((size_t)p->ny_all * sizeof(double))) ||
                             !(*all = malloc((size_t)p->ny_all * sizeof(mmnc_int)))))
        fatal("out of memory (the gathered rows)");
    op_gatherv(&g_dist, mine, p->ny, every, 0);
    if (g_dist.rank == 0)
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
    if (g_dist.rank == 0 && !(*all = malloc((size_t)(p->ny_all * width) * sizeof(double))))
        fatal("out of memory (the gathered rows)");
    op_gatherv(&g_dist, X, p->ny * width, *all, 0);
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

int cli_truth_read(const char *cmd, const char *path, const char *var, const mmnc_data *d, const mmnc_pmf *p,
                   mmnc_int **truth, mmnc_int *nclasses)
{
    /* Rank 0 reads the labels of all rows through a skeleton of the data
     * set that has only the rows' original indices, gathered: so classes
     * are numbered as in one process.  (Row names are not gathered: a
     * keyed labels file is matched against row numbers.) */
    mmnc_err err = {0, ""};
    mmnc_data skel = {0};
    mmnc_int n = 0;
    int rc = CLI_EXIT_OK;
    *truth = NULL;
    if ((rc = cli_gather_orig(cmd, p, d, &skel.row_orig)) != CLI_EXIT_OK) abort_job(rc);
    if (g_dist.rank == 0) {
        skel.A = mmnc_csr_alloc(p->ny_all, p->nx, 0, &err);
        if (!skel.A) fatal("out of memory");
        memset(skel.A->rowptr, 0, (size_t)(p->ny_all + 1) * sizeof(mmnc_int));
        skel.orig_rows = d->orig_rows;
        skel.orig_cols = d->orig_cols;
        if (mmnc_labels_read(path, var, &skel, &n, truth, nclasses, &err) != MMNC_OK) rc = cli_lib_fail(cmd, &err);
        else if (n != p->ny_all) rc = cli_fail(cmd, "%s: %lld labels for %lld rows", path, (long long)n, (long long)p->ny_all);
        mmnc_csr_free(skel.A);
    }
    free(skel.row_orig);
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rc;
}
#endif
