#!/bin/bash
# bench/trace/sweep.sh - MPICH 4.0.2's own collectives traced against the
# generators that model them (docs/trace.md, "MPICH against the
# generators").
#
# usage: bench/trace/sweep.sh BUILD P_MIN P_MAX [COLLECTIVE...] >> rows.tsv
#
# For every p in P_MIN..P_MAX, every collective (default: bcast allgather
# allgatherv gather gatherv scatter scatterv reduce allreduce reduce_scatter
# alltoall alltoallv barrier), message sizes on both sides of MPICH's
# thresholds and three roots (scatter(v), gather(v): every root up to
# p = 9, five above), runs `choreo trace --against GEN`
# with the generator MPICH's choice corresponds to, and prints one row:
#   collective p bytes root encoding generator verdict trace-steps gen-steps
#   traced-ms untraced-ms
# verdict: equal (op for op), asap (equal once both are retimed as soon as
# possible), messages (the same messages in other steps), differ, error.
# Each p runs under the shared build lock (one hold, about a hundred short
# jobs).
set -u
BUILD=$1
PMIN=$2
PMAX=$3
shift 3
COLLS=${*:-bcast allgather allgatherv gather gatherv scatter scatterv reduce allreduce reduce_scatter alltoall alltoallv barrier}
CHOREO=$BUILD/bin/choreo
DRIVER=$BUILD/bin/choreo-trace-driver

pow2() { [ $(($1 & ($1 - 1))) -eq 0 ]; }

# one COLL P BYTES ROOT GEN [choreo trace options...]
one() {
  local C=$1 P=$2 N=$3 R=$4 G=$5
  shift 5
  local OUT V TS GS
  OUT=$("$CHOREO" trace --collective "$C" --root "$R" "$@" --against "$G" \
    -- mpiexec -n "$P" "$DRIVER" 2>&1 </dev/null)
  case "$OUT" in
  *"equal op for op"*) V=equal ;;
  *"equal once both are retimed"*) V=asap ;;
  *"the same messages in other steps"*) V=messages ;;
  *"different messages"*) V=differ ;;
  *) V=error ;;
  esac
  local COUNTS
  COUNTS=$(printf '%s\n' "$OUT" | grep '^against' | grep -o '[0-9]* steps')
  TS=$(printf '%s\n' "$COUNTS" | sed -n '1s/ steps//p')
  GS=$(printf '%s\n' "$COUNTS" | sed -n '2s/ steps//p')
  local TT UT
  TT=$(printf '%s\n' "$OUT" | sed -n 's/^timing: the call took \([0-9.]*\) ms traced.*/\1/p')
  UT=$(printf '%s\n' "$OUT" | sed -n 's/^timing: .*, \([0-9.]*\) ms untraced.*/\1/p')
  local ENC=-
  case " $* " in *" --encoding "*) ENC=$(echo "$*" | sed 's/.*--encoding \([a-z]*\).*/\1/') ;; esac
  case " $* " in *" --op noncommutative "*) ENC=ordered ;; esac
  case " $* " in *" --ports observed "*) ENC="observed ports" ;; esac
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$C" "$P" "$N" "$R" \
    "$ENC" "$G" "$V" "${TS:--}" "${GS:--}" "${TT:--}" "${UT:--}"
  if [ "$V" = error ]; then
    printf '%s\n' "$OUT" | sed 's/^/#   /' | head -5
  fi
}

# MPICH's allgather(v): recursive doubling for a power of two below 512 KiB
# in all, Bruck below 80 KiB, else the ring.
allgather_gen() {
  local P=$1 TOTAL=$2 V=$3
  if pow2 "$P" && [ "$TOTAL" -lt 524288 ]; then
    echo allgather-recdbl
  elif ! pow2 "$P" && [ "$TOTAL" -lt 81920 ]; then
    echo allgather-bruck
  elif [ "$V" = v ]; then
    echo allgatherv-mpich-ring
  else
    echo allgather-ring
  fi
}

roots() { echo 0 $(($1 / 2)) $(($1 - 1)) | tr ' ' '\n' | sort -nu; }
# Every root up to p = 9, then 0, 1, p/2, p - 2, p - 1.
all_roots() {
  if [ "$1" -le 9 ]; then
    seq 0 $(($1 - 1))
  else
    echo 0 1 $(($1 / 2)) $(($1 - 2)) $(($1 - 1)) | tr ' ' '\n'
  fi
}
# Irregular counts with zeros (ranks i = 0 mod 5 give nothing).
irregular() {
  local L="" I
  for I in $(seq 0 $(($1 - 1))); do
    L="$L${L:+,}$((8 * (I * 3 % 5)))"
  done
  echo "$L"
}
# An alltoallv matrix, p x p row-major: entry (i, j) = SCALE * ((7i + 3j) % 5),
# zeros included (the diagonal too, at times).
pairs() {
  local L="" I J
  for I in $(seq 0 $(($1 - 1))); do
    for J in $(seq 0 $(($1 - 1))); do
      L="$L${L:+,}$(($2 * ((7 * I + 3 * J) % 5)))"
    done
  done
  echo "$L"
}

sweep_one() {
  local P=$1 C=$2
    case $C in
    bcast)
      for N in 1000 12287 12288 12289 100000 524287 524288 524289 1048576; do
        for R in $(roots "$P"); do
          one bcast "$P" "$N" "$R" bcast-mpich --bytes "$N"
        done
      done
      ;;
    allgather)
      for B in 8 100 $((81920 / P)) $((81920 / P + 8)) $((524288 / P)) \
        $((524288 / P + 8)) 65536; do
        B=$((B / 8 * 8))
        one allgather "$P" "$B" 0 "$(allgather_gen "$P" $((B * P)) "")" \
          --bytes "$B"
      done
      ;;
    allgatherv)
      for BASE in 8 1000 20000 70000; do
        local COUNTS="" TOTAL=0 I
        for I in $(seq 0 $((P - 1))); do
          local X=$((BASE * (1 + I % 3)))
          COUNTS="$COUNTS${COUNTS:+,}$X"
          TOTAL=$((TOTAL + X))
        done
        local G
        G=$(allgather_gen "$P" "$TOTAL" v)
        case $G in allgather-*) G="$G:counts=$COUNTS" ;; esac
        one allgatherv "$P" "$TOTAL" 0 "$G" --counts "$COUNTS"
      done
      ;;
    gather)
      # MPIR_CVAR_GATHER_VSMALL_MSG_SIZE (1024): below it the binomial tree
      # gathers through a temporary buffer (a struct datatype at the root).
      for B in 8 1016 1024 65536; do
        for R in $(all_roots "$P"); do
          one gather "$P" "$B" "$R" gather-mpich --bytes "$B"
        done
      done
      ;;
    scatter)
      # MPIR_Scatter_intra_binomial has no size threshold.
      for B in 8 1000 65536; do
        for R in $(all_roots "$P"); do
          one scatter "$P" "$B" "$R" scatter-mpich --bytes "$B"
        done
      done
      ;;
    gatherv | scatterv)
      # The linear algorithms, members with bytes in rank order.
      local C=${C%v}
      for R in $(all_roots "$P"); do
        one "${C}v" "$P" - "$R" "$C-mpich" --counts "$(irregular "$P")"
      done
      ;;
    alltoall)
      # avg_msg_size (bytes per destination): p > 8 (MPICH 4.0.2 reads its
      # file's comm_size<8 as p <= 8): Bruck up to 256; scattered up to
      # 32768 (every p), else pairwise. The scattered algorithm posts its
      # batch (32 >= p) of receives and sends at once: traced with --ports
      # observed, one step.
      for B in 8 256 264 32768 32776; do
        local PORTS=single
        if [ "$B" -le 32768 ] && { [ "$P" -le 8 ] || [ "$B" -gt 256 ]; }; then
          PORTS=observed
        fi
        one alltoall "$P" "$B" 0 alltoall-mpich --bytes "$B" --ports "$PORTS"
      done
      ;;
    alltoallv)
      for SCALE in 8 1000; do
        one alltoallv "$P" - 0 alltoallv-mpich --counts "$(pairs "$P" "$SCALE")" \
          --ports observed
      done
      ;;
    barrier)
      # Three runs: what a message tells depends on the order its events
      # happened in (docs/trace.md, "Barriers").
      for I in 1 2 3; do
        one barrier "$P" 0 0 barrier-mpich
      done
      ;;
    reduce | allreduce)
      local RS=0
      [ "$C" = reduce ] && RS=$(roots "$P")
      for N in 8 64 2048 2056 65536 1048576; do
        for R in $RS; do
          one "$C" "$P" "$N" "$R" "$C-mpich" --bytes "$N"
          if [ $((N % 32)) -eq 0 ]; then
            one "$C" "$P" "$N" "$R" "$C-mpich" --bytes "$N" --op noncommutative
          fi
        done
      done
      ;;
    reduce_scatter)
      # MPICH: recursive halving below 512 KiB in all (commutative), else
      # pairwise; a noncommutative operator on a power of two with equal
      # blocks: its noncommutative recursive halving.
      for N in $((8 * P)) $((256 * P)) $((524288 / (8 * P) * 8 * P)) \
        $(((524288 / (8 * P) + 1) * 8 * P)); do
        one reduce_scatter_block "$P" "$N" 0 reduce-scatter-mpich --bytes "$N"
        if [ $((N % (32 * P))) -eq 0 ]; then
          one reduce_scatter_block "$P" "$N" 0 reduce-scatter-mpich \
            --bytes "$N" --op noncommutative
        fi
      done
      local COUNTS="" I
      for I in $(seq 0 $((P - 1))); do
        COUNTS="$COUNTS${COUNTS:+,}$((8 * (1 + I % 4)))"
      done
      one reduce_scatter "$P" - 0 reduce-scatter-mpich --counts "$COUNTS"
      ;;
    esac
}

# One hold of the shared build lock per p (every collective of it).
LOCK=${CHOREO_LOCK:-/work/.buildlock}
for P in $(seq "$PMIN" "$PMAX"); do
  flock "$LOCK" bash -c "$(declare -f); CHOREO='$CHOREO'; \
    DRIVER='$DRIVER'; for C in $COLLS; do sweep_one $P \$C; done"
done
