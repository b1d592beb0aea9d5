/*
 * fuzz_names.c -- libFuzzer harness of the names file reader
 * (mmnc_names_read) and of mmnc_names_unique on what it read, which must
 * leave the names distinct; the first byte picks plain or keyed
 * ("id<TAB>name").  The same bytes as a stop-word file
 * (mmnc_stop_words_read): every word not empty, the list NULL-terminated.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64], **names = NULL;
    mmnc_int n = 0;
    mmnc_err e = {0, ""};
    int fd;

    if (size == 0) return 0;
    if ((fd = fuzz_file(data + 1, size - 1, path)) < 0) return 0;
    if (mmnc_names_read(path, data[0] & 1, &n, &names, &e) == MMNC_OK) {
        for (mmnc_int i = 0; i < n; i++)
            if (names[i]) (void)strlen(names[i]); /* ASan: each one a string */
        if (mmnc_names_unique(n, names, NULL, NULL, &e) == MMNC_OK && n <= 512)
            for (mmnc_int i = 0; i < n; i++)
                for (mmnc_int j = i + 1; j < n; j++)
                    if (names[i] && names[j] && !strcmp(names[i], names[j])) abort();
        mmnc_names_free(n, names);
    }
    names = NULL;
    if (mmnc_stop_words_read(path, &n, &names, &e) == MMNC_OK) {
        for (mmnc_int i = 0; i < n; i++)
            if (!names[i][0] || names[i][0] == '#') abort();
        if (names[n]) abort();
        mmnc_names_free(n, names);
    }
    close(fd);
    return 0;
}
