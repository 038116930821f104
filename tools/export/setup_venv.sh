#!/usr/bin/env bash
# Creates tools/.venv with the pinned exporter/benchmark requirements.
#
# Idempotent: when tools/.venv/.requirements.sha256 matches the hash of
# requirements.txt, nothing is installed. On success prints the venv's python
# path on stdout (progress goes to stderr); on failure exits non-zero with a
# message. Override the interpreter used to create the venv with $PYTHON.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$(cd "$here/.." && pwd)/.venv"
req="$here/requirements.txt"
stamp="$venv/.requirements.sha256"
python="${PYTHON:-python3}"

die() { echo "setup_venv: error: $*" >&2; exit 1; }

want="$(sha256sum "$req" | cut -d' ' -f1)"
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "$venv/bin/python"
  exit 0
fi

if [ ! -x "$venv/bin/python" ]; then
  command -v "$python" >/dev/null 2>&1 || die "'$python' not found (install python3 and python3-venv)"
  echo "setup_venv: creating $venv" >&2
  "$python" -m venv "$venv" >&2 \
    || die "'$python -m venv' failed (on Debian: apt-get install python3-venv)"
fi
rm -f "$stamp"
echo "setup_venv: installing $req (first run downloads ~3 GB)" >&2
"$venv/bin/python" -m pip install --quiet --upgrade pip >&2 || die "pip upgrade failed"
"$venv/bin/python" -m pip install --quiet -r "$req" >&2 \
  || die "pip install -r $req failed (is PyPI reachable?)"
"$venv/bin/python" -c "import torch, torchvision, executorch.exir, executorch.runtime" >&2 \
  || die "installed packages do not import"
echo "$want" >"$stamp"
echo "$venv/bin/python"
