/*
 * cmd_msr.c -- `mmnc msr`: answer the MSR Sentence Completion questions
 * (Zweig & Burges 2011) with word vectors, and score the answers.
 *
 * Scoring (chosen before looking at the answers, after the "total word
 * similarity" of Zweig et al., ACL 2012, and the paper's "cosine similarity
 * between each candidate word and the words around the blank"):
 *
 *     score(c) = mean over context words w of cos(v_c, v_w)
 *
 * where the context words are the question's tokens (mmnc_tokenize, as
 * `mmnc cooc` reads text) other than the blank that have a vector, all of
 * them or those within --window tokens of the blank, optionally without the
 * --ignore-top most frequent words of a vocabulary file (function words
 * carry no topic: their cosine with every candidate is noise around the
 * same value).  A candidate of
 * several tokens is the mean of their vectors.  The answer is the candidate
 * with the highest score (the first on a tie); a question whose candidates
 * have no vector, or that has no context word with one, is unanswered and
 * counts as wrong.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *CMD = "msr";

#define NOPT 5
#define BLANK "_____"

static void help(void)
{
    printf("Usage: mmnc msr [options] VECTORS QUESTIONS.csv [ANSWERS.csv]\n\n"
           "Answer the MSR Sentence Completion questions (testing_data.csv: id,question,a)..e),\n"
           "the blank written _____) with the word vectors VECTORS (word2vec text or binary, as\n"
           "written by `mmnc embed`, word2vec or gensim), and with ANSWERS.csv (id,answer) print\n"
           "the accuracy.  Each candidate scores the mean cosine similarity between its vector\n"
           "and the vectors of the question's other words; the best score is the answer.\n"
           "Words are tokenised as `mmnc cooc` does (lower case).\n\n"
           "Options:\n"
           "  -w, --window N        only context words within N tokens of the blank (default 0:\n"
           "                        the whole question)\n"
           "      --ignore-top N    do not use the N most frequent words of --vocab as context\n"
           "                        (default 0)\n"
           "      --vocab FILE      words, one per line, most frequent first (as `mmnc cooc`\n"
           "                        writes OUT.vocab)\n"
           "      --half H          all, odd or even question ids (default all): choose settings\n"
           "                        on one half, report the other\n"
           "  -o, --output FILE     write id, answer, and the five scores as TSV\n"
           "  -q, --quiet           only the accuracy line on stdout\n"
           "  -h, --help            this help\n\n"
           "The last line of the output is \"accuracy A (CORRECT/QUESTIONS)\".\n");
}

/* ---- word -> row index -------------------------------------------------------- */

typedef struct wmap {
    mmnc_int *slot; /* index + 1, 0 = empty */
    size_t cap;
    char **words;
} wmap;

static int wmap_build(wmap *m, char **words, mmnc_int n)
{
    m->cap = 16;
    while (m->cap < 2 * (size_t)n) m->cap *= 2;
    m->words = words;
    if (!(m->slot = calloc(m->cap, sizeof *m->slot))) return -1;
    for (mmnc_int i = 0; i < n; i++) {
        size_t len = strlen(words[i]), h = cli_hash(words[i], len) & (m->cap - 1);
        while (m->slot[h] && strcmp(words[m->slot[h] - 1], words[i])) h = (h + 1) & (m->cap - 1);
        if (!m->slot[h]) m->slot[h] = i + 1; /* a repeated word keeps its first vector */
    }
    return 0;
}

static mmnc_int wmap_find(const wmap *m, const char *w, size_t len)
{
    size_t h = cli_hash(w, len) & (m->cap - 1);
    while (m->slot[h]) {
        const char *s = m->words[m->slot[h] - 1];
        if (strlen(s) == len && !memcmp(s, w, len)) return m->slot[h] - 1;
        h = (h + 1) & (m->cap - 1);
    }
    return -1;
}

/* ---- tokens of a piece of text as vector indices (-1: no vector) -------------- */

typedef struct toks {
    const wmap *m;
    mmnc_int *id;
    int n, cap, bad;
} toks;

static void on_token(void *ctx, const char *w, size_t len)
{
    toks *t = ctx;
    if (!w) return; /* the whole question is one context */
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        mmnc_int *p = realloc(t->id, (size_t)cap * sizeof *p);
        if (!p) {
            t->bad = 1;
            return;
        }
        t->id = p;
        t->cap = cap;
    }
    t->id[t->n++] = wmap_find(t->m, w, len);
}

/* ---- CSV (RFC 4180: quoted fields, "" inside quotes, CRLF) -------------------- */

/* Split the record starting at *pos into at most maxf fields (NUL-terminated
 * in place); returns the number of fields, -1 for an unterminated quote.
 * *pos moves past the record's line end; *lines counts the lines it used. */
static int csv_record(char *buf, size_t len, size_t *pos, char **f, int maxf, int *lines)
{
    size_t i = *pos, o = *pos;
    int nf = 0;
    *lines = 1;
    for (;;) {
        char *start = buf + o;
        if (i < len && buf[i] == '"') {
            i++;
            for (;;) {
                if (i >= len) return -1;
                if (buf[i] == '"') {
                    if (i + 1 < len && buf[i + 1] == '"') {
                        buf[o++] = '"';
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                if (buf[i] == '\n') (*lines)++;
                buf[o++] = buf[i++];
            }
        }
        while (i < len && buf[i] != ',' && buf[i] != '\n' && buf[i] != '\r') buf[o++] = buf[i++];
        int at_end = i >= len || buf[i] != ',';
        if (nf < maxf) f[nf] = start;
        nf++;
        if (i < len && buf[i] == '\r') i++;
        buf[o++] = '\0';
        i++; /* the comma or the newline */
        if (at_end) break;
        o = i;
        if (o > len) o = len;
    }
    *pos = i > len ? len : i;
    return nf;
}

/* 1 (and past it) if a blank line starts at *pos. */
static int skip_blank_line(const char *buf, size_t len, size_t *pos, int *line)
{
    if (buf[*pos] != '\n' && buf[*pos] != '\r') return 0;
    *pos += buf[*pos] == '\r' && *pos + 1 < len && buf[*pos + 1] == '\n' ? 2 : 1;
    (*line)++;
    return 1;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    char *b = NULL;
    long n;
    if (!fp) return NULL;
    if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 && fseek(fp, 0, SEEK_SET) == 0 &&
        (b = malloc((size_t)n + 2)) != NULL) {
        *len = fread(b, 1, (size_t)n, fp);
        if (ferror(fp) || *len != (size_t)n) {
            free(b);
            b = NULL;
        } else {
            b[*len] = '\n'; /* a final line end, for the parser */
            b[*len + 1] = '\0';
            *len += 1;
        }
    }
    fclose(fp);
    return b;
}

/* ---- the command ------------------------------------------------------------------ */

typedef struct question {
    long id;
    int answer; /* 0..4, -1 unknown */
    int pred;   /* 0..4, -1 unanswered */
    double score[NOPT];
} question;

/* The normalised mean vector of the tokens of `text` that have vectors, in
 * out (d); 0 if none. */
static int mean_vector(const char *text, const wmap *m, const double *unit, mmnc_int d, double *out)
{
    toks t = {m, NULL, 0, 0, 0};
    int have = 0;
    mmnc_tokenize(text, strlen(text), 0, on_token, &t);
    memset(out, 0, (size_t)d * sizeof(double));
    for (int i = 0; i < t.n; i++)
        if (t.id[i] >= 0) {
            const double *u = unit + t.id[i] * d;
            for (mmnc_int j = 0; j < d; j++) out[j] += u[j];
            have++;
        }
    free(t.id);
    double nrm = 0.0;
    for (mmnc_int j = 0; j < d; j++) nrm += out[j] * out[j];
    if (!have || !(nrm > 0)) return 0;
    nrm = 1.0 / sqrt(nrm);
    for (mmnc_int j = 0; j < d; j++) out[j] *= nrm;
    return 1;
}

/* Long (~225 lines): options, then the questions read and answered one
 * by one against the vectors and the report; the scoring is in the static
 * functions above, the rest is the command's sequence of files. */
int cmd_msr(int argc, char **argv)
{
    enum { O_HALF = 256, O_TOP, O_VOCAB };
    static const struct option opts[] = {
        {"window", required_argument, 0, 'w'}, {"half", required_argument, 0, O_HALF},
        {"output", required_argument, 0, 'o'}, {"quiet", no_argument, 0, 'q'},
        {"ignore-top", required_argument, 0, O_TOP}, {"vocab", required_argument, 0, O_VOCAB},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    const char *vpath, *qpath, *apath = NULL, *out = NULL, *vocab_path = NULL;
    long long ignore_top = 0;
    char **vocab = NULL, *ignored = NULL;
    mmnc_int nvocab = 0;
    int window = 0, half = 0, quiet = 0, c, rc = CLI_EXIT_OK;
    long long v;
    mmnc_int n = 0, d = 0;
    char **words = NULL, *qbuf = NULL, *abuf = NULL;
    float *E = NULL;
    double *unit = NULL, *cand = NULL;
    wmap m = {NULL, 0, NULL};
    question *qs = NULL;
    long nq = 0, qcap = 0;
    mmnc_err err = {0, ""};
    cli_outset *outs = NULL;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":w:o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'w': if (cli_parse_int(CMD, "--window", optarg, 0, 1000, &v)) return CLI_EXIT_USAGE; window = (int)v; break;
        case O_HALF:
            if (!strcmp(optarg, "all")) half = 0;
            else if (!strcmp(optarg, "odd")) half = 1;
            else if (!strcmp(optarg, "even")) half = 2;
            else return cli_usage_error(CMD, "--half must be all, odd or even, not '%s'", optarg);
            break;
        case 'o': out = optarg; break;
        case O_TOP: if (cli_parse_int(CMD, "--ignore-top", optarg, 0, INT32_MAX, &ignore_top)) return CLI_EXIT_USAGE; break;
        case O_VOCAB: vocab_path = optarg; break;
        case 'q': quiet = 1; break;
        case 'h': help(); return CLI_EXIT_OK;
        default:
            if ((c = cli_other_option(CMD, c, argv, NULL, opts, 0)) != 0) return c;
            break;
        }
    }
    if (argc - optind < 2 || argc - optind > 3)
        return cli_usage_error(CMD, "expected VECTORS QUESTIONS.csv [ANSWERS.csv]");
    vpath = argv[optind];
    qpath = argv[optind + 1];
    if (argc - optind == 3) apath = argv[optind + 2];
    if (ignore_top > 0 && !vocab_path) return cli_usage_error(CMD, "--ignore-top needs --vocab FILE");
    if (out) { /* the predictions: not an input */
        if (!(outs = cli_outset_new(CMD))) return cli_fail(CMD, "out of memory");
        cli_outset_input(outs, vpath, "VECTORS");
        cli_outset_input(outs, qpath, "QUESTIONS.csv");
        cli_outset_input(outs, apath, "ANSWERS.csv");
        cli_outset_input(outs, vocab_path, "--vocab");
        cli_outset_add(outs, out, "-o", 0);
        if ((rc = cli_outset_check(outs)) != CLI_EXIT_OK) goto done;
    }

    if (mmnc_vectors_read(vpath, -1, &n, &d, &words, &E, &err) != MMNC_OK) { rc = cli_lib_fail(CMD, &err); goto done; }
    unit = malloc((size_t)(n * d) * sizeof(double));
    cand = malloc((size_t)d * sizeof(double));
    if (!unit || !cand || wmap_build(&m, words, n)) { rc = cli_fail(CMD, "out of memory"); goto done; }
    for (mmnc_int i = 0; i < n; i++) {
        double s = 0.0;
        for (mmnc_int j = 0; j < d; j++) s += (double)E[i * d + j] * E[i * d + j];
        s = s > 0 ? 1.0 / sqrt(s) : 0.0; /* a zero vector: every cosine 0 */
        for (mmnc_int j = 0; j < d; j++) unit[i * d + j] = s * E[i * d + j];
    }
    /* Context words to ignore (candidates keep their vectors). */
    ignored = calloc((size_t)n + 1, 1);
    if (!ignored) { rc = cli_fail(CMD, "out of memory"); goto done; }
    if (vocab_path) {
        if (mmnc_names_read(vocab_path, 0, &nvocab, &vocab, &err) != MMNC_OK) { rc = cli_lib_fail(CMD, &err); goto done; }
        for (mmnc_int i = 0; i < nvocab && i < ignore_top; i++) {
            mmnc_int id = wmap_find(&m, vocab[i], strlen(vocab[i]));
            if (id >= 0) ignored[id] = 1;
        }
    }

    /* questions */
    size_t qlen = 0, pos = 0;
    int line = 1, used, nf;
    char *f[NOPT + 3];
    if (!(qbuf = slurp(qpath, &qlen))) { rc = cli_fail(CMD, "%s: cannot read", qpath); goto done; }
    pos = cli_bom_len(qbuf, qlen);
    nf = csv_record(qbuf, qlen, &pos, f, NOPT + 3, &used);
    if (nf != NOPT + 2 || strcmp(f[0], "id") != 0) {
        rc = cli_fail(CMD, "%s:1: expected the header id,question,a),b),c),d),e)", qpath);
        goto done;
    }
    line += used;
    while (pos < qlen) {
        if (skip_blank_line(qbuf, qlen, &pos, &line)) continue;
        int at = line;
        nf = csv_record(qbuf, qlen, &pos, f, NOPT + 3, &used);
        line += used;
        char *end;
        long id = nf > 0 ? strtol(f[0], &end, 10) : 0;
        if (nf != NOPT + 2 || !f[0][0] || *end || id < 1) {
            rc = cli_fail(CMD, "%s:%d: expected id,question and 5 options (%d fields found)", qpath, at, nf);
            goto done;
        }
        char *blank = strstr(f[1], BLANK);
        if (!blank || strstr(blank + 1, BLANK)) {
            rc = cli_fail(CMD, "%s:%d: the question must hold the blank %s exactly once", qpath, at, BLANK);
            goto done;
        }
        if (nq == qcap) {
            qcap = qcap ? 2 * qcap : 1024;
            question *p = realloc(qs, (size_t)qcap * sizeof *p);
            if (!p) { rc = cli_fail(CMD, "out of memory"); goto done; }
            qs = p;
        }
        question *q = &qs[nq++];
        q->id = id;
        q->answer = -1;
        q->pred = -1;
        for (int o = 0; o < NOPT; o++) q->score[o] = NAN;
        if ((half == 1 && id % 2 == 0) || (half == 2 && id % 2 == 1)) {
            nq--;
            continue;
        }
        /* context: the tokens left and right of the blank */
        toks left = {&m, NULL, 0, 0, 0}, right = {&m, NULL, 0, 0, 0};
        mmnc_tokenize(f[1], (size_t)(blank - f[1]), 0, on_token, &left);
        const char *after = blank + strlen(BLANK);
        while (*after == '_') after++; /* a longer run of underscores is still the blank */
        mmnc_tokenize(after, strlen(after), 0, on_token, &right);
        if (left.bad || right.bad) {
            free(left.id);
            free(right.id);
            rc = cli_fail(CMD, "out of memory");
            goto done;
        }
        for (int i = 0; i < left.n; i++)
            if (left.id[i] >= 0 && ignored[left.id[i]]) left.id[i] = -1;
        for (int i = 0; i < right.n; i++)
            if (right.id[i] >= 0 && ignored[right.id[i]]) right.id[i] = -1;
        int nctx = 0;
        for (int i = 0; i < left.n; i++)
            if (left.id[i] >= 0 && (!window || left.n - i <= window)) nctx++;
        for (int i = 0; i < right.n; i++)
            if (right.id[i] >= 0 && (!window || i < window)) nctx++;
        for (int o = 0; o < NOPT && nctx > 0; o++) {
            if (!mean_vector(f[2 + o], &m, unit, d, cand)) continue;
            double s = 0.0;
            for (int side = 0; side < 2; side++) {
                const toks *t = side ? &right : &left;
                for (int i = 0; i < t->n; i++) {
                    if (t->id[i] < 0 || (window && (side ? i >= window : t->n - i > window))) continue;
                    const double *u = unit + t->id[i] * d;
                    double dot = 0.0;
                    for (mmnc_int j = 0; j < d; j++) dot += cand[j] * u[j];
                    s += dot;
                }
            }
            q->score[o] = s / nctx;
            if (q->pred < 0 || q->score[o] > q->score[q->pred]) q->pred = o;
        }
        free(left.id);
        free(right.id);
    }
    if (nq == 0) { rc = cli_fail(CMD, "%s: no questions%s", qpath, half ? " in this half" : ""); goto done; }

    /* answers */
    long correct = 0, scored = 0, answered = 0;
    if (apath) {
        size_t alen = 0;
        if (!(abuf = slurp(apath, &alen))) { rc = cli_fail(CMD, "%s: cannot read", apath); goto done; }
        pos = cli_bom_len(abuf, alen);
        line = 1;
        nf = csv_record(abuf, alen, &pos, f, 3, &used);
        if (nf != 2 || strcmp(f[0], "id") != 0) { rc = cli_fail(CMD, "%s:1: expected the header id,answer", apath); goto done; }
        line += used;
        while (pos < alen) {
            if (skip_blank_line(abuf, alen, &pos, &line)) continue;
            int at = line;
            nf = csv_record(abuf, alen, &pos, f, 3, &used);
            line += used;
            char *end;
            long id = nf == 2 ? strtol(f[0], &end, 10) : 0;
            if (nf != 2 || *end || id < 1 || strlen(f[1]) != 1 || f[1][0] < 'a' || f[1][0] > 'e') {
                rc = cli_fail(CMD, "%s:%d: expected id,answer with the answer a..e", apath, at);
                goto done;
            }
            for (long i = 0; i < nq; i++)
                if (qs[i].id == id) qs[i].answer = f[1][0] - 'a';
        }
        for (long i = 0; i < nq; i++)
            if (qs[i].answer < 0) { rc = cli_fail(CMD, "%s: no answer for question %ld", apath, qs[i].id); goto done; }
    }
    for (long i = 0; i < nq; i++) {
        answered += qs[i].pred >= 0;
        if (qs[i].answer >= 0) {
            scored++;
            correct += qs[i].pred == qs[i].answer;
        }
    }
    if (out) {
        mmnc_outfile o;
        if (mmnc_outfile_open(&o, cli_outset_path(outs, 0), &err) != MMNC_OK) { rc = cli_outset_lib_fail(outs, &err); goto done; }
        fprintf(o.fp, "id\tanswer\ta\tb\tc\td\te\n");
        for (long i = 0; i < nq; i++) {
            fprintf(o.fp, "%ld\t%c", qs[i].id, qs[i].pred >= 0 ? 'a' + qs[i].pred : '-');
            for (int k = 0; k < NOPT; k++) {
                if (isnan(qs[i].score[k])) fprintf(o.fp, "\t-");
                else fprintf(o.fp, "\t%.6f", qs[i].score[k]);
            }
            fputc('\n', o.fp);
        }
        if (mmnc_outfile_commit(&o, &err) != MMNC_OK) { rc = cli_outset_lib_fail(outs, &err); goto done; }
        if ((rc = cli_outset_commit(outs)) != CLI_EXIT_OK) goto done;
    }
    if (!quiet) {
        printf("vectors   %lld words x %lld dimensions (%s)\n", (long long)n, (long long)d, vpath);
        printf("questions %ld (%s ids), answered %ld, context %s\n", nq, half == 0 ? "all" : half == 1 ? "odd" : "even",
               answered, window ? "window" : "whole question");
        if (window) printf("window    %d tokens each side of the blank\n", window);
        if (ignore_top) printf("ignored   the %lld most frequent words of %s as context\n", ignore_top, vocab_path);
    }
    if (apath) printf("accuracy %.4f (%ld/%ld)\n", (double)correct / (double)scored, correct, scored);
    else if (!quiet) printf("no answers given: see -o for the predictions\n");

done:
    cli_outset_free(outs);
    free(ignored);
    free(qs);
    free(qbuf);
    free(abuf);
    free(m.slot);
    free(unit);
    free(cand);
    mmnc_names_free(n, words);
    mmnc_names_free(nvocab, vocab);
    mmnc_free(E);
    return rc;
}
