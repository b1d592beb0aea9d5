#!/usr/bin/python3
"""Information-theoretic co-clustering (ITCC) in NumPy/SciPy.

Reference: I. S. Dhillon, S. Mallela, D. S. Modha, "Information-theoretic co-clustering",
KDD 2003 (Algorithm "Co-Clustering", Section 4).

Written from the paper's description for the mmnc benchmarks; not derived from any
other implementation.

Setting.  P is a nonnegative |X| x |Y| matrix (here rows x = documents, columns
y = terms); p(x, y) = P[x, y] / sum(P).  Row clusters C_X: X -> {0..k-1} (x^) and
column clusters C_Y: Y -> {0..l-1} (y^) are sought that minimise the loss in mutual
information

    I(X; Y) - I(X^; Y^) = D( p(X, Y) || q(X, Y) ),
    q(x, y) = p(x^, y^) p(x | x^) p(y | y^)     (x in x^, y in y^),

i.e. that maximise I(X^; Y^) = sum p(x^, y^) log( p(x^, y^) / (p(x^) p(y^)) ).

Algorithm (the paper's, one start):
  1. random C_X, C_Y; compute q(X^, Y^), q(X | X^), q(Y | Y^) and
     q(y | x^) = q(y | y^) q(y^ | x^).
  2. every row x at once: C_X(x) = argmin_{x^} D( p(Y | x) || q(Y | x^) ).
  3. recompute the distributions; q(x | y^) = q(x | x^) q(x^ | y^).
  4. every column y at once: C_Y(y) = argmin_{y^} D( p(X | y) || q(X | y^) ).
  5. recompute; stop when the objective improved by less than `tol` (nats) over
     steps 2-4 (the paper: "small (say 10^-3)"; here 1e-6 by default) or after
     `max_iter` rounds; else go to 2.
Each of steps 2 and 4 cannot lower I(X^; Y^) (the paper's Lemma 4.x / Theorem 4.1).

Fast form.  Since q(y | x^) = q(y | y^) q(y^ | x^) and q(y | y^) = p(y) / p(y^) does not
depend on x^,
    argmin_{x^} D( p(Y|x) || q(Y|x^) ) = argmax_{x^} sum_{y^} p(x, y^) log q(y^ | x^),
so step 2 is one n x l by l x k product with p(x, y^) = P C_Y (aggregated over the column
clusters); step 4 likewise with p(x^, y) = C_X^T P.  Everything costs O(nnz(P) + (n+m) k l)
per round.

Details the paper leaves open, as chosen here:
  * the random starts are uniformly random balanced partitions of the rows into k and of
    the columns into l clusters (random permutations of 0, 1, ..., k-1, 0, 1, ...);
  * ties keep the current cluster (a change needs a score better by more than 1e-12
    relative), so the rounds terminate;
  * q(y^ | x^) = 0 with p(x, y^) > 0 is an infinite divergence (log 0 is taken as -1e30);
    a cluster that becomes empty gets no members again (its divergence is undefined);
  * n_init independent starts; the one with the highest I(X^; Y^) is kept (the
    objective; labels are never looked at).

Usage as a module:
    import itcc
    labels, info = itcc.fit(P, k, n_init=10, seed=1, l=None)    # l = k by default
    info: {"mi": I(X^;Y^) in nats, "mi_all", "iterations", "best_start", "col_labels",
           "mi_xy": I(X;Y), "seconds"}

CLI:  itcc.py --selftest
      itcc.py DATA.mat --var fea -k K [-l L] [--n-init R] [--seed S] [-o labels.txt]
"""

import argparse
import sys
import time

import numpy as np
import scipy.sparse as sp

sys.dont_write_bytecode = True

LOG0 = -1e30


def _xlogx(v):
    v = np.asarray(v, dtype=np.float64)
    out = np.zeros_like(v)
    pos = v > 0
    out[pos] = v[pos] * np.log(v[pos])
    return out


def _mi(J):
    """I(X^;Y^) of a joint (any scale: normalised here)."""
    J = J / J.sum()
    return float(_xlogx(J).sum() - _xlogx(J.sum(axis=1)).sum() - _xlogx(J.sum(axis=0)).sum())


def _indicator(labels, k):
    return sp.csr_matrix((np.ones(len(labels)), (np.arange(len(labels)), labels)),
                         shape=(len(labels), k))


def _logcond(J, axis):
    """log of J normalised along `axis` (log q(y^|x^) for axis=1), LOG0 for zeros."""
    s = J.sum(axis=axis, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        L = np.log(J / s)
    L[~np.isfinite(L)] = LOG0
    return L


def _reassign(scores, cur, empty):
    """argmax of scores per row, keeping the current cluster on (near) ties."""
    scores[:, empty] = -np.inf
    new = np.argmax(scores, axis=1)
    best = scores[np.arange(len(cur)), new]
    here = scores[np.arange(len(cur)), cur]
    keep = here >= best - 1e-12 * np.abs(best)
    new[keep] = cur[keep]
    return new


def _balanced(n, k, rng):
    return rng.permutation(np.arange(n) % k)


def _one_start(P, PT, k, l, rng, max_iter, tol):
    n, m = P.shape
    rl = _balanced(n, k, rng)
    cl = _balanced(m, l, rng)
    Pxy = np.asarray((P @ _indicator(cl, l)).todense())      # p(x, y^), n x l
    J = np.asarray((_indicator(rl, k).T @ Pxy))               # p(x^, y^), k x l
    mi = _mi(J)
    it = 0
    for it in range(1, max_iter + 1):
        # step 2: rows, with q(y^ | x^) of the current co-clustering
        S = Pxy @ _logcond(J, 1).T                            # n x k
        rl = _reassign(S, rl, np.bincount(rl, minlength=k) == 0)
        # step 3
        Pxhy = np.asarray((PT @ _indicator(rl, k)).todense())  # p(x^, y) as m x k
        J = np.asarray(_indicator(cl, l).T @ Pxhy).T            # k x l
        # step 4: columns, with q(x^ | y^)
        S = Pxhy @ _logcond(J, 0)                             # m x l
        cl = _reassign(S, cl, np.bincount(cl, minlength=l) == 0)
        # step 5
        Pxy = np.asarray((P @ _indicator(cl, l)).todense())
        J = np.asarray((_indicator(rl, k).T @ Pxy))
        new = _mi(J)
        gain = new - mi
        mi = new
        if gain < tol:
            break
    return rl, cl, mi, it


def fit(P, k, n_init=10, seed=1, l=None, max_iter=200, tol=1e-6, verbose=False):
    """ITCC of P (|X| x |Y|, sparse or dense, nonnegative) into k row and l column clusters.

    Returns (row labels of the start with the highest I(X^;Y^), info)."""
    t0 = time.perf_counter()
    l = k if l is None else l
    P = sp.csr_matrix(P, dtype=np.float64)
    P.sum_duplicates()
    if P.data.size and P.data.min() < 0:
        raise ValueError("itcc: P must be nonnegative")
    P = P / P.sum()
    PT = sp.csr_matrix(P.T)
    rng = np.random.default_rng(seed)
    best = None
    mi_all, iters = [], []
    for r in range(n_init):
        rl, cl, mi, it = _one_start(P, PT, k, l, rng, max_iter, tol)
        mi_all.append(mi)
        iters.append(it)
        if verbose:
            print("itcc: start %d: I(X^;Y^) = %.6f nats after %d rounds (%.1f s)" % (
                r, mi, it, time.perf_counter() - t0), file=sys.stderr, flush=True)
        if best is None or mi > mi_all[best]:
            best, best_rl, best_cl = r, rl, cl
    px = np.asarray(P.sum(axis=1)).ravel()
    py = np.asarray(P.sum(axis=0)).ravel()
    mi_xy = float(_xlogx(P.data).sum() - _xlogx(px).sum() - _xlogx(py).sum())
    info = {"mi": mi_all[best], "mi_all": mi_all, "iterations": iters, "best_start": best,
            "col_labels": best_cl, "mi_xy": mi_xy, "l": l, "seconds": time.perf_counter() - t0}
    return best_rl, info


def selftest():
    from sklearn.metrics import adjusted_rand_score
    import sib
    P, truth = sib.planted()
    lab, info = fit(P, 4, n_init=3, seed=1)
    ari = adjusted_rand_score(truth, lab)
    ok = ari >= 0.999 and info["mi"] <= info["mi_xy"] + 1e-12
    # monotone: the objective after every round of one start
    Pn = sp.csr_matrix(P / P.sum())
    trace = [_one_start(Pn, sp.csr_matrix(Pn.T), 4, 3, np.random.default_rng(5), it, -np.inf)[2]
             for it in range(1, 8)]
    if np.diff(trace).min() < -1e-12:
        ok = False
        print("selftest FAIL: I(X^;Y^) decreased: %s" % trace)
    print("itcc selftest: %s (planted 240 x 200, k = l = 4: ARI %.4f, I(X^;Y^) %.4f <= I(X;Y) "
          "%.4f nats; k = 4, l = 3 per round: %s)" % (
              "ok" if ok else "FAILED", ari, info["mi"], info["mi_xy"],
              " ".join("%.4f" % v for v in trace)))
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description="information-theoretic co-clustering (Dhillon et al. 2003)")
    ap.add_argument("data", nargs="?", help="a .mat file")
    ap.add_argument("--var", default="fea")
    ap.add_argument("-k", type=int, default=2, help="row clusters")
    ap.add_argument("-l", type=int, help="column clusters (default k)")
    ap.add_argument("--n-init", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", metavar="FILE", help="write one row label (0-based) per line")
    ap.add_argument("--selftest", action="store_true")
    a = ap.parse_args()
    if a.selftest:
        return selftest()
    if not a.data:
        ap.error("DATA or --selftest")
    import scipy.io
    P = scipy.io.loadmat(a.data)[a.var]
    lab, info = fit(P, a.k, a.n_init, a.seed, a.l, verbose=True)
    print("I(X^;Y^) = %.6f of I(X;Y) = %.6f nats (start %d), rounds %s, %.1f s" % (
        info["mi"], info["mi_xy"], info["best_start"], info["iterations"], info["seconds"]))
    if a.o:
        np.savetxt(a.o, lab, fmt="%d")
    return 0


if __name__ == "__main__":
    sys.exit(main())
