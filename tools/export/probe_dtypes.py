"""More programs of tools/export/probe_programs.py: dtype semantics and edge
cases torch defines (int64 index arithmetic, bool masks, integer division and
remainder signs, type promotion, casts and rounding, int8/uint8 wrap-around,
float16 and bfloat16 compute, empty tensors, NaN and infinity propagation,
0-d tensors), and every float32 program of probe_xnnpack_attrs.py and
probe_xnnpack_edges.py exported without a partitioner (as `nd_<name>`: the
same operator families on the portable and optimized kernels). Each registers itself in
probe_models.PROGRAMS.
"""

import torch
import torch.nn.functional as F
from torch import nn

import probe_xnnpack_attrs  # noqa: F401  (registers its cases in CASES)
import probe_xnnpack_edges  # noqa: F401  (likewise)
from probe_models import PROGRAMS, Lambda, _plain, program
from probe_xnnpack_cases import CASES


@program
def int64_index_semantics():
    def fn(x, idx):
        am = torch.argmax(x, dim=1, keepdim=True)
        order = torch.argsort(x, dim=-1)
        g = torch.gather(x, -1, order[:, -2:])
        neg = x[:, idx - 7]  # negative indices count from the end
        pos = torch.arange(x.shape[1]).unsqueeze(0) < (am + 1)  # int64 arange vs int64 argmax
        sel = torch.index_select(x, 0, idx.to(torch.int32) % 4)
        return am, torch.argmin(x), order, g, neg, pos, sel, idx * 3 - am.sum()
    return _plain(Lambda(fn), torch.randn(4, 7), torch.tensor([0, 6, 3, 1]))


@program
def bool_mask_logic():
    def fn(x, m):
        a = torch.logical_and(x > 0, m) | torch.logical_xor(m, x < -1)
        b = torch.logical_not(a) & ~m
        filled = x.masked_fill(m[:, :1], 3.5)  # broadcast mask
        w = torch.where(a, 1.0, -2.0)
        eq = (x.round() == 0) != m
        return (a, b, filled, w, eq, a.sum(1), a.any(), b.all(dim=0), a.float() * x,
                torch.isnan(x.log()), torch.isinf(1.0 / x.clamp(min=0)), torch.isfinite(x.exp()))
    x = torch.randn(5, 6) * 2
    x[1, 2] = 0.0
    return _plain(Lambda(fn), x, torch.rand(5, 6) > 0.5)


@program
def int_division_semantics():
    def fn(a, b, f):
        return (torch.floor_divide(a, b), torch.div(a, b, rounding_mode="trunc"), torch.div(a, b, rounding_mode="floor"),
                torch.remainder(a, b), torch.fmod(a, b), a // 3, a % -3, torch.div(a, b), torch.div(f, -0.7, rounding_mode="floor"),
                torch.div(f, -0.7, rounding_mode="trunc"), torch.remainder(f, -0.7), torch.fmod(f, -0.7),
                torch.pow(a, 2), torch.clamp(a, -5, 4), torch.abs(a.to(torch.int8)), torch.neg(a.to(torch.int16)))
    a = torch.tensor([[-7, 7, -8, 9, 0, -1], [13, -13, 5, -5, 2, -2]])
    b = torch.tensor([[2, -2, 3, -3, 4, 5], [-4, 4, 7, 7, -1, 3]])
    return _plain(Lambda(fn), a, b, torch.randn(2, 6) * 3)


@program
def dtype_promotion_mix():
    def fn(i32, i64, u8, i8, f, b):
        return (i32 + 1.5, i64 * f, b + i32, u8 + i8, i8 * 2.5, f + f.double(), i32.sum(), torch.cumsum(i32, 0),
                b.sum(), u8.to(torch.float32) / 255.0, i32 / 2, i64 > f, torch.maximum(i32, i64), b * 2)
    i32 = torch.randint(-50, 50, (3, 4), dtype=torch.int32)
    return _plain(Lambda(fn), i32, torch.randint(-9, 9, (3, 4)), torch.randint(0, 255, (3, 4), dtype=torch.uint8),
                  torch.randint(-128, 127, (3, 4), dtype=torch.int8), torch.randn(3, 4), torch.rand(3, 4) > 0.5)


@program
def casts_rounding():
    def fn(x):
        return (x.to(torch.int32), x.to(torch.int64), (x * 10).to(torch.int8), x.abs().to(torch.uint8), x.to(torch.bool),
                torch.round(x), torch.round(x * 0.5 + 0.25), (x * 1e6).to(torch.int64).to(torch.float32),
                x.to(torch.float16), x.to(torch.bfloat16).to(torch.float32), torch.trunc(x), torch.frac(x))
    x = torch.tensor([[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5], [-1.7, -0.2, 0.0, 0.2, 1.7, 11.999]])
    return _plain(Lambda(fn), x * torch.tensor([1.0, 3.0]).unsqueeze(1))


@program
def int8_uint8_wraparound():
    def fn(a, b, u, v):
        return a + b, a * b, a - b, u + v, u - v, u * 3, (a + 100).to(torch.int8), a.to(torch.uint8), u.to(torch.int8)
    a = torch.tensor([120, -120, 100, -128, 127, 5], dtype=torch.int8)
    b = torch.tensor([10, -10, 100, -1, 1, -6], dtype=torch.int8)
    u = torch.tensor([250, 3, 128, 0, 255, 17], dtype=torch.uint8)
    v = torch.tensor([10, 5, 128, 1, 1, 2], dtype=torch.uint8)
    return _plain(Lambda(fn), a, b, u, v)


class HalfNet(nn.Module):
    """A small network computed in `dtype` end to end (weights included)."""

    def __init__(self, dtype):
        super().__init__()
        self.c = nn.Conv2d(3, 6, 3, padding=1)
        self.ln = nn.LayerNorm(6)
        self.l = nn.Linear(6, 5)
        self.to(dtype)
        self.dtype = dtype

    def forward(self, x):
        h = x.to(self.dtype)
        y = F.gelu(self.c(h))
        p = F.max_pool2d(y, 2) + F.avg_pool2d(y, 2)
        t = self.ln(p.flatten(2).transpose(1, 2))  # [B, 16, 6]
        a = torch.softmax(t @ t.transpose(1, 2), dim=-1) @ t
        o = self.l(a)
        up = F.interpolate(p, scale_factor=2, mode="bilinear", align_corners=False)
        return (o.float(), o.mean(1).float(), torch.cumsum(o, 1).float(), torch.sigmoid(up).float(),
                (o.sum(-1) > 0), o.max(-1).values.float())


@program
def float16_network():
    return _plain(HalfNet(torch.float16), torch.randn(2, 3, 8, 8))


@program
def bfloat16_network():
    return _plain(HalfNet(torch.bfloat16), torch.randn(2, 3, 8, 8))


@program
def empty_tensors():
    def fn(x, e, ek, idx):
        lin = F.linear(e, torch.ones(3, 4))  # [0, 3]
        s = ek.sum(-1)  # sum over a 0-size dim: zeros
        mm = torch.matmul(x[:, :0], ek.t())  # K = 0: zeros
        c = torch.cat([x, e], dim=0)
        return (lin, s, mm, c, torch.relu(e), torch.softmax(e, -1), torch.cumsum(e, 0), torch.index_select(x, 0, idx),
                e.mean(0), ek.amax(0), x[2:2] * 3.0, ek.prod(-1))
    return _plain(Lambda(fn), torch.randn(3, 4), torch.randn(0, 4), torch.randn(2, 0),
                  torch.zeros(0, dtype=torch.int64))


@program
def conv_pool_empty_batch():
    conv = nn.Conv2d(3, 4, 3, padding=1)

    def fn(x):
        y = F.max_pool2d(torch.relu(conv(x)), 2)
        return y, F.adaptive_avg_pool2d(y, 1).flatten(1), F.interpolate(y, scale_factor=2.0)
    return _plain(Lambda(fn), torch.randn(0, 3, 6, 6))


@program
def nan_inf_propagation():
    # torch.fmax / fmin: the exporter refuses them (not core ATen).
    def fn(x, y):
        return (torch.maximum(x, y), torch.minimum(x, y), torch.relu(x), torch.clamp(x, -1.0, 1.0), x.amax(-1),
                x.max(-1).values, x.argmax(-1), torch.softmax(y, -1), torch.sort(x, -1).values, torch.where(x > 0, x, y),
                torch.sigmoid(x), torch.tanh(x), x.sum(-1), torch.nan_to_num(x, nan=0.0, posinf=9.0))
    nan, inf = float("nan"), float("inf")
    x = torch.tensor([[1.0, nan, -2.0, 0.5], [inf, -inf, 0.0, -0.0], [-1.0, 2.0, 3.0, -4.0]])
    y = torch.tensor([[-inf, -inf, -inf, -inf], [nan, 1.0, -0.0, 0.0], [0.5, nan, inf, -inf]])
    return _plain(Lambda(fn), x, y)


@program
def zero_dim_scalars():
    def fn(s, x, i):
        t = x * s + i  # 0-d float and 0-d int64 broadcast
        return t, t.sum(), (s * 2.0), x[1, 2], torch.max(x), i + 1, torch.where(s > 0, x, -x).mean()
    return _plain(Lambda(fn), torch.tensor(0.75), torch.randn(3, 4), torch.tensor(3))


for _name, _build in list(CASES.items()):
    if _build.__module__ not in (probe_xnnpack_attrs.__name__, probe_xnnpack_edges.__name__):
        continue

    def _nd(build=_build):
        c = build()
        inputs = c["inputs"][-1]
        return c["module"], c.get("export", inputs), inputs, c.get("dynamic_shapes")

    PROGRAMS["nd_" + _name] = _nd
