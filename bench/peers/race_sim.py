#!/usr/bin/python3
"""Would racing the default's starts keep its result?  (bench/NOTES.md, "Racing the starts".)

Racing: every start runs S sweeps of its first phase (I(X;Z) alone), the half with the higher
I(X;Z) then goes on (both phases, the guard), the other half stops; the best J of the survivors
is kept.  This simulates it from one run of the default on each development setting, by a build
that traces its sweeps (`cmake -S . -B build-trace -DCMAKE_BUILD_TYPE=Release
-DCMAKE_C_FLAGS=-DMMNC_TRACE_SWEEPS`): each start's I(X;Z) after S sweeps, its final J (the JSON's
restart_objectives), and so the start racing would have kept.  It prints, for each S, the
relative loss of the kept J against the default's (0 where the same start is kept) and the
share of the starts' sweeps that racing would have saved.  The rule it was judged by, stated
before it was run: the smallest S of 2, 3, 5 whose loss is at most 1e-3 on every setting (the
move tolerance's rule, bench/README.md); none, no racing.  Labels are not read.

Usage: race_sim.py MMNC_TRACE_BUILD [--data-dir DIR] [--sweeps 2,3,5]
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True


def settings(data):
    r = os.path.join(data, "reuters21578", "Reuters21578.mat")
    out = [("reuters k=%d" % k, [r, "-k", str(k)]) for k in (2, 3, 4, 6, 8, 10, 65)]
    out.append(("classic3 k=3", [os.path.join(data, "classic3", "classic3.mat"), "--mat-var", "A",
                                 "-k", "3"]))
    out.append(("reviews k=5", [os.path.join(data, "reviews", "reviews.mat"), "--mat-var", "dtm",
                                "-k", "5"]))
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mmnc")
    ap.add_argument("--data-dir", default=os.path.join(here, "..", "..", "..", "shared", "data"))
    ap.add_argument("--sweeps", default="2,3,5")
    a = ap.parse_args()
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in settings(a.data_dir):
            if not os.path.exists(args[0]):
                print("race_sim: %s: %s is absent (research data, never shipped): skipped"
                      % (name, args[0]), file=sys.stderr)
                continue
            out = os.path.join(tmp, "run")
            p = subprocess.run([a.mmnc, "cluster"] + args + ["-q", "--no-soft", "-o", out],
                               capture_output=True, text=True)
            if p.returncode != 0:
                print("race_sim: %s: mmnc failed: %s" % (name, p.stderr.strip()), file=sys.stderr)
                return 1
            trace = [t.split() for t in p.stderr.splitlines() if t.startswith("sweep start ")]
            if not trace:
                print("race_sim: %s prints no sweeps: build it with -DMMNC_TRACE_SWEEPS" % a.mmnc,
                      file=sys.stderr)
                return 1
            with open(out + ".json") as f:
                J = json.load(f)["restart_objectives"]
            runs.append((name, J, trace))
    if not runs:
        print("race_sim: no development corpus found under %s" % a.data_dir, file=sys.stderr)
        return 0
    for s in [int(v) for v in a.sweeps.split(",")]:
        worst, total, saved, cells = 0.0, 0, 0, []
        for name, J, trace in runs:
            early, count = {}, collections.Counter()
            for t in trace:                       # sweep start R polish P phase F it I moved M objective O
                r, polish, phase, it, obj = int(t[2]), int(t[4]), int(t[6]), int(t[8]), float(t[12])
                if polish != -1:
                    continue
                count[r] += 1
                if phase == 0 and it < s:
                    early[r] = obj                # I(X;Z) after min(S, the phase's sweeps) sweeps
            starts = range(len(J))
            survive = sorted(starts, key=lambda r: -early[r])[:(len(J) + 1) // 2]
            kept, best = max(survive, key=lambda r: J[r]), max(starts, key=lambda r: J[r])
            loss = (J[best] - J[kept]) / abs(J[best])
            worst = max(worst, loss)
            total += sum(count.values())
            saved += sum(max(0, count[r] - s) for r in starts if r not in survive)
            cells.append("%s %s" % (name, "same" if kept == best else "%.1e" % loss))
        print("S = %d: largest loss %.2e (%s); %d of %d sweeps saved (%.0f%%)"
              % (s, worst, "passes" if worst <= 1e-3 else "fails", saved, total,
                 100.0 * saved / total))
        print("  " + "; ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
