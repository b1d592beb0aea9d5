/*
 * fuzz_model.c -- libFuzzer harness of the model reader (mmnc_model_read).
 * An input of a whole header or more gets the magic, its own size, the
 * checksum of every section the table places inside the file and a valid
 * header checksum written in: otherwise nearly every mutation would stop at
 * a checksum, never reaching the checks behind them.  A model read must
 * predict: a 2-row matrix over its first columns gets labels in 0..k-1,
 * probabilities that sum to 1, and log-likelihoods at most 0 (up to 1e-4
 * a unit of mass: the reader checks the marginals to 1e-6) with the rows'
 * masses (else abort: a finding).
 */
#include "fuzz_common.h" /* first: it defines _GNU_SOURCE */
#include "io/io_i.h"        /* mmnc_i_xxh64 */
#include <math.h>

#define HEADER 384
#define H_FILE_BYTES 16
#define H_CHECKSUM 24
#define H_TABLE 128
#define H_SLOT 32
#define NSEC 8



static void check_predict(const mmnc_model *m)
{
    mmnc_int n = m->ncols < 4 ? m->ncols : 4, ri[8], ci[8], lab[2];
    double v[8], proba[2 * 64], ll[2], mass[2];
    mmnc_csr *A = NULL;
    mmnc_err e = {0, ""};
    if (m->k > 64) return; /* the nuclear rule's k x k spectrum: not this harness's business */
    for (mmnc_int j = 0; j < n; j++) ri[j] = 0, ci[j] = j, v[j] = (double)(j + 1);
    ri[n] = 1, ci[n] = 0, v[n] = 3;
    if (mmnc_csr_from_triplets(2, m->ncols, n + 1, ri, ci, v, &A, &e) != MMNC_OK) return;
    if (mmnc_model_predict(m, A, NULL, lab, proba, NULL, &e) == MMNC_OK)
        for (int i = 0; i < 2; i++) {
            double s = 0.0;
            if (lab[i] < 0 || lab[i] >= m->k) {
                fprintf(stderr, "fuzz_model: label %lld outside 0..%lld\n", (long long)lab[i], (long long)m->k - 1);
                abort();
            }
            for (mmnc_int z = 0; z < m->k; z++) s += proba[i * m->k + z];
            if (!(fabs(s - 1.0) < 1e-9)) {
                fprintf(stderr, "fuzz_model: probabilities of row %d sum to %g\n", i, s);
                abort();
            }
        }
    if (mmnc_model_loglik(m, A, NULL, ll, mass, &e) == MMNC_OK)
        for (int i = 0; i < 2; i++)
            if (!(ll[i] <= 1e-4 * mass[i]) || mass[i] != (i ? 3.0 : (double)(n * (n + 1) / 2))) {
                fprintf(stderr, "fuzz_model: row %d has log-likelihood %g and mass %g\n", i, ll[i], mass[i]);
                abort();
            }
    mmnc_csr_free(A);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t magic[8] = {0x89, 'M', 'M', 'O', 'D', '\r', '\n', 0x1a};
    char path[64];
    mmnc_model *m = NULL;
    mmnc_err e = {0, ""};
    uint8_t *buf;
    int fd;
    if (!(buf = malloc(size ? size : 1))) return 0;
    memcpy(buf, data, size);
    if (size >= HEADER) {
        memcpy(buf, magic, 8);
        fuzz_put64(buf + H_FILE_BYTES, size);
        for (int k = 0; k < NSEC; k++) {
            uint8_t *t = buf + H_TABLE + H_SLOT * k;
            uint64_t off = fuzz_get64(t), bytes = fuzz_get64(t + 8);
            if (off <= size && bytes <= size - off) fuzz_put64(t + 16, mmnc_i_xxh64(buf + off, (size_t)bytes, 0));
        }
        fuzz_put64(buf + H_CHECKSUM, 0);
        fuzz_put64(buf + H_CHECKSUM, mmnc_i_xxh64(buf, HEADER, 0));
    }
    fd = fuzz_file(buf, size, path);
    free(buf);
    if (fd < 0) return 0;
    if (mmnc_model_read(path, &m, &e) == MMNC_OK) check_predict(m);
    mmnc_model_free(m);
    close(fd);
    return 0;
}
