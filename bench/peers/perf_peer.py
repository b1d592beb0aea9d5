#!/usr/bin/python3
"""One peer of bench/perf on one matrix, in its own process (so that
/usr/bin/time -v gives its own peak RSS).

    perf_peer.py METHOD DATA.bin -k K [--seed S] [--restarts R] [--max-iter N]
                 [-o LABELS.tsv]

METHOD:
  alg2_numpy  the paper's Algorithm 2 in NumPy/SciPy (alg2_numpy.py), best of R starts
  alg1_numpy  the paper's Algorithm 1 in NumPy/SciPy (alg1_numpy.py), best of R starts,
              lambda 10, step 1/10, uniform target P_Z
  kmeans      scikit-learn KMeans(n_clusters=k, n_init=R) on TfidfTransformer() of the counts
  minibatch   scikit-learn MiniBatchKMeans(n_clusters=k, n_init=R) on the same tf-idf
  cocluster   scikit-learn SpectralCoclustering(n_clusters=k) on the counts; labels = row_labels_
All get random_state / seed S.  DATA is mmnc's binary format (docs/binary-format.md),
read here with NumPy (read_bin); rows and columns of zero mass are dropped, as mmnc does.

Prints one JSON object: seconds_load (reading DATA), seconds_fit (the method, including
the tf-idf transform), iterations (summed over starts where the method reports them),
seconds_per_iteration (alg*_numpy: fit time / iterations), objective.  With -o the labels
go to LABELS.tsv in the format of `mmnc cluster` (id, cluster 1..k, probability 1), ids
being the original 1-based row numbers, so that `mmnc eval` scores every method the same
way.
"""

import argparse
import json
import os
import struct
import sys
import time

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def read_bin(path):
    """mmnc's binary format -> (CSR matrix with float64 values, original 0-based row ids)."""
    with open(path, "rb") as f:
        head = f.read(384)
        if head[:8] != b"\x89MMNC\r\n\x1a":
            raise ValueError("%s: not an mmnc binary file" % path)
        idx_bytes, val_type = struct.unpack_from("<II", head, 36)
        nrows, ncols, nnz = struct.unpack_from("<qqq", head, 48)
        sec = [struct.unpack_from("<QQ", head, 128 + 32 * i) for i in range(8)]

        def section(i, dtype, count):
            off, length = sec[i]
            if off == 0:
                return None
            f.seek(off)
            a = np.fromfile(f, dtype=dtype, count=count)
            if a.nbytes != length:
                raise ValueError("%s: section %d is %d bytes, expected %d" % (path, i, length, a.nbytes))
            return a

        rowptr = section(0, "<i8", nrows + 1)
        colind = section(1, "<u4" if idx_bytes == 4 else "<i8", nnz)
        val = section(2, "<f8" if val_type == 1 else "<f4", nnz)
        row_orig = section(3, "<i8", nrows)
    itype = np.int32 if max(nnz, ncols) < 2**31 else np.int64  # as scipy would choose
    A = sp.csr_matrix((val.astype(np.float64), colind.astype(itype), rowptr.astype(itype)),
                      shape=(nrows, ncols))
    ids = row_orig if row_orig is not None else np.arange(nrows, dtype=np.int64)
    return A, ids


def drop_empty(A, ids):
    """Drop rows and columns of zero mass (repeat: a dropped row can empty a column)."""
    while True:
        rs = np.asarray(A.sum(axis=1)).ravel()
        cs = np.asarray(A.sum(axis=0)).ravel()
        r, c = rs > 0, cs > 0
        if r.all() and c.all():
            return A, ids
        A = sp.csr_matrix(A[r][:, c])
        ids = ids[r]


def run(method, A, k, seed, restarts, max_iter):
    """Returns (labels 0..k-1 per row of A, info dict)."""
    info = {}
    if method == "alg2_numpy":
        import alg2_numpy
        res = alg2_numpy.alg2_best(A, k, restarts=restarts, seed=seed, max_iter=max_iter or 300)
        info["iterations"] = int(sum(res["restart_iterations"]))
        info["objective"] = float(res["nuclear"])
        return np.asarray(res["labels"]), info
    if method == "alg1_numpy":
        import alg1_numpy
        res = alg1_numpy.alg1_best(A, k, restarts=restarts, seed=seed, max_iter=max_iter or 3000)
        info["iterations"] = int(sum(res["restart_iterations"]))
        info["objective"] = float(res["objective"])
        info["seconds_loop_per_iteration"] = res["seconds_per_iteration"]
        return res["labels"], info
    from sklearn.feature_extraction.text import TfidfTransformer
    if method == "kmeans":
        from sklearn.cluster import KMeans
        X = TfidfTransformer().fit_transform(A)
        m = KMeans(n_clusters=k, n_init=restarts, random_state=seed).fit(X)
        info["iterations"] = int(m.n_iter_)
        return m.labels_, info
    if method == "minibatch":
        from sklearn.cluster import MiniBatchKMeans
        X = TfidfTransformer().fit_transform(A)
        m = MiniBatchKMeans(n_clusters=k, n_init=restarts, random_state=seed).fit(X)
        info["iterations"] = int(m.n_iter_)
        return m.labels_, info
    if method == "cocluster":
        from sklearn.cluster import SpectralCoclustering
        m = SpectralCoclustering(n_clusters=k, random_state=seed).fit(A)
        return m.row_labels_, info
    raise SystemExit("perf_peer: unknown method %s" % method)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("method")
    ap.add_argument("data")
    ap.add_argument("-k", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--restarts", type=int, default=1)
    ap.add_argument("--max-iter", type=int, default=0, help="alg*_numpy: cap per start (0 = their default)")
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    t0 = time.perf_counter()
    A, ids = read_bin(a.data)
    A, ids = drop_empty(A, ids)
    t1 = time.perf_counter()
    labels, info = run(a.method, A, a.k, a.seed, a.restarts, a.max_iter)
    t2 = time.perf_counter()
    out = {"method": a.method, "rows": A.shape[0], "columns": A.shape[1], "nonzeros": int(A.nnz),
           "seconds_load": t1 - t0, "seconds_fit": t2 - t1}
    out.update(info)
    if "iterations" in out and a.method.startswith("alg"):
        out["seconds_per_iteration"] = (t2 - t1) / max(out["iterations"], 1)
    if a.output:
        labels = np.asarray(labels)
        keep = labels >= 0
        with open(a.output, "w") as f:
            f.write("id\tcluster\tprobability\n")
            f.write("".join("%d\t%d\t1\n" % (i + 1, z + 1) for i, z in zip(ids[keep], labels[keep])))
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
