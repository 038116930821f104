#!/usr/bin/env python3
"""Times every zoo model with edgefleet-run and prints a Markdown table.

Usage: zoo_latency.py [--run build/default/runtime/tools/edgefleet-run]
                      [--cache .cache/models] [--threads 1] [--iterations 5]
                      [--warmup 1] [--kernels portable|default|both]

Runs `edgefleet-run run <cache>/<name>/model.pte --input input_<i>.npy
--threads N --json` (plus --portable-only for the portable column) for each
model present in the cache, and prints per-model p50 / min latency, the
first run, planned memory and the .pte size. Standard library only.
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


def run(binary, model_dir, portable, threads, iterations, warmup):
    cmd = [binary, "run", os.path.join(model_dir, "model.pte"), "--threads", str(threads),
           "--iterations", str(iterations), "--warmup", str(warmup), "--json"]
    i = 0
    while os.path.exists(os.path.join(model_dir, f"input_{i}.npy")):
        cmd += ["--input", os.path.join(model_dir, f"input_{i}.npy")]
        i += 1
    if portable:
        cmd.append("--portable-only")
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr else "failed"}
    return json.loads(done.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", default=os.path.join(REPO, "build/default/runtime/tools/edgefleet-run"))
    ap.add_argument("--cache", default=os.path.join(REPO, ".cache/models"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--kernels", choices=["portable", "default", "both"], default="portable")
    args = ap.parse_args()

    with open(os.path.join(args.cache, "manifest.json")) as f:
        names = [m["name"] for m in json.load(f)["models"]]
    modes = {"portable": [True], "default": [False], "both": [True, False]}[args.kernels]
    header = "| model | .pte MB |"
    rule = "|---|---:|"
    for portable in modes:
        label = "portable" if portable else "default kernels"
        header += f" {label} p50 ms | {label} min ms |"
        rule += "---:|---:|"
    print(header + " planned MB |")
    print(rule + "---:|")
    for name in names:
        d = os.path.join(args.cache, name)
        row = f"| {name} | {os.path.getsize(os.path.join(d, 'model.pte')) / 1e6:.1f} |"
        planned = ""
        for portable in modes:
            r = run(args.run, d, portable, args.threads, args.iterations, args.warmup)
            if "error" in r:
                row += f" error: {r['error']} | |"
                continue
            row += f" {r['latency_ms']['p50']:.1f} | {r['latency_ms']['min']:.1f} |"
            planned = f"{r['memory']['planned'] / 1e6:.1f}"
        print(row + f" {planned} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
