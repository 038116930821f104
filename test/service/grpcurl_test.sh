#!/usr/bin/env bash
# The emulator through grpcurl and server reflection (no .proto files given
# to grpcurl, the health service included): list services, gRPC health
# checking, ListDeviceClasses,
# RunSession, Profile (both stacks of small_cnn, checked against their own
# rates and against `edgefleet-server predict`), a path-like model name, and
# health NOT_SERVING during the shutdown grace period after SIGTERM. Usage (from the repository root):
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
trap 'kill -9 $pid 2>/dev/null || true; rm -rf "$dir"' EXIT
for _ in $(seq 1 1800); do [ -s "$dir/ports" ] && break; sleep 0.1; done
[ -s "$dir/ports" ] || { cat "$dir/server.log"; echo "FAIL: server did not start"; exit 1; }
addr="127.0.0.1:$(cut -d' ' -f1 "$dir/ports")"
fail() { echo "FAIL: $*"; cat "$dir/server.log"; exit 1; }

services="$("$grpcurl" -plaintext "$addr" list)"
echo "$services"
for s in inference.GRPCInferenceService edgefleet.v1.Emulator grpc.health.v1.Health; do
  grep -qx "$s" <<<"$services" || fail "reflection does not list $s"
done

# The health service through reflection alone, as any grpcurl user calls it
# (gRPC C++'s own has no descriptor; the server links the schema).
health="$("$grpcurl" -plaintext "$addr" grpc.health.v1.Health/Check 2>&1 || true)"
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

# Profile: the device-time breakdown of an arm on a class (docs/service.md).
for arm in small_cnn.edgefleet small_cnn.pytorch-mobile; do
  "$grpcurl" -plaintext -max-time 300 -d "{\"arm\": \"$arm\", \"device_class\": \"mid_android\"}" \
    "$addr" edgefleet.v1.Emulator/Profile >"$dir/profile_$arm.json" || fail "Profile of $arm"
done
# The same model on the same class through `predict` (the device model's own
# path: the stored host profile's class sums, ModelOnDevice::PredictMs).
cp deploy/device_model/host_profile.textproto "$dir/host_profile.textproto"
"$server" predict --model_repository=test/fixtures --device_classes=deploy/device_classes \
  --device_class=mid_android --model=small_cnn --host_profile="$dir/host_profile.textproto" \
  --json >"$dir/predict.json" 2>"$dir/predict.log" \
  || { cat "$dir/predict.log"; fail "predict"; }
python3 - "$dir" <<'PY' || fail "Profile answers are not consistent"
import json, math, sys
d = sys.argv[1]
def close(a, b, tol=1e-6):
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))
ok = True
def check(cond, what):
    global ok
    if not cond:
        print("  wrong:", what)
        ok = False
for arm, conv in (("small_cnn.edgefleet", "convolution"),
                  ("small_cnn.pytorch-mobile", "prepacked::conv2d_clamp_run")):
    p = json.load(open(f"{d}/profile_{arm}.json"))
    ops, classes = p["operators"], p["classes"]
    print(f"{arm}: {len(ops)} operators, host {p.get('host_us', 0):.1f} us, device {p['device_us']:.1f} us")
    for o in ops:
        print(f"  {o['name']:36s} {o.get('op_class','?'):26s} host {o.get('host_us',0):8.2f} us"
              f" device {o.get('device_us',0):8.2f} us share {o.get('share',0):.3f}")
    check(p["arm"] == arm and p["device_class"] == "mid_android", "names echoed")
    check(len(ops) >= 3, "operators listed")
    check(close(sum(o.get("device_us", 0) for o in ops), p["device_us"]), "operators sum to the total")
    check(close(sum(c.get("device_us", 0) for c in classes), p["device_us"]), "classes sum to the total")
    check(close(sum(o.get("share", 0) for o in ops), 1.0), "shares sum to 1")
    rate = {c["op_class"]: c.get("rate", 0) for c in classes}
    for o in ops:
        expect = rate[o["op_class"]] * o.get("host_us", 0) + rate["OP_CLASS_OVERHEAD"] * 1.0
        check(close(o.get("device_us", 0), expect), f"{o['name']}: rate x host + overhead")
    check(all(c.get("rate", 0) > 0 for c in classes), "every class has a positive rate")
    check(any(conv in o["name"] for o in ops), f"an operator named like {conv}")
    check(any(o["name"].startswith("prepacked::") for o in ops) ==
          (arm == "small_cnn.pytorch-mobile"), "the old stack lists its own operators")
    if arm == "small_cnn.edgefleet":
        pred = json.load(open(f"{d}/predict.json"))
        predicted_us = pred["predictions"][0]["device_ms"] * 1e3
        print(f"  predict: {predicted_us:.1f} us; Profile: {p['device_us']:.1f} us")
        # Two measurements of a 20 us program on a busy host: host noise only.
        check(0.5 < p["device_us"] / predicted_us < 2.0, "Profile's total near predict's")
sys.exit(0 if ok else 1)
PY
set +e
unknown="$("$grpcurl" -plaintext -d '{"arm": "nope", "device_class": "mid_android"}' "$addr" \
  edgefleet.v1.Emulator/Profile 2>&1)"
set -e
grep -q "NotFound" <<<"$unknown" || fail "Profile of an unknown arm is not NOT_FOUND: $unknown"

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
draining="$("$grpcurl" -plaintext -max-time 2 "$addr" grpc.health.v1.Health/Check 2>&1 || true)"
echo "after SIGTERM: $draining"
grep -q '"status": "NOT_SERVING"' <<<"$draining" || fail "health is not NOT_SERVING after SIGTERM"
kill -0 $pid 2>/dev/null || fail "the server stopped before its grace period ended"
wait $pid || fail "server exited with $?"
trap - EXIT
rm -rf "$dir"
echo "grpcurl: 7 passed, 0 failed"
