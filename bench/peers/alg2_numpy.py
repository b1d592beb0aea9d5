#!/usr/bin/python3
"""Algorithm 2 of Qiu, Makur, Zheng (Allerton 2018) in plain NumPy/SciPy.

This is the baseline "what a user would write instead" of mmnc: a direct,
vectorised transcription of the paper's alternating maximisation of the
nuclear norm of the DTM B_{Z,X}, with hard labels, uniform random starts and
the best of R starts chosen by nuclear norm (never by accuracy).

Per iteration, with W the k x |Y| hard assignment (0/1, one 1 per column):
    P_{Z,X} = W P_{Y,X}                        (sparse product, k x |X| dense)
    P_Z     = P_{Z,X} 1
    B       = [P_Z]^{-1/2} P_{Z,X} [P_X]^{-1/2} (dense k x |X|)
    U, S, V = numpy.linalg.svd(B, full_matrices=False)
    F       = [P_Z]^{-1/2} U,   G = [P_X]^{-1/2} V
    C       = F (P_{Y,X} G)^T                  (k x |Y| scores)
    label(y) = argmax_z C[z, y]
and it stops when the labels repeat an earlier assignment (normally: stop
changing) or after max_iter iterations.

Deliberately simple handling of the corner cases (unlike mmnc, which repairs
them):
  * a cluster with P_Z(z) = 0 is dropped from B (its row would divide by 0);
    it gets no score row, so it stays empty for the rest of that start and the
    norm is that of the remaining clusters;
  * singular values below 1e-12 (relative) are dropped, so arbitrary singular
    vectors of a zero singular value never steer the assignment;
  * columns of P with zero mass are dropped once (P_X(x) = 0); rows with zero
    mass take the argmax of an all-zero score column (cluster 0 of those
    present) and carry no mass, so they change nothing;
  * no guard against a step that lowers the norm (the printed algorithm can);
    the reported norm is that of the returned labels.

Usage as a module:
    import alg2_numpy
    labels, nuclear, iters = alg2_numpy.alg2(P, k, numpy.random.default_rng(1), 300)
    best = alg2_numpy.alg2_best(P, k, restarts=8, seed=1)

CLI:  alg2_numpy.py [DATA.mat] [-k K] [-r R] [--seed S] [--max-iter N] [--var fea]
"""

import argparse
import os
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp


def joint_pmf(A):
    """A nonnegative sparse matrix -> (P as CSR summing to 1, P_X), zero-mass columns dropped."""
    P = sp.csr_matrix(A, dtype=np.float64)
    P = P / P.sum()
    px = np.asarray(P.sum(axis=0)).ravel()
    keep = px > 0
    if not keep.all():
        P = sp.csr_matrix(P[:, keep])
        px = px[keep]
    return sp.csr_matrix(P), px


def _step(P, px_isqrt, labels, k):
    """One iteration: nuclear norm of the current labels and the argmax labels."""
    n = P.shape[0]
    W = sp.csr_matrix((np.ones(n), (labels, np.arange(n))), shape=(k, n))
    PZX = (W @ P).toarray()                       # k x |X|
    pz = PZX.sum(axis=1)
    present = np.flatnonzero(pz > 0)              # empty clusters: drop their rows
    PZX, pz = PZX[present], pz[present]
    pz_isqrt = 1.0 / np.sqrt(pz)
    B = pz_isqrt[:, None] * PZX * px_isqrt[None, :]
    U, s, Vt = np.linalg.svd(B, full_matrices=False)
    nuclear = float(s.sum())
    r = s > 1e-12 * s[0]                          # zero singular values must not steer
    F = pz_isqrt[:, None] * U[:, r]               # k' x r
    G = px_isqrt[:, None] * Vt[r].T               # |X| x r
    C = F @ (P @ G).T                             # k' x |Y| scores
    return nuclear, present[np.argmax(C, axis=0)]


def alg2(P, k, rng, max_iter=300, px=None):
    """One start of Algorithm 2 from uniform random hard labels.

    P: sparse |Y| x |X| joint pmf (CSR; see joint_pmf). Returns
    (labels in 0..k-1, nuclear norm of those labels, iterations)."""
    if px is None:
        px = np.asarray(P.sum(axis=0)).ravel()
    px_isqrt = 1.0 / np.sqrt(px)
    labels = rng.integers(k, size=P.shape[0])
    seen = set()
    nuclear = 0.0
    it = 0
    while it < max_iter:
        it += 1
        nuclear, new = _step(P, px_isqrt, labels, k)
        if np.array_equal(new, labels):
            break
        key = new.tobytes()
        if key in seen:                           # a cycle: stop, keep the current labels
            break
        seen.add(labels.tobytes())
        labels = new
    else:
        nuclear, _ = _step(P, px_isqrt, labels, k)   # norm of the returned labels
    return labels, nuclear, it


def alg2_best(P, k, restarts=8, seed=1, max_iter=300):
    """Best of `restarts` starts by nuclear norm. Returns a dict."""
    P, px = joint_pmf(P)
    rng = np.random.default_rng(seed)
    best = None
    norms, iters = [], []
    for _ in range(restarts):
        labels, nuclear, it = alg2(P, k, rng, max_iter, px)
        norms.append(nuclear)
        iters.append(it)
        if best is None or nuclear > best[1]:
            best = (labels, nuclear)
    return {"labels": best[0], "nuclear": best[1], "restart_norms": norms,
            "restart_iterations": iters}


def default_data():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "..", "shared", "data",
                                         "reuters21578", "Reuters21578.mat"))


def main():
    ap = argparse.ArgumentParser(description="Algorithm 2 (nuclear norm) in plain NumPy/SciPy")
    ap.add_argument("data", nargs="?", default=default_data(),
                    help="MATLAB .mat file holding a sparse matrix (default: %(default)s)")
    ap.add_argument("--var", default="fea", help="variable to read (default fea)")
    ap.add_argument("-k", type=int, default=2, help="clusters (default 2)")
    ap.add_argument("-r", "--restarts", type=int, default=8, help="random starts (default 8)")
    ap.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    ap.add_argument("--max-iter", type=int, default=300, help="iterations per start (default 300)")
    ap.add_argument("-o", "--output", help="write the labels (1..k, one per row) to this file")
    a = ap.parse_args()
    if not os.path.exists(a.data):
        print("alg2_numpy: %s is absent; nothing to do" % a.data)
        return 0
    A = scipy.io.loadmat(a.data)[a.var]
    t0 = time.perf_counter()
    res = alg2_best(A, a.k, a.restarts, a.seed, a.max_iter)
    t1 = time.perf_counter()
    print("k=%d nuclear=%.6f seconds=%.3f restarts=%s iterations=%s" % (
        a.k, res["nuclear"], t1 - t0, " ".join("%.4f" % x for x in res["restart_norms"]),
        res["restart_iterations"]))
    print("cluster sizes:", np.bincount(res["labels"], minlength=a.k).tolist())
    if a.output:
        np.savetxt(a.output, res["labels"] + 1, fmt="%d")
    return 0


if __name__ == "__main__":
    sys.exit(main())
