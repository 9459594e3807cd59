#!/bin/sh
# check-install.sh SRC BUILD MPIEXEC: installs the build into a fresh prefix
# (cmake --install), then uses only what was installed:
#  1. the files are where docs/install.md says, and the installed tools run
#     (choreo --help, choreo gen + verify, choreo trace with the installed
#     preload library and driver);
#  2. an external CMake project (external/) finds the package
#     (find_package(choreo COMPONENTS cxx)), builds a C and a C++ user and
#     runs both under mpiexec on a schedule the installed choreo generated;
#  3. the C user builds again with pkg-config alone (mpicc, choreo.pc) and
#     runs;
#  4. the installed libchoreo-mpi.so, found with pkg-config, is preloaded
#     into that program and serves its MPI_Allgather.
# Prints "install: passed" when every check held.
set -eu
SRC=$1; BUILD=$2; MPIEXEC=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "install: $*"; exit 1; }
P=$TMP/prefix
cmake --install "$BUILD" --prefix "$P" >"$TMP/install.log" 2>&1 || {
  cat "$TMP/install.log"; fail "cmake --install failed"; }

LIBDIR=$(cd "$P" && ls -d lib lib/*-linux-gnu 2>/dev/null | while read -r d; do
  [ -f "$P/$d/libchoreo.so" ] && echo "$d"; done | head -n1)
[ -n "$LIBDIR" ] || fail "libchoreo.so is not installed under $P/lib"
for f in bin/choreo bin/choreo-run bin/choreo-calibrate bin/choreo-trace-driver \
         "$LIBDIR/libchoreo.so" "$LIBDIR/libchoreo-mpi.so" \
         "$LIBDIR/libchoreo-trace.so" include/choreo.h \
         include/choreo/executor/Plan.h include/choreo/ir/Schedule.h \
         include/choreo/verifier/Verifier.h \
         "$LIBDIR/cmake/choreo/choreoConfig.cmake" \
         "$LIBDIR/cmake/choreo/choreoConfigVersion.cmake" \
         "$LIBDIR/cmake/choreo/choreoTargets.cmake" \
         "$LIBDIR/pkgconfig/choreo.pc" "$LIBDIR/pkgconfig/choreo-mpi.pc"; do
  [ -e "$P/$f" ] || fail "$f is not installed"
done
[ ! -e "$P/include/choreo/verifier/smt" ] || fail "the SMT layer's headers were installed"

# 1. The installed tools, away from the build tree.
cd "$TMP"
"$P/bin/choreo" --help >/dev/null || fail "choreo --help failed"
"$P/bin/choreo" gen allgather-ring --p 3 --bytes 8 -o ring3.json ||
  fail "the installed choreo gen failed"
"$P/bin/choreo" verify ring3.json >/dev/null || fail "ring3.json does not verify"

# choreo trace finds the installed preload library next to bin/.
env -u CHOREO_TRACE_LIB "$P/bin/choreo" trace --collective bcast --bytes 64K \
  --against bcast-mpich -o bcast.json -- \
  "$MPIEXEC" -n 3 "$P/bin/choreo-trace-driver" </dev/null >trace.out 2>&1 || {
  cat trace.out; fail "the installed choreo trace failed"; }
grep -q "verify: proved" trace.out || { cat trace.out; fail "the installed choreo trace did not prove"; }

# 2. find_package(choreo) from an external project.
cmake -S "$SRC/tests/install/external" -B ext -G Ninja \
  -DCMAKE_PREFIX_PATH="$P" -DCMAKE_BUILD_TYPE=Release >ext.log 2>&1 || {
  cat ext.log; fail "the external project does not configure"; }
cmake --build ext >>ext.log 2>&1 || { cat ext.log; fail "the external project does not build"; }
for u in user-c user-cxx; do
  "$MPIEXEC" -n 3 "ext/$u" ring3.json </dev/null >"$u.out" 2>&1 || {
    cat "$u.out"; fail "$u failed"; }
  grep -q "$u: passed" "$u.out" || { cat "$u.out"; fail "$u did not pass"; }
done
# The external binaries use the installed library, not the build tree's.
ldd ext/user-c | grep -q "$P/$LIBDIR/libchoreo.so" ||
  fail "user-c does not load $P/$LIBDIR/libchoreo.so"

# 3. pkg-config alone.
export PKG_CONFIG_PATH="$P/$LIBDIR/pkgconfig"
# shellcheck disable=SC2046
mpicc -o user-pc "$SRC/tests/install/external/user.c" \
  $(pkg-config --cflags --libs choreo) \
  -Wl,-rpath,"$(pkg-config --variable=libdir choreo)" ||
  fail "the C user does not build with pkg-config"
"$MPIEXEC" -n 3 ./user-pc ring3.json </dev/null >pc.out 2>&1 || {
  cat pc.out; fail "user-pc failed"; }
grep -q "user-c: passed" pc.out || fail "user-pc did not pass"

# 4. The installed drop-in library, preloaded: it must serve MPI_Allgather.
PRELOAD=$(pkg-config --variable=preload choreo-mpi)
[ -f "$PRELOAD" ] || fail "choreo-mpi.pc's preload ($PRELOAD) is not a file"
"$MPIEXEC" -n 3 -genv LD_PRELOAD "$PRELOAD" -genv CHOREO_VERBOSE 1 \
  -genv CHOREO_ALLGATHER allgather-ring ./user-pc ring3.json </dev/null \
  >pre.out 2>&1 || { cat pre.out; fail "the preloaded run failed"; }
grep -q "user-c: passed" pre.out || { cat pre.out; fail "the preloaded run did not pass"; }
grep -q "allgather-ring" pre.out || { cat pre.out; fail "the preloaded library did not serve MPI_Allgather"; }
echo "install: passed"
