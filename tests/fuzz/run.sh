#!/usr/bin/env bash
# tests/fuzz/run.sh TARGET [SECONDS] [libFuzzer flags...]: one fuzzing session of a target built in
# build-fuzz (CW_FUZZ_BUILD), 10 million executions or SECONDS (default 1800), whichever comes
# first. New inputs go to tests/fuzz/corpus-run/TARGET (not committed; the committed seeds in
# tests/fuzz/corpus/TARGET are read too), findings to build-fuzz/artifacts/TARGET/.
#   CC=clang cmake -S . -B build-fuzz -DCW_FUZZ=ON -DCW_BUILD_TESTS=OFF && cmake --build build-fuzz
#   tests/fuzz/run.sh fuzz_cron & tests/fuzz/run.sh fuzz_admission & wait    # two per 2 cores
#   build-fuzz/tests/fuzz/fuzz_cron build-fuzz/artifacts/fuzz_cron/crash-...  # replay a finding
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
target=${1:?usage: tests/fuzz/run.sh TARGET [SECONDS] [libFuzzer flags...]}
secs=${2:-1800}
shift $(($# >= 2 ? 2 : 1))
build=${CW_FUZZ_BUILD:-$root/build-fuzz}
run=$root/tests/fuzz/corpus-run/$target
mkdir -p "$run" "$build/artifacts/$target"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
exec "$build/tests/fuzz/$target" -dict="$root/tests/fuzz/$target.dict" -max_total_time="$secs" \
  -runs=10000000 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$build/artifacts/$target/" "$@" "$run" "$root/tests/fuzz/corpus/$target"
