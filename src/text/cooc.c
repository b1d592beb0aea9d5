/*
 * cooc.c -- word co-occurrence matrices from text files.
 *
 * Two streaming passes over the files, read through io/stream.c (plain,
 * gzip or xz), never holding more than a block of text:
 *
 *   pass 1  tokenise and count every distinct token (a hash table of
 *           strings); the vocabulary is the words with count >= min_count,
 *           at most max_vocab of them, by decreasing count then bytewise;
 *   pass 2  tokenise again, map tokens to vocabulary ids (out-of-vocabulary
 *           tokens are removed before windowing, as in word2vec and GloVe),
 *           and add every pair of ids at distance d <= window to a hash
 *           table keyed by (min id, max id).
 *
 * The upper triangle of the table becomes the symmetric CSR result by a
 * counting sort (no triplet copies).
 *
 * Threads.  Each block of text read from a file (CHUNK bytes per thread) is
 * cut at whitespace into one piece per thread.  Pass 1: each thread counts
 * its piece into its own table; the tables are merged.  Pass 2: each thread
 * turns its piece into a stream of ids and breaks; the streams are
 * concatenated behind the last `window` ids of the previous block; then
 * every thread walks the whole stream and adds the pairs whose key hashes to
 * its partition into its own table, so the tables are disjoint and the pair
 * memory is the same as with one thread.  Windows never depend on where the
 * text was cut, and all counts are integers -- a harmonic weight 1/d is
 * added as L/d units with L = lcm(1..window) -- so the order of additions
 * cannot change a single bit: the result is the same for any number of
 * threads.
 *
 * Memory (o->max_memory).  A pair table never grows beyond its share of the
 * limit: when full it is sorted in place and spilled as a run (spill.c),
 * then emptied.  At the end the leftovers are spilled too and the runs
 * merged in key order, equal keys summed, twice: row counts, then the rows,
 * each filled in order straight into the result.  Integer sums again: the
 * same bits as without a limit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/mmnc_i.h"

#ifdef _OPENMP
#define THREAD_ID() omp_get_thread_num()
#define TEAM_SIZE() omp_get_num_threads()
#define MAX_THREADS() omp_get_max_threads()
#else
#define THREAD_ID() 0
#define TEAM_SIZE() 1
#define MAX_THREADS() 1
#endif

#define MAX_WORD 255          /* longer tokens are ignored (bytes of UTF-8) */
#define CHUNK (1 << 20)       /* bytes of text per thread per block */
#define EXACT_WINDOW 18       /* lcm(1..18) = 12252240 < 2^24 */
#define ROUND_UNITS (1 << 24) /* units of 1/d beyond EXACT_WINDOW */
#define MAX_LOAD(cap) ((cap) / 10 * 7)
#define MIN_TABLE 256                 /* slots of a pair table, at least */

void mmnc_cooc_opts_default(mmnc_cooc_opts *o)
{
    o->window = MMNC_DEFAULT_COOC_WINDOW;
    o->weighting = MMNC_DEFAULT_COOC_WEIGHTING;
    o->min_count = MMNC_DEFAULT_COOC_MIN_COUNT;
    o->max_vocab = MMNC_DEFAULT_COOC_MAX_VOCAB;
    o->sentences = MMNC_DEFAULT_COOC_SENTENCES;
    o->threads = MMNC_DEFAULT_THREADS;
    o->tokens = NULL;
    o->max_memory = MMNC_DEFAULT_COOC_MAX_MEMORY;
    o->progress = NULL;
    o->progress_ctx = NULL;
}

/* ---- hashing -------------------------------------------------------------- */

static uint64_t hash_str(const char *s, size_t n)
{
    return mmnc_i_mix64(mmnc_i_fnv1a(s, n)); /* FNV-1a, then a finaliser */
}

/* ---- string table: word -> count (pass 1) or word -> id + 1 (pass 2) ------- */

typedef struct wslot {
    uint64_t h;
    size_t off;    /* into arena, NUL-terminated */
    int64_t count; /* 0 = empty slot */
} wslot;

typedef struct wtab {
    wslot *s;
    size_t cap, n;
    char *arena;
    size_t alen, acap;
} wtab;

/* Release t's slots and arena; t is left empty. */
static void wtab_free(wtab *t)
{
    mmnc_i_free(t->s);
    mmnc_i_free(t->arena);
    memset(t, 0, sizeof *t);
}

/* An empty table of cap slots (a power of two) and an arena of 8 cap bytes. */
static int wtab_init(wtab *t, size_t cap)
{
    memset(t, 0, sizeof *t);
    t->s = mmnc_i_calloc(cap, sizeof *t->s);
    t->arena = mmnc_i_malloc(cap * 8, 1);
    if (!t->s || !t->arena) {
        wtab_free(t);
        return MMNC_ENOMEM;
    }
    t->cap = cap;
    t->acap = cap * 8;
    return MMNC_OK;
}

/* Double the slots, re-placing every word by its stored hash (the arena stays). */
static int wtab_grow(wtab *t)
{
    size_t cap = t->cap * 2, m = cap - 1;
    wslot *s = mmnc_i_calloc(cap, sizeof *s);
    if (!s) return MMNC_ENOMEM;
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->s[i].count) continue;
        size_t j = t->s[i].h & m;
        while (s[j].count) j = (j + 1) & m;
        s[j] = t->s[i];
    }
    mmnc_i_free(t->s);
    t->s = s;
    t->cap = cap;
    return MMNC_OK;
}

/* The slot of word w (len n, hash h), or NULL. */
static wslot *wtab_find(const wtab *t, const char *w, size_t n, uint64_t h)
{
    size_t m = t->cap - 1, j = h & m;
    while (t->s[j].count) {
        const wslot *e = &t->s[j];
        if (e->h == h && memcmp(t->arena + e->off, w, n) == 0 && t->arena[e->off + n] == 0)
            return &t->s[j];
        j = (j + 1) & m;
    }
    return NULL;
}

/* Add c to the count of w, inserting it if new. */
static int wtab_add(wtab *t, const char *w, size_t n, uint64_t h, int64_t c)
{
    wslot *e = wtab_find(t, w, n, h);
    size_t m, j;
    if (e) {
        e->count += c;
        return MMNC_OK;
    }
    if (t->n + 1 > MAX_LOAD(t->cap) && wtab_grow(t) != MMNC_OK) return MMNC_ENOMEM;
    if (t->alen + n + 1 > t->acap) {
        size_t acap = 2 * t->acap + n + 1;
        char *a = mmnc_i_realloc(t->arena, acap, 1);
        if (!a) return MMNC_ENOMEM;
        t->arena = a;
        t->acap = acap;
    }
    memcpy(t->arena + t->alen, w, n);
    t->arena[t->alen + n] = 0;
    m = t->cap - 1;
    j = h & m;
    while (t->s[j].count) j = (j + 1) & m;
    t->s[j].h = h;
    t->s[j].off = t->alen;
    t->s[j].count = c;
    t->alen += n + 1;
    t->n++;
    return MMNC_OK;
}

/* ---- pair table: (a, b) with a <= b -> weighted count in integer units ----- */

/* key = a << 32 | b, EMPTY_KEY for an empty slot; the layout of spill.c's
 * pairs, so that a full table is sorted and written where it lies. */
typedef mmnc_i_kv pslot;

#define EMPTY_KEY UINT64_MAX
#define TABLE_FULL (-1) /* ptab_add: at maxcap and at the load limit */

typedef struct ptab {
    pslot *s;
    size_t cap, n;
    size_t maxcap; /* never grow beyond this; 0 = no limit */
} ptab;

/* An empty pair table of cap slots (a power of two). */
static int ptab_init(ptab *t, size_t cap)
{
    t->s = mmnc_i_malloc(cap, sizeof *t->s);
    t->cap = t->s ? cap : 0;
    t->n = 0;
    if (!t->s) return MMNC_ENOMEM;
    for (size_t i = 0; i < cap; i++) t->s[i].key = EMPTY_KEY;
    return MMNC_OK;
}

static void ptab_free(ptab *t)
{
    mmnc_i_free(t->s);
    t->s = NULL;
    t->cap = t->n = 0;
}

/* Double the slots, re-placing every key. */
static int ptab_grow(ptab *t)
{
    size_t cap = t->cap * 2, m = cap - 1;
    pslot *s = mmnc_i_malloc(cap, sizeof *s);
    if (!s) return MMNC_ENOMEM;
    for (size_t i = 0; i < cap; i++) s[i].key = EMPTY_KEY;
    for (size_t i = 0; i < t->cap; i++) {
        if (t->s[i].key == EMPTY_KEY) continue;
        size_t j = mmnc_i_mix64(t->s[i].key) & m;
        while (s[j].key != EMPTY_KEY) j = (j + 1) & m;
        s[j] = t->s[i];
    }
    mmnc_i_free(t->s);
    t->s = s;
    t->cap = cap;
    return MMNC_OK;
}

/* Add v to key (hash h); TABLE_FULL when a new key would need a table
 * larger than t->maxcap. */
static int ptab_add(ptab *t, uint64_t key, uint64_t h, uint64_t v)
{
    size_t m = t->cap - 1, j = h & m;
    for (;;) {
        if (t->s[j].key == key) {
            t->s[j].val += v;
            return MMNC_OK;
        }
        if (t->s[j].key == EMPTY_KEY) break;
        j = (j + 1) & m;
    }
    if (t->n + 1 > MAX_LOAD(t->cap)) {
        if (t->maxcap && t->cap >= t->maxcap) return TABLE_FULL;
        if (ptab_grow(t) != MMNC_OK) return MMNC_ENOMEM;
        m = t->cap - 1;
        j = h & m;
        while (t->s[j].key != EMPTY_KEY) j = (j + 1) & m;
    }
    t->s[j].key = key;
    t->s[j].val = v;
    t->n++;
    return MMNC_OK;
}

/* Write t's entries as a sorted run and empty it.  The entries are first
 * packed to the front of the slot array, which is then sorted in place: a
 * spill needs no memory beyond the table. */
static int ptab_spill(ptab *t, mmnc_i_spill *sp)
{
    size_t n = 0;
    int status;
    for (size_t i = 0; i < t->cap; i++)
        if (t->s[i].key != EMPTY_KEY) t->s[n++] = t->s[i];
    status = mmnc_i_spill_run(sp, t->s, n);
    for (size_t i = 0; i < t->cap; i++) t->s[i].key = EMPTY_KEY;
    t->n = 0;
    return status;
}

/* ---- tokeniser -------------------------------------------------------------- */

enum { C_SPACE, C_NL, C_WORD, C_JOIN, C_SENT, C_OTHER };

/* The tokeniser's class of an ASCII byte: word, joiner (' -), sentence end,
 * newline, space or other. */
static int ascii_class(int c)
{
    if (((c | 32) >= 'a' && (c | 32) <= 'z') || (c >= '0' && c <= '9')) return C_WORD;
    switch (c) {
    case '\n': return C_NL;
    case '\'':
    case '-': return C_JOIN;
    case '.':
    case '!':
    case '?': return C_SENT;
    default: break;
    }
    return c <= ' ' || c == 127 ? C_SPACE : C_OTHER;
}

static int is_space_byte(unsigned char c) { return c <= ' ' || c == 127; }

/* Windows-1252 code points of bytes 0x80..0x9f (0 = unassigned): a byte that
 * is not valid UTF-8 is read as Windows-1252, a superset of Latin-1. */
static const uint16_t cp1252[32] = {
    0x20ac, 0,      0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160,
    0x2039, 0x0152, 0,      0x017d, 0,      0,      0x2018, 0x2019, 0x201c, 0x201d, 0x2022,
    0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0,      0x017e, 0x0178};

/* Decode one code point at s[0..n-1] (n >= 1); returns the bytes used. */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned c = s[0];
    uint32_t v;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xc2 && c <= 0xdf && n >= 2 && (s[1] & 0xc0) == 0x80) {
        *cp = ((uint32_t)(c & 0x1f) << 6) | (s[1] & 0x3f);
        return 2;
    }
    if (c >= 0xe0 && c <= 0xef && n >= 3 && (s[1] & 0xc0) == 0x80 && (s[2] & 0xc0) == 0x80) {
        v = ((uint32_t)(c & 0x0f) << 12) | ((uint32_t)(s[1] & 0x3f) << 6) | (s[2] & 0x3f);
        if (v >= 0x800 && (v < 0xd800 || v > 0xdfff)) {
            *cp = v;
            return 3;
        }
    }
    if (c >= 0xf0 && c <= 0xf4 && n >= 4 && (s[1] & 0xc0) == 0x80 && (s[2] & 0xc0) == 0x80 &&
        (s[3] & 0xc0) == 0x80) {
        v = ((uint32_t)(c & 0x07) << 18) | ((uint32_t)(s[1] & 0x3f) << 12) |
            ((uint32_t)(s[2] & 0x3f) << 6) | (s[3] & 0x3f);
        if (v >= 0x10000 && v <= 0x10ffff) {
            *cp = v;
            return 4;
        }
    }
    *cp = c < 0xa0 ? cp1252[c - 0x80] : c;
    return 1;
}

/* Class of a non-ASCII code point: the general-punctuation, symbol, space
 * and private-use blocks separate words; every other code point (letters of
 * any script, combining marks, digits) is part of a word.  *join receives the
 * ASCII form of an inner apostrophe or hyphen. */
static int uni_class(uint32_t cp, char *join)
{
    if (cp == 0x2019 || cp == 0x02bc) {
        *join = '\'';
        return C_JOIN;
    }
    if (cp == 0x2010 || cp == 0x2011) {
        *join = '-';
        return C_JOIN;
    }
    if (cp < 0xc0) {
        if (cp <= 0xa0) return C_SPACE; /* C1 controls, no-break space */
        return cp == 0xaa || cp == 0xb5 || cp == 0xba ? C_WORD : C_OTHER;
    }
    if (cp == 0xd7 || cp == 0xf7) return C_OTHER;
    if (cp >= 0x2000 && cp <= 0x206f) {
        if (cp <= 0x200b || cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f)
            return C_SPACE;
        if (cp == 0x200c || cp == 0x200d) return C_WORD;
        if (cp == 0x203c || (cp >= 0x2047 && cp <= 0x2049)) return C_SENT;
        return C_OTHER;
    }
    if (cp == 0xfeff || cp == 0x3000) return C_SPACE;
    if (cp == 0x3002 || cp == 0xff01 || cp == 0xff0e || cp == 0xff1f) return C_SENT;
    if ((cp >= 0x20a0 && cp <= 0x2bff) || (cp >= 0x2e00 && cp <= 0x2e7f) ||
        (cp >= 0x3001 && cp <= 0x303f) || (cp >= 0xe000 && cp <= 0xf8ff) ||
        (cp >= 0xfe10 && cp <= 0xfe1f) || (cp >= 0xfe30 && cp <= 0xfe6f) ||
        (cp >= 0xff00 && cp <= 0xff0f) || (cp >= 0xff1a && cp <= 0xff20) ||
        (cp >= 0xff3b && cp <= 0xff40) || (cp >= 0xff5b && cp <= 0xff65) ||
        (cp >= 0xfff0 && cp <= 0xffff) || (cp >= 0x1f000 && cp <= 0x1faff))
        return C_OTHER;
    return C_WORD;
}

/* Code point cp as UTF-8 at out (1 to 4 bytes); returns the bytes written. */
static size_t utf8_encode(uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* A period right after these words is not a sentence end. */
static int is_abbrev(const char *w, size_t n)
{
    static const char *const list[] = {"mr",  "mrs",  "ms",   "dr",   "st",  "messrs",
                                       "mme", "mlle", "rev",  "prof", "capt", "col",
                                       "lt",  "gen",  "sgt",  "hon"};
    if (n > 6) return 0;
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++)
        if (strlen(list[i]) == n && memcmp(list[i], w, n) == 0) return 1;
    return 0;
}

/* Where the tokens of a piece of text go: counted (pass 1) or appended to an
 * id stream with BRK_SENT or BRK_PARA for window breaks (pass 2). */
#define BRK_SENT (-1) /* a sentence end */
#define BRK_PARA (-2) /* a blank line or the end of a file */
typedef struct sink {
    wtab *words;        /* pass 1 */
    const wtab *vocab;  /* pass 2 */
    int32_t *ids;
    size_t nids, cap;
    int64_t tokens;
    int status;
    mmnc_token_fn fn;   /* mmnc_tokenize: handed every token and break */
    void *fnctx;
    char pad[128];      /* each thread's sink on its own cache lines */
} sink;

/* Append id to k's stream; a failed allocation is kept in k->status. */
static void sink_push(sink *k, int32_t id)
{
    if (k->nids == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 4096;
        int32_t *p = mmnc_i_realloc(k->ids, cap, sizeof *p);
        if (!p) {
            k->status = MMNC_ENOMEM;
            return;
        }
        k->ids = p;
        k->cap = cap;
    }
    k->ids[k->nids++] = id;
}

/* A token: to the caller's function, counted (pass 1), or its id appended if
 * it is in the vocabulary (pass 2). */
static void sink_word(sink *k, const char *w, size_t n)
{
    uint64_t h;
    k->tokens++;
    if (k->fn) {
        k->fn(k->fnctx, w, n);
        return;
    }
    h = hash_str(w, n);
    if (k->words) {
        if (wtab_add(k->words, w, n, h, 1) != MMNC_OK) k->status = MMNC_ENOMEM;
    } else {
        const wslot *e = wtab_find(k->vocab, w, n, h);
        if (e) sink_push(k, (int32_t)(e->count - 1));
    }
}

/* A window break: consecutive breaks collapse into the stronger one (pass 2). */
static void sink_break(sink *k, int32_t brk)
{
    if (k->fn) {
        k->fn(k->fnctx, NULL, 0);
        return;
    }
    if (k->words) return;
    if (k->nids == 0 || k->ids[k->nids - 1] >= 0) sink_push(k, brk);
    else if (brk < k->ids[k->nids - 1]) k->ids[k->nids - 1] = brk; /* the stronger break */
}

/*
 * Tokenise s[0..n-1], which starts at the beginning of a line (line_start)
 * or right after a non-space byte, and ends before a space byte or at the
 * end of the file.  See mmnc_cooc_build for the rules.
 */
static void tokenize(const unsigned char *s, size_t n, int line_start, int sentences, sink *k)
{
    char w[MAX_WORD + 8];
    size_t wn = 0, i = 0;
    int in_word = 0, too_long = 0, content = !line_start;
    char join = 0; /* pending apostrophe or hyphen after the word */

    while (i < n && k->status == MMNC_OK) {
        uint32_t cp;
        char jc = 0;
        int cls;
        if (s[i] < 0x80) {
            cp = s[i++];
            cls = ascii_class((int)cp);
            jc = (char)cp;
        } else {
            i += utf8_decode(s + i, n - i, &cp);
            cls = uni_class(cp, &jc);
        }
        if (cls == C_WORD) {
            if (!in_word) {
                in_word = 1;
                wn = 0;
                too_long = 0;
            } else if (join) {
                if (wn < MAX_WORD) w[wn++] = join;
                else too_long = 1;
                join = 0;
            }
            if (cp < 0x80) {
                if (wn < MAX_WORD) w[wn++] = (char)(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp);
                else too_long = 1;
            } else {
                if (wn + 4 <= MAX_WORD) wn += utf8_encode(cp, w + wn);
                else too_long = 1;
            }
            content = 1;
            continue;
        }
        if (cls == C_JOIN && in_word && !join) {
            join = jc; /* inner only if a word character follows */
            content = 1;
            continue;
        }
        int ended = in_word && !join; /* this character ends the word directly */
        if (in_word) {
            if (!too_long) sink_word(k, w, wn);
            in_word = 0;
            join = 0;
        }
        switch (cls) {
        case C_SENT:
            if (sentences && !(cp == '.' && ended && is_abbrev(w, wn))) sink_break(k, BRK_SENT);
            content = 1;
            break;
        case C_NL:
            if (!content) sink_break(k, BRK_PARA); /* a blank line */
            content = 0;
            break;
        case C_SPACE: break;
        default: content = 1; break;
        }
    }
    if (in_word && !too_long && k->status == MMNC_OK) sink_word(k, w, wn);
}

void mmnc_tokenize(const char *text, size_t n, int sentences, mmnc_token_fn fn, void *ctx)
{
    sink k;
    if (!text || !fn) return;
    memset(&k, 0, sizeof k);
    k.fn = fn;
    k.fnctx = ctx;
    tokenize((const unsigned char *)text, n, 1, sentences, &k);
}

/* 1 for a printable ASCII byte other than the space. */
static int is_print_ascii(unsigned char c) { return c > ' ' && c < 127; }

/* The largest p in (lo, hi] where a piece of text may end: s[p] is an ASCII
 * space and s[p-1] a printable ASCII character, so that the next piece
 * starts outside any word on a line that has content (the tokeniser's state
 * there is known).  Failing that, an ASCII punctuation byte (not . ! ? ' -)
 * after a printable ASCII character; lo if there is none either. */
static size_t find_cut(const unsigned char *s, size_t lo, size_t hi)
{
    for (size_t p = hi; p > lo; p--)
        if (is_space_byte(s[p]) && is_print_ascii(s[p - 1])) return p;
    for (size_t p = hi; p > lo; p--)
        if (ascii_class(s[p]) == C_OTHER && is_print_ascii(s[p - 1])) return p;
    return lo;
}

/* ---- the two passes over the files ------------------------------------------ */

typedef struct ctx {
    const mmnc_cooc_opts *o;
    int pass, nthreads;
    unsigned char *buf;
    size_t bufcap;
    sink *sinks;    /* nthreads */
    wtab *words;    /* pass 1: nthreads tables */
    wtab vocab;     /* pass 2 */
    ptab *pairs;    /* pass 2: nthreads tables */
    int *tstatus;   /* nthreads */
    uint64_t *unit; /* unit[d]: weight of distance d, 1 <= d <= window */
    int32_t *seq;   /* pass 2: previous tail + this block's ids */
    size_t nseq, seqcap, ntail;
    int64_t tokens; /* read in this pass */
    int64_t blocks; /* of this pass (o->progress) */
    FILE *tok;      /* pass 2: the token stream (o->tokens), or NULL */
    char **names;   /* pass 2: the vocabulary, for tok */
    int tok_line;   /* tokens written on the current line of tok */
    int tok_para;   /* tok is at the start of a paragraph */
    mmnc_i_spill *spill; /* pass 2 under o->max_memory: full tables go there */
} ctx;

/* The token stream: a line per window segment, an empty line after a
 * paragraph. */
static void tok_break(ctx *c, int32_t brk)
{
    if (c->tok_line) putc('\n', c->tok);
    c->tok_line = 0;
    if (brk == BRK_PARA && !c->tok_para) {
        putc('\n', c->tok);
        c->tok_para = 1;
    }
}

/* Write the ids seq[lo..hi) to the token stream as words, breaks as line ends. */
static void write_tokens(ctx *c, size_t lo, size_t hi)
{
    for (size_t i = lo; i < hi; i++) {
        int32_t id = c->seq[i];
        if (id < 0) {
            tok_break(c, id);
            continue;
        }
        if (c->tok_line++) putc(' ', c->tok);
        fputs(c->names[id], c->tok);
        c->tok_para = 0;
    }
}

/* Count the pairs whose right member is at seq[lo..hi-1] and whose key
 * falls in partition `part` of P into t. */
static int count_pairs(const ctx *c, size_t lo, size_t hi, uint32_t part, uint32_t P, ptab *t)
{
    const int32_t *seq = c->seq;
    int W = c->o->window;
    for (size_t i = lo; i < hi; i++) {
        int32_t b = seq[i];
        if (b < 0) continue;
        for (int d = 1; d <= W && (size_t)d <= i; d++) {
            int32_t a = seq[i - (size_t)d];
            uint64_t key, h, u = c->unit[d];
            if (a < 0) break;
            if (a < b) key = (uint64_t)a << 32 | (uint64_t)b;
            else {
                key = (uint64_t)b << 32 | (uint64_t)a;
                if (a == b) u *= 2; /* (p,q) and (q,p) both land on the diagonal */
            }
            h = mmnc_i_mix64(key);
            if ((uint32_t)(h >> 40) % P != part) continue;
            int st = ptab_add(t, key, h, u);
            if (st == TABLE_FULL) {
                if ((st = ptab_spill(t, c->spill)) != MMNC_OK) return st;
                st = ptab_add(t, key, h, u); /* an empty table has room */
            }
            if (st != MMNC_OK) return st;
        }
    }
    return MMNC_OK;
}

/* Process buf[0..n-1]: a whole number of tokens, starting at a line start
 * when line_start. */
static int do_block(ctx *c, size_t n, int line_start)
{
    size_t cut[65];
    int team = 1, status = MMNC_OK;

#pragma omp parallel
    {
        int t = THREAD_ID();
#pragma omp single
        {
            team = TEAM_SIZE();
            if (team > c->nthreads) team = c->nthreads;
            if (team > 64) team = 64;
            cut[0] = 0;
            cut[team] = n;
            for (int q = 1; q < team; q++) {
                size_t target = n / (size_t)team * (size_t)q;
                cut[q] = target > cut[q - 1] ? find_cut(c->buf, cut[q - 1], target) : cut[q - 1];
            }
        }
        if (t < team) {
            sink *k = &c->sinks[t];
            k->nids = 0;
            k->status = MMNC_OK;
            tokenize(c->buf + cut[t], cut[t + 1] - cut[t], t == 0 ? line_start : 0,
                     c->o->sentences, k);
        }
    }
    for (int t = 0; t < team; t++) {
        c->tokens += c->sinks[t].tokens;
        c->sinks[t].tokens = 0;
        if (c->sinks[t].status != MMNC_OK) status = c->sinks[t].status;
    }
    if (status != MMNC_OK || c->pass == 1) return status;

    /* Pass 2: the id stream, behind the tail of the previous block. */
    size_t need = c->ntail;
    for (int t = 0; t < team; t++) need += c->sinks[t].nids;
    if (need > c->seqcap) {
        int32_t *p = mmnc_i_realloc(c->seq, need, sizeof *p);
        if (!p) return MMNC_ENOMEM;
        c->seq = p;
        c->seqcap = need;
    }
    c->nseq = c->ntail;
    for (int t = 0; t < team; t++) {
        const sink *k = &c->sinks[t];
        size_t j = 0;
        if (k->nids && k->ids[0] < 0 && c->nseq && c->seq[c->nseq - 1] < 0) {
            if (k->ids[0] < c->seq[c->nseq - 1]) c->seq[c->nseq - 1] = k->ids[0];
            j = 1;
        }
        if (k->nids > j) {
            memcpy(c->seq + c->nseq, k->ids + j, (k->nids - j) * sizeof(int32_t));
            c->nseq += k->nids - j;
        }
    }
    if (c->tok) write_tokens(c, c->ntail, c->nseq);
    for (int t = 0; t < c->nthreads; t++) c->tstatus[t] = MMNC_OK;
#pragma omp parallel
    {
        /* Every thread reads all positions but adds only the keys of its own
         * hash partition: the tables stay disjoint (no merge, no duplicate
         * entries) and each is touched by one thread only. */
        uint32_t t = (uint32_t)THREAD_ID(), P = (uint32_t)TEAM_SIZE();
        if (P > (uint32_t)c->nthreads) P = (uint32_t)c->nthreads;
        if (t < P) c->tstatus[t] = count_pairs(c, c->ntail, c->nseq, t, P, &c->pairs[t]);
    }
    for (int t = 0; t < c->nthreads; t++)
        if (c->tstatus[t] != MMNC_OK) return c->tstatus[t];

    /* Keep the last ids after the last break as context for the next block. */
    size_t keep = 0;
    while (keep < c->nseq && keep < (size_t)c->o->window && c->seq[c->nseq - 1 - keep] >= 0)
        keep++;
    memmove(c->seq, c->seq + c->nseq - keep, keep * sizeof(int32_t));
    c->ntail = keep;
    c->nseq = keep;
    return MMNC_OK;
}

/* Stream one file through do_block. */
static int do_file(ctx *c, const char *path, mmnc_err *err)
{
    int status, first = 1;
    size_t carry = 0;
    uint64_t offset = 0; /* of c->buf + carry in the (decoded) file */
    mmnc_i_in *in;
    const unsigned char *nul;

    if ((status = mmnc_i_in_open(path, &in, err)) != MMNC_OK) return status;
    for (;;) {
        size_t want = c->bufcap - carry, got, n, end;
        if ((status = mmnc_i_in_read(in, c->buf + carry, want, &got, err)) != MMNC_OK) goto cleanup;
        /* Text never holds a NUL byte: binary input is refused, as the
         * matrix readers do, rather than made into a vocabulary. */
        if ((nul = memchr(c->buf + carry, 0, got)) != NULL) {
            status = mmnc_i_err(err, MMNC_EFORMAT, "%s: NUL byte at offset %llu: this is not a text file",
                                path, (unsigned long long)(offset + (uint64_t)(nul - (c->buf + carry))));
            goto cleanup;
        }
        offset += got;
        n = carry + got;
        int eof = got < want;
        end = n;
        if (!eof) {
            end = find_cut(c->buf, 0, n - 1);
            /* No cut anywhere in a full buffer: a single giant "word", which
             * is ignored anyway; cut at a UTF-8 character boundary. */
            if (end == 0) {
                end = n - 1;
                while (end > 0 && (c->buf[end] & 0xc0) == 0x80) end--;
                if (end == 0) end = n;
            }
        }
        status = do_block(c, end, first);
        if (status != MMNC_OK) {
            /* a failure of the spill file has its own message */
            if (!c->spill || mmnc_i_spill_error(c->spill, err) == MMNC_OK)
                mmnc_i_err(err, status, "out of memory");
            goto cleanup;
        }
        if (c->o->progress && c->o->progress(c->o->progress_ctx, c->pass, (int)++c->blocks, (double)c->tokens)) {
            status = mmnc_i_err(err, MMNC_ECANCELED, "stopped by the progress function (pass %d, %s)", c->pass, path);
            goto cleanup;
        }
        first = 0;
        carry = n - end;
        memmove(c->buf, c->buf + end, carry);
        if (eof) break;
    }
    c->ntail = 0; /* the end of a file ends every window */
    c->nseq = 0;
    if (c->tok) tok_break(c, BRK_PARA);

cleanup:
    mmnc_i_in_close(in);
    return status;
}

/* ---- vocabulary ---------------------------------------------------------------- */

typedef struct vword {
    const char *w;
    int64_t count;
} vword;

/* The vocabulary's order: decreasing count, then bytewise. */
static int vword_cmp(const void *pa, const void *pb)
{
    const vword *a = pa, *b = pb;
    if (a->count != b->count) return a->count > b->count ? -1 : 1;
    return strcmp(a->w, b->w);
}

/* Greatest common divisor (Euclid), for L = lcm(1..window). */
static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The CSR from the merged runs: the upper triangle arrives sorted by (a, b),
 * so row r receives its entries (j, r), j < r, in increasing j (when a = j),
 * then its entries (r, b), b >= r, in increasing b: every row is filled in
 * order, straight into the result.  Two merges: row counts, then entries. */
typedef struct fill_ctx {
    mmnc_int *rp, *pos;
    mmnc_csr *A;
    double L;
} fill_ctx;

/* First merge: count the entries of rows a and, off the diagonal, b. */
static int count_row(void *ctx, uint64_t key, uint64_t val)
{
    fill_ctx *f = ctx;
    mmnc_int a = (mmnc_int)(key >> 32), b = (mmnc_int)(key & 0xffffffffu);
    (void)val;
    f->rp[a + 1]++;
    if (a != b) f->rp[b + 1]++;
    return MMNC_OK;
}

/* Second merge: the entry (a, b) and its mirror (b, a), in units of 1 / L. */
static int fill_row(void *ctx, uint64_t key, uint64_t val)
{
    fill_ctx *f = ctx;
    mmnc_int a = (mmnc_int)(key >> 32), b = (mmnc_int)(key & 0xffffffffu);
    double v = (double)val / f->L; /* as the in-memory path: the same bits */
    f->A->colind[f->pos[a]] = b;
    f->A->val[f->pos[a]++] = v;
    if (a != b) {
        f->A->colind[f->pos[b]] = a;
        f->A->val[f->pos[b]++] = v;
    }
    return MMNC_OK;
}

/* Largest power of two n >= MIN_TABLE with 24 n <= bytes: a table of n
 * slots (16 n bytes) plus, while it grew into them, the old one (8 n). */
static size_t table_cap(size_t bytes)
{
    size_t n = MIN_TABLE;
    while (n <= bytes / 48) n *= 2; /* no overflow for any bytes */
    return n;
}

/* See mmnc.h: mmnc_cooc_build_ex, of whose report only the token count is
 * kept. */
int mmnc_cooc_build(const char *const *paths, int npaths, const mmnc_cooc_opts *o,
                    mmnc_csr **out, char ***vocab, mmnc_int *nvocab, mmnc_int *ntokens,
                    mmnc_err *err)
{
    mmnc_cooc_info info;
    int status = mmnc_cooc_build_ex(paths, npaths, o, out, vocab, nvocab, &info, err);
    if (ntokens) *ntokens = status == MMNC_OK ? info.tokens : 0;
    return status;
}

/*
 * See mmnc.h.  Outline: check inputs; pass 1 (word counts, per-thread tables
 * merged into words[0]); vocabulary; pass 2 (per-thread pair tables, spilled
 * as sorted runs when o->max_memory would be exceeded); CSR by a counting
 * sort of the upper triangle and its mirror, then each row sorted -- or, if
 * anything was spilled, by merging the runs.
 *
 * One pipeline whose stages share the per-thread tables and the
 * vocabulary: the stages' own work is in the static functions above, what
 * stays here is their order and the cleanup.
 */
int mmnc_cooc_build_ex(const char *const *paths, int npaths, const mmnc_cooc_opts *o,
                       mmnc_csr **out, char ***vocab, mmnc_int *nvocab, mmnc_cooc_info *info,
                       mmnc_err *err)
{
    mmnc_i_threads saved = {1, 1};
    int status = MMNC_OK, pushed = 0, T = 1;
    ctx c;
    vword *vw = NULL;
    char **names = NULL;
    mmnc_int nv = 0, *pos = NULL, *tcol = NULL, *rp = NULL;
    double *tval = NULL;
    mmnc_csr *A = NULL;
    uint64_t L = 1;
    int64_t vtokens = 0;
    mmnc_outfile tokfile;
    int tok_open = 0;

    memset(&c, 0, sizeof c);
    if (out) *out = NULL;
    if (vocab) *vocab = NULL;
    if (nvocab) *nvocab = 0;
    if (info) memset(info, 0, sizeof *info);
    if (!paths || npaths < 1 || !o || !out)
        return mmnc_i_err(err, MMNC_EINVAL, "mmnc_cooc_build: no input files or NULL argument");
    for (int f = 0; f < npaths; f++) {
        if (!paths[f]) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_cooc_build: path %d is NULL", f);
        if (!strcmp(paths[f], "-"))
            return mmnc_i_err(err, MMNC_EINVAL, "standard input cannot be read twice: co-occurrence "
                              "counting reads its files in two passes; give file names");
    }
    if (o->window < 1 || o->window > MMNC_COOC_WINDOW_MAX)
        return mmnc_i_err(err, MMNC_EINVAL, "window must be between 1 and %d (got %d)", MMNC_COOC_WINDOW_MAX,
                          o->window);
    if (o->weighting != 0 && o->weighting != 1)
        return mmnc_i_err(err, MMNC_EINVAL, "weighting must be 0 (flat) or 1 (harmonic), got %d",
                          o->weighting);
    if (o->min_count < 1)
        return mmnc_i_err(err, MMNC_EINVAL, "min_count must be at least 1 (got %lld)",
                          (long long)o->min_count);
    if (o->max_vocab < 0 || o->max_vocab > INT32_MAX - 1)
        return mmnc_i_err(err, MMNC_EINVAL, "max_vocab must be between 0 and %d (got %lld)",
                          INT32_MAX - 1, (long long)o->max_vocab);
    if (o->threads < 0)
        return mmnc_i_err(err, MMNC_EINVAL, "threads must be >= 0 (got %d)", o->threads);
    if (o->max_memory > 0 && o->max_memory < MMNC_COOC_MEMORY_MIN)
        return mmnc_i_err(err, MMNC_EINVAL,
                          "max_memory must be 0 (no limit) or at least %zu bytes (64 KiB), got %zu",
                          (size_t)MMNC_COOC_MEMORY_MIN, o->max_memory);

    saved = mmnc_i_threads_push(o->threads);
    pushed = 1;
    T = MAX_THREADS();
    if (T < 1) T = 1;
    if (T > 64) T = 64;
    c.o = o;
    c.nthreads = T;
    c.bufcap = (size_t)T * CHUNK;
    MMNC_ALLOC(c.buf, c.bufcap, err, status);
    MMNC_CALLOC(c.sinks, T, err, status);
    MMNC_CALLOC(c.words, T, err, status);
    MMNC_CALLOC(c.pairs, T, err, status);
    MMNC_CALLOC(c.tstatus, T, err, status);
    MMNC_ALLOC(c.unit, o->window + 1, err, status);

    /* Integer units: weight 1/d is unit[d] / L, exact for window <= 18. */
    if (o->weighting == 1) {
        if (o->window <= EXACT_WINDOW)
            for (uint64_t d = 2; d <= (uint64_t)o->window; d++) L = L / gcd64(L, d) * d;
        else L = ROUND_UNITS;
    }
    c.unit[0] = 0;
    for (int d = 1; d <= o->window; d++)
        c.unit[d] = o->weighting == 1 ? (L + (uint64_t)d / 2) / (uint64_t)d : 1;

    /* Pass 1: word counts. */
    c.pass = 1;
    for (int t = 0; t < T; t++) {
        if (wtab_init(&c.words[t], 1 << 12) != MMNC_OK) {
            status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
            goto cleanup;
        }
        c.sinks[t].words = &c.words[t];
    }
    for (int f = 0; f < npaths; f++)
        if ((status = do_file(&c, paths[f], err)) != MMNC_OK) goto cleanup;
    if (info) info->tokens = c.tokens;
    for (int t = 1; t < T; t++) {
        const wtab *w = &c.words[t];
        for (size_t i = 0; i < w->cap; i++) {
            const wslot *e = &w->s[i];
            if (!e->count) continue;
            const char *s = w->arena + e->off;
            if (wtab_add(&c.words[0], s, strlen(s), e->h, e->count) != MMNC_OK) {
                status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
                goto cleanup;
            }
        }
        wtab_free(&c.words[t]);
    }

    /* The vocabulary. */
    {
        const wtab *w = &c.words[0];
        mmnc_int nw = 0;
        MMNC_ALLOC(vw, w->n, err, status);
        for (size_t i = 0; i < w->cap; i++)
            if (w->s[i].count >= o->min_count) {
                vw[nw].w = w->arena + w->s[i].off;
                vw[nw].count = w->s[i].count;
                nw++;
            }
        if (nw == 0) {
            status = mmnc_i_err(err, MMNC_EINVAL, "no word occurs at least %lld times",
                                (long long)o->min_count);
            goto cleanup;
        }
        qsort(vw, (size_t)nw, sizeof *vw, vword_cmp);
        nv = o->max_vocab > 0 && o->max_vocab < nw ? o->max_vocab : nw;
        if (nv > INT32_MAX - 1) {
            status = mmnc_i_err(err, MMNC_EINVAL, "vocabulary too large (%lld words)", (long long)nv);
            goto cleanup;
        }
        MMNC_CALLOC(names, nv, err, status);
        if (wtab_init(&c.vocab, 1 << 12) != MMNC_OK) {
            status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
            goto cleanup;
        }
        for (mmnc_int i = 0; i < nv; i++) {
            size_t len = strlen(vw[i].w);
            names[i] = mmnc_i_strdup(vw[i].w);
            if (!names[i] || wtab_add(&c.vocab, vw[i].w, len, hash_str(vw[i].w, len), i + 1)) {
                status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
                goto cleanup;
            }
            vtokens += vw[i].count;
        }
        mmnc_i_free(vw);
        vw = NULL;
        wtab_free(&c.words[0]);
    }
    /* Every entry of the upper triangle is at most 2 L * (kept tokens) * window. */
    if (2.0 * (double)L * (double)vtokens * (double)o->window > 9.2e18) {
        status = mmnc_i_err(err, MMNC_EINVAL,
                             "corpus too large for exact counting (%lld tokens, window %d)",
                             (long long)vtokens, o->window);
        goto cleanup;
    }

    /* Pass 2: pair counts. */
    c.pass = 2;
    c.tokens = 0;
    c.blocks = 0;
    if (o->tokens) {
        if ((status = mmnc_outfile_open(&tokfile, o->tokens, err)) != MMNC_OK) goto cleanup;
        tok_open = 1;
        c.tok = tokfile.fp;
        c.names = names;
        c.tok_para = 1;
    }
    /* Under a memory limit each thread's table gets an equal share; a full
     * table is spilled as a sorted run (count_pairs). */
    size_t maxcap = 0, initcap = 1 << 14;
    if (o->max_memory > 0) {
        maxcap = table_cap(o->max_memory / (size_t)T);
        if (initcap > maxcap) initcap = maxcap;
        if ((status = mmnc_i_spill_open(&c.spill, o->max_memory, err)) != MMNC_OK) goto cleanup;
    }
    for (int t = 0; t < T; t++) {
        c.sinks[t].words = NULL;
        c.sinks[t].vocab = &c.vocab;
        if (ptab_init(&c.pairs[t], initcap) != MMNC_OK) {
            status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
            goto cleanup;
        }
        c.pairs[t].maxcap = maxcap;
    }
    for (int f = 0; f < npaths; f++)
        if ((status = do_file(&c, paths[f], err)) != MMNC_OK) goto cleanup;
    c.tok = NULL;
    for (int t = 0; t < T; t++) {
        mmnc_i_free(c.sinks[t].ids);
        c.sinks[t].ids = NULL;
    }
    mmnc_i_free(c.seq);
    c.seq = NULL;
    wtab_free(&c.vocab);
    if (c.spill && mmnc_i_spill_runs(c.spill) > 0) {
        /* Spilled: what is left in the tables becomes runs too, the tables
         * go, and the merge fills the result (see fill_row). */
        fill_ctx f = {NULL, NULL, NULL, (double)L};
        for (int t = 0; t < T; t++) {
            if ((status = ptab_spill(&c.pairs[t], c.spill)) != MMNC_OK) {
                mmnc_i_spill_error(c.spill, err);
                goto cleanup;
            }
            ptab_free(&c.pairs[t]);
        }
        MMNC_CALLOC(rp, nv + 1, err, status);
        MMNC_ALLOC(pos, nv, err, status);
        f.rp = rp;
        if ((status = mmnc_i_spill_merge(c.spill, count_row, &f, err)) != MMNC_OK) goto cleanup;
        for (mmnc_int i = 0; i < nv; i++) rp[i + 1] += rp[i];
        A = mmnc_csr_alloc(nv, nv, rp[nv], err);
        if (!A) {
            status = MMNC_ENOMEM;
            goto cleanup;
        }
        memcpy(A->rowptr, rp, (size_t)(nv + 1) * sizeof(mmnc_int));
        memcpy(pos, rp, (size_t)nv * sizeof(mmnc_int));
        f.pos = pos;
        f.A = A;
        if ((status = mmnc_i_spill_merge(c.spill, fill_row, &f, err)) != MMNC_OK) goto cleanup;
        if (info) {
            info->runs = mmnc_i_spill_runs(c.spill);
            info->spilled_bytes = mmnc_i_spill_bytes(c.spill);
        }
    } else {
        /* All in memory.  CSR: row a gets (a, b) and, off the diagonal, row b
         * gets (b, a), first unsorted into (tcol, tval); then a
         * counting-sort transpose, which sorts every row and, the matrix
         * being symmetric, changes nothing else.  The tables hold disjoint
         * sets of keys. */
        mmnc_int nnz = 0;
        for (int t = 0; t < T; t++) {
            const ptab *p = &c.pairs[t];
            for (size_t i = 0; i < p->cap; i++)
                if (p->s[i].key != EMPTY_KEY)
                    nnz += (p->s[i].key >> 32) == (p->s[i].key & 0xffffffffu) ? 1 : 2;
        }
        MMNC_CALLOC(rp, nv + 1, err, status);
        MMNC_ALLOC(pos, nv, err, status);
        MMNC_ALLOC(tcol, nnz, err, status);
        MMNC_ALLOC(tval, nnz, err, status);
        for (int t = 0; t < T; t++) {
            const ptab *p = &c.pairs[t];
            for (size_t i = 0; i < p->cap; i++) {
                uint64_t key = p->s[i].key;
                if (key == EMPTY_KEY) continue;
                mmnc_int a = (mmnc_int)(key >> 32), b = (mmnc_int)(key & 0xffffffffu);
                rp[a + 1]++;
                if (a != b) rp[b + 1]++;
            }
        }
        for (mmnc_int i = 0; i < nv; i++) rp[i + 1] += rp[i];
        memcpy(pos, rp, (size_t)nv * sizeof(mmnc_int));
        for (int t = 0; t < T; t++) {
            const ptab *p = &c.pairs[t];
            for (size_t i = 0; i < p->cap; i++) {
                uint64_t key = p->s[i].key;
                if (key == EMPTY_KEY) continue;
                mmnc_int a = (mmnc_int)(key >> 32), b = (mmnc_int)(key & 0xffffffffu);
                double v = (double)p->s[i].val / (double)L;
                tcol[pos[a]] = b;
                tval[pos[a]++] = v;
                if (a != b) {
                    tcol[pos[b]] = a;
                    tval[pos[b]++] = v;
                }
            }
            ptab_free(&c.pairs[t]);
        }
        /* the tables are gone before the result is allocated */
        A = mmnc_csr_alloc(nv, nv, nnz, err);
        if (!A) {
            status = MMNC_ENOMEM;
            goto cleanup;
        }
        memcpy(A->rowptr, rp, (size_t)(nv + 1) * sizeof(mmnc_int));
        memcpy(pos, rp, (size_t)nv * sizeof(mmnc_int));
        for (mmnc_int i = 0; i < nv; i++)
            for (mmnc_int q = rp[i]; q < rp[i + 1]; q++) {
                mmnc_int j = tcol[q];
                A->colind[pos[j]] = i;
                A->val[pos[j]++] = tval[q];
            }
    }

    if (tok_open) {
        tok_open = 0;
        if ((status = mmnc_outfile_commit(&tokfile, err)) != MMNC_OK) goto cleanup;
    }
    *out = A;
    A = NULL;
    if (vocab) {
        *vocab = names;
        names = NULL;
    }
    if (nvocab) *nvocab = nv;

cleanup:
    if (pushed) mmnc_i_threads_pop(saved);
    if (tok_open) mmnc_outfile_abort(&tokfile);
    if (c.words)
        for (int t = 0; t < T; t++) wtab_free(&c.words[t]);
    if (c.pairs)
        for (int t = 0; t < T; t++) ptab_free(&c.pairs[t]);
    if (c.sinks)
        for (int t = 0; t < T; t++) mmnc_i_free(c.sinks[t].ids);
    wtab_free(&c.vocab);
    mmnc_i_free(c.buf);
    mmnc_i_free(c.sinks);
    mmnc_i_free(c.words);
    mmnc_i_free(c.pairs);
    mmnc_i_free(c.tstatus);
    mmnc_i_free(c.unit);
    mmnc_i_free(c.seq);
    mmnc_i_free(vw);
    mmnc_i_free(pos);
    mmnc_i_free(tcol);
    mmnc_i_free(rp);
    mmnc_i_free(tval);
    if (names) {
        for (mmnc_int i = 0; i < nv; i++) mmnc_i_free(names[i]);
        mmnc_i_free(names);
    }
    mmnc_csr_free(A);
    mmnc_i_spill_close(c.spill); /* the file goes with it */
    if (status != MMNC_OK && info) memset(info, 0, sizeof *info);
    return status;
}
