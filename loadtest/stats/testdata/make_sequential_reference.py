#!/usr/bin/env python3
"""Writes sequential_reference.json: Lan-DeMets alpha-spending boundaries the
C++ recursion in loadtest/stats/sequential.h is checked against, computed
independently with scipy's multivariate normal CDF (Genz's quasi-Monte Carlo
integration over the joint distribution of the sequential z-statistics,
corr(Z_i, Z_j) = sqrt(t_i / t_j)), not by recursive integration.

Run once and commit the output (the tests never run Python):

    tools/.venv/bin/python loadtest/stats/testdata/make_sequential_reference.py

The look-k critical value c_k solves
    P(|Z_j| < c_j, j < k) - P(|Z_j| < c_j, j <= k) = alpha(t_k) - alpha(t_{k-1})
with the O'Brien-Fleming-type spending 2 - 2 Phi(z_{1-alpha/2} / sqrt(t)) and
the Pocock-type alpha ln(1 + (e - 1) t) (Lan & DeMets 1983), alpha the
two-sided total (symmetric boundaries).
"""

import json
import math
import pathlib

import numpy as np
import scipy
from scipy import optimize, stats

OUT = pathlib.Path(__file__).with_name("sequential_reference.json")
ALPHA = 0.05


def spent(kind, alpha, t):
    if kind == "obrien-fleming":
        return 2 - 2 * stats.norm.cdf(stats.norm.ppf(1 - alpha / 2) / math.sqrt(t))
    return alpha * math.log(1 + (math.e - 1) * t)


def continuation(fractions, bounds):
    """P(|Z_j| < bounds[j] for every j)."""
    k = len(bounds)
    if k == 1:
        return 1 - 2 * stats.norm.sf(bounds[0])
    t = np.asarray(fractions[:k])
    cov = np.sqrt(np.minimum.outer(t, t) / np.maximum.outer(t, t))
    mvn = stats.multivariate_normal(mean=np.zeros(k), cov=cov, seed=20261126,
                                    maxpts=300_000 * k, abseps=1e-8,
                                    releps=1e-8)
    b = np.asarray(bounds)
    return float(mvn.cdf(b, lower_limit=-b))


def boundary(kind, alpha, fractions):
    bounds, prev_spent, prev_cont = [], 0.0, 1.0
    for k, t in enumerate(fractions):
        target = spent(kind, alpha, t) - prev_spent
        if k == 0:
            c = stats.norm.isf(target / 2)
        else:
            c = optimize.brentq(
                lambda c: prev_cont - continuation(fractions, bounds + [c]) - target,
                0.5, 12, xtol=1e-7)
        bounds.append(float(c))
        prev_cont = continuation(fractions, bounds)
        prev_spent = spent(kind, alpha, t)
    return bounds


cases = []
for kind in ("obrien-fleming", "pocock"):
    for looks in (2, 3, 4, 5):
        fractions = [(k + 1) / looks for k in range(looks)]
        print(kind, looks, flush=True)
        cases.append({"spending": kind, "alpha": ALPHA, "fractions": fractions,
                      "bounds": boundary(kind, ALPHA, fractions)})
    # Unequal looks (Lan-DeMets allows any information times).
    fractions = [0.3, 0.45, 0.8, 1.0]
    cases.append({"spending": kind, "alpha": ALPHA, "fractions": fractions,
                  "bounds": boundary(kind, ALPHA, fractions)})
# A small alpha, as the Bonferroni share of a claim gets.
cases.append({"spending": "obrien-fleming", "alpha": 0.05 / 88,
              "fractions": [1 / 3, 2 / 3, 1.0],
              "bounds": boundary("obrien-fleming", 0.05 / 88, [1 / 3, 2 / 3, 1.0])})

OUT.write_text(json.dumps({
    "generator": "make_sequential_reference.py",
    "versions": {"numpy": np.__version__, "scipy": scipy.__version__},
    "cases": cases}, indent=1) + "\n")
for c in cases:
    print(c["spending"], c["alpha"], [round(x, 3) for x in c["fractions"]],
          [round(b, 4) for b in c["bounds"]])
