#!/bin/sh
# check-layering.sh SRC BUILD - the runtime layer holds no compiler.
#
# The runtime (ir/, verifier/ without smt/, executor/) goes into every MPI
# rank, also as an LD_PRELOAD library built on libchoreo.so. This checks, on
# the built artefacts and on the sources:
#   1. libchoreo.so and choreo-run load neither Z3 nor libLLVM.so;
#   2. libchoreo.so defines and references no symbol of Z3, the generators,
#      the template language, the SMT engines, the cost model or the harness;
#   3. the runtime's sources include no header of the tooling layer;
#   4. the runtime's link line names no tooling library.
# The same checks on the choreo binary must find Z3 (so that they can fail).
# The drop-in MPI library (libchoreo-mpi.so, pmpi/) may hold the generators
# and the cost model (it builds schedules in the job) but:
#   5. loads neither Z3 nor libLLVM.so, holds no Z3, SMT, harness or views
#      symbol, and its link line names none of them;
#   6. exports the MPI_* wrappers and nothing else.
# Exports are every defined dynamic symbol (nm -D --defined-only, of any
# kind: text, weak, vague linkage, data); libchoreo.so's allowed ones are
# the C API of executor/choreo.h, namespace choreo (with its vtables and
# typeinfo) and llvm::Error's five class identities (executor/libchoreo.map).
# The same check on libchoreo.so linked without its version script
# (tests/layering/CMakeLists.txt) must find LLVM's symbols and weak ones, so
# that it can fail.
set -u
SRC=$1
BUILD=$2
LIB=$BUILD/lib/libchoreo.so
status=0
fail() { echo "layering: $*" >&2; status=1; }

[ -f "$LIB" ] || { echo "layering: $LIB not built" >&2; exit 1; }

needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }

for BIN in "$LIB" "$BUILD/bin/choreo-run"; do
  N=$(needed "$BIN")
  echo "$N" | grep -q 'libmpi' || fail "$BIN does not load MPI (readelf broken?)"
  echo "$N" | grep -E 'libz3|libLLVM' && fail "$BIN loads $(echo "$N" | grep -E 'libz3|libLLVM' | tr '\n' ' ')"
done
needed "$BUILD/bin/choreo" | grep -q libz3 ||
  fail "the choreo binary does not load libz3: the check above proves nothing"

FORBIDDEN='z3::|Z3_|choreo::Generator|choreo::Template|choreo::parseTemplate|choreo::expandTemplate|choreo::proveTemplate|choreo::checkSmt|choreo::CostModel|choreo::evaluateCost|choreo::harness::|choreo::findGenerator'
SYMS=$(nm -C "$LIB" 2>/dev/null; nm -C -D "$LIB")
echo "$SYMS" | grep -q 'choreo::compileRankPlan' || fail "nm finds no runtime symbol in $LIB"
BAD=$(echo "$SYMS" | grep -E "$FORBIDDEN" | head -5)
[ -z "$BAD" ] || fail "libchoreo.so holds tooling symbols: $BAD"
# ... and exports the runtime: the C API, the read/prove/agree protocol, the
# explicit engine; and nothing else.
DEFINED=$(nm -DC --defined-only "$LIB")
for GOOD in 'choreo::readProvedSchedule(' 'choreo::checkExplicit(' \
            $(grep -oE '^[a-z].* \**choreo_[a-z_]+\(' "$SRC/executor/choreo.h" |
              sed -E 's/.*(choreo_[a-z_]+)\(/\1/'); do
  echo "$DEFINED" | grep -qF " T $GOOD" || fail "libchoreo.so does not export $GOOD"
done
# exports_beyond LIB ALLOWED: LIB's defined dynamic symbols, any kind,
# demangled ("W std::vector<...>::~vector()"), that the extended regular
# expression ALLOWED does not match.
exports_beyond() {
  nm -DC --defined-only "$1" | sed -E 's/^[0-9a-f]* //' |
    grep -vE "^[A-Za-z] ($2)\$"
}
RUNTIME_API='choreo_[a-z0-9_]+|choreo::.*|(vtable|typeinfo|typeinfo name) for choreo::.*|llvm::(ErrorInfoBase|ErrorList|StringError|ECError|FileError)::ID'
EXTRA=$(exports_beyond "$LIB" "$RUNTIME_API")
[ -z "$EXTRA" ] || fail "libchoreo.so exports $(echo "$EXTRA" | wc -l) symbols beyond its API: $(echo "$EXTRA" | head -5)"
UNV=$BUILD/tests/layering/libchoreo-unversioned.so
if [ -f "$UNV" ]; then
  EXTRA=$(exports_beyond "$UNV" "$RUNTIME_API")
  echo "$EXTRA" | grep -q '^T llvm::' ||
    fail "the export check finds no LLVM function in $UNV: it proves nothing"
  echo "$EXTRA" | grep -q '^W ' ||
    fail "the export check finds no weak symbol in $UNV: it proves nothing"
else
  fail "$UNV not built"
fi

# Sources of the runtime layer include runtime headers only.
for F in $(cd "$SRC" && ls ir/*.h ir/*.cpp verifier/*.h verifier/*.cpp executor/*.h executor/*.cpp); do
  BADINC=$(grep -E '^#include "(template|generators|verifier/smt|cost|studies|views|harness|tools)/' "$SRC/$F")
  [ -z "$BADINC" ] || fail "$F (runtime) includes tooling: $BADINC"
done

# The runtime library's link line (Ninja or Makefiles).
if [ -f "$BUILD/build.ninja" ]; then
  LINK=$(ninja -C "$BUILD" -t commands lib/libchoreo.so | tail -1)
else
  LINK=$(cat "$BUILD/executor/CMakeFiles/choreo_runtime_shared.dir/link.txt" 2>/dev/null)
fi
echo "$LINK" | grep -q 'libchoreo.so' || fail "no link line for libchoreo.so"
echo "$LINK" | grep -q 'libLLVMSupport.a' || fail "libchoreo.so is not linked against LLVM Support"
BADLINK=$(echo "$LINK" | tr ' ' '\n' | grep -E 'z3|libLLVM\.so|libLLVM-|choreo_(generators|template|smt|cost|studies|views|harness)')
[ -z "$BADLINK" ] || fail "the runtime's link line names tooling: $BADLINK"

# The drop-in library.
PLIB=$BUILD/lib/libchoreo-mpi.so
if [ -f "$PLIB" ]; then
  N=$(needed "$PLIB")
  echo "$N" | grep -q 'libmpi' || fail "$PLIB does not load MPI"
  echo "$N" | grep -E 'libz3|libLLVM' && fail "$PLIB loads $(echo "$N" | grep -E 'libz3|libLLVM' | tr '\n' ' ')"
  PSYMS=$(nm -C "$PLIB" 2>/dev/null; nm -C -D "$PLIB")
  echo "$PSYMS" | grep -q 'choreo::findGenerator' || fail "nm finds no generator in $PLIB"
  BAD=$(echo "$PSYMS" | grep -E 'z3::|Z3_|choreo::checkSmt|choreo::proveTemplate|choreo::harness::|choreo::views' | head -5)
  [ -z "$BAD" ] || fail "libchoreo-mpi.so holds SMT or tooling symbols: $BAD"
  PDEF=$(nm -D --defined-only "$PLIB")
  for GOOD in MPI_Allgather MPI_Allgatherv MPI_Bcast MPI_Reduce MPI_Allreduce \
              MPI_Reduce_scatter MPI_Reduce_scatter_block MPI_Allgather_c \
              MPI_Bcast_c MPI_Finalize MPI_Gather MPI_Gatherv MPI_Scatter \
              MPI_Scatterv MPI_Barrier MPI_Scatterv_c; do
    echo "$PDEF" | grep -q " T $GOOD\$" || fail "libchoreo-mpi.so does not export $GOOD"
  done
  EXTRA=$(exports_beyond "$PLIB" 'MPI_[A-Za-z0-9_]+')
  [ -z "$EXTRA" ] || fail "libchoreo-mpi.so exports more than MPI_*: $(echo "$EXTRA" | head -5)"
  if [ -f "$BUILD/build.ninja" ]; then
    PLINK=$(ninja -C "$BUILD" -t commands lib/libchoreo-mpi.so | tail -1)
    echo "$PLINK" | grep -q 'libchoreo-mpi.so' || fail "no link line for libchoreo-mpi.so"
    BADLINK=$(echo "$PLINK" | tr ' ' '\n' | grep -E 'z3|libLLVM\.so|libLLVM-|choreo_(smt|studies|views|harness)')
    [ -z "$BADLINK" ] || fail "libchoreo-mpi.so's link line names tooling: $BADLINK"
  fi
else
  fail "$PLIB not built"
fi

[ $status -eq 0 ] && echo "layering: runtime holds no Z3, no libLLVM.so, no tooling; libchoreo-mpi.so no Z3; libchoreo.so exports $(echo "$DEFINED" | wc -l) symbols, libchoreo-mpi.so $(echo "$PDEF" | wc -l), none beyond their lists"
exit $status
