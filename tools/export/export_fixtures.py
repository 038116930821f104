#!/usr/bin/env python3
"""Exports EdgeFleet's golden .pte fixtures with the real ExecuTorch exporter.

Run through tools/export/regenerate.sh (which creates the venv first).

For each fixture, writes test/fixtures/<name>/:
  model.pte       torch.export.export -> to_edge_transform_and_lower (no
                  partitioner, so no delegate) -> to_executorch
  input_<i>.npy   seeded inputs, in the dtypes the method takes; always in
                  logical (C-order) layout, whatever the input's dim order
  expected_<j>.npy  torch eager outputs on those inputs, flattened in output order
and test/fixtures/manifest.json describing all of them (shapes, dtypes, dim
orders, dynamic bounds, operators).

Every fixture seeds torch with its own seed, so adding one does not change the
others; re-running produces the same bytes.
"""

import argparse
import dataclasses
import importlib.metadata
import json
import logging
import os
import re
import shutil
import sys
import zlib

logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# The exporter's imports (torch.export, executorch, inspect_pte) are made
# where they are used: the case functions below also run under Debian's
# torch 1.13, which builds the same modules for the .ptl files
# (ptl_debian.py).

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_PTE_BYTES = 2 * 1024 * 1024
MAX_TOTAL_BYTES = 20 * 1024 * 1024


@dataclasses.dataclass
class Case:
    module: nn.Module
    export_inputs: tuple  # example inputs given to torch.export
    inputs: tuple  # inputs stored in the fixture and run through eager
    dynamic_shapes: object = None
    input_notes: dict = dataclasses.field(default_factory=dict)  # index -> extra manifest keys


def _randomize_batchnorm(module):
    """Gives every BatchNorm non-trivial running stats and affine params."""
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(torch.randn(n) * 0.1)
            m.running_var.copy_(torch.rand(n) + 0.5)
            m.weight.data.copy_(torch.rand(n) + 0.5)
            m.bias.data.copy_(torch.randn(n) * 0.1)


# ---------------------------------------------------------------- fixtures


class Add(nn.Module):
    def forward(self, x, y):
        return x + y


def case_add():
    x, y = torch.randn(2, 3), torch.randn(2, 3)
    return Case(Add(), (x, y), (x, y))


def case_mlp():
    m = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8))
    x = torch.randn(4, 16)
    return Case(m, (x,), (x,))


def case_small_cnn():
    m = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(8 * 8 * 8, 10),
    )
    _randomize_batchnorm(m)
    x = torch.randn(1, 3, 16, 16)
    return Case(m, (x,), (x,))


def case_mobilenet_v2_035():
    from torchvision.models import mobilenet_v2

    # 10 classes: the 1280x1000 classifier alone would be 5 MB of float32.
    m = mobilenet_v2(weights=None, width_mult=0.35, num_classes=10)
    _randomize_batchnorm(m)
    x = torch.randn(1, 3, 96, 96)
    return Case(m, (x,), (x,))


class TwoInTupleOut(nn.Module):
    def forward(self, x, y):
        return x * y + 1, x - y, (x @ y.T).sigmoid()


def case_two_in_tuple_out():
    x, y = torch.randn(3, 4), torch.randn(3, 4)
    return Case(TwoInTupleOut(), (x, y), (x, y))


def case_channels_last():
    m = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU())
    x = torch.randn(1, 3, 8, 8).to(memory_format=torch.channels_last)
    return Case(m, (x,), (x,), input_notes={0: {"dim_order": [0, 2, 3, 1]}})


def case_dynamic_bound():
    m = nn.Sequential(nn.Linear(16, 8), nn.Tanh())
    try:
        from torch.export import Dim
    except ImportError:  # torch 1.13 (the .ptl side): TorchScript shapes are dynamic anyway
        dynamic_shapes = None
    else:
        dynamic_shapes = ({0: Dim("batch", min=1, max=8)},)
    return Case(
        m,
        (torch.randn(8, 16),),
        (torch.randn(3, 16),),
        dynamic_shapes=dynamic_shapes,
        input_notes={0: {"max_shape": [8, 16], "dynamic_dims": {"0": {"min": 1, "max": 8}}}},
    )


class OpsMix(nn.Module):
    """Exercises many portable kernels in one graph: avg_pool2d, mean, sum,
    cat, addmm, hardtanh, clamp, tanh, unsqueeze, expand, full, sub, div,
    sigmoid, permute, softmax, mul, squeeze, mm (and a view the exporter
    turns into a memory-planned alias with no instruction)."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(8, 6) * 0.5)
        self.b = nn.Parameter(torch.randn(6) * 0.1)
        self.proj = nn.Parameter(torch.randn(3, 5))

    def forward(self, x):  # x: [2, 4, 8, 8]
        p = F.avg_pool2d(x, 2)  # [2, 4, 4, 4]
        m = p.mean(dim=(2, 3))  # [2, 4]
        s = p.sum(dim=1).sum(dim=-1)  # [2, 4]
        h = torch.cat([m, s], dim=1)  # [2, 8]
        z = torch.addmm(self.b, h, self.w)  # [2, 6]
        z = F.hardtanh(z, -2.0, 2.0) + torch.clamp(z, min=-0.5, max=0.75)
        t = torch.tanh(z).unsqueeze(1).expand(2, 3, 6)  # [2, 3, 6]
        f = torch.full((2, 3, 6), 0.25)
        q = (t - f) / (1.5 + torch.sigmoid(t))
        sm = torch.softmax(q.permute(0, 2, 1), dim=-1)  # [2, 6, 3]
        col = (sm * q.permute(0, 2, 1)).sum(dim=-1, keepdim=True).squeeze(-1)  # [2, 6]
        out = torch.mm(sm.reshape(12, 3), self.proj)  # [12, 5]; the reshape is a planned alias
        return out, col


def case_ops_mix():
    x = torch.randn(2, 4, 8, 8)
    return Case(OpsMix(), (x,), (x,))


FIXTURES = [
    ("add", "tensor + tensor, two [2,3] inputs", case_add),
    ("mlp", "Linear(16,32)-ReLU-Linear(32,8), input [4,16]", case_mlp),
    (
        "small_cnn",
        "Conv2d(3,8,3,pad 1)-BatchNorm2d(eval, random running stats)-ReLU-MaxPool2d(2)"
        "-Flatten-Linear(512,10), input [1,3,16,16]",
        case_small_cnn,
    ),
    (
        "mobilenet_v2_035",
        "torchvision mobilenet_v2(width_mult=0.35, num_classes=10), seeded random weights"
        " and BN stats, eval, input [1,3,96,96]",
        case_mobilenet_v2_035,
    ),
    (
        "two_in_tuple_out",
        "forward(x,y) -> (x*y+1, x-y, sigmoid(x@y.T)), inputs [3,4]",
        case_two_in_tuple_out,
    ),
    (
        "channels_last",
        "Conv2d(3,4,3,pad 1)-ReLU exported with a channels_last input [1,3,8,8];"
        " input_0.npy is in logical NCHW order",
        case_channels_last,
    ),
    (
        "dynamic_bound",
        "Linear(16,8)-Tanh with bounded dynamic batch (1..8), exported at [8,16];"
        " stored input is [3,16]",
        case_dynamic_bound,
    ),
    (
        "ops_mix",
        "avg_pool2d, mean, sum, cat, addmm, hardtanh, clamp, tanh, unsqueeze, expand,"
        " full, sub, div, sigmoid, permute, softmax, mul, squeeze, mm and a view (planned alias)"
        " in one graph; input [2,4,8,8]",
        case_ops_mix,
    ),
]


# ---------------------------------------------------------------- export


def _flatten(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _flatten(o)]
    raise TypeError(f"unsupported output type {type(out)}")


def _spec(t, notes=None):
    d = {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", "")}
    d.update(notes or {})
    return d


def _dim_bounds(ep, d):
    """(min, max) of one dimension of a traced tensor: its size when static,
    else the range torch.export's constraints give its symbolic expression
    (an output dimension may be an expression of the inputs' symbols)."""
    from torch.utils._sympy.value_ranges import bound_sympy

    if isinstance(d, int):
        return (d, d)
    expr = d.node.expr
    r = ep.range_constraints.get(expr) or bound_sympy(expr, ep.range_constraints)
    return (int(r.lower), int(r.upper))


def input_bounds(ep):
    """[(min, max)] per dimension of each user input, from torch.export's
    range constraints (a static dimension is (size, size))."""
    from torch.export.graph_signature import InputKind

    nodes = {n.name: n for n in ep.graph.nodes if n.op == "placeholder"}
    return [
        [_dim_bounds(ep, d) for d in nodes[spec.arg.name].meta["val"].shape]
        for spec in ep.graph_signature.input_specs
        if spec.kind == InputKind.USER_INPUT
    ]


def output_bounds(ep):
    """[(min, max)] per dimension of each user output: which dimensions
    follow the inputs' (a static one is (size, size))."""
    from torch.export.graph_signature import OutputKind

    (output,) = [n for n in ep.graph.nodes if n.op == "output"]
    nodes = {n.name: n for n in output.args[0] if hasattr(n, "name")}
    return [
        [_dim_bounds(ep, d) for d in nodes[spec.arg.name].meta["val"].shape]
        for spec in ep.graph_signature.output_specs
        if spec.kind == OutputKind.USER_OUTPUT
    ]


def bounds_textproto(inputs, outputs):
    """input_bounds.textproto (proto/edgefleet/v1/model_bounds.proto) for a
    program with a dynamic input, or None when every input is static: the
    server needs it to check each dimension of a request, and to say which
    output dimensions vary (ModelMetadata)."""
    if all(lo == hi for dims in inputs for lo, hi in dims):
        return None
    lines = [
        "# proto-file: proto/edgefleet/v1/model_bounds.proto",
        "# proto-message: edgefleet.v1.InputBounds",
        "# Written by tools/export from torch.export's range constraints.",
    ]
    for field, prefix, bounds in (("inputs", "input", inputs), ("outputs", "output", outputs)):
        for i, dims in enumerate(bounds):
            lo = ", ".join(str(a) for a, _ in dims)
            hi = ", ".join(str(b) for _, b in dims)
            lines.append(f'{field} {{ name: "{prefix}_{i}" min: [{lo}] max: [{hi}] }}')
    return "\n".join(lines) + "\n"


def export_pte(case):
    """The program's bytes and its input_bounds.textproto text (or None)."""
    from torch.export import export

    from executorch.exir import to_edge_transform_and_lower

    ep = export(case.module, case.export_inputs, dynamic_shapes=case.dynamic_shapes, strict=True)
    bounds = bounds_textproto(input_bounds(ep), output_bounds(ep))
    return to_edge_transform_and_lower(ep).to_executorch().buffer, bounds


def export_one(name, description, build, out_dir):
    import inspect_pte

    torch.manual_seed(zlib.crc32(name.encode()))
    with torch.no_grad():
        case = build()
        case.module.eval()
        pte, bounds = export_pte(case)
        outputs = _flatten(case.module(*case.inputs))
    if len(pte) > MAX_PTE_BYTES:
        raise SystemExit(f"{name}: model.pte is {len(pte)} bytes, over {MAX_PTE_BYTES}")

    d = os.path.join(out_dir, name)
    os.makedirs(d)
    path = os.path.join(d, "model.pte")
    with open(path, "wb") as f:
        f.write(pte)
    if bounds is not None:
        with open(os.path.join(d, "input_bounds.textproto"), "w") as f:
            f.write(bounds)
    for i, t in enumerate(case.inputs):
        np.save(os.path.join(d, f"input_{i}.npy"), t.contiguous().numpy())
    for j, t in enumerate(outputs):
        np.save(os.path.join(d, f"expected_{j}.npy"), t.contiguous().numpy())
    entry = {
        "name": name,
        "inputs": len(case.inputs),
        "outputs": len(outputs),
        "description": description,
        "pte_bytes": len(pte),
        "input_specs": [_spec(t, case.input_notes.get(i)) for i, t in enumerate(case.inputs)],
        "output_specs": [_spec(t) for t in outputs],
        "operators": inspect_pte.operators(path),
    }
    print(f"  {name}: {len(pte)} bytes, ops {entry['operators']}", file=sys.stderr)
    return entry


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(REPO, "test", "fixtures"))
    ap.add_argument("--only", nargs="*", help="export just these fixtures (manifest lists them only)")
    args = ap.parse_args()

    torch.use_deterministic_algorithms(True)
    os.makedirs(args.out, exist_ok=True)
    entries = []
    for name, description, build in FIXTURES:
        if args.only and name not in args.only:
            continue
        shutil.rmtree(os.path.join(args.out, name), ignore_errors=True)
        entries.append(export_one(name, description, build, args.out))

    manifest = {
        "fixtures": entries,
        "generated_by": "tools/export/regenerate.sh",
        "torch": importlib.metadata.version("torch"),
        "executorch": importlib.metadata.version("executorch"),
    }
    text = json.dumps(manifest, indent=2)
    # Keep number lists (shapes, dim orders) on one line.
    text = re.sub(r"\[\n[-\d,\s]+\]", lambda m: json.dumps(json.loads(m.group(0))), text)
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        f.write(text + "\n")

    total = sum(
        os.path.getsize(os.path.join(r, fn)) for r, _, fs in os.walk(args.out) for fn in fs
    )
    if total > MAX_TOTAL_BYTES:
        raise SystemExit(f"{args.out} holds {total} bytes, over {MAX_TOTAL_BYTES}")
    print(f"wrote {len(entries)} fixtures to {args.out} ({total} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
