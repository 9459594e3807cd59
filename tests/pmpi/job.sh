# tests/pmpi/job.sh: what the job scripts here share (alltoall.sh,
# ialltoallv.sh, ialltoallv_auto.sh), sourced after `set -eu`:
#   . "$(dirname "$0")/job.sh"
# It takes the script's arguments MPIEXEC APP LIB, makes a temporary
# directory TMP (removed at exit), and defines:
#   fail TEXT...           prints "NAME: TEXT..." (NAME: the script's name
#                          without .sh) and exits 1;
#   job TEXT ARGS...       runs "$MPIEXEC" ARGS... (no standard input, at
#                          most 60 s), its output in $TMP/out, printed;
#                          fails with TEXT unless it ends cleanly;
#   count_is N TEXT RE     fails with "TEXT, got M" unless exactly N lines
#                          of $TMP/out match the grep pattern RE.
MPIEXEC=$1; APP=$2; LIB=$3
NAME=$(basename "$0" .sh)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "$NAME: $*"; exit 1; }
job() {
  what=$1; shift
  timeout 60 "$MPIEXEC" "$@" </dev/null >"$TMP/out" 2>&1 || { cat "$TMP/out"; fail "$what"; }
  cat "$TMP/out"
}
count_is() {
  n=$(grep -c -- "$3" "$TMP/out" || true)
  [ "$n" -eq "$1" ] || fail "$2, got $n"
}
