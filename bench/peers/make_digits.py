#!/usr/bin/python3
"""A labelled nonnegative matrix that every scikit-learn installation holds, for a check of the
default on data it was not developed on: the 1797 handwritten digits of `sklearn.datasets.
load_digits` (8 x 8 images, ink 0..16 a pixel, read as counts of ink; the UCI optical digits
test set, bundled with scikit-learn, no download).  OUT.mat holds the digit x pixel matrix `A`
(the 3 pixels never inked dropped: 61 columns) and the digit of each row `labels` (0..9), for

    bench/peers/corpus_peers.py --corpora '' --corpus digits=OUT.mat:A:labels:10 ...

Usage: make_digits.py OUT.mat
"""

import sys

import numpy as np
import scipy.io
import scipy.sparse as sp


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        sys.exit(__doc__.strip().splitlines()[-1])
    from sklearn.datasets import load_digits
    d = load_digits()
    X = d.data[:, d.data.sum(axis=0) > 0]
    scipy.io.savemat(sys.argv[1], {"A": sp.csr_matrix(X), "labels": d.target.reshape(-1, 1).astype(np.float64)})
    print("make_digits: %d x %d, %d nonzeros, %d classes -> %s" % (
        X.shape[0], X.shape[1], np.count_nonzero(X), len(np.unique(d.target)), sys.argv[1]), file=sys.stderr)


if __name__ == "__main__":
    main()
