#!/usr/bin/env bash
# bench/emu/ports_test.sh - ctest emu.ports: `cluster.sh up` returns only with
# every port carrying, and fails clearly when one never does.
#
# 1. `up 4`, then at once: every node's eth0 reads operstate `up` (without
#    the wait in `up` a veth end is LOWERLAYERDOWN for a moment, and MPI_Init
#    started then fails with UCX's "Destination is unreachable").
# 2. `up 2 --fault-port 1 --link-timeout 2` (node 1's switch end left down):
#    exits 1 naming node 1's eth0 and its state, and leaves no namespace.
# 3. The port's bucket: `up 2 --burst packet --mtu 1500` puts a tbf of one
#    frame (1514 bytes, not the default 16 KiB) on both ends of every port;
#    `up 2 --burst 4k` (below one 9014-byte frame, which tbf would drop) is
#    refused naming --burst, before any namespace is made.
# Exit 77 (skipped) with the reason when namespaces cannot be made here.
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
export CHOREO_EMU_PREFIX="choreo-emu-p$$"
unset CHOREO_EMU_BURST CHOREO_EMU_MTU  # the checks below assume the defaults
if ! why=$("$here/cluster.sh" check 2>&1); then
  echo "emu.ports: skipped: $why"
  exit 77
fi
trap '"$here/cluster.sh" down' EXIT
fail() { echo "emu.ports: FAILED: $*"; exit 1; }

"$here/cluster.sh" up 4
for i in 0 1 2 3; do
  st=$(ip netns exec "$CHOREO_EMU_PREFIX-n$i" cat /sys/class/net/eth0/operstate)
  [[ $st == up ]] || fail "node n$i's eth0 is '$st' right after up returned"
done
echo "emu.ports: every eth0 is up when up returns"

set +e
err=$("$here/cluster.sh" up 2 --fault-port 1 --link-timeout 2 2>&1 >/dev/null)
rc=$?
set -e
echo "$err"
[[ $rc -eq 1 ]] || fail "up with a dead port exited $rc, not 1"
[[ $err == *"node $CHOREO_EMU_PREFIX-n1's port eth0 is still "*"after 2 s"* ]] || fail "the error does not name node 1's eth0: $err"
left=$(ip netns list | grep -c "^$CHOREO_EMU_PREFIX-" || true)
[[ $left -eq 0 ]] || fail "$left namespaces left behind after the failed up"

"$here/cluster.sh" up 2 --burst packet --mtu 1500 >/dev/null
for q in "$CHOREO_EMU_PREFIX-n0 eth0" "$CHOREO_EMU_PREFIX-n1 eth0" "$CHOREO_EMU_PREFIX-sw p0" "$CHOREO_EMU_PREFIX-sw p1"; do
  set -- $q
  mtu=$(ip netns exec "$1" cat "/sys/class/net/$2/mtu")
  [[ $mtu -eq 1500 ]] || fail "$1 $2: MTU $mtu, not 1500"
  burst=$(ip netns exec "$1" tc -j qdisc show dev "$2" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["options"]["burst"])')
  # tc reports the bucket back through its time ticks: within a few bytes.
  ((burst >= 1500 && burst <= 1530)) || fail "$1 $2: tbf burst $burst bytes, not one 1514-byte frame"
done
echo "emu.ports: --burst packet --mtu 1500 gives every port end a one-frame bucket"
"$here/cluster.sh" down
set +e
err=$("$here/cluster.sh" up 2 --burst 4k 2>&1 >/dev/null)
rc=$?
set -e
echo "$err"
[[ $rc -eq 1 && $err == *"--burst 4k (4096 bytes) is smaller than one frame at MTU 9000 (9014 bytes)"* ]] \
  || fail "up --burst 4k exited $rc without naming the bucket: $err"
left=$(ip netns list | grep -c "^$CHOREO_EMU_PREFIX-" || true)
[[ $left -eq 0 ]] || fail "$left namespaces left behind after the refused up"
echo "emu.ports: passed"
