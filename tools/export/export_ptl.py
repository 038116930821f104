#!/usr/bin/env python3
"""Exports the golden fixtures for the old stack: PyTorch Mobile .ptl files.

Run through tools/export/regenerate.sh (after export_fixtures.py, which
recreates each fixture folder), or alone:
  tools/.venv/bin/python tools/export/export_ptl.py [--only mobilenet_v2_035]

For each fixture, writes test/fixtures/<name>/model.ptl the way PyTorch
Mobile users shipped models, with Debian's torch 1.13 (the torch the linked
lite interpreter comes from, built with XNNPACK): torch.jit.script ->
optimize_for_mobile (XNNPACK prepacking: conv2d and linear run as
prepacked::*_run) -> _save_for_lite_interpreter (bytecode v8).

The module is built here by the same case function, after the same seed, as
the .pte of export_fixtures.py, and its state_dict crosses to Debian's torch
as arrays (ptl_bridge.py, ptl_debian.py), so both files hold exactly the same
weights; test/service/stacks_agree_test.cc runs both stacks on the fixture's
inputs and compares. Writes test/fixtures/ptl_manifest.json (sizes, bytecode
version, operators, prepacked weight bytes).
"""

import argparse
import json
import logging
import os
import sys
import zlib

logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)

import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_fixtures  # noqa: E402
import ptl_bridge  # noqa: E402

REPO = export_fixtures.REPO


def job(name, build, out_dir):
    seed = zlib.crc32(name.encode())
    torch.manual_seed(seed)
    with torch.no_grad():
        case = build()
        case.module.eval()
    d = os.path.join(out_dir, name)
    inputs = [np.load(os.path.join(d, f"input_{i}.npy")) for i in range(len(case.inputs))]
    expected = []
    while os.path.exists(os.path.join(d, f"expected_{len(expected)}.npy")):
        expected.append(np.load(os.path.join(d, f"expected_{len(expected)}.npy")))
    return ptl_bridge.Job(name, export_fixtures.__file__, build.__name__, seed, case.module,
                          inputs, expected, os.path.join(d, "model.ptl"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(REPO, "test", "fixtures"))
    ap.add_argument("--only", nargs="*", help="export just these fixtures")
    args = ap.parse_args()

    jobs = []
    for name, _, build in export_fixtures.FIXTURES:
        if args.only and name not in args.only:
            continue
        if not os.path.isdir(os.path.join(args.out, name)):
            raise SystemExit(f"{name}: run export_fixtures.py first (no {args.out}/{name})")
        jobs.append(job(name, build, args.out))
    exported = ptl_bridge.export(jobs)

    path = os.path.join(args.out, "ptl_manifest.json")
    previous = {}
    if args.only and os.path.exists(path):
        with open(path) as f:
            previous = {e["name"]: e for e in json.load(f)["ptl"]}
    previous.update({e["name"]: e for e in exported["results"]})
    manifest = {
        "ptl": [previous[n] for n, _, _ in export_fixtures.FIXTURES if n in previous],
        "generated_by": "tools/export/export_ptl.py (Debian python3-torch, tools/export/ptl_debian.py)",
        "torch": exported["torch"],
    }
    with open(path, "w") as f:
        f.write(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main()
