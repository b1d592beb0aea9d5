#!/usr/bin/python3
"""The prototype behind mmnc embed's shifted subspace iteration (bench/NOTES.md, "A shifted
iteration"): subspace iteration on M = B'^T B' (B' = the DTM less its trivial pair), unshifted
or with a Chebyshev filter of degree m on [0, S_l^2] (m = 1 is what src/linalg/svd.c does), counting the
sparse products and printing, at every Ritz test, the residuals ||B' B'^T u - s^2 u|| / s^2 of
the d Ritz vectors (two extra products each, not counted) and whether the leading values settled
to 1e-3 (mmnc's stopping rule).  Slow (SciPy, one thread): minutes per product at d = 640.

Usage: shift_proto.py MATRIX.mtx D plain|cheb|chebp [M] [MAX_PRODUCTS]
  cheb: the filter of degree M from the first test; chebp: one unshifted step first.
"""

import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp

sys.dont_write_bytecode = True


def main():
    if len(sys.argv) < 4 or sys.argv[3] not in ("plain", "cheb", "chebp"):
        print(__doc__, file=sys.stderr)
        return 2
    path, d, method = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    m = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    maxprod = int(sys.argv[5]) if len(sys.argv) > 5 else 14
    try:
        P = sp.csr_matrix(scipy.io.mmread(path))
    except (OSError, ValueError) as e:
        print("shift_proto: %s: cannot read a Matrix Market matrix (%s)" % (path, e),
              file=sys.stderr)
        return 1
    P = P / P.sum()
    py, px = np.asarray(P.sum(1)).ravel(), np.asarray(P.sum(0)).ravel()
    P = P[py > 0][:, px > 0].tocsr()
    py, px = py[py > 0], px[px > 0]
    B = (sp.diags(py ** -0.5) @ P @ sp.diags(px ** -0.5)).tocsr()
    BT = B.T.tocsr()
    sy, sx = np.sqrt(py), np.sqrt(px)
    l, r = d + max(20, d // 4), d
    count = [0]

    def mul(X):                                   # B' X = B X - sy (sx^T X)
        count[0] += 1
        return B @ X - np.outer(sy, sx @ X)

    def tmul(Y):
        count[0] += 1
        return BT @ Y - np.outer(sx, sy @ Y)

    def orth(X):
        return np.linalg.qr(X)[0]

    Q = orth(np.random.default_rng(1).standard_normal((B.shape[1], l)))
    prev, t0 = None, time.time()
    while count[0] < maxprod:
        Y = mul(Q)
        w, C = np.linalg.eigh(Y.T @ Y)
        w, C = w[::-1], C[:, ::-1]
        s = np.sqrt(np.maximum(w, 0))
        U = Y @ C[:, :r] / s[:r]
        R = B @ (BT @ U) - np.outer(sy, sy @ U) - U * s[:r] ** 2   # B' B'^T = B B^T - sy sy^T
        res = np.linalg.norm(R, axis=0) / s[:r] ** 2
        settled = prev is not None and np.max(np.abs(s[:r] - prev[:r])) < 1e-3 * s[0]
        print("%s m=%d products=%d sigma_d=%.5f residual median=%.4f p90=%.4f max=%.4f "
              "settled=%s %.0fs" % (method, m, count[0], s[r - 1], np.median(res),
                                    np.percentile(res, 90), res.max(), settled, time.time() - t0),
              flush=True)
        prev = s
        Z = tmul(Y)
        if method == "plain" or (method == "chebp" and count[0] == 2):
            Q = orth(Z)
            continue
        c = e = s[l - 1] ** 2 / 2                 # [0, S_l^2] = [c - e, c + e]
        X0, X1 = Q, (Z - c * Q) / e
        for _ in range(2, m + 1):
            X0, X1 = X1, 2 * (tmul(mul(X1)) - c * X1) / e - X0
        Q = orth(X1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
