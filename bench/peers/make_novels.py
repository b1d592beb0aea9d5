#!/usr/bin/python3
"""A labelled corpus that no default was developed on: the 76 novels of the MSR substitute corpus
cut into documents.

Each novel (../shared/data/msr-sentence-completion/substitute-training-corpus/*/*.txt.xz,
research use only) is lower-cased and cut into its words (runs of letters and digits with inner '
and -, as `mmnc docs` reads them); every WORDS consecutive words (default 2000) make one document,
the last partial piece is dropped.  `mmnc docs --stop-words english --min-df 2 --max-df 0.5` counts
the terms.  OUT.mat (never inside the repository: the text is research use only) holds the
document x term counts `A`, the novel of each document `labels` (1..76) and its author `authors`
(1..30, the file name's first field), for

    bench/peers/corpus_peers.py --corpus novels=OUT.mat:A:labels:76 \\
                                --corpus authors=OUT.mat:A:authors:30 ...

Usage: make_novels.py --mmnc PATH OUT.mat [--words 2000] [--data-dir DIR]
"""

import argparse
import lzma
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import scipy.io

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import repo_data  # noqa: E402

WORD = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")


def main():
    ap = argparse.ArgumentParser(description="the MSR novels cut into labelled documents")
    ap.add_argument("out", metavar="OUT.mat")
    ap.add_argument("--mmnc", required=True, metavar="PATH", help="the mmnc binary (mmnc docs)")
    ap.add_argument("--words", type=int, default=2000, help="words per document (default 2000)")
    ap.add_argument("--data-dir", default=repo_data(),
                    help="the shared data directory (default: %(default)s)")
    a = ap.parse_args()
    if a.words < 1:
        ap.error("--words must be at least 1")
    src = os.path.join(a.data_dir, "msr-sentence-completion", "substitute-training-corpus")
    novels = sorted(os.path.join(d, f) for d, _, fs in os.walk(src) for f in fs
                    if f.endswith(".txt.xz"))
    if not novels:
        print("make_novels: no novels under %s (research use only, not shipped); nothing done"
              % src, file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        docs = os.path.join(tmp, "docs")
        for path in novels:
            name = os.path.basename(path)[:-len(".txt.xz")]
            with lzma.open(path, "rt", encoding="utf-8", errors="replace") as f:
                words = WORD.findall(f.read().lower())
            os.makedirs(os.path.join(docs, name))
            for i in range(len(words) // a.words):
                with open(os.path.join(docs, name, "%05d.txt" % i), "w") as f:
                    f.write(" ".join(words[i * a.words:(i + 1) * a.words]))
        mtx = os.path.join(tmp, "novels.mtx")
        try:
            subprocess.run([a.mmnc, "docs", docs, "--stop-words", "english", "--min-df", "2",
                            "--max-df", "0.5", "-o", mtx], check=True)
        except (OSError, subprocess.CalledProcessError) as e:
            print("make_novels: mmnc docs failed (%s); nothing written" % e, file=sys.stderr)
            return 1
        A = scipy.io.mmread(mtx).tocsr()
        with open(os.path.join(tmp, "novels.rows")) as f:
            novel = [line.rstrip("\n").split("/")[-2] for line in f]
    names = sorted(set(novel))
    authors = sorted(set(n.split("_")[0] for n in novel))
    labels = np.array([names.index(n) + 1 for n in novel]).reshape(-1, 1)
    by_author = np.array([authors.index(n.split("_")[0]) + 1 for n in novel]).reshape(-1, 1)
    tmp_out = a.out + ".tmp.mat"
    scipy.io.savemat(tmp_out, {"A": A, "labels": labels, "authors": by_author},
                     do_compression=True)
    os.replace(tmp_out, a.out)
    print("make_novels: %d documents of %d words from %d novels by %d authors, %d terms, "
          "%d nonzeros -> %s" % (A.shape[0], a.words, len(names), len(authors), A.shape[1],
                                 A.nnz, a.out), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
