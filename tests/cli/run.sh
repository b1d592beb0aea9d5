#!/usr/bin/env bash
#
# run.sh -- golden tests of the mmnc command-line tool (in the spirit of zstd's
# cli-tests): run the binary on tiny hand-made files, check the exit status, the
# key lines of stdout/stderr and which files exist afterwards.
#
#   tests/cli/run.sh /path/to/mmnc /path/to/source-dir
#
# Every case runs in its own empty directory under a fresh temporary directory
# (removed on exit).  Bad input must give a non-zero exit (1 bad data, 2 usage),
# a message naming the file (and line where there is one) and leave no file
# behind: no PREFIX.* and no temporary file or directory (.mmnc-*) in the case
# directory.
#
# Prints one line per case, then "N passed, N failed"; exits 0 when all pass,
# 1 otherwise.  Fixtures (all tiny, hand-made) live next to this script:
#   blocks.mtx     8 x 6, two planted blocks (rows 1-4 | 5-8) plus two weak
#                  cross entries; blocks.truth is its one-label-per-line truth
#   blocks2.mtx    6 x 5 block-diagonal: 2 connected components
#   blocks.svm     libsvm version of two 3-row blocks (labels a/b)
#   ratings.tsv    "user<TAB>item<TAB>rating"; ratings.truth "user label" pairs
#   cols.names rows.names   names for blocks.mtx
#   blocks.cocluster.{col_labels,top}.tsv   --col-clusters 2's outputs on blocks.mtx
#   words.txt para.txt      texts for cooc, with *.expected.* outputs
#   docs/          six short texts in two topics (pets/, money/) and a hidden
#                  file, for docs; docs.lines.txt one document per line, with
#                  docs.lines.expected.{mtx,rows,cols} worked out by hand

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
if [ ! -x "$MMNC" ]; then
    echo "run.sh: $MMNC is not an executable" >&2
    exit 1
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mmnc-cli.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
LOG=$WORK/log
mkdir "$LOG"

if command -v python3 >/dev/null 2>&1; then HAVE_PY=1; else HAVE_PY=0; fi

npass=0
nfail=0
ncase=0
CASE=
WHY=
OUT=
ERR=
RC=

# ---- case bookkeeping ----------------------------------------------------------

# begin NAME: a fresh empty directory for the case, made the current one.
begin() {
    ncase=$((ncase + 1))
    CASE=$1
    WHY=
    local d
    d=$WORK/$(printf '%03d' "$ncase")
    mkdir "$d" && cd "$d" || exit 1
    OUT=$LOG/$ncase.out
    ERR=$LOG/$ncase.err
    : >"$OUT"
    : >"$ERR"
}

fail_because() { WHY="$WHY${WHY:+; }$*"; }

end() {
    cd "$WORK" || exit 1
    if [ -z "$WHY" ]; then
        npass=$((npass + 1))
        echo "PASS  $CASE"
    else
        nfail=$((nfail + 1))
        echo "FAIL  $CASE: $WHY"
        if [ -s "$ERR" ]; then sed -n '1,5s/^/        stderr| /p' "$ERR"; fi
    fi
}

# run ARGS...: mmnc ARGS, stdout/stderr to $OUT/$ERR, status in $RC.
run() {
    "$MMNC" "$@" >"$OUT" 2>"$ERR"
    RC=$?
}

# snapshot / expect_nonew: no file appears between the two calls.
snapshot() { ls -A >"$LOG/$ncase.before"; }
expect_nonew() {
    ls -A >"$LOG/$ncase.after"
    local new
    new=$(comm -13 "$LOG/$ncase.before" "$LOG/$ncase.after" | tr '\n' ' ')
    [ -z "$new" ] || fail_because "left files behind: $new"
}

expect_rc() { [ "$RC" = "$1" ] || fail_because "exit status $RC, expected $1"; }
expect_out() { grep -Eq -- "$1" "$OUT" || fail_because "stdout lacks /$1/"; }
expect_err() { grep -Eq -- "$1" "$ERR" || fail_because "stderr lacks /$1/"; }
expect_file() { for f; do [ -f "$f" ] || fail_because "no file $f"; done; }
expect_nofile() { for f; do [ ! -e "$f" ] || fail_because "unexpected file $f"; done; }
expect_same() { cmp -s "$1" "$2" || fail_because "$1 and $2 differ"; }
expect_grep() { grep -Eq -- "$1" "$2" 2>/dev/null || fail_because "$2 lacks /$1/"; }

# expect_json FILE [KEY...]: FILE is valid JSON (strict: no NaN or Infinity,
# which Python would take) with these top-level keys.
expect_json() {
    local f=$1
    shift
    if [ "$HAVE_PY" = 1 ]; then
        python3 -c '
import json, sys
def constant(c):
    raise ValueError("not JSON: " + c)
d = json.load(open(sys.argv[1]), parse_constant=constant)
missing = [k for k in sys.argv[2:] if k not in d]
if missing:
    sys.exit("missing keys: " + " ".join(missing))
' "$f" "$@" 2>>"$ERR" || fail_because "$f: not JSON or keys missing ($*)"
    else
        for k; do grep -q "\"$k\"" "$f" || fail_because "$f lacks key $k"; done
    fi
}

# expect_partition LABELS "id1 id2 ...|id3 id4 ...": the labels file (header,
# then "id cluster prob") puts exactly these groups in distinct clusters.
expect_partition() {
    awk -F'\t' -v groups="$2" '
        BEGIN {
            ng = split(groups, g, "|")
            for (i = 1; i <= ng; i++) {
                n = split(g[i], ids, " ")
                for (j = 1; j <= n; j++) { grp[ids[j]] = i; want++ }
            }
        }
        NR == 1 { if ($0 != "id\tcluster\tprobability") { print "bad header"; bad = 1 } next }
        {
            seen++
            if (!($1 in grp)) { print "unknown id " $1; bad = 1; next }
            i = grp[$1]; c = $2
            if ((i in c_of) && c_of[i] != c) { print "group " i " split"; bad = 1 }
            if ((c in g_of) && g_of[c] != i) { print "cluster " c " mixes groups"; bad = 1 }
            c_of[i] = c; g_of[c] = i
        }
        END {
            if (seen != want) { print seen " rows, expected " want; bad = 1 }
            exit bad
        }' "$1" >"$LOG/$ncase.part" 2>&1 ||
        fail_because "$1: wrong partition ($(tr '\n' ' ' <"$LOG/$ncase.part"))"
}

# expect_soft_rows_sum1 SOFT: every row of the soft kernel sums to 1.
expect_soft_rows_sum1() {
    awk -F'\t' 'NR > 1 { s = 0; for (i = 2; i <= NF; i++) s += $i; if (s < 0.9999 || s > 1.0001) bad = 1; n++ }
                END { exit (bad || n == 0) }' "$1" ||
        fail_because "$1: a row does not sum to 1"
}

# bad NAME STATUS STDERR-PATTERN ARGS...: a failing run leaves nothing behind.
bad() {
    local name=$1 status=$2 pat=$3
    shift 3
    begin "$name"
    snapshot
    run "$@"
    expect_rc "$status"
    expect_err "$pat"
    expect_nonew
    end
}

# long options of a subcommand, from its struct option array(s) in the source
long_options() {
    local files=$SRC/cli/cmd_$1.c
    grep -q CLI_LOAD_OPTIONS "$files" && files="$files $SRC/cli/cli.h"
    grep -oE '\{"[a-z0-9+-]+", *(no|required|optional)_argument' $files | sed -E 's/^\{"([^"]*)".*/\1/' | sort -u
}

BLOCKS=$FIX/blocks.mtx
GROUPS_BLOCKS="1 2 3 4|5 6 7 8"

# ---- top level ----------------------------------------------------------------

begin "mmnc --help"
run --help
expect_rc 0
for c in cluster predict eval info cooc docs sweep generate; do expect_out "^  $c "; done
end

begin "mmnc --version"
run --version
expect_rc 0
ver=$(sed -n 's/^#define MMNC_VERSION_STRING "\(.*\)"/\1/p' "$SRC/include/mmnc.h")
expect_out "^mmnc ${ver:-[0-9]}"
end

begin "mmnc (no command) -> usage, exit 2"
run
expect_rc 2
expect_err "Usage: mmnc COMMAND"
end

begin "mmnc frobnicate -> unknown command, exit 2"
run frobnicate
expect_rc 2
expect_err "unknown command 'frobnicate'"
end

begin "mmnc help cluster -> the help of cluster, exit 0"
run help cluster
expect_rc 0
expect_out "^Usage: mmnc cluster"
end

begin "mmnc help frobnicate -> unknown command, exit 2"
run help frobnicate
expect_rc 2
expect_err "unknown command 'frobnicate'"
end

for c in cluster predict eval info cooc docs sweep generate; do
    begin "mmnc $c --help mentions every long option and defaults"
    run "$c" --help
    expect_rc 0
    expect_out "^Usage: mmnc $c"
    expect_out "default"
    opts=$(long_options "$c")
    [ -n "$opts" ] || fail_because "found no options in cli/cmd_$c.c"
    for o in $opts; do expect_out -- "--$o([^a-z-]|$)"; done
    [ -s "$ERR" ] && fail_because "help wrote to stderr"
    end
done

# ---- cluster ------------------------------------------------------------------

begin "cluster planted 2-block .mtx (the default on counts: the Dirichlet mixture)"
run cluster -k 2 -o b0 "$BLOCKS"
expect_rc 0
expect_partition b0.labels.tsv "$GROUPS_BLOCKS"
expect_grep '"algorithm": "dmm"' b0.json
expect_out "^the default \(-a auto\): every value a whole number, counts: the Dirichlet mixture \(-a dmm\)"
expect_nofile .mmnc-*
end

begin "cluster --normalize-rows (values that are not counts): the default runs the information objective"
run cluster -k 2 --normalize-rows -o b1 "$BLOCKS"
expect_rc 0
expect_partition b1.labels.tsv "$GROUPS_BLOCKS"
expect_grep '"algorithm": "information"' b1.json
expect_out "^the default \(-a auto\): values that are not whole numbers: the information objective"
end

begin "cluster --size-prior with the default: the information objective, asked for"
run cluster -k 2 --size-prior 3 -o b2 "$BLOCKS"
expect_rc 0
expect_grep '"algorithm": "information"' b2.json
expect_grep '"size_prior": 3,' b2.json
end

begin "cluster planted 2-block .mtx (-a information: the information objective with the size prior)"
run cluster -a information -k 2 -o b "$BLOCKS"
expect_rc 0
expect_partition b.labels.tsv "$GROUPS_BLOCKS"
expect_grep '"algorithm": "information"' b.json
expect_grep '"size_prior": 7,' b.json
expect_grep '"size_prior_kept": (true|false),' b.json
expect_out "information objective: I\(X;Z\) - 7 \(rows / nonzeros\) H\(cluster sizes\)"
expect_nofile .mmnc-*
end

begin "cluster --size-prior: negative is a usage error"
run cluster -a information -k 2 --size-prior -1 -o b "$BLOCKS"
expect_rc 2
expect_err "size-prior"
end

begin "cluster planted 2-block .mtx (dmm): the partition, alpha and beta in the JSON and the summary"
run cluster -a dmm -k 2 -o d "$BLOCKS"
expect_rc 0
expect_file d.labels.tsv d.soft.tsv d.json d.top.tsv
expect_partition d.labels.tsv "$GROUPS_BLOCKS"
expect_json d.json dmm_alpha dmm_beta objective iterations
expect_grep '"algorithm": "dmm"' d.json
expect_out "^Dirichlet mixture: alpha [0-9.e+-]* .cluster sizes., beta [0-9.e+-]* "
expect_out "^starts' agreement: mean adjusted Rand index 1\.0000 "
expect_grep '"starts_agreement": 1,' d.json
end

begin "cluster --dmm-beta: beta's least value asks for dmm; the evidence fits beta above it"
run cluster -k 2 --dmm-beta 50 -o d "$BLOCKS"
expect_rc 0
expect_grep '"algorithm": "dmm"' d.json
expect_grep '"dmm_beta": 50,' d.json
expect_out "beta 50 .*fitted by the evidence \\(beta at its least, --dmm-beta\\)"
run cluster -k 2 --dmm-beta 0 -o e "$BLOCKS"
expect_rc 0
expect_json e.json dmm_beta
run cluster -k 2 --dmm-beta -1 -o f "$BLOCKS"
expect_rc 2
expect_err "dmm-beta"
end

begin "cluster -a dmm with an option of the information objective -> usage naming the algorithms"
run cluster -a dmm -k 2 --size-prior 3 -o d "$BLOCKS"
expect_rc 2
expect_err "size-prior"
end

begin "cluster planted 2-block .mtx (nuclear)"
run cluster -a nuclear -k 2 -o b "$BLOCKS"
expect_rc 0
expect_file b.labels.tsv b.soft.tsv b.json b.top.tsv
expect_partition b.labels.tsv "$GROUPS_BLOCKS"
expect_json b.json nuclear_norm frobenius_norm singular_values pz mutual_information iterations
expect_grep '"algorithm": "nuclear"' b.json
expect_soft_rows_sum1 b.soft.tsv
expect_out "8 rows x 6 columns, 26 nonzeros"
expect_out "^singular values: 1\.0000 "
expect_nofile .mmnc-*
end

begin "cluster top.tsv: header and rows have the same number of fields"
run cluster -q -o b "$BLOCKS"
expect_rc 0
expect_file b.top.tsv
awk -F'\t' 'NR == 1 { n = NF; next } NF != n { bad = 1 } END { exit bad }' b.top.tsv 2>/dev/null ||
    fail_because "b.top.tsv: header has $(head -1 b.top.tsv | awk -F'\t' '{print NF}') fields, rows $(sed -n 2p b.top.tsv | awk -F'\t' '{print NF}')"
end

begin "cluster default prefix = data file name without extensions, in cwd"
cp "$BLOCKS" ./planted.mtx
run cluster -q planted.mtx
expect_rc 0
expect_file planted.labels.tsv planted.soft.tsv planted.json planted.top.tsv
[ -s "$OUT" ] && fail_because "-q printed to stdout"
end

begin "cluster -a frobenius"
run cluster -q -a frobenius -o f "$BLOCKS"
expect_rc 0
expect_file f.labels.tsv f.soft.tsv f.json f.top.tsv
expect_partition f.labels.tsv "$GROUPS_BLOCKS"
expect_json f.json nuclear_norm frobenius_norm singular_values pz mutual_information iterations lambda step
expect_grep '"algorithm": "frobenius"' f.json
expect_soft_rows_sum1 f.soft.tsv
end

begin "cluster -a nuclear --pz 0.5,0.5"
run cluster -q -a nuclear --pz 0.5,0.5 -o p "$BLOCKS"
expect_rc 0
expect_partition p.labels.tsv "$GROUPS_BLOCKS"
expect_json p.json target_pz pz
expect_grep '"target_pz": \[0\.5, 0\.5\]' p.json
end

begin "cluster --pz 1,3 (weights normalised)"
run cluster -q -a frobenius --pz 1,3 -o p "$BLOCKS"
expect_rc 0
expect_grep '"target_pz": \[0\.25, 0\.75\]' p.json
end

begin "cluster --no-soft writes no soft file"
run cluster -q --no-soft -o n "$BLOCKS"
expect_rc 0
expect_file n.labels.tsv n.json n.top.tsv
expect_nofile n.soft.tsv
expect_json n.json
grep -q '"soft"' n.json && fail_because "n.json names a soft file"
end

begin "cluster --threads 1 and 2 give identical labels and soft files"
run cluster -q --threads 1 -o t1 "$BLOCKS"
expect_rc 0
run cluster -q --threads 2 -o t2 "$BLOCKS"
expect_rc 0
expect_same t1.labels.tsv t2.labels.tsv
expect_same t1.soft.tsv t2.soft.tsv
run cluster -q -a frobenius --init random -r 3 --threads 1 -o f1 "$BLOCKS"
run cluster -q -a frobenius --init random -r 3 --threads 2 -o f2 "$BLOCKS"
expect_same f1.labels.tsv f2.labels.tsv
expect_same f1.soft.tsv f2.soft.tsv
end

begin "cluster --col-clusters 2: column labels, blocks, JSON and summary (golden)"
run cluster -a information -k 2 --col-clusters 2 --names "$FIX/cols.names" --row-names "$FIX/rows.names" --top 2 -t 1 -o c "$BLOCKS"
expect_rc 0
expect_file c.labels.tsv c.soft.tsv c.json c.top.tsv c.col_labels.tsv
[ "$(cut -f2 c.labels.tsv | tail -n +2 | tr '\n' ' ')" = "1 1 1 1 2 2 2 2 " ] ||
    fail_because "c.labels.tsv: the rows are not the two planted blocks"
expect_same c.col_labels.tsv "$FIX/blocks.cocluster.col_labels.tsv"
expect_same c.top.tsv "$FIX/blocks.cocluster.top.tsv"
expect_json c.json col_clusters information_zw col_cluster_sizes block_pz
expect_grep '"col_clusters": 2,' c.json
expect_grep '"col_cluster_sizes": \[3, 3\],' c.json
expect_grep '"col_labels": "c\.col_labels\.tsv"' c.json
expect_grep '"restart_inits": \["rows", "random",' c.json
grep -q '"size_prior"' c.json && fail_because "c.json states a size prior, which co-clustering has not"
expect_out "^co-clustering, 2 x 2 blocks: I\(Z;W\) 0\.593524 nats of I\(X;Y\) 0\.682272 \(87\.0%\)"
expect_out "^  column clusters by P\(w\|z\): 2 \(0\.980\) 1 \(0\.020\)"
expect_out "wrote .*c\.col_labels\.tsv"
run cluster -q -a information -k 2 --col-clusters 2 -t 2 --names "$FIX/cols.names" --row-names "$FIX/rows.names" --top 2 -o c2 "$BLOCKS"
expect_rc 0
expect_same c.labels.tsv c2.labels.tsv
expect_same c.col_labels.tsv c2.col_labels.tsv
expect_same c.top.tsv c2.top.tsv
expect_nofile .mmnc-*
end

begin "cluster --col-clusters 2 by default: the Dirichlet mixture's form on counts"
run cluster -k 2 --col-clusters 2 -t 1 -o d "$BLOCKS"
expect_rc 0
expect_partition d.labels.tsv "$GROUPS_BLOCKS"
case "$(cut -f3 d.col_labels.tsv | tail -n +2 | tr '\n' ' ')" in
"1 1 1 2 2 2 " | "2 2 2 1 1 1 ") ;;
*) fail_because "d.col_labels.tsv: the columns are not the two planted blocks" ;;
esac
expect_json d.json col_clusters information_zw dmm_alpha dmm_beta col_cluster_sizes block_pz
expect_grep '"algorithm": "dmm",' d.json
expect_out "^co-clustering \(log evidence a count\), k = 2: objective -"
expect_out "^Dirichlet mixture: alpha .* \(each cluster's column-cluster distribution\)"
expect_out "^co-clustering, 2 x 2 blocks: I\(Z;W\) "
run cluster -q -k 2 --col-clusters 2 --dmm-beta 2 -t 2 -o d2 "$BLOCKS"
expect_rc 0
expect_grep '"dmm_beta": [2-9]' d2.json
end

bad "cluster --col-clusters with -a frobenius -> usage naming the algorithm" 2 \
    "--col-clusters applies to -a auto .the default. or -a dmm or -a information or -a nuclear, not to -a frobenius" \
    cluster -a frobenius -k 2 --col-clusters 2 -o c "$BLOCKS"

begin "cluster -a nuclear --col-clusters 2: the nuclear form"
run cluster -a nuclear -k 2 --col-clusters 2 -o n "$BLOCKS"
expect_rc 0
expect_partition n.labels.tsv "$GROUPS_BLOCKS"
case "$(cut -f3 n.col_labels.tsv | tail -n +2 | tr '\n' ' ')" in
"1 1 1 2 2 2 " | "2 2 2 1 1 1 ") ;;
*) fail_because "n.col_labels.tsv: the columns are not the two planted blocks" ;;
esac
expect_json n.json col_clusters nuclear_norm_zw col_cluster_sizes block_pz
expect_grep '"restart_inits": \["rows"\]' n.json
expect_out "start 1 \(rows\)"
expect_out "^co-clustering, 2 x 2 blocks: \|\|B_\{Z,W\}\|\|_\* "
end
bad "cluster --col-clusters above the columns -> error, no output" 1 "col_clusters = 7 must not exceed the number of columns \(6\)" \
    cluster -a information -k 2 --col-clusters 7 -o c "$BLOCKS"

begin "cluster same seed twice gives identical output"
for i in 1 2; do
    run cluster -q -s 7 --init random -r 2 -o s$i "$BLOCKS"
    expect_rc 0
done
expect_same s1.labels.tsv s2.labels.tsv
expect_same s1.soft.tsv s2.soft.tsv
expect_same s1.top.tsv s2.top.tsv
expect_grep '"seed": 7' s1.json
end

begin "cluster triplet with string keys"
run cluster -q --format triplet -o r "$FIX/ratings.tsv"
expect_rc 0
expect_partition r.labels.tsv "alice bob carol|dave erin frank"
expect_grep '"nonzeros": 14' r.json
expect_grep '^1	1	item[12]	item[12]	' r.top.tsv
end

begin "cluster triplet auto-detected, --map rating3 drops rating-1 entries"
run cluster -q --map rating3 -o r "$FIX/ratings.tsv"
expect_rc 0
expect_partition r.labels.tsv "alice bob carol|dave erin frank"
expect_grep '"nonzeros": 12' r.json
expect_soft_rows_sum1 r.soft.tsv
end

begin "cluster triplet --transpose clusters the items"
run cluster -q --format triplet --map rating3 --transpose -o t "$FIX/ratings.tsv"
expect_rc 0
expect_partition t.labels.tsv "item1 item2|item3 item4"
grep -Eq '^(alice|bob|carol|dave|erin|frank)	' t.soft.tsv && fail_because "t.soft.tsv has user ids"
expect_grep '"rows": 4' t.json
end

begin "cluster triplet --row-field/--col-field/--value-field"
awk -F'\t' '{ print $3 "\t" $2 "\t" $1 }' "$FIX/ratings.tsv" >rev.tsv
run cluster -q --format triplet --delim tab --row-field 3 --col-field 2 --value-field 1 --map rating3 -o v rev.tsv
expect_rc 0
expect_partition v.labels.tsv "alice bob carol|dave erin frank"
expect_grep '"nonzeros": 12' v.json
end

begin "cluster triplet --truth with 'id label' pairs"
run cluster --format triplet --map rating3 --truth "$FIX/ratings.truth" -o r "$FIX/ratings.tsv"
expect_rc 0
expect_out "ACC 100\.00%"
expect_json r.json evaluation
end

begin "cluster libsvm input"
run cluster -q -o s "$FIX/blocks.svm"
expect_rc 0
expect_partition s.labels.tsv "1 2 3|4 5 6"
expect_grep '"columns": 6' s.json
end

begin "cluster libsvm --truth from the libsvm labels"
run cluster --truth "$FIX/blocks.svm" -o s "$FIX/blocks.svm"
expect_rc 0
expect_out "ACC 100\.00%"
expect_json s.json evaluation
end

begin "cluster gzip-compressed .mtx"
gzip -c "$BLOCKS" >gz.mtx.gz
run cluster -q gz.mtx.gz
expect_rc 0
expect_file gz.labels.tsv gz.soft.tsv gz.json gz.top.tsv
expect_partition gz.labels.tsv "$GROUPS_BLOCKS"
run cluster -q -o plain "$BLOCKS"
expect_same gz.labels.tsv plain.labels.tsv
end

begin "cluster xz-compressed .mtx and standard input"
xz -c "$BLOCKS" >xz.mtx.xz
run cluster -q xz.mtx.xz
expect_rc 0
expect_partition xz.labels.tsv "$GROUPS_BLOCKS"
"$MMNC" cluster -q -o si - <xz.mtx.xz >"$OUT" 2>"$ERR"
RC=$?
expect_rc 0
expect_same xz.labels.tsv si.labels.tsv
run cluster -q -o plain "$BLOCKS"
expect_same xz.labels.tsv plain.labels.tsv
end

bad "cluster: standard input needs -o" 2 "give the outputs a name with -o" cluster -

begin "cluster --low-memory: one copy of the matrix, the same outputs"
for a in nuclear frobenius; do
    run cluster -q -a $a -k 3 -r 2 -o lm1 "$BLOCKS"
    run cluster -q -a $a -k 3 -r 2 -o lm2 --low-memory "$BLOCKS"
    expect_rc 0
    expect_same lm1.labels.tsv lm2.labels.tsv
    expect_same lm1.soft.tsv lm2.soft.tsv
    [ "$(grep -v seconds lm1.json | sed 's/lm1/X/g')" = "$(grep -v seconds lm2.json | sed 's/lm2/X/g')" ] ||
        fail_because "$a: the JSON summaries differ"
done
end
bad "convert refuses --low-memory" 2 "cluster or embed" convert --low-memory "$BLOCKS" x.bin

begin "cluster --names and --row-names appear in the outputs"
run cluster --names "$FIX/cols.names" --row-names "$FIX/rows.names" -o nm "$BLOCKS"
expect_rc 0
expect_partition nm.labels.tsv "row_one row_two row_three row_four|row_five row_six row_seven row_eight"
expect_grep '^row_one	' nm.soft.tsv
expect_grep '	banana	' nm.top.tsv
expect_grep '	guitar	' nm.top.tsv
expect_out "members: .*row_"
expect_out "columns: .*(apple|banana|cherry)"
end

begin "cluster: names a file repeats are made unique, NAME#2, NAME#3, ..., with one warning per file"
# line 3 repeats line 1, whose x#2 is line 4's name: it is x#3; line 6 is the next x, x#4
printf 'x\ny\nx\nx#2\nv\nx\nw\nu\n' >rep.rows
printf 'apple\nbanana\napple\nd\ne\nf\n' >rep.cols
run cluster -k 2 -t 1 -a information --names rep.cols --row-names rep.rows -o r "$BLOCKS"
expect_rc 0
expect_partition r.labels.tsv "x y x#3 x#2|v x#4 w u"
[ -z "$(awk -F'\t' 'NR > 1 { print $1 }' r.soft.tsv | sort | uniq -d)" ] || fail_because "r.soft.tsv repeats an id"
expect_grep '	apple#2	' r.top.tsv
expect_err "^mmnc cluster: warning: rep\.rows: 2 names repeat an earlier one, written NAME#2, NAME#3, \.\.\. in the order of the lines \(first: 'x', lines 1 and 3, written 'x#3'\)$"
expect_err "^mmnc cluster: warning: rep\.cols: 1 name repeats an earlier one, .* \(first: 'apple', lines 1 and 3, written 'apple#2'\)$"
[ "$(grep -c repeat "$ERR")" = 2 ] || fail_because "not one warning per file: $(grep -c repeat "$ERR")"
# the ids written are the ids read back: by mmnc eval, and by --labels
printf 'x a\ny a\nx#3 a\nx#2 a\nv b\nx#4 b\nw b\nu b\n' >r.truth
run eval r.labels.tsv r.truth
expect_rc 0
expect_out "^ACC +100\.00%"
printf 'x#3\t2\nv\t1\n' >given.tsv
run cluster -q -k 2 -t 1 -a information --labels given.tsv --row-names rep.rows -o g "$BLOCKS"
expect_rc 0
expect_grep '^x#3	2	' g.labels.tsv
expect_grep '^v	1	' g.labels.tsv
end

begin "cluster --names-keyed: a repeated name is made unique in the order of the ids"
printf '3|x\n1|x\n2|y\n4|x\n5|p\n6|q\n7|r\n8|s\n' >rep.item
run cluster -k 2 -t 1 -a information -q --names-keyed --row-names rep.item -o k "$BLOCKS"
expect_rc 0
expect_partition k.labels.tsv "x y x#2 x#3|p q r s"
expect_err "^mmnc cluster: warning: rep\.item: 2 names repeat an earlier one, .* in the order of the ids \(first: 'x', ids 1 and 3, written 'x#2'\)$"
end

begin "cluster -k 1: no characteristic column (every score is zero up to rounding)"
run cluster -k 1 -t 1 -o k1 "$BLOCKS"
expect_rc 0
[ "$(wc -l <k1.top.tsv)" -eq 1 ] || fail_because "k1.top.tsv lists columns: $(sed -n 2p k1.top.tsv)"
expect_out "^  columns:$"
run cluster -k 2 -t 1 -q -o k2 "$BLOCKS"
[ "$(wc -l <k2.top.tsv)" -gt 1 ] || fail_because "k2.top.tsv lists no column"
end

begin "cluster --truth gives ACC line and JSON evaluation"
run cluster --truth "$FIX/blocks.truth" -o e "$BLOCKS"
expect_rc 0
expect_out "ACC 100\.00%"
expect_json e.json evaluation
if [ "$HAVE_PY" = 1 ]; then
    python3 -c 'import json,sys; e = json.load(open(sys.argv[1]))["evaluation"]; sys.exit(0 if e["acc"] == 1 and e["classes"] == 2 else 1)' e.json ||
        fail_because "evaluation.acc != 1 or classes != 2"
fi
end

begin "cluster: a byte-order mark starting --truth, --row-names, --labels is skipped"
printf '\357\273\277' >bom.truth
cat "$FIX/blocks.truth" >>bom.truth
printf '\357\273\277' >bom.names
cat "$FIX/rows.names" >>bom.names
printf '\357\273\2771\t1\n5\t2\n' >bom.labels
run cluster -k 2 -t 1 --truth bom.truth -o b "$BLOCKS"
expect_rc 0
expect_out "ACC 100\.00%"
run cluster -q -k 2 -t 1 --row-names bom.names -o n "$BLOCKS"
expect_rc 0
expect_grep '^row_one	' n.labels.tsv
run cluster -q -k 2 -t 1 --labels bom.labels -o l "$BLOCKS"
expect_rc 0
expect_partition l.labels.tsv "$GROUPS_BLOCKS"
end

begin "cluster drops zero-mass rows/columns, reports them, keeps original ids"
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n3 3 1\n' >gap.mtx
run cluster -k 2 -o g gap.mtx
expect_rc 0
expect_err "dropped 1 rows and 1 columns"
expect_partition g.labels.tsv "1|3"
expect_grep '"rows_dropped": 1' g.json
expect_grep '"columns_dropped": 1' g.json
end

begin "cluster: counts summing above 1e300 are refused by the Dirichlet mixture, taken by the information objective"
# values near the largest double, whose sum overflows lgamma: the mixture refuses them, no output
printf '%%%%MatrixMarket matrix coordinate real general\n4 3 6\n1 1 3e305\n1 2 2e305\n2 1 3e305\n2 2 2e305\n3 3 3e305\n4 3 4e305\n' >b305.mtx
run cluster b305.mtx -k 2 -t 1 -q -o b305
expect_rc 1
expect_err "sum to 1\.7e\+306, above 1e300, where its log-gamma terms overflow"
expect_nofile b305.json b305.labels.tsv
run cluster b305.mtx -k 2 -t 1 -q -a information -o b305
expect_rc 0
expect_json b305.json objective restart_objectives
expect_grep '^3	2	' b305.labels.tsv
end

begin "cluster --truth: ids of an 'id label' file that name no row are said, as eval says them"
printf '1 a\n2 a\n3 a\n4 a\n5 b\n6 b\n7 b\n8 b\n0 b\n' >keyed.truth
run cluster -k 2 -t 1 --truth keyed.truth -o kt "$BLOCKS"
expect_rc 0
expect_out "ACC 100\.00%"
expect_err "^mmnc cluster: 1 of 9 items of keyed\.truth name no row of nonzero mass and are excluded: '0'$"
run eval kt.labels.tsv keyed.truth
expect_err "^mmnc eval: 1 of 9 items of keyed\.truth have no prediction and are excluded: '0'$"
printf '1 a\n2 a\n3 a\n4 a\n5 b\n6 b\n7 b\n8 b\nx b\n9 b\n10 a\n11 a\n' >keyed2.truth
run cluster -k 2 -t 1 -q --truth keyed2.truth -o kt2 "$BLOCKS"
expect_rc 0
expect_err "^mmnc cluster: 4 of 12 items of keyed2\.truth name no row of nonzero mass and are excluded: 'x', '9', '10' and 1 more$"
# every id a row, or one label per line, or libsvm lines ("label idx:val", two fields too): nothing to say
printf 'a 1:1\na 1:1\na 1:1\na 1:1\nb 2:1\nb 2:1\nb 2:1\nb 2:1\n' >svm.truth
head -8 keyed.truth >k8.truth
for f in "$FIX/blocks.truth" k8.truth svm.truth; do
    run cluster -k 2 -t 1 -q --truth "$f" -o kt3 "$BLOCKS"
    expect_rc 0
    if [ -s "$ERR" ]; then fail_because "$f: $(cat "$ERR")"; fi
done
end

begin "cluster --truth with --row-names: 'id label' lines name the rows as labels.tsv, --labels and eval do"
paste -d' ' "$FIX/rows.names" "$FIX/blocks.truth" >named.truth
run cluster -k 2 -t 1 --row-names "$FIX/rows.names" --truth named.truth -o nt "$BLOCKS"
expect_rc 0
expect_out "ACC 100\.00%"
grep -q 'name no row' "$ERR" && fail_because "ids taken for unknown: $(grep 'name no row' "$ERR")"
run eval nt.labels.tsv named.truth
expect_rc 0
expect_out "^ACC +100\.00%"
# --labels knows the rows by the same names
printf 'row_one 1\nrow_five 2\n' >given.tsv
run cluster -q -k 2 -t 1 --row-names "$FIX/rows.names" --labels given.tsv --truth named.truth -o ng "$BLOCKS"
expect_rc 0
expect_partition ng.labels.tsv "row_one row_two row_three row_four|row_five row_six row_seven row_eight"
# an 'id label' file of row numbers names no row then, as for --labels and eval
awk '{ print NR, $1 }' "$FIX/blocks.truth" >numbered.truth
snapshot
run cluster -q -k 2 -t 1 --row-names "$FIX/rows.names" --truth numbered.truth -o nn "$BLOCKS"
expect_rc 1
expect_err "^mmnc cluster: numbered\.truth: no label for row id 'row_one'$"
expect_nonew
# one label per line still goes by line; eval, which sees only names, says how to give them
run cluster -q -k 2 -t 1 --row-names "$FIX/rows.names" --truth "$FIX/blocks.truth" -o np "$BLOCKS"
expect_rc 0
run eval np.labels.tsv "$FIX/blocks.truth"
expect_rc 1
expect_err "ids there look like 'row_one'; here like '1'\): a TRUTH of one label per line .* give 'id label' lines"
end

begin "cluster --truth - (standard input, a pipe, gzip) and a pipe's path: ids that name no row are said as for a file"
printf '1 a\n2 a\n3 a\n4 a\n5 b\n6 b\n7 b\n8 b\n0 b\n' >keyed.truth
mkdir tmp
TMPDIR=$PWD/tmp run cluster -k 2 -t 1 --truth - -o s1 "$BLOCKS" <keyed.truth
expect_rc 0
expect_out "ACC 100\.00%"
expect_err "^mmnc cluster: 1 of 9 items of - name no row of nonzero mass and are excluded: '0'$"
TMPDIR=$PWD/tmp run cluster -k 2 -t 1 -q --truth - -o s2 "$BLOCKS" < <(gzip -c keyed.truth)
expect_rc 0
expect_err "^mmnc cluster: 1 of 9 items of - name no row of nonzero mass and are excluded: '0'$"
TMPDIR=$PWD/tmp run cluster -k 2 -t 1 -q --truth <(cat keyed.truth) -o s3 "$BLOCKS"
expect_rc 0
expect_err "^mmnc cluster: 1 of 9 items of /dev/fd/[0-9]+ name no row of nonzero mass and are excluded: '0'$"
# the library's messages name standard input as before
TMPDIR=$PWD/tmp run cluster -k 2 -t 1 -q --truth - -o s4 "$BLOCKS" < <(printf '1 a\n2 a b\n')
expect_rc 1
expect_err "^mmnc cluster: -:2: expected 'id label', found '2 a b'$"
expect_nofile s4.labels.tsv
[ -z "$(ls -A tmp)" ] || fail_because "copies left in TMPDIR: $(ls -A tmp)"
end

begin "cluster --truth with a blank line is rejected like in eval"
printf 'a\na\n\na\na\nb\nb\nb\nb\n' >blank.truth
snapshot
run cluster -q --truth blank.truth -o out "$BLOCKS"
expect_rc 1
expect_err "blank\.truth:3: "
expect_nonew
end

begin "cluster --truth of one label per line with triplet rows whose numeric ids are not their place: refused"
# rows read in the order 2 3 1 4; line k of the truth is id k for mmnc eval,
# the k-th row read for a positional reading: the two disagree, so neither
printf '2 1 2\n2 2 2\n3 3 5\n3 4 1\n1 1 3\n1 2 1\n4 3 4\n4 4 2\n' >perm.txt
printf 'a\na\nb\nb\n' >perm.truth
snapshot
run cluster -q -k 2 -t 1 --truth perm.truth -o p perm.txt
expect_rc 1
expect_err "^mmnc cluster: perm\.truth: one label per line gives the rows by their place as read, but row 1 as read has the id '2'.*give 'id label' lines$"
expect_nonew
# ids that are their places (1 2 3 4 in order) still go by line, and agree with eval
sort -n -k1,1 -s perm.txt >sorted.txt
run cluster -q -k 2 -t 1 --truth perm.truth -o s sorted.txt
expect_rc 0
expect_grep '"acc": 1,' s.json
run eval s.labels.tsv perm.truth
expect_rc 0
expect_out "^ACC +100\.00%"
# 'id label' lines name them whatever their order
awk '{ print NR, $1 }' perm.truth >pairs.truth
run cluster -q -k 2 -t 1 --truth pairs.truth -o q perm.txt
expect_rc 0
expect_grep '"acc": 1,' q.json
end

# ---- eval ---------------------------------------------------------------------

begin "eval cluster labels vs truth: perfect"
run cluster -q -o b "$BLOCKS"
run eval b.labels.tsv "$FIX/blocks.truth"
expect_rc 0
expect_out "^ACC +100\.00%"
expect_out "^NMI +1\.0000"
expect_out "^n +8"
end

begin "numbers in options and in eval's probabilities: decimal only (no hexadecimal, inf, nan)"
snapshot
for a in "cluster --tol 0x1p-3|--tol|0x1p-3" "cluster --tol inf|--tol|inf" "cluster --move-tol nan|--move-tol|nan" \
         "cluster --dmm-beta 0x10|--dmm-beta|0x10" "cluster --size-prior 1,5|--size-prior|1,5" \
         "cluster --select-tol 0x0|--select-tol|0x0" "cluster -a frobenius --lambda infinity|--lambda|infinity" \
         "embed -d 2 --tol 0X1P-4|--tol|0X1P-4" "embed -d 2 --sigma-power nan|--sigma-power|nan"; do
    IFS='|' read -r args opt val <<<"$a"
    # shellcheck disable=SC2086
    run $args -q -o x "$BLOCKS"
    expect_rc 2
    expect_err "^mmnc [a-z]+: option $opt: expected a decimal number from .* got '$val'"
done
run generate --rows 20 --cols 10 -k 2 --ratio 0x1p+2 -q -o g.mtx
expect_rc 2
expect_err "option --ratio: expected a decimal number from .* got '0x1p\+2'"
run docs "$FIX/docs" --min-df 0x2 -o d.mtx
expect_rc 2
expect_err "option --min-df: expected a decimal number from .* got '0x2'"
run cluster -q -k 2 -a nuclear --pz 0x1p-1,0.5 -o x "$BLOCKS"
expect_rc 2
expect_err "^mmnc cluster: --pz: expected 'uniform' or 2 positive comma-separated decimal numbers, got '0x1p-1,0.5'"
run cluster -q -k 2 -a nuclear --pz 0.5,inf -o x "$BLOCKS"
expect_rc 2
expect_err "got '0\.5,inf'"
expect_nonew
# decimal numbers as before, --pz's too
run cluster -q -k 2 -t 1 -a frobenius --tol 1e-6 -o ok "$BLOCKS"
expect_rc 0
run cluster -q -k 2 -t 1 -a nuclear --pz 1,1. --restarts 1 -o okpz "$BLOCKS"
expect_rc 0
# eval's probability column: a hexadecimal or non-finite one names the file and line
printf 'id\tcluster\tprobability\n1\t1\t0x1p-1\n2\t1\t1\n' >hex.tsv
printf '1 a\n2 a\n' >t.truth
run eval hex.tsv t.truth
expect_rc 1
expect_err "^mmnc eval: hex\.tsv:2: expected a probability in \[0, 1\] \(a decimal number\), got '0x1p-1'"
printf 'id\tcluster\tprobability\n1\t1\tnan\n2\t1\t1\n' >nan.tsv
run eval nan.tsv t.truth
expect_rc 1
expect_err "nan\.tsv:2: expected a probability"
printf 'id\tcluster\tprobability\n1\t1\t0.5\n2\t1\t1\n' >ok.tsv
run eval ok.tsv t.truth
expect_rc 0
end

begin "eval --json parses"
run cluster -q -o b "$BLOCKS"
run eval --json b.labels.tsv "$FIX/blocks.truth"
expect_rc 0
if [ "$HAVE_PY" = 1 ]; then
    python3 -c 'import json,sys; d = json.load(sys.stdin); sys.exit(0 if d["acc"] == 1 and d["n"] == 8 else 1)' <"$OUT" ||
        fail_because "stdout is not JSON with acc 1, n 8"
else
    expect_out '"acc": 1'
fi
end

begin "eval one mistake: ACC 87.50%"
printf 'id\tcluster\tprobability\n' >pred.tsv
for i in 1 2 3; do printf '%s\t1\t1\n' $i; done >>pred.tsv
for i in 4 5 6 7 8; do printf '%s\t2\t0.9\n' $i; done >>pred.tsv
run eval pred.tsv "$FIX/blocks.truth"
expect_rc 0
expect_out "^ACC +87\.50%"
expect_out "^purity +87\.50%"
end

begin "eval string ids with 'id label' truth pairs"
run cluster -q --map rating3 -o r "$FIX/ratings.tsv"
run eval r.labels.tsv "$FIX/ratings.truth"
expect_rc 0
expect_out "^ACC +100\.00%"
expect_out "^n +6"
end

begin "eval: a byte-order mark starting TRUTH or PRED is skipped"
run cluster -q -o b "$BLOCKS"
{ printf '\357\273\277'; cat b.labels.tsv; } >bom.tsv
{ printf '\357\273\277'; cat "$FIX/blocks.truth"; } >bom.truth
{ printf '\357\273\277'; awk '{ print NR, $0 }' "$FIX/blocks.truth"; } >bompairs.truth
for t in bom.truth bompairs.truth; do
    run eval bom.tsv "$t"
    expect_rc 0
    expect_out "^ACC +100\.00%"
    expect_out "^classes +2"
    expect_out "^n +8"
done
end

begin "eval: items without prediction are reported and excluded"
printf 'id\tcluster\tprobability\n1\t1\t1\n2\t1\t1\n5\t2\t1\n6\t2\t1\n' >pred.tsv
run eval pred.tsv "$FIX/blocks.truth"
expect_rc 0
expect_out "^n +4"
expect_err "^mmnc eval: 4 of 8 items of .*blocks\.truth have no prediction and are excluded: '3', '4', '7' and 1 more$"
end

begin "eval: a libsvm TRUTH of one feature a line is read as cluster --truth reads it, not as pairs"
# "label idx:val" lines have two fields; read as "id label" pairs they gave
# duplicate ids (eval) where cluster --truth reads each line's label
printf '2 1:3\n2 1:2\n1 2:4\n1 2:1\n' >one.svm
run cluster -q -o one one.svm -k 2 -t 1 --no-soft
expect_rc 0
run cluster -o one2 one.svm -k 2 -t 1 --no-soft --truth one.svm
expect_rc 0
expect_out "vs one\.svm: ACC 100\.00%"
run eval one.labels.tsv one.svm
expect_rc 0
expect_out "^ACC +100\.00%"
expect_out "^classes +2"
expect_out "^n +4"
end

bad "eval: not a labels file -> file:1" 1 "blocks\.truth:1: expected the header" \
    eval "$FIX/blocks.truth" "$FIX/blocks.truth"
begin "eval: bad cluster number -> file:line"
printf 'id\tcluster\tprobability\n1\t1\t1\n2\tx\t1\n' >pred.tsv
snapshot
run eval pred.tsv "$FIX/blocks.truth"
expect_rc 1
expect_err "pred\.tsv:3: "
expect_nonew
end
bad "eval: one file only -> usage" 2 "expected two files" eval "$FIX/blocks.truth"
bad "eval: unknown option -> usage" 2 "unknown option '--bogus'" eval --bogus a b
bad "eval: missing PRED file" 1 "nosuch\.tsv: cannot open" eval nosuch.tsv "$FIX/blocks.truth"

# ---- info ---------------------------------------------------------------------

begin "sweep k = 1..3: table, suggested k, tsv, no plot; the default's starts' agreement at each k"
run sweep --kmin 1 --kmax 3 --plot none -o s "$BLOCKS"
expect_rc 0
expect_out "suggested k = 2 \(among the k whose starts agree within 0\.05 of the best"
expect_out "agreement: the mean adjusted Rand index"
expect_file s.sweep.tsv
expect_nofile s.sweep.svg
expect_grep "^k	objective	gain" s.sweep.tsv
expect_grep "^2	[^	]*	[^	]*	[^	]*	[^	]*	[^	]*	1	" s.sweep.tsv
end

if command -v gnuplot >/dev/null 2>&1; then
    begin "sweep --plot svg draws the curve with gnuplot"
    run sweep --kmin 1 --kmax 3 -o s "$BLOCKS"
    expect_rc 0
    expect_file s.sweep.svg
    expect_grep "<svg" s.sweep.svg
    end

    begin "sweep: quotes and a backquote in the output path reach gnuplot intact"
    run sweep --kmin 1 --kmax 2 -o "it's \"q\" \`x\`" "$BLOCKS"
    expect_rc 0
    expect_grep "<svg" "it's \"q\" \`x\`.sweep.svg"
    end
fi

begin "sweep with two values of k: no suggestion, and why"
run sweep --kmin 7 --kmax 8 -t 1 --plot none -o s2 "$BLOCKS"
expect_rc 0
expect_out "^no suggested k \(the rule compares the gain of one more cluster before and after k"
expect_out "three values of k or more, and 2 were run\); wrote s2\.sweep\.tsv"
if grep -q "suggested k =\|<- suggested" "$OUT"; then fail_because "a k is suggested"; fi
expect_file s2.sweep.tsv
end

begin "sweep with one value of k: no suggestion, none on the plot"
run sweep --kmin 2 --kmax 2 -t 1 -o s1 "$BLOCKS"
expect_rc 0
expect_out "^no suggested k \(.*"
expect_out "1 was run\)"
if grep -q "suggested k =\|<- suggested" "$OUT"; then fail_because "a k is suggested"; fi
if command -v gnuplot >/dev/null 2>&1; then expect_grep "mmnc sweep: no suggested k" s1.sweep.svg; fi
end

begin "sweep -a information: J and I(X;Z), and how well the starts agree at each k"
run sweep -a information --kmin 1 --kmax 3 --plot none -o si "$BLOCKS"
expect_rc 0
expect_out "suggested k = 2 \(among the k whose starts agree within 0\.05 of the best"
expect_out "agreement: the mean adjusted Rand index"
expect_grep "^k	objective	gain	nuclear	frobenius	mutual_information	agreement	seconds" si.sweep.tsv
expect_grep "^2	[^	]*	[^	]*	[^	]*	[^	]*	[^	]*	1	" si.sweep.tsv
end

begin "sweep -a nuclear: no agreement, the elbow of the norm alone"
run sweep -a nuclear --kmin 1 --kmax 3 --plot none -o sn "$BLOCKS"
expect_rc 0
expect_out "suggested k = 2 \(the gain of one more cluster drops most after it\)"
expect_grep "^2	[^	]*	[^	]*	[^	]*	[^	]*	[^	]*	nan	" sn.sweep.tsv
if grep -q "^agreement:" "$OUT"; then fail_because "an agreement line without an agreement"; fi
end

begin "sweep: each k is mmnc cluster -k K, the same objective to the last digit"
run generate -q --rows 600 --cols 300 -k 4 --ratio 8 --draws 30 -o g.mtx
run cluster -q g.mtx -k 4 -o c
run sweep -q --kmin 3 --kmax 5 --plot none -o g g.mtx
expect_rc 0
obj=$(sed -n 's/^  "objective": \(.*\),$/\1/p' c.json)
[ -n "$obj" ] && grep -q "^4	$obj	" g.sweep.tsv || fail_because "cluster's objective '$obj' is not sweep's at k = 4"
end

begin "sweep on a planted matrix suggests the planted k"
run generate -q --rows 600 --cols 300 -k 4 --ratio 8 --draws 30 -o g.mtx
run sweep -q --kmax 7 --plot none -o g g.mtx
expect_rc 0
expect_out "suggested k = 4 "
end

begin "sweep --kmin 4 --kmax 3 -> usage, exit 2"
run sweep --kmin 4 --kmax 3 "$BLOCKS"
expect_rc 2
end

begin "generate: deterministic planted partition that cluster recovers"
run generate --rows 600 --cols 300 -k 3 --ratio 50 --draws 30 -o g.mtx
expect_rc 0
expect_file g.mtx g.truth
expect_grep "^600 300 [0-9]+ *$" g.mtx
[ "$(wc -l < g.truth)" = 600 ] || fail_because "g.truth does not have 600 labels"
"$MMNC" generate --rows 600 --cols 300 -k 3 --ratio 50 --draws 30 -q -o g2.mtx >/dev/null 2>&1
expect_same g.mtx g2.mtx
"$MMNC" cluster g.mtx -k 3 --truth g.truth -q -o gc >/dev/null 2>&1
expect_grep '"acc": 1[,.]' gc.json
end

begin "generate: the command recorded in the file makes the same matrix again (every digit of the options)"
run generate --rows 60 --cols 30 -k 3 --draws 12.3456789 --ratio 2.000001 --skew 0.123456789 -q -o g.mtx
expect_rc 0
expect_grep '^% mmnc generate .*--draws 12\.3456789 --ratio 2\.000001 --skew 0\.123456789 ' g.mtx
# shellcheck disable=SC2046 # the recorded options, word by word
"$MMNC" $(sed -n '2s/^% mmnc //p' g.mtx) -q -o g2.mtx >/dev/null 2>&1
sed 1,2d g.mtx >g.body
sed 1,2d g2.mtx >g2.body
expect_same g.body g2.body
end

begin "generate -k larger than rows -> usage, exit 2, no files"
snapshot
run generate --rows 2 -k 3 -o h.mtx
expect_rc 2
expect_nonew
end

begin "info shape line"
run info "$BLOCKS"
expect_rc 0
expect_out "^shape +8 rows x 6 columns, 26 nonzeros"
expect_out "^components +1 "
end

begin "info --sv 3: first singular value 1"
run info --sv 3 "$BLOCKS"
expect_rc 0
expect_out "^DTM spectrum +1\.000000 0\.[0-9]+ 0\.[0-9]+$"
expect_out "1 singular values equal to 1"
end

begin "info block-diagonal: 2 components, 2 unit singular values"
run info --sv 3 "$FIX/blocks2.mtx"
expect_rc 0
expect_out "^components    2 "
expect_out "^DTM spectrum +1\.000000 1\.000000 "
expect_out "2 singular values equal to 1"
end

begin "info --json parses"
run info --json --sv 2 "$FIX/blocks2.mtx"
expect_rc 0
if [ "$HAVE_PY" = 1 ]; then
    python3 -c '
import json, sys
d = json.load(sys.stdin)
ok = d["rows"] == 6 and d["columns"] == 5 and d["nonzeros"] == 12 and d["components"] == 2 \
     and d["unit_singular_values"] == 2 and abs(d["singular_values"][0] - 1) < 1e-8
sys.exit(0 if ok else 1)' <"$OUT" || fail_because "stdout is not the expected JSON"
else
    expect_out '"components": 2'
fi
end

begin "info triplet: --map rating3 and --value-field 0"
run info --map rating3 "$FIX/ratings.tsv"
expect_rc 0
expect_out "^shape +6 rows x 4 columns, 12 nonzeros"
expect_out "^components +2 "
run info --format triplet --value-field 0 --extra-fields ignore "$FIX/ratings.tsv"
expect_rc 0
expect_out "^shape +6 rows x 4 columns, 14 nonzeros .*sum 14$"
end

bad "info: missing file" 1 "nosuch\.mtx: cannot open" info nosuch.mtx
MMNC_SCREEN=yes bad "MMNC_SCREEN not 0, 1 or 2 -> usage" 2 "MMNC_SCREEN=yes: expected 0" cluster "$BLOCKS" -k 2 -o scr
bad "info: --sv not a number -> usage" 2 "option --sv" info --sv x "$BLOCKS"

# ---- cooc ---------------------------------------------------------------------

begin "cooc: golden matrix and vocabulary (harmonic, sentences)"
run cooc -q --min-count 1 -w 2 "$FIX/words.txt" -o w.mtx
expect_rc 0
expect_file w.mtx w.vocab
expect_same w.mtx "$FIX/words.expected.mtx"
expect_same w.vocab "$FIX/words.expected.vocab"
expect_nofile .mmnc-*
end

begin "cooc then cluster: the cooc vocabulary names the rows and the columns"
"$MMNC" cooc -q --min-count 1 -w 2 "$FIX/words.txt" -o w.mtx || fail_because "cooc failed"
run cluster -k 2 -r 2 -o w w.mtx
expect_rc 0
expect_err "names from w\.vocab"
cut -f1 w.labels.tsv | sed 1d | sort >rows.got
sort w.vocab >rows.want
expect_same rows.got rows.want
cut -f4 w.top.tsv | sed 1d | sort -u >cols.got
[ -s cols.got ] && comm -23 cols.got rows.want | grep -q . && fail_because "top.tsv names a column not in w.vocab"
end

begin "a vocabulary that repeats a word: cluster and embed write WORD#2, one warning"
cp "$FIX/words.expected.mtx" w.mtx
printf 'apple\nbanana\napple\n' >w.vocab
run cluster -k 2 -t 1 -o w w.mtx
expect_rc 0
expect_err "names from w\.vocab"
[ "$(grep -c repeat "$ERR")" = 1 ] || fail_because "w.vocab, rows and columns: $(grep -c repeat "$ERR") warnings, not 1"
expect_grep '^apple#2	' w.labels.tsv
run embed -q w.mtx -d 1 -o w.txt
expect_rc 0
expect_err "^mmnc embed: warning: w\.vocab: 1 name repeats an earlier one, .* written 'apple#2'\)$"
expect_grep '^apple#2 -?[0-9.e-]+$' w.txt
end

begin "cooc: vocabulary by frequency, windows stop at blank lines"
run cooc --min-count 1 -w 1 --weighting flat "$FIX/para.txt" -o p.mtx
expect_rc 0
expect_same p.vocab "$FIX/para.expected.vocab"
expect_grep '^3 3 4$' p.mtx
expect_grep '^1 2 2$' p.mtx
grep -Eq '^(2 3|3 2) ' p.mtx && fail_because "b and c co-occur across a blank line"
expect_err "1 file, 5 tokens, vocabulary 3"
end

begin "cooc: gzip input, --vocab path"
gzip -c "$FIX/words.txt" >words.txt.gz
run cooc -q --min-count 1 -w 2 words.txt.gz -o w.mtx --vocab v.txt
expect_rc 0
expect_same w.mtx "$FIX/words.expected.mtx"
expect_same v.txt "$FIX/words.expected.vocab"
expect_nofile w.vocab
end

begin "cooc: a text of one word counts no pair: an error, no file left"
echo word >one.txt
snapshot
run cooc one.txt --min-count 1 -o one.mtx --tokens one.tok
expect_rc 1
expect_err "^mmnc cooc: no co-occurrence counted in one\.txt \(1 token read, a vocabulary of 1 word "
expect_err "no two tokens of the vocabulary lie within 5 words of each other in one sentence"
expect_err "nothing written"
expect_nonew
end

begin "cooc: sentences of one word each count no pair; --no-sentences counts some"
printf 'one. two. three.\n' >s.txt
snapshot
run cooc -w 2 s.txt --min-count 1 -o s.mtx
expect_rc 1
expect_err "no co-occurrence counted in s\.txt \(3 tokens read, a vocabulary of 3 words .* within 2 words .* or --no-sentences may"
expect_nonew
run cooc -q -w 2 --no-sentences s.txt --min-count 1 -o s.mtx
expect_rc 0
expect_grep "^3 3 6$" s.mtx
end

bad "cooc: no -o -> usage" 2 "no output file" cooc "$FIX/words.txt"
bad "cooc: no input -> usage" 2 "no input text files" cooc -o x.mtx
bad "cooc: missing input file" 1 "nosuch\.txt: cannot open" cooc nosuch.txt -o x.mtx
bad "cooc: --window 0 -> usage" 2 "--window" cooc -w 0 "$FIX/words.txt" -o x.mtx
bad "cooc: output dir does not exist" 1 "/nonexistent/dir/x" cooc --min-count 1 "$FIX/words.txt" -o /nonexistent/dir/x.mtx
begin "cooc: xz input gives the same matrix as plain text"
xz -c "$FIX/words.txt" >words.txt.xz
run cooc -q --min-count 1 -w 2 words.txt.xz -o w.mtx
expect_rc 0
expect_same w.mtx "$FIX/words.expected.mtx"
expect_same w.vocab "$FIX/words.expected.vocab"
end

begin "cooc -o w.bin: the same matrix in the binary format, w.vocab beside it; embed finds the words"
run cooc -q --min-count 1 -w 2 "$FIX/words.txt" -o w.bin
expect_rc 0
expect_file w.bin w.vocab
expect_same w.vocab "$FIX/words.expected.vocab"
run convert -q w.bin back.mtx
expect_rc 0
expect_same back.mtx "$FIX/words.expected.mtx"
run embed -q w.bin -d 2 -o w.vec
expect_rc 0
expect_grep "^apple " w.vec
end

begin "cooc: concatenated gzip members and xz streams read as one text"
head -c 40 "$FIX/words.txt" >part1.txt
tail -c +41 "$FIX/words.txt" >part2.txt
{ gzip -c part1.txt; gzip -c part2.txt; } >cat.txt.gz
{ xz -c part1.txt; xz -c part2.txt; } >cat.txt.xz
run cooc -q --min-count 1 -w 2 cat.txt.gz -o g.mtx
expect_rc 0
expect_same g.mtx "$FIX/words.expected.mtx"
run cooc -q --min-count 1 -w 2 cat.txt.xz -o x.mtx
expect_rc 0
expect_same x.mtx "$FIX/words.expected.mtx"
end

begin "cooc: truncated xz text"
xz -c "$FIX/words.txt" | head -c 50 >cut.txt.xz
snapshot
run cooc --min-count 1 cut.txt.xz -o x.mtx
expect_rc 1
expect_err "cut\.txt\.xz: truncated xz"
expect_nonew
end

bad "cooc: standard input is refused (two passes)" 1 "standard input cannot be read twice" cooc -o x.mtx -
begin "cooc --tokens: the text as the windows see it"
printf 'The cat sat. The dog ran!\n\nA cat, a dog.\nrare zebra\n' >t1.txt
printf 'Dog and cat\n' >t2.txt
run cooc -q --min-count 2 t1.txt t2.txt -o t.mtx --tokens t.tok
expect_rc 0
printf 'the cat\nthe dog\n\na cat a dog\n\ndog cat\n\n' >expected.tok
expect_same t.tok expected.tok
end

begin "cooc --tokens: no token file when an input fails"
printf 'The cat sat.\n' >t1.txt
snapshot
run cooc -q --min-count 1 t1.txt nosuch.txt -o t.mtx --tokens t.tok
expect_rc 1
expect_err "nosuch\.txt: cannot open"
expect_nonew
end

begin "cooc: truncated gzip text"
gzip -c "$FIX/words.txt" | head -c 30 >cut.txt.gz
snapshot
run cooc --min-count 1 cut.txt.gz -o x.mtx
expect_rc 1
expect_err "cut\.txt\.gz"
expect_nonew
end

begin "cooc --memory: the same files as without, the runs spilled reported, nothing left in TMPDIR"
GE=$SRC/data/great-expectations.txt.gz
run cooc -q "$GE" -o a.mtx
expect_rc 0
mkdir spill
TMPDIR=$PWD/spill run cooc "$GE" -o b.mtx --memory 64K
expect_rc 0
expect_same a.mtx b.mtx
expect_same a.vocab b.vocab
expect_err "tokens/s counting, [0-9]+ sorted runs spilled \([0-9.]+ MB written\)"
TMPDIR=$PWD/spill run cooc -q "$GE" -o c.mtx --memory 1M -t 1 --weighting flat --min-count 1
expect_rc 0
run cooc -q "$GE" -o d.mtx -t 2 --weighting flat --min-count 1
expect_rc 0
expect_same c.mtx d.mtx
[ -z "$(ls -A spill)" ] || fail_because "left in TMPDIR: $(ls -A spill | tr '\n' ' ')"
end

bad "cooc --memory 12Q -> usage" 2 "option --memory: expected a size .* got '12Q'" cooc --memory 12Q "$FIX/words.txt" -o x.mtx
bad "cooc --memory below 64K -> usage" 2 "option --memory: 1000 is below the smallest limit, 64K" cooc --memory 1000 "$FIX/words.txt" -o x.mtx
bad "cooc --memory -1 -> usage" 2 "option --memory: expected a size" cooc --memory -1 "$FIX/words.txt" -o x.mtx
TMPDIR=/nonexistent/dir bad "cooc --memory: TMPDIR missing -> names it" 1 "cannot create the temporary file of sorted runs in /nonexistent/dir" cooc --memory 64K "$SRC/data/great-expectations.txt.gz" -o x.mtx

# ---- embed and msr ----------------------------------------------------------------

begin "embed: word2vec text with the cooc vocabulary, then binary"
cp "$FIX/words.expected.mtx" w.mtx
cp "$FIX/words.expected.vocab" w.vocab
run embed -q w.mtx -d 2 -o w.txt --sv w.sv
expect_rc 0
expect_grep '^3 2$' w.txt
expect_grep '^apple -?[0-9.e-]+ -?[0-9.e-]+$' w.txt
expect_grep '^cherry ' w.txt
[ "$(wc -l <w.sv)" = 2 ] || fail_because "w.sv should hold 2 singular values"
run embed -q w.mtx -d 2 -o w.bin
expect_rc 0
[ "$(head -n 1 w.bin)" = "3 2" ] || fail_because "w.bin header"
# "3 2\n", then per word: the word, a space, 2 float32, a newline
[ "$(stat -c %s w.bin)" = $((4 + 5 + 6 + 6 + 3 * (1 + 8 + 1))) ] || fail_because "w.bin size $(stat -c %s w.bin)"
end

begin "embed --residuals: a second column in --sv, converged vectors"
cp "$FIX/words.expected.mtx" w.mtx
run embed -q w.mtx -d 2 -o w.txt --sv w.sv --residuals
expect_rc 0
[ "$(wc -l <w.sv)" = 2 ] || fail_because "w.sv should hold 2 lines"
awk 'NF != 2 || $2 + 0 > 1e-10 || $2 + 0 < 0 { exit 1 }' w.sv || fail_because "w.sv: $(cat w.sv)"
end

begin "embed: same vectors for 1 and 2 threads"
run embed -q "$BLOCKS" -d 1 -t 1 -o one.txt
run embed -q "$BLOCKS" -d 1 -t 2 -o two.txt
expect_rc 0
expect_same one.txt two.txt
end

begin "embed: a --dim beyond the rank: null directions of the DTM, not the trivial coordinate, and a warning"
# 5 x 4 of rank 3: two singular values after the trivial one; the third
# coordinate is a null vector of B less its trivial pair, which sqrt(P_Y) is
# too: it must be one of B itself, sum_y P_Y(y) E[y][3] = 0 (P_Y = 2 4 2 2 2)
printf '1 1 1\n1 2 1\n2 1 2\n2 2 2\n3 3 1\n3 4 1\n4 3 1\n4 4 1\n5 1 1\n5 3 1\n' >r3.txt
run embed -d 3 r3.txt -o r3.vec --sv r3.sv
expect_rc 0
expect_err "^mmnc embed: warning: coordinates 3\.\.3 have singular value 0 .*--dim 2 leaves them out$"
awk 'NR > 1 { w = $1 == 2 ? 4 : 2; s += w * $4; n += w * $4 * $4 } END { exit !(s * s < 1e-20 * n && n > 0.5) }' \
    r3.vec || fail_because "coordinate 3 is not orthogonal to the trivial one: $(cat r3.vec)"
run embed -q -d 2 r3.txt -o r3.vec
expect_rc 0
[ ! -s "$ERR" ] || fail_because "a warning at --dim 2: $(cat "$ERR")"
# identical rows (up to scale): every coordinate is a null direction, none the constant 1
printf '1 1 3\n1 2 1\n2 1 3\n2 2 1\n3 1 6\n3 2 2\n' >same.txt
run embed -d 1 same.txt -o same.vec
expect_rc 0
expect_err "warning: coordinates 1\.\.1 have singular value 0 .*every row has one distribution"
awk 'NR > 1 { w = $1 == 3 ? 2 : 1; s += w * $2; n += w * $2 * $2 } END { exit !(s * s < 1e-20 * n && n > 0.5) }' \
    same.vec || fail_because "the coordinate is not orthogonal to the trivial one: $(cat same.vec)"
end

bad "embed: --dim too large" 2 "--dim 3 is too large" embed "$FIX/words.expected.mtx" -d 3 -o x.txt
bad "embed: no -o" 2 "no output file" embed "$FIX/words.expected.mtx"
bad "embed: missing data" 1 "nosuch\.mtx: cannot open" embed nosuch.mtx -o x.txt
bad "embed: --sv unwritable -> no vectors either" 1 "/nonexistent/sv" embed -q "$FIX/words.expected.mtx" -d 1 -o x.txt --sv /nonexistent/sv

# Vectors where cat ~ sat and road ~ drove; zebra has none.
msr_files() {
    printf '6 2\ncat 1 0\ndog 0.9 0.1\nsat 1 0.05\ncar 0 1\nroad 0.1 1\ndrove 0 0.9\n' >v.txt
    printf 'id,question,a),b),c),d),e)\r\n1,The _____ sat on the mat.,car,cat,road,zebra,drove\r\n' >q.csv
    printf '2,"He drove the _____ , fast.",cat,dog,road,sat,zebra\r\n3,Nothing _____ known here.,cat,dog,road,sat,car\r\n' >>q.csv
    printf 'id,answer\r\n1,b\r\n2,c\r\n3,a\r\n' >a.csv
}

begin "msr: answers by mean cosine; unanswered counts as wrong"
msr_files
run msr v.txt q.csv a.csv -o pred.tsv
expect_rc 0
expect_out "^accuracy 0\.6667 \(2/3\)$"
expect_out "answered 2"
expect_grep '^1	b	' pred.tsv
expect_grep '^2	c	' pred.tsv
expect_grep '^3	-	-	-' pred.tsv
end

begin "msr: a byte-order mark starting the vectors, questions and answers is skipped"
msr_files
for f in v.txt q.csv a.csv; do { printf '\357\273\277'; cat $f; } >bom.$f; done
run msr bom.v.txt bom.q.csv bom.a.csv
expect_rc 0
expect_out "^accuracy 0\.6667 \(2/3\)$"
end

begin "msr: --half odd, binary vectors, -q"
msr_files
python3 -c '
import struct, sys
lines = open("v.txt").read().split("\n")
with open("v.bin", "wb") as f:
    f.write((lines[0] + "\n").encode())
    for l in lines[1:]:
        if l:
            w, *x = l.split()
            f.write(w.encode() + b" " + struct.pack("<%df" % len(x), *map(float, x)) + b"\n")
'
run msr -q --half odd v.bin q.csv a.csv
expect_rc 0
[ "$(cat "$OUT")" = "accuracy 0.5000 (1/2)" ] || fail_because "stdout: $(cat "$OUT")"
end

begin "msr: --ignore-top drops the most frequent words as context"
msr_files
printf 'sat\nthe\ndrove\n' >freq.vocab
run msr --ignore-top 1 --vocab freq.vocab v.txt q.csv a.csv -o pred.tsv
expect_rc 0
expect_out "^accuracy 0\.3333 \(1/3\)$"
expect_grep '^1	-	' pred.tsv
run msr --ignore-top 1 v.txt q.csv a.csv
expect_rc 2
expect_err "needs --vocab"
end

begin "msr: bad question file -> file:line"
msr_files
printf '4,No blank here.,a,b,c,d,e\r\n' >>q.csv
run msr v.txt q.csv a.csv
expect_rc 1
expect_err "q\.csv:5: .*blank"
end

begin "msr: an answer missing"
msr_files
printf 'id,answer\r\n1,b\r\n' >a.csv
run msr v.txt q.csv a.csv
expect_rc 1
expect_err "a\.csv: no answer for question 2"
end

# ---- cluster: bad input ---------------------------------------------------------

# mtx NAME LAST-LINE: a 3 x 2 Matrix Market file whose third entry (line 5)
# is LAST-LINE.
mtx() {
    printf '%%%%MatrixMarket matrix coordinate real general\n3 2 3\n1 1 1\n2 2 2\n%s\n' "$2" >"$1"
}

# bad_data NAME FILE STDERR-PATTERN [OPTIONS...]: FILE is created in the case
# directory by the preceding command list in $MAKE; cluster without -o (default
# prefix from FILE's name) must fail with status 1.
bad_data() {
    local name=$1 file=$2 pat=$3
    shift 3
    begin "cluster bad data: $name"
    eval "$MAKE"
    snapshot
    run cluster -q "$@" "$file"
    expect_rc 1
    expect_err "$pat"
    expect_nonew
    # the same with an explicit prefix and info: also status 1
    run cluster -q -o out "$@" "$file"
    expect_rc 1
    run info -q "$@" "$file"
    expect_rc 1
    expect_err "$pat"
    expect_nonew
    end
}

MAKE="mtx bad.mtx '3 1 x'"
bad_data "malformed line" bad.mtx "bad\.mtx:5: "
MAKE="mtx bad.mtx '3 1 1 7'"
bad_data "extra field" bad.mtx "bad\.mtx:5: "
MAKE="mtx bad.mtx '3 1 nan'"
bad_data "NaN" bad.mtx "bad\.mtx:5: .*(nan|NaN|finite)"
MAKE="mtx bad.mtx '3 1 inf'"
bad_data "Inf" bad.mtx "bad\.mtx:5: .*(inf|Inf|finite)"
MAKE="mtx bad.mtx '3 1 -1'"
bad_data "negative value" bad.mtx "bad\.mtx:5: .*negative"
MAKE="mtx bad.mtx '3 1 0x10'"
bad_data "hexadecimal value" bad.mtx "bad\.mtx:5: expected a decimal number, found '0x10'"
MAKE="mtx bad.mtx '3 1 1e-400'"
bad_data "value that underflows to 0" bad.mtx "bad\.mtx:5: value '1e-400' is below DBL_MIN = 2\.2250738585072014e-308"
MAKE="mtx bad.mtx '3 1 1e-320'"
bad_data "subnormal value" bad.mtx "bad\.mtx:5: value '1e-320' is below DBL_MIN.*subnormal"
MAKE="printf '%%%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 1 1\n2 2 4\n3 3 2.5\n' >bad.mtx"
bad_data "integer header, fractional value" bad.mtx "bad\.mtx:5: value '2\.5' is not an integer: the header declares integer values"
MAKE="printf 'id,a,b,c,d\nr1,1,0,2,0\nr2,0,0x3,0,1\n' >bad.csv"
bad_data "dense: hexadecimal value" bad.csv "bad\.csv:3: field 3 \(column 'b'\): expected a decimal number"
if [ "$HAVE_PY" = 1 ] && ! "$MMNC" info -q --format mat "$BLOCKS" 2>&1 | grep -q 'has no libmatio'; then
    # a MATLAB level-5 file (written here byte by byte) holding 'fea', 3 x 3
    # (column-major), a subnormal at (1, 2) beside normal values in its row
    MAKE="python3 -c '
import struct
v = [5, 0, 1, 1e-310, 4, 0, 1, 0, 6]
def el(t, b):
    b += bytes(-len(b) % 8)
    return struct.pack(\"<II\", t, len(b)) + b
body = el(6, struct.pack(\"<II\", 6, 0)) + el(5, struct.pack(\"<ii\", 3, 3)) + el(1, b\"fea\") + el(9, struct.pack(\"<9d\", *v))
head = b\"MATLAB 5.0 MAT-file\".ljust(116) + bytes(8) + struct.pack(\"<H\", 256) + b\"IM\"
open(\"bad.mat\", \"wb\").write(head + el(14, body))
'"
    bad_data "MATLAB file: a subnormal value" bad.mat \
        "bad\.mat: variable 'fea': value 1e-310 at \(1, 2\) is below DBL_MIN = 2\.2250738585072014e-308"
fi
MAKE="mtx bad.mtx '4 1 1'"
bad_data "row index out of range" bad.mtx "bad\.mtx:5: .*out of range"
MAKE="mtx bad.mtx '3 3 1'"
bad_data "column index out of range" bad.mtx "bad\.mtx:5: .*out of range"
MAKE="mtx bad.mtx '0 1 1'"
bad_data "index 0" bad.mtx "bad\.mtx:5: "
MAKE="printf '%%%%MatrixMarket matrix coordinate real general\n3 2 5\n1 1 1\n2 2 2\n3 1 1\n' >bad.mtx"
bad_data "truncated MTX (fewer entries than the header)" bad.mtx "bad\.mtx(:[0-9]+)?: .*(truncated|expected 5 entries)"
MAKE="printf '%%%%MatrixMarket matrix coordinate real general\n3 2 2\n1 1 1\n2 2 2\n3 1 1\n' >bad.mtx"
bad_data "more entries than the header" bad.mtx "bad\.mtx:5: "
MAKE="gzip -c '$BLOCKS' | head -c 60 >bad.mtx.gz"
bad_data "truncated gzip" bad.mtx.gz "bad\.mtx\.gz: .*truncated"
MAKE="printf '\037\213\010\000garbage that is not deflate data' >bad.mtx.gz"
bad_data "corrupt gzip" bad.mtx.gz "bad\.mtx\.gz"
MAKE="xz -c '$BLOCKS' | head -c 60 >bad.mtx.xz"
bad_data "truncated xz" bad.mtx.xz "bad\.mtx\.xz: truncated xz"
MAKE="xz -c '$BLOCKS' >bad.mtx.xz && printf 'XXXX' | dd of=bad.mtx.xz bs=1 seek=30 conv=notrunc 2>/dev/null"
bad_data "corrupt xz" bad.mtx.xz "bad\.mtx\.xz: corrupt xz data"
MAKE="gzip -c '$BLOCKS' >bad.mtx.gz && printf 'trailing junk' >>bad.mtx.gz"
bad_data "gzip with trailing garbage" bad.mtx.gz "bad\.mtx\.gz: corrupt gzip data: trailing garbage"
MAKE=": >bad.mtx"
bad_data "empty file" bad.mtx "bad\.mtx: .*empty"
MAKE="printf '%%%%MatrixMarket matrix array pattern general\n3 2\n1\n2\n3\n4\n5\n6\n' >bad.mtx"
bad_data "wrong format header (array pattern)" bad.mtx "bad\.mtx:1: "
MAKE="printf '%%%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n' >bad.mtx"
bad_data "wrong format header (complex)" bad.mtx "bad\.mtx:1: "
MAKE="printf '%%%%MatrixMarket matrix coordinate real general\n3 2 1\n1 1 0\n' >bad.mtx"
bad_data "all entries zero" bad.mtx "bad\.mtx"
MAKE="printf 'alice\titem1\t5\nbob\titem2\tabc\n' >bad.tsv"
bad_data "triplet: value not a number" bad.tsv "bad\.tsv:2: " --format triplet
MAKE="printf 'alice\titem1\t5\nbob\titem2\n' >bad.tsv"
bad_data "triplet: missing field" bad.tsv "bad\.tsv:2: " --format triplet
MAKE="printf 'alice\titem1\t5\nbob\titem2\t-2\n' >bad.tsv"
bad_data "triplet: negative value" bad.tsv "bad\.tsv:2: .*negative" --format triplet
MAKE="printf '1 1:5 2:4\n2 3:x\n' >bad.svm"
bad_data "libsvm: bad feature" bad.svm "bad\.svm:2: "
MAKE="printf '1 1:5 2:4\n2 0:1\n' >bad.svm"
bad_data "libsvm: index 0" bad.svm "bad\.svm:2: "

# ---- cluster: usage errors and I/O failures -------------------------------------

bad "cluster -k 0 -> usage" 2 "--clusters" cluster -q -k 0 -o out "$BLOCKS"
bad "cluster -k 9 > rows -> exit 2, no output" 2 "k = 9 exceeds" cluster -q -k 9 -o out "$BLOCKS"
bad "cluster unknown option -> usage" 2 "unknown option '--bogus'" cluster -q --bogus -o out "$BLOCKS"
bad "cluster unknown short option -> usage" 2 "unknown option '-x'" cluster -q -x -o out "$BLOCKS"
bad "cluster missing option value -> usage" 2 "option -k needs a value" cluster -q -o out "$BLOCKS" -k
bad "cluster --seed abc -> usage" 2 "--seed" cluster -q --seed abc -o out "$BLOCKS"
bad "cluster --algorithm bogus -> usage" 2 "--algorithm" cluster -q -a bogus -o out "$BLOCKS"
bad "cluster --format bogus -> usage" 2 "--format" cluster -q --format bogus -o out "$BLOCKS"
bad "cluster --map bogus -> usage" 2 "--map" cluster -q --map bogus -o out "$BLOCKS"
bad "generate: no short -r (cluster's restarts) or -d (embed's dimensions): --ratio, --draws" 2 \
    "unknown option '-r'" generate -q -r 4 -o g.mtx
bad "cluster DIR: a directory, with a pointer to mmnc docs" 1 \
    "docs is a directory, not a data file: .*'mmnc docs .*docs -o PREFIX\.mtx'" cluster -q -o out "$FIX/docs"
bad "cluster on prose: words, not numbers, with pointers to mmnc docs and mmnc cooc" 1 \
    "words\.txt:1: words, not numbers: this is text.*'mmnc docs .*words\.txt -o PREFIX\.mtx'.*'mmnc cooc .*words\.txt" \
    cluster -q -o out "$FIX/words.txt"
begin "cluster: the hints name command-line options, never the C API's constants"
printf '1 2 3 4\n2 1 3 4\n' >four.txt
run cluster -q -o out four.txt
expect_rc 1
expect_err "a dense table: --format dense\)"
expect_err "to ignore the others: --extra-fields ignore;"
grep -Eq 'MMNC_|extra_fields|mmnc --' "$ERR" && fail_because "stderr names the C API: $(head -1 "$ERR")"
run cluster -q --header -o out "$BLOCKS"
expect_rc 1
expect_err "read it as Matrix Market \(--format mtx or auto, without --header\)"
grep -q 'MMNC_' "$ERR" && fail_because "stderr names the C API: $(head -1 "$ERR")"
end
begin "cluster --labels: the messages name the file and what is wrong, never a C function or field"
printf '3 1\n5 2\n' >given.tsv
# seven rows given cluster 1 of 3: one free row for the two clusters left
for y in 1 2 3 4 5 6 7; do echo "$y 1"; done >seven.tsv
snapshot
run cluster -q -k 3 --labels seven.tsv -o x "$BLOCKS"
expect_rc 1
expect_err "^mmnc cluster: --labels seven\.tsv: 1 row left free for the 2 clusters that no line gives"
grep -Eq 'mmnc_|fixed_label' "$ERR" && fail_because "stderr names the C API: $(head -1 "$ERR")"
run cluster -q -k 2 -a nuclear --pz 0.5,0.5 --labels given.tsv -o x "$BLOCKS"
expect_rc 2
expect_err "^mmnc cluster: --labels applies to -a nuclear without --pz"
run cluster -q -k 2 -a frobenius --exact-marginal --labels given.tsv -o x "$BLOCKS"
expect_rc 2
expect_err "^mmnc cluster: --labels applies to -a frobenius without --exact-marginal"
grep -Eq 'mmnc_|fixed_label' "$ERR" && fail_because "stderr names the C API: $(head -1 "$ERR")"
expect_nonew
end
bad "cluster --pz with 3 weights for k=2 -> usage" 2 "--pz" cluster -q -a nuclear --pz 0.5,0.3,0.2 -o out "$BLOCKS"
bad "cluster --pz with 1 weight for k=2 -> usage" 2 "--pz: expected 2 weights" cluster -q -a nuclear --pz 0.5 -o out "$BLOCKS"
bad "cluster --pz negative -> usage" 2 "--pz" cluster -q -a nuclear --pz -1,2 -o out "$BLOCKS"
bad "cluster --pz not a number -> usage" 2 "--pz" cluster -q -a nuclear --pz 0.5,abc -o out "$BLOCKS"
bad "cluster --pz whose sum overflows -> usage" 2 "--pz: the weights '1e308,1e308' cannot be normalised" \
    cluster -q -a frobenius --pz 1e308,1e308 -o out "$BLOCKS"
bad "cluster --pz with a share below DBL_MIN -> usage" 2 "a share falls below 2\.2e-308" \
    cluster -q -a frobenius --pz 1e300,1e-20 -o out "$BLOCKS"
bad "cluster no DATA -> usage" 2 "missing DATA file" cluster -q -o out
bad "cluster two DATA files -> usage" 2 "expected one DATA file" cluster -q -o out "$BLOCKS" "$BLOCKS"
bad "cluster missing input file" 1 "nosuch\.mtx: cannot open" cluster -q nosuch.mtx
bad "cluster missing --truth file" 1 "nosuch\.truth: cannot open" cluster -q --truth nosuch.truth -o out "$BLOCKS"
bad "cluster missing --names file" 1 "nosuch\.names: cannot open" cluster -q --names nosuch.names -o out "$BLOCKS"
bad "cluster --truth with the wrong number of labels" 1 "rows\.names: 8 labels" cluster -q --truth "$FIX/rows.names" -o out "$FIX/blocks2.mtx"
bad "cluster -o /nonexistent/dir/x" 1 "/nonexistent/dir/x" cluster -q -o /nonexistent/dir/x "$BLOCKS"

begin "cluster: PREFIX.json is a directory -> exit 1, no other output left"
mkdir out.json
snapshot
run cluster -q -o out "$BLOCKS"
expect_rc 1
expect_err "out\.json"
expect_nonew
expect_nofile out.labels.tsv out.soft.tsv out.top.tsv
end

begin "cluster: PREFIX.soft.tsv is a directory -> exit 1, no other output left"
mkdir out.soft.tsv
snapshot
run cluster -q -o out "$BLOCKS"
expect_rc 1
expect_err "out\.soft\.tsv"
expect_nonew
expect_nofile out.labels.tsv out.json out.top.tsv
end

# ---- convert and the binary format ----------------------------------------------

# u64 FILE OFFSET: the little-endian 64-bit integer at OFFSET.
u64() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }
# poke FILE OFFSET: flip the bits of one byte in place.
poke() {
    local b
    b=$(od -An -t u1 -j "$2" -N 1 "$1" | tr -d ' ')
    printf "\\$(printf '%03o' $((b ^ 255)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

begin "mmnc --help lists convert; convert --help mentions every long option and defaults"
run --help
expect_out "^  convert "
run convert --help
expect_rc 0
expect_out "^Usage: mmnc convert"
expect_out "default"
for o in $(long_options convert); do expect_out -- "--$o([^a-z-]|$)"; done
[ -s "$ERR" ] && fail_because "help wrote to stderr"
end

begin "convert mtx -> bin -> mtx gives the same text as mtx -> mtx; bin -> bin is identical"
run convert "$BLOCKS" direct.mtx
expect_rc 0
expect_err "8 x 6, 26 nonzeros"
run convert -q "$BLOCKS" b.bin
expect_rc 0
[ -s "$ERR" ] && fail_because "-q printed to stderr"
expect_grep "^%%MatrixMarket" direct.mtx
run convert -q b.bin via.mtx
expect_rc 0
expect_same direct.mtx via.mtx
run convert -q b.bin b2.bin
expect_same b.bin b2.bin
run convert -q b.bin via.mtx.gz
gzip -dc via.mtx.gz >unzipped.mtx 2>/dev/null
expect_same direct.mtx unzipped.mtx
[ "$(head -c 8 b.bin | od -An -t x1 | tr -d ' ')" = 894d4d4e430d0a1a ] || fail_because "b.bin lacks the magic"
expect_nofile .mmnc-* b.rows b.cols via.rows
end

begin "convert a generated matrix round trip; cluster on .bin = on .mtx"
"$MMNC" generate --rows 600 --cols 300 -k 3 --ratio 50 --draws 30 -q -o g.mtx >/dev/null 2>&1
run convert -q g.mtx g.bin
expect_rc 0
run convert -q g.bin g2.mtx
run convert -q g.mtx g1.mtx
expect_same g1.mtx g2.mtx
run cluster -q -k 3 -o fromtext g.mtx
run cluster -q -k 3 -o frombin g.bin
expect_rc 0
expect_same fromtext.labels.tsv frombin.labels.tsv
expect_same fromtext.soft.tsv frombin.soft.tsv
run cluster -q -k 2 -o bt "$BLOCKS"
run convert -q "$BLOCKS" blocks.bin
run cluster -q -k 2 -o bb blocks.bin
expect_same bt.labels.tsv bb.labels.tsv
end

begin "convert triplets keeps the string ids; back to mtx writes .rows/.cols"
run convert -q "$FIX/ratings.tsv" r.bin
expect_rc 0
run cluster -q --map rating3 -o rb r.bin
expect_rc 0
expect_partition rb.labels.tsv "alice bob carol|dave erin frank"
run info r.bin
expect_out "^shape +6 rows x 4 columns, 14 nonzeros"
run convert r.bin r.mtx
expect_rc 0
expect_file r.mtx r.rows r.cols
expect_err "row ids written to r\.rows"
[ "$(tr '\n' ' ' <r.rows)" = "alice bob carol dave erin frank " ] || fail_because "r.rows: $(tr '\n' ' ' <r.rows)"
expect_grep "^item1$" r.cols
end

begin "convert a .mtx with .rows/.cols beside it: the ids go into OUT (.bin, .mtx, --transpose)"
run convert -q "$FIX/ratings.tsv" rr.mtx
expect_rc 0
expect_file rr.rows rr.cols
run convert -q rr.mtx rr.bin
expect_rc 0
run cluster -q --map rating3 -o rrb rr.bin
expect_rc 0
expect_partition rrb.labels.tsv "alice bob carol|dave erin frank"
run convert -q rr.mtx rr2.mtx
expect_rc 0
expect_same rr.rows rr2.rows
expect_same rr.cols rr2.cols
run convert -q --transpose rr.mtx rrt.bin
expect_rc 0
run cluster -q -k 2 -o rrt rrt.bin
expect_rc 0
expect_grep "^item1[[:space:]]" rrt.labels.tsv
# a .rows of the wrong length is refused, as cluster refuses it
head -3 rr.rows >rr.rows.short && mv rr.rows.short rr.rows
snapshot
run convert -q rr.mtx rr3.bin
expect_rc 1
expect_err "rr\.rows"
expect_nonew
end

begin "convert --transpose and --map apply before writing; --format bin"
run convert -q --transpose "$BLOCKS" t.bin
expect_rc 0
run info --format bin t.bin
expect_out "^shape +6 rows x 8 columns, 26 nonzeros"
run convert -q --map binary "$BLOCKS" m.bin
run info --json m.bin
expect_out '"sum": 26[,}]'
end

begin "convert --check: reads and verifies, writes nothing"
run convert -q "$BLOCKS" b.bin
snapshot
run convert --check b.bin
expect_rc 0
expect_err "b\.bin: 8 x 6, 26 nonzeros; read"
expect_nonew
end

begin "convert: bad binary files -> message, exit 1, no output"
run convert -q "$BLOCKS" good.bin
size=$(wc -c <good.bin)
head -c 500 good.bin >cut.bin
cp good.bin flip.bin
poke flip.bin "$(( $(u64 good.bin 192) + 1 ))"  # a byte of the values section
cp good.bin newer.bin
printf '\002' | dd of=newer.bin bs=1 seek=8 conv=notrunc 2>/dev/null
snapshot
run convert cut.bin out.mtx
expect_rc 1
expect_err "cut\.bin: truncated: header says $size bytes, file has 500"
run convert flip.bin out.bin
expect_rc 1
expect_err "flip\.bin: checksum mismatch in the value section"
run cluster -q -o out flip.bin
expect_rc 1
expect_err "flip\.bin: checksum mismatch"
run info newer.bin
expect_rc 1
expect_err "newer\.bin: format version 2 is newer than this mmnc supports \(1\)"
run convert --format bin "$BLOCKS" out.bin
expect_rc 1
expect_err "blocks\.mtx: not an mmnc binary matrix \(bad magic\)"
expect_nonew
expect_nofile out.bin out.mtx
end

begin "convert --no-verify skips the checksums, not the checks"
run convert -q "$BLOCKS" good.bin
cp good.bin flip.bin
off=$(u64 good.bin 192)
# the first value is 5 (a float): 0x40a00000; flipping its low byte keeps it finite and > 0
poke flip.bin "$off"
run convert --check flip.bin
expect_rc 1
run convert --check --no-verify flip.bin
expect_rc 0
# a sign bit flip (the value's top byte) is caught by the value check
cp good.bin neg.bin
poke neg.bin "$((off + 3))"
run convert --check --no-verify neg.bin
expect_rc 1
expect_err "neg\.bin: invalid value .* at row 1, column 1"
end

bad "convert: missing OUT -> usage" 2 "missing OUT file" convert "$BLOCKS"
bad "convert: --check with OUT -> usage" 2 "--check takes one file" convert --check "$BLOCKS" x.bin
bad "convert: --to bogus -> usage" 2 "--to: expected bin or mtx" convert --to bogus "$BLOCKS" x.bin
bad "convert: missing input" 1 "nosuch\.mtx: cannot open" convert nosuch.mtx x.bin
bad "convert: bad text input -> file:line" 1 "blocks\.truth:1: expected at least 3 fields" convert "$FIX/blocks.truth" x.bin
bad "convert: output dir does not exist" 1 "/nonexistent/dir/x\.bin" convert "$BLOCKS" /nonexistent/dir/x.bin
begin "convert: an empty matrix is refused like in the text readers"
printf '%%%%MatrixMarket matrix coordinate real general\n3 2 1\n1 1 0\n' >zero.mtx
snapshot
run convert zero.mtx z.bin
expect_rc 1
expect_err "zero\.mtx: the matrix \(3 x 2\) has no nonzero entries"
expect_nonew
end

# ---- issue 16: inputs that are not plain regular files, strict reading ------------

# big.tsv: 60 users x 30 items, more than one pipe buffer, two planted blocks
awk 'BEGIN { for (u = 1; u <= 60; u++) for (i = 1; i <= 30; i++)
             if ((u <= 30) == (i <= 15) || (u * 7 + i * 3) % 11 == 0) printf "user%d\titem%d\t%d\n", u, i, 1 + (u + i) % 5 }' \
    >"$WORK/big.tsv"
BIG=$WORK/big.tsv

begin "input: pipe, FIFO, /dev/stdin, - and gzip/xz pipes read the whole file (one open, sniffed there)"
run cluster -q -k 2 -o reg "$BIG"
expect_rc 0
expect_grep '"rows": 60' reg.json
"$MMNC" cluster -q -k 2 -o sub <(cat "$BIG") >"$OUT" 2>"$ERR" || fail_because "<(cat) failed: $(cat "$ERR")"
"$MMNC" cluster -q -k 2 --format auto -o dev /dev/stdin <"$BIG" >"$OUT" 2>"$ERR" || fail_because "/dev/stdin failed"
cat "$BIG" | "$MMNC" cluster -q -k 2 --format auto -o devp /dev/stdin >"$OUT" 2>"$ERR" || fail_because "/dev/stdin pipe failed"
cat "$BIG" | "$MMNC" cluster -q -k 2 -o dash - >"$OUT" 2>"$ERR" || fail_because "- failed"
"$MMNC" cluster -q -k 2 -o gz <(gzip -c "$BIG") >"$OUT" 2>"$ERR" || fail_because "<(gzip -c) failed: $(cat "$ERR")"
mkfifo fifo
(cat "$BIG" >fifo &)
timeout 20 "$MMNC" cluster -q -k 2 -o ff fifo >"$OUT" 2>"$ERR" || fail_because "FIFO failed or hung"
set -- sub dev devp dash gz ff
if command -v xz >/dev/null 2>&1; then
    "$MMNC" cluster -q -k 2 -o xzp <(xz -c "$BIG") >"$OUT" 2>"$ERR" && set -- "$@" xzp
fi
for p; do expect_same reg.labels.tsv "$p.labels.tsv"; done
rm -f fifo
end

begin "input: a binary matrix through a pipe is refused, not misread"
run convert -q "$BIG" big.bin
snapshot
"$MMNC" cluster -q -k 2 -o p <(cat big.bin) >"$OUT" 2>"$ERR"
RC=$?
expect_rc 1
expect_err "binary matrix file is read in place: give it as a regular file"
expect_nonew
end

begin "eval: TRUTH and PRED from -, a pipe, gzip or xz: every line read once (n = 60)"
awk 'BEGIN { for (u = 1; u <= 60; u++) printf "user%d\t%s\n", u, (u <= 30 ? "a" : "b") }' >big.truth
run cluster -q -k 2 -o r "$BIG"
run eval --json r.labels.tsv big.truth
expect_rc 0
expect_out '"n": 60,'
"$MMNC" eval --json r.labels.tsv - <big.truth >"$OUT" 2>"$ERR" || fail_because "TRUTH - failed: $(cat "$ERR")"
expect_out '"n": 60,'
"$MMNC" eval --json r.labels.tsv <(cat big.truth) >"$OUT" 2>"$ERR" || fail_because "TRUTH <(cat) failed"
expect_out '"n": 60,'
"$MMNC" eval --json <(gzip -c r.labels.tsv) <(gzip -c big.truth) >"$OUT" 2>"$ERR" || fail_because "gzip pipes failed"
expect_out '"n": 60,'
"$MMNC" eval --json - <(cat big.truth) <r.labels.tsv >"$OUT" 2>"$ERR" || fail_because "PRED - failed"
expect_out '"n": 60,'
if command -v xz >/dev/null 2>&1; then
    xz -c big.truth >big.truth.xz
    run eval --json r.labels.tsv big.truth.xz
    expect_out '"n": 60,'
fi
# one label per line through a pipe: the k-th label is item k
run cluster -q -o b "$BLOCKS"
"$MMNC" eval --json b.labels.tsv <(cat "$FIX/blocks.truth") >"$OUT" 2>"$ERR" || fail_because "one label per line <(cat) failed"
expect_out '"n": 8,'
end

begin "triplets: a dense CSV (more fields than named) is an error, not triplets; --extra-fields ignore reads u.data-like lines"
printf '1,2,3,4\n5,6,7,8\n' >dense.csv
snapshot
run cluster -q -k 2 --delim , -o d dense.csv
expect_rc 1
expect_err "dense\.csv:1: expected 3 fields \(row key in field 1, column key in field 2, value in field 3\), found more"
expect_nonew
run cluster -q -k 2 --delim , --extra-fields bogus -o d dense.csv
expect_rc 2
expect_err "--extra-fields: expected error or ignore"
awk '{ print $0 "\t88125094" NR }' "$FIX/ratings.tsv" >udata.tsv
run cluster -q --map rating3 -o plain "$FIX/ratings.tsv"
run cluster -q --map rating3 --extra-fields ignore -o ts udata.tsv
expect_rc 0
expect_same plain.labels.tsv ts.labels.tsv
end

begin "SIGTERM while the outputs are written removes the temporary files and exits by the signal"
run generate -q --rows 100000 --cols 100 -k 20 -o sig.mtx
caught=0
for attempt in 1 2 3; do
    "$MMNC" cluster -q -k 20 -r 1 --max-iter 2 -o sc sig.mtx >"$OUT" 2>"$ERR" &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        # the outputs are written in a staging directory .mmnc-XXXXXX beside them
        if compgen -G ".mmnc-*/.mmnc-*" >/dev/null || compgen -G ".mmnc-*/sc.*" >/dev/null; then
            kill -TERM "$pid"
            caught=1
            break
        fi
        sleep 0.002
    done
    wait "$pid"
    RC=$?
    [ "$caught" = 1 ] && break
    rm -f sc.*
done
if [ "$caught" = 1 ]; then
    expect_rc 143
    compgen -G "sc.*" >/dev/null && fail_because "left $(echo sc.*)"
    compgen -G ".mmnc-*" >/dev/null && fail_because "left $(echo .mmnc-*)"
else
    echo "      (the write phase was too short to catch here)"
fi
end

bad "cluster: an unwritable output prefix is found before the clustering" 1 \
    "cannot write the outputs \(checked before any work\): nosuch/x\.labels\.tsv" cluster -k 999 -o nosuch/x "$BLOCKS"
bad "sweep: an unwritable output prefix is found before every k" 1 \
    "cannot write the outputs \(checked before any work\): nosuch/blocks\.sweep\.tsv" sweep --kmax 3 -o nosuch/ "$BLOCKS"
begin "cluster -o DIR/ and -o . name the files after the input inside the directory"
mkdir od
run cluster -q -k 2 -o od/ "$BLOCKS"
expect_rc 0
expect_file od/blocks.labels.tsv od/blocks.json od/blocks.top.tsv od/blocks.soft.tsv
expect_nofile od/.json od/.labels.tsv
(cd od && "$MMNC" cluster -q -k 2 -o . "$BLOCKS") || fail_because "-o . failed"
expect_nofile od/..json
run sweep -q --kmax 3 --plot none -o od/ "$BLOCKS"
expect_file od/blocks.sweep.tsv
end

begin "cluster -o DIR, an existing directory, writes DIR/NAME.* inside it (as cp)"
mkdir od
run cluster -q -k 2 -o od "$BLOCKS"
expect_rc 0
expect_file od/blocks.labels.tsv od/blocks.json od/blocks.top.tsv od/blocks.soft.tsv
expect_nofile od.labels.tsv od.json
end

bad "cluster: Algorithm 1 options with nuclear are a usage error naming them" 2 \
    "--exact-marginal applies to -a frobenius, not to -a nuclear" cluster -a nuclear --exact-marginal --lambda 5 -o x "$BLOCKS"
bad "cluster: --lambda with --exact-marginal is a usage error" 2 \
    "--lambda applies to -a frobenius without --exact-marginal" cluster -a frobenius --exact-marginal --lambda 5 -o x "$BLOCKS"
bad "cluster: an unknown -a value lists every algorithm" 2 \
    "--algorithm: expected auto, dmm, information, nuclear or frobenius" cluster -a kmeans -o x "$BLOCKS"
bad "cluster: --pz with the default (auto) is a usage error" 2 \
    "--pz applies to -a nuclear or -a frobenius, not to -a auto \(the default\)" cluster --pz 0.2,0.8 -o x "$BLOCKS"
bad "cluster: --size-prior with -a nuclear needs --refine" 2 \
    "--size-prior applies to -a nuclear only with --refine each or chosen" cluster -a nuclear --size-prior 3 -o x "$BLOCKS"
bad "cluster: --truth-var without --truth is a usage error" 2 "--truth-var applies to --truth" cluster --truth-var gnd -o x "$BLOCKS"
begin "cluster: a --names file with fewer lines than columns is refused; more lines warn"
head -n 4 "$FIX/cols.names" >short.names
snapshot
run cluster -q -k 2 --names short.names -o x "$BLOCKS"
expect_rc 1
expect_err "short\.names: 4 names for 6 columns \(as read\)"
expect_nonew
{ cat "$FIX/cols.names"; echo extra; } >long.names
run cluster -q -k 2 --names long.names -o y "$BLOCKS"
expect_rc 0
expect_err "warning: long\.names: 7 names for 6 columns; the last 1 are not used"
end

begin "cluster: a blank line in a names file is refused (it would shift the names after it); one ending it is not"
sed '3s/.*//' "$FIX/rows.names" >blank.names
snapshot
run cluster -q -k 2 --row-names blank.names -o x "$BLOCKS"
expect_rc 1
expect_err "^mmnc cluster: blank\.names:3: empty name: expected one name a line"
expect_nonew
# the side file DATA.rows, read as --row-names is
cp "$BLOCKS" side.mtx
cp blank.names side.rows
snapshot
run cluster -q -k 2 -o y side.mtx
expect_rc 1
expect_err "^mmnc cluster: side\.rows:3: empty name"
expect_nonew
{ cat "$FIX/rows.names"; printf '\n \n'; } | sed 's/$/\r/' >crlf.names
run cluster -k 2 -t 1 --row-names crlf.names -o z "$BLOCKS"
expect_rc 0
grep -q 'names for' "$ERR" && fail_because "the blank lines at the end were counted as names"
expect_grep "^row_three$(printf '\t')" z.labels.tsv
end

begin "cooc: binary input (a NUL byte) is refused with file and offset, as cluster refuses it"
printf 'some words here\nand\000\001\002 more\n' >garbage.bin
snapshot
run cooc -o g.mtx garbage.bin
expect_rc 1
expect_err "garbage\.bin: NUL byte at offset 19: this is not a text file"
expect_nonew
run cluster -q -o g garbage.bin
expect_rc 1
expect_err "NUL byte"
end

begin "triplets --header: a CSV with a header line; without --header the header is data"
{ echo "user,item,rating"; tr '\t' , <"$FIX/ratings.tsv"; } >hdr.csv
run cluster -q --map rating3 -o plain "$FIX/ratings.tsv"
run cluster -q --map rating3 --delim , --header -o h hdr.csv
expect_rc 0
expect_same plain.labels.tsv h.labels.tsv
run cluster -q --map rating3 --delim , -o nh hdr.csv
expect_rc 1
expect_err "hdr\.csv:1: expected a number in field 3, found 'rating'"
end

begin "Matrix Market symmetric (SciPy's mmwrite): the lower triangle is mirrored"
printf '%%%%MatrixMarket matrix coordinate integer symmetric\n%% lower triangle\n4 4 4\n1 1 3\n2 1 2\n4 3 5\n4 4 1\n' >sym.mtx
printf '%%%%MatrixMarket matrix coordinate integer general\n4 4 6\n1 1 3\n2 1 2\n1 2 2\n4 3 5\n3 4 5\n4 4 1\n' >full.mtx
run info sym.mtx
expect_rc 0
expect_out "4 rows x 4 columns, 6 nonzeros"
run cluster -q -k 2 -o s sym.mtx
run cluster -q -k 2 -o f full.mtx
expect_same f.labels.tsv s.labels.tsv
printf '%%%%MatrixMarket matrix coordinate integer symmetric\n3 3 2\n1 1 1\n1 2 1\n' >upper.mtx
run info upper.mtx
expect_rc 1
expect_err "upper\.mtx: symmetric, but entry 2 \(row 1, column 2\) is above the diagonal"
end

begin "Matrix Market array (dense, column by column), general and symmetric"
printf '%%%%MatrixMarket matrix array integer general\n4 4\n3\n2\n0\n0\n2\n0\n0\n0\n0\n0\n0\n5\n0\n0\n5\n1\n' >dense.mtx
printf '%%%%MatrixMarket matrix array integer symmetric\n4 4\n3\n2\n0\n0\n0\n0\n0\n0\n5\n1\n' >dsym.mtx
printf '%%%%MatrixMarket matrix coordinate integer general\n4 4 6\n1 1 3\n2 1 2\n1 2 2\n4 3 5\n3 4 5\n4 4 1\n' >full.mtx
run cluster -q -k 2 -o f full.mtx
for m in dense dsym; do
    run info "$m.mtx"
    expect_rc 0
    expect_out "4 rows x 4 columns, 6 nonzeros"
    run cluster -q -k 2 -o "$m" "$m.mtx"
    expect_same f.labels.tsv "$m.labels.tsv"
done
printf '%%%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n' >short.mtx
run info short.mtx
expect_rc 1
expect_err "short\.mtx:5: truncated: expected 4 values, found 3"
end

# ---- saved models and predict -----------------------------------------------------

# reversed columns of blocks.mtx (column j -> 7 - j) and the names to match
rev_blocks() {
    awk '/^%/ || NR == 3 { print; next } { print $1, 7 - $2, $3 }' "$BLOCKS" >rev.mtx
    tac "$FIX/cols.names" >rev.names
}

for a in nuclear information frobenius; do
    begin "cluster -a $a --save-model, predict the same data: the same labels"
    run cluster -q -a $a -k 2 -o b --save-model b.mmnc "$BLOCKS"
    expect_rc 0
    expect_file b.mmnc b.labels.tsv
    run predict -o p b.mmnc "$BLOCKS"
    expect_rc 0
    expect_file p.labels.tsv p.soft.tsv p.json
    cut -f1,2 b.labels.tsv >want
    cut -f1,2 p.labels.tsv >got
    expect_same want got
    expect_soft_rows_sum1 p.soft.tsv
    expect_json p.json model rows unknown_columns unknown_column_ids empty_rows empty_row_ids cluster_sizes rule
    expect_out "8 rows assigned to the 2 clusters of b\.mmnc"
    expect_nofile .mmnc-*
    end
done

begin "cluster -a nuclear --refine none --save-model: the nuclear rule; info describes the model"
run cluster -q -a nuclear --refine none -k 2 -o b --save-model b.mmnc "$BLOCKS"
expect_rc 0
run predict -q -o p b.mmnc "$BLOCKS"
expect_rc 0
expect_grep '"rule": "nuclear"' p.json
cut -f1,2 b.labels.tsv >want
cut -f1,2 p.labels.tsv >got
expect_same want got
run info b.mmnc
expect_rc 0
expect_out "^model +written by mmnc .*nuclear, refine none \(hard result\); rule for new rows: nuclear"
expect_out "^clusters +k = 2 over 6 columns"
expect_out "^options +cluster -q -a nuclear --refine none -k 2"
run info --json b.mmnc
expect_rc 0
expect_out '"kind": "model"'
run info "$BLOCKS"
expect_rc 0
expect_out "8 rows x 6 columns"
end

begin "predict with --names on permuted columns: the same labels"
rev_blocks
run cluster -q -k 2 -o b --names "$FIX/cols.names" --save-model b.mmnc "$BLOCKS"
expect_rc 0
run predict -q -o p --names rev.names b.mmnc rev.mtx
expect_rc 0
cut -f1,2 b.labels.tsv >want
cut -f1,2 p.labels.tsv >got
expect_same want got
expect_grep '"unknown_columns": 0' p.json
run predict -q -o c --col-names rev.names b.mmnc rev.mtx
expect_rc 0
expect_same p.labels.tsv c.labels.tsv
end

begin "predict: a model saved with a repeated column name predicts its training rows back"
printf 'apple\nbanana\napple\nd\ne\nf\n' >rep.cols
run cluster -q -k 2 -t 1 -o b --names rep.cols --save-model b.mmnc "$BLOCKS"
expect_rc 0
run predict -q -o p --names rep.cols b.mmnc "$BLOCKS"
expect_rc 0
expect_err "^mmnc predict: warning: rep\.cols: 1 name repeats an earlier one, .* written 'apple#2'\)$"
cut -f1,2 b.labels.tsv >want
cut -f1,2 p.labels.tsv >got
expect_same want got
expect_grep '"unknown_columns": 0' p.json
run info b.mmnc
expect_out "^column ids +apple banana apple#2 d e f$"
end

begin "predict: without the names the model was saved with, no column is known"
run cluster -q -k 2 -o b --names "$FIX/cols.names" --save-model b.mmnc "$BLOCKS"
snapshot
run predict -o p b.mmnc "$BLOCKS"
expect_rc 1
expect_err "none of the 6 columns of .*blocks\.mtx is known to b\.mmnc \(data ids like '1', model ids like 'apple'\)"
expect_nonew
end

begin "predict: unknown columns reported and ignored, a row without a known column gets -1"
run cluster -q -k 2 -o b --save-model b.mmnc "$BLOCKS"
{ echo '%%MatrixMarket matrix coordinate integer general'; echo '3 7 5'
  echo '1 1 5'; echo '1 7 2'; echo '2 5 4'; echo '2 6 3'; echo '3 7 9'; } >new.mtx
run predict -o p b.mmnc new.mtx
expect_rc 0
expect_err "1 of 7 columns of new\.mtx are not in the model and are ignored: 7"
expect_err "1 rows have no value in a column the model knows \(cluster -1\): 3"
expect_grep '"unknown_columns": 1' p.json
expect_grep '"empty_rows": 1' p.json
expect_grep '"known_mass": 12,' p.json
expect_out "log-likelihood per unit of known mass under the model's mixture: -[0-9.]+ \(perplexity [0-9.]+\)"
if [ "$HAVE_PY" = 1 ]; then
    python3 -c '
import json, math, sys
d = json.load(open(sys.argv[1]))
ll, w = d["log_likelihood"], d["known_mass"]
sys.exit(0 if ll < 0 and d["log_likelihood_per_unit"] == ll / w and
         abs(d["perplexity"] - math.exp(-ll / w)) <= 1e-12 * d["perplexity"] else 1)' p.json ||
        fail_because "p.json: log_likelihood, known_mass, log_likelihood_per_unit and perplexity disagree"
fi
expect_grep '^3	-1	0$' p.labels.tsv
c1=$(awk -F'\t' '$1 == 1 { print $2 }' b.labels.tsv)
c5=$(awk -F'\t' '$1 == 5 { print $2 }' b.labels.tsv)
expect_grep "^1	$c1	" p.labels.tsv
expect_grep "^2	$c5	" p.labels.tsv
end

begin "predict: string ids of a triplet file are matched (ratings.tsv)"
run cluster -q -k 2 -o r --save-model r.mmnc "$FIX/ratings.tsv"
expect_rc 0
run predict -q -o p r.mmnc "$FIX/ratings.tsv"
expect_rc 0
cut -f1,2 r.labels.tsv >want
cut -f1,2 p.labels.tsv >got
expect_same want got
end

begin "cluster --save-model to a place that cannot be written: refused before any work"
snapshot
run cluster -k 2 -o b --save-model no/such/dir/m.mmnc "$BLOCKS"
expect_rc 1
expect_err "cannot write the outputs \(checked before any work\): .*no/such/dir/m\.mmnc"
expect_nonew
end

# bad model files: a clear error, exit 1, nothing written
mkdir -p "$WORK/models"
(cd "$WORK/models" && "$MMNC" cluster -q -k 2 -o b --save-model good.mmnc "$BLOCKS" >/dev/null 2>&1)
GOOD=$WORK/models/good.mmnc
head -c 200 "$GOOD" >"$WORK/models/cut.mmnc"
cp "$GOOD" "$WORK/models/flip.mmnc"
printf '\377' | dd of="$WORK/models/flip.mmnc" bs=1 seek=518 conv=notrunc 2>/dev/null
bad "predict: a truncated model" 1 "cut\.mmnc: truncated: header says [0-9]+ bytes, file has 200" \
    predict -o p "$WORK/models/cut.mmnc" "$BLOCKS"
bad "predict: a corrupt model" 1 "flip\.mmnc: checksum mismatch in the P_X section" \
    predict -o p "$WORK/models/flip.mmnc" "$BLOCKS"
bad "predict: a data file given as the model" 1 "blocks\.mtx: not an mmnc model \(bad magic\)" \
    predict -o p "$BLOCKS" "$BLOCKS"
bad "predict: a missing model" 1 "nothere\.mmnc: cannot open" predict -o p nothere.mmnc "$BLOCKS"
bad "predict: one argument" 2 "expected MODEL and DATA" predict "$GOOD"
bad "info: a corrupt model" 1 "flip\.mmnc: checksum mismatch" info "$WORK/models/flip.mmnc"

# ---- docs ---------------------------------------------------------------------

begin "docs: a directory walked recursively in path order, .rows/.cols beside the matrix"
cp -r "$FIX/docs" corpus
run docs corpus -o d.mtx
expect_rc 0
expect_file d.mtx d.rows d.cols
printf 'corpus/money/bank.txt\ncorpus/money/stocks.txt\ncorpus/money/tax.txt\ncorpus/pets/bird.txt\ncorpus/pets/cat.txt\ncorpus/pets/dog.txt\n' >want.rows
expect_same d.rows want.rows
expect_err "6 files, 6 documents \(0 without a kept term, kept as empty rows\), 90 tokens \(0 stop words\)"
expect_grep '^the$' d.cols
head -1 d.cols >first
printf 'the\n' >want.first
expect_same first want.first
grep -q never d.cols && fail_because "the hidden file was read"
expect_nofile .mmnc-*
end

begin "docs: --lines with stop words, golden matrix, rows and columns (empty line kept)"
cp "$FIX/docs.lines.txt" .
run docs --lines --stop-words english docs.lines.txt -o l.mtx
expect_rc 0
expect_same l.mtx "$FIX/docs.lines.expected.mtx"
expect_same l.rows "$FIX/docs.lines.expected.rows"
expect_same l.cols "$FIX/docs.lines.expected.cols"
expect_err "4 documents \(1 without a kept term, kept as empty rows\)"
run docs -q --lines --stop-words english --drop-empty docs.lines.txt -o e.mtx
expect_rc 0
printf 'docs.lines.txt:1\ndocs.lines.txt:3\ndocs.lines.txt:5\n' >want.rows
expect_same e.rows want.rows
end

begin "docs: --min-df / --max-df (counts and fractions), --stop-words FILE, --max-vocab"
cp -r "$FIX/docs" corpus
run docs -q corpus --stop-words english --min-df 2 --max-df 0.5 -o d.mtx
expect_rc 0
# every kept term is in 2 or 3 of the 6 documents, and no stop word is kept
awk 'NR > 2 { df[$2]++ } END { for (t in df) if (df[t] < 2 || df[t] > 3) bad = 1; exit bad }' d.mtx ||
    fail_because "a column outside 2..3 documents"
for w in the a and on is; do grep -qx "$w" d.cols && fail_because "stop word $w kept"; done
expect_grep '^interest$' d.cols
expect_grep '^fed$' d.cols
grep -qx cat d.cols || fail_because "cat (in 3 documents) dropped"
printf 'fed\n' >stop.txt
run docs -q corpus --stop-words english --stop-words stop.txt --min-df 0.3 --max-df 3 -o s.mtx
expect_rc 0
grep -qx fed s.cols && fail_because "fed not stopped by stop.txt"
expect_grep '^interest$' s.cols
run docs -q corpus --max-vocab 3 -o v.mtx
expect_rc 0
[ "$(wc -l <v.cols)" -eq 3 ] || fail_because "--max-vocab 3 kept $(wc -l <v.cols) terms"
end

begin "cluster --names-keyed: a row or column without a name whose id is another's name is written ID#2"
# row 3 has no line; id 4 is named '3'
printf '1|alpha\n2|beta\n4|3\n5|e\n6|f\n7|g\n8|h\n' >k.names
run cluster -k 2 -t 1 --names-keyed --row-names k.names -o k "$BLOCKS"
expect_rc 0
expect_err "warning: k\.names: 1 row that the file does not name has an id that it gives as a name, written ID#2, ID#3, \.\.\. \(first: row id '3', the name of id 4, written '3#2'\)"
[ -z "$(cut -f1 k.labels.tsv | sort | uniq -d)" ] || fail_because "k.labels.tsv repeats an id"
expect_grep "^3#2$(printf '\t')" k.labels.tsv
expect_grep "^3$(printf '\t')" k.labels.tsv
# --labels knows the row as the outputs name it; a suffix that is a name is passed over
printf '3#2 1\n3 1\ne 2\n' >given.tsv
run cluster -q -k 2 -t 1 --names-keyed --row-names k.names --labels given.tsv -o l "$BLOCKS"
expect_rc 0
printf '1|3#2\n2|beta\n4|3\n' >k2.names
run cluster -q -k 2 -t 1 --names-keyed --row-names k2.names -o k2 "$BLOCKS"
expect_rc 0
expect_grep "^3#3$(printf '\t')" k2.labels.tsv
# columns: top.tsv, a saved model's columns (refused as repeated before), predict's matching
printf '1|a\n2|3\n4|d\n5|e\n6|f\n' >kc.names
run cluster -k 2 -t 1 --names-keyed --names kc.names --save-model kc.mmnc -o kc "$BLOCKS"
expect_rc 0
expect_err "warning: kc\.names: 1 column that the file does not name .*\(first: column id '3', the name of id 2, written '3#2'\)"
expect_file kc.mmnc
run predict --names-keyed --names kc.names kc.mmnc "$BLOCKS" -o p
expect_rc 0
expect_out " 0 of 6 columns unknown"
end

begin "docs: a stop-word file's blank lines and '#' lines are skipped; a file of none is refused"
cp -r "$FIX/docs" corpus
# a list as found in the wild: a header of comments, blank lines between groups, CRLF
printf '# stop words for the test corpus\n#   one a line\n\nthe\na\n\n  and\n\t\n# animals: cat dog\nfed\n\n' |
    sed 's/$/\r/' >stop.txt
run docs corpus --stop-words stop.txt -o s.mtx
expect_rc 0
for w in the a and fed; do grep -qx "$w" s.cols && fail_because "stop word $w kept"; done
for w in cat dog stocks; do grep -qx "$w" s.cols || fail_because "$w (in a comment) stopped"; done
expect_err "\(28 stop words\)"
printf '# nothing but notes\n\n   \n' >none.txt
snapshot
run docs corpus --stop-words none.txt -o n.mtx
expect_rc 1
expect_err "^mmnc docs: none\.txt: no stop words found"
expect_nonew
end

begin "docs then cluster: names picked up, the two topics apart, top terms readable"
cp -r "$FIX/docs" corpus
run docs -q corpus --stop-words english -o d.mtx
run cluster -k 2 -o c d.mtx
expect_rc 0
expect_err "names from d\.rows and d\.cols"
expect_partition c.labels.tsv "corpus/money/bank.txt corpus/money/stocks.txt corpus/money/tax.txt|corpus/pets/bird.txt corpus/pets/cat.txt corpus/pets/dog.txt"
expect_out "members: corpus/"
expect_grep $'\tinterest\t' c.top.tsv
expect_grep $'\tcat\t' c.top.tsv
run cluster -q -k 2 --transpose -o t d.mtx
expect_rc 0
expect_grep '^(cat|interest|bank|stocks|dog|bird)'$'\t' t.labels.tsv
end

begin "docs: gzip input and standard input"
printf 'alpha beta beta\n' | gzip >a.txt.gz
printf 'gamma beta\n' >b.txt
printf 'delta alpha\n' | "$MMNC" docs -q a.txt.gz b.txt - -o d.mtx 2>"$ERR"
RC=$?
expect_rc 0
printf 'a.txt.gz\nb.txt\n-\n' >want.rows
expect_same d.rows want.rows
printf 'beta\nalpha\ndelta\ngamma\n' >want.cols
expect_same d.cols want.cols
end

begin "docs: binary file in a directory, missing file, empty directory: errors, nothing written"
mkdir -p c/sub empty
printf 'ok words\n' >c/a.txt
printf 'ab\000cd' >c/sub/bin.dat
snapshot
run docs c -o d.mtx
expect_rc 1
expect_err "c/sub/bin\.dat: NUL byte at offset 2"
run docs missing.txt -o d.mtx
expect_rc 1
expect_err "missing\.txt"
run docs empty -o d.mtx
expect_rc 1
expect_err "empty: no files in this directory"
run docs c/a.txt --min-df 5 -o d.mtx
expect_rc 1
expect_err "no term left"
run docs c/a.txt --max-df 2.5 -o d.mtx
expect_rc 2
expect_err "--max-df"
run docs c/a.txt
expect_rc 2
expect_err "no output file"
run docs c/a.txt -o d.mtx --stop-words nosuchlist
expect_rc 1
expect_err "nosuchlist"
expect_nonew
end

# ---- dense tables -----------------------------------------------------------------

begin "dense CSV with a header and row names: detected, names in the outputs"
printf ',apple,pear,fig,plum,kiwi\nann,5,4,0,0,1\nbob,4,5,1,0,0\ncid,0,0,4,5,0\ndan,0,1,5,4,0\n' >fruit.csv
run info fruit.csv
expect_rc 0
expect_out "4 rows x 5 columns, 11 nonzeros"
run cluster -q -k 2 -o f fruit.csv
expect_rc 0
expect_partition f.labels.tsv "ann bob|cid dan"
expect_grep $'\tapple\t' f.top.tsv
run convert -q fruit.csv f.mtx
expect_rc 0
printf 'ann\nbob\ncid\ndan\n' >want.rows
expect_same f.rows want.rows
end

begin "dense: TSV with a header and no row names, spaces, --no-header, --first-column"
printf 'a\tb\tc\td\n5\t4\t0\t0\n4\t5\t0\t0\n0\t0\t4\t5\n0\t1\t5\t4\n' >t.tsv
run info t.tsv
expect_rc 0
expect_out "4 rows x 4 columns, 9 nonzeros"
printf '5 4 0 0\n4 5 0 0\n0 0 4 5\n0 1 5 4\n' >s.txt
run cluster -q -k 2 --format dense -o s s.txt
expect_rc 0
expect_partition s.labels.tsv "1 2|3 4"
printf '7,5,4,0\n8,4,5,0\n9,0,0,4\n' >ids.csv
run info --format dense --first-column names ids.csv
expect_out "3 rows x 3 columns"
run info --format dense --first-column values ids.csv
expect_out "3 rows x 4 columns"
printf 'x,y,z,w\n1,0,2,0\n0,3,0,1\n' >h.csv
run info --format dense --no-header --first-column values h.csv
expect_rc 1
expect_err "h\.csv:1: field 1: expected a number, found 'x'"
end

begin "dense: ragged rows, non-numeric, negative and NaN cells refused, nothing written"
printf 'a,b,c,d\n1,0,2,0\n0,3,0\n' >rag.csv
printf 'a,b,c,d\n1,x,2,0\n' >word.csv
printf '1;0;2;0\n0;-3;0;1\n' >neg.csv
printf 'a\tb\tc\td\n1\tnan\t2\t0\n' >nan.tsv
snapshot
run cluster -k 1 -o r rag.csv
expect_rc 1
expect_err "rag\.csv:3: expected 4 fields \(as line 2\), got 3"
run info word.csv
expect_rc 1
expect_err "word\.csv:2: field 2 \(column 'b'\): expected a number, found 'x'"
run convert neg.csv n.bin
expect_rc 1
expect_err "neg\.csv:2: field 2: negative value '-3'"
run info nan.tsv
expect_rc 1
expect_err "nan\.tsv:2: field 2 \(column 'b'\): value 'nan' is not a finite number"
expect_nonew
end

begin "dense: numbers are decimal; a first column of hexadecimal ids is refused with the option that names rows"
printf 'id,x,y,z\n0x1f,1,2,3\n0x2f,4,0,6\n' >hexid.csv
snapshot
run cluster -q -k 2 hexid.csv
expect_rc 1
expect_err "^mmnc cluster: hexid\.csv:2: field 1 \(column 'id'\): expected a decimal number, found '0x1f' \(a first column of row names: --first-column names\)$"
expect_nonew
run cluster -q -k 2 -t 1 --first-column names -o h hexid.csv
expect_rc 0
expect_grep "^0x2f$(printf '\t')" h.labels.tsv
printf 'a,b,c,d\n1,0,2,0\n0,Infinity,0,1\n' >inf.csv
run info inf.csv
expect_rc 1
expect_err "^mmnc info: inf\.csv:3: field 2 \(column 'b'\): value 'Infinity' is not a finite number$"
end

begin "dense: a row name or a column name given twice is refused, nothing written"
printf 'id,a,b,c\nr1,5,4,0\nr1,0,1,6\nr2,4,5,0\nr3,0,0,5\n' >duprows.csv
printf 'id,a,b,a\nr1,5,4,0\nr2,0,1,6\nr3,4,5,0\n' >dupcols.csv
snapshot
run cluster -k 2 -t 1 -q -o dr duprows.csv
expect_rc 1
expect_err "duprows\.csv:3: row name 'r1' is given twice \(lines 2 and 3\)"
run cluster -k 2 -t 1 -q -o dc dupcols.csv
expect_rc 1
expect_err "dupcols\.csv:1: column name 'a' is given twice \(fields 2 and 4\)"
expect_nonew
end

begin "dense detection: three columns and all-numeric tab lines stay triplets"
printf '1,2,5\n2,1,3\n' >t3.csv
run info t3.csv
expect_rc 1
expect_err "t3\.csv:1: expected at least 3 fields .*--delim ,.*--format dense"
run info --format dense t3.csv
expect_rc 0
expect_out "2 rows x 3 columns"
printf '1\t2\t3\t881250949\n2\t1\t4\t881250950\n' >udata.tsv
run info udata.tsv
expect_rc 1
expect_err "udata\.tsv:1: expected 3 fields .*found more.*--format dense"
run info --extra-fields ignore udata.tsv
expect_rc 0
expect_out "2 rows x 2 columns"
end

begin "cluster top.tsv: only columns with a positive score"
run cluster -q -k 2 --top 6 -o b "$BLOCKS"
expect_rc 0
awk -F'\t' 'NR > 1 && !($5 > 0) { bad = 1 } END { exit bad }' b.top.tsv || fail_because "a score <= 0 in top.tsv"
# the planted blocks' own three columns each; the cross entries' columns (score < 0) left out
[ "$(awk 'NR > 1' b.top.tsv | wc -l)" -eq 6 ] || fail_because "expected 3 columns per cluster in top.tsv"
end

# ---- inputs read right at the edges (issue 40) ------------------------------------

begin "inputs: info reads a pipe and a FIFO once (a model's magic is looked for in regular files only)"
printf 'u1\ti7\t3\nu2\ti8\t1\nu1\ti8\t2\n' >r.tsv
run info <(cat r.tsv)
expect_rc 0
expect_out "2 rows x 2 columns, 3 nonzeros"
mkfifo fifo
(cat r.tsv >fifo &)
timeout 10 "$MMNC" info fifo >"$OUT" 2>"$ERR"
RC=$?
: 3<>fifo # frees a writer still waiting when mmnc did not open the FIFO
expect_rc 0
expect_out "2 rows x 2 columns, 3 nonzeros"
"$MMNC" cluster -q -k 2 -o b --save-model M "$BLOCKS" 2>"$ERR" || fail_because "no model"
run info <(cat M)
expect_rc 1
expect_err "/dev/fd/[0-9]+: a model saved by mmnc cluster --save-model, not a data file"
run info M
expect_rc 0
expect_out "^model +written by mmnc"
end

begin "inputs: info --format libsvm with feature index 10^9 sizes by the entries, not the claimed columns"
printf '0 1000000000:1 1:1\n' >wide.svm
if nm "$MMNC" 2>/dev/null | grep -q ' __asan_init'; then # ASan's shadow memory defeats ulimit -v
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}max_allocation_size_mb=256:allocator_may_return_null=1" \
        timeout 20 "$MMNC" info --format libsvm wide.svm >"$OUT" 2>"$ERR"
    RC=$?
else
    (ulimit -v 262144 && OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=1 exec timeout 20 "$MMNC" info --format libsvm wide.svm) \
        >"$OUT" 2>"$ERR"
    RC=$?
fi
expect_rc 0
expect_out "1 rows x 1000000000 columns, 2 nonzeros"
expect_out "empty +0 rows, 999999998 columns"
end

begin "inputs: a forced --format dense, triplet or libsvm on a Matrix Market file is refused, naming the banner"
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n2 3 4\n' >m.mtx
snapshot
for f in dense triplet libsvm; do
    run cluster -k 1 -o m --format $f m.mtx
    expect_rc 1
    expect_err "m\.mtx:1: a Matrix Market file \('%%MatrixMarket matrix coordinate real general'\), not $f"
done
run info --header m.mtx
expect_rc 1
expect_err "m\.mtx:1: a Matrix Market file .*not triplet"
expect_nonew
run info --format mtx m.mtx
expect_rc 0
expect_out "3 rows x 3 columns, 2 nonzeros"
end

begin "inputs: dense, pandas' header 0..n-1 (or 1..n) over fractional numbers is a header"
printf '0,1,2,3\n5.1,3.5,1.4,0.2\n4.9,3.0,1.4,0.2\n6.2,3.4,5.4,2.3\n' >iris.csv
run info iris.csv
expect_rc 0
expect_out "3 rows x 4 columns"
run convert iris.csv iris.mtx
expect_rc 0
printf '0\n1\n2\n3\n' >want.cols
expect_same iris.cols want.cols
printf '1\t2\t3\t4\n5.1\t3.5\t1.4\t0.2\n4.9\t3\t1.4\t0.2\n' >one.tsv
run info one.tsv
expect_rc 0
expect_out "2 rows x 4 columns"
run info --format dense --no-header iris.csv
expect_rc 0
expect_out "4 rows x 4 columns"
printf '0,1,2\n5.1,3.5,1.4\n4.9,3.0,1.4\n' >three.csv
run info --format dense three.csv
expect_rc 0
expect_out "2 rows x 3 columns"
# integers below: the first line may be data (counts), so it stays data
printf '0,1,2,3\n4,0,2,1\n' >ints.csv
run info ints.csv
expect_rc 0
expect_out "2 rows x 4 columns"
end

begin "inputs: triplets whose keys are all fractional numbers (a table read with --delim ,) are refused"
printf '6.70,6.64,0.49\n1.25,3.50,2.75\n0.10,0.20,0.30\n' >f3.csv
snapshot
run cluster -k 1 -o f --delim , f3.csv
expect_rc 1
expect_err "f3\.csv:1: every row and column key is a number with a fraction .*--format dense"
expect_nonew
run info --format dense f3.csv
expect_rc 0
expect_out "3 rows x 3 columns"
run info --format triplet --delim , f3.csv
expect_rc 0
expect_out "3 rows x 3 columns"
printf 'a,1.5,2\nb,2.5,3\n' >keys.csv
run info --delim , keys.csv
expect_rc 0
expect_out "2 rows x 2 columns"
end

begin "inputs: predict picks up DATA.rows / DATA.cols, refuses data whose mass is mostly on unknown columns"
cp -r "$FIX/docs" train
mkdir new other
printf 'The cat and the dog are fed fish.\n' >new/pet.txt
printf 'The bank pays interest on stocks.\n' >new/cash.txt
printf 'Zebra, quokka and wombat; a cat.\n' >other/zoo.txt
"$MMNC" docs -q train --stop-words english -o train.mtx 2>"$ERR" &&
    "$MMNC" cluster -q -k 2 -o tr --save-model M train.mtx 2>>"$ERR" &&
    "$MMNC" docs -q new --stop-words english -o new.mtx 2>>"$ERR" &&
    "$MMNC" docs -q other --stop-words english -o other.mtx 2>>"$ERR" || fail_because "setup failed"
run predict -o p M new.mtx
expect_rc 0
expect_err "names from new\.rows and new\.cols"
expect_out "0 of [0-9]+ columns unknown"
cl() { awk -F'\t' -v id="$2" '$1 == id { print $2 }' "$1" 2>/dev/null; }
[ -n "$(cl p.labels.tsv new/pet.txt)" ] && [ "$(cl p.labels.tsv new/pet.txt)" = "$(cl tr.labels.tsv train/pets/cat.txt)" ] ||
    fail_because "new/pet.txt not named or not with the pets"
[ -n "$(cl p.labels.tsv new/cash.txt)" ] && [ "$(cl p.labels.tsv new/cash.txt)" = "$(cl tr.labels.tsv train/money/bank.txt)" ] ||
    fail_because "new/cash.txt not named or not with the money"
snapshot
run predict -o q M other.mtx
expect_rc 1
expect_err "other\.mtx: 3 of 4 columns \(75% of the mass\) are not known to M: 1 matched.*--allow-unknown"
expect_nonew
run predict -q -o q --allow-unknown M other.mtx
expect_rc 0
expect_file q.labels.tsv
end

begin "inputs: docs names hold no line break, tab or invalid UTF-8 (backslash escapes), so names stay one a line"
mkdir c
printf 'cat dog cat pet\n' >c/a.txt
printf 'dog cat pet fur\n' >"c/b
x.txt"
printf 'money bank loan\n' >"c/c	t.txt"
printf 'bank money cash\n' >"$(printf 'c/d\351.txt')"
printf 'loan cash bank\n' >'c/e\f.txt'
run docs c -o t.mtx
expect_rc 0
printf '%s\n' 'c/a.txt' 'c/b\nx.txt' 'c/c\tt.txt' 'c/d\xe9.txt' 'c/e\\f.txt' >want.rows
expect_same t.rows want.rows
run cluster -k 2 -o r t.mtx
expect_rc 0
grep -q 'names for' "$ERR" && fail_because "names and rows do not match"
awk -F'\t' 'NF != 3 { bad = 1 } END { exit bad }' r.labels.tsv || fail_because "r.labels.tsv: a line without 3 fields"
grep -qF 'c/c\tt.txt' r.labels.tsv || fail_because "r.labels.tsv lacks the escaped name"
for f in t.rows r.labels.tsv; do
    if [ "$HAVE_PY" = 1 ]; then
        python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$f" 2>/dev/null ||
            fail_because "$f is not UTF-8"
    fi
done
expect_json r.json input
end

begin "inputs: values 1e30 times the others: the true reason (the range of the values), not 'zero mass'"
printf '1 1 1\n1 2 2\n2 1 1e30\n2 3 1\n3 2 3\n3 3 1\n' >big.tsv
printf '1 1 1e30\n1 2 1\n2 1 1e30\n2 3 1\n' >bigcol.tsv
snapshot
run cluster -k 2 -o b big.tsv
expect_rc 1
expect_err "big\.tsv: row 1 has values \(up to 2\) below 2\^-91 of the total 1e\+30"
grep -q 'drop empty rows' "$ERR" && fail_because "the old reason"
run info big.tsv
expect_rc 1
expect_err "big\.tsv: row 1 has values"
run cluster -k 1 -o b bigcol.tsv
expect_rc 1
expect_err "bigcol\.tsv: column 2 has values \(up to 1\) below 2\^-91 of the total 2e\+30"
expect_nonew
# ---- outputs: never an input, each file once, all of a run's files or none ---------

# stamp FILE...: remember the bytes and the modification time of these files;
# expect_stamped: they are still the same (a refused or failed run touches no output).
stamp() {
    local f
    for f; do printf '%s %s %s\n' "$f" "$(cksum <"$f")" "$(stat -c %y "$f")"; done >"$LOG/$ncase.stamp"
}
expect_stamped() {
    local f rest
    while read -r f rest; do
        [ "$rest" = "$(cksum <"$f" 2>/dev/null) $(stat -c %y "$f" 2>/dev/null)" ] ||
            fail_because "$f was touched"
    done <"$LOG/$ncase.stamp"
}

begin "cluster --save-model DATA: refused before any work, DATA untouched"
cp "$BLOCKS" k.mtx
stamp k.mtx
snapshot
run cluster -q -k 2 -o b --save-model k.mtx k.mtx
expect_rc 2
expect_err "--save-model 'k\.mtx' is an input of this run \(DATA\)"
run cluster -q -k 2 -o b --save-model ./k.mtx k.mtx
expect_rc 2
expect_err "--save-model '\./k\.mtx' is an input of this run \(DATA 'k\.mtx'\): it would be overwritten"
expect_stamped
expect_nonew
end

begin "cluster --save-model PREFIX.labels.tsv: refused before any work, the outputs untouched"
run cluster -q -k 2 -o b "$BLOCKS"
stamp b.labels.tsv b.soft.tsv b.json b.top.tsv
snapshot
run cluster -q -k 2 -s 7 -o b --save-model b.labels.tsv "$BLOCKS"
expect_rc 2
expect_err "--save-model 'b\.labels\.tsv' is also PREFIX\.labels\.tsv: one file cannot hold both"
run cluster -q -k 2 -s 7 -o b --save-model ./b.json "$BLOCKS"
expect_rc 2
expect_err "--save-model '\./b\.json' is also PREFIX\.json 'b\.json'"
run cluster -q -k 9 -s 7 -o b --save-model b.mmnc "$BLOCKS"
expect_rc 2
expect_err "k = 9 exceeds"
expect_stamped
expect_nonew
end

begin "cooc -o INPUT: refused before any work, the text untouched"
cp "$FIX/words.txt" t.txt
stamp t.txt
snapshot
run cooc -q --min-count 1 t.txt -o t.txt
expect_rc 2
expect_err "'t\.txt' is an input of this run"
run cooc -q --min-count 1 t.txt -o w.mtx --vocab t.txt
expect_rc 2
expect_err "--vocab 't\.txt' is an input of this run"
expect_stamped
expect_nonew
end

begin "cooc --tokens INPUT (or another output): refused before any work"
cp "$FIX/words.txt" t.txt
stamp t.txt
snapshot
run cooc -q --min-count 1 t.txt -o w.mtx --tokens t.txt
expect_rc 2
expect_err "--tokens 't\.txt' is an input of this run"
run cooc -q --min-count 1 t.txt -o w.mtx --tokens w.vocab
expect_rc 2
expect_err "--tokens 'w\.vocab' is also the vocabulary \(OUT\.vocab\)"
expect_stamped
expect_nonew
end

begin "embed -o INPUT (or --sv on its vocabulary): refused before any work"
cp "$FIX/words.expected.mtx" D.mtx
cp "$FIX/words.expected.vocab" D.vocab
stamp D.mtx D.vocab
snapshot
run embed -q D.mtx -d 1 -o D.mtx
expect_rc 2
expect_err "'D\.mtx' is an input of this run \(DATA\)"
run embed -q D.mtx -d 1 -o v.txt --sv D.vocab
expect_rc 2
expect_err "--sv 'D\.vocab' is an input of this run"
run embed -q D.mtx -d 1 -o v.txt --sv v.txt
expect_rc 2
expect_err "--sv 'v\.txt' is also"
expect_stamped
expect_nonew
end

begin "convert, docs, predict, sweep, msr: an output that is an input is refused"
cp "$BLOCKS" k.mtx
cp "$FIX/words.txt" a.txt
msr_files
run cluster -q -k 2 -o mm --save-model m.json "$BLOCKS"
stamp k.mtx a.txt q.csv m.json
snapshot
run convert -q k.mtx k.mtx
expect_rc 2
expect_err "'k\.mtx' is an input"
run docs -q a.txt -o a.txt
expect_rc 2
expect_err "'a\.txt' is an input"
run predict -q -o m m.json "$BLOCKS"
expect_rc 2
expect_err "'m\.json' is an input"
cp k.mtx s.sweep.tsv
run sweep -q --kmax 2 --plot none --format mtx -o s s.sweep.tsv
expect_rc 2
expect_err "'s\.sweep\.tsv' is an input"
rm s.sweep.tsv
run msr -q v.txt q.csv a.csv -o q.csv
expect_rc 2
expect_err "'q\.csv' is an input"
expect_stamped
expect_nonew
end

begin "a 240-character output prefix works: the temporary names do not grow with it"
p=$(printf 'p%.0s' $(seq 240))
w=$(printf 'w%.0s' $(seq 245))
# expect_long FILE...: like expect_file, naming the files by their ends
expect_long() { for f; do [ -f "$f" ] || fail_because "no file ${f:0:3}...${f: -12}"; done; }
run cluster -q -k 2 -o "$p" --save-model "$p.mmnc" "$BLOCKS"
expect_rc 0
expect_long "$p.labels.tsv" "$p.soft.tsv" "$p.json" "$p.top.tsv" "$p.mmnc"
run cooc -q --min-count 1 "$FIX/words.txt" -o "$w.mtx" --tokens "$w.tok"
expect_rc 0
expect_long "$w.mtx" "$w.vocab" "$w.tok"
run embed -q "$w.mtx" -d 1 -o "$w.vec" --sv "$w.sv"
expect_rc 0
expect_long "$w.vec" "$w.sv"
[ "$(ls -A | wc -l)" = 10 ] || fail_because "other files left: $(ls -A | cut -c1-20 | tr '\n' ' ')"
end

# set_of DIR: which run's outputs DIR holds: "A" or "B" (all of them byte for byte
# as in the reference directories A/ and B/, the JSON's seed too), "none", or
# "mixed: ..." naming the odd files (and any file that is not an output).
set_of() {
    local d=$1 f who=
    local files="r.labels.tsv r.soft.tsv r.top.tsv r.mmnc"
    if [ -z "$(ls -A "$d")" ]; then echo none; return; fi
    for f in $files; do
        if cmp -s "$d/$f" "A/$f"; then who="$who A"
        elif cmp -s "$d/$f" "B/$f"; then who="$who B"
        else who="$who $f?"; fi
    done
    if grep -q '"seed": 1,' "$d/r.json" 2>/dev/null; then who="$who A"
    elif grep -q '"seed": 2,' "$d/r.json" 2>/dev/null; then who="$who B"
    else who="$who r.json?"; fi
    case "$who" in
    " A A A A A") echo A ;;
    " B B B B B") echo B ;;
    *) echo "mixed:$who; files: $(ls -A "$d" | tr '\n' ' ')" ;;
    esac
}

begin "SIGTERM at any moment leaves all of a run's outputs or none of them"
# A run over an earlier run's outputs (seed 1), killed 16 times: at a random moment of
# the run (odd attempts), or a random few ms after a first output is complete in the
# staging directory, i.e. close to the renames (even ones).  Each time, the files are
# the earlier run's (a) or the new run's (b), all of them.
run generate -q --rows 20000 --cols 100 -k 50 --draws 3 -o g.mtx
mkdir A B T
ARGS="cluster -q -t 1 -k 50 -a nuclear --init random -r 1 --max-iter 2 -o r --save-model r.mmnc ../g.mtx"
(cd A && "$MMNC" $ARGS -s 1 >/dev/null 2>&1) || fail_because "reference run A failed"
t0=$(date +%s%N)
(cd B && "$MMNC" $ARGS -s 2 >/dev/null 2>&1) || fail_because "reference run B failed"
ms=$((($(date +%s%N) - t0) / 1000000))
cp A/r.* T/
tally=
for i in $(seq 16); do
    (cd T && exec "$MMNC" $ARGS -s 2 >/dev/null 2>&1) &
    pid=$!
    if [ $((i % 2)) = 1 ]; then
        sleep "$(awk -v r="$RANDOM" -v ms="$ms" 'BEGIN { printf "%.3f", r / 32768 * ms * 1.2 / 1000 }')"
    else
        while kill -0 "$pid" 2>/dev/null && ! compgen -G "T/.mmnc-*/r.*" >/dev/null; do sleep 0.002; done
        sleep "0.0$((RANDOM % 50))"
    fi
    kill -TERM "$pid" 2>/dev/null
    wait "$pid"
    got=$(set_of T)
    case $got in
    A) tally="${tally}a" ;;
    B) tally="${tally}b"; rm -f T/r.*; cp A/r.* T/ ;;
    *) fail_because "after SIGTERM $i: $got"; break ;;
    esac
done
echo "      ($ms ms a run; after each SIGTERM: $tally, a = the earlier outputs kept, b = the new ones whole)"
end

begin "two runs writing one prefix at once leave the outputs of one of them"
# Run A (k = 50: much to write) and run B (k = 2, another seed) started a random
# moment apart, six times: whichever renames last, the files are all A's or all B's.
run generate -q --rows 20000 --cols 100 -k 50 --draws 3 -o g.mtx
mkdir A B T
ARGS="cluster -q -t 1 -a nuclear --init random -r 1 --max-iter 2 -o r --save-model r.mmnc ../g.mtx"
(cd A && "$MMNC" $ARGS -k 50 -s 1 >/dev/null 2>&1) || fail_because "reference run A failed"
(cd B && "$MMNC" $ARGS -k 2 -s 2 >/dev/null 2>&1) || fail_because "reference run B failed"
tally=
for i in $(seq 6); do
    rm -f T/r.*
    (cd T && exec "$MMNC" $ARGS -k 50 -s 1 >/dev/null 2>&1) &
    p1=$!
    sleep "0.$((RANDOM % 5))$((RANDOM % 10))"
    (cd T && exec "$MMNC" $ARGS -k 2 -s 2 >/dev/null 2>&1) &
    p2=$!
    wait "$p1" || fail_because "run A of pair $i failed"
    wait "$p2" || fail_because "run B of pair $i failed"
    got=$(set_of T)
    case $got in
    A | B) tally="$tally$got" ;;
    *) fail_because "after the pair $i: $got"; break ;;
    esac
done
echo "      (the outputs left by each pair: $tally)"
end

begin "outputs: a data path that is not UTF-8 gives valid JSON (the byte as the text \\xHH)"
cp "$BLOCKS" "$(printf 'b\xe9.mtx')"
run cluster -k 2 -o u8 "$(printf 'b\xe9.mtx')"
expect_rc 0
grep -q '"input": ".*b\\\\xe9\.mtx"' u8.json || fail_because "the JSON's input is not b\\xe9.mtx"
if command -v python3 >/dev/null; then
    python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' u8.json 2>>"$ERR" ||
        fail_because "u8.json is not valid UTF-8 JSON"
fi
end

begin "outputs: a name with a tab or a newline stays one TSV field (written as \\t, \\n)"
printf 'r\t1\nr2\nr3\nr4\nr5\nr6\nr7\nr8\n' >tab.names
run cluster -k 2 -o tab --row-names tab.names "$BLOCKS"
expect_rc 0
[ "$(awk -F'\t' '{print NF}' tab.labels.tsv | sort -u)" = 3 ] || fail_because "tab.labels.tsv has a line of other than 3 fields"
[ "$(awk -F'\t' '{print NF}' tab.soft.tsv | sort -u | wc -l)" = 1 ] || fail_because "tab.soft.tsv lines differ in fields"
grep -q '^r\\t1'"$(printf '\t')" tab.labels.tsv || fail_because "the name is not written as r\\t1"
end

# ---- summary ----------------------------------------------------------------------

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
