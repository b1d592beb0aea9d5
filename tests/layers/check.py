#!/usr/bin/env python3
"""check.py -- the library's architecture holds: no circle of includes or of
calls between the files of src/, and no mutable global.

    tests/layers/check.py LIBMMNC.a SOURCE_DIR [--graph]

Calls: the undefined symbols of each object of the static library (nm) matched
to the object that defines them.  Includes: the '#include "..."' lines of
src/**/*.[ch], resolved against the including file's folder and src/.  A
circle is a strongly connected set of two or more files; each is printed with
the edges inside it.  Folders: a file may call only files of its own folder or
of a folder before it in LAYERS (the order of src/README.md).  Globals: every object's symbols in .data, .bss or
COMMON (objdump -t), the OpenMP critical sections' locks excepted; constant
tables (.rodata, .data.rel.ro) and thread-local buffers (.tbss, .tdata) are
not state shared between calls.  --graph prints the folder-level edges.
Exits 0 when all hold, 1 otherwise, 77 (skip) without nm or objdump.
"""
import os
import re
import shutil
import subprocess
import sys


# src/'s folders, lowest first (src/README.md)
LAYERS = ["core", "linalg", "data", "io", "text", "cluster", "model", "mpi"]


def layer_breaks(graph, why):
    """Calls from a folder to a folder after it in LAYERS."""
    bad = 0
    for a in sorted(graph):
        fa = os.path.dirname(a)
        for b in sorted(graph[a]):
            fb = os.path.dirname(b)
            if fa == fb:
                continue
            if fa not in LAYERS or fb not in LAYERS:
                print("folder not in LAYERS: %s -> %s" % (a, b))
                bad += 1
            elif LAYERS.index(fb) > LAYERS.index(fa):
                print("layer broken: %s -> %s%s (%s comes after %s in LAYERS)" % (a, b, why.get((a, b), ""), fb, fa))
                bad += 1
    return bad


def sccs(graph):
    """Tarjan's strongly connected components of {node: set(nodes)}."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [c for c in out if len(c) > 1]


def circles(kind, graph, why):
    bad = 0
    for comp in sccs(graph):
        bad += 1
        print("%s circle: %s" % (kind, " <-> ".join(comp)))
        for a in comp:
            for b in sorted(graph[a] & set(comp)):
                print("    %s -> %s%s" % (a, b, why.get((a, b), "")))
    return bad


def call_graph(lib, src):
    out = subprocess.run(["nm", "-A", lib], capture_output=True, text=True, check=True).stdout
    defined, undefined = {}, {}
    for line in out.splitlines():
        m = re.match(r"^[^:]*:([^:]+):\s*(?:[0-9a-f]+)?\s+([A-Za-z])\s+(\S+)$", line)
        if not m:
            continue
        obj, t, sym = m.groups()
        obj = re.sub(r"\.o(bj)?$", "", obj)
        if t == "U":
            undefined.setdefault(obj, set()).add(sym)
        elif t.isupper():
            defined[sym] = obj
    # archive members are basenames: map them back to src/ paths
    paths = {}
    for root, _, files in os.walk(os.path.join(src, "src")):
        for f in files:
            if f.endswith(".c"):
                rel = os.path.relpath(os.path.join(root, f), os.path.join(src, "src"))
                if f in paths:
                    sys.exit("check.py: two sources named %s (%s, %s): archive members must differ" %
                             (f, paths[f], rel))
                paths[f] = rel
    graph, why = {}, {}
    for obj, syms in undefined.items():
        a = paths.get(obj, obj)
        graph.setdefault(a, set())
        for s in sorted(syms):
            if s in defined and defined[s] != obj:
                b = paths.get(defined[s], defined[s])
                graph[a].add(b)
                why.setdefault((a, b), " (%s)" % s)
    return graph, why, paths


def include_graph(src):
    base = os.path.join(src, "src")
    graph, why = {}, {}
    for root, _, files in os.walk(base):
        for f in files:
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(root, f)
            a = os.path.relpath(path, base)
            graph.setdefault(a, set())
            with open(path, encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                    if not m:
                        continue
                    for cand in (os.path.join(root, m.group(1)), os.path.join(base, m.group(1))):
                        if os.path.isfile(cand):
                            graph[a].add(os.path.relpath(cand, base))
                            break
    return graph, why


def globals_of(lib):
    out = subprocess.run(["objdump", "-t", lib], capture_output=True, text=True, check=True).stdout
    bad, member = [], "?"
    for line in out.splitlines():
        m = re.match(r"^(\S+\.o):\s+file format", line)
        if m:
            member = m.group(1)
            continue
        m = re.match(r"^[0-9a-f]+\s+([lgw! ]*)\s*([OF ]?)\s*(\S+)\s+[0-9a-f]+\s+(?:\.hidden\s+)?(\S+)$", line)
        if not m:
            continue
        flags, kind, section, name = m.groups()
        if kind != "O" and section != "*COM*":
            continue
        if section.startswith((".data.rel.ro", ".rodata", ".tbss", ".tdata")):
            continue
        if name.startswith(".gomp_critical_user_"):
            continue
        if section.startswith((".data", ".bss")) or section == "*COM*":
            bad.append("%s: %s (%s)" % (member, name, section))
    return bad


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    lib, src = sys.argv[1], sys.argv[2]
    if not shutil.which("nm") or not shutil.which("objdump"):
        print("SKIP: nm or objdump not found")
        return 77
    calls, cwhy, _ = call_graph(lib, src)
    incs, iwhy = include_graph(src)
    bad = circles("call", calls, cwhy) + circles("include", incs, iwhy) + layer_breaks(calls, cwhy)
    for g in globals_of(lib):
        print("mutable global: " + g)
        bad += 1
    if "--graph" in sys.argv:
        folders = {}
        for a, bs in calls.items():
            for b in bs:
                fa, fb = os.path.dirname(a) or ".", os.path.dirname(b) or "."
                if fa != fb:
                    folders.setdefault(fa, set()).add(fb)
        for fa in sorted(folders):
            print("%s -> %s" % (fa, ", ".join(sorted(folders[fa]))))
    nfiles = len(set(calls) | set(incs))
    print("%d files, %d call and %d include edges: %s" % (
        nfiles, sum(len(v) for v in calls.values()), sum(len(v) for v in incs.values()),
        "no circle, no call up the layers, no mutable global" if bad == 0 else "%d problems" % bad))
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
