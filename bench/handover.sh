#!/bin/sh
# handover.sh [BUILD_DIR] [NP] [ROUNDS] [LOOP]: what the library adds to a
# call it hands to MPICH (docs/pmpi.md, "Calls handed to MPICH by the
# margin"). The OSU-style program (choreo-bench-pmpi-osu) with LOOP calls
# back to back per sample (default 200; 15 samples, the median) natively and
# preloaded (CHOREO_DEFAULT=auto, the margin at its default), the two
# alternating for ROUNDS rounds (default 5). Prints one Markdown row per
# collective and size: the median over the rounds of native and preloaded
# (microseconds per call), their difference and ratio, and the lowest and
# highest round of each. COLLS and SIZES (MIN MAX, doubling) in the
# environment choose; the defaults are the calls a 2-rank job hands over.
# BEFORE=PATH adds a third configuration in the same rounds, another build
# of libchoreo-mpi.so preloaded (the library before a change):
#   COLLS="alltoall scatter" SIZES="8 8" sh bench/handover.sh build 2 5 200
#   BEFORE=/tmp/libchoreo-mpi-before.so sh bench/handover.sh build 2 7
# INSTR=1 counts instead of timing (a shared machine's load does not move
# the count): one rank, no mpiexec, under valgrind's callgrind, the
# instructions per call (native, BEFORE's, preloaded and preloaded minus
# native), from two jobs of LOOP and 11 x LOOP calls per size (one
# iteration, no warm-up; the sizes MIN..MAX one after another in each job,
# so a call finds the library's fast cache holding the sizes before it).
# NP and ROUNDS are ignored:
#   INSTR=1 COLLS="reduce_scatter_block allreduce" SIZES="8 512" sh bench/handover.sh build 1 1 1000
set -eu
BUILD=${1:-build}; NP=${2:-2}; ROUNDS=${3:-5}; LOOP=${4:-200}
OSU=$BUILD/bin/choreo-bench-pmpi-osu
LIB=$(cd "$BUILD/lib" && pwd)/libchoreo-mpi.so
COLLS=${COLLS:-bcast reduce allreduce reduce_scatter_block alltoall alltoallv gather scatter scan exscan barrier inter-allgatherv}
set -- ${SIZES:-8 8}
MIN=$1; MAX=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if [ -n "${INSTR:-}" ]; then
  command -v valgrind >/dev/null || { echo "handover.sh: INSTR=1 needs valgrind" >&2; exit 1; }
  # The instructions of one job: PRELOAD (or none) and its LOOP.
  count() {
    env ${1:+LD_PRELOAD=$1} valgrind --tool=callgrind --callgrind-out-file=/dev/null \
      "$OSU" "$COLL" "$MIN" "$MAX" 1 0 "$2" </dev/null 2>&1 >/dev/null |
      sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
  }
  SIZESN=0; S=$MIN
  while [ "$S" -le "$MAX" ]; do SIZESN=$((SIZESN + 1)); S=$((S * 2)); done
  CALLS=$((SIZESN * LOOP * 10))
  if [ -n "${BEFORE:-}" ]; then
    echo "| call | sizes (bytes) | native instr/call | before | preloaded | preloaded - native | before - native |"
    echo "|---|---|---|---|---|---|---|"
  else
    echo "| call | sizes (bytes) | native instr/call | preloaded | preloaded - native |"
    echo "|---|---|---|---|---|"
  fi
  for COLL in $COLLS; do
    N=$(( ($(count "" $((LOOP * 11))) - $(count "" "$LOOP")) / CALLS ))
    P=$(( ($(count "$LIB" $((LOOP * 11))) - $(count "$LIB" "$LOOP")) / CALLS ))
    if [ -n "${BEFORE:-}" ]; then
      B=$(( ($(count "$BEFORE" $((LOOP * 11))) - $(count "$BEFORE" "$LOOP")) / CALLS ))
      echo "| $COLL | $MIN-$MAX | $N | $B | $P | $((P - N)) | $((B - N)) |"
    else
      echo "| $COLL | $MIN-$MAX | $N | $P | $((P - N)) |"
    fi
  done
  exit 0
fi
R=1
while [ "$R" -le "$ROUNDS" ]; do
  for COLL in $COLLS; do
    mpiexec -n "$NP" "$OSU" "$COLL" "$MIN" "$MAX" 15 3 "$LOOP" </dev/null |
      grep -v '^#' | awk -v c="$COLL" '{print c, $1, "native", $3}' >> "$TMP/all"
    env LD_PRELOAD="$LIB" mpiexec -n "$NP" "$OSU" "$COLL" "$MIN" "$MAX" 15 3 "$LOOP" </dev/null |
      grep -v '^#' | awk -v c="$COLL" '{print c, $1, "preloaded", $3}' >> "$TMP/all"
    if [ -n "${BEFORE:-}" ]; then
      env LD_PRELOAD="$BEFORE" mpiexec -n "$NP" "$OSU" "$COLL" "$MIN" "$MAX" 15 3 "$LOOP" </dev/null |
        grep -v '^#' | awk -v c="$COLL" '{print c, $1, "before", $3}' >> "$TMP/all"
    fi
  done
  R=$((R + 1))
done
if [ -n "${BEFORE:-}" ]; then
  echo "| call | bytes | native us | before us | preloaded us | difference us | ratio | native rounds | before rounds | preloaded rounds |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
else
  echo "| call | bytes | native us | preloaded us | difference us | ratio | native rounds | preloaded rounds |"
  echo "|---|---|---|---|---|---|---|---|"
fi
sort -k1,1 -k2,2n -k3,3 -k4,4g "$TMP/all" | awk '
  function med(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  function flush() {
    if (key == "") return
    mn = med(N, nn); mp = med(P, np)
    if (nb) {
      mb = med(B, nb)
      printf "| %s | %s | %.3f | %.3f | %.3f | %+.3f | %.2f | %.3f-%.3f | %.3f-%.3f | %.3f-%.3f |\n", c, b, mn, mb, mp, mp - mn, mp / mn, N[1], N[nn], B[1], B[nb], P[1], P[np]
    } else
      printf "| %s | %s | %.3f | %.3f | %+.3f | %.2f | %.3f-%.3f | %.3f-%.3f |\n", c, b, mn, mp, mp - mn, mp / mn, N[1], N[nn], P[1], P[np]
    nn = 0; np = 0; nb = 0
  }
  { k = $1 " " $2
    if (k != key) { flush(); key = k; c = $1; b = $2 }
    if ($3 == "native") N[++nn] = $4; else if ($3 == "before") B[++nb] = $4; else P[++np] = $4 }
  END { flush() }'
