#!/usr/bin/env python3
"""mkman.py -- the man pages of mmnc, made from its own --help texts.

    cli/mkman.py MMNC OUTDIR

Writes OUTDIR/mmnc.1 (the commands, from `mmnc --help`) and OUTDIR/mmnc-CMD.1
for every command it lists (from `mmnc CMD --help`): NAME, SYNOPSIS, the
description, then each option as a tagged paragraph, in the help's own
sections.  Made at build time from the binary, so a page always has the
options the binary accepts (tests/install/run.sh checks it).
"""
import datetime
import os
import re
import subprocess
import sys


def roff(text):
    """Text safe for roff: backslashes, leading dots and quotes, hyphens of options."""
    text = text.replace("\\", "\\e")
    text = re.sub(r"(?<![\w])-", r"\\-", text)
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def help_of(mmnc, args):
    out = subprocess.run([mmnc] + args + ["--help"], capture_output=True, text=True)
    text = out.stdout if out.stdout.strip() else out.stderr
    if not text.strip():
        sys.exit("mkman.py: %s %s --help printed nothing" % (mmnc, " ".join(args)))
    return text.rstrip("\n").split("\n")


def page(name, summary, lines, version, date):
    """A man page from the lines of a --help text."""
    out = ['.TH "%s" 1 "%s" "mmnc %s" "mmnc manual"' % (name.upper(), date, version),
           ".SH NAME", "%s \\- %s" % (roff(name), roff(summary))]
    usage, body = [], []
    for l in lines:                     # "Usage: ..." and the indented usage lines right after it
        if l.startswith("Usage:") or (usage and not body and re.match(r"^\s+mmnc\b", l)):
            usage.append(l[len("Usage:"):].strip() if l.startswith("Usage:") else l.strip())
        else:
            body.append(l)
    if usage:
        out.append(".SH SYNOPSIS")
        for i, u in enumerate(usage):
            out += ([".br"] if i else []) + [".B " + roff(u)]
    if body and body[0].startswith("mmnc ") and " -- " in body[0]:
        body = body[1:]              # the banner line of `mmnc --help`
    section, opt, para = "DESCRIPTION", None, []
    out.append(".SH DESCRIPTION")

    def flush():
        nonlocal opt, para
        if opt is not None:
            out.extend([".TP", ".B " + roff(opt), roff(" ".join(para).strip())])
        elif para:
            out.extend([".PP", roff(" ".join(para).strip())])
        opt, para = None, []

    prev = ""
    for line in body:
        blank_before, prev = not prev.strip(), line
        if not line.strip():
            flush()
            continue
        m = re.match(r"^([A-Z][A-Za-z ,()/-]{0,40}):$", line)
        if m and blank_before:           # a section heading: "Clustering options:"
            flush()
            section = m.group(1).upper()
            out.append(".SH " + roff(section))
            continue
        m = re.match(r"^ {2,8}(-\S.*?)(?:\s{2,}(.*))?$", line) or \
            (section == "COMMANDS" and re.match(r"^  ([a-z]+)(?:\s+(.*))?$", line))
        if m:
            flush()
            opt, para = m.group(1).strip(), [m.group(2) or ""]
            continue
        para.append(line.strip())
    flush()
    for i in range(len(out) - 1):       # a description left empty by a first section heading
        if out[i] == ".SH DESCRIPTION" and out[i + 1].startswith(".SH "):
            del out[i]
            break
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    mmnc, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    version = subprocess.run([mmnc, "--version"], capture_output=True, text=True).stdout.split()[-1]
    stamp = os.environ.get("SOURCE_DATE_EPOCH")
    utc = datetime.timezone.utc
    when = datetime.datetime.fromtimestamp(int(stamp), utc) if stamp else datetime.datetime.now(utc)
    date = when.strftime("%Y-%m-%d")
    top = help_of(mmnc, [])
    commands = []
    for line in top:
        m = re.match(r"^  ([a-z]+)\s+(.*)$", line)
        if m:
            commands.append((m.group(1), m.group(2)))
    if not commands:
        sys.exit("mkman.py: no commands in `%s --help`" % mmnc)
    pages = {"mmnc": page("mmnc", "probabilistic clustering by maximal matrix norm couplings", top, version, date)}
    see = ", ".join("\\fBmmnc\\-%s\\fR(1)" % c for c, _ in commands)
    pages["mmnc"] += ".SH SEE ALSO\n" + see + "\n"
    for cmd, summary in commands:
        pages["mmnc-" + cmd] = page("mmnc-" + cmd, summary, help_of(mmnc, [cmd]), version, date) + \
            ".SH SEE ALSO\n\\fBmmnc\\fR(1)\n"
    for name, text in pages.items():
        path = os.path.join(outdir, name + ".1")
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
