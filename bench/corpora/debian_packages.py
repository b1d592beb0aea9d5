#!/usr/bin/python3
"""Labelled short texts every Debian machine has: package descriptions, labelled by Section.

--variant long: the installed packages of /var/lib/dpkg/status, each document the short and
    the long description (a few to a few hundred words); sections with at least --min-class
    packages are kept (libraries dominate: very unequal classes).
--variant oneline: every package of the APT lists (/var/lib/apt/lists/*_Packages, plain or
    .lz4 through lz4cat), each document only the one-line short description (a handful of
    words, many exact duplicates such as "transitional package"); the --classes largest
    sections, then at most --max-docs packages drawn at random (--seed), classes in the
    proportions they have.  A package listed by several suites counts once.
Section prefixes such as "contrib/" are dropped.  Terms: `mmnc docs --stop-words english
--min-df 2 --max-df 0.5`; documents left without a term are dropped.

Usage: debian_packages.py --mmnc PATH OUT.mat --variant long|oneline [--min-class 10]
                          [--classes 15] [--max-docs 12000] [--seed 1]
"""

import argparse
import glob
import os
import subprocess
import sys
from collections import Counter

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_common as cc  # noqa: E402


def stanzas(text):
    """Each control stanza as a dict; a field's continuation lines joined with newlines."""
    for block in text.split("\n\n"):
        d, key = {}, None
        for line in block.split("\n"):
            if line[:1] in (" ", "\t") and key:
                d[key] += "\n" + line[1:]
            elif ":" in line:
                key, _, v = line.partition(":")
                d[key] = v.strip()
        if "Package" in d:
            yield d


def long_description(d):
    lines = d.get("Description", "").split("\n")
    return " ".join(line for line in lines if line.strip() != ".")


def main():
    ap = argparse.ArgumentParser(description="Debian package descriptions by section")
    ap.add_argument("out", metavar="OUT.mat")
    ap.add_argument("--mmnc", required=True, metavar="PATH", help="the mmnc binary (mmnc docs)")
    ap.add_argument("--variant", choices=["long", "oneline"], required=True)
    ap.add_argument("--min-class", type=int, default=10, help="long: packages a section at least")
    ap.add_argument("--classes", type=int, default=15, help="oneline: the largest sections kept")
    ap.add_argument("--max-docs", type=int, default=12000, help="oneline: documents at most")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--status", default="/var/lib/dpkg/status")
    ap.add_argument("--lists", default="/var/lib/apt/lists")
    a = ap.parse_args()
    name = "debian_" + a.variant
    cc.refuse_repo_path(name, a.out)
    if a.variant == "long":
        if not os.path.isfile(a.status):
            cc.skip(name, "%s is absent (not a Debian system?)" % a.status)
        with open(a.status, encoding="utf-8", errors="replace") as f:
            pk = [d for d in stanzas(f.read()) if d.get("Status", "").endswith(" installed")
                  and "Section" in d]
        docs = [(d["Package"], d["Section"].split("/")[-1], long_description(d)) for d in pk]
        sizes = Counter(s for _, s, _ in docs)
        docs = [x for x in docs if sizes[x[1]] >= a.min_class]
        about = "%s: installed packages' descriptions, sections with >= %d packages" % (
            a.status, a.min_class)
    else:
        lists = sorted(glob.glob(os.path.join(a.lists, "*_Packages")) +
                       glob.glob(os.path.join(a.lists, "*_Packages.lz4")))
        if not lists:
            cc.skip(name, "no *_Packages lists under %s (run apt-get update)" % a.lists)
        seen = {}
        for path in lists:
            if path.endswith(".lz4"):
                try:
                    raw = subprocess.run(["lz4cat", path], check=True,
                                         stdout=subprocess.PIPE).stdout
                except (OSError, subprocess.CalledProcessError) as e:
                    cc.skip(name, "cannot read %s with lz4cat (%s)" % (path, e))
            else:
                with open(path, "rb") as f:
                    raw = f.read()
            for d in stanzas(raw.decode("utf-8", errors="replace")):
                if "Section" in d and d["Package"] not in seen:
                    seen[d["Package"]] = (d["Package"], d["Section"].split("/")[-1],
                                          d.get("Description", "").split("\n")[0])
        docs = list(seen.values())
        top = {s for s, _ in Counter(s for _, s, _ in docs).most_common(a.classes)}
        docs = [x for x in docs if x[1] in top]
        rng = np.random.default_rng(a.seed)
        if len(docs) > a.max_docs:
            pick = np.sort(rng.choice(len(docs), a.max_docs, replace=False))
            docs = [docs[i] for i in pick]
        about = "%d APT lists: one-line descriptions, the %d largest sections, %d packages" % (
            len(lists), a.classes, len(docs))
    if not docs:
        cc.skip(name, "no package descriptions found")
    A, kept = cc.count(a.mmnc, [t for _, _, t in docs])
    labels, classes = cc.number([docs[i][1] for i in kept])
    dup = cc.text_groups([docs[i][2] for i in kept])
    print("%s: sections %s" % (name, " ".join(classes)), file=sys.stderr)
    cc.save(name, a.out, A, about, labels=labels, dup=dup)
    return 0


if __name__ == "__main__":
    sys.exit(main())
