#!/bin/sh
# pmpi_check.sh [BUILD_DIR] [ROUNDS] [ITER]: what CHOREO_CHECK=always costs
# a small call, against CHOREO_CHECK=first (the default) and MPICH's own
# call, at 2 ranks. Runs the OSU-style program (choreo-bench-pmpi-osu) on
# 8-byte MPI_Allreduce and MPI_Allgather, ITER timed calls per job (median
# of the slowest rank's time per call), the configurations alternating over
# ROUNDS rounds, and prints per collective the median over the rounds of
# each configuration and its ratio to CHOREO_CHECK=first. BEFORE (in the
# environment) adds another build of the library, e.g. one from before a
# change, as a fourth configuration:
#   BEFORE=/tmp/libchoreo-mpi-main.so sh bench/pmpi_check.sh build 7 1000
# Check that the machine is quiet first (uptime): 2 ranks need both cores.
set -eu
BUILD=${1:-build}; ROUNDS=${2:-7}; ITER=${3:-1000}
OSU=$BUILD/bin/choreo-bench-pmpi-osu
LIB=$(cd "$BUILD/lib" && pwd)/libchoreo-mpi.so
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
CONFIGS="native first always"
[ -n "${BEFORE:-}" ] && CONFIGS="$CONFIGS before"
echo "load before: $(uptime | sed 's/.*load average: //')"
for COLL in allreduce allgather; do
  r=0
  while [ "$r" -lt "$ROUNDS" ]; do
    r=$((r + 1))
    for CFG in $CONFIGS; do
      case $CFG in
        native) set -- ;;
        first) set -- -env LD_PRELOAD "$LIB" -env CHOREO_CHECK first ;;
        always) set -- -env LD_PRELOAD "$LIB" -env CHOREO_CHECK always ;;
        before) set -- -env LD_PRELOAD "$BEFORE" ;;
      esac
      mpiexec -n 2 "$@" "$OSU" "$COLL" 8 8 "$ITER" 50 </dev/null 2>/dev/null |
        awk '!/^#/ {print $3}' >> "$TMP/$COLL.$CFG"
    done
  done
done
echo "load after: $(uptime | sed 's/.*load average: //')"
median() { sort -g "$1" | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
echo
echo "| collective (8 bytes, 2 ranks) | configuration | median of $ROUNDS medians of $ITER calls (us) | lowest - highest round | ratio to CHOREO_CHECK=first |"
echo "|---|---|---|---|---|"
for COLL in allreduce allgather; do
  base=$(median "$TMP/$COLL.first")
  for CFG in $CONFIGS; do
    m=$(median "$TMP/$COLL.$CFG")
    lo=$(sort -g "$TMP/$COLL.$CFG" | head -1)
    hi=$(sort -g "$TMP/$COLL.$CFG" | tail -1)
    case $CFG in
      native) name="MPICH (no library)" ;;
      first) name="library, CHOREO_CHECK=first" ;;
      always) name="library, CHOREO_CHECK=always" ;;
      before) name="library before ($BEFORE)" ;;
    esac
    awk -v c="MPI_$(echo "$COLL" | sed 's/^./\U&/')" -v n="$name" -v m="$m" -v b="$base" \
      -v lo="$lo" -v hi="$hi" \
      'BEGIN {printf "| %s | %s | %.2f | %.2f - %.2f | %.2f |\n", c, n, m, lo, hi, m / b}'
  done
done
