#!/usr/bin/env bash
# bench/emu/rank.sh - run one MPI rank inside its node's namespace.
#
#   mpiexec -n P bench/emu/rank.sh PROGRAM ARGS...
#
# hydra starts this once per rank with PMI_RANK set and the PMI connection as an
# inherited socket (PMI_FD), which `ip netns exec` keeps. The rank's node is
# CHOREO_EMU_NODES (comma-separated node index per rank, e.g. 0,0,1,1) or, if
# unset, rank / CHOREO_EMU_PER_NODE (default 1). MPI traffic is forced over TCP
# on the node's one port: UCX_TLS=tcp,self, UCX_NET_DEVICES=eth0, no shared
# memory (MPIR_CVAR_NOLOCAL=1), no TCP rendezvous (UCX_RNDV_THRESH=inf), and
# MPI_Finalize replaced by finalize_shim.c (CHOREO_EMU_SHIM: its path, or none).
set -euo pipefail
PREFIX=${CHOREO_EMU_PREFIX:-choreo-emu}
rank=${PMI_RANK:-${MPI_LOCALRANKID:-}}
[[ -n $rank ]] || { echo "rank.sh: no PMI_RANK: run me under mpiexec" >&2; exit 1; }
if [[ -n ${CHOREO_EMU_NODES:-} ]]; then
  IFS=, read -r -a map <<<"$CHOREO_EMU_NODES"
  [[ $rank -lt ${#map[@]} ]] || { echo "rank.sh: CHOREO_EMU_NODES names ${#map[@]} ranks, but this is rank $rank" >&2; exit 1; }
  node=${map[$rank]}
else
  node=$((rank / ${CHOREO_EMU_PER_NODE:-1}))
fi
ns="$PREFIX-n$node"
[[ -e /run/netns/$ns ]] || { echo "rank.sh: rank $rank: node namespace $ns does not exist (bench/emu/cluster.sh up N)" >&2; exit 1; }
export UCX_TLS=${UCX_TLS:-tcp,self} UCX_NET_DEVICES=${UCX_NET_DEVICES:-eth0} UCX_RNDV_THRESH=${UCX_RNDV_THRESH:-inf}
export MPIR_CVAR_NOLOCAL=${MPIR_CVAR_NOLOCAL:-1} UCX_WARN_UNUSED_ENV_VARS=n
# MPI_Finalize without UCX's TCP teardown, which hangs (finalize_shim.c).
shim=${CHOREO_EMU_SHIM:-$(dirname "$(readlink -f "$0")")/../../build/lib/libchoreo-emu-finalize.so}
if [[ ${CHOREO_EMU_SHIM:-} != none ]]; then
  [[ -f $shim ]] || { echo "rank.sh: no finalize shim at $shim (set CHOREO_EMU_SHIM, or =none)" >&2; exit 1; }
  # A program built with AddressSanitizer (scripts/sanitize.sh) refuses to
  # start unless ASan's runtime comes first in the preload list (found
  # before the shim is preloaded: ldd's own processes would load it).
  asan=$(ldd "$(command -v "$1" || echo "$1")" 2>/dev/null | awk '/libasan/ {print $3; exit}' || true)
  export LD_PRELOAD="${asan:+$asan:}$shim${LD_PRELOAD:+:$LD_PRELOAD}"
fi
exec ip netns exec "$ns" "$@"
