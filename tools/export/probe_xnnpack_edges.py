"""Edge values and degenerate shapes for probe_xnnpack.py (float32, lowered
with the XnnpackPartitioner; probe_dtypes.py runs them without one too):
NaN, infinities and fully masked (-inf) softmax rows through delegated
activations, pooling, reductions and binary ops; clamp with min > max
(PyTorch: every element becomes max); negative padding (cropping);
bilinear resizing to or from one pixel with align_corners; activations with
zero or negative parameters; linear layers and convolutions on an empty
batch. Each registers itself in probe_xnnpack_cases.CASES.
"""

import torch
import torch.nn.functional as F
from torch import nn

from probe_xnnpack_cases import Fn, case, r


def _specials(shape):
    x = r(*shape, scale=2)
    flat = x.view(-1)
    flat[::7] = float("nan")
    flat[3::11] = float("inf")
    flat[5::13] = float("-inf")
    return x


@case
def c_nan_inf_through_delegate():
    def f(s, x):
        return (torch.relu(x), F.hardtanh(x, -1.0, 1.0), torch.sigmoid(x), torch.tanh(x), F.elu(x),
                F.leaky_relu(x, 0.1), F.max_pool2d(x, 2), F.avg_pool2d(x, 2), x.mean(dim=(2, 3)),
                torch.maximum(x, x.flip(-1)), x * 2.0 + 1.0, x / (x.flip(-1) + 0.5), torch.abs(x),
                torch.floor(x), x * x)
    return dict(module=Fn(f), inputs=[(_specials((2, 3, 4, 6)),)])


@case
def c_masked_softmax_rows():
    def f(s, x, m):
        a = x.masked_fill(m, float("-inf"))
        return torch.softmax(a, dim=-1), torch.softmax(x * 0.0, dim=-1), torch.softmax(x * 1e4, dim=-1)
    m = torch.zeros(2, 3, 5, 7, dtype=torch.bool)
    m[0, 1, 2] = True  # a fully masked row: NaN in PyTorch
    m[1, :, :, 3:] = True
    return dict(module=Fn(f), inputs=[(r(2, 3, 5, 7, scale=3), m)])


@case
def c_division_by_zero():
    def f(s, x, y):
        return x / y, torch.rsqrt(y.abs()), torch.log(y.abs()), torch.sqrt(x), torch.exp(x * 100.0)
    y = r(2, 3, 4)
    y.view(-1)[::5] = 0.0
    y.view(-1)[1::9] = -0.0
    return dict(module=Fn(f), inputs=[(r(2, 3, 4, scale=2), y)])


@case
def c_clamp_min_above_max():
    def f(s, x):
        return torch.clamp(x, 0.5, -0.5), torch.clamp(s.c(x), min=1.0, max=1.0)
    return dict(module=Fn(f, c=nn.Conv2d(3, 3, 1)), inputs=[(r(2, 3, 4, 5),)])


@case
def c_negative_padding():
    def f(s, x):
        return F.pad(x, (-1, 1, 0, -2)), s.c(F.pad(x, (-1, -1, -1, -1))), F.pad(x, (2, -3), value=1.5)
    return dict(module=Fn(f, c=nn.Conv2d(3, 4, 1)), inputs=[(r(2, 3, 6, 7),)])


@case
def c_bilinear_one_pixel():
    def f(s, x):
        return (F.interpolate(x, size=(1, 5), mode="bilinear", align_corners=True),
                F.interpolate(x, size=(1, 1), mode="bilinear", align_corners=False),
                F.interpolate(x[:, :, :1, :1], size=(3, 4), mode="bilinear", align_corners=True),
                F.interpolate(x[:, :, :1], size=(2, 9), mode="bilinear", align_corners=False))
    return dict(module=Fn(f), inputs=[(r(2, 3, 4, 6),)])


@case
def c_activation_zero_params():
    def f(s, x):
        return F.leaky_relu(x, 0.0), F.elu(x, alpha=0.0), F.leaky_relu(x, -1.0), s.p(x), F.hardtanh(x, 0.0, 0.0)
    p = nn.PReLU(3)
    with torch.no_grad():
        p.weight.copy_(torch.tensor([0.0, -2.0, 1.0]))
    return dict(module=Fn(f, p=p), inputs=[(r(2, 3, 4, 5, scale=2),)])


@case
def c_empty_batch():
    def f(s, x, y):
        return s.l(x), torch.relu(s.c(y)), s.c(y).mean(dim=(2, 3))
    mods = dict(l=nn.Linear(6, 4), c=nn.Conv2d(3, 5, 3, padding=1))
    return dict(module=Fn(f, **mods), inputs=[(r(0, 6), r(0, 3, 5, 5))])
