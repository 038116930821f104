#!/usr/bin/env python3
"""Does fitting the population prior on more published devices predict unseen
devices better? Held-out figures of two priors, on the same predictions.

Usage (from the repository root, after `make build`; no `make models` needed):

    tools/fidelity/cross_validate.py [--build-dir build/default] [--folds 4]
        [--jobs 2] [--json FILE]

Two data sets of published single-thread ncnn benchncnn latencies:
docs/fidelity/ncnn_benchncnn.csv (the CSV: 18 devices with single-thread
figures) and docs/fidelity/ncnn_benchncnn_external.csv (the external runs:
38 more). Two priors are compared, each refitted by `edgefleet-server
fit-prior` (an empty --model_repository: the host costs are the committed
profile's) without the devices it predicts:

  csv-only:  fitted on the CSV's devices;
  all:       fitted on the CSV's and the external devices.

Two protocols, every prediction made by `edgefleet-server predict` calibrated
on the device's mobilenet_v2, resnet18 and efficientnet_b0 figures at one
thread (the generic 8-core class of make_report.py) for its other models:

  external K-fold: the external runs, grouped by section title (two runs of
    one machine stay together), are dealt into --folds folds in file order
    (group i to fold i mod K); each fold is predicted from the csv-only prior
    and from the all prior without that fold;
  CSV leave-one-device-out: each CSV device with the three calibration
    figures is predicted from each prior without that device (the protocol
    of docs/fidelity.md).

Prints, per protocol and prior, the share of predictions within +-10 % /
+-25 %, the median and worst |error| and the devices at Spearman rho >= 0.9.
Only the standard library.
"""

import argparse
import concurrent.futures
import csv
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_report import CALIBRATION_MODELS, GENERIC_CLASS, share, spearman  # noqa: E402

FIDELITY = os.path.join(REPO, "docs", "fidelity")
PROFILE = os.path.join(REPO, "deploy", "device_model", "host_profile.textproto")


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def single_thread(rows):
    out = {}
    for r in rows:
        if r["threads"] == "1":
            out.setdefault(r["device"], {})[r["model"]] = float(r["avg_ms"])
    return {d: f for d, f in out.items() if all(m in f for m in CALIBRATION_MODELS)}


def section(device):
    return re.sub(r" \(line \d+\)$", "", device)


class Runner:
    def __init__(self, server, work):
        self.server, self.work = server, work
        self.empty = os.path.join(work, "empty")
        self.classes = os.path.join(work, "classes")
        os.makedirs(self.empty)
        os.makedirs(self.classes)
        with open(os.path.join(self.classes, "published_device.textproto"), "w") as f:
            f.write(GENERIC_CLASS)

    def run(self, cmd):
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        if p.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)}\n failed: {p.stderr.strip()}")
        return p.stdout

    def fit(self, name, rows):
        """A host profile with the prior fitted on `rows` (one CSV)."""
        published = os.path.join(self.work, name + ".csv")
        with open(published, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
        out = os.path.join(self.work, name + ".textproto")
        self.run([self.server, "fit-prior", f"--model_repository={self.empty}",
                  f"--host_profile={PROFILE}", f"--published={published}", f"--out={out}"])
        return out

    def predict(self, profile, figures):
        """(errors of the non-calibration models, Spearman rho) of one device."""
        targets = [m for m in figures if m not in CALIBRATION_MODELS]
        out = json.loads(self.run(
            [self.server, "predict", f"--model_repository={self.empty}",
             f"--device_classes={self.classes}", "--device_class=published_device",
             f"--host_profile={profile}", "--json"] +
            [f"--calibrate={m}@1={figures[m]}" for m in CALIBRATION_MODELS] +
            [f"--model={m}" for m in targets]))
        pred = {p["model"]: p["device_ms"] for p in out["predictions"]}
        return ([pred[m] / figures[m] - 1 for m in targets],
                spearman([pred[m] for m in targets], [figures[m] for m in targets]))


def line(label, results):
    errors = [e for errs, _ in results.values() for e in errs]
    rhos = [rho for _, rho in results.values()]
    a = sorted(abs(e) for e in errors)
    return (f"{label}: {len(a)} predictions, {100 * share(errors, .10):.1f} % within ±10 %,"
            f" {100 * share(errors, .25):.1f} % within ±25 %, median |error|"
            f" {100 * statistics.median(a):.1f} %, worst {100 * a[-1]:.0f} %;"
            f" ρ ≥ 0.9 on {sum(r >= 0.9 for r in rhos)} of {len(rhos)} devices")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build", "default"))
    ap.add_argument("--folds", type=int, default=4)
    ap.add_argument("--jobs", type=int, default=2, help="fits and predictions at once")
    ap.add_argument("--json", help="also write every device's errors here")
    args = ap.parse_args()
    runner = Runner(os.path.join(args.build_dir, "service", "edgefleet-server"),
                    tempfile.mkdtemp(prefix="cross_validate_"))
    try:
        csv_rows = read_rows(os.path.join(FIDELITY, "ncnn_benchncnn.csv"))
        ext_rows = read_rows(os.path.join(FIDELITY, "ncnn_benchncnn_external.csv"))
        sections = list(dict.fromkeys(section(r["device"]) for r in ext_rows))
        fold_of = {r["device"]: sections.index(section(r["device"])) % args.folds
                   for r in ext_rows}
        csv_figures, ext_figures = single_thread(csv_rows), single_thread(ext_rows)

        def external_fold(k):
            held = [d for d in ext_figures if fold_of[d] == k]
            profiles = {"csv-only": runner.fit(f"fold{k}_csv", csv_rows),
                        "all": runner.fit(f"fold{k}_all", csv_rows + [
                            r for r in ext_rows if fold_of[r["device"]] != k])}
            return {prior: {d: runner.predict(p, ext_figures[d]) for d in held}
                    for prior, p in profiles.items()}

        def csv_device(i, d):
            rest = [r for r in csv_rows if r["device"] != d]
            profiles = {"csv-only": runner.fit(f"dev{i}_csv", rest),
                        "all": runner.fit(f"dev{i}_all", rest + ext_rows)}
            return {prior: {d: runner.predict(p, csv_figures[d])} for prior, p in profiles.items()}

        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            folds = list(pool.map(external_fold, range(args.folds)))
            devices = list(pool.map(lambda x: csv_device(*x), enumerate(csv_figures)))
        results = {}
        for protocol, parts in (("external K-fold", folds), ("CSV leave-one-device-out", devices)):
            for prior in ("csv-only", "all"):
                merged = {d: r for part in parts for d, r in part[prior].items()}
                results[f"{protocol}, prior {prior}"] = merged
                print(line(f"{protocol} ({args.folds} folds)" if protocol.startswith("external")
                           else protocol, merged).replace(":", f", prior {prior}:", 1))
        if args.json:
            with open(args.json, "w") as f:
                json.dump(results, f, indent=1)
    finally:
        shutil.rmtree(runner.work, ignore_errors=True)


if __name__ == "__main__":
    main()
