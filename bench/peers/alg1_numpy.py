#!/usr/bin/python3
"""Algorithm 1 of Qiu, Makur, Zheng (Allerton 2018) in plain NumPy/SciPy.

The "what a user would write instead" baseline for mmnc's Frobenius-norm
solver (src/cluster/frobenius.c): projected gradient ascent on the penalised problem
(paper, eq. (17) and Algorithm 1)

    maximise    ||A B||_F^2 - lambda ||A v - w||_2^2
    subject to  A^T w = v,  A >= 0

with B = [P_Y]^{-1/2} P_{Y,X} [P_X]^{-1/2} (sparse), v = sqrt(P_Y),
w = sqrt(P_Z) for the target marginal P_Z (uniform unless given), and
A = B_{Z,Y} = [P_Z]^{-1/2} W [P_Y]^{1/2}.  A is stored transposed, |Y| x k,
so both products are sparse-times-skinny.  Each iteration, the paper's line 7
    A <- A (I + alpha (B B^T - lambda v v^T)) + alpha lambda w v^T
i.e. A <- A + alpha (A B B^T - lambda (A v - w) v^T), with A B B^T computed
as (A B) B^T (two sparse products; B B^T is never formed), then the
projection of every column onto {a >= 0, w . a = v_y} (the paper projects
only violating columns; the projection is the identity on the others).

Same choices as mmnc where the paper leaves them open, so that the two are
comparable step for step:
  * lambda = 10 and step alpha = 1 / lambda (mmnc's defaults; frobenius.c
    explains why alpha lambda <= 1 is needed);
  * the start W0 = 0.8 W_hard + 0.2 P_Z 1^T from uniform random hard labels
    (entry-wise positive, as the paper asks);
  * the projection is the exact Euclidean projection in A-space onto the
    weighted simplex, by sorted breakpoints b_z / w_z (vectorised here);
  * stop when max |W_t - W_{t-1}| < tol, or the objective gained less than
    tol (relative) over the last 10 iterations, or after max_iter (3000);
  * best of R starts by objective (never by accuracy).
Unlike mmnc there is no heavy-ball momentum: this is the paper's plain
gradient step, so it needs more iterations than mmnc to reach the same
point; compare the time per iteration, and the end-to-end time only with
that in mind.  Rows and columns of zero mass are dropped first.

Usage as a module:
    import alg1_numpy
    res = alg1_numpy.alg1_best(P, k, restarts=1, seed=1)   # res["W"], res["labels"], ...

CLI:  alg1_numpy.py [DATA.mat] [-k K] [-r R] [--seed S] [--max-iter N]
                    [--lambda L] [--step A] [--tol T] [--var fea] [-o labels.txt]
"""

import argparse
import os
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp


def dtm(A):
    """A nonnegative sparse matrix -> (B as CSR, v = sqrt(P_Y), kept rows, kept columns)."""
    P = sp.csr_matrix(A, dtype=np.float64)
    P = P / P.sum()
    py = np.asarray(P.sum(axis=1)).ravel()
    px = np.asarray(P.sum(axis=0)).ravel()
    rows, cols = np.flatnonzero(py > 0), np.flatnonzero(px > 0)
    if len(rows) < P.shape[0] or len(cols) < P.shape[1]:
        P = sp.csr_matrix(P[rows][:, cols])
        py, px = py[rows], px[cols]
    v = np.sqrt(py)
    B = sp.csr_matrix(sp.diags(1.0 / v) @ P @ sp.diags(1.0 / np.sqrt(px)))
    return B, v, rows, cols


def project(M, w, c):
    """Rows of M (n x k) onto {a >= 0, w . a = c_row}, exactly (weighted simplex)."""
    n, k = M.shape
    t = M / w                                     # breakpoints
    order = np.argsort(-t, axis=1, kind="stable")
    ts = np.take_along_axis(t, order, axis=1)
    ws = w[order]
    sw = np.cumsum(ws * ws, axis=1)
    swb = np.cumsum(ws * np.take_along_axis(M, order, axis=1), axis=1)
    tau = (swb - c[:, None]) / sw
    stop = np.ones((n, k), dtype=bool)            # the first j with tau_j >= t_(j+1), else the last
    stop[:, :-1] = tau[:, :-1] >= ts[:, 1:]
    j = np.argmax(stop, axis=1)
    tau_star = tau[np.arange(n), j]
    return np.maximum(M - tau_star[:, None] * w[None, :], 0.0)


def alg1(B, v, k, rng, lam=10.0, step=None, pz=None, tol=1e-6, max_iter=3000):
    """One start of Algorithm 1 from uniform random hard labels.

    B: sparse |Y| x |X| DTM (see dtm), v = sqrt(P_Y).  Returns
    (W as |Y| x k rows of P_{Z|Y}, objective, iterations, seconds in the loop)."""
    ny = B.shape[0]
    step = 1.0 / lam if step is None else step
    pz = np.full(k, 1.0 / k) if pz is None else np.asarray(pz, dtype=np.float64) / np.sum(pz)
    w = np.sqrt(pz)
    labels = rng.integers(k, size=ny)
    W0 = np.tile(0.2 * pz, (ny, 1))
    W0[np.arange(ny), labels] += 0.8
    A = W0 * v[:, None] / w[None, :]              # A^T, |Y| x k
    Bt = B.T                                      # CSC view: B^T @ X without a copy
    obj, obj10 = -np.inf, -np.inf
    t0 = time.perf_counter()
    it = 0
    while it < max_iter:
        R = Bt @ A                                # (A B)^T, |X| x k
        fro2 = float(np.sum(R * R))
        Q = B @ R                                 # (A B B^T)^T, |Y| x k
        dev = A.T @ v - w                         # A v - w
        obj = fro2 - lam * float(dev @ dev)
        if it % 10 == 0:
            if it > 0 and obj - obj10 <= tol * abs(obj):
                it += 1
                break
            obj10 = obj
        An = project(A + step * (Q - lam * np.outer(v, dev)), w, v)
        change = float(np.max(np.abs(An - A) * w[None, :] / v[:, None]))
        A = An
        it += 1
        if change < tol:
            break
    seconds = time.perf_counter() - t0
    W = np.maximum(A * w[None, :] / v[:, None], 0.0)
    s = W.sum(axis=1, keepdims=True)
    W = np.where(s > 0, W / np.where(s > 0, s, 1.0), 1.0 / k)
    return W, obj, it, seconds


def alg1_best(A, k, restarts=1, seed=1, lam=10.0, step=None, pz=None, tol=1e-6, max_iter=3000):
    """Best of `restarts` starts by objective.  Returns a dict; labels are
    argmax rows of W for the kept rows (-1 for rows of zero mass)."""
    B, v, rows, _ = dtm(A)
    rng = np.random.default_rng(seed)
    best = None
    objs, iters, secs = [], [], []
    for _ in range(restarts):
        W, obj, it, s = alg1(B, v, k, rng, lam, step, pz, tol, max_iter)
        objs.append(obj)
        iters.append(it)
        secs.append(s)
        if best is None or obj > best[1]:
            best = (W, obj)
    labels = np.full(A.shape[0], -1, dtype=np.int64)
    labels[rows] = np.argmax(best[0], axis=1)
    return {"W": best[0], "labels": labels, "objective": best[1], "restart_objectives": objs,
            "restart_iterations": iters, "seconds_per_iteration": sum(secs) / max(sum(iters), 1)}


def default_data():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "..", "shared", "data",
                                         "reuters21578", "Reuters21578.mat"))


def main():
    ap = argparse.ArgumentParser(description="Algorithm 1 (Frobenius norm) in plain NumPy/SciPy")
    ap.add_argument("data", nargs="?", default=default_data(),
                    help="MATLAB .mat file holding a sparse matrix (default: %(default)s)")
    ap.add_argument("--var", default="fea", help="variable to read (default fea)")
    ap.add_argument("-k", type=int, default=2, help="clusters (default 2)")
    ap.add_argument("-r", "--restarts", type=int, default=1, help="random starts (default 1)")
    ap.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    ap.add_argument("--max-iter", type=int, default=3000, help="iterations per start (default 3000)")
    ap.add_argument("--lambda", dest="lam", type=float, default=10.0, help="marginal penalty (default 10)")
    ap.add_argument("--step", type=float, default=None, help="step size (default 1/lambda)")
    ap.add_argument("--tol", type=float, default=1e-6, help="stopping tolerance (default 1e-6)")
    ap.add_argument("-o", "--output", help="write the labels (1..k, one per row; 0 = no mass) to this file")
    a = ap.parse_args()
    if not os.path.exists(a.data):
        print("alg1_numpy: %s is absent; nothing to do" % a.data)
        return 0
    A = scipy.io.loadmat(a.data)[a.var]
    t0 = time.perf_counter()
    res = alg1_best(A, a.k, a.restarts, a.seed, a.lam, a.step, None, a.tol, a.max_iter)
    t1 = time.perf_counter()
    print("k=%d objective=%.6f seconds=%.3f ms/iter=%.2f restarts=%s iterations=%s" % (
        a.k, res["objective"], t1 - t0, 1e3 * res["seconds_per_iteration"],
        " ".join("%.4f" % x for x in res["restart_objectives"]), res["restart_iterations"]))
    lab = res["labels"]
    print("cluster sizes:", np.bincount(lab[lab >= 0], minlength=a.k).tolist())
    if a.output:
        np.savetxt(a.output, lab + 1, fmt="%d")
    return 0


if __name__ == "__main__":
    sys.exit(main())
