#!/usr/bin/python3
"""Peers for the Reuters21578 experiment of Qiu, Makur, Zheng (Allerton 2018).

On the 8293 x 18933 document-term count matrix, for each k, runs with fixed seeds:
  kmeans    scikit-learn KMeans(n_init=10) on TfidfTransformer() rows (l2-normalised)
  cocluster scikit-learn SpectralCoclustering(n_clusters=k) on the raw counts
  nmf       scikit-learn NMF(n_components=k, init='nndsvda') on tf-idf, label = argmax of W
  alg2_numpy  alg2_numpy.py (the paper's Algorithm 2 in NumPy/SciPy), 8 random starts
  mmnc      `mmnc cluster` (only with --mmnc PATH), 8 random starts (its default)
and scores each against the 65 topic labels: the paper's coverage / overall / k-accuracy
(K = k clusters matched one to one, Hungarian, to the K largest classes; ties: the
smaller label), plain ACC (Hungarian over all classes), NMI (arithmetic), wall-clock
seconds (excluding loading, except that the mmnc subprocess loads its own input) and,
for alg2_numpy and mmnc, the nuclear norm of B_{Z,X}.

Usage: reuters_peers.py [DATA.mat] [-k 2,3,4,6,8,10] [--methods ...] [--mmnc PATH]
                        [--mmnc-threads N] [--seed 1] [--repeat N] [--json FILE]
The data is research-use only and not shipped: by default it is read from
../shared/data/reuters21578/Reuters21578.mat beside the repository; when it is
absent the script says so and exits 0.
"""

import argparse
import json
import os
import sys
import time

import scipy.io
import numpy as np
import scipy.sparse as sp

sys.dont_write_bytecode = True                    # no __pycache__ inside the repository
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import alg2_numpy  # noqa: E402
from common import (cpu_model, repo_data, run_cocluster, run_kmeans,  # noqa: E402
                    run_mmnc, run_nmf, score)

ALL_METHODS = ["kmeans", "cocluster", "nmf", "alg2_numpy", "mmnc"]


def default_data():
    return repo_data("reuters21578", "Reuters21578.mat")


def run_alg2(A, k, seed):
    t0 = time.perf_counter()
    res = alg2_numpy.alg2_best(A, k, restarts=8, seed=seed)
    sec = time.perf_counter() - t0
    return res["labels"], sec, {"nuclear": res["nuclear"],
                                "iterations": res["restart_iterations"]}


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description="Reuters21578 peers of mmnc")
    ap.add_argument("data", nargs="?", default=default_data(),
                    help="Reuters21578.mat (default: %(default)s)")
    ap.add_argument("-k", default="2,3,4,6,8,10", help="comma-separated k (default %(default)s)")
    ap.add_argument("--methods", default="kmeans,cocluster,nmf,alg2_numpy,mmnc",
                    help="comma-separated subset of %s (mmnc only with --mmnc)" % ",".join(ALL_METHODS))
    ap.add_argument("--mmnc", metavar="PATH", help="the mmnc binary; without it mmnc is skipped")
    ap.add_argument("--mmnc-threads", type=int, metavar="N",
                    help="pass -t N to mmnc (default: mmnc's default, all cores)")
    ap.add_argument("--seed", type=int, default=1, help="seed for every method (default 1)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="time each run this many times and report the fastest (default 1)")
    ap.add_argument("--json", metavar="FILE", help="also write all results as JSON")
    a = ap.parse_args()

    if not os.path.exists(a.data):
        print("reuters_peers: %s is absent (Reuters21578 lives in ../shared/data, research use "
              "only, not shipped); nothing to do" % a.data)
        return 0
    ks = [int(x) for x in a.k.split(",") if x]
    methods = [m for m in a.methods.split(",") if m]
    for m in methods:
        if m not in ALL_METHODS:
            ap.error("unknown method %r" % m)
    if "mmnc" in methods and not a.mmnc:
        methods.remove("mmnc")

    mat = scipy.io.loadmat(a.data)
    A = sp.csr_matrix(mat["fea"], dtype=np.float64)
    gnd = np.asarray(mat["gnd"]).ravel().astype(np.int64)
    truth = np.unique(gnd, return_inverse=True)[1]
    n = A.shape[0]
    print("data: %s, %d x %d, %d nonzeros, %d classes; machine: %d cores, %s" % (
        a.data, n, A.shape[1], A.nnz, truth.max() + 1, os.cpu_count(), cpu_model()),
        file=sys.stderr)

    results = []
    for k in ks:
        for m in methods:
            times, inner = [], []
            for _ in range(a.repeat):                 # deterministic given the seed
                if m == "kmeans":
                    lab, sec, extra = run_kmeans(A, k, a.seed)
                elif m == "cocluster":
                    lab, sec, extra = run_cocluster(A, k, a.seed)
                elif m == "nmf":
                    lab, sec, extra = run_nmf(A, k, a.seed)
                elif m == "alg2_numpy":
                    lab, sec, extra = run_alg2(A, k, a.seed)
                else:
                    lab, sec, extra = run_mmnc(a.mmnc, a.data, k, a.seed, n, a.mmnc_threads)
                times.append(sec)
                inner.append(extra.get("seconds_cluster"))
            sec = min(times)
            if m == "mmnc":                           # mmnc's own timer, fastest repeat too
                extra["seconds_cluster"] = min(inner)
            s = score(lab, truth, k)
            row = {"k": k, "method": m, "seconds": sec, "seconds_all": times}
            row.update(s)
            row.update(extra)
            results.append(row)
            print("k=%-2d %-10s %8.2fs overall %.2f%% kacc %.2f%% nmi %.3f%s" % (
                k, m, sec, 100 * s["overall"], 100 * s["kacc"], s["nmi"],
                "  nuclear %.4f" % extra["nuclear"] if "nuclear" in extra else ""),
                file=sys.stderr)
            ev = extra.get("mmnc_evaluation")
            if ev and (abs(ev["overall"] - s["overall"]) > 1e-9 or abs(ev["nmi"] - s["nmi"]) > 1e-9):
                print("warning: mmnc's own evaluation differs: %s" % ev, file=sys.stderr)

    print("| k | method | coverage | overall | k-acc | ACC | NMI | nuclear | seconds |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        print("| %d | %s | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %.3f | %s | %.2f |" % (
            r["k"], r["method"], 100 * r["coverage"], 100 * r["overall"], 100 * r["kacc"],
            100 * r["acc"], r["nmi"], "%.4f" % r["nuclear"] if "nuclear" in r else "",
            r["seconds"]))
    if "alg2_numpy" in methods and "mmnc" in methods:
        print()
        print("| k | alg2_numpy s | mmnc s (subprocess) | ratio | mmnc seconds_cluster | ratio "
              "| alg2_numpy ms/iter | mmnc ms/iter | ratio |")
        print("|---|---|---|---|---|---|---|---|---|")
        for k in ks:
            t = {r["method"]: r for r in results if r["k"] == k}
            a2, mw, mc = t["alg2_numpy"]["seconds"], t["mmnc"]["seconds"], t["mmnc"]["seconds_cluster"]
            ia = 1e3 * a2 / sum(t["alg2_numpy"]["iterations"])
            im = 1e3 * mc / sum(t["mmnc"]["iterations"])
            print("| %d | %.2f | %.2f | %.1fx | %.2f | %.1fx | %.1f | %.1f | %.1fx |" % (
                k, a2, mw, a2 / mw, mc, a2 / mc, ia, im, ia / im))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"data": a.data, "seed": a.seed, "cores": os.cpu_count(),
                       "cpu": cpu_model(), "results": results}, f, indent=1,
                      default=lambda o: o.item() if hasattr(o, "item") else str(o))
    return 0


if __name__ == "__main__":
    sys.exit(main())
