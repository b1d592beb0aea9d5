#!/usr/bin/python3
"""The seeded classifier's centre weight l (issue 43): a NumPy transcription of the candidates of
mmnc's semi-supervision rule built on the seeded centres (src/cluster/seeded.c), scored on the
free rows for several l.

Centres q(x|z) = l T(x,z) / P(z) + (1 - l) P(x) from the held rows labelled z; a free row y joins
argmax_z sum_x P(x|y) log q(x|z) (S: rows weighted by their mass; S': each row of mass 1/|Y|);
K and K' are S and S' followed by hard EM over all rows (centres from every row of a cluster,
held rows fixed, at most 50 sweeps).  The held rows are drawn as bench/peers/semisup.py draws
them (numpy default_rng(seed), 5% by default), so the labelled sets are the same.  Ties and the
refill of an emptied cluster are not transcribed: figures may differ from mmnc's in the last
digits.  ACC (Hungarian) on the free rows; "cv" is the share of held rows predicted at their label
with their fold (held row i in fold i mod 5) free, the kind of score the rule sees.

With --deleted, the weight is instead each corpus's deleted interpolation (Jelinek and Mercer):
the l that maximises the held rows' likelihood under the centres of the other folds (EM on l),
for S and S' each, and the four candidates are scored at it.

Usage: seeded_centre.py --corpus NAME=PATH:VAR:TRUTHVAR ... [--centre 0.5,0.8] [--deleted]
                        [--share 0.05] [--seed 1]
"""

import argparse
import os
import sys

import numpy as np
import scipy.sparse as sp

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import score  # noqa: E402
from corpus_peers import load  # noqa: E402
from semisup import given_rows  # noqa: E402


def log_centres(P, lab, k, lam):
    px = np.asarray(P.sum(0)).ravel()
    px /= px.sum()
    held = lab >= 0
    M = sp.csr_matrix((np.ones(held.sum()), (lab[held], np.flatnonzero(held))), shape=(k, P.shape[0]))
    T = (M @ P).toarray()
    pz = T.sum(1)
    have = pz > 0
    q = np.where(have[:, None], lam * T / np.where(have, pz, 1.0)[:, None] + (1 - lam) * px[None, :], px[None, :])
    with np.errstate(divide="ignore"):
        return np.log(q), have


def best_centres(P, lab, k, lam):
    L, have = log_centres(P, lab, k, lam)
    rows = np.asarray(P.sum(1)).ravel()
    S = (sp.diags(1 / np.where(rows > 0, rows, 1.0)) @ P) @ L.T
    S[:, ~have] = -np.inf
    return np.argmax(S, 1)


def classify(P, fixed, k, lam):
    out = fixed.copy()
    free = fixed < 0
    out[free] = best_centres(P, fixed, k, lam)[free]
    return out


def transduce(P, fixed, lab, k, lam, sweeps=50):
    lab = lab.copy()
    for _ in range(sweeps):
        z = best_centres(P, lab, k, lam)
        z[fixed >= 0] = fixed[fixed >= 0]
        if (z == lab).all():
            break
        lab = z
    return lab


def deleted_weight(P, fixed, fold, k, iters=200):
    """Deleted interpolation: the l of most likelihood of each held row's counts under its
    class's centre made without its fold (EM on the mixture weight)."""
    px = np.asarray(P.sum(0)).ravel()
    px /= px.sum()
    a, b, w = [], [], []
    for f in range(5):
        train = np.where(fold == f, -1, fixed)
        held = train >= 0
        M = sp.csr_matrix((np.ones(held.sum()), (train[held], np.flatnonzero(held))), shape=(k, P.shape[0]))
        T = (M @ P).toarray()
        pz = T.sum(1)
        for y in np.flatnonzero(fold == f):
            z = fixed[y]
            if pz[z] <= 0:
                continue
            cols = P.indices[P.indptr[y]:P.indptr[y + 1]]
            a.append(T[z, cols] / pz[z])
            b.append(px[cols])
            w.append(P.data[P.indptr[y]:P.indptr[y + 1]])
    a, b, w = np.concatenate(a), np.concatenate(b), np.concatenate(w)
    lam = 0.5
    for _ in range(iters):
        new = float((w * (lam * a / (lam * a + (1 - lam) * b))).sum() / w.sum())
        if abs(new - lam) < 1e-9:
            return new
        lam = new
    return lam


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", action="append", default=[], metavar="NAME=PATH:VAR:TRUTHVAR")
    ap.add_argument("--centre", default="0.5,0.8")
    ap.add_argument("--deleted", action="store_true", help="l by deleted interpolation instead of --centre")
    ap.add_argument("--share", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    print("| corpus | l (S / S' with --deleted) | S | S' | K | K' | cv S | cv S' | cv K | cv K' |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for spec in a.corpus:
        name, _, rest = spec.partition("=")
        path, var, tvar = rest.rsplit(":", 2)
        if not os.path.exists(path):
            print("seeded_centre: %s: %s not found: skipped" % (name, path), file=sys.stderr)
            continue
        A, truth, _ = load(path, var, tvar)
        A = sp.csr_matrix(A, dtype=float)
        n, k = A.shape[0], int(truth.max()) + 1
        rows = np.asarray(A.sum(1)).ravel()
        E = sp.diags(1 / np.where(rows > 0, rows, 1.0)) @ A
        labelled = given_rows(n, a.share, a.seed)
        fixed = np.full(n, -1)
        fixed[labelled] = truth[labelled]
        test = fixed < 0
        fold = np.full(n, -1)
        fold[labelled] = np.arange(len(labelled)) % 5
        lams = [None] if a.deleted else [float(v) for v in a.centre.split(",")]
        for lam0 in lams:
            acc, cv, used = [], [], []
            for P in (A, E):
                lam = deleted_weight(P, fixed, fold, k) if lam0 is None else lam0
                used.append(lam)
                S = classify(P, fixed, k, lam)
                acc.append((S, transduce(P, fixed, S, k, lam)))
                hits = np.zeros(2)
                for f in range(5):
                    ff = np.where(fold == f, -1, fixed)
                    Sf = classify(P, ff, k, lam)
                    Kf = transduce(P, ff, Sf, k, lam)
                    m = fold == f
                    hits += [(Sf[m] == fixed[m]).sum(), (Kf[m] == fixed[m]).sum()]
                cv.append(hits / len(labelled))
            s = [score(lab[test], truth[test], k)["acc"] for lab in (acc[0][0], acc[1][0], acc[0][1], acc[1][1])]
            print("| %s | %s | %s | %.4f | %.4f | %.4f | %.4f |" % (
                name, "%.2f" % used[0] if lam0 is not None else "%.3f / %.3f" % tuple(used),
                " | ".join("%.4f" % v for v in s), cv[0][0], cv[1][0], cv[0][1], cv[1][1]), flush=True)


if __name__ == "__main__":
    main()
