#!/bin/sh
# check.sh LIBCHOREO: the runtime layer's shared library (libchoreo.so, what
# an MPI rank loads) needs neither Z3 nor libLLVM.so, holds no tooling code
# (generators, templates, the SMT engines, cost, the choreo-run harness) and
# exports the C API and the read/prove/agree protocol.
set -eu
lib=$1
fail=0
needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
for bad in libz3 libLLVM; do
  if echo "$needed" | grep -q "^$bad"; then
    echo "layering: $lib needs $bad"; fail=1
  fi
done
defined=$(nm -DC --defined-only "$lib")
undefined=$(nm -DC --undefined-only "$lib")
for bad in 'choreo::harness::' 'choreo::findGenerator' 'choreo::Generator' \
           'choreo::expandTemplate' 'choreo::parseTemplate' \
           'choreo::proveTemplate' 'choreo::checkSmt' 'choreo::evaluateCost'; do
  if echo "$defined$undefined" | grep -qF "$bad"; then
    echo "layering: $lib holds or needs tooling code: $bad"; fail=1
  fi
done
if echo "$undefined" | grep -q 'Z3_'; then
  echo "layering: $lib needs Z3 symbols"; fail=1
fi
for good in 'T choreo_plan_create' 'T choreo::readProvedSchedule(' \
            'T choreo::checkExplicit('; do
  if ! echo "$defined" | grep -qF "$good"; then
    echo "layering: $lib does not export $good"; fail=1
  fi
done
[ "$fail" = 0 ] && echo "layering: $lib is runtime only"
exit $fail
