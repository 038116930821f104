#!/usr/bin/python3
"""Checks the .ptl fixtures are PyTorch Mobile programs as shipped.

Run by ctest (service.ptl_bytecode) under /usr/bin/python3, i.e. Debian's
torch 1.13, the torch the old stack's lite interpreter comes from. For every
test/fixtures/*/model.ptl: the lite interpreter reads it; its bytecode is
version 8; the operators its bytecode calls (torch.jit.mobile's operator
list) include the XNNPACK prepacked ops expected from the fixture's layers
(listed here by hand from export_fixtures.py) and no unpacked convolution
or linear op, so every conv2d and linear runs from weights packed at load.

Also, when `make models` has written it ($EF_MODEL_CACHE, default
.cache/models), the zoo's int8 MobileNetV2 .ptl (ptl_debian.py's FX
quantization for qnnpack): its bytecode calls the quantized operators
(quantized::conv2d.new, quantized::linear, quantized::add and one
quantize_per_tensor of the input), no float convolution or linear and no
XNNPACK prepacked op; and its requantization scales (the output scale of
each quantized operator and of the input's quantize, read from the file's
TorchScript graph) are the observers' own, none rounded to a power of two.
"""

import glob
import io
import math
import os
import sys

import torch
from torch.jit.mobile import _export_operator_list, _get_model_bytecode_version
from torch.jit.mobile import _load_for_lite_interpreter

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONV, LINEAR = "prepacked::conv2d_clamp_run", "prepacked::linear_clamp_run"
EXPECTED = {
    "add": set(),
    "mlp": {LINEAR},
    "small_cnn": {CONV, LINEAR},
    "mobilenet_v2_035": {CONV, LINEAR},
    "two_in_tuple_out": set(),
    "channels_last": {CONV},
    "dynamic_bound": {LINEAR},
    "ops_mix": set(),  # its torch.addmm / torch.mm are not nn.Linear patterns
}
UNPACKED = {"aten::conv2d", "aten::_convolution", "aten::convolution", "aten::linear"}
INT8_OPS = {"quantized::conv2d.new", "quantized::linear", "quantized::add",
            "aten::quantize_per_tensor.tensor_qparams"}


def output_scales(path):
    """(operator, output scale) of every quantized operator and quantize in
    the TorchScript graph of the .ptl at `path`."""
    torch.backends.quantized.engine = "qnnpack"
    scales = []
    for node in torch.jit.load(path).graph.nodes():
        if node.kind().startswith("quantized::") or node.kind() == "aten::quantize_per_tensor":
            # quantized::<op>(..., scale, zero_point); quantize_per_tensor(x, scale, zp, dtype)
            args = list(node.inputs())
            scale = args[1 if node.kind() == "aten::quantize_per_tensor" else -2].toIValue()
            scales.append((node.kind(), float(scale)))
    return scales


def check_int8(path):
    """Failures of the zoo's int8 .ptl at `path` (see the module docstring)."""
    with open(path, "rb") as f:
        data = f.read()
    version = _get_model_bytecode_version(io.BytesIO(data))
    ops = set(_export_operator_list(_load_for_lite_interpreter(io.BytesIO(data))))
    scales = output_scales(path)
    powers = [s for _, s in scales if math.log2(s).is_integer()]
    print(f"{path}: bytecode v{version}, quantized ops"
          f" {sorted(op for op in ops if op.startswith('quantized::'))}, {len(scales)} output"
          f" scales, {len(powers)} powers of two")
    failures = [f"{path}: {msg}" for bad, msg in (
        (version != 8, f"bytecode v{version}, libtorch 1.13 reads v8"),
        (INT8_OPS - ops, f"missing quantized ops {sorted(INT8_OPS - ops)}"),
        (ops & UNPACKED, f"float ops {sorted(ops & UNPACKED)} in the bytecode"),
        ({op for op in ops if op.startswith("prepacked::")}, "XNNPACK prepacked ops in the bytecode"),
        (not scales, "no quantized operator in the graph"),
        (powers, f"{len(powers)} of {len(scales)} output scales are powers of two"),
    ) if bad]
    return failures


def main():
    failures = []
    paths = sorted(glob.glob(os.path.join(REPO, "test", "fixtures", "*", "model.ptl")))
    names = {os.path.basename(os.path.dirname(p)) for p in paths}
    if names != set(EXPECTED):
        failures.append(f"fixtures with a model.ptl {sorted(names)} != checked {sorted(EXPECTED)}")
    for path in paths:
        name = os.path.basename(os.path.dirname(path))
        with open(path, "rb") as f:
            data = f.read()
        version = _get_model_bytecode_version(io.BytesIO(data))
        ops = set(_export_operator_list(_load_for_lite_interpreter(io.BytesIO(data))))
        prepacked = {op for op in ops if op.startswith("prepacked::")}
        print(f"{name}: bytecode v{version}, prepacked {sorted(prepacked)}")
        if version != 8:
            failures.append(f"{name}: bytecode v{version}, libtorch 1.13 reads v8")
        if prepacked != EXPECTED.get(name, set()):
            failures.append(f"{name}: prepacked ops {sorted(prepacked)},"
                            f" expected {sorted(EXPECTED.get(name, set()))}")
        if ops & UNPACKED:
            failures.append(f"{name}: unpacked ops {sorted(ops & UNPACKED)} in the bytecode")
    cache = os.environ.get("EF_MODEL_CACHE") or os.path.join(REPO, ".cache", "models")
    int8 = os.path.join(cache, "mobilenet_v2_int8", "model.ptl")
    if os.path.exists(int8):
        failures += check_int8(int8)
    else:
        print(f"{int8} is absent (run `make models`): the int8 .ptl is not checked")
    for failure in failures:
        print("FAIL", failure, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    if not torch._C._is_xnnpack_enabled():
        raise SystemExit("this torch has no XNNPACK: run with Debian's /usr/bin/python3")
    main()
