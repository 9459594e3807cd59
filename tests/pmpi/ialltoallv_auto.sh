#!/bin/sh
# ialltoallv_auto.sh MPIEXEC APP LIB: a started MPI_Ialltoallv under
# CHOREO_ALLTOALLV=auto on 5 ranks, priced in its run from rows and
# columns (pmpi_ialltoallv.c's auto mode: six matrices, each started and
# then called blocking with the same counts). With the margin off and at
# 0.1, every rank's verbose line (CHOREO_VERBOSE=2) names the same pick,
# priced in the run; the started pick and its model time are the blocking
# call's (priced in the job) for the same matrix, or, where the margin
# hands the blocking call to MPICH, the started call runs MPICH's
# algorithm for the same prices; results bit for bit as native.
set -eu
. "$(dirname "$0")/job.sh"
mkdir "$TMP/native"
job "the native run failed" -n 5 "$APP" auto "$TMP/native"
for MARGIN in off 0.1; do
  rm -rf "$TMP/run"; mkdir "$TMP/run"
  job "margin $MARGIN: the job did not end cleanly" -genv LD_PRELOAD "$LIB" \
    -genv CHOREO_ALLTOALLV auto -genv CHOREO_MARGIN "$MARGIN" -genv CHOREO_VERBOSE 2 \
    -genv CHOREO_FALLBACK error -n 5 "$APP" auto "$TMP/run"
  grep -q "pmpi_ialltoallv: passed" "$TMP/out" || fail "margin $MARGIN: the run did not pass"
  for F in "$TMP"/native/*; do
    cmp "$F" "$TMP/run/$(basename "$F")" || fail "margin $MARGIN: $(basename "$F") differs from the native run"
  done
  # The started lines, without their times: each one printed by all 5
  # ranks alike.
  grep "^choreo-mpi: MPI_Alltoallv (communicator of 5, .*) on MPI_COMM_WORLD, started: " "$TMP/out" |
    sed 's/ in [0-9.]* ms$//' | sort | uniq -c >"$TMP/started"
  cat "$TMP/started"
  [ -s "$TMP/started" ] || fail "margin $MARGIN: no started line"
  ! grep -qv "^ *5 " "$TMP/started" || fail "margin $MARGIN: the ranks' started lines differ"
  ! grep -q "is not priced" "$TMP/started" || fail "margin $MARGIN: the started call was not priced"
  # Each blocking line's pick and price (or its margin's verdict) is the
  # started call's of the same matrix (the same description).
  grep "^choreo-mpi: MPI_Alltoallv (communicator of 5, .*) on MPI_COMM_WORLD: .*CHOREO_ALLTOALLV\|^choreo-mpi: MPI_Alltoallv (communicator of 5, .*) on MPI_COMM_WORLD: native (auto: " "$TMP/out" |
    sort -u >"$TMP/blocking"
  [ -s "$TMP/blocking" ] || fail "margin $MARGIN: no blocking line"
  same=0
  while IFS= read -r L; do
    CALL=${L%%) on MPI_COMM_WORLD: *}
    S=$(grep -F "$CALL) on MPI_COMM_WORLD, started: " "$TMP/started" | head -1) || true
    [ -n "$S" ] || continue
    case $L in
      *"native (auto: "*)
        V=${L#*native (auto: }; V=${V%% (CHOREO_MARGIN)*}
        case $S in *"; auto: $V (CHOREO_MARGIN), so the started call runs "*) ;;
          *) fail "margin $MARGIN: the blocking call was handed over ($V), the started one: $S" ;; esac ;;
      *)
        A=${L#*on MPI_COMM_WORLD: }; ALGO=${A%% (*}
        P=${A#*auto: model time }; P=${P%% s, best of *}
        K=${A#*, best of }; K=${K%% priced in the job*}
        case $S in *"started: $ALGO (CHOREO_ALLTOALLV; auto: model time $P s, best of $K priced in the run)"*) ;;
          *) fail "margin $MARGIN: the blocking call chose $ALGO at $P s of $K, the started one: $S" ;; esac ;;
    esac
    same=$((same + 1))
  done <"$TMP/blocking"
  [ "$same" -gt 0 ] || fail "margin $MARGIN: no matrix priced both ways"
  echo "ialltoallv_auto: margin $MARGIN: every rank picked alike, $same of them as the blocking call"
done
