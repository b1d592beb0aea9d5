/*
 * util.c -- what every module uses: error messages, the one allocation
 * wrapper (with its fault injection for tests), the random number
 * generator, the clock, atomic output files, union-find, exact sums and
 * the OpenMP thread settings of a call.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/mmnc_i.h"

const char *mmnc_strerror(int code)
{
    switch (code) {
    case MMNC_OK: return "success";
    case MMNC_EINVAL: return "invalid argument";
    case MMNC_ENOMEM: return "out of memory";
    case MMNC_EIO: return "input/output error";
    case MMNC_EFORMAT: return "malformed input";
    case MMNC_ENOCONV: return "did not converge";
    case MMNC_ELP: return "linear program failed";
    case MMNC_EUNSUP: return "not supported by this build";
    case MMNC_ECANCELED: return "canceled";
    default: return "unknown error";
    }
}

int mmnc_i_err(mmnc_err *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* ---- allocation ---------------------------------------------------------- */

#ifdef MMNC_FAULT_INJECTION
/* Test builds only: a countdown to the allocation that must fail. */
static long fail_countdown = 0;
static long alloc_count = 0;
void mmnc_i_fail_after(long n) { fail_countdown = n; alloc_count = 0; }
long mmnc_i_alloc_count(void) { return alloc_count; }
static size_t alloc_limit = 0;
static long alloc_over = 0;
void mmnc_i_alloc_limit(size_t bytes) { alloc_limit = bytes; alloc_over = 0; }
long mmnc_i_alloc_over(void) { return alloc_over; }
/* 1 if this allocation of n * size bytes must fail: the countdown reached
 * it, or it is over the limit.  Counted under a lock, since allocations
 * happen inside parallel regions. */
static int should_fail(size_t n, size_t size)
{
    int fail = 0;
    int over = alloc_limit && size && n > alloc_limit / size;
#pragma omp critical(mmnc_alloc)
    {
        alloc_count++;
        if (fail_countdown > 0 && --fail_countdown == 0) fail = 1;
        if (over) alloc_over++;
    }
    return fail || over;
}
#else
/* Release builds: allocations fail only when the system's do. */
static int should_fail(size_t n, size_t size)
{
    (void)n;
    (void)size;
    return 0;
}
#endif

void *mmnc_i_malloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) return NULL;
    if (should_fail(n, size)) return NULL;
    return malloc((n && size) ? n * size : 1);
}

void *mmnc_i_calloc(size_t n, size_t size)
{
    if (should_fail(n, size)) return NULL;
    return calloc(n ? n : 1, size ? size : 1);
}

void *mmnc_i_realloc(void *p, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) return NULL;
    if (should_fail(n, size)) return NULL;
    return realloc(p, (n && size) ? n * size : 1);
}

void mmnc_i_free(void *p) { free(p); }

void mmnc_free(void *p) { free(p); }

char *mmnc_i_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = mmnc_i_malloc(n, 1);
    if (d) memcpy(d, s, n);
    return d;
}

/* ---- random numbers ------------------------------------------------------ */

/* xoshiro256** (Blackman and Vigna), its 256-bit state filled from the
 * 64-bit seed by SplitMix64 as its authors advise: the same sequence on
 * every platform, from a seed the caller keeps in the params. */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void mmnc_rng_seed(mmnc_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t mmnc_rng_next(mmnc_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double mmnc_rng_uniform(mmnc_rng *r) { return (double)(mmnc_rng_next(r) >> 11) * 0x1.0p-53; }

mmnc_int mmnc_rng_below(mmnc_rng *r, mmnc_int n)
{
    /* Rejecting x < 2^64 mod n leaves a multiple of n values, so x % n is
     * unbiased (the rejection of OpenBSD's arc4random_uniform). */
    uint64_t un = (uint64_t)n, x, lim = (-un) % un;
    do x = mmnc_rng_next(r);
    while (x < lim);
    return (mmnc_int)(x % un);
}

double mmnc_rng_normal(mmnc_rng *r)
{
    double u1, u2;
    do u1 = mmnc_rng_uniform(r);
    while (u1 <= 0.0);
    u2 = mmnc_rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

double mmnc_i_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- atomic output files -------------------------------------------------- */

/* Output goes to a temporary file beside path and is renamed over path only
 * when every write succeeded and the bytes are on the disk (fsync), so a
 * failed or interrupted run leaves no partial file (and an earlier file of
 * that name intact), and a crash just after the rename no empty one.  The
 * temporary name is short and of one length, ".mmnc-PID-HASH" (the hash of
 * path's base name), whatever path's: a base name near the file system's
 * limit of 255 bytes still gets one.  It is known before the file exists,
 * so that a caller can remove it on a signal (mmnc_outfile_tmp_path). */

int mmnc_outfile_tmp_path(const char *path, char **tmp, mmnc_err *err)
{
    const char *slash, *base;
    size_t dir, n;
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
    if (!path || !tmp) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_outfile_tmp_path: NULL argument");
    slash = strrchr(path, '/');
    base = slash ? slash + 1 : path;
    dir = (size_t)(base - path);
    for (const unsigned char *c = (const unsigned char *)base; *c; c++) h = (h ^ *c) * 0x100000001b3ULL;
    n = dir + sizeof ".mmnc--" + 20 + 16;
    if (!(*tmp = mmnc_i_malloc(n, 1))) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    memcpy(*tmp, path, dir);
    snprintf(*tmp + dir, n - dir, ".mmnc-%ld-%016llx", (long)getpid(), (unsigned long long)h);
    return MMNC_OK;
}

int mmnc_outfile_open(mmnc_outfile *o, const char *path, mmnc_err *err)
{
    int status;
    o->fp = NULL;
    o->path = o->tmp = NULL;
    if (!(o->path = mmnc_i_strdup(path))) return mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    if ((status = mmnc_outfile_tmp_path(path, &o->tmp, err)) != MMNC_OK) {
        mmnc_i_free(o->path);
        o->path = NULL;
        return status;
    }
    o->fp = fopen(o->tmp, "wb");
    if (!o->fp) {
        int e = errno;
        mmnc_i_free(o->path);
        mmnc_i_free(o->tmp);
        o->path = o->tmp = NULL;
        return mmnc_i_err(err, MMNC_EIO, "%s: cannot write: %s", path, strerror(e));
    }
    return MMNC_OK;
}

int mmnc_outfile_commit(mmnc_outfile *o, mmnc_err *err)
{
    int e = EIO, bad = ferror(o->fp) != 0;
    if (!bad && fflush(o->fp) != 0) bad = 1, e = errno;
    /* on the disk before the rename makes it the file (EINVAL: a file that cannot be synced) */
    if (!bad && fsync(fileno(o->fp)) != 0 && errno != EINVAL) bad = 1, e = errno;
    if (fclose(o->fp) != 0 && !bad) bad = 1, e = errno;
    o->fp = NULL;
    if (!bad && rename(o->tmp, o->path) != 0) bad = 1, e = errno;
    if (bad) {
        remove(o->tmp);
        mmnc_i_err(err, MMNC_EIO, "%s: write failed: %s", o->path, strerror(e));
        mmnc_i_free(o->path);
        mmnc_i_free(o->tmp);
        o->path = o->tmp = NULL;
        return MMNC_EIO;
    }
    mmnc_i_free(o->path);
    mmnc_i_free(o->tmp);
    o->path = o->tmp = NULL;
    return MMNC_OK;
}

void mmnc_outfile_abort(mmnc_outfile *o)
{
    if (o->fp) fclose(o->fp);
    if (o->tmp) remove(o->tmp);
    mmnc_i_free(o->path);
    mmnc_i_free(o->tmp);
    o->fp = NULL;
    o->path = o->tmp = NULL;
}

mmnc_int mmnc_i_uf_find(mmnc_int *parent, mmnc_int x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/* ---- exact sums (mmnc_i.h) and thread settings ------------------------- */

void mmnc_i_fix_carry(int64_t *l)
{
    for (int i = 0; i + 1 < MMNC_I_FIX_LIMBS; i++) { /* the lower limbs in [0, 2^30) */
        int64_t c = l[i] >> 30; /* floor division: GCC and Clang shift signed values arithmetically */
        l[i] -= c * ((int64_t)1 << 30);
        l[i + 1] += c;
    }
}

double mmnc_i_fix_value(int64_t *l)
{
    mmnc_i_fix_carry(l);
    return (((double)l[0] * 0x1p-30 + (double)l[1]) * 0x1p-30 + (double)l[2]) * 0x1p-30 + (double)l[3];
}

mmnc_i_threads mmnc_i_threads_push(int threads)
{
    mmnc_i_threads saved = {1, 1};
#ifdef _OPENMP
    saved.num = omp_get_max_threads();
    saved.levels = omp_get_max_active_levels();
    if (threads > 0) omp_set_num_threads(threads);
    omp_set_max_active_levels(1); /* kernels inside parallel starts run on one thread */
#else
    (void)threads;
#endif
    return saved;
}

void mmnc_i_threads_pop(mmnc_i_threads saved)
{
#ifdef _OPENMP
    omp_set_num_threads(saved.num);
    omp_set_max_active_levels(saved.levels);
#else
    (void)saved;
#endif
}

int mmnc_i_team_size(void)
{
#ifdef _OPENMP
    if (omp_get_active_level() >= omp_get_max_active_levels()) return 1;
    return omp_get_max_threads();
#else
    return 1;
#endif
}
