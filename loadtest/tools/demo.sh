#!/usr/bin/env bash
# `make demo`: start edgefleet-server on loopback with the default
# device classes and the embedded default model on both stacks, run the
# default fleet spec with edgefleet-loadtest, write the reports under
# build/demo/, print the Markdown summary and the HTML path, stop the server
# with SIGTERM. Exits 0 when the experiment ran (whatever the verdict, which
# is printed), 1 when something failed.
# Usage: loadtest/tools/demo.sh BUILD_DIR
set -euo pipefail
build_dir=${1:-build/default}
out=build/demo
server_bin=$build_dir/service/edgefleet-server
loadtest_bin=$build_dir/loadtest/tools/edgefleet-loadtest
spec=deploy/fleet_specs/default.textproto
rm -rf "$out" && mkdir -p "$out"

server_flags=(--model_repository=test/fixtures --device_classes=deploy/device_classes
  --arms=deploy/fleet_specs/demo_arms.textproto --calibration_samples=5)
# Calibrate once, explicitly, so the host costs behind every emulated figure
# are printed and saved (build/demo/calibration.textproto).
echo "== calibrating this host (edgefleet-server calibrate)"
"$server_bin" calibrate "${server_flags[@]}" --out="$out/calibration.textproto" | sed 's/^/   /'
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
  kill -0 "$server_pid" 2>/dev/null || { echo "== server exited:"; cat "$out/server.log"; exit 1; }
  sleep 0.2
done
[[ -s $out/server.port ]] || { echo "== server did not listen in 120 s"; exit 1; }
read -r grpc_port _ <"$out/server.port"
echo "== edgefleet-server on 127.0.0.1:$grpc_port (pid $server_pid, log $out/server.log)"
echo "== fleet spec $spec (paired A/B). Honest note: only the first"
echo "== sampled.real_devices devices run real inference on this host; the rest"
echo "== run in SAMPLED mode (device times from each arm's measured and"
echo "== calibrated costs, no execution). All times are emulated device times."
start=$(date +%s)
set +e
# One calibration per experiment: the file just measured is handed to every
# server of the run (here one), and its fingerprint is printed in the report.
"$loadtest_bin" run --spec="$spec" --server="127.0.0.1:$grpc_port" --out-dir="$out" \
  --calibration="$out/calibration.textproto"
code=$?
set -e
echo "== driver finished in $(( $(date +%s) - start )) s"
stop_server
trap - EXIT
case $code in
  0) verdict="pass" ;;
  2) verdict="regression" ;;
  3) verdict="inconclusive" ;;
  4) verdict="invalid (sample-ratio mismatch)" ;;
  *) echo "== edgefleet-loadtest failed (exit $code)"; exit 1 ;;
esac
echo "== verdict: $verdict (edgefleet-loadtest exit code $code; the demo exits 0)"
echo "== reports: $out/report.md $out/report.json $out/report.html"
echo "== to reuse this host calibration: edgefleet-server --calibration=$out/calibration.textproto"
echo "== and/or edgefleet-loadtest run --calibration=$out/calibration.textproto (every server gets it)"
