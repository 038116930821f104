#!/usr/bin/env bash
# `make deploy-test`: runs the image the way an orchestrator would and
# checks it. Skips (exit 0, "SKIP ...") when no container engine can start.
# On 127.0.0.1 only (host networking): starts edgefleet-server from the
# image read-only as its non-root user, waits for its built-in health probe,
# runs a small fleet with the image's edgefleet-loadtest against it, checks
# the metrics count the sessions, stops it with SIGTERM (exit 0 expected).
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
trap 'docker rm -f "$name" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
metrics=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

[ "$(docker image inspect edgefleet:latest --format '{{.Config.User}}')" = "10001:10001" ] || fail "image user is not 10001"
docker run -d --name "$name" --network=host --read-only --tmpfs /tmp edgefleet:latest \
  --address=127.0.0.1 --port="$port" --metrics_port="$metrics" \
  --model_repository=/opt/edgefleet/models --device_classes=/opt/edgefleet/device_classes \
  --arms=/opt/edgefleet/fleet_specs/demo_arms.textproto \
  --calibration=/var/lib/edgefleet/calibration.textproto --calibration_samples=3 >/dev/null
for i in $(seq 1 150); do
  docker exec "$name" /opt/edgefleet/bin/edgefleet-server health --address=127.0.0.1:"$port" \
    --timeout_s=2 2>/dev/null && break
  [ "$(docker inspect -f '{{.State.Running}}' "$name")" = true ] || fail "server exited"
  [ "$i" -lt 150 ] || fail "not SERVING after 300 s"
  sleep 2
done
echo "ok   server SERVING (health subcommand) as uid $(docker exec "$name" id -u), read-only root"
docker exec "$name" sh -c 'touch /opt/edgefleet/x' 2>/dev/null && fail "root filesystem is writable"

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
set +e
docker run --rm --network=host --read-only --user 10001:10001 -v "$work:/work" \
  --entrypoint /opt/edgefleet/bin/edgefleet-loadtest edgefleet:latest \
  run --spec=/work/fleet.textproto --server=127.0.0.1:"$port" --out-dir=/work/out --progress=off \
  >"$work/loadtest.log" 2>&1
code=$?
set -e
case $code in 0|2|3|4) ;; *) cat "$work/loadtest.log"; fail "edgefleet-loadtest exit $code" ;; esac
echo "ok   fleet driver from the image: exit $code (a verdict), report $(ls "$work/out" | tr '\n' ' ')"
sessions=$(curl -fsS "http://127.0.0.1:$metrics/metrics" | awk '/^edgefleet_sessions_total\{/ {s += $2} END {print s}')
[ "$sessions" = 24 ] || fail "metrics count $sessions sessions, want 24 (12 devices x 2 arms)"
echo "ok   /metrics counts the 24 sessions"
docker stop -t 40 "$name" >/dev/null
exit_code=$(docker inspect -f '{{.State.ExitCode}}' "$name")
[ "$exit_code" = 0 ] || fail "SIGTERM: exit $exit_code, want 0 (drain)"
echo "ok   SIGTERM drained and exited 0"
echo "4 passed, 0 failed"
