/*
 * replay.c -- main() for a fuzz harness without libFuzzer: run
 * LLVMFuzzerTestOneInput on each file named on the command line, and on
 * every file of each directory named (a directory that does not exist is
 * skipped), so that any compiler, and the sanitizer build of `make asan`,
 * replay the seed corpora and the regression inputs of tests/fuzz/regress/
 * in CTest (tests fuzz_regress_NAME).  Linked with the fault-injection
 * library: an input that makes mmnc ask for more than 256 MB at once fails
 * the test, as libFuzzer's -malloc_limit_mb does (issue 19).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
void mmnc_i_alloc_limit(size_t bytes); /* mmnc_i.h, MMNC_FAULT_INJECTION */
long mmnc_i_alloc_over(void);

#define LIMIT ((size_t)256 << 20)

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    long n = -1;
    if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
        !(buf = malloc((size_t)n + 1)) || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        if (f) fclose(f);
        free(buf);
        return -1;
    }
    fclose(f);
    mmnc_i_alloc_limit(LIMIT);
    LLVMFuzzerTestOneInput(buf, (size_t)n);
    free(buf);
    if (mmnc_i_alloc_over()) {
        fprintf(stderr, "replay: %s: %ld allocations of more than %zu MB\n", path, mmnc_i_alloc_over(),
                LIMIT >> 20);
        return -1;
    }
    return 1;
}

int main(int argc, char **argv)
{
    int count = 0, bad = 0;
    for (int a = 1; a < argc; a++) {
        struct stat st;
        if (stat(argv[a], &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            struct dirent **ents;
            int m = scandir(argv[a], &ents, NULL, alphasort);
            for (int k = 0; k < m; k++) {
                char p[4096];
                if (ents[k]->d_name[0] != '.') {
                    snprintf(p, sizeof p, "%s/%s", argv[a], ents[k]->d_name);
                    fprintf(stderr, "replay: %s\n", p);
                    if (replay_file(p) < 0) bad = 1;
                    count++;
                }
                free(ents[k]);
            }
            free(ents);
        } else {
            if (replay_file(argv[a]) < 0) bad = 1;
            count++;
        }
    }
    printf("replayed %d inputs%s\n", count, bad ? ", some failed" : "");
    return bad;
}
