#!/usr/bin/env python3
"""Exports the golden fixtures for the old stack: PyTorch Mobile .ptl files.

Run through tools/export/regenerate.sh (after export_fixtures.py, which
recreates each fixture folder), or alone:
  tools/.venv/bin/python tools/export/export_ptl.py [--only mobilenet_v2_035]

For each fixture that TorchScript can script, writes test/fixtures/<name>/
model.ptl the way PyTorch Mobile users shipped models:
  torch.jit.script -> torch.utils.mobile_optimizer.optimize_for_mobile (or,
  with a torch built without XNNPACK, the same passes minus XNNPACK
  prepacking; see _optimize_for_mobile) ->
  _save_for_lite_interpreter -> _backport_for_mobile to the bytecode version
  the linked libtorch's lite interpreter reads (--bytecode-version, default 8:
  Debian bookworm's libtorch 1.13 produces and reads bytecode v8).

The module is built by the same case function, after the same seed, as the
.pte of export_fixtures.py, so both files hold the same weights; the test
test/service/stacks_agree_test.cc runs both stacks on the fixture's inputs
and compares. Writes test/fixtures/ptl_manifest.json (sizes, bytecode
versions, skipped fixtures with the reason).
"""

import argparse
import io
import json
import logging
import os
import sys
import zlib

logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch.jit.mobile import (  # noqa: E402
    _backport_for_mobile_to_buffer,
    _get_model_bytecode_version,
    _load_for_lite_interpreter,
)
from torch.utils.mobile_optimizer import optimize_for_mobile  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_fixtures  # noqa: E402

REPO = export_fixtures.REPO


def _flatten(out):
    return export_fixtures._flatten(out)


def _optimize_for_mobile(scripted):
    """optimize_for_mobile, or its non-XNNPACK passes where it cannot run.

    torch's optimize_for_mobile (C++ optimizeForMobile) refuses to run in a
    torch built without XNNPACK, which PyPI's x86-64 wheels are. There we run
    the passes it runs apart from XNNPACK prepacking, in its order: conv-BN
    folding, freezing (constant propagation, inlining of parameters), dropout
    removal and add-relu fusion. Debian's libtorch 1.13 then runs the frozen
    graph with its own CPU kernels.
    """
    try:
        return optimize_for_mobile(scripted)
    except RuntimeError as e:
        if "XNNPACK is not enabled" not in str(e):
            raise
    module = scripted._c
    torch._C._jit_pass_fold_convbn(module)
    module = torch._C._freeze_module(module)
    torch._C._jit_pass_remove_dropout(module)
    wrapped = torch.jit._recursive.wrap_cpp_module(module)
    torch._C._jit_pass_fuse_add_relu(wrapped.forward.graph)
    return wrapped


def export_one(name, build, out_dir, bytecode_version):
    torch.manual_seed(zlib.crc32(name.encode()))
    with torch.no_grad():
        case = build()
        case.module.eval()
        scripted = torch.jit.script(case.module)
        optimized = _optimize_for_mobile(scripted)
        buffer = io.BytesIO(optimized._save_to_buffer_for_lite_interpreter())
    produced = _get_model_bytecode_version(io.BytesIO(buffer.getvalue()))
    if produced > bytecode_version:
        data = _backport_for_mobile_to_buffer(buffer, bytecode_version)
    else:
        data = buffer.getvalue()
    final = _get_model_bytecode_version(io.BytesIO(data))
    if final > bytecode_version:
        raise SystemExit(f"{name}: cannot backport bytecode v{produced} to v{bytecode_version}")

    # The .ptl must compute what eager torch computed on the stored inputs.
    d = os.path.join(out_dir, name)
    inputs = [torch.from_numpy(np.load(os.path.join(d, f"input_{i}.npy")))
              for i in range(len(case.inputs))]
    loaded = _load_for_lite_interpreter(io.BytesIO(data))
    got = _flatten(loaded(*inputs))
    for j, t in enumerate(got):
        want = np.load(os.path.join(d, f"expected_{j}.npy"))
        if not np.allclose(t.numpy(), want, rtol=1e-4, atol=1e-5):
            raise SystemExit(f"{name}: .ptl output {j} differs from expected_{j}.npy")

    with open(os.path.join(d, "model.ptl"), "wb") as f:
        f.write(data)
    print(f"  {name}: model.ptl {len(data)} bytes, bytecode v{produced} -> v{final}",
          file=sys.stderr)
    return {"name": name, "ptl_bytes": len(data), "produced_bytecode_version": produced,
            "bytecode_version": final}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(REPO, "test", "fixtures"))
    ap.add_argument("--only", nargs="*", help="export just these fixtures")
    ap.add_argument("--bytecode-version", type=int, default=8)
    args = ap.parse_args()

    torch.use_deterministic_algorithms(True)
    entries, skipped = [], []
    for name, _, build in export_fixtures.FIXTURES:
        if args.only and name not in args.only:
            continue
        if not os.path.isdir(os.path.join(args.out, name)):
            raise SystemExit(f"{name}: run export_fixtures.py first (no {args.out}/{name})")
        try:
            entries.append(export_one(name, build, args.out, args.bytecode_version))
        except (torch.jit.frontend.NotSupportedError, RuntimeError) as e:
            reason = str(e).strip().splitlines()[0]
            print(f"  {name}: skipped ({reason})", file=sys.stderr)
            skipped.append({"name": name, "reason": reason})

    manifest = {
        "ptl": entries,
        "skipped": skipped,
        "generated_by": "tools/export/export_ptl.py",
        "torch": torch.__version__.split("+")[0],
    }
    with open(os.path.join(args.out, "ptl_manifest.json"), "w") as f:
        f.write(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main()
