#!/usr/bin/env python3
"""Writes reference.json: values the C++ statistics in loadtest/stats are
checked against, computed independently with numpy and scipy.

Run once and commit the output (the tests never run Python):

    tools/.venv/bin/python loadtest/stats/testdata/make_reference.py

Everything is seeded; rerunning with the same numpy/scipy versions rewrites
the same file. Versions used are recorded in the output.
"""

import json
import math
import pathlib
import sys

import numpy as np
import scipy
from scipy import special, stats

OUT = pathlib.Path(__file__).with_name("reference.json")
rng = np.random.default_rng(20240605)


def lognormal_ints(n, median_us, sigma):
    return [int(round(x)) for x in rng.lognormal(math.log(median_us), sigma, n)]


def distributions():
    out = {"normal_quantile": [], "binomial_cdf": [], "binomial_quantile": [],
           "regularized_beta": [], "gamma_upper": [], "chi_square_sf": []}
    for p in [1e-12, 1e-6, 0.001, 0.005, 0.025, 0.05, 0.1, 0.3, 0.5, 0.7,
              0.9, 0.95, 0.975, 0.995, 0.999, 1 - 1e-9]:
        out["normal_quantile"].append({"p": p, "x": float(special.ndtri(p))})
    for n, p in [(10, 0.5), (64, 0.1), (100, 0.9), (1000, 0.99),
                 (5000, 0.5), (100000, 0.9), (3, 0.2)]:
        for k in sorted({0, 1, n // 10, n // 2, int(n * p), n - 2, n - 1}):
            if 0 <= k <= n:
                out["binomial_cdf"].append(
                    {"k": k, "n": n, "p": p, "cdf": float(stats.binom.cdf(k, n, p))})
        for q in [0.005, 0.025, 0.5, 0.975, 0.995]:
            out["binomial_quantile"].append(
                {"q": q, "n": n, "p": p, "k": int(stats.binom.ppf(q, n, p))})
    for x, a, b in [(0.9, 44, 2), (0.9, 63, 2), (0.99, 661, 2), (0.5, 3, 4),
                    (0.2, 50, 70), (0.999, 5000, 10), (0.01, 0.5, 0.5)]:
        out["regularized_beta"].append(
            {"x": x, "a": a, "b": b, "value": float(special.betainc(a, b, x))})
    for a, x in [(0.5, 0.1), (1, 3), (2.5, 2), (10, 30), (50, 40), (0.5, 12)]:
        out["gamma_upper"].append(
            {"a": a, "x": x, "value": float(special.gammaincc(a, x))})
    for x, df in [(0.5, 1), (3.84, 1), (10.83, 1), (25, 1), (6, 2), (15, 6),
                  (100, 80)]:
        out["chi_square_sf"].append(
            {"x": x, "df": df, "sf": float(stats.chi2.sf(x, df))})
    return out


def quantile_intervals():
    samples = []
    for n in [7, 10, 37, 100, 250, 1000, 4321]:
        values = sorted(lognormal_ints(n, 20000, 0.4))
        cases = []
        for p in [0.5, 0.9, 0.99]:
            for confidence in [0.95, 0.99]:
                alpha = 1 - confidence
                lower_rank = int(stats.binom.ppf(alpha / 2, n, p))
                upper_rank = int(stats.binom.ppf(1 - alpha / 2, n, p)) + 1
                coverage = float(stats.binom.cdf(upper_rank - 1, n, p)
                                 - stats.binom.cdf(lower_rank - 1, n, p))
                cases.append({
                    "p": p, "confidence": confidence,
                    "estimate": float(np.percentile(values, 100 * p,
                                                    method="inverted_cdf")),
                    "lower_rank": lower_rank,
                    "upper_rank": min(upper_rank, n + 1),
                    "lower": values[lower_rank - 1] if lower_rank >= 1 else None,
                    "upper": values[upper_rank - 1] if upper_rank <= n else None,
                    "coverage": coverage})
        samples.append({"values": values, "cases": cases})
    return samples


def rates():
    wilson, newcombe = [], []
    cases = [(0, 10), (0, 1000), (1, 1000), (5, 1000), (47, 10000), (3, 40),
             (20, 25), (40, 40), (80, 1000), (120, 1500)]
    for events, trials in cases:
        for confidence in [0.95, 0.99]:
            ci = stats.binomtest(events, trials).proportion_ci(
                confidence_level=confidence, method="wilson")
            wilson.append({"events": events, "trials": trials,
                           "confidence": confidence,
                           "lower": float(ci.low), "upper": float(ci.high)})
    # Newcombe (1998) method 10, from the Wilson limits above.
    for (ea, na), (eb, nb) in [((0, 1000), (5, 1000)), ((47, 10000), (60, 10000)),
                               ((3, 40), (1, 40)), ((80, 1000), (120, 1500))]:
        a = stats.binomtest(ea, na).proportion_ci(0.95, method="wilson")
        b = stats.binomtest(eb, nb).proportion_ci(0.95, method="wilson")
        pa, pb = ea / na, eb / nb
        d = pb - pa
        newcombe.append({
            "a": [ea, na], "b": [eb, nb], "diff": d,
            "lower": d - math.hypot(pb - b.low, a.high - pa),
            "upper": d + math.hypot(b.high - pb, pa - a.low)})
    return wilson, newcombe


def rank_tests():
    wilcoxon, mwu = [], []
    datasets = [
        rng.normal(0.3, 1, 12).round(2),
        rng.normal(0, 1, 40).round(3),
        rng.normal(0.2, 1, 200).round(1),                 # ties
        np.concatenate([np.zeros(5), rng.normal(0.5, 1, 60).round(1)]),  # zeros
        rng.standard_t(3, 1500),
        np.array([1.0, -2, 3, 4, -5, 6, 7]),
    ]
    for d in datasets:
        for method in ["exact", "asymptotic"]:
            nonzero = d[d != 0]
            ties = len(np.unique(np.abs(nonzero))) != len(nonzero)
            if method == "exact" and (len(nonzero) != len(d) or ties or len(d) > 50):
                continue
            res = stats.wilcoxon(d, zero_method="wilcox", correction=True,
                                 method=method)
            wilcoxon.append({
                "d": [float(x) for x in d],
                "method": "exact" if method == "exact" else "normal",
                "statistic": float(res.statistic),
                "p_value": float(res.pvalue),
                "abs_z": abs(float(res.zstatistic)) if method == "asymptotic" else None})
    pairs = [
        (rng.normal(0, 1, 6).round(3), rng.normal(1, 1, 7).round(3)),
        (np.array([1.0, 5, 3, 9]), np.array([2.0, 8, 10, 11, 12])),
        (rng.normal(0, 1, 30).round(1), rng.normal(0.5, 1, 45).round(1)),
        (lognormal_ints(500, 20000, 0.3), lognormal_ints(700, 21000, 0.3)),
        (rng.integers(0, 5, 300), rng.integers(0, 6, 250)),
    ]
    for x, y in pairs:
        x, y = np.asarray(x, float), np.asarray(y, float)
        ties = len(np.unique(np.concatenate([x, y]))) != len(x) + len(y)
        for method in ["exact", "asymptotic"]:
            if method == "exact" and (ties or min(len(x), len(y)) > 8):
                continue
            res = stats.mannwhitneyu(x, y, use_continuity=True,
                                     alternative="two-sided", method=method)
            mwu.append({"x": [float(v) for v in x], "y": [float(v) for v in y],
                        "method": "exact" if method == "exact" else "normal",
                        "statistic": float(res.statistic),
                        "p_value": float(res.pvalue)})
    return wilcoxon, mwu


def srm():
    out = []
    for observed, shares in [([5000, 5000], [1, 1]), ([5100, 4900], [1, 1]),
                             ([5300, 4700], [1, 1]), ([821, 1179], [0.4, 0.6]),
                             ([100, 120, 80], [1, 1, 1]), ([10, 30], [1, 1])]:
        total = sum(observed)
        expected = [total * s / sum(shares) for s in shares]
        res = stats.chisquare(observed, expected)
        out.append({"observed": observed, "shares": shares,
                    "chi_square": float(res.statistic),
                    "p_value": float(res.pvalue)})
    return out


def min_passing(t, p, d, c):
    """Smallest h >= 1 with BetaRegularized(p - d; h, t + 1) < 1 - c, by
    scanning every h (no bisection, unlike the C++)."""
    limit = 1 - c
    start = 1
    while True:
        h = np.arange(start, start + 200000)
        odds = special.betainc(h, t + 1, p - d)
        hit = np.nonzero(odds < limit)[0]
        if hit.size:
            return int(h[hit[0]])
        start += 200000


def early_stopping():
    passing, minimum, estimates = [], [], []
    for p in [0.5, 0.9, 0.95, 0.97, 0.99, 0.999]:
        for c in [0.99, 0.95]:
            minimum.append({"p": p, "c": c,
                            "queries": min_passing(1, p, 0.0, c) + 1})
            for t in [0, 1, 2, 5, 10, 50]:
                passing.append({"p": p, "c": c, "t": t,
                                "h": min_passing(t, p, 0.0, c)})
    # LoadGen's SingleStream loop, literally: i = 2, 3, ... until
    # n < h(i) + i, then t = i - 1; estimate sorted[n - t].
    for n, p in [(64, 0.9), (63, 0.9), (500, 0.9), (3000, 0.9), (662, 0.99),
                 (5000, 0.99)]:
        values = sorted(lognormal_ints(n, 15000, 0.5))
        h_min = min_passing(1, p, 0.0, 0.99)
        entry = {"values": values, "p": p, "c": 0.99, "enough": n >= h_min + 1}
        if entry["enough"]:
            t = 1
            for i in range(2, n + 1):
                if n < min_passing(i, p, 0.0, 0.99) + i:
                    t = i - 1
                    break
            entry.update({"discarded": t - 1, "estimate": values[n - t]})
        estimates.append(entry)
    return passing, minimum, estimates


def nearest_rank(sorted_values, p, weights=None):
    return sorted_values[max(1, math.ceil(p * len(sorted_values))) - 1]


def cluster_bootstrap():
    """Paired and unpaired cluster bootstrap of quantile differences by
    resampling whole units with replacement (multinomial), for comparison
    with the C++ Poisson bootstrap within Monte Carlo tolerance."""
    cases = []
    for paired in [True, False]:
        units = 300
        a_vals, a_units, b_vals, b_units = [], [], [], []
        device = rng.lognormal(0, 0.3, units)
        for u in range(units):
            for _ in range(5):
                a_vals.append(float(round(10000 * device[u] * rng.lognormal(0, 0.2))))
                a_units.append(u)
                b_u = u if paired else units + u
                scale = device[u] if paired else rng.lognormal(0, 0.3)
                b_vals.append(float(round(10800 * scale * rng.lognormal(0, 0.2))))
                b_units.append(b_u - (0 if paired else units))
        a_vals, b_vals = np.array(a_vals), np.array(b_vals)
        a_units, b_units = np.array(a_units), np.array(b_units)
        qs = [0.5, 0.9]
        reps = 20000
        diffs = {q: [] for q in qs}
        rels = {q: [] for q in qs}
        a_by_unit = [a_vals[a_units == u] for u in range(units)]
        b_by_unit = [b_vals[b_units == u] for u in range(units)]
        for _ in range(reps):
            pick_a = rng.integers(0, units, units)
            pick_b = pick_a if paired else rng.integers(0, units, units)
            ra = np.sort(np.concatenate([a_by_unit[u] for u in pick_a]))
            rb = np.sort(np.concatenate([b_by_unit[u] for u in pick_b]))
            for q in qs:
                qa, qb = nearest_rank(ra, q), nearest_rank(rb, q)
                diffs[q].append(qb - qa)
                rels[q].append(qb / qa - 1)
        rows = []
        for q in qs:
            d, r = np.sort(diffs[q]), np.sort(rels[q])
            rows.append({"p": q,
                         "diff_lower": float(nearest_rank(d, 0.025)),
                         "diff_upper": float(nearest_rank(d, 0.975)),
                         "rel_lower": float(nearest_rank(r, 0.025)),
                         "rel_upper": float(nearest_rank(r, 0.975))})
        cases.append({"paired": paired, "units": units, "replicates": reps,
                      "a": a_vals.tolist(), "a_units": a_units.tolist(),
                      "b": b_vals.tolist(), "b_units": b_units.tolist(),
                      "quantiles": rows})
    return cases


def main():
    wilson, newcombe = rates()
    wilcoxon, mwu = rank_tests()
    passing, minimum, estimates = early_stopping()
    ref = {
        "generator": {"script": "loadtest/stats/testdata/make_reference.py",
                      "python": sys.version.split()[0],
                      "numpy": np.__version__, "scipy": scipy.__version__},
        "distributions": distributions(),
        "quantile_intervals": quantile_intervals(),
        "wilson": wilson,
        "newcombe": newcombe,
        "wilcoxon": wilcoxon,
        "mann_whitney": mwu,
        "srm": srm(),
        "early_stopping": {"min_passing": passing, "min_queries": minimum,
                           "estimates": estimates},
        "cluster_bootstrap": cluster_bootstrap(),
    }
    OUT.write_text(json.dumps(ref, separators=(",", ":")) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
