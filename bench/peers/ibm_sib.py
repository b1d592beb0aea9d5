#!/usr/bin/python3
"""IBM's sequential information bottleneck (github.com/IBM/sib), the production peer of the default.

The package is built from a snapshot of IBM/sib by build_ibm_sib.sh into a directory outside the
repository; fit() imports it from there (the argument, or $MMNC_IBM_SIB) and runs
sib.SIB(n_clusters=k, random_state=seed) with the package's own defaults (10 random starts, at
most 15 sweeps each, tol 0.02, a uniform prior over the documents: each row's counts normalised),
as a user of that package would.  available() says whether the package can be imported, and why
not.

As a script, on one .mat corpus:  ibm_sib.py [--sib DIR] [--jobs N] FILE.mat VAR LABELVAR K [SEED]
or on a matrix in mmnc's binary format with its truth (one class a line, as `mmnc generate`
writes it):                       ibm_sib.py [--sib DIR] [--jobs N] FILE.bin TRUTH K [SEED]
prints ACC, NMI, ARI and seconds (common.score, the same scoring as corpus_peers.py); --json
prints them as one JSON object instead.
"""
import importlib
import json
import os
import sys
import time

import numpy as np
import scipy.sparse as sp


def _path(sib_dir):
    return sib_dir or os.environ.get("MMNC_IBM_SIB", "")


def _import(d):
    """IBM's package `sib` from directory d, imported under its own name even where another module
    named sib (this directory's sib.py, the transcription) was imported first; that one is put back."""
    ours = sys.modules.pop("sib", None)
    sys.path.insert(0, d)
    try:
        return importlib.import_module("sib")
    finally:
        sys.path.remove(d)
        mod = sys.modules.pop("sib", None)
        if mod is not None:
            sys.modules["ibm_sib_package"] = mod
        if ours is not None:
            sys.modules["sib"] = ours


def available(sib_dir=None):
    """(True, version) if IBM's sib imports from sib_dir (or $MMNC_IBM_SIB), else (False, why)."""
    d = _path(sib_dir)
    if not d or not os.path.isdir(os.path.join(d, "sib")):
        return False, ("IBM sib is not built: bench/peers/build_ibm_sib.sh SNAPSHOT DIR, then --sib DIR "
                       "or MMNC_IBM_SIB=DIR (the snapshot of github.com/IBM/sib is not part of this repository)")
    d = os.path.abspath(d)
    try:
        mod = sys.modules.get("ibm_sib_package") or _import(d)
    except ImportError as e:
        return False, "IBM sib in %s does not import: %s" % (d, e)
    if not os.path.abspath(mod.__file__).startswith(d):
        return False, "a package named sib other than IBM's was imported (%s)" % mod.__file__
    return True, getattr(mod, "__version__", "?")


def fit(A, k, seed=1, sib_dir=None, n_jobs=1):
    """Labels (0-based) and seconds of IBM's SIB on the rows of A (documents x terms, counts)."""
    ok, why = available(sib_dir)
    if not ok:
        raise RuntimeError(why)
    X = sp.csr_matrix(A, dtype=np.float64)
    # joblib's worker processes (n_jobs > 1) import the package by its name with the parent's
    # sys.path, where this directory's sib.py would come first
    sys.path.insert(0, os.path.abspath(_path(sib_dir)))
    try:
        t0 = time.perf_counter()
        model = sys.modules["ibm_sib_package"].SIB(n_clusters=k, random_state=seed, n_jobs=n_jobs)
        model.fit(X)
        sec = time.perf_counter() - t0
    finally:
        sys.path.pop(0)
    return np.asarray(model.labels_, dtype=np.int64), sec


def read_bin(path):
    """The matrix of a file in mmnc's binary format (docs/binary-format.md) as a scipy CSR matrix;
    the checksums are not verified (mmnc convert --check does that)."""
    with open(path, "rb") as f:
        head = f.read(384)
        if len(head) < 384 or head[:8] != b"\x89MMNC\r\n\x1a":
            raise ValueError("%s: not mmnc's binary format (no magic)" % path)
        ib, vt = np.frombuffer(head, "<u4", 2, 36)
        nrows, ncols, nnz = (int(v) for v in np.frombuffer(head, "<i8", 3, 48))
        table = np.frombuffer(head, "<u8", 32, 128).reshape(8, 4)

        def section(k, dtype, n):
            f.seek(int(table[k, 0]))
            a = np.fromfile(f, dtype, n)
            if len(a) != n:
                raise ValueError("%s: section %d is short" % (path, k))
            return a
        ptr = section(0, "<i8", nrows + 1)
        ind = section(1, "<u4" if ib == 4 else "<i8", nnz)
        val = section(2, "<f8" if vt == 1 else "<f4", nnz)
    return sp.csr_matrix((val.astype(np.float64), ind, ptr), shape=(nrows, ncols))


def main():
    import argparse
    import scipy.io
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from common import score
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sib", default=None, help="the build directory of build_ibm_sib.sh")
    ap.add_argument("--jobs", type=int, default=1, help="n_jobs of sib.SIB (its starts in parallel)")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    ap.add_argument("args", nargs="+", metavar="FILE.mat VAR LABELVAR K [SEED] | FILE.bin TRUTH K [SEED]")
    a = ap.parse_args()
    binary = a.args[0].endswith(".bin")
    want = (3, 4) if binary else (4, 5)
    if len(a.args) not in want:
        ap.error("expected FILE.mat VAR LABELVAR K [SEED] or FILE.bin TRUTH K [SEED]")
    k, seed = int(a.args[want[0] - 1]), int(a.args[want[0]]) if len(a.args) == want[1] else 1
    ok, why = available(a.sib)
    if not ok:
        print("ibm_sib: skipped: " + why, file=sys.stderr)
        return 0
    if not os.path.exists(a.args[0]):
        print("ibm_sib: skipped: %s is absent" % a.args[0], file=sys.stderr)
        return 0
    if binary:
        A = read_bin(a.args[0])
        gnd = np.loadtxt(a.args[1], dtype=np.int64, ndmin=1)
    else:
        m = scipy.io.loadmat(a.args[0])
        A = sp.csr_matrix(m[a.args[1]], dtype=np.float64)
        gnd = np.asarray(m[a.args[2]]).ravel()
    if A.shape[0] != len(gnd):
        A = sp.csr_matrix(A.T)
    if A.shape[0] != len(gnd):
        sys.exit("ibm_sib: %d rows but %d labels" % (A.shape[0], len(gnd)))
    truth = np.unique(gnd, return_inverse=True)[1]
    lab, sec = fit(A, k, seed, a.sib, a.jobs)
    s = score(lab, truth, k)
    if a.json:
        print(json.dumps({"rows": A.shape[0], "columns": A.shape[1], "nonzeros": int(A.nnz), "k": k, "seed": seed,
                          "jobs": a.jobs, "seconds": round(sec, 3), "acc": s["acc"], "nmi": s["nmi"],
                          "ari": s.get("ari")}))
    else:
        print("ibm-sib k=%d seed=%d: ACC %.4f NMI %.4f ARI %.4f  %.2f s" % (k, seed, s["acc"], s["nmi"],
                                                                           s.get("ari", float("nan")), sec))
    return 0


if __name__ == "__main__":
    sys.exit(main())
