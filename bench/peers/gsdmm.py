#!/usr/bin/python3
"""The Dirichlet multinomial mixture (DMM) of short-text clustering, in NumPy/SciPy.

Reference: J. Yin, J. Wang, "A Dirichlet multinomial mixture model-based approach for short
text clustering", KDD 2014 (GSDMM: collapsed Gibbs sampling of the DMM).  Written from the
paper's model for the mmnc benchmarks; not derived from any other implementation.

Model.  Each document d (a row of counts c_dx, length L_d) has one cluster z_d; the mixing
weights have a symmetric Dirichlet(alpha) prior, each cluster's term distribution a symmetric
Dirichlet(beta) prior over the V terms.  Integrating both out, a hard partition has the
evidence

  log p(C, z) = sum_z [lgamma(n_z + alpha) - lgamma(alpha)] - lgamma(D + k alpha) + lgamma(k alpha)
              + sum_z [lgamma(V beta) - lgamma(N_z + V beta)
                       + sum_x (lgamma(N_zx + beta) - lgamma(beta))]

with n_z the documents of z, N_zx the counts of term x in z, N_z = sum_x N_zx.  With d taken
out of its cluster, putting it in z changes the evidence by

  g(d, z) = log(n_z + alpha) + sum_x [lgamma(N_zx + c_dx + beta) - lgamma(N_zx + beta)]
            - [lgamma(N_z + L_d + V beta) - lgamma(N_z + V beta)]

(up to a term that does not depend on z), which costs O(nnz(d)) a cluster.

Two ways to use it:
  gibbs  GSDMM as published: z_d drawn from softmax(g(d, .)) for every document in turn,
         `iters` sweeps (30 in the paper), alpha = beta = 0.1, from the paper's start (each
         document in turn drawn given those before it).  K = k is an upper bound; clusters
         may empty.  The labels of the last sweep are returned.
  map    the same evidence maximised: d goes to argmax_z g(d, z) (ties: stays), sweeps
         until no document moves (or `max_sweeps`), so log p(C, z) never decreases; a move
         that would empty a cluster is not made (k clusters are asked).  alpha and beta by
         type-II maximum likelihood: after every sweep each is set by Minka's fixed point
         for the current partition (coordinate ascent of the same evidence).  Starts
         (start=): "greedy", the sequential start (documents in a random order, each to its
         best cluster given those before it; an empty cluster then takes the document that
         loses least), or "random", a random balanced partition; n_init starts, the one of
         highest evidence kept (labels never looked at).  src/cluster/dmm.c is the same
         method in C (random starts), the one mmnc runs.

Usage as a module:
    import gsdmm
    labels, info = gsdmm.fit(P, k, mode="map", n_init=8, seed=1)
CLI:
    gsdmm.py DATA.mat --var A [--truth-var labels] -k K [--mode map|gibbs] [--seed S]
"""

import argparse
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp
from scipy.special import digamma, gammaln


class _State:
    def __init__(self, A, k, alpha, beta):
        self.A = A
        self.k = k
        self.D, self.V = A.shape
        self.L = np.asarray(A.sum(axis=1)).ravel()
        self.alpha = alpha
        self.beta = beta
        self.N = np.zeros((k, self.V))
        self.Nz = np.zeros(k)
        self.nz = np.zeros(k)
        self.z = np.full(self.D, -1, dtype=np.int64)

    def row(self, d):
        lo, hi = self.A.indptr[d], self.A.indptr[d + 1]
        return self.A.indices[lo:hi], self.A.data[lo:hi]

    def add(self, d, z, sign):
        idx, c = self.row(d)
        self.N[z, idx] += sign * c
        self.Nz[z] += sign * self.L[d]
        self.nz[z] += sign

    def gains(self, d):
        idx, c = self.row(d)
        sub = self.N[:, idx] + self.beta
        if np.all(c == 1.0):
            t = np.log(sub).sum(axis=1)
        else:
            t = (gammaln(sub + c) - gammaln(sub)).sum(axis=1)
        vb = self.V * self.beta
        return (np.log(self.nz + self.alpha) + t
                - (gammaln(self.Nz + self.L[d] + vb) - gammaln(self.Nz + vb)))

    def evidence(self):
        k, a, b, V = self.k, self.alpha, self.beta, self.V
        nzN = self.N[self.N > 0]
        return (np.sum(gammaln(self.nz + a)) - k * gammaln(a) - gammaln(self.D + k * a)
                + gammaln(k * a)
                + k * gammaln(V * b) - np.sum(gammaln(self.Nz + V * b))
                + np.sum(gammaln(nzN + b)) - nzN.size * gammaln(b))

    def fit_hyper(self, rounds=20):
        """Minka's fixed points for alpha and beta, the partition held."""
        k, V = self.k, self.V
        nzN = self.N[self.N > 0]
        for _ in range(rounds):
            num = np.sum(digamma(nzN + self.beta)) - nzN.size * digamma(self.beta)
            den = V * (np.sum(digamma(self.Nz + V * self.beta)) - k * digamma(V * self.beta))
            if num > 0 and den > 0:
                self.beta = float(np.clip(self.beta * num / den, 1e-6, 1e3))
            num = np.sum(digamma(self.nz + self.alpha)) - k * digamma(self.alpha)
            den = k * (digamma(self.D + k * self.alpha) - digamma(k * self.alpha))
            if num > 0 and den > 0:
                self.alpha = float(np.clip(self.alpha * num / den, 1e-3, 1e6))


def _softmax_draw(g, rng):
    p = np.exp(g - g.max())
    p /= p.sum()
    return int(rng.choice(p.size, p=p))


def _gibbs(A, k, seed, alpha, beta, iters):
    rng = np.random.default_rng(seed)
    s = _State(A, k, alpha, beta)
    for d in range(s.D):
        z = _softmax_draw(s.gains(d), rng)
        s.z[d] = z
        s.add(d, z, +1)
    for _ in range(iters):
        for d in range(s.D):
            s.add(d, s.z[d], -1)
            z = _softmax_draw(s.gains(d), rng)
            s.z[d] = z
            s.add(d, z, +1)
    return s.z.copy(), s.evidence(), iters


def _map_start(A, k, seed, max_sweeps, start="greedy"):
    rng = np.random.default_rng(seed)
    s = _State(A, k, 1.0, 0.1)
    order = rng.permutation(s.D)
    if start == "random":
        zs = np.arange(s.D) % k
        rng.shuffle(zs)
        for d in range(s.D):
            s.z[d] = zs[d]
            s.add(d, zs[d], +1)
    else:
        for d in order:
            z = int(np.argmax(s.gains(d)))
            s.z[d] = z
            s.add(d, z, +1)
    # every cluster non-empty: an empty one takes the document that loses least
    for z in np.flatnonzero(s.nz == 0):
        best, bd = None, -1
        for d in order:
            if s.nz[s.z[d]] <= 1:
                continue
            s.add(d, s.z[d], -1)
            g = s.gains(d)
            s.add(d, s.z[d], +1)
            loss = g[s.z[d]] - g[z]
            if best is None or loss < best:
                best, bd = loss, d
        s.add(bd, s.z[bd], -1)
        s.z[bd] = z
        s.add(bd, z, +1)
    s.fit_hyper()
    sweeps = 0
    trace = [s.evidence()]
    for sweeps in range(1, max_sweeps + 1):
        moved = 0
        for d in rng.permutation(s.D):
            zo = s.z[d]
            if s.nz[zo] <= 1:
                continue
            s.add(d, zo, -1)
            g = s.gains(d)
            zn = int(np.argmax(g))
            if g[zn] <= g[zo] + 1e-9 * abs(g[zo]):
                zn = zo
            s.z[d] = zn
            s.add(d, zn, +1)
            moved += zn != zo
        s.fit_hyper()
        trace.append(s.evidence())
        if moved == 0:
            break
    return s.z.copy(), trace[-1], sweeps, s.alpha, s.beta, trace


def fit(A, k, mode="map", n_init=8, seed=1, alpha=0.1, beta=0.1, iters=30, max_sweeps=50,
        start="greedy"):
    A = sp.csr_matrix(A, dtype=np.float64)
    A.sum_duplicates()
    if mode == "gibbs":
        lab, ev, it = _gibbs(A, k, seed, alpha, beta, iters)
        return np.unique(lab, return_inverse=True)[1], {"evidence": ev, "iters": it}
    best = None
    allev = []
    for r in range(n_init):
        lab, ev, sw, a, b, trace = _map_start(A, k, seed * 1000 + r, max_sweeps, start)
        allev.append(ev)
        if best is None or ev > best[1]:
            best = (lab, ev, sw, a, b, trace, r)
    lab, ev, sw, a, b, trace, r = best
    return lab, {"evidence": ev, "evidence_all": allev, "sweeps": sw, "alpha": a, "beta": b,
                 "trace": trace, "best_start": r}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data")
    ap.add_argument("--var", default="A")
    ap.add_argument("--truth-var")
    ap.add_argument("-k", type=int, required=True)
    ap.add_argument("--mode", default="map", choices=["map", "gibbs"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n-init", type=int, default=8)
    a = ap.parse_args()
    mat = scipy.io.loadmat(a.data)
    A = sp.csr_matrix(mat[a.var], dtype=np.float64)
    truth = None
    if a.truth_var:
        truth = np.asarray(mat[a.truth_var]).ravel()
        if A.shape[0] != truth.size:
            A = sp.csr_matrix(A.T)
    keep = np.asarray(A.sum(axis=1)).ravel() > 0
    t0 = time.perf_counter()
    lab = np.zeros(A.shape[0], dtype=np.int64)
    sub, info = fit(A[keep], a.k, mode=a.mode, n_init=a.n_init, seed=a.seed)
    lab[keep] = sub
    sec = time.perf_counter() - t0
    out = {k2: v for k2, v in info.items() if k2 != "trace"}
    out["seconds"] = round(sec, 2)
    if truth is not None:
        sys.path.insert(0, __file__.rsplit("/", 1)[0])
        from common import score
        t = np.unique(truth, return_inverse=True)[1]
        out.update(score(lab, t, a.k))
    print(out)


if __name__ == "__main__":
    main()
