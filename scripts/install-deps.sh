#!/bin/sh
# install-deps.sh - install choreo's build and test dependencies from Debian 12 packages.
# Idempotent; uses sudo when not run as root.
set -eu
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
# gfortran: the Fortran test application of the drop-in library (tests/pmpi).
# pkg-config: the installed tree's choreo.pc is checked (tests/install).
PKGS="cmake ninja-build g++ python3 llvm-19-dev llvm-19-tools nlohmann-json3-dev libz3-dev python3-z3 mpich libmpich-dev libgtest-dev iproute2 gfortran pkg-config"
# Fuzzing (tests/fuzz, scripts/fuzz.sh): clang-19 and its libFuzzer runtime.
PKGS="$PKGS clang-19 libclang-rt-19-dev"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends $PKGS
