"""More quantized programs of probe_xnnpack.py: static int8 (PT2E
XNNPACKQuantizer, per-channel weights; per-tensor ones in the int8pt
cases) on conv + batch norm + ReLU,
depthwise with a depth multiplier, 1-D and transposed convolutions with
padding, linear layers with odd sizes, residual adds, concatenation,
pooling attributes and hardtanh; dynamically quantized linear layers on 2-D
and 4-D inputs, in a transformer block and with a bounded-dynamic sequence
length; dynamically quantized convolutions (the quantizer's dynamic
configuration takes conv and conv_transpose too), 1-D, grouped, transposed
and with a bounded-dynamic batch. Each registers itself in probe_xnnpack_cases.CASES (same
conventions).
"""

import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim

from probe_models import _bn_stats
from probe_xnnpack_cases import Fn, case, r


@case
def c_int8_conv_bn_relu():
    m = nn.Sequential(nn.Conv2d(3, 17, 3, padding=1), nn.BatchNorm2d(17), nn.ReLU(),
                      nn.Conv2d(17, 33, 3, stride=2), nn.BatchNorm2d(33), nn.ReLU(), nn.Conv2d(33, 5, 1))
    return dict(module=_bn_stats(m), inputs=[(r(2, 3, 11, 11),)], kind="int8")


@case
def c_int8_depthwise_5x5_mult2():
    m = nn.Sequential(nn.Conv2d(5, 10, 5, groups=5, stride=2, padding=2), nn.Hardtanh(-2.0, 2.0),
                      nn.Conv2d(10, 10, 3, groups=10, dilation=2, padding=2), nn.ReLU(), nn.Conv2d(10, 3, 1))
    return dict(module=m.eval(), inputs=[(r(2, 5, 13, 12),)], kind="int8")


@case
def c_int8_linear_odd_2d():
    m = nn.Sequential(nn.Linear(65, 33), nn.ReLU(), nn.Linear(33, 1)).eval()
    return dict(module=m, inputs=[(r(3, 65),)], kind="int8")


@case
def c_int8_residual_cat_pool():
    def f(s, x):
        a = torch.relu(s.a(x))
        b = a + s.b(a)
        c = torch.cat([a, b, s.c(x)], dim=1)
        return (F.avg_pool2d(c, 3, stride=2, padding=1, count_include_pad=False),
                F.max_pool2d(c, 3, stride=2, ceil_mode=True), F.hardtanh(c, -1.0, 1.0))
    mods = dict(a=nn.Conv2d(3, 6, 3, padding=1), b=nn.Conv2d(6, 6, 3, padding=1), c=nn.Conv2d(3, 5, 1))
    return dict(module=Fn(f, **mods).eval(), inputs=[(r(2, 3, 9, 8),)], kind="int8")


@case
def c_int8_conv1d():
    m = nn.Sequential(nn.Conv1d(5, 17, 5, stride=2, padding=2), nn.ReLU(),
                      nn.Conv1d(17, 17, 3, groups=17, padding=1), nn.ReLU(), nn.Conv1d(17, 4, 1)).eval()
    return dict(module=m, inputs=[(r(2, 5, 30),)], kind="int8")


@case
def c_int8_conv_transpose_pad():
    m = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(),
                      nn.ConvTranspose2d(8, 6, 3, stride=2, padding=1, output_padding=1), nn.ReLU(),
                      nn.ConvTranspose2d(6, 3, 4, stride=2, padding=1)).eval()
    return dict(module=m, inputs=[(r(2, 4, 5, 6),)], kind="int8")


@case
def c_int8_flatten_linear_head():
    def f(s, x):
        y = torch.relu(s.c(x))  # [2, 7, 4, 4]
        t = y.flatten(2).transpose(1, 2)  # [2, 16, 7]
        return s.l(t), s.h(F.adaptive_avg_pool2d(y, 1).flatten(1))
    mods = dict(c=nn.Conv2d(3, 7, 3, stride=2, padding=1), l=nn.Linear(7, 9), h=nn.Linear(7, 3))
    return dict(module=Fn(f, **mods).eval(), inputs=[(r(2, 3, 8, 8),)], kind="int8")


@case
def c_dyn8_linear_odd_2d():
    m = nn.Sequential(nn.Linear(65, 33), nn.GELU(), nn.Linear(33, 1)).eval()
    return dict(module=m, inputs=[(r(5, 65, scale=3),)], kind="dyn8")


@case
def c_dyn8_linear_4d():
    m = nn.Sequential(nn.Linear(9, 17), nn.ReLU(), nn.Linear(17, 5)).eval()
    return dict(module=m, inputs=[(r(2, 3, 4, 9),)], kind="dyn8")


class _Block(nn.Module):
    """A pre-norm transformer block (layer norm, q/k/v, softmax attention,
    GELU MLP, residuals)."""

    def __init__(self, d=24, heads=3):
        super().__init__()
        self.heads = heads
        self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.out = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.n1(x)).reshape(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = torch.softmax(q @ k.transpose(-1, -2) * (d // self.heads) ** -0.5, dim=-1) @ v
        x = x + self.out(a.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.n2(x))


@case
def c_dyn8_transformer_block():
    return dict(module=_Block().eval(), inputs=[(r(2, 7, 24),)], kind="dyn8")


@case
def c_dyn8_dynamic_seq():
    ds = ({1: Dim("t", min=1, max=16)},)
    return dict(module=_Block().eval(), kind="dyn8", dynamic_shapes=ds, export=(r(1, 16, 24),),
                inputs=[(r(1, 16, 24),), (r(1, 1, 24),), (r(1, 9, 24),)])


@case
def c_int8pt_cnn():
    m = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, groups=8, stride=2),
                      nn.ReLU(), nn.Conv2d(8, 5, 1), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(5, 3)).eval()
    return dict(module=m, inputs=[(r(2, 3, 10, 9),)], kind="int8pt")


@case
def c_int8pt_linear_transpose():
    def f(s, x, y):
        return s.b(torch.relu(s.a(x))), s.t(y)
    mods = dict(a=nn.Linear(13, 9), b=nn.Linear(9, 4), t=nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1))
    return dict(module=Fn(f, **mods).eval(), inputs=[(r(3, 13), r(1, 4, 5, 5))], kind="int8pt")


@case
def c_dyn8_conv2d():
    m = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 6, 3, stride=2, groups=2),
                      nn.ReLU(), nn.Conv2d(6, 4, 1), nn.Flatten(), nn.Linear(4 * 4 * 4, 5)).eval()
    return dict(module=m, inputs=[(r(2, 3, 10, 10),)], kind="dyn8")


@case
def c_dyn8_conv_transpose():
    """The first transposed convolution reads the method input: the exporter
    declares its quantizer's output in NCHW (the layout before the
    transpose)."""
    m = nn.Sequential(nn.ConvTranspose2d(4, 6, 2, stride=2), nn.ReLU(),
                      nn.ConvTranspose2d(6, 3, 3, stride=2, padding=1, output_padding=1)).eval()
    return dict(module=m, inputs=[(r(2, 4, 5, 5),)], kind="dyn8")


@case
def c_dyn8_conv1d_linear():
    def f(s, x):
        return s.l(torch.relu(s.c(x)).transpose(1, 2))
    mods = dict(c=nn.Conv1d(5, 12, 3, padding=1), l=nn.Linear(12, 7))
    return dict(module=Fn(f, **mods).eval(), inputs=[(r(2, 5, 16),)], kind="dyn8")


@case
def c_dyn8_conv_dynamic_batch():
    m = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1)).eval()
    ds = ({0: Dim("b", min=1, max=4)},)
    return dict(module=m, kind="dyn8", dynamic_shapes=ds, export=(r(4, 4, 6, 6),),
                inputs=[(r(4, 4, 6, 6),), (r(1, 4, 6, 6),), (r(3, 4, 6, 6) * 3,)])


@case
def c_dyn8_pointwise_variants():
    """1 x 1 convolutions after a 3 x 3 one: one group, stride 1, no padding
    (the real runtime quantizes their input pixel by pixel), grouped,
    strided, padded. Each chain reads its own input: with one quantizer
    shared by them, the real runtime quantizes per pixel and the others read
    two pixels' parameters as the images' (1.3-1.6 off torch eager, ours
    0.01), or fails to propagate shapes."""
    def f(s, *xs):
        return tuple(getattr(s, k)(getattr(s, "p" + k)(x)) for k, x in zip("abcd", xs))
    mods = dict(a=nn.Conv2d(8, 6, 1), b=nn.Conv2d(8, 6, 1, groups=2), c=nn.Conv2d(8, 6, 1, stride=2),
                d=nn.Conv2d(8, 6, 1, padding=1))
    mods.update({"p" + k: nn.Conv2d(8, 8, 3, padding=1) for k in "abcd"})
    return dict(module=Fn(f, **mods).eval(), inputs=[tuple(r(2, 8, 5, 6) for _ in range(4))], kind="dyn8")
