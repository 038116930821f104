#!/usr/bin/env python3
"""Times one .pte with the real ExecuTorch runtime (the Python `executorch.runtime`).

Usage (with tools/.venv/bin/python, see tools/export/setup_venv.sh):
    et_runtime_bench.py [--iterations N] [--warmup W] [--method NAME]
                        [--channels-last I]... MODEL.pte [INPUT.npy ...]

Prints one JSON object:
    {"load_ms", "method_load_ms", "first_ms", "latency_ms": {"p50","p90","min","max"}, ...}
load_ms is Program load, method_load_ms is Method load (init), first_ms the first
execute; latency_ms covers the N iterations after W warm-up runs (nearest-rank
percentiles). Without .npy files, inputs are seeded random tensors shaped as the
method's input metadata says. An .npy is in logical (C-order) layout; list the
indices of inputs the program takes in channels_last with --channels-last.
"""

import argparse
import json
import logging
import math
import sys
import time

logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)

import numpy as np  # noqa: E402
import torch  # noqa: E402
from executorch.runtime import Runtime  # noqa: E402

# ExecuTorch ScalarType codes (TensorInfo.dtype()) -> torch dtypes.
SCALAR_TYPES = {
    0: torch.uint8, 1: torch.int8, 2: torch.int16, 3: torch.int32, 4: torch.int64,
    5: torch.float16, 6: torch.float32, 7: torch.float64, 11: torch.bool, 15: torch.bfloat16,
}


def nearest_rank(sorted_values, p):
    rank = max(1, math.ceil(p / 100.0 * len(sorted_values)))
    return sorted_values[rank - 1]


def random_inputs(meta, seed):
    gen = torch.Generator().manual_seed(seed)
    inputs = []
    for i in range(meta.num_inputs()):
        info = meta.input_tensor_meta(i)
        dtype = SCALAR_TYPES.get(info.dtype())
        if dtype is None:
            raise SystemExit(f"input {i}: unsupported ExecuTorch scalar type {info.dtype()}")
        sizes = list(info.sizes())
        if dtype.is_floating_point:
            inputs.append(torch.randn(sizes, generator=gen).to(dtype))
        elif dtype == torch.bool:
            inputs.append(torch.rand(sizes, generator=gen) > 0.5)
        else:
            inputs.append(torch.randint(0, 10, sizes, generator=gen, dtype=dtype))
    return inputs


def ms_since(t0):
    return (time.perf_counter_ns() - t0) / 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--method", default="forward")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--channels-last", type=int, action="append", default=[], metavar="I")
    ap.add_argument("model")
    ap.add_argument("inputs", nargs="*", metavar="INPUT.npy")
    args = ap.parse_args()
    if args.iterations < 1 or args.warmup < 0:
        ap.error("--iterations must be >= 1 and --warmup >= 0")

    runtime = Runtime.get()  # imports the native runtime; not part of load time
    t0 = time.perf_counter_ns()
    program = runtime.load_program(args.model)
    load_ms = ms_since(t0)
    if args.method not in program.method_names:
        raise SystemExit(f"{args.model} has no method {args.method!r}")
    t0 = time.perf_counter_ns()
    method = program.load_method(args.method)
    method_load_ms = ms_since(t0)

    if args.inputs:
        inputs = [torch.from_numpy(np.load(p)) for p in args.inputs]
    else:
        inputs = random_inputs(method.metadata, args.seed)
    for i in args.channels_last:
        inputs[i] = inputs[i].to(memory_format=torch.channels_last)

    t0 = time.perf_counter_ns()
    method.execute(inputs)
    first_ms = ms_since(t0)
    for _ in range(args.warmup):
        method.execute(inputs)
    samples = []
    for _ in range(args.iterations):
        t0 = time.perf_counter_ns()
        method.execute(inputs)
        samples.append(ms_since(t0))
    samples.sort()

    json.dump(
        {
            "model": args.model,
            "runtime": "executorch-python",
            "iterations": args.iterations,
            "warmup": args.warmup,
            "load_ms": round(load_ms, 4),
            "method_load_ms": round(method_load_ms, 4),
            "first_ms": round(first_ms, 4),
            "latency_ms": {
                "p50": round(nearest_rank(samples, 50), 4),
                "p90": round(nearest_rank(samples, 90), 4),
                "min": round(samples[0], 4),
                "max": round(samples[-1], 4),
            },
        },
        sys.stdout,
    )
    print()


if __name__ == "__main__":
    main()
