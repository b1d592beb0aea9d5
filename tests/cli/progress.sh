#!/usr/bin/env bash
#
# progress.sh -- what `mmnc cluster` says while it runs (issue 41).
#
#   tests/cli/progress.sh /path/to/mmnc /path/to/source-dir
#
# Off a terminal (stderr to a file): one line per start as it ends, with its
# objective, sweeps, whether it converged or stopped at the sweep cap, and
# its seconds; a line per phase after the starts; no line per iteration.  A
# start at the cap is said plainly on stderr, in the summary and in the JSON.
# On a terminal (script(1) from util-linux, skipped without it): one status
# line redrawn with \r and cleared at the end, no per-start lines.  -q: no
# progress at all.
#
# Prints one line per case, then "N passed, N failed"; exits 0 when all pass.

set -u
MMNC=${1:?usage: progress.sh /path/to/mmnc /path/to/source-dir}
SRC=${2:?usage: progress.sh /path/to/mmnc /path/to/source-dir}
case $MMNC in /*) ;; *) MMNC=$PWD/$MMNC ;; esac
case $SRC in /*) ;; *) SRC=$PWD/$SRC ;; esac
BLOCKS=$SRC/tests/cli/blocks.mtx

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mmnc-progress.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
export OMP_NUM_THREADS=2

pass=0 failed=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
no() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
# check NAME COMMAND...: the case passes when the command succeeds.
check() { local name=$1; shift; if "$@"; then ok "$name"; else no "$name" "$*"; fi; }
# lacks PATTERN FILE: no line of FILE matches the extended regular expression.
lacks() { ! grep -aEq -- "$1" "$2"; }

"$MMNC" generate --rows 600 --cols 200 -k 4 --draws 30 --ratio 5 -q -o g.mtx >/dev/null 2>&1 ||
    { echo "mmnc generate failed"; exit 1; }

# ---- off a terminal ---------------------------------------------------------
"$MMNC" cluster -a information -k 4 -r 5 -o a g.mtx >a.out 2>a.err
check "cluster to a file: exit 0" [ $? -eq 0 ]
start_re='^\[ *[0-9.]+s\] start [1-5]/5: objective -?[0-9.]+, [0-9]+ sweeps?, (converged|at the sweep cap \([0-9]+\) without converging), [0-9.]+ s$'
check "one line per start, with its fields" [ "$(grep -Ec "$start_re" a.err)" -eq 5 ]
for i in 1 2 3 4 5; do
    check "start $i/5 reported once" [ "$(grep -c "\] start $i/5: " a.err)" -eq 1 ]
done
check "no line per iteration" lacks '(sweep|iteration) [0-9]+[^0-9]' a.err
check "no carriage return or escape off a terminal" lacks "$(printf '[\r\033]')" a.err
check "every stderr line is a progress line" lacks '^[^[]' a.err
check "the phases after the starts have a line" grep -Eq '^\[ *[0-9.]+s\] agreement rule$' a.err
check "JSON: restart_converged per start" python3 -c '
import json, sys
d = json.load(open("a.json"))
sys.exit(0 if len(d["restart_converged"]) == 5 and d["restarts_at_cap"] == d["restart_converged"].count(False)
         and d["max_iter"] == 100 else 1)'

# ---- -v: a line per iteration besides --------------------------------------------
"$MMNC" cluster -k 4 -r 2 -v -o v g.mtx >v.out 2>v.err
check "-v: exit 0" [ $? -eq 0 ]
check "-v: a line per sweep" grep -Eq '^\[ *[0-9.]+s\] start 1/2, sweep 2, objective -?[0-9.]+$' v.err
check "-v: the line per start too" [ "$(grep -Ec '^\[ *[0-9.]+s\] start [12]/2: objective ' v.err)" -eq 2 ]
"$MMNC" cluster -k 4 -r 2 -q -o w g.mtx
check "-v: same labels as without" cmp -s v.labels.tsv w.labels.tsv

# ---- a start at its sweep cap ----------------------------------------------------
"$MMNC" cluster -k 4 -r 3 --max-iter 1 -o c g.mtx >c.out 2>c.err
check "--max-iter 1: exit 0" [ $? -eq 0 ]
check "--max-iter 1: each start at the cap on stderr" \
    [ "$(grep -Ec '^\[ *[0-9.]+s\] start [1-3]/3: .*, 1 sweep, at the sweep cap \(1\) without converging, ' c.err)" -eq 3 ]
check "--max-iter 1: the summary says it plainly" \
    grep -q '^3 of 3 starts stopped at the 1-sweep cap without converging; raise --max-iter$' c.out
check "--max-iter 1: the kept start too" grep -q 'stopped at the cap without converging' c.out
check "--max-iter 1: JSON converged false, every start at the cap" python3 -c '
import json, sys
d = json.load(open("c.json"))
sys.exit(0 if d["converged"] is False and d["restart_converged"] == [False] * 3 and d["restarts_at_cap"] == 3
         and d["max_iter"] == 1 else 1)'
"$MMNC" cluster -k 2 -o b "$BLOCKS" >b.out 2>b.err
check "converged starts: no cap line in the summary" lacks 'cap' b.out
"$MMNC" cluster -a nuclear -k 2 -r 2 --max-iter 1 -o n "$BLOCKS" >n.out 2>n.err
check "nuclear: iterations, not sweeps" grep -Eq '^\[ *[0-9.]+s\] start 1/2: objective [0-9.]+, 1 iteration, ' n.err

# ---- -q: silent -------------------------------------------------------------------
"$MMNC" cluster -q -k 4 -r 3 --max-iter 1 -o q g.mtx >q.out 2>q.err
check "-q: nothing on stderr" [ ! -s q.err ]
check "-q: nothing on stdout" [ ! -s q.out ]

# ---- on a terminal ------------------------------------------------------------
if ! command -v script >/dev/null 2>&1 || ! script -qec true /dev/null >/dev/null 2>&1; then
    echo "skip on a terminal: no script(1) from util-linux"
else
    script -qec "'$MMNC' cluster -k 4 -r 5 --init spectral -o t g.mtx >t.out" /dev/null >t.tty 2>&1
    check "terminal: exit 0" [ -s t.json ]
    check "terminal: the status line is redrawn with \\r" [ "$(tr -cd '\r' <t.tty | wc -c)" -ge 2 ]
    check "terminal: the status names the starts done" grep -aq ' starts done' t.tty
    check "terminal: the phases appear" grep -aq 'spectral embedding' t.tty
    check "terminal: the line is cleared at the end" \
        python3 -c 'import sys; sys.exit(0 if open("t.tty", "rb").read().endswith(b"\r\x1b[K") else 1)'
    check "terminal: no per-start lines" lacks 'start [0-9]+/5: objective' t.tty
    check "terminal: no line feed in the progress" [ "$(tr -cd '\n' <t.tty | wc -c)" -eq 0 ]
fi

echo "$pass passed, $failed failed"
[ "$failed" -eq 0 ]
