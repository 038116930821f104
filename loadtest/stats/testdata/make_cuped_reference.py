#!/usr/bin/env python3
"""Writes cuped_reference.json: covariate-adjusted (CUPED) comparisons of two
arms' means within strata, the C++ estimator in loadtest/stats/cuped.h is
checked against, computed independently with numpy and scipy.

theta per stratum is the least-squares slope of y on x over both arms
(numpy.polyfit, not a covariance formula), the interval
scipy.stats.norm.ppf. The variance of an arm's mean is cluster-robust over
the units' clusters (a device's sessions): the arm mean is a ratio of
cluster totals to cluster sizes, and its delta-method variance
G/n^2 (var T - 2 m cov(T, N) + m^2 var N) is computed from numpy.cov
(ddof=1) of the G clusters' totals T and sizes N (m the arm mean, n the
arm's units); with one unit per cluster this is numpy.var(ddof=1) / n.

Run once and commit the output (the tests never run Python):

    tools/.venv/bin/python loadtest/stats/testdata/make_cuped_reference.py

Everything is seeded; versions used are recorded in the output.
"""

import json
import pathlib
import sys

import numpy as np
import scipy
from scipy import stats

OUT = pathlib.Path(__file__).with_name("cuped_reference.json")
rng = np.random.default_rng(20261126)


def mean_variance(values, clusters):
    """Cluster-robust variance of the mean of `values` (delta method)."""
    ids = sorted(set(clusters))
    totals = np.array([values[clusters == g].sum() for g in ids])
    sizes = np.array([float((clusters == g).sum()) for g in ids])
    n, m = sizes.sum(), values.mean()
    c = np.cov(np.vstack([totals, sizes]), ddof=1)
    return len(ids) / n ** 2 * (c[0, 0] - 2 * m * c[0, 1] + m ** 2 * c[1, 1])


def reference(units, weights, confidence):
    weights = np.asarray(weights, float)
    w = weights / weights.sum()
    z = stats.norm.ppf(0.5 + confidence / 2)
    est = {"unadjusted": 0.0, "adjusted": 0.0}
    var = {"unadjusted": 0.0, "adjusted": 0.0}
    thetas = []
    for s in range(len(weights)):
        rows = [u for u in units if u["stratum"] == s]
        if not rows:
            thetas.append(0.0)
            continue
        x = np.array([u["x"] for u in rows])
        y = np.array([u["y"] for u in rows])
        b = np.array([u["arm_b"] for u in rows])
        g = np.array([u["cluster"] for u in rows])
        theta = float(np.polyfit(x, y, 1)[0]) if np.ptp(x) > 0 else 0.0
        thetas.append(theta)
        if w[s] == 0:
            continue
        for name, t in (("unadjusted", 0.0), ("adjusted", theta)):
            ya = y - t * (x - x.mean())
            est[name] += w[s] * (ya[b].mean() - ya[~b].mean())
            var[name] += w[s] ** 2 * (mean_variance(ya[b], g[b]) +
                                      mean_variance(ya[~b], g[~b]))
    out = {"theta": thetas}
    for name in est:
        se = float(np.sqrt(var[name]))
        out[name] = {"estimate": float(est[name]), "std_error": se,
                     "lower": float(est[name] - z * se), "upper": float(est[name] + z * se)}
    out["variance_ratio"] = float(var["adjusted"] / var["unadjusted"])
    return out


def case(n_strata, rho, effect, zero_weight=False, constant_x=False, max_cluster=1):
    """max_cluster 1: every unit its own cluster. Above 1: units come in
    clusters (devices) of 1..max_cluster sessions sharing a random level
    and most of their covariate, numbered in order within stratum and arm."""
    units = []
    for s in range(n_strata):
        n_a, n_b = int(rng.integers(2, 80)), int(rng.integers(2, 80))
        level = float(rng.normal(9.0, 1.0))
        slope = float(rng.uniform(0.3, 1.5))
        for arm_b, n in ((False, n_a), (True, n_b)):
            if max_cluster == 1:
                cluster = np.arange(n)
            else:
                sizes = rng.integers(1, max_cluster + 1, n)
                cluster = np.repeat(np.arange(n), sizes)[:n]
                if cluster[-1] == 0:  # at least two clusters
                    cluster[-1] = 1
            x = rng.normal(0.0, 0.2, n) if not constant_x else np.full(n, 0.1)
            noise = rng.normal(0.0, 0.2 * np.sqrt(max(1 - rho ** 2, 1e-6)), n)
            if max_cluster > 1:
                shared = rng.normal(0.0, 0.2, cluster[-1] + 1)
                x = 0.3 * x + shared[cluster]
                noise = noise + rng.normal(0.0, 0.15, cluster[-1] + 1)[cluster]
            y = level + slope * rho * x + noise + (effect if arm_b else 0.0)
            for xi, yi, gi in zip(x, y, cluster):
                units.append({"stratum": s, "arm_b": bool(arm_b), "cluster": int(gi),
                              "y": float(yi), "x": float(xi)})
    weights = [float(v) for v in rng.uniform(0.05, 1.0, n_strata)]
    if zero_weight:
        weights[-1] = 0.0
    confidence = float(rng.choice([0.9, 0.95, 0.99]))
    return {"weights": weights, "confidence": confidence, "units": units,
            "expected": reference(units, weights, confidence)}


def main():
    cases = [case(1, 0.9, 0.05), case(2, 0.5, 0.0), case(3, 0.95, -0.1),
             case(5, 0.0, 0.02), case(4, 0.8, 0.03, zero_weight=True),
             case(2, 0.9, 0.0, constant_x=True),
             case(1, 0.9, 0.05, max_cluster=3), case(3, 0.7, 0.0, max_cluster=4),
             case(2, 0.9, 0.0, constant_x=True, max_cluster=2)]
    json.dump({"generator": "make_cuped_reference.py",
               "versions": {"python": sys.version.split()[0], "numpy": np.__version__,
                            "scipy": scipy.__version__},
               "cases": cases}, OUT.open("w"), indent=1)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
