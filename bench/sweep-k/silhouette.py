"""The peer of bench/sweep-k/run: scikit-learn KMeans on tf-idf for each k of a range, and
the k of the largest silhouette (cosine; the rows are l2-normalised tf-idf).

    silhouette.py DATA.mat VAR KMIN KMAX SEED

Prints one line "k silhouette seconds" per k (k >= 2), then "suggested K".  Reads the
matrix with scipy.io.loadmat; documents are the rows (the corpora of bench/sweep-k are)."""
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp
from sklearn.cluster import KMeans
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.metrics import silhouette_score

sys.dont_write_bytecode = True

N_INIT = 3  # KMeans starts per k: run time, not accuracy, fixed this (10 is scikit-learn's old default)


def main():
    path, var, kmin, kmax, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    A = sp.csr_matrix(scipy.io.loadmat(path)[var], dtype=np.float64)
    X = TfidfTransformer().fit_transform(A)
    best, best_s = None, -np.inf
    for k in range(max(kmin, 2), kmax + 1):
        t0 = time.perf_counter()
        lab = KMeans(n_clusters=k, n_init=N_INIT, random_state=seed).fit_predict(X)
        s = silhouette_score(X, lab, metric="cosine")
        print("%d %.6f %.2f" % (k, s, time.perf_counter() - t0), flush=True)
        if s > best_s:
            best, best_s = k, s
    print("suggested %d" % best)


if __name__ == "__main__":
    main()
