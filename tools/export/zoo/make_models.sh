#!/usr/bin/env bash
# `make models`: exports the model zoo (tools/export/zoo/export_zoo.py) into
# .cache/models/ with the tools' virtual environment (created on first use).
# Models whose files are present and were written by the current exporter are
# kept; pass --force to rebuild them all. Other arguments go to
# export_zoo.py (e.g. --only resnet18, --no-xnnpack, --update-fixtures).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
py="$("$here/../setup_venv.sh")"
exec "$py" "$here/export_zoo.py" "$@"
