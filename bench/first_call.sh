#!/bin/sh
# first_call.sh [BUILD_DIR] [NP] [REPS] [SMALL] [LARGE]: the first call of
# every collective shape the drop-in library serves, per rank, and the
# second (the cached plan): runs choreo-bench-first-call (bench/first_call.c)
# under mpiexec -n NP with libchoreo-mpi.so preloaded, REPS times per
# configuration, no proof cache (CHOREO_CACHE_DIR unset), and prints one
# Markdown table per configuration: per call and size, the algorithm that
# ran (from CHOREO_VERBOSE=1), and the median over the REPS runs of the
# slowest rank's and the median rank's first and second call (ms) and of
# the worst rank's peak resident memory growth across the first call.
# Configurations (CONFIGS in the environment, default "default fixed"):
#   default  the library's own selection (CHOREO_DEFAULT=auto: the model)
#   fixed    one choreo algorithm per call, CHOREO_FALLBACK=error (a call
#            the algorithm cannot serve fails the run instead of falling
#            back to MPICH): the ring family and Kang's exchanges, whose
#            schedules grow with p (the O(p)-step algorithms), and
#            alltoallv-mpich (MPICH's scattered alltoallv)
#   native   no library: MPICH's own collectives (the baseline)
# Fails (non-zero) when a run fails: a wrong result (the program checks
# every one), a library error, or in "fixed" a call not served by its
# algorithm. Defaults: build, 64 ranks, 3 runs, 8 and 65536 bytes. E.g.
#   sh bench/first_call.sh build 64 3
#   CONFIGS=fixed sh bench/first_call.sh build 4 1 8 1024   # quick
# MPIEXEC and PRELOAD (the library, or a colon-separated list) override
# mpiexec and BUILD_DIR/lib/libchoreo-mpi.so; KEEP=DIR keeps every run's
# output and standard error (the library's verbose lines) in DIR.
set -eu
BUILD=${1:-build}; NP=${2:-64}; REPS=${3:-3}; SMALL=${4:-8}; LARGE=${5:-65536}
MPIEXEC=${MPIEXEC:-mpiexec}
PROG=$BUILD/bin/choreo-bench-first-call
LIB=${PRELOAD:-$(cd "$BUILD/lib" && pwd)/libchoreo-mpi.so}
[ -x "$PROG" ] || { echo "first_call.sh: $PROG not built (cmake --build $BUILD --target choreo-bench-first-call)" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FIXED="CHOREO_BCAST=bcast-scatter-ring CHOREO_ALLGATHER=allgather-ring
CHOREO_ALLGATHERV=allgather-ring CHOREO_REDUCE=reduce-ring
CHOREO_ALLREDUCE=allreduce-ring CHOREO_REDUCE_SCATTER=reduce-scatter-ring
CHOREO_REDUCE_SCATTER_BLOCK=reduce-scatter-ring
CHOREO_ALLGATHER_INTER=inter-allgather-kang
CHOREO_ALLGATHERV_INTER=inter-allgatherv-kang
CHOREO_ALLTOALLV=alltoallv-mpich"
# Every variable that would change the selection or skip a proof is unset.
UNSET="-u CHOREO_CACHE_DIR -u CHOREO_SELECTION -u CHOREO_DEFAULT -u CHOREO_FALLBACK"
for V in BCAST ALLGATHER ALLGATHERV REDUCE ALLREDUCE REDUCE_SCATTER \
  REDUCE_SCATTER_BLOCK ALLGATHER_INTER ALLGATHERV_INTER ALLTOALLV; do
  UNSET="$UNSET -u CHOREO_$V"
done
SRC=$(dirname "$0")
COMMIT=$(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$SRC" diff --quiet HEAD 2>/dev/null || COMMIT="$COMMIT (with uncommitted changes)"
echo "first call per rank: $NP ranks, $REPS runs per configuration, commit $COMMIT"
echo "load before: $(uptime | sed 's/.*load average: //')"

# One run of configuration $1 into $TMP/$1.$2.{out,err}.
# shellcheck disable=SC2086 # $UNSET and $FIXED are lists of words
run() {
  OUT=$TMP/$1.$2
  case $1 in
    native) set -- env $UNSET "$MPIEXEC" -n "$NP" "$PROG" "$SMALL" "$LARGE" ;;
    default) set -- env $UNSET CHOREO_VERBOSE=1 "$MPIEXEC" -genv LD_PRELOAD "$LIB" \
      -n "$NP" "$PROG" "$SMALL" "$LARGE" ;;
    fixed) set -- env $UNSET CHOREO_VERBOSE=1 CHOREO_FALLBACK=error $FIXED \
      "$MPIEXEC" -genv LD_PRELOAD "$LIB" -n "$NP" "$PROG" "$SMALL" "$LARGE" ;;
    *) echo "first_call.sh: unknown configuration '$1' (default, fixed, native)" >&2; exit 2 ;;
  esac
  "$@" </dev/null >"$OUT.out" 2>"$OUT.err" || {
    cat "$OUT.out"; tail -20 "$OUT.err"
    echo "first_call.sh: configuration $CFG, run $R failed" >&2; exit 1; }
  grep -q "^# first_call: passed" "$OUT.out" || {
    echo "first_call.sh: configuration $CFG, run $R did not pass" >&2; exit 1; }
}

# The algorithm of each case from a run's standard error: the library's
# verbose line printed during the case (for the case's call on its kind of
# communicator), else the one an earlier case of that call printed (the
# library says each algorithm once per communicator and call): "as before";
# and what the line says after the algorithm (rank 0's proof and build).
algorithms() {
  awk '
    function flush() {
      if (cur == "") return
      if (algo[cur] == "") algo[cur] = (last[key] == "" ? "?" : last[key] " (as before)")
      print cur "\t" algo[cur] "\t" detail[cur]
    }
    /^first_call: case / {
      flush()
      cur = $3 " " $4
      call = $3; inter = 0
      if (call ~ /^warm-up/) { inter = call ~ /inter/; call = "MPI_Allgather" }
      else if (call ~ /^inter-/) { inter = 1; sub(/^inter-/, "", call) }
      key = call "/" inter
      next
    }
    /^choreo-mpi: MPI_/ && cur != "" {
      split($2, w, " "); c = w[1]
      i = ($0 ~ /\(intercommunicator /) ? 1 : 0
      if (c != call || i != inter) next
      rest = $0; sub(/^[^)]*\) on [^:]*: /, "", rest)
      if (rest == $0) { rest = $0; sub(/^choreo-mpi: [^:]*: /, "", rest) }
      split(rest, a, " "); a1 = a[1]; sub(/;$/, "", a1)
      if (algo[cur] == "") algo[cur] = a1
      last[key] = a1
      d = rest
      if (sub(/^[^)]*\); /, "", d) && detail[cur] == "") detail[cur] = d
    }
    END { flush() }
  ' "$1"
}

# Medians over the runs of each case (rows of the .out files).
medians() {
  cat "$@" | awk '
    !/^#/ {
      k = $1 " " $2
      if (!(k in n)) order[++m] = k
      n[k]++
      for (c = 3; c <= 7; ++c) v[k, c, n[k]] = $c
    }
    function med(k, c,   i, j, t, a, N) {
      N = n[k]
      for (i = 1; i <= N; ++i) a[i] = v[k, c, i] + 0
      for (i = 2; i <= N; ++i) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; --j) a[j + 1] = a[j]; a[j + 1] = t }
      return N % 2 ? a[(N + 1) / 2] : (a[N / 2] + a[N / 2 + 1]) / 2
    }
    END {
      for (i = 1; i <= m; ++i) {
        k = order[i]
        printf "%s %.1f %.1f %.2f %.2f %.2f\n", k, med(k, 3), med(k, 4), med(k, 5), med(k, 6), med(k, 7) / 1024
      }
    }'
}

CONFIGS=${CONFIGS:-default fixed}
R=0
while [ "$R" -lt "$REPS" ]; do
  R=$((R + 1))
  for CFG in $CONFIGS; do
    run "$CFG" "$R"
  done
done
echo "load after: $(uptime | sed 's/.*load average: //')"
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP" && cp "$TMP"/*.out "$TMP"/*.err "$KEEP"/
  echo "raw outputs (CONFIG.RUN.out, .err) in $KEEP"
fi

for CFG in $CONFIGS; do
  case $CFG in
    native) TITLE="MPICH's own collectives (no library)" ;;
    default) TITLE="the library's default selection (auto)" ;;
    fixed) TITLE="one choreo algorithm per call (CHOREO_FALLBACK=error)" ;;
  esac
  echo
  echo "$TITLE, $NP ranks, median of $REPS runs (ms; MiB)"
  echo
  echo "| call | bytes | algorithm | rank 0's build (CHOREO_VERBOSE) | first call, slowest rank | first call, median rank | second call, slowest rank | second call, median rank | peak RSS growth, worst rank |"
  echo "|---|---|---|---|---|---|---|---|---|"
  if [ "$CFG" = native ]; then
    : >"$TMP/algos"
  else
    algorithms "$TMP/$CFG.1.err" >"$TMP/algos"
  fi
  medians "$TMP/$CFG".*.out | while read -r CASE BYTES F FM S SM RSS; do
    A=$(awk -F'\t' -v k="$CASE $BYTES" '$1 == k {print $2 "\t" $3}' "$TMP/algos")
    ALGO=${A%%	*}; SAYS=${A#*	}
    [ "$CFG" = native ] && ALGO="MPICH" && SAYS=""
    [ -n "$SAYS" ] || SAYS="-"
    echo "| $CASE | $BYTES | $ALGO | $SAYS | $F | $FM | $S | $SM | $RSS |"
  done
  if [ "$CFG" = fixed ]; then
    # Every case ran its own algorithm (FALLBACK=error makes a refusal fail
    # the run; this catches a line that says native).
    if awk -F'\t' '$2 ~ /native|^\?/' "$TMP/algos" | grep -q .; then
      echo "first_call.sh: fixed: a call did not run its algorithm:" >&2
      awk -F'\t' '$2 ~ /native|^\?/' "$TMP/algos" >&2
      exit 1
    fi
  fi
done
