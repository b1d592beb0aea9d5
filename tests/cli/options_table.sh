#!/usr/bin/env bash
#
# options_table.sh -- every option of `mmnc cluster` against every algorithm:
# an option runs (exit 0) where it applies and is a usage error (exit 2)
# naming the option and the algorithm where it does not.
#
#   tests/cli/options_table.sh /path/to/mmnc /path/to/source-dir
#
# Which option applies where is read from the help's table ("Which runs an
# option applies to", printed from cmd_cluster.c's APPLIES, the array that
# the check itself reads); an option not in it applies to every algorithm.
# The options themselves are this script's VAL table below (a value that
# makes each one do something on tests/cli/blocks.mtx); it must list exactly
# the options of `mmnc cluster --help`, so that a new option fails here
# until it is added.  A run that needs GLPK is skipped in a build without it.
#
# Prints one line per failure, then a summary; exits 0 when all pass.

set -u

if [ $# -ne 2 ]; then
    echo "usage: $0 /path/to/mmnc /path/to/source-dir" >&2
    exit 2
fi
MMNC=$1
SRC=$2
case $MMNC in /*) ;; *) MMNC=$PWD/$MMNC ;; esac
case $SRC in /*) ;; *) SRC=$PWD/$SRC ;; esac
FIX=$SRC/tests/cli
DATA=$FIX/blocks.mtx
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mmnc-opts.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

# Inputs some options need: keyed names, and the blocks as triplets with a
# header line (for --header, which a Matrix Market file refuses).
awk 'NR > 0 { print NR "|col" NR }' "$FIX/cols.names" >keyed.names
{
    echo "row col value"
    grep -v '^%' "$DATA" | sed 1d
} >blocks.tsv

ALGS="information nuclear frobenius"

# The options: the words that follow the option (its value and anything it
# needs to do something; "" for a flag).  -a/--algorithm is the table's other
# axis; -o/--output, -q/--quiet and -k/--clusters are in every run.
declare -A VAL=(
    [clusters]="2" [seed]="3" [restarts]="2" [init]="kmeans++" [select]="predictive"
    [select-tol]="0.1 --select predictive" [refine]="chosen" [size-prior]="3" [move-tol]="0.01"
    [merge-split]="2" [agreement]="0" [moves]="batch" [dmm-beta]="1" [col-clusters]="2" [paper]="" [max-iter]="5" [tol]="1e-4" [pz]="0.5,0.5"
    [exact-marginal]="" [lambda]="5" [step]="0.1" [threads]="1" [output]="out" [no-soft]=""
    [save-model]="m.mmnc" [names]="$FIX/cols.names" [names-keyed]="--names keyed.names"
    [row-names]="$FIX/rows.names" [top]="3" [truth]="$FIX/blocks.truth"
    [truth-var]="gnd --truth $FIX/blocks.truth" [quiet]="" [verbose]="" [help]=""
    [format]="mtx" [row-field]="1" [col-field]="2" [value-field]="3" [delim]="tab" [mat-var]="fea"
    [transpose]="" [map]="log1p" [normalize-rows]="" [low-memory]="" [extra-fields]="ignore"
    [header]="--format triplet" [no-header]="" [first-column]="auto" [labels]="labels.txt"
)
# Given clusters of two rows, for --labels.
printf '1 1\n5 2\n' >labels.txt

# Further words for one option under one algorithm, where the help's table
# names a condition ("nuclear: with --refine each or chosen").
declare -A WITH=([size-prior,nuclear]="--refine chosen")
# Options read from another input than blocks.mtx.
declare -A INPUT=([header]=blocks.tsv)

npass=0
nfail=0
nskip=0
fail() {
    nfail=$((nfail + 1))
    echo "FAIL  $*"
}

help=$("$MMNC" cluster --help) || { echo "mmnc cluster --help failed" >&2; exit 1; }

# The options of the help (its option lines, outside the table), against VAL.
in_help=$(printf '%s\n' "$help" | awk '/^Which runs an option applies to/ { t = 1 } t && /^$/ { t = 0; next } !t' |
    sed -nE 's/^ {2,6}(-[a-zA-Z], )?--([a-z][a-z0-9-]*).*/\2/p' | sort -u)
in_test=$(printf '%s\n' "${!VAL[@]}" algorithm | sort -u)
missing=$(comm -23 <(printf '%s\n' "$in_help") <(printf '%s\n' "$in_test") | tr '\n' ' ')
extra=$(comm -13 <(printf '%s\n' "$in_help") <(printf '%s\n' "$in_test") | tr '\n' ' ')
[ -z "$missing" ] || fail "options in mmnc cluster --help but not in this test's VAL: $missing"
[ -z "$extra" ] || fail "options in this test's VAL but not in mmnc cluster --help: $extra"
for a in $ALGS; do
    printf '%s\n' "$help" | grep -Eq -- "^  -a, --algorithm .*$a|^ {20,}.*$a" || fail "the help's -a does not name $a"
done

# The help's table: option -> the algorithms it applies to.
declare -A APPLIES
while read -r opt rest; do
    opt=${opt#--}
    if [[ $rest == "every algorithm"* ]]; then
        APPLIES[$opt]=$ALGS
        continue
    fi
    list=
    for a in $ALGS; do [[ $rest == *"-a $a"* ]] && list="$list $a"; done
    # an option of -a dmm and auto alone applies to none of $ALGS
    [ -n "$list" ] || [[ $rest == *"-a dmm"* ]] || fail "the help's table names no algorithm for --$opt: '$rest'"
    APPLIES[$opt]=$list
done < <(printf '%s\n' "$help" | awk '/^Which runs an option applies to/ { t = 1; next } t && /^$/ { exit } t && /^  --/')
[ ${#APPLIES[@]} -gt 0 ] || fail "no table of the runs each option applies to in mmnc cluster --help"
for opt in "${!APPLIES[@]}"; do
    [ -n "${VAL[$opt]+x}" ] || fail "the help's table names --$opt, not an option of this test"
done

# run OPT ALG: mmnc cluster with the option under the algorithm; sets RC.
run() {
    local opt=$1 a=$2 args
    rm -rf out.* m.mmnc
    # shellcheck disable=SC2206 # the values are words (no spaces inside them)
    args=(--"$opt" ${VAL[$opt]-} ${WITH[$opt,$a]:-})
    "$MMNC" cluster -q -k 2 -o out -a "$a" "${args[@]}" "${INPUT[$opt]:-$DATA}" >stdout 2>stderr
    RC=$?
}

for opt in $in_help; do
    [ "$opt" = algorithm ] && continue
    for a in $ALGS; do
        applies=${APPLIES[$opt]-$ALGS}
        run "$opt" "$a"
        if [[ " $applies " == *" $a "* ]]; then
            if [ "$RC" = 1 ] && grep -q "no GLPK" stderr; then
                nskip=$((nskip + 1))
            elif [ "$RC" != 0 ]; then
                fail "--$opt with -a $a: exit $RC, expected 0 (it applies): $(head -1 stderr)"
            else
                npass=$((npass + 1))
            fi
        elif [ "$RC" != 2 ]; then
            fail "--$opt with -a $a: exit $RC, expected 2 (it does not apply)"
        elif ! grep -q -- "--$opt applies to .*not to -a $a" stderr; then
            fail "--$opt with -a $a: the message does not name the option and the algorithm: $(head -1 stderr)"
        else
            npass=$((npass + 1))
        fi
    done
done

# The conditions of the table: each one unmet is a usage error naming it.
cond() {
    local pat=$1
    shift
    "$MMNC" cluster -q -k 2 -o out "$@" "$DATA" >stdout 2>stderr
    RC=$?
    if [ "$RC" != 2 ] || ! grep -q -- "$pat" stderr; then
        fail "cluster $*: exit $RC, expected 2 and /$pat/: $(head -1 stderr)"
    else
        npass=$((npass + 1))
    fi
}
cond "--refine applies to -a nuclear without --pz" -a nuclear --pz 0.5,0.5 --refine chosen
cond "--size-prior applies to -a nuclear only with --refine each or chosen" -a nuclear --size-prior 3
cond "--size-prior applies to -a nuclear only with --refine each or chosen" -a nuclear --refine none --size-prior 3
cond "--lambda applies to -a frobenius without --exact-marginal" -a frobenius --exact-marginal --lambda 5
cond "--step applies to -a frobenius without --exact-marginal" -a frobenius --exact-marginal --step 0.1
cond "--select-tol applies with --select predictive only" --select-tol 0.1
cond "--select-tol applies with --select predictive only" --select objective --select-tol 0.1
cond "--names-keyed applies to --names or --row-names" --names-keyed
cond "--truth-var applies to --truth" --truth-var gnd
cond "--size-prior does not apply with --col-clusters" -a information --col-clusters 2 --size-prior 3
cond "--merge-split does not apply with --col-clusters" -a information --col-clusters 2 --merge-split 2
cond "--select does not apply with --col-clusters" -a information --col-clusters 2 --select objective
cond "--init spectral does not apply with --col-clusters" -a information --col-clusters 2 --init spectral
cond "--col-clusters applies to -a nuclear without --pz or --refine" -a nuclear --col-clusters 2 --refine chosen
cond "--labels applies without --col-clusters" -a information --col-clusters 2 --labels labels.txt
cond "--labels applies to -a nuclear without --pz" -a nuclear --pz 0.5,0.5 --labels labels.txt
cond "--labels applies to -a frobenius without --exact-marginal" -a frobenius --exact-marginal --labels labels.txt
cond "--moves does not apply with --col-clusters" --col-clusters 2 --moves sequential
cond "--dmm-beta applies to -a auto (the default) or -a dmm, not to -a information" -a information --col-clusters 2 --dmm-beta 1
cond "--dmm-beta applies to -a auto (the default) or -a dmm, not to -a information" --size-prior 3 --dmm-beta 1

echo "$npass passed, $nfail failed, $nskip skipped (no GLPK)"
[ "$nfail" = 0 ]
