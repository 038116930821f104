#!/usr/bin/python3
"""Checks the .ptl fixtures are PyTorch Mobile programs as shipped.

Run by ctest (export.ptl_bytecode) under /usr/bin/python3, i.e. Debian's
torch 1.13, the torch the old stack's lite interpreter comes from. For every
test/fixtures/*/model.ptl: the lite interpreter reads it; its bytecode is
version 8; the operators its bytecode calls (torch.jit.mobile's operator
list) include the XNNPACK prepacked ops expected from the fixture's layers
(listed here by hand from export_fixtures.py) and no unpacked convolution
or linear op, so every conv2d and linear runs from weights packed at load.
"""

import glob
import io
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
    for failure in failures:
        print("FAIL", failure, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    if not torch._C._is_xnnpack_enabled():
        raise SystemExit("this torch has no XNNPACK: run with Debian's /usr/bin/python3")
    main()
