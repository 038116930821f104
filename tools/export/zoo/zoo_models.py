"""The model zoo's models (export_zoo.py): each case function builds one
model with seeded random weights and a data-dependent init (BatchNorm
statistics measured on seeded image-like inputs, classifier biases centred
so that the top-1 class depends on the input), and its example inputs.

These functions run under both torches: the tools' venv (export to .pte)
and Debian's torch 1.13, which builds the same modules for the .ptl files
(tools/export/ptl_debian.py imports this file and calls a case by name).
So nothing here imports torch.export or executorch. The int8 model is in
zoo_int8.py.
"""

import dataclasses

import torch
import torch.nn.functional as F
from torch import nn


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


def calibrate_batchnorm(module, batches):
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


def center_classifier(module, head, batch):
    """Subtracts the mean logits over `batch` from the classifier bias, so
    the top-1 class depends on the input (a random network otherwise
    predicts the same class for nearly every image)."""
    with torch.no_grad():
        head.bias -= module(batch).mean(dim=0)


def init_classifier(m, size=224):
    calibrate_batchnorm(m, [images(8, size) for _ in range(4)])
    center_classifier(m, [x for x in m.modules() if isinstance(x, nn.Linear)][-1],
                       images(32, size))
    return m


# ---------------------------------------------------------------- models


def case_mobilenet_v2():
    from torchvision.models import mobilenet_v2

    m = init_classifier(mobilenet_v2(weights=None))
    return Case(m, (images(1, 224),),
                "torchvision mobilenet_v2 (1000 classes), input [1,3,224,224]")


def case_mobilenet_v3_small():
    from torchvision.models import mobilenet_v3_small

    m = init_classifier(mobilenet_v3_small(weights=None))
    return Case(m, (images(1, 224),),
                "torchvision mobilenet_v3_small (1000 classes), input [1,3,224,224]")


def case_resnet18():
    from torchvision.models import resnet18

    m = init_classifier(resnet18(weights=None))
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
    calibrate_batchnorm(m, [images(4, 256) for _ in range(4)])
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
    calibrate_batchnorm(m, [torch.randn(8, 40, 98) for _ in range(4)])
    center_classifier(m, m.head, torch.randn(32, 40, 98))
    return Case(m, (torch.randn(1, 40, 98),),
                "keyword spotting shape: Conv1d stack (incl. depthwise, stride 2, MaxPool1d)"
                " with BatchNorm1d/ReLU over an MFCC map [1,40,98], AdaptiveAvgPool1d(1),"
                " Linear(128,12)")


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

    m = init_classifier(getattr(tvm, builder)(weights=None, **kwargs), size)
    return Case(m, (images(1, size),),
                f"{description} (1000 classes), input [1,3,{size},{size}]")


def case_squeezenet():
    # SqueezeNet's classifier is a 1x1 conv, not a Linear: centre its bias.
    from torchvision.models import squeezenet1_1

    m = squeezenet1_1(weights=None).eval()
    center_classifier(m, m.classifier[1], images(32, 227))
    return Case(m, (images(1, 227),),
                "torchvision squeezenet1_1 (SqueezeNet 1.1, 1000 classes), input [1,3,227,227]")


def case_mobilenet():
    return Case(init_classifier(MobileNetV1()), (images(1, 224),),
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

    m = init_classifier(GoogLeNetLogits(googlenet(weights=None, aux_logits=False,
                                                   transform_input=False, init_weights=True)))
    return Case(m, (images(1, 224),),
                "torchvision googlenet (no aux heads, no input transform; logits only)"
                " (1000 classes), input [1,3,224,224]")


def case_resnet50():
    return _torchvision_case("resnet50", "torchvision resnet50")


# ------------------------------------------------- the slow-family benchmark set
# Families the optimized kernels were measured slow on against the real runtime's
# XNNPACK delegate (docs/performance.md): grouped convolutions (RegNet) and a
# small ViT. EfficientNet-B0 (squeeze-and-excitation, SiLU) is above.


def case_regnet_y_400mf():
    return _torchvision_case("regnet_y_400mf", "torchvision regnet_y_400mf")


def case_vit_tiny():
    """A DeiT-Tiny-sized ViT (Touvron et al. 2021: patch 16, 12 layers,
    3 heads, width 192, MLP 768) built with torchvision's VisionTransformer;
    torchvision's smallest named ViT (vit_b_16) is 15x its size."""
    from torchvision.models.vision_transformer import VisionTransformer

    m = VisionTransformer(image_size=224, patch_size=16, num_layers=12, num_heads=3,
                          hidden_dim=192, mlp_dim=768)
    with torch.no_grad():  # torchvision zero-initialises the head
        m.heads.head.weight.normal_(0.0, 192 ** -0.5)
    m.eval()
    center_classifier(m, m.heads.head, images(32, 224))
    return Case(m, (images(1, 224),),
                "torchvision VisionTransformer in DeiT-Tiny's configuration (patch 16,"
                " 12 layers, 3 heads, width 192, MLP 768; 1000 classes), input [1,3,224,224]")
