"""The programs of probe_xnnpack.py: each case builds a module and its inputs.

Each case returns a dict: module, inputs (list of input tuples: the first is
the export example unless `export` is given), kind ("fp32", "int8",
"int8pt" (per-tensor weights), "dyn8"),
optional dynamic_shapes and export (example inputs to export with). CASES maps
a case's name (its function name without the c_ prefix) to its builder.
"""

import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim

class Fn(nn.Module):
    """A module whose forward is a function (and optional submodules)."""

    def __init__(self, fn, **mods):
        super().__init__()
        self.fn = fn
        for k, m in mods.items():
            setattr(self, k, m)

    def forward(self, *xs):
        return self.fn(self, *xs)


def r(*shape, scale=1.0):
    return torch.randn(*shape) * scale


# Each case returns a dict: module, inputs (list of input tuples: the first is
# the export example unless `export` is given), kind ("fp32", "int8",
# "dyn8"), optional dynamic_shapes and export (example inputs to export with).
CASES = {}


def case(fn):
    CASES[fn.__name__[2:]] = fn
    return fn


@case
def c_conv1d_groups_dilation():
    m = nn.Conv1d(6, 12, 3, groups=3, dilation=2, padding=2)
    return dict(module=Fn(lambda s, x: s.c(x), c=m), inputs=[(r(2, 6, 20),)])


@case
def c_conv2d_groups_dilation_asym():
    m = nn.Conv2d(8, 16, (3, 5), stride=(2, 1), padding=(2, 1), dilation=(2, 1), groups=4, bias=False)
    return dict(module=Fn(lambda s, x: s.c(x), c=m), inputs=[(r(2, 8, 13, 11),)])


@case
def c_conv2d_stride_gt_kernel():
    m = nn.Conv2d(3, 5, 2, stride=3)
    return dict(module=Fn(lambda s, x: s.c(x), c=m), inputs=[(r(1, 3, 17, 13),)])


@case
def c_conv2d_explicit_asym_pad():
    m = nn.Conv2d(4, 6, 3)
    return dict(module=Fn(lambda s, x: s.c(F.pad(x, (0, 2, 1, 0))), c=m), inputs=[(r(1, 4, 9, 8),)])


@case
def c_conv_transpose_outpad_groups():
    m = nn.ConvTranspose2d(8, 6, 3, stride=2, padding=1, output_padding=1, groups=2)
    return dict(module=Fn(lambda s, x: s.c(x), c=m), inputs=[(r(2, 8, 7, 5),)])


@case
def c_conv_transpose_rect_dilated():
    m = nn.ConvTranspose2d(4, 3, (3, 2), stride=(2, 3), padding=(1, 0), dilation=(2, 1))
    return dict(module=Fn(lambda s, x: s.c(x), c=m), inputs=[(r(1, 4, 5, 6),)])


@case
def c_depthwise_multiplier():
    m = nn.Conv2d(4, 12, 3, groups=4, padding=1, stride=2)
    return dict(module=Fn(lambda s, x: torch.relu(s.c(x)), c=m), inputs=[(r(2, 4, 9, 10),)])


@case
def c_pool_ceil_padding():
    def f(s, x):
        return (F.max_pool2d(x, 3, 2, padding=1, ceil_mode=True),
                F.avg_pool2d(x, 3, 2, padding=1, ceil_mode=True, count_include_pad=False),
                F.avg_pool2d(x, (2, 3), (2, 1), padding=(1, 1), count_include_pad=True),
                F.max_pool2d(x, 2, 3))
    return dict(module=Fn(f), inputs=[(r(2, 5, 11, 10),)])


@case
def c_adaptive_avg_pool():
    def f(s, x):
        return F.adaptive_avg_pool2d(x, (2, 3)), F.adaptive_avg_pool2d(x, 1)
    return dict(module=Fn(f), inputs=[(r(1, 4, 8, 12),)])


@case
def c_linear_3d_4d():
    def f(s, x, y):
        return s.a(x), s.b(y)
    return dict(module=Fn(f, a=nn.Linear(16, 7), b=nn.Linear(16, 5, bias=False)),
                inputs=[(r(2, 3, 16), r(2, 3, 4, 16))])


@case
def c_matmul_broadcast():
    def f(s, a, b, c, d):
        return torch.matmul(a, b), torch.bmm(c, d), torch.matmul(c, b[0, :, :2])
    return dict(module=Fn(f), inputs=[(r(2, 1, 4, 5), r(3, 5, 6), r(3, 4, 5), r(3, 5, 2))])


@case
def c_sdpa():
    def f(s, q, k, v):
        return F.scaled_dot_product_attention(q, k, v)
    return dict(module=Fn(f), inputs=[(r(2, 4, 6, 8), r(2, 4, 5, 8), r(2, 4, 5, 3))])


@case
def c_sdpa_mask_scale():
    def f(s, q, k, v, m):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=0.3)
    return dict(module=Fn(f), inputs=[(r(1, 2, 6, 8), r(1, 2, 7, 8), r(1, 2, 7, 8), r(6, 7))])


@case
def c_sdpa_causal():
    def f(s, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    return dict(module=Fn(f), inputs=[(r(2, 3, 5, 4), r(2, 3, 5, 4), r(2, 3, 5, 4))])


@case
def c_softmax_dims():
    def f(s, x):
        return torch.softmax(x, dim=1), torch.log_softmax(x, dim=0), torch.log_softmax(x, dim=-1)
    return dict(module=Fn(f), inputs=[(r(3, 4, 5, scale=3),)])


@case
def c_mean_dims():
    def f(s, x):
        return x.mean(dim=(2, 3), keepdim=True), x.mean(dim=-1), x.mean(dim=(-1, -2))
    return dict(module=Fn(f), inputs=[(r(2, 3, 4, 5),)])


@case
def c_cat_slice_permute():
    def f(s, x, y):
        a = torch.cat([x, y * 2], dim=2)  # [2, 3, 9, 4]
        b = a[:, 1:, 2:-1:2, ::3]
        c = b.permute(0, 3, 1, 2)
        return c, torch.cat([x, x, y[:, :, :4]], dim=0), torch.cat([x, y[:, :, :4]], dim=-1)
    return dict(module=Fn(f), inputs=[(r(2, 3, 4, 4), r(2, 3, 5, 4))])


@case
def c_pad_constant():
    def f(s, x, y):
        return F.pad(x, (1, 2, 0, 3), value=0.5), F.pad(y, (2, 0, 1, 1, 0, 1))
    return dict(module=Fn(f), inputs=[(r(2, 3, 4, 5), r(3, 4, 5))])


@case
def c_upsample():
    def f(s, x):
        return (F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False),
                F.interpolate(x, size=(7, 5), mode="bilinear", align_corners=True),
                F.interpolate(x, size=(9, 11), mode="bilinear", align_corners=False),
                F.interpolate(x, scale_factor=2, mode="nearest"),
                F.interpolate(x, size=(6, 9), mode="nearest"))
    return dict(module=Fn(f), inputs=[(r(2, 3, 4, 6),)])


@case
def c_activations():
    def f(s, x):
        return (F.hardswish(x), F.hardsigmoid(x), F.leaky_relu(x, 0.2), F.elu(x, alpha=0.5),
                F.gelu(x), F.gelu(x, approximate="tanh"), torch.sigmoid(x), torch.tanh(x))
    return dict(module=Fn(f), inputs=[(r(2, 3, 5, 4, scale=3),)])


@case
def c_prelu_relu6_clamp():
    def f(s, x):
        return (s.p1(x), s.p3(x), F.relu6(x * 4), torch.clamp(x, -0.5, 0.7), torch.clamp(x, min=0.1),
                F.hardtanh(x, -2.0, 1.5))
    return dict(module=Fn(f, p1=nn.PReLU(), p3=nn.PReLU(3, init=0.1)), inputs=[(r(2, 3, 4, 5, scale=2),)])


@case
def c_unary_math():
    def f(s, x):
        a = x.abs()
        return (torch.neg(x), torch.sqrt(a), torch.rsqrt(a + 0.1), torch.exp(x), torch.log(a + 0.01),
                torch.floor(x), torch.ceil(x), torch.square(x), x * x * x)
    return dict(module=Fn(f), inputs=[(r(2, 3, 4, scale=3),)])


@case
def c_binary_broadcast():
    def f(s, x, y, z):
        return (torch.minimum(x, y), torch.maximum(x, z), x / (z.abs() + 0.5), y - x, z - y,
                x * y + z, 2.0 - x, x / 3.0)
    return dict(module=Fn(f), inputs=[(r(2, 3, 4), r(4), r(3, 1))])


@case
def c_size_one_dims():
    def f(s, x):
        y = s.c(x)  # [1, 1, 5, 1]
        return y * torch.sigmoid(y), y.mean(dim=2), y.permute(0, 3, 2, 1)
    return dict(module=Fn(f, c=nn.Conv2d(1, 1, (3, 1), padding=(1, 0))), inputs=[(r(1, 1, 5, 1),)])


@case
def c_zero_size():
    def f(s, x, y):
        return torch.cat([x, y], dim=1) * 2.0, torch.relu(y) + 1.0
    return dict(module=Fn(f), inputs=[(r(2, 3, 4), r(2, 0, 4))])


@case
def c_batch_cnn():
    m = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(8, 8, 3, groups=8), nn.Hardswish(), nn.AdaptiveAvgPool2d(1),
                      nn.Flatten(), nn.Linear(8, 4))
    m.eval()
    with torch.no_grad():
        m[1].running_mean.uniform_(-0.5, 0.5)
        m[1].running_var.uniform_(0.5, 2)
    return dict(module=m, inputs=[(r(3, 3, 12, 12),)])


@case
def c_channels_last_input():
    m = nn.Sequential(nn.Conv2d(3, 6, 3, padding=1), nn.ReLU(), nn.Conv2d(6, 4, 1))
    x = r(2, 3, 8, 8).to(memory_format=torch.channels_last)
    return dict(module=m, inputs=[(x,)])


@case
def c_multi_output_mixed():
    def f(s, x):
        y = s.c(x)
        top = torch.topk(y.flatten(1), 3).values  # portable between delegates
        z = torch.cumsum(y, dim=1)
        return torch.tanh(z), top * 2.0, y.argmax(dim=1), s.l(F.layer_norm(y.mean(dim=(2, 3)), (6,)))
    return dict(module=Fn(f, c=nn.Conv2d(3, 6, 3), l=nn.Linear(6, 2)), inputs=[(r(2, 3, 7, 7),)])


@case
def c_dynamic_batch_seq():
    def f(s, x):
        return torch.softmax(s.l(x), dim=-1) + x.mean(dim=-1, keepdim=True)
    ds = (({0: Dim("b", min=1, max=4), 1: Dim("t", min=2, max=16)},),)  # forward(*xs)
    return dict(module=Fn(f, l=nn.Linear(8, 8)), dynamic_shapes=ds, export=(r(4, 16, 8),),
                inputs=[(r(4, 16, 8),), (r(1, 5, 8),), (r(3, 2, 8),)])


@case
def c_dynamic_conv_hw():
    m = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(4, 2, 1))
    ds = ({2: 2 * Dim("h", min=2, max=16), 3: 2 * Dim("w", min=2, max=16)},)
    return dict(module=m, dynamic_shapes=ds, export=(r(1, 3, 32, 32),),
                inputs=[(r(1, 3, 32, 32),), (r(1, 3, 10, 14),)])


@case
def c_dynamic_matmul():
    def f(s, a, b):
        return torch.matmul(a, b) * 0.5
    t = Dim("t", min=1, max=12)
    ds = (({2: t}, {0: t}),)  # forward(*xs)
    return dict(module=Fn(f), dynamic_shapes=ds, export=(r(3, 6, 12), r(12, 5)),
                inputs=[(r(3, 6, 12), r(12, 5)), (r(3, 6, 4), r(4, 5))])


@case
def c_lstm():
    m = nn.LSTM(6, 8, batch_first=True)
    return dict(module=Fn(lambda s, x: s.l(x)[0], l=m), inputs=[(r(2, 5, 6),)])


@case
def c_int8_odd_channels():
    m = nn.Sequential(nn.Conv2d(3, 7, 3, padding=1), nn.ReLU(), nn.Conv2d(7, 7, 3, groups=7, stride=2),
                      nn.ReLU6(), nn.Conv2d(7, 5, 1), nn.Flatten(), nn.Linear(5 * 6 * 6, 3)).eval()
    return dict(module=m, inputs=[(r(2, 3, 13, 13),)], kind="int8")


@case
def c_int8_pool_add_cat():
    def f(s, x):
        y = torch.relu(s.a(x))
        z = y + s.b(y)
        p = torch.cat([F.max_pool2d(z, 2), F.avg_pool2d(z, 2)], dim=1)
        return F.adaptive_avg_pool2d(F.hardtanh(p), 1).flatten(1)
    return dict(module=Fn(f, a=nn.Conv2d(3, 9, 3, padding=1), b=nn.Conv2d(9, 9, 3, padding=1)).eval(),
                inputs=[(r(1, 3, 10, 10),)], kind="int8")


@case
def c_int8_linear_3d():
    m = nn.Sequential(nn.Linear(13, 9), nn.ReLU(), nn.Linear(9, 11)).eval()
    return dict(module=m, inputs=[(r(2, 5, 13),)], kind="int8")


@case
def c_int8_depthwise_mult_transpose():
    m = nn.Sequential(nn.Conv2d(3, 6, 3, groups=3, padding=1), nn.ReLU(),
                      nn.ConvTranspose2d(6, 5, 2, stride=2)).eval()
    return dict(module=m, inputs=[(r(1, 3, 6, 6),)], kind="int8")


@case
def c_int8_mul_sigmoid():
    def f(s, x):
        y = s.a(x)
        return torch.sigmoid(y) * y, F.hardswish(y)
    return dict(module=Fn(f, a=nn.Conv2d(4, 6, 1)).eval(), inputs=[(r(1, 4, 5, 5),)], kind="int8")


@case
def c_dyn8_linear_3d():
    m = nn.Sequential(nn.Linear(33, 17), nn.GELU(), nn.Linear(17, 9, bias=False)).eval()
    return dict(module=m, inputs=[(r(2, 5, 33, scale=2),)], kind="dyn8")


@case
def c_dyn8_linear_batch1():
    m = nn.Sequential(nn.Linear(7, 130), nn.ReLU(), nn.Linear(130, 3)).eval()
    return dict(module=m, inputs=[(r(1, 7),)], kind="dyn8")


@case
def c_softmax_last():
    def f(s, x, y):
        return torch.softmax(x, dim=-1), torch.softmax(y * 5, dim=1), torch.softmax(x[0, 0, 0], dim=0)
    return dict(module=Fn(f), inputs=[(r(2, 3, 4, 5, scale=3), r(3, 1))])


@case
def c_pool_delegated():
    def f(s, x):
        return (F.max_pool2d(x, 3, 1, padding=1), F.max_pool2d(x, (2, 3), (1, 2)),
                F.avg_pool2d(x, 3, 2), F.avg_pool2d(x, (1, 3), (1, 1)), F.max_pool2d(x, 4, 4))
    return dict(module=Fn(f), inputs=[(r(2, 5, 11, 10),)])


@case
def c_cat_many():
    def f(s, *xs):
        a = torch.cat(xs[:5], dim=1)  # channels of NCHW: concatenated in NHWC
        b = torch.cat(xs + xs[:2], dim=1)  # 7 inputs
        return torch.relu(a), b * 2.0, torch.cat([xs[1], xs[1] * 2.0], dim=3) + 1.0
    return dict(module=Fn(f), inputs=[tuple(r(2, c, 3, 4) for c in (1, 2, 3, 4, 5))])


@case
def c_transpose_high_rank():
    def f(s, x, y):
        return (x * 2.0).permute(4, 2, 0, 3, 1) + 1.0, (y + 1.0).permute(5, 0, 4, 1, 3, 2) * 3.0
    return dict(module=Fn(f), inputs=[(r(2, 3, 4, 5, 6), r(2, 1, 3, 2, 2, 3))])


@case
def c_elementwise_chain_4d():
    def f(s, x, b):
        y = torch.sigmoid(x * b + 0.5)  # per-channel broadcast [C, 1, 1]
        z = torch.maximum(y, torch.tanh(x)) - torch.minimum(y, x.abs().sqrt())
        return F.elu(z, 1.3) / (1.0 + torch.exp(-z.abs())), F.hardsigmoid(z) * F.leaky_relu(x, 0.01)
    return dict(module=Fn(f), inputs=[(r(2, 3, 5, 4, scale=2), r(3, 1, 1))])


@case
def c_int8_cat_broadcast_add():
    def f(s, x):
        a = torch.relu(s.a(x))
        b = s.b(x) * 3.0
        y = torch.cat([a, b], dim=1)  # branches with different ranges
        return F.max_pool2d(y + s.bias, 2), y.mean(dim=(2, 3))
    mods = dict(a=nn.Conv2d(3, 5, 3, padding=1), b=nn.Conv2d(3, 3, 1))
    m = Fn(f, **mods).eval()
    m.bias = nn.Parameter(torch.randn(1, 8, 1, 1))
    return dict(module=m, inputs=[(r(1, 3, 8, 8),)], kind="int8")


@case
def c_int8_batch_channels_last():
    m = nn.Sequential(nn.Conv2d(5, 11, 3, stride=2, padding=1), nn.Hardtanh(-1, 1),
                      nn.Conv2d(11, 11, 5, groups=11, padding=2), nn.ReLU(),
                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(11, 4)).eval()
    x = r(3, 5, 9, 9).to(memory_format=torch.channels_last)
    return dict(module=m, inputs=[(x,)], kind="int8")


@case
def c_dyn8_dynamic_batch():
    m = nn.Sequential(nn.Linear(24, 40), nn.ReLU(), nn.Linear(40, 6)).eval()
    ds = ({0: Dim("b", min=1, max=8)},)
    return dict(module=m, kind="dyn8", dynamic_shapes=ds, export=(r(8, 24),),
                inputs=[(r(8, 24),), (r(3, 24),), (r(1, 24),)])
