#!/usr/bin/env bash
#
# run.sh -- run libFuzzer harnesses built by `make fuzz` (MMNC_FUZZ=ON).
#
#   tests/fuzz/run.sh BUILD_DIR SECONDS NAME...
#
# Each harness BUILD_DIR/fuzz_NAME runs SECONDS seconds on its growing corpus
# BUILD_DIR/corpus/NAME, seeded from tests/fuzz/corpus/NAME, under ASan+UBSan
# with a 512 MB memory limit (RSS and any single allocation: a small input
# that allocates more is a finding, issue 19) and a 10 s limit per input.
# Inputs grow to 4096 bytes; to 64 KB for the text harnesses cooc, dense
# and docs, whose seeds are pages of real text and tables; to 16 KB for
# docs_files (many small files).
# FUZZ_SEED fixes libFuzzer's seed (CI: the same inputs every run, so a
# finding reproduces; `make fuzz` by hand explores anew).
# Prints per harness the executions and the coverage (libFuzzer's final
# "cov:" figure); a finding leaves BUILD_DIR/artifacts/NAME-* (the input)
# and BUILD_DIR/fuzz_NAME.log, and the script exits 1 after the others ran.
set -u
[ $# -ge 3 ] || { echo "usage: $0 BUILD_DIR SECONDS NAME..." >&2; exit 2; }
B=$1 SECS=$2
shift 2
SRC=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$B/artifacts"
export ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
bad=0
for t in "$@"; do
    mkdir -p "$B/corpus/$t"
    case $t in cooc | dense | docs) max_len=65536 ;; docs_files) max_len=16384 ;; *) max_len=4096 ;; esac
    "$B/fuzz_$t" -rss_limit_mb=512 -malloc_limit_mb=512 -timeout=10 -max_len=$max_len \
        -max_total_time="$SECS" ${FUZZ_SEED:+-seed=$FUZZ_SEED} -print_final_stats=1 -artifact_prefix="$B/artifacts/$t-" \
        "$B/corpus/$t" "$SRC/tests/fuzz/corpus/$t" >"$B/fuzz_$t.log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/fuzz_$t.log" | tail -1)
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$B/fuzz_$t.log" | tail -1)
    if [ $rc -ne 0 ]; then
        echo "fuzz_$t: FINDING (exit $rc) after ${execs:-?} executions, $cov: see $B/fuzz_$t.log"
        grep -E 'ERROR|runtime error|SUMMARY' "$B/fuzz_$t.log" | head -5
        bad=1
    else
        echo "fuzz_$t: ${execs:-?} executions in $SECS s, $cov, corpus $(ls "$B/corpus/$t" | wc -l) inputs"
    fi
done
exit $bad
