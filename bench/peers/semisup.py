#!/usr/bin/python3
"""Semi-supervision (issue 43): mmnc cluster --labels against its peers, scored on the rows
left unlabelled.

Corpora as corpus_peers.py loads them (../shared/data beside the repository, research use
only; a corpus whose file is absent is skipped): classic3 (k = 3), reviews (k = 5), reuters
(Reuters21578, k = 65 = all classes).  For each share of labelled rows (default 1%, 5%, 10%),
random rows (numpy default_rng(seed), seed fixed) are labelled with their true class mapped to
0..k-1; classes no labelled row has are free clusters for every method.

Methods (chosen before running):
  mmnc-labels    `mmnc cluster -k K --labels FILE` (the default algorithm), FILE the
                 labelled rows' "ID CLUSTER" lines; needs the library's fixed_label (issue 43)
  mmnc           `mmnc cluster -k K`, unsupervised: the labels are not used
  labelspreading scikit-learn LabelSpreading(kernel='knn', n_neighbors=10, alpha=0.2,
                 max_iter=100) on tf-idf reduced to 100 dimensions (TruncatedSVD, LSA) and
                 L2-normalised (Euclidean neighbours are cosine neighbours): LabelSpreading
                 wants dense input, and dense tf-idf of reuters is 1.3 GB; n_neighbors 10
                 rather than the default 7 so that small classes connect, max_iter 100 rather
                 than 30 so that it converges; alpha the default.  seconds include the SVD
  seeded-kmeans  KMeans on tf-idf from given centres, n_init=1: the mean of the labelled rows of
                 each class, and for a class without a labelled row a random unlabelled row;
                 the labelled rows are NOT held (they may move, as in Basu et al.'s
                 seeded k-means, not its constrained variant)
Scores on the unlabelled rows only: acc (Hungarian, as corpus_peers.py), acc_direct (cluster z
read as class z: the methods given labels number their clusters by them; not for mmnc) and NMI.
seconds: wall clock of the fit (mmnc: the subprocess, loading included).

Usage: semisup.py [--corpora classic3,reviews,reuters] [--corpus NAME=PATH:VAR:TRUTHVAR ...]
                  [--shares 0.01,0.05,0.1]
                  [--methods mmnc-labels,mmnc,labelspreading,seeded-kmeans] [--mmnc PATH]
                  [--seed 1] [--data-dir DIR] [--json FILE]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import repo_data, score  # noqa: E402
from corpus_peers import load  # noqa: E402

CORPORA = {
    "classic3": ("classic3/classic3.mat", "A", "labels"),
    "reviews": ("reviews/reviews.mat", "dtm", "classid"),
    "reuters": ("reuters21578/Reuters21578.mat", "fea", "gnd"),
}
METHODS = ["mmnc-labels", "mmnc", "labelspreading", "seeded-kmeans"]


def log(msg):
    print("semisup: " + msg, file=sys.stderr, flush=True)


def given_rows(n, share, seed):
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(n, max(1, int(round(share * n))), replace=False))


def run_mmnc(binary, path, var, transposed, k, seed, n, labelled=None, truth=None):
    """mmnc cluster in a subprocess; labels (-1 for dropped rows) and the JSON."""
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "r")
        cmd = [binary, "cluster", path, "-k", str(k), "-s", str(seed), "-q", "-o", prefix, "--mat-var", var]
        if transposed:
            cmd.append("--transpose")
        if labelled is not None:
            with open(os.path.join(tmp, "given.tsv"), "w") as f:
                f.write("id\tcluster\n")
                for i in labelled:
                    f.write("%d\t%d\n" % (i + 1, truth[i] + 1))
            cmd += ["--labels", os.path.join(tmp, "given.tsv")]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True)
        sec = time.perf_counter() - t0
        with open(prefix + ".json") as f:
            j = json.load(f)
        lab = np.full(n, -1, dtype=np.int64)
        with open(prefix + ".labels.tsv") as f:
            next(f)
            for line in f:
                i, z, _ = line.split("\t")
                lab[int(i) - 1] = int(z) - 1
    return lab, sec, {"labels_given": j.get("labels_given"), "labels_held": j.get("labels_held"),
                      "semi_supervision": j.get("semi_supervision")}


def tfidf(A):
    from sklearn.feature_extraction.text import TfidfTransformer
    return TfidfTransformer().fit_transform(A)


def run_labelspreading(X, y, seed):
    from sklearn.decomposition import TruncatedSVD
    from sklearn.preprocessing import normalize
    from sklearn.semi_supervised import LabelSpreading
    t0 = time.perf_counter()
    Z = normalize(TruncatedSVD(n_components=100, random_state=seed).fit_transform(X))
    m = LabelSpreading(kernel="knn", n_neighbors=10, alpha=0.2, max_iter=100).fit(Z, y)
    return m.transduction_.astype(np.int64), time.perf_counter() - t0, {"n_iter": int(m.n_iter_)}


def run_seeded_kmeans(X, y, k, seed):
    from sklearn.cluster import KMeans
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    free = np.flatnonzero(y < 0)
    centres = np.empty((k, X.shape[1]))
    for z in range(k):
        rows = np.flatnonzero(y == z)
        centres[z] = np.asarray(X[rows].mean(axis=0)).ravel() if len(rows) else X[rng.choice(free)].toarray().ravel()
    m = KMeans(n_clusters=k, init=centres, n_init=1, random_state=seed).fit(X)
    return m.labels_.astype(np.int64), time.perf_counter() - t0, {"n_iter": int(m.n_iter_)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpora", default="classic3,reviews,reuters")
    ap.add_argument("--shares", default="0.01,0.05,0.1")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--mmnc", metavar="PATH", help="the mmnc binary; without it mmnc* are skipped")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--data-dir", default=repo_data())
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--corpus", action="append", default=[], metavar="NAME=PATH:VAR:TRUTHVAR",
                    help="another labelled corpus (e.g. bench/corpora's), k its number of classes; repeatable")
    a = ap.parse_args()
    corpora = [(c, os.path.join(a.data_dir, CORPORA[c][0]), CORPORA[c][1], CORPORA[c][2])
               for c in a.corpora.split(",") if c]
    for spec in a.corpus:
        name, _, rest = spec.partition("=")
        fields = rest.rsplit(":", 2)
        if not name or len(fields) != 3:
            ap.error("--corpus %r: expected NAME=PATH:VAR:TRUTHVAR" % spec)
        corpora.append((name, fields[0], fields[1], fields[2]))
    methods = [m for m in a.methods.split(",") if m]
    if not a.mmnc:
        methods = [m for m in methods if not m.startswith("mmnc")]
    out = []
    print("| corpus | k | labelled | method | ACC | ACC direct | NMI | seconds | note |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, path, var, tvar in corpora:
        if not os.path.exists(path):
            log("%s: %s not found: skipped" % (name, path))
            continue
        A, truth, transposed = load(path, var, tvar)
        n, k = A.shape[0], int(truth.max()) + 1
        X = tfidf(A) if {"labelspreading", "seeded-kmeans"} & set(methods) else None
        plain = run_mmnc(a.mmnc, path, var, transposed, k, a.seed, n) if "mmnc" in methods else None
        for share in [float(s) for s in a.shares.split(",")]:
            labelled = given_rows(n, share, a.seed)
            y = np.full(n, -1, dtype=np.int64)
            y[labelled] = truth[labelled]
            test = y < 0
            for m in methods:
                if m == "mmnc":
                    lab, sec, extra = plain
                elif m == "mmnc-labels":
                    lab, sec, extra = run_mmnc(a.mmnc, path, var, transposed, k, a.seed, n, labelled, truth)
                elif m == "labelspreading":
                    lab, sec, extra = run_labelspreading(X, y, a.seed)
                else:
                    lab, sec, extra = run_seeded_kmeans(X, y, k, a.seed)
                keep = test & (lab >= 0)
                s = score(lab[keep], truth[keep], k)
                direct = None if m == "mmnc" else float(np.mean(lab[test] == truth[test]))
                note = ("held %s of %s, kept %s" % (extra["labels_held"], extra["labels_given"],
                                                    (extra["semi_supervision"] or {}).get("kept"))
                        if m == "mmnc-labels"
                        else "unsupervised" if m == "mmnc" else "")
                out.append({"corpus": name, "k": k, "share": share, "labelled": int(len(labelled)),
                            "unlabelled_scored": int(keep.sum()), "method": m, "acc": s["acc"],
                            "acc_direct": direct, "nmi": s["nmi"], "seconds": sec, **extra})
                print("| %s | %d | %g%% (%d) | %s | %.4f | %s | %.4f | %.1f | %s |" % (
                    name, k, 100 * share, len(labelled), m, s["acc"],
                    "-" if direct is None else "%.4f" % direct, s["nmi"], sec, note), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"seed": a.seed, "rows": out}, f, indent=1)


if __name__ == "__main__":
    main()
