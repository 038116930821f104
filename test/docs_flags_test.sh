#!/usr/bin/env bash
# The docs' flag tables against the binaries' --help: every flag `--help`
# lists is in the table of its doc section, and every flag a table names is
# in `--help`. Usage (from the repository root):
#   docs_flags_test.sh <edgefleet-server> <edgefleet-loadtest>
set -euo pipefail
server="$1"; loadtest="$2"
failed=0

# The flag names in stdin, one per line, sorted (not --help, not the
# "--name=value or --name value" note).
flags_of() { grep -oE -- '--[a-z][a-z0-9_-]*' | grep -vxE -- '--help|--name' | sort -u || true; }
# The table rows of section `## $2` in doc $1.
table() { awk -v h="$2" '/^## /{on = ($0 == h)} on && /^\|/' "$1"; }

compare() {  # what, help flags, doc flags
  local only_help only_doc
  only_help="$(comm -23 <(echo "$2") <(echo "$3"))"
  only_doc="$(comm -13 <(echo "$2") <(echo "$3"))"
  if [ -n "$only_help" ] || [ -n "$only_doc" ]; then
    echo "FAIL: $1: in --help only: [${only_help//$'\n'/ }]; in the docs only: [${only_doc//$'\n'/ }]"
    failed=1
  else
    echo "ok: $1: $(echo "$2" | wc -l) flags agree"
  fi
}

help="$("$server" --help)"
grep -q -- "-h, --help" <<<"$help" || { echo "FAIL: edgefleet-server --help lacks -h"; failed=1; }
[ "$("$server" -h)" = "$help" ] || { echo "FAIL: edgefleet-server -h differs from --help"; failed=1; }
compare "edgefleet-server (docs/service.md)" "$(flags_of <<<"$help")" \
  "$(table docs/service.md '## Flags' | flags_of)"

for cmd in run synth merge report; do
  help="$("$loadtest" "$cmd" --help)"
  [ "$("$loadtest" "$cmd" -h)" = "$help" ] || { echo "FAIL: $cmd -h differs from --help"; failed=1; }
  compare "edgefleet-loadtest $cmd (docs/loadtest-cli.md)" "$(flags_of <<<"$help")" \
    "$(table docs/loadtest-cli.md "## $cmd" | flags_of)"
done
exit $failed
