"""Helpers shared by the peer scripts of bench/peers (reuters_peers.py, corpus_peers.py):
the scores (the paper's coverage / overall / k-accuracy, Hungarian ACC, NMI, ARI), the
scikit-learn peers (kmeans, cocluster, nmf) and the mmnc subprocess."""

import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from sklearn.cluster import KMeans, SpectralCoclustering
from sklearn.decomposition import NMF
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

sys.dont_write_bytecode = True                    # no __pycache__ inside the repository


def repo_data(*parts):
    """A path under ../shared/data beside the repository (found from this file)."""
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "..", "shared", "data", *parts))


# ---------------------------------------------------------------- scoring

def contingency(pred, truth):
    """Dense cluster x class count table; pred and truth as 0-based ints."""
    return sp.coo_matrix((np.ones(len(pred)), (pred, truth)),
                         shape=(pred.max() + 1, truth.max() + 1)).toarray()


def score(pred, truth, k):
    """pred: 0..k-1; truth: 0-based class ids. The paper's measures plus ACC, NMI and ARI."""
    pred = np.asarray(pred, dtype=np.int64)
    truth = np.asarray(truth, dtype=np.int64)
    n = len(truth)
    M = contingency(pred, truth)
    if M.shape[0] < k:                            # clusters that came out empty
        M = np.vstack([M, np.zeros((k - M.shape[0], M.shape[1]))])
    sizes = M.sum(axis=0)
    order = np.lexsort((np.arange(len(sizes)), -sizes))   # largest first, ties: smaller label
    top = order[:min(k, len(sizes))]
    Mk = M[:, top]                                # k clusters x K largest classes
    r, c = linear_sum_assignment(Mk, maximize=True)
    matched = Mk[r, c].sum()
    covered = sizes[top].sum()
    r, c = linear_sum_assignment(M, maximize=True)
    return {
        "coverage": covered / n,
        "overall": matched / n,
        "kacc": matched / covered,
        "acc": M[r, c].sum() / n,
        "nmi": normalized_mutual_info_score(truth, pred, average_method="arithmetic"),
        "ari": adjusted_rand_score(truth, pred),
        "sizes": np.bincount(pred, minlength=k).tolist(),
    }


# ---------------------------------------------------------------- methods

def run_kmeans(A, k, seed):
    t0 = time.perf_counter()
    X = TfidfTransformer().fit_transform(A)
    lab = KMeans(n_clusters=k, n_init=10, random_state=seed).fit_predict(X)
    return lab, time.perf_counter() - t0, {}


def run_cocluster(A, k, seed):
    t0 = time.perf_counter()
    m = SpectralCoclustering(n_clusters=k, random_state=seed).fit(A)
    return m.row_labels_, time.perf_counter() - t0, {}


def run_nmf(A, k, seed):
    t0 = time.perf_counter()
    X = TfidfTransformer().fit_transform(A)
    model = NMF(n_components=k, init="nndsvda", random_state=seed)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always", ConvergenceWarning)
        Wm = model.fit_transform(X)
    lab = np.argmax(Wm, axis=1)
    extra = {"n_iter": int(model.n_iter_),
             "converged": not any(issubclass(x.category, ConvergenceWarning) for x in w)}
    return lab, time.perf_counter() - t0, extra


# ---------------------------------------------------------------- mmnc

def run_mmnc(binary, data, k, seed, n, threads=None, mat_var=None, truth_var=None, args=()):
    """`mmnc cluster DATA -k K -s SEED --truth DATA -q -o TMP [ARGS]` in a subprocess; the
    labels from TMP.labels.tsv, the norm, mmnc's own timer and its evaluation from TMP.json.
    mat_var / truth_var: --mat-var / --truth-var when not mmnc's defaults (fea, gnd)."""
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "r")
        cmd = [binary, "cluster", data, "-k", str(k), "-s", str(seed), "--truth", data,
               "-q", "-o", prefix]
        if mat_var is not None:
            cmd += ["--mat-var", mat_var]
        if truth_var is not None:
            cmd += ["--truth-var", truth_var]
        if threads is not None:
            cmd += ["-t", str(threads)]
        cmd += list(args)
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True)
        sec = time.perf_counter() - t0
        with open(prefix + ".json") as f:
            j = json.load(f)
        lab = np.zeros(n, dtype=np.int64)
        with open(prefix + ".labels.tsv") as f:
            next(f)                               # header: id cluster probability
            for line in f:
                i, z, _ = line.split("\t")
                lab[int(i) - 1] = int(z) - 1
    extra = {"nuclear": j["nuclear_norm"], "seconds_cluster": j["seconds_cluster"],
             "iterations": j.get("restart_iterations"), "mmnc_evaluation": j.get("evaluation")}
    return lab, sec, extra


# ---------------------------------------------------------------- machine

def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"
