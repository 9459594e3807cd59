#!/bin/sh
# lifecycle.sh MPIEXEC APP LIB [SEEDS [CHUNK]]: runs the seeded random
# request-lifecycle program APP (tests/pmpi/pmpi_lifecycle.c) for the seeds
# SEEDS (FIRST-LAST) on
# each number of ranks of LIFECYCLE_NPS (default "3 5"), natively and with
# LD_PRELOAD=LIB in each configuration below, CHUNK seeds a job (default:
# all of them). Without SEEDS (the ctest pmpi.lifecycle): seed N of 50
# operations on N ranks, in the first four configurations only. A soak
# (bench/lifecycle_soak.sh) gives many seeds. On the
# first failing job it prints its output's first failures, the job's
# command, whether the failing seed fails alone too (and that command), and
# exits 1.
set -eu
MPIEXEC=$1; APP=$2; LIB=$3
SEEDS=${4:-}; CHUNK=${5:-0}
NPS=${LIFECYCLE_NPS:-3 5}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Each configuration: the library's variables (NATIVE: no library) | the
# program's flags (-f: every completion call on persistent collective
# requests, right with the library only; -m: MPICH 4.0.2's wrong persistent
# forms too, where the library serves every call).
CONFIGS="NATIVE|
CHOREO_MARGIN=off|-f -m
CHOREO_MARGIN=0.1|-f
CHOREO_MARGIN=off CHOREO_ALLREDUCE=allreduce-ring CHOREO_BCAST=bcast-scatter-allgather CHOREO_ALLGATHER=allgather-bruck CHOREO_ALLGATHERV=allgather-ring CHOREO_ALLTOALL=alltoall-bruck:radix=3 CHOREO_ALLTOALLV=alltoall-pairwise CHOREO_REDUCE=reduce-binary-blocks CHOREO_REDUCE_SCATTER_BLOCK=reduce-scatter-halving-doubling CHOREO_BARRIER=barrier-dissemination:radix=3 CHOREO_SCAN=scan-chain CHOREO_EXSCAN=exscan-chain CHOREO_GATHER=gather-linear CHOREO_SCATTER=scatter-linear|-f -m"
QUICK=
if [ -z "$SEEDS" ]; then
  QUICK="-n 50"
else
  CONFIGS="$CONFIGS
CHOREO_MARGIN=0.1|
CHOREO_MARGIN=off CHOREO_FLOW_CONTROL=1 CHOREO_TAG_UB=32767|-f -m
CHOREO_MARGIN=off CHOREO_PLANS_PER_COMM=1|-f -m"
fi

jobs=0
for NP in $NPS; do
  # The ctest's seeds: one a number of ranks, the number itself.
  if [ -z "$SEEDS" ]; then FIRST=$NP; LAST=$NP; else
    FIRST=${SEEDS%-*}; LAST=${SEEDS#*-}; fi
  [ "$CHUNK" -gt 0 ] || CHUNK=$((LAST - FIRST + 1))
  echo "$CONFIGS" | while IFS='|' read -r VARS FLAGS; do
    S=$FIRST
    while [ "$S" -le "$LAST" ]; do
      E=$((S + CHUNK - 1)); [ "$E" -le "$LAST" ] || E=$LAST
      if [ "$VARS" = NATIVE ]; then
        CMD="$MPIEXEC -n $NP $APP $QUICK $FLAGS"
      else
        CMD="env $VARS $MPIEXEC -genv LD_PRELOAD $LIB -n $NP $APP $QUICK $FLAGS"
      fi
      # shellcheck disable=SC2086
      if ! $CMD "$S-$E" </dev/null >"$TMP/out" 2>&1 ||
         ! grep -q "^pmpi_lifecycle: passed" "$TMP/out"; then
        grep "pmpi_lifecycle" "$TMP/out" | grep -v "passed (" | head -12
        BAD=$(grep "seed [0-9]" "$TMP/out" | grep -v "passed" | head -1 |
              sed 's/.*seed \([0-9]*\).*/\1/')
        echo "lifecycle: FAILED on $NP ranks: $CMD $S-$E </dev/null"
        if [ -n "$BAD" ]; then
          # shellcheck disable=SC2086
          if $CMD "$BAD" </dev/null >"$TMP/alone" 2>&1 &&
             grep -q "^pmpi_lifecycle: passed" "$TMP/alone"; then
            echo "lifecycle: seed $BAD passes alone (the job's earlier seeds matter)"
          else
            echo "lifecycle: seed $BAD fails alone too: $CMD $BAD </dev/null"
          fi
        fi
        exit 1
      fi
      echo "lifecycle: $NP ranks, seeds $S-$E passed: ${VARS} ${FLAGS}"
      S=$((E + 1))
    done
  done || exit 1
done
echo "lifecycle: passed (seeds ${SEEDS:-N on N ranks} on $NPS ranks)"
