#!/usr/bin/env python3
"""The short calibration campaign of `make test` (ctest loadtest_campaign_short):
runs loadtest/tools/campaign.sh with a few A/A runs and one large injected
slowdown through a real server on loopback, then checks the per-run records:
every A/A run's stratified fleet-wide steady-latency p50/p90 change is within
±5 % and makes no claim on steady latency, at least 5 of the 8 95 % intervals
contain 0 (each misses 5 % of the time: 4 or more misses has probability
0.04 %),
and every +25 % run (fleet-wide and on mid_android) is a steady-latency
regression in its target scope.

Usage: check_campaign.py SOURCE_DIR BUILD_DIR OUT_DIR
"""

import json
import pathlib
import subprocess
import sys


def main():
    source, build, out = (pathlib.Path(a).resolve() for a in sys.argv[1:4])
    subprocess.run([str(source / "loadtest/tools/campaign.sh"), str(build), str(out),
                    "--aa-runs=4", "--effect-runs=2", "--effects=0.25",
                    "--effect-class=mid_android", "--devices=400", "--replicates=300"],
                   cwd=source, check=True, timeout=900)
    runs = [json.loads(line) for line in (out / "campaign_runs.jsonl").read_text().splitlines()]
    aa = [r for r in runs if r["effect"] == 0]
    effect = [r for r in runs if r["effect"] != 0]
    failures = []
    if len(aa) != 4 or len(effect) != 4:
        failures.append(f"expected 4 A/A and 4 effect runs, got {len(aa)} and {len(effect)}")
    covering = 0
    for r in aa:
        if r["estimator"] != "stratified":
            failures.append(f"A/A seed {r['seed']}: overall estimator {r['estimator']}")
        for p in ("p50", "p90"):
            row = r["overall_steady"][p]
            if abs(row["rel"]) > 0.05:
                failures.append(f"A/A seed {r['seed']} {p}: {row}")
            covering += row["lower"] <= 0 <= row["upper"]
        if any(c.endswith("steady_latency") for c in r["claims"]):
            failures.append(f"A/A seed {r['seed']}: claims {r['claims']}")
    if covering < 5:
        failures.append(f"only {covering} of 8 A/A intervals contain 0")
    for r in effect:
        if r["target_verdict"] != "regression":
            failures.append(f"+25 % on {r['target']} seed {r['seed']}: {r['target_verdict']} "
                            f"{r['target_steady']}")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(runs)} campaign runs checked, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
