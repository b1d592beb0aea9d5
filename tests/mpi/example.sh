#!/usr/bin/env bash
#
# example.sh -- examples/cluster_mpi.c, a library user running distributed,
# gives on 2 and 3 ranks the clusters examples/cluster.c gives in one process.
#
#   tests/mpi/example.sh /path/to/example_cluster /path/to/example_cluster_mpi /path/to/source-dir
#
# MPIRUN names the launcher as in run.sh.  Exits 0 on agreement, 1 otherwise,
# 77 (skip) without a launcher.

set -u
ONE=${1:?usage: example.sh example_cluster example_cluster_mpi source-dir}
MANY=${2:?usage: example.sh example_cluster example_cluster_mpi source-dir}
SRC=${3:?usage: example.sh example_cluster example_cluster_mpi source-dir}
MPIRUN=${MPIRUN:-mpirun}
command -v "$MPIRUN" >/dev/null || { echo "example: $MPIRUN not found: skipped"; exit 77; }
. "$(dirname "$0")/launcher.sh" # RUN, and the environment of MPI tests

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
data=$SRC/tests/cli/blocks.mtx
"$ONE" "$data" 2 | grep -v '^#' | cut -f1,2 >"$W/one" || { echo "example_cluster failed"; exit 1; }
for n in 2 3; do
    timeout 120 "${RUN[@]}" -np $n "$MANY" "$data" 2 >"$W/many" 2>"$W/err" || {
        echo "example_cluster_mpi on $n ranks failed: $(head -3 "$W/err")"; exit 1; }
    grep -v '^#' "$W/many" | cmp -s - "$W/one" || { echo "example_cluster_mpi on $n ranks: clusters differ"; exit 1; }
    echo "ok: example_cluster_mpi on $n ranks"
done
