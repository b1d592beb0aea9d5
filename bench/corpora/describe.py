#!/usr/bin/python3
"""A Markdown table of the corpora built by bench/corpora/build-all: for every OUTDIR/*.mat,
rows (documents), columns (terms), nonzeros, classes and balance (largest / smallest class),
median, 99th-percentile and largest tokens a document, and duplicates (rows identical to an
earlier row, their share, and the largest group of identical rows).

--peers prints instead the --corpus options of bench/peers/corpus_peers.py for every labelled
corpus, k = its number of classes; --results RUN.json prints corpus_peers.py's results (its
--json) as one row a corpus, ACC / NMI of each method, the best ACC in bold, and the seconds of
each method summed over the corpora, then the largest cluster's share of the documents (and,
given OUTDIR, the largest class's).

Usage: describe.py OUTDIR [--peers]
       describe.py [OUTDIR] --results RUN.json
"""

import argparse
import glob
import hashlib
import json
import os
import sys
from collections import Counter

import numpy as np
import scipy.io
import scipy.sparse as sp

sys.dont_write_bytecode = True


def describe(path):
    m = scipy.io.loadmat(path)
    A = sp.csr_matrix(m["A"])
    A.sort_indices()
    r = {"name": os.path.basename(path)[:-4], "rows": A.shape[0], "cols": A.shape[1],
         "nnz": A.nnz}
    lab = np.asarray(m["labels"]).ravel() if "labels" in m else None
    if lab is not None:
        sizes = np.unique(lab, return_counts=True)[1]
        r["classes"] = sizes.size
        r["balance"] = "%d / %d" % (sizes.max(), sizes.min())
    tokens = np.asarray(A.sum(axis=1)).ravel()
    r["median"] = np.median(tokens)
    r["p99"] = np.percentile(tokens, 99)
    r["max"] = tokens.max()
    keys = Counter(hashlib.sha1(A.indices[A.indptr[i]:A.indptr[i + 1]].tobytes() +
                                A.data[A.indptr[i]:A.indptr[i + 1]].tobytes()).digest()
                   for i in range(A.shape[0]))
    r["dups"] = A.shape[0] - len(keys)
    r["biggest_group"] = max(keys.values())
    r["about"] = str(np.asarray(m["about"]).ravel()[0]) if "about" in m else ""
    return r


def results(path, outdir):
    with open(path) as f:
        rs = json.load(f)["results"]
    corpora = list(dict.fromkeys((r["corpus"], r["k"]) for r in rs))
    methods = list(dict.fromkeys(r["method"] for r in rs))
    by = {(r["corpus"], r["k"], r["method"]): r for r in rs}
    print("| corpus, k | " + " | ".join(methods) + " |")
    print("|---|" + "---|" * len(methods))
    for c, k in corpora:
        best = max(by[c, k, m]["acc"] for m in methods if (c, k, m) in by)
        cells = []
        for m in methods:
            r = by.get((c, k, m))
            cell = "" if r is None else "%.2f%% / .%03d" % (100 * r["acc"], round(1000 * r["nmi"]))
            cells.append("**%s**" % cell if r is not None and r["acc"] == best else cell)
        print("| %s, %d | %s |" % (c, k, " | ".join(cells)))
    print("| seconds | " + " | ".join("%.1f" % sum(r["seconds"] for r in rs if r["method"] == m)
                                     for m in methods) + " |")
    print()
    print("The largest cluster's share of the documents (the largest class's in brackets):")
    print()
    print("| corpus, k | " + " | ".join(methods) + " |")
    print("|---|" + "---|" * len(methods))
    for c, k in corpora:
        some = next(by[c, k, m] for m in methods if (c, k, m) in by)
        n = sum(some["sizes"])
        cells = ["" if (c, k, m) not in by else "%.1f%%" % (100 * max(by[c, k, m]["sizes"]) / n)
                 for m in methods]
        big = "?"
        if outdir and os.path.exists(os.path.join(outdir, c + ".mat")):
            lab = scipy.io.loadmat(os.path.join(outdir, c + ".mat"), variable_names=["labels"])
            big = "%.1f%%" % (100 * np.unique(lab["labels"], return_counts=True)[1].max() / n)
        print("| %s, %d (%s) | %s |" % (c, k, big, " | ".join(cells)))
    return 0


def main():
    ap = argparse.ArgumentParser(description="describe the built corpora")
    ap.add_argument("outdir", nargs="?")
    ap.add_argument("--peers", action="store_true",
                    help="print corpus_peers.py --corpus options instead of the table")
    ap.add_argument("--results", metavar="RUN.json",
                    help="print corpus_peers.py's results (--json) as one row a corpus")
    a = ap.parse_args()
    if a.results:
        return results(a.results, a.outdir)
    if not a.outdir:
        ap.error("OUTDIR is required (or --results RUN.json)")
    paths = sorted(glob.glob(os.path.join(a.outdir, "*.mat")))
    paths = [p for p in paths if not p.endswith(".tmp.mat")]
    if not paths:
        print("describe: no corpora (*.mat) in %s" % a.outdir, file=sys.stderr)
        return 1
    if a.peers:
        for p in paths:
            m = scipy.io.loadmat(p, variable_names=["labels"])
            if "labels" in m:
                print("--corpus %s=%s:A:labels:%d" % (os.path.basename(p)[:-4], os.path.abspath(p),
                                                     np.unique(m["labels"]).size))
        return 0
    print("| corpus | rows | columns | nonzeros | classes | largest / smallest | median tokens "
          "| p99 tokens | max tokens | duplicate rows (largest group) | source |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for p in paths:
        r = describe(p)
        print("| %s | %d | %d | %d | %s | %s | %g | %g | %g | %d = %.1f%% (%d) | %s |" % (
            r["name"], r["rows"], r["cols"], r["nnz"], r.get("classes", "none"),
            r.get("balance", "-"), r["median"], round(r["p99"]), r["max"], r["dups"],
            100 * r["dups"] / r["rows"], r["biggest_group"], r["about"].replace("|", "/")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
