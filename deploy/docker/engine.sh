# Sourced by build_image.sh and deploy_test.sh: makes a container engine
# reachable or says why not. ensure_engine returns 0 when `docker info`
# answers; otherwise, as root, it starts Debian's dockerd (installing
# docker.io, debootstrap and docker-compose first when missing) without its
# bridge or iptables rules (--bridge=none --iptables=false; containers then
# run with host networking, so traffic stays on 127.0.0.1), waiting up to
# 60 s; it returns 1 with the reason in
# $engine_reason when none can start.
engine_reason=""
ensure_engine() {
  if docker info >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" -ne 0 ]; then
    engine_reason="docker info fails and starting dockerd needs root"
    return 1
  fi
  if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null ||
     ! command -v docker-compose >/dev/null; then
    echo "engine: installing Debian's docker.io, debootstrap and docker-compose" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      docker.io debootstrap docker-compose >/dev/null 2>&1 || true
  fi
  if ! command -v dockerd >/dev/null; then
    engine_reason="no container engine: docker info fails and docker.io could not be installed"
    return 1
  fi
  local log=${TMPDIR:-/tmp}/edgefleet-dockerd.log
  dockerd --bridge=none --iptables=false --ip-masq=false >"$log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 60); do
    if docker info >/dev/null 2>&1; then return 0; fi
    if ! kill -0 "$pid" 2>/dev/null; then
      engine_reason="dockerd exited at start: $(tail -n 1 "$log")"
      return 1
    fi
    sleep 1
  done
  kill "$pid" 2>/dev/null || true
  engine_reason="dockerd did not answer within 60 s (log: $log)"
  return 1
}

# Sets docker_build to a command that builds with BuildKit (the Dockerfile's
# RUN --mount needs it): `docker buildx build --load` where the buildx
# plugin is installed, else a docker client older than 23 (Debian's
# docker.io 20.10 has BuildKit built in) with DOCKER_BUILDKIT=1; returns 1
# with the reason in $engine_reason when there is neither.
docker_build=()
find_buildkit() {
  if docker buildx version >/dev/null 2>&1; then
    docker_build=(docker buildx build --load)
    return 0
  fi
  local client
  for client in $(type -ap docker); do
    local version
    version=$("$client" version --format '{{.Client.Version}}' 2>/dev/null) || continue
    if [ "${version%%.*}" -lt 23 ] 2>/dev/null; then
      docker_build=(env DOCKER_BUILDKIT=1 "$client" build)
      return 0
    fi
  done
  engine_reason="no BuildKit: neither the buildx plugin nor a docker client older than 23 (Debian's docker.io)"
  return 1
}
