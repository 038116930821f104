#!/usr/bin/env bash
# `make deploy-test`: runs the image the way an orchestrator would and
# checks it. Skips (exit 0, "SKIP ...") when no container engine can start.
# On 127.0.0.1 only (host networking): starts edgefleet-server from the
# image read-only as its non-root user, waits for its built-in health probe,
# runs a small fleet with the image's edgefleet-loadtest against it, checks
# the metrics count the sessions and the server answered Profile, serves
# the metrics through the image's stunnel as the Kubernetes mTLS sidecar
# does, stops it with SIGTERM (exit 0 expected).
# Then compose.yaml on free ports: three replicas and Prometheus (Debian's,
# built on the same base), the compose driver's fleet across the three,
# Prometheus's answers checked against the fleet, and Grafana's where the
# engine has its image (else SKIP with the reason). The compose part skips
# with a message when no compose is installed.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/docker/engine.sh
if ! ensure_engine; then
  echo "SKIP make deploy-test: $engine_reason"
  exit 0
fi
docker image inspect edgefleet:latest >/dev/null 2>&1 || deploy/docker/build_image.sh
fail() { echo "FAIL deploy-test: $*"; docker logs "$name" 2>&1 | tail -n 20 || true; exit 1; }
name=edgefleet-deploy-test-$$
work=$(mktemp -d)
project=edgefleet-deploy-test-$$
# Compose: Debian's docker-compose (1.29), else the `docker compose` plugin.
compose_cmd=()
if command -v docker-compose >/dev/null; then compose_cmd=(docker-compose)
elif docker compose version >/dev/null 2>&1; then compose_cmd=(docker compose); fi
compose() { "${compose_cmd[@]}" -p "$project" -f deploy/docker/compose.yaml "$@"; }
cleanup() {
  docker rm -f -v "$name" "$name-tls" >/dev/null 2>&1 || true
  if [ -f "$work/compose-up" ]; then compose --profile driver down -v -t 40 >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port)
metrics=$(free_port)
passed=0

[ "$(docker image inspect edgefleet:latest --format '{{.Config.User}}')" = "10001:10001" ] || fail "image user is not 10001"
docker run -d --name "$name" --network=host --read-only --tmpfs /tmp edgefleet:latest \
  --address=127.0.0.1 --port="$port" --metrics_port="$metrics" \
  --model_repository=/opt/edgefleet/models --device_classes=/opt/edgefleet/device_classes \
  --arms=/opt/edgefleet/fleet_specs/demo_arms.textproto \
  --calibration=/var/lib/edgefleet/calibration.textproto --calibration_samples=3 >/dev/null
for i in $(seq 1 150); do
  docker exec "$name" /opt/edgefleet/bin/edgefleet-health --address=127.0.0.1:"$port" \
    --timeout_s=2 2>/dev/null && break
  [ "$(docker inspect -f '{{.State.Running}}' "$name")" = true ] || fail "server exited"
  [ "$i" -lt 150 ] || fail "not SERVING after 300 s"
  sleep 2
done
echo "ok   server SERVING (edgefleet-health) as uid $(docker exec "$name" id -u), read-only root"
docker exec "$name" sh -c 'touch /opt/edgefleet/x' 2>/dev/null && fail "root filesystem is writable"
# The image's own HEALTHCHECK command, on this test's port (the image's
# probes 8001, the default), must make Docker report the container healthy.
healthcheck=$(docker image inspect edgefleet:latest \
  --format '{{range $i, $a := .Config.Healthcheck.Test}}{{if $i}}{{$a}} {{end}}{{end}}')
case "$healthcheck" in */edgefleet-health\ --address=127.0.0.1:8001*) ;;
  *) fail "image HEALTHCHECK is '$healthcheck', want edgefleet-health on 127.0.0.1:8001" ;; esac
hc_name=$name-healthcheck
docker run -d --name "$hc_name" --network=host --read-only --tmpfs /tmp \
  --health-cmd "${healthcheck/127.0.0.1:8001/127.0.0.1:$port}" --health-interval 2s \
  --entrypoint sleep edgefleet:latest 120 >/dev/null
for i in $(seq 1 30); do
  health=$(docker inspect -f '{{.State.Health.Status}}' "$hc_name")
  [ "$health" = healthy ] && break
  sleep 2
done
docker rm -f -v "$hc_name" >/dev/null
[ "$health" = healthy ] || fail "Docker HEALTHCHECK status '$health' after 60 s, want healthy"
echo "ok   the image's HEALTHCHECK command makes Docker report healthy"
passed=$((passed + 1))
# What an exec probe costs (Docker's HEALTHCHECK and the Kubernetes TLS
# probes run edgefleet-health; docs/deploy.md): CPU seconds of one probe
# by the libtorch-free client and by the server's own subcommand.
for probe in /opt/edgefleet/bin/edgefleet-health "/opt/edgefleet/bin/edgefleet-server health"; do
  cost=$(docker exec "$name" bash -c "TIMEFORMAT='%U %S %R'; { time $probe --address=127.0.0.1:$port --timeout_s=5 >/dev/null; } 2>&1") ||
    fail "$probe failed on a SERVING server"
  echo "     one probe, $probe: $(echo "$cost" | awk '{printf "%.2f s CPU, %.2f s wall", $1 + $2, $3}')"
done
passed=$((passed + 1))

cat >"$work/fleet.textproto" <<'SPEC'
name: "deploy-test"
arm_a: "mobilenet_v2_035.pytorch-mobile"
arm_b: "mobilenet_v2_035.edgefleet"
population { device_class: "mid_android" share: 1 }
devices: 12
sessions_per_device: 1
inferences_per_session: 5
inter_arrival_ms: 20
arrival { kind: CLOSED_LOOP concurrency: 2 }
seed: 13
sampled { enabled: true real_devices: 2 }
SPEC
# The drivers run as the image's user 10001 and write their reports here.
chmod 755 "$work"
install -d -o 10001 -g 10001 "$work/out" "$work/compose-out"
set +e
docker run --rm --network=host --read-only --user 10001:10001 -v "$work:/work" \
  --entrypoint /opt/edgefleet/bin/edgefleet-loadtest edgefleet:latest \
  run --spec=/work/fleet.textproto --server=127.0.0.1:"$port" --out-dir=/work/out --progress=off \
  >"$work/loadtest.log" 2>&1
code=$?
set -e
case $code in 0|2|3|4) ;; *) cat "$work/loadtest.log"; fail "edgefleet-loadtest exit $code" ;; esac
echo "ok   fleet driver from the image: exit $code (a verdict), report $(ls "$work/out" | tr '\n' ' ')"
passed=$((passed + 1))
sessions=$(curl -fsS "http://127.0.0.1:$metrics/metrics" | awk '/^edgefleet_sessions_total\{/ {s += $2} END {print s}')
[ "$sessions" = 24 ] || fail "metrics count $sessions sessions, want 24 (12 devices x 2 arms)"
echo "ok   /metrics counts the 24 sessions"
passed=$((passed + 1))
# The image carries the device-time model's host profile: the server
# answered the driver's Profile calls (report.json's "explanation").
explained=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1])).get("explanation") or []))' "$work/out/report.json")
[ "$explained" -gt 0 ] || fail "report.json has no explanation: the image's server did not answer Profile"
echo "ok   Profile answered from the image's host profile ($explained classes explained)"
passed=$((passed + 1))
# The metrics-tls sidecar of deploy/k8s/components/mtls: the image's stunnel
# with that stunnel.conf (ports moved to free ones) in front of this
# server's metrics; a client certificate from the CA gets the metrics over
# HTTPS, none gets nothing.
certs="$work/certs"
test/service/make_test_certs.sh "$certs" >/dev/null
install -d -m 755 "$work/tls"
install -m 644 "$certs/server.pem" "$work/tls/tls.crt"
install -m 644 "$certs/server.key.pem" "$work/tls/tls.key"
install -m 644 "$certs/ca.pem" "$work/tls/ca.crt"
tls_port=$(free_port)
sed -e "s/^accept = .*/accept = 127.0.0.1:$tls_port/" -e "s/^connect = .*/connect = 127.0.0.1:$metrics/" \
  deploy/k8s/components/mtls/stunnel.conf >"$work/stunnel.conf"
docker run -d --name "$name-tls" --network=host --read-only --user 10001:10001 \
  -v "$work/tls:/etc/edgefleet/tls:ro" -v "$work/stunnel.conf:/etc/edgefleet/metrics-tls/stunnel.conf:ro" \
  --entrypoint /usr/bin/stunnel edgefleet:latest /etc/edgefleet/metrics-tls/stunnel.conf >/dev/null
https=(curl -fsS --max-time 5 --cacert "$certs/ca.pem" --resolve "edgefleet-server:$tls_port:127.0.0.1")
for t in $(seq 1 30); do
  tls_sessions=$("${https[@]}" --cert "$certs/client.pem" --key "$certs/client.key.pem" \
    "https://edgefleet-server:$tls_port/metrics" 2>/dev/null |
    awk '/^edgefleet_sessions_total\{/ {s += $2} END {print s}') && [ -n "$tls_sessions" ] && break
  sleep 1
done
[ "$tls_sessions" = 24 ] || { docker logs "$name-tls" 2>&1 | tail -n 5; fail "metrics over the stunnel sidecar: '$tls_sessions' sessions, want 24"; }
"${https[@]}" "https://edgefleet-server:$tls_port/metrics" >/dev/null 2>&1 &&
  fail "the stunnel sidecar served metrics to a client without a certificate"
docker rm -f "$name-tls" >/dev/null
echo "ok   the image's stunnel sidecar (components/mtls) serves the metrics over TLS to a client certificate only"
passed=$((passed + 1))
docker stop -t 40 "$name" >/dev/null
exit_code=$(docker inspect -f '{{.State.ExitCode}}' "$name")
[ "$exit_code" = 0 ] || fail "SIGTERM: exit $exit_code, want 0 (drain)"
echo "ok   SIGTERM drained and exited 0"
passed=$((passed + 1))

# --- compose.yaml: three replicas + Prometheus, the driver across them ---
if [ ${#compose_cmd[@]} -eq 0 ]; then
  echo "SKIP compose: neither docker-compose nor the docker compose plugin is installed (apt-get install docker-compose)"
  echo "$passed passed, 0 failed"
  exit 0
fi
export EDGEFLEET_PROMETHEUS_PORT EDGEFLEET_PROMETHEUS_CONFIG="$work/prometheus.yml"
EDGEFLEET_PROMETHEUS_PORT=$(free_port)
targets=()
for i in 1 2 3; do
  export "EDGEFLEET_PORT_$i=$(free_port)" "EDGEFLEET_METRICS_PORT_$i=$(free_port)"
  m="EDGEFLEET_METRICS_PORT_$i"
  targets+=("127.0.0.1:${!m}")
done
sed -e 's/scrape_interval: 5s/scrape_interval: 1s/' -e 's/evaluation_interval: 5s/evaluation_interval: 1s/' \
    -e "s/targets: \[.*\]/targets: [$(IFS=,; echo "${targets[*]}")]/" \
    deploy/docker/prometheus.yml >"$work/prometheus.yml"
grep -q "${targets[2]}" "$work/prometheus.yml" || fail "could not point prometheus.yml at the free ports"
docker image inspect edgefleet-prometheus:latest >/dev/null 2>&1 || compose build prometheus >/dev/null
# Grafana's official image comes from a registry; where the engine does not
# have it (no registry reachable, and Debian has no Grafana package) the
# other services come up and Grafana is skipped, saying so.
services=(server1 server2 server3 prometheus)
grafana_image=$(compose config | python3 -c 'import sys, yaml; print(yaml.safe_load(sys.stdin)["services"]["grafana"]["image"])')
if docker image inspect "$grafana_image" >/dev/null 2>&1; then
  export EDGEFLEET_GRAFANA_PORT
  EDGEFLEET_GRAFANA_PORT=$(free_port)
  services+=(grafana)
else
  echo "SKIP compose grafana: the engine has no $grafana_image (it comes from an image registry, none reachable here; Grafana is not packaged in Debian); the other services run"
fi
touch "$work/compose-up"
compose up -d "${services[@]}" >/dev/null 2>&1 || fail "docker-compose up failed"
servers=""
for i in 1 2 3; do
  p="EDGEFLEET_PORT_$i"
  servers+="${servers:+,}127.0.0.1:${!p}"
  for t in $(seq 1 150); do
    compose exec -T "server$i" /opt/edgefleet/bin/edgefleet-health \
      --address=127.0.0.1:"${!p}" --timeout_s=2 >/dev/null 2>&1 && break
    [ "$t" -lt 150 ] || fail "compose replica $i not SERVING after 300 s"
    sleep 2
  done
done
echo "ok   compose: three replicas SERVING ($servers), Prometheus on 127.0.0.1:$EDGEFLEET_PROMETHEUS_PORT"
passed=$((passed + 1))
set +e
compose run --rm -v "$work:/work" driver run --spec=/work/fleet.textproto --server="$servers" \
  --out-dir=/work/compose-out --progress=off >"$work/compose-driver.log" 2>&1
code=$?
set -e
case $code in 0|2|3|4) ;; *) cat "$work/compose-driver.log"; fail "compose driver exit $code" ;; esac
echo "ok   compose driver across the three replicas: exit $code"
passed=$((passed + 1))
# Prometheus (scraping every second) must count the fleet's 24 sessions
# across the three replicas, and every replica must have taken some.
query() {
  curl -fsS "http://127.0.0.1:$EDGEFLEET_PROMETHEUS_PORT/api/v1/query" --data-urlencode "query=$1" |
    python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(" ".join(sorted(x["value"][1] for x in r)))'
}
for t in $(seq 1 30); do
  total=$(query 'sum(edgefleet_sessions_total)' 2>/dev/null || true)
  [ "$total" = 24 ] && break
  sleep 1
done
[ "$total" = 24 ] || fail "Prometheus counts '$total' sessions, want 24"
per_replica=$(query 'sum by (instance) (edgefleet_sessions_total) > 0' | wc -w)
[ "$per_replica" = 3 ] || fail "sessions on $per_replica replicas, want 3"
up=$(query 'sum(up{job="edgefleet-server"})')
[ "$up" = 3 ] || fail "up = '$up', want 3 replicas scraped"
for t in $(seq 1 30); do
  rule=$(query 'count(arm_device_class:edgefleet_sessions:rate5m)' 2>/dev/null || true)
  [ -n "$rule" ] && break
  sleep 1
done
[ -n "$rule" ] || fail "the recording rule arm_device_class:edgefleet_sessions:rate5m has no data"
echo "ok   Prometheus: 24 sessions over 3 scraped replicas, recording rules evaluated ($rule series)"
passed=$((passed + 1))
if [ -n "${EDGEFLEET_GRAFANA_PORT:-}" ]; then
  # Grafana with the provisioning: its datasource reaches compose's
  # Prometheus, the dashboard is loaded, and a panel query through Grafana
  # returns the fleet's 24 sessions (admin:admin, the image's default).
  grafana="http://admin:admin@127.0.0.1:$EDGEFLEET_GRAFANA_PORT"
  for t in $(seq 1 60); do
    curl -fsS "$grafana/api/health" >/dev/null 2>&1 && break
    [ "$t" -lt 60 ] || fail "Grafana not healthy after 120 s"
    sleep 2
  done
  curl -fsS "$grafana/api/datasources/uid/prometheus/health" | grep -q '"status":"OK"' ||
    fail "Grafana's provisioned datasource does not reach Prometheus"
  curl -fsS "$grafana/api/dashboards/uid/edgefleet-fleet" >/dev/null || fail "the dashboard is not provisioned"
  total=$(curl -fsS -H 'Content-Type: application/json' "$grafana/api/ds/query" -d \
    '{"from":"now-5m","to":"now","queries":[{"refId":"A","datasource":{"uid":"prometheus"},"expr":"sum(edgefleet_sessions_total)","instant":true}]}' |
    python3 -c 'import json,sys; f=json.load(sys.stdin)["results"]["A"]["frames"][0]; print(int(f["data"]["values"][-1][-1]))')
  [ "$total" = 24 ] || fail "Grafana's query of sum(edgefleet_sessions_total) says '$total', want 24"
  echo "ok   Grafana: datasource healthy, dashboard provisioned, its query counts the 24 sessions"
  passed=$((passed + 1))
fi
compose --profile driver down -v -t 40 >/dev/null 2>&1
rm -f "$work/compose-up"
echo "$passed passed, 0 failed"
