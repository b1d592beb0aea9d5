#!/usr/bin/python3
"""The MSR co-occurrence matrix without its dense top-left corner, to price that corner in the
sparse products (bench/NOTES.md, "The random start in parallel; the dense corner priced"): the
nonzeros in rows and columns 0..H-1 (the H most frequent words, as `mmnc cooc` orders them) are
dropped and the rest written as Matrix Market; `mmnc embed` on both, compiled with
-DMMNC_SVD_PROFILE and a fixed --max-iter, gives the products' time with and without them.

Usage: drop_corner.py MATRIX.mtx H OUT.mtx
"""

import os
import sys

import scipy.io
import scipy.sparse as sp

sys.dont_write_bytecode = True


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    path, out = sys.argv[1], sys.argv[3]
    try:
        h = int(sys.argv[2])
    except ValueError:
        print("drop_corner: H must be a whole number, not %r" % sys.argv[2], file=sys.stderr)
        return 2
    try:
        P = sp.coo_matrix(scipy.io.mmread(path))
    except (OSError, ValueError) as e:
        print("drop_corner: %s: cannot read a Matrix Market matrix (%s)" % (path, e), file=sys.stderr)
        return 1
    corner = (P.row < h) & (P.col < h)
    n = int(corner.sum())
    print("corner %d x %d: %d of %d nonzeros (%.1f%%), density %.1f%%"
          % (h, h, n, P.nnz, 100.0 * n / max(P.nnz, 1), 100.0 * n / max(h * h, 1)))
    keep = ~corner
    Q = sp.coo_matrix((P.data[keep], (P.row[keep], P.col[keep])), shape=P.shape)
    tmp = out + ".tmp.mtx"
    scipy.io.mmwrite(tmp, Q, symmetry="general")
    os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
