"""More programs of probe_xnnpack.py: float32 operator families the
XnnpackPartitioner delegates, with shapes and attributes the first set
(probe_xnnpack_cases.py) does not reach: odd channel counts (3, 5, 17, 33,
65), batches, non-square kernels, stride 3, 'same' padding with even
kernels, 1-D and transposed convolutions with stride 3, depthwise and
grouped convolutions, pooling attributes, non-divisible adaptive pooling,
activations with unusual parameters, linear layers with 1 feature,
matmuls between activations (vector, broadcast on both sides), layer norms,
reshapes between delegated ops, upsampling factors, pixel shuffle,
aliased and unused inputs and outputs, scalar arithmetic and bounded
dynamic batch and sequence dims. Each registers itself in
probe_xnnpack_cases.CASES (same conventions).
"""

import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim

from probe_xnnpack_cases import Fn, case, r


@case
def c_conv_nonsquare_odd_channels():
    m = nn.Sequential(nn.Conv2d(3, 17, (1, 7), padding=(0, 3)), nn.ReLU(),
                      nn.Conv2d(17, 33, (7, 1), padding=(3, 0)), nn.Hardswish(),
                      nn.Conv2d(33, 5, (3, 5), stride=(1, 2)))
    return dict(module=m, inputs=[(r(2, 3, 11, 13),)])


@case
def c_conv_stride3_dilation3():
    m = nn.Conv2d(5, 65, 3, stride=3, dilation=3, padding=2)
    return dict(module=Fn(lambda s, x: s.c(x), c=m), inputs=[(r(3, 5, 23, 19),)])


@case
def c_conv_same_even_kernel():
    """padding='same' with an even kernel pads one more at the end."""
    def f(s, x):
        return s.a(x), s.b(x)
    mods = dict(a=nn.Conv2d(4, 6, 4, padding="same"),
                b=nn.Conv2d(4, 3, (2, 5), padding="same", dilation=(1, 2), bias=False))
    return dict(module=Fn(f, **mods), inputs=[(r(2, 4, 9, 10),)])


@case
def c_conv1d_stride3_depthwise():
    m = nn.Sequential(nn.Conv1d(5, 17, 7, stride=3, padding=2), nn.ReLU(),
                      nn.Conv1d(17, 17, 5, groups=17, dilation=2, padding=4), nn.Conv1d(17, 3, 1))
    return dict(module=m, inputs=[(r(3, 5, 41),)])


@case
def c_conv_transpose_stride3():
    def f(s, x, y):
        return s.a(x), s.b(torch.relu(s.a(x))), s.c(y)
    mods = dict(a=nn.ConvTranspose2d(5, 6, 5, stride=3, padding=2, output_padding=2),
                b=nn.ConvTranspose2d(6, 6, 3, stride=2, groups=6),
                c=nn.ConvTranspose1d(4, 3, 3, stride=2, padding=1, output_padding=1))
    return dict(module=Fn(f, **mods), inputs=[(r(2, 5, 4, 6), r(2, 4, 9))])


@case
def c_depthwise_mult2_dilated():
    m = nn.Sequential(nn.Conv2d(5, 10, 5, groups=5, dilation=2, stride=2, padding=4, bias=False),
                      nn.Hardswish(), nn.Conv2d(10, 20, 3, groups=10, padding=1))
    return dict(module=m, inputs=[(r(2, 5, 15, 12),)])


@case
def c_grouped_conv_2_4_8():
    m = nn.Sequential(nn.Conv2d(16, 24, 3, groups=8, padding=1), nn.ReLU(),
                      nn.Conv2d(24, 8, 1, groups=4), nn.Conv2d(8, 6, 3, groups=2, stride=2))
    return dict(module=m, inputs=[(r(2, 16, 9, 9),)])


@case
def c_conv_kernel_covers_input():
    def f(s, x, y):
        return s.b(torch.relu(s.a(x))).flatten(1), s.c(y)
    mods = dict(a=nn.Conv2d(6, 9, 5), b=nn.Conv2d(9, 4, 1), c=nn.Conv2d(3, 5, 3, padding=1))
    return dict(module=Fn(f, **mods), inputs=[(r(3, 6, 5, 5), r(2, 3, 1, 1))])


@case
def c_pool_attrs_odd():
    def f(s, x):
        return (F.max_pool2d(x, (3, 2), stride=(2, 3), padding=(1, 1), ceil_mode=True),
                F.avg_pool2d(x, 3, stride=3, ceil_mode=True),
                F.avg_pool2d(x, (3, 5), stride=2, padding=(1, 2), count_include_pad=False),
                F.max_pool2d(x, 3, stride=1, dilation=2),
                F.avg_pool2d(x, 1, stride=2), F.max_pool2d(x * 2.0, 1))
    return dict(module=Fn(f), inputs=[(r(3, 17, 13, 11),)])


@case
def c_adaptive_pool_nondivisible():
    def f(s, x):
        return F.adaptive_avg_pool2d(x, (3, 4)), F.adaptive_avg_pool2d(x, (1, 5)), F.adaptive_avg_pool2d(x, (7, 10))
    return dict(module=Fn(f), inputs=[(r(2, 5, 7, 10),)])


@case
def c_activations_params():
    def f(s, x):
        return (F.softplus(x), F.softplus(x, beta=2.0, threshold=3.0), F.elu(x), F.elu(x, alpha=2.0),
                F.leaky_relu(x, 1.5), F.leaky_relu(x, -0.1), F.silu(x), F.mish(x), F.hardtanh(x, -3.0, 0.0),
                torch.clamp(x, max=0.3), torch.clamp(x, min=-0.2), F.celu(x, 0.5), F.selu(x), F.logsigmoid(x))
    return dict(module=Fn(f), inputs=[(r(2, 33, 3, 2, scale=3),)])


@case
def c_linear_one_feature():
    def f(s, x, y, z):
        return s.a(x), s.b(y), s.c(z)
    mods = dict(a=nn.Linear(65, 1), b=nn.Linear(1, 17), c=nn.Linear(5, 3))
    return dict(module=Fn(f, **mods), inputs=[(r(5, 65), r(5, 1), r(2, 3, 4, 5))])


@case
def c_matmul_activations():
    def f(s, a, b, w, v):
        return (torch.mm(a, b), a @ w.t(), torch.matmul(a.unsqueeze(0).unsqueeze(0), b.expand(2, 3, 5, 6)),
                torch.matmul(v[:5], b), torch.matmul(a, v[1:]), torch.matmul(a.view(1, 4, 5).expand(3, 4, 5), b))
    return dict(module=Fn(f), inputs=[(r(4, 5), r(5, 6), r(7, 5), r(6))])


@case
def c_layer_norm_variants():
    def f(s, x, y):
        return s.a(x), F.layer_norm(x, (33,), eps=1e-3), s.b(y), s.c(y.transpose(1, 2))
    mods = dict(a=nn.LayerNorm(33), b=nn.LayerNorm([4, 6]), c=nn.LayerNorm(4, elementwise_affine=False))
    with torch.no_grad():
        for m in mods.values():
            for p in m.parameters():
                p.add_(torch.randn_like(p) * 0.3)
    return dict(module=Fn(f, **mods), inputs=[(r(2, 7, 33, scale=2), r(3, 4, 6) + 1)])


@case
def c_softmax_conv_channels():
    def f(s, x):
        y = s.c(x)
        return torch.softmax(y, dim=1), torch.log_softmax(y, dim=-1), torch.softmax(y, dim=2), torch.softmax(y, dim=-1)
    return dict(module=Fn(f, c=nn.Conv2d(3, 5, 3)), inputs=[(r(2, 3, 6, 7, scale=2),)])


@case
def c_reshape_between_ops():
    def f(s, x):
        y = s.a(x)  # [2, 8, 6, 5]
        t = y.flatten(2).transpose(1, 2)  # [2, 30, 8]
        t = s.l(t).view(2, 6, 5, 8).permute(0, 3, 1, 2)
        z = s.b(t + y)
        return z.reshape(2, -1), z.unsqueeze(1).squeeze(1).mean(dim=1, keepdim=True), t[:, :, 1]
    mods = dict(a=nn.Conv2d(3, 8, 3, padding=1), l=nn.Linear(8, 8), b=nn.Conv2d(8, 4, 1))
    return dict(module=Fn(f, **mods), inputs=[(r(2, 3, 6, 5),)])


@case
def c_mean_sum_odd():
    def f(s, x):
        return (x.mean(dim=(2, 3), keepdim=True), x.mean(dim=(2, 3)), x.mean(dim=1), x.mean(dim=-1, keepdim=True),
                x.sum(dim=(2, 3)), x.mean(dim=(1, 2, 3)), x.amax(dim=(2, 3)))
    return dict(module=Fn(f), inputs=[(r(3, 17, 5, 7),)])


@case
def c_upsample_factors():
    def f(s, x):
        return (F.interpolate(x, scale_factor=3, mode="bilinear", align_corners=True),
                F.interpolate(x, size=(3, 4), mode="bilinear", align_corners=False),
                F.interpolate(x, size=(2, 9), mode="bilinear", align_corners=True),
                F.interpolate(x, scale_factor=1.5, mode="nearest"),
                F.interpolate(x, size=(3, 2), mode="nearest"),
                F.upsample_bilinear(x, size=(7, 7)))
    return dict(module=Fn(f), inputs=[(r(2, 5, 5, 6),)])


@case
def c_pixel_shuffle_convs():
    def f(s, x):
        y = F.pixel_shuffle(s.a(x), 2)  # [2, 4, 10, 12]
        z = s.b(y)
        return z, s.c(F.pixel_unshuffle(z, 2))
    mods = dict(a=nn.Conv2d(3, 16, 3, padding=1), b=nn.Conv2d(4, 8, 3, padding=1), c=nn.Conv2d(32, 5, 1))
    return dict(module=Fn(f, **mods), inputs=[(r(2, 3, 5, 6),)])


@case
def c_aliased_unused_io():
    """An unused input, an input returned as is, one result returned twice and
    a view of it."""
    def f(s, x, unused, y):
        z = s.c(x) + 1.0
        return x, z, z, z.view(2, -1), y * 2.0
    return dict(module=Fn(f, c=nn.Conv2d(3, 4, 1)), inputs=[(r(2, 3, 4, 4), r(3), r(5))])


@case
def c_scalar_arith():
    def f(s, x, y):
        return (x * 0.5 + 1.0, 1.0 - x, x / 4.0, x - 3.0, -x, x.pow(2), torch.add(x, y, alpha=2.0),
                torch.sub(x, y, alpha=0.5), torch.rsub(x, 2.0), 3.0 / (x.abs() + 1.0))
    return dict(module=Fn(f), inputs=[(r(2, 3, 4, 5), r(2, 3, 4, 5))])


@case
def c_broadcast_4d_both_sides():
    def f(s, a, b, c):
        return a - b, b / (c.abs() + 0.5), torch.maximum(a, c), a * c - b, torch.minimum(c, b) + a
    return dict(module=Fn(f), inputs=[(r(1, 5, 1, 1), r(2, 5, 3, 4), r(2, 1, 3, 1))])


@case
def c_prelu_batchnorm_standalone():
    # PReLU on 2-D and 3-D inputs: the exporter refuses it (ChannelsLastTaggedReshapePass).
    def f(s, x, z):
        return s.p(x), s.bn(x + 1.0), s.bn1(z)
    mods = dict(p=nn.PReLU(17, init=0.2), bn=nn.BatchNorm2d(17), bn1=nn.BatchNorm1d(4))
    m = Fn(f, **mods).eval()
    with torch.no_grad():
        for bn in (m.bn, m.bn1):
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 2)
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.uniform_(-0.5, 0.5)
    return dict(module=m, inputs=[(r(2, 17, 3, 4), r(2, 4, 7))])


@case
def c_cat_constant_expand_repeat():
    def f(s, x):
        c = s.const.expand(x.shape[0], -1, x.shape[2], x.shape[3])
        y = torch.cat([x, c, x * 2.0], dim=1)
        return torch.relu(y), x.repeat(1, 2, 1, 3) + 1.0, torch.cat([x[:1], x], dim=0) - 1.0
    m = Fn(f)
    m.register_buffer("const", torch.randn(1, 3, 1, 1))
    return dict(module=m, inputs=[(r(2, 5, 3, 4),)])


@case
def c_dynamic_batch_cnn():
    m = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, groups=8), nn.Hardswish(),
                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 5))
    ds = ({0: Dim("b", min=1, max=6)},)
    return dict(module=m, dynamic_shapes=ds, export=(r(6, 3, 9, 9),),
                inputs=[(r(6, 3, 9, 9),), (r(1, 3, 9, 9),), (r(4, 3, 9, 9),)])


@case
def c_dynamic_seq_attention():
    def f(s, x):
        h = torch.relu(s.c(x.transpose(1, 2))).transpose(1, 2)  # [B, T, 8]
        q, k, v = s.qkv(h).chunk(3, dim=-1)
        a = torch.softmax(q @ k.transpose(1, 2) * 0.35, dim=-1) @ v
        return s.o(a) + h, torch.cat([h, a], dim=-1).mean(dim=1)
    mods = dict(c=nn.Conv1d(6, 8, 3, padding=1), qkv=nn.Linear(8, 24), o=nn.Linear(8, 8))
    ds = (({1: Dim("t", min=2, max=24)},),)  # forward(*xs)
    return dict(module=Fn(f, **mods), dynamic_shapes=ds, export=(r(2, 24, 6),),
                inputs=[(r(2, 24, 6),), (r(2, 2, 6),), (r(2, 13, 6),)])
