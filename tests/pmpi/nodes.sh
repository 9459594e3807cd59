#!/bin/sh
# nodes.sh MPIEXEC APP LIB RUN_APP: the library's `auto` on a job of two
# nodes of two ranks (CHOREO_NODES=2: this machine is one node) with a
# machine file whose messages within a node are 50 times cheaper to start
# and 100 times per byte:
#  1. it sees the nodes and picks the broadcast whose groups are the nodes
#     for a 64 KiB MPI_Bcast from root 1 (the plain binomial tree crosses
#     the nodes in both its steps), on MPI_COMM_WORLD and on a duplicate;
#     every result bit for bit as native (run-app.sh);
#  2. on this one node (MPI_Comm_split_type, the default) and with
#     CHOREO_NODES=off nothing is node-aware: every message at the
#     inter-node price, split-binary for every root;
#  3. a bad CHOREO_NODES, and ranks given different ones (an MPMD job),
#     fail every rank's call naming CHOREO_NODES, never a hang.
set -eu
MPIEXEC=$1; APP=$2; LIB=$3; RUN_APP=$4
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "nodes: $*"; exit 1; }
cat >"$TMP/m.json" <<'JSON'
{"format": "choreo-machine", "version": 1, "alpha": 2.5e-05, "beta": 1e-08,
 "gamma": 2.5e-10, "intra": {"alpha": 5e-07, "beta": 1e-10}}
JSON
ROOT1="MPI_Bcast (communicator of 4, 65536 bytes, root 1) on"
# Every op at the inter-node price: split-binary for every root.
FLAT="MPI_Bcast (communicator of 4, 65536 bytes, root 0) on MPI_COMM_WORLD: bcast-split-binary (CHOREO_DEFAULT; auto: model time 1.058e-03 s"
sh "$RUN_APP" "$MPIEXEC" "$APP" "$LIB" 4 \
  CHOREO_NODES=2 CHOREO_MACHINE="$TMP/m.json" \
  -- "auto sees 2 nodes: 2,2 consecutive ranks per node (CHOREO_NODES=2)" \
  "$ROOT1 MPI_COMM_WORLD: bcast-binomial:nodes=2,2:groups=nodes (CHOREO_DEFAULT; auto" \
  "$ROOT1 a communicator: bcast-binomial:nodes=2,2:groups=nodes (CHOREO_DEFAULT; auto" \
  "!cannot serve it" \
  :: CHOREO_MACHINE="$TMP/m.json" \
  -- "$FLAT" "!auto sees" "!nodes=" \
  :: CHOREO_NODES=off CHOREO_MACHINE="$TMP/m.json" \
  -- "$FLAT" "!auto sees" "!nodes="

# every_rank_fails N PATTERN FILE: N ranks reported an error matching PATTERN.
every_rank_fails() {
  n=$(grep "^choreo-mpi: .*$2.*(world rank [0-9]*)" "$3" |
    sed 's/.*(world rank \([0-9]*\))$/\1/' | sort -u | wc -l)
  [ "$n" -eq "$1" ] || { cat "$3"; fail "expected $1 ranks to fail with '$2', got $n"; }
}
mkdir "$TMP/out"
if env CHOREO_NODES=zero "$MPIEXEC" -genv LD_PRELOAD "$LIB" -n 4 "$APP" \
    "$TMP/out" </dev/null >"$TMP/bad.out" 2>&1; then
  cat "$TMP/bad.out"; fail "CHOREO_NODES=zero was accepted"
fi
every_rank_fails 4 "CHOREO_NODES=zero: expected shared, off or a positive number of ranks per node" "$TMP/bad.out"
if "$MPIEXEC" -genv LD_PRELOAD "$LIB" -n 2 -env CHOREO_NODES 2 "$APP" "$TMP/out" : \
    -n 2 -env CHOREO_NODES off "$APP" "$TMP/out" </dev/null >"$TMP/mixed.out" 2>&1; then
  cat "$TMP/mixed.out"; fail "ranks with different CHOREO_NODES were accepted"
fi
every_rank_fails 4 "CHOREO_NODES is not the same on every rank of the communicator" "$TMP/mixed.out"
echo "nodes: passed"
