#!/usr/bin/env bash
# Calibration campaign of the A/B statistics through a real server on
# loopback (docs/calibration-campaign.md). Writes an arm set
# with the base arm and its time-scaled copies (Arm.time_scale = 1 + X,
# fleet-wide and on one class), calibrates the host, starts edgefleet-server,
# runs `edgefleet-loadtest campaign`, stops the server.
# Usage: loadtest/tools/campaign.sh BUILD_DIR OUT_DIR [campaign flags...]
#   e.g. ... build/default build/campaign --aa-runs 200 --effect-runs 50
# Flags default to --spec deploy/fleet_specs/campaign.textproto
# --effects 0.03,0.05,0.10 --effect-class mid_android; later flags win.
# Two flags are this script's own (docs/variance-reduction.md):
# --device-speed-sigma=S serves copies of the device classes whose devices
# differ in speed (DeviceVariation speed_sigma S);
# --pre-period=N runs a copy of the spec with pre_period_sessions N.
set -euo pipefail
build_dir=$1
out=$2
shift 2
server_bin=$build_dir/service/edgefleet-server
loadtest_bin=$build_dir/loadtest/tools/edgefleet-loadtest
effects=0.03,0.05,0.10
effect_class=mid_android
spec=deploy/fleet_specs/campaign.textproto
device_classes=deploy/device_classes
speed_sigma=
pre_period=
campaign_flags=()
for arg in "$@"; do
  case $arg in
    --effects=*) effects=${arg#--effects=} ;;
    --effect-class=*) effect_class=${arg#--effect-class=} ;;
    --spec=*) spec=${arg#--spec=}; continue ;;
    --device-speed-sigma=*) speed_sigma=${arg#--device-speed-sigma=}; continue ;;
    --pre-period=*) pre_period=${arg#--pre-period=}; continue ;;
  esac
  campaign_flags+=("$arg")
done
mkdir -p "$out"
if [[ -n $speed_sigma ]]; then
  device_classes=$out/device_classes
  rm -rf "$device_classes"
  mkdir -p "$device_classes"
  for f in deploy/device_classes/*.textproto; do
    { cat "$f"; echo "device_variation { speed_sigma: $speed_sigma }"; } >"$device_classes/${f##*/}"
  done
fi
if [[ -n $pre_period ]]; then
  { cat "$spec"; echo "pre_period_sessions: $pre_period"; } >"$out/spec.textproto"
  spec=$out/spec.textproto
fi
base=mobilenet_v2_035.edgefleet
arms=$out/campaign_arms.textproto
{
  echo "# Written by loadtest/tools/campaign.sh: the base arm and its time-scaled copies."
  echo "arms { name: \"$base\" stack: STACK_EDGEFLEET model: \"mobilenet_v2_035\" threads: 4 }"
  for x in ${effects//,/ }; do
    scale=$(awk -v x="$x" 'BEGIN { s = sprintf("%.3f", 1 + x); sub(/0+$/, "", s); sub(/\.$/, "", s); print s }')
    echo "arms { name: \"$base.x$scale\" stack: STACK_EDGEFLEET model: \"mobilenet_v2_035\" threads: 4 time_scale: $scale }"
    echo "arms { name: \"$base.x$scale.$effect_class\" stack: STACK_EDGEFLEET model: \"mobilenet_v2_035\" threads: 4 time_scale: $scale time_scale_device_class: \"$effect_class\" }"
  done
} >"$arms"

# The device-time model's host profile, wherever the classes come from.
server_flags=(--model_repository=test/fixtures --device_classes="$device_classes"
  --host_profile=deploy/device_model/host_profile.textproto
  --arms="$arms" --calibration_samples=5)
"$server_bin" calibrate "${server_flags[@]}" --out="$out/calibration.textproto" >/dev/null
rm -f "$out/server.port"
"$server_bin" "${server_flags[@]}" --calibration="$out/calibration.textproto" \
  --address=127.0.0.1 --port=0 --metrics_port=0 --port_file="$out/server.port" \
  2>"$out/server.log" &
server_pid=$!
stop_server() {
  if kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" && wait "$server_pid" || true
  fi
}
trap stop_server EXIT
for _ in $(seq 1 600); do
  [[ -s $out/server.port ]] && break
  kill -0 "$server_pid" 2>/dev/null || { echo "server exited:"; cat "$out/server.log"; exit 1; }
  sleep 0.2
done
[[ -s $out/server.port ]] || { echo "server did not listen in 120 s"; exit 1; }
read -r grpc_port _ <"$out/server.port"
"$loadtest_bin" campaign --spec="$spec" \
  --server="127.0.0.1:$grpc_port" --out-dir="$out" --effects="$effects" \
  --effect-class="$effect_class" ${campaign_flags[@]+"${campaign_flags[@]}"}
