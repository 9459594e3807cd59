#!/bin/sh
# Runs a libFuzzer target on a copy of its seed corpus for SECONDS, or skips
# (exit 77, ctest's SKIP_RETURN_CODE) with the reason when this build has no
# libFuzzer. usage: run-fuzzer.sh HAVE_LIBFUZZER TARGET SEEDS SECONDS WORKDIR
set -e
have=$1 target=$2 seeds=$3 seconds=$4 work=$5
if [ "$have" = off ]; then
  echo "skipped: the selection fuzzer is not in the default clang build (it links the generators and the cost model); configure with -DCHOREO_FUZZ_CLANG_SELECTION=ON or run scripts/fuzz.sh"
  exit 77
fi
if [ "$have" != 1 ]; then
  if command -v clang++-19 >/dev/null 2>&1; then
    echo "skipped: this build's compiler has no -fsanitize=fuzzer; fuzz with scripts/fuzz.sh (clang-19)"
  else
    echo "skipped: clang-19 is not installed (apt-get install clang-19 libclang-rt-19-dev), so there is no libFuzzer"
  fi
  exit 77
fi
rm -rf "$work" && mkdir -p "$work/corpus" "$work/crashes"
cp "$seeds"/* "$work/corpus/"
exec "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$work/crashes/" -print_final_stats=1 "$work/corpus"
