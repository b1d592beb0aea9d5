#!/usr/bin/python3
"""Short documents made from long ones: every row's counts thinned to at most N tokens.

The development corpora are news stories, abstracts and reviews of a hundred or more tokens a
document; titles, queries, tweets and item descriptions have ten or twenty.  This script makes
such corpora from labelled ones whose values are counts: each row keeps N of its tokens drawn
without replacement (all of them when it has N or fewer), so the words of a short document are
those of its long one in the proportions they had.  Rows left empty and columns left in fewer than
2 rows are dropped.  Nothing is tuned on the result: it is for checking, with
bench/peers/corpus_peers.py --corpus NAME=OUT.mat:A:labels:K.

Usage: thin.py IN.mat OUT.mat --tokens N [--var A] [--labels labels] [--transpose] [--seed 1]
"""

import argparse
import os
import sys

import numpy as np
import scipy.io
import scipy.sparse


def main():
    ap = argparse.ArgumentParser(description="a corpus of short documents thinned from long ones")
    ap.add_argument("inp", metavar="IN.mat")
    ap.add_argument("out", metavar="OUT.mat")
    ap.add_argument("--tokens", type=int, required=True, help="tokens kept a row at most")
    ap.add_argument("--var", default="A", help="the matrix of counts (default A)")
    ap.add_argument("--labels", default="labels", help="the label variable (default labels)")
    ap.add_argument("--transpose", action="store_true", help="the documents are the columns")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.tokens < 1:
        ap.error("--tokens must be at least 1")
    try:
        m = scipy.io.loadmat(a.inp)
        A = scipy.sparse.csr_matrix(m[a.var].T if a.transpose else m[a.var])
        lab = np.asarray(m[a.labels]).ravel().astype(np.int64)
    except (OSError, ValueError, KeyError) as e:
        print("thin: %s: cannot read %s and %s (%s)" % (a.inp, a.var, a.labels, e), file=sys.stderr)
        return 1
    if lab.shape[0] != A.shape[0]:
        print("thin: %s: %d labels for %d rows" % (a.inp, lab.shape[0], A.shape[0]), file=sys.stderr)
        return 1
    A.sum_duplicates()
    if A.nnz and (np.any(A.data < 0) or np.any(A.data != np.round(A.data))):
        print("thin: %s: %s is not a matrix of counts (a value is negative or not whole)"
              % (a.inp, a.var), file=sys.stderr)
        return 1
    rng = np.random.default_rng(a.seed)
    data = A.data.astype(np.int64)
    out = np.zeros_like(data)
    for y in range(A.shape[0]):
        lo, hi = A.indptr[y], A.indptr[y + 1]
        c = data[lo:hi]
        out[lo:hi] = c if c.sum() <= a.tokens else rng.multivariate_hypergeometric(c, a.tokens)
    B = scipy.sparse.csr_matrix((out.astype(np.float64), A.indices, A.indptr), shape=A.shape)
    B.eliminate_zeros()
    keep = np.flatnonzero(B.getnnz(axis=1) > 0)
    B, lab = B[keep], lab[keep]
    B = B[:, np.flatnonzero(B.getnnz(axis=0) >= 2)]
    keep = np.flatnonzero(B.getnnz(axis=1) > 0)
    B, lab = B[keep], lab[keep]
    tmp = a.out + ".tmp.mat"
    about = "%s: each row thinned to at most %d tokens (seed %d)" % (
        os.path.basename(a.inp), a.tokens, a.seed)
    scipy.io.savemat(tmp, {"A": B.tocsc(), "labels": lab.reshape(-1, 1).astype(np.float64),
                           "about": about}, do_compression=True)
    os.replace(tmp, a.out)
    print("thin: %d rows x %d columns, %d nonzeros (%.1f a row), %d tokens, %d classes -> %s"
          % (B.shape[0], B.shape[1], B.nnz, B.nnz / max(B.shape[0], 1), int(B.sum()),
             np.unique(lab).size, a.out), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
