#!/usr/bin/python3
"""An unlabelled corpus every Debian machine has: the files /usr/share/doc/*/copyright.

One document per package directory (a directory that is a symbolic link to another package's
counts again: those are exact duplicates, as are the many files that hold the same licence text).
Lengths run from a few lines to whole licence collections.  There are no labels; `dup` numbers
the groups of byte-identical files (by SHA-256), for judge_copyright.py, which asks that no
cluster hold more than 40% of the documents at k = 8 and that identical files share a cluster.
Terms: `mmnc docs --stop-words english --min-df 2 --max-df 0.5`.

Usage: debian_copyright.py --mmnc PATH OUT.mat [--root /usr/share/doc]
"""

import argparse
import glob
import hashlib
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_common as cc  # noqa: E402

NAME = "debian_copyright"


def main():
    ap = argparse.ArgumentParser(description="the Debian copyright files, unlabelled")
    ap.add_argument("out", metavar="OUT.mat")
    ap.add_argument("--mmnc", required=True, metavar="PATH", help="the mmnc binary (mmnc docs)")
    ap.add_argument("--root", default="/usr/share/doc")
    a = ap.parse_args()
    cc.refuse_repo_path(NAME, a.out)
    paths = sorted(p for p in glob.glob(os.path.join(a.root, "*", "copyright"))
                   if os.path.isfile(p))
    if len(paths) < 20:
        cc.skip(NAME, "%d copyright files under %s (a Debian system has hundreds)"
                % (len(paths), a.root))
    texts, digests = [], []
    for p in paths:
        with open(p, "rb") as f:
            raw = f.read()
        digests.append(hashlib.sha256(raw).hexdigest())
        texts.append(raw.decode("utf-8", errors="replace"))
    A, kept = cc.count(a.mmnc, texts)
    dup = cc.text_groups([digests[i] for i in kept])
    cc.save(NAME, a.out, A, "%s/*/copyright, %d files, no labels (dup: identical files)"
            % (a.root, len(paths)), dup=dup)
    return 0


if __name__ == "__main__":
    sys.exit(main())
