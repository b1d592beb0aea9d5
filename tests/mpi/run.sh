#!/usr/bin/env bash
#
# tests/mpi/run.sh MMNC MMNC_MPI [SOURCE_DIR] -- mmnc-mpi against the plain mmnc.
# MPIRUN names the launcher (default mpirun; mpirun.mpich for an MPICH build).
#
# The same seed must give the same clustering for 1, 2 and 4 ranks, for every
# solver path (the default's information moves, Algorithm 2 hard, refined and
# with a prescribed P_Z, Algorithm 1 with the penalty and with the exact
# marginal, k-means++ starts, text and binary input, the predictive
# selection, the batch moves), objectives equal to rounding, the same
# evaluation and k sweep.
# Where the information moves make the result (the default and its
# variants), every figure of the JSON is the same bits as one process's: the
# sums they start from are exact (mmnc_i_fix_add).
# And a job whose rank fails must end with a clear message, never hang.  Skipped
# (exit 77) when mmnc-mpi was not built or mpirun is missing.
set -u
MMNC=$1
MPI=$2
SRC=${3:-}
if [ ! -x "$MPI" ]; then echo "mpi: mmnc-mpi was not built (no MPI found by CMake): skipped"; exit 77; fi
MPIRUN=${MPIRUN:-mpirun} # e.g. MPIRUN=mpirun.mpich for an MPICH build
if ! command -v "$MPIRUN" >/dev/null; then echo "mpi: $MPIRUN not found: skipped"; exit 77; fi
case $MMNC in /*) ;; *) MMNC=$PWD/$MMNC ;; esac
case $MPI in /*) ;; *) MPI=$PWD/$MPI ;; esac
case $SRC in "" | /*) ;; *) SRC=$PWD/$SRC ;; esac # the cases below run in a temporary directory
. "$(dirname "$0")/launcher.sh" # RUN, and the environment of MPI tests
LIMIT=${MPI_TEST_TIMEOUT:-300}

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$MMNC" generate --rows 3000 --cols 800 -k 5 --draws 30 --seed 7 -q -o g.mtx || exit 1
"$MMNC" convert -q g.mtx g.bin || exit 1

obj() { sed -n 's/^  "objective": \(.*\),$/\1/p' "$1"; }
figures() { grep -v -e '^  "ranks":' -e '^  "seconds_' -e '^  "bytes_summed":' -e '^  "outputs":' "$1"; }
close() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9 * (a < 0 ? -a : a)) }'; }

# check_as NAME ARGS...: serial reference, then 1, 2, 4 ranks, the same
# labels and objectives equal to rounding (with EXACT=1, every figure of the
# JSON the same bits); check NAME ARGS...: the same for Algorithm 2 unrefined
check_as() {
    local name=$1 n
    shift
    "$MMNC" cluster -q -o "s_$name" "$@" >/dev/null 2>"s_$name.err" || { fail "$name: mmnc failed: $(cat "s_$name.err")"; return; }
    for n in 1 2 4; do
        if ! timeout "$LIMIT" "${RUN[@]}" -np $n "$MPI" cluster -q -t 1 -o "m${n}_$name" "$@" >/dev/null 2>"m${n}_$name.err"; then
            fail "$name: mmnc-mpi on $n ranks failed: $(head -3 "m${n}_$name.err")"
            continue
        fi
        cmp -s "s_$name.labels.tsv" "m${n}_$name.labels.tsv" || fail "$name: labels differ on $n ranks"
        close "$(obj "s_$name.json")" "$(obj "m${n}_$name.json")" ||
            fail "$name: objective $(obj "s_$name.json") vs $(obj "m${n}_$name.json") on $n ranks"
        if [ "${EXACT:-0}" = 1 ] && ! diff <(figures "s_$name.json") <(figures "m${n}_$name.json") >"d${n}_$name"; then
            fail "$name: the JSON's figures differ on $n ranks: $(head -4 "d${n}_$name" | tr '\n' ' ')"
        fi
    done
    echo "ok: $name (1, 2, 4 ranks)"
}
check() {
    local name=$1
    shift
    check_as "$name" -a nuclear --refine none "$@"
}

check nuclear g.bin -k 5 -r 4

# The default (the Dirichlet mixture, gathered: a small matrix, also on more
# ranks than starts) and the information moves (-a information, and Algorithm 2's
# refinement): the ranks replay one process's sequence of moves, so the same
# clustering too, on unequal planted clusters where moves happen until late
# sweeps.
"$MMNC" generate --rows 2000 --cols 600 -k 6 --draws 12 --skew 1 --seed 3 -q -o h.mtx || exit 1
EXACT=1 check_as default h.mtx -k 6 -r 4                          # the Dirichlet mixture: the pmf gathered
EXACT=1 check_as default_r3 h.mtx -k 6 -r 3                       # gathered, more ranks than starts
EXACT=1 check_as dmm_gathered h.mtx -k 6 -r 3 --moves sequential

# check_side NAME ARGS...: the Dirichlet mixture's ranks side by side
# (--moves batch, each rank sweeping its own rows): one rank is one process
# bit for bit, one process the same bits for 1, 2 and 3 threads, and 2 and 3
# ranks give the same labels and figures again on a second run; the
# objective printed after each sweep (-v) never falls within a run of sweeps
# (the acceptance rule: a sweep that lowered it is made again in turns).
check_side() {
    local name=$1 n t rep
    shift
    for t in 1 2 3; do
        "$MMNC" cluster -q -t $t -o "s${t}_$name" "$@" --moves batch >/dev/null 2>"s${t}_$name.err" ||
            { fail "$name: mmnc -t $t failed: $(cat "s${t}_$name.err")"; return; }
        cmp -s "s1_$name.labels.tsv" "s${t}_$name.labels.tsv" || fail "$name: labels differ on $t threads"
    done
    for n in 1 2 3; do
        for rep in a b; do
            if ! timeout "$LIMIT" "${RUN[@]}" -np $n "$MPI" cluster -v -t 1 -o "m$n${rep}_$name" "$@" --moves batch \
                >/dev/null 2>"m$n${rep}_$name.err"; then
                fail "$name: mmnc-mpi on $n ranks failed: $(grep -v sweep "m$n${rep}_$name.err" | head -3)"
                continue 2
            fi
        done
        cmp -s "m${n}a_$name.labels.tsv" "m${n}b_$name.labels.tsv" || fail "$name: labels differ between two runs on $n ranks"
        diff <(figures "m${n}a_$name.json") <(figures "m${n}b_$name.json") >/dev/null ||
            fail "$name: the JSON's figures differ between two runs on $n ranks"
        if [ $n = 1 ]; then
            cmp -s "s1_$name.labels.tsv" "m1a_$name.labels.tsv" || fail "$name: labels differ on 1 rank"
            diff <(figures "s1_$name.json") <(figures "m1a_$name.json") >/dev/null || fail "$name: figures differ on 1 rank"
        fi
        sed -n 's/.*start \([0-9]*\)\/[0-9]*, sweep \([0-9]*\), objective \([-0-9.e+]*\).*/\1 \2 \3/p' \
            "m${n}a_$name.err" >"mono${n}_$name"
        [ -s "mono${n}_$name" ] || fail "$name: no objective per sweep on $n ranks"
        awk '$1 == s && $2 > w && $3 + 0 < v + 0 { print; bad++ } { s = $1; w = $2; v = $3 } END { exit bad > 0 }' \
            "mono${n}_$name" >"fell${n}_$name" || fail "$name: the objective fell on $n ranks: $(head -2 "fell${n}_$name" | tr '\n' ' ')"
    done
    echo "ok: $name (1, 2, 3 threads; 1, 2, 3 ranks side by side)"
}
check_side side h.mtx -k 6 -r 3
"$MMNC" generate --rows 3000 --cols 400 -k 5 --draws 20 --ratio 8 --seed 5 -q -o e.mtx || exit 1
check_side side_planted e.mtx -k 5 -r 2 --truth e.truth
for n in 2 3; do # planted groups the ranks side by side find as one process does
    acc=$(sed -n 's/.*"evaluation": {"acc": \([0-9.]*\).*/\1/p' "m${n}a_side_planted.json")
    awk -v a="$acc" 'BEGIN { exit !(a >= 0.99) }' || fail "side_planted: ACC '$acc' on $n ranks, expected >= 0.99"
done
EXACT=1 check_as information h.mtx -k 6 -r 3 -a information
EXACT=1 check_as merge_split h.mtx -k 9 -r 3 -a information # more clusters than planted: merge-split trials kept (3 of 8)
# Batch moves: each rank decides its own rows against the same sums, the
# moves are applied in one order on every rank: the same bits as one process.
EXACT=1 check_as batch h.mtx -k 6 -r 3 -a information --moves batch
EXACT=1 check_as batch_split h.mtx -k 9 -r 3 -a information --moves batch
check_as refined h.mtx -k 6 -r 3 -a nuclear --init spectral --select predictive --refine chosen
# co-clustering gathers the pmf onto every rank and runs one process's code: the same row and
# column labels as mmnc
check_as cocluster h.mtx -k 6 -r 3 -a information --col-clusters 4
EXACT=1 check_as cocluster_dmm h.mtx -k 6 -r 3 --col-clusters 4 # the default on counts: the Dirichlet form
for c in cocluster cocluster_dmm; do
    for n in 1 2 4; do
        [ -e "m${n}_$c.col_labels.tsv" ] || continue
        cmp -s "s_$c.col_labels.tsv" "m${n}_$c.col_labels.tsv" || fail "$c: col_labels differ on $n ranks"
    done
done
# The guard's predictive check (collective: the leave-one-row-out score
# inside the starts): five planted groups of 40 six-token rows and four
# outlier rows with five words of their own, each seen once more in a random
# row (as tests/test_information.c's test_guard_loo); with seed 3 the starts
# take every branch: the prior refused by the norm, refused by the check,
# kept. A Park-Miller generator in exact arithmetic: the same file with any awk.
awk -v seed=3 '
    function rnd() { s = (s * 16807) % 2147483647; return s / 2147483647 }
    function below(n) { return int(rnd() * n) }
    BEGIN {
        s = seed > 0 ? seed : 1; n = 0; nx = 100
        for (y = 0; y < 200; y++)
            for (t = 0; t < 6; t++) {
                x = rnd() < 0.7 ? int(y / 40) * 20 + below(20) : below(100)
                c[y + 1 " " x + 1]++
            }
        for (o = 0; o < 4; o++) {
            y = 200 + o
            c[y + 1 " " below(100) + 1]++
            for (w = 0; w < 5; w++) {
                nx++
                c[y + 1 " " nx] += 3
                c[below(200) + 1 " " nx]++
            }
        }
        for (k in c) n++
        print "%%MatrixMarket matrix coordinate real general"
        print 204, nx, n
        for (k in c) print k, c[k]
    }
' >o.mtx || exit 1
EXACT=1 check_as guard_loo o.mtx -k 5 -r 7 -a information --agreement 0 # the guard alone
# The agreement rule (collective: the pairs' tables summed over the ranks):
# six equal groups of 60 six-token rows, where the starts' partitions with
# the prior agree less than their prior-free optima (tests/test_information.c's
# test_agreement_rule), and the run goes on as --size-prior 0.
awk -v seed=1 '
    function rnd() { s = (s * 16807) % 2147483647; return s / 2147483647 }
    function below(n) { return int(rnd() * n) }
    BEGIN {
        s = seed > 0 ? seed : 1; n = 0
        for (y = 0; y < 360; y++)
            for (t = 0; t < 6; t++) {
                x = rnd() < 0.6 ? int(y / 60) * 30 + below(30) : below(180)
                c[y + 1 " " x + 1]++
            }
        for (k in c) n++
        print "%%MatrixMarket matrix coordinate real general"
        print 360, 180, n
        for (k in c) print k, c[k]
    }
' >a.mtx || exit 1
EXACT=1 check_as agreement a.mtx -k 6 -r 4 -a information
grep -q '"size_prior_refused": "starts agree less with the prior"' s_agreement.json ||
    fail "agreement: the rule did not refuse the prior"
check_as information_each h.mtx -k 6 -r 2 -a nuclear --refine each --size-prior 0
check nuclear_mtx g.mtx -k 5 -r 3 --map log1p
check kmeanspp g.bin -k 5 -r 3 --init kmeans++
check spectral g.bin -k 5 -r 3 --init spectral # the truncated SVD and k-means, distributed
check_as frobenius g.bin -k 5 -r 2 -a frobenius
if "$MMNC" cluster -q -o probe g.bin -k 2 -r 1 -a nuclear --pz uniform >/dev/null 2>&1; then # GLPK in this build
    check_as prescribed g.bin -k 5 -r 2 -a nuclear --pz uniform
    check_as exact g.mtx -k 4 -r 2 -a frobenius --exact-marginal
fi
check soft g.bin -k 6 -r 2 --max-iter 3 # stopped early: the soft outputs
# Word co-occurrences of the shipped novel: Algorithm 2 tries partial steps
# there (the best half of the moves, chosen across ranks).
if [ -n "$SRC" ] && "$MMNC" cooc "$SRC/data/great-expectations.txt.gz" --window 5 --min-count 20 -q -o ge.mtx; then
    check partial ge.mtx -k 5 -r 2 --threads 1
fi
# The single-precision screen of Algorithm 2 at every size (MMNC_SCREEN=2;
# by default only for large |X|): its refill and partial-step checks are
# collective.
export MMNC_SCREEN=2
check screen g.bin -k 10 -r 3
[ -f ge.mtx ] && check screen_partial ge.mtx -k 5 -r 2 --threads 1
unset MMNC_SCREEN
for n in 2 4; do cmp -s s_soft.soft.tsv m${n}_soft.soft.tsv || fail "soft kernel differs on $n ranks"; done

# word vectors: the same words, the same vectors to the printed digits
if [ -f ge.mtx ]; then
    "$MMNC" embed -q ge.mtx -d 20 -o e1.txt --sv e1.sv --residuals
    for n in 2 3; do
        timeout "$LIMIT" "${RUN[@]}" -np $n "$MPI" embed -q -t 1 ge.mtx -d 20 -o e$n.txt --sv e$n.sv --residuals 2>e$n.err ||
            fail "embed on $n ranks: $(head -3 e$n.err)"
        paste -d' ' e1.txt e$n.txt | awk 'NR > 1 { n = NF / 2; if ($1 != $(n + 1)) bad = "word " NR;
            for (i = 2; i <= n; i++) { d = $i - $(n + i); if (d < 0) d = -d; if (d > 1e-6) bad = "row " NR } }
            END { if (bad) { print bad; exit 1 } }' || fail "embed on $n ranks: vectors differ"
        paste e1.sv e$n.sv | awk '{ d = $1 - $3; if (d < 0) d = -d; if (d > 1e-12) exit 1
            r = $2 - $4; if (r < 0) r = -r; if (r > 1e-2 * $2 + 1e-12) exit 1 }' ||
            fail "embed on $n ranks: singular values or their residuals differ"
    done
    echo "ok: embed (2, 3 ranks)"
fi

# evaluation against the planted truth, on rank 0 from all ranks' labels
"$MMNC" cluster -q -o se g.bin -k 5 -r 2 -a nuclear --refine none --truth g.truth >/dev/null 2>&1
timeout "$LIMIT" "${RUN[@]}" -np 3 "$MPI" cluster -q -o me g.bin -k 5 -r 2 -a nuclear --refine none --truth g.truth >/dev/null 2>me.err ||
    fail "evaluation on 3 ranks: $(head -3 me.err)"
a=$(grep -o '"acc": [0-9.e-]*' se.json)
b=$(grep -o '"acc": [0-9.e-]*' me.json)
[ -n "$a" ] && [ "$a" = "$b" ] || fail "evaluation: '$a' vs '$b'"

# the k sweep
"$MMNC" sweep -q -o ss g.bin --kmin 2 --kmax 5 -r 2 --plot none >/dev/null 2>&1
timeout "$LIMIT" "${RUN[@]}" -np 2 "$MPI" sweep -q -o ms g.bin --kmin 2 --kmax 5 -r 2 --plot none >/dev/null 2>ms.err ||
    fail "sweep on 2 ranks: $(head -3 ms.err)"
[ "$(cut -f1,2 ss.sweep.tsv | cut -c1-14)" = "$(cut -f1,2 ms.sweep.tsv | cut -c1-14)" ] || fail "sweep tables differ"
echo "ok: evaluation and sweep"

# --save-model on 2 ranks: the model of one process, to rounding (P_{Z,X} is
# summed over the ranks), so predict gives the same labels
"$MMNC" cluster -q -o sm g.bin -k 5 -r 2 -a nuclear --refine none --save-model sm.mmnc >/dev/null 2>&1
timeout "$LIMIT" "${RUN[@]}" -np 2 "$MPI" cluster -q -t 1 -o mm g.bin -k 5 -r 2 -a nuclear --refine none --save-model mm.mmnc \
    >/dev/null 2>mm.err || fail "save-model on 2 ranks: $(head -3 mm.err)"
"$MMNC" predict -q -o ps sm.mmnc g.bin >/dev/null 2>&1
"$MMNC" predict -q -o pm mm.mmnc g.bin >/dev/null 2>pm.err || fail "predict with the 2-rank model: $(head -3 pm.err)"
cmp -s ps.labels.tsv pm.labels.tsv || fail "save-model: predicted labels differ between the 1- and 2-rank models"
# the Dirichlet mixture's model: its clusters' rows counted over all ranks
"$MMNC" cluster -q -o sd g.bin -k 5 -r 2 -a dmm --save-model sd.mmnc >/dev/null 2>&1
timeout "$LIMIT" "${RUN[@]}" -np 2 "$MPI" cluster -q -t 1 -o md g.bin -k 5 -r 2 -a dmm --save-model md.mmnc \
    >/dev/null 2>md.err || fail "save-model (dmm) on 2 ranks: $(head -3 md.err)"
"$MMNC" info --json sd.mmnc | grep -o '"cluster_rows": \[[0-9, ]*\]' >sd.rows
"$MMNC" info --json md.mmnc | grep -o '"cluster_rows": \[[0-9, ]*\]' >md.rows
[ -s sd.rows ] && cmp -s sd.rows md.rows || fail "save-model (dmm): the clusters' rows differ between 1 and 2 ranks"
"$MMNC" predict -q -o pds sd.mmnc g.bin >/dev/null 2>&1
"$MMNC" predict -q -o pdm md.mmnc g.bin >/dev/null 2>&1
cmp -s pds.labels.tsv pdm.labels.tsv || fail "save-model (dmm): predicted labels differ between 1 and 2 ranks"
echo "ok: save-model"

# --names-keyed: a row the file does not name, whose id the file gives another
# row as a name, is written ID#2; the warning counts such rows over every
# rank and names the first, once, as one process does (kn: rows 2990 and
# 2995, both on the last rank; kn2: rows 5 and 2990, on the first and last).
before=$fails
printf '1|2990\n2|2995\n' >kn.names
printf '1|5\n2|2990\n' >kn2.names
for f in kn kn2; do
    "$MMNC" cluster -q -t 1 -o "s_$f" g.bin -k 5 -r 1 -a nuclear --refine none --names-keyed --row-names $f.names \
        >/dev/null 2>"s_$f.err" || { fail "$f: mmnc failed: $(head -3 "s_$f.err")"; continue; }
    grep 'warning' "s_$f.err" >"s_$f.warn"
    [ "$(wc -l <"s_$f.warn")" = 1 ] || fail "$f: mmnc gave $(wc -l <"s_$f.warn") warnings, expected 1"
    for n in 2 3; do
        if ! timeout "$LIMIT" "${RUN[@]}" -np $n "$MPI" cluster -q -t 1 -o "m${n}_$f" g.bin -k 5 -r 1 -a nuclear \
            --refine none --names-keyed --row-names $f.names >/dev/null 2>"m${n}_$f.err"; then
            fail "$f: mmnc-mpi on $n ranks failed: $(head -3 "m${n}_$f.err")"
            continue
        fi
        grep 'warning' "m${n}_$f.err" >"m${n}_$f.warn"
        cmp -s "s_$f.warn" "m${n}_$f.warn" ||
            fail "$f: the warning on $n ranks is '$(cat "m${n}_$f.warn")', expected '$(cat "s_$f.warn")'"
        cmp -s "s_$f.labels.tsv" "m${n}_$f.labels.tsv" || fail "$f: labels differ on $n ranks"
    done
done
[ $fails = "$before" ] && echo "ok: names-keyed warning (2, 3 ranks)"

# --names-keyed: ID#2, ID#3, ... is the first that is neither a name nor the
# id of any row of the job, also of rows on other ranks (kd1: rows 1..8 and
# 4#2, '1|4' names id 1 '4': row 4 is 4#3, with 4#2 on a later rank; kd2:
# rows 4#2..4#65 on every rank, around rows 1..8, and '2|4#66' a name: row 4
# is 4#67, past the first 64 tried, and row 7 is 7#2).  The ids of
# labels.tsv are distinct and those of one process.
before=$fails
ktrip() { # triplets "ROW cC VALUE" of the rows named, 6 columns each
    local r c
    for r in "$@"; do
        for c in 1 2 3 4 5 6; do echo "$r c$c $(((${#r} * 7 + c * 3 + ${r:0:1}) % 5 + 1))"; done
    done
}
ktrip 1 2 3 4 5 6 7 8 '4#2' >kd1.tsv
ktrip $(printf '4#%d ' $(seq 33 65)) 1 2 3 4 5 6 7 8 $(printf '4#%d ' $(seq 2 32)) >kd2.tsv
printf '1|4\n' >kd1.names
printf '1|4\n2|4#66\n3|7\n' >kd2.names
for f in kd1 kd2; do
    kargs=(cluster -q -t 1 $f.tsv --format triplet -k 2 -r 1 -a nuclear --refine none --names-keyed
        --row-names $f.names)
    "$MMNC" "${kargs[@]}" -o "s_$f" >/dev/null 2>"s_$f.err" ||
        { fail "$f: mmnc failed: $(head -3 "s_$f.err")"; continue; }
    case $f in
    kd1) want='4#3' ;;
    kd2) want='4#67 7#2' ;;
    esac
    for w in $want; do grep -q "^$w	" "s_$f.labels.tsv" || fail "$f: mmnc did not write row id $w"; done
    grep 'warning' "s_$f.err" >"s_$f.warn"
    for n in 2 3; do
        if ! timeout "$LIMIT" "${RUN[@]}" -np $n "$MPI" "${kargs[@]}" -o "m${n}_$f" >/dev/null 2>"m${n}_$f.err"; then
            fail "$f: mmnc-mpi on $n ranks failed: $(head -3 "m${n}_$f.err")"
            continue
        fi
        dup=$(cut -f1 "m${n}_$f.labels.tsv" | sort | uniq -d | tr '\n' ' ')
        [ -z "$dup" ] || fail "$f: ids written twice on $n ranks: $dup"
        cmp -s "s_$f.labels.tsv" "m${n}_$f.labels.tsv" || fail "$f: labels differ on $n ranks"
        grep 'warning' "m${n}_$f.err" >"m${n}_$f.warn"
        cmp -s "s_$f.warn" "m${n}_$f.warn" ||
            fail "$f: the warning on $n ranks is '$(cat "m${n}_$f.warn")', expected '$(cat "s_$f.warn")'"
    done
done
[ $fails = "$before" ] && echo "ok: names-keyed ids distinct over the ranks (2, 3 ranks)"

# The data's own row ids (triplet keys: numbers that are not the rows' places
# as read): --truth and --labels name rows by them on any number of ranks, as
# in one process; a truth of one label per line is refused there as here.
before=$fails
awk '!/^%/ && ++n > 1 { print ($1 * 7) % 3000 + 1, $2, $3 }' g.mtx >keyed.txt
awk '{ print (NR * 7) % 3000 + 1, $1 }' g.truth >keyed.truth
awk 'NR % 47 == 0 { print (NR * 7) % 3000 + 1, $1 }' g.truth >keyed.given
"$MMNC" cluster -q -t 1 -o s_keyed keyed.txt -k 5 -r 1 -a nuclear --refine none --truth keyed.truth \
    --labels keyed.given >/dev/null 2>s_keyed.err || fail "keyed ids: mmnc failed: $(head -3 s_keyed.err)"
for n in 2 3; do
    if ! timeout "$LIMIT" "${RUN[@]}" -np $n "$MPI" cluster -q -t 1 -o "m${n}_keyed" keyed.txt -k 5 -r 1 -a nuclear \
        --refine none --truth keyed.truth --labels keyed.given >/dev/null 2>"m${n}_keyed.err"; then
        fail "keyed ids: mmnc-mpi on $n ranks failed: $(head -3 "m${n}_keyed.err")"
        continue
    fi
    cmp -s s_keyed.labels.tsv "m${n}_keyed.labels.tsv" || fail "keyed ids: labels differ on $n ranks"
    [ "$(grep '"evaluation"' s_keyed.json)" = "$(grep '"evaluation"' "m${n}_keyed.json")" ] ||
        fail "keyed ids: the evaluation on $n ranks is $(grep '"evaluation"' "m${n}_keyed.json")"
    timeout "$LIMIT" "${RUN[@]}" -np $n "$MPI" cluster -q -t 1 -o "p${n}_keyed" keyed.txt -k 5 -r 1 -a nuclear \
        --refine none --truth g.truth >/dev/null 2>"p${n}_keyed.err" && fail "keyed ids: a truth by place taken on $n ranks"
    grep -q "one label per line gives the rows by their place" "p${n}_keyed.err" ||
        fail "keyed ids: no clear message on $n ranks: $(head -3 "p${n}_keyed.err")"
done
awk -F'"acc": ' 'NF > 1 { exit !($2 + 0 > 0.9) }' s_keyed.json ||
    fail "keyed ids: mmnc's ACC is not above 0.9: $(grep '"evaluation"' s_keyed.json)"
[ $fails = "$before" ] && echo "ok: the data's own row ids in --truth and --labels (2, 3 ranks)"

# ---- failures: a clear message and a non-zero exit, never a hang ----
expect_fail() { # NAME PATTERN COMMAND...
    local name=$1 pat=$2 rc
    shift 2
    timeout "$LIMIT" "$@" >/dev/null 2>"$name.err"
    rc=$?
    if [ $rc = 124 ]; then fail "$name: the job hung"; return; fi
    [ $rc != 0 ] || fail "$name: exit status 0"
    grep -q -- "$pat" "$name.err" || fail "$name: no '$pat' in: $(head -5 "$name.err")"
    ls "$name".* 2>/dev/null | grep -qv "\.err$" && fail "$name: output files left behind"
    echo "ok: $name fails cleanly"
}
head -c 100000 g.bin >trunc.bin
expect_fail truncated "truncated" "${RUN[@]}" -np 2 "$MPI" cluster -q -o truncated trunc.bin -k 3
# a corrupt byte near the end of the values: in the last rank's part
cp g.bin damaged.bin
size=$(stat -c %s damaged.bin)
printf '\x7f' | dd of=damaged.bin bs=1 seek=$((size - 100)) conv=notrunc status=none
expect_fail corrupt "checksum mismatch" "${RUN[@]}" -np 4 "$MPI" cluster -q -o corrupt damaged.bin -k 3
expect_fail missing "cannot open" "${RUN[@]}" -np 2 "$MPI" cluster -q -o missing nothere.bin -k 3
expect_fail batch_fractional "needs whole counts" "${RUN[@]}" -np 2 "$MPI" cluster -q -o batch_fractional g.bin -k 3 \
    -a dmm --moves batch --map log1p
expect_fail stdin "standard input reaches rank 0 only" "${RUN[@]}" -np 2 "$MPI" cluster -q -o stdin - -k 3 </dev/null
# Ranks that do not read the same input: rank r runs in a directory of its
# own (one application context a rank, -wdir), where the file is another
# one, or missing.  The ranks agree on what they read before any
# collective, so the job must end by itself within seconds, exit non-zero,
# name the file on every rank (whichever rank failed: the job may end
# before one rank's lines reach the terminal), and write nothing: never a
# hang, never a clustering of rows from two files.
STOP=60 # seconds; these jobs take about one
ranks_fail() { # NAME PATTERN FILE DIR... (rank r in DIR number r)
    local name=$1 pat=$2 file=$3 d r rc n=0 apps=() before=$fails
    shift 3
    for d in "$@"; do
        apps+=(: -np 1 -wdir "$W/$d" "$MPI" cluster -q -t 1 -o "$W/$name" "$file" -k 3)
        n=$((n + 1))
    done
    timeout "$STOP" "${RUN[@]}" "${apps[@]:1}" >/dev/null 2>"$name.err"
    rc=$?
    if [ $rc = 124 ]; then fail "$name: the job hung (still running after $STOP s)"; return; fi
    [ $rc != 0 ] || fail "$name: exit status 0"
    grep -q -- "$pat" "$name.err" || fail "$name: no '$pat' in: $(grep mmnc "$name.err" | head -3)"
    for ((r = 0; r < n; r++)); do
        grep -q -- "\[rank $r of $n\]: .*$file" "$name.err" || fail "$name: rank $r does not name $file"
    done
    [ -z "$(find . -name "$name.*" ! -name "$name.err")" ] || fail "$name: output files left behind"
    [ $fails = "$before" ] && echo "ok: $name ($n ranks) fails cleanly"
}
mkdir -p r600 r700 rval none mixed
"$MMNC" generate --rows 600 --cols 200 -k 3 --draws 10 --seed 1 -q -o r600/in.mtx || exit 1
"$MMNC" generate --rows 700 --cols 200 -k 3 --draws 10 --seed 2 -q -o r700/in.mtx || exit 1
for d in r600 r700; do
    "$MMNC" convert -q $d/in.mtx $d/in.bin || exit 1
    awk '/^%/ { next } !h { h = 1; next } { print "r" $1, "c" $2, $3 }' $d/in.mtx >$d/in.txt
done
# the same shape and ids, one value changed: only the checksum tells
awk '{ if (NR == 100) $3 += 1; print }' r600/in.txt >rval/in.txt
cp r700/in.mtx mixed/in.bin # Matrix Market under the binary's name
ranks_fail bin_missing_2 "in.bin: cannot open" in.bin r600 none
ranks_fail bin_missing_3 "in.bin: cannot open" in.bin r600 r600 none
ranks_fail bin_differ_2 "in.bin: rank 1 read a binary matrix of 700 rows.* but rank 0 read a binary matrix of 600 rows" \
    in.bin r600 r700
ranks_fail bin_differ_3 "in.bin: rank 2 read a binary matrix of 700 rows.* every rank must see the same input" \
    in.bin r600 r600 r700
ranks_fail bin_text_3 "in.bin: rank 1 read 700 rows.* but rank 0 read a binary matrix of 600 rows" in.bin r600 mixed r600
ranks_fail mtx_missing_2 "in.mtx: cannot open" in.mtx r600 none
ranks_fail mtx_missing_3 "in.mtx: cannot open" in.mtx none r600 r600
ranks_fail mtx_differ_2 "in.mtx: rank 1 read 700 rows.* but rank 0 read 600 rows" in.mtx r600 r700
ranks_fail mtx_differ_3 "in.mtx: rank 1 read 600 rows.* but rank 0 read 700 rows" in.mtx r700 r600 r700
ranks_fail txt_missing_2 "in.txt: cannot open" in.txt none r600
ranks_fail txt_missing_3 "in.txt: cannot open" in.txt r600 none r600
ranks_fail txt_differ_2 "in.txt: rank 1 read 700 rows.* but rank 0 read 600 rows" in.txt r600 r700
ranks_fail txt_value_3 "in.txt: rank 2 read \(600 rows, 200 columns, [0-9]* nonzeros\) (.*) but rank 0 read \1" \
    in.txt r600 r600 rval

# One rank runs out of memory in the middle of the solver while the other
# waits in a collective (k = 5000 needs about 3 GB per rank; rank 1 gets 2 GB
# of address space, enough for Open MPI or MPICH itself): the job must end.
# (Not under AddressSanitizer, whose shadow memory needs terabytes of address space.)
if grep -qa "__asan_init" "$MPI"; then
    echo "skipped: oom (the sanitizer build cannot start under ulimit -v)"
else
    "$MMNC" generate --rows 20000 --cols 5000 -k 5 --draws 10 --seed 3 -q -o mid.mtx && "$MMNC" convert -q mid.mtx mid.bin
    expect_fail oom "rank 1 of 2\]: out of memory" "${RUN[@]}" -np 1 "$MPI" cluster -q -o oom mid.bin -a nuclear -k 5000 -r 1 \
        : -np 1 bash -c "ulimit -v 2000000; exec $MPI cluster -q -o oom mid.bin -a nuclear -k 5000 -r 1"
fi

if [ $fails -gt 0 ]; then echo "mpi: $fails failure(s)"; exit 1; fi
echo "mpi: all passed"
