/*
 * cmd_docs.c -- `mmnc docs`: a document x term matrix from text files.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const CMD = "docs";

static void usage(FILE *fp)
{
    fprintf(fp,
            "Usage: mmnc docs [options] FILE|DIR... -o OUT.mtx\n"
            "\n"
            "Count the terms of each document: one document per file (plain, gzip or xz;\n"
            "a DIR is walked recursively, its files taken in bytewise order of their paths,\n"
            "names starting with '.' skipped), or one per non-blank line with --lines.\n"
            "Writes the document x term matrix OUT.mtx (Matrix Market; .gz compresses),\n"
            "OUT.rows (the documents: file paths, or FILE:LINE) and OUT.cols (the terms,\n"
            "most frequent first), which 'mmnc cluster OUT.mtx' picks up as names.  In a\n"
            "name, a path's backslash is doubled, a newline, tab or CR is \\n, \\t, \\r, and\n"
            "other control bytes and bytes that are not UTF-8 are \\xHH (printf '%%b' undoes it).\n"
            "Terms are the words of 'mmnc cooc': lower-cased runs of letters and digits\n"
            "with inner ' and -.  Documents without a kept term stay as empty rows (and are\n"
            "counted in the summary) unless --drop-empty.\n"
            "\n"
            "Options:\n"
            "  -o, --output PATH     the matrix (required)\n"
            "      --lines           each non-blank line is a document, named FILE:LINE\n"
            "      --min-df X        keep terms in at least X documents: a whole number, or a\n"
            "                        fraction of the documents below 1 (default "
            CLI_STR(MMNC_DEFAULT_DOCS_MIN_DF) ")\n"
            "      --max-df X        keep terms in at most X documents: a fraction up to 1, or a\n"
            "                        whole number above 1; 1 = no limit (default "
            CLI_STR(MMNC_DEFAULT_DOCS_MAX_DF) ")\n"
            "      --min-count N     keep terms seen at least N times in all (default "
            CLI_STR(MMNC_DEFAULT_DOCS_MIN_COUNT) ")\n"
            "      --max-vocab N     then keep at most the N most frequent; 0 = all (default "
            CLI_STR(MMNC_DEFAULT_DOCS_MAX_VOCAB) ")\n"
            "      --stop-words S    'english' (about 300 built-in function words) or a FILE of\n"
            "                        words, one per line (blank lines and lines starting with\n"
            "                        '#' skipped); may be given more than once\n"
            "      --drop-empty      leave out documents without a kept term\n"
            "  -q, --quiet           no summary on stderr\n"
            "  -h, --help            this help\n"
            "\n"
            "Example: mmnc docs corpus/ --stop-words english --min-df 2 --max-df 0.5 -o d.mtx\n"
            "         mmnc cluster d.mtx -k 5\n");
}

/* A whole number >= 1, or a fraction in (0, 1) (or (0, 1] for max_df). */
static int parse_df(const char *opt, const char *s, double *out)
{
    double v;
    if (cli_parse_double(CMD, opt, s, 1e-300, 1e18, &v)) return -1;
    if (v > 1 && v != (double)(long long)v) {
        cli_usage_error(CMD, "%s: expected a fraction below 1 or a whole number of documents, got '%s'", opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

/* Long (~130 lines): the options (one case each), the stop words (built-in
 * or files, concatenated), then one library call and the writes. */
int cmd_docs(int argc, char **argv)
{
    enum { O_LINES = 256, O_MINDF, O_MAXDF, O_MINCOUNT, O_MAXVOCAB, O_STOP, O_DROP };
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},      {"lines", no_argument, NULL, O_LINES},
        {"min-df", required_argument, NULL, O_MINDF},  {"max-df", required_argument, NULL, O_MAXDF},
        {"min-count", required_argument, NULL, O_MINCOUNT}, {"max-vocab", required_argument, NULL, O_MAXVOCAB},
        {"stop-words", required_argument, NULL, O_STOP}, {"drop-empty", no_argument, NULL, O_DROP},
        {"quiet", no_argument, NULL, 'q'},             {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    mmnc_docs_opts o;
    mmnc_docs_info info;
    const char *output = NULL, *stop_args[16];
    int nstop = 0, quiet = 0, c, rc = CLI_EXIT_OK, wrote[2] = {0, 0};
    long long v;
    mmnc_data *d = NULL;
    mmnc_err err = {0, ""};
    char **stop = NULL, *side[2] = {NULL, NULL};
    size_t nall = 0;
    mmnc_int nfile[16] = {0};
    char **files[16] = {NULL};
    double t0 = cli_now();
    cli_outset *outs = NULL;

    mmnc_docs_opts_default(&o);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case O_LINES: o.lines = 1; break;
        case O_MINDF:
            if (parse_df("--min-df", optarg, &o.min_df)) return CLI_EXIT_USAGE;
            break;
        case O_MAXDF:
            if (parse_df("--max-df", optarg, &o.max_df)) return CLI_EXIT_USAGE;
            break;
        case O_MINCOUNT:
            if (cli_parse_int(CMD, "--min-count", optarg, 1, INT64_MAX, &v)) return CLI_EXIT_USAGE;
            o.min_count = (mmnc_int)v;
            break;
        case O_MAXVOCAB:
            if (cli_parse_int(CMD, "--max-vocab", optarg, 0, INT64_MAX, &v)) return CLI_EXIT_USAGE;
            o.max_vocab = (mmnc_int)v;
            break;
        case O_STOP:
            if (nstop == 16) return cli_usage_error(CMD, "--stop-words: at most 16 lists");
            stop_args[nstop++] = optarg;
            break;
        case O_DROP: o.drop_empty = 1; break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return CLI_EXIT_OK;
        case ':': return cli_usage_error(CMD, "option '%s' needs a value", argv[optind - 1]);
        default:
            if (optopt > 0 && optopt < 256) return cli_usage_error(CMD, "unknown option '-%c'", optopt);
            return cli_usage_error(CMD, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) return cli_usage_error(CMD, "no input files or directories");
    if (!output) return cli_usage_error(CMD, "no output file (-o OUT.mtx)");
    if (o.min_df >= 1 && o.max_df > 1 && o.min_df > o.max_df)
        return cli_usage_error(CMD, "--min-df %g exceeds --max-df %g", o.min_df, o.max_df);

    /* the matrix and its .rows and .cols: none an input, all of them or none */
    if (!(outs = cli_outset_new(CMD))) return cli_fail(CMD, "out of memory");
    for (int i = optind; i < argc; i++) cli_outset_input(outs, argv[i], "FILE");
    for (int i = 0; i < nstop; i++) cli_outset_input(outs, strcmp(stop_args[i], "english") ? stop_args[i] : NULL, "--stop-words");
    cli_outset_add(outs, output, "-o", 0);
    for (int t = 0; t < 2; t++) {
        if (mmnc_mtx_side_path(output, t ? ".cols" : ".rows", &side[t], &err) != MMNC_OK) {
            rc = cli_lib_fail(CMD, &err);
            goto cleanup;
        }
        if (!strcmp(side[t], output)) {
            rc = cli_usage_error(CMD, "the output should end in .mtx or .mtx.gz ('%s' would be overwritten by its "
                                      "side file)", output);
            goto cleanup;
        }
        cli_outset_add(outs, side[t], t ? "the terms (OUT.cols)" : "the documents (OUT.rows)", CLI_OUT_SIDE);
    }
    if ((rc = cli_outset_check(outs)) != CLI_EXIT_OK) goto cleanup;

    /* the stop words: the lists given, one array (NULL-terminated) */
    for (int i = 0; i < nstop; i++) {
        if (!strcmp(stop_args[i], "english")) {
            const char *const *e = mmnc_stop_words_english();
            while (e[nfile[i]]) nfile[i]++;
        } else if (mmnc_stop_words_read(stop_args[i], &nfile[i], &files[i], &err) != MMNC_OK) {
            rc = cli_lib_fail(CMD, &err);
            goto cleanup;
        }
        nall += (size_t)nfile[i];
    }
    if (nstop) {
        size_t k = 0;
        if (!(stop = calloc(nall + 1, sizeof *stop))) {
            rc = cli_fail(CMD, "out of memory");
            goto cleanup;
        }
        for (int i = 0; i < nstop; i++)
            for (mmnc_int j = 0; j < nfile[i]; j++)
                stop[k++] = files[i] ? files[i][j] : (char *)mmnc_stop_words_english()[j];
        o.stop_words = (const char *const *)stop;
    }

    if (mmnc_docs_build((const char *const *)(argv + optind), argc - optind, &o, &d, &info, &err) != MMNC_OK ||
        mmnc_data_write_mtx(d, cli_outset_path(outs, 0), &wrote[0], &wrote[1], &err) != MMNC_OK) {
        rc = cli_outset_lib_fail(outs, &err);
        goto cleanup;
    }
    if ((rc = cli_outset_commit(outs)) != CLI_EXIT_OK) goto cleanup;
    if (!quiet)
        fprintf(stderr,
                "mmnc docs: %lld file%s, %lld documents (%lld without a kept term, %s), %lld tokens (%lld stop "
                "words), %lld of %lld terms kept, %lld nonzeros, %.2f s -> %s, %s, %s\n",
                (long long)info.files, info.files == 1 ? "" : "s", (long long)info.docs, (long long)info.empty,
                o.drop_empty ? "dropped" : "kept as empty rows", (long long)info.tokens, (long long)info.stopped,
                (long long)info.terms, (long long)info.terms_seen, (long long)d->A->nnz, cli_now() - t0, output,
                side[0], side[1]);

cleanup:
    cli_outset_free(outs);
    for (int i = 0; i < nstop; i++)
        if (files[i]) mmnc_names_free(nfile[i], files[i]);
    free(stop);
    mmnc_free(side[0]);
    mmnc_free(side[1]);
    mmnc_data_free(d);
    return rc;
}
