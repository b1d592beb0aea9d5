/*
 * main.c -- the mmnc command-line tool: dispatch to subcommands.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* OpenBLAS: our kernels are threaded with OpenMP; BLAS/LAPACK calls stay on one
 * thread so that results do not depend on the thread count. */
void openblas_set_num_threads(int num_threads);

/* The pthreads build of OpenBLAS starts its worker threads as it is loaded,
 * before main, and they spin for about 0.1 s waiting for work, taking a core
 * from OpenMP's threads (bench/NOTES.md: a 5 ms clustering took 110 ms on 2
 * cores).  With OPENBLAS_NUM_THREADS=1 it starts none: set it and start this
 * program again, once.  A value the user set is kept; without /proc the
 * program goes on as it is. */
#ifndef MMNC_MPI /* mmnc-mpi: not under the MPI launcher's feet */
static void one_blas_thread(char **argv)
{
    if (getenv("OPENBLAS_NUM_THREADS") || setenv("OPENBLAS_NUM_THREADS", "1", 1) != 0) return;
    execv("/proc/self/exe", argv);
}
#endif

/* MMNC_SCREEN (include/mmnc.h, "Precision"): the library reads only 0, 1
 * or 2; anything else is a mistake worth saying, not ignoring. */
static int screen_env_ok(void)
{
    const char *e = getenv("MMNC_SCREEN");
    if (!e || (e[0] >= '0' && e[0] <= '2' && !e[1])) return 1;
    fprintf(stderr, "mmnc: MMNC_SCREEN=%s: expected 0 (off), 1 (default) or 2 (always)\n", e);
    return 0;
}

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *what;
} commands[] = {
    {"cluster", cmd_cluster, "learn a clustering P_{Z|Y}: the default (a Dirichlet mixture on counts), Algorithm 1 or 2"},
    {"predict", cmd_predict, "assign new rows to the clusters of a saved model (cluster --save-model)"},
    {"eval", cmd_eval, "score cluster labels against reference classes (ACC, NMI, ARI, ...)"},
    {"sweep", cmd_sweep, "the objective against k, with a suggested k and a plot (model selection)"},
    {"info", cmd_info, "shape, marginals, connected components and DTM spectrum of a data file"},
    {"generate", cmd_generate, "planted-partition test data with ground truth, deterministic from a seed"},
    {"cooc", cmd_cooc, "word co-occurrence matrix from text files"},
    {"docs", cmd_docs, "document x term matrix from text files (one document per file or line)"},
    {"embed", cmd_embed, "row (word) embeddings from a truncated SVD of the DTM, in word2vec format"},
    {"msr", cmd_msr, "score word vectors on the MSR Sentence Completion questions"},
    {"convert", cmd_convert, "to mmnc's binary matrix format (loads at memory speed) and back to .mtx"},
};

#ifdef MMNC_MPI
/* mmnc-mpi: the commands that run on the rows of several ranks (cli/mpi.c). */
void cli_mpi_init(int *argc, char ***argv);
void cli_mpi_finish(int rc);

static int run(int argc, char **argv)
{
    static const char *dist_ok[] = {"cluster", "sweep", "embed"};
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        if (cli_rank() == 0)
            fprintf(argc < 2 ? stderr : stdout,
                    "mmnc-mpi %s -- mmnc on the rows of several MPI ranks\n\n"
                    "Usage: mpirun -np N mmnc-mpi COMMAND [options] DATA\n\nCommands:\n"
                    "  cluster  as 'mmnc cluster'; outputs written by rank 0\n"
                    "  sweep    as 'mmnc sweep'\n"
                    "  embed    as 'mmnc embed'; the vectors written by rank 0\n\n"
                    "Each rank reads its part of the rows (a binary matrix from 'mmnc convert' is read in\n"
                    "place; other formats are read whole and cut).  See docs/mpi.md.\n",
                    MMNC_VERSION_STRING);
        return argc < 2 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        if (cli_rank() == 0) printf("mmnc-mpi %s\n", MMNC_VERSION_STRING);
        return CLI_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof dist_ok / sizeof dist_ok[0]; i++)
        if (!strcmp(argv[1], dist_ok[i]))
            for (size_t j = 0; j < sizeof commands / sizeof commands[0]; j++)
                if (!strcmp(argv[1], commands[j].name)) return commands[j].fn(argc - 1, argv + 1);
    if (cli_rank() == 0)
        fprintf(stderr, "mmnc-mpi: '%s' is not a distributed command (cluster, sweep, embed); use mmnc %s\n", argv[1], argv[1]);
    return CLI_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    int rc;
    openblas_set_num_threads(1);
    cli_mpi_init(&argc, &argv);
    rc = screen_env_ok() ? run(argc, argv) : CLI_EXIT_USAGE; /* the same environment on every rank */
    cli_mpi_finish(rc);
    return rc;
}
#else
static void usage(FILE *fp)
{
    fprintf(fp, "mmnc %s -- probabilistic clustering by maximal matrix norm couplings\n\n"
                "Usage: mmnc COMMAND [options] ...\n\nCommands:\n", MMNC_VERSION_STRING);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(fp, "  %-9s %s\n", commands[i].name, commands[i].what);
    fprintf(fp, "\n'mmnc COMMAND --help' (or 'mmnc help COMMAND') lists the options of a command and their\n"
                "defaults; 'man mmnc-COMMAND' after make install.\n");
}

int main(int argc, char **argv)
{
    one_blas_thread(argv);
    openblas_set_num_threads(1);
    if (!screen_env_ok()) return CLI_EXIT_USAGE;
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "help") && argc >= 3) { /* mmnc help CMD: CMD's own help */
        static char help_opt[] = "--help";
        char *hargv[3] = {argv[2], help_opt, NULL};
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (!strcmp(argv[2], commands[i].name)) return commands[i].fn(2, hargv);
        fprintf(stderr, "mmnc: unknown command '%s'\n", argv[2]);
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("mmnc %s\n", MMNC_VERSION_STRING);
        return CLI_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "mmnc: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return CLI_EXIT_USAGE;
}
#endif
