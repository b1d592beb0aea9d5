#!/usr/bin/python3
"""The Dirichlet mixture with the corpus's term distribution as its prior's base measure, against
the symmetric prior of src/cluster/dmm.c, in NumPy (bench/NOTES.md, "A corpus-shaped prior for
the Dirichlet mixture").  Not part of mmnc: a prototype for issue 39's "term weights that discount
words every cluster uses".

Model.  As docs/dmm.md, but each cluster's term distribution has the prior Dirichlet(s m) with m
a distribution over the terms: m uniform (symmetric, beta = s / V: what mmnc does) or m = P(x),
the corpus's term frequencies (asymmetric; the Dirichlet smoothing of language-model retrieval,
Zhai and Lafferty 2001, whose effect on a query's terms is idf-like: a frequent term missing from
a cluster costs little, a rare one much).  The evidence of a hard partition is

  E = sum_c [lgamma(n_c + alpha)] - k lgamma(alpha) - lgamma(D + k alpha) + lgamma(k alpha)
    + sum_c [lgamma(s) - lgamma(N_c + s) + sum_x (lgamma(N_cx + s m_x) - lgamma(s m_x))],

maximised by single-row moves (argmax of the change, ties stay, no cluster emptied) from random
balanced partitions, alpha and the precision s by Minka's fixed points (m held) after every sweep
from the third; a start ends when a sweep moves fewer than 0.2% of the rows.  The best evidence
of STARTS starts (seeds 100, 101, ...) is kept; ACC and NMI as bench/peers/common.py scores them.
Slow (a Python loop over the rows): minutes on 10^4 rows.

Usage: dmm_base_proto.py MATFILE K [STARTS]   (matrix variable A, labels variable labels, as
bench/corpora/build-all writes them; STARTS default 4)
"""

import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp
from scipy.special import digamma, gammaln

sys.dont_write_bytecode = True
sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))
from common import score  # noqa: E402


def run(A, k, seed, corpus_base, max_sweeps=40):
    rng = np.random.default_rng(seed)
    D, V = A.shape
    L = np.asarray(A.sum(1)).ravel()
    px = np.asarray(A.sum(0)).ravel()
    m = px / px.sum() if corpus_base else np.full(V, 1.0 / V)
    N = np.zeros((k, V))
    Nz = np.zeros(k)
    nz = np.zeros(k)
    z = np.arange(D) % k
    rng.shuffle(z)
    for d in range(D):
        lo, hi = A.indptr[d], A.indptr[d + 1]
        N[z[d], A.indices[lo:hi]] += A.data[lo:hi]
        Nz[z[d]] += L[d]
        nz[z[d]] += 1
    alpha, s = 1.0, 0.1 * V

    def fit():
        nonlocal alpha, s
        for _ in range(30):
            b = s * m
            num = (m[None, :] * (digamma(N + b[None, :]) - digamma(b)[None, :])).sum()
            den = (digamma(Nz + s) - digamma(s)).sum()
            if num > 0 and den > 0:
                s = float(np.clip(s * num / den, 1e-6, 1e9))
            num = np.sum(digamma(nz + alpha)) - k * digamma(alpha)
            den = k * (digamma(D + k * alpha) - digamma(k * alpha))
            if num > 0 and den > 0:
                alpha = float(np.clip(alpha * num / den, 1e-3, 1e6))

    def evidence():
        b = s * m
        return (gammaln(nz + alpha).sum() - k * gammaln(alpha) - gammaln(D + k * alpha) + gammaln(k * alpha)
                + k * gammaln(s) - gammaln(Nz + s).sum() + (gammaln(N + b[None, :]) - gammaln(b)[None, :]).sum())

    for sweep in range(max_sweeps):
        if sweep >= 2:
            fit()
        b = s * m
        moved = 0
        for d in rng.permutation(D):
            zo = z[d]
            if nz[zo] <= 1:
                continue
            lo, hi = A.indptr[d], A.indptr[d + 1]
            idx, c = A.indices[lo:hi], A.data[lo:hi]
            N[zo, idx] -= c
            Nz[zo] -= L[d]
            nz[zo] -= 1
            sub = N[:, idx] + b[idx][None, :]
            g = (np.log(nz + alpha) + (gammaln(sub + c) - gammaln(sub)).sum(1)
                 - (gammaln(Nz + L[d] + s) - gammaln(Nz + s)))
            zn = int(np.argmax(g))
            if g[zn] <= g[zo] + 1e-9 * abs(g[zo]):
                zn = zo
            z[d] = zn
            N[zn, idx] += c
            Nz[zn] += L[d]
            nz[zn] += 1
            moved += zn != zo
        if moved < 0.002 * D:
            break
    fit()
    return z.copy(), evidence() / A.sum(), alpha, s


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    path, k = sys.argv[1], int(sys.argv[2])
    starts = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    mat = scipy.io.loadmat(path)
    A = sp.csr_matrix(mat["A"], dtype=float)
    A.sum_duplicates()
    y = np.asarray(mat["labels"]).ravel()
    y = np.searchsorted(np.unique(y), y)
    for corpus_base in (0, 1):
        t0 = time.time()
        best = None
        for st in range(starts):
            z, e, a, s = run(A, k, 100 + st, corpus_base)
            if best is None or e > best[1]:
                best = (z, e, a, s)
        sc = score(best[0], y, k)
        print("%s %s ACC %.4f NMI %.4f E %.4f a count, alpha %.3g s %.4g, %.0f s" % (
            path.split("/")[-1], "corpus P(x)" if corpus_base else "uniform    ", sc["acc"], sc["nmi"],
            best[1], best[2], best[3], time.time() - t0), flush=True)


if __name__ == "__main__":
    main()
