#!/usr/bin/python3
"""Sequential information bottleneck (sIB) in NumPy/SciPy.

Reference: N. Slonim, N. Friedman, N. Tishby, "Unsupervised document classification
using sequential information maximization", SIGIR 2002 (the sIB algorithm, with the
hard-clustering limit beta -> infinity of the information bottleneck).

Written from the paper's description for the mmnc benchmarks; not derived from any
other implementation.

Setting.  P is a nonnegative |Y| x |X| matrix (rows y = documents, columns x = terms);
the joint is p(y, x) = P[y, x] / sum(P), so p(y) is proportional to the row sum (the
document length).  A hard clustering Z: Y -> {0..k-1} is sought that maximises

    I(Z; X) = sum_{z,x} p(z, x) log( p(z, x) / (p(z) p(x)) ),   p(z, x) = sum_{y in z} p(y, x)

(in nats).  sIB starts from a random partition and repeatedly draws one row y out of
its cluster (a singleton {y}) and merges it into the cluster c of least merge cost

    d(y, c) = (p(y) + p(c)) * JS_pi( p(x|y), p(x|c) ),   pi = (p(y), p(c)) / (p(y) + p(c)),

where JS_pi(p, q) = pi_1 KL(p || m) + pi_2 KL(q || m), m = pi_1 p + pi_2 q.  d(y, c) is
exactly the loss in I(Z; X) when {y} and c are merged, so a move y: c_old -> c_new
changes I(Z; X) by d(y, c_old) - d(y, c_new) >= 0: I(Z; X) never decreases.  A sweep
visits every row once (in a random order); the sweeps stop when no row moved, when
at most `min_moved` of the rows moved, or after `max_sweeps`.  n_init independent
random starts are run and the one of highest I(Z; X) is kept (the objective; labels
are never looked at).

Fast form of the cost.  With the joint masses a_x = p(y, x), b_x = p(c, x) and
p(y) = sum a, p(c) = sum b:

    d(y, c) = sum_x [ a_x log a_x + b_x log b_x - (a_x + b_x) log(a_x + b_x) ]
              + (p(y) + p(c)) log(p(y) + p(c)) - p(y) log p(y) - p(c) log p(c).

A term with a_x = 0 is b log b - b log b = 0 (this is the closed form of the terms
pi_c p(x|c) log(1 / pi_c) of the normalised JS outside the row's support, folded into
the last three terms), so each row's costs to all k clusters take O(nnz(row) * k):
only the columns of the row's support are read.  The cluster joints p(c, x) (a dense
|X| x k array) and their b log b are updated in place when a row moves.  The sums
are kept in the units of P (e.g. integer counts, which keeps them exact); the costs
are then sum(P) times the ones above, which changes no decision.

Details the paper leaves open, as chosen here:
  * the random start is a uniformly random balanced partition (a random permutation
    of 0, 1, ..., k-1, 0, 1, ...), so no cluster starts empty;
  * ties keep the row where it is (a move needs a cost lower by more than 1e-12
    relative), so the sweeps terminate;
  * a row alone in its cluster costs 0 to put back and stays;
  * rows with zero mass carry nothing and stay where the start put them.

Usage as a module:
    import sib
    labels, info = sib.fit(P, k, n_init=10, seed=1)    # P: scipy.sparse or dense
    info: {"mi": I(Z;X) of the kept start, "mi_all": [...], "sweeps": [...],
           "mi_trace": [I(Z;X) after each sweep of the kept start], "best_start": i}

CLI:  sib.py --selftest
      sib.py DATA.mat --var fea -k K [--n-init R] [--seed S] [-o labels.txt]
"""

import argparse
import sys
import time

import numpy as np
import scipy.sparse as sp

sys.dont_write_bytecode = True


TINY = 1e-300                                          # x log max(x, TINY) = 0 at x = 0


def _xlogx(v):
    """v log v with 0 log 0 = 0 (v >= 0, elementwise)."""
    v = np.asarray(v, dtype=np.float64)
    out = np.zeros_like(v)
    pos = v > 0
    out[pos] = v[pos] * np.log(v[pos])
    return out


def mutual_information(P, labels, k):
    """I(Z; X) in nats for the hard clustering `labels` of the rows of P."""
    P = sp.csr_matrix(P, dtype=np.float64)
    tot = P.sum()
    W = sp.csr_matrix((np.ones(P.shape[0]), (labels, np.arange(P.shape[0]))),
                      shape=(k, P.shape[0]))
    J = np.asarray((W @ P).todense()) / tot           # p(z, x)
    pz = J.sum(axis=1)
    px = J.sum(axis=0)
    return float(_xlogx(J).sum() - _xlogx(pz).sum() - _xlogx(px).sum())


def _one_start(indptr, indices, data, rowmass, nx, k, rng, max_sweeps, min_moved, trace):
    n = len(rowmass)
    labels = rng.permutation(np.arange(n) % k)
    tot = rowmass.sum()
    # cluster sums, |X| x k so that the rows of a support are contiguous
    BT = np.zeros((nx, k))
    for y in range(n):
        s, e = indptr[y], indptr[y + 1]
        BT[indices[s:e], labels[y]] += data[s:e]
    pc = np.bincount(labels, weights=rowmass, minlength=k).astype(np.float64)
    BL = _xlogx(BT)                                    # b log b, kept in step with BT
    px = BT.sum(axis=1)
    hx = float(_xlogx(px).sum())

    def mi():                                          # I(Z;X) in nats
        return float((BL.sum() - _xlogx(pc).sum() - hx) / tot + np.log(tot))

    mis = [mi()] if trace else []
    ip = indptr.tolist()
    rm = rowmass.tolist()
    sweeps = 0
    for sweeps in range(1, max_sweeps + 1):
        moved = 0
        for y in rng.permutation(n).tolist():
            py = rm[y]
            if py <= 0:
                continue
            s, e = ip[y], ip[y + 1]
            idx = indices[s:e]
            a = data[s:e]
            c0 = labels[y]
            # merge costs to every cluster c != c0 (constants of y dropped: sum a log a and
            # p(y) log p(y)); y is still counted in c0, so c0's entry is redone below
            Bs = BT.take(idx, axis=0)                  # m x k
            S = Bs + a[:, None]
            L = np.log(S)
            L *= S
            T = BL.take(idx, axis=0)
            ls0 = T[:, c0].sum()
            T -= L
            pcy = pc + py
            cost = T.sum(axis=0) + pcy * np.log(pcy) - pc * np.log(np.maximum(pc, TINY))
            # the cost of putting y back into c0 \ {y}
            b0 = Bs[:, c0] - a
            np.maximum(b0, 0.0, out=b0)                # rounding (exact for integer P)
            p0 = max(pc[c0] - py, 0.0)
            cost[c0] = ((b0 * np.log(np.maximum(b0, TINY))).sum() - ls0
                        + pc[c0] * np.log(pc[c0]) - (p0 * np.log(p0) if p0 > 0 else 0.0))
            c1 = int(np.argmin(cost))
            if c1 == c0 or not cost[c1] < cost[c0] - 1e-12 * abs(cost[c0]):
                continue
            moved += 1
            BT[idx, c0] = b0                           # y leaves c0 ...
            BL[idx, c0] = b0 * np.log(np.maximum(b0, TINY))
            pc[c0] = p0
            b1 = Bs[:, c1] + a                         # ... and joins c1
            BT[idx, c1] = b1
            BL[idx, c1] = b1 * np.log(b1)
            pc[c1] += py
            labels[y] = c1
        if trace:
            mis.append(mi())
        if moved == 0 or moved <= min_moved * n:
            break
    return labels, mi(), sweeps, mis


def fit(P, k, n_init=10, seed=1, max_sweeps=100, min_moved=0.0, trace=False, verbose=False):
    """sIB on the rows of P (sparse or dense, nonnegative, |Y| x |X|) into k clusters.

    Returns (labels, info): labels (|Y|,) in 0..k-1 of the start with the highest I(Z;X);
    info = {"mi", "mi_all", "sweeps", "best_start", "mi_trace" (if trace), "seconds"}.
    The random starts use numpy.random.default_rng(seed).
    """
    t0 = time.perf_counter()
    P = sp.csr_matrix(P, dtype=np.float64)
    P.sum_duplicates()
    P.eliminate_zeros()
    if P.data.size and P.data.min() < 0:
        raise ValueError("sib: P must be nonnegative")
    rowmass = np.asarray(P.sum(axis=1)).ravel()
    rng = np.random.default_rng(seed)
    best = None
    mi_all, sweeps_all, traces = [], [], []
    for r in range(n_init):
        lab, m, sw, tr = _one_start(P.indptr, P.indices, P.data, rowmass, P.shape[1], k, rng,
                                    max_sweeps, min_moved, trace)
        mi_all.append(m)
        sweeps_all.append(sw)
        traces.append(tr)
        if verbose:
            print("sib: start %d: I(Z;X) = %.6f nats after %d sweeps (%.1f s)" % (
                r, m, sw, time.perf_counter() - t0), file=sys.stderr, flush=True)
        if best is None or m > mi_all[best]:
            best = r
            best_lab = lab.copy()
    info = {"mi": mi_all[best], "mi_all": mi_all, "sweeps": sweeps_all, "best_start": best,
            "seconds": time.perf_counter() - t0}
    if trace:
        info["mi_trace"] = traces[best]
        info["mi_traces"] = traces
    return best_lab, info


# ---------------------------------------------------------------- self-check

def planted(n_per=60, k=4, nx_per=50, seed=0, noise=0.15):
    """A small planted document x term count matrix: k groups of rows, each drawing its
    words mostly from its own block of nx_per columns, with `noise` of them uniform."""
    rng = np.random.default_rng(seed)
    nx = k * nx_per
    rows, truth = [], []
    for c in range(k):
        p = np.full(nx, noise / nx)
        p[c * nx_per:(c + 1) * nx_per] += (1 - noise) / nx_per
        for _ in range(n_per):
            rows.append(rng.multinomial(rng.integers(20, 60), p))
            truth.append(c)
    order = rng.permutation(len(truth))
    return sp.csr_matrix(np.array(rows, dtype=np.float64)[order]), np.array(truth)[order]


def selftest():
    from sklearn.metrics import adjusted_rand_score
    ok = True
    P, truth = planted()
    lab, info = fit(P, 4, n_init=3, seed=1, trace=True)
    ari = adjusted_rand_score(truth, lab)
    for tr in info["mi_traces"]:
        d = np.diff(tr)
        if d.size and d.min() < -1e-12:
            print("selftest FAIL: I(Z;X) decreased across a sweep: %s" % tr)
            ok = False
    if abs(info["mi"] - mutual_information(P, lab, 4)) > 1e-9:
        print("selftest FAIL: kept I(Z;X) %.12f != recomputed %.12f" % (
            info["mi"], mutual_information(P, lab, 4)))
        ok = False
    if ari < 0.999:
        print("selftest FAIL: planted partition not recovered (ARI %.4f)" % ari)
        ok = False
    # the cost equals the loss of I(Z;X) by brute force on a tiny dense example
    rng = np.random.default_rng(3)
    Q = rng.random((12, 7)) * (rng.random((12, 7)) < 0.6)
    Q[:, 0] += 0.01
    labq = np.arange(12) % 3
    y, c = 4, 2
    tot = Q.sum()
    a = Q[y] / tot
    b = Q[labq == c].sum(axis=0) / tot
    pi1, pi2 = a.sum() / (a.sum() + b.sum()), b.sum() / (a.sum() + b.sum())
    p, q = a / a.sum(), b / b.sum()
    m = pi1 * p + pi2 * q

    def kl(u, v):
        s = u > 0
        return float((u[s] * np.log(u[s] / v[s])).sum())
    d_js = (a.sum() + b.sum()) * (pi1 * kl(p, m) + pi2 * kl(q, m))
    d_fast = float((_xlogx(a) + _xlogx(b) - _xlogx(a + b)).sum()
                   + _xlogx(a.sum() + b.sum()) - _xlogx(a.sum()) - _xlogx(b.sum()))
    lab_out = labq.copy()
    lab_out[y] = 3                                   # y alone
    lab_in = labq.copy()
    lab_in[y] = c                                    # y merged into c (it was in 1)
    loss = mutual_information(Q, lab_out, 4) - mutual_information(Q, lab_in, 4)
    if not (abs(d_js - d_fast) < 1e-12 and abs(d_js - loss) < 1e-12):
        print("selftest FAIL: merge cost JS %.15f, fast %.15f, I-loss %.15f" % (d_js, d_fast, loss))
        ok = False
    print("sib selftest: %s (planted 240 x 200, k = 4: ARI %.4f, I(Z;X) %.4f nats, sweeps %s, "
          "I(Z;X) per sweep of the kept start %s)" % (
              "ok" if ok else "FAILED", ari, info["mi"], info["sweeps"],
              " ".join("%.4f" % v for v in info["mi_trace"])))
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description="sequential information bottleneck (Slonim et al. 2002)")
    ap.add_argument("data", nargs="?", help="a .mat file")
    ap.add_argument("--var", default="fea", help="variable of the .mat file (default fea)")
    ap.add_argument("-k", type=int, default=2)
    ap.add_argument("--n-init", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-sweeps", type=int, default=100)
    ap.add_argument("-o", metavar="FILE", help="write one label (0-based) per line")
    ap.add_argument("--selftest", action="store_true", help="run the self-check and exit")
    a = ap.parse_args()
    if a.selftest:
        return selftest()
    if not a.data:
        ap.error("DATA or --selftest")
    import scipy.io
    P = scipy.io.loadmat(a.data)[a.var]
    lab, info = fit(P, a.k, a.n_init, a.seed, a.max_sweeps, verbose=True)
    print("I(Z;X) = %.6f nats (start %d), sweeps %s, %.1f s" % (
        info["mi"], info["best_start"], info["sweeps"], info["seconds"]))
    if a.o:
        np.savetxt(a.o, lab, fmt="%d")
    return 0


if __name__ == "__main__":
    sys.exit(main())
