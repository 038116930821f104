#!/usr/bin/env bash
# The command lines of both binaries: every command and subcommand answers
# --help and -h (the same text, exit 0), every server command takes
# `--name value` as well as `--name=value`, and the docs' flag tables agree
# with --help (every flag `--help` lists is in its doc section, and every
# flag the section names is in `--help`). Usage (from the repository root):
#   docs_flags_test.sh <edgefleet-server> <edgefleet-loadtest>
set -euo pipefail
server="$1"; loadtest="$2"
failed=0

# The flag names in stdin, one per line, sorted (not --help, not the
# "--name=value or --name value" note).
flags_of() { grep -oE -- '--[a-z][a-z0-9_-]*' | grep -vxE -- '--help|--name' | sort -u || true; }
# The table rows of section `## $2` in doc $1; all of its text.
table() { awk -v h="$2" '/^## /{on = ($0 == h)} on && /^\|/' "$1"; }
section() { awk -v h="$2" '/^##+ /{on = ($0 == h)} on' "$1"; }

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

# Every command and subcommand: --help and -h print the same usage, exit 0.
same_help() {  # what, command words...
  local what="$1" long short; shift
  if ! long="$("$@" --help 2>&1)"; then echo "FAIL: $what --help exits non-zero: ${long%%$'\n'*}"; failed=1; return; fi
  if ! short="$("$@" -h 2>&1)"; then echo "FAIL: $what -h exits non-zero: ${short%%$'\n'*}"; failed=1; return; fi
  [ "$long" = "$short" ] || { echo "FAIL: $what: -h differs from --help"; failed=1; return; }
  grep -q -- "-h, --help" <<<"$long" || { echo "FAIL: $what --help does not list -h, --help"; failed=1; return; }
  echo "ok: $what --help and -h"
}
for cmd in "" calibrate health predict fit-prior; do
  same_help "edgefleet-server${cmd:+ $cmd}" "$server" ${cmd:+"$cmd"}
done
for cmd in run synth merge report plan campaign; do
  same_help "edgefleet-loadtest $cmd" "$loadtest" "$cmd"
done

# `--name value` as well as `--name=value` on every server command: a value
# given apart is taken (the error is about the value, not the flag).
takes_apart() {  # what, expected exit code, text the error must name, command...
  local what="$1" code="$2" text="$3" out rc; shift 3
  out="$("$@" 2>&1)" && rc=0 || rc=$?
  if [ "$rc" != "$code" ] || ! grep -qF -- "$text" <<<"$out"; then
    echo "FAIL: $what: exit $rc (want $code), output: ${out%%$'\n'*}"; failed=1
  else
    echo "ok: $what"
  fi
}
takes_apart "health --address VALUE" 1 "127.0.0.1:1" \
  "$server" health --address 127.0.0.1:1 --timeout_s 2
takes_apart "predict --model_repository VALUE" 2 "/nonexistent-repository" \
  "$server" predict --model_repository /nonexistent-repository
takes_apart "fit-prior --model_repository VALUE" 2 "/nonexistent-repository" \
  "$server" fit-prior --model_repository /nonexistent-repository --host_profile x --published y
takes_apart "server --model_repository VALUE" 2 "/nonexistent-repository" \
  "$server" --model_repository /nonexistent-repository --port 0 --metrics_port 0

compare "edgefleet-server (docs/service.md)" "$("$server" --help | flags_of)" \
  "$(table docs/service.md '## Flags' | flags_of)"

# The health client's flags: its paragraph in docs/service.md; predict and
# fit-prior: the section "Predicting device latency".
compare "edgefleet-server health (docs/service.md)" "$("$server" health --help | flags_of)" \
  "$(awk '/^`edgefleet-server health/,/^$/' docs/service.md | flags_of)"
compare "edgefleet-server predict, fit-prior (docs/service.md)" \
  "$({ "$server" predict --help; "$server" fit-prior --help; } | flags_of)" \
  "$(section docs/service.md '### Predicting device latency: `edgefleet-server predict`' | flags_of)"

for cmd in run synth merge report; do
  compare "edgefleet-loadtest $cmd (docs/loadtest-cli.md)" "$("$loadtest" "$cmd" --help | flags_of)" \
    "$(table docs/loadtest-cli.md "## $cmd" | flags_of)"
done
# plan and campaign are described in prose: every flag of their sections.
for cmd in plan campaign; do
  compare "edgefleet-loadtest $cmd (docs/loadtest-cli.md)" "$("$loadtest" "$cmd" --help | flags_of)" \
    "$(section docs/loadtest-cli.md "## $cmd" | flags_of)"
done
exit $failed
