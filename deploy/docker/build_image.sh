#!/usr/bin/env bash
# `make image`: builds the edgefleet image (deploy/docker/Dockerfile).
# 1. a container engine (engine.sh); none: prints SKIP and the reason, exit 0;
# 2. the base image edgefleet-bookworm-base, once: debootstrap a minimal
#    bookworm from the Debian mirror the host's apt already uses, then
#    `docker import` it (no registry needed);
# 3. docker build with BuildKit (the build stage's compiler cache is a
#    BuildKit cache mount) and host networking (apt in the build stage).
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/docker/engine.sh
if ! ensure_engine; then
  echo "SKIP make image: $engine_reason"
  exit 0
fi
find_buildkit || { echo "make image: $engine_reason" >&2; exit 1; }
base=edgefleet-bookworm-base
if ! docker image inspect "$base" >/dev/null 2>&1; then
  command -v debootstrap >/dev/null || { echo "make image: debootstrap is not installed (apt-get install debootstrap)" >&2; exit 1; }
  # The host's own Debian mirror (first bookworm "main" source).
  mirror=$( { sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources
               sed -n 's/^deb  *\(\[[^]]*\] *\)\{0,1\}//p' /etc/apt/sources.list /etc/apt/sources.list.d/*.list
             } 2>/dev/null | tr ' ' '\n' | grep -E '^https?://' | grep -v security | head -n 1 || true)
  [ -n "$mirror" ] || { echo "make image: no Debian mirror in the host's apt sources" >&2; exit 1; }
  rootfs=$(mktemp -d)
  trap 'rm -rf "$rootfs"' EXIT
  echo "make image: debootstrap bookworm (minbase) from $mirror"
  debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$rootfs.log" 2>&1 ||
    { tail -n 5 "$rootfs.log" >&2; echo "make image: debootstrap failed (log $rootfs.log)" >&2; exit 1; }
  tar -C "$rootfs" -c . | docker import - "$base" >/dev/null
fi
echo "make image: docker build (the build stage compiles edgefleet-server, edgefleet-loadtest, edgefleet-health)"
start=$(date +%s)
"${docker_build[@]}" --progress=plain --network=host --build-arg BASE="$base" \
  -f deploy/docker/Dockerfile -t edgefleet:latest .
echo "make image: docker build took $(( $(date +%s) - start )) s"
docker image inspect edgefleet:latest --format 'make image: edgefleet:latest {{.Size}} bytes, user {{.Config.User}}'
