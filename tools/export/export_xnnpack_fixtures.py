#!/usr/bin/env python3
"""Exports XNNPACK-lowered .pte fixtures with the real ExecuTorch exporter.

Run through tools/export/regenerate.sh (after export_fixtures.py). Two kinds:

* Every fixture of export_fixtures.py gets test/fixtures/<name>/model_xnnpack.pte:
  the same module, weights and inputs (same seed), lowered with
  XnnpackPartitioner. Its expected_<j>.npy (torch eager) apply unchanged.
* Lowered-only fixtures, test/fixtures/xnnpack_<name>/ with model_xnnpack.pte,
  input_<i>.npy and expected_<j>.npy: operator families the partitioner
  delegates that the float fixtures do not reach (attention, concatenation,
  slicing, activations), static int8 (PT2E XNNPACKQuantizer) and dynamically
  quantized linear layers. For the quantized ones expected_<j>.npy are the
  real ExecuTorch runtime's outputs on the same file (a quantized model is
  checked against the runtime it ships on, not against float eager).

Writes test/fixtures/xnnpack_manifest.json listing every lowered file with its
delegate count and node counts.
"""

import json
import logging
import os
import sys
import zlib

logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402
from torch.export import export  # noqa: E402

from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner  # noqa: E402
from executorch.exir import to_edge_transform_and_lower  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_fixtures as ef  # noqa: E402
import inspect_pte  # noqa: E402

OUT = os.path.join(ef.REPO, "test", "fixtures")


def lower(module, export_inputs, dynamic_shapes=None):
    ep = export(module, export_inputs, dynamic_shapes=dynamic_shapes, strict=True)
    return to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()]).to_executorch().buffer


# ------------------------------------------------------- lowered-only fixtures


class Attention(nn.Module):
    """A pre-norm transformer block: layer norm, q/k/v projections, scaled
    dot-product attention via matmul + softmax, GELU MLP, residuals."""

    def __init__(self, d=32, heads=4):
        super().__init__()
        self.heads = heads
        self.norm = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 64), nn.GELU(), nn.Linear(64, d))

    def forward(self, x):  # [B, T, D]
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm(x)).split(d, dim=-1)
        q = q.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
        a = torch.softmax(q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5, dim=-1)
        y = (a @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.out(y)
        return x + self.mlp(x)


class Activations(nn.Module):
    """Element-wise families: tanh, exp, log, sqrt, rsqrt, abs, neg, square,
    floor, ceil, leaky relu, hardswish, sigmoid, min/max, sub, div, cat,
    slice, pad."""

    def forward(self, x):  # [2, 3, 8, 8]
        a = torch.tanh(x) + torch.exp(-x.abs())
        b = torch.log(x.abs() + 1.0) * torch.rsqrt(x * x + 1.0) - torch.sqrt(x.abs())
        c = F.leaky_relu(x, 0.1) + F.hardswish(x) - torch.neg(torch.sigmoid(x))
        d = torch.maximum(torch.floor(x), torch.ceil(x * 0.5)) / (torch.square(x) + 1.0)
        cat = torch.cat([a, b, c, d], dim=1)  # [2, 12, 8, 8]
        s = cat[:, 2:10, 1:7, :]  # [2, 8, 6, 8]
        return F.pad(s, (1, 1, 2, 0)), torch.minimum(a, b)


class ConvMix(nn.Module):
    """Convolution families in one net: dense, depthwise, grouped, strided,
    dilated, transposed, avg/max pooling, bilinear upsampling, PReLU,
    channel concatenation, global average pooling and a classifier."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.dw = nn.Conv2d(16, 16, 3, padding=1, groups=16)
        self.group = nn.Conv2d(16, 16, 3, padding=2, dilation=2, groups=4)
        self.prelu = nn.PReLU(16)
        self.up = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.head = nn.Linear(40, 5)

    def forward(self, x):  # [1, 3, 32, 32]
        y = F.relu6(self.stem(x))  # [1, 16, 16, 16]
        y = self.prelu(self.group(self.dw(y)))
        p = F.max_pool2d(y, 2) + F.avg_pool2d(y, 2)  # [1, 16, 8, 8]
        u = self.up(p)  # [1, 8, 16, 16]
        r = F.interpolate(p, scale_factor=2, mode="bilinear", align_corners=False)  # [1, 16, 16, 16]
        z = torch.cat([y, u, r], dim=1)  # [1, 40, 16, 16]
        return self.head(z.mean(dim=(2, 3)))


def quantize_pt2e(module, example, dynamic, dynamic_shapes=None, per_channel=True):
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    quantizer = XNNPACKQuantizer().set_global(
        get_symmetric_quantization_config(is_per_channel=per_channel, is_dynamic=dynamic)
    )
    gm = torch.export.export(module, example, dynamic_shapes=dynamic_shapes, strict=True).module()
    gm = prepare_pt2e(gm, quantizer)
    for _ in range(4):  # calibration
        gm(*[torch.randn_like(t) for t in example])
    gm(*example)
    return convert_pt2e(gm)


def run_real_runtime(pte, inputs):
    from executorch.runtime import Runtime

    program = Runtime.get().load_program(pte)
    return [t.clone() for t in program.load_method("forward").execute(list(inputs))]


def case_attention():
    x = torch.randn(2, 8, 32)
    return Attention(), (x,), False


def case_activations():
    x = torch.randn(2, 3, 8, 8) * 2
    return Activations(), (x,), False


def case_conv_mix():
    x = torch.randn(1, 3, 32, 32)
    return ConvMix(), (x,), False


def case_int8_cnn():
    m = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
        nn.Conv2d(16, 16, 3, padding=1, groups=16), nn.ReLU(),
        nn.Conv2d(16, 24, 1), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(24, 10),
    ).eval()
    x = torch.randn(1, 3, 32, 32)
    return quantize_pt2e(m, (x,), dynamic=False), (x,), True


class DynamicReshape(nn.Module):
    """Reshapes whose shape follows a bounded-dynamic batch: view(-1, 8)
    (serialized with the one inferred dim) between two linear layers."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(16, 32)
        self.b = nn.Linear(8, 4)

    def forward(self, x):  # [B, 16]
        y = torch.relu(self.a(x)).view(-1, 8)  # [4B, 8]
        return self.b(y)  # [4B, 4]


def case_dynamic_reshape():
    from torch.export import Dim

    # Exported at the bound (batch 8); the stored input has batch 3.
    export_as = ((torch.randn(8, 16),), ({0: Dim("batch", min=1, max=8)},))
    return DynamicReshape(), (torch.randn(3, 16),), False, export_as


def case_dynamic_int8_mlp():
    m = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 32)).eval()
    x = torch.randn(4, 64)
    return quantize_pt2e(m, (x,), dynamic=True), (x,), True


def case_int8_conv_transpose():
    m = nn.Sequential(nn.Conv2d(3, 6, 3, groups=3, padding=1), nn.ReLU(),
                      nn.ConvTranspose2d(6, 5, 3, stride=2, padding=1, output_padding=1)).eval()
    x = torch.randn(1, 3, 6, 6)
    return quantize_pt2e(m, (x,), dynamic=False), (x,), True


class UnfusedRelu(nn.Module):
    """Static int8 where the quantizer leaves ReLU / ReLU6 unfused (each gets
    its own output quantization, so the partitioner writes a Clamp that
    requantizes): strided 5x5, dilated 3x3, depthwise and (1, 3)
    convolutions, residual adds, two images."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(5, 24, 5, stride=2, padding=2)
        self.b = nn.Conv2d(24, 24, 3, padding=2, dilation=2)
        self.dw = nn.Conv2d(24, 24, 5, stride=2, padding=2, groups=24)
        self.pw = nn.Conv2d(24, 70, 1)
        self.back = nn.Conv2d(70, 24, 1)
        self.wide = nn.Conv2d(24, 20, (1, 3), padding=(0, 1))

    def forward(self, x):  # [2, 5, 17, 13]
        y = F.relu6(self.a(x))
        y = F.relu(self.b(y)) + y
        y = F.relu6(self.dw(y))
        y = self.back(F.relu6(self.pw(y))) + y
        return self.wide(y)


def case_int8_unfused_relu():
    x = torch.randn(2, 5, 17, 13)
    return quantize_pt2e(UnfusedRelu().eval(), (x,), dynamic=False), (x,), True


class SharedPrelu(nn.Module):
    """nn.PReLU() with one slope for all channels (the system XNNPACK takes
    one slope per channel only) and a per-channel PReLU."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.shared = nn.PReLU(init=0.2)
        self.per_channel = nn.PReLU(4, init=0.1)

    def forward(self, x):  # [2, 3, 6, 6]
        y = self.conv(x)
        return self.shared(y), self.per_channel(y) * 2.0


def case_prelu_shared():
    return SharedPrelu(), (torch.randn(2, 3, 6, 6),), False


LOWERED_ONLY = [
    ("attention", "pre-norm transformer block (layer norm, qkv, matmul softmax attention, GELU MLP), input [2,8,32]", case_attention),
    ("activations", "tanh, exp, log, rsqrt, sqrt, abs, neg, square, floor, ceil, leaky relu, hardswish, sigmoid, min, max, cat, slice, pad; input [2,3,8,8]", case_activations),
    ("conv_mix", "dense/depthwise/grouped-dilated/transposed convolution, PReLU, max/avg pool, bilinear upsample, cat, mean, linear; input [1,3,32,32]", case_conv_mix),
    ("int8_cnn", "PT2E static int8 (XNNPACKQuantizer, per-channel weights): conv, depthwise, pointwise, pool, linear; input [1,3,32,32]", case_int8_cnn),
    ("int8_conv_transpose", "PT2E static int8: depthwise (multiplier 2) then a transposed convolution (stride 2, output padding 1) with per-channel weights, which the system XNNPACK cannot run; input [1,3,6,6]", case_int8_conv_transpose),
    ("int8_unfused_relu", "PT2E static int8 with ReLU / ReLU6 left unfused by the quantizer (Clamps that requantize, which the real runtime fuses into the convolution before them): strided, dilated, depthwise and 1x3 convolutions, residual adds; input [2,5,17,13]", case_int8_unfused_relu),
    ("prelu_shared", "nn.PReLU() with one shared slope and a per-channel PReLU after a convolution; input [2,3,6,6]", case_prelu_shared),
    ("dynamic_int8_mlp", "PT2E dynamic int8 linear layers (qd8 activations x per-channel int8 weights); input [4,64]", case_dynamic_int8_mlp),
    ("dynamic_reshape", "Linear(16,32)-ReLU, view(-1, 8), Linear(8,4) with a bounded dynamic batch (1..8), exported at [8,16]; stored input is [3,16]", case_dynamic_reshape),
]



def write(d, name, pte, inputs, outputs, description, manifest):
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model_xnnpack.pte")
    with open(path, "wb") as f:
        f.write(pte)
    if inputs is not None:
        for i, t in enumerate(inputs):
            np.save(os.path.join(d, f"input_{i}.npy"), t.contiguous().numpy())
        for j, t in enumerate(outputs):
            np.save(os.path.join(d, f"expected_{j}.npy"), t.contiguous().numpy())
    manifest.append({
        "name": name,
        "file": os.path.relpath(path, OUT),
        "description": description,
        "pte_bytes": len(pte),
        "operators": inspect_pte.operators(path),
    })
    print(f"  {name}: {len(pte)} bytes", file=sys.stderr)


def main():
    only = sys.argv[1:]
    torch.use_deterministic_algorithms(True)
    manifest = []
    for name, description, build in ef.FIXTURES:
        if only and name not in only:
            continue
        torch.manual_seed(zlib.crc32(name.encode()))
        with torch.no_grad():
            case = build()
            case.module.eval()
            pte = lower(case.module, case.export_inputs, case.dynamic_shapes)
        write(os.path.join(OUT, name), name, pte, None, None, description + " (XnnpackPartitioner)", manifest)
    for name, description, build in LOWERED_ONLY:
        if only and name not in only:
            continue
        torch.manual_seed(zlib.crc32(("xnnpack_" + name).encode()))
        with torch.no_grad():
            # A case may add (export inputs, dynamic shapes) to export with.
            module, inputs, quantized, *export_as = build()
            if not quantized:
                module.eval()
            pte = lower(module, *(export_as[0] if export_as else (inputs,)))
            outputs = run_real_runtime(pte, inputs) if quantized else ef._flatten(module(*inputs))
        write(os.path.join(OUT, "xnnpack_" + name), "xnnpack_" + name, pte, inputs, outputs, description, manifest)
    path = os.path.join(OUT, "xnnpack_manifest.json")
    if only and os.path.exists(path):  # keep the entries not re-exported
        with open(path) as f:
            kept = [e for e in json.load(f)["fixtures"] if e["name"] not in {m["name"] for m in manifest}]
        manifest = sorted(kept + manifest, key=lambda e: e["file"])
    with open(path, "w") as f:
        json.dump({"fixtures": manifest, "generated_by": "tools/export/regenerate.sh"}, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
