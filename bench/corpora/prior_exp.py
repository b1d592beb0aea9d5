#!/usr/bin/python3
"""The default's size prior against the derived one and none, on the thirteen labelled corpora.

  bench/corpora/prior_exp.py CORPORA_DIR [--mmnc build/mmnc] [--configs default,cml,none]

CORPORA_DIR: the output of bench/corpora/build-all; the three development corpora are read from
../shared/data beside the repository (research use only; skipped when absent).  Each corpus runs
`mmnc cluster FILE --mat-var VAR --truth FILE --truth-var LABELS -k K` (K = its classes, seed 1)
with, per configuration: nothing (default: gamma = 7 on the nonzeros' scale), --size-prior
nnz/tokens ("cml": the classification likelihood of a multinomial mixture, prior weight
|Y|/tokens), --size-prior 0 ("none").  Prints a line per run and the means (bench/NOTES.md).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy.io
import scipy.sparse as sp

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "..", "shared", "data")
LABELLED = ["c3_12", "chapters", "classic3-dup-long", "debian-long", "debian-oneline", "man", "paragraphs",
            "reu12", "rev12", "reviews-lengths"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpora")
    ap.add_argument("--mmnc", default=os.path.join(HERE, "..", "..", "build", "mmnc"))
    ap.add_argument("--configs", default="default,cml,none")
    a = ap.parse_args()
    todo = [("reuters65", os.path.join(DATA, "reuters21578/Reuters21578.mat"), "fea", "gnd", 65),
            ("classic3", os.path.join(DATA, "classic3/classic3.mat"), "A", "labels", 3),
            ("reviews", os.path.join(DATA, "reviews/reviews.mat"), "dtm", "classid", 5)]
    for n in LABELLED:
        f = os.path.join(a.corpora, n + ".mat")
        if os.path.exists(f):
            lab = scipy.io.loadmat(f, variable_names=["labels"])["labels"].ravel()
            todo.append((n, f, "A", "labels", len(np.unique(lab))))
    configs = a.configs.split(",")
    out = {}
    tmp = tempfile.mkdtemp()
    for name, f, var, lv, k in todo:
        if not os.path.exists(f):
            print("prior_exp: %s is absent; %s skipped" % (f, name), file=sys.stderr)
            continue
        m = scipy.io.loadmat(f, variable_names=[var, lv])
        A = sp.csr_matrix(m[var], dtype=float)
        if A.shape[0] != len(m[lv].ravel()):
            A = sp.csr_matrix(A.T)
        A = A[np.asarray(A.sum(1)).ravel() > 0][:, np.asarray(A.sum(0)).ravel() > 0]
        A.eliminate_zeros()
        g = A.nnz / A.sum()
        for c in configs:
            extra = {"default": [], "cml": ["--size-prior", "%.17g" % g], "none": ["--size-prior", "0"]}[c]
            prefix = os.path.join(tmp, "%s_%s" % (name, c))
            t0 = time.time()
            r = subprocess.run([a.mmnc, "cluster", f, "--mat-var", var, "--truth", f, "--truth-var", lv, "-k", str(k),
                                "-q", "-o", prefix] + extra, capture_output=True, text=True)
            if r.returncode:
                print("prior_exp: %s %s failed: %s" % (name, c, r.stderr.strip()), file=sys.stderr)
                continue
            d = json.load(open(prefix + ".json"))
            e = d["evaluation"]
            out[(name, c)] = (e["acc"], e["nmi"])
            print("%-18s k=%-3d %-8s ACC %.4f NMI %.4f largest %.3f %.1fs" % (
                name, k, c, e["acc"], e["nmi"], max(d["cluster_sizes"]) / sum(d["cluster_sizes"]),
                time.time() - t0), flush=True)
    for c in configs:
        v = [out[key] for key in out if key[1] == c]
        if v:
            print("%s: mean ACC %.4f NMI %.4f over %d corpora" % (c, np.mean([x for x, _ in v]),
                                                                  np.mean([y for _, y in v]), len(v)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
