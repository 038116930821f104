#!/usr/bin/env python3
"""Per-operator times of one XNNPACK-lowered program: our runtime vs the real ExecuTorch runtime.

Usage (with tools/.venv/bin/python, after a build):
    xnnpack_node_times.py MODEL_DIR [--threads N] [--iterations N] [--edgefleet-run PATH]
                          [--sequence]

Runs MODEL_DIR/model_xnnpack.pte (inputs input_<i>.npy, else seeded random) on
  ours  `edgefleet-run run --trace` (Chrome trace: one event per delegate node on
        our kernels, one per run of XNNPACK nodes, `xnnpack_runtime`)
  ET    executorch's portable_lib with ETDump on: the real runtime's XNNPACK
        delegate reports one event per XNNPACK operator
pinned like xnnpack_bench.py (cores 0..N-1), and prints, per operator kind, the
sum over the program's operators of each operator's fastest run (microseconds): on
a host busy with other work, the figure least disturbed by it. The two runtimes
split work differently (the real one runs 1x1 convolutions as "Fully Connected"
GEMMs; ours runs them on our GEMM and groups XNNPACK nodes into runs), so compare
totals of like kinds; --sequence also prints both operator sequences in order.
"""

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pin(threads):
    return ["taskset", "-c", ",".join(str(c) for c in range(threads))] if shutil.which("taskset") else []


def inputs_of(d):
    paths = []
    while os.path.exists(os.path.join(d, f"input_{len(paths)}.npy")):
        paths.append(os.path.join(d, f"input_{len(paths)}.npy"))
    return paths


def et_worker(model, inputs, iterations, threads, out_path):
    """Child process: the real runtime with ETDump; writes [(operator, fastest us)] as JSON."""
    import logging
    logging.disable(logging.WARNING)
    import numpy as np
    import torch
    from executorch.devtools import Inspector
    from executorch.extension.pybindings.portable_lib import (_load_for_executorch,
                                                              _unsafe_reset_threadpool)
    _unsafe_reset_threadpool(threads)
    module = _load_for_executorch(model, enable_etdump=True, debug_buffer_size=0)
    if inputs:
        args = tuple(torch.from_numpy(np.load(p)) for p in inputs)
    else:
        meta = module.method_meta("forward")
        gen = torch.Generator().manual_seed(0)
        args = tuple(torch.randn(tuple(meta.input_tensor_meta(i).sizes()), generator=gen)
                     for i in range(meta.num_inputs()))
    for _ in range(iterations):
        module.forward(args)
    with tempfile.TemporaryDirectory() as tmp:
        etdump = os.path.join(tmp, "run.etdp")
        module.write_etdump_result_to_file(etdump)
        inspector = Inspector(etdump_path=etdump)
    ops = []
    for block in inspector.event_blocks:
        if block.name != "Execute":
            continue
        for ev in block.events:
            if ev.perf_data is None or ev.name in ("Method::execute", "DELEGATE_CALL"):
                continue
            ops.append((ev.name, min(ev.perf_data.raw) * 1e3))  # ms -> us
    with open(out_path, "w") as f:
        json.dump(ops, f)


def run_et(model, inputs, iterations, threads):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "ops.json")
        cmd = pin(threads) + [sys.executable, os.path.abspath(__file__), "--et-worker", out,
                              "--threads", str(threads), "--iterations", str(iterations), "--",
                              model, *inputs]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"the real runtime failed on {model}:\n{done.stderr[-2000:]}")
        with open(out) as f:
            return [tuple(x) for x in json.load(f)]


def run_ours(binary, model, inputs, iterations, threads):
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "trace.json")
        cmd = pin(threads) + [binary, "run", model, "--threads", str(threads), "--iterations",
                              str(iterations), "--warmup", "3", "--trace", trace]
        cmd += [x for p in inputs for x in ("--input", p)]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"edgefleet-run failed on {model}:\n{done.stderr[-2000:]}")
        with open(trace) as f:
            events = json.load(f)["traceEvents"]
    executes = [e for e in events if e.get("name") == "Method::execute"]
    runs = []
    for x in executes:
        t0, t1 = x["ts"], x["ts"] + x["dur"]
        runs.append([e for e in events if e.get("ph") == "X" and e.get("cat") == "delegate" and
                     t0 <= e["ts"] <= t1])
    n = min(len(r) for r in runs)
    return [(f"{runs[0][i]['name']} ({runs[0][i]['args'].get('engine')})",
             min(r[i]["dur"] for r in runs)) for i in range(n)]


def totals(ops):
    sums, counts = collections.Counter(), collections.Counter()
    for name, us in ops:
        kind = re.sub(r" #\d+$", "", name)
        sums[kind] += us
        counts[kind] += 1
    return sums, counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edgefleet-run",
                    default=os.path.join(ROOT, "build", "default", "runtime", "tools", "edgefleet-run"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=30)
    ap.add_argument("--sequence", action="store_true")
    ap.add_argument("--et-worker", help=argparse.SUPPRESS)
    ap.add_argument("model", nargs="?")
    ap.add_argument("inputs", nargs="*", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.et_worker:
        et_worker(a.model, a.inputs, a.iterations, a.threads, a.et_worker)
        return 0
    if not a.model:
        ap.error("MODEL_DIR is required")
    model = os.path.join(a.model, "model_xnnpack.pte")
    inputs = inputs_of(a.model)
    ours = run_ours(a.edgefleet_run, model, inputs, a.iterations, a.threads)
    et = run_et(model, inputs, a.iterations, a.threads)
    print(f"{model}, {a.threads} thread(s), fastest of {a.iterations} runs per operator (us)")
    for title, ops in (("ours", ours), ("real runtime", et)):
        sums, counts = totals(ops)
        print(f"\n{title}: {len(ops)} operators, total {sum(sums.values()):.0f} us")
        for kind, us in sums.most_common():
            print(f"  {kind:48s} {counts[kind]:4d} {us:10.1f}")
    if a.sequence:
        print("\nsequence (ours | real runtime):")
        for i in range(max(len(ours), len(et))):
            o = ours[i] if i < len(ours) else ("", 0.0)
            e = et[i] if i < len(et) else ("", 0.0)
            print(f"  {o[0][:40]:40s} {o[1]:8.1f} | {e[0][:40]:40s} {e[1]:8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
