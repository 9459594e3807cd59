#!/bin/sh
# tune.sh CHOREO MPIEXEC APP LIB RUN_APP: `choreo tune` writes a selection
# file for communicators of 2 and 6 ranks; run-app.sh runs the application
# natively and preloaded with CHOREO_SELECTION set to it: every result bit
# for bit as native, and the calls decided by the file's rules, some handed
# to MPICH (native) and some run as choreo's schedules.
set -eu
CHOREO=$1; MPIEXEC=$2; APP=$3; LIB=$4; RUN_APP=$5
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$CHOREO" tune --p 2,6 --max-bytes 128K -o "$TMP/sel.json"
sh "$RUN_APP" "$MPIEXEC" "$APP" "$LIB" 6 CHOREO_SELECTION="$TMP/sel.json" \
  -- "MPI_Bcast (communicator of 6, 1 bytes, root 0) on MPI_COMM_WORLD: native (rule" \
  "MPI_Allreduce (communicator of 6, 80000 bytes) on MPI_COMM_WORLD: allreduce-ring (rule" \
  "MPI_Allgather (communicator of 6, 24 bytes in all) on MPI_COMM_WORLD: native (rule" \
  "sel.json (/collective=reduce/comm_type=intra/is_commutative=no/" \
  "!cannot serve it"
