#!/usr/bin/python3
"""Labelled corpora with planted trouble, made from a labelled matrix of counts (e.g. classic3 or
reviews under ../shared/data; research use only, so OUT.mat goes outside the repository).

--duplicates F: a fraction F of the rows, drawn at random, get exact copies; a copied row gets
    c copies with c drawn from a Zipf law (exponent 2) capped at --max-copies, so most get one
    and a few get dozens (mirrored pages, boilerplate, re-posts).
--long N: N very long documents are added, each the sum of --long-rows rows of one class
    (drawn in proportion to the class sizes), the rows' label kept: a few documents that
    each carry as much mass as hundreds of ordinary ones.
--lengths MEDIAN,SIGMA: each row is thinned to a length drawn from a log-normal law (median
    MEDIAN tokens, log-scale spread SIGMA; a row shorter than its draw keeps all its tokens):
    a corpus of mostly short documents with a heavy tail of long ones.
Applied in the order lengths, duplicates, long; rows left empty and columns left in fewer than
2 rows are then dropped.  `dup` numbers each row's source row (copies share it).

Usage: planted.py IN.mat OUT.mat [--var A] [--labels labels] [--duplicates F]
                  [--max-copies 50] [--long N] [--long-rows 300] [--lengths MEDIAN,SIGMA]
                  [--seed 1]
"""

import argparse
import os
import sys

import numpy as np
import scipy.io
import scipy.sparse as sp

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_common as cc  # noqa: E402

NAME = "planted"


def main():
    ap = argparse.ArgumentParser(description="a labelled corpus with planted duplicates and lengths")
    ap.add_argument("inp", metavar="IN.mat")
    ap.add_argument("out", metavar="OUT.mat")
    ap.add_argument("--var", default="A")
    ap.add_argument("--labels", default="labels")
    ap.add_argument("--duplicates", type=float, default=0.0)
    ap.add_argument("--max-copies", type=int, default=50)
    ap.add_argument("--long", type=int, default=0)
    ap.add_argument("--long-rows", type=int, default=300)
    ap.add_argument("--lengths", metavar="MEDIAN,SIGMA")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    cc.refuse_repo_path(NAME, a.out)
    if not os.path.exists(a.inp):
        cc.skip(NAME, "%s is absent (research use only, not shipped)" % a.inp)
    m = scipy.io.loadmat(a.inp)
    A = sp.csr_matrix(m[a.var], dtype=np.float64)
    lab = np.asarray(m[a.labels]).ravel().astype(np.int64)
    if A.shape[0] != lab.shape[0]:
        A = sp.csr_matrix(A.T)
    if A.shape[0] != lab.shape[0]:
        print("%s: %d labels for a %d x %d matrix" % (NAME, lab.shape[0], *A.shape),
              file=sys.stderr)
        return 1
    A.sum_duplicates()
    if A.nnz and np.any(A.data != np.round(A.data)):
        print("%s: %s is not a matrix of counts" % (NAME, a.var), file=sys.stderr)
        return 1
    rng = np.random.default_rng(a.seed)
    src = np.arange(A.shape[0])
    what = []
    if a.lengths:
        med, sigma = (float(x) for x in a.lengths.split(","))
        target = np.maximum(1, np.round(med * np.exp(sigma * rng.standard_normal(A.shape[0]))))
        data = A.data.astype(np.int64)
        for y in range(A.shape[0]):
            lo, hi = A.indptr[y], A.indptr[y + 1]
            if data[lo:hi].sum() > target[y]:
                data[lo:hi] = rng.multivariate_hypergeometric(data[lo:hi], int(target[y]))
        A = sp.csr_matrix((data.astype(np.float64), A.indices, A.indptr), shape=A.shape)
        A.eliminate_zeros()
        what.append("lengths log-normal median %g sigma %g" % (med, sigma))
    if a.duplicates > 0:
        rows = rng.choice(A.shape[0], int(round(a.duplicates * A.shape[0])), replace=False)
        copies = np.minimum(rng.zipf(2.0, rows.size), a.max_copies)
        extra = np.repeat(rows, copies)
        A = sp.vstack([A, A[extra]]).tocsr()
        lab = np.concatenate([lab, lab[extra]])
        src = np.concatenate([src, extra])
        what.append("%d rows copied %d times in all (at most %d)" % (
            rows.size, copies.sum(), copies.max()))
    if a.long > 0:
        classes, sizes = np.unique(lab, return_counts=True)
        longs, ll = [], []
        for _ in range(a.long):
            c = rng.choice(classes, p=sizes / sizes.sum())
            members = np.flatnonzero(lab == c)
            pick = rng.choice(members, min(a.long_rows, members.size), replace=False)
            longs.append(sp.csr_matrix(A[pick].sum(axis=0)))
            ll.append(c)
        A = sp.vstack([A] + longs).tocsr()
        lab = np.concatenate([lab, ll])
        src = np.concatenate([src, -1 - np.arange(a.long)])
        what.append("%d long documents of %d rows each" % (a.long, a.long_rows))
    keep = np.flatnonzero(A.getnnz(axis=1) > 0)
    A, lab, src = A[keep], lab[keep], src[keep]
    A = A[:, np.flatnonzero(A.getnnz(axis=0) >= 2)]
    keep = np.flatnonzero(A.getnnz(axis=1) > 0)
    A, lab, src = A[keep], lab[keep], src[keep]
    labels, _ = cc.number(lab.tolist())
    cc.save(NAME, a.out, A, "%s: %s" % (os.path.basename(a.inp), "; ".join(what) or "as is"),
            labels=labels, dup=cc.text_groups(src.tolist()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
