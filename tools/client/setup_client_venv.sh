#!/usr/bin/env bash
# Creates tools/.venv-client with tools/client/requirements.txt (tritonclient
# [grpc] + numpy, a few tens of MB; not the 6 GB exporter venv).
#
# Idempotent: when the venv's stamp matches the requirements' hash nothing is
# installed. Prints the venv's python path on stdout; progress on stderr.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$(cd "$here/.." && pwd)/.venv-client"
req="$here/requirements.txt"
stamp="$venv/.requirements.sha256"
python="${PYTHON:-python3}"

die() { echo "setup_client_venv: error: $*" >&2; exit 1; }

want="$(sha256sum "$req" | cut -d' ' -f1)"
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "$venv/bin/python"
  exit 0
fi
# Two test runs may set up at once: one installs, the other waits.
exec 9>"$(dirname "$venv")/.venv-client.lock"
flock 9
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "$venv/bin/python"
  exit 0
fi
if [ ! -x "$venv/bin/python" ]; then
  command -v "$python" >/dev/null 2>&1 || die "'$python' not found (install python3 and python3-venv)"
  echo "setup_client_venv: creating $venv" >&2
  "$python" -m venv "$venv" >&2 || die "'$python -m venv' failed (apt-get install python3-venv)"
fi
rm -f "$stamp"
echo "setup_client_venv: installing $req" >&2
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req" >&2 \
  || die "pip install -r $req failed (is PyPI reachable?)"
"$venv/bin/python" -c "import tritonclient.grpc, numpy" >&2 || die "tritonclient does not import"
echo "$want" >"$stamp"
echo "$venv/bin/python"
