#!/usr/bin/env python3
"""Side-by-side load time and latency: EdgeFleet's runtime vs the real ExecuTorch runtime.

Usage: compare_runtimes.py --edgefleet-run PATH [--iterations N] [--warmup W] [FIXTURE ...]

For each fixture in test/fixtures (all by default) it runs, in this one process
tree and on the same files and inputs:
  - `edgefleet-run run --json` (our runtime, optimized kernels where available),
  - `edgefleet-run run --json --portable-only` (our reference kernels),
  - tools/bench/et_runtime_bench.py (the real runtime, executorch.runtime from PyPI),
and prints a table with the ratio real/ours (above 1: we are faster).
Single-threaded throughout. Figures are wall-clock on this host; rerun to see the spread.
"""

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "test", "fixtures")


def fixture_inputs(name, manifest):
    spec = next(f for f in manifest["fixtures"] if f["name"] == name)
    paths = [os.path.join(FIXTURES, name, f"input_{i}.npy") for i in range(spec["inputs"])]
    channels_last = [str(i) for i, s in enumerate(spec.get("input_specs", []))
                     if s.get("dim_order") and s["dim_order"] != sorted(s["dim_order"])]
    return paths, channels_last


def run_json(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return {"error": (out.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(out.stdout)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--edgefleet-run", required=True)
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("fixtures", nargs="*")
    args = parser.parse_args()
    with open(os.path.join(FIXTURES, "manifest.json")) as f:
        manifest = json.load(f)
    names = args.fixtures or [f["name"] for f in manifest["fixtures"]]
    timing = ["--iterations", str(args.iterations), "--warmup", str(args.warmup)]

    header = (f"{'fixture':<18} {'load ms (ours/ET)':>18} {'p50 ms ours':>12} "
              f"{'p50 portable':>13} {'p50 ms ET':>10} {'ET/ours':>8}")
    print(header)
    print("-" * len(header))
    for name in names:
        model = os.path.join(FIXTURES, name, "model.pte")
        inputs, channels_last = fixture_inputs(name, manifest)
        input_flags = [x for p in inputs for x in ("--input", p)]
        ours = run_json([args.edgefleet_run, "run", model, "--json", "--threads", "1",
                         *timing, *input_flags])
        portable = run_json([args.edgefleet_run, "run", model, "--json", "--threads", "1",
                             "--portable-only", *timing, *input_flags])
        cl_flags = [x for i in channels_last for x in ("--channels-last", i)]
        real = run_json([sys.executable, os.path.join(ROOT, "tools", "bench", "et_runtime_bench.py"),
                         *timing, *cl_flags, model, *inputs])
        if "error" in ours or "error" in real or "error" in portable:
            print(f"{name:<18} error: ours={ours.get('error')} "
                  f"portable={portable.get('error')} ET={real.get('error')}")
            continue
        load_ours = ours["load_ms"] + ours["method_load_ms"]
        load_et = real["load_ms"] + real["method_load_ms"]
        p50_ours = ours["latency_ms"]["p50"]
        p50_et = real["latency_ms"]["p50"]
        ratio = p50_et / p50_ours if p50_ours > 0 else float("inf")
        print(f"{name:<18} {load_ours:>8.3f} / {load_et:<8.3f} {p50_ours:>12.4f} "
              f"{portable['latency_ms']['p50']:>13.4f} {p50_et:>10.4f} {ratio:>8.2f}")


if __name__ == "__main__":
    main()
