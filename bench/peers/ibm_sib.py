#!/usr/bin/python3
"""IBM's sequential information bottleneck (github.com/IBM/sib), the production peer of the default.

The package is built from a snapshot of IBM/sib by build_ibm_sib.sh into a directory outside the
repository; fit() imports it from there (the argument, or $MMNC_IBM_SIB) and runs
sib.SIB(n_clusters=k, random_state=seed) with the package's own defaults (10 random starts, at
most 15 sweeps each, tol 0.02, a uniform prior over the documents: each row's counts normalised),
as a user of that package would.  available() says whether the package can be imported, and why
not.

As a script, on one .mat corpus:  ibm_sib.py [--sib DIR] FILE.mat VAR LABELVAR K [SEED]
prints ACC, NMI, ARI and seconds (common.score, the same scoring as corpus_peers.py).
"""
import importlib
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
    t0 = time.perf_counter()
    model = sys.modules["ibm_sib_package"].SIB(n_clusters=k, random_state=seed, n_jobs=n_jobs)
    model.fit(X)
    sec = time.perf_counter() - t0
    return np.asarray(model.labels_, dtype=np.int64), sec


def main():
    import argparse
    import scipy.io
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from common import score
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sib", default=None, help="the build directory of build_ibm_sib.sh")
    ap.add_argument("--jobs", type=int, default=1, help="n_jobs of sib.SIB (its starts in parallel)")
    ap.add_argument("mat")
    ap.add_argument("var")
    ap.add_argument("labelvar")
    ap.add_argument("k", type=int)
    ap.add_argument("seed", type=int, nargs="?", default=1)
    a = ap.parse_args()
    ok, why = available(a.sib)
    if not ok:
        print("ibm_sib: skipped: " + why, file=sys.stderr)
        return 0
    if not os.path.exists(a.mat):
        print("ibm_sib: skipped: %s is absent" % a.mat, file=sys.stderr)
        return 0
    m = scipy.io.loadmat(a.mat)
    A = sp.csr_matrix(m[a.var], dtype=np.float64)
    gnd = np.asarray(m[a.labelvar]).ravel()
    if A.shape[0] != len(gnd):
        A = sp.csr_matrix(A.T)
    truth = np.unique(gnd, return_inverse=True)[1]
    lab, sec = fit(A, a.k, a.seed, a.sib, a.jobs)
    s = score(lab, truth, a.k)
    print("ibm-sib k=%d seed=%d: ACC %.4f NMI %.4f ARI %.4f  %.2f s" % (a.k, a.seed, s["acc"], s["nmi"],
                                                                       s.get("ari", float("nan")), sec))
    return 0


if __name__ == "__main__":
    sys.exit(main())
