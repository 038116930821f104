#!/usr/bin/env bash
# `make bench`: core runtime size, then our runtime vs the real ExecuTorch
# runtime on every fixture, side by side. Usage: run_bench.sh BUILD_DIR
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$root/build/default}"
"$root/tools/bench/core_size.sh"
py="$("$root/tools/export/setup_venv.sh")"
"$py" "$root/tools/bench/compare_runtimes.py" --edgefleet-run "$build/runtime/tools/edgefleet-run"
