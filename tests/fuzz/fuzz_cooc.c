/*
 * fuzz_cooc.c -- libFuzzer harness of the cooc tokenizer (mmnc_tokenize)
 * and of mmnc_cooc_build on the same text (plain or gzip), every word kept.
 * The first byte picks sentence breaks and the window (1 to 4).  Tokens
 * must be 1 to 255 bytes; the matrix must pass mmnc_csr_check and be
 * square with one row per vocabulary word.
 */
#include "fuzz_common.h"

static void on_token(void *ctx, const char *word, size_t len)
{
    size_t *count = ctx;
    if (word && (len == 0 || len > 255)) abort();
    if (word) (void)memchr(word, 0, len); /* ASan: len bytes readable */
    ++*count;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64], **vocab = NULL;
    const char *paths[1] = {path};
    mmnc_cooc_opts o;
    mmnc_csr *A = NULL;
    mmnc_int nv = 0, ntok = 0;
    mmnc_err e = {0, ""};
    size_t count = 0;
    int fd;

    if (size == 0) return 0;
    mmnc_tokenize((const char *)data + 1, size - 1, data[0] & 1, on_token, &count);
    mmnc_cooc_opts_default(&o);
    o.sentences = data[0] & 1;
    o.window = 1 + ((data[0] >> 1) & 3);
    o.weighting = (data[0] >> 3) & 1;
    o.min_count = 1;
    o.threads = 1;
    if ((fd = fuzz_file(data + 1, size - 1, path)) < 0) return 0;
    if (mmnc_cooc_build(paths, 1, &o, &A, &vocab, &nv, &ntok, &e) == MMNC_OK) {
        if (mmnc_csr_check(A, &e) != MMNC_OK || A->nrows != nv || A->ncols != nv) abort();
    }
    mmnc_csr_free(A);
    mmnc_names_free(nv, vocab);
    close(fd);
    return 0;
}
