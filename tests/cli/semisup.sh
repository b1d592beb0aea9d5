#!/usr/bin/env bash
#
# semisup.sh -- `mmnc cluster --labels FILE`, semi-supervision (issue 43):
#
#   tests/cli/semisup.sh /path/to/mmnc /path/to/source-dir [parse|held] [/path/to/mmnc-mpi]
#
# parse (the default): the file's format (a labels.tsv of an earlier run
#   given back: header, further fields; '#' comments; ids as the outputs
#   name rows: row numbers, or --row-names; a dropped row's id skipped), the
#   JSON's "labels_file" and "labels_given", and every error: exit status,
#   message with file:line, no output left behind.
# held: the library's side (mmnc_params.fixed_label), for -a dmm, information,
#   nuclear and frobenius and, given mmnc-mpi, on 2 ranks: labelled rows end
#   in their given clusters ("labels_held" = "labels_given", the labels.tsv
#   lines), also labels that split a planted block; one labelled row per
#   planted block numbers the clusters as the labels do; the selection rule
#   (JSON "semi_supervision", the summary line) keeps the seeded classifier
#   where the labels follow a weaker factor than I(X;Z)'s optimum, the same
#   on 2 ranks.
#
# Prints one line per case, then "N passed, N failed"; exits 0 when all pass.

set -u

if [ $# -lt 2 ]; then
    echo "usage: $0 /path/to/mmnc /path/to/source-dir [parse|held] [/path/to/mmnc-mpi]" >&2
    exit 2
fi
MMNC=$1
SRC=$2
MODE=${3:-parse}
MPI=${4:-}
case $MMNC in /*) ;; *) MMNC=$PWD/$MMNC ;; esac
case $SRC in /*) ;; *) SRC=$PWD/$SRC ;; esac
case $MPI in "" | /*) ;; *) MPI=$PWD/$MPI ;; esac
FIX=$SRC/tests/cli
DATA=$FIX/blocks.mtx # two planted blocks: rows 1-4 x cols 1-3, rows 5-8 x cols 4-6
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mmnc-semisup.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

pass=0
fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

# json FILE KEY: the value of a top-level number or string field
json() { sed -n "s/^  \"$2\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}\$/\1/p" "$1"; }
# cluster_of FILE ID: the cluster of row ID in a labels.tsv
cluster_of() { awk -F'\t' -v id="$2" 'NR > 1 && $1 == id { print $2 }' "$1"; }

# expect_error NAME EXIT PATTERN ARGS...: mmnc cluster fails with EXIT, its
# stderr matches PATTERN (grep -E), and no output of the run is left.
expect_error() {
    local name=$1 want=$2 pat=$3 rc
    shift 3
    rm -rf out.*
    "$MMNC" cluster -q -k 2 -o out "$@" >stdout 2>stderr
    rc=$?
    if [ "$rc" != "$want" ]; then
        bad "$name: exit $rc, expected $want: $(head -2 stderr)"
    elif ! grep -Eq -- "$pat" stderr; then
        bad "$name: stderr does not match '$pat': $(head -2 stderr)"
    elif ls out.* >/dev/null 2>&1; then
        bad "$name: outputs left: $(ls out.* | tr '\n' ' ')"
    else
        ok "$name"
    fi
}

# mmnc-mpi, when given and a launcher is found: RUN
HAVE_MPI=0
if [ -n "$MPI" ] && [ -x "$MPI" ] && command -v "${MPIRUN:-mpirun}" >/dev/null; then
    MPIRUN=${MPIRUN:-mpirun}
    . "$SRC/tests/mpi/launcher.sh"
    HAVE_MPI=1
fi

if [ "$MODE" = parse ]; then
    # An edited labels.tsv of an earlier run given back: its header and
    # probability column ignored, rows 2 and 6 kept (tab separated).
    "$MMNC" cluster -q -k 2 -o prev "$DATA" || exit 1
    awk -F'\t' 'NR == 1 || $1 == 2 || $1 == 6' prev.labels.tsv >given.tsv
    if "$MMNC" cluster -q -k 2 -o out --labels given.tsv "$DATA" 2>stderr &&
        [ "$(json out.json labels_given)" = 2 ] && [ "$(json out.json labels_file)" = given.tsv ] &&
        [ "$(json out.json labels_dropped)" = 0 ] && [ -n "$(json out.json labels_held)" ]; then
        ok "labels.tsv of an earlier run given back"
    else
        bad "labels.tsv of an earlier run given back: $(head -2 stderr) $(grep labels_ out.json | tr '\n' ' ')"
    fi
    # The summary names the file and the rows held.
    rm -rf out.*
    if "$MMNC" cluster -k 2 -o out --labels given.tsv "$DATA" >stdout 2>stderr &&
        grep -Eq '^[0-9]+ rows held at their given labels \(--labels given.tsv\)' stdout; then
        ok "summary line"
    else
        bad "summary line: $(grep -i 'labels' stdout | head -2) $(head -2 stderr)"
    fi
    # Blanks, comments, blank lines; every algorithm accepts the option.
    printf '# given clusters\n\n  3   1\n7 2 extra fields\n' >blanks.txt
    for a in dmm information nuclear frobenius; do
        rm -rf out.*
        if "$MMNC" cluster -q -k 2 -a "$a" -o out --labels blanks.txt "$DATA" 2>stderr &&
            [ "$(json out.json labels_given)" = 2 ]; then
            ok "blanks and comments, -a $a"
        else
            bad "blanks and comments, -a $a: $(head -2 stderr)"
        fi
    done
    # With --row-names the outputs name rows by name, and so does the file.
    printf 'row_one\t2\nrow_six\t1\n' >named.tsv
    rm -rf out.*
    if "$MMNC" cluster -q -k 2 -o out --row-names "$FIX/rows.names" --labels named.tsv "$DATA" 2>stderr &&
        [ "$(json out.json labels_given)" = 2 ] && [ -n "$(cluster_of out.labels.tsv row_one)" ]; then
        ok "ids by --row-names"
    else
        bad "ids by --row-names: $(head -2 stderr)"
    fi
    printf '1 2\n' >num.txt
    expect_error "a row number where rows have names" 1 "num.txt:1: expected the id of a row of the data, found '1'" \
        --row-names "$FIX/rows.names" --labels num.txt "$DATA"
    # A row dropped as empty (row 9 of 9 has no entry): its id skipped, counted.
    { sed -n 1,2p "$DATA"; echo "9 6 26"; grep -v '^%' "$DATA" | sed 1d; } >nine.mtx
    printf '9 1\n1 1\n' >drop.txt
    rm -rf out.*
    if "$MMNC" cluster -q -k 2 -o out --labels drop.txt nine.mtx 2>stderr &&
        [ "$(json out.json labels_given)" = 1 ] && [ "$(json out.json labels_dropped)" = 1 ]; then
        ok "a dropped row's id skipped"
    else
        bad "a dropped row's id skipped: $(head -2 stderr) $(grep labels_ out.json | tr '\n' ' ')"
    fi

    # Errors: file:line and what was expected, exit 1, nothing written.
    printf '1 1\n10 2\n' >unknown.txt
    expect_error "unknown id" 1 "--labels unknown.txt:2: expected the id of a row of the data, found '10'" \
        --labels unknown.txt "$DATA"
    printf 'id\tcluster\n1\ttwo\n' >word.txt
    expect_error "cluster not an integer" 1 "word.txt:2: expected a cluster, an integer 1..2, found 'two'" \
        --labels word.txt "$DATA"
    printf '1 0\n' >zero.txt
    expect_error "cluster 0" 1 "zero.txt:1: cluster 0 is outside 1..2 \(k\)" --labels zero.txt "$DATA"
    printf '1 1\n2 3\n' >three.txt
    expect_error "cluster above k" 1 "three.txt:2: cluster 3 is outside 1..2 \(k\)" --labels three.txt "$DATA"
    rm -rf out.*
    if "$MMNC" cluster -q -k 3 -o out --labels three.txt "$DATA" 2>stderr && [ "$(json out.json labels_given)" = 2 ]; then
        ok "cluster 3 with -k 3"
    else
        bad "cluster 3 with -k 3: $(head -2 stderr)"
    fi
    printf '1 1\n2 1\n1 2\n' >dup.txt
    expect_error "duplicate id" 1 "dup.txt:3: duplicate id '1'" --labels dup.txt "$DATA"
    printf '1\n' >one.txt
    expect_error "one field" 1 "one.txt:1: expected 'ID CLUSTER'" --labels one.txt "$DATA"
    seq 1 8 | awk '{ print $1, ($1 <= 4 ? 1 : 2) }' >all.txt
    expect_error "every row labelled" 1 "all.txt: all 8 rows are labelled: nothing left to cluster" \
        --labels all.txt "$DATA"
    printf 'id\tcluster\n' >none.txt
    expect_error "no row labelled" 1 "none.txt: no row labelled" --labels none.txt "$DATA"
    expect_error "missing file" 1 "missing.txt" --labels missing.txt "$DATA"
    expect_error "with --col-clusters" 2 "--labels applies without --col-clusters" \
        -a information --col-clusters 2 --labels blanks.txt "$DATA"
    # The labels file is an input: the outputs may not overwrite it.
    awk -F'\t' 'NR <= 3' prev.labels.tsv >in.labels.tsv
    rm -rf in.json
    "$MMNC" cluster -q -k 2 -o in --labels in.labels.tsv "$DATA" >stdout 2>stderr
    rc=$?
    if [ "$rc" = 2 ] && grep -q -- "--labels" stderr && [ "$(wc -l <in.labels.tsv)" = 3 ] && [ ! -e in.json ]; then
        ok "the outputs do not overwrite the labels file"
    else
        bad "the outputs do not overwrite the labels file: exit $rc, $(head -2 stderr)"
    fi
    # mmnc-mpi: rank 0 reads the file against every rank's rows.
    if [ $HAVE_MPI = 1 ]; then
        if timeout 300 "${RUN[@]}" -np 2 "$MPI" cluster -q -t 1 -k 2 -o m --labels drop.txt nine.mtx 2>stderr &&
            [ "$(json m.json labels_given)" = 1 ] && [ "$(json m.json labels_dropped)" = 1 ]; then
            ok "mmnc-mpi on 2 ranks: read, a dropped row's id skipped"
        else
            bad "mmnc-mpi on 2 ranks: read, a dropped row's id skipped: $(head -2 stderr)"
        fi
        printf '5 1\n99 2\n' >unknown99.txt
        if ! timeout 300 "${RUN[@]}" -np 2 "$MPI" cluster -q -t 1 -k 2 -o m2 --labels unknown99.txt "$DATA" \
            >/dev/null 2>stderr && grep -q "unknown99.txt:2: expected the id of a row of the data, found '99'" stderr &&
            ! ls m2.* >/dev/null 2>&1; then
            ok "mmnc-mpi on 2 ranks: an unknown id"
        else
            bad "mmnc-mpi on 2 ranks: an unknown id: $(head -2 stderr)"
        fi
    else
        echo "skip mmnc-mpi cases (no mmnc-mpi or mpirun)"
    fi
elif [ "$MODE" = held ]; then
    # Labels that split planted block 1 (rows 1 and 2) and put row 5 with
    # row 2: unsupervised, rows 1 and 2 go together; held, they cannot.
    printf '1 1\n2 2\n5 2\n' >split.txt
    # One row per block, numbered against the unsupervised order: the
    # clusters are numbered by the labels, the free rows join their block.
    printf '1 2\n5 1\n' >swap.txt
    for a in dmm information nuclear frobenius; do
        rm -rf out.*
        if "$MMNC" cluster -q -k 2 -a "$a" -o out --labels split.txt "$DATA" 2>stderr &&
            [ "$(json out.json labels_held)" = 3 ] && [ "$(cluster_of out.labels.tsv 1)" = 1 ] &&
            [ "$(cluster_of out.labels.tsv 2)" = 2 ] && [ "$(cluster_of out.labels.tsv 5)" = 2 ]; then
            ok "labels splitting a block held, -a $a"
        else
            bad "labels splitting a block held, -a $a: labels_held $(json out.json labels_held) of 3; rows 1 2 5 in\
 $(cluster_of out.labels.tsv 1) $(cluster_of out.labels.tsv 2) $(cluster_of out.labels.tsv 5), expected 1 2 2 $(head -1 stderr)"
        fi
        rm -rf out.*
        got=$("$MMNC" cluster -q -k 2 -a "$a" -o out --labels swap.txt "$DATA" 2>stderr &&
            awk -F'\t' 'NR > 1 { printf "%s", $2 }' out.labels.tsv)
        if [ "$got" = 22221111 ]; then
            ok "clusters numbered by the labels, -a $a"
        else
            bad "clusters numbered by the labels, -a $a: rows 1-8 in '$got', expected 22221111 $(head -1 stderr)"
        fi
    done
    # the selection rule: rows of a strong factor a (columns 1-20) crossed with a weaker b (21-40),
    # labels by b on 20 rows (5 of each (a, b)): I(X;Z)'s optimum follows a, the seeded classifier b
    awk 'BEGIN { n = 0; for (y = 0; y < 200; y++) { a = y % 2; b = int(y / 2) % 2
      for (x = 0; x < 40; x++) { v = (x < 20 ? (x % 2 == a ? 6 : 0) : (x % 2 == b ? 2 : 0)) + ((x + y) % 7 == 0)
        if (v > 0) L[n++] = (y + 1) " " (x + 1) " " v } }
      print "%%MatrixMarket matrix coordinate integer general"; print 200, 40, n; for (i = 0; i < n; i++) print L[i] }' \
        >crossed.mtx
    awk 'BEGIN { for (y = 0; y < 200; y++) if (int(y / 4) % 10 == 0) print y + 1, int(y / 2) % 2 + 1 }' >b.txt
    rm -rf out.*
    if "$MMNC" cluster -k 2 -o out --labels b.txt crossed.mtx >stdout 2>stderr &&
        grep -q '"semi_supervision": {"kept": "classifier", "scores": {"moves": 0.[0-9]*, "classifier": 1, ' out.json &&
        grep -q '^held rows at their label, each fold of them left free (cross-validation): moves [0-9]*.[0-9]%, classifier 100.0%, .*; kept classifier$' stdout &&
        [ "$(awk -F'\t' 'NR > 1 { printf "%s", $2 }' out.labels.tsv | head -c 8)" = 11221122 ]; then
        ok "the seeded classifier kept where the labels follow the weaker factor"
    else
        bad "the seeded classifier kept where the labels follow the weaker factor: $(grep semi_supervision out.json) $(head -2 stderr)"
    fi
    rm -rf out.*
    if "$MMNC" cluster -q -k 2 -o out --labels split.txt "$DATA" 2>stderr &&
        grep -q '"semi_supervision": {"kept": "\(moves\|classifier\|transduced\)", "scores": {"moves": ' out.json &&
        "$MMNC" cluster -q -k 2 -o out "$DATA" 2>stderr && ! grep -q semi_supervision out.json; then
        ok "semi_supervision in the JSON with --labels only"
    else
        bad "semi_supervision in the JSON with --labels only $(head -2 stderr)"
    fi
    if [ $HAVE_MPI = 1 ]; then
        "$MMNC" cluster -q -k 2 -o s --labels b.txt crossed.mtx 2>/dev/null
        if timeout 300 "${RUN[@]}" -np 2 "$MPI" cluster -q -t 1 -k 2 -o m --labels b.txt crossed.mtx 2>stderr &&
            cmp -s s.labels.tsv m.labels.tsv && [ -n "$(grep semi_supervision m.json)" ] &&
            [ "$(grep semi_supervision s.json)" = "$(grep semi_supervision m.json)" ]; then
            ok "mmnc-mpi on 2 ranks: the selection rule as one process"
        else
            bad "mmnc-mpi on 2 ranks: the selection rule as one process $(head -2 stderr)"
        fi
    fi
    if [ $HAVE_MPI = 1 ]; then
        "$MMNC" cluster -q -k 2 -o s --labels split.txt "$DATA" 2>/dev/null
        if timeout 300 "${RUN[@]}" -np 2 "$MPI" cluster -q -t 1 -k 2 -o m --labels split.txt "$DATA" 2>stderr &&
            [ "$(json m.json labels_given)" = 3 ] && [ "$(json m.json labels_held)" = 3 ] &&
            cmp -s s.labels.tsv m.labels.tsv; then
            ok "mmnc-mpi on 2 ranks: held, as one process"
        else
            bad "mmnc-mpi on 2 ranks: held, as one process: labels_held $(json m.json labels_held) $(head -2 stderr)"
        fi
        "$MMNC" cluster -q -k 2 -a dmm -o s --labels split.txt "$DATA" 2>/dev/null
        if timeout 300 "${RUN[@]}" -np 2 "$MPI" cluster -q -t 1 -k 2 -a dmm -o m --labels split.txt "$DATA" 2>stderr &&
            [ "$(json m.json labels_held)" = 3 ] && cmp -s s.labels.tsv m.labels.tsv; then
            ok "mmnc-mpi on 2 ranks, -a dmm (the pmf and the labels gathered): held, as one process"
        else
            bad "mmnc-mpi on 2 ranks, -a dmm: held, as one process: labels_held $(json m.json labels_held) $(head -2 stderr)"
        fi
    else
        echo "skip mmnc-mpi cases (no mmnc-mpi or mpirun)"
    fi
else
    echo "semisup.sh: mode '$MODE': expected parse or held" >&2
    exit 2
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
