#!/usr/bin/env python3
"""Sums the per-run records of one or more calibration campaigns
(`campaign_runs.jsonl` of loadtest/tools/campaign.sh, docs/calibration-campaign.md)
into the figures the campaign document reports, for campaigns run side by side
(e.g. copies of the spec with other seeds, to use more of a shared host):

  A/A     runs with a claim at any look, overall and per metric, with Wilson
          95 % intervals; status and stopping look; per fleet-wide
          steady-latency quantile (stratified, last look) the share within
          ±2 %, the share of intervals containing 0, RMS and worst change,
          and the standard error the run's own intervals imply (half-width /
          z of the interval's confidence); the pooled p50's RMS change.
  effects per (X, target): runs stopping as a regression, the target's
          steady-latency regression verdict (the power), p50/p90 intervals
          above 0, each with its Wilson 95 % interval; stopping looks,
          claims outside the target.

Duplicate seeds (the same experiment in two files) are counted once.

    python3 loadtest/tools/merge_campaigns.py [--confidence=0.9561] DIR1/campaign_runs.jsonl ...

--confidence is the last look's interval confidence (95.61 % for three
O'Brien-Fleming looks at alpha 0.05, docs/statistics.md section 4a; 0.95 for
fixed-size runs); it only converts interval half-widths to standard errors.
"""

import collections
import json
import math
import statistics
import sys

NORMAL = statistics.NormalDist()

METRICS = ("load_time", "first_inference", "steady_latency", "peak_memory", "anr", "oom",
           "failure")


def wilson(k, n, z=1.959963984540054):
    if n == 0:
        return float("nan"), float("nan")
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


def rate(k, n):
    lo, hi = wilson(k, n)
    return f"{k}/{n} = {100 * k / n:.1f} % [{100 * lo:.1f} %, {100 * hi:.1f} %]"


def aa_summary(runs, z_last):
    n = len(runs)
    print(f"## A/A: {n} runs\n")
    print(f"runs with a claim at any look: {rate(sum(1 for r in runs if r['claims']), n)}")
    per_metric = collections.Counter()
    for r in runs:
        per_metric.update({c.split(" ", 1)[1] for c in r["claims"]})
    for m in METRICS:
        print(f"  {m}: {rate(per_metric[m], n)}")
    for r in runs:
        if r["claims"]:
            print(f"  seed {r['seed']}: look {r['look']} {r['status']}: {', '.join(r['claims'])}")
    status = collections.Counter((r["status"], r["look"]) for r in runs)
    print("status at the stopping look:",
          "; ".join(f"{s} at look {k}: {c}" for (s, k), c in sorted(status.items())))
    print("\n| fleet-wide steady latency (stratified) | within ±2 % | CI contains 0 | RMS | "
          "worst | SE implied by the CIs (mean) | share within ±2 % that SE predicts |")
    print("|---|---|---|---|---|---|---|")
    for p in ("p50", "p90", "p99"):
        rows = [r["overall_steady"][p] for r in runs if r["overall_steady"].get(p)]
        rows = [x for x in rows if x["rel"] is not None]
        m = len(rows)
        within = sum(abs(x["rel"]) <= 0.02 for x in rows)
        covers = sum(x["lower"] <= 0 <= x["upper"] for x in rows)
        rms = math.sqrt(sum(x["rel"] ** 2 for x in rows) / m)
        worst = max(abs(x["rel"]) for x in rows)
        # Intervals are on the log scale: half-width of log(1 + rel).
        se = sum((math.log1p(x["upper"]) - math.log1p(x["lower"])) / (2 * z_last)
                 for x in rows) / m
        predicted = 2 * NORMAL.cdf(math.log(1.02) / se) - 1
        print(f"| {p} | {rate(within, m)} | {rate(covers, m)} | {100 * rms:.2f} % | "
              f"{100 * worst:.2f} % | {100 * se:.2f} % | {100 * predicted:.1f} % |")
    pooled = [r["pooled_steady_p50"] for r in runs if r.get("pooled_steady_p50") is not None]
    if pooled:
        rms = math.sqrt(sum(x * x for x in pooled) / len(pooled))
        print(f"\npooled (secondary) p50: RMS {100 * rms:.2f} %, worst "
              f"{100 * max(abs(x) for x in pooled):.2f} % over {len(pooled)} runs")


def effect_summary(runs):
    print("\n## Injected effects\n")
    print("| X | target | runs | stops as a regression | target steady regression | "
          "p50 CI > 0 | p90 CI > 0 | stopping looks | claims outside the target |")
    print("|---|---|---|---|---|---|---|---|---|")
    groups = collections.defaultdict(list)
    for r in runs:
        groups[(r["effect"], r["target"])].append(r)
    for (x, target), rs in sorted(groups.items()):
        n = len(rs)
        above = {p: sum(1 for r in rs if (r["target_steady"].get(p) or {}).get("lower", 0) > 0)
                 for p in ("p50", "p90")}
        looks = collections.Counter(r["look"] for r in rs)
        outside = 0
        for r in rs:
            for c in r["claims"]:
                scope, what = c.split(" ", 1)
                latency = what in ("steady_latency", "first_inference", "load_time")
                if not (latency and (target == "overall" or scope in (target, "overall"))):
                    outside += 1
                    break
        print(f"| +{100 * x:g} % | {target} | {n} | "
              f"{rate(sum(r['status'] == 'regression' for r in rs), n)} | "
              f"{rate(sum(r['target_verdict'] == 'regression' for r in rs), n)} | "
              f"{rate(above['p50'], n)} | {rate(above['p90'], n)} | "
              f"{', '.join(f'look {k}: {c}' for k, c in sorted(looks.items()))} | {outside}/{n} |")


def main(argv):
    confidence = 0.9561
    paths = []
    for a in argv:
        if a.startswith("--confidence="):
            confidence = float(a.split("=", 1)[1])
        else:
            paths.append(a)
    if not paths:
        print(__doc__)
        return 2
    seen, runs = set(), []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                if (r["arm_b"], r["seed"]) not in seen:
                    seen.add((r["arm_b"], r["seed"]))
                    runs.append(r)
    z_last = NORMAL.inv_cdf(0.5 + confidence / 2)
    aa = [r for r in runs if r["effect"] == 0]
    if aa:
        aa_summary(aa, z_last)
    effects = [r for r in runs if r["effect"] != 0]
    if effects:
        effect_summary(effects)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
