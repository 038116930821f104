#!/usr/bin/env python3
"""Two edgefleet-run builds against the real runtime's XNNPACK-lowered files, alternating.

Usage (with tools/.venv/bin/python, after `make models` and two builds):
    zoo_bench_ab.py --base BASE/edgefleet-run --new NEW/edgefleet-run [--models-dir DIR]
                    [--rounds 3] [--iterations 10] [--warmup 2] [--core 1] [MODEL ...]

For each model, `--rounds` rounds of: ours with the base binary, ours with the new binary
(both `run --threads 1` on model.pte, optimized kernels, no delegate), and the real
ExecuTorch runtime on model_xnnpack.pte (thread pool reset to 1), one after the other, so
that a host shared with other work loads all three alike. The process pins itself (and so
its children) to one core (`--core`) at nice 19. Figures: CPU ms per inference, measured as
zoo_bench.py does (process CPU time over the timed calls: ours as edgefleet-run reports
it, so that load time, which varies with the host's huge pages, stays out of it, and the
real runtime's in its worker); the table prints each arm's
median over the rounds, the ratios of the medians, and every round. The new binary's
outputs are checked against expected_0.npy (max |ours - torch| / max(1, |torch|)).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zoo_bench  # noqa: E402


def run_et_pinned(model, inputs, iterations, warmup):
    """The real runtime in a child process (which inherits this process's pinning)."""
    cmd = [sys.executable, zoo_bench.__file__, "--et-worker", model,
           "--iterations", str(iterations), "--warmup", str(warmup), *inputs]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return None
    import json
    return json.loads(out.stdout.strip().splitlines()[-1])["cpu_ms"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--models-dir")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--core", type=int, default=1)
    ap.add_argument("models", nargs="*")
    args = ap.parse_args()
    os.sched_setaffinity(0, {args.core})
    os.nice(19)
    models_dir, names = zoo_bench.model_dirs(args.models_dir, args.models)
    print(f"core {args.core}, {args.rounds} rounds x {args.iterations} iterations "
          f"(warmup {args.warmup}), CPU ms per inference, medians over rounds")
    print("| model | base | new | ET-XNN | base / ET-XNN | new / ET-XNN | new / base | max err (new) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    details = []
    for name in names:
        d = os.path.join(models_dir, name)
        xnn = os.path.join(d, "model_xnnpack.pte")
        if not os.path.exists(xnn):
            continue
        pte = os.path.join(d, "model.pte")
        inputs = zoo_bench.inputs_of(d)
        rounds = {"base": [], "new": [], "xnn": []}
        for _ in range(args.rounds):
            for arm, binary in (("base", args.base), ("new", args.new)):
                r = zoo_bench.run_ours(binary, pte, inputs, args.iterations, args.warmup, False)
                if "cpu_ms" in r:
                    rounds[arm].append(r["cpu_ms"])
            et = run_et_pinned(xnn, inputs, args.iterations, args.warmup)
            if et is not None:
                rounds["xnn"].append(et)
        with tempfile.TemporaryDirectory() as out_dir:
            zoo_bench.run_ours(args.new, pte, inputs, 1, 0, False, out_dir)
            err = zoo_bench.max_error(out_dir, d)
        med = {k: statistics.median(v) if v else None for k, v in rounds.items()}
        f, r = zoo_bench.fmt, zoo_bench.ratio
        print(f"| {name} | {f(med['base'])} | {f(med['new'])} | {f(med['xnn'])} | "
              f"{f(r(med['base'], med['xnn']), 2)} | {f(r(med['new'], med['xnn']), 2)} | "
              f"{f(r(med['new'], med['base']), 2)} | {err:.1e} |", flush=True)
        details.append((name, rounds, os.getloadavg()[0]))
    for name, rounds, load in details:
        print(f"{name} (load {load:.1f}): " +
              "; ".join(f"{k} " + ", ".join(f"{x:.2f}" for x in v) for k, v in rounds.items()))


if __name__ == "__main__":
    main()
