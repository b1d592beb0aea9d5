#!/usr/bin/python3
"""A prototype of block Krylov (block Lanczos with full reorthogonalisation) for mmnc embed,
against the shifted subspace iteration of src/linalg/svd.c (bench/NOTES.md, "Block Krylov").

For a symmetric DTM (mmnc cooc writes symmetric matrices) B' = B - sqrt(P_Y) sqrt(P_X)^T is
symmetric, its singular values are the absolute values of its eigenvalues, and the Krylov space
[Q, B'Q, B'^2 Q, ...] of B' itself is searched: one product a block.  For any other matrix the
same is done on the bipartite form [[0, B'], [B'^T, 0]] (block Golub-Kahan), two products a
block.  After each block: Rayleigh-Ritz on the basis (T = V^T B' V from the products already
made), and the residuals ||B' B'^T u - s^2 u|| / s^2 of the d leading Ritz vectors (two extra
products each, not counted), the measure of mmnc embed --residuals; and, every block, the largest change of the d leading Ritz
values since the previous block (relative to the first) and the residuals ||B'u - t u|| / |t| of
the Ritz pairs (t, u) that the basis gives for free (symmetric case).  Columns counted: the sum
of the widths of the products, to compare with subspace iteration's products x block width.
Slow (SciPy products, one thread).

Usage: krylov_proto.py MATRIX(.mtx|.npz) D BLOCK DEPTH [FROM] [--general]
  FROM: the first block after which the residuals are measured (default 1).
"""

import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp

sys.dont_write_bytecode = True


def orth_against(X, V):
    """X orthonormalised against the columns of V (two rounds) and itself."""
    for _ in range(2):
        if V is not None:
            X = X - V @ (V.T @ X)
        X, _ = np.linalg.qr(X)
    return X


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    general = "--general" in sys.argv
    if len(args) not in (4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    path, d, b, depth = args[0], int(args[1]), int(args[2]), int(args[3])
    first = int(args[4]) if len(args) > 4 else 1
    try:
        P = sp.load_npz(path) if path.endswith(".npz") else scipy.io.mmread(path)
    except (OSError, ValueError) as e:
        print("krylov_proto: %s: cannot read the matrix (%s)" % (path, e), file=sys.stderr)
        return 1
    P = sp.csr_matrix(P, dtype=np.float64)
    P = P / P.sum()
    py, px = np.asarray(P.sum(1)).ravel(), np.asarray(P.sum(0)).ravel()
    P = P[py > 0][:, px > 0].tocsr()
    py, px = py[py > 0], px[px > 0]
    sym = not general and P.shape[0] == P.shape[1] and abs(P - P.T).max() == 0
    if sym:
        px = py                                   # the same sums in another order
    B = (sp.diags(py ** -0.5) @ P @ sp.diags(px ** -0.5)).tocsr()
    BT = B.T.tocsr()
    sy, sx = np.sqrt(py), np.sqrt(px)
    cols = [0]

    def mul(X):
        cols[0] += X.shape[1]
        return B @ X - np.outer(sy, sx @ X)

    def tmul(Y):
        cols[0] += Y.shape[1]
        return BT @ Y - np.outer(sx, sy @ Y)

    prev = [None]

    def report(U, s, t0, lres=None):
        n = min(len(s), len(prev[0])) if prev[0] is not None else 0
        change = np.max(np.abs(s[:n] - prev[0][:n])) / s[0] if n else np.inf
        prev[0] = s
        if lres is not None:
            print("  b=%d blocks=%d columns=%d change=%.2e lanczos residual median=%.4f p90=%.4f "
                  "max=%.4f" % (b, nblk, cols[0], change, np.median(lres), np.percentile(lres, 90),
                                lres.max()), flush=True)
        if nblk < first:
            return
        R = B @ (BT @ U) - np.outer(sy, sy @ U) - U * s ** 2
        res = np.linalg.norm(R, axis=0) / s ** 2
        print("%s b=%d blocks=%d columns=%d sigma_1=%.5f sigma_d=%.5f residual median=%.4f "
              "p90=%.4f max=%.4f %.0fs" % ("symmetric" if sym else "general", b, nblk, cols[0],
                                           s[0], s[-1], np.median(res), np.percentile(res, 90),
                                           res.max(), time.time() - t0), flush=True)

    rng = np.random.default_rng(1)
    t0 = time.time()
    n = B.shape[1]
    V = orth_against(rng.standard_normal((n, b)), None)
    if sym:
        W = mul(V)                                # W = B' V, block by block
        for nblk in range(1, depth + 1):
            T = V.T @ W
            T = (T + T.T) / 2
            w, C = np.linalg.eigh(T)
            order = np.argsort(-np.abs(w))[:d]
            U = V @ C[:, order]
            lres = np.linalg.norm(W @ C[:, order] - U * w[order], axis=0) / np.abs(w[order])
            report(U, np.abs(w[order]), t0, lres)
            if nblk == depth:
                break
            X = orth_against(W[:, -b:], V)
            V = np.hstack([V, X])
            W = np.hstack([W, mul(X)])
        return 0
    # Block Golub-Kahan: right basis V (columns of B'), left basis Ul, Ritz from Ul^T B' V.
    Y = mul(V)
    Ul = orth_against(Y, None)
    Z = tmul(Ul)                                  # B'^T Ul
    for nblk in range(1, depth + 1):
        T = Ul.T @ Y                              # Ul^T B' V
        Uu, s, _ = np.linalg.svd(T, full_matrices=False)
        report(Ul @ Uu[:, :d], s[:d], t0)
        if nblk == depth:
            break
        X = orth_against(Z[:, -b:], V)
        V = np.hstack([V, X])
        Y = np.hstack([Y, mul(X)])
        X = orth_against(Y[:, -b:], Ul)
        Ul = np.hstack([Ul, X])
        Z = np.hstack([Z, tmul(X)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
