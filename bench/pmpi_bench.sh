#!/bin/sh
# pmpi_bench.sh [BUILD_DIR] [NP] [ITER]: the OSU-style program
# (choreo-bench-pmpi-osu) natively and with LD_PRELOAD=libchoreo-mpi.so
# (CHOREO_DEFAULT=auto) for allgather, allgatherv (irregular counts), bcast,
# reduce, allreduce, reduce_scatter_block, alltoall, alltoallv, gather,
# scatter, scan, exscan, barrier and the intercommunicator allgather(v), in
# one run; prints one Markdown
# table per collective: size, native and choreo min/median/max in
# microseconds, and the ratio of the medians (choreo / native). COLLS (in
# the environment) chooses the collectives, PRELOAD another build of the
# library (the one before a change), e.g.
#   COLLS="reduce allreduce" sh bench/pmpi_bench.sh build 4 10
#   PRELOAD=/tmp/libchoreo-mpi-before.so sh bench/pmpi_bench.sh build 2 200
# bench/pmpi_excess.py summarises a run's tables against the hand-over's
# bound (docs/pmpi.md, issue 26).
set -eu
BUILD=${1:-build}; NP=${2:-4}; ITER=${3:-30}
OSU=$BUILD/bin/choreo-bench-pmpi-osu
LIB=${PRELOAD:-$(cd "$BUILD/lib" && pwd)/libchoreo-mpi.so}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for COLL in ${COLLS:-allgather allgatherv bcast reduce allreduce reduce_scatter_block alltoall alltoallv gather scatter scan exscan barrier inter-allgather inter-allgatherv}; do
  mpiexec -n "$NP" "$OSU" "$COLL" 8 1048576 "$ITER" 3 </dev/null > "$TMP/n" 2>&1
  env LD_PRELOAD="$LIB" CHOREO_VERBOSE=1 mpiexec -n "$NP" "$OSU" "$COLL" 8 1048576 "$ITER" 3 </dev/null > "$TMP/c" 2>"$TMP/v"
  echo
  echo "$COLL, $NP ranks, $ITER iterations (us)"
  echo
  echo "| bytes | native min | native median | native max | choreo min | choreo median | choreo max | median ratio |"
  echo "|---|---|---|---|---|---|---|---|"
  grep -v '^#' "$TMP/n" > "$TMP/n2"; grep -v '^#' "$TMP/c" > "$TMP/c2"
  paste -d' ' "$TMP/n2" "$TMP/c2" | awk '{printf "| %s | %s | %s | %s | %s | %s | %s | %.2f |\n", $1,$2,$3,$4,$6,$7,$8,$7/$3}'
  # The library's first line for each shape of this collective: its
  # algorithm, or "native" where auto handed the call to MPICH.
  NAME=MPI_$(echo "${COLL#inter-}" | awk '{print toupper(substr($0,1,1)) substr($0,2)}')
  printf "algorithms that ran: "
  sed -n "s/^choreo-mpi: $NAME ([^)]*) on [^:]*: \([a-z0-9-]*\).*/\1/p" "$TMP/v" | sort -u | tr '\n' ' '
  echo
done
