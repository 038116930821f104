#!/usr/bin/env python3
"""XNNPACK-lowered programs: our delegate vs the real ExecuTorch runtime, side by side.

Usage (with tools/.venv/bin/python, after a build; `make models` adds the zoo):
    xnnpack_bench.py [--edgefleet-run PATH] [--threads 1 2] [--rounds 3]
                     [--iterations N] [--json OUT.json] [MODEL_DIR ...]

Programs: every model_xnnpack.pte in .cache/models/<name>/ and test/fixtures/<name>/
(or the directories given). For each program and thread count, in one run, on the
same file and inputs (input_<i>.npy, else seeded random), `rounds` rounds alternating
the two runtimes in ABBA order (A, B, B, A, A, B, ...), each a fresh process, so each
runtime also has runs that follow its own: a process started right after the real
runtime's (a Python process of several hundred MiB) pays for the memory it freed (the
VM zeroes pages again), which with plain A, B alternation always fell on our loads:
  ours  edgefleet-run run --json --threads T          (our runtime + XNNPACK delegate)
  ET    executorch.runtime with its thread pool reset to T (_unsafe_reset_threadpool)
Single-thread runs are pinned to one core with `taskset -c 0`; T-thread runs to
cores 0..T-1. Figures per cell: the best (lowest) of the rounds' values of
  load ms  program load + method load (delegate compilation, weight packing)
  p50 ms   median wall-clock latency over the iterations (nearest rank)
  min ms   the fastest single iteration: on a host busy with other work, the
           iteration least disturbed by it (the comparison to read there)
and the ratios ours/ET (below 1: we are faster). At one thread it also prints CPU ms
per inference (zoo_bench.py's method: process CPU time over the timed iterations,
robust against other load on the host, which wall-clock figures are not), for our
default engine rule and for every node XNNPACK accepts on XNNPACK (--portable-only).
The real runtime is called through
Python (its p50 includes a few tens of microseconds of call overhead, which matters
only for tiny programs).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zoo_bench  # noqa: E402  (CPU-time measurement of both runtimes at one thread)


def nearest_rank(values, p):
    values = sorted(values)
    return values[max(0, min(len(values) - 1, int(round(p / 100 * len(values) + 0.5)) - 1))]


def et_worker(model, inputs, iterations, warmup, threads):
    """Child process: the real runtime's load and latency, one JSON line."""
    import logging
    logging.disable(logging.WARNING)
    import numpy as np
    import torch
    from executorch.extension.pybindings.portable_lib import _unsafe_reset_threadpool
    from executorch.runtime import Runtime

    _unsafe_reset_threadpool(threads)
    runtime = Runtime.get()
    t0 = time.perf_counter()
    program = runtime.load_program(model)
    method = program.load_method("forward")
    load_ms = (time.perf_counter() - t0) * 1e3
    if inputs:
        args = [torch.from_numpy(np.load(p)) for p in inputs]
    else:
        meta = method.metadata
        gen = torch.Generator().manual_seed(0)
        args = [torch.randn(tuple(meta.input_tensor_meta(i).sizes()), generator=gen)
                for i in range(meta.num_inputs())]
    for _ in range(warmup + 1):
        method.execute(args)
    wall = []
    for _ in range(iterations):
        t = time.perf_counter()
        method.execute(args)
        wall.append((time.perf_counter() - t) * 1e3)
    print(json.dumps({"load_ms": load_ms, "p50_ms": nearest_rank(wall, 50), "min_ms": min(wall)}))


def pin(threads):
    if shutil.which("taskset") is None:
        return []
    return ["taskset", "-c", ",".join(str(c) for c in range(threads))]


def run_et(model, inputs, iterations, warmup, threads):
    cmd = pin(threads) + [sys.executable, os.path.abspath(__file__), "--et-worker", model,
                          "--iterations", str(iterations), "--warmup", str(warmup),
                          "--threads", str(threads), "--", *inputs]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        lines = [l for l in out.stderr.strip().splitlines() if l.strip()]
        return {"error": lines[-1] if lines else "failed"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_ours(binary, model, inputs, iterations, warmup, threads):
    cmd = pin(threads) + [binary, "run", model, "--json", "--threads", str(threads),
                          "--iterations", str(iterations), "--warmup", str(warmup)]
    cmd += [x for p in inputs for x in ("--input", p)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        lines = out.stderr.strip().splitlines()
        return {"error": lines[-1] if lines else "failed"}
    r = json.loads(out.stdout)
    return {"load_ms": r["load_ms"] + r["method_load_ms"], "p50_ms": r["latency_ms"]["p50"],
            "min_ms": r["latency_ms"]["min"]}


def programs(dirs):
    if not dirs:
        dirs = []
        for base in (os.path.join(ROOT, ".cache", "models"), os.path.join(ROOT, "test", "fixtures")):
            if os.path.isdir(base):
                dirs += [os.path.join(base, d) for d in sorted(os.listdir(base))]
    return [d for d in dirs if os.path.isfile(os.path.join(d, "model_xnnpack.pte"))]


def inputs_of(d):
    paths = []
    while os.path.exists(os.path.join(d, f"input_{len(paths)}.npy")):
        paths.append(os.path.join(d, f"input_{len(paths)}.npy"))
    return paths


def best(results, key):
    values = [r[key] for r in results if r.get(key) is not None]
    return min(values) if values else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edgefleet-run",
                    default=os.path.join(ROOT, "build", "default", "runtime", "tools", "edgefleet-run"))
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument("--et-worker", help=argparse.SUPPRESS)
    ap.add_argument("dirs", nargs="*")
    args = ap.parse_args()
    if args.et_worker:
        et_worker(args.et_worker, args.dirs, args.iterations, args.warmup, args.threads[0])
        return
    rows = []
    print(f"{'program':34} {'thr':>3} {'load ours':>10} {'load ET':>9} {'ratio':>6} "
          f"{'p50 ours':>9} {'p50 ET':>8} {'ratio':>6} {'min ours':>9} {'min ET':>8} {'ratio':>6} "
          f"{'CPU ours':>9} {'CPU ET':>8} {'ratio':>6} "
          f"{'CPU XNN-first':>13} {'ratio':>6}")
    for d in programs(args.dirs):
        model = os.path.join(d, "model_xnnpack.pte")
        inputs = inputs_of(d)
        for t in args.threads:
            ours, et = [], []
            for r in range(args.rounds):
                pair = [lambda: ours.append(run_ours(args.edgefleet_run, model, inputs,
                                                     args.iterations, args.warmup, t)),
                        lambda: et.append(run_et(model, inputs, args.iterations, args.warmup, t))]
                for run in pair if r % 2 == 0 else reversed(pair):
                    run()
            # CPU time per inference at one thread, after the timed rounds.
            for r in range(args.rounds if t == 1 else 0):
                ours[r]["cpu_ms"] = zoo_bench.run_ours(args.edgefleet_run, model, inputs,
                                                       args.iterations, args.warmup,
                                                       portable=False).get("cpu_ms")
                # Every node XNNPACK accepts on XNNPACK (--portable-only): the
                # engine-per-node rule's alternative (docs/xnnpack-delegate.md).
                ours[r]["cpu_xf_ms"] = zoo_bench.run_ours(args.edgefleet_run, model, inputs,
                                                          args.iterations, args.warmup,
                                                          portable=True).get("cpu_ms")
                et[r]["cpu_ms"] = zoo_bench.run_et(model, inputs, args.iterations,
                                                   args.warmup).get("cpu_ms")
            row = {"program": os.path.relpath(model, ROOT), "threads": t,
                   "ours_load_ms": best(ours, "load_ms"), "et_load_ms": best(et, "load_ms"),
                   "ours_p50_ms": best(ours, "p50_ms"), "et_p50_ms": best(et, "p50_ms"),
                   "ours_min_ms": best(ours, "min_ms"), "et_min_ms": best(et, "min_ms"),
                   "ours_cpu_ms": best(ours, "cpu_ms"), "et_cpu_ms": best(et, "cpu_ms"),
                   "ours_xnnpack_first_cpu_ms": best(ours, "cpu_xf_ms"),
                   "errors": [r["error"] for r in ours + et if "error" in r][:2]}
            rows.append(row)

            def f(x):
                return "-" if x is None else f"{x:.3f}"

            def q(a, b):
                return "-" if a is None or b is None or b <= 0 else f"{a / b:.2f}"

            name = os.path.relpath(d, ROOT).replace("test/fixtures/", "").replace(".cache/models/", "zoo/")
            print(f"{name:34} {t:>3} {f(row['ours_load_ms']):>10} {f(row['et_load_ms']):>9} "
                  f"{q(row['ours_load_ms'], row['et_load_ms']):>6} {f(row['ours_p50_ms']):>9} "
                  f"{f(row['et_p50_ms']):>8} {q(row['ours_p50_ms'], row['et_p50_ms']):>6} "
                  f"{f(row['ours_min_ms']):>9} {f(row['et_min_ms']):>8} "
                  f"{q(row['ours_min_ms'], row['et_min_ms']):>6} "
                  f"{f(row['ours_cpu_ms']):>9} {f(row['et_cpu_ms']):>8} "
                  f"{q(row['ours_cpu_ms'], row['et_cpu_ms']):>6} "
                  f"{f(row['ours_xnnpack_first_cpu_ms']):>13} "
                  f"{q(row['ours_xnnpack_first_cpu_ms'], row['et_cpu_ms']):>6}"
                  + (f"  ({row['errors'][0]})" if row["errors"] else ""), flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
