#!/usr/bin/env bash
# The format check: every C++ file (*.h, *.cc) must be exactly what
# clang-format 14 makes of it under the repository's .clang-format (Google
# style, 100 columns). ctest house.format runs the check (tools/checks/
# format_test.py, with a deliberately mis-formatted file that must fail).
#
# Usage: tools/checks/format.sh [--fix] [ROOT]
#   (no flag)  check: exit 1 listing every file clang-format would change,
#              and every stale line of the pending list (below); exit 0 clean.
#   --fix      format every C++ file in place, pending ones included, and
#              delete the pending list; afterwards the check covers every file.
#
# The pending list, tools/checks/format_pending.txt (one path per line,
# relative to ROOT; optional), names the files written before the check
# existed and not yet reformatted. The check skips them, and fails when a
# listed file is already formatted or gone, so the list only shrinks. A file
# not on the list (every new file) is always checked. One
# `tools/checks/format.sh --fix`, committed on its own, reformats them all
# and empties the list.
#
# Files: every *.h and *.cc under ROOT outside build/, hidden folders and
# node_modules (the same walk as tools/checks/layering.py). The formatter is
# clang-format-14 (deploy/install-deps.sh), or $CLANG_FORMAT: another version
# formats differently, so the check refuses one that is not 14.
set -euo pipefail

fix=0
if [[ ${1:-} == --fix ]]; then fix=1; shift; fi
root=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
style=$root/.clang-format
pending=$root/tools/checks/format_pending.txt
clang_format=${CLANG_FORMAT:-clang-format-14}

if ! command -v "$clang_format" >/dev/null; then
  echo "format: $clang_format not found (deploy/install-deps.sh installs clang-format-14)" >&2
  exit 2
fi
if ! "$clang_format" --version | grep -q 'version 14\.'; then
  echo "format: $clang_format is not clang-format 14: $("$clang_format" --version)" >&2
  exit 2
fi
[[ -f $style ]] || { echo "format: $style is missing" >&2; exit 2; }

cd "$root"
mapfile -t files < <(find . \( -name build -o -name node_modules -o -name '.?*' \) -prune \
  -o -type f \( -name '*.h' -o -name '*.cc' \) -print | sed 's|^\./||' | LC_ALL=C sort)

if (( fix )); then
  printf '%s\0' "${files[@]}" | xargs -0 -r -n 16 "$clang_format" --style="file:$style" -i
  rm -f "$pending"
  echo "format: formatted ${#files[@]} files; the pending list is gone"
  exit 0
fi

declare -A skip=()
problems=()
if [[ -f $pending ]]; then
  while IFS= read -r line || [[ -n $line ]]; do
    [[ -z $line || $line == \#* ]] && continue
    skip[$line]=1
  done <"$pending"
fi

# Every file once, in batches run one after the other (parallel ones would
# interleave their messages): clang-format names each file it would change
# ("FILE:LINE:COL: error: code should be clang-formatted"); any other error
# is a problem of its own.
declare -A dirty=()
while IFS= read -r line; do
  if [[ $line =~ ^(.+):[0-9]+:[0-9]+:\ error:\ code\ should\ be\ clang-formatted ]]; then
    dirty[${BASH_REMATCH[1]}]=1
  elif [[ $line == *error:* ]]; then
    problems+=("$clang_format: $line")
  fi
done < <(printf '%s\0' "${files[@]}" | xargs -0 -r -n 64 "$clang_format" \
  --style="file:$style" --dry-run -Werror --ferror-limit=1 2>&1 || true)

declare -A exists=()
checked=0
for f in "${files[@]}"; do
  exists[$f]=1
  if [[ -n ${skip[$f]:-} ]]; then continue; fi
  checked=$((checked + 1))
  [[ -z ${dirty[$f]:-} ]] ||
    problems+=("$f: not formatted (run tools/checks/format.sh --fix, or $clang_format -i $f)")
done

pending_count=0
mapfile -t listed < <(printf '%s\n' "${!skip[@]}" | LC_ALL=C sort)
for f in "${listed[@]}"; do
  [[ -n $f ]] || continue
  pending_count=$((pending_count + 1))
  if [[ -z ${exists[$f]:-} ]]; then
    problems+=("tools/checks/format_pending.txt: $f does not exist; remove the line")
  elif [[ -z ${dirty[$f]:-} ]]; then
    problems+=("tools/checks/format_pending.txt: $f is formatted; remove the line")
  fi
done

if (( ${#problems[@]} )); then
  printf '%s\n' "${problems[@]}"
  echo "format: ${#problems[@]} problem(s) ($checked files checked, $pending_count pending)"
  exit 1
fi
echo "format: clean ($checked files checked, $pending_count pending reformat)"
