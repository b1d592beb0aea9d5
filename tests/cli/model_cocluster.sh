#!/usr/bin/env bash
#
# model_cocluster.sh -- models of co-clustering runs (issue 43): `mmnc cluster
# --col-clusters L --save-model` keeps the columns' clusters, and `mmnc predict`
# writes PREFIX.col_labels.tsv: a training column gets its trained cluster, an
# unknown column the cluster the column rule gives from the new rows' clusters
# (docs/predict.md), an unknown column without mass on a labelled row -1; the
# Dirichlet mixture's co-clustering model gives its training rows back.
#
#   tests/cli/model_cocluster.sh /path/to/mmnc /path/to/repo
#
# Prints one line per check, then "N passed, N failed"; exits 0 when all pass.

set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 /path/to/mmnc /path/to/repo" >&2
    exit 2
fi
MMNC=$1
case $MMNC in /*) ;; *) MMNC=$PWD/$MMNC ;; esac
FIX=$2/tests/cli
case $FIX in /*) ;; *) FIX=$PWD/$FIX ;; esac
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mmnc-model-cocl.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
pass=0 fail=0
check() { # check "what" command...
    local what=$1
    shift
    if "$@"; then echo "ok    $what"; pass=$((pass + 1)); else echo "FAIL  $what"; fail=$((fail + 1)); fi
}

"$MMNC" cluster -q -a information -k 2 --col-clusters 2 -o b --save-model b.mmnc "$FIX/blocks.mtx" || exit 1
# the training data again, with column 7 a copy of column 1, column 8 a copy of
# column 5 (ids the model does not know) and column 9 without any value
awk 'NR > 3 && NF == 3 { print; if ($2 == 1) print $1, 7, $3; if ($2 == 5) print $1, 8, $3 }' "$FIX/blocks.mtx" > entries
{
    echo "%%MatrixMarket matrix coordinate integer general"
    echo "8 9 $(wc -l < entries)"
    cat entries
} > new.mtx
"$MMNC" predict -q --allow-unknown -o p b.mmnc new.mtx || exit 1

trained() { awk -F'\t' -v c="$1" 'NR > 1 && $1 == c { print $3 }' b.col_labels.tsv; }
predicted() { awk -F'\t' -v c="$1" 'NR > 1 && $1 == c { print $3 "/" $4 }' p.col_labels.tsv; }
check "p.col_labels.tsv has a line per column of new.mtx" test "$(wc -l < p.col_labels.tsv)" -eq 10
for c in 1 2 3 4 5 6; do
    check "column $c keeps its trained cluster" test "$(predicted $c)" = "$(trained $c)/model"
done
check "unknown column 7 (a copy of 1) is assigned 1's cluster from the rows" test "$(predicted 7)" = "$(trained 1)/rows"
check "unknown column 8 (a copy of 5) is assigned 5's cluster from the rows" test "$(predicted 8)" = "$(trained 5)/rows"
check "unknown column 9 without mass is unassigned (-1)" test "$(predicted 9)" = "-1/none"
check "p.json counts the assigned and unassigned columns" \
    grep -q '"columns_assigned_from_rows": 2' p.json
check "p.json: one column unassigned" grep -q '"columns_unassigned": 1' p.json
check "p.json: the model's column clusters" grep -q '"col_clusters": 2' p.json
check "the row labels are those of the training run" \
    cmp -s <(awk -F'\t' 'NR > 1 { print $2 }' p.labels.tsv) <(awk -F'\t' 'NR > 1 { print $2 }' b.labels.tsv)

# the default on counts (the Dirichlet mixture): its model predicts by the mixture over the
# column clusters, so the training rows come back at their labels
"$MMNC" generate -q --rows 200 --cols 60 -k 4 --draws 10 --ratio 3 -o g.mtx || exit 1
"$MMNC" cluster -q -k 4 --col-clusters 5 -t 1 -o g --save-model g.mmnc g.mtx || exit 1
"$MMNC" predict -q -o gp g.mmnc g.mtx || exit 1
check "the mixture's co-clustering model gives the training rows their labels" \
    cmp -s <(awk -F'\t' 'NR > 1 { print $2 }' gp.labels.tsv) <(awk -F'\t' 'NR > 1 { print $2 }' g.labels.tsv)

# a model without column clusters writes no PREFIX.col_labels.tsv
"$MMNC" cluster -q -k 2 -o r --save-model r.mmnc "$FIX/blocks.mtx" || exit 1
"$MMNC" predict -q -o q r.mmnc "$FIX/blocks.mtx" || exit 1
check "a row-clustering model writes no col_labels.tsv" test ! -e q.col_labels.tsv
check "its p.json has no col_clusters" bash -c '! grep -q col_clusters q.json'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
