#!/usr/bin/env bash
# Builds the `fuzz` preset (clang, libFuzzer, ASan + UBSan) and runs every
# fuzz target for a bounded time, then prints executions, coverage and
# findings per target. Exits non-zero if any target found a crash, leak,
# timeout or out-of-memory, printing the reproducer paths.
#
#   fuzz/run_fuzzers.sh [SECONDS] [TARGET...]       (make fuzz FUZZ_SECONDS=N)
#
# Environment:
#   FUZZ_SECONDS     seconds per target when not given as an argument (60)
#   FUZZ_PARALLEL    targets run at the same time (1)
#   FUZZ_KEEP_GOING  1: libFuzzer fork mode that records every finding and
#                    keeps fuzzing (for long local campaigns); default stops
#                    a target at its first finding, as CI wants
#   FUZZ_SKIP_BUILD  1: use the binaries already in BUILD_DIR
#   FUZZ_REPORT_ONLY 1: only print the table of the last run
#   BUILD_DIR        build directory of the fuzz preset (build/fuzz; `make fuzz`
#                    takes it as FUZZ_BUILD_DIR)
#   FUZZ_BUILD_JOBS  parallel compile jobs of that build (nproc)
#   FUZZ_EXTRA_SEEDS read-only seed directory added to the .pte targets
#                    (default: ../shared/fixtures/third_party_pte if present)
#
# Layout under $BUILD_DIR/fuzz-work/<target>/: corpus/ (scratch corpus that
# grows across runs; the committed seeds in fuzz/corpus/<target> are read
# but never written), artifacts/ (findings), log.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECONDS_PER_TARGET=${1:-${FUZZ_SECONDS:-60}}
shift || true
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then
  TARGETS=(program_load_fuzzer method_execute_fuzzer program_mutation_fuzzer npy_fuzzer
           etdump_reader_fuzzer
           request_decode_fuzzer config_fuzzer xnnpack_payload_fuzzer
           xnnpack_graph_mutation_fuzzer)
  DEFAULT_TARGETS=1
fi
BUILD_DIR=${BUILD_DIR:-$ROOT/build/fuzz}
case $BUILD_DIR in /*) ;; *) BUILD_DIR=$PWD/$BUILD_DIR ;; esac
PARALLEL=${FUZZ_PARALLEL:-1}
EXTRA_SEEDS=${FUZZ_EXTRA_SEEDS:-$ROOT/../shared/fixtures/third_party_pte}

if [ "${FUZZ_SKIP_BUILD:-0}" != 1 ] && [ "${FUZZ_REPORT_ONLY:-0}" != 1 ]; then
  echo "== building fuzz targets (preset fuzz, $BUILD_DIR)"
  mkdir -p "$BUILD_DIR"
  if ! (cd "$ROOT" && cmake --preset fuzz -B "$BUILD_DIR") >"$BUILD_DIR/fuzz-configure.log" 2>&1; then
    tail -n 40 "$BUILD_DIR/fuzz-configure.log"
    echo "configuring the fuzz build failed; full log: $BUILD_DIR/fuzz-configure.log"
    exit 2
  fi
  # The XNNPACK payload targets exist only where the system XNNPACK was
  # found (fuzz/CMakeLists.txt); the default list drops them elsewhere.
  if [ "${DEFAULT_TARGETS:-0}" = 1 ] && ! grep -q 'xnnpack_payload_fuzzer' "$BUILD_DIR/build.ninja"; then
    echo "== no system XNNPACK in this build: skipping the xnnpack_* targets"
    TARGETS=("${TARGETS[@]/xnnpack_*/}")
    mapfile -t TARGETS < <(printf '%s\n' "${TARGETS[@]}" | grep .)
  fi
  if ! (cd "$ROOT" && cmake --build "$BUILD_DIR" --parallel "${FUZZ_BUILD_JOBS:-$(nproc)}" \
          --target "${TARGETS[@]}") >"$BUILD_DIR/fuzz-build.log" 2>&1; then
    tail -n 40 "$BUILD_DIR/fuzz-build.log"
    echo "building the fuzz targets failed; full log: $BUILD_DIR/fuzz-build.log"
    exit 2
  fi
fi

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

run_target() {
  local target=$1 work=$BUILD_DIR/fuzz-work/$1
  rm -rf "$work/artifacts"  # findings of earlier runs belong in fuzz/regressions/
  mkdir -p "$work/corpus" "$work/artifacts"
  local dict=$ROOT/fuzz/dictionaries/pte.dict max_len=65536
  local seeds=("$ROOT/fuzz/corpus/$target" "$ROOT/fuzz/regressions/$target")
  case $target in
    npy_fuzzer) dict=$ROOT/fuzz/dictionaries/npy.dict max_len=16384 ;;
    etdump_reader_fuzzer) dict=$ROOT/fuzz/dictionaries/etdump.dict max_len=16384 ;;
    request_decode_fuzzer) dict=$ROOT/fuzz/dictionaries/request.dict max_len=16384 ;;
    config_fuzzer) dict=$ROOT/fuzz/dictionaries/config.dict max_len=8192 ;;
    xnnpack_*) dict=$ROOT/fuzz/dictionaries/xnnpack.dict max_len=65536 ;;
    *) if [ -d "$EXTRA_SEEDS" ]; then seeds+=("$EXTRA_SEEDS"); fi ;;
  esac
  # libFuzzer exits on a missing directory: pass only those that exist.
  local dirs=("$work/corpus") d
  for d in "${seeds[@]}"; do
    if [ -d "$d" ]; then dirs+=("$d"); fi
  done
  local mode=()
  if [ "${FUZZ_KEEP_GOING:-0}" = 1 ]; then
    mode=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  fi
  "$BUILD_DIR/fuzz/$target" -max_total_time="$SECONDS_PER_TARGET" -dict="$dict" \
    -max_len="$max_len" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/" "${mode[@]}" \
    "${dirs[@]}" >"$work/log" 2>&1 || true
}

if [ "${FUZZ_REPORT_ONLY:-0}" != 1 ]; then
echo "== fuzzing ${#TARGETS[@]} targets for ${SECONDS_PER_TARGET}s each, $PARALLEL at a time"
running=0
for target in "${TARGETS[@]}"; do
  run_target "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$PARALLEL" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait || true
fi

status=0
printf '\n%-26s %12s %8s %8s %8s  %s\n' target executions cov ft corpus findings
for target in "${TARGETS[@]}"; do
  work=$BUILD_DIR/fuzz-work/$target
  log=$work/log
  # Normal mode prints stat:: lines; fork mode prints "#N: cov: ... ft: ..."
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
  if [ -z "$execs" ]; then execs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#' || true); fi
  last=$(grep -E '(cov|ft): [0-9]+' "$log" | tail -1 || true)
  cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$last")
  corpus=$(find "$work/corpus" -type f 2>/dev/null | wc -l)
  mapfile -t findings < <(find "$work/artifacts" -type f \
    \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | sort)
  printf '%-26s %12s %8s %8s %8s  %s\n' "$target" "${execs:-?}" "${cov:-?}" "${ft:-?}" \
    "$corpus" "${#findings[@]}"
  if [ -z "$execs" ] && [ ${#findings[@]} -eq 0 ]; then
    # No statistics and no finding: the target never fuzzed (missing
    # binary, bad flag, unreadable seeds). That must not pass as clean.
    status=1
    echo "    DID NOT RUN: $(grep -v '^INFO' "$log" 2>/dev/null | tail -1)"
    echo "      log: $log"
  fi
  if [ ${#findings[@]} -gt 0 ]; then
    status=1
    # Group findings by what they are (sanitizer summary or invariant of a
    # replay; fuzz/triage.sh gives the first runtime frame).
    declare -A first=() count=()
    for f in "${findings[@]:0:50}"; do
      case $(basename "$f") in
        timeout-*) what="timeout (an input ran longer than 10 s)" ;;
        oom-*) what="out of memory (rss or malloc above 2048 MB)" ;;
        *) what=$(timeout 60 "$BUILD_DIR/fuzz/$target" -rss_limit_mb=2048 "$f" 2>&1 |
             grep -m1 -E 'SUMMARY|INVARIANT VIOLATED|ERROR: libFuzzer' || true) ;;
      esac
      what=${what:-"no longer reproduces"}
      [ -n "${first[$what]:-}" ] || first[$what]=$f
      count[$what]=$(( ${count[$what]:-0} + 1 ))
    done
    for what in "${!first[@]}"; do
      echo "    FINDING (${count[$what]}x) $what"
      echo "      reproducer: ${first[$what]}"
      echo "      reproduce:  $BUILD_DIR/fuzz/$target ${first[$what]}"
    done
    unset first count
  fi
done
[ $status -eq 0 ] || echo "fuzzing found problems; logs in $BUILD_DIR/fuzz-work/<target>/log"
exit $status
