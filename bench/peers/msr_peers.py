#!/usr/bin/python3
"""Word-embedding peers of mmnc for the MSR Sentence Completion experiment.

Trains, on the token stream that `mmnc cooc --tokens T.txt` writes (so that
every method sees the same tokens and the same vocabulary as mmnc):
  skipgram  gensim Word2Vec, skip-gram with negative sampling (Mikolov et al. 2013)
  lsa       latent semantic analysis (Deerwester et al. 1990): log-entropy
            weighted term x document matrix, randomized truncated SVD,
            word vectors U * Sigma
and writes each as word2vec binary (OUTDIR/skipgram.bin, OUTDIR/lsa.bin) for
`mmnc msr`, which scores every method with the same function.  Each method
runs in a child process so that its wall time and peak RSS are its own; they
go to OUTDIR/peers.tsv and OUTDIR/peers.json.

Usage: msr_peers.py --tokens T.txt --vocab C.vocab --outdir DIR [--dim 640]
                    [--threads 2] [--seed 1] [--methods skipgram,lsa]
See bench/peers/MSR.md for the parameters and why they were chosen.
"""

import argparse
import array
import importlib.util
import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True                    # no __pycache__ inside the repository

METHODS = ["skipgram", "lsa"]
NEEDS = {"skipgram": ["numpy", "gensim"], "lsa": ["numpy", "scipy", "sklearn"]}
DEBIAN = {"numpy": "python3-numpy", "scipy": "python3-scipy", "sklearn": "python3-sklearn",
          "gensim": "python3-gensim"}


def log(msg):
    print("msr_peers: " + msg, file=sys.stderr, flush=True)


def read_vocab(path):
    words = [w.rstrip("\r\n") for w in open(path, encoding="utf-8")]
    if words and words[-1] == "":
        words.pop()
    index = {w: i for i, w in enumerate(words)}
    if len(index) != len(words):
        raise SystemExit("msr_peers: %s has repeated words; is it a vocabulary from mmnc cooc?" % path)
    return words, index


def write_word2vec_bin(path, words, vectors):
    """word2vec.c's binary format: "n d\\n", then per word "word " + d float32
    little-endian + "\\n".  (gensim 4.2's save_word2vec_format omits the
    newline; writing both peers here keeps one exact format for mmnc msr.)"""
    import numpy as np
    vec = np.ascontiguousarray(vectors, dtype="<f4")
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(("%d %d\n" % vec.shape).encode())
        for w, row in zip(words, vec):
            f.write(w.encode("utf-8") + b" " + row.tobytes() + b"\n")
    os.replace(tmp, path)                         # no half-written file under the final name


# ---------------------------------------------------------------- skip-gram

def run_skipgram(a, words, index):
    from gensim.models import Word2Vec
    from gensim.models.word2vec import LineSentence
    import gensim
    t = {}
    # Every parameter spelled out (these are gensim 4.2's defaults except sg,
    # vector_size, min_count, workers and seed), so a gensim upgrade cannot
    # change the peer silently.  window=5 is the cooc window; like word2vec.c,
    # gensim draws each centre word's effective window from 1..5.
    model = Word2Vec(vector_size=a.dim, window=a.window, min_count=1, sg=1, hs=0, negative=5,
                     ns_exponent=0.75, sample=1e-3, alpha=0.025, min_alpha=0.0001,
                     epochs=a.epochs, workers=a.threads, seed=a.seed, max_vocab_size=None)
    corpus = LineSentence(a.tokens)               # one line = one sentence; empty lines are empty sentences
    t0 = time.perf_counter()
    model.build_vocab(corpus)
    t["vocab_s"] = time.perf_counter() - t0
    got = set(model.wv.index_to_key)
    if got != set(words):
        extra = len(got - set(words))
        log("warning: skipgram: the token file has %d words outside %s, and %d vocabulary words never "
            "occur in it; are they from the same mmnc cooc run?" % (extra, a.vocab, len(set(words) - got)))
    t0 = time.perf_counter()
    model.train(corpus, total_examples=model.corpus_count, epochs=model.epochs)
    t["train_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    out = os.path.join(a.outdir, "skipgram.bin")
    write_word2vec_bin(out, model.wv.index_to_key, model.wv.vectors)
    t["write_s"] = time.perf_counter() - t0
    return dict(file=out, dim=a.dim, words=len(model.wv.index_to_key), gensim=gensim.__version__,
                corpus_words=model.corpus_total_words, sentences=model.corpus_count,
                params=dict(sg=1, hs=0, negative=5, window=a.window, sample=1e-3, alpha=0.025,
                            min_alpha=0.0001, epochs=a.epochs, min_count=1, seed=a.seed,
                            workers=a.threads), **t)


# ---------------------------------------------------------------- LSA

def read_documents(a, index):
    """Token ids and document boundaries.  A document is a run of at most
    a.lsa_block sentences (lines of T.txt) that does not cross a paragraph
    break or file end (an empty line); a.lsa_block = 0: whole paragraphs."""
    ids = array.array("i")
    ptr = [0]
    nsent = 0
    with open(a.tokens, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            toks = line.split()
            if toks:
                try:
                    ids.extend(index[w] for w in toks)
                except KeyError:
                    bad = next(w for w in toks if w not in index)
                    raise SystemExit("msr_peers: %s:%d: %r is not in %s; the token file and the vocabulary "
                                     "must come from the same mmnc cooc run" % (a.tokens, lineno, bad, a.vocab))
                nsent += 1
            if (not toks and nsent) or (a.lsa_block and nsent == a.lsa_block):
                ptr.append(len(ids))
                nsent = 0
    if nsent:
        ptr.append(len(ids))
    return ids, ptr


def log_entropy(X):
    """Dumais (1991): a_ij = log(1 + tf_ij) * g_i with g_i = 1 + sum_j p_ij log p_ij / log D,
    p_ij = tf_ij / gf_i.  X is term x document CSR (rows = terms), weighted in place."""
    import numpy as np
    D = X.shape[1]
    gf = np.asarray(X.sum(axis=1)).ravel()
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    p = X.data / gf[rows]
    plogp = np.bincount(rows, weights=p * np.log(p), minlength=X.shape[0])
    g = 1.0 + plogp / np.log(D) if D > 1 else np.ones(X.shape[0])
    X.data = np.log1p(X.data) * g[rows]
    return X


def tf_idf(X):
    """tf_ij * (log((1 + D) / (1 + df_i)) + 1): scikit-learn's smoothed idf, no
    document normalisation (LSA term vectors come from the raw weighted matrix)."""
    import numpy as np
    D = X.shape[1]
    df = np.diff(X.indptr)
    idf = np.log((1.0 + D) / (1.0 + df)) + 1.0
    X.data = X.data * np.repeat(idf, df)
    return X


def run_lsa(a, words, index):
    import numpy as np
    import scipy.sparse as sp
    import sklearn
    from sklearn.decomposition import TruncatedSVD
    t = {}
    t0 = time.perf_counter()
    ids, ptr = read_documents(a, index)
    V, D = len(words), len(ptr) - 1
    if D == 0:
        raise SystemExit("msr_peers: %s has no tokens" % a.tokens)
    tok = np.frombuffer(ids, dtype=np.int32)
    doc = np.repeat(np.arange(D, dtype=np.int32), np.diff(np.asarray(ptr)))
    # coo -> csr sums the repeated (term, document) pairs into counts.
    X = sp.csr_matrix((np.ones(len(tok)), (tok, doc)), shape=(V, D))
    del ids, tok, doc
    X.sum_duplicates()
    unseen = int(np.sum(np.diff(X.indptr) == 0))
    if unseen:
        log("warning: lsa: %d words of %s never occur in %s (their vectors are 0)" % (unseen, a.vocab, a.tokens))
    X = log_entropy(X) if a.lsa_weight == "log-entropy" else tf_idf(X)
    t["matrix_s"] = time.perf_counter() - t0
    # TruncatedSVD needs n_components < both sides of the matrix.
    k = min(a.dim, D - 1, V - 1)
    if k < 1:
        raise SystemExit("msr_peers: lsa: a %d x %d matrix is too small for an SVD" % (V, D))
    if k < a.dim:
        log("lsa: only %d documents; dimension capped at %d" % (D, k))
    t0 = time.perf_counter()
    svd = TruncatedSVD(n_components=k, algorithm="randomized", n_iter=a.lsa_iter, random_state=a.seed)
    US = svd.fit_transform(X)                     # rows = terms: U * Sigma, the standard LSA term vectors
    t["train_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    out = os.path.join(a.outdir, "lsa.bin")
    write_word2vec_bin(out, words, US)
    t["write_s"] = time.perf_counter() - t0
    return dict(file=out, dim=k, words=V, documents=D, nonzeros=int(X.nnz), sklearn=sklearn.__version__,
                sigma_top=[float(s) for s in svd.singular_values_[:5]],
                params=dict(block_sentences=a.lsa_block, weighting=a.lsa_weight, n_iter=a.lsa_iter,
                            seed=a.seed), **t)


# ---------------------------------------------------------------- driver

def child(a):
    """One method in this process; writes OUTDIR/METHOD.json."""
    t0 = time.perf_counter()
    words, index = read_vocab(a.vocab)
    r = (run_skipgram if a.run_one == "skipgram" else run_lsa)(a, words, index)
    r["child_s"] = time.perf_counter() - t0
    with open(os.path.join(a.outdir, a.run_one + ".json"), "w") as f:
        json.dump(r, f, indent=1)
    return 0


def run_method(a, m):
    """Run one method in a child process; wall clock and the child's own peak
    RSS (os.wait4 gives the rusage of exactly that child, unlike RUSAGE_CHILDREN,
    which is the maximum over all children so far)."""
    cmd = [sys.executable, os.path.abspath(__file__), "--run-one", m, "--tokens", a.tokens, "--vocab", a.vocab,
           "--outdir", a.outdir, "--dim", str(a.dim), "--threads", str(a.threads), "--seed", str(a.seed),
           "--window", str(a.window), "--epochs", str(a.epochs), "--lsa-block", str(a.lsa_block),
           "--lsa-weight", a.lsa_weight, "--lsa-iter", str(a.lsa_iter)] + (["-v"] if a.verbose else [])
    env = dict(os.environ)
    for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[v] = str(a.threads)                   # the SVD's BLAS gets the same cores as gensim
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        log("%s failed (exit %d)" % (m, p.returncode))
        return None
    r = json.load(open(os.path.join(a.outdir, m + ".json")))
    r.update(method=m, wall_s=wall, peak_rss_kb=ru.ru_maxrss, user_s=ru.ru_utime, sys_s=ru.ru_stime)
    with open(os.path.join(a.outdir, m + ".json"), "w") as f:
        json.dump(r, f, indent=1)
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tokens", required=True, help="token stream from mmnc cooc --tokens")
    ap.add_argument("--vocab", required=True, help="the vocabulary mmnc cooc wrote (C.vocab)")
    ap.add_argument("--outdir", required=True)
    ap.add_argument("--dim", type=int, default=640, help="vector dimension (default 640, as in the paper)")
    ap.add_argument("--threads", type=int, default=2, help="gensim workers and BLAS threads (default 2)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--methods", default=",".join(METHODS), help="comma list of %s" % ",".join(METHODS))
    ap.add_argument("--window", type=int, default=5, help="skip-gram window; keep it equal to cooc's (default 5)")
    ap.add_argument("--epochs", type=int, default=5, help="skip-gram epochs (default 5, gensim's default)")
    ap.add_argument("--lsa-block", type=int, default=10,
                    help="sentences per LSA document, never crossing a paragraph; 0 = whole paragraphs (default 10)")
    ap.add_argument("--lsa-weight", choices=["log-entropy", "tfidf"], default="log-entropy")
    ap.add_argument("--lsa-iter", type=int, default=5, help="power iterations of the randomized SVD (default 5)")
    ap.add_argument("-v", "--verbose", action="store_true", help="gensim's progress log on stderr")
    ap.add_argument("--run-one", choices=METHODS, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.dim < 1 or a.threads < 1 or a.epochs < 1 or a.window < 1 or a.lsa_block < 0 or a.lsa_iter < 0:
        ap.error("--dim, --threads, --epochs and --window must be positive, --lsa-block and --lsa-iter >= 0")
    for f in (a.tokens, a.vocab):
        if not os.path.isfile(f):
            ap.error("%s does not exist (make it with: mmnc cooc TEXT... -o C.mtx --tokens T.txt)" % f)
    if a.run_one:
        if a.verbose:
            import logging
            logging.basicConfig(format="%(asctime)s %(name)s: %(message)s", level=logging.INFO)
        return child(a)

    methods = [m.strip() for m in a.methods.split(",") if m.strip()]
    for m in methods:
        if m not in METHODS:
            ap.error("unknown method %r (known: %s)" % (m, ", ".join(METHODS)))
    os.makedirs(a.outdir, exist_ok=True)
    results = []
    for m in methods:
        missing = [mod for mod in NEEDS[m] if importlib.util.find_spec(mod) is None]
        if missing:
            log("%s skipped: Python module %s missing (Debian %s; install with make bench-deps)" % (
                m, ", ".join(missing), " ".join(DEBIAN[x] for x in missing)))
            continue
        log("%s: training (dim %d, %d threads)..." % (m, a.dim, a.threads))
        r = run_method(a, m)
        if r is None:
            return 1
        log("%s: %.1f s wall, %.1f s training, peak RSS %.0f MB -> %s" % (
            m, r["wall_s"], r["train_s"], r["peak_rss_kb"] / 1024, r["file"]))
        results.append(r)
    if results:
        with open(os.path.join(a.outdir, "peers.tsv"), "w") as f:
            f.write("method\tdim\twall_s\ttrain_s\tpeak_rss_kb\tfile\n")
            for r in results:
                f.write("%s\t%d\t%.2f\t%.2f\t%d\t%s\n" % (r["method"], r["dim"], r["wall_s"], r["train_s"],
                                                         r["peak_rss_kb"], os.path.basename(r["file"])))
        with open(os.path.join(a.outdir, "peers.json"), "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
