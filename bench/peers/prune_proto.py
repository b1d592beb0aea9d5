#!/usr/bin/python3
"""The prototype behind the pruned decisions of the information moves (src/cluster/moves.c,
costs_pruned; bench/NOTES.md, "Pruned decisions"): sequential single-row moves on I(X;Z) from a
random partition (phase 1 of a start, no size prior), in NumPy, one row at a time.  At every
decision it makes every cost exactly, bounds lo_c <= cost_c <= hi_c, checks that they hold, and
counts the clusters besides the row's own whose lower bound does not exceed the least upper bound
(the exact costs of the first pruned decisions, 67256c6; mmnc now holds the lower bounds to the
exact cost of the cluster of least lower bound instead, which makes fewer: bench/NOTES.md, "Lower
bounds only").  Prints, per sweep, the moves and that count's mean, median, 90th percentile and
largest.  Slow (minutes a sweep).

Usage: prune_proto.py MATFILE VAR K [SWEEPS] [TAU] [GAP]
  VAR: the matrix's variable (Reuters21578.mat: fea); TAU: the near threshold (default 0.5);
  GAP: how the far lower bound's a^2 / (2 b) is bounded: exact (a table of 1 / b), pow2
  ((a / 2) 2^ceil(log2(a / b)), what mmnc does; the default) or linear (a / (2 TAU), no table).
"""

import sys

import numpy as np
import scipy.io
import scipy.sparse as sp

sys.dont_write_bytecode = True


def xlogx(v):
    out = np.zeros_like(v)
    pos = v > 0
    out[pos] = v[pos] * np.log(v[pos])
    return out


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    path, var, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
    sweeps = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    tau = float(sys.argv[5]) if len(sys.argv) > 5 else 0.5
    gap = sys.argv[6] if len(sys.argv) > 6 else "pow2"
    try:
        A = sp.csr_matrix(scipy.io.loadmat(path)[var], dtype=float)
    except (OSError, ValueError, KeyError) as e:
        print("prune_proto: %s: cannot read variable %s (%s)" % (path, var, e), file=sys.stderr)
        return 1
    A.sum_duplicates()
    P = A / A.sum()
    ny, nx = P.shape
    rng = np.random.default_rng(1)
    lab = rng.integers(0, k, ny)
    T = np.zeros((nx, k))
    for c in range(k):
        T[:, c] = np.asarray(P[lab == c].sum(0)).ravel()
    py = np.asarray(P.sum(1)).ravel()
    pz = np.array([py[lab == c].sum() for c in range(k)])
    ip, ci, va = P.indptr, P.indices, P.data
    ct = np.log1p(tau)
    for sweep in range(sweeps):
        moved, surv = 0, []
        for y in rng.permutation(ny):
            c0 = lab[y]
            cols = ci[ip[y]:ip[y + 1]]
            a = va[ip[y]:ip[y + 1]][:, None]
            la = np.log(a)
            b = T[cols].copy()
            b[:, c0] = np.maximum(b[:, c0] - a[:, 0], 0)
            pc = pz.copy()
            pc[c0] -= py[y]
            if pc[c0] <= 1e-15 * pz[c0]:
                continue
            mass = xlogx(py[y] + pc) - xlogx(pc)
            exact = (xlogx(b) - xlogx(a + b)).sum(0) + mass
            pos = b > 0
            bs = np.where(pos, b, 1.0)
            far = b >= tau * a
            u = -a * (np.log(bs) + 1)
            an = a * (1 + tau)
            hup = np.where(an < 1 / np.e, -an * np.log(np.minimum(an, 1 / np.e)), 1 / np.e)
            if gap == "exact":
                g = a * a / (2 * bs)
            elif gap == "linear":
                g = a / (2 * tau) * np.ones_like(bs)
            else:
                g = a / 2 * np.exp2(np.ceil(np.log2(a / bs)))
            hi = np.where(pos, np.where(far, u, hup), -a * la).sum(0) + mass
            lo = np.where(pos, np.where(far, u - g, -a * (la + ct + 1)), -a * la).sum(0) + mass
            tol = 1e-12 * np.abs(exact).max()
            if not (np.all(exact <= hi + tol) and np.all(exact >= lo - tol)):
                print("prune_proto: a bound does not hold (row %d)" % y, file=sys.stderr)
                return 1
            hi[c0] = lo[c0] = exact[c0]
            surv.append(np.sum(lo <= hi.min()) - 1)
            c1 = int(np.argmin(exact))
            if c1 != c0 and exact[c1] < exact[c0] - 1e-12 * abs(exact[c0]):
                T[cols, c0] = np.maximum(T[cols, c0] - a[:, 0], 0)
                T[cols, c1] += a[:, 0]
                pz[c0] -= py[y]
                pz[c1] += py[y]
                lab[y] = c1
                moved += 1
        surv = np.array(surv)
        print("k=%d tau=%g gap=%s sweep %d: %d moves; exact costs besides the own cluster's: "
              "mean %.2f median %d p90 %d max %d" % (k, tau, gap, sweep + 1, moved, surv.mean(),
                                                     np.median(surv), np.percentile(surv, 90),
                                                     surv.max()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
