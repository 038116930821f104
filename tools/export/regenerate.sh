#!/usr/bin/env bash
# Regenerates test/fixtures/ (model.pte, inputs, expected outputs, manifest.json)
# with the real ExecuTorch exporter, then checks every fixture with the real
# ExecuTorch runtime. Extra arguments go to export_fixtures.py (e.g. --only add).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
py="$("$here/setup_venv.sh")"
"$py" "$here/export_fixtures.py" "$@"
"$py" "$here/check_fixtures_with_et.py"
