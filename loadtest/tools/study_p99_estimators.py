#!/usr/bin/env python3
"""Compares fleet-wide p99 estimators on A/A results files (docs/statistics.md
section 13): for each `edgefleet-loadtest run` results file of an A/A
experiment (same arm on both sides, hashed), the relative change B/A - 1 of
the fleet-wide steady-latency p99 under

  uniform ±h    the report's estimator: the mean of the mixture's quantile
                function over [p - h, p + h] (stats/stratified.h); the
                report's h at p99 is 0.005 (min(0.01, (1 - p)/2)), here also
                0.0025 and 0.01;
  plain         the plain mixture quantile inf{x : F(x) >= p} (h = 0);
  harrell-davis the Harrell-Davis estimator on the mixture: the integral of
                the mixture's quantile function against the
                Beta((n + 1) p, (n + 1)(1 - p)) density, n the arm's
                latencies.

The mixture is the per-class empirical distributions at the spec's
population shares (experiment.class_shares). Prints, per estimator, the
standard deviation of the A/A change and the share of runs within +-2 %.
As a check, `--report` compares the ±0.005 estimate of arm A with the
report's overall p99 (report.json beside each results file).

    python3 loadtest/tools/study_p99_estimators.py DIR/*/results.json
"""

import json
import math
import pathlib
import statistics
import sys

import numpy as np
from scipy import stats


def mixture(sessions, arm, shares):
    """Sorted (value, mass) of arm's steady latencies; mass w_c / n_c."""
    by_class = {}
    for s in sessions:
        if s["arm"] == arm and s.get("latencies_us"):
            by_class.setdefault(s["class"], []).extend(s["latencies_us"])
    points = []
    for c, values in by_class.items():
        w = shares[c] / len(values)
        points.extend((v, w) for v in values)
    total = sum(shares[c] for c in by_class)
    points.sort()
    return [(v, m / total) for v, m in points], sum(len(v) for v in by_class.values())


def kernel(points, p, h):
    if h == 0:
        cum = 0.0
        for v, m in points:
            cum += m
            if cum >= p - 1e-9:
                return v
        return points[-1][0]
    lo, hi, cum, acc = p - h, p + h, 0.0, 0.0
    for v, m in points:
        overlap = min(cum + m, hi) - max(cum, lo)
        if overlap > 0:
            acc += overlap * v
        cum += m
    return acc / (2 * h)


def harrell_davis(points, p, n):
    masses = np.array([m for _, m in points])
    values = np.array([v for v, _ in points])
    edges = np.minimum(np.concatenate(([0.0], np.cumsum(masses))), 1.0)
    cdf = stats.beta.cdf(edges, (n + 1) * p, (n + 1) * (1 - p))
    return float(np.dot(values, np.diff(cdf)))


def main(paths):
    check = "--report" in paths
    paths = [p for p in paths if p != "--report"]
    names = ["uniform ±0.005 (report)", "uniform ±0.0025", "uniform ±0.01", "plain",
             "harrell-davis"]
    changes = {n: [] for n in names}
    for path in paths:
        data = json.loads(pathlib.Path(path).read_text())
        shares = data["experiment"]["class_shares"]
        est = {}
        for arm in ("A", "B"):
            pts, n = mixture(data["sessions"], arm, shares)
            est[arm] = {
                "uniform ±0.005 (report)": kernel(pts, 0.99, 0.005),
                "uniform ±0.0025": kernel(pts, 0.99, 0.0025),
                "uniform ±0.01": kernel(pts, 0.99, 0.01),
                "plain": kernel(pts, 0.99, 0),
                "harrell-davis": harrell_davis(pts, 0.99, n),
            }
        for n in names:
            changes[n].append(est["B"][n] / est["A"][n] - 1)
        if check:
            report = json.loads((pathlib.Path(path).parent / "report.json").read_text())
            steady = [m for m in report["scopes"][0]["metrics"]
                      if m["metric"] == "steady_latency"][0]
            q = [q for q in steady["quantiles"] if q["p"] == 0.99][0]
            print(f"{path}: report p99 A {q['A']['estimate']:.1f}, "
                  f"here {est['A']['uniform ±0.005 (report)']:.1f}")
    print(f"{len(paths)} A/A runs; fleet-wide steady-latency p99 change B/A - 1")
    print("| estimator | SD of the A/A change | within ±2 % | worst |")
    print("|---|---|---|---|")
    for n in names:
        c = changes[n]
        within = sum(abs(x) <= 0.02 for x in c)
        print(f"| {n} | {100 * statistics.pstdev(c):.2f} % | {within}/{len(c)} | "
              f"{100 * max(abs(x) for x in c):.1f} % |")


if __name__ == "__main__":
    main(sys.argv[1:])
