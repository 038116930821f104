#!/usr/bin/env python3
"""Exports the reduced-size model zoo committed as test/fixtures/zoo_mini/.

The full zoo (export_zoo.py, `make models`) needs the tools' venv and minutes
of export, and its files (up to 100 MB) cannot be committed, so CI would skip
its correctness tests. This script exports every zoo family again with the
same architecture and graph shape but small channel widths, small inputs and
few classes, so that each program uses the same operators (and the same
load-time fusion patterns: conv + batch norm + activation, residual adds,
quantize / dequantize chains) as its full-size model, at tens of KB per file.

For each family it writes test/fixtures/zoo_mini/<name>/:
  model.pte          no partitioner (every op a kernel)
  model_xnnpack.pte  the same ExportedProgram lowered with XnnpackPartitioner
  input_<i>.npy      seeded inputs
  expected_<j>.npy   torch eager's outputs (int8: torch running the converted,
                     quantized GraphModule)
  runtime_expected_<j>.npy, runtime_xnnpack_expected_<j>.npy  (int8 only)
                     the real ExecuTorch runtime's outputs for model.pte and
                     model_xnnpack.pte (and runtime_top1_expected.npy,
                     runtime_xnnpack_top1_expected.npy on the top-1 samples)
  manifest.json      shapes, dtypes, operators (and, if the full zoo is in
                     --full-zoo, whether its operators are the same), output
                     quantization parameters for the int8 model
and, for mobilenet_v2_int8, top1_inputs.npy / top1_expected.npy /
top1_labels.npy (seeded samples, torch's outputs and top-1 classes).

Weights are seeded (crc32 of "mini/" + name), the data-dependent init is the
full zoo's, and re-running gives the same bytes. Run with the tools' venv:
  tools/export/zoo/export_mini_zoo.py   (via tools/export/regenerate.sh)
"""

import argparse
import functools
import json
import os
import shutil
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import export_zoo as zoo  # noqa: E402
import zoo_int8 as int8  # noqa: E402
import zoo_models as models  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

OUT = os.path.join(zoo.FIXTURE_DIR, "zoo_mini")
IMAGE = 64  # input side of the image models
INT8_IMAGE = 32
TOP1_SAMPLES = int8.TOP1_SAMPLES


def _unit_logits(module, head, batch):
    """Scales the classifier `head` so that the logits over `batch` have unit
    standard deviation: a narrow random network's logits can be ~1e-3, which
    a tolerance of 1e-4 x max(1, |ref|) would barely test."""
    with torch.no_grad():
        k = 1.0 / module(*batch).std().item()
        head.weight.mul_(k)
        head.bias.mul_(k)
    return module


# MobileNetV2's stages (expansion t, channels c, repeats n, stride s) cut
# after the 96-channel stage: the first block without expansion, expanded
# blocks with stride 2 and 1, residual adds in every repeated stage.
V2_STAGES = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 2, 2], [6, 64, 2, 2], [6, 96, 2, 1]]


def _mobilenet_v2(classes):
    """torchvision's MobileNetV2 at width 0.25 on V2_STAGES, with its fixed
    1280-channel last conv narrowed to 64 (same layer kinds: Conv-BN-ReLU6,
    then Dropout + Linear)."""
    from torchvision.models import MobileNetV2
    from torchvision.ops.misc import Conv2dNormActivation

    m = MobileNetV2(width_mult=0.25, num_classes=classes, inverted_residual_setting=V2_STAGES)
    m.features[-1] = Conv2dNormActivation(m.features[-1][0].in_channels, 64, kernel_size=1,
                                          norm_layer=nn.BatchNorm2d, activation_layer=nn.ReLU6)
    m.classifier[-1] = nn.Linear(64, classes)
    return m


def case_mobilenet_v2():
    m = models.init_classifier(_mobilenet_v2(10), IMAGE)
    return models.Case(m, (models.images(1, IMAGE),),
                    f"torchvision MobileNetV2 width 0.25, stages up to 96 channels, last conv"
                    f" 64 channels, 10 classes,"
                    f" input [1,3,{IMAGE},{IMAGE}]")


def case_mobilenet_v3_small():
    from torchvision.models.mobilenetv3 import MobileNetV3, _mobilenet_v3_conf

    # The first six blocks: ReLU and hardswish blocks, with and without
    # squeeze-and-excitation, strided and residual.
    setting, _ = _mobilenet_v3_conf("mobilenet_v3_small", width_mult=0.25)
    m = models.init_classifier(MobileNetV3(setting[:6], 64, num_classes=10), IMAGE)
    _unit_logits(m, m.classifier[-1], (models.images(32, IMAGE),))
    return models.Case(m, (models.images(1, IMAGE),),
                    f"torchvision MobileNetV3 small, width 0.25, its first six blocks,"
                    f" classifier 64 wide, 10 classes, input [1,3,{IMAGE},{IMAGE}]")


class ResNet18Narrow(nn.Module):
    """torchvision's resnet18 layout (7x7/2 stem, max pool, four stages of two
    BasicBlocks, the first of stages 2-4 strided with a 1x1 downsample,
    average pool, Linear) with channel widths `widths` instead of 64-512."""

    def __init__(self, widths=(8, 8, 16, 16), classes=10):
        super().__init__()
        from torchvision.models.resnet import BasicBlock, conv1x1

        self.stem = nn.Sequential(nn.Conv2d(3, widths[0], 7, 2, 3, bias=False),
                                  nn.BatchNorm2d(widths[0]), nn.ReLU(inplace=True),
                                  nn.MaxPool2d(3, 2, 1))
        layers, cin = [], widths[0]
        for i, w in enumerate(widths):
            stride = 1 if i == 0 else 2
            down = None
            if stride != 1 or cin != w:
                down = nn.Sequential(conv1x1(cin, w, stride), nn.BatchNorm2d(w))
            layers += [BasicBlock(cin, w, stride, down), BasicBlock(w, w)]
            cin = w
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


def case_resnet18():
    m = models.init_classifier(ResNet18Narrow(), IMAGE)
    return models.Case(m, (models.images(1, IMAGE),),
                    f"resnet18 layout with widths 8/8/16/16, 10 classes,"
                    f" input [1,3,{IMAGE},{IMAGE}]")


def case_deeplabv3_mobilenet_v3_large():
    from torchvision.models import mobilenetv3
    from torchvision.models._utils import IntermediateLayerGetter
    from torchvision.models.segmentation.deeplabv3 import ASPP, DeepLabV3

    # MobileNetV3 large's block kinds at width 0.25, the tail dilated (as
    # torchvision's dilated=True does for segmentation: stride 1, dilation 2).
    bneck = functools.partial(mobilenetv3.InvertedResidualConfig, width_mult=0.25)
    setting = [bneck(16, 3, 16, 16, False, "RE", 1, 1), bneck(16, 3, 64, 24, False, "RE", 2, 1),
               bneck(24, 3, 72, 24, False, "RE", 1, 1), bneck(24, 5, 72, 40, True, "RE", 2, 1),
               bneck(40, 3, 240, 80, False, "HS", 2, 1), bneck(80, 3, 184, 80, False, "HS", 1, 1),
               bneck(80, 5, 240, 40, True, "HS", 2, 2),
               bneck(40, 5, 240, 40, True, "HS", 1, 2)]
    features = mobilenetv3.MobileNetV3(setting, 64).features
    # As torchvision's _deeplabv3_mobilenetv3: the last block's output.
    out_pos = len(features) - 1
    backbone = IntermediateLayerGetter(features, return_layers={str(out_pos): "out"})
    channels = features[out_pos].out_channels
    head = nn.Sequential(ASPP(channels, [12, 24, 36], out_channels=8),
                         nn.Conv2d(8, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8),
                         nn.ReLU(), nn.Conv2d(8, 6, 1))
    m = DeepLabV3(backbone, head, None)
    models.calibrate_batchnorm(m, [models.images(4, IMAGE) for _ in range(4)])
    return models.Case(models.SegmentationOut(m), (models.images(1, IMAGE),),
                    f"torchvision DeepLabV3 on eight dilated MobileNetV3 large blocks, width 0.25,"
                    f" ASPP (rates 12/24/36) of 8 channels, 6 classes, input"
                    f" [1,3,{IMAGE},{IMAGE}], output the 'out' map [1,6,{IMAGE},{IMAGE}]")


def case_text_langid():
    tokens = torch.randint(0, 128, (1, 16), dtype=torch.int64)
    m = models.TextClassifier(vocab=128, seq=16, d_model=32, heads=4, ff=64, classes=20)
    return models.Case(m, (tokens,),
                    "the zoo's text classifier with Embedding(128,32), 16 positions, 2-layer"
                    " TransformerEncoder (d_model 32, 4 heads, ff 64, GELU), 20 classes;"
                    " input int64 tokens [1,16]")


def case_bwe_gru():
    m = models.BandwidthEstimator(features=8, hidden=16)
    _unit_logits(m, m.head[-1], (torch.randn(32, 12, 8),))
    return models.Case(m, (torch.randn(1, 12, 8),),
                    "the zoo's bandwidth estimator with a 2-layer GRU(8->16) over [1,12,8]")


class KeywordSpotterNarrow(models.KeywordSpotter):
    """The zoo's keyword spotter with every width divided by 4 (the same
    layer kinds in the same order)."""

    def __init__(self, mfcc=10, classes=12):
        nn.Module.__init__(self)

        def block(cin, cout, k, stride):
            return [nn.Conv1d(cin, cout, k, stride=stride, padding=k // 2, bias=False),
                    nn.BatchNorm1d(cout), nn.ReLU()]

        self.features = nn.Sequential(
            *block(mfcc, 16, 5, 1),
            *block(16, 16, 3, 2),
            nn.Conv1d(16, 16, 3, padding=1, groups=16),
            *block(16, 24, 1, 1),
            nn.MaxPool1d(2),
            *block(24, 32, 3, 1),
            nn.AdaptiveAvgPool1d(1),
        )
        self.head = nn.Linear(32, classes)


def case_kws_conv1d():
    m = KeywordSpotterNarrow()
    models.calibrate_batchnorm(m, [torch.randn(8, 10, 40) for _ in range(4)])
    models.center_classifier(m, m.head, torch.randn(32, 10, 40))
    _unit_logits(m, m.head, (torch.randn(32, 10, 40),))
    return models.Case(m, (torch.randn(1, 10, 40),),
                    "the zoo's keyword spotter with widths / 4 over an MFCC map [1,10,40]")


def _quantize(module, example_inputs):
    """The full zoo's int8 recipe on calibration images of this model's size."""
    return int8.quantize_mobilenet_v2(module, example_inputs,
                                      int8.calibration_images(INT8_IMAGE))


def case_mobilenet_v2_int8():
    m = models.init_classifier(_mobilenet_v2(10), INT8_IMAGE)
    gen = torch.Generator().manual_seed(4321)
    top1 = models.images(TOP1_SAMPLES, INT8_IMAGE, gen).unsqueeze(1)
    return models.Case(m, (models.images(1, INT8_IMAGE),),
                    f"the mini mobilenet_v2 (input [1,3,{INT8_IMAGE},{INT8_IMAGE}]) quantized"
                    " to int8 by the full zoo's PT2E recipe (the observers' own scales)",
                    quantize=_quantize, top1_inputs=top1)


MODELS = [
    ("mobilenet_v2", case_mobilenet_v2),
    ("mobilenet_v3_small", case_mobilenet_v3_small),
    ("resnet18", case_resnet18),
    ("deeplabv3_mobilenet_v3_large", case_deeplabv3_mobilenet_v3_large),
    ("text_langid", case_text_langid),
    ("bwe_gru", case_bwe_gru),
    ("kws_conv1d", case_kws_conv1d),
    ("mobilenet_v2_int8", case_mobilenet_v2_int8),
]


def _full_zoo_operators(full_zoo, name):
    try:
        with open(os.path.join(full_zoo, name, "manifest.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def export_one(name, build, full_zoo):
    from torch.export import export

    torch.manual_seed(zlib.crc32(("mini/" + name).encode()))
    with torch.no_grad():
        case = build()
        case.module.eval()
        entry = {"name": name, "description": case.description}
        if case.quantize is not None:
            reference = case.quantize(case.module, case.inputs)
            entry["output_quant"] = int8.output_quant_params(reference)
        else:
            reference = case.module
        outputs = zoo._flatten(reference(*case.inputs))
        ep = export(reference, case.inputs, strict=case.quantize is None)
        d = os.path.join(OUT, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        pte = zoo._write_pte(os.path.join(d, "model.pte"), zoo._lower(ep, xnnpack=False))
        x = zoo._write_pte(os.path.join(d, "model_xnnpack.pte"), zoo._lower(ep, xnnpack=True))
        entry.update(pte_bytes=pte["bytes"], operators=pte["operators"],
                     xnnpack_pte_bytes=x["bytes"], xnnpack_operators=x["operators"])
        for i, t in enumerate(case.inputs):
            np.save(os.path.join(d, f"input_{i}.npy"), t.contiguous().numpy())
        for j, t in enumerate(outputs):
            np.save(os.path.join(d, f"expected_{j}.npy"), t.contiguous().numpy())
        if case.top1_inputs is not None:
            logits = torch.cat([reference(s) for s in case.top1_inputs])
            labels = logits.argmax(dim=1).numpy().astype(np.int64)
            np.save(os.path.join(d, "top1_inputs.npy"), case.top1_inputs.numpy())
            np.save(os.path.join(d, "top1_expected.npy"), logits.numpy())
            np.save(os.path.join(d, "top1_labels.npy"), labels)
            entry["top1_samples"] = len(labels)
        if case.quantize is not None:
            int8.save_real_runtime_outputs(d, case)
    full = _full_zoo_operators(full_zoo, name)
    if full is not None:
        entry["same_operators_as_full_zoo"] = sorted(full["operators"]) == sorted(pte["operators"])
        entry["same_xnnpack_operators_as_full_zoo"] = (
            sorted(full.get("xnnpack_operators", [])) == sorted(x["operators"]))
    entry.update(inputs=len(case.inputs), outputs=len(outputs),
                 input_specs=[zoo._spec(t) for t in case.inputs],
                 output_specs=[zoo._spec(t) for t in outputs],
                 seed=zlib.crc32(("mini/" + name).encode()))
    zoo._write_json(os.path.join(d, "manifest.json"), entry)
    size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
    print(f"  {name}: model.pte {pte['bytes']} B, model_xnnpack.pte {x['bytes']} B,"
          f" folder {size} B", file=sys.stderr)
    if full is not None:
        extra = sorted(set(pte["operators"]) - set(full["operators"]))
        missing = sorted(set(full["operators"]) - set(pte["operators"]))
        print(f"    vs full zoo: extra {extra} missing {missing}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", help="export just these models")
    ap.add_argument("--full-zoo", default=zoo.DEFAULT_OUT,
                    help="the full zoo (make models), to compare operator lists if present")
    args = ap.parse_args()
    names = [n for n, _ in MODELS]
    for n in args.only or []:
        if n not in names:
            raise SystemExit(f"unknown model {n}; known: {' '.join(names)}")
    torch.use_deterministic_algorithms(True)
    torch.backends.mha.set_fastpath_enabled(False)
    for name, build in MODELS:
        if not args.only or name in args.only:
            export_one(name, build, args.full_zoo)


if __name__ == "__main__":
    main()
