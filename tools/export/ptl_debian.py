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
               post-training static quantization for the qnnpack engine,
               set up as the .pte's PT2E model is (_quantize), before
               scripting; "expected" are then the float model's outputs
               (the rebuilt float model must reproduce them), the .ptl must
               reproduce torch 1.13's quantized GraphModule within one output
               step on the inputs and on "top1" ({"inputs": .npy [N, 1, ...],
               "labels": the .pte model's top-1 classes}), whose outputs are
               saved beside the .ptl (ptl_expected_<j>.npy,
               ptl_top1_expected.npy, and the float model's top-1 classes in
               top1_float_labels.npy), and the result reports the output
               quantization, the error against the float model, the top-1
               agreement of the .ptl with the labels and with the float
               model, and that of the labels with the float model.

Each model: torch.jit.script -> optimize_for_mobile (conv-BN folding,
freezing, XNNPACK prepacking: conv2d / linear become prepacked::*_run with
their weights packed at load, dropout removal, add-relu fusion) ->
_save_for_lite_interpreter (bytecode v8, what libtorch 1.13 reads). The .ptl
is reloaded with the lite interpreter, checked against the expected outputs,
and its operator list recorded.
"""

import collections
import copy
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
    """The output tensors in order; None (e.g. absent auxiliary outputs) is
    skipped, as the old stack serves no None."""
    if out is None:
        return []
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
    state = collections.OrderedDict((k, torch.from_numpy(weights[k])) for k in weights.files)
    # The arrays carry no state_dict metadata; modules that check their
    # version when loading (torchvision's MNASNet) get their own.
    state._metadata = model.state_dict()._metadata
    model.load_state_dict(state, strict=True)
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
    """FX post-training static quantization for the qnnpack engine, set up
    as the .pte's PT2E model is (export_zoo.py, docs/zoo.md): per-channel
    symmetric int8 weights in [-127, 127], histogram-calibrated per-tensor
    activations (uint8 here, int8 there: the same grid shifted by 128), the
    same calibration images, and every scale the observers' own, as PyTorch
    Mobile users shipped them (the PT2E model keeps its observers' scales
    too, docs/zoo.md). qnnpack quantizes each bias to int32 on the input x
    weight grid itself."""
    from torch.ao.quantization import QConfig, QConfigMapping
    from torch.ao.quantization.observer import HistogramObserver, PerChannelMinMaxObserver
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    torch.backends.quantized.engine = "qnnpack"
    qconfig = QConfig(
        activation=HistogramObserver.with_args(reduce_range=False),
        weight=PerChannelMinMaxObserver.with_args(dtype=torch.qint8,
                                                  qscheme=torch.per_channel_symmetric,
                                                  quant_min=-127, quant_max=127))
    prepared = prepare_fx(model, QConfigMapping().set_global(qconfig),
                          example_inputs=tuple(inputs))
    for sample in torch.from_numpy(np.load(job["quantize"]["calibration"])):
        prepared(sample.unsqueeze(0))
    return convert_fx(prepared)


def _output_quant(quantized, inputs):
    """(scale, zero_point) of the quantized tensor the converted model's
    output is dequantized from."""
    out = next(n for n in quantized.graph.nodes if n.op == "output")
    source = out.args[0]
    if source.op not in ("call_method", "call_function") or "dequantize" not in str(source.target):
        raise SystemExit("the quantized model's output is not a dequantize")
    captured = {}

    class Capture(torch.fx.Interpreter):
        def run_node(self, n):
            value = super().run_node(n)
            if n is source.args[0]:
                captured["q"] = value
            return value

    Capture(quantized).run(*inputs)
    q = captured["q"]
    return {"scale": float(q.q_scale()), "zero_point": int(q.q_zero_point())}


def _check_int8(job, result, eager, loaded, float_model, inputs):
    """The int8 .ptl against its reference, torch 1.13 running the converted
    GraphModule (`eager`): within one output step on the inputs and the top-1
    samples, whose reference outputs are saved beside the .ptl
    (ptl_expected_<j>.npy, ptl_top1_expected.npy) for the C++ test. Records
    the error against the float model and the top-1 agreement with the
    .pte's model (its labels) and with the float model."""
    out_dir = os.path.dirname(job["out"])
    step = result["output_quant"]["scale"]
    # The float model rebuilt here is the exporter's (weights moved across).
    for j, want in enumerate(_flatten(float_model(*inputs))):
        expected = np.load(job["expected"][j])
        if not np.allclose(want.numpy(), expected, rtol=job.get("rtol", 1e-3),
                           atol=job.get("atol", 1e-4)):
            raise SystemExit(f"{job['name']}: the float model rebuilt under torch 1.13 differs"
                             f" from the exporter's (output {j})")
    worst = 0.0
    for j, (want, got) in enumerate(zip(_flatten(eager(*inputs)), _flatten(loaded(*inputs)))):
        worst = max(worst, float((want - got).abs().max()) / step)
        np.save(os.path.join(out_dir, f"ptl_expected_{j}.npy"), want.numpy())
        result[f"max_abs_error_vs_float_{j}"] = float(
            np.abs(want.numpy() - np.load(job["expected"][j])).max())
    if not job.get("top1"):
        raise SystemExit(f"{job['name']}: an int8 job needs top-1 samples")
    samples = torch.from_numpy(np.load(job["top1"]["inputs"]))
    labels = np.load(job["top1"]["labels"])
    want = torch.cat([eager(x) for x in samples])
    got = torch.cat([loaded(x) for x in samples])
    floats = torch.cat([float_model(x) for x in samples])
    worst = max(worst, float((want - got).abs().max()) / step)
    float_labels = floats.argmax(1).numpy().astype(np.int64)
    np.save(os.path.join(out_dir, "ptl_top1_expected.npy"), want.numpy())
    np.save(os.path.join(out_dir, "top1_float_labels.npy"), float_labels)
    if worst > 1.0 + 1e-3:
        raise SystemExit(f"{job['name']}: the .ptl is {worst:.3g} output steps off torch's"
                         " quantized GraphModule")
    result["max_steps_vs_eager"] = worst
    result["top1_agreement"] = float((got.argmax(1).numpy() == labels).mean())
    result["top1_agreement_float"] = float((got.argmax(1).numpy() == float_labels).mean())
    result["pte_top1_agreement_float"] = float((labels == float_labels).mean())


def export(job):
    inputs = [torch.from_numpy(np.load(p)) for p in job["inputs"]]
    model = _build(job)
    result = {"name": job["name"]}
    quantized = bool(job.get("quantize"))
    with torch.no_grad():
        if quantized:
            float_model = copy.deepcopy(model)
            model = _quantize(model, job, inputs)
            result["quantization"] = ("FX post-training static, qnnpack engine, per-channel"
                                      " symmetric weights, the observers' activation scales")
            result["output_quant"] = _output_quant(model, inputs)
        else:
            result["prepacked_weight_bytes"] = _prepacked_weight_bytes(model)
        optimized = optimize_for_mobile(torch.jit.script(model))
        data = optimized._save_to_buffer_for_lite_interpreter()
    loaded = _load_for_lite_interpreter(io.BytesIO(data))
    operators = sorted(_export_operator_list(loaded))
    with torch.no_grad():
        if quantized:
            _check_int8(job, result, model, loaded, float_model, inputs)
        else:
            got = _flatten(loaded(*inputs))
            rtol, atol = job.get("rtol", 1e-3), job.get("atol", 1e-4)
            for j, path in enumerate(job["expected"]):
                want = np.load(path)
                diff = np.abs(got[j].numpy() - want)
                if not (diff <= atol + rtol * np.abs(want)).all():
                    raise SystemExit(f"{job['name']}: .ptl output {j} differs from {path}"
                                     f" (max abs diff {diff.max():.3g})")
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
