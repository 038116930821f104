#!/usr/bin/env python3
"""Predicts published devices that nothing in the repository was fitted to,
the way other tools call `edgefleet-server predict`, and prints the errors.

Usage (from the repository root, after `make build`; no `make models` needed):

    tools/fidelity/check_external.py [--build-dir build/default]
        [--published docs/fidelity/ncnn_benchncnn_external.csv]
        [--host-profile FILE]

For every device of the CSV (docs/fidelity/ncnn_benchncnn_external.csv: the
single-thread benchncnn runs of ncnn's benchmark/README.md that are NOT in
docs/fidelity/ncnn_benchncnn.csv, the table the committed prior is fitted
on), runs

    edgefleet-server predict --model_repository=<an empty directory>
        --calibrate=mobilenet_v2@1=MS --calibrate=resnet18@1=MS
        --calibrate=efficientnet_b0@1=MS --model=<each other model> --json

with the committed host profile (predict's default, read only),
and prints per device the error of each prediction (predicted / published
- 1), the share within +-10 % / +-25 % and Spearman's rho, then the same
per predicted model, then the totals.
The empty repository is what a fresh clone has: the reference models' host
costs and offsets come from the committed profile. Only the standard library.
"""

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_report import CALIBRATION_MODELS, share, spearman  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build", "default"))
    ap.add_argument("--published", default=os.path.join(REPO, "docs", "fidelity",
                                                        "ncnn_benchncnn_external.csv"))
    ap.add_argument("--host-profile", help="instead of the committed one (read only)")
    args = ap.parse_args()
    server = os.path.join(args.build_dir, "service", "edgefleet-server")
    devices = {}
    with open(args.published) as f:
        for r in csv.DictReader(f):
            if r["threads"] == "1":
                devices.setdefault(r["device"], {})[r["model"]] = float(r["avg_ms"])
    errors, rhos = [], []
    by_model = {}
    with tempfile.TemporaryDirectory() as empty:
        for name, figures in devices.items():
            if not all(m in figures for m in CALIBRATION_MODELS):
                continue
            targets = [m for m in figures if m not in CALIBRATION_MODELS]
            cmd = [server, "predict", f"--model_repository={empty}", "--json"]
            if args.host_profile:
                cmd.append(f"--host_profile={os.path.abspath(args.host_profile)}")
            cmd += [f"--calibrate={m}@1={figures[m]}" for m in CALIBRATION_MODELS]
            cmd += [f"--model={m}" for m in targets]
            p = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=600)
            if p.returncode != 0:
                raise SystemExit(f"{name}: {p.stderr.strip()}")
            pred = {x["model"]: x["device_ms"] for x in json.loads(p.stdout)["predictions"]}
            e = [pred[m] / figures[m] - 1 for m in targets]
            rho = spearman([pred[m] for m in targets], [figures[m] for m in targets])
            errors += e
            for m, x in zip(targets, e):
                by_model.setdefault(m, []).append(x)
            rhos.append(rho)
            print(f"| {name} | {sum(abs(x) <= .10 for x in e)}/{len(e)} | "
                  f"{100 * statistics.median(abs(x) for x in e):.1f} % | "
                  f"{max(e, key=abs) * 100:+.0f} % ({targets[e.index(max(e, key=abs))]}) | "
                  f"{rho:.2f} |")
    print("\n| model | predictions | median error | median abs error | within ±10 % |"
          " within ±25 % |\n|---|---:|---:|---:|---:|---:|")
    for m, e in sorted(by_model.items()):
        print(f"| {m} | {len(e)} | {100 * statistics.median(e):+.1f} % |"
              f" {100 * statistics.median(abs(x) for x in e):.1f} % |"
              f" {100 * share(e, .10):.0f} % | {100 * share(e, .25):.0f} % |")
    a = sorted(abs(x) for x in errors)
    print(f"\n{len(devices)} devices, {len(a)} predictions: {100 * share(errors, .10):.0f} % within"
          f" ±10 %, {100 * share(errors, .25):.0f} % within ±25 %, median |error|"
          f" {100 * statistics.median(a):.1f} %, worst {100 * a[-1]:.0f} %;"
          f" ρ ≥ 0.9 on {sum(r >= 0.9 for r in rhos)} of {len(rhos)} devices")


if __name__ == "__main__":
    main()
