/*
 * cmd_sweep.c -- `mmnc sweep`: the objective and the starts' agreement
 * against k, for choosing k.
 *
 * Each k runs what `mmnc cluster DATA -k K` runs (mmnc_params_default, the
 * same bits), and the table gives the objective the run maximised (the
 * log evidence a count for the Dirichlet mixture, J for the information
 * moves, with I(X;Z) beside them), the gain of the curve over the previous
 * k and how well the starts' partitions agree (mmnc_result.agreement, the
 * mean adjusted Rand index between them, docs/default.md).
 *
 * The suggested k reads both.  The elbow of the curve alone, the k after
 * which the gain g(k) = c(k) - c(k-1) drops most, is noise on a nearly
 * straight curve (text); the agreement alone prefers the small k that
 * every start finds (k = 2 is often stable whatever the data).  So among the
 * interior k whose agreement is within AGREE_TOL of the best interior
 * agreement (the k the starts reproduce about as well as any), the
 * suggestion is the one with the largest drop g(k) - g(k+1).  AGREE_TOL
 * is about the spread of the mean over the 28 pairs of 8 starts between
 * neighbouring k of one stable reading.  Without an agreement (other
 * algorithms, one start) every interior k is a candidate: the elbow
 * alone.  The drop needs a k on either side: with fewer than three values
 * of k there is no interior k and no suggestion (the agreement alone is
 * the rule the suggestion avoids).  The curve is I(X;Z) for the Dirichlet mixture and the
 * information moves, one scale for both (and J is I(X;Z) alone at the k
 * where the agreement rule refused the prior, so J is not one curve across
 * k).  A reading aid from a non-convex optimiser, not a
 * test (Ben-Hur, Elisseeff, Guyon 2002; Lange, Roth, Braun, Buhmann 2004).
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char *CMD = "sweep";

/* The range of k, the sweep's own defaults (k = 1 anchors the gain of k = 2) */
#define KMIN 1
#define KMAX 10
#define AGREE_TOL 0.05 /* the candidates' agreement: at least the best interior one's minus this */

static void help(void)
{
    mmnc_params def;
    mmnc_params_default(&def); /* what `mmnc cluster DATA -k K` runs */
    printf("Usage: mmnc sweep [options] DATA\n\n"
           "Cluster DATA for each k in a range, as `mmnc cluster DATA -k K` does, and report the objective\n"
           "against k, how well the starts' partitions agree at each k and a suggested k, as a table\n"
           "and a plot.\n\n"
           "Suggested k: among kmin < k < kmax whose agreement (the mean adjusted Rand index between\n"
           "the starts' partitions) is within " CLI_STR(AGREE_TOL) " of the best among them, the one after which the\n"
           "gain of one more cluster drops most (I(X;Z) for -a dmm and -a information, else the\n"
           "objective). The elbow alone is noise on a nearly straight curve, the agreement alone\n"
           "prefers the small k that every start finds. Without an agreement (-a nuclear or\n"
           "frobenius, one start): the elbow alone. With fewer than three values of k there is no\n"
           "kmin < k < kmax, and no suggestion. A reading aid from a non-convex optimiser, not a\n"
           "test.\n\n"
           "Options:\n"
           "      --kmin N          smallest k (default " CLI_STR(KMIN) ")\n"
           "      --kmax N          largest k (default " CLI_STR(KMAX) ")\n"
           "  -a, --algorithm A     auto | dmm | information | nuclear | frobenius, as for mmnc cluster;\n"
           "                        dmm and information: I(X;Z) and the starts' agreement beside the\n"
           "                        objective (default %s)\n"
           "  -s, --seed N          random seed (default " CLI_STR(MMNC_DEFAULT_SEED) ")\n"
           "  -r, --restarts N      starts per k (default " CLI_STR(MMNC_DEFAULT_RESTARTS) ")\n"
           "      --init I          random | kmeans++ | spectral (default %s)\n"
           "  -t, --threads N       threads, 0 = all cores (default " CLI_STR(MMNC_DEFAULT_THREADS) ")\n"
           "  -o, --output PREFIX   write PREFIX.sweep.tsv and the plot PREFIX.sweep.svg (default: DATA's\n"
           "                        file name without extensions; PREFIX ending in '/': in that directory)\n"
           "      --plot F          svg | png | none: the plot, drawn with gnuplot (default svg)\n"
           "  -q, --quiet           no progress on stderr\n"
           "  -h, --help            this help\n\n",
           cli_algorithm_name(def.algorithm), cli_init_name(def.init));
    cli_load_help(stdout);
}

/* A path as a gnuplot string: single-quoted, where nothing is expanded (no
 * backslash escapes, no `command` substitution) and '' stands for '. */
static void gp_path(FILE *gp, const char *path)
{
    fputc('\'', gp);
    for (const char *c = path; *c; c++) {
        if (*c == '\'') fputc('\'', gp);
        fputc(*c, gp);
    }
    fputc('\'', gp);
}

/* Draw the curves of tsv (staged) with gnuplot into tmp, the staged path of
 * out (cli_outset: renamed into place with the table): the objective
 * (metric), I(X;Z) beside it for the information moves (info), the
 * starts' agreement on the second axis (agree) and the suggested k (best;
 * none when negative). */
static int plot(const char *tsv, const char *tmp, const char *out, const char *fmt, const char *metric, int info,
                int agree, long long best)
{
    char cmd[8192];
    FILE *gp;
    int rc;
    /* a line break would end the gnuplot command: no quoting carries it */
    if (strpbrk(tsv, "\r\n") || strpbrk(tmp, "\r\n"))
        return cli_fail(CMD, "a path with a line break cannot be given to gnuplot: plot skipped");
    gp = popen("gnuplot 2>/dev/null", "w");
    if (!gp) return cli_fail(CMD, "cannot run gnuplot: plot skipped");
    fprintf(gp, "set terminal %s size 640,420\n", !strcmp(fmt, "png") ? "pngcairo" : "svg");
    fputs("set output ", gp);
    gp_path(gp, tmp);
    fputc('\n', gp);
    fprintf(gp, "set xlabel 'k (number of clusters)'\nset ylabel '%s'\nset grid\nset key left top\n",
            info ? "nats" : metric);
    if (agree)
        fputs("set y2label 'agreement of the starts (mean ARI)'\nset y2range [0:1.05]\nset y2tics 0.2\n"
              "set ytics nomirror\n", gp);
    if (best >= 0) {
        fprintf(gp, "set title 'mmnc sweep: suggested k = %lld'\n", best);
        fprintf(gp, "set arrow from %lld, graph 0 to %lld, graph 1 nohead dashtype 2\n", best, best);
    } else {
        fputs("set title 'mmnc sweep: no suggested k'\n", gp);
    }
    fputs("plot ", gp);
    gp_path(gp, tsv);
    fprintf(gp, " using 1:2 with linespoints pointtype 7 title '%s'", metric);
    if (info) fputs(", '' using 1:6 with linespoints pointtype 5 title 'I(X;Z)'", gp);
    if (agree) fputs(", '' using 1:7 axes x1y2 with linespoints pointtype 9 dashtype 3 title 'agreement'", gp);
    fputc('\n', gp);
    rc = pclose(gp);
    if (rc != 0 || access(tmp, F_OK) != 0) {
        remove(tmp);
        snprintf(cmd, sizeof cmd, "gnuplot failed (is it installed? apt-get install gnuplot-nox): %s not written", out);
        return cli_fail(CMD, "%s", cmd);
    }
    return CLI_EXIT_OK;
}

/* The suggested k (the rule of the header and the help): among the interior
 * k (kmin < k < kmax, where the drop is defined) whose agreement is within
 * AGREE_TOL of the best interior agreement, the largest drop of the gain of
 * curve; ties to the smaller k.  Without an agreement (NAN) every interior k
 * is a candidate.  -1 when there is none: fewer than three k, or no
 * candidate's drop is a number. */
static long long suggest(mmnc_int n, long long kmin, const double *curve, const double *agree)
{
    double top = -INFINITY, bestdrop = -INFINITY;
    long long best = -1;
    for (mmnc_int i = 1; i < n - 1; i++)
        if (agree[i] == agree[i] && agree[i] > top) top = agree[i];
    for (mmnc_int i = 1; i < n - 1; i++) {
        double drop = (curve[i] - curve[i - 1]) - (curve[i + 1] - curve[i]);
        if (agree[i] == agree[i] && agree[i] < top - AGREE_TOL) continue;
        if (drop > bestdrop) bestdrop = drop, best = kmin + i;
    }
    return best;
}

/* Long (~125 lines): options (one case each), then one clustering per k,
 * the table and the plot (plot() above). */
int cmd_sweep(int argc, char **argv)
{
    enum { O_KMIN = 256, O_KMAX, O_INIT, O_PLOT };
    static const struct option opts[] = {
        {"kmin", required_argument, 0, O_KMIN}, {"kmax", required_argument, 0, O_KMAX},
        {"algorithm", required_argument, 0, 'a'}, {"seed", required_argument, 0, 's'},
        {"restarts", required_argument, 0, 'r'}, {"init", required_argument, 0, O_INIT},
        {"threads", required_argument, 0, 't'}, {"output", required_argument, 0, 'o'},
        {"plot", required_argument, 0, O_PLOT}, {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'},
        CLI_LOAD_OPTIONS, {0, 0, 0, 0}};
    mmnc_params prm;
    cli_load load;
    long long v, kmin = KMIN, kmax = KMAX, best = -1;
    const char *prefix_arg = NULL, *plotfmt = "svg";
    char *prefix = NULL, *tsv = NULL, *img = NULL;
    int quiet = 0, c, longidx, rc = CLI_EXIT_OK;
    mmnc_data *d = NULL;
    mmnc_pmf *p = NULL;
    mmnc_int rd, cd;
    double *obj = NULL, *frob = NULL, *nuc = NULL, *mi = NULL, *secs = NULL, *agree = NULL;
    mmnc_err err = {0, ""};
    mmnc_outfile out = {0};
    cli_outset *outs = NULL;

    /* what `mmnc cluster DATA -k K` runs, for each k */
    mmnc_params_default(&prm);
    cli_load_default(&load);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":a:s:r:t:o:qh", opts, &longidx)) != -1) {
        switch (c) {
        case O_KMIN: if (cli_parse_int(CMD, "--kmin", optarg, 1, 100000, &kmin)) return CLI_EXIT_USAGE; break;
        case O_KMAX: if (cli_parse_int(CMD, "--kmax", optarg, 1, 100000, &kmax)) return CLI_EXIT_USAGE; break;
        case 'a': if (cli_parse_algorithm(CMD, optarg, &prm.algorithm)) return CLI_EXIT_USAGE; break;
        case 's': if (cli_parse_int(CMD, "--seed", optarg, 0, INT64_MAX, &v)) return CLI_EXIT_USAGE; prm.seed = (uint64_t)v; break;
        case 'r': if (cli_parse_int(CMD, "--restarts", optarg, 1, 100000, &v)) return CLI_EXIT_USAGE; prm.restarts = (int)v; break;
        case 't': if (cli_parse_int(CMD, "--threads", optarg, 0, 4096, &v)) return CLI_EXIT_USAGE; prm.threads = (int)v; break;
        case O_INIT: if (cli_parse_init(CMD, optarg, &prm.init)) return CLI_EXIT_USAGE; break;
        case 'o': prefix_arg = optarg; break;
        case O_PLOT:
            if (strcmp(optarg, "svg") && strcmp(optarg, "png") && strcmp(optarg, "none"))
                return cli_usage_error(CMD, "--plot: expected svg, png or none, got '%s'", optarg);
            plotfmt = optarg;
            break;
        case 'q': quiet = 1; break;
        case 'h': if (cli_rank() == 0) help(); return CLI_EXIT_OK;
        default:
            if ((c = cli_other_option(CMD, c, argv, &load, opts, longidx)) != 0) return c;
            break;
        }
    }
    if (optind != argc - 1) return cli_usage_error(CMD, optind >= argc ? "missing DATA file" : "expected one DATA file");
    if (kmin > kmax) return cli_usage_error(CMD, "--kmin %lld is larger than --kmax %lld", kmin, kmax);
    if ((rc = cli_output_prefix(CMD, prefix_arg, argv[optind], &prefix)) != CLI_EXIT_OK) return rc;
    /* the table and the plot: checked before any work, renamed into place together */
    tsv = malloc(strlen(prefix) + 16);
    img = malloc(strlen(prefix) + 16);
    if (!tsv || !img || !(outs = cli_outset_new(CMD))) { rc = cli_fail(CMD, "out of memory"); goto done; }
    sprintf(tsv, "%s.sweep.tsv", prefix);
    sprintf(img, "%s.sweep.%s", prefix, plotfmt);
    cli_outset_input(outs, argv[optind], "DATA");
    cli_outset_add(outs, tsv, "PREFIX.sweep.tsv", 0);
    /* a plot gnuplot could not draw is left out, and an earlier one removed: not beside this table */
    if (strcmp(plotfmt, "none")) cli_outset_add(outs, img, "the plot", CLI_OUT_SIDE);
    if ((rc = cli_outset_check(outs)) != CLI_EXIT_OK) goto done;
    if (cli_rank() != 0) quiet = 1; /* rank 0 speaks for the job */
    if ((rc = cli_load_pmf(CMD, argv[optind], &load, quiet, &d, &p, &rd, &cd)) != CLI_EXIT_OK) goto done;
    if (kmax > p->ny_all) {
        rc = cli_usage_error(CMD, "--kmax %lld exceeds the number of rows with nonzero mass (%lld)", kmax,
                             (long long)p->ny_all);
        goto done;
    }
    mmnc_int n = kmax - kmin + 1;
    const int info = prm.algorithm != MMNC_ALG_NUCLEAR && prm.algorithm != MMNC_ALG_FROBENIUS;
    obj = calloc((size_t)n, sizeof(double));
    frob = calloc((size_t)n, sizeof(double));
    nuc = calloc((size_t)n, sizeof(double));
    mi = calloc((size_t)n, sizeof(double));
    secs = calloc((size_t)n, sizeof(double));
    agree = calloc((size_t)n, sizeof(double));
    if (!obj || !frob || !nuc || !mi || !secs || !agree) { rc = cli_fail(CMD, "out of memory"); goto done; }
    const double *curve = info ? mi : obj;
    int alg = prm.algorithm; /* as the runs resolved it (-a auto) */
    for (mmnc_int i = 0; i < n; i++) {
        mmnc_result *r = NULL;
        prm.k = kmin + i;
        if (mmnc_cluster(p, &prm, &r, &err) != MMNC_OK) { rc = cli_lib_fail(CMD, &err); goto done; }
        obj[i] = r->objective;
        frob[i] = r->stats.frob;
        nuc[i] = r->stats.nuclear;
        mi[i] = r->stats.mi;
        secs[i] = r->seconds;
        /* how well the starts agree under the objective the run kept (mmnc_result.agreement;
         * NAN for Algorithms 1 and 2 and for one start) */
        agree[i] = r->agreement;
        alg = r->algorithm;
        mmnc_result_free(r);
        if (!quiet) fprintf(stderr, "mmnc sweep: k = %lld: objective %.6f (%.2f s)\n", (long long)prm.k, obj[i], secs[i]);
    }
    best = suggest(n, kmin, curve, agree);
    int has_agree = 0;
    for (mmnc_int i = 0; i < n; i++) has_agree |= agree[i] == agree[i];
    if (cli_rank() != 0) goto done; /* the table and the plot are rank 0's */
    const char *metric = alg == MMNC_ALG_NUCLEAR     ? "nuclear norm ||B_{Z,X}||_*"
                         : alg == MMNC_ALG_FROBENIUS ? "objective (Frobenius)"
                         : alg == MMNC_ALG_DMM       ? "log evidence a count (Dirichlet mixture)"
                                                     : "J (information)";
    if (mmnc_outfile_open(&out, cli_outset_path(outs, 0), &err) != MMNC_OK) { rc = cli_outset_lib_fail(outs, &err); goto done; }
    fprintf(out.fp, "k\tobjective\tgain\tnuclear\tfrobenius\tmutual_information\tagreement\tseconds\n");
    printf("%-4s %-12s %-10s %-10s %-10s %-10s %-9s %-8s\n", "k", "objective", "gain", "nuclear", "frobenius", "I(X;Z)",
           "agreement", "seconds");
    for (mmnc_int i = 0; i < n; i++) {
        double gain = i ? curve[i] - curve[i - 1] : NAN;
        fprintf(out.fp, "%lld\t%.17g\t%.10g\t%.10g\t%.10g\t%.17g\t%.10g\t%.4f\n", (long long)(kmin + i), obj[i], gain,
                nuc[i], frob[i], mi[i], agree[i], secs[i]);
        printf("%-4lld %-12.6f %-10.6f %-10.6f %-10.6f %-10.6f %-9.3f %-8.3f%s\n", (long long)(kmin + i), obj[i], gain,
               nuc[i], frob[i], mi[i], agree[i], secs[i], kmin + i == best ? "  <- suggested" : "");
    }
    if (mmnc_outfile_commit(&out, &err) != MMNC_OK) { rc = cli_outset_lib_fail(outs, &err); goto done; }
    if (strcmp(plotfmt, "none"))
        rc = plot(cli_outset_path(outs, 0), cli_outset_path(outs, 1), img, plotfmt, metric, info, has_agree, best);
    int rc_commit = cli_outset_commit(outs);
    if (rc_commit != CLI_EXIT_OK) { rc = rc_commit; goto done; }
    if (best >= 0)
        printf("suggested k = %lld (%s); wrote %s", best,
               has_agree ? "among the k whose starts agree within " CLI_STR(AGREE_TOL) " of the best, the gain of one "
                           "more cluster drops most after it"
                         : "the gain of one more cluster drops most after it",
               tsv);
    else if (n < 3)
        printf("no suggested k (the rule compares the gain of one more cluster before and after k, for\n"
               "kmin < k < kmax: it needs three values of k or more, and %lld %s run); wrote %s",
               (long long)n, n == 1 ? "was" : "were", tsv);
    else
        printf("no suggested k (the gain of one more cluster is not a number at any kmin < k < kmax); wrote %s", tsv);
    if (strcmp(plotfmt, "none") && rc == CLI_EXIT_OK) printf(", %s", img);
    printf("\n");
    if (has_agree)
        printf("agreement: the mean adjusted Rand index between the %d starts' partitions (where the data has k\n"
               "groups the starts tend to find them again; k = 2 is often stable whatever the data)\n", prm.restarts);
done:
    if (out.fp) mmnc_outfile_abort(&out);
    cli_outset_free(outs);
    mmnc_pmf_free(p);
    mmnc_data_free(d);
    free(obj), free(frob), free(nuc), free(mi), free(secs), free(agree), free(tsv), free(img);
    free(prefix);
    return rc;
}
