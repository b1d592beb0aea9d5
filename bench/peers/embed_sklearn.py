#!/usr/bin/python3
"""scikit-learn's randomized_svd on the same DTM as `mmnc embed`, for bench/embed-vs-sklearn.

    embed_sklearn.py DATA.bin --vocab VOCAB -d DIM --oversample O --n-iter Q [--seed S]
                     -o VECTORS.bin [--sv FILE]

DATA is mmnc's binary format (`mmnc convert C.mtx C.bin`), read with NumPy (perf_peer.read_bin);
rows and columns of zero mass are dropped as mmnc does.  The DTM is
B = [P_Y]^{-1/2} P [P_X]^{-1/2} with P = DATA / sum (a SciPy CSR matrix, built before the clock
starts), and randomized_svd(B, n_components=DIM + 1, n_oversamples=O, n_iter=Q,
power_iteration_normalizer="auto", random_state=S) computes the same rank from a block of the
same width l = DIM + 1 + O with Q power iterations -- the settings `mmnc embed` reports for its
run.  The vectors are mmnc's definition, E[y] = U[y, 1..DIM] / sqrt(P_Y(y)) (the trivial pair
dropped), in word2vec binary format so that `mmnc msr` scores both alike; --sv writes the DIM
singular values after the trivial one.

Prints one JSON object: seconds_load, seconds_dtm (building B), seconds_svd (the
randomized_svd call alone), threads (OpenBLAS's, as NumPy reports them when threadpoolctl is
present), sigma_first and sigma_last.
"""

import argparse
import json
import os
import sys
import time

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perf_peer import drop_empty, read_bin  # noqa: E402
from msr_peers import read_vocab, write_word2vec_bin  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data")
    ap.add_argument("--vocab", required=True)
    ap.add_argument("-d", "--dim", type=int, required=True)
    ap.add_argument("--oversample", type=int, required=True)
    ap.add_argument("--n-iter", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--sv")
    a = ap.parse_args()
    from sklearn.utils.extmath import randomized_svd

    t0 = time.time()
    A, ids = read_bin(a.data)
    A, ids = drop_empty(A, ids)
    words, _ = read_vocab(a.vocab)
    t1 = time.time()
    P = A / A.sum()
    py = np.asarray(P.sum(axis=1)).ravel()
    px = np.asarray(P.sum(axis=0)).ravel()
    B = sp.csr_matrix(sp.diags(1.0 / np.sqrt(py)) @ P @ sp.diags(1.0 / np.sqrt(px)))
    t2 = time.time()
    U, S, _ = randomized_svd(B, n_components=a.dim + 1, n_oversamples=a.oversample, n_iter=a.n_iter,
                             power_iteration_normalizer="auto", random_state=a.seed)
    t3 = time.time()
    E = U[:, 1:] / np.sqrt(py)[:, None]
    write_word2vec_bin(a.output, [words[i] for i in ids], E)
    if a.sv:
        with open(a.sv, "w") as f:
            for s in S[1:]:
                f.write("%.17g\n" % s)
    threads = None
    try:
        from threadpoolctl import threadpool_info
        threads = max((p.get("num_threads", 0) for p in threadpool_info()), default=None)
    except ImportError:
        pass
    print(json.dumps({"seconds_load": round(t1 - t0, 3), "seconds_dtm": round(t2 - t1, 3),
                      "seconds_svd": round(t3 - t2, 3), "threads": threads, "rows": B.shape[0],
                      "nnz": int(B.nnz), "sigma_first": float(S[1]), "sigma_last": float(S[-1])}))


if __name__ == "__main__":
    main()
