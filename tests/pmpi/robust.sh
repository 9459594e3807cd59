#!/bin/sh
# robust.sh MPIEXEC ROBUST LIB: jobs that must fail cleanly on every rank
# (never hang, never a wrong answer) and the on-disk proof cache.
#  1. ranks given different CHOREO_ALLGATHER: every rank's MPI_Allgather
#     returns an error naming what each rank chose;
#  2. MPI_Allgatherv with counts that differ between ranks: the same;
#  3. a selection file with an unknown condition: every rank's error names
#     the file and the JSON path; one nested 20,000 objects deep (valid
#     JSON, 360 KB; it crashed every rank) and /dev/zero (read until memory
#     ran out): every rank's error names the file and why;
#  4. an algorithm that cannot serve the call with CHOREO_FALLBACK=error:
#     every rank fails; with CHOREO_FALLBACK=print MPICH's collective runs
#     and rank 0 says why;
#  5. the reductions: ranks given different CHOREO_ALLREDUCE, MPI_Reduce
#     counts that differ, operators of which one commutes and one does not
#     (every rank fails naming each rank's call); a non-commutative operator
#     with an algorithm that cannot keep rank order: every rank fails with
#     CHOREO_FALLBACK=error, MPICH runs with print (and the answer is right);
#  6. CHOREO_CACHE_DIR: the first job proves and stores the verdicts, the
#     second finds them and proves nothing.
set -eu
MPIEXEC=$1; ROBUST=$2; LIB=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "robust: $*"; exit 1; }
# every_rank_fails N PATTERN FILE: N ranks reported an error matching PATTERN.
every_rank_fails() {
  n=$(grep -c "^robust: rank [0-9]*: error: .*$2" "$3" || true)
  [ "$n" -eq "$1" ] || { cat "$3"; fail "expected $1 ranks to fail with '$2', got $n"; }
}
run() { timeout 60 "$MPIEXEC" "$@" </dev/null; }

run -n 1 -env LD_PRELOAD "$LIB" -env CHOREO_ALLGATHER allgather-ring "$ROBUST" allgather : \
    -n 3 -env LD_PRELOAD "$LIB" -env CHOREO_ALLGATHER allgather-bruck "$ROBUST" allgather > "$TMP/1" 2>&1 ||
  fail "job 1 did not end cleanly (rc $?)"
every_rank_fails 4 "the ranks disagree on this call: rank 0: .*allgather-ring (CHOREO_ALLGATHER); rank 1: .*allgather-bruck" "$TMP/1"

run -n 4 -env LD_PRELOAD "$LIB" "$ROBUST" counts > "$TMP/2" 2>&1 || fail "job 2 did not end cleanly"
every_rank_fails 4 "the ranks disagree on this call: rank 0: .*sizes \[20,20,20,20\].*rank 1: .*sizes \[20,16,16,16\]" "$TMP/2"

echo '{"collective=allgather": {"comm_colour=blue": {"algorithm=allgather-ring": {}}}}' > "$TMP/bad.json"
run -n 3 -env LD_PRELOAD "$LIB" -env CHOREO_SELECTION "$TMP/bad.json" "$ROBUST" allgather > "$TMP/3" 2>&1 ||
  fail "job 3 did not end cleanly"
every_rank_fails 3 "bad.json: /collective=allgather/comm_colour=blue: unknown condition 'comm_colour'" "$TMP/3"
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "{\"comm_size>=1\": ";
             printf "{\"algorithm=native\": {}}";
             for (i = 0; i < 20000; i++) printf "}"; print "" }' > "$TMP/deep.json"
run -n 3 -env LD_PRELOAD "$LIB" -env CHOREO_SELECTION "$TMP/deep.json" "$ROBUST" allgather > "$TMP/3b" 2>&1 ||
  { cat "$TMP/3b"; fail "job 3b did not end cleanly"; }
every_rank_fails 3 "deep.json: /comm_size>=1/\.\.\./comm_size>=1: conditions nested deeper than 64 levels" "$TMP/3b"
run -n 3 -env LD_PRELOAD "$LIB" -env CHOREO_SELECTION /dev/zero "$ROBUST" allgather > "$TMP/3c" 2>&1 ||
  { cat "$TMP/3c"; fail "job 3c did not end cleanly"; }
every_rank_fails 3 "CHOREO_SELECTION: /dev/zero is not a regular file" "$TMP/3c"

run -n 3 -env LD_PRELOAD "$LIB" -env CHOREO_ALLGATHER inter-allgather-kang -env CHOREO_FALLBACK error \
    "$ROBUST" allgather > "$TMP/4" 2>&1 || fail "job 4 did not end cleanly"
every_rank_fails 3 "inter-allgather-kang was requested (CHOREO_ALLGATHER) but cannot serve MPI_Allgather (communicator of 3, 48 bytes in all): .*intergroup algorithm" "$TMP/4"
run -n 3 -env LD_PRELOAD "$LIB" -env CHOREO_ALLGATHER inter-allgather-kang "$ROBUST" allgather > "$TMP/4b" 2>&1 ||
  fail "job 4b did not end cleanly"
[ "$(grep -c '^robust: rank [0-9]*: ok' "$TMP/4b")" -eq 3 ] || { cat "$TMP/4b"; fail "fallback to MPICH did not run"; }
grep -q "inter-allgather-kang (CHOREO_ALLGATHER) cannot serve it, MPICH's own collective runs instead" "$TMP/4b" ||
  { cat "$TMP/4b"; fail "CHOREO_FALLBACK=print printed nothing"; }

run -n 2 -env LD_PRELOAD "$LIB" -env CHOREO_ALLREDUCE allreduce-ring "$ROBUST" allreduce : \
    -n 2 -env LD_PRELOAD "$LIB" -env CHOREO_ALLREDUCE allreduce-recursive-doubling "$ROBUST" allreduce > "$TMP/5" 2>&1 ||
  fail "job 5 did not end cleanly"
every_rank_fails 4 "the ranks disagree on this call: rank 0: MPI_Allreduce.*allreduce-ring (CHOREO_ALLREDUCE); rank 2: .*allreduce-recursive-doubling" "$TMP/5"
run -n 3 -env LD_PRELOAD "$LIB" "$ROBUST" reduce-counts > "$TMP/5b" 2>&1 || fail "job 5b did not end cleanly"
every_rank_fails 3 "the ranks disagree on this call: rank 0: MPI_Reduce (communicator of 3, 20 bytes, root 0).*rank 1: MPI_Reduce (communicator of 3, 16 bytes" "$TMP/5b"
run -n 3 -env LD_PRELOAD "$LIB" "$ROBUST" op > "$TMP/5c" 2>&1 || fail "job 5c did not end cleanly"
every_rank_fails 3 "the ranks disagree on this call: rank 0: MPI_Allreduce (communicator of 3, 16 bytes, an operator that does not commute).*rank 1: MPI_Allreduce (communicator of 3, 16 bytes)" "$TMP/5c"
run -n 3 -env LD_PRELOAD "$LIB" -env CHOREO_ALLREDUCE allreduce-ring -env CHOREO_FALLBACK error \
    "$ROBUST" noncomm > "$TMP/5d" 2>&1 || fail "job 5d did not end cleanly"
every_rank_fails 3 "allreduce-ring was requested (CHOREO_ALLREDUCE) but cannot serve MPI_Allreduce .*cannot keep rank order" "$TMP/5d"
run -n 3 -env LD_PRELOAD "$LIB" -env CHOREO_ALLREDUCE allreduce-ring "$ROBUST" noncomm > "$TMP/5e" 2>&1 ||
  fail "job 5e did not end cleanly"
[ "$(grep -c '^robust: rank [0-9]*: ok' "$TMP/5e")" -eq 3 ] || { cat "$TMP/5e"; fail "fallback to MPICH did not run"; }
grep -q "allreduce-ring (CHOREO_ALLREDUCE) cannot serve it, MPICH's own collective runs instead" "$TMP/5e" ||
  { cat "$TMP/5e"; fail "CHOREO_FALLBACK=print printed nothing"; }

mkdir "$TMP/cache"
for i in 1 2; do
  run -n 4 -env LD_PRELOAD "$LIB" -env CHOREO_VERBOSE 1 -env CHOREO_CACHE_DIR "$TMP/cache" \
    "$ROBUST" allgather > "$TMP/c$i" 2>&1 || { cat "$TMP/c$i"; fail "cache run $i failed"; }
  [ "$(grep -c '^robust: rank [0-9]*: ok' "$TMP/c$i")" -eq 4 ] || { cat "$TMP/c$i"; fail "cache run $i did not pass"; }
done
grep -q "; proved by " "$TMP/c1" || fail "the first run proved nothing"
grep -q "; proved by " "$TMP/c2" && { grep "; proved by " "$TMP/c2"; fail "the second run proved again"; }
grep -q "proof cached in CHOREO_CACHE_DIR" "$TMP/c2" || fail "the second run did not use the cache"
ls "$TMP/cache" | grep -q '\.proved$' || fail "no verdicts in the cache"
echo "robust: every rank failed cleanly in every case; the proof cache works"
