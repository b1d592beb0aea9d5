#!/usr/bin/env bash
#
# limits.sh -- a small file never makes mmnc allocate gigabytes (issue 19):
# sizes come from content, not from what a header or an index claims.
#
#   tests/cli/limits.sh /path/to/mmnc
#
# Each case is a file of a few bytes that once drove an allocation of
# gigabytes (or terabytes) before any data was checked.  Each must finish in
# under a second under a 100 MB memory limit (ulimit -v; under AddressSanitizer,
# whose shadow memory defeats ulimit -v, max_allocation_size_mb instead), with
# the expected exit status and message, or the correct small result.
#
# Prints one line per case, then "N passed, N failed"; exits 0 when all pass.

set -u

if [ $# -lt 1 ]; then
    echo "usage: $0 /path/to/mmnc" >&2
    exit 2
fi
MMNC=$1
case $MMNC in /*) ;; *) MMNC=$PWD/$MMNC ;; esac
if [ ! -x "$MMNC" ]; then
    echo "limits.sh: $MMNC is not an executable" >&2
    exit 1
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mmnc-limits.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

LIMIT_MB=100
# Few threads: each OpenMP or OpenBLAS thread reserves stack and buffers,
# which count against ulimit -v on a machine with many cores.
export OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=1
if ldd "$MMNC" 2>/dev/null | grep -q libasan || nm "$MMNC" 2>/dev/null | grep -q ' __asan_init'; then
    ASAN=1
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}max_allocation_size_mb=$LIMIT_MB:allocator_may_return_null=1"
else
    ASAN=0
fi

passed=0
failed=0
fail() {
    echo "FAIL $1: $2"
    failed=$((failed + 1))
}

# run NAME EXPECTED_RC PATTERN CMD...: run under the memory limit, time it,
# check the exit status and that stdout+stderr match PATTERN (grep -E).
run() {
    local name=$1 want=$2 pat=$3 rc t0 t1 ms
    shift 3
    t0=$(date +%s%N)
    if [ $ASAN = 1 ]; then
        timeout 60 "$@" >out.txt 2>&1
    else
        (ulimit -v $((LIMIT_MB * 1024)) && exec timeout 60 "$@") >out.txt 2>&1
    fi
    rc=$?
    t1=$(date +%s%N)
    ms=$(((t1 - t0) / 1000000))
    if [ $rc -ne "$want" ]; then
        fail "$name" "exit $rc, expected $want: $(head -c 300 out.txt)"
    elif [ -n "$pat" ] && ! grep -Eq -- "$pat" out.txt; then
        fail "$name" "output does not match '$pat': $(head -c 300 out.txt)"
    elif [ $ms -ge 1000 ]; then
        fail "$name" "took $ms ms (limit 1000)"
    else
        echo "ok   $name ($ms ms)"
        passed=$((passed + 1))
    fi
}

# libsvm, columns out of order with a huge index: a 1 x 10^9 matrix of two
# entries (ids are kept), built without per-column arrays.
printf '0 1000000000:1 1:1\n' >wide.svm
run libsvm_wide_check 0 '1 x 1000000000, 2 nonzeros' "$MMNC" convert --check wide.svm
run libsvm_wide_convert 0 '' "$MMNC" convert -q wide.svm wide.mtx
if [ -f wide.mtx ] && grep -v '^%' wide.mtx | tr '\n' ' ' | grep -q '^1 1000000000 2 1 1 1 1 1000000000 1 $'; then
    echo "ok   libsvm_wide_result"
    passed=$((passed + 1))
else
    fail libsvm_wide_result "wide.mtx: $(head -c 300 wide.mtx 2>/dev/null)"
fi
# Clustering it: the empty columns are dropped before any per-column array
# (the outputs keep the original column ids).  k-means++ starts: the spectral
# start's OpenBLAS level-3 call reserves a 128 MB buffer, over this limit.
printf '0 1000000000:1 1:1\n0 5:2 1000000000:3\n' >wide2.svm
run libsvm_wide_cluster 0 '' "$MMNC" cluster -q -k 2 -r 2 --init kmeans++ -o wide2 wide2.svm
if [ -f wide2.top.tsv ] && grep -q $'\t1000000000\t' wide2.top.tsv && grep -q '"columns_dropped": 999999997' wide2.json; then
    echo "ok   libsvm_wide_cluster_result"
    passed=$((passed + 1))
else
    fail libsvm_wide_cluster_result "$(head -c 300 wide2.top.tsv 2>/dev/null) $(grep columns wide2.json 2>/dev/null)"
fi
# ... and 10^15, which asked calloc for ~200 TB.
printf '0 1000000000000000:1 1:1\n' >wider.svm
run libsvm_wider_check 0 '1 x 1000000000000000, 2 nonzeros' "$MMNC" convert --check wider.svm

# Matrix Market size lines claiming billions of rows: rejected at the size
# line, naming it and the size, before any entry is read.
printf '%%%%MatrixMarket matrix coordinate real general\n6222222222 3 1\n' >rows.mtx
run mtx_claimed_rows 1 'rows\.mtx:2: .*6222222222 rows for 1 entries' "$MMNC" convert --check rows.mtx
printf '%%%%MatrixMarket matrix coordinate real general\n888888883 22 0\n' >empty.mtx
run mtx_claimed_rows_empty 1 'empty\.mtx:2: .*888888883 rows for 0 entries' "$MMNC" convert --check empty.mtx
# Within the stated limit (entries + MMNC_MAX_EMPTY_ROWS), a tall sparse
# matrix reads; a huge column count is only a number.
printf '%%%%MatrixMarket matrix coordinate real general\n1000000 1000000000000 1\n1000000 1000000000000 2\n' >tall.mtx
run mtx_tall_ok 0 '1000000 x 1000000000000, 1 nonzeros' "$MMNC" convert --check tall.mtx
# More entries claimed than present: "truncated", not a reservation of them all.
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 999999999999\n1 1 1\n' >short.mtx
run mtx_claimed_entries 1 'short\.mtx:3: truncated: expected 999999999999 entries, found 1' \
    "$MMNC" convert --check short.mtx

# word2vec header claiming 5.5e9 words over an empty body: the words are
# counted as read, and the claim is an error naming file and line.
printf '5515555556 3\n' >claim.vec
: >questions.csv
run w2v_claimed_words 1 'claim\.vec:2: truncated: the header \(line 1\) claims 5515555556 words, the file holds 0' \
    "$MMNC" msr claim.vec questions.csv
printf '5515555556 3\nthe 1 2 3\n' >claim1.vec
run w2v_claimed_words_one 1 'claim1\.vec:3: truncated: .*claims 5515555556 words, the file holds 1' \
    "$MMNC" msr claim1.vec questions.csv

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
