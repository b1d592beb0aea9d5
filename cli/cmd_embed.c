/*
 * cmd_embed.c -- `mmnc embed`: row embeddings [P_Y]^{-1/2} U from a truncated
 * SVD of the DTM, written as word2vec vectors.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *CMD = "embed";

static void help(void)
{
    printf("Usage: mmnc embed [options] DATA -o VECTORS\n\n"
           "Embed the rows of DATA (e.g. the word x word matrix of `mmnc cooc`) in d dimensions:\n"
           "row y gets U[y][1..d] / sqrt(P_Y(y)), where U holds the left singular vectors of the\n"
           "DTM B_{Y,X} for its d largest singular values after the trivial one (sigma = 1).\n"
           "Rows with close directions (cosine) have similar contexts.  VECTORS is written in\n"
           "the word2vec format (text; binary if it ends in .bin or with --binary), which\n"
           "word2vec, gensim and most tools read; the singular values go to stderr and, with\n"
           "--sv FILE, to FILE.\n\n"
           "Options:\n"
           "  -o, --output PATH     the vectors (required)\n"
           "  -d, --dim N           dimensions (default " CLI_STR(MMNC_DEFAULT_EMBED_DIM) ")\n"
           "      --row-names FILE  the words: line i names row i of the data as read (a\n"
           "                        repeated word is written WORD#2, WORD#3, ... in line order)\n"
           "                        (default: the data's own row ids; `mmnc cooc` writes\n"
           "                        OUT.vocab, which is used when DATA is OUT.mtx[.gz])\n"
           "      --binary          word2vec binary format (float32)\n"
           "      --text            word2vec text format even for a .bin name\n"
           "      --sigma-power P   scale coordinate j by sigma_j^P, 0: unscaled (default "
           CLI_STR(MMNC_DEFAULT_EMBED_SIGMA_POWER) ")\n"
           "      --keep-trivial    keep the trivial coordinate (1 for every row)\n"
           "      --oversample N    extra subspace columns (default max(20, d/4))\n"
           "      --tol X           stop when the singular values move less than X (relative)\n"
           "                        in an iteration (default " CLI_STR(MMNC_DEFAULT_EMBED_TOL) ")\n"
           "      --max-iter N      at most N subspace iterations (default " CLI_STR(MMNC_DEFAULT_EMBED_MAX_ITER) ")\n"
           "      --sv FILE         write the d singular values, one per line\n"
           "      --residuals       also check the vectors: after each value in --sv, its\n"
           "                        vector's relative residual\n"
           "                        ||B B^T u - sigma^2 u|| / (sigma^2 ||u||), and the largest\n"
           "                        in the summary (two more sparse products)\n"
           "  -s, --seed N          seed of the random start (default " CLI_STR(MMNC_DEFAULT_SEED) ")\n"
           "  -t, --threads N       threads, 0 = all cores (default " CLI_STR(MMNC_DEFAULT_THREADS) ")\n"
           "  -q, --quiet           no progress or summary on stderr\n"
           "  -h, --help            this help\n\n"
           "Example: mmnc cooc novels/*.txt -o words.mtx && mmnc embed words.mtx -d 300 -o words.bin\n\n");
    cli_load_help(stdout);
}

/* The progress line: the iteration and how far the singular values still move. */
typedef struct embed_progress {
    cli_progress pr;
    double tol;
} embed_progress;

static int on_progress(void *ctx, int restart, int iter, double change)
{
    embed_progress *c = ctx;
    (void)restart;
    cli_progress_say(&c->pr, "iteration %d, change of the singular values %.2g (to reach: %g)", iter, change, c->tol);
    return 0;
}

/* Long (~150 lines): options (one case each), then load, embed, gather
 * and write; each step is a library call or a helper above. */
int cmd_embed(int argc, char **argv)
{
    enum { O_ROWNAMES = 256, O_BINARY, O_TEXT, O_SPOW, O_KEEP, O_OVER, O_TOL, O_MAXIT, O_SV, O_RESID };
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'},       {"dim", required_argument, 0, 'd'},
        {"row-names", required_argument, 0, O_ROWNAMES}, {"binary", no_argument, 0, O_BINARY},
        {"text", no_argument, 0, O_TEXT},            {"sigma-power", required_argument, 0, O_SPOW},
        {"keep-trivial", no_argument, 0, O_KEEP},    {"oversample", required_argument, 0, O_OVER},
        {"tol", required_argument, 0, O_TOL},        {"max-iter", required_argument, 0, O_MAXIT},
        {"sv", required_argument, 0, O_SV},          {"residuals", no_argument, 0, O_RESID},
        {"seed", required_argument, 0, 's'},         {"threads", required_argument, 0, 't'},
        {"quiet", no_argument, 0, 'q'},              {"help", no_argument, 0, 'h'},
        CLI_LOAD_OPTIONS,                            {0, 0, 0, 0}};
    mmnc_embed_opts eo;
    cli_load load;
    const char *out = NULL, *rnames_path = NULL, *sv_path = NULL, *data_path;
    char *vocab_guess = NULL, **rnames = NULL, **words = NULL;
    int binary = -1, quiet = 0, c, longidx, rc = CLI_EXIT_OK, iters = 0, st;
    embed_progress ep;
    long long v;
    double dv, *E = NULL, *Eall = NULL, *sigma = NULL, *res = NULL, t0 = cli_now(), t_load, t_svd;
    mmnc_int worst = 0;
    int want_res = 0;
    mmnc_data *d = NULL;
    mmnc_pmf *p = NULL;
    mmnc_int rd = 0, cd = 0, nrnames = 0, nnz_all, *orig_all = NULL;
    int root = cli_rank() == 0;
    mmnc_err err = {0, ""};
    mmnc_outfile svo;
    int sv_open = 0;
    cli_outset *outs = NULL;

    mmnc_embed_opts_default(&eo);
    cli_load_default(&load);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:d:s:t:qh", opts, &longidx)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'd': if (cli_parse_int(CMD, "--dim", optarg, 1, 100000, &v)) return CLI_EXIT_USAGE; eo.dim = v; break;
        case O_ROWNAMES: rnames_path = optarg; break;
        case O_BINARY: binary = 1; break;
        case O_RESID: want_res = 1; break;
        case O_TEXT: binary = 0; break;
        case O_SPOW: if (cli_parse_double(CMD, "--sigma-power", optarg, -10, 10, &dv)) return CLI_EXIT_USAGE; eo.sigma_power = dv; break;
        case O_KEEP: eo.keep_trivial = 1; break;
        case O_OVER: if (cli_parse_int(CMD, "--oversample", optarg, 0, 100000, &v)) return CLI_EXIT_USAGE; eo.oversample = v; break;
        case O_TOL: if (cli_parse_double(CMD, "--tol", optarg, 1e-300, 1.0, &dv)) return CLI_EXIT_USAGE; eo.tol = dv; break;
        case O_MAXIT: if (cli_parse_int(CMD, "--max-iter", optarg, 1, 100000, &v)) return CLI_EXIT_USAGE; eo.maxit = (int)v; break;
        case O_SV: sv_path = optarg; break;
        case 's': if (cli_parse_int(CMD, "--seed", optarg, 0, INT64_MAX, &v)) return CLI_EXIT_USAGE; eo.seed = (uint64_t)v; break;
        case 't': if (cli_parse_int(CMD, "--threads", optarg, 0, 4096, &v)) return CLI_EXIT_USAGE; eo.threads = (int)v; break;
        case 'q': quiet = 1; break;
        case 'h': if (root) help(); return CLI_EXIT_OK;
        default:
            if ((c = cli_other_option(CMD, c, argv, &load, opts, longidx)) != 0) return c;
            break;
        }
    }
    if (optind != argc - 1) return cli_usage_error(CMD, optind >= argc ? "missing DATA file" : "expected one DATA file");
    if (!out) return cli_usage_error(CMD, "no output file: give -o VECTORS");
    data_path = argv[optind];
    if (binary < 0) binary = cli_ends_with(out, ".bin");
    if (!rnames_path && !load.lo.transpose) rnames_path = vocab_guess = cli_cooc_vocab(data_path);
    /* the vectors and the singular values: neither an input, both or neither */
    if (!(outs = cli_outset_new(CMD))) { rc = cli_fail(CMD, "out of memory"); goto done; }
    cli_outset_input(outs, data_path, "DATA");
    cli_outset_input(outs, rnames_path, vocab_guess ? "the row names (DATA.vocab)" : "--row-names");
    cli_outset_add(outs, out, "-o", 0);
    if (sv_path) cli_outset_add(outs, sv_path, "--sv", 0);
    if ((rc = cli_outset_check(outs)) != CLI_EXIT_OK) goto done;

    if (!root) quiet = 1; /* rank 0 speaks for the job */
    if ((rc = cli_load_pmf(CMD, data_path, &load, quiet, &d, &p, &rd, &cd)) != CLI_EXIT_OK) goto done;
    if (rnames_path) {
        if ((rc = cli_names_read(CMD, rnames_path, 0, d->orig_rows, NULL, 1, &nrnames, &rnames)) != CLI_EXIT_OK) goto done;
        if (nrnames < d->orig_rows) {
            rc = cli_fail(CMD, "%s: %lld names for %lld rows", rnames_path, (long long)nrnames, (long long)d->orig_rows);
            goto done;
        }
    }
    if (eo.dim + (eo.keep_trivial ? 0 : 1) > (p->ny_all < p->nx ? p->ny_all : p->nx)) {
        rc = cli_usage_error(CMD, "--dim %lld is too large for a %lld x %lld matrix (at most %lld)", (long long)eo.dim,
                             (long long)p->ny_all, (long long)p->nx,
                             (long long)((p->ny_all < p->nx ? p->ny_all : p->nx) - (eo.keep_trivial ? 0 : 1)));
        goto done;
    }
    t_load = cli_now() - t0;
    E = malloc((size_t)((p->ny ? p->ny : 1) * eo.dim) * sizeof(double));
    sigma = malloc((size_t)eo.dim * sizeof(double));
    if (!E || !sigma) { rc = cli_fail(CMD, "out of memory"); goto done; }
    nnz_all = cli_nnz_all(p);
    if (!quiet && root)
        fprintf(stderr, "mmnc embed: %lld x %lld, %lld nonzeros: SVD for %lld dimensions ...\n", (long long)p->ny_all,
                (long long)p->nx, (long long)nnz_all, (long long)eo.dim);
    cli_progress_start(&ep.pr, quiet);
    if (!quiet) { /* the iterations: a status line (cli_progress) */
        ep.tol = eo.tol;
        eo.progress = on_progress;
        eo.progress_ctx = &ep;
    }
    st = mmnc_embed(p, &eo, sigma, E, &iters, &err);
    cli_progress_end(&ep.pr);
    if (st != MMNC_OK && st != MMNC_ENOCONV) { rc = cli_lib_fail(CMD, &err); goto done; }
    if (st == MMNC_ENOCONV && !quiet)
        fprintf(stderr, "mmnc embed: warning: %s; writing the vectors of the last iteration\n", err.msg);
    if (!quiet && root) { /* past the rank: coordinates that say nothing about the rows (mmnc_embed) */
        mmnc_int z = eo.keep_trivial ? 1 : 0;
        while (z < eo.dim && sigma[z] > 1e-12) z++;
        if (z < eo.dim)
            fprintf(stderr, "mmnc embed: warning: coordinates %lld..%lld have singular value 0 (the data's rank is "
                            "below --dim + 1): any null directions of the DTM, orthogonal to the others, they tell "
                            "nothing about the rows; %s%lld%s\n",
                    (long long)z + 1, (long long)eo.dim, z ? "--dim " : "", (long long)z,
                    z ? " leaves them out" : " other directions: every row has one distribution, up to scale");
    }
    t_svd = cli_now() - t0 - t_load;
    if (want_res) { /* collective: before the ranks part */
        if (!(res = malloc((size_t)eo.dim * sizeof(double)))) { rc = cli_fail(CMD, "out of memory"); goto done; }
        if (mmnc_embed_residuals(p, &eo, sigma, E, res, &err) != MMNC_OK) { rc = cli_lib_fail(CMD, &err); goto done; }
        for (mmnc_int j = 0; j < eo.dim; j++)
            if (res[j] > res[worst]) worst = j;
    }
    if (cli_nranks() > 1) { /* rank 0 writes every rank's rows, named by their original indices */
        if ((rc = cli_gather_rows(CMD, p, E, eo.dim, &Eall)) != CLI_EXIT_OK ||
            (rc = cli_gather_orig(CMD, p, d, &orig_all)) != CLI_EXIT_OK)
            goto done;
        if (!root) goto done;
    }
    words = calloc((size_t)(p->ny_all ? p->ny_all : 1), sizeof(char *));
    if (!words) { rc = cli_fail(CMD, "out of memory"); goto done; }
    {
        char buf[32];
        for (mmnc_int y = 0; y < p->ny_all; y++) {
            mmnc_int orig = orig_all ? orig_all[y] : d->row_orig ? d->row_orig[y] : y;
            if (rnames) words[y] = rnames[orig];
            else if (orig_all) snprintf(buf, sizeof buf, "%lld", (long long)orig + 1), words[y] = buf;
            else words[y] = (char *)mmnc_data_row_id(d, y, buf);
            if (!rnames && (orig_all || !d->row_names)) words[y] = strdup(buf); /* buf is reused */
            if (!words[y]) { rc = cli_fail(CMD, "out of memory"); goto done; }
        }
    }
    if (sv_path) {
        if (mmnc_outfile_open(&svo, cli_outset_path(outs, 1), &err) != MMNC_OK) {
            rc = cli_outset_lib_fail(outs, &err);
            goto done;
        }
        sv_open = 1;
        for (mmnc_int j = 0; j < eo.dim; j++)
            if (res)
                fprintf(svo.fp, "%.17g %.3e\n", sigma[j], res[j]);
            else
                fprintf(svo.fp, "%.17g\n", sigma[j]);
    }
    if (mmnc_vectors_write(cli_outset_path(outs, 0), p->ny_all, eo.dim, words, Eall ? Eall : E, binary, &err) !=
        MMNC_OK) {
        rc = cli_outset_lib_fail(outs, &err);
        goto done;
    }
    if (sv_open) {
        sv_open = 0;
        if (mmnc_outfile_commit(&svo, &err) != MMNC_OK) {
            rc = cli_outset_lib_fail(outs, &err);
            goto done;
        }
    }
    if ((rc = cli_outset_commit(outs)) != CLI_EXIT_OK) goto done;
    if (!quiet) {
        fprintf(stderr, "mmnc embed: %lld rows x %lld dimensions, %d iterations; sigma %.4f ... %.4f; load %.2f s, SVD %.2f s, "
                        "total %.2f s -> %s (%s)\n",
                (long long)p->ny_all, (long long)eo.dim, iters, sigma[0], sigma[eo.dim - 1], t_load, t_svd,
                cli_now() - t0, out, binary ? "binary" : "text");
        if (res)
            fprintf(stderr, "mmnc embed: largest relative residual %.3e (coordinate %lld, sigma %.4f)\n", res[worst],
                    (long long)worst + 1, sigma[worst]);
    }

done:
    if (sv_open) mmnc_outfile_abort(&svo);
    cli_outset_free(outs);
    if (words && !rnames && (orig_all || !(d && d->row_names)))
        for (mmnc_int y = 0; p && y < p->ny_all; y++) free(words[y]);
    free(words);
    free(Eall);
    free(orig_all);
    if (rnames) mmnc_names_free(nrnames, rnames);
    mmnc_free(vocab_guess);
    free(E);
    free(sigma);
    free(res);
    mmnc_pmf_free(p);
    mmnc_data_free(d);
    return rc;
}
