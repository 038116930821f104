#!/usr/bin/env python3
"""Writes stratified_reference.json: mixture (stratified) fleet quantiles the
C++ estimator in loadtest/stats/stratified.h is checked against, computed
independently with numpy and scipy, and the closed-form sample sizes the
power planner (loadtest/stats/power.h) is checked against.

Run once and commit the output (the tests never run Python):

    tools/.venv/bin/python loadtest/stats/testdata/make_stratified_reference.py

Everything is seeded; versions used are recorded in the output.
"""

import json
import math
import pathlib
import sys

import numpy as np
import scipy
from scipy import integrate, optimize, stats

OUT = pathlib.Path(__file__).with_name("stratified_reference.json")
rng = np.random.default_rng(20261125)
PS = [0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99]


def empirical_mixture_quantile(samples, weights, p):
    """inf{x : sum_c w_c ECDF_c(x) >= p}, by evaluating the mixture CDF at
    every observed value (no walking, no merged order)."""
    w = np.asarray(weights, float) / sum(weights)
    sorted_samples = [np.sort(np.asarray(s, float)) for s in samples]
    candidates = np.unique(np.concatenate(sorted_samples))
    cdf = np.zeros_like(candidates)
    for wc, s in zip(w, sorted_samples):
        cdf += wc * np.searchsorted(s, candidates, side="right") / len(s)
    return float(candidates[np.argmax(cdf >= p - 1e-9)])


def bandwidth(p, h=0.01):
    return min(h, p / 2, (1 - p) / 2)


def smoothed_mixture_quantile(samples, weights, p):
    """(1/2h) * integral of the mixture's quantile function over [p-h, p+h]:
    every observation owns the probability interval its mass w_c/n_c spans
    in the sorted merged sample."""
    h = bandwidth(p)
    w = np.asarray(weights, float) / sum(weights)
    values = np.concatenate([np.asarray(s, float) for s in samples])
    mass = np.concatenate([np.full(len(s), wc / len(s)) for wc, s in zip(w, samples)])
    order = np.argsort(values, kind="stable")
    values, mass = values[order], mass[order]
    top = np.cumsum(mass)
    bottom = top - mass
    overlap = np.clip(np.minimum(top, p + h) - np.maximum(bottom, p - h), 0, None)
    return float(np.sum(overlap * values) / (2 * h))


def clustered(n_units, per_unit, median, sigma_unit, sigma_obs):
    values, units = [], []
    for u in range(n_units):
        k = int(rng.integers(1, per_unit + 1))
        f = math.exp(sigma_unit * rng.standard_normal())
        for _ in range(k):
            values.append(int(round(median * f * math.exp(sigma_obs * rng.standard_normal()))))
            units.append(u)
    return values, units


def empirical_cases():
    cases = []
    for n_classes in [1, 2, 3, 5]:
        strata = []
        for c in range(n_classes):
            median = float(rng.choice([8000, 15000, 40000, 90000]))
            v, u = clustered(int(rng.integers(3, 60)), 6, median, 0.3, 0.15)
            strata.append({"values": v, "units": u})
        weights = [float(x) for x in rng.uniform(0.05, 1.0, n_classes)]
        rows = [{"p": p,
                 "quantile": empirical_mixture_quantile([s["values"] for s in strata], weights, p),
                 "smoothed": smoothed_mixture_quantile([s["values"] for s in strata], weights, p)}
                for p in PS]
        cases.append({"strata": strata, "weights": weights, "quantiles": rows})
    return cases


def population_case():
    """Large lognormal classes: the estimate must approach the quantile of the
    true mixture sum_c w_c LogNormal(mu_c, sigma_c), found with brentq."""
    classes = [(0.30, 60000.0, 0.35), (0.30, 25000.0, 0.30), (0.15, 9000.0, 0.25),
               (0.15, 11000.0, 0.25), (0.06, 30000.0, 0.4), (0.04, 120000.0, 0.3)]
    strata, weights = [], []
    for share, median, sigma in classes:
        # One observation per unit: independent draws.
        v = rng.lognormal(math.log(median), sigma, 4000)
        strata.append({"values": [float(x) for x in v], "median": median, "sigma": sigma})
        weights.append(share)

    def cdf(x):
        return sum(w * stats.lognorm.cdf(x, s, scale=m) for w, (_, m, s) in zip(weights, classes))

    rows = []
    for p in [0.5, 0.9, 0.99]:
        q = optimize.brentq(lambda x: cdf(x) - p, 1.0, 1e7, xtol=1e-6)
        f = sum(w * stats.lognorm.pdf(q, s, scale=m) for w, (_, m, s) in zip(weights, classes))
        # Asymptotic SE of the stratified quantile: Var F_hat(q) / f(q)^2.
        var_f = sum(w * w * stats.lognorm.cdf(q, s, scale=m) * (1 - stats.lognorm.cdf(q, s, scale=m)) / 4000
                    for w, (_, m, s) in zip(weights, classes))
        h = bandwidth(p)
        inverse = lambda u: optimize.brentq(lambda x: cdf(x) - u, 1.0, 1e7, xtol=1e-6)
        smoothed, _ = integrate.quad(inverse, p - h, p + h, epsabs=1e-6, limit=200)
        rows.append({"p": p, "true_quantile": q, "asymptotic_se": math.sqrt(var_f) / f,
                     "true_smoothed": smoothed / (2 * h),
                     "empirical_quantile": empirical_mixture_quantile(
                         [s["values"] for s in strata], weights, p),
                     "empirical_smoothed": smoothed_mixture_quantile(
                         [s["values"] for s in strata], weights, p)})
    return {"strata": strata, "weights": weights, "quantiles": rows}


def sample_sizes():
    """Closed form: units per arm to detect a relative change delta of a
    quantile (log scale), two independent arms, per-unit variance s2 of the
    log-quantile estimator: n = (z_{1-a/2} + z_{1-b})^2 * 2 * s2 / log(1+delta)^2;
    and sessions to show a rate r0 is below a ceiling c with a one-sided
    test at level a/2: n = (z_{1-a/2} sqrt(c(1-c)) + z_{1-b} sqrt(r0(1-r0)))^2 / (c-r0)^2."""
    quantile_rows, rate_rows = [], []
    for alpha, power, s2, delta in [(0.05, 0.8, 0.09, 0.05), (0.05, 0.9, 0.25, 0.03),
                                    (0.01, 0.8, 1.0, 0.10), (0.000568, 0.8, 0.04, 0.05)]:
        z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)
        n = z * z * 2 * s2 / math.log1p(delta) ** 2
        quantile_rows.append({"alpha": alpha, "power": power, "unit_variance": s2,
                              "effect": delta, "units_per_arm": math.ceil(n)})
    for alpha, power, r0, c in [(0.05, 0.8, 0.001, 0.0047), (0.05, 0.8, 0.003, 0.0047),
                                (0.05, 0.9, 0.02, 0.08), (0.01, 0.8, 0.0, 0.0047)]:
        za, zb = stats.norm.ppf(1 - alpha / 2), stats.norm.ppf(power)
        n = (za * math.sqrt(c * (1 - c)) + zb * math.sqrt(r0 * (1 - r0))) ** 2 / (c - r0) ** 2
        rate_rows.append({"alpha": alpha, "power": power, "rate": r0, "ceiling": c,
                          "sessions": math.ceil(n)})
    return {"quantile": quantile_rows, "rate": rate_rows}


def main():
    ref = {
        "generator": {"script": "loadtest/stats/testdata/make_stratified_reference.py",
                      "python": sys.version.split()[0],
                      "numpy": np.__version__, "scipy": scipy.__version__},
        "empirical": empirical_cases(),
        "population": population_case(),
        "sample_sizes": sample_sizes(),
    }
    OUT.write_text(json.dumps(ref, separators=(",", ":")) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
