#!/usr/bin/env bash
# `make bench`: core runtime size, then our runtime vs the real ExecuTorch
# runtime on every fixture, side by side, then the zoo's ETDump files through
# the real Inspector. Usage: run_bench.sh BUILD_DIR
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$root/build/default}"
"$root/tools/bench/core_size.sh"
py="$("$root/tools/export/setup_venv.sh")"
"$py" "$root/tools/bench/compare_runtimes.py" --edgefleet-run "$build/runtime/tools/edgefleet-run"
# Our ETDump files of the zoo's programs (`make models`), opened by the real
# Inspector: every instruction with its operator and positive durations
# (tools/devtools/inspector_check.py; docs/devtools.md).
if compgen -G "$root/.cache/models/*/model*.pte" >/dev/null; then
  "$py" -W ignore "$root/tools/devtools/inspector_check.py" --runs 2 \
    --edgefleet-run "$build/runtime/tools/edgefleet-run" "$root"/.cache/models/*/model*.pte
else
  echo "inspector check: no zoo models in $root/.cache/models (make models); skipped"
fi
