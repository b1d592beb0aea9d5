#!/usr/bin/python3
"""Labelled literary corpora from the 76 novels of the MSR substitute corpus (research use only,
under ../shared/data/msr-sentence-completion), cut at the author's own boundaries, not at a
fixed number of words as bench/peers/make_novels.py does.

--unit chapter: a document from each heading line (CHAPTER / Chapter / BOOK / Book followed by
    a Roman or Arabic number or a number word) to the next; text before the first heading and
    pieces under --min-words words (tables of contents) are dropped, and novels with fewer
    than 5 chapters left out.  Chapter lengths vary by a factor of ten and more.
--unit paragraph: each paragraph (separated by blank lines, or a line each in the files
    without blank lines) of --min-words words or more (default
    for paragraphs 10): short texts with a heavy tail (letters, long narration); at most
    --max-docs paragraphs drawn at random (--seed).
Authors with fewer than --min-class pieces (default 10) are left out.  `labels` is the author (the file name's first field), `novels` the novel.  Terms:
`mmnc docs --stop-words english --min-df 2 --max-df 0.5`.

Usage: novel_units.py --mmnc PATH OUT.mat --unit chapter|paragraph [--min-words N]
                      [--max-docs 15000] [--min-class 10] [--seed 1] [--data-dir DIR]
"""

import argparse
import lzma
import os
import re
import sys
from collections import Counter

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_common as cc  # noqa: E402

HEADING = re.compile(r"^[ \t]*(?:CHAPTER|Chapter|BOOK|Book)[ \t]+(?:[IVXLCDM]+|\d+|[A-Z][a-z]+)"
                     r"\b.*$", re.M)
WORDS = re.compile(r"\w+")


def main():
    ap = argparse.ArgumentParser(description="the MSR novels cut into chapters or paragraphs")
    ap.add_argument("out", metavar="OUT.mat")
    ap.add_argument("--mmnc", required=True, metavar="PATH", help="the mmnc binary (mmnc docs)")
    ap.add_argument("--unit", choices=["chapter", "paragraph"], required=True)
    ap.add_argument("--min-words", type=int, help="shortest piece kept (chapter 200, paragraph 10)")
    ap.add_argument("--max-docs", type=int, default=15000, help="paragraphs at most")
    ap.add_argument("--min-class", type=int, default=10, help="pieces an author at least")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--data-dir", default=cc.data_dir())
    a = ap.parse_args()
    name = "novel_" + a.unit + "s"
    cc.refuse_repo_path(name, a.out)
    minw = a.min_words if a.min_words is not None else (200 if a.unit == "chapter" else 10)
    src = os.path.join(a.data_dir, "msr-sentence-completion", "substitute-training-corpus")
    paths = sorted(os.path.join(d, f) for d, _, fs in os.walk(src) for f in fs
                   if f.endswith(".txt.xz"))
    if not paths:
        cc.skip(name, "no novels under %s (research use only, not shipped)" % src)
    texts, novels, skipped = [], [], []
    for p in paths:
        novel = os.path.basename(p)[:-len(".txt.xz")]
        with lzma.open(p, "rt", encoding="utf-8", errors="replace") as f:
            text = f.read().replace("\r\n", "\n")
        if a.unit == "chapter":
            starts = [m.start() for m in HEADING.finditer(text)]
            pieces = [text[s:e] for s, e in zip(starts, starts[1:] + [len(text)])]
        else:
            blank = len(re.findall(r"\n[ \t]*\n", text))
            # some files wrap lines and separate paragraphs by blank lines, others hold one
            # paragraph a line
            pieces = re.split(r"\n[ \t]*\n" if blank > text.count("\n") / 100 else r"\n", text)
        pieces = [x for x in pieces if len(WORDS.findall(x)) >= minw]
        if a.unit == "chapter" and len(pieces) < 5:
            skipped.append(novel)
            continue
        texts += pieces
        novels += [novel] * len(pieces)
    if skipped:
        print("%s: %d novels without 5 chapter headings left out: %s"
              % (name, len(skipped), " ".join(skipped)), file=sys.stderr)
    if a.unit == "paragraph" and len(texts) > a.max_docs:
        pick = np.sort(np.random.default_rng(a.seed).choice(len(texts), a.max_docs,
                                                            replace=False))
        texts, novels = [texts[i] for i in pick], [novels[i] for i in pick]
    per = Counter(n.split("_")[0] for n in novels)
    few = sorted(x for x in per if per[x] < a.min_class)
    if few:
        print("%s: authors with fewer than %d pieces left out: %s" % (
            name, a.min_class, " ".join("%s (%d)" % (x, per[x]) for x in few)), file=sys.stderr)
        keep = [i for i, n in enumerate(novels) if per[n.split("_")[0]] >= a.min_class]
        texts, novels = [texts[i] for i in keep], [novels[i] for i in keep]
    A, kept = cc.count(a.mmnc, texts)
    labels, authors = cc.number([novels[i].split("_")[0] for i in kept])
    by_novel, titles = cc.number([novels[i] for i in kept])
    cc.save(name, a.out, A, "MSR substitute novels cut by %s (>= %d words): %d novels, %d authors"
            % (a.unit, minw, len(titles), len(authors)), labels=labels, novels=by_novel,
            dup=cc.text_groups([texts[i] for i in kept]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
