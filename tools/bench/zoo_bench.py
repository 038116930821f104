#!/usr/bin/env python3
"""Zoo benchmark: our runtime (optimized and portable kernels) vs the real ExecuTorch
runtime (non-delegated and XNNPACK-delegated), single-threaded, side by side.

Usage (with tools/.venv/bin/python, after `make models` and a build):
    zoo_bench.py --edgefleet-run PATH [--models-dir DIR] [--iterations N]
                 [--portable-iterations N] [--json OUT.json] [MODEL ...]

Models: every <name>/model.pte under --models-dir (default .cache/models, written by
`make models`), else the committed fixtures in test/fixtures. The zoo includes the
families once measured slow against ET-XNN (efficientnet_b0, regnet_y_400mf, vit_tiny;
docs/performance-families.md): `zoo_bench.py efficientnet_b0 regnet_y_400mf vit_tiny`. Inputs are the model's
input_<i>.npy. For each model, on the same files and inputs, in this one run:
  ours      edgefleet-run run --threads 1 (optimized kernels where they apply)
  portable  edgefleet-run run --threads 1 --portable-only
  ET        executorch.runtime on model.pte (no delegate: its portable kernels)
  ET-XNN    executorch.runtime on model_xnnpack.pte (XNNPACK delegate), when present
The real runtime's thread pool is reset to 1 thread (_unsafe_reset_threadpool).

Two figures per cell, both per inference:
  CPU ms   CPU time of the process over the timed iterations / iterations. Robust
           against other load on the host (it is not wall time) and what the targets
           are judged on here.
  wall ms  median wall-clock latency (nearest rank).
The real runtime is called through Python: its wall time includes the Python
`execute()` call (a few tens of microseconds, measured on the `add` fixture and printed
below the table), which matters only for tiny models.
Our outputs are also checked against expected_0.npy (max |ours - torch| /
max(1, |torch|)).

Targets of the project: ours within 2x of ET-XNN (column ours/XNN <= 2) and at least 20x
faster than ET (column ET/ours >= 20).
"""

import argparse
import json
import logging
import math
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def nearest_rank(values, p):
    s = sorted(values)
    return s[max(1, math.ceil(p / 100.0 * len(s))) - 1]


# ---------------------------------------------------------------- real runtime


def et_worker(model, inputs, iterations, warmup):
    """Runs in a child process: times the real runtime, prints one JSON line."""
    logging.disable(logging.WARNING)
    import numpy as np
    import torch
    from executorch.extension.pybindings.portable_lib import _unsafe_reset_threadpool
    from executorch.runtime import Runtime

    try:
        # Registers quantized_decomposed::* kernels in the Python runtime, so
        # it can run the non-delegated int8 program.
        import executorch.kernels.quantized  # noqa: F401
    except ImportError:
        pass

    _unsafe_reset_threadpool(1)
    runtime = Runtime.get()
    method = runtime.load_program(model).load_method("forward")
    args = [torch.from_numpy(np.load(p)) for p in inputs]
    outputs = method.execute(args)
    for _ in range(warmup):
        method.execute(args)
    wall = []
    cpu0 = time.process_time()
    for _ in range(iterations):
        t0 = time.perf_counter()
        method.execute(args)
        wall.append((time.perf_counter() - t0) * 1e3)
    cpu = (time.process_time() - cpu0) * 1e3 / iterations
    print(json.dumps({"cpu_ms": cpu, "wall_ms": nearest_rank(wall, 50),
                      "outputs": len(outputs)}))


def run_et(model, inputs, iterations, warmup):
    cmd = [sys.executable, os.path.abspath(__file__), "--et-worker", model,
           "--iterations", str(iterations), "--warmup", str(warmup), *inputs]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        lines = [l for l in out.stderr.strip().splitlines() if l.strip()]
        return {"error": lines[-1] if lines else "failed"}
    return json.loads(out.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------- our runtime


def run_ours(binary, model, inputs, iterations, warmup, portable, output_dir=None):
    """Wall p50 and CPU ms per inference (process CPU time over the timed
    iterations) from edgefleet-run's JSON."""
    cmd = [binary, "run", model, "--json", "--threads", "1",
           "--iterations", str(iterations), "--warmup", str(warmup)]
    cmd += [x for p in inputs for x in ("--input", p)]
    if portable:
        cmd.append("--portable-only")
    if output_dir:
        cmd += ["--output-dir", output_dir]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        lines = out.stderr.strip().splitlines()
        return {"error": lines[-1] if lines else "failed"}
    report = json.loads(out.stdout)
    return {"cpu_ms": report["cpu_ms"], "wall_ms": report["latency_ms"]["p50"]}


def max_error(output_dir, model_dir):
    import numpy as np
    worst = 0.0
    for i in range(64):
        ref_path = os.path.join(model_dir, f"expected_{i}.npy")
        out_path = os.path.join(output_dir, f"output_{i}.npy")
        if not os.path.exists(ref_path) or not os.path.exists(out_path):
            break
        ref = np.load(ref_path).astype(np.float64)
        ours = np.load(out_path).astype(np.float64).reshape(ref.shape)
        if ref.size:
            worst = max(worst, float(np.max(np.abs(ours - ref) / np.maximum(1.0, np.abs(ref)))))
    return worst


# ---------------------------------------------------------------- driver


def model_dirs(models_dir, names):
    if models_dir is None:
        cache = os.path.join(ROOT, ".cache", "models")
        models_dir = cache if os.path.isdir(cache) else os.path.join(ROOT, "test", "fixtures")
    found = sorted(d for d in os.listdir(models_dir)
                   if os.path.isfile(os.path.join(models_dir, d, "model.pte")))
    if names:
        found = [d for d in found if d in names]
    return models_dir, found


def inputs_of(model_dir):
    paths = []
    while os.path.exists(os.path.join(model_dir, f"input_{len(paths)}.npy")):
        paths.append(os.path.join(model_dir, f"input_{len(paths)}.npy"))
    return paths


def fmt(x, digits=3):
    return "-" if x is None else f"{x:.{digits}f}"


def ratio(a, b):
    return None if a is None or b is None or b <= 0 else a / b


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edgefleet-run", default=os.path.join(ROOT, "build", "default", "runtime",
                                                            "tools", "edgefleet-run"))
    ap.add_argument("--models-dir")
    ap.add_argument("--iterations", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--portable-iterations", type=int, default=3,
                    help="timed runs of the (slow) portable paths, ours and ET's")
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--et-worker", help=argparse.SUPPRESS)
    ap.add_argument("models", nargs="*")
    args = ap.parse_args()

    if args.et_worker:
        et_worker(args.et_worker, args.models, args.iterations, args.warmup)
        return

    models_dir, names = model_dirs(args.models_dir, args.models)
    print(f"models from {models_dir}; single-threaded; host {os.uname().machine}, "
          f"{os.cpu_count()} cpus; {time.strftime('%Y-%m-%d %H:%M')}")
    rows = []
    for name in names:
        d = os.path.join(models_dir, name)
        model = os.path.join(d, "model.pte")
        xnn = os.path.join(d, "model_xnnpack.pte")
        inputs = inputs_of(d)
        print(f"  {name} ...", file=sys.stderr, flush=True)
        with tempfile.TemporaryDirectory() as out_dir:
            ours = run_ours(args.edgefleet_run, model, inputs, args.iterations, args.warmup,
                            False, out_dir)
            err = max_error(out_dir, d) if "error" not in ours else None
        portable = run_ours(args.edgefleet_run, model, inputs, args.portable_iterations, 1, True)
        et = run_et(model, inputs, args.portable_iterations, 1)
        et_xnn = (run_et(xnn, inputs, args.iterations, args.warmup)
                  if os.path.exists(xnn) else {"error": "no model_xnnpack.pte"})
        rows.append({"model": name, "ours": ours, "portable": portable, "et": et,
                     "et_xnnpack": et_xnn, "max_error": err})

    def cell(r, key, metric):
        v = r[key]
        return None if "error" in v else v[metric]

    for metric, title in (("cpu_ms", "CPU ms per inference"), ("wall_ms", "wall p50 ms")):
        print(f"\n{title}")
        header = (f"{'model':<30} {'ours':>9} {'portable':>10} {'ET':>10} {'ET-XNN':>9} "
                  f"{'ours/XNN':>9} {'ET/ours':>8} {'port/ours':>9}")
        print(header)
        print("-" * len(header))
        for r in rows:
            o, p, e, x = (cell(r, k, metric) for k in ("ours", "portable", "et", "et_xnnpack"))
            print(f"{r['model']:<30} {fmt(o):>9} {fmt(p, 1):>10} {fmt(e, 1):>10} {fmt(x):>9} "
                  f"{fmt(ratio(o, x), 2):>9} {fmt(ratio(e, o), 1):>8} {fmt(ratio(p, o), 1):>9}")
    print("\nmax |ours - torch| / max(1, |torch|):")
    for r in rows:
        errors = {k: r[k]["error"] for k in ("ours", "portable", "et", "et_xnnpack")
                  if "error" in r[k]}
        print(f"  {r['model']:<30} {fmt(r['max_error'], 9) if r['max_error'] is not None else '-'}"
              + (f"   errors: {errors}" if errors else ""))

    add = os.path.join(ROOT, "test", "fixtures", "add", "model.pte")
    if os.path.exists(add):
        overhead = run_et(add, inputs_of(os.path.dirname(add)), 2000, 100)
        ours_add = run_ours(args.edgefleet_run, add, inputs_of(os.path.dirname(add)), 2000, 100,
                            False)
        if "error" not in overhead and "error" not in ours_add:
            print(f"\nPython execute() overhead of the real runtime (the 2x3 `add` fixture): "
                  f"wall {overhead['wall_ms'] * 1e3:.1f} us vs ours {ours_add['wall_ms'] * 1e3:.1f} us")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
