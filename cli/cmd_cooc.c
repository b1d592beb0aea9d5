/*
 * cmd_cooc.c -- `mmnc cooc`: word co-occurrence matrix of text files.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static const char *const CMD = "cooc";

/* --memory: a whole number of bytes, or of K, M or G (powers of 1024). */
static int parse_size(const char *s, size_t *out)
{
    char *end;
    unsigned long long v, mult = 1;
    errno = 0;
    if (*s < '0' || *s > '9') goto bad; /* strtoull would take "-1" */
    v = strtoull(s, &end, 10);
    if (errno) goto bad;
    switch (*end) {
    case 'k': case 'K': mult = 1ULL << 10; end++; break;
    case 'm': case 'M': mult = 1ULL << 20; end++; break;
    case 'g': case 'G': mult = 1ULL << 30; end++; break;
    default: break;
    }
    if (*end != '\0' || v > SIZE_MAX / mult) goto bad;
    v *= mult;
    if (v > 0 && v < MMNC_COOC_MEMORY_MIN) {
        cli_usage_error(CMD, "option --memory: %s is below the smallest limit, %dK (0 = no limit)", s,
                        MMNC_COOC_MEMORY_MIN >> 10);
        return 1;
    }
    *out = (size_t)v;
    return 0;
bad:
    cli_usage_error(CMD, "option --memory: expected a size in bytes with an optional suffix K, M "
                    "or G (e.g. 512M), got '%s'", s);
    return 1;
}

static void usage(FILE *fp)
{
    fprintf(fp,
            "Usage: mmnc cooc [options] TEXT... -o OUT.mtx|OUT.bin\n"
            "\n"
            "Count how often words occur near each other in the text files TEXT (plain,\n"
            "gzip or xz) and write the symmetric word x word matrix as Matrix Market\n"
            "(OUT.mtx, or OUT.mtx.gz compressed), or in mmnc's binary format (OUT.bin: no\n"
            "text to write or parse; docs/binary-format.md), and its vocabulary, one word per line,\n"
            "line i = row i, most frequent first.  Words are lower-cased runs of letters\n"
            "and digits with inner ' and -; words below --min-count are removed before\n"
            "windowing.  Windows never cross a blank line or the end of a file.  When no\n"
            "two vocabulary words share a window (a text of one word), nothing is counted:\n"
            "an error, and no file written.\n"
            "\n"
            "Options:\n"
            "  -o, --output PATH     the matrix (required); .gz compresses, .bin is binary\n"
            "      --vocab PATH      the vocabulary (default: OUT with .mtx, .mtx.gz or .bin\n"
            "                        replaced by .vocab)\n"
            "  -w, --window N        context words on each side, at most " CLI_STR(MMNC_COOC_WINDOW_MAX) "\n"
            "                        (default " CLI_STR(MMNC_DEFAULT_COOC_WINDOW) ")\n"
            "      --weighting W     flat (each pair counts 1) or harmonic (a pair at\n"
            "                        distance d counts 1/d) (default %s)\n"
            "      --min-count N     keep words seen at least N times (default "
            CLI_STR(MMNC_DEFAULT_COOC_MIN_COUNT) ")\n"
            "      --max-vocab N     keep at most the N most frequent words; 0 = all\n"
            "                        (default " CLI_STR(MMNC_DEFAULT_COOC_MAX_VOCAB) ")\n"
            "      --no-sentences    let windows cross sentence ends . ! ? (default: they\n"
            "                        do not)\n"
            "      --tokens PATH     also write the text as the windows see it: vocabulary\n"
            "                        words only, a line per sentence, an empty line per\n"
            "                        paragraph (what word2vec-style trainers read)\n"
            "  -t, --threads N       threads; 0 = all cores (default " CLI_STR(MMNC_DEFAULT_THREADS) ")\n"
            "      --memory SIZE     memory for the pair counts, in bytes or with a\n"
            "                        suffix K, M or G (powers of 1024), at least %dK;\n"
            "                        beyond it, sorted runs go to a temporary file in\n"
            "                        $TMPDIR (or /tmp) and are merged at the end: the\n"
            "                        same matrix, bit for bit; 0 = no limit (default "
            CLI_STR(MMNC_DEFAULT_COOC_MAX_MEMORY) ")\n"
            "  -q, --quiet           no progress or summary on stderr\n"
            "  -h, --help            this help\n"
            "\n"
            "Example: mmnc cooc -w 5 --min-count 20 novel.txt.gz -o words.mtx\n",
            MMNC_DEFAULT_COOC_WEIGHTING ? "harmonic" : "flat", MMNC_COOC_MEMORY_MIN >> 10);
}

/* The progress line: the pass and the tokens read in it (in the second,
 * of those the first counted). */
typedef struct cooc_progress {
    cli_progress pr;
    double total; /* the first pass's tokens */
} cooc_progress;

static int on_progress(void *ctx, int pass, int block, double tokens)
{
    cooc_progress *c = ctx;
    (void)block;
    if (pass == 1) {
        c->total = tokens;
        cli_progress_say(&c->pr, "pass 1 of 2 (the words): %.1f M tokens", tokens / 1e6);
    } else {
        cli_progress_say(&c->pr, "pass 2 of 2 (the pairs): %.1f of %.1f M tokens", tokens / 1e6, c->total / 1e6);
    }
    return 0;
}

/* A matrix without an entry (a text of one word, sentences of one word, or
 * a --min-count that keeps one word in each window) is of no use to any
 * command (cluster refuses it), so it is a failure, as mmnc docs fails
 * when no term is left: say what was counted and what may give pairs. */
static int no_pairs(char **files, int nfiles, const mmnc_cooc_opts *o, mmnc_int nv, mmnc_int tokens)
{
    char where[64];
    if (nfiles > 1) snprintf(where, sizeof where, "the %d TEXT files", nfiles);
    return cli_fail(CMD,
                    "no co-occurrence counted in %s (%lld token%s read, a vocabulary of %lld word%s seen at "
                    "least %lld time%s%s): no two tokens of the vocabulary lie within %d word%s of each other "
                    "in one %s; a text of one word has none, and a lower --min-count, a larger --window%s may "
                    "count some; nothing written",
                    nfiles > 1 ? where : files[0], (long long)tokens, tokens == 1 ? "" : "s", (long long)nv,
                    nv == 1 ? "" : "s", (long long)o->min_count, o->min_count == 1 ? "" : "s",
                    o->max_vocab > 0 && nv == o->max_vocab ? ", the --max-vocab most frequent" : "", o->window,
                    o->window == 1 ? "" : "s", o->sentences ? "sentence" : "paragraph",
                    o->sentences ? " or --no-sentences" : "");
}

int cmd_cooc(int argc, char **argv)
{
    enum { OPT_VOCAB = 256, OPT_WEIGHTING, OPT_MIN_COUNT, OPT_MAX_VOCAB, OPT_NO_SENTENCES, OPT_TOKENS,
           OPT_MEMORY };
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"vocab", required_argument, NULL, OPT_VOCAB},
        {"window", required_argument, NULL, 'w'},
        {"weighting", required_argument, NULL, OPT_WEIGHTING},
        {"min-count", required_argument, NULL, OPT_MIN_COUNT},
        {"max-vocab", required_argument, NULL, OPT_MAX_VOCAB},
        {"no-sentences", no_argument, NULL, OPT_NO_SENTENCES},
        {"tokens", required_argument, NULL, OPT_TOKENS},
        {"threads", required_argument, NULL, 't'},
        {"memory", required_argument, NULL, OPT_MEMORY},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    mmnc_cooc_opts o;
    const char *output = NULL, *vocab_opt = NULL;
    const char *vocab_path = NULL;
    char *vocab_owned = NULL;
    mmnc_outfile vo = {0};
    cli_outset *outs = NULL;
    const char *tokens = NULL;
    int quiet = 0, c, rc = CLI_EXIT_OK, nfiles, bin, st;
    cooc_progress pr = {0};
    long long v;
    mmnc_csr *A = NULL;
    char **words = NULL;
    mmnc_int nv = 0;
    mmnc_cooc_info info;
    mmnc_err err = {0, ""};
    double t0 = cli_now(), tbuild;

    mmnc_cooc_opts_default(&o);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:w:t:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case OPT_VOCAB: vocab_opt = optarg; break;
        case 'w':
            if (cli_parse_int(CMD, "--window", optarg, 1, MMNC_COOC_WINDOW_MAX, &v)) return CLI_EXIT_USAGE;
            o.window = (int)v;
            break;
        case OPT_WEIGHTING:
            if (strcmp(optarg, "flat") == 0) o.weighting = 0;
            else if (strcmp(optarg, "harmonic") == 0) o.weighting = 1;
            else
                return cli_usage_error(CMD, "--weighting must be flat or harmonic, not '%s'",
                                       optarg);
            break;
        case OPT_MIN_COUNT:
            if (cli_parse_int(CMD, "--min-count", optarg, 1, INT64_MAX, &v)) return CLI_EXIT_USAGE;
            o.min_count = (mmnc_int)v;
            break;
        case OPT_MAX_VOCAB:
            if (cli_parse_int(CMD, "--max-vocab", optarg, 0, 2147483646LL, &v))
                return CLI_EXIT_USAGE;
            o.max_vocab = (mmnc_int)v;
            break;
        case OPT_NO_SENTENCES: o.sentences = 0; break;
        case OPT_TOKENS: o.tokens = optarg; break;
        case 't':
            if (cli_parse_int(CMD, "--threads", optarg, 0, 4096, &v)) return CLI_EXIT_USAGE;
            o.threads = (int)v;
            break;
        case OPT_MEMORY:
            if (parse_size(optarg, &o.max_memory)) return CLI_EXIT_USAGE;
            break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return CLI_EXIT_OK;
        case ':': return cli_usage_error(CMD, "option '%s' needs a value", argv[optind - 1]);
        default:
            if (optopt > 0 && optopt < 256)
                return cli_usage_error(CMD, "unknown option '-%c'", optopt);
            return cli_usage_error(CMD, "unknown option '%s'", argv[optind - 1]);
        }
    }
    nfiles = argc - optind;
    if (nfiles < 1) return cli_usage_error(CMD, "no input text files");
    if (!output) return cli_usage_error(CMD, "no output file (-o OUT.mtx)");
    bin = cli_ends_with(output, ".bin");
    if (!vocab_opt && !(vocab_owned = cli_vocab_path(output))) return cli_fail(CMD, "out of memory");
    vocab_path = vocab_opt ? vocab_opt : vocab_owned;

    /* the matrix, its vocabulary and the tokens: none a text read, all of them or none */
    if (!(outs = cli_outset_new(CMD))) {
        rc = cli_fail(CMD, "out of memory");
        goto cleanup;
    }
    for (int i = optind; i < argc; i++) cli_outset_input(outs, argv[i], "TEXT");
    cli_outset_add(outs, output, "-o", 0);
    cli_outset_add(outs, vocab_path, vocab_opt ? "--vocab" : "the vocabulary (OUT.vocab)", 0);
    if ((tokens = o.tokens)) cli_outset_add(outs, tokens, "--tokens", 0);
    if ((rc = cli_outset_check(outs)) != CLI_EXIT_OK) goto cleanup;
    if (tokens) o.tokens = cli_outset_path(outs, 2);
    tbuild = cli_now();
    cli_progress_start(&pr.pr, quiet);
    o.progress = on_progress; /* a status line (cli_progress) */
    o.progress_ctx = &pr;
    st = mmnc_cooc_build_ex((const char *const *)(argv + optind), nfiles, &o, &A, &words, &nv, &info, &err);
    cli_progress_end(&pr.pr);
    if (st != MMNC_OK) {
        rc = cli_outset_lib_fail(outs, &err);
        goto cleanup;
    }
    tbuild = cli_now() - tbuild;
    if (A->nnz == 0) {
        rc = no_pairs(argv + optind, nfiles, &o, nv, info.tokens);
        goto cleanup;
    }

    if (mmnc_outfile_open(&vo, cli_outset_path(outs, 1), &err) != MMNC_OK) {
        rc = cli_outset_lib_fail(outs, &err);
        goto cleanup;
    }
    for (mmnc_int i = 0; i < nv; i++) fprintf(vo.fp, "%s\n", words[i]);
    if (bin) {
        mmnc_data d = {A, NULL, NULL, NULL, NULL, A->nrows, A->ncols};
        if (mmnc_data_write_bin(&d, cli_outset_path(outs, 0), &err) != MMNC_OK) {
            rc = cli_outset_lib_fail(outs, &err);
            goto cleanup;
        }
    } else if (mmnc_csr_write_mtx(A, cli_outset_path(outs, 0), &err) != MMNC_OK) {
        rc = cli_outset_lib_fail(outs, &err);
        goto cleanup;
    }
    if (mmnc_outfile_commit(&vo, &err) != MMNC_OK || (rc = cli_outset_commit(outs)) != CLI_EXIT_OK) {
        if (rc == CLI_EXIT_OK) rc = cli_outset_lib_fail(outs, &err);
        goto cleanup;
    }
    if (!quiet) {
        char spill[128] = "";
        if (info.runs > 0)
            snprintf(spill, sizeof spill, ", %lld sorted runs spilled (%.1f MB written)",
                     (long long)info.runs, (double)info.spilled_bytes / 1e6);
        /* tokens/s: tokens of the corpus over the counting time (two passes) */
        fprintf(stderr,
                "mmnc cooc: %d file%s, %lld tokens, vocabulary %lld, %lld nonzeros, %.2f s "
                "(%.2f M tokens/s counting%s) -> %s, %s\n",
                nfiles, nfiles == 1 ? "" : "s", (long long)info.tokens, (long long)nv,
                (long long)A->nnz, cli_now() - t0,
                tbuild > 0 ? (double)info.tokens / tbuild / 1e6 : 0.0, spill, output, vocab_path);
    }

cleanup:
    mmnc_outfile_abort(&vo);
    cli_outset_free(outs);
    mmnc_csr_free(A);
    mmnc_names_free(nv, words);
    mmnc_free(vocab_owned);
    return rc;
}
