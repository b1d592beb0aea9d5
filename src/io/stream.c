/*
 * stream.c -- every text input as one byte stream: plain files, gzip (zlib's
 * inflate) and xz (liblzma), told apart by their magic bytes, and "-" for
 * standard input.  The only file that reads through zlib or liblzma.
 *
 * Both decoders run on a raw file descriptor with our own input buffer, so
 * the bytes read to detect the format are simply the first input of the
 * decoder and a pipe (which cannot seek back) works like a file.
 * Concatenated gzip members and concatenated xz streams are read as one
 * stream (as gzip -dc and xz -dc do).  The end of the input inside a
 * compressed stream is an error ("truncated"), never a short result.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef MMNC_HAVE_LZMA
#include <lzma.h>
#endif

#include "core/mmnc_i.h"

#define IN_BUFSIZE ((size_t)1 << 17)

enum { KIND_PLAIN, KIND_GZIP, KIND_XZ };

struct mmnc_i_in {
    int fd, own_fd, kind;
    const char *path;
    unsigned char *ibuf;   /* compressed input */
    size_t ibeg, iend;     /* unread input is ibuf[ibeg .. iend) */
    int ieof;              /* the descriptor reached its end */
    int done;              /* the decoded stream ended cleanly */
    int zinit;
    z_stream z;
#ifdef MMNC_HAVE_LZMA
    int linit;
    lzma_stream l;
#endif
};

static const char *kind_name(int kind)
{
    return kind == KIND_GZIP ? "gzip" : kind == KIND_XZ ? "xz" : "plain";
}

/* Refill ibuf when it is empty; sets ieof at the end of the descriptor. */
static int fill(mmnc_i_in *s, mmnc_err *err)
{
    if (s->ibeg < s->iend || s->ieof) return MMNC_OK;
    for (;;) {
        ssize_t got = read(s->fd, s->ibuf, IN_BUFSIZE);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return mmnc_i_err(err, MMNC_EIO, "%s: read error: %s", s->path, strerror(errno));
        s->ibeg = 0;
        s->iend = (size_t)got;
        if (got == 0) s->ieof = 1;
        return MMNC_OK;
    }
}

int mmnc_i_in_open(const char *path, mmnc_i_in **out, mmnc_err *err)
{
    mmnc_i_in *s;
    int status;
    *out = NULL;
    s = mmnc_i_calloc(1, sizeof *s);
    if (!s) return mmnc_i_err(err, MMNC_ENOMEM, "%s: out of memory opening", path);
    s->fd = -1;
    s->path = path;
    s->ibuf = mmnc_i_malloc(IN_BUFSIZE, 1);
    if (!s->ibuf) {
        mmnc_i_in_close(s);
        return mmnc_i_err(err, MMNC_ENOMEM, "%s: out of memory opening", path);
    }
    if (!strcmp(path, "-")) {
        s->fd = 0;
        s->path = "(standard input)";
    } else {
        s->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (s->fd < 0) {
            int e = errno;
            mmnc_i_in_close(s);
            return mmnc_i_err(err, MMNC_EIO, "%s: cannot open: %s", path, strerror(e));
        }
        s->own_fd = 1;
    }
    /* Enough bytes to see a magic number (a short file is plain text):
     * the caller sniffs the format from these (mmnc_i_in_head), never by
     * opening the path again, which a pipe or a FIFO would not survive. */
    while (s->iend < 8 && !s->ieof) {
        ssize_t got = read(s->fd, s->ibuf + s->iend, IN_BUFSIZE - s->iend);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            status = mmnc_i_err(err, MMNC_EIO, "%s: read error: %s", s->path, strerror(errno));
            mmnc_i_in_close(s);
            return status;
        }
        if (got == 0) s->ieof = 1;
        s->iend += (size_t)got;
    }
    if (s->iend >= 2 && s->ibuf[0] == 0x1f && s->ibuf[1] == 0x8b) {
        s->kind = KIND_GZIP;
        /* 15 + 16: a gzip wrapper, the largest window */
        if (inflateInit2(&s->z, 15 + 16) != Z_OK) {
            mmnc_i_in_close(s);
            return mmnc_i_err(err, MMNC_ENOMEM, "%s: out of memory starting gzip", path);
        }
        s->zinit = 1;
    } else if (s->iend >= 6 && !memcmp(s->ibuf, "\xfd" "7zXZ\0", 6)) {
        s->kind = KIND_XZ;
#ifdef MMNC_HAVE_LZMA
        lzma_stream init = LZMA_STREAM_INIT;
        s->l = init;
        if (lzma_stream_decoder(&s->l, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
            mmnc_i_in_close(s);
            return mmnc_i_err(err, MMNC_ENOMEM, "%s: out of memory starting xz", path);
        }
        s->linit = 1;
#else
        mmnc_i_in_close(s);
        return mmnc_i_err(err, MMNC_EUNSUP,
                          "%s: xz-compressed input needs liblzma (rebuild with liblzma-dev installed)", path);
#endif
    }
    *out = s;
    return MMNC_OK;
}

/* Up to n bytes of a plain input: first the bytes kept from the sniff, then read(). */
static int read_plain(mmnc_i_in *s, unsigned char *buf, size_t n, size_t *got, mmnc_err *err)
{
    size_t have = 0;
    while (have < n) {
        if (s->ibeg < s->iend) { /* bytes kept from the magic-number check */
            size_t m = s->iend - s->ibeg < n - have ? s->iend - s->ibeg : n - have;
            memcpy(buf + have, s->ibuf + s->ibeg, m);
            s->ibeg += m;
            have += m;
            continue;
        }
        if (s->ieof) break;
        ssize_t r = read(s->fd, buf + have, n - have);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return mmnc_i_err(err, MMNC_EIO, "%s: read error: %s", s->path, strerror(errno));
        if (r == 0) s->ieof = 1;
        have += (size_t)r;
    }
    *got = have;
    return MMNC_OK;
}

/* Up to n decoded bytes of gzip input, member after member; the end of
 * the input inside a member is MMNC_EFORMAT ("truncated"), as is anything
 * after the last member but zero padding. */
static int read_gzip(mmnc_i_in *s, unsigned char *buf, size_t n, size_t *got, mmnc_err *err)
{
    size_t have = 0;
    int status;
    while (have < n && !s->done) {
        if ((status = fill(s, err)) != MMNC_OK) return status;
        if (s->ibeg == s->iend) {
            return mmnc_i_err(err, MMNC_EFORMAT,
                              "%s: truncated gzip file (unexpected end of compressed data)", s->path);
        }
        uInt chunk = n - have > (1u << 30) ? (1u << 30) : (uInt)(n - have);
        s->z.next_in = s->ibuf + s->ibeg;
        s->z.avail_in = (uInt)(s->iend - s->ibeg);
        s->z.next_out = buf + have;
        s->z.avail_out = chunk;
        int rc = inflate(&s->z, Z_NO_FLUSH);
        have += chunk - s->z.avail_out;
        s->ibeg = s->iend - s->z.avail_in;
        if (rc == Z_STREAM_END) {
            /* Another gzip member may follow; anything else after a member
             * is trailing garbage, which gzip -dc also rejects. */
            if ((status = fill(s, err)) != MMNC_OK) return status;
            if (s->ibeg == s->iend) {
                s->done = 1;
            } else if (s->iend - s->ibeg >= 2 && s->ibuf[s->ibeg] == 0x1f && s->ibuf[s->ibeg + 1] == 0x8b) {
                inflateReset(&s->z);
            } else if (s->ibuf[s->ibeg] == 0) {
                s->done = 1; /* zero padding after the last member (tar, dd): ignored */
            } else {
                return mmnc_i_err(err, MMNC_EFORMAT, "%s: corrupt gzip data: trailing garbage after the data",
                                  s->path);
            }
        } else if (rc == Z_MEM_ERROR) {
            return mmnc_i_err(err, MMNC_ENOMEM, "%s: out of memory decompressing", s->path);
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            return mmnc_i_err(err, MMNC_EFORMAT, "%s: corrupt gzip data: %s", s->path,
                              s->z.msg ? s->z.msg : "invalid data");
        }
    }
    *got = have;
    return MMNC_OK;
}

#ifdef MMNC_HAVE_LZMA
/* The words of an error message for liblzma's status rc. */
static const char *lzma_msg(lzma_ret rc)
{
    switch (rc) {
    case LZMA_FORMAT_ERROR: return "not in the .xz format";
    case LZMA_OPTIONS_ERROR: return "unsupported compression options";
    case LZMA_DATA_ERROR: return "compressed data is corrupt";
    case LZMA_BUF_ERROR: return "unexpected end of input";
    default: return "internal error";
    }
}

/* Up to n decoded bytes of xz input (concatenated streams, as xz -dc
 * reads them); an incomplete last stream is MMNC_EFORMAT. */
static int read_xz(mmnc_i_in *s, unsigned char *buf, size_t n, size_t *got, mmnc_err *err)
{
    size_t have = 0;
    int status;
    while (have < n && !s->done) {
        if ((status = fill(s, err)) != MMNC_OK) return status;
        s->l.next_in = s->ibuf + s->ibeg;
        s->l.avail_in = s->iend - s->ibeg;
        s->l.next_out = buf + have;
        s->l.avail_out = n - have;
        /* LZMA_FINISH at the end of the input: the decoder then says whether
         * the last stream was complete. */
        lzma_ret rc = lzma_code(&s->l, s->ieof ? LZMA_FINISH : LZMA_RUN);
        have = (size_t)(s->l.next_out - buf);
        s->ibeg = s->iend - s->l.avail_in;
        if (rc == LZMA_STREAM_END) {
            s->done = 1;
        } else if (rc == LZMA_MEM_ERROR || rc == LZMA_MEMLIMIT_ERROR) {
            return mmnc_i_err(err, MMNC_ENOMEM, "%s: out of memory decompressing", s->path);
        } else if (rc == LZMA_BUF_ERROR && s->ieof) {
            return mmnc_i_err(err, MMNC_EFORMAT, "%s: truncated xz file (unexpected end of compressed data)",
                              s->path);
        } else if (rc != LZMA_OK && rc != LZMA_BUF_ERROR) {
            return mmnc_i_err(err, MMNC_EFORMAT, "%s: corrupt xz data: %s", s->path, lzma_msg(rc));
        }
    }
    *got = have;
    return MMNC_OK;
}
#endif

int mmnc_i_in_read(mmnc_i_in *s, void *buf, size_t n, size_t *got, mmnc_err *err)
{
    *got = 0;
    if (s->kind == KIND_GZIP) return read_gzip(s, buf, n, got, err);
#ifdef MMNC_HAVE_LZMA
    if (s->kind == KIND_XZ) return read_xz(s, buf, n, got, err);
#endif
    return read_plain(s, buf, n, got, err);
}

const unsigned char *mmnc_i_in_head(const mmnc_i_in *s, size_t *n)
{
    *n = s->iend;
    return s->ibuf;
}

int mmnc_i_in_regular(const mmnc_i_in *s)
{
    struct stat st;
    return s->fd != 0 && fstat(s->fd, &st) == 0 && S_ISREG(st.st_mode);
}

const char *mmnc_i_in_kind(const mmnc_i_in *s)
{
    return kind_name(s->kind);
}

int mmnc_file_read_all(const char *path, char **data, size_t *len, mmnc_err *err)
{
    mmnc_i_in *in = NULL;
    char *buf = NULL, *nb;
    size_t cap = 0, n = 0, got;
    int status;
    if (!path || !data || !len) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_file_read_all: NULL argument");
    *data = NULL;
    *len = 0;
    if ((status = mmnc_i_in_open(path, &in, err)) != MMNC_OK) return status;
    do {
        if (cap - n < IN_BUFSIZE) {
            cap = cap ? 2 * cap : 2 * IN_BUFSIZE;
            if (!(nb = mmnc_i_realloc(buf, cap + 1, 1))) {
                status = mmnc_i_err(err, MMNC_ENOMEM, "%s: out of memory reading the file", path);
                goto cleanup;
            }
            buf = nb;
        }
        if ((status = mmnc_i_in_read(in, buf + n, cap - n, &got, err)) != MMNC_OK) goto cleanup;
        n += got;
    } while (got > 0);
    buf[n] = '\0';
    *data = buf;
    *len = n;
    buf = NULL;
cleanup:
    mmnc_i_free(buf);
    mmnc_i_in_close(in);
    return status;
}

void mmnc_i_in_close(mmnc_i_in *s)
{
    if (!s) return;
    if (s->zinit) inflateEnd(&s->z);
#ifdef MMNC_HAVE_LZMA
    if (s->linit) lzma_end(&s->l);
#endif
    if (s->own_fd && s->fd >= 0) close(s->fd);
    mmnc_i_free(s->ibuf);
    mmnc_i_free(s);
}
