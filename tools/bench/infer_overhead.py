#!/usr/bin/env python3
"""Per-call overhead of ModelInfer against a bare call, on loopback.

Starts each given edgefleet-server binary (e.g. a build before and after a
change to the request path) with the same repository and one shared
calibration, then alternates, for --calls rounds: one ServerLive call (the
bare RPC: no payload, no work) and one ModelInfer call of --model with its
fixture input, on every server. The ModelInfer overhead of a call is its
client-observed latency minus the inference time the server measured
(response parameter host_inference_us): decoding, copies, the pool lease,
the compute slot and encoding. Prints medians per server.

Needs tritonclient and numpy (tools/client/setup_client_venv.sh makes
tools/.venv-client). Usage:
  tools/.venv-client/bin/python tools/bench/infer_overhead.py \\
      --server before=/path/to/old/edgefleet-server \\
      --server after=build/default/service/edgefleet-server [--calls 300]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import tritonclient.grpc as grpcclient

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
FLAGS = ["--model_repository=test/fixtures", "--device_classes=deploy/device_classes",
         "--calibration_samples=3"]


def start(binary, calibration, work):
    port_file = os.path.join(work, os.path.basename(binary) + str(time.monotonic_ns()) + ".port")
    proc = subprocess.Popen(
        [binary, *FLAGS, f"--calibration={calibration}", "--address=127.0.0.1", "--port=0",
         "--metrics_port=0", f"--port_file={port_file}"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if os.path.exists(port_file) and os.path.getsize(port_file) > 0:
            with open(port_file) as f:
                return proc, int(f.read().split()[0])
        if proc.poll() is not None:
            raise SystemExit(f"{binary} exited with {proc.returncode}")
        time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"{binary} did not listen within 120 s")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", action="append", required=True, help="NAME=BINARY")
    parser.add_argument("--model", default="mobilenet_v2_035")
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    calls = max(1, min(args.calls, 100000))
    servers = [s.split("=", 1) for s in args.server]
    x = np.load(os.path.join(ROOT, "test/fixtures", args.model, "input_0.npy"))

    with tempfile.TemporaryDirectory() as work:
        calibration = os.path.join(work, "calibration.textproto")
        subprocess.run([servers[0][1], "calibrate", *FLAGS, f"--out={calibration}"], cwd=ROOT,
                       check=True, stdout=subprocess.DEVNULL, timeout=600)
        running = []
        try:
            for name, binary in servers:
                proc, port = start(os.path.abspath(binary), calibration, work)
                running.append((name, proc, grpcclient.InferenceServerClient(f"127.0.0.1:{port}")))
            inputs = [grpcclient.InferInput("input_0", list(x.shape), "FP32")]
            inputs[0].set_data_from_numpy(x)
            live = {name: [] for name, _, _ in running}
            infer = {name: [] for name, _, _ in running}
            host = {name: [] for name, _, _ in running}
            for _ in range(5):  # warm the model pools
                for _, _, client in running:
                    client.infer(args.model, inputs)
            for _ in range(calls):
                for name, _, client in running:
                    t0 = time.perf_counter()
                    client.is_server_live()
                    t1 = time.perf_counter()
                    result = client.infer(args.model, inputs)
                    t2 = time.perf_counter()
                    host_us = result.get_response().parameters["host_inference_us"].int64_param
                    live[name].append((t1 - t0) * 1e6)
                    infer[name].append((t2 - t1) * 1e6)
                    host[name].append(host_us)
        finally:
            for _, proc, _ in running:
                proc.terminate()
                proc.wait(timeout=30)

    print(f"model {args.model}, input {list(x.shape)} {x.dtype} ({x.nbytes} bytes), "
          f"{calls} rounds, medians in microseconds")
    print(f"{'server':<10} {'ServerLive':>11} {'ModelInfer':>11} {'host infer':>11} "
          f"{'overhead':>9} {'overhead - live':>16}")
    for name, _, _ in running:
        overhead = statistics.median(i - h for i, h in zip(infer[name], host[name]))
        med_live = statistics.median(live[name])
        print(f"{name:<10} {med_live:>11.0f} {statistics.median(infer[name]):>11.0f} "
              f"{statistics.median(host[name]):>11.0f} {overhead:>9.0f} "
              f"{overhead - med_live:>16.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
