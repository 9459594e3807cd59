#!/usr/bin/env bash
# bench/emu/cluster.sh - an emulated cluster of single-port nodes on one machine.
#
#   cluster.sh up N [--rate R] [--burst B|packet] [--mtu M] [--prefix P] [--link-timeout S]
#   cluster.sh down [--prefix P]
#   cluster.sh status [--prefix P]
#   cluster.sh check                     # can namespaces be made here? (exit 0/1 + reason)
#
# `up` makes N network namespaces P-n0..P-n{N-1} ("nodes") and one namespace
# P-sw holding a bridge (the switch). Node i has one port, eth0 (10.77.0.i+1/24),
# a veth whose other end is attached to the bridge. The port is full duplex and
# rate-limited in both directions with tc tbf: egress on eth0 (node -> switch)
# and egress on the bridge's end (switch -> node). Nodes use TCP reno without slow start after idle, IPv6 off,
# static neighbour entries, jumbo frames (MTU 9000). The token bucket holds
# --burst bytes (default 16kb, or $CHOREO_EMU_BURST): a message that fits in
# a full bucket passes at once. `--burst packet` is the smallest bucket tbf
# passes a full-size frame through, one frame (MTU + 14 bytes of Ethernet
# header), so at most one packet passes ahead of the rate; a smaller --burst
# is refused (tbf would drop every full-size frame). --mtu (default 9000, or
# $CHOREO_EMU_MTU) sets the frame, and with it that packet: this kernel has
# neither netem nor fq, so no qdisc here delays a packet by its own
# serialization (docs/emulation.md, "A port without a burst"). `down` deletes every
# namespace whose name starts with P- (deleting a namespace deletes its veth
# ends), so it cleans up after a failed run too; `up` runs `down` first.
#
# `up` returns only when every port carries: a veth end reports its carrier
# asynchronously (the kernel's link watch), so right after `ip link set up` a
# node's eth0 can still be LOWERLAYERDOWN, and an MPI job started then finds
# no eth0 (UCX: "Destination is unreachable"). `up` waits until every node's
# eth0, every switch end and the bridge read operstate `up`, for at most
# --link-timeout seconds (default 10); a port that never comes up fails `up`
# with the node, the port and its state, and the cluster is taken down.
# --fault-port I (for the test of that error) leaves node I's switch end down.
set -euo pipefail

PREFIX=${CHOREO_EMU_PREFIX:-choreo-emu}
RATE=200mbit
BURST=${CHOREO_EMU_BURST:-16kb}
MTU=${CHOREO_EMU_MTU:-9000}
LINK_TIMEOUT=10
FAULT_PORT=

die() { echo "cluster.sh: $*" >&2; exit 1; }

cmd=${1:-}; [[ -n $cmd ]] || die "usage: cluster.sh up N [--rate R] [--burst B|packet] [--mtu M] [--prefix P] [--link-timeout S] | down | status | check"
shift
N=
if [[ $cmd == up ]]; then
  N=${1:-}; shift || true
  [[ $N =~ ^[0-9]+$ && $N -ge 1 && $N -le 200 ]] || die "up: N must be a number of nodes in 1..200, got '${N}'"
fi
while [[ $# -gt 0 ]]; do
  case $1 in
    --rate) RATE=$2; shift 2 ;;
    --burst) BURST=$2; shift 2 ;;
    --mtu) MTU=$2; shift 2 ;;
    --prefix) PREFIX=$2; shift 2 ;;
    --link-timeout) LINK_TIMEOUT=$2; shift 2 ;;
    --fault-port) FAULT_PORT=$2; shift 2 ;;
    *) die "unknown option '$1'" ;;
  esac
done
[[ $PREFIX =~ ^[A-Za-z0-9][A-Za-z0-9_.-]{0,20}$ ]] || die "--prefix must be 1-21 letters, digits, '-', '_' or '.', got '$PREFIX'"
[[ $RATE =~ ^[0-9]+(\.[0-9]+)?[kmg]?bit$ ]] || die "--rate must look like 200mbit, got '$RATE'"
[[ $LINK_TIMEOUT =~ ^[0-9]+$ && $LINK_TIMEOUT -ge 1 && $LINK_TIMEOUT -le 600 ]] || die "--link-timeout must be whole seconds in 1..600, got '$LINK_TIMEOUT'"
[[ -z $FAULT_PORT || $FAULT_PORT =~ ^[0-9]+$ ]] || die "--fault-port must be a node index, got '$FAULT_PORT'"
# The port's frame and bucket (checked for `up` only: `down` must work whatever
# $CHOREO_EMU_BURST says).
if [[ $cmd == up ]]; then
  [[ $MTU =~ ^[0-9]+$ && $MTU -ge 576 && $MTU -le 65535 ]] || die "--mtu must be bytes in 576..65535, got '$MTU'"
  # The largest frame on a port: the MTU plus the Ethernet header (tbf counts it).
  FRAME=$((MTU + 14))
  if [[ $BURST == packet ]]; then
    BURST_BYTES=$FRAME
  elif [[ $BURST =~ ^([0-9]+)(b|k|kb|m|mb)?$ ]]; then
    case ${BASH_REMATCH[2]} in
      k | kb) BURST_BYTES=$((10#${BASH_REMATCH[1]} * 1024)) ;;
      m | mb) BURST_BYTES=$((10#${BASH_REMATCH[1]} * 1048576)) ;;
      *) BURST_BYTES=$((10#${BASH_REMATCH[1]})) ;;
    esac
  else
    die "--burst must be bytes (16kb, 9014, 1m) or 'packet', got '$BURST'"
  fi
  ((BURST_BYTES >= FRAME)) || die "--burst $BURST ($BURST_BYTES bytes) is smaller than one frame at MTU $MTU ($FRAME bytes): tbf would drop every full-size packet; use --burst packet for the smallest bucket"
fi

namespaces() { ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${PREFIX//./\\.}-(sw|n[0-9]+)$" || true; }

down() {
  local ns
  for ns in $(namespaces); do ip netns del "$ns" 2>/dev/null || true; done
}

check() {
  local ns="${PREFIX}-probe$$"
  if [[ $(id -u) -ne 0 ]]; then echo "not root: network namespaces need CAP_SYS_ADMIN"; return 1; fi
  command -v ip >/dev/null || { echo "no 'ip' command (Debian package iproute2)"; return 1; }
  command -v tc >/dev/null || { echo "no 'tc' command (Debian package iproute2)"; return 1; }
  if ! err=$(ip netns add "$ns" 2>&1); then echo "cannot create a network namespace: $err"; return 1; fi
  if ! err=$(ip netns exec "$ns" ip link add name a type veth peer name b 2>&1); then ip netns del "$ns"; echo "cannot create a veth pair: $err"; return 1; fi
  if ! err=$(ip netns exec "$ns" tc qdisc add dev a root tbf rate 10mbit burst 16kb latency 50ms 2>&1); then ip netns del "$ns"; echo "cannot attach a tbf qdisc: $err"; return 1; fi
  ip netns del "$ns"
  echo "ok"
}

nsx() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

operstate() { ip netns exec "$1" cat "/sys/class/net/$2/operstate" 2>/dev/null || echo missing; }

# Waits until every node's eth0, every switch end p<i> and br0 read `up`
# (see the header); on timeout names the first port that is not, and fails.
wait_links() {
  local sw="${PREFIX}-sw" deadline=$((SECONDS + LINK_TIMEOUT)) i pending
  while :; do
    pending=
    for ((i = 0; i < N; i++)); do
      if [[ $(operstate "${PREFIX}-n$i" eth0) != up ]]; then pending="n$i"; break; fi
      if [[ $(operstate "$sw" "p$i") != up ]]; then pending="n$i"; break; fi
    done
    [[ -z $pending && $(operstate "$sw" br0) != up ]] && pending=br0
    [[ -z $pending ]] && return 0
    if ((SECONDS >= deadline)); then
      if [[ $pending == br0 ]]; then
        echo "cluster.sh: up: the switch's bridge br0 is still $(operstate "$sw" br0) after ${LINK_TIMEOUT} s; taking the cluster down" >&2
      else
        i=${pending#n}
        echo "cluster.sh: up: node ${PREFIX}-n$i's port eth0 is still $(operstate "${PREFIX}-n$i" eth0) after ${LINK_TIMEOUT} s (its switch end p$i is $(operstate "$sw" "p$i")); an MPI job would find no eth0 there; taking the cluster down" >&2
      fi
      return 1
    fi
    sleep 0.05
  done
}

up() {
  down
  local sw="${PREFIX}-sw" i ns mac
  trap 'echo "cluster.sh: up failed; taking it down" >&2; down' ERR
  ip netns add "$sw"
  nsx "$sw" ip link add br0 type bridge
  nsx "$sw" ip link set br0 mtu "$MTU" up
  nsx "$sw" ip link set lo up
  for ((i = 0; i < N; i++)); do
    ns="${PREFIX}-n$i"
    ip netns add "$ns"
    # Create the pair inside the node, then move the switch end.
    nsx "$ns" ip link add eth0 mtu "$MTU" type veth peer name "p$i" mtu "$MTU"
    nsx "$ns" ip link set "p$i" netns "$sw"
    if [[ $FAULT_PORT == "$i" ]]; then
      nsx "$sw" ip link set "p$i" master br0
    else
      nsx "$sw" ip link set "p$i" master br0 up
    fi
    nsx "$ns" ip link set lo up
    nsx "$ns" ip addr add "10.77.$((i / 250)).$((i % 250 + 1))/16" dev eth0
    nsx "$ns" ip link set eth0 up
    nsx "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 || true
    nsx "$ns" sysctl -qw net.ipv4.tcp_congestion_control=reno || true
    nsx "$ns" sysctl -qw net.ipv4.tcp_slow_start_after_idle=0 || true
    nsx "$ns" tc qdisc add dev eth0 root tbf rate "$RATE" burst "$BURST_BYTES" latency 200ms
    nsx "$sw" tc qdisc add dev "p$i" root tbf rate "$RATE" burst "$BURST_BYTES" latency 200ms
  done
  # Static neighbour entries: no ARP on the measured links.
  declare -a MACS
  for ((i = 0; i < N; i++)); do MACS[$i]=$(nsx "${PREFIX}-n$i" cat /sys/class/net/eth0/address); done
  for ((i = 0; i < N; i++)); do
    for ((j = 0; j < N; j++)); do
      [[ $i -eq $j ]] && continue
      nsx "${PREFIX}-n$i" ip neigh replace "10.77.$((j / 250)).$((j % 250 + 1))" lladdr "${MACS[$j]}" dev eth0 nud permanent
    done
  done
  if ! wait_links; then
    down
    exit 1
  fi
  trap - ERR
  echo "cluster.sh: $N nodes ${PREFIX}-n0..${PREFIX}-n$((N - 1)), one port each at $RATE both ways (burst $BURST_BYTES bytes$([[ $BURST == packet ]] && echo ", one frame"), MTU $MTU)"
}

status() {
  local ns
  for ns in $(namespaces); do
    echo "== $ns"; ip netns exec "$ns" tc -s qdisc show 2>/dev/null | grep -E "qdisc tbf|Sent" || true
  done
}

case $cmd in
  up) up ;;
  down) down ;;
  status) status ;;
  check) check ;;
  *) die "unknown command '$cmd' (up, down, status, check)" ;;
esac
