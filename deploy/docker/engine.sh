# Sourced by build_image.sh and deploy_test.sh: makes a container engine
# reachable or says why not. ensure_engine returns 0 when `docker info`
# answers; otherwise, as root with Debian's dockerd installed, it starts one
# (installing Debian's docker.io and debootstrap first when missing)
# without its bridge or iptables rules (--bridge=none --iptables=false;
# containers then run with host networking, so traffic stays on
# 127.0.0.1), waiting up to 60 s; it returns 1 with the reason in
# $engine_reason when none can start.
engine_reason=""
ensure_engine() {
  if docker info >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" -ne 0 ]; then
    engine_reason="docker info fails and starting dockerd needs root"
    return 1
  fi
  if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null; then
    echo "engine: installing Debian's docker.io and debootstrap" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      docker.io debootstrap >/dev/null 2>&1 || true
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
