#!/usr/bin/env python3
"""Exports EdgeFleet's model zoo with the real ExecuTorch exporter.

Run through `make models` (tools/export/zoo/make_models.sh creates the venv).

Every model is built with seeded random weights (nothing is downloaded), made
to behave like a trained network by a data-dependent init (BatchNorm
statistics measured on seeded image-like inputs, classifier biases centred so
that the top-1 class depends on the input), and exported twice:
  model.pte          torch.export -> to_edge_transform_and_lower with NO
                     partitioner -> to_executorch: every op runs as a kernel
  model_xnnpack.pte  the same ExportedProgram lowered with XnnpackPartitioner
                     (for the benchmark's delegated comparison)
next to
  input_<i>.npy      seeded inputs (logical C order, the method's dtypes)
  expected_<j>.npy   torch eager's outputs on them (for the int8 model: torch
                     running the converted, quantized GraphModule)
  model.ptl          the old stack's file (PyTorch Mobile, written by Debian's
                     torch 1.13 through ../ptl_bridge.py with the same
                     weights: float models prepacked for XNNPACK by
                     optimize_for_mobile; the int8 model quantized from the
                     same float weights the way PyTorch Mobile users did,
                     FX post-training static quantization for qnnpack, set
                     up as the PT2E model is; its torch 1.13 reference
                     outputs in ptl_expected_<j>.npy, ptl_top1_expected.npy)
  manifest.json      shapes, dtypes, operators, sizes, tolerances
in <out>/<name>/ (default .cache/models/). The int8 model also gets
top1_inputs.npy ([100, 1, 3, 224, 224], seeded), top1_expected.npy (torch's
outputs for them) and top1_labels.npy (torch's top-1 class for each), and
the real ExecuTorch runtime's outputs on each file for input_0 and those
samples (runtime_expected_0.npy, runtime_top1_expected.npy for model.pte;
runtime_xnnpack_* for model_xnnpack.pte), the reference of the int8
agreement tests in test/zoo/ (docs/zoo.md, "The int8 model's scales").

Models whose model.pte is under 2 MB are also copied (model.pte, inputs,
expected, manifest.json) to test/fixtures/zoo_<name>/ with --update-fixtures,
so the zoo tests run without the cache.

Every model seeds torch with crc32(name): re-running gives the same bytes,
and adding a model does not change the others.
"""

import argparse
import dataclasses
import hashlib
import importlib.metadata
import json
import logging
import os
import re
import shutil
import sys
import time
import zlib

logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)
logging.getLogger("torchao").setLevel(logging.ERROR)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

# The exporter's imports (torch.export, executorch, inspect_pte, ptl_bridge)
# are made where they are used: the case functions below also run under
# Debian's torch 1.13, which builds the same modules for the .ptl files
# (tools/export/ptl_debian.py).

REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
DEFAULT_OUT = os.path.join(REPO, ".cache", "models")
FIXTURE_DIR = os.path.join(REPO, "test", "fixtures")
MAX_COMMITTED_PTE_BYTES = 2 * 1024 * 1024
TOP1_SAMPLES = 100


def _exporter_id():
    """What a cached model depends on: this file, the .ptl exporter's and the
    package versions."""
    digest = hashlib.sha256()
    for path in (os.path.abspath(__file__), os.path.join(os.path.dirname(HERE), "ptl_debian.py")):
        with open(path, "rb") as f:
            digest.update(f.read())
    digest = digest.hexdigest()[:16]
    versions = ",".join(importlib.metadata.version(p)
                        for p in ("torch", "torchvision", "executorch"))
    return f"{digest}/{versions}"


@dataclasses.dataclass
class Case:
    module: nn.Module
    inputs: tuple  # example inputs: given to torch.export and stored
    description: str
    # For quantized models: quantize(module, inputs) -> the converted
    # GraphModule, which is exported and whose torch execution is the
    # reference.
    quantize: object = None
    # Extra samples for the top-1 agreement test (int8 model).
    top1_inputs: object = None


def images(n, size, gen=None):
    """Seeded image-like inputs: smooth random colour fields (7x7 noise
    resized bilinearly) plus fine noise. Unlike i.i.d. noise they differ in
    low-frequency content, so a network's pooled features differ per image."""
    low = torch.randn(n, 3, 7, 7, generator=gen)
    x = F.interpolate(low, size=(size, size), mode="bilinear", align_corners=False)
    return x + 0.25 * torch.randn(n, 3, size, size, generator=gen)


def _calibrate_batchnorm(module, batches):
    """Data-dependent init: random BatchNorm affine parameters and running
    statistics measured on `batches`, so that activations stay O(1) through
    a randomly initialised network as they do in a trained one."""
    for m in module.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            n = m.num_features
            m.weight.data.copy_(torch.rand(n) + 0.5)
            m.bias.data.copy_(torch.randn(n) * 0.1)
            m.reset_running_stats()
            m.momentum = None  # cumulative average over the batches
    module.train()
    with torch.no_grad():
        for x in batches:
            module(x)
    module.eval()


def _center_classifier(module, head, batch):
    """Subtracts the mean logits over `batch` from the classifier bias, so
    the top-1 class depends on the input (a random network otherwise
    predicts the same class for nearly every image)."""
    with torch.no_grad():
        head.bias -= module(batch).mean(dim=0)


def _init_classifier(m, size=224):
    _calibrate_batchnorm(m, [images(8, size) for _ in range(4)])
    _center_classifier(m, [x for x in m.modules() if isinstance(x, nn.Linear)][-1],
                       images(32, size))
    return m


# ---------------------------------------------------------------- models


def case_mobilenet_v2():
    from torchvision.models import mobilenet_v2

    m = _init_classifier(mobilenet_v2(weights=None))
    return Case(m, (images(1, 224),),
                "torchvision mobilenet_v2 (1000 classes), input [1,3,224,224]")


def case_mobilenet_v3_small():
    from torchvision.models import mobilenet_v3_small

    m = _init_classifier(mobilenet_v3_small(weights=None))
    return Case(m, (images(1, 224),),
                "torchvision mobilenet_v3_small (1000 classes), input [1,3,224,224]")


def case_resnet18():
    from torchvision.models import resnet18

    m = _init_classifier(resnet18(weights=None))
    return Case(m, (images(1, 224),),
                "torchvision resnet18 (1000 classes), input [1,3,224,224]")


class SegmentationOut(nn.Module):
    """Returns the "out" map of a torchvision segmentation model's dict."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def case_deeplabv3_mobilenet_v3_large():
    from torchvision.models.segmentation import deeplabv3_mobilenet_v3_large

    m = deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None, aux_loss=False,
                                     num_classes=21)
    _calibrate_batchnorm(m, [images(4, 256) for _ in range(4)])
    return Case(SegmentationOut(m), (images(1, 256),),
                "torchvision deeplabv3_mobilenet_v3_large (21 classes, no aux head),"
                " input [1,3,256,256], output the 'out' map [1,21,256,256]")


class TextClassifier(nn.Module):
    """Language-identification-shaped: token embedding + learned positions,
    2-layer TransformerEncoder, mean pooling over tokens, linear head."""

    def __init__(self, vocab=4096, seq=64, d_model=128, heads=4, ff=512, classes=20):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.pos = nn.Parameter(torch.randn(1, seq, d_model) * 0.02)
        layer = nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=ff, dropout=0.0,
                                           activation="gelu", batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, classes)

    def forward(self, tokens):  # tokens: int64 [1, seq]
        h = self.encoder(self.embed(tokens) + self.pos)
        return self.head(self.norm(h).mean(dim=1))


def case_text_langid():
    tokens = torch.randint(0, 4096, (1, 64), dtype=torch.int64)
    return Case(TextClassifier(), (tokens,),
                "text classifier (language-ID shape): Embedding(4096,128) + positions,"
                " 2-layer TransformerEncoder (d_model 128, 4 heads, ff 512, GELU, batch_first),"
                " LayerNorm, mean pooling, Linear(128,20); input int64 tokens [1,64]")


class BandwidthEstimator(nn.Module):
    """Bandwidth-estimator-shaped: 2-layer GRU over per-packet-group features,
    linear head on the last step (estimate + uncertainty)."""

    def __init__(self, features=24, hidden=64, outputs=2):
        super().__init__()
        self.gru = nn.GRU(features, hidden, num_layers=2, batch_first=True)
        self.head = nn.Sequential(nn.Linear(hidden, 32), nn.ReLU(), nn.Linear(32, outputs))

    def forward(self, x):  # x: [1, T, F]
        y, _ = self.gru(x)
        return self.head(y[:, -1])


def case_bwe_gru():
    return Case(BandwidthEstimator(), (torch.randn(1, 32, 24),),
                "bandwidth estimator shape: 2-layer GRU(24->64, batch_first) over [1,32,24]"
                " features, Linear(64,32)-ReLU-Linear(32,2) on the last step")


class KeywordSpotter(nn.Module):
    """Keyword-spotting-shaped: 1-D convolutions over an MFCC map [1, 40, 98]."""

    def __init__(self, mfcc=40, classes=12):
        super().__init__()

        def block(cin, cout, k, stride):
            return [nn.Conv1d(cin, cout, k, stride=stride, padding=k // 2, bias=False),
                    nn.BatchNorm1d(cout), nn.ReLU()]

        self.features = nn.Sequential(
            *block(mfcc, 64, 5, 1),
            *block(64, 64, 3, 2),
            nn.Conv1d(64, 64, 3, padding=1, groups=64),  # depthwise
            *block(64, 96, 1, 1),
            nn.MaxPool1d(2),
            *block(96, 128, 3, 1),
            nn.AdaptiveAvgPool1d(1),
        )
        self.head = nn.Linear(128, classes)

    def forward(self, x):  # x: [1, 40, 98]
        return self.head(torch.flatten(self.features(x), 1))


def case_kws_conv1d():
    m = KeywordSpotter()
    _calibrate_batchnorm(m, [torch.randn(8, 40, 98) for _ in range(4)])
    _center_classifier(m, m.head, torch.randn(32, 40, 98))
    return Case(m, (torch.randn(1, 40, 98),),
                "keyword spotting shape: Conv1d stack (incl. depthwise, stride 2, MaxPool1d)"
                " with BatchNorm1d/ReLU over an MFCC map [1,40,98], AdaptiveAvgPool1d(1),"
                " Linear(128,12)")


def _quantize_mobilenet_v2(module, example_inputs, calibration=None):
    """PT2E int8 (XNNPACKQuantizer, per-channel symmetric weights), calibrated
    on `calibration` ([N, 3, H, W]; default _calibration_images())."""
    # Registers the out variants of quantized_decomposed::* that to_executorch
    # needs when no partitioner takes the quantized ops.
    import executorch.kernels.quantized  # noqa: F401
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    from torch.export import export

    captured = export(module, example_inputs, strict=True).module()
    quantizer = XNNPACKQuantizer()
    quantizer.set_global(get_symmetric_quantization_config(is_per_channel=True))
    prepared = prepare_pt2e(captured, quantizer)
    for x in (_calibration_images() if calibration is None else calibration):
        prepared(x.unsqueeze(0))
    return convert_pt2e(prepared)


def _calibration_images(size=224):
    """The seeded images int8 quantization calibrates on ([16, 3, size, size]);
    the old stack's qnnpack model (ptl_debian.py) sees the same ones."""
    gen = torch.Generator().manual_seed(1234)
    return torch.cat([images(1, size, gen) for _ in range(16)])


def case_mobilenet_v2_int8():
    from torchvision.models import mobilenet_v2

    m = _init_classifier(mobilenet_v2(weights=None))
    gen = torch.Generator().manual_seed(4321)
    top1 = images(TOP1_SAMPLES, 224, gen).unsqueeze(1)
    return Case(m, (images(1, 224),),
                "torchvision mobilenet_v2 quantized to int8 with PT2E (XNNPACKQuantizer,"
                " symmetric static per-channel weights, 16 seeded calibration images,"
                " the observers' own scales), exported without a partitioner"
                " (quantized_decomposed ops); input float [1,3,224,224]",
                quantize=_quantize_mobilenet_v2, top1_inputs=top1)


# ------------------------------------------- published-benchmark reference set
# The ten models of ncnn's benchncnn (docs/fidelity.md), with its names. The
# device-time model is validated on them; mobilenet_v2 and resnet18 above are
# already torchvision's and serve both roles.


class MobileNetV1(nn.Module):
    """MobileNet V1 1.0 (Howard et al. 2017, Table 1): a 3x3 stride-2 conv,
    13 depthwise-separable blocks (3x3 depthwise + 1x1 pointwise, each with
    BatchNorm and ReLU), global average pooling, Linear(1024, 1000).
    torchvision has no MobileNet V1."""

    # (output channels, stride) of each depthwise-separable block.
    BLOCKS = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2),
              (512, 1), (512, 1), (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1)]

    def __init__(self, classes=1000):
        super().__init__()

        def conv_bn(cin, cout, k, stride, groups=1):
            return [nn.Conv2d(cin, cout, k, stride=stride, padding=k // 2, groups=groups,
                              bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

        layers = conv_bn(3, 32, 3, 2)
        cin = 32
        for cout, stride in self.BLOCKS:
            layers += conv_bn(cin, cin, 3, stride, groups=cin) + conv_bn(cin, cout, 1, 1)
            cin = cout
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Linear(1024, classes)

    def forward(self, x):
        x = F.adaptive_avg_pool2d(self.features(x), 1)
        return self.classifier(torch.flatten(x, 1))


def _torchvision_case(builder, description, size=224, **kwargs):
    import torchvision.models as tvm

    m = _init_classifier(getattr(tvm, builder)(weights=None, **kwargs), size)
    return Case(m, (images(1, size),),
                f"{description} (1000 classes), input [1,3,{size},{size}]")


def case_squeezenet():
    # SqueezeNet's classifier is a 1x1 conv, not a Linear: centre its bias.
    from torchvision.models import squeezenet1_1

    m = squeezenet1_1(weights=None).eval()
    _center_classifier(m, m.classifier[1], images(32, 227))
    return Case(m, (images(1, 227),),
                "torchvision squeezenet1_1 (SqueezeNet 1.1, 1000 classes), input [1,3,227,227]")


def case_mobilenet():
    return Case(_init_classifier(MobileNetV1()), (images(1, 224),),
                "MobileNet V1 1.0 (written here, Howard et al. 2017 Table 1; 1000 classes),"
                " input [1,3,224,224]")


def case_mobilenet_v3():
    return _torchvision_case("mobilenet_v3_large", "torchvision mobilenet_v3_large")


def case_shufflenet_v2():
    return _torchvision_case("shufflenet_v2_x1_0", "torchvision shufflenet_v2_x1_0")


def case_mnasnet():
    return _torchvision_case("mnasnet1_0", "torchvision mnasnet1_0")


def case_efficientnet_b0():
    return _torchvision_case("efficientnet_b0", "torchvision efficientnet_b0")


class GoogLeNetLogits(nn.Module):
    """torchvision's GoogLeNet returning its logits, as its eager forward
    does. Scripted, its forward returns a GoogLeNetOutputs named tuple with
    the absent auxiliary outputs as None, which libtorch 1.13's lite
    interpreter fails to return ("basic_string::_M_create"); the .ptl needs
    the script to return the tensor. Same computation either way."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        logits, _, _ = self.model._forward(self.model._transform_input(x))
        return logits


def case_googlenet():
    from torchvision.models import googlenet

    m = _init_classifier(GoogLeNetLogits(googlenet(weights=None, aux_logits=False,
                                                   transform_input=False, init_weights=True)))
    return Case(m, (images(1, 224),),
                "torchvision googlenet (no aux heads, no input transform; logits only)"
                " (1000 classes), input [1,3,224,224]")


def case_resnet50():
    return _torchvision_case("resnet50", "torchvision resnet50")


MODELS = [
    ("mobilenet_v2", case_mobilenet_v2),
    ("mobilenet_v3_small", case_mobilenet_v3_small),
    ("resnet18", case_resnet18),
    ("deeplabv3_mobilenet_v3_large", case_deeplabv3_mobilenet_v3_large),
    ("text_langid", case_text_langid),
    ("bwe_gru", case_bwe_gru),
    ("kws_conv1d", case_kws_conv1d),
    ("mobilenet_v2_int8", case_mobilenet_v2_int8),
    ("squeezenet", case_squeezenet),
    ("mobilenet", case_mobilenet),
    ("mobilenet_v3", case_mobilenet_v3),
    ("shufflenet_v2", case_shufflenet_v2),
    ("mnasnet", case_mnasnet),
    ("efficientnet_b0", case_efficientnet_b0),
    ("googlenet", case_googlenet),
    ("resnet50", case_resnet50),
]


# ---------------------------------------------------------------- export


def _flatten(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _flatten(o)]
    raise TypeError(f"unsupported output type {type(out)}")


def _spec(t):
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", "")}


def _lower(ep, xnnpack):
    from executorch.exir import to_edge_transform_and_lower

    if not xnnpack:
        return to_edge_transform_and_lower(ep).to_executorch().buffer
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

    return to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()]).to_executorch().buffer


def _output_quant_params(gm):
    """(scale, zero_point, quant_min, quant_max) of the dequantize feeding each
    graph output of a converted PT2E GraphModule (None where there is none)."""
    out_node = next(n for n in gm.graph.nodes if n.op == "output")
    params = []
    for arg in _flatten_nodes(out_node.args[0]):
        if arg.op == "call_function" and "dequantize_per_tensor" in str(arg.target):
            scale, zp, qmin, qmax = arg.args[1:5]
            params.append({"scale": float(scale), "zero_point": int(zp), "quant_min": int(qmin),
                           "quant_max": int(qmax)})
        else:
            params.append(None)
    return params


# For a quantized model, the real ExecuTorch runtime's outputs on each
# exported file are stored beside it as <prefix>_expected_<j>.npy (the stored
# inputs) and <prefix>_top1_expected.npy (the top-1 samples): with the
# observers' scales, int8 results depend on the order of float summation, so
# a runtime is held to the real runtime on the same file (docs/zoo.md).
REAL_RUNTIME_OUTPUTS = (("model.pte", "runtime"), ("model_xnnpack.pte", "runtime_xnnpack"))


def _real_runtime(path):
    """forward of `path` on the real ExecuTorch runtime (its Python bindings,
    with the quantized kernels registered): inputs -> list of numpy outputs."""
    import executorch.kernels.quantized  # noqa: F401
    from executorch.runtime import Runtime, Verification

    program = Runtime.get().load_program(path, verification=Verification.InternalConsistency)
    method = program.load_method("forward")
    return lambda inputs: [o.contiguous().numpy() for o in method.execute(list(inputs))]


def _save_real_runtime_outputs(d, case):
    """Runs every exported file of `d` on the real runtime (REAL_RUNTIME_OUTPUTS)."""
    for fn, prefix in REAL_RUNTIME_OUTPUTS:
        if not os.path.exists(os.path.join(d, fn)):
            continue
        run = _real_runtime(os.path.join(d, fn))
        for j, t in enumerate(run(case.inputs)):
            np.save(os.path.join(d, f"{prefix}_expected_{j}.npy"), t)
        if case.top1_inputs is not None:
            top1 = np.concatenate([run((x,))[0] for x in case.top1_inputs])
            np.save(os.path.join(d, f"{prefix}_top1_expected.npy"), top1)


def _real_runtime_files(entry, xnnpack):
    """The real runtime's output files a quantized model's export writes."""
    if "output_quant" not in entry:
        return []
    files = []
    for fn, prefix in REAL_RUNTIME_OUTPUTS[:2 if xnnpack else 1]:
        files += [f"{prefix}_expected_{j}.npy" for j in range(entry.get("outputs", 0))]
        if entry.get("top1_samples"):
            files.append(f"{prefix}_top1_expected.npy")
    return files


def _flatten_nodes(a):
    if isinstance(a, (list, tuple)):
        return [n for x in a for n in _flatten_nodes(x)]
    return [a]


def _write_pte(path, data):
    import inspect_pte

    with open(path, "wb") as f:
        f.write(data)
    return {"bytes": len(data), "operators": inspect_pte.operators(path)}


def _export_ptl(name, build, case, float_outputs, labels, d):
    """Writes d/model.ptl with Debian's torch (ptl_bridge.py): the float
    model prepacked for XNNPACK, or, for an int8 model, the float model
    quantized the way PyTorch Mobile users did (FX post-training static
    quantization, qnnpack engine, on _calibration_images()). Returns the
    manifest facts, or {"ptl_skipped": reason} where Debian's torch cannot
    script or export the model."""
    import subprocess

    import ptl_bridge

    quantized = case.quantize is not None
    job = ptl_bridge.Job(
        name, os.path.abspath(__file__), build.__name__, zlib.crc32(name.encode()), case.module,
        [t.numpy() for t in case.inputs], [t.numpy() for t in float_outputs],
        os.path.join(d, "model.ptl"),
        calibration=_calibration_images().numpy() if quantized else None,
        top1=(case.top1_inputs.numpy(), labels) if quantized else None,
        rtol=1e-3, atol=1e-3)
    try:
        result = ptl_bridge.export([job])["results"][0]
    except subprocess.CalledProcessError:
        return {"ptl_skipped": "Debian's torch 1.13 could not export it (see the export log)"}
    del result["name"]
    return {"ptl": result}


def export_one(name, build, out_dir, xnnpack):
    from torch.export import export

    torch.manual_seed(zlib.crc32(name.encode()))
    t0 = time.time()
    with torch.no_grad():
        case = build()
        case.module.eval()
        entry = {"name": name, "description": case.description}
        if case.quantize is not None:
            reference = case.quantize(case.module, case.inputs)
            entry["output_quant"] = _output_quant_params(reference)
        else:
            reference = case.module
        outputs = _flatten(reference(*case.inputs))
        ep = export(reference, case.inputs, strict=case.quantize is None)

        d = os.path.join(out_dir, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        pte = _write_pte(os.path.join(d, "model.pte"), _lower(ep, xnnpack=False))
        entry.update(pte_bytes=pte["bytes"], operators=pte["operators"])
        if xnnpack:
            x = _write_pte(os.path.join(d, "model_xnnpack.pte"), _lower(ep, xnnpack=True))
            entry.update(xnnpack_pte_bytes=x["bytes"], xnnpack_operators=x["operators"])
        for i, t in enumerate(case.inputs):
            np.save(os.path.join(d, f"input_{i}.npy"), t.contiguous().numpy())
        for j, t in enumerate(outputs):
            np.save(os.path.join(d, f"expected_{j}.npy"), t.contiguous().numpy())
        labels = None
        if case.top1_inputs is not None:
            logits = torch.cat([reference(x) for x in case.top1_inputs])
            labels = logits.argmax(dim=1).numpy().astype(np.int64)
            np.save(os.path.join(d, "top1_inputs.npy"), case.top1_inputs.numpy())
            np.save(os.path.join(d, "top1_expected.npy"), logits.numpy())
            np.save(os.path.join(d, "top1_labels.npy"), labels)
            entry["top1_samples"] = len(labels)
            entry["top1_distinct_labels"] = len(set(labels.tolist()))
        if case.quantize is not None:
            _save_real_runtime_outputs(d, case)
        float_outputs = outputs if case.quantize is None else _flatten(case.module(*case.inputs))
        entry.update(_export_ptl(name, build, case, float_outputs, labels, d))
    entry.update(
        inputs=len(case.inputs),
        outputs=len(outputs),
        input_specs=[_spec(t) for t in case.inputs],
        output_specs=[_spec(t) for t in outputs],
        seed=zlib.crc32(name.encode()),
        exporter=_exporter_id(),
    )
    _write_json(os.path.join(d, "manifest.json"), entry)
    print(f"  {name}: {entry['pte_bytes']} bytes ({time.time() - t0:.0f} s),"
          f" ops {entry['operators']}", file=sys.stderr)
    return entry


def cached_entry(name, out_dir, xnnpack):
    """The manifest of a complete cached export by this exporter, or None."""
    d = os.path.join(out_dir, name)
    try:
        with open(os.path.join(d, "manifest.json")) as f:
            entry = json.load(f)
    except (OSError, ValueError):
        return None
    files = ["model.pte"] + [f"input_{i}.npy" for i in range(entry.get("inputs", 0))]
    files += [f"expected_{j}.npy" for j in range(entry.get("outputs", 0))]
    if xnnpack:
        files.append("model_xnnpack.pte")
    if "ptl" in entry:
        files.append("model.ptl")
        if "output_quant" in entry["ptl"]:  # the int8 .ptl's own reference outputs
            files += [f"ptl_expected_{j}.npy" for j in range(entry.get("outputs", 0))]
            files += ["ptl_top1_expected.npy", "top1_float_labels.npy"]
    if entry.get("top1_samples"):
        files += ["top1_inputs.npy", "top1_expected.npy", "top1_labels.npy"]
    files += _real_runtime_files(entry, xnnpack)
    if entry.get("exporter") != _exporter_id() or not all(
            os.path.exists(os.path.join(d, fn)) for fn in files):
        return None
    return entry


def copy_fixture(entry, out_dir):
    """Copies a small model (non-delegated program only) to test/fixtures."""
    src = os.path.join(out_dir, entry["name"])
    dst = os.path.join(FIXTURE_DIR, "zoo_" + entry["name"])
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    for fn in sorted(os.listdir(src)):
        if fn in ("model.pte", "model.ptl", "manifest.json") or re.match(r"(input|expected)_\d+\.npy$", fn):
            shutil.copy(os.path.join(src, fn), os.path.join(dst, fn))
    print(f"  copied {entry['name']} to {os.path.relpath(dst, REPO)}", file=sys.stderr)


def _write_json(path, obj):
    text = json.dumps(obj, indent=2)
    text = re.sub(r"\[\n[-\d,\s]+\]", lambda m: json.dumps(json.loads(m.group(0))), text)
    with open(path, "w") as f:
        f.write(text + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--only", nargs="*", help="export just these models")
    ap.add_argument("--force", action="store_true",
                    help="re-export models whose cached files are up to date")
    ap.add_argument("--no-xnnpack", action="store_true",
                    help="skip the XNNPACK-delegated model_xnnpack.pte variants")
    ap.add_argument("--update-fixtures", action="store_true",
                    help=f"also copy models under {MAX_COMMITTED_PTE_BYTES} bytes to"
                         " test/fixtures/zoo_<name>/")
    args = ap.parse_args()

    names = [n for n, _ in MODELS]
    for n in args.only or []:
        if n not in names:
            raise SystemExit(f"unknown model {n}; known: {' '.join(names)}")
    torch.use_deterministic_algorithms(True)
    # The fused inference fast path of nn.TransformerEncoderLayer is an op
    # outside core ATen; users exporting these models turn it off the same way.
    torch.backends.mha.set_fastpath_enabled(False)
    os.makedirs(args.out, exist_ok=True)
    for name, build in MODELS:
        if args.only and name not in args.only:
            continue
        entry = None if args.force else cached_entry(name, args.out, not args.no_xnnpack)
        if entry is not None:
            print(f"  {name}: up to date", file=sys.stderr)
        else:
            entry = export_one(name, build, args.out, xnnpack=not args.no_xnnpack)
        if args.update_fixtures and entry["pte_bytes"] < MAX_COMMITTED_PTE_BYTES:
            copy_fixture(entry, args.out)

    # The index covers every model present in the cache, not just this run's.
    models = []
    for name in names:
        path = os.path.join(args.out, name, "manifest.json")
        if os.path.exists(path):
            with open(path) as f:
                models.append(json.load(f))
    _write_json(os.path.join(args.out, "manifest.json"), {
        "models": models,
        "generated_by": "make models (tools/export/zoo/export_zoo.py)",
        "torch": importlib.metadata.version("torch"),
        "torchvision": importlib.metadata.version("torchvision"),
        "executorch": importlib.metadata.version("executorch"),
    })
    print(f"wrote {len(models)} models to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
