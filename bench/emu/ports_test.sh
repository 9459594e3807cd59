#!/usr/bin/env bash
# bench/emu/ports_test.sh - ctest emu.ports: `cluster.sh up` returns only with
# every port carrying, and fails clearly when one never does.
#
# 1. `up 4`, then at once: every node's eth0 reads operstate `up` (without
#    the wait in `up` a veth end is LOWERLAYERDOWN for a moment, and MPI_Init
#    started then fails with UCX's "Destination is unreachable").
# 2. `up 2 --fault-port 1 --link-timeout 2` (node 1's switch end left down):
#    exits 1 naming node 1's eth0 and its state, and leaves no namespace.
# Exit 77 (skipped) with the reason when namespaces cannot be made here.
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
export CHOREO_EMU_PREFIX="choreo-emu-p$$"
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
echo "emu.ports: passed"
