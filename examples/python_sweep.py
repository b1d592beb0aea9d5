#!/usr/bin/env python3
"""Cluster the words of the shipped novel for a few k and show how the objectives grow with k.

    make && pip install --no-build-isolation --no-deps ./python     # or PYTHONPATH=build/python/lib
    python3 examples/python_sweep.py [--ks 2,4,8,16] [--plot sweep.png]

Word x context-word co-occurrences of data/great-expectations.txt.gz (mmnc.cooc,
as `make demo`), then MMNC for each k: the nuclear norm ||B_{Z,X}||_*, the
mutual information I(X;Z) and the chosen start's leave-one-row-out predictive
information, with the largest members of each cluster for the largest k.  With
matplotlib installed the curves are also drawn (--plot FILE); without it the
table is all.
"""
import argparse
import os
import time

import numpy as np

import mmnc

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--text", default=os.path.join(ROOT, "data", "great-expectations.txt.gz"))
    ap.add_argument("--ks", default="2,4,8,16", help="comma-separated k (default 2,4,8,16)")
    ap.add_argument("--n-init", type=int, default=4, help="starts per k (default 4)")
    ap.add_argument("--plot", default="python_sweep.png", help="image file, if matplotlib is installed")
    args = ap.parse_args()
    ks = [int(k) for k in args.ks.split(",")]

    A, vocab = mmnc.cooc([args.text], window=5, min_count=20)
    print(f"{args.text}: {A.shape[0]} words, {A.nnz} co-occurring pairs")
    print(f"{'k':>4} {'||B||_*':>9} {'I(X;Z)':>8} {'predictive':>10} {'seconds':>8}")
    rows, last = [], None
    for k in ks:
        t0 = time.monotonic()
        last = mmnc.MMNC(k, n_init=args.n_init, random_state=1).fit(A)
        score = last.restart_scores_[last.best_restart_]
        rows.append((k, last.nuclear_norm_, last.mutual_information_, score))
        print(f"{k:4d} {last.nuclear_norm_:9.4f} {last.mutual_information_:8.4f} {score:10.4f} "
              f"{time.monotonic() - t0:8.2f}")

    # the largest members of each cluster of the last k (rows are in order of decreasing count)
    words = np.array(vocab)
    for z in range(ks[-1]):
        members = words[last.labels_ == z][:8]
        print(f"cluster {z + 1:2d} ({(last.labels_ == z).sum():4d} words): {' '.join(members)}")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib is not installed: no plot)")
        return
    k, nuc, mi, pred = map(np.array, zip(*rows))
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(k, nuc - 1, "o-", label="||B||_* - 1")
    ax.plot(k, mi, "s-", label="I(X;Z) (nats)")
    ax.plot(k, pred, "^-", label="predictive information (nats)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("k")
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.plot)
    print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
