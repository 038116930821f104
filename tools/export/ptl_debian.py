#!/usr/bin/python3
"""Writes PyTorch Mobile .ptl files with Debian's torch 1.13 (the old stack's).

Runs under /usr/bin/python3 with Debian's python3-torch and
python3-torchvision, the torch the linked lite interpreter (libtorch 1.13)
comes from, built with XNNPACK. Called by ptl_bridge.py (in the tools venv,
whose PyPI torch has no XNNPACK), never imported by it: the two torches
cannot share a process. Usage:
  /usr/bin/python3 tools/export/ptl_debian.py JOBS.json RESULTS.json

JOBS.json is a list of jobs, each:
  name         the model's name (messages, manifest)
  module_file  a Python file whose `builder` function builds the model (the
  builder      .pte exporter's own case function: the same architecture)
  seed         torch seed before the builder (only its random init; every
               weight is then replaced)
  weights      .npz of the state_dict written by the venv's torch: the .pte's
               exact weights, loaded with strict=True
  inputs       .npy inputs, run through the saved .ptl
  expected     .npy outputs the .ptl must reproduce (float: within
               atol + rtol * |expected|)
  out          where model.ptl goes
  quantize     (optional) {"calibration": .npy [N, ...] samples}: FX
               post-training static quantization with the qnnpack engine
               (get_default_qconfig_mapping("qnnpack"): per-tensor int8
               weights, HistogramObserver uint8 activations) before
               scripting; expected outputs are then the float model's, and
               the result reports the int8 error and (with "top1": .npy
               [N, 1, ...] inputs) top-1 agreement with the float model.

Each model: torch.jit.script -> optimize_for_mobile (conv-BN folding,
freezing, XNNPACK prepacking: conv2d / linear become prepacked::*_run with
their weights packed at load, dropout removal, add-relu fusion) ->
_save_for_lite_interpreter (bytecode v8, what libtorch 1.13 reads). The .ptl
is reloaded with the lite interpreter, checked against the expected outputs,
and its operator list recorded.
"""

import importlib
import io
import json
import os
import sys

import numpy as np
import torch
from torch.jit.mobile import _export_operator_list, _get_model_bytecode_version
from torch.jit.mobile import _load_for_lite_interpreter
from torch.utils.mobile_optimizer import optimize_for_mobile


def _flatten(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _flatten(o)]
    raise TypeError(f"unsupported output type {type(out)}")


def _build(job):
    directory, file = os.path.split(os.path.abspath(job["module_file"]))
    if directory not in sys.path:
        sys.path.insert(0, directory)
    module = importlib.import_module(os.path.splitext(file)[0])
    torch.manual_seed(job["seed"])
    with torch.no_grad():
        model = getattr(module, job["builder"])().module
    weights = np.load(job["weights"])
    model.load_state_dict({k: torch.from_numpy(weights[k]) for k in weights.files}, strict=True)
    return model.eval()


def _prepacked_weight_bytes(model):
    """Bytes of the float weights and biases optimize_for_mobile hands to
    XNNPACK prepacking (every Conv2d and Linear; a missing bias counts its
    channels, as XNNPACK packs a zero bias). XNNPACK's packed copies are at
    least this large (it pads to its register tiles)."""
    total = 0
    for m in model.modules():
        if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)):
            total += m.weight.numel() * m.weight.element_size() + m.weight.shape[0] * 4
    return total


def _quantize(model, job, inputs):
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    torch.backends.quantized.engine = "qnnpack"
    prepared = prepare_fx(model, get_default_qconfig_mapping("qnnpack"), example_inputs=tuple(inputs))
    for sample in torch.from_numpy(np.load(job["quantize"]["calibration"])):
        prepared(sample.unsqueeze(0))
    return convert_fx(prepared)


def export(job):
    inputs = [torch.from_numpy(np.load(p)) for p in job["inputs"]]
    model = _build(job)
    result = {"name": job["name"]}
    with torch.no_grad():
        if job.get("quantize"):
            model = _quantize(model, job, inputs)
            result["quantization"] = "FX post-training static, qnnpack engine"
        else:
            result["prepacked_weight_bytes"] = _prepacked_weight_bytes(model)
        optimized = optimize_for_mobile(torch.jit.script(model))
        data = optimized._save_to_buffer_for_lite_interpreter()
    loaded = _load_for_lite_interpreter(io.BytesIO(data))
    operators = sorted(_export_operator_list(loaded))
    got = _flatten(loaded(*inputs))
    rtol, atol = job.get("rtol", 1e-3), job.get("atol", 1e-4)
    for j, path in enumerate(job["expected"]):
        want = np.load(path)
        diff = np.abs(got[j].numpy() - want)
        if job.get("quantize"):
            result[f"max_abs_error_vs_float_{j}"] = float(diff.max())
        elif not (diff <= atol + rtol * np.abs(want)).all():
            raise SystemExit(f"{job['name']}: .ptl output {j} differs from {path}"
                             f" (max abs diff {diff.max():.3g})")
    if job.get("top1"):
        samples = torch.from_numpy(np.load(job["top1"]["inputs"]))
        labels = np.load(job["top1"]["labels"])
        agree = sum(int(loaded(x)[0].argmax()) == int(label) for x, label in zip(samples, labels))
        result["top1_agreement"] = agree / len(labels)
    with open(job["out"], "wb") as f:
        f.write(data)
    result.update(ptl_bytes=len(data),
                  bytecode_version=_get_model_bytecode_version(io.BytesIO(data)),
                  operators=operators,
                  prepacked_operators=[op for op in operators if op.startswith("prepacked::")])
    print(f"  {job['name']}: {os.path.relpath(job['out'])} {len(data)} bytes,"
          f" prepacked ops {result['prepacked_operators']}", file=sys.stderr)
    return result


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    if not torch._C._is_xnnpack_enabled():
        raise SystemExit(f"{torch.__file__}: this torch has no XNNPACK; the .ptl files need"
                         " Debian's python3-torch (deploy/install-deps.sh)")
    torch.use_deterministic_algorithms(True)
    with open(sys.argv[1]) as f:
        jobs = json.load(f)
    results = [export(job) for job in jobs]
    with open(sys.argv[2], "w") as f:
        json.dump({"torch": torch.__version__, "results": results}, f)


if __name__ == "__main__":
    main()
