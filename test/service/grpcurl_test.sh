#!/usr/bin/env bash
# The emulator through grpcurl and server reflection (no .proto files given
# to grpcurl, except the standard health schema): list services, gRPC health checking, ListDeviceClasses,
# RunSession, a path-like model name, and health NOT_SERVING during the
# shutdown grace period after SIGTERM. Usage (from the repository root):
#   grpcurl_test.sh <edgefleet-server> <grpcurl> <calibration file>
set -euo pipefail
server="$1"; grpcurl="$2"; calibration="$3"
dir="$(mktemp -d /tmp/edgefleet-grpcurl-XXXXXX)"
"$server" --port=0 --metrics_port=0 --port_file="$dir/ports" \
  --model_repository=test/fixtures \
  --device_classes=deploy/device_classes,test/service/testdata/device_classes \
  --arms=test/service/testdata/arms.textproto --calibration="$calibration" \
  --shutdown_grace_s 3 2>"$dir/server.log" &
pid=$!
trap 'kill -9 $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 1800); do [ -s "$dir/ports" ] && break; sleep 0.1; done
[ -s "$dir/ports" ] || { cat "$dir/server.log"; echo "FAIL: server did not start"; exit 1; }
addr="127.0.0.1:$(cut -d' ' -f1 "$dir/ports")"
fail() { echo "FAIL: $*"; cat "$dir/server.log"; exit 1; }

services="$("$grpcurl" -plaintext "$addr" list)"
echo "$services"
for s in inference.GRPCInferenceService edgefleet.v1.Emulator grpc.health.v1.Health; do
  grep -qx "$s" <<<"$services" || fail "reflection does not list $s"
done

# gRPC C++'s health service is not in reflection; grpcurl gets its schema.
health="$("$grpcurl" -plaintext -import-path test/service/testdata -proto health.proto \
  "$addr" grpc.health.v1.Health/Check)"
echo "$health"
grep -q '"status": "SERVING"' <<<"$health" || fail "health is not SERVING"

classes="$("$grpcurl" -plaintext "$addr" edgefleet.v1.Emulator/ListDeviceClasses)"
for c in low_android mid_android high_android iphone vr_headset ai_glasses microcontroller; do
  grep -q "\"name\": \"$c\"" <<<"$classes" || fail "ListDeviceClasses lacks $c"
done

session="$("$grpcurl" -plaintext -d '{"spec": {"arm": "mobilenet.edgefleet",
  "device_class": "high_android", "seed": 3, "inferences": 3}}' \
  "$addr" edgefleet.v1.Emulator/RunSession)"
echo "$session"
grep -q '"outcome": "SESSION_OUTCOME_OK"' <<<"$session" || fail "RunSession did not succeed"

set +e
bad="$("$grpcurl" -plaintext -d '{"name": "../../etc/passwd"}' "$addr" \
  inference.GRPCInferenceService/ModelMetadata 2>&1)"
set -e
echo "$bad"
grep -q "InvalidArgument" <<<"$bad" || fail "path-like name is not INVALID_ARGUMENT"
grep -q "path separator" <<<"$bad" || fail "the message does not name the problem"

# SIGTERM: health says NOT_SERVING while the listener still answers (the
# 3 s grace), then the server exits 0.
kill -TERM $pid
sleep 0.5
draining="$("$grpcurl" -plaintext -max-time 2 -import-path test/service/testdata -proto health.proto \
  "$addr" grpc.health.v1.Health/Check 2>&1 || true)"
echo "after SIGTERM: $draining"
grep -q '"status": "NOT_SERVING"' <<<"$draining" || fail "health is not NOT_SERVING after SIGTERM"
kill -0 $pid 2>/dev/null || fail "the server stopped before its grace period ended"
wait $pid || fail "server exited with $?"
trap - EXIT
echo "grpcurl: 6 passed, 0 failed"
