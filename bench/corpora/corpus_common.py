"""Helpers shared by the corpus builders of bench/corpora: counting terms with `mmnc docs`,
numbering labels, saving OUT.mat atomically, and skipping with a clear message."""

import os
import subprocess
import sys
import tempfile

import numpy as np
import scipy.io
import scipy.sparse as sp

sys.dont_write_bytecode = True                    # no __pycache__ inside the repository

SKIP = 77                                         # exit status: the source is absent


def data_dir():
    """../shared/data beside the repository (found from this file)."""
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "..", "shared", "data"))


def skip(name, why):
    print("%s: skipped: %s" % (name, why), file=sys.stderr)
    sys.exit(SKIP)


def refuse_repo_path(name, out):
    """Built corpora hold research-use or third-party text: never inside the repository."""
    repo = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    if os.path.commonpath([repo, os.path.abspath(out)]) == repo:
        print("%s: %s is inside the repository; write corpora elsewhere (e.g. /tmp/corpora)"
              % (name, out), file=sys.stderr)
        sys.exit(2)


def count(mmnc, texts, min_df=2, max_df=0.5, stop_words="english"):
    """The document x term counts of texts (one string each) by `mmnc docs --lines`, and the
    indices of the texts kept (those with at least one kept term), in order."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "docs.txt")
        with open(src, "w", encoding="utf-8") as f:
            for t in texts:
                t = " ".join(t.split())           # one line; an empty text stays a blank line
                f.write(t + "\n")
        mtx = os.path.join(tmp, "d.mtx")
        cmd = [mmnc, "docs", "--lines", "--drop-empty", "-q", "--min-df", str(min_df),
               "--max-df", str(max_df), "-o", mtx, src]
        if stop_words:
            cmd[2:2] = ["--stop-words", stop_words]
        subprocess.run(cmd, check=True)
        A = scipy.io.mmread(mtx).tocsr()
        with open(os.path.join(tmp, "d.rows")) as f:
            kept = np.array([int(line.rstrip("\n").rsplit(":", 1)[1]) - 1 for line in f],
                            dtype=np.int64)
    if kept.shape[0] != A.shape[0]:
        raise SystemExit("count: %d row names for %d rows" % (kept.shape[0], A.shape[0]))
    return A, kept


def number(names):
    """Labels 1..C (sorted names) as a column of doubles, and the sorted names."""
    classes = sorted(set(names))
    index = {c: i + 1 for i, c in enumerate(classes)}
    return np.array([index[n] for n in names], dtype=np.float64).reshape(-1, 1), classes


def text_groups(texts):
    """Exact-duplicate groups: 1..G, equal for equal texts (first occurrence first)."""
    seen = {}
    return np.array([seen.setdefault(t, len(seen) + 1) for t in texts],
                    dtype=np.float64).reshape(-1, 1)


def save(name, out, A, about, **labels):
    """OUT.mat: A (documents x terms, sparse counts), each label variable as a column of
    doubles, and `about` (a line saying what the corpus is); written under a temporary name
    and renamed, so a failed build leaves no file."""
    d = {"A": sp.csc_matrix(A, dtype=np.float64), "about": about}
    for k, v in labels.items():
        d[k] = np.asarray(v, dtype=np.float64).reshape(-1, 1)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = out + ".tmp.mat"
    scipy.io.savemat(tmp, d, do_compression=True)
    os.replace(tmp, out)
    print("%s: %d documents x %d terms, %d nonzeros%s -> %s" % (
        name, A.shape[0], A.shape[1], A.nnz,
        "".join(", %s: %d classes" % (k, np.unique(v).size) for k, v in labels.items()), out),
        file=sys.stderr)
