/*
 * test_docs.c -- document x term matrices (mmnc_docs_build): a directory
 * walked recursively in bytewise path order (hidden files skipped), one
 * document per file or per line, gzip input, counts, the column order, the
 * filters (stop words, min_count, min_df / max_df as counts and fractions,
 * max_vocab), empty documents kept or dropped, the English stop words, the
 * names of paths with line breaks, tabs or bytes that are not UTF-8
 * (escaped), the errors (each naming its file) and every out-of-memory exit.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/mmnc_i.h"
#include "testutil.h"

static char dir[256];

static const char *put(const char *rel, const char *text, int gz)
{
    static char bufs[16][512];
    static int next = 0;
    char *p = bufs[next++ % 16];
    snprintf(p, 512, "%s/%s", dir, rel);
    if (gz) {
        gzFile g = gzopen(p, "wb");
        gzwrite(g, text, (unsigned)strlen(text));
        gzclose(g);
    } else {
        FILE *fp = fopen(p, "wb");
        fwrite(text, 1, strlen(text), fp);
        fclose(fp);
    }
    return p;
}

/* A[i][term], by the term's name (0 if absent). */
static double count(const mmnc_data *d, mmnc_int i, const char *term)
{
    for (mmnc_int p = d->A->rowptr[i]; p < d->A->rowptr[i + 1]; p++)
        if (!strcmp(d->col_names[d->A->colind[p]], term)) return d->A->val[p];
    return 0.0;
}

static mmnc_int col(const mmnc_data *d, const char *term)
{
    for (mmnc_int j = 0; j < d->A->ncols; j++)
        if (!strcmp(d->col_names[j], term)) return j;
    return -1;
}

static int ends(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

static void test_files(void)
{
    const char *paths[1] = {dir};
    mmnc_docs_opts o;
    mmnc_docs_info info;
    mmnc_data *d = NULL;
    mmnc_err e;

    mmnc_docs_opts_default(&o);
    CHECK_OK(mmnc_docs_build(paths, 1, &o, &d, &info, &e));
    if (!d) return;
    /* files in bytewise path order, subdirectory included, .hidden skipped */
    CHECK(d->A->nrows == 4 && info.files == 4 && info.docs == 4);
    CHECK(ends(d->row_names[0], "/a.txt") && ends(d->row_names[1], "/b.txt") &&
          ends(d->row_names[2], "/sub/c.txt") && ends(d->row_names[3], "/sub/d.txt.gz"));
    CHECK(count(d, 0, "the") == 2 && count(d, 0, "cat") == 1 && count(d, 0, "cats") == 1);
    CHECK(count(d, 1, "dog") == 2 && count(d, 1, "don't") == 1 && count(d, 3, "market") == 2);
    CHECK(col(d, "hidden") < 0);
    /* columns: decreasing count, ties by decreasing document frequency, then bytes */
    CHECK(col(d, "the") == 0 && col(d, "stocks") == 1);
    for (mmnc_int j = 1; j < d->A->ncols; j++) {
        double a = 0, b = 0;
        for (mmnc_int i = 0; i < d->A->nrows; i++) a += count(d, i, d->col_names[j - 1]), b += count(d, i, d->col_names[j]);
        CHECK(a >= b);
    }
    CHECK(info.tokens == 28 && info.stopped == 0 && info.terms == info.terms_seen && info.empty == 0);
    CHECK(mmnc_csr_check(d->A, &e) == MMNC_OK);
    mmnc_data_free(d);

    /* stop words, min_df 2 (count), max_df 0.5 (fraction of 4: at most 2) */
    o.stop_words = mmnc_stop_words_english();
    o.min_df = 2;
    o.max_df = 0.5;
    d = NULL;
    CHECK_OK(mmnc_docs_build(paths, 1, &o, &d, &info, &e));
    if (d) {
        /* "the" (stop), singletons (df 1) gone; cats (a, b), stocks (c, d) kept */
        CHECK(col(d, "the") < 0 && col(d, "cats") >= 0 && col(d, "stocks") >= 0 && col(d, "mat") < 0);
        CHECK(info.stopped > 0 && info.terms == d->A->ncols && d->A->nrows == 4);
        for (mmnc_int j = 0; j < d->A->ncols; j++) {
            int df = 0;
            for (mmnc_int i = 0; i < 4; i++) df += count(d, i, d->col_names[j]) > 0;
            CHECK(df == 2);
        }
    }
    mmnc_data_free(d);
    /* a fraction for min_df: 0.6 of 4 documents is 3; none qualifies */
    o.stop_words = NULL;
    o.min_df = 0.6;
    o.max_df = 1;
    d = NULL;
    CHECK(mmnc_docs_build(paths, 1, &o, &d, &info, &e) == MMNC_OK && d && col(d, "the") >= 0 && d->A->ncols == 1);
    mmnc_data_free(d);
    /* max_df as a count, max_vocab, min_count */
    o.min_df = 1;
    o.max_df = 2;
    o.max_vocab = 3;
    o.min_count = 2;
    d = NULL;
    CHECK(mmnc_docs_build(paths, 1, &o, &d, &info, &e) == MMNC_OK && d && d->A->ncols == 3 && col(d, "stocks") == 0);
    mmnc_data_free(d);
}

static void test_lines(void)
{
    const char *f = put("lines.txt", "Alpha beta\n\n  \nbeta gamma\n!!!\ngamma", 0);
    const char *paths[1] = {f};
    char want[600];
    mmnc_docs_opts o;
    mmnc_docs_info info;
    mmnc_data *d = NULL;
    mmnc_err e;

    mmnc_docs_opts_default(&o);
    o.lines = 1;
    CHECK_OK(mmnc_docs_build(paths, 1, &o, &d, &info, &e));
    if (d) {
        /* blank lines are not documents, but count; "!!!" is an empty document, kept */
        CHECK(d->A->nrows == 4 && info.docs == 4 && info.empty == 1);
        snprintf(want, sizeof want, "%s:4", f);
        CHECK(!strcmp(d->row_names[1], want));
        snprintf(want, sizeof want, "%s:6", f);
        CHECK(!strcmp(d->row_names[3], want) && count(d, 3, "gamma") == 1);
        CHECK(d->A->rowptr[3] == d->A->rowptr[2]); /* line 5: empty row */
    }
    mmnc_data_free(d);
    o.drop_empty = 1;
    d = NULL;
    CHECK_OK(mmnc_docs_build(paths, 1, &o, &d, &info, &e));
    CHECK(d && d->A->nrows == 3 && info.empty == 1 && info.docs == 4);
    mmnc_data_free(d);
}

/* Names from paths with a line break, a tab, a backslash, a control byte
 * and bytes that are not UTF-8: escaped, one line and one field of valid
 * UTF-8 each; valid UTF-8 kept as it is. */
static void test_names(void)
{
    static const char *const file[] = {"b\nx.txt", "c\tt.txt", "d\xe9.txt", "e\\f.txt", "f\xc3\xa9.txt",
                                       "g\xed\xa0\x80.txt", "h\x01\x7f.txt"};
    static const char *const name[] = {"b\\nx.txt", "c\\tt.txt", "d\\xe9.txt", "e\\\\f.txt", "f\xc3\xa9.txt",
                                       "g\\xed\\xa0\\x80.txt", "h\\x01\\x7f.txt"};
    char sub[300], rel[64], one[400], want[400];
    const char *paths[1] = {sub};
    mmnc_docs_opts o;
    mmnc_data *d = NULL;
    mmnc_err e;
    snprintf(sub, sizeof sub, "%s/names", dir);
    mkdir(sub, 0700);
    for (int i = 0; i < 7; i++) {
        snprintf(rel, sizeof rel, "names/%s", file[i]);
        put(rel, "alpha beta\n", 0);
    }
    mmnc_docs_opts_default(&o);
    CHECK_OK(mmnc_docs_build(paths, 1, &o, &d, NULL, &e));
    CHECK(d && d->A->nrows == 7);
    for (int i = 0; d && i < 7; i++) {
        snprintf(want, sizeof want, "%s/%s", sub, name[i]);
        CHECK(!strcmp(d->row_names[i], want));
    }
    mmnc_data_free(d);
    /* per line: the escaped path, then ":N" */
    o.lines = 1;
    snprintf(one, sizeof one, "%s/%s", sub, file[1]);
    paths[0] = one;
    d = NULL;
    CHECK_OK(mmnc_docs_build(paths, 1, &o, &d, NULL, &e));
    snprintf(want, sizeof want, "%s/%s:1", sub, name[1]);
    CHECK(d && d->A->nrows == 1 && !strcmp(d->row_names[0], want));
    mmnc_data_free(d);
}

static void test_stop_words(void)
{
    const char *const *w = mmnc_stop_words_english();
    int n = 0, sorted = 1;
    for (; w[n]; n++)
        if (n > 0 && strcmp(w[n - 1], w[n]) >= 0) sorted = 0;
    CHECK(n >= 280 && n <= 400 && sorted);
}

static void one_token(void *ctx, const char *w, size_t n)
{
    char *buf = ctx;
    if (!w) return;
    if (buf[0]) strcpy(buf, "#many");
    else if (n < 63) memcpy(buf, w, n), buf[n] = '\0';
}

/* Each stop word is one token of the tokenizer, itself (so it can stop something). */
static void test_stop_tokens(void)
{
    const char *const *w = mmnc_stop_words_english();
    int bad = 0;
    for (int i = 0; w[i]; i++) {
        char buf[64] = "";
        mmnc_tokenize(w[i], strlen(w[i]), 0, one_token, buf);
        bad += strcmp(buf, w[i]) != 0;
    }
    CHECK(bad == 0);
}

/* A stop-word file: one word a line; blank lines and '#' lines skipped (a
 * list as found in the wild), CRLF and blanks around a word alike; the
 * words stop what the same words in the text would. */
static const char stop_list[] = "# English, short\r\n\r\nthe\r\n  and \r\n\t\n   # indented note\ndon't\n\n";

static int build_with_file(void *ctx, mmnc_data **out, mmnc_err *err)
{
    const char *paths[1] = {dir};
    mmnc_docs_opts o;
    mmnc_int n = 0;
    char **w = NULL;
    int st;
    *out = NULL;
    if ((st = mmnc_stop_words_read(ctx, &n, &w, err)) != MMNC_OK) return st;
    mmnc_docs_opts_default(&o);
    o.stop_words = (const char *const *)w;
    st = mmnc_docs_build(paths, 1, &o, out, NULL, err);
    mmnc_names_free(n, w);
    return st;
}

static void test_stop_words_read(void)
{
    const char *f = test_tmpfile(stop_list, ".txt");
    mmnc_int n = -1;
    char **w = NULL;
    mmnc_data *d = NULL;
    mmnc_err e;
    long bad = 0;

    CHECK(mmnc_stop_words_read(f, &n, &w, &e) == MMNC_OK && n == 3);
    if (w && n == 3)
        CHECK(!strcmp(w[0], "the") && !strcmp(w[1], "and") && !strcmp(w[2], "don't") && w[3] == NULL);
    mmnc_names_free(n, w);
    CHECK(build_with_file((void *)f, &d, &e) == MMNC_OK && d);
    if (d) CHECK(col(d, "the") < 0 && col(d, "and") < 0 && col(d, "don't") < 0 && col(d, "cat") >= 0 &&
                 col(d, "english") < 0 && col(d, "indented") < 0 && col(d, "note") < 0 && col(d, "short") < 0);
    mmnc_data_free(d);
    /* gzip, no final newline (the file leaves dir at once: it is no document) */
    w = NULL;
    f = put("stop.txt.gz", "a\n\n#x\nthe", 1);
    CHECK(mmnc_stop_words_read(f, &n, &w, &e) == MMNC_OK && n == 2 && w && !strcmp(w[1], "the"));
    mmnc_names_free(n, w);
    unlink(f);
    /* nothing but blank and comment lines, a NUL byte: refused, naming the file */
    w = NULL;
    f = test_tmpfile("\n# only a note\n  \n", ".txt");
    CHECK(mmnc_stop_words_read(f, &n, &w, &e) == MMNC_EFORMAT && strstr(e.msg, f) &&
          strstr(e.msg, "no stop words found") && !w && n == 0);
    f = test_tmpfile("the\n", ".txt");
    {
        FILE *fp = fopen(f, "ab");
        fwrite("a\0b\n", 1, 4, fp);
        fclose(fp);
    }
    CHECK(mmnc_stop_words_read(f, &n, &w, &e) == MMNC_EFORMAT && strstr(e.msg, ": NUL byte") && !w);
    CHECK(mmnc_stop_words_read(NULL, &n, &w, &e) == MMNC_EINVAL);
    f = test_tmpfile(stop_list, ".txt");
    CHECK(test_each_alloc_failure(build_with_file, (void *)f, &bad) > 3 && bad == 0);
}

static void test_errors(void)
{
    char nul[600], emptydir[600];
    const char *f = put("bin.txt", "", 0);
    const char *paths[2];
    mmnc_docs_opts o;
    mmnc_data *d = NULL;
    mmnc_err e;
    FILE *fp = fopen(f, "wb");
    fwrite("ab\0cd", 1, 5, fp);
    fclose(fp);

    mmnc_docs_opts_default(&o);
    paths[0] = f;
    CHECK(mmnc_docs_build(paths, 1, &o, &d, NULL, &e) == MMNC_EFORMAT && !d);
    snprintf(nul, sizeof nul, "%s: NUL byte at offset 2", f);
    CHECK(strstr(e.msg, nul) != NULL);
    unlink(f);
    snprintf(nul, sizeof nul, "%s/missing.txt", dir);
    paths[0] = nul;
    CHECK(mmnc_docs_build(paths, 1, &o, &d, NULL, &e) == MMNC_EIO && strstr(e.msg, nul));
    snprintf(emptydir, sizeof emptydir, "%s/empty", dir);
    mkdir(emptydir, 0700);
    paths[0] = emptydir;
    CHECK(mmnc_docs_build(paths, 1, &o, &d, NULL, &e) == MMNC_EINVAL && strstr(e.msg, "no files"));
    rmdir(emptydir);
    paths[0] = put("punct.txt", "!!! ...\n", 0);
    CHECK(mmnc_docs_build(paths, 1, &o, &d, NULL, &e) == MMNC_EINVAL && strstr(e.msg, "no term left"));
    o.lines = 1;
    paths[0] = put("blank.txt", "\n  \n", 0);
    CHECK(mmnc_docs_build(paths, 1, &o, &d, NULL, &e) == MMNC_EINVAL && strstr(e.msg, "no documents"));
    o.lines = 0;
    o.min_df = 1.5;
    CHECK(mmnc_docs_build(paths, 1, &o, &d, NULL, &e) == MMNC_EINVAL && strstr(e.msg, "min_df"));
    o.min_df = 1;
    o.max_df = 0;
    CHECK(mmnc_docs_build(paths, 1, &o, &d, NULL, &e) == MMNC_EINVAL && strstr(e.msg, "max_df"));
    CHECK(mmnc_docs_build(paths, 0, NULL, &d, NULL, &e) == MMNC_EINVAL);
    CHECK(d == NULL);
}

static int build_dir(void *ctx, mmnc_data **out, mmnc_err *err)
{
    const char *paths[1] = {dir};
    return mmnc_docs_build(paths, 1, ctx, out, NULL, err);
}

static void test_alloc_failures(void)
{
    mmnc_docs_opts o;
    long bad = 0, failures;
    mmnc_docs_opts_default(&o);
    o.stop_words = mmnc_stop_words_english();
    failures = test_each_alloc_failure(build_dir, &o, &bad);
    CHECK(bad == 0 && failures > 10);
}

int main(void)
{
    char sub[300];
    const char *t = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/mmnc_docs_XXXXXX", t);
    if (!mkdtemp(dir)) return 1;
    snprintf(sub, sizeof sub, "%s/sub", dir);
    mkdir(sub, 0700);
    put("b.txt", "Dogs chase cats; the dog barks. A dog! Don't.\n", 0);
    put("a.txt", "The cat sat on the mat. Cats and dogs!\n", 0);
    put("sub/c.txt", "Stocks fell; markets and stocks.\n", 0);
    put("sub/d.txt.gz", "Market stocks rose, the market.\n", 1);
    put(".hidden", "hidden words\n", 0);
    test_files();
    test_alloc_failures();
    test_stop_words();
    test_stop_tokens();
    test_stop_words_read();
    test_lines();
    test_errors();
    test_names(); /* last: it adds files to dir */
    {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    }
    return test_done();
}
