#!/usr/bin/python3
"""Judges a clustering of the unlabelled corpus of debian_copyright.py without labels.

Runs `mmnc cluster COPYRIGHT.mat --mat-var A -k K [ARGS...]` (or reads --labels FILE, one
cluster a line, or mmnc's LABELS.tsv) and reports: the largest cluster's share of the documents
and of the mass (the sum of the counts), the largest share of the mass any cluster holds, the
number of clusters used, and how many groups of byte-identical files (`dup`) are split over more
than one cluster.  It passes when the largest cluster holds at most --max-share (default 0.40)
of the documents and no group is split.  The mass is not part of the verdict: the largest group
of identical files can hold more than --max-share of the counts by itself (five identical Boost
licences on a Debian 12 machine), and then no partition that keeps identical files together can
pass on mass; the report gives that group's share beside it.

Usage: judge_copyright.py COPYRIGHT.mat (--mmnc PATH | --labels FILE) [-k 8] [-s 1]
                          [--max-share 0.4] [-- MMNC_CLUSTER_ARGS...]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy.io

sys.dont_write_bytecode = True


def read_labels(path, n):
    with open(path) as f:
        lines = [line.split() for line in f if line.strip()]
    if lines and lines[0][0] == "id":                 # mmnc's LABELS.tsv: id cluster probability
        lab = np.zeros(n, dtype=np.int64)
        for row in lines[1:]:
            lab[int(row[0]) - 1] = int(row[1]) - 1
        return lab
    return np.array([int(r[0]) for r in lines], dtype=np.int64)


def judge(A, dup, lab, max_share):
    n = A.shape[0]
    mass = np.asarray(A.sum(axis=1)).ravel()
    sizes = np.bincount(lab)
    big = int(np.argmax(sizes))
    groups = {}
    for g, z in zip(dup, lab):
        groups.setdefault(g, set()).add(z)
    multi = [g for g in groups if np.count_nonzero(dup == g) > 1]
    split = [g for g in multi if len(groups[g]) > 1]
    cmass = np.bincount(lab, weights=mass)
    gmass = {}
    for g, w in zip(dup, mass):
        gmass[g] = gmass.get(g, 0.0) + w
    r = {"documents": n, "clusters_used": int(np.count_nonzero(sizes)),
         "largest_docs": sizes[big] / n, "largest_mass": mass[lab == big].sum() / mass.sum(),
         "max_mass": cmass.max() / mass.sum(), "dup_max_mass": max(gmass.values()) / mass.sum(),
         "dup_groups": len(multi), "dup_split": len(split),
         "dup_docs_split": int(sum(np.count_nonzero(dup == g) for g in split))}
    r["pass"] = r["largest_docs"] <= max_share and not split
    return r


def main():
    ap = argparse.ArgumentParser(description="judge a clustering of the copyright corpus")
    ap.add_argument("data", metavar="COPYRIGHT.mat")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--mmnc", metavar="PATH", help="run `mmnc cluster` on it")
    src.add_argument("--labels", metavar="FILE", help="judge these labels instead")
    ap.add_argument("-k", type=int, default=8)
    ap.add_argument("-s", "--seed", type=int, default=1)
    ap.add_argument("--max-share", type=float, default=0.40)
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    a = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    a.args = extra
    m = scipy.io.loadmat(a.data)
    A = m["A"].tocsr()
    dup = np.asarray(m["dup"]).ravel()
    sec = None
    if a.mmnc:
        with tempfile.TemporaryDirectory() as tmp:
            prefix = os.path.join(tmp, "r")
            t0 = time.perf_counter()
            subprocess.run([a.mmnc, "cluster", a.data, "--mat-var", "A", "-k", str(a.k),
                            "-s", str(a.seed), "-q", "-o", prefix] + a.args, check=True)
            sec = time.perf_counter() - t0
            lab = read_labels(prefix + ".labels.tsv", A.shape[0])
    else:
        lab = read_labels(a.labels, A.shape[0])
    r = judge(A, dup, lab, a.max_share)
    print("copyright k=%d %s: %d clusters used; largest cluster %.1f%% of documents, %.1f%% of "
          "mass; most mass in one cluster %.1f%% (the largest group of identical files alone "
          "%.1f%%); identical-file groups split: %d of %d (%d documents)%s -> %s" % (
              a.k, " ".join(a.args) or "(default)", r["clusters_used"], 100 * r["largest_docs"],
              100 * r["largest_mass"], 100 * r["max_mass"], 100 * r["dup_max_mass"],
              r["dup_split"], r["dup_groups"], r["dup_docs_split"],
              "" if sec is None else "; %.2f s" % sec, "PASS" if r["pass"] else "FAIL"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
