/*
 * fuzz_vectors.c -- libFuzzer harness of the word2vec reader
 * (mmnc_vectors_read); the first byte picks text, binary or detection.
 */
#include "fuzz_common.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64], **words = NULL;
    float *E = NULL;
    mmnc_int n = 0, d = 0;
    mmnc_err e = {0, ""};
    int fd;

    if (size == 0) return 0;
    if ((fd = fuzz_file(data + 1, size - 1, path)) < 0) return 0;
    if (mmnc_vectors_read(path, data[0] % 3 - 1, &n, &d, &words, &E, &e) == MMNC_OK) {
        for (mmnc_int i = 0; i < n; i++) {
            if (!words[i] || !words[i][0]) abort();
            for (mmnc_int j = 0; j < d; j++)
                if (!isfinite(E[i * d + j])) abort();
        }
    }
    mmnc_names_free(n, words);
    mmnc_free(E);
    close(fd);
    return 0;
}
