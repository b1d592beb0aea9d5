/*
 * docs.c -- document x term count matrices from text (mmnc_docs_build):
 * the files of the paths given (directories walked recursively, files in
 * bytewise order of their paths), one document per file or per line,
 * tokenised by mmnc_tokenize (cooc.c), stop words removed, terms filtered
 * by count and document frequency.  Also the built-in English stop words
 * and the reader of stop-word files.
 *
 * One pass over the documents on one thread: each document's term ids are
 * sorted and run-length counted into (document, term, count) triplets,
 * and the document frequency of a term is the number of its triplets.  The
 * result depends only on the bytes read and the options.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/lines_i.h"

/* ------------------------------------------------------------------------ */
/* English stop words                                                        */
/* ------------------------------------------------------------------------ */

/* Written for mmnc: English function words (articles, pronouns and their
 * forms, auxiliary and modal verbs, prepositions, conjunctions, quantifiers,
 * common adverbs) and their contractions as the tokenizer stores them, in
 * bytewise order. */
static const char *const english[] = {
    "a", "about", "above", "across", "after", "afterwards", "again", "against", "ago", "all",
    "almost", "alone", "along", "already", "also", "although", "always", "am", "among", "amongst",
    "an", "and", "another", "any", "anybody", "anyhow", "anyone", "anything", "anyway", "anywhere",
    "are", "aren't", "around", "as", "at", "away", "be", "became", "because", "become", "becomes",
    "becoming", "been", "before", "beforehand", "behind", "being", "below", "beside", "besides",
    "between", "beyond", "both", "but", "by", "can", "can't", "cannot", "could", "couldn't", "did",
    "didn't", "do", "does", "doesn't", "doing", "don't", "done", "down", "during", "each", "either",
    "else", "elsewhere", "enough", "etc", "even", "ever", "every", "everybody", "everyone",
    "everything", "everywhere", "except", "few", "for", "former", "formerly", "from", "further",
    "had", "hadn't", "has", "hasn't", "have", "haven't", "having", "he", "he'd", "he'll", "he's",
    "hence", "her", "here", "here's", "hereafter", "hereby", "herein", "hers", "herself", "him",
    "himself", "his", "how", "how's", "however", "i", "i'd", "i'll", "i'm", "i've", "ie", "if",
    "in", "indeed", "instead", "into", "is", "isn't", "it", "it's", "its", "itself", "just",
    "last", "latter", "least", "less", "let's", "like", "many", "may", "maybe", "me", "meanwhile",
    "might", "mine", "more", "moreover", "most", "mostly", "much", "must", "mustn't", "my",
    "myself", "namely", "neither", "never", "nevertheless", "next", "no", "nobody", "none",
    "noone", "nor", "not", "nothing", "now", "nowhere", "of", "off", "often", "on", "once", "one",
    "only", "onto", "or", "other", "others", "otherwise", "ought", "our", "ours", "ourselves",
    "out", "over", "own", "per", "perhaps", "quite", "rather", "really", "same", "seem", "seemed",
    "seeming", "seems", "several", "shall", "shan't", "she", "she'd", "she'll", "she's", "should",
    "shouldn't", "since", "so", "some", "somebody", "somehow", "someone", "something",
    "sometimes", "somewhere", "still", "such", "than", "that", "that's", "the", "their",
    "theirs", "them", "themselves", "then", "thence", "there", "there's", "thereafter",
    "thereby", "therefore", "therein", "these", "they", "they'd", "they'll", "they're",
    "they've", "this", "those", "though", "through", "throughout", "thus", "to", "together",
    "too", "toward", "towards", "under", "unless", "until", "unto", "up", "upon", "us", "very",
    "via", "was", "wasn't", "we", "we'd", "we'll", "we're", "we've", "well", "were", "weren't",
    "what", "what's", "whatever", "when", "when's", "whence", "whenever", "where", "where's",
    "whereas", "whereby", "wherein", "whereupon", "wherever", "whether", "which", "while",
    "whither", "who", "who's", "whoever", "whole", "whom", "whose", "why", "why's", "will",
    "with", "within", "without", "won't", "would", "wouldn't", "yet", "you", "you'd", "you'll",
    "you're", "you've", "your", "yours", "yourself", "yourselves", NULL};

const char *const *mmnc_stop_words_english(void) { return english; }

int mmnc_stop_words_read(const char *path, mmnc_int *n, char ***out, mmnc_err *err)
{
    int status = MMNC_OK;
    mmnc_i_lreader r;
    char **words = NULL, *s;
    mmnc_int cnt = 0, cap = 0;
    size_t len;

    memset(&r, 0, sizeof r);
    if (!path || !n || !out) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_stop_words_read: NULL argument");
    *n = 0;
    *out = NULL;
    if ((status = mmnc_i_lr_open(&r, path, err)) != MMNC_OK) goto cleanup;
    for (;;) {
        const char *b, *e;
        if ((status = mmnc_i_lr_next(&r, &s, &len, err)) != MMNC_OK) goto cleanup;
        if (!s) break;
        /* no token starts with '#' (mmnc_tokenize), so such a line is a note */
        b = mmnc_i_skip_ws(s);
        if (!*b || *b == '#') continue;
        for (e = s + len; MMNC_I_IS_WS(e[-1]); e--) {}
        if (cnt + 1 >= cap) { /* room for the NULL after the last word */
            mmnc_int nc = cap ? 2 * cap : 256;
            char **nw = mmnc_i_realloc(words, (size_t)nc, sizeof(char *));
            if (!nw) {
                status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
                goto cleanup;
            }
            words = nw;
            cap = nc;
        }
        if (!(words[cnt] = mmnc_i_malloc((size_t)(e - b) + 1, 1))) {
            status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
            goto cleanup;
        }
        memcpy(words[cnt], b, (size_t)(e - b));
        words[cnt][e - b] = '\0';
        words[++cnt] = NULL;
    }
    if (cnt == 0) {
        status = mmnc_i_err(err, MMNC_EFORMAT, "%s: no stop words found (every line is blank or a '#' comment)", path);
        goto cleanup;
    }
    *n = cnt;
    *out = words;
    words = NULL;

cleanup:
    mmnc_i_lr_close(&r);
    if (words) {
        for (mmnc_int i = 0; i < cnt; i++) mmnc_i_free(words[i]);
        mmnc_i_free(words);
    }
    return status;
}

void mmnc_docs_opts_default(mmnc_docs_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->min_df = MMNC_DEFAULT_DOCS_MIN_DF;
    o->max_df = MMNC_DEFAULT_DOCS_MAX_DF;
    o->min_count = MMNC_DEFAULT_DOCS_MIN_COUNT;
    o->max_vocab = MMNC_DEFAULT_DOCS_MAX_VOCAB;
}

/* ------------------------------------------------------------------------ */
/* The files: paths given, directories walked                                */
/* ------------------------------------------------------------------------ */

typedef struct plist {
    char **p;
    size_t n, cap;
} plist;

static void plist_free(plist *l)
{
    for (size_t i = 0; i < l->n; i++) mmnc_i_free(l->p[i]);
    mmnc_i_free(l->p);
    memset(l, 0, sizeof *l);
}

/* Append the path a + "/" + b (b NULL: a alone); takes nothing. */
static int plist_add(plist *l, const char *a, const char *b, mmnc_err *err)
{
    size_t na = strlen(a), nb = b ? strlen(b) : 0, slash = b && na && a[na - 1] != '/';
    char *s;
    if (l->n == l->cap) {
        size_t nc = l->cap ? 2 * l->cap : 64;
        char **np = mmnc_i_realloc(l->p, nc, sizeof *np);
        if (!np) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory (%zu paths)", nc);
        l->p = np;
        l->cap = nc;
    }
    if (!(s = mmnc_i_malloc(na + slash + nb + 1, 1))) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    memcpy(s, a, na);
    if (slash) s[na] = '/';
    if (b) memcpy(s + na + slash, b, nb);
    s[na + slash + nb] = '\0';
    l->p[l->n++] = s;
    return MMNC_OK;
}

static int path_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The regular files below directory dir, appended to l (unsorted).  depth
 * bounds the recursion (a file system can nest deeper than a stack). */
static int walk(const char *dir, int depth, plist *l, mmnc_err *err)
{
    DIR *dp;
    struct dirent *de;
    plist sub = {0};
    int status = MMNC_OK;
    if (depth > 256) return mmnc_i_err(err, MMNC_EINVAL, "%s: directories nested more than 256 deep", dir);
    if (!(dp = opendir(dir))) return mmnc_i_err(err, MMNC_EIO, "%s: cannot open directory: %s", dir, strerror(errno));
    for (;;) {
        struct stat st;
        errno = 0;
        if (!(de = readdir(dp))) {
            if (errno) status = mmnc_i_err(err, MMNC_EIO, "%s: cannot read directory: %s", dir, strerror(errno));
            break;
        }
        if (de->d_name[0] == '.') continue; /* ".", "..", hidden files */
        if ((status = plist_add(&sub, dir, de->d_name, err)) != MMNC_OK) break;
        if (lstat(sub.p[sub.n - 1], &st) != 0) {
            status = mmnc_i_err(err, MMNC_EIO, "%s: %s", sub.p[sub.n - 1], strerror(errno));
            break;
        }
        if (S_ISDIR(st.st_mode)) {
            status = walk(sub.p[sub.n - 1], depth + 1, l, err);
        } else if (S_ISLNK(st.st_mode) && stat(sub.p[sub.n - 1], &st) == 0 && S_ISREG(st.st_mode)) {
            status = plist_add(l, sub.p[sub.n - 1], NULL, err); /* a link to a file; not to a directory */
        } else if (S_ISREG(st.st_mode)) {
            status = plist_add(l, sub.p[sub.n - 1], NULL, err);
        }
        if (status) break;
    }
    closedir(dp);
    plist_free(&sub);
    return status;
}

/* The files of paths[], in order; each directory's files sorted. */
static int collect(const char *const *paths, int npaths, plist *files, mmnc_err *err)
{
    for (int i = 0; i < npaths; i++) {
        struct stat st;
        size_t first = files->n;
        int status;
        if (strcmp(paths[i], "-") == 0 || stat(paths[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
            /* a file, standard input, or a path mmnc_file_read_all will name in its error */
            if ((status = plist_add(files, paths[i], NULL, err)) != MMNC_OK) return status;
            continue;
        }
        if ((status = walk(paths[i], 0, files, err)) != MMNC_OK) return status;
        if (files->n == first)
            return mmnc_i_err(err, MMNC_EINVAL, "%s: no files in this directory (names starting with '.' are skipped)",
                              paths[i]);
        qsort(files->p + first, files->n - first, sizeof *files->p, path_cmp);
    }
    return MMNC_OK;
}

/* ------------------------------------------------------------------------ */
/* Counting                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct counter {
    mmnc_i_keymap stop, terms;
    mmnc_int *count, *df; /* per term */
    mmnc_int tcap;
    mmnc_int *ids;        /* the current document's term ids */
    size_t nids, idcap;
    mmnc_int *tdoc, *tterm, *tcnt; /* (document, term, count) triplets */
    size_t nt, tcap3;
    char **docs;          /* names */
    mmnc_int ndocs, dcap;
    mmnc_docs_info info;
    int status;
    mmnc_err *err;
} counter;

/* mmnc_tokenize's callback for a stop-word list: each word into the stop map. */
static void on_stop(void *ctx, const char *w, size_t n)
{
    counter *c = ctx;
    mmnc_int id;
    if (w && c->status == MMNC_OK) c->status = mmnc_i_keymap_get(&c->stop, w, n, &id, c->err);
}

/* mmnc_tokenize's callback for a document: a token that is not a stop word
 * gets its term id, counted and appended to the document's ids. */
static void on_token(void *ctx, const char *w, size_t n)
{
    counter *c = ctx;
    mmnc_int id;
    if (!w || c->status) return; /* breaks do not matter in a bag of words */
    c->info.tokens++;
    if (c->stop.n && mmnc_i_keymap_find(&c->stop, w, n) >= 0) {
        c->info.stopped++;
        return;
    }
    if ((c->status = mmnc_i_keymap_get(&c->terms, w, n, &id, c->err)) != MMNC_OK) return;
    if (id >= c->tcap) {
        mmnc_int nc = c->tcap ? 2 * c->tcap : 1024;
        mmnc_int *a = mmnc_i_realloc(c->count, (size_t)nc, sizeof *a), *b;
        if (a) c->count = a;
        b = a ? mmnc_i_realloc(c->df, (size_t)nc, sizeof *b) : NULL;
        if (!b) {
            c->status = mmnc_i_err(c->err, MMNC_ENOMEM, "out of memory (%lld terms)", (long long)nc);
            return;
        }
        c->df = b;
        memset(c->count + c->tcap, 0, (size_t)(nc - c->tcap) * sizeof *a);
        memset(c->df + c->tcap, 0, (size_t)(nc - c->tcap) * sizeof *b);
        c->tcap = nc;
    }
    if (c->nids == c->idcap) {
        size_t nc = c->idcap ? 2 * c->idcap : 4096;
        mmnc_int *a = mmnc_i_realloc(c->ids, nc, sizeof *a);
        if (!a) {
            c->status = mmnc_i_err(c->err, MMNC_ENOMEM, "out of memory (%zu tokens in a document)", nc);
            return;
        }
        c->ids = a;
        c->idcap = nc;
    }
    c->ids[c->nids++] = id;
    c->count[id]++;
}

static int id_cmp(const void *a, const void *b)
{
    mmnc_int x = *(const mmnc_int *)a, y = *(const mmnc_int *)b;
    return (x > y) - (x < y);
}

/* The length of the valid UTF-8 character at s[0..n) (ASCII included), or
 * 0 for a byte that does not start one: the ranges of RFC 3629, so no
 * overlong form, surrogate or code point above U+10FFFF passes. */
static size_t utf8_char(const unsigned char *s, size_t n)
{
    unsigned c = s[0], lo = 0x80, hi = 0xBF;
    size_t k;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) k = 1;
    else if (c >= 0xE0 && c <= 0xEF) k = 2, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4) k = 3, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    else return 0;
    if (k >= n || s[1] < lo || s[1] > hi) return 0;
    for (size_t j = 2; j <= k; j++)
        if ((s[j] & 0xC0) != 0x80) return 0;
    return k + 1;
}

/* A path as a document's name (mmnc.h, mmnc_docs_build): one line and one
 * field of valid UTF-8, from which printf '%b' gives the path back.
 * Returns its length; writes it to out (NULL: only counts). */
static size_t escape_name(const char *path, size_t n, char *out)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)path;
    size_t i = 0, k = 0, len;
    while (i < n) {
        unsigned char ch = u[i];
        char e[4];
        size_t m = 2;
        if (ch == '\\' || ch == '\n' || ch == '\t' || ch == '\r') {
            e[0] = '\\', e[1] = ch == '\\' ? '\\' : ch == '\n' ? 'n' : ch == '\t' ? 't' : 'r';
        } else if (ch < 0x20 || ch == 0x7F || !(len = utf8_char(u + i, n - i))) {
            e[0] = '\\', e[1] = 'x', e[2] = hex[ch >> 4], e[3] = hex[ch & 15], m = 4;
        } else { /* a character as it is */
            if (out) memcpy(out + k, u + i, len);
            k += len;
            i += len;
            continue;
        }
        if (out) memcpy(out + k, e, m);
        k += m;
        i++;
    }
    return k;
}

/* One document: text[0..n) named path (escaped) + suffix (suffix may be NULL). */
static int add_doc(counter *c, const char *name, const char *suffix, const char *text, size_t n)
{
    size_t ln = strlen(name), ls = suffix ? strlen(suffix) : 0, i = 0;
    char *s;
    c->nids = 0;
    mmnc_tokenize(text, n, 0, on_token, c);
    if (c->status) return c->status;
    if (c->nids) qsort(c->ids, c->nids, sizeof *c->ids, id_cmp);
    while (i < c->nids) {
        size_t j = i;
        while (j < c->nids && c->ids[j] == c->ids[i]) j++;
        if (c->nt == c->tcap3) {
            size_t nc = c->tcap3 ? 2 * c->tcap3 : 4096;
            mmnc_int *a;
            if (!(a = mmnc_i_realloc(c->tdoc, nc, sizeof *a))) goto nomem;
            c->tdoc = a;
            if (!(a = mmnc_i_realloc(c->tterm, nc, sizeof *a))) goto nomem;
            c->tterm = a;
            if (!(a = mmnc_i_realloc(c->tcnt, nc, sizeof *a))) goto nomem;
            c->tcnt = a;
            c->tcap3 = nc;
        }
        c->tdoc[c->nt] = c->ndocs;
        c->tterm[c->nt] = c->ids[i];
        c->tcnt[c->nt++] = (mmnc_int)(j - i);
        c->df[c->ids[i]]++;
        i = j;
    }
    if (c->ndocs == c->dcap) {
        mmnc_int nc = c->dcap ? 2 * c->dcap : 256;
        char **a = mmnc_i_realloc(c->docs, (size_t)nc, sizeof *a);
        if (!a) goto nomem;
        c->docs = a;
        c->dcap = nc;
    }
    if (!(s = mmnc_i_malloc(escape_name(name, ln, NULL) + ls + 1, 1))) goto nomem;
    ln = escape_name(name, ln, s);
    if (ls) memcpy(s + ln, suffix, ls);
    s[ln + ls] = '\0';
    c->docs[c->ndocs++] = s;
    return MMNC_OK;
nomem:
    return c->status = mmnc_i_err(c->err, MMNC_ENOMEM, "out of memory (document %lld)", (long long)c->ndocs + 1);
}

/* The documents of one file. */
static int add_file(counter *c, const char *path, int lines)
{
    char *text = NULL, *nul;
    size_t n = 0;
    int status;
    if ((status = mmnc_file_read_all(path, &text, &n, c->err)) != MMNC_OK) return status;
    c->info.files++;
    /* Text never holds a NUL byte: binary input is refused, as by mmnc_cooc_build. */
    if ((nul = memchr(text, 0, n)) != NULL) {
        status = mmnc_i_err(c->err, MMNC_EFORMAT, "%s: NUL byte at offset %llu: this is not a text file", path,
                            (unsigned long long)(nul - text));
    } else if (!lines) {
        status = add_doc(c, path, NULL, text, n);
    } else {
        size_t b = 0;
        long long line = 0;
        while (b < n && status == MMNC_OK) {
            const char *nl = memchr(text + b, '\n', n - b), *p;
            size_t e = nl ? (size_t)(nl - text) : n;
            line++;
            for (p = text + b; p < text + e && (MMNC_I_IS_WS(*p)); p++) {}
            if (p < text + e) { /* not blank */
                char suffix[32];
                snprintf(suffix, sizeof suffix, ":%lld", line);
                status = add_doc(c, path, suffix, text + b, e - b);
            }
            b = e + 1;
        }
    }
    mmnc_i_free(text);
    return status;
}

/* Kept terms in column order. */
typedef struct kterm {
    mmnc_int id, count, df;
    const char *w;
} kterm;

/* Column order: decreasing count, then decreasing document frequency, then bytewise. */
static int kterm_cmp(const void *a, const void *b)
{
    const kterm *u = a, *v = b;
    if (u->count != v->count) return u->count > v->count ? -1 : 1;
    if (u->df != v->df) return u->df > v->df ? -1 : 1;
    return strcmp(u->w, v->w);
}

/* MMNC_EINVAL with a readable message for options out of range. */
static int check_opts(const mmnc_docs_opts *o, mmnc_err *err)
{
    if (!(o->min_df > 0) || !isfinite(o->min_df) || (o->min_df >= 1 && o->min_df != floor(o->min_df)))
        return mmnc_i_err(err, MMNC_EINVAL, "min_df must be a fraction in (0, 1) or a whole number >= 1, not %g",
                          o->min_df);
    if (!(o->max_df > 0) || !isfinite(o->max_df) || (o->max_df > 1 && o->max_df != floor(o->max_df)))
        return mmnc_i_err(err, MMNC_EINVAL, "max_df must be a fraction in (0, 1] or a whole number > 1, not %g",
                          o->max_df);
    if (o->min_count < 1) return mmnc_i_err(err, MMNC_EINVAL, "min_count must be >= 1, not %lld", (long long)o->min_count);
    if (o->max_vocab < 0) return mmnc_i_err(err, MMNC_EINVAL, "max_vocab must be >= 0, not %lld", (long long)o->max_vocab);
    return MMNC_OK;
}

int mmnc_docs_build(const char *const *paths, int npaths, const mmnc_docs_opts *o, mmnc_data **out,
                    mmnc_docs_info *info, mmnc_err *err)
{
    mmnc_docs_opts opts;
    plist files = {0};
    counter c;
    kterm *kt = NULL;
    mmnc_int *newid = NULL, *rowid = NULL, *ri = NULL, *ci = NULL, nk = 0, lo, hi, nrows = 0;
    double *v = NULL;
    size_t nnz = 0;
    mmnc_data *d = NULL;
    int status = MMNC_OK;

    memset(&c, 0, sizeof c);
    c.err = err;
    if (out) *out = NULL;
    if (info) memset(info, 0, sizeof *info);
    if (!paths || npaths < 1 || !out)
        return mmnc_i_err(err, MMNC_EINVAL, "mmnc_docs_build: no paths or NULL argument");
    for (int i = 0; i < npaths; i++)
        if (!paths[i]) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_docs_build: path %d is NULL", i);
    if (o) opts = *o;
    else mmnc_docs_opts_default(&opts);
    if ((status = check_opts(&opts, err)) != MMNC_OK) return status;

    if (opts.stop_words)
        for (const char *const *s = opts.stop_words; *s && !c.status; s++) mmnc_tokenize(*s, strlen(*s), 0, on_stop, &c);
    if ((status = c.status) != MMNC_OK) goto cleanup;
    if ((status = collect(paths, npaths, &files, err)) != MMNC_OK) goto cleanup;
    for (size_t f = 0; f < files.n; f++)
        if ((status = add_file(&c, files.p[f], opts.lines)) != MMNC_OK) goto cleanup;
    c.info.docs = c.ndocs;
    c.info.terms_seen = c.terms.n;
    if (c.ndocs == 0) {
        status = mmnc_i_err(err, MMNC_EINVAL, "%s%s: no documents (every line is blank)", files.p[0],
                            files.n > 1 ? " and the other files" : "");
        goto cleanup;
    }

    /* the terms kept, in column order */
    lo = opts.min_df < 1 ? (mmnc_int)ceil(opts.min_df * (double)c.ndocs) : (mmnc_int)opts.min_df;
    hi = opts.max_df <= 1 ? (mmnc_int)floor(opts.max_df * (double)c.ndocs) : (mmnc_int)opts.max_df;
    if (lo < 1) lo = 1;
    MMNC_ALLOC(kt, c.terms.n + 1, err, status);
    for (mmnc_int t = 0; t < c.terms.n; t++)
        if (c.count[t] >= opts.min_count && c.df[t] >= lo && c.df[t] <= hi)
            kt[nk++] = (kterm){t, c.count[t], c.df[t], c.terms.names[t]};
    if (nk == 0) {
        status = mmnc_i_err(err, MMNC_EINVAL,
                            "no term left: of %lld distinct terms (stop words aside) in %lld documents, none occurs "
                            "at least %lld times in at least %lld and at most %lld documents (min_count, min_df, max_df)",
                            (long long)c.terms.n, (long long)c.ndocs, (long long)opts.min_count, (long long)lo,
                            (long long)hi);
        goto cleanup;
    }
    qsort(kt, (size_t)nk, sizeof *kt, kterm_cmp);
    if (opts.max_vocab > 0 && nk > opts.max_vocab) nk = opts.max_vocab;
    MMNC_ALLOC(newid, c.terms.n + 1, err, status);
    for (mmnc_int t = 0; t < c.terms.n; t++) newid[t] = -1;
    for (mmnc_int k = 0; k < nk; k++) newid[kt[k].id] = k;

    /* rows: every document, or those with a kept term */
    MMNC_CALLOC(rowid, c.ndocs + 1, err, status);
    for (size_t t = 0; t < c.nt; t++)
        if (newid[c.tterm[t]] >= 0) rowid[c.tdoc[t]] = 1, nnz++;
    for (mmnc_int i = 0; i < c.ndocs; i++) {
        c.info.empty += !rowid[i];
        rowid[i] = rowid[i] || !opts.drop_empty ? nrows++ : -1;
    }
    if (nrows == 0) { /* every document empty and dropped; cannot happen with nk > 0 */
        status = mmnc_i_err(err, MMNC_EINVAL, "no document holds a kept term");
        goto cleanup;
    }
    MMNC_ALLOC(ri, nnz + 1, err, status);
    MMNC_ALLOC(ci, nnz + 1, err, status);
    MMNC_ALLOC(v, nnz + 1, err, status);
    nnz = 0;
    for (size_t t = 0; t < c.nt; t++)
        if (newid[c.tterm[t]] >= 0) {
            ri[nnz] = rowid[c.tdoc[t]];
            ci[nnz] = newid[c.tterm[t]];
            v[nnz++] = (double)c.tcnt[t];
        }
    MMNC_CALLOC(d, 1, err, status);
    if ((status = mmnc_csr_from_triplets(nrows, nk, (mmnc_int)nnz, ri, ci, v, &d->A, err)) != MMNC_OK) goto cleanup;
    d->orig_rows = nrows;
    d->orig_cols = nk;
    MMNC_CALLOC(d->row_names, nrows, err, status);
    MMNC_CALLOC(d->col_names, nk, err, status);
    for (mmnc_int i = 0; i < c.ndocs; i++)
        if (rowid[i] >= 0) {
            d->row_names[rowid[i]] = c.docs[i];
            c.docs[i] = NULL;
        }
    for (mmnc_int k = 0; k < nk; k++) {
        d->col_names[k] = c.terms.names[kt[k].id];
        c.terms.names[kt[k].id] = NULL;
    }
    c.info.terms = nk;
    if (info) *info = c.info;
    *out = d;
    d = NULL;

cleanup:
    mmnc_data_free(d);
    plist_free(&files);
    mmnc_i_keymap_free(&c.stop);
    mmnc_i_keymap_free(&c.terms);
    mmnc_i_free(c.count);
    mmnc_i_free(c.df);
    mmnc_i_free(c.ids);
    mmnc_i_free(c.tdoc);
    mmnc_i_free(c.tterm);
    mmnc_i_free(c.tcnt);
    for (mmnc_int i = 0; i < c.ndocs; i++) mmnc_i_free(c.docs[i]);
    mmnc_i_free(c.docs);
    mmnc_i_free(kt);
    mmnc_i_free(newid);
    mmnc_i_free(rowid);
    mmnc_i_free(ri);
    mmnc_i_free(ci);
    mmnc_i_free(v);
    return status;
}
