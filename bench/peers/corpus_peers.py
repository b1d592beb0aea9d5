#!/usr/bin/python3
"""mmnc and its peers on every labelled development corpus, side by side.

Corpora (read from ../shared/data beside the repository, research use only, never shipped;
a corpus whose file is absent is skipped with a message, and with none present the script
exits 0):
  reuters65  Reuters21578 (8293 x 18933, `fea`, labels `gnd`), k = 65 = all classes
  reuters    the same matrix at k = 2, 3, 4, 6, 8, 10; "overall" is the paper's overall
             accuracy against the k largest classes (as reuters_peers.py computes it)
  classic3   Classic3 (3891 x 4303, `A`, labels `labels`), k = 3
  reviews    CLUTO reviews (4069 x 18483, `dtm`, labels `classid`), k = 5
Methods, all on the same matrix and with the same seed:
  kmeans         KMeans(n_init=10) on tf-idf                        (common.run_kmeans)
  cocluster      SpectralCoclustering on the raw counts             (common.run_cocluster)
  nmf            NMF(init='nndsvda') on tf-idf, argmax of W         (common.run_nmf)
  itcc           information-theoretic co-clustering, l = k column clusters (itcc.py)
  sib            sequential information bottleneck (sib.py)
  ibm-sib        IBM's C++ sIB (github.com/IBM/sib) with its own defaults (ibm_sib.py; built by
                 build_ibm_sib.sh from a snapshot, found through --ibm-sib DIR or
                 $MMNC_IBM_SIB; skipped with a message when absent)
  gsdmm          GSDMM, the Dirichlet multinomial mixture by collapsed Gibbs sampling (Yin and
                 Wang 2014), alpha = beta = 0.1, 30 sweeps, K = k (gsdmm.py, mode gibbs)
  dmm-map        the same model's evidence maximised by single-row moves, alpha and beta by
                 type-II maximum likelihood, 8 starts, the best evidence kept (gsdmm.py, mode map)
  mmnc           `mmnc cluster` with no algorithm options: the default (README, "The
                 default": the information objective with the size prior, 8 random starts,
                 the best objective kept, the prior kept only where it raises the nuclear norm)
  mmnc-paper     `mmnc cluster --paper`: the paper's protocol (Algorithm 2 from random
                 starts, the best nuclear norm kept, no refinement)
  mmnc-norm-spectral  `mmnc cluster -a nuclear --init spectral --select objective`:
                 spectral, k-means++ and random starts in turn, the best nuclear norm kept
  mmnc-tol0      `mmnc cluster --move-tol 0`: the default with every start's moves run until
                 no row moves (the default before --move-tol)
  mmnc-information  `mmnc cluster --size-prior 0`: I(X;Z) alone by single-row moves from
                 8 random starts (the sequential information bottleneck's objective)
  mmnc-normalize-rows  `mmnc cluster --normalize-rows`: the default with every row scaled to
                 sum 1 first (each document weighs the same, however long)
  mmnc-previous  the previous default: `-a nuclear --init spectral --select predictive
                 --refine chosen --size-prior 0` (Algorithm 2 from three kinds of starts, the
                 best leave-one-row-out predictive information kept, refined by I(X;Z) moves)
itcc and sib keep, of n_init (default 10, at every k) random starts, the one of the best objective (I(X^;Y^) and
I(Z;X)); mmnc chooses among its starts as its options say (never by labels).  Labels only score: ACC (Hungarian against all
classes), NMI (arithmetic), ARI, and the paper's overall accuracy.  seconds: wall clock,
loading excluded (the mmnc subprocess loads its own input, about 0.1 s).

Other labelled corpora (a .mat file; documents as rows or columns): --corpus
NAME=PATH:VAR:LABELVAR:K[,K...], which may be given more than once, runs them after the chosen
development corpora (--corpora '' for none); make_novels.py builds one that no default was
developed on.

Usage: corpus_peers.py [--corpora reuters65,reuters,classic3,reviews] [--methods ...]
                       [--corpus NAME=PATH:VAR:LABELVAR:K[,K...]]...
                       [--mmnc PATH] [--seed 1] [--n-init 10]
                       [--itcc-l L] [--data-dir DIR] [--json FILE]
"""

import argparse
import hashlib
import json
import os
import platform
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp

sys.dont_write_bytecode = True                    # no __pycache__ inside the repository
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gsdmm  # noqa: E402
import ibm_sib  # noqa: E402
import itcc  # noqa: E402
import sib  # noqa: E402
from common import (cpu_model, repo_data, run_cocluster, run_kmeans,  # noqa: E402
                    run_mmnc, run_nmf, score)

# name: (file under the data directory, matrix variable, label variable, k values)
CORPORA = {
    "reuters65": ("reuters21578/Reuters21578.mat", "fea", "gnd", [65]),
    "reuters": ("reuters21578/Reuters21578.mat", "fea", "gnd", [2, 3, 4, 6, 8, 10]),
    "classic3": ("classic3/classic3.mat", "A", "labels", [3]),
    "reviews": ("reviews/reviews.mat", "dtm", "classid", [5]),
}
DEFAULT_METHODS = ["kmeans", "cocluster", "nmf", "itcc", "sib", "mmnc", "mmnc-paper",
                   "mmnc-norm-spectral"]
METHODS = DEFAULT_METHODS + ["ibm-sib", "gsdmm", "dmm-map", "mmnc-tol0", "mmnc-information",
                             "mmnc-previous", "mmnc-normalize-rows"]
MMNC_ARGS = {"mmnc": [], "mmnc-paper": ["--paper"],
             "mmnc-norm-spectral": ["-a", "nuclear", "--init", "spectral", "--select", "objective"],
             "mmnc-tol0": ["--move-tol", "0"],
             "mmnc-normalize-rows": ["--normalize-rows"],
             "mmnc-information": ["--size-prior", "0"],
             "mmnc-previous": ["-a", "nuclear", "--init", "spectral", "--select", "predictive",
                               "--refine", "chosen", "--size-prior", "0"]}


def log(msg):
    print("corpus_peers: " + msg, file=sys.stderr, flush=True)


def load(path, var, truth_var):
    """The matrix with documents as rows (csr float64), 0-based labels, transposed?"""
    mat = scipy.io.loadmat(path)
    A = sp.csr_matrix(mat[var], dtype=np.float64)
    gnd = np.asarray(mat[truth_var]).ravel()
    transposed = False
    if A.shape[0] != len(gnd):
        if A.shape[1] != len(gnd):
            raise SystemExit("corpus_peers: %s: %d labels for a %d x %d matrix" % (
                path, len(gnd), A.shape[0], A.shape[1]))
        A = sp.csr_matrix(A.T)                    # documents must be the rows
        transposed = True
    truth = np.unique(gnd, return_inverse=True)[1]
    return A, truth, transposed


def run_method(m, A, k, a, path, var, truth_var, transposed):
    if m == "kmeans":
        return run_kmeans(A, k, a.seed)
    if m == "cocluster":
        return run_cocluster(A, k, a.seed)
    if m == "nmf":
        return run_nmf(A, k, a.seed)
    if m == "itcc":
        t0 = time.perf_counter()
        lab, info = itcc.fit(A, k, n_init=a.n_init, seed=a.seed, l=a.itcc_l)
        sec = time.perf_counter() - t0
        return lab, sec, {"objective": info["mi"], "objective_name": "I(X^;Y^)",
                          "n_init": a.n_init, "l": info["l"], "iterations": info["iterations"],
                          "mi_all": info["mi_all"]}
    if m == "sib":
        t0 = time.perf_counter()
        lab, info = sib.fit(A, k, n_init=a.n_init, seed=a.seed)
        sec = time.perf_counter() - t0
        return lab, sec, {"objective": info["mi"], "objective_name": "I(Z;X)", "n_init": a.n_init,
                          "sweeps": info["sweeps"], "mi_all": info["mi_all"]}
    if m == "ibm-sib":
        lab, sec = ibm_sib.fit(A, k, seed=a.seed, sib_dir=a.ibm_sib)
        return lab, sec, {}
    if m in ("gsdmm", "dmm-map"):
        keep = np.asarray(A.sum(axis=1)).ravel() > 0      # an empty row stays in cluster 0
        lab = np.zeros(A.shape[0], dtype=np.int64)
        t0 = time.perf_counter()
        sub, info = gsdmm.fit(A[keep], k, mode="gibbs" if m == "gsdmm" else "map",
                              n_init=8, seed=a.seed)
        sec = time.perf_counter() - t0
        lab[keep] = sub
        return lab, sec, {"objective": info["evidence"], "objective_name": "log evidence"}
    args = MMNC_ARGS[m] + (["--transpose"] if transposed else [])
    lab, sec, extra = run_mmnc(a.mmnc, path, k, a.seed, A.shape[0], mat_var=var,
                               truth_var=truth_var, args=args)
    extra["objective"] = extra["nuclear"]
    extra["objective_name"] = "nuclear"
    return lab, sec, extra


def main():
    ap = argparse.ArgumentParser(description="mmnc and its peers on the development corpora")
    ap.add_argument("--corpora", default=",".join(CORPORA),
                    help="comma-separated subset of %(default)s")
    ap.add_argument("--methods", default=",".join(DEFAULT_METHODS),
                    help="comma-separated subset of %s (default %%(default)s; mmnc* only with "
                    "--mmnc)" % ",".join(METHODS))
    ap.add_argument("--mmnc", metavar="PATH", help="the mmnc binary; without it mmnc* are skipped")
    ap.add_argument("--seed", type=int, default=1, help="seed for every method (default 1)")
    ap.add_argument("--n-init", type=int, default=10,
                    help="random starts of itcc and sib (default %(default)s)")
    ap.add_argument("--itcc-l", type=int, metavar="L",
                    help="column clusters of itcc (default: l = k)")
    ap.add_argument("--ibm-sib", metavar="DIR",
                    help="IBM sib's build directory (build_ibm_sib.sh; default $MMNC_IBM_SIB)")
    ap.add_argument("--data-dir", default=repo_data(),
                    help="the shared data directory (default: %(default)s)")
    ap.add_argument("--corpus", action="append", default=[], metavar="NAME=PATH:VAR:LABELVAR:K",
                    help="another labelled corpus (a .mat file), at the given k (comma-separated); "
                    "may be given more than once")
    ap.add_argument("--json", metavar="FILE", help="also write all results as JSON")
    a = ap.parse_args()

    corpora = [c for c in a.corpora.split(",") if c]
    table = dict(CORPORA)
    for spec in a.corpus:
        name, eq, rest = spec.partition("=")
        parts = rest.rsplit(":", 3)
        try:
            ks = [int(k) for k in parts[3].split(",")] if eq and len(parts) == 4 else []
        except ValueError:
            ks = []
        if not name or not ks or min(ks) < 1 or not all(parts[:3]):
            ap.error("--corpus %r: expected NAME=PATH:VAR:LABELVAR:K[,K...]" % spec)
        if name in table:
            ap.error("--corpus %r: the name %s is taken" % (spec, name))
        table[name] = (os.path.abspath(parts[0]), parts[1], parts[2], ks)
        corpora.append(name)
    methods = [m for m in a.methods.split(",") if m]
    for c in corpora:
        if c not in table:
            ap.error("unknown corpus %r" % c)
    for m in methods:
        if m not in METHODS:
            ap.error("unknown method %r" % m)
    if not a.mmnc:
        dropped = [m for m in methods if m.startswith("mmnc")]
        if dropped:
            log("no --mmnc PATH: skipping %s" % ",".join(dropped))
        methods = [m for m in methods if not m.startswith("mmnc")]

    if "ibm-sib" in methods:
        ok, why = ibm_sib.available(a.ibm_sib)
        if not ok:
            log("skipping ibm-sib: " + why)
            methods = [m for m in methods if m != "ibm-sib"]
    machine = "%d cores, %s, Python %s, NumPy %s, SciPy %s" % (
        os.cpu_count(), cpu_model(), platform.python_version(), np.__version__, scipy.__version__)
    log("machine: " + machine)
    mmnc_id = None
    if a.mmnc:
        with open(a.mmnc, "rb") as f:
            mmnc_id = "%s, sha256 %s" % (a.mmnc, hashlib.sha256(f.read()).hexdigest()[:12])
        log("mmnc: " + mmnc_id)
    results, cache = [], {}
    for c in corpora:
        rel, var, truth_var, ks = table[c]
        path = os.path.join(a.data_dir, rel)             # rel, if absolute (--corpus)
        if not os.path.exists(path):
            log("%s: %s is absent (research use only, not shipped); skipped" % (c, path))
            continue
        if (path, var, truth_var) not in cache:
            cache[path, var, truth_var] = load(path, var, truth_var)
        A, truth, transposed = cache[path, var, truth_var]
        log("%s: %d x %d, %d nonzeros, %d classes%s" % (
            c, A.shape[0], A.shape[1], A.nnz, truth.max() + 1,
            " (transposed: documents are the rows)" if transposed else ""))
        for k in ks:
            for m in methods:
                lab, sec, extra = run_method(m, A, k, a, path, var, truth_var, transposed)
                s = score(lab, truth, k)
                row = {"corpus": c, "k": k, "method": m, "seconds": sec}
                row.update(s)
                row.update(extra)
                results.append(row)
                log("%-9s k=%-2d %-13s %8.2fs ACC %.2f%% NMI %.3f ARI %.3f overall %.2f%%%s" % (
                    c, k, m, sec, 100 * s["acc"], s["nmi"], s["ari"], 100 * s["overall"],
                    "  %s %.4f" % (extra["objective_name"], extra["objective"])
                    if "objective" in extra else ""))
                ev = extra.get("mmnc_evaluation")
                if ev and any(abs(ev[x] - s[x]) > 1e-9 for x in ("acc", "nmi", "ari", "overall")):
                    log("warning: mmnc's own evaluation differs: %s" % ev)
    if not results:
        log("no corpus found under %s; nothing to do" % a.data_dir)
        return 0

    print("| corpus | k | method | ACC | NMI | ARI | overall | objective | seconds |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        obj = ("%s %.4f" % (r["objective_name"], r["objective"])) if "objective" in r else ""
        print("| %s | %d | %s | %.2f%% | %.3f | %.3f | %.2f%% | %s | %.2f |" % (
            r["corpus"], r["k"], r["method"], 100 * r["acc"], r["nmi"], r["ari"],
            100 * r["overall"], obj, r["seconds"]))
    print()
    print("| method | " + " | ".join(c for c in corpora if any(r["corpus"] == c for r in results))
          + " | total seconds |")
    present = [c for c in corpora if any(r["corpus"] == c for r in results)]
    print("|---|" + "---|" * (len(present) + 1))
    for m in methods:
        t = [sum(r["seconds"] for r in results if r["method"] == m and r["corpus"] == c)
             for c in present]
        print("| %s | %s | %.1f |" % (m, " | ".join("%.1f" % x for x in t), sum(t)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"seed": a.seed, "n_init": a.n_init,
                       "machine": machine, "mmnc": mmnc_id, "results": results}, f, indent=1,
                      default=lambda o: o.item() if hasattr(o, "item") else
                      (o.tolist() if hasattr(o, "tolist") else str(o)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
