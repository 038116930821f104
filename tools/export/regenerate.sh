#!/usr/bin/env bash
# Regenerates test/fixtures/ (model.pte, inputs, expected outputs, manifest.json)
# with the real ExecuTorch exporter, lowers them to XNNPACK (model_xnnpack.pte,
# plus the xnnpack_* fixtures; export_xnnpack_fixtures.py), writes every
# fixture's PyTorch Mobile model.ptl (same weights, written by Debian's torch
# 1.13 with XNNPACK prepacking; export_ptl.py), then checks every fixture with the
# real ExecuTorch runtime, and writes the reduced-size zoo (test/fixtures/zoo_mini,
# zoo/export_mini_zoo.py). Extra arguments go to export_fixtures.py (e.g.
# --only add); the .ptl files are always all rewritten (deterministically).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
py="$("$here/setup_venv.sh")"
"$py" "$here/export_fixtures.py" "$@"
"$py" -W ignore "$here/export_xnnpack_fixtures.py"
"$py" -W ignore "$here/export_ptl.py"
"$py" "$here/check_fixtures_with_et.py"
"$py" -W ignore "$here/zoo/export_mini_zoo.py"
