/*
 * util.c -- messages, strict option parsing, JSON strings, progress.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static void vsay(const char *cmd, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    /* one write per message, so that the lines of several ranks do not mix */
    if (cli_nranks() > 1) fprintf(stderr, "mmnc %s [rank %d of %d]: %s\n", cmd, cli_rank(), cli_nranks(), msg);
    else fprintf(stderr, "mmnc %s: %s\n", cmd, msg);
}

int cli_fail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(cmd, fmt, ap);
    va_end(ap);
    return CLI_EXIT_FAIL;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    if (cli_rank() != 0) return CLI_EXIT_USAGE; /* every rank finds it; rank 0 says it */
    va_start(ap, fmt);
    vsay(cmd, fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try 'mmnc %s --help'.\n", cmd);
    return CLI_EXIT_USAGE;
}

/* A library message as a shell user reads it: the C API's names in its
 * hints ("MMNC_FMT_DENSE, mmnc --format dense", "extra_fields = 1, mmnc
 * --extra-fields ignore", "(MMNC_MAX_EMPTY_ROWS)") left out, their
 * command-line forms kept: the CLI shows no C names. */
static void user_words(const char *in, char *out, size_t n)
{
    size_t o = 0;
    while (*in && o + 1 < n) {
        const char *c = in;
        if (!strncmp(c, "mmnc --", 7) && (o == 0 || !isalnum((unsigned char)out[o - 1]))) {
            in += 5; /* "mmnc --format dense": the option as the user types it to this command */
            continue;
        }
        if (!strncmp(c, " (MMNC_", 7)) { /* " (MMNC_X)", a limit's name */
            c += 7;
            while (isupper((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_') c++;
            if (*c == ')') {
                in = c + 1;
                continue;
            }
            c = in;
        }
        if (!strncmp(c, "MMNC_", 5)) { /* MMNC_X[ or MMNC_Y...][, |; ] */
            for (;;) {
                c += 5;
                while (isupper((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_') c++;
                if (!strncmp(c, " or MMNC_", 9)) c += 4;
                else break;
            }
            if ((c[0] == ',' || c[0] == ';') && c[1] == ' ') {
                in = c + 2;
                continue;
            }
        } else if (islower((unsigned char)*c) && (o == 0 || !isalnum((unsigned char)out[o - 1]))) {
            while (islower((unsigned char)*c) || *c == '_') c++; /* a C field: "extra_fields = 1, " */
            if (memchr(in, '_', (size_t)(c - in)) && !strncmp(c, " = ", 3)) {
                c += 3;
                while (*c && *c != ',' && *c != ';' && *c != ')' && *c != ' ') c++;
                if ((c[0] == ',' || c[0] == ';') && c[1] == ' ') {
                    in = c + 2;
                    continue;
                }
            }
        }
        out[o++] = *in++;
    }
    out[o] = '\0';
}

int cli_lib_fail(const char *cmd, const mmnc_err *err)
{
    char msg[sizeof err->msg];
    user_words(err->msg[0] ? err->msg : mmnc_strerror(err->code), msg, sizeof msg);
    return cli_fail(cmd, "%s", msg);
}

int cli_parse_int(const char *cmd, const char *opt, const char *s, long long min, long long max, long long *out)
{
    char *end;
    long long v;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < min || v > max) {
        cli_usage_error(cmd, "option %s: expected an integer from %lld to %lld, got '%s'", opt, min, max, s);
        return 1;
    }
    *out = v;
    return 0;
}

int cli_parse_double(const char *cmd, const char *opt, const char *s, double min, double max, double *out)
{
    double v;
    if (mmnc_number_parse(s, strlen(s), &v, NULL) != MMNC_OK || v < min || v > max) {
        cli_usage_error(cmd, "option %s: expected a decimal number from %g to %g, got '%s'", opt, min, max, s);
        return 1;
    }
    *out = v;
    return 0;
}

/* The length of the valid UTF-8 sequence at c (1 to 4), or 0 if its bytes
 * are not one (a stray continuation byte, an overlong form, a surrogate, a
 * code point above U+10FFFF, or a sequence cut short). */
static int utf8_len(const unsigned char *c)
{
    int n;
    unsigned cp;
    if (c[0] < 0x80) return 1;
    if (c[0] >= 0xc2 && c[0] <= 0xdf) n = 2, cp = c[0] & 0x1f;
    else if (c[0] >= 0xe0 && c[0] <= 0xef) n = 3, cp = c[0] & 0x0f;
    else if (c[0] >= 0xf0 && c[0] <= 0xf4) n = 4, cp = c[0] & 0x07;
    else return 0;
    for (int i = 1; i < n; i++) {
        if ((c[i] & 0xc0) != 0x80) return 0; /* also the terminating NUL */
        cp = cp << 6 | (c[i] & 0x3f);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return n;
}

void cli_json_string(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        int n = utf8_len(c);
        if (n == 0) { /* not UTF-8: the byte as the text \xHH, as mmnc docs names such bytes */
            fprintf(fp, "\\\\x%02x", *c);
            continue;
        }
        if (n > 1) {
            fwrite(c, 1, (size_t)n, fp);
            c += n - 1;
            continue;
        }
        switch (*c) {
        case '"': fputs("\\\"", fp); break;
        case '\\': fputs("\\\\", fp); break;
        case '\n': fputs("\\n", fp); break;
        case '\r': fputs("\\r", fp); break;
        case '\t': fputs("\\t", fp); break;
        default:
            if (*c < 0x20) fprintf(fp, "\\u%04x", *c);
            else fputc(*c, fp);
        }
    }
    fputc('"', fp);
}

void cli_json_number(FILE *fp, double v, int digits)
{
    if (isfinite(v)) fprintf(fp, "%.*g", digits, v);
    else fputs("null", fp);
}

void cli_json_numbers(FILE *fp, const double *v, mmnc_int n, int digits)
{
    fputc('[', fp);
    for (mmnc_int i = 0; i < n; i++) {
        if (i) fputs(", ", fp);
        cli_json_number(fp, v[i], digits);
    }
    fputc(']', fp);
}

void cli_tsv_field(FILE *fp, const char *s)
{
    for (; *s; s++) {
        if (*s == '\t') fputs("\\t", fp);
        else if (*s == '\n') fputs("\\n", fp);
        else if (*s == '\r') fputs("\\r", fp);
        else fputc(*s, fp);
    }
}

uint64_t cli_hash(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
    return h ^ (h >> 29);
}

int cli_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

size_t cli_bom_len(const char *buf, size_t len)
{
    return len >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3) ? 3 : 0;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

char *cli_vocab_path(const char *out)
{
    char *p = NULL;
    if (cli_ends_with(out, ".bin")) {
        size_t n = strlen(out) - 4;
        if ((p = malloc(n + sizeof ".vocab"))) {
            memcpy(p, out, n);
            memcpy(p + n, ".vocab", sizeof ".vocab");
        }
        return p;
    }
    return mmnc_mtx_side_path(out, ".vocab", &p, NULL) == MMNC_OK ? p : NULL;
}

/* The status line's width on a terminal: one character less than the
 * terminal's, so that it never wraps (a wrapped line cannot be redrawn
 * with \r); 79 where the terminal does not say. */
static int tty_width(void)
{
    struct winsize ws;
    int w = 80;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) w = ws.ws_col;
    w -= 1;
    if (w < 20) w = 20;
    if (w > (int)sizeof ((cli_progress *)0)->line - 1) w = (int)sizeof ((cli_progress *)0)->line - 1;
    return w;
}

void cli_progress_start(cli_progress *p, int quiet)
{
    memset(p, 0, sizeof *p);
    p->t0 = cli_now();
    p->last = p->t0;
    p->quiet = quiet;
    p->tty = !quiet && isatty(STDERR_FILENO);
    if (p->tty) p->width = tty_width();
}

/* "[  12.3s] " and the message, at most size bytes with the NUL. */
static void progress_format(const cli_progress *p, double now, char *buf, size_t size, const char *fmt, va_list ap)
{
    int n = snprintf(buf, size, "[%6.1fs] ", now - p->t0);
    if (n < 0 || (size_t)n >= size) return;
    vsnprintf(buf + n, size - (size_t)n, fmt, ap);
}

static void progress_draw(cli_progress *p)
{
    fprintf(stderr, "\r%.*s\033[K", p->width, p->line);
    fflush(stderr);
    p->shown = 1;
}

static void progress_clear(cli_progress *p)
{
    if (!p->shown) return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    p->shown = 0;
}

void cli_progress_say(cli_progress *p, const char *fmt, ...)
{
    double now = cli_now();
    va_list ap;
    if (p->quiet) return;
    if (now - p->last < (p->tty ? 0.1 : 10.0)) return;
    p->last = now;
    va_start(ap, fmt);
    progress_format(p, now, p->line, sizeof p->line, fmt, ap);
    va_end(ap);
    if (p->tty) progress_draw(p);
    else fprintf(stderr, "%s\n", p->line);
}

void cli_progress_log(cli_progress *p, const char *fmt, ...)
{
    char buf[sizeof p->line];
    va_list ap;
    if (p->quiet) return;
    va_start(ap, fmt);
    progress_format(p, cli_now(), buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (p->tty && p->shown) {
        fprintf(stderr, "\r%s\033[K\n", buf);
        progress_draw(p); /* the status line again, below the line that stays */
    } else {
        fprintf(stderr, "%s\n", buf);
    }
}

void cli_progress_end(cli_progress *p)
{
    if (p->tty) progress_clear(p);
}

/* Seconds as "12s", "3m05s" or "1h02m". */
const char *cli_duration(double s, char *buf)
{
    long t = s > 0 ? (long)(s + 0.5) : 0;
    if (t < 60) sprintf(buf, "%lds", t);
    else if (t < 3600) sprintf(buf, "%ldm%02lds", t / 60, t % 60);
    else sprintf(buf, "%ldh%02ldm", t / 3600, t % 3600 / 60);
    return buf;
}

int cli_parse_algorithm(const char *cmd, const char *s, int *alg)
{
    if (!strcmp(s, "nuclear") || !strcmp(s, "2")) *alg = MMNC_ALG_NUCLEAR;
    else if (!strcmp(s, "frobenius") || !strcmp(s, "1")) *alg = MMNC_ALG_FROBENIUS;
    else if (!strcmp(s, "information") || !strcmp(s, "3")) *alg = MMNC_ALG_INFORMATION;
    else if (!strcmp(s, "dmm") || !strcmp(s, "4")) *alg = MMNC_ALG_DMM;
    else if (!strcmp(s, "auto") || !strcmp(s, "0")) *alg = MMNC_ALG_AUTO;
    else {
        cli_usage_error(cmd, "--algorithm: expected auto, dmm, information, nuclear or frobenius (or 0, 4, 3, 2, 1), got '%s'", s);
        return 1;
    }
    return 0;
}

int cli_parse_init(const char *cmd, const char *s, int *init)
{
    if (!strcmp(s, "spectral")) *init = MMNC_INIT_SPECTRAL;
    else if (!strcmp(s, "kmeans++")) *init = MMNC_INIT_KMEANSPP;
    else if (!strcmp(s, "random")) *init = MMNC_INIT_RANDOM;
    else {
        cli_usage_error(cmd, "--init: expected spectral, kmeans++ or random, got '%s'", s);
        return 1;
    }
    return 0;
}

int cli_parse_select(const char *cmd, const char *s, int *select)
{
    if (!strcmp(s, "predictive")) *select = MMNC_SELECT_PREDICTIVE;
    else if (!strcmp(s, "objective")) *select = MMNC_SELECT_OBJECTIVE;
    else {
        cli_usage_error(cmd, "--select: expected predictive or objective, got '%s'", s);
        return 1;
    }
    return 0;
}

const char *cli_init_name(int init)
{
    return init == MMNC_INIT_SPECTRAL ? "spectral"
         : init == MMNC_INIT_KMEANSPP ? "kmeans++"
         : init == MMNC_INIT_ROWS     ? "rows"
                                      : "random";
}

const char *cli_algorithm_name(int algorithm)
{
    return algorithm == MMNC_ALG_NUCLEAR       ? "nuclear"
         : algorithm == MMNC_ALG_INFORMATION ? "information"
         : algorithm == MMNC_ALG_DMM         ? "dmm"
         : algorithm == MMNC_ALG_AUTO        ? "auto"
                                             : "frobenius";
}

int cli_best_score(const mmnc_result *res)
{
    int b = 0;
    for (int i = 1; i < res->restarts; i++)
        if (res->restart_score[i] > res->restart_score[b]) b = i;
    return b;
}

void cli_json_selection(FILE *fp, const mmnc_result *res, double tol)
{
    if (res->select != MMNC_SELECT_PREDICTIVE) {
        fprintf(fp, "  \"selection\": {\"rule\": \"objective\", \"chosen_restart\": %d, "
                    "\"objective_restart\": %d, \"why\": \"%s%s\"},\n",
                res->best_restart, res->objective_restart,
                res->best_restart == res->objective_restart
                    ? "the start with the best objective"
                    : "the best objective among the starts whose guard kept the size prior: the start with the "
                      "best objective returned a prior-free partition of less information I(X;Z)",
                res->merge_split_kept > 0 ? "; then merge-split trials from it, kept where the objective rose" : "");
        return;
    }
    fprintf(fp, "  \"selection\": {\"rule\": \"guarded\", \"tolerance\": ");
    cli_json_number(fp, tol, CLI_JSON_EXACT);
    fprintf(fp, ", \"chosen_restart\": %d, \"objective_restart\": %d, \"best_score_restart\": %d,\n",
            res->best_restart, res->objective_restart, cli_best_score(res));
    fprintf(fp, "    \"why\": \"%s\",\n",
            res->best_restart == res->objective_restart
                ? "the start with the best leave-one-row-out predictive information also has the best objective"
                : tol > 0 ? "the best objective among the starts within the tolerance of the best predictive "
                            "information; the starts with higher objectives predict held-out rows worse"
                          : "the start with the best leave-one-row-out predictive information; the starts with "
                            "higher objectives predict held-out rows worse");
    fprintf(fp, "    \"restart_scores\": ");
    cli_json_numbers(fp, res->restart_score, res->restarts, CLI_JSON_EXACT);
    fprintf(fp, ",\n    \"restart_alphas\": ");
    cli_json_numbers(fp, res->restart_alpha, res->restarts, CLI_JSON_EXACT);
    if (res->refine == MMNC_REFINE_CHOSEN) {
        fprintf(fp, ",\n    \"refined_score\": ");
        cli_json_number(fp, res->refined_score, CLI_JSON_EXACT);
    }
    fprintf(fp, "},\n");
}

int cli_part_open(const char *cmd, cli_part *part, FILE *out)
{
    memset(part, 0, sizeof *part);
    if (cli_nranks() == 1) {
        part->fp = out;
        return CLI_EXIT_OK;
    }
    part->mem = 1;
    if (!(part->fp = open_memstream(&part->buf, &part->len))) return cli_fail(cmd, "out of memory");
    return CLI_EXIT_OK;
}

int cli_part_write(const char *cmd, cli_part *part, FILE *out)
{
    int rc;
    if (!part->mem) {
        part->fp = NULL;
        return CLI_EXIT_OK;
    }
    if (fclose(part->fp) != 0) {
        part->fp = NULL;
        return cli_fail(cmd, "out of memory");
    }
    part->fp = NULL;
    rc = cli_write_parts(cmd, out, part->buf, part->len);
    free(part->buf);
    part->buf = NULL;
    return rc;
}

void cli_part_close(cli_part *part)
{
    if (part->mem && part->fp) fclose(part->fp);
    free(part->buf);
    memset(part, 0, sizeof *part);
}

/* ---- temporary files on a signal (cli.h) ----------------------------------- */

/* The registered names: each written before tmp_count grows past it, so the
 * handler reads only complete names.  tmp_state says what a signal does:
 * TMP_IDLE, remove the names and end the process with the signal; TMP_HELD
 * (between cli_tmp_hold and cli_tmp_release, on any thread: OpenMP's keep
 * the signals unblocked), remember it for cli_tmp_release; TMP_DYING, a
 * handler is at work already. */
#define TMP_MAX_NAMES 40
enum { TMP_IDLE, TMP_HELD, TMP_DYING };
static char tmp_names[TMP_MAX_NAMES][PATH_MAX];
static char tmp_isdir[TMP_MAX_NAMES];
static volatile sig_atomic_t tmp_count, tmp_pending;
static atomic_int tmp_state;
static const int tmp_sigs[] = {SIGINT, SIGTERM, SIGHUP};

static void tmp_on_signal(int sig)
{
    struct sigaction dfl;
    int idle = TMP_IDLE;
    if (!atomic_compare_exchange_strong(&tmp_state, &idle, TMP_DYING)) {
        if (idle == TMP_HELD) {
            tmp_pending = sig;
            return;
        }
        for (;;) pause(); /* another thread's handler removes the names and ends the process */
    }
    for (int pass = 0; pass < 2; pass++) /* the files, then their (then empty) directories */
        for (sig_atomic_t i = 0; i < tmp_count; i++)
            if (tmp_isdir[i] == pass) (pass ? rmdir : unlink)(tmp_names[i]);
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig); /* the default action: the exit status says which signal */
}

static void tmp_install(void)
{
    static int installed;
    if (installed) return;
    installed = 1;
    for (size_t i = 0; i < sizeof tmp_sigs / sizeof tmp_sigs[0]; i++) {
        struct sigaction sa, old;
        if (sigaction(tmp_sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN) continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = tmp_on_signal;
        sa.sa_flags = SA_RESTART; /* a signal held off returns to the interrupted call */
        sigemptyset(&sa.sa_mask);
        for (size_t j = 0; j < sizeof tmp_sigs / sizeof tmp_sigs[0]; j++) sigaddset(&sa.sa_mask, tmp_sigs[j]);
        sigaction(tmp_sigs[i], &sa, NULL);
    }
}

void cli_tmp_name(const char *name, int dir)
{
    int n = tmp_count;
    tmp_install();
    if (n >= TMP_MAX_NAMES || strlen(name) >= PATH_MAX) return;
    strcpy(tmp_names[n], name);
    tmp_isdir[n] = (char)(dir != 0);
    tmp_count = n + 1;
}

void cli_tmp_watch(const char *path)
{
    char *tmp = NULL;
    if (mmnc_outfile_tmp_path(path, &tmp, NULL) != MMNC_OK) return;
    cli_tmp_name(tmp, 0);
    mmnc_free(tmp);
}

void cli_tmp_forget(void)
{
    tmp_count = 0;
}

void cli_tmp_hold(void)
{
    sigset_t set;
    int idle = TMP_IDLE;
    tmp_install();
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof tmp_sigs / sizeof tmp_sigs[0]; i++) sigaddset(&set, tmp_sigs[i]);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    if (!atomic_compare_exchange_strong(&tmp_state, &idle, TMP_HELD))
        for (;;) pause(); /* a handler on another thread is ending the process */
}

void cli_tmp_release(void)
{
    sigset_t set;
    int sig = tmp_pending;
    tmp_pending = 0;
    atomic_store(&tmp_state, TMP_IDLE);
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof tmp_sigs / sizeof tmp_sigs[0]; i++) sigaddset(&set, tmp_sigs[i]);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL); /* a signal that came meanwhile to this thread is handled here */
    if (sig) raise(sig);                      /* and one that another thread held off */
}

/* DATA's base name without directory and extensions. */
static char *data_stem(const char *path)
{
    const char *b = strrchr(path, '/');
    char *p = strdup(b ? b + 1 : path), *dot;
    if (p && (dot = strchr(p, '.')) != NULL && dot != p) *dot = '\0';
    return p;
}

const char *cli_lookup_name(char **names, mmnc_int n, int keyed, const char *id, mmnc_int orig)
{
    if (!names) return NULL;
    if (keyed) {
        char *end;
        long long i = strtoll(id, &end, 10);
        return (*end == '\0' && end != id && i >= 1 && i <= n) ? names[i - 1] : NULL;
    }
    return orig < n ? names[orig] : NULL;
}

const char *cli_refine_name(int refine)
{
    return refine == MMNC_REFINE_CHOSEN ? "chosen" : refine == MMNC_REFINE_EACH ? "each" : "none";
}

const char *cli_moves_name(int moves)
{
    return moves == MMNC_MOVES_BATCH ? "batch" : moves == MMNC_MOVES_AUTO ? "auto" : "sequential";
}

const char *cli_select_name(int select)
{
    return select == MMNC_SELECT_PREDICTIVE ? "predictive" : "objective";
}

const char *cli_model_rule(const mmnc_model *m)
{
    if (m->algorithm == MMNC_ALG_DMM && m->cluster_rows) return "dmm";
    if (m->algorithm == MMNC_ALG_INFORMATION || m->algorithm == MMNC_ALG_DMM || m->refine != MMNC_REFINE_NONE)
        return "information";
    return m->algorithm == MMNC_ALG_NUCLEAR ? "nuclear" : "channel";
}

const char *cli_row_label(const cli_namer *nm, mmnc_int y, char *buf)
{
    const char *id = mmnc_data_row_id(nm->d, y, buf), *s;
    if (nm->rfill && nm->rfill[y]) return nm->rfill[y];
    s = cli_lookup_name(nm->rn, nm->nr, nm->keyed, id, nm->d->row_orig ? nm->d->row_orig[y] : y);
    return s ? s : id;
}

const char *cli_col_label(const cli_namer *nm, mmnc_int x, char *buf)
{
    const char *id = mmnc_data_col_id(nm->d, x, buf), *s;
    if (nm->cfill && nm->cfill[x]) return nm->cfill[x];
    s = cli_lookup_name(nm->cn, nm->nc, nm->keyed, id, nm->d->col_orig ? nm->d->col_orig[x] : x);
    return s ? s : id;
}

/* A name of a keyed names file and its id (1-based), sorted by name. */
typedef struct named {
    const char *s;
    mmnc_int id;
} named;

static int named_cmp(const void *a, const void *b) { return strcmp(((const named *)a)->s, ((const named *)b)->s); }
static int str_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static const named *named_find(const named *v, mmnc_int n, const char *s)
{
    named key = {s, 0};
    return n ? bsearch(&key, v, (size_t)n, sizeof *v, named_cmp) : NULL;
}

/* The first of v (n strings in strcmp order) that does not sort before s. */
static mmnc_int lower_bound(char *const *v, mmnc_int n, const char *s)
{
    mmnc_int lo = 0, hi = n;
    while (lo < hi) {
        mmnc_int mid = lo + (hi - lo) / 2;
        if (strcmp(v[mid], s) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Bit k - k0 set where p (an id and '#') followed by k as "%lld" writes it
 * is one of v (n strings in strcmp order), for k = k0 .. k0 + 63.  The
 * strings that start with p follow each other in that order. */
static uint64_t taken_window(char *const *v, mmnc_int n, const char *p, long long k0)
{
    size_t lp = strlen(p);
    uint64_t m = 0;
    for (mmnc_int i = lower_bound(v, n, p); i < n && !strncmp(v[i], p, lp); i++) {
        const char *s = v[i] + lp;
        long long k = 0;
        int d = 0;
        if (*s < '1' || *s > '9') continue; /* no sign, no leading 0 */
        for (; d < 18 && s[d] >= '0' && s[d] <= '9'; d++) k = 10 * k + (s[d] - '0');
        if (s[d] == '\0' && k >= k0 && k - k0 < 64) m |= (uint64_t)1 << (k - k0);
    }
    return m;
}

/* k[i] for the i-th of this rank's nmine strings "ID#" (mine, len bytes,
 * each NUL-terminated): the first k >= 2 for which ID#k is none of avoid
 * (navoid strings in strcmp order).  When `collective` (mmnc-mpi's rows)
 * every rank's avoid counts: each rank checks the job's IDs (cli_strs_agree)
 * against its own, 64 values of k at a time, and cli_masks_or joins the
 * answers, until each ID has a k that no rank holds; every rank sees the
 * same masks, so all run the same rounds.  A k depends on its ID and on
 * the set of ids and names, not on the order of the rows: one process's on
 * any number of ranks.  Called with rc, a failure on some rank, it still
 * takes part; returns the worst rc of the ranks. */
static int number_ids(const char *cmd, int rc, int collective, char *const *avoid, mmnc_int navoid, const char *mine,
                      size_t len, mmnc_int nmine, long long *k)
{
    char *got = NULL;
    const char *all = mine, **id = NULL;
    size_t nall = len, at = 0;
    mmnc_int nid = 0, nlive = 0, from = 0, *live = NULL;
    uint64_t *m = NULL;
    long long *kall = NULL;
    if (collective) rc = cli_strs_agree(cmd, rc, mine, len, &got, &nall, &at), all = got;
    if (rc != CLI_EXIT_OK) return rc;
    for (size_t i = 0; i < nall; i += strlen(all + i) + 1) nid++;
    id = malloc((size_t)(nid ? nid : 1) * sizeof *id);
    live = malloc((size_t)(nid ? nid : 1) * sizeof *live);
    m = malloc((size_t)(nid ? nid : 1) * sizeof *m);
    kall = malloc((size_t)(nid ? nid : 1) * sizeof *kall);
    if (!id || !live || !m || !kall) rc = cli_fail(cmd, "out of memory");
    if (collective) rc = cli_agree(rc);
    if (rc == CLI_EXIT_OK) {
        for (size_t i = 0; i < nall; i += strlen(all + i) + 1) {
            if (i == at) from = nlive;
            live[nlive] = nlive;
            id[nlive++] = all + i;
        }
        for (long long k0 = 2; nlive; k0 += 64) {
            mmnc_int still = 0;
            for (mmnc_int j = 0; j < nlive; j++) m[j] = taken_window(avoid, navoid, id[live[j]], k0);
            if (collective) cli_masks_or(m, nlive);
            for (mmnc_int j = 0; j < nlive; j++) {
                int b = 0;
                if (m[j] == UINT64_MAX) { live[still++] = live[j]; continue; }
                while (m[j] >> b & 1) b++;
                kall[live[j]] = k0 + b;
            }
            nlive = still;
        }
        for (mmnc_int i = 0; i < nmine; i++) k[i] = kall[from + i];
    }
    free(kall);
    free(m);
    free(live);
    free(id);
    free(got);
    return rc;
}

/* See cli.h.  The suffixes given cannot meet each other: the digits after
 * the last '#' tell ID and k apart, and the ids of the rows are distinct. */
int cli_namer_fill(const char *cmd, cli_namer *nm, int cols, const char *path)
{
    char **names = cols ? nm->cn : nm->rn, ***fill = cols ? &nm->cfill : &nm->rfill, **avoid = NULL, **own = NULL;
    char *mine = NULL;
    mmnc_int nn = cols ? nm->nc : nm->nr, n = cols ? nm->d->A->ncols : nm->d->A->nrows, nnamed = 0, navoid = 0;
    mmnc_int renamed = 0, first = -1, first_of = 0;
    named *byname = NULL;
    long long *k = NULL;
    size_t len = 0;
    /* In mmnc-mpi each rank holds its own rows (every rank all columns):
     * the ids to avoid are every rank's, and a rank without rows takes part */
    int rc = CLI_EXIT_OK, collective = path && !cols;
    *fill = NULL;
    if (!nm->keyed || !names) return CLI_EXIT_OK;
    byname = malloc((size_t)(nn ? nn : 1) * sizeof *byname);
    avoid = malloc((size_t)(nn + n ? nn + n : 1) * sizeof *avoid);
    own = calloc((size_t)(n ? n : 1), sizeof *own);
    if (!byname || !avoid || !own) { rc = cli_fail(cmd, "out of memory"); goto number; }
    for (mmnc_int i = 0; i < nn; i++)
        if (names[i]) byname[nnamed++] = (named){names[i], i + 1}, avoid[navoid++] = names[i];
    qsort(byname, (size_t)nnamed, sizeof *byname, named_cmp);
    /* the rows without a name, known by their ids */
    for (mmnc_int y = 0; y < n; y++) {
        char buf[32];
        const char *id = cols ? mmnc_data_col_id(nm->d, y, buf) : mmnc_data_row_id(nm->d, y, buf);
        const mmnc_int *orig = cols ? nm->d->col_orig : nm->d->row_orig;
        if (cli_lookup_name(names, nn, 1, id, orig ? orig[y] : y)) continue;
        if (!(own[y] = strdup(id))) { rc = cli_fail(cmd, "out of memory"); goto number; }
        avoid[navoid++] = own[y];
    }
    qsort(avoid, (size_t)navoid, sizeof *avoid, str_cmp);
    /* those whose id is a name, in row order, as "ID#" to be numbered */
    for (mmnc_int y = 0; y < n; y++)
        if (own[y] && named_find(byname, nnamed, own[y])) len += strlen(own[y]) + 2, renamed++;
    if (!(mine = malloc(len ? len : 1)) || !(k = malloc((size_t)(renamed ? renamed : 1) * sizeof *k))) {
        rc = cli_fail(cmd, "out of memory");
        goto number;
    }
    for (mmnc_int y = 0, at = 0; y < n; y++)
        if (own[y] && named_find(byname, nnamed, own[y])) at += sprintf(mine + at, "%s#", own[y]) + 1;
number:
    if (rc != CLI_EXIT_OK) renamed = 0, len = 0;
    rc = number_ids(cmd, rc, collective, avoid, navoid, mine, len, renamed, k);
    for (mmnc_int y = 0, i = 0; rc == CLI_EXIT_OK && i < renamed; y++) {
        const named *hit = own[y] ? named_find(byname, nnamed, own[y]) : NULL;
        size_t l;
        char *s;
        if (!hit) continue;
        l = strlen(own[y]) + 24;
        if ((!*fill && !(*fill = calloc((size_t)n, sizeof **fill))) || !(s = malloc(l))) {
            rc = cli_fail(cmd, "out of memory");
            break;
        }
        snprintf(s, l, "%s#%lld", own[y], k[i++]);
        (*fill)[y] = s;
        if (first < 0) first = y, first_of = hit->id;
    }
    /* the rows' count and first example are the job's */
    if (path) {
        cli_warn_example ex = {renamed, first_of, NULL, NULL};
        char *buf = NULL;
        if (rc == CLI_EXIT_OK && renamed) ex.a = own[first], ex.b = (*fill)[first];
        if (!cols) rc = cli_warn_agree(rc, &ex, &buf);
        if (rc == CLI_EXIT_OK && ex.n && cli_rank() == 0) {
            const char *what = cols ? "column" : "row";
            fprintf(stderr, "mmnc %s: warning: %s: %lld %s%s that the file does not name ha%s an id that it gives as "
                            "a name, written ID#2, ID#3, ... (first: %s id '", cmd, path, (long long)ex.n, what,
                    ex.n == 1 ? "" : "s", ex.n == 1 ? "s" : "ve", what);
            cli_tsv_field(stderr, ex.a);
            fprintf(stderr, "', the name of id %lld, written '", (long long)ex.v);
            cli_tsv_field(stderr, ex.b);
            fputs("')\n", stderr);
        }
        free(buf);
    }
    if (own)
        for (mmnc_int y = 0; y < n; y++) free(own[y]);
    free(own);
    free(avoid);
    free(byname);
    free(mine);
    free(k);
    if (rc != CLI_EXIT_OK) cli_namer_free_fill(nm);
    return rc;
}

void cli_namer_free_fill(cli_namer *nm)
{
    for (int t = 0; t < 2; t++) {
        char **fill = t ? nm->cfill : nm->rfill;
        if (!fill) continue;
        for (mmnc_int y = 0, n = t ? nm->d->A->ncols : nm->d->A->nrows; y < n; y++) free(fill[y]);
        free(fill);
    }
    nm->rfill = nm->cfill = NULL;
}

/* cli_names_read's count: every column (row) as read needs a name. */
static int check_names(const char *cmd, const char *path, mmnc_int n, mmnc_int want, const char *what)
{
    if (n < want)
        return cli_fail(cmd, "%s: %lld names for %lld %s (as read): every %s needs one, or use 'id name' lines "
                             "with --names-keyed", path, (long long)n, (long long)want, what,
                        what[0] == 'c' ? "column" : "row");
    if (n > want && cli_rank() == 0)
        fprintf(stderr, "mmnc %s: warning: %s: %lld names for %lld %s; the last %lld are not used\n", cmd, path,
                (long long)n, (long long)want, what, (long long)(n - want));
    return CLI_EXIT_OK;
}

int cli_names_read(const char *cmd, const char *path, int keyed, mmnc_int want, const char *what, int warn,
                   mmnc_int *n, char ***names)
{
    mmnc_err err = {0, ""};
    mmnc_int renamed = 0, first[2];
    const char *by = keyed ? "ids" : "lines";
    int rc = CLI_EXIT_OK;
    if (mmnc_names_read(path, keyed, n, names, &err) != MMNC_OK) return cli_lib_fail(cmd, &err);
    if (what && !keyed) rc = check_names(cmd, path, *n, want, what);
    if (rc == CLI_EXIT_OK &&
        mmnc_names_unique(keyed || *n < want ? *n : want, *names, &renamed, first, &err) != MMNC_OK)
        rc = cli_lib_fail(cmd, &err);
    if (rc != CLI_EXIT_OK) {
        mmnc_names_free(*n, *names);
        *names = NULL;
        *n = 0;
        return rc;
    }
    if (renamed && warn && cli_rank() == 0) {
        fprintf(stderr, "mmnc %s: warning: %s: %lld name%s an earlier one, written NAME#2, NAME#3, ... in the "
                        "order of the %s (first: '", cmd, path, (long long)renamed,
                renamed == 1 ? " repeats" : "s repeat", by);
        cli_tsv_field(stderr, (*names)[first[1]]);
        fprintf(stderr, "', %s %lld and %lld, written '", by, (long long)first[1] + 1, (long long)first[0] + 1);
        cli_tsv_field(stderr, (*names)[first[0]]);
        fputs("')\n", stderr);
    }
    return CLI_EXIT_OK;
}

int cli_output_prefix(const char *cmd, const char *prefix_arg, const char *data_path, char **out)
{
    const char *b;
    char *prefix = NULL, *stem = NULL;
    struct stat st;
    int dir;
    *out = NULL;
    b = prefix_arg ? strrchr(prefix_arg, '/') : NULL;
    b = b ? b + 1 : prefix_arg;
    dir = prefix_arg && (!*b || !strcmp(b, ".") || !strcmp(b, "..") || (stat(prefix_arg, &st) == 0 && S_ISDIR(st.st_mode)));
    if ((!prefix_arg || dir) && !strcmp(data_path, "-"))
        return cli_usage_error(cmd, "reading standard input: give the outputs a name with -o PREFIX");
    if (!prefix_arg) {
        prefix = data_stem(data_path);
    } else if (dir) {
        if ((stem = data_stem(data_path)) && (prefix = malloc(strlen(prefix_arg) + strlen(stem) + 2)))
            sprintf(prefix, "%s%s%s", prefix_arg, *b ? "/" : "", stem);
        free(stem);
    } else {
        prefix = strdup(prefix_arg);
    }
    if (!prefix) return cli_fail(cmd, "out of memory");
    *out = prefix;
    return CLI_EXIT_OK;
}
