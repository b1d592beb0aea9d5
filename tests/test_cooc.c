/*
 * test_cooc.c -- word co-occurrence counts from text (src/text/cooc.c).
 */
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "testutil.h"
#ifdef MMNC_FAULT_INJECTION
#include "core/mmnc_i.h"
#endif

typedef struct res {
    int status;
    mmnc_err err;
    mmnc_csr *A;
    char **vocab;
    mmnc_int nv, ntok;
} res;

static void res_free(res *r)
{
    mmnc_csr_free(r->A);
    mmnc_names_free(r->nv, r->vocab);
    memset(r, 0, sizeof *r);
}

static res run_paths(const char *const *paths, int n, const mmnc_cooc_opts *o)
{
    res r;
    memset(&r, 0, sizeof r);
    r.status = mmnc_cooc_build(paths, n, o, &r.A, &r.vocab, &r.nv, &r.ntok, &r.err);
    return r;
}

static res run_text(const char *text, const mmnc_cooc_opts *o)
{
    const char *path = test_tmpfile(text, ".txt");
    res r = run_paths(&path, 1, o);
    remove(path);
    return r;
}

static mmnc_int word_id(const res *r, const char *w)
{
    for (mmnc_int i = 0; i < r->nv; i++)
        if (strcmp(r->vocab[i], w) == 0) return i;
    return -1;
}

static double entry(const mmnc_csr *A, mmnc_int i, mmnc_int j)
{
    if (i < 0 || j < 0) return -1.0;
    for (mmnc_int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
        if (A->colind[p] == j) return A->val[p];
    return 0.0;
}

static double get(const res *r, const char *a, const char *b)
{
    if (!r->A) return -1.0;
    return entry(r->A, word_id(r, a), word_id(r, b));
}

static int is_symmetric(const mmnc_csr *A)
{
    for (mmnc_int i = 0; i < A->nrows; i++)
        for (mmnc_int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
            if (entry(A, A->colind[p], i) != A->val[p]) return 0;
    return 1;
}

static int same_matrix(const res *a, const res *b)
{
    if (!a->A || !b->A || a->nv != b->nv || a->A->nnz != b->A->nnz) return 0;
    for (mmnc_int i = 0; i < a->nv; i++)
        if (strcmp(a->vocab[i], b->vocab[i]) != 0) return 0;
    return memcmp(a->A->rowptr, b->A->rowptr, (size_t)(a->nv + 1) * sizeof(mmnc_int)) == 0 &&
           memcmp(a->A->colind, b->A->colind, (size_t)a->A->nnz * sizeof(mmnc_int)) == 0 &&
           memcmp(a->A->val, b->A->val, (size_t)a->A->nnz * sizeof(double)) == 0;
}

static mmnc_cooc_opts opts(int window, int weighting, int sentences)
{
    mmnc_cooc_opts o;
    mmnc_cooc_opts_default(&o);
    o.window = window;
    o.weighting = weighting;
    o.sentences = sentences;
    o.min_count = 1;
    return o;
}

static void test_defaults(void)
{
    mmnc_cooc_opts o;
    mmnc_cooc_opts_default(&o);
    CHECK(o.window == 5 && o.weighting == 1 && o.min_count == 5 && o.max_vocab == 0);
    CHECK(o.sentences == 1 && o.threads == 0 && o.tokens == NULL && o.max_memory == 0);
}

/* "a b c a b": counts a 2, b 2, c 1. */
static void test_small(void)
{
    mmnc_cooc_opts o = opts(1, 0, 1);
    res r = run_text("a b c a b\n", &o);
    CHECK(r.status == MMNC_OK);
    if (r.status != MMNC_OK) return;
    CHECK(r.nv == 3 && r.ntok == 5);
    CHECK(strcmp(r.vocab[0], "a") == 0 && strcmp(r.vocab[1], "b") == 0 &&
          strcmp(r.vocab[2], "c") == 0);
    CHECK(r.A->nrows == 3 && r.A->ncols == 3);
    CHECK(get(&r, "a", "b") == 2.0 && get(&r, "b", "c") == 1.0 && get(&r, "a", "c") == 1.0);
    CHECK(get(&r, "a", "a") == 0.0 && r.A->nnz == 6);
    CHECK(is_symmetric(r.A));
    CHECK(mmnc_csr_check(r.A, NULL) == MMNC_OK);
    res_free(&r);

    o = opts(2, 0, 1); /* adds (a,c) (b,a) (c,b) at distance 2 */
    r = run_text("a b c a b\n", &o);
    CHECK(get(&r, "a", "b") == 3.0 && get(&r, "b", "c") == 2.0 && get(&r, "c", "a") == 2.0);
    res_free(&r);

    o = opts(2, 1, 1);
    r = run_text("a b c a b\n", &o);
    CHECK(get(&r, "a", "b") == 2.5 && get(&r, "b", "a") == 2.5);
    CHECK(get(&r, "b", "c") == 1.5 && get(&r, "a", "c") == 1.5);
    res_free(&r);

    o = opts(3, 1, 1); /* a..a at distance 3 lands on the diagonal twice */
    r = run_text("a b c a b\n", &o);
    CHECK_NEAR(get(&r, "a", "a"), 2.0 / 3.0, 1e-15);
    CHECK_NEAR(get(&r, "a", "b"), 2.5, 1e-15); /* b..a at 2; a..b at 4 is too far */
    CHECK_NEAR(get(&r, "b", "b"), 2.0 / 3.0, 1e-15);
    CHECK(is_symmetric(r.A));
    res_free(&r);

    o = opts(1, 0, 1);
    r = run_text("x x", &o); /* no final newline */
    CHECK(r.nv == 1 && get(&r, "x", "x") == 2.0);
    res_free(&r);

    /* Window beyond 18: weights rounded to multiples of 2^-24. */
    o = opts(20, 1, 1);
    r = run_text("p q r s t u v w x y z aa bb cc dd ee ff gg hh ii jj kk\n", &o);
    CHECK_NEAR(get(&r, "p", "ii"), 1.0 / 19.0, 1e-7);
    CHECK_NEAR(get(&r, "p", "jj"), 1.0 / 20.0, 1e-7);
    CHECK(get(&r, "p", "kk") == 0.0);
    res_free(&r);
}

static void test_breaks(void)
{
    mmnc_cooc_opts o = opts(2, 0, 1);
    res r = run_text("a b. c d\n", &o);
    CHECK(get(&r, "a", "b") == 1.0 && get(&r, "c", "d") == 1.0);
    CHECK(get(&r, "b", "c") == 0.0 && get(&r, "a", "c") == 0.0 && get(&r, "b", "d") == 0.0);
    res_free(&r);

    o = opts(2, 0, 0);
    r = run_text("a b. c d\n", &o);
    CHECK(get(&r, "b", "c") == 1.0 && get(&r, "a", "c") == 1.0 && get(&r, "b", "d") == 1.0);
    res_free(&r);

    o = opts(2, 0, 1); /* ! and ?, and a run of them is one break */
    r = run_text("a b!? c d? e f\n", &o);
    CHECK(get(&r, "b", "c") == 0.0 && get(&r, "d", "e") == 0.0 && get(&r, "e", "f") == 1.0);
    res_free(&r);

    r = run_text("Mr. Smith met Dr. Jones.  He left.\n", &o);
    CHECK(get(&r, "mr", "smith") == 1.0 && get(&r, "dr", "jones") == 1.0);
    CHECK(get(&r, "jones", "he") == 0.0);
    res_free(&r);

    /* A blank line (even with spaces) ends windows; a line break does not. */
    o = opts(2, 0, 0);
    r = run_text("a b\nc d\n \t\r\ne f\n\n\n\ng h", &o);
    CHECK(get(&r, "b", "c") == 1.0 && get(&r, "a", "c") == 1.0);
    CHECK(get(&r, "d", "e") == 0.0 && get(&r, "c", "e") == 0.0);
    CHECK(get(&r, "f", "g") == 0.0 && get(&r, "g", "h") == 1.0);
    res_free(&r);

    /* CRLF text gives the same matrix. */
    res r1 = run_text("one two three.\n\nfour five\nsix\n", &o);
    res r2 = run_text("one two three.\r\n\r\nfour five\r\nsix\r\n", &o);
    CHECK(same_matrix(&r1, &r2));
    CHECK(get(&r1, "three", "four") == 0.0 && get(&r1, "five", "six") == 1.0);
    res_free(&r1);
    res_free(&r2);

    /* The end of a file ends windows; vocabulary counts add up. */
    const char *p1 = test_tmpfile("a b\n", ".txt");
    const char *p2 = test_tmpfile("c d a\n", ".txt");
    const char *paths[2] = {p1, p2};
    r = run_paths(paths, 2, &o);
    CHECK(r.status == MMNC_OK && r.nv == 4 && r.ntok == 5);
    CHECK(r.nv > 0 && strcmp(r.vocab[0], "a") == 0);
    CHECK(get(&r, "b", "c") == 0.0 && get(&r, "a", "b") == 1.0 && get(&r, "d", "a") == 1.0);
    res_free(&r);
    remove(p1);
    remove(p2);

    /* Out-of-vocabulary words are removed before windowing. */
    o = opts(1, 0, 1);
    o.min_count = 2;
    r = run_text("a rare b. a b\n", &o);
    CHECK(r.nv == 2 && get(&r, "a", "b") == 2.0);
    res_free(&r);
}

static void test_tokens(void)
{
    mmnc_cooc_opts o = opts(1, 0, 0);
    res r = run_text("Don't well-known rock'n'roll 'quoted' x--y HELLO Hello lovers' -dash\n"
                     "e-mail-- 3.14 R2D2 a_b (paren) [b]\n",
                     &o);
    const char *want[] = {"don't", "well-known", "rock'n'roll", "quoted", "x", "y", "hello",
                          "lovers", "dash", "e-mail", "3", "14", "r2d2", "a", "b", "paren"};
    CHECK(r.status == MMNC_OK);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int found = word_id(&r, want[i]) >= 0;
        CHECK(found);
        if (!found) fprintf(stderr, "  missing token '%s'\n", want[i]);
    }
    CHECK(r.nv == 16 && r.ntok == 18);
    CHECK(r.nv > 1 && strcmp(r.vocab[0], "b") == 0 && strcmp(r.vocab[1], "hello") == 0);
    CHECK(get(&r, "quoted", "x") == 1.0 && get(&r, "hello", "hello") == 2.0);
    res_free(&r);

    /* UTF-8: accented letters are letters, curly apostrophe is ', em dash
     * and curly quotes separate; a Latin-1 byte is read as Windows-1252. */
    r = run_text("Caf\xc3\xa9 na\xc3\xafve Stra\xc3\x9f" "e caf\xc3\xa9 don\xe2\x80\x99t "
                 "word\xe2\x80\x94word \xe2\x80\x9cquote\xe2\x80\x9d \xce\xbb\xcf\x8c\xce\xb3\xce\xbf\xcf\x82 "
                 "caf\xe9 it\x92s\n",
                 &o);
    CHECK(r.status == MMNC_OK);
    CHECK(word_id(&r, "caf\xc3\xa9") == 0); /* three times, first */
    CHECK(word_id(&r, "na\xc3\xafve") >= 0 && word_id(&r, "stra\xc3\x9f" "e") >= 0);
    CHECK(word_id(&r, "don't") >= 0 && word_id(&r, "word") >= 0 && word_id(&r, "quote") >= 0);
    CHECK(word_id(&r, "\xce\xbb\xcf\x8c\xce\xb3\xce\xbf\xcf\x82") >= 0);
    CHECK(word_id(&r, "it's") >= 0);
    CHECK(get(&r, "word", "word") == 2.0);
    CHECK(r.nv == 8);
    res_free(&r);

    /* A token over 255 bytes is ignored (and does not take a position). */
    char big[400];
    memset(big, 'z', 300);
    strcpy(big + 300, " a b\n");
    memmove(big + 2, big, 306);
    big[0] = 'a';
    big[1] = ' ';
    r = run_text(big, &o);
    CHECK(r.nv == 2 && r.ntok == 3 && get(&r, "a", "a") == 2.0 && get(&r, "a", "b") == 1.0);
    res_free(&r);
}

static void test_vocab(void)
{
    mmnc_cooc_opts o = opts(2, 0, 0);
    const char *text = "c b a b a a d d d d e\n";
    res r = run_text(text, &o);
    CHECK(r.nv == 5);
    if (r.nv == 5) {
        CHECK(strcmp(r.vocab[0], "d") == 0 && strcmp(r.vocab[1], "a") == 0);
        CHECK(strcmp(r.vocab[2], "b") == 0 && strcmp(r.vocab[3], "c") == 0 &&
              strcmp(r.vocab[4], "e") == 0);
    }
    res_free(&r);

    o.min_count = 2;
    r = run_text(text, &o);
    CHECK(r.nv == 3 && word_id(&r, "c") < 0 && word_id(&r, "e") < 0);
    res_free(&r);

    o.min_count = 1;
    o.max_vocab = 2;
    r = run_text(text, &o);
    CHECK(r.nv == 2 && word_id(&r, "d") == 0 && word_id(&r, "a") == 1);
    CHECK(r.A && r.A->nrows == 2);
    res_free(&r);

    o.max_vocab = 0;
    o.min_count = 5;
    r = run_text(text, &o);
    CHECK(r.status == MMNC_EINVAL && r.A == NULL && r.vocab == NULL && r.nv == 0);
    CHECK(strstr(r.err.msg, "no word occurs at least 5 times") != NULL);
    res_free(&r);

    o.min_count = 1;
    r = run_text("", &o);
    CHECK(r.status == MMNC_EINVAL);
    res_free(&r);
    r = run_text("... --- !!!\n\n", &o);
    CHECK(r.status == MMNC_EINVAL);
    res_free(&r);

    /* A word alone in its sentence has an empty row. */
    o = opts(2, 0, 1);
    r = run_text("alone. a b\n", &o);
    CHECK(r.status == MMNC_OK && r.nv == 3);
    mmnc_int i = word_id(&r, "alone");
    CHECK(i >= 0 && r.A && r.A->rowptr[i] == r.A->rowptr[i + 1]);
    res_free(&r);
}

static void test_errors(void)
{
    mmnc_cooc_opts o = opts(2, 1, 1);
    const char *good = test_tmpfile("a b c\n", ".txt");
    const char *missing = "/nonexistent/dir/mmnc_no_such_file.txt";
    const char *paths[2] = {good, missing};
    res r = run_paths(paths, 2, &o);
    CHECK(r.status == MMNC_EIO && r.err.code == MMNC_EIO && r.A == NULL && r.vocab == NULL);
    CHECK(strstr(r.err.msg, missing) != NULL);
    res_free(&r);

    r = run_paths(paths, 0, &o);
    CHECK(r.status == MMNC_EINVAL);
    res_free(&r);
    const char *nullpath[1] = {NULL};
    r = run_paths(nullpath, 1, &o);
    CHECK(r.status == MMNC_EINVAL);
    res_free(&r);

    mmnc_cooc_opts bad = o;
    bad.window = 0;
    r = run_paths(paths, 1, &bad);
    CHECK(r.status == MMNC_EINVAL && strstr(r.err.msg, "window") != NULL);
    res_free(&r);
    bad = o;
    bad.weighting = 2;
    r = run_paths(paths, 1, &bad);
    CHECK(r.status == MMNC_EINVAL);
    res_free(&r);
    bad = o;
    bad.min_count = 0;
    r = run_paths(paths, 1, &bad);
    CHECK(r.status == MMNC_EINVAL);
    res_free(&r);
    bad = o;
    bad.max_vocab = -1;
    r = run_paths(paths, 1, &bad);
    CHECK(r.status == MMNC_EINVAL);
    res_free(&r);
    bad = o;
    bad.threads = -1;
    r = run_paths(paths, 1, &bad);
    CHECK(r.status == MMNC_EINVAL);
    res_free(&r);
    mmnc_csr *A = NULL;
    CHECK(mmnc_cooc_build(paths, 1, NULL, &A, NULL, NULL, NULL, NULL) == MMNC_EINVAL);
    CHECK(mmnc_cooc_build(paths, 1, &o, NULL, NULL, NULL, NULL, NULL) == MMNC_EINVAL);

    /* vocab, nvocab and ntokens may be NULL */
    CHECK(mmnc_cooc_build(paths, 1, &o, &A, NULL, NULL, NULL, NULL) == MMNC_OK);
    CHECK(A && A->nrows == 3);
    mmnc_csr_free(A);
    remove(good);
}

/* ---- generated corpus: reference counts, gzip, threads ---------------------- */

#define GEN_WORDS 60

typedef struct gen {
    char *text;
    size_t len, cap;
    int *seq; /* word index, -1 for a break */
    size_t nseq, seqcap;
    long count[GEN_WORDS];
} gen;

static void gen_put(gen *g, const char *s)
{
    size_t n = strlen(s);
    if (g->len + n + 1 > g->cap) {
        g->cap = 2 * (g->len + n + 1);
        g->text = realloc(g->text, g->cap);
    }
    memcpy(g->text + g->len, s, n + 1);
    g->len += n;
}

static void gen_seq(gen *g, int v)
{
    if (v < 0 && g->nseq && g->seq[g->nseq - 1] < 0) return;
    if (g->nseq == g->seqcap) {
        g->seqcap = g->seqcap ? 2 * g->seqcap : 1024;
        g->seq = realloc(g->seq, g->seqcap * sizeof(int));
    }
    g->seq[g->nseq++] = v;
}

static void gen_name(int w, char *buf)
{
    /* distinct words of various lengths, some with an inner apostrophe */
    static const char *syl[] = {"ka", "lo", "mir", "te", "su", "ven", "da", "ro"};
    int n = 1 + w % 3;
    buf[0] = 0;
    for (int i = 0, x = w; i < n; i++, x /= 8) strcat(buf, syl[x % 8]);
    if (w % 7 == 3) strcat(buf, "'s");
    char num[16];
    snprintf(num, sizeof num, "%d", w / 24);
    strcat(buf, num);
}

/* About `bytes` of text: words drawn with a skewed distribution, sentences
 * of 3-30 words, lines of ~70 characters, paragraphs of 1-6 sentences. */
static void gen_corpus(gen *g, size_t bytes, unsigned seed)
{
    uint64_t x = seed;
    size_t col = 0;
    memset(g, 0, sizeof *g);
    while (g->len < bytes) {
        int nsent = 1 + (int)((x = x * 6364136223846793005ULL + 1442695040888963407ULL) >> 61) % 6;
        for (int s = 0; s < nsent; s++) {
            int nw = 3 + (int)((x = x * 6364136223846793005ULL + 1442695040888963407ULL) >> 40) % 28;
            for (int i = 0; i < nw; i++) {
                x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                double u = (double)(x >> 11) * 0x1.0p-53;
                /* words 0..49 frequent (>= 0.6%), 50..59 rare (0.02%) */
                int w = (x >> 4) % 500 == 0 ? 50 + (int)((x >> 8) % 10) : (int)(50 * u * u * u);
                char buf[64];
                gen_name(w, buf);
                if (i == 0 && buf[0] >= 'a') buf[0] = (char)(buf[0] - 32); /* capitalised */
                if (col > 70) {
                    gen_put(g, "\n");
                    col = 0;
                } else if (col > 0) {
                    gen_put(g, i == 0 ? "  " : ((x >> 20) % 9 == 0 ? ", " : " "));
                    col++;
                }
                gen_put(g, buf);
                col += strlen(buf);
                gen_seq(g, w);
                g->count[w]++;
            }
            gen_put(g, (x >> 30) % 5 == 0 ? "?" : ".");
            gen_seq(g, -1);
        }
        gen_put(g, "\n\n");
        col = 0;
    }
}

static void gen_free(gen *g)
{
    free(g->text);
    free(g->seq);
}

/* The reference: dense counts over the kept words, OOV removed first. */
static double *reference(const gen *g, int window, int harmonic, long min_count)
{
    double *C = calloc(GEN_WORDS * GEN_WORDS, sizeof(double));
    int *kept = malloc(g->nseq * sizeof(int));
    size_t n = 0;
    for (size_t i = 0; i < g->nseq; i++) {
        int v = g->seq[i];
        if (v >= 0 && g->count[v] < min_count) continue;
        if (v < 0 && n && kept[n - 1] < 0) continue;
        kept[n++] = v;
    }
    for (size_t i = 0; i < n; i++) {
        if (kept[i] < 0) continue;
        for (int d = 1; d <= window && (size_t)d <= i; d++) {
            int a = kept[i - (size_t)d];
            if (a < 0) break;
            double w = harmonic ? 1.0 / d : 1.0;
            C[a * GEN_WORDS + kept[i]] += w;
            C[kept[i] * GEN_WORDS + a] += w;
        }
    }
    free(kept);
    return C;
}

/* Recount the pairs of a token stream file (a line per segment) as r's
 * matrix should have them; the largest relative difference, or -1 when the
 * file has a word outside r's vocabulary, empty lines in a row, or does not
 * end with an empty line. */
static double recount_tokens(const char *path, const res *r, int window, int harmonic)
{
    FILE *fp = fopen(path, "rb");
    mmnc_int nv = r->nv, seg[4096];
    double *C = calloc((size_t)(nv * nv), sizeof(double)), maxdiff = 0.0;
    char line[1 << 16];
    int blank_run = 0, last_blank = 0;
    if (!fp || !C) return -1;
    while (fgets(line, sizeof line, fp)) {
        size_t n = 0;
        line[strcspn(line, "\n")] = 0;
        last_blank = line[0] == 0;
        blank_run = last_blank ? blank_run + 1 : 0;
        if (blank_run > 1) maxdiff = -1;
        for (char *w = strtok(line, " "); w && n < 4096; w = strtok(NULL, " ")) {
            mmnc_int id = word_id(r, w);
            if (id < 0) maxdiff = -1;
            else seg[n++] = id;
        }
        for (size_t i = 0; i < n; i++)
            for (int d = 1; d <= window && (size_t)d <= i; d++) {
                double u = harmonic ? 1.0 / d : 1.0;
                C[seg[i - d] * nv + seg[i]] += u;
                C[seg[i] * nv + seg[i - d]] += u;
            }
    }
    fclose(fp);
    if (!last_blank) maxdiff = -1;
    for (mmnc_int i = 0; i < nv && maxdiff >= 0; i++)
        for (mmnc_int j = 0; j < nv; j++) {
            double e = entry(r->A, i, j), ref = C[i * nv + j];
            double d = fabs(e - ref) / (ref > 1 ? ref : 1);
            if (d > maxdiff) maxdiff = d;
        }
    free(C);
    return maxdiff;
}

static int same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int ca, cb, same = fa && fb;
    while (same && ((ca = getc(fa)) != EOF) | ((cb = getc(fb)) != EOF)) same = ca == cb;
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

static int write_gz(const char *path, const char *data, size_t n)
{
    gzFile gz = gzopen(path, "wb6");
    if (!gz) return -1;
    int ok = gzwrite(gz, data, (unsigned)n) == (int)n;
    return gzclose(gz) == Z_OK && ok ? 0 : -1;
}

static void test_generated(void)
{
    gen g;
    gen_corpus(&g, 2600000, 12345); /* > 2 blocks of 1 MB for one thread */
    const char *plain = test_tmpfile(g.text, ".txt");
    char gzpath[300];
    snprintf(gzpath, sizeof gzpath, "%s.gz", plain);
    CHECK(write_gz(gzpath, g.text, g.len) == 0);

    for (int harmonic = 0; harmonic <= 1; harmonic++) {
        mmnc_cooc_opts o = opts(harmonic ? 7 : 3, harmonic, 1);
        o.min_count = 400; /* leaves some words out */
        o.threads = 1;
        res r1 = run_paths(&plain, 1, &o);
        CHECK(r1.status == MMNC_OK);
        if (r1.status != MMNC_OK) {
            fprintf(stderr, "  %s\n", r1.err.msg);
            continue;
        }
        mmnc_int nkept = 0;
        for (int w = 0; w < GEN_WORDS; w++) nkept += g.count[w] >= o.min_count;
        CHECK(r1.nv == nkept && r1.nv < GEN_WORDS && r1.nv > 10);
        CHECK(is_symmetric(r1.A) && mmnc_csr_check(r1.A, NULL) == MMNC_OK);

        /* against the reference */
        double *C = reference(&g, o.window, harmonic, o.min_count);
        double maxdiff = 0.0;
        int vocab_ok = 1;
        for (int w = 0; w < GEN_WORDS; w++) {
            char buf[64];
            gen_name(w, buf);
            mmnc_int i = word_id(&r1, buf);
            if ((i >= 0) != (g.count[w] >= o.min_count)) vocab_ok = 0;
            if (i < 0) continue;
            for (int v = 0; v < GEN_WORDS; v++) {
                char buf2[64];
                gen_name(v, buf2);
                mmnc_int j = word_id(&r1, buf2);
                if (j < 0) continue;
                double e = entry(r1.A, i, j), ref = C[w * GEN_WORDS + v];
                double d = fabs(e - ref) / (ref > 1 ? ref : 1);
                if (d > maxdiff) maxdiff = d;
            }
        }
        for (mmnc_int i = 1; i < r1.nv; i++) /* decreasing counts */
            for (int w = 0; w < GEN_WORDS; w++) {
                char buf[64];
                gen_name(w, buf);
                if (strcmp(buf, r1.vocab[i]) == 0)
                    for (int v = 0; v < GEN_WORDS; v++) {
                        char b2[64];
                        gen_name(v, b2);
                        if (strcmp(b2, r1.vocab[i - 1]) == 0 && g.count[v] < g.count[w])
                            vocab_ok = 0;
                    }
            }
        CHECK(vocab_ok);
        CHECK(maxdiff < 1e-9); /* the reference sums doubles */
        if (maxdiff >= 1e-9) fprintf(stderr, "  max relative difference %g\n", maxdiff);
        free(C);

        /* two threads through o.threads, and through omp_set_num_threads */
        o.threads = 2;
        res r2 = run_paths(&plain, 1, &o);
        CHECK(same_matrix(&r1, &r2));
        res_free(&r2);

        /* The token stream holds exactly the windows the matrix counted,
         * and is the same for any number of threads. */
        char tok1[320], tok2[320];
        snprintf(tok1, sizeof tok1, "%s.tok1", plain);
        snprintf(tok2, sizeof tok2, "%s.tok2", plain);
        o.tokens = tok2;
        r2 = run_paths(&plain, 1, &o);
        o.threads = 1;
        o.tokens = tok1;
        res_free(&r2);
        r2 = run_paths(&plain, 1, &o);
        CHECK(r2.status == MMNC_OK && same_matrix(&r1, &r2));
        double tdiff = recount_tokens(tok1, &r2, o.window, harmonic);
        CHECK(tdiff >= 0 && tdiff < 1e-9);
        CHECK(same_file(tok1, tok2));
        res_free(&r2);
        remove(tok1);
        remove(tok2);
        o.tokens = NULL;
        o.threads = 2;
#ifdef _OPENMP
        int saved = omp_get_max_threads();
        o.threads = 0;
        omp_set_num_threads(1);
        res s1 = run_paths(&plain, 1, &o);
        omp_set_num_threads(2);
        res s2 = run_paths(&plain, 1, &o);
        omp_set_num_threads(3);
        res s3 = run_paths(&plain, 1, &o);
        omp_set_num_threads(saved);
        CHECK(same_matrix(&r1, &s1) && same_matrix(&r1, &s2) && same_matrix(&r1, &s3));
        res_free(&s1);
        res_free(&s2);
        res_free(&s3);
#endif
        /* gzip input gives the same result */
        const char *gzp = gzpath;
        res rz = run_paths(&gzp, 1, &o);
        CHECK(rz.status == MMNC_OK && same_matrix(&r1, &rz) && rz.ntok == r1.ntok);
        res_free(&rz);
        res_free(&r1);
    }

    /* Corrupt and truncated gzip data are errors, never a partial result. */
    {
        FILE *fp = fopen(gzpath, "rb");
        long n = 0;
        char *z = NULL;
        if (fp) {
            fseek(fp, 0, SEEK_END);
            n = ftell(fp);
            fseek(fp, 0, SEEK_SET);
            z = malloc((size_t)n);
            if (fread(z, 1, (size_t)n, fp) != (size_t)n) n = 0;
            fclose(fp);
        }
        CHECK(n > 1000);
        if (n > 1000) {
            mmnc_cooc_opts o = opts(2, 1, 1);
            char bad[300];
            snprintf(bad, sizeof bad, "%s.bad.gz", plain);
            const char *bp = bad;
            /* truncated */
            fp = fopen(bad, "wb");
            fwrite(z, 1, (size_t)n / 2, fp);
            fclose(fp);
            res r = run_paths(&bp, 1, &o);
            CHECK(r.status == MMNC_EFORMAT && r.A == NULL && strstr(r.err.msg, bad) != NULL);
            res_free(&r);
            /* corrupted in the middle */
            for (long i = n / 2; i < n / 2 + 64; i++) z[i] ^= 0x5a;
            fp = fopen(bad, "wb");
            fwrite(z, 1, (size_t)n, fp);
            fclose(fp);
            r = run_paths(&bp, 1, &o);
            CHECK(r.status == MMNC_EFORMAT && r.A == NULL);
            res_free(&r);
            /* bad checksum at the end */
            for (long i = n / 2; i < n / 2 + 64; i++) z[i] ^= 0x5a;
            z[n - 6] ^= 1;
            fp = fopen(bad, "wb");
            fwrite(z, 1, (size_t)n, fp);
            fclose(fp);
            r = run_paths(&bp, 1, &o);
            CHECK(r.status == MMNC_EFORMAT && r.A == NULL);
            res_free(&r);
            remove(bad);
        }
        free(z);
    }
    remove(gzpath);
    remove(plain);
    gen_free(&g);
}

/* A text without a single space (one giant line of punctuation-joined
 * words) still splits across blocks and threads identically. */
static void test_no_spaces(void)
{
    size_t n = 3 * 1024 * 1024;
    char *t = malloc(n + 1);
    for (size_t i = 0; i < n; i++) t[i] = "ab,cd;ef,gh:"[i % 12];
    t[n] = 0;
    const char *p = test_tmpfile(t, ".txt");
    free(t);
    mmnc_cooc_opts o = opts(2, 1, 0);
    o.threads = 1;
    res r1 = run_paths(&p, 1, &o);
    o.threads = 2;
    res r2 = run_paths(&p, 1, &o);
    CHECK(r1.status == MMNC_OK && r1.nv == 4 && same_matrix(&r1, &r2));
    CHECK(r1.ntok == (mmnc_int)(n / 3));
    res_free(&r1);
    res_free(&r2);
    remove(p);
}

/* ---- bounded memory: sorted runs on a temporary file ---------------------------- */

/* About `bytes` of text over `nwords` words "q0", "q1", ... drawn with a
 * skewed law (word i about 1 / sqrt(i)): many distinct pairs. */
static char *spill_corpus(size_t bytes, int nwords, unsigned seed)
{
    char *t = malloc(bytes + 64);
    size_t n = 0, col = 0;
    uint64_t x = seed;
    while (n < bytes) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        double u = (double)(x >> 11) * 0x1.0p-53;
        int w = (int)(nwords * u * u);
        n += (size_t)sprintf(t + n, "%sq%d", col ? " " : "", w);
        col += 6;
        if ((x >> 20) % 17 == 0) t[n++] = '.'; /* sentence ends */
        if (col > 70) {
            t[n++] = (x >> 30) % 9 == 0 ? '\n' : ' '; /* and some blank lines */
            t[n++] = '\n';
            col = 0;
        }
    }
    t[n] = 0;
    return t;
}

/* Entries of a directory other than . and .., or -1. */
static int dir_entries(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    int n = 0;
    if (!d) return -1;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

typedef struct tmpdir_env {
    char dir[256];
    char *saved; /* TMPDIR as it was, or NULL */
} tmpdir_env;

/* Point TMPDIR at a fresh empty directory (tmpdir_pop restores it). */
static int tmpdir_push(tmpdir_env *e)
{
    const char *old = getenv("TMPDIR");
    e->saved = old ? strdup(old) : NULL;
    snprintf(e->dir, sizeof e->dir, "%s/mmnc_spill_XXXXXX", old && *old ? old : "/tmp");
    if (!mkdtemp(e->dir)) return -1;
    return setenv("TMPDIR", e->dir, 1);
}

static void tmpdir_pop(tmpdir_env *e)
{
    if (e->saved) setenv("TMPDIR", e->saved, 1);
    else unsetenv("TMPDIR");
    free(e->saved);
    rmdir(e->dir);
}

static res run_info(const char *path, const mmnc_cooc_opts *o, mmnc_cooc_info *info)
{
    res r;
    memset(&r, 0, sizeof r);
    r.status = mmnc_cooc_build_ex(&path, 1, o, &r.A, &r.vocab, &r.nv, info, &r.err);
    r.ntok = info->tokens;
    return r;
}

/* The same bits with a 64 KB limit (hundreds of runs, merged in groups) as
 * without, on 1 and 2 threads, flat and harmonic; the spill file is gone
 * afterwards; a full disk and a missing directory are clean errors. */
static void test_spill(void)
{
    char *text = spill_corpus(1500000, 3000, 777); /* > 1 MB: two blocks on one thread */
    const char *plain = test_tmpfile(text, ".txt");
    tmpdir_env env;
    free(text);
    CHECK(plain != NULL);
    if (!plain) return;
    CHECK(tmpdir_push(&env) == 0);

    for (int harmonic = 0; harmonic <= 1; harmonic++) {
        mmnc_cooc_opts o = opts(harmonic ? 7 : 3, harmonic, 1);
        mmnc_cooc_info info;
        o.min_count = 2;
        o.threads = 1;
        res ref = run_info(plain, &o, &info);
        CHECK(ref.status == MMNC_OK && info.runs == 0 && info.spilled_bytes == 0);
        if (ref.status != MMNC_OK) {
            fprintf(stderr, "  %s\n", ref.err.msg);
            continue;
        }
        /* enough distinct pairs for many runs of a 64 KB table */
        CHECK(ref.A->nnz > 200000 && ref.nv > 2000);
        for (int threads = 1; threads <= 2; threads++) {
            o.threads = threads;
            o.max_memory = 64 << 10;
            res r = run_info(plain, &o, &info);
            CHECK(r.status == MMNC_OK);
            if (r.status != MMNC_OK) fprintf(stderr, "  %s\n", r.err.msg);
            CHECK(same_matrix(&ref, &r) && r.ntok == ref.ntok);
            CHECK(mmnc_csr_check(r.A, NULL) == MMNC_OK);
            /* more runs than one merge takes: merges in groups happened,
             * and the bytes written exceed the runs' entries */
            CHECK(info.runs > 64);
            CHECK(info.spilled_bytes > (int64_t)ref.A->nnz / 2 * 16);
            CHECK(dir_entries(env.dir) == 0);
            res_free(&r);

            /* a limit the tables never reach: nothing spilled, same bits */
            o.max_memory = (size_t)1 << 30;
            r = run_info(plain, &o, &info);
            CHECK(r.status == MMNC_OK && info.runs == 0 && same_matrix(&ref, &r));
            res_free(&r);
            /* a middle limit: a few long runs, merged at once */
            o.max_memory = 4 << 20;
            r = run_info(plain, &o, &info);
            CHECK(r.status == MMNC_OK && info.runs > 1 && info.runs <= 64 && same_matrix(&ref, &r));
            res_free(&r);
            o.max_memory = 0;
        }
        res_free(&ref);
    }

    mmnc_cooc_opts o = opts(3, 1, 1);
    mmnc_cooc_info info;
    o.min_count = 2;
    o.max_memory = 64 << 10;

    /* below the smallest limit */
    o.max_memory = 65535;
    res r = run_info(plain, &o, &info);
    CHECK(r.status == MMNC_EINVAL && strstr(r.err.msg, "max_memory") != NULL && r.A == NULL);
    res_free(&r);
    o.max_memory = 64 << 10;

    /* A full disk (a file size limit: writes fail with EFBIG) is MMNC_EIO
     * naming the directory, with no result. */
    {
        struct rlimit old, lim;
        void (*oldsig)(int) = signal(SIGXFSZ, SIG_IGN);
        CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
        lim = old;
        lim.rlim_cur = 200000;
        int limited = setrlimit(RLIMIT_FSIZE, &lim) == 0;
        CHECK(limited);
        if (limited) {
            r = run_info(plain, &o, &info);
            setrlimit(RLIMIT_FSIZE, &old);
            CHECK(r.status == MMNC_EIO && r.A == NULL && r.vocab == NULL && info.runs == 0);
            CHECK(strstr(r.err.msg, env.dir) != NULL && strstr(r.err.msg, "write") != NULL);
            res_free(&r);
            CHECK(dir_entries(env.dir) == 0);
        }
        signal(SIGXFSZ, oldsig);
    }
    tmpdir_pop(&env);

    /* A temporary directory that does not exist. */
    {
        const char *old = getenv("TMPDIR");
        char *saved = old ? strdup(old) : NULL;
        setenv("TMPDIR", "/nonexistent/mmnc_no_such_dir", 1);
        r = run_info(plain, &o, &info);
        if (saved) setenv("TMPDIR", saved, 1);
        else unsetenv("TMPDIR");
        free(saved);
        CHECK(r.status == MMNC_EIO && r.A == NULL);
        CHECK(strstr(r.err.msg, "/nonexistent/mmnc_no_such_dir") != NULL);
        res_free(&r);
    }
    remove(plain);
}

#ifdef MMNC_FAULT_INJECTION
/* Every allocation of a build that spills, made to fail in turn. */
static void test_spill_fault_injection(void)
{
    char *text = spill_corpus(40000, 800, 99);
    const char *p = test_tmpfile(text, ".txt");
    mmnc_cooc_opts o = opts(4, 1, 1);
    mmnc_cooc_info info;
    int nomem = 0, other = 0;
    long k;
    free(text);
    o.threads = 1;
    o.max_memory = 64 << 10;
    res ref = run_info(p, &o, &info);
    CHECK(ref.status == MMNC_OK && info.runs > 1);
    for (k = 1; k < 100000; k++) {
        mmnc_i_fail_after(k);
        res r = run_info(p, &o, &info);
        mmnc_i_fail_after(0);
        if (r.status == MMNC_OK) {
            CHECK(same_matrix(&ref, &r));
            res_free(&r);
            break;
        }
        if (r.status == MMNC_ENOMEM && r.A == NULL && r.vocab == NULL) nomem++;
        else other++;
        res_free(&r);
    }
    CHECK(k > 10 && nomem == k - 1 && other == 0);
    res_free(&ref);
    remove(p);
}

static void test_fault_injection(void)
{
    mmnc_cooc_opts o = opts(3, 1, 1);
    const char *p = test_tmpfile("The cat sat on the mat.  The dog sat on the log.\n\n"
                                 "A cat and a dog.\n",
                                 ".txt");
    int nomem = 0, other = 0;
    long k;
    for (k = 1; k < 10000; k++) {
        mmnc_i_fail_after(k);
        res r = run_paths(&p, 1, &o);
        mmnc_i_fail_after(0);
        if (r.status == MMNC_OK) {
            CHECK(r.nv == 9);
            res_free(&r);
            break;
        }
        if (r.status == MMNC_ENOMEM && r.A == NULL && r.vocab == NULL) nomem++;
        else other++;
        res_free(&r);
    }
    CHECK(k > 10 && nomem == k - 1 && other == 0);
    remove(p);
}
#endif

/* The progress function hears each block of both passes (its number, the
 * tokens read in the pass so far) without changing the result; a nonzero
 * return stops the counting with MMNC_ECANCELED, nothing returned and no
 * token stream left behind. */
static void test_progress(void)
{
    gen g;
    gen_corpus(&g, 2600000, 4242); /* 3 blocks of 1 MB on one thread */
    const char *plain = test_tmpfile(g.text, ".txt");
    char tokpath[300];
    test_trace *t = calloc(1, sizeof(test_trace));
    mmnc_cooc_opts o = opts(5, 1, 1);
    int ok = 1, n1 = 0;
    o.threads = 1;
    CHECK(o.progress == NULL && o.progress_ctx == NULL);
    res ref = run_paths(&plain, 1, &o);
    o.progress = test_trace_record;
    o.progress_ctx = t;
    res r = run_paths(&plain, 1, &o);
    CHECK(ref.status == MMNC_OK && r.status == MMNC_OK);
    if (ref.status == MMNC_OK && r.status == MMNC_OK) {
        CHECK(r.nv == ref.nv && r.A->nnz == ref.A->nnz);
        CHECK(memcmp(r.A->val, ref.A->val, (size_t)ref.A->nnz * sizeof(double)) == 0);
        CHECK(memcmp(r.A->colind, ref.A->colind, (size_t)ref.A->nnz * sizeof(mmnc_int)) == 0);
    }
    for (int i = 0; i < t->n; i++) {
        n1 += t->restart[i] == 1;
        ok &= t->restart[i] == (i < n1 ? 1 : 2) && (i == 0 || i == n1 || t->obj[i] > t->obj[i - 1]);
    }
    CHECK(ok && n1 == 3 && t->n == 6);
    CHECK(t->n == 6 && t->obj[2] == (double)r.ntok && t->obj[5] == (double)r.ntok);
    res_free(&ref);
    res_free(&r);
    /* stopped at the first block of the second pass, while writing the token stream */
    snprintf(tokpath, sizeof tokpath, "%s.tokens", plain);
    o.tokens = tokpath;
    memset(t, 0, sizeof *t);
    t->stop_after = 4;
    r = run_paths(&plain, 1, &o);
    CHECK(r.status == MMNC_ECANCELED && r.A == NULL && r.vocab == NULL);
    CHECK(t->n == 4 && strstr(r.err.msg, "stopped") != NULL);
    CHECK(access(tokpath, F_OK) != 0);
    res_free(&r);
    free(t);
    remove(plain);
    gen_free(&g);
}

int main(void)
{
    test_defaults();
    test_small();
    test_breaks();
    test_tokens();
    test_vocab();
    test_errors();
    test_generated();
    test_no_spaces();
    test_spill();
    test_progress();
#ifdef MMNC_FAULT_INJECTION
    test_fault_injection();
    test_spill_fault_injection();
#endif
    return test_done();
}
