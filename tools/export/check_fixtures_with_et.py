#!/usr/bin/env python3
"""Checks every fixture in test/fixtures/manifest.json with the real ExecuTorch
runtime: the .pte loads (with InternalConsistency verification), its method
metadata agrees with the manifest, and running it on input_*.npy reproduces
expected_*.npy (shape, dtype, values within tolerance).

Usage (venv python): check_fixtures_with_et.py [--fixtures DIR] [NAME ...]
Exits non-zero if any fixture fails; prints one line per fixture.
"""

import argparse
import json
import logging
import os
import sys

logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)

import numpy as np  # noqa: E402
import torch  # noqa: E402
from executorch.runtime import Runtime, Verification  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RTOL, ATOL = 1e-4, 1e-5
CHANNELS_LAST = [0, 2, 3, 1]


def _input_tensor(path, spec):
    t = torch.from_numpy(np.load(path))
    order = spec.get("dim_order")
    if order == CHANNELS_LAST:
        t = t.to(memory_format=torch.channels_last)
    elif order not in (None, list(range(t.dim()))):
        raise ValueError(f"{path}: unsupported dim_order {order}")
    return t


def check(runtime, root, fx):
    d = os.path.join(root, fx["name"])
    program = runtime.load_program(
        os.path.join(d, "model.pte"), verification=Verification.InternalConsistency
    )
    method = program.load_method("forward")
    meta = method.metadata
    if (meta.num_inputs(), meta.num_outputs()) != (fx["inputs"], fx["outputs"]):
        return f"method has {meta.num_inputs()} inputs / {meta.num_outputs()} outputs"
    for i, spec in enumerate(fx["input_specs"]):
        planned = list(meta.input_tensor_meta(i).sizes())
        if planned != spec.get("max_shape", spec["shape"]):
            return f"input {i}: method expects {planned}, manifest says {spec}"

    inputs = [
        _input_tensor(os.path.join(d, f"input_{i}.npy"), spec)
        for i, spec in enumerate(fx["input_specs"])
    ]
    outputs = method.execute(inputs)
    if len(outputs) != fx["outputs"]:
        return f"execute returned {len(outputs)} outputs"
    worst = 0.0
    for j, got in enumerate(outputs):
        want = np.load(os.path.join(d, f"expected_{j}.npy"))
        got = got.contiguous().numpy()
        if got.shape != want.shape or got.dtype != want.dtype:
            return f"output {j}: got {got.dtype}{list(got.shape)}, want {want.dtype}{list(want.shape)}"
        if not np.allclose(got, want, rtol=RTOL, atol=ATOL):
            return f"output {j}: max abs diff {np.max(np.abs(got - want)):.3g}"
        worst = max(worst, float(np.max(np.abs(got - want))) if got.size else 0.0)
    return worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fixtures", default=os.path.join(REPO, "test", "fixtures"))
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    with open(os.path.join(args.fixtures, "manifest.json")) as f:
        manifest = json.load(f)

    runtime = Runtime.get()
    failed = 0
    for fx in manifest["fixtures"]:
        if args.names and fx["name"] not in args.names:
            continue
        try:
            result = check(runtime, args.fixtures, fx)
        except Exception as e:  # a load or execute error is a failed fixture
            result = f"{type(e).__name__}: {e}"
        if isinstance(result, str):
            failed += 1
            print(f"FAIL {fx['name']}: {result}")
        else:
            print(f"ok   {fx['name']}: max abs diff {result:.3g}")
    print(f"{'FAILED' if failed else 'all fixtures match'} "
          f"(executorch {manifest['executorch']}, torch {manifest['torch']})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
