#!/usr/bin/python3
"""Labelled technical text every Debian machine has: the manual pages, labelled by section.

The pages /usr/share/man/man{1,3,5,7,8}/* (regular files, gzip or plain; symbolic links and
`.so` redirections left out) are turned into text crudely: comment lines dropped, a request's
name dropped and its arguments kept, font and character escapes removed.  Lengths run from a
few dozen words to whole manuals (perlfunc, bash), a heavy tail.  Pages whose name starts with
one of --exclude (default gcloud: 16,000 generated pages of one SDK, on some machines only) are
left out, and each section keeps at most --per-section pages drawn at random (--seed).
Terms: `mmnc docs --stop-words english --min-df 2 --max-df 0.5`.

Usage: man_sections.py --mmnc PATH OUT.mat [--sections 1,3,5,7,8] [--per-section 1500]
                       [--exclude gcloud] [--root /usr/share/man] [--seed 1]
"""

import argparse
import gzip
import os
import re
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_common as cc  # noqa: E402

NAME = "man_sections"
ESCAPE = re.compile(r"\\(?:f(?:\[[^]]*\]|\(..|.)|\((..)|\*(?:\[[^]]*\]|\(..|.)|"
                    r"[sS][-+]?\d+|[nN](?:\[[^]]*\]|\(..|.)|[&|^%:ce0~ ]|.)")


def roff_text(src):
    """The words of a roff page, or None for a .so redirection."""
    out = []
    for line in src.split("\n"):
        if line.startswith(('.\\"', "'\\\"", '.\\}', '\\"')):
            continue
        if line.startswith((".", "'")):
            req = line[1:].strip().split(None, 1)
            if not req:
                continue
            if req[0] == "so":
                return None
            if req[0] in ("de", "ds", "nr", "ig", "tr", "if", "ie", "el", "ft", "ps", "ta",
                          "in", "ti", "ll", "ne", "sp", "br", "na", "ad", "nh", "hy", "rm"):
                continue
            line = req[1] if len(req) > 1 else ""
        out.append(ESCAPE.sub(" ", line.replace("\\-", "-")))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description="manual pages labelled by section")
    ap.add_argument("out", metavar="OUT.mat")
    ap.add_argument("--mmnc", required=True, metavar="PATH", help="the mmnc binary (mmnc docs)")
    ap.add_argument("--sections", default="1,3,5,7,8")
    ap.add_argument("--per-section", type=int, default=1500)
    ap.add_argument("--exclude", default="gcloud", help="comma-separated name prefixes")
    ap.add_argument("--root", default="/usr/share/man")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    cc.refuse_repo_path(NAME, a.out)
    rng = np.random.default_rng(a.seed)
    excl = tuple(x for x in a.exclude.split(",") if x)
    texts, sections, counts = [], [], []
    for s in a.sections.split(","):
        d = os.path.join(a.root, "man" + s)
        if not os.path.isdir(d):
            print("%s: %s is absent; section %s left out" % (NAME, d, s), file=sys.stderr)
            continue
        pages = sorted(f for f in os.listdir(d) if not f.startswith(excl) and
                       not os.path.islink(os.path.join(d, f)) and
                       os.path.isfile(os.path.join(d, f)))
        got = []
        for f in pages:
            p = os.path.join(d, f)
            try:
                with (gzip.open(p) if f.endswith(".gz") else open(p, "rb")) as fh:
                    t = roff_text(fh.read().decode("utf-8", errors="replace"))
            except (OSError, EOFError):
                continue
            if t is not None:
                got.append(t)
        if len(got) > a.per_section:
            got = [got[i] for i in np.sort(rng.choice(len(got), a.per_section, replace=False))]
        counts.append("man%s %d" % (s, len(got)))
        texts += got
        sections += ["man" + s] * len(got)
    if len(set(sections)) < 2:
        cc.skip(NAME, "fewer than two sections with pages under %s" % a.root)
    A, kept = cc.count(a.mmnc, texts)
    labels, _ = cc.number([sections[i] for i in kept])
    print("%s: pages %s" % (NAME, ", ".join(counts)), file=sys.stderr)
    cc.save(NAME, a.out, A, "%s/man{%s}: manual pages by section (at most %d each, not %s*)"
            % (a.root, a.sections, a.per_section, "*,".join(excl)), labels=labels,
            dup=cc.text_groups([texts[i] for i in kept]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
