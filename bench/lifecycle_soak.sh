#!/bin/sh
# bench/lifecycle_soak.sh [FIRST-LAST] [CHUNK]: the seeded random request
# lifecycle (tests/pmpi/pmpi_lifecycle.c) for many seeds (default 1000-1099,
# CHUNK seeds a job, default 10) on 3, 4 and 5 ranks (LIFECYCLE_NPS),
# natively and preloaded in every configuration of tests/pmpi/lifecycle.sh
# (choreo's schedules, the margin's mixed hand-over with and without every
# completion call on persistent collectives, named algorithms, flow control
# with the least tag bound, one plan per communicator). Stops at the first
# failing job: prints its failures, its command and the failing seed's own
# command. Run from the repository with the build in build/ (BUILD=DIR
# otherwise):
#
#   bench/lifecycle_soak.sh 300-319 10   # 420 seed runs: 287 s on 2 cores, load 3-5
#   bench/lifecycle_soak.sh              # 100 seeds: about 25 minutes
set -eu
HERE=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$HERE/build}
SEEDS=${1:-1000-1099}
CHUNK=${2:-10}
export LIFECYCLE_NPS=${LIFECYCLE_NPS:-3 4 5}
START=$(date +%s)
sh "$HERE/tests/pmpi/lifecycle.sh" "${MPIEXEC:-mpiexec}" \
  "$BUILD/bin/choreo-pmpi-lifecycle" "$BUILD/lib/libchoreo-mpi.so" \
  "$SEEDS" "$CHUNK"
echo "lifecycle_soak: $SEEDS on $LIFECYCLE_NPS ranks in $(( $(date +%s) - START )) s"
