#!/usr/bin/python3
"""`mmnc cluster` under several option sets on the thirteen labelled corpora, in one run.

  bench/corpora/compare.py CORPORA_DIR [--mmnc build/mmnc] [--config NAME=OPTIONS]...
                           [--copyright] [--json FILE]

CORPORA_DIR: the output of bench/corpora/build-all; the three development corpora (Reuters21578
at k = 65, classic3, reviews) are read from ../shared/data beside the repository (research use
only; skipped when absent).  Each corpus runs `mmnc cluster FILE --mat-var VAR --truth FILE
--truth-var LABELS -k K OPTIONS` (K = its classes, seed 1) for every --config (default:
dmm="-a dmm" and information="-a information"), the configurations of a corpus one after the
other, so that their times are comparable.  Prints a line per run (ACC, NMI, the largest
cluster's share of the documents, wall seconds), then per configuration the means over the
corpora, and with --copyright the verdict of judge_copyright.py on CORPORA_DIR/copyright.mat at
k = 8 (bench/corpora/README.md).
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy.io

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "..", "shared", "data")
LABELLED = ["c3_12", "chapters", "classic3-dup-long", "debian-long", "debian-oneline", "man", "paragraphs",
            "reu12", "rev12", "reviews-lengths"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpora")
    ap.add_argument("--mmnc", default=os.path.join(HERE, "..", "..", "build", "mmnc"))
    ap.add_argument("--config", action="append", default=[], metavar="NAME=OPTIONS")
    ap.add_argument("--copyright", action="store_true", help="also judge the copyright corpus at k = 8")
    ap.add_argument("--json", help="write every run's figures to FILE")
    a = ap.parse_args()
    configs = []
    for spec in a.config or ["dmm=-a dmm", "information=-a information"]:
        name, eq, opts = spec.partition("=")
        if not name or not eq:
            ap.error("--config %r: expected NAME=OPTIONS" % spec)
        configs.append((name, shlex.split(opts)))
    todo = [("reuters65", os.path.join(DATA, "reuters21578/Reuters21578.mat"), "fea", "gnd", 65),
            ("classic3", os.path.join(DATA, "classic3/classic3.mat"), "A", "labels", 3),
            ("reviews", os.path.join(DATA, "reviews/reviews.mat"), "dtm", "classid", 5)]
    for n in LABELLED:
        f = os.path.join(a.corpora, n + ".mat")
        if not os.path.exists(f):
            print("compare: %s is absent (bench/corpora/build-all %s); skipped" % (f, a.corpora), file=sys.stderr)
            continue
        lab = scipy.io.loadmat(f, variable_names=["labels"])["labels"].ravel()
        todo.append((n, f, "A", "labels", len(np.unique(lab))))
    runs = []
    tmp = tempfile.mkdtemp(prefix="mmnc-compare-")
    for name, f, var, lv, k in todo:
        if not os.path.exists(f):
            print("compare: %s is absent (research use only, not shipped); %s skipped" % (f, name), file=sys.stderr)
            continue
        for c, opts in configs:
            prefix = os.path.join(tmp, "%s_%s" % (name, c))
            t0 = time.time()
            r = subprocess.run([a.mmnc, "cluster", f, "--mat-var", var, "--truth", f, "--truth-var", lv, "-k", str(k),
                                "-q", "--no-soft", "-o", prefix] + opts, capture_output=True, text=True)
            sec = time.time() - t0
            if r.returncode:
                print("compare: %s %s failed: %s" % (name, c, r.stderr.strip()), file=sys.stderr)
                continue
            d = json.load(open(prefix + ".json"))
            e = d["evaluation"]
            big = max(d["cluster_sizes"]) / sum(d["cluster_sizes"])
            runs.append({"corpus": name, "k": k, "config": c, "acc": e["acc"], "nmi": e["nmi"], "largest": big,
                         "seconds": sec})
            print("%-18s k=%-3d %-12s ACC %.4f NMI %.4f largest %.3f %6.1fs" % (name, k, c, e["acc"], e["nmi"], big, sec),
                  flush=True)
    for c, _ in configs:
        v = [r for r in runs if r["config"] == c]
        if v:
            print("%-12s mean ACC %.4f NMI %.4f over %d corpora, %.1f s in all" % (
                c, np.mean([r["acc"] for r in v]), np.mean([r["nmi"] for r in v]), len(v),
                sum(r["seconds"] for r in v)))
    if a.copyright:
        f = os.path.join(a.corpora, "copyright.mat")
        for c, opts in configs:
            subprocess.run([sys.executable, os.path.join(HERE, "judge_copyright.py"), f, "--mmnc", a.mmnc, "--"] + opts)
    if a.json:
        with open(a.json, "w") as fp:
            json.dump({"mmnc": a.mmnc, "configs": [[c, o] for c, o in configs], "runs": runs}, fp, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
