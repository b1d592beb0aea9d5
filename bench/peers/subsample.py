#!/usr/bin/python3
"""Labelled corpora cut from a larger one: a few classes drawn at random, either the same number
of rows from each (balanced) or a random fraction of each (their sizes as in the source).

The corpora of make_novels.py have 76 (or 30) classes of very unequal sizes.  The default was
developed on Reuters21578, whose classes are far more unequal still, so this script makes the
opposite cases to check it on: a few classes of equal size, or fewer rows a class.  Classes are
drawn among those with at least --per-class rows; columns left in fewer than 2 rows are dropped;
labels are renumbered 1..M in the order of the source's labels.  Nothing is tuned on the result:
it is for checking, with bench/peers/corpus_peers.py --corpus NAME=OUT.mat:A:labels:M.

Usage: subsample.py IN.mat OUT.mat --classes M (--per-class N | --fraction F)
                    [--var A] [--labels labels] [--seed 1]
"""

import argparse
import os
import sys

import numpy as np
import scipy.io
import scipy.sparse


def main():
    ap = argparse.ArgumentParser(description="a labelled corpus cut from a larger one")
    ap.add_argument("inp", metavar="IN.mat")
    ap.add_argument("out", metavar="OUT.mat")
    ap.add_argument("--var", default="A", help="the matrix, rows = documents (default A)")
    ap.add_argument("--labels", default="labels", help="the label variable (default labels)")
    ap.add_argument("--classes", type=int, required=True, help="classes drawn")
    ap.add_argument("--per-class", type=int, help="rows drawn from each class (balanced)")
    ap.add_argument("--fraction", type=float,
                    help="or: each row of the drawn classes kept with this probability")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if (a.per_class is None) == (a.fraction is None):
        ap.error("give one of --per-class and --fraction")
    if a.per_class is not None and a.per_class < 1:
        ap.error("--per-class must be at least 1")
    if a.fraction is not None and not 0.0 < a.fraction <= 1.0:
        ap.error("--fraction must be in (0, 1]")
    try:
        m = scipy.io.loadmat(a.inp)
        A = scipy.sparse.csr_matrix(m[a.var])
        lab = np.asarray(m[a.labels]).ravel().astype(np.int64)
    except (OSError, ValueError, KeyError) as e:
        print("subsample: %s: cannot read %s and %s (%s)" % (a.inp, a.var, a.labels, e),
              file=sys.stderr)
        return 1
    if lab.shape[0] != A.shape[0]:
        print("subsample: %s: %d labels for %d rows" % (a.inp, lab.shape[0], A.shape[0]),
              file=sys.stderr)
        return 1
    rng = np.random.default_rng(a.seed)
    classes, counts = np.unique(lab, return_counts=True)
    eligible = classes[counts >= (a.per_class or 1)]
    if eligible.size < a.classes:
        print("subsample: %s: %d classes with at least %d rows, %d asked for"
              % (a.inp, eligible.size, a.per_class or 1, a.classes), file=sys.stderr)
        return 1
    drawn = np.sort(rng.choice(eligible, a.classes, replace=False))
    rows = []
    for c in drawn:
        members = np.flatnonzero(lab == c)
        if a.per_class is not None:
            rows.append(np.sort(rng.choice(members, a.per_class, replace=False)))
        else:
            rows.append(members[rng.random(members.size) < a.fraction])
    rows = np.concatenate(rows)
    B = A[rows]
    B = B[:, np.flatnonzero(B.getnnz(axis=0) >= 2)]
    new = np.searchsorted(drawn, lab[rows]) + 1
    sizes = np.bincount(new)[1:]
    tmp = a.out + ".tmp.mat"
    scipy.io.savemat(tmp, {"A": B.tocsc(), "labels": new.reshape(-1, 1).astype(np.float64)},
                     do_compression=True)
    os.replace(tmp, a.out)
    print("subsample: %d rows x %d columns, %d nonzeros, %d classes of %d to %d rows -> %s"
          % (B.shape[0], B.shape[1], B.nnz, a.classes, sizes.min(), sizes.max(), a.out),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
