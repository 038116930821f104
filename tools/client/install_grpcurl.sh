#!/usr/bin/env bash
# Installs grpcurl (not packaged in Debian bookworm) into tools/.bin with the
# Go toolchain, from the Go module proxy, at a pinned version. Idempotent.
# Prints the binary's path on stdout.
set -euo pipefail

version="v1.9.3"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="$(cd "$here/.." && pwd)/.bin"
target="$bin/grpcurl"
stamp="$bin/.grpcurl-version"

if [ -x "$target" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$version" ]; then
  echo "$target"
  exit 0
fi
go_bin="$(command -v go || true)"
[ -n "$go_bin" ] || [ ! -x /usr/local/go/bin/go ] || go_bin=/usr/local/go/bin/go
[ -n "$go_bin" ] || { echo "install_grpcurl: error: the Go toolchain is not installed" >&2; exit 1; }
mkdir -p "$bin"
exec 9>"$bin/.grpcurl.lock"
flock 9
if [ -x "$target" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$version" ]; then
  echo "$target"
  exit 0
fi
echo "install_grpcurl: go install github.com/fullstorydev/grpcurl/cmd/grpcurl@$version" >&2
GOBIN="$bin" GOFLAGS=-mod=mod "$go_bin" install "github.com/fullstorydev/grpcurl/cmd/grpcurl@$version" >&2
echo "$version" >"$stamp"
echo "$target"
