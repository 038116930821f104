#!/usr/bin/env python3
"""Integration test of the Prometheus rules and the Grafana dashboard against
a real Prometheus (Debian's `prometheus`); docs/deploy.md.

Three edgefleet-server replicas on 127.0.0.1 share one calibration; a
Prometheus scrapes them through file-based service discovery every second
with deploy/prometheus/edgefleet.rules.yml loaded; edgefleet-loadtest runs
test/deploy/testdata/fleet.textproto across the three. Then PromQL answers
must agree with the fleet's own numbers:
  * sessions, outcomes, OOM kills, ANR events and sessions with an ANR, per
    arm x device class and overall, equal the report's (report.json);
  * for every arm x class, the bucket in which histogram_quantile(q) of
    edgefleet_inference_seconds (and of edgefleet_model_load_seconds) falls is
    the bucket holding the nearest-rank q-quantile of the same latencies as
    the driver recorded them (results.json), for q = 0.5, 0.9, 0.99, and the
    histogram counts equal the record counts;
  * every recording rule returns data, and every panel query of
    deploy/grafana/dashboards/edgefleet.json returns data (at least one
    series holding a number, not NaN).
Usage: prometheus_test.py SERVER_BIN LOADTEST_BIN CALIBRATION (from the
repository root). Prints one line per check; exits 1 on the first failure.
"""

import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from local_fleet import SERVER_FLAGS, LocalFleet, wait_for  # noqa: E402

RULES = "deploy/prometheus/edgefleet.rules.yml"
DASHBOARD = "deploy/grafana/dashboards/edgefleet.json"
SPEC = "test/deploy/testdata/fleet.textproto"
QUANTILES = (0.5, 0.9, 0.99)

checks = 0


def check(ok, text):
    global checks
    checks += 1
    print(("ok   " if ok else "FAIL ") + text, flush=True)
    if not ok:
        raise SystemExit(1)


def nearest_rank(values, q):
    ordered = sorted(values)
    rank = min(max(math.ceil(q * len(ordered)), 1), len(ordered))
    return ordered[rank - 1]


def bucket_of(seconds, bounds):
    """The upper bound of the histogram bucket holding `seconds`."""
    for le in bounds:
        if seconds <= le:
            return le
    return math.inf


def compare_counts(fleet, report, arms):
    scopes = {s["name"]: s for s in report["scopes"]}
    classes = [n for n in scopes if n != "overall"]
    check(len(classes) == 3, f"report has the 3 classes of the spec: {sorted(classes)}")
    for scope_name, scope in scopes.items():
        cls = "" if scope_name == "overall" else f',device_class="{scope_name}"'
        for side, arm in arms.items():
            a = scope["arms"][side]
            sel = f'arm="{arm}"{cls}'
            got = {
                "sessions": fleet.scalar(f"sum(edgefleet_sessions_total{{{sel}}})"),
                "ok": fleet.scalar(f'sum(edgefleet_sessions_total{{{sel},outcome="ok"}})'),
                "oom_killed": fleet.scalar(f'sum(edgefleet_sessions_total{{{sel},outcome="oom_killed"}})'),
                "oom kills": fleet.scalar(f"sum(edgefleet_oom_kills_total{{{sel}}})"),
                "anr_total": fleet.scalar(f"sum(edgefleet_anr_total{{{sel}}})"),
                "sessions with ANR": fleet.scalar(f"sum(edgefleet_anr_sessions_total{{{sel}}})"),
            }
            want = {
                "sessions": a["sessions"], "ok": a["ok"], "oom_killed": a["oom_killed"],
                "oom kills": a["oom_killed"], "anr_total": a["anr_total"],
                "sessions with ANR": scope["rates"]["anr"][side]["events"],
            }
            for key in want:
                check(got[key] == want[key],
                      f"{scope_name} {arm}: {key} PromQL {got[key]} = report {want[key]}")
    return scopes


def compare_quantiles(fleet, records, arms, bounds):
    by_key = {}
    for r in records:
        by_key.setdefault((r["arm"], r["class"]), []).append(r)
    for (side, cls), rs in sorted(by_key.items()):
        arm = arms[side]
        sel = f'arm="{arm}",device_class="{cls}"'
        # The server observes the load and every latency of a session that
        # finished (OOM kills included), none of a failed one.
        done = [r for r in rs if r["outcome"] in ("ok", "oom_killed")]
        latencies = [us * 1e-6 for r in done
                     for us in ([r["first_inference_us"]] if r["first_inference_us"] >= 0 else [])
                     + r["latencies_us"]]
        loads = [sum(r["load_us"]) * 1e-6 for r in done]
        for family, values in (("edgefleet_inference_seconds", latencies),
                               ("edgefleet_model_load_seconds", loads)):
            count = fleet.scalar(f"sum({family}_count{{{sel}}})")
            check(count == len(values),
                  f"{arm} {cls}: {family}_count {count} = {len(values)} recorded by the driver")
            if not values:
                continue
            for q in QUANTILES:
                h = fleet.scalar(f"histogram_quantile({q}, sum by (le) ({family}_bucket{{{sel}}}))")
                exact = nearest_rank(values, q)
                check(bucket_of(h, bounds) == bucket_of(exact, bounds),
                      f"{arm} {cls}: {family} p{q * 100:g} PromQL {h:.6f} s in the bucket "
                      f"(le {bucket_of(h, bounds)}) of the recorded {exact:.6f} s")


def finite(result):
    """How many series of a query result hold a number (not NaN or Inf)."""
    return sum(math.isfinite(float(r["value"][1])) for r in result)


def check_rules_and_panels(fleet):
    with open(RULES) as f:
        records = re.findall(r"^\s*- record: (\S+)", f.read(), re.M)
    for name in records:
        result = wait_for(f"recording rule {name}", lambda name=name: fleet.query(name), 30)
        check(finite(result) > 0,
              f"recording rule {name}: {finite(result)} of {len(result)} series are numbers")
    with open(DASHBOARD) as f:
        dashboard = json.load(f)
    substitutions = {"$device_class": ".*", "$arm": ".*", "$__rate_interval": "5m"}
    for var in dashboard["templating"]["list"]:
        m = re.fullmatch(r"label_values\((\w+), (\w+)\)", var["query"]["query"])
        check(m is not None, f"variable {var['name']}: a label_values query")
        values = fleet.query(f"count by ({m.group(2)}) ({m.group(1)})")
        check(len(values) > 0, f"variable {var['name']}: {len(values)} values")
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            expr = target["expr"]
            for k, v in substitutions.items():
                expr = expr.replace(k, v)
            check("$" not in expr, f"panel '{panel['title']}': every variable substituted")
            result = fleet.query(expr)
            check(finite(result) > 0, f"panel '{panel['title']}' {target['refId']}: "
                  f"{finite(result)} of {len(result)} series are numbers")


def main():
    server_bin, loadtest_bin, calibration = sys.argv[1:4]
    if shutil.which("prometheus") is None:
        print("FAIL prometheus is not installed (deploy/install-deps.sh installs it)")
        return 1
    workdir = tempfile.mkdtemp(prefix="edgefleet-prom-")
    # The replicas read their own copy: a server may save measurements there.
    shutil.copy(calibration, os.path.join(workdir, "calibration.textproto"))
    fleet = LocalFleet(server_bin, SERVER_FLAGS + [
        "--calibration=" + os.path.join(workdir, "calibration.textproto")], workdir)
    try:
        fleet.start_prometheus(RULES)
        print(f"3 replicas {fleet.server_addresses()}, Prometheus {fleet.prometheus_url}", flush=True)
        out = os.path.join(workdir, "out")
        run = subprocess.run(
            [loadtest_bin, "run", f"--spec={SPEC}", f"--server={fleet.server_addresses()}",
             f"--out-dir={out}", "--progress=off", "--replicates=200"],
            capture_output=True, text=True, timeout=600)
        check(run.returncode in (0, 2, 3, 4),
              f"edgefleet-loadtest run exit {run.returncode} (a verdict){run.stderr.strip()[-400:]}")
        with open(os.path.join(out, "report.json")) as f:
            report = json.load(f)
        with open(os.path.join(out, "results.json")) as f:
            results = json.load(f)
        arms = {"A": report["experiment"]["arm_a"], "B": report["experiment"]["arm_b"]}
        total = sum(report["scopes"][0]["arms"][s]["sessions"] for s in "AB") \
            if report["scopes"][0]["name"] == "overall" else None
        check(total is not None and total > 0, f"report's overall scope: {total} sessions")
        wait_for("Prometheus to scrape every finished session",
                 lambda: fleet.scalar("sum(edgefleet_sessions_total)") == total, 60)
        # Then one more successful scrape of every replica, begun after that:
        # the scrape that saw the last session may hold one family of its
        # update and not another, and on a loaded host scrapes start late or
        # time out (a failed scrape makes the replica's series stale).
        counted = time.time()
        wait_for("a successful scrape of every replica after the last session was counted",
                 lambda: fleet.scalar('count(up{job="edgefleet-server"} == 1)') == 3 and
                 fleet.scalar('min(timestamp(up{job="edgefleet-server"}))') > counted, 60)
        per_replica = fleet.query("sum by (instance) (edgefleet_sessions_total)")
        check(len(per_replica) == 3 and all(float(r["value"][1]) > 0 for r in per_replica),
              "sessions reached all 3 replicas: "
              + ", ".join(f"{r['metric']['instance']}={r['value'][1]}" for r in per_replica))
        scopes = compare_counts(fleet, report, arms)
        check(any(s["arms"][x]["anr_total"] > 0 for s in scopes.values() for x in "AB"),
              "the fleet produced ANRs (the comparison is not of zeros)")
        check(any(s["arms"][x]["oom_killed"] > 0 for s in scopes.values() for x in "AB"),
              "the fleet produced OOM kills")
        bounds = sorted({float(r["metric"]["le"]) for r in
                         fleet.query('edgefleet_inference_seconds_bucket{le!="+Inf"}')})
        check(len(bounds) == 20, f"{len(bounds)} finite histogram buckets")
        compare_quantiles(fleet, results["sessions"], arms, bounds)
        check_rules_and_panels(fleet)
        print(f"{checks} passed, 0 failed")
        return 0
    finally:
        fleet.stop()
        if os.environ.get("KEEP_WORKDIR"):
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
