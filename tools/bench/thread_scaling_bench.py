#!/usr/bin/env python3
"""Thread scaling: our runtime (non-delegated model.pte, our kernels) vs the real runtime (XNNPACK).

Usage (with tools/.venv/bin/python, after a build; `make models` fills .cache/models):
    thread_scaling_bench.py [--edgefleet-run PATH] [--threads 1 2] [--rounds 3]
                            [--iterations N] [--cpus 0,1] [--json OUT.json] [MODEL_DIR ...]

Programs: every .cache/models/<name>/ holding both model.pte and model_xnnpack.pte (or the
directories given). Per model, `rounds` rounds; each round runs, as fresh processes and
alternating, for every thread count T:
  ours  edgefleet-run run model.pte --threads T --json     (optimized kernels, our thread pool)
  ET    executorch.runtime on model_xnnpack.pte, thread pool reset to T (the same worker as
        xnnpack_bench.py)
Every run is pinned to the same CPU set (`taskset -c` --cpus, default 0..max(T)-1), so 1- and
2-thread runs compete for the same cores. Figures per cell: the best and the median over the
rounds of each run's p50 wall-clock latency; parallel efficiency at T threads =
p50(1) / (T * p50(T)) from the best figures; ratio = ours / ET at the same T (below 1: we are
faster). The load average is printed before and after: on a shared host, wall-clock scaling
figures are only as good as the idle cores were.

--compare-pinning replaces the real runtime by ours again, with its thread pool's workers not
pinned (EDGEFLEET_PIN_THREADS=0; thread_pool.h): the columns are then ours pinned (the
default) and ours unpinned, alternated within every round the same way.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
XNNPACK_BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "xnnpack_bench.py")


def pin(cpus):
    return ["taskset", "-c", cpus]


def last_error(stderr):
    lines = [l for l in stderr.strip().splitlines() if l.strip()]
    return lines[-1] if lines else "failed"


def run_ours(binary, model, inputs, iterations, warmup, threads, cpus, pin_threads=True):
    cmd = pin(cpus) + [binary, "run", model, "--json", "--threads", str(threads),
                       "--iterations", str(iterations), "--warmup", str(warmup)]
    cmd += [x for p in inputs for x in ("--input", p)]
    env = dict(os.environ, EDGEFLEET_PIN_THREADS="1" if pin_threads else "0")
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        return {"error": last_error(out.stderr)}
    return {"p50_ms": json.loads(out.stdout)["latency_ms"]["p50"]}


def run_et(model, inputs, iterations, warmup, threads, cpus):
    cmd = pin(cpus) + [sys.executable, XNNPACK_BENCH, "--et-worker", model,
                       "--iterations", str(iterations), "--warmup", str(warmup),
                       "--threads", str(threads), "--", *inputs]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return {"error": last_error(out.stderr)}
    return {"p50_ms": json.loads(out.stdout.strip().splitlines()[-1])["p50_ms"]}


def model_dirs(dirs):
    if not dirs:
        base = os.path.join(ROOT, ".cache", "models")
        dirs = [os.path.join(base, d) for d in sorted(os.listdir(base))] if os.path.isdir(base) else []
    return [d for d in dirs if os.path.isfile(os.path.join(d, "model.pte"))
            and os.path.isfile(os.path.join(d, "model_xnnpack.pte"))]


def inputs_of(d):
    paths = []
    while os.path.exists(os.path.join(d, f"input_{len(paths)}.npy")):
        paths.append(os.path.join(d, f"input_{len(paths)}.npy"))
    return paths


def loadavg():
    with open("/proc/loadavg") as fh:
        return " ".join(fh.read().split()[:3])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edgefleet-run",
                    default=os.path.join(ROOT, "build", "default", "runtime", "tools", "edgefleet-run"))
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--cpus", help="taskset CPU list for every run (default 0..max(threads)-1)")
    ap.add_argument("--compare-pinning", action="store_true",
                    help="ours pinned vs ours unpinned instead of ours vs the real runtime")
    ap.add_argument("--json")
    ap.add_argument("dirs", nargs="*")
    args = ap.parse_args()
    cpus = args.cpus or ",".join(str(c) for c in range(max(args.threads)))
    print(f"load average {loadavg()} (start); every run pinned to CPUs {cpus}; "
          f"{args.rounds} rounds x {args.iterations} iterations")
    other = "unpin" if args.compare_pinning else "ET"
    header = f"{'model':30} {'thr':>3} {'ours best':>9} {'ours med':>9} {other + ' best':>10} " \
             f"{other + ' med':>9} {'ours/' + other:>10} {'eff ours':>8} {'eff ' + other:>9}"
    print(header, flush=True)
    rows = []
    for d in model_dirs(args.dirs):
        name = os.path.basename(os.path.normpath(d))
        inputs = inputs_of(d)
        runs = {t: {"ours": [], "et": []} for t in args.threads}
        errors = []
        for _ in range(args.rounds):
            for t in args.threads:
                for who, model in (("ours", "model.pte"), ("et", "model_xnnpack.pte")):
                    if who == "ours" or args.compare_pinning:
                        # "et" holds ours unpinned under --compare-pinning.
                        r = run_ours(args.edgefleet_run, os.path.join(d, "model.pte"), inputs,
                                     args.iterations, args.warmup, t, cpus, pin_threads=who == "ours")
                    else:
                        r = run_et(os.path.join(d, model), inputs, args.iterations, args.warmup, t, cpus)
                    if "error" in r:
                        errors.append(f"{who} T={t}: {r['error']}")
                    else:
                        runs[t][who].append(r["p50_ms"])

        def stat(values, f):
            return f(values) if values else None

        base = {who: stat(runs[args.threads[0]][who], min) for who in ("ours", "et")}
        for t in args.threads:
            row = {"model": name, "threads": t}
            for who in ("ours", "et"):
                row[f"{who}_best_ms"] = stat(runs[t][who], min)
                row[f"{who}_median_ms"] = stat(runs[t][who], statistics.median)
                row[f"{who}_runs_ms"] = runs[t][who]
                b, v = base[who], row[f"{who}_best_ms"]
                row[f"{who}_efficiency"] = (b / (t / args.threads[0] * v)) if b and v else None
            row["ratio"] = (row["ours_best_ms"] / row["et_best_ms"]
                            if row["ours_best_ms"] and row["et_best_ms"] else None)
            row["errors"] = errors[:2]
            rows.append(row)

            def f(x, p=3):
                return "-" if x is None else f"{x:.{p}f}"

            print(f"{name:30} {t:>3} {f(row['ours_best_ms']):>9} {f(row['ours_median_ms']):>9} "
                  f"{f(row['et_best_ms']):>10} {f(row['et_median_ms']):>9} {f(row['ratio'], 2):>10} "
                  f"{f(row['ours_efficiency'], 2):>8} {f(row['et_efficiency'], 2):>9}"
                  + (f"  ({errors[0]})" if errors else ""), flush=True)
    print(f"load average {loadavg()} (end)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
