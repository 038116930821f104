#!/usr/bin/env bash
# Groups fuzz findings by where they fail: replays each file through the
# target and prints "<first runtime frame or invariant>  <file>", sorted, so
# duplicates sit together.
#
#   fuzz/triage.sh TARGET FILE...      (binaries from BUILD_DIR, build/fuzz)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build/fuzz}
target=$1
shift
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for f in "$@"; do
  out=$(timeout 60 "$BUILD_DIR/fuzz/$target" -timeout=10 -rss_limit_mb=2048 "$f" 2>&1)
  kind=$(grep -m1 -oE 'runtime error: [a-z -]+|ERROR: AddressSanitizer: [a-z-]+|INVARIANT VIOLATED: .{0,60}|ERROR: libFuzzer: [a-z-]+' <<<"$out")
  frame=$(grep -E '^ +#[0-9]+ ' <<<"$out" | grep -oE '(runtime|test|fuzz)/[^ ]+:[0-9]+' |
          grep -v -E 'fuzz/(method_runner|fuzz_harness|replay_main|[a-z_]+_fuzzer)\.cc' | head -1)
  printf '%-45s %-48s %s\n' "${kind:-no crash}" "${frame:-?}" "$f"
done | sort
