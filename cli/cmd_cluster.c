/*
 * cmd_cluster.c -- `mmnc cluster`: read data, learn P_{Z|Y}, write labels,
 * the soft kernel, a JSON summary and the top columns of each cluster.
 */
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *CMD = "cluster";
/* mmnc_result.semi_kept's names (MMNC_SEMI_MOVES ...), in JSON and on the terminal */
static const char *const semi_name[MMNC_SEMI_CANDIDATES + 1] = {
    "-", "moves", "classifier", "transduced"};

/* The algorithms of the table below, one bit each. */
#define ALG_INF (1u << MMNC_ALG_INFORMATION)
#define ALG_NUC (1u << MMNC_ALG_NUCLEAR)
#define ALG_FRO (1u << MMNC_ALG_FROBENIUS)
#define ALG_DMM (1u << MMNC_ALG_DMM)
#define ALG_AUTO (1u << MMNC_ALG_AUTO)
#define ALG_ALL (ALG_INF | ALG_NUC | ALG_FRO | ALG_DMM | ALG_AUTO)

/* The options that apply to some runs only: the algorithms (algs) and a
 * further condition (when: what the help says; check_applies tests it).
 * Every other option applies to every run.  The one truth behind
 * check_applies and the help's table, which tests/cli/options_table.sh
 * reads: an option given that would not change the run is a usage error,
 * whatever its value, so that a typo in a command line never goes silent. */
static const struct applies {
    const char *name;
    unsigned algs;
    const char *when;
} APPLIES[] = {
    {"refine", ALG_NUC, "without --pz"},
    {"size-prior", ALG_INF | ALG_NUC, "nuclear: with --refine each or chosen"},
    {"move-tol", ALG_INF | ALG_DMM | ALG_AUTO, NULL},
    {"merge-split", ALG_INF, NULL},
    {"agreement", ALG_INF, NULL},
    {"moves", ALG_INF | ALG_DMM | ALG_AUTO, NULL},
    {"dmm-beta", ALG_DMM | ALG_AUTO, NULL},
    {"pz", ALG_NUC | ALG_FRO, NULL},
    {"tol", ALG_FRO, NULL},
    {"exact-marginal", ALG_FRO, NULL},
    {"lambda", ALG_FRO, "without --exact-marginal"},
    {"step", ALG_FRO, "without --exact-marginal"},
    {"select-tol", ALG_ALL, "with --select predictive"},
    {"col-clusters", ALG_DMM | ALG_INF | ALG_NUC | ALG_AUTO, "nuclear: without --pz or --refine"},
    {"labels", ALG_ALL, "without --col-clusters; nuclear: without --pz; frobenius: without --exact-marginal"},
};
enum { NAPPLIES = sizeof APPLIES / sizeof APPLIES[0] };

static int applies_index(const char *name)
{
    for (int i = 0; i < NAPPLIES; i++)
        if (!strcmp(APPLIES[i].name, name)) return i;
    return -1;
}

/* "-a information (the default) or -a nuclear": the algorithms of a mask. */
static void alg_list(unsigned algs, char *buf, size_t n)
{
    static const int order[] = {MMNC_ALG_AUTO, MMNC_ALG_DMM, MMNC_ALG_INFORMATION, MMNC_ALG_NUCLEAR,
                                MMNC_ALG_FROBENIUS};
    size_t len = 0;
    int first = 1;
    buf[0] = '\0';
    for (int i = 0; i < 5 && len < n; i++) {
        if (!(algs & (1u << order[i]))) continue;
        len += (size_t)snprintf(buf + len, n - len, "%s-a %s%s", first ? "" : " or ", cli_algorithm_name(order[i]),
                                order[i] == MMNC_DEFAULT_ALGORITHM ? " (the default)" : "");
        first = 0;
    }
}

static void applies_help(void)
{
    char algs[96];
    printf("Which runs an option applies to (an option given that would not change the run is a usage\n"
           "error, whatever its value, the default's included; the options not listed apply to all):\n");
    for (int i = 0; i < NAPPLIES; i++) {
        const struct applies *a = &APPLIES[i];
        alg_list(a->algs, algs, sizeof algs);
        printf("  --%-18s %s%s%s%s\n", a->name, a->algs == ALG_ALL ? "every algorithm" : algs,
               a->when ? " (" : "", a->when ? a->when : "", a->when ? ")" : "");
    }
    printf("\n");
}

static void help(void)
{
    printf("Usage: mmnc cluster [options] DATA\n\n"
           "Learn a clustering P_{Z|Y} of the rows of DATA: by default the evidence of a Dirichlet\n"
           "mixture of the rows' counts (for values that are not counts, the information I(X;Z)),\n"
           "or a matrix norm of the divergence transition matrix B_{Z,X} (Algorithms 1 and 2 of Qiu,\n"
           "Makur, Zheng 2018).\n\n"
           "Clustering options:\n"
           "  -k, --clusters N      number of clusters (default " CLI_STR(MMNC_DEFAULT_K) ")\n"
           "  -a, --algorithm A     auto (dmm where every value is a whole number, a count; else\n"
           "                        information; with --col-clusters, the same choice in its\n"
           "                        co-clustering form; an option of information alone, such as\n"
           "                        --size-prior, asks for information, --dmm-beta for dmm) |\n"
           "                        dmm (the evidence of a Dirichlet mixture of the rows' counts by\n"
           "                        single-row moves, alpha and beta fitted, beta >= --dmm-beta) |\n"
           "                        information (exact I(X;Z) by single-row moves, the sequential\n"
           "                        information bottleneck's objective, with a prior on the cluster\n"
           "                        sizes: see --size-prior) |\n"
           "                        nuclear (Algorithm 2) | frobenius (Algorithm 1)\n"
           "                        (default %s)\n"
           "  -s, --seed N          random seed (default " CLI_STR(MMNC_DEFAULT_SEED) ")\n"
           "  -r, --restarts N      independent starts; --select says which is kept (default "
           CLI_STR(MMNC_DEFAULT_RESTARTS) ")\n"
           "      --init I          random (the paper's) | kmeans++ | spectral (spectral: the starts\n"
           "                        cycle through spectral, kmeans++ and random) (default %s)\n"
           "      --select S        objective | predictive: which start is kept, the best objective (the\n"
           "                        paper's protocol) or the best leave-one-row-out predictive\n"
           "                        information, i.e. the clusters that best predict rows they were not\n"
           "                        fitted to (default %s)\n"
           "      --select-tol X    predictive: the best objective among the starts within X (relative)\n"
           "                        of the best predictive information (default " CLI_STR(MMNC_DEFAULT_SELECT_TOL) ")\n"
           "      --refine R        chosen | each | none: single-row moves that raise the exact I(X;Z)\n"
           "                        from the kept start (chosen), from every start before the selection\n"
           "                        (each), or none; for hard results only (default %s)\n"
           "      --size-prior G    information objective (-a information, --refine): maximise\n"
           "                        I(X;Z) - G (rows / nonzeros) H(cluster sizes in rows); 0 = I(X;Z)\n"
           "                        alone, larger keeps large groups whole (default "
           CLI_STR(MMNC_DEFAULT_SIZE_PRIOR) ")\n"
           "      --move-tol X      information and dmm moves: each start stops once a sweep moves fewer than\n"
           "                        X of the rows (in each phase); the kept start then goes on until\n"
           "                        no row moves; 0 = every start until no row moves (default "
           CLI_STR(MMNC_DEFAULT_MOVE_TOL) ")\n"
           "      --dmm-beta B      dmm: the least value of beta, the Dirichlet parameter of every\n"
           "                        cluster's column distribution, which the evidence fits above it\n"
           "                        (1/2: Jeffreys' prior); a larger beta smooths every cluster more, so\n"
           "                        that the columns many rows share weigh more than rare ones a few rows\n"
           "                        share; 0 = beta fitted freely; with -a auto it asks for dmm (default\n"
           "                        " CLI_STR(MMNC_DEFAULT_DMM_BETA) ")\n"
           "      --merge-split N   information moves, k >= 3: after the kept start, at most N merge-split\n"
           "                        trials (merge two close clusters, split the most mixed one, run as\n"
           "                        a start from there; kept if the objective rises), in rounds of two;\n"
           "                        a round without a gain ends them; 0 = none (default "
           CLI_STR(MMNC_DEFAULT_MERGE_SPLIT) ")\n"
           "      --agreement 0|1   information with a size prior: keep the prior only if the starts'\n"
           "                        partitions with it agree with one another (mean adjusted Rand index)\n"
           "                        at least as well as their prior-free optima; else the result is that\n"
           "                        of --size-prior 0; 0 = the prior always (default "
           CLI_STR(MMNC_DEFAULT_AGREEMENT) ")\n"
           "      --moves M         auto | batch | sequential: information moves as batch passes (the rows\n"
           "                        of a block decided side by side over threads and ranks, kept while the\n"
           "                        objective rises), then sequential single-row moves from there (batch,\n"
           "                        experimental), or the sequential moves alone (sequential, auto).\n"
           "                        dmm under mmnc-mpi: each rank sweeps its own rows, the ranks meeting\n"
           "                        1-16 times a sweep (batch: the result depends on the rank count), or\n"
           "                        the matrix gathered onto every rank and the starts shared out\n"
           "                        (sequential: one process's result); auto gathers up to 2^25 nonzeros\n"
           "                        on any number of ranks. One process: sequential (default %s)\n"
           "      --col-clusters L  co-cluster: the columns into L clusters as well, by alternating row and\n"
           "                        column moves: dmm the Dirichlet mixture's evidence of the rows' counts\n"
           "                        summed by column clusters, information I(Z;W) (Dhillon, Mallela, Modha\n"
           "                        2003), nuclear ||B_{Z,W}||_* by Algorithm 2 on each side in turn;\n"
           "                        writes PREFIX.col_labels.tsv, and the k x L blocks into PREFIX.top.tsv;\n"
           "                        not with --size-prior, --move-tol, --merge-split, --agreement, --moves,\n"
           "                        --select, --init spectral, --pz or --refine; 0 = the rows alone\n"
           "                        (default " CLI_STR(MMNC_DEFAULT_COL_CLUSTERS) ")\n"
           "      --labels FILE     semi-supervision: hold the rows FILE labels in their clusters for the whole\n"
           "                        run, 'ID CLUSTER' lines: ID as in PREFIX.labels.tsv (row names, else\n"
           "                        row numbers), CLUSTER 1..k (an edited PREFIX.labels.tsv of an earlier\n"
           "                        run will do: its header and further fields are ignored); rows not\n"
           "                        listed are clustered around them (default none)\n"
           "      --paper           the paper's protocol: -a nuclear --init random --select objective\n"
           "                        --refine none\n"
           "      --max-iter N      iterations per start, 0 = " CLI_STR(MMNC_DEFAULT_MAX_ITER_NUCLEAR) " (nuclear), "
           CLI_STR(MMNC_DEFAULT_MAX_ITER_FROBENIUS) " (frobenius; "
           CLI_STR(MMNC_DEFAULT_MAX_ITER_EXACT) " with\n"
           "                        --exact-marginal) or " CLI_STR(MMNC_DEFAULT_MAX_ITER_INFORMATION)
           " (information: sweeps) (default " CLI_STR(MMNC_DEFAULT_MAX_ITER) ")\n"
           "      --tol X           Algorithm 1: stop when max |W_t - W_t-1| < X or the objective gained\n"
           "                        less than X (relative) over 10 steps (default " CLI_STR(MMNC_DEFAULT_TOL) ")\n"
           "      --pz P            cluster marginal: 'uniform' or comma-separated weights, normalised\n"
           "                        (nuclear: prescribed, exact LP step; frobenius: target) (default none;\n"
           "                        frobenius then uses uniform)\n"
           "      --exact-marginal  Algorithm 1: hold P_Z exactly (LP ascent steps, needs GLPK) instead of\n"
           "                        the penalty; no lambda or step (default off)\n"
           "      --lambda X        Algorithm 1 marginal penalty (default " CLI_STR(MMNC_DEFAULT_LAMBDA) ")\n"
           "      --step X          Algorithm 1 step size alpha (default 1/lambda)\n"
           "  -t, --threads N       threads, 0 = all cores (default " CLI_STR(MMNC_DEFAULT_THREADS)
           "); results do not depend on it\n\n"
           "Output options:\n"
           "  -o, --output PREFIX   write PREFIX.labels.tsv, PREFIX.soft.tsv, PREFIX.json, PREFIX.top.tsv\n"
           "                        (default: DATA's file name without extensions, in the current directory;\n"
           "                        PREFIX ending in '/', or an existing directory, is a directory for that\n"
           "                        name: -o DIR writes DIR/NAME.labels.tsv, ...)\n"
           "      --no-soft         do not write PREFIX.soft.tsv\n"
           "      --save-model FILE save the learned model to FILE, for 'mmnc predict' on new rows (columns\n"
           "                        are known by their ids, or by their --names) (default none)\n"
           "      --names FILE      column names, one per line (or 'id|name' lines with --names-keyed);\n"
           "                        a repeated name is written NAME#2, NAME#3, ... in line (keyed: id) order\n"
           "                        (default: DATA.cols beside a .mtx DATA, as mmnc docs writes it; else\n"
           "                        DATA.vocab beside a .mtx or .bin DATA, as mmnc cooc writes it, for\n"
           "                        its square matrix: the rows' names too)\n"
           "      --names-keyed     the names files have 'id|name' or 'id<TAB>name' lines, matched to the\n"
           "                        numeric ids of the data (e.g. MovieLens u.item); a row or column\n"
           "                        without a line keeps its id, written ID#2, ... where that id is a\n"
           "                        name in the file (default off)\n"
           "      --row-names FILE  row names, one per line (line i names original row i); used instead of\n"
           "                        the ids in the outputs, a repeated name written NAME#2, ... as for\n"
           "                        --names (default: DATA.rows beside a .mtx DATA; else DATA.vocab, as\n"
           "                        for --names)\n"
           "      --top N           characteristic columns listed per cluster, at most: only those with a\n"
           "                        positive score P(x|z) log(P(x|z)/P(x)), beyond the rounding of the\n"
           "                        sums that make it (default " CLI_STR(MMNC_DEFAULT_TOP) ")\n"
           "      --truth FILE      reference labels: score the clustering (ACC, NMI, ARI, coverage, ...);\n"
           "                        'id label' lines name rows as PREFIX.labels.tsv and --labels do (by\n"
           "                        --row-names where given); their ids that name no row are excluded,\n"
           "                        and said on stderr as mmnc eval says them\n"
           "      --truth-var NAME  variable of a .mat truth file (default " MMNC_DEFAULT_LABELS_VAR ")\n"
           "  -q, --quiet           no progress or summary on stderr/stdout\n"
           "  -v, --verbose         besides the line per start, a line per iteration on stderr\n"
           "  -h, --help            this help\n\n",
           cli_algorithm_name(MMNC_DEFAULT_ALGORITHM), cli_init_name(MMNC_DEFAULT_INIT),
           cli_select_name(MMNC_DEFAULT_SELECT), cli_refine_name(MMNC_DEFAULT_REFINE),
           cli_moves_name(MMNC_DEFAULT_MOVES));
    applies_help();
    cli_load_help(stdout);
}

/* What check_applies needs to know of a run besides its algorithm. */
typedef struct given {
    char opt[NAPPLIES];  /* APPLIES[i] was given */
    int pz, exact, select, refine;
    int select_given, init;  /* --select given; the --init of the run */
    mmnc_int col_clusters;   /* --col-clusters */
    int names_keyed;     /* --names-keyed without a names file */
    const char *truth_var; /* --truth-var without --truth */
} given;

/* Options given that would not change the run: a usage error naming the
 * option and the runs it belongs to, never silence. */
static int check_applies(int algorithm, const given *g)
{
    char algs[96];
    for (int i = 0; i < NAPPLIES; i++) {
        const struct applies *a = &APPLIES[i];
        if (!g->opt[i]) continue;
        alg_list(a->algs, algs, sizeof algs);
        if (!(a->algs & (1u << algorithm)))
            return cli_usage_error(CMD, "--%s applies to %s, not to -a %s%s", a->name, algs,
                                   cli_algorithm_name(algorithm),
                                   algorithm == MMNC_DEFAULT_ALGORITHM ? " (the default)" : "");
        if (!strcmp(a->name, "refine") && g->pz)
            return cli_usage_error(CMD, "--refine applies to -a nuclear without --pz: a prescribed P_Z is not refined");
        if (!strcmp(a->name, "size-prior") && algorithm == MMNC_ALG_NUCLEAR && g->refine == MMNC_REFINE_NONE)
            return cli_usage_error(CMD, "--size-prior applies to -a nuclear only with --refine each or chosen "
                                        "(the information moves after Algorithm 2)");
        if ((!strcmp(a->name, "lambda") || !strcmp(a->name, "step")) && g->exact)
            return cli_usage_error(CMD, "--%s applies to -a frobenius without --exact-marginal, which holds P_Z "
                                        "exactly", a->name);
        if (!strcmp(a->name, "select-tol") && g->select != MMNC_SELECT_PREDICTIVE)
            return cli_usage_error(CMD, "--select-tol applies with --select predictive only");
        if (!strcmp(a->name, "labels") && algorithm == MMNC_ALG_NUCLEAR && g->pz)
            return cli_usage_error(CMD, "--labels applies to -a nuclear without --pz: the given rows would fix part "
                                        "of the prescribed P_Z");
        if (!strcmp(a->name, "labels") && algorithm == MMNC_ALG_FROBENIUS && g->exact)
            return cli_usage_error(CMD, "--labels applies to -a frobenius without --exact-marginal, which holds P_Z "
                                        "exactly: the given rows would fix part of it");
    }
    if (g->col_clusters > 0) {
        static const char *const not_with[] = {"size-prior", "move-tol", "merge-split", "agreement", "moves"};
        for (size_t i = 0; i < sizeof not_with / sizeof not_with[0]; i++)
            if (g->opt[applies_index(not_with[i])])
                return cli_usage_error(CMD, "--%s does not apply with --col-clusters: the co-clustering's row "
                                            "moves have no size prior, merge-split or agreement rule",
                                       not_with[i]);
        if (g->select_given)
            return cli_usage_error(CMD, "--select does not apply with --col-clusters: the start of best objective "
                                        "is kept");
        if (g->init == MMNC_INIT_SPECTRAL)
            return cli_usage_error(CMD, "--init spectral does not apply with --col-clusters: random or kmeans++");
        if (g->pz || g->refine != MMNC_REFINE_NONE)
            return cli_usage_error(CMD, "--col-clusters applies to -a nuclear without --pz or --refine");
        if (g->opt[applies_index("labels")])
            return cli_usage_error(CMD, "--labels applies without --col-clusters: the given clusters hold rows, "
                                        "not the blocks of a co-clustering");
    }
    if (g->names_keyed) return cli_usage_error(CMD, "--names-keyed applies to --names or --row-names, neither given");
    if (g->truth_var) return cli_usage_error(CMD, "--truth-var applies to --truth, not given");
    return CLI_EXIT_OK;
}

/* The iteration cap of each start (mmnc_params.max_iter, 0 its default). */
static int iteration_cap(const mmnc_params *prm)
{
    if (prm->max_iter > 0) return prm->max_iter;
    return prm->algorithm == MMNC_ALG_NUCLEAR       ? MMNC_DEFAULT_MAX_ITER_NUCLEAR
         : prm->algorithm == MMNC_ALG_INFORMATION ? MMNC_DEFAULT_MAX_ITER_INFORMATION
         : prm->algorithm == MMNC_ALG_DMM         ? MMNC_DEFAULT_MAX_ITER_INFORMATION
         : prm->algorithm == MMNC_ALG_AUTO        ? MMNC_DEFAULT_MAX_ITER_INFORMATION
         : prm->exact_marginal                    ? MMNC_DEFAULT_MAX_ITER_EXACT
                                                  : MMNC_DEFAULT_MAX_ITER_FROBENIUS;
}

/* What the progress of a run knows (cli_progress shows it): on a terminal
 * a status line, what runs, the starts done of all and, once a start has
 * ended, an estimate of the time the other starts take; off a terminal a
 * line for each start as it ends and for each phase after the starts. */
typedef struct start_state {
    double t0;      /* when it began */
    int state;      /* 0 not begun, 1 running, 2 ended */
    char phase[24]; /* the phase it is in ("" for none) */
} start_state;

typedef struct progress_ctx {
    cli_progress pr;
    int restarts, information;
    int verbose; /* besides, a line per iteration (-v) */
    start_state *st; /* restarts (NULL: out of memory, the status line says less) */
    int done, running, most; /* starts ended and running; the most seen running at once */
    double busy;             /* the ended starts' seconds */
    char what[64];           /* the phase after the starts, or "" */
} progress_ctx;

/* The status line: what runs (it), the starts done, the time left where there is an estimate. */
static void show(progress_ctx *c, const char *it)
{
    char eta[48] = "", d[24];
    int left = c->restarts - c->done;
    if (c->done > 0 && left > 0) /* the mean start's seconds, over the starts that run side by side */
        snprintf(eta, sizeof eta, ", starts ~%s left", cli_duration(c->busy / c->done * left / c->most, d));
    cli_progress_say(&c->pr, "%s | %d/%d starts done%s", it, c->done, c->restarts, eta);
}

static int on_progress(void *ctx, int restart, int iter, double obj)
{
    progress_ctx *c = ctx;
    char it[128];
    const char *unit = c->information ? "sweep" : "iteration";
    if (restart < 0) { /* the spectral embedding of --init spectral */
        snprintf(it, sizeof it, "spectral embedding, iteration %d", iter);
        if (c->verbose) cli_progress_log(&c->pr, "spectral embedding, iteration %d, change %.2g", iter, obj);
    } else if (c->st && restart < c->restarts && c->st[restart].state == 1) {
        snprintf(it, sizeof it, "start %d/%d%s%s, %s %d", restart + 1, c->restarts, c->st[restart].phase[0] ? " " : "",
                 c->st[restart].phase, unit, iter);
        if (c->verbose)
            cli_progress_log(&c->pr, "start %d/%d, %s %d, objective %.6f", restart + 1, c->restarts, unit, iter, obj);
    } else { /* the kept start's polish, merge-split trials or refinement */
        snprintf(it, sizeof it, "%s, %s %d", c->what[0] ? c->what : "the kept start", unit, iter);
        if (c->verbose) cli_progress_log(&c->pr, "%s, %s %d, objective %.6f", it, unit, iter, obj);
    }
    if (c->pr.tty) show(c, it);
    return 0;
}

static int on_event(void *ctx, const mmnc_event *ev)
{
    progress_ctx *c = ctx;
    start_state *s = c->st && ev->restart >= 0 && ev->restart < c->restarts ? &c->st[ev->restart] : NULL;
    double now = cli_now();
    char it[128] = "";
    const char *unit = c->information ? "sweep" : "iteration";
    int now_shown = 0; /* a phase after the starts: shown at once (a few a run), whatever the rate */
    if (ev->kind == MMNC_EV_START_BEGIN) {
        if (s) s->t0 = now, s->state = 1, s->phase[0] = '\0';
        if (++c->running > c->most) c->most = c->running;
        snprintf(it, sizeof it, "start %d/%d", ev->restart + 1, ev->restarts);
    } else if (ev->kind == MMNC_EV_START_END) {
        double secs = s ? now - s->t0 : 0.0;
        if (s) s->state = 2;
        c->running--;
        c->done++;
        c->busy += secs;
        if (!c->pr.tty || c->verbose) {
            char cap[64];
            if (ev->converged) snprintf(cap, sizeof cap, "converged");
            else snprintf(cap, sizeof cap, "at the %s cap (%d) without converging", unit, ev->max_iter);
            cli_progress_log(&c->pr, "start %d/%d: objective %.6f, %d %s%s, %s, %.1f s", ev->restart + 1, ev->restarts,
                             ev->objective, ev->iter, unit, ev->iter == 1 ? "" : "s", cap, secs);
        }
        snprintf(it, sizeof it, "start %d/%d ended", ev->restart + 1, ev->restarts);
    } else if (ev->kind == MMNC_EV_PHASE && ev->phase) {
        if (s && s->state == 1) { /* a phase within a start: the status line only */
            snprintf(s->phase, sizeof s->phase, "%s", ev->phase);
            snprintf(it, sizeof it, "start %d/%d %s", ev->restart + 1, ev->restarts, ev->phase);
        } else {
            if (ev->restart >= 0) snprintf(c->what, sizeof c->what, "%s (start %d)", ev->phase, ev->restart + 1);
            else snprintf(c->what, sizeof c->what, "%s", ev->phase);
            if (!c->pr.tty || c->verbose) cli_progress_log(&c->pr, "%s", c->what);
            snprintf(it, sizeof it, "%s", c->what);
            now_shown = 1;
        }
    }
    if (c->pr.tty && it[0]) {
        if (now_shown) c->pr.last = 0.0;
        show(c, it);
    }
    return 0;
}

static int parse_pz(const char *s, mmnc_int k, double **out)
{
    double *pz = calloc((size_t)k, sizeof(double));
    const char *c = s;
    mmnc_int n = 0;
    if (!pz) return cli_fail(CMD, "out of memory");
    if (!strcmp(s, "uniform")) {
        for (mmnc_int z = 0; z < k; z++) pz[z] = 1.0 / (double)k;
        *out = pz;
        return 0;
    }
    while (*c) {
        const char *end = strchr(c, ',');
        double v;
        if (!end) end = c + strlen(c);
        if (mmnc_number_parse(c, (size_t)(end - c), &v, NULL) != MMNC_OK || v <= 0 || n >= k) {
            free(pz);
            return cli_usage_error(CMD, "--pz: expected 'uniform' or %lld positive comma-separated decimal numbers, "
                                        "got '%s'", (long long)k, s);
        }
        pz[n++] = v;
        c = *end ? end + 1 : end;
    }
    if (n != k) {
        free(pz);
        return cli_usage_error(CMD, "--pz: expected %lld weights (one per cluster), got %lld", (long long)k, (long long)n);
    }
    double sum = 0.0;
    for (mmnc_int z = 0; z < k; z++) sum += pz[z];
    for (mmnc_int z = 0; z < k && isfinite(sum); z++) {
        pz[z] /= sum;
        if (!(pz[z] >= DBL_MIN)) sum = INFINITY; /* a share below the smallest normal double: as unusable */
    }
    if (!isfinite(sum)) {
        free(pz);
        return cli_usage_error(CMD, "--pz: the weights '%s' cannot be normalised in double precision (their sum "
                                    "overflows, or a share falls below 2.2e-308): give them on a smaller scale", s);
    }
    *out = pz;
    return 0;
}

/* The starts that stopped at the iteration cap without converging. */
static int at_cap(const mmnc_result *res)
{
    int n = 0;
    for (int i = 0; i < res->restarts; i++) n += !res->restart_converged[i];
    return n;
}

/* A row and its mass, for listing members heaviest first (ties: lower row). */
typedef struct by_mass {
    double py;
    mmnc_int y;
} by_mass;

static int by_mass_cmp(const void *a, const void *b)
{
    const by_mass *u = a, *v = b;
    if (u->py != v->py) return u->py < v->py ? 1 : -1;
    return (u->y > v->y) - (u->y < v->y);
}

static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 1;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s%s", a, b);
    return s;
}

/* What the outputs of one run are made of (cmd_cluster fills it). */
typedef struct run {
    const char *data_path, *truth_path;
    const mmnc_params *prm;
    const mmnc_data *d;
    const mmnc_pmf *p;
    const mmnc_result *res;
    cli_namer nm;
    mmnc_int nnz_all, rows_dropped, cols_dropped, ntop;
    const mmnc_int *labels_all, *topc; /* labels_all: of every row, on rank 0 */
    const double *tops;
    const mmnc_scores *scores;         /* NULL without --truth */
    double t_load, comm_s, comm_b;
    const char *path_labels, *path_soft, *path_json, *path_top, *path_model;
    int write_soft;
    cli_outset *outs; /* the files above; written to their staged paths (cli_outset_path) */
    const char *path_cols; /* --col-clusters: PREFIX.col_labels.tsv, else NULL */
    const char *labels_path;           /* --labels FILE, else NULL */
    const mmnc_int *fixed_all;         /* --labels: every row's given cluster or -1, on rank 0 */
    mmnc_int labels_given, labels_dropped; /* rows labelled; labelled ids of rows dropped as empty */
} run;

/* --labels: the labelled rows that ended in their given cluster (rank 0). */
static mmnc_int labels_held(const run *r)
{
    mmnc_int n = 0;
    for (mmnc_int y = 0; r->fixed_all && y < r->p->ny_all; y++)
        n += r->fixed_all[y] >= 0 && r->labels_all[y] == r->fixed_all[y];
    return n;
}

/* The outputs' indices in run.outs. */
enum { OUT_LABELS, OUT_JSON, OUT_TOP, OUT_SOFT, OUT_MODEL, OUT_COLS };

/* PREFIX.labels.tsv and PREFIX.soft.tsv: every rank formats its rows, rank
 * 0 writes them in order (out: rank 0's open files).  Collective. */
static int write_rows(const run *r, mmnc_outfile *out, cli_part *part)
{
    const mmnc_result *res = r->res;
    const mmnc_pmf *p = r->p;
    mmnc_int k = res->k;
    int root = cli_rank() == 0, rc;
    char buf[32];
    FILE *fp = root ? out[0].fp : NULL;
    if (root) fprintf(fp, "id\tcluster\tprobability\n");
    if ((rc = cli_part_open(CMD, part, fp)) != CLI_EXIT_OK) return rc;
    for (mmnc_int y = 0; y < p->ny; y++) {
        cli_tsv_field(part->fp, cli_row_label(&r->nm, y, buf));
        fprintf(part->fp, "\t%lld\t%.6g\n", (long long)res->label[y] + 1, res->W[y * k + res->label[y]]);
    }
    if ((rc = cli_part_write(CMD, part, fp)) != CLI_EXIT_OK) return rc;
    if (r->write_soft) {
        fp = root ? out[3].fp : NULL;
        if (root) {
            fprintf(fp, "id");
            for (mmnc_int z = 0; z < k; z++) fprintf(fp, "\tp%lld", (long long)z + 1);
            fputc('\n', fp);
        }
        if ((rc = cli_part_open(CMD, part, fp)) != CLI_EXIT_OK) return rc;
        for (mmnc_int y = 0; y < p->ny; y++) {
            cli_tsv_field(part->fp, cli_row_label(&r->nm, y, buf));
            for (mmnc_int z = 0; z < k; z++) fprintf(part->fp, "\t%.6g", res->W[y * k + z]);
            fputc('\n', part->fp);
        }
        if ((rc = cli_part_write(CMD, part, fp)) != CLI_EXIT_OK) return rc;
    }
    return CLI_EXIT_OK;
}

/* Slot i of cluster z's top columns (mmnc_top_columns) is listed: a column
 * whose score s = q log(q/p), q = P(x|z), p = P(x), is positive (more
 * frequent in the cluster than overall; a column that the cluster uses less
 * than the data does says nothing of it) beyond rounding.  Where the data
 * gives q = p (k = 1: every column), the computed q/p is 1 + d from
 * rounding alone: q = T/pz with T and pz sums of at most |Y| nonnegative
 * products each, off by at most 2 |Y| u each in any order (u = DBL_EPSILON
 * / 2), and p within a few u (mmnc_pmf: py, px and the total are exact sums
 * rounded once), so |d| <= (4 |Y| + 6) u, and s ~ p d.  A score is listed
 * above p (2 |Y| + 4) DBL_EPSILON: q must exceed p by more than that
 * rounding. */
static int top_listed(const run *r, mmnc_int z, mmnc_int i)
{
    mmnc_int x = r->topc[z * r->ntop + i];
    if (x < 0) return 0;
    double tol = (2.0 * (double)r->p->ny_all + 4.0) * DBL_EPSILON * r->p->px[x];
    return r->tops[z * r->ntop + i] > tol;
}

/* PREFIX.top.tsv: the most characteristic columns of each cluster, those
 * with a positive score (top_listed). */
static void write_top(const run *r, FILE *fp)
{
    mmnc_int k = r->res->k, ntop = r->ntop;
    char buf[32], buf2[32];
    fprintf(fp, "cluster\trank\tcolumn\tname\tscore\n");
    for (mmnc_int z = 0; z < k; z++)
        for (mmnc_int i = 0, rank = 0; i < ntop; i++) {
            if (!top_listed(r, z, i)) continue; /* the bound is each column's own: not a break */
            mmnc_int x = r->topc[z * ntop + i];
            const char *id = mmnc_data_col_id(r->d, x, buf2);
            fprintf(fp, "%lld\t%lld\t", (long long)z + 1, (long long)++rank);
            cli_tsv_field(fp, id);
            fputc('\t', fp);
            cli_tsv_field(fp, cli_col_label(&r->nm, x, buf));
            fprintf(fp, "\t%.6g\n", r->tops[z * ntop + i]);
        }
}

/* --col-clusters: PREFIX.col_labels.tsv, each column's id, name and cluster 1..L. */
static void write_col_labels(const run *r, FILE *fp)
{
    char buf[32], buf2[32];
    fprintf(fp, "column\tname\tcol_cluster\n");
    for (mmnc_int x = 0; x < r->p->nx; x++) {
        cli_tsv_field(fp, mmnc_data_col_id(r->d, x, buf2));
        fputc('\t', fp);
        cli_tsv_field(fp, cli_col_label(&r->nm, x, buf));
        fprintf(fp, "\t%lld\n", (long long)r->res->col_label[x] + 1);
    }
}

/* An item and its mass in a block, for the block's members heaviest first. */
typedef struct member {
    double mass;
    mmnc_int i;
} member;

/* Keep the ntop heaviest of a block's members in top[0..ntop-1] (mass 0: empty slot; ties: lower i). */
static void member_add(member *top, mmnc_int ntop, double mass, mmnc_int i)
{
    mmnc_int j = ntop;
    while (j > 0 && (top[j - 1].mass < mass || (top[j - 1].mass == mass && top[j - 1].i > i && mass > 0))) j--;
    if (j >= ntop) return;
    memmove(top + j + 1, top + j, (size_t)(ntop - j - 1) * sizeof *top);
    top[j] = (member){mass, i};
}

/* --col-clusters: PREFIX.top.tsv, the k x L blocks with P(z,w) > 0, heaviest
 * first, each with its ntop heaviest rows (by P(y,w), y in z) and columns
 * (by P(z,x), x in w). */
static int write_blocks(const run *r, FILE *fp)
{
    const mmnc_result *res = r->res;
    const mmnc_csr *P = r->p->P;
    mmnc_int k = res->k, l = res->l, ntop = r->ntop, nb = k * l;
    member *rows = calloc((size_t)(nb * ntop), sizeof *rows), *cols = calloc((size_t)(nb * ntop), sizeof *cols);
    by_mass *order = malloc((size_t)nb * sizeof *order);
    double *acc = calloc((size_t)l, sizeof *acc), *T = calloc((size_t)(r->p->nx * k), sizeof *T);
    char buf[32], buf2[32];
    if (!rows || !cols || !order || !acc || !T) {
        free(rows), free(cols), free(order), free(acc), free(T);
        return cli_fail(CMD, "out of memory");
    }
    for (mmnc_int y = 0; y < r->p->ny; y++) {
        mmnc_int z = res->label[y];
        for (mmnc_int j = P->rowptr[y]; j < P->rowptr[y + 1]; j++) {
            acc[res->col_label[P->colind[j]]] += P->val[j];
            T[P->colind[j] * k + z] += P->val[j];
        }
        for (mmnc_int j = P->rowptr[y]; j < P->rowptr[y + 1]; j++) {
            mmnc_int w = res->col_label[P->colind[j]];
            if (acc[w] > 0) member_add(rows + (z * l + w) * ntop, ntop, acc[w], y), acc[w] = 0.0;
        }
    }
    for (mmnc_int x = 0; x < r->p->nx; x++)
        for (mmnc_int z = 0; z < k; z++)
            if (T[x * k + z] > 0) member_add(cols + (z * l + res->col_label[x]) * ntop, ntop, T[x * k + z], x);
    for (mmnc_int b = 0; b < nb; b++) order[b] = (by_mass){res->block_pz[b], b};
    qsort(order, (size_t)nb, sizeof *order, by_mass_cmp);
    fprintf(fp, "cluster\tcol_cluster\tp_zw\tkind\trank\tid\tname\tmass\n");
    for (mmnc_int b = 0; b < nb && order[b].py > 0; b++) {
        mmnc_int z = order[b].y / l, w = order[b].y % l;
        for (int side = 0; side < 2; side++)
            for (mmnc_int i = 0; i < ntop; i++) {
                const member *m = (side ? cols : rows) + order[b].y * ntop + i;
                if (!(m->mass > 0)) break;
                fprintf(fp, "%lld\t%lld\t%.6g\t%s\t%lld\t", (long long)z + 1, (long long)w + 1, order[b].py,
                        side ? "column" : "row", (long long)i + 1);
                cli_tsv_field(fp, side ? mmnc_data_col_id(r->d, m->i, buf2) : mmnc_data_row_id(r->d, m->i, buf2));
                fputc('\t', fp);
                cli_tsv_field(fp, side ? cli_col_label(&r->nm, m->i, buf) : cli_row_label(&r->nm, m->i, buf));
                fprintf(fp, "\t%.6g\n", m->mass);
            }
    }
    free(rows), free(cols), free(order), free(acc), free(T);
    return CLI_EXIT_OK;
}

/* I(Z;W) of a co-clustering's blocks P(z, w) (res->block_pz). */
static double block_information(const mmnc_result *res)
{
    mmnc_int k = res->k, l = res->l;
    double v = 0.0, *pw = calloc((size_t)l, sizeof(double)), *pz = calloc((size_t)k, sizeof(double));
    if (!pw || !pz) {
        free(pw);
        free(pz);
        return NAN;
    }
    for (mmnc_int z = 0; z < k; z++)
        for (mmnc_int w = 0; w < l; w++) pz[z] += res->block_pz[z * l + w], pw[w] += res->block_pz[z * l + w];
    for (mmnc_int z = 0; z < k; z++)
        for (mmnc_int w = 0; w < l; w++) {
            double t = res->block_pz[z * l + w];
            if (t > 0.0) v += t * log(t / (pz[z] * pw[w]));
        }
    free(pw);
    free(pz);
    return v;
}

/* A line of PREFIX.json's top level, "  "name": v,\n", v in full. */
static void json_field(FILE *fp, const char *name, double v)
{
    fprintf(fp, "  \"%s\": ", name);
    cli_json_number(fp, v, CLI_JSON_EXACT);
    fputs(",\n", fp);
}

/* ", "name": v", v in full: a member after the first of an inline object. */
static void json_member(FILE *fp, const char *name, double v)
{
    fprintf(fp, ", \"%s\": ", name);
    cli_json_number(fp, v, CLI_JSON_EXACT);
}

/* PREFIX.json: the run's parameters, norms, sizes, times and scores. */
static int write_json(const run *r, FILE *fp)
{
    const mmnc_result *res = r->res;
    const mmnc_params *prm = r->prm;
    const mmnc_pmf *p = r->p;
    mmnc_int k = res->k;
    fprintf(fp, "{\n  \"mmnc_version\": \"%s\",\n  \"input\": ", MMNC_VERSION_STRING);
    cli_json_string(fp, r->data_path);
    fprintf(fp, ",\n  \"rows\": %lld,\n  \"columns\": %lld,\n  \"nonzeros\": %lld,\n", (long long)p->ny_all,
            (long long)p->nx, (long long)r->nnz_all);
    if (cli_nranks() > 1) fprintf(fp, "  \"ranks\": %d,\n", cli_nranks());
    fprintf(fp, "  \"rows_dropped\": %lld,\n  \"columns_dropped\": %lld,\n", (long long)r->rows_dropped,
            (long long)r->cols_dropped);
    fprintf(fp, "  \"algorithm\": \"%s\",\n  \"k\": %lld,\n  \"seed\": %llu,\n  \"restarts\": %d,\n",
            cli_algorithm_name(res->algorithm), (long long)k, (unsigned long long)prm->seed, prm->restarts);
    fprintf(fp, "  \"init\": \"%s\",\n  \"refine\": \"%s\",\n", cli_init_name(prm->init),
            cli_refine_name(res->refine));
    if (res->refine == MMNC_REFINE_CHOSEN) fprintf(fp, "  \"refine_sweeps\": %d,\n", res->refine_sweeps);
    if ((res->algorithm == MMNC_ALG_INFORMATION && res->l == 0) || res->refine != MMNC_REFINE_NONE)
        json_field(fp, "size_prior", prm->size_prior);
    if (res->algorithm == MMNC_ALG_DMM) {
        json_field(fp, "dmm_alpha", res->dmm_alpha);
        json_field(fp, "dmm_beta", res->dmm_beta);
    }
    if ((res->algorithm == MMNC_ALG_DMM || res->algorithm == MMNC_ALG_INFORMATION) && res->l == 0) {
        json_field(fp, "move_tol", prm->move_tol);
        fprintf(fp, "  \"moves\": \"%s\",\n  \"polish_sweeps\": %d,\n", cli_moves_name(prm->moves),
                res->polish_sweeps);
    }
    if (res->algorithm == MMNC_ALG_INFORMATION && res->l == 0)
        fprintf(fp, "  \"merge_split\": %d,\n  \"merge_split_tried\": %d,\n  \"merge_split_kept\": %d,\n"
                    "  \"merge_split_sweeps\": %d,\n",
                prm->merge_split, res->merge_split_tried, res->merge_split_kept, res->merge_split_sweeps);
    if (res->l > 0) {
        fprintf(fp, "  \"col_clusters\": %lld,\n", (long long)res->l);
        json_field(fp, res->algorithm == MMNC_ALG_NUCLEAR ? "nuclear_norm_zw" : "information_zw",
                   res->algorithm == MMNC_ALG_NUCLEAR ? res->objective : block_information(res));
        fprintf(fp, "  \"col_cluster_sizes\": [");
        mmnc_int *cnt = calloc((size_t)res->l, sizeof(mmnc_int));
        if (!cnt) return cli_fail(CMD, "out of memory");
        for (mmnc_int x = 0; x < p->nx; x++) cnt[res->col_label[x]]++;
        for (mmnc_int w = 0; w < res->l; w++) fprintf(fp, "%s%lld", w ? ", " : "", (long long)cnt[w]);
        free(cnt);
        fprintf(fp, "],\n  \"block_pz\": [");
        for (mmnc_int z = 0; z < k; z++) {
            if (z) fputs(", ", fp);
            cli_json_numbers(fp, res->block_pz + z * res->l, res->l, CLI_JSON_EXACT);
        }
        fprintf(fp, "],\n");
    }
    if (res->size_prior_kept >= 0)
        fprintf(fp, "  \"size_prior_kept\": %s,\n", res->size_prior_kept ? "true" : "false");
    if (res->size_prior_kept == 0)
        fprintf(fp, "  \"size_prior_refused\": \"%s\",\n",
                res->size_prior_refused == MMNC_PRIOR_AGREEMENT    ? "starts agree less with the prior"
                : res->size_prior_refused == MMNC_PRIOR_PREDICTIVE ? "predictive information not above zero"
                                                                   : "lower nuclear norm");
    if (res->agreement_prior == res->agreement_prior) /* not NAN: the agreement rule applied */
    {
        fprintf(fp, "  \"agreement\": {\"prior\": ");
        cli_json_number(fp, res->agreement_prior, CLI_JSON_EXACT);
        json_member(fp, "prior_free", res->agreement_free);
        fprintf(fp, "},\n");
    }
    if (res->agreement == res->agreement) /* not NAN: two starts or more of the default or information */
        json_field(fp, "starts_agreement", res->agreement);
    if (res->algorithm == MMNC_ALG_FROBENIUS && prm->exact_marginal) fprintf(fp, "  \"exact_marginal\": true,\n");
    else if (res->algorithm == MMNC_ALG_FROBENIUS) {
        json_field(fp, "lambda", res->lambda);
        json_field(fp, "step", res->step);
    }
    if (prm->pz) {
        fprintf(fp, "  \"target_pz\": ");
        cli_json_numbers(fp, prm->pz, k, CLI_JSON_EXACT);
        fprintf(fp, ",\n");
    }
    json_field(fp, "objective", res->objective);
    json_field(fp, "frobenius_norm", res->stats.frob);
    json_field(fp, "nuclear_norm", res->stats.nuclear);
    fprintf(fp, "  \"singular_values\": ");
    cli_json_numbers(fp, res->stats.sigma, k, CLI_JSON_EXACT);
    fprintf(fp, ",\n  \"pz\": ");
    cli_json_numbers(fp, res->stats.pz, k, CLI_JSON_EXACT);
    fprintf(fp, ",\n  \"cluster_sizes\": [");
    {
        mmnc_int *cnt = calloc((size_t)k, sizeof(mmnc_int));
        if (!cnt) return cli_fail(CMD, "out of memory");
        for (mmnc_int y = 0; y < p->ny_all; y++) cnt[r->labels_all[y]]++;
        for (mmnc_int z = 0; z < k; z++) fprintf(fp, "%s%lld", z ? ", " : "", (long long)cnt[z]);
        free(cnt);
    }
    fprintf(fp, "],\n");
    json_field(fp, "mutual_information", res->stats.mi);
    json_field(fp, "mutual_information_local", res->stats.mi_local);
    fprintf(fp, "  \"empty_clusters\": %lld,\n", (long long)res->stats.empty);
    fprintf(fp, "  \"iterations\": %d,\n  \"converged\": %s,\n  \"best_restart\": %d,\n", res->iterations,
            res->converged ? "true" : "false", res->best_restart);
    fprintf(fp, "  \"restart_objectives\": ");
    cli_json_numbers(fp, res->restart_objective, res->restarts, CLI_JSON_EXACT);
    fprintf(fp, ",\n  \"restart_iterations\": [");
    for (int i = 0; i < res->restarts; i++) fprintf(fp, "%s%d", i ? ", " : "", res->restart_iterations[i]);
    fprintf(fp, "],\n  \"restart_converged\": [");
    for (int i = 0; i < res->restarts; i++) fprintf(fp, "%s%s", i ? ", " : "", res->restart_converged[i] ? "true" : "false");
    fprintf(fp, "],\n  \"max_iter\": %d,\n  \"restarts_at_cap\": %d", iteration_cap(prm), at_cap(res));
    fprintf(fp, ",\n  \"restart_inits\": [");
    for (int i = 0; i < res->restarts; i++) fprintf(fp, "%s\"%s\"", i ? ", " : "", cli_init_name(res->restart_init[i]));
    fprintf(fp, "],\n");
    cli_json_selection(fp, res, prm->select_tol);
    /* times: 6 significant digits */
    fprintf(fp, "  \"seconds_load\": ");
    cli_json_number(fp, r->t_load, 6);
    fprintf(fp, ",\n  \"seconds_cluster\": ");
    cli_json_number(fp, res->seconds, 6);
    if (cli_nranks() > 1) {
        fprintf(fp, ",\n  \"seconds_collectives\": ");
        cli_json_number(fp, r->comm_s, 6);
        fprintf(fp, ",\n  \"bytes_summed\": ");
        cli_json_number(fp, r->comm_b, CLI_JSON_EXACT);
    }
    if (r->labels_path) {
        fprintf(fp, ",\n  \"labels_file\": ");
        cli_json_string(fp, r->labels_path);
        fprintf(fp, ",\n  \"labels_given\": %lld,\n  \"labels_held\": %lld,\n  \"labels_dropped\": %lld",
                (long long)r->labels_given, (long long)labels_held(r), (long long)r->labels_dropped);
    }
    if (res->semi_kept > 0) {
        fprintf(fp, ",\n  \"semi_supervision\": {\"kept\": \"%s\", \"scores\": {", semi_name[res->semi_kept]);
        for (int i = 0; i < MMNC_SEMI_CANDIDATES; i++) {
            fprintf(fp, "%s\"%s\": ", i ? ", " : "", semi_name[i + 1]);
            cli_json_number(fp, res->semi_scores[i], CLI_JSON_EXACT);
        }
        fprintf(fp, "}");
        json_member(fp, "score_moves", res->semi_score_moves);
        json_member(fp, "score_seeded", res->semi_score_seeded);
        fprintf(fp, "}");
    }
    if (r->scores) {
        fprintf(fp, ",\n  \"evaluation\": {\"acc\": ");
        cli_json_number(fp, r->scores->acc, CLI_JSON_EXACT);
        json_member(fp, "nmi", r->scores->nmi);
        json_member(fp, "ari", r->scores->ari);
        json_member(fp, "purity", r->scores->purity);
        json_member(fp, "coverage", r->scores->coverage);
        json_member(fp, "overall", r->scores->overall);
        json_member(fp, "kacc", r->scores->kacc);
        fprintf(fp, ", \"classes\": %lld}", (long long)r->scores->nclasses);
    }
    fprintf(fp, ",\n  \"outputs\": {\"labels\": ");
    cli_json_string(fp, r->path_labels);
    fprintf(fp, ", \"top\": ");
    cli_json_string(fp, r->path_top);
    if (r->write_soft) {
        fprintf(fp, ", \"soft\": ");
        cli_json_string(fp, r->path_soft);
    }
    if (r->path_cols) {
        fprintf(fp, ", \"col_labels\": ");
        cli_json_string(fp, r->path_cols);
    }
    fprintf(fp, "}\n}\n");
    return CLI_EXIT_OK;
}

/* The outputs to their staged paths (rank 0's; the other ranks send their
 * rows), renamed into place by the caller (cli_outset_commit) with the
 * model.  *nopen: files still open on return (to abort).  Collective. */
static int write_outputs(const run *r, mmnc_outfile *out, int *nopen, cli_part *part)
{
    int nout = r->write_soft ? 4 : 3, root = cli_rank() == 0, rc = CLI_EXIT_OK;
    mmnc_err err = {0, ""};
    if (root)
        for (*nopen = 0; *nopen < nout; (*nopen)++)
            if (mmnc_outfile_open(&out[*nopen], cli_outset_path(r->outs, *nopen), &err) != MMNC_OK) {
                rc = cli_outset_lib_fail(r->outs, &err);
                break;
            }
    if ((rc = cli_agree(rc)) != CLI_EXIT_OK) return rc;
    if ((rc = write_rows(r, out, part)) != CLI_EXIT_OK) return rc;
    if (!root) return CLI_EXIT_OK; /* the rest is rank 0's */
    if (r->res->l > 0) {
        if ((rc = write_blocks(r, out[OUT_TOP].fp)) != CLI_EXIT_OK) return rc;
        mmnc_outfile cf = {0};
        if (mmnc_outfile_open(&cf, cli_outset_path(r->outs, OUT_COLS), &err) != MMNC_OK)
            return cli_outset_lib_fail(r->outs, &err);
        write_col_labels(r, cf.fp);
        if (mmnc_outfile_commit(&cf, &err) != MMNC_OK) return cli_outset_lib_fail(r->outs, &err);
    } else
        write_top(r, out[OUT_TOP].fp);
    if ((rc = write_json(r, out[OUT_JSON].fp)) != CLI_EXIT_OK) return rc;
    for (; *nopen > 0; (*nopen)--)
        if (mmnc_outfile_commit(&out[*nopen - 1], &err) != MMNC_OK) {
            (*nopen)--;
            return cli_outset_lib_fail(r->outs, &err);
        }
    return CLI_EXIT_OK;
}

/* 64-bit FNV-1a of the bytes of a file as stored (0 for standard input or
 * a file that cannot be read again): the model's record of its input. */
static uint64_t file_hash(const char *path)
{
    unsigned char buf[1 << 16];
    uint64_t h = 0xcbf29ce484222325ULL;
    size_t n;
    FILE *fp = strcmp(path, "-") ? fopen(path, "rb") : NULL;
    if (!fp) return 0;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
        for (size_t i = 0; i < n; i++) h = (h ^ buf[i]) * 0x100000001b3ULL;
    if (ferror(fp)) h = 0;
    fclose(fp);
    return h;
}

/* --save-model: the model of the run, its columns named as in the outputs
 * (--names, else the data's ids), the command line as its options.
 * Collective (P_{Z,X} is summed over the ranks); rank 0 writes. */
static int save_model(const run *r, int argc, char **argv)
{
    mmnc_int nx = r->p->nx;
    mmnc_data view = *r->d;
    mmnc_model *m = NULL;
    mmnc_err err = {0, ""};
    char **cn = calloc((size_t)nx, sizeof(char *)), *opts = NULL, buf[32];
    size_t len = 1;
    int rc = CLI_EXIT_OK;
    for (int i = 0; i < argc; i++) len += strlen(argv[i]) + 1;
    if (!cn || !(opts = calloc(len, 1))) { rc = cli_fail(CMD, "out of memory"); goto done; }
    for (int i = 0; i < argc; i++) strcat(strcat(opts, i ? " " : ""), argv[i]);
    for (mmnc_int x = 0; x < nx; x++)
        if (!(cn[x] = strdup(cli_col_label(&r->nm, x, buf)))) { rc = cli_fail(CMD, "out of memory"); goto done; }
    view.col_names = cn;
    if (mmnc_model_from_result(r->p, &view, r->res, r->prm, cli_rank() == 0 ? file_hash(r->data_path) : 0, opts, &m,
                               &err) != MMNC_OK)
        rc = cli_fail(CMD, "--save-model %s: %s", r->path_model, err.msg);
    else if (cli_rank() == 0 && mmnc_model_write(m, cli_outset_path(r->outs, OUT_MODEL), &err) != MMNC_OK)
        rc = cli_outset_lib_fail(r->outs, &err);
done:
    rc = cli_agree(rc);
    mmnc_model_free(m);
    if (cn)
        for (mmnc_int x = 0; x < nx; x++) free(cn[x]);
    free(cn);
    free(opts);
    return rc;
}

/* The human summary on stdout (rank 0). */
static int print_summary(const run *r)
{
    const mmnc_result *res = r->res;
    const mmnc_pmf *p = r->p;
    mmnc_int k = res->k, ntop = r->ntop;
    char buf[32];
    by_mass *order;
    printf("%s: %lld rows x %lld columns, %lld nonzeros", r->data_path, (long long)p->ny_all, (long long)p->nx,
           (long long)r->nnz_all);
    if (cli_nranks() > 1) printf(", on %d ranks", cli_nranks());
    printf("\n");
    printf("%s%s, k = %lld: objective %.6f  ||B||_* %.6f  ||B||_F %.6f  I(X;Z) %.6f nats (local approx. %.6f)\n",
           res->l > 0 ? "co-clustering" : cli_algorithm_name(res->algorithm),
           res->l > 0 ? res->algorithm == MMNC_ALG_NUCLEAR ? " ||B_{Z,W}||_*"
                        : res->algorithm == MMNC_ALG_DMM   ? " (log evidence a count)"
                                                           : " I(Z;W)"
           : res->algorithm == MMNC_ALG_INFORMATION ? " objective"
           : res->algorithm == MMNC_ALG_DMM         ? " (log evidence a count)"
                                                    : " norm",
           (long long)k, res->objective, res->stats.nuclear, res->stats.frob, res->stats.mi, res->stats.mi_local);
    if (r->prm->algorithm == MMNC_ALG_AUTO)
        printf("the default (-a auto): %s\n", res->algorithm == MMNC_ALG_DMM
                                                  ? "every value a whole number, counts: the Dirichlet mixture (-a dmm)"
                                              : res->l > 0 ? "values that are not whole numbers, column clusters: I(Z;W), "
                                                             "its first start the rows alone by -a auto"
                                                           : "values that are not whole numbers: the information "
                                                             "objective (-a information)");
    if (res->algorithm == MMNC_ALG_DMM)
        printf("Dirichlet mixture: alpha %.4g (cluster sizes), beta %.4g (each cluster's %s distribution), "
               "fitted by the evidence%s\n",
               res->dmm_alpha, res->dmm_beta, res->l > 0 ? "column-cluster" : "column",
               res->dmm_beta <= r->prm->dmm_beta ? " (beta at its least, --dmm-beta)" : "");
    if ((res->algorithm == MMNC_ALG_INFORMATION || res->refine != MMNC_REFINE_NONE) && r->prm->size_prior > 0 &&
        res->l == 0)
        printf("information objective: I(X;Z) - %g (rows / nonzeros) H(cluster sizes) (--size-prior)%s\n",
               r->prm->size_prior,
               res->size_prior_kept == 0
                   ? res->size_prior_refused == MMNC_PRIOR_AGREEMENT
                         ? "; the starts agreed less with the prior than without it: I(X;Z) alone"
                   : res->size_prior_refused == MMNC_PRIOR_PREDICTIVE
                         ? "; the prior's partition predicted held-out rows no better than no clustering: the "
                           "prior-free optimum kept"
                         : "; the prior's partition lowered the nuclear norm: the prior-free optimum kept"
                   : "");
    if (res->agreement_prior == res->agreement_prior) /* not NAN: the agreement rule applied */
        printf("agreement of the starts (mean adjusted Rand index, --agreement): %.4f with the prior, %.4f "
               "without: %s\n",
               res->agreement_prior, res->agreement_free,
               res->agreement_prior >= res->agreement_free ? "the prior used (each start's guard judges its partition)"
                                                              : "the prior dropped");
    if (res->polish_sweeps > 0) snprintf(buf, sizeof buf, " (%d past --move-tol)", res->polish_sweeps);
    else buf[0] = '\0';
    printf("%s of %d starts: start %d (%s), %d iterations%s%s, %.3f s\n",
           res->select == MMNC_SELECT_PREDICTIVE || res->best_restart != res->objective_restart ? "chosen" : "best",
           res->restarts, res->best_restart + 1,
           cli_init_name(res->restart_init[res->best_restart]), res->iterations, buf,
           res->converged ? "" : ", stopped at the cap without converging", res->seconds);
    if (res->algorithm == MMNC_ALG_DMM && res->agreement == res->agreement)
        printf("starts' agreement: mean adjusted Rand index %.4f (1: every start found the same clusters)\n",
               res->agreement);
    if (at_cap(res) > 0)
        printf("%d of %d starts stopped at the %d-%s cap without converging; raise --max-iter\n", at_cap(res),
               res->restarts, iteration_cap(r->prm),
               res->algorithm == MMNC_ALG_INFORMATION || res->algorithm == MMNC_ALG_DMM ? "sweep" : "iteration");
    if (res->select == MMNC_SELECT_PREDICTIVE)
        printf("selection: predictive information %.4f nats (best of the starts: %.4f)%s\n",
               res->restart_score[res->best_restart], res->restart_score[cli_best_score(res)],
               res->best_restart == res->objective_restart ? "; also the best objective"
                                                           : "; starts with higher objectives predict worse");
    if (res->select != MMNC_SELECT_PREDICTIVE && res->best_restart != res->objective_restart &&
        res->semi_kept <= MMNC_SEMI_MOVES)
        printf("selection: the best objective among the starts whose guard kept the size prior; start %d, of "
               "best objective, returned a prior-free partition of less information I(X;Z)\n",
               res->objective_restart + 1);
    if (r->labels_path) {
        mmnc_int held = labels_held(r);
        printf("%lld %s held at their given labels (--labels %s)", (long long)held, held == 1 ? "row" : "rows",
               r->labels_path);
        if (held < r->labels_given)
            printf("; %lld of the %lld labelled rows ended in another cluster", (long long)(r->labels_given - held),
                   (long long)r->labels_given);
        if (r->labels_dropped > 0)
            printf("; %lld labelled rows were dropped as empty", (long long)r->labels_dropped);
        printf("\n");
    }
    if (res->semi_kept > 0 && isnan(res->semi_scores[0])) {
        printf("the held rows have one label value, which every candidate gives them: no cross-validation; kept "
               "%s\n", semi_name[res->semi_kept]);
    } else if (res->semi_kept > 0) {
        printf("held rows at their label, each fold of them left free (cross-validation):");
        for (int i = 0; i < MMNC_SEMI_CANDIDATES; i++)
            printf("%s %s %.1f%%", i ? "," : "", semi_name[i + 1], 100.0 * res->semi_scores[i]);
        printf("; kept %s\n", semi_name[res->semi_kept]);
    }
    if (res->merge_split_tried > 0)
        printf("merge-split trials (--merge-split): %d tried, %d kept (the objective rose), %d sweeps\n",
               res->merge_split_tried,
               res->merge_split_kept, res->merge_split_sweeps);
    if (res->refine == MMNC_REFINE_CHOSEN)
        printf("refined by information moves: %d sweeps, I(X;Z) %.6f, predictive information %.4f\n",
               res->refine_sweeps, res->stats.mi, res->refined_score);
    if (res->l > 0) {
        const mmnc_csr *P = p->P;
        double ixy = 0.0; /* I(X;Y), of which the blocks keep I(Z;W) */
        for (mmnc_int y = 0; y < p->ny; y++)
            for (mmnc_int j = P->rowptr[y]; j < P->rowptr[y + 1]; j++)
                ixy += P->val[j] * log(P->val[j] / (p->py[y] * p->px[P->colind[j]]));
        if (res->algorithm == MMNC_ALG_NUCLEAR)
            printf("co-clustering, %lld x %lld blocks: ||B_{Z,W}||_* %.6f\n", (long long)k, (long long)res->l,
                   res->objective);
        else {
            double izw = block_information(res);
            printf("co-clustering, %lld x %lld blocks: I(Z;W) %.6f nats of I(X;Y) %.6f (%.1f%%)\n", (long long)k,
                   (long long)res->l, izw, ixy, ixy > 0 ? 100 * izw / ixy : 0.0);
        }
    }
    printf("singular values:");
    for (mmnc_int z = 0; z < k && z < 12; z++) printf(" %.4f", res->stats.sigma[z]);
    printf("%s\n", k > 12 ? " ..." : "");
    order = malloc((size_t)(p->ny ? p->ny : 1) * sizeof *order);
    if (!order) return cli_fail(CMD, "out of memory");
    for (mmnc_int y = 0; y < p->ny; y++) order[y] = (by_mass){p->py[y], y};
    qsort(order, (size_t)p->ny, sizeof *order, by_mass_cmp);
    /* rank 0 holds only its own rows' ids: with MPI, no member lists */
    int members = cli_nranks() == 1;
    printf("each cluster: %sits most characteristic columns\n", members ? "its 10 largest members by P_Y, then " : "");
    for (mmnc_int z = 0; z < k && z < 50; z++) {
        mmnc_int shown = 0, size = 0;
        for (mmnc_int y = 0; y < p->ny_all; y++) size += r->labels_all[y] == z;
        printf("cluster %3lld  P_Z %.4f  %lld rows\n", (long long)z + 1, res->stats.pz[z], (long long)size);
        if (members) {
            printf("  members:");
            for (mmnc_int i = 0; i < p->ny && shown < 10; i++)
                if (res->label[order[i].y] == z) printf(" %s", cli_row_label(&r->nm, order[i].y, buf)), shown++;
            printf("\n");
        }
        printf("  columns:");
        for (mmnc_int i = 0, shown_x = 0; i < ntop && shown_x < 10; i++)
            if (top_listed(r, z, i)) printf(" %s", cli_col_label(&r->nm, r->topc[z * ntop + i], buf)), shown_x++;
        printf("\n");
        if (res->l > 0) { /* its column clusters by P(w|z), the largest 5 */
            mmnc_int shown_w = 0, pick[5];
            printf("  column clusters by P(w|z):");
            for (mmnc_int pass = 0; pass < 5; pass++) {
                mmnc_int bw = -1;
                for (mmnc_int w = 0; w < res->l; w++) {
                    double v = res->block_pz[z * res->l + w];
                    int taken = 0;
                    for (mmnc_int q = 0; q < shown_w; q++) taken |= pick[q] == w;
                    if (!taken && v > 0 && (bw < 0 || v > res->block_pz[z * res->l + bw])) bw = w;
                }
                if (bw < 0) break;
                pick[shown_w++] = bw;
                printf(" %lld (%.3f)", (long long)bw + 1, res->block_pz[z * res->l + bw] / res->stats.pz[z]);
            }
            printf("\n");
        }
    }
    if (r->scores)
        printf("vs %s: ACC %.2f%%  NMI %.4f  ARI %.4f  purity %.2f%%  coverage %.2f%%  overall %.2f%%  k-acc %.2f%%\n",
               r->truth_path, 100 * r->scores->acc, r->scores->nmi, r->scores->ari, 100 * r->scores->purity,
               100 * r->scores->coverage, 100 * r->scores->overall, 100 * r->scores->kacc);
    printf("wrote %s, %s%s%s, %s%s%s%s%s\n", r->path_labels, r->write_soft ? r->path_soft : "", r->write_soft ? ", " : "",
           r->path_top, r->path_json, r->path_model ? ", " : "", r->path_model ? r->path_model : "",
           r->res->l > 0 ? ", " : "", r->path_cols ? r->path_cols : "");
    free(order);
    return CLI_EXIT_OK;
}

/* Long (~150 lines): the option switch (one case per option: new options
 * go here) and the sequence load, cluster, score, write; the outputs are
 * write_outputs() and print_summary() above. */
int cmd_cluster(int argc, char **argv)
{
    enum { O_INIT = 256, O_MAXIT, O_TOL, O_PZ, O_LAMBDA, O_STEP, O_NOSOFT, O_NAMES, O_NAMESK, O_TOP, O_TRUTH,
           O_TRUTHVAR, O_ROWNAMES, O_EXACT, O_SELECT, O_SELTOL, O_REFINE, O_PAPER, O_SIZEPRIOR, O_SAVEMODEL,
           O_MOVETOL, O_MERGESPLIT, O_AGREEMENT, O_MOVES, O_COLCLUST, O_LABELS, O_DMMBETA };
    static const struct option opts[] = {
        {"clusters", required_argument, 0, 'k'}, {"algorithm", required_argument, 0, 'a'},
        {"seed", required_argument, 0, 's'},     {"restarts", required_argument, 0, 'r'},
        {"init", required_argument, 0, O_INIT},  {"max-iter", required_argument, 0, O_MAXIT},
        {"tol", required_argument, 0, O_TOL},    {"pz", required_argument, 0, O_PZ},
        {"lambda", required_argument, 0, O_LAMBDA}, {"step", required_argument, 0, O_STEP},
        {"threads", required_argument, 0, 't'},  {"output", required_argument, 0, 'o'},
        {"no-soft", no_argument, 0, O_NOSOFT},   {"names", required_argument, 0, O_NAMES},
        {"names-keyed", no_argument, 0, O_NAMESK}, {"top", required_argument, 0, O_TOP},
        {"truth", required_argument, 0, O_TRUTH}, {"truth-var", required_argument, 0, O_TRUTHVAR},
        {"row-names", required_argument, 0, O_ROWNAMES}, {"exact-marginal", no_argument, 0, O_EXACT},
        {"select", required_argument, 0, O_SELECT}, {"select-tol", required_argument, 0, O_SELTOL},
        {"refine", required_argument, 0, O_REFINE}, {"paper", no_argument, 0, O_PAPER},
        {"size-prior", required_argument, 0, O_SIZEPRIOR},
        {"move-tol", required_argument, 0, O_MOVETOL}, {"merge-split", required_argument, 0, O_MERGESPLIT},
        {"agreement", required_argument, 0, O_AGREEMENT}, {"moves", required_argument, 0, O_MOVES},
        {"col-clusters", required_argument, 0, O_COLCLUST}, {"labels", required_argument, 0, O_LABELS},
        {"dmm-beta", required_argument, 0, O_DMMBETA},
        {"save-model", required_argument, 0, O_SAVEMODEL},
        {"quiet", no_argument, 0, 'q'},          {"verbose", no_argument, 0, 'v'},
        {"help", no_argument, 0, 'h'},           CLI_LOAD_OPTIONS, {0, 0, 0, 0}};
    mmnc_params prm;
    cli_load load;
    const char *labels_path = NULL, *save_model_path = NULL, *prefix_arg = NULL, *pz_arg = NULL, *names_path = NULL, *rnames_path = NULL, *truth_path = NULL, *truth_var = NULL, *data_path;
    char *side_rows = NULL, *side_cols = NULL, *vocab = NULL; /* side_rows, side_cols: may be vocab */
    char *path_cols = NULL; /* --col-clusters: PREFIX.col_labels.tsv */
    char *prefix = NULL, *path_labels = NULL, *path_soft = NULL, *path_json = NULL, *path_top = NULL;
    int quiet = 0, verbose = 0, write_soft = 1, names_keyed = 0, rc = CLI_EXIT_OK, c, longidx;
    given g;
    long long v, ntop = MMNC_DEFAULT_TOP;
    double *pz = NULL, dv;
    mmnc_data *d = NULL;
    mmnc_pmf *p = NULL;
    mmnc_result *res = NULL;
    mmnc_int rows_dropped = 0, cols_dropped = 0, nnames = 0, *topc = NULL, *truth = NULL, nclasses = 0;
    char **names = NULL, **rnames = NULL;
    mmnc_int nrnames = 0;
    cli_namer nm = {0};
    double *tops = NULL;
    mmnc_scores scores;
    int have_scores = 0;
    mmnc_err err = {0, ""};
    mmnc_outfile out[4];
    int nopen = 0, root = 1, alg_set = 0, paper = 0;
    mmnc_int nnz_all = 0, *labels_all = NULL;
    mmnc_int *fixed = NULL, *fixed_all = NULL, labels_given = 0, labels_dropped = 0; /* --labels */
    cli_part part = {0};
    cli_outset *outs = NULL;
    progress_ctx pctx;
    int st;
    double t_start = cli_now(), t_load, comm_s = 0.0, comm_b = 0.0;

    mmnc_params_default(&prm);
    cli_load_default(&load);
    memset(&g, 0, sizeof g);
    optind = 1;
    opterr = 0;
    while ((longidx = -1, c = getopt_long(argc, argv, ":k:a:s:r:t:o:qvh", opts, &longidx)) != -1) {
        int ai = longidx >= 0 && c != ':' && c != '?' ? applies_index(opts[longidx].name) : -1;
        if (ai >= 0) g.opt[ai] = 1;
        switch (c) {
        case 'k': if (cli_parse_int(CMD, "--clusters", optarg, 1, 1000000, &v)) return CLI_EXIT_USAGE; prm.k = v; break;
        case 'a': if (cli_parse_algorithm(CMD, optarg, &prm.algorithm)) return CLI_EXIT_USAGE; alg_set = 1; break;
        case 's': if (cli_parse_int(CMD, "--seed", optarg, 0, INT64_MAX, &v)) return CLI_EXIT_USAGE; prm.seed = (uint64_t)v; break;
        case 'r': if (cli_parse_int(CMD, "--restarts", optarg, 1, 100000, &v)) return CLI_EXIT_USAGE; prm.restarts = (int)v; break;
        case 't': if (cli_parse_int(CMD, "--threads", optarg, 0, 4096, &v)) return CLI_EXIT_USAGE; prm.threads = (int)v; break;
        case 'o': prefix_arg = optarg; break;
        case 'q': quiet = 1; break;
        case 'v': verbose = 1; break;
        case 'h': if (cli_rank() == 0) help(); return CLI_EXIT_OK;
        case O_INIT: if (cli_parse_init(CMD, optarg, &prm.init)) return CLI_EXIT_USAGE; break;
        case O_MAXIT: if (cli_parse_int(CMD, "--max-iter", optarg, 0, 100000000, &v)) return CLI_EXIT_USAGE; prm.max_iter = (int)v; break;
        case O_TOL: if (cli_parse_double(CMD, "--tol", optarg, 1e-300, 1.0, &dv)) return CLI_EXIT_USAGE; prm.tol = dv; break;
        case O_PZ: pz_arg = optarg; break;
        case O_LAMBDA: if (cli_parse_double(CMD, "--lambda", optarg, 1e-12, 1e12, &dv)) return CLI_EXIT_USAGE; prm.lambda = dv; break;
        case O_STEP: if (cli_parse_double(CMD, "--step", optarg, 1e-12, 1e12, &dv)) return CLI_EXIT_USAGE; prm.step = dv; break;
        case O_NOSOFT: write_soft = 0; break;
        case O_NAMES: names_path = optarg; break;
        case O_NAMESK: names_keyed = 1; break;
        case O_TOP: if (cli_parse_int(CMD, "--top", optarg, 1, 100000, &ntop)) return CLI_EXIT_USAGE; break;
        case O_TRUTH: truth_path = optarg; break;
        case O_TRUTHVAR: truth_var = optarg; break;
        case O_ROWNAMES: rnames_path = optarg; break;
        case O_SAVEMODEL: save_model_path = optarg; break;
        case O_LABELS: labels_path = optarg; break;
        case O_EXACT: prm.exact_marginal = 1; break;
        case O_PAPER:
            paper = 1;
            prm.init = MMNC_INIT_RANDOM;
            prm.select = MMNC_SELECT_OBJECTIVE;
            prm.refine = MMNC_REFINE_NONE;
            break;
        case O_REFINE:
            if (!strcmp(optarg, "none")) prm.refine = MMNC_REFINE_NONE;
            else if (!strcmp(optarg, "each")) prm.refine = MMNC_REFINE_EACH;
            else if (!strcmp(optarg, "chosen")) prm.refine = MMNC_REFINE_CHOSEN;
            else return cli_usage_error(CMD, "--refine: expected none, each or chosen, got '%s'", optarg);
            break;
        case O_SELECT: if (cli_parse_select(CMD, optarg, &prm.select)) return CLI_EXIT_USAGE; g.select_given = 1; break;
        case O_SIZEPRIOR:
            if (cli_parse_double(CMD, "--size-prior", optarg, 0.0, 1e6, &dv)) return CLI_EXIT_USAGE;
            prm.size_prior = dv;
            break;
        case O_MOVETOL:
            if (cli_parse_double(CMD, "--move-tol", optarg, 0.0, 0.5, &dv)) return CLI_EXIT_USAGE;
            prm.move_tol = dv;
            break;
        case O_DMMBETA:
            if (cli_parse_double(CMD, "--dmm-beta", optarg, 0.0, 1e4, &dv)) return CLI_EXIT_USAGE;
            prm.dmm_beta = dv;
            break;
        case O_MERGESPLIT:
            if (cli_parse_int(CMD, "--merge-split", optarg, 0, 1000000, &v)) return CLI_EXIT_USAGE;
            prm.merge_split = (int)v;
            break;
        case O_AGREEMENT:
            if (cli_parse_int(CMD, "--agreement", optarg, 0, 1, &v)) return CLI_EXIT_USAGE;
            prm.agreement = (int)v;
            break;
        case O_MOVES:
            if (!strcmp(optarg, "batch")) prm.moves = MMNC_MOVES_BATCH;
            else if (!strcmp(optarg, "sequential")) prm.moves = MMNC_MOVES_SEQUENTIAL;
            else if (!strcmp(optarg, "auto")) prm.moves = MMNC_MOVES_AUTO;
            else return cli_usage_error(CMD, "--moves: expected auto, batch or sequential, got '%s'", optarg);
            break;
        case O_COLCLUST:
            if (cli_parse_int(CMD, "--col-clusters", optarg, 0, 1000000, &v)) return CLI_EXIT_USAGE;
            prm.col_clusters = v;
            break;
        case O_SELTOL: if (cli_parse_double(CMD, "--select-tol", optarg, 0.0, 1e6, &dv)) return CLI_EXIT_USAGE; prm.select_tol = dv; break;
        default:
            if ((c = cli_other_option(CMD, c, argv, &load, opts, longidx)) != 0) return c;
            break;
        }
    }
    if (optind != argc - 1) return cli_usage_error(CMD, optind >= argc ? "missing DATA file" : "expected one DATA file");
    data_path = argv[optind];
    if (paper && !alg_set) prm.algorithm = MMNC_ALG_NUCLEAR; /* the paper's Algorithm 2 unless -a says */
    g.pz = pz_arg != NULL;
    g.exact = prm.exact_marginal;
    g.select = prm.select;
    g.refine = prm.refine;
    g.init = prm.init;
    g.col_clusters = prm.col_clusters;
    g.names_keyed = names_keyed && !names_path && !rnames_path;
    g.truth_var = truth_path ? NULL : truth_var;
    if (prm.algorithm == MMNC_ALG_AUTO) { /* an option of the information objective asks for it */
        static const char *const inf[] = {"size-prior", "merge-split", "agreement"};
        for (size_t i = 0; i < sizeof inf / sizeof inf[0]; i++)
            if (g.opt[applies_index(inf[i])]) prm.algorithm = MMNC_ALG_INFORMATION;
        if (g.opt[applies_index("dmm-beta")] && prm.algorithm == MMNC_ALG_AUTO)
            prm.algorithm = MMNC_ALG_DMM; /* and an option of the Dirichlet mixture for that */
    }
    if ((rc = check_applies(prm.algorithm, &g)) != CLI_EXIT_OK) return rc;
    if ((rc = cli_output_prefix(CMD, prefix_arg, data_path, &prefix)) != CLI_EXIT_OK) return rc;
    /* DATA.rows and DATA.cols name the rows and columns unless names are given (swapped by --transpose) */
    if (!names_keyed) {
        int tr = load.lo.transpose;
        if (!rnames_path && (side_rows = cli_side_file(data_path, tr ? ".cols" : ".rows"))) rnames_path = side_rows;
        if (!names_path && (side_cols = cli_side_file(data_path, tr ? ".rows" : ".cols"))) names_path = side_cols;
        /* else the vocabulary of `mmnc cooc`, which names the rows and the columns of its square matrix */
        if (!side_rows && !side_cols && (!rnames_path || !names_path) && (vocab = cli_cooc_vocab(data_path))) {
            if (!rnames_path) rnames_path = side_rows = vocab;
            if (!names_path) names_path = side_cols = vocab;
        }
        if ((side_rows || side_cols) && !quiet && cli_rank() == 0)
            fprintf(stderr, "mmnc %s: names from %s%s%s (give --row-names or --names to override)\n", CMD,
                    side_rows ? side_rows : "", side_rows && side_cols && side_rows != side_cols ? " and " : "",
                    side_cols && side_cols != side_rows ? side_cols : "");
    }

    /* the outputs: none an input or another output, all of them or none */
    path_labels = join(prefix, ".labels.tsv");
    path_soft = join(prefix, ".soft.tsv");
    path_json = join(prefix, ".json");
    path_top = join(prefix, ".top.tsv");
    if (!path_labels || !path_soft || !path_json || !path_top || !(outs = cli_outset_new(CMD))) {
        rc = cli_fail(CMD, "out of memory");
        goto done;
    }
    cli_outset_input(outs, data_path, "DATA");
    cli_outset_input(outs, truth_path, "--truth");
    cli_outset_input(outs, labels_path, "--labels");
    cli_outset_input(outs, names_path, side_cols ? "the column names" : "--names");
    cli_outset_input(outs, rnames_path, side_rows ? "the row names" : "--row-names");
    cli_outset_add(outs, path_labels, "PREFIX.labels.tsv", 0); /* in the order of enum OUT_* */
    cli_outset_add(outs, path_json, "PREFIX.json", 0);
    cli_outset_add(outs, path_top, "PREFIX.top.tsv", 0);
    if (write_soft) cli_outset_add(outs, path_soft, "PREFIX.soft.tsv", 0);
    else cli_outset_add(outs, NULL, NULL, 0); /* OUT_SOFT: none */
    cli_outset_add(outs, save_model_path, save_model_path ? "--save-model" : NULL, 0); /* OUT_MODEL, or none */
    if (prm.col_clusters > 0) {
        if (!(path_cols = join(prefix, ".col_labels.tsv"))) {
            rc = cli_fail(CMD, "out of memory");
            goto done;
        }
        cli_outset_add(outs, path_cols, "PREFIX.col_labels.tsv", 0);
    }
    if ((rc = cli_outset_check(outs)) != CLI_EXIT_OK) goto done;

    root = cli_rank() == 0;
    if (!root) quiet = 1; /* rank 0 speaks for the job */
    if ((rc = cli_load_pmf(CMD, data_path, &load, quiet, &d, &p, &rows_dropped, &cols_dropped)) != CLI_EXIT_OK)
        goto done;
    t_load = cli_now() - t_start;
    nnz_all = cli_nnz_all(p);
    if (prm.k > p->ny_all) {
        rc = cli_usage_error(CMD, "k = %lld exceeds the number of rows with nonzero mass (%lld)", (long long)prm.k,
                             (long long)p->ny_all);
        goto done;
    }
    if (pz_arg) {
        if ((rc = parse_pz(pz_arg, prm.k, &pz)) != 0) goto done;
        prm.pz = pz;
    }
    if (vocab && d->orig_rows != d->orig_cols) { /* not cooc's word x word matrix: the names are not its own */
        if (!quiet) fprintf(stderr, "mmnc %s: %s not used: the matrix is not square\n", CMD, vocab);
        if (names_path == vocab) names_path = NULL;
        if (rnames_path == vocab) rnames_path = NULL;
    }
    if (names_path && (rc = cli_names_read(CMD, names_path, names_keyed, d->orig_cols, "columns", 1, &nnames,
                                           &names)) != CLI_EXIT_OK)
        goto done;
    /* one file for both (DATA.vocab): its repeats said once */
    if (rnames_path && (rc = cli_names_read(CMD, rnames_path, names_keyed, d->orig_rows, "rows",
                                            !names_path || strcmp(names_path, rnames_path), &nrnames, &rnames)) !=
                           CLI_EXIT_OK)
        goto done;
    nm = (cli_namer){d, rnames, names, nrnames, nnames, names_keyed, NULL, NULL};
    if ((rc = cli_namer_fill(CMD, &nm, 0, rnames_path)) != CLI_EXIT_OK ||
        (rc = cli_namer_fill(CMD, &nm, 1, names_path)) != CLI_EXIT_OK)
        goto done;
    /* --truth and --labels know the rows as the outputs name them */
    if (truth_path && (rc = cli_truth_read(CMD, truth_path, truth_var, &nm, p, &truth, &nclasses)) != CLI_EXIT_OK)
        goto done;
    if (labels_path) {
        if ((rc = cli_fixed_read(CMD, labels_path, &nm, p, prm.k, &fixed, &fixed_all, &labels_given,
                                 &labels_dropped)) != CLI_EXIT_OK)
            goto done;
        prm.fixed_label = fixed;
    }
    memset(&pctx, 0, sizeof pctx);
    cli_progress_start(&pctx.pr, quiet);
    pctx.restarts = prm.restarts;
    pctx.verbose = verbose && !quiet;
    pctx.information = prm.algorithm != MMNC_ALG_NUCLEAR && prm.algorithm != MMNC_ALG_FROBENIUS;
    pctx.st = quiet ? NULL : calloc((size_t)prm.restarts, sizeof *pctx.st);
    if (!quiet) { /* the starts' and phases' events; each iteration only for the status line of a terminal */
        prm.event = on_event;
        prm.event_ctx = &pctx;
    }
    if (pctx.pr.tty || pctx.verbose) { /* without it the information moves keep no running sum for it */
        prm.progress = on_progress;
        prm.progress_ctx = &pctx;
    }
    st = mmnc_cluster(p, &prm, &res, &err);
    cli_progress_end(&pctx.pr);
    free(pctx.st);
    if (st != MMNC_OK) { rc = cli_lib_fail(CMD, &err); goto done; }
    cli_comm_stats(&comm_s, &comm_b); /* rank 0's, for the clustering (load included) */
    if ((rc = cli_gather_labels(CMD, p, res->label, &labels_all)) != CLI_EXIT_OK) goto done; /* on rank 0 */
    if (truth) {
        if (mmnc_evaluate(p->ny_all, labels_all, truth, &scores, &err) != MMNC_OK) { rc = cli_lib_fail(CMD, &err); goto done; }
        have_scores = 1;
    }
    topc = malloc((size_t)(res->k * ntop) * sizeof(mmnc_int));
    tops = malloc((size_t)(res->k * ntop) * sizeof(double));
    if (!topc || !tops) { rc = cli_fail(CMD, "out of memory"); goto done; }
    if (mmnc_top_columns(p, res, ntop, topc, tops, &err) != MMNC_OK) { rc = cli_lib_fail(CMD, &err); goto done; }

    run r = {data_path, truth_path, &prm, d, p, res, nm,
             nnz_all, rows_dropped, cols_dropped, ntop, labels_all, topc, tops, have_scores ? &scores : NULL,
             t_load, comm_s, comm_b, path_labels, path_soft, path_json, path_top, save_model_path, write_soft, outs, path_cols,
             labels_path, fixed_all, labels_given, labels_dropped};
    if (save_model_path && (rc = save_model(&r, argc, argv)) != CLI_EXIT_OK) goto done;
    if ((rc = write_outputs(&r, out, &nopen, &part)) != CLI_EXIT_OK) goto done;
    if (!root) goto done;
    if ((rc = cli_outset_commit(outs)) != CLI_EXIT_OK) goto done;
    if (!quiet) rc = print_summary(&r);
done:
    for (int i = 0; i < nopen; i++) mmnc_outfile_abort(&out[i]);
    cli_outset_free(outs); /* after an error: nothing of this run appears */
    mmnc_result_free(res);
    mmnc_pmf_free(p);
    cli_namer_free_fill(&nm);
    mmnc_data_free(d);
    if (names) mmnc_names_free(nnames, names);
    if (rnames) mmnc_names_free(nrnames, rnames);
    free(labels_all);
    free(fixed);
    free(fixed_all);
    cli_part_close(&part);
    mmnc_free(truth);
    free(pz);
    free(topc);
    free(tops);
    free(prefix);
    free(path_labels);
    free(path_soft);
    free(path_json);
    free(path_top);
    free(path_cols);
    if (side_rows != vocab) mmnc_free(side_rows);
    if (side_cols != vocab) mmnc_free(side_cols);
    mmnc_free(vocab);
    return rc;
}
