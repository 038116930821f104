"""Held-out programs of sessions 15 and 19 for tools/export/probe_programs.py
(exported without a partitioner): reductions with keepdim over negative and
several dims, variance / standard deviation with every correction, scans
over negative dims and of integer and bool tensors (torch.export refuses
var_mean, std_mean, logcumsumexp and cumprod: not core ATen), arg-reductions, top-k
and sort on ties, where / masked_fill with broadcast masks and promoted
scalars, gather / scatter / index_select / index_put with int32 and int64
indices and a masked assignment, a detection head's post-processing, an
LSTM with proj_size, padding modes before a Conv1d, 1-D and 3-D instance /
group norms; session 19's mixes (resampling modes and grid_sample, pooling
with ceil mode, divisor and dilation, signed division, shape ops, attention
with a padding mask, transposed 1-D and 3-D convolutions, norms and
distances); and every float32 program of probe_xnnpack_heldout.py exported
without a partitioner too (as `nd_<name>`). Each registers itself in probe_models.PROGRAMS.
"""

import torch
import torch.nn.functional as F
from torch import nn

import probe_xnnpack_heldout  # noqa: F401  (registers its cases in CASES)
from probe_models import PROGRAMS, Lambda, _plain, program
from probe_xnnpack_cases import CASES


@program
def reductions_keepdim_negative_dims():
    def fn(x, m):
        return (x.sum(dim=(-1, -3), keepdim=True), x.mean(-2, keepdim=True), x.amax(-1, keepdim=True),
                x.amin(dim=(-2, -1)), x.prod(-2, keepdim=True), torch.var(x, dim=-1, correction=2, keepdim=True),
                torch.std(x, dim=(-3, -1), correction=0), torch.var(x, dim=-2, correction=1),
                torch.std(x, dim=(0, -1), keepdim=True), torch.logsumexp(x, dim=-3, keepdim=True),
                m.any(-1, keepdim=True), m.all(dim=-2), m.sum(-1), torch.count_nonzero(m, dim=-1),
                x.norm(dim=-2, keepdim=True), torch.var(x, dim=-1, unbiased=True)[..., :1])
    return _plain(Lambda(fn), torch.randn(2, 3, 5, 6), torch.randn(2, 3, 5, 6) > 0.2)


@program
def scans_negative_dims_dtypes():
    def fn(x, i, m):
        return (torch.cumsum(x, dim=-2), torch.cumsum(i, dim=-1), torch.cumsum(m, dim=0),
                torch.cumsum(x, dim=-1, dtype=torch.float64), torch.cumsum(i.to(torch.int32), -1),
                torch.cumsum(x.flip(-1), -1).flip(-1))
    return _plain(Lambda(fn), torch.randn(3, 4, 7), torch.randint(-5, 6, (3, 4, 7)),
                  torch.randn(3, 4, 7) > 0)


@program
def arg_reductions_on_ties():
    """Integer-valued floats with many ties: argmax / argmin / max(dim)
    return the first occurrence (documented); sort values; top-k values."""
    def fn(x):
        vals, idx = torch.max(x, dim=-1, keepdim=True)
        mn, mi = torch.min(x, dim=1)
        return (torch.argmax(x, dim=-1), torch.argmin(x, dim=0, keepdim=True), torch.argmax(x), vals, idx, mn, mi,
                torch.sort(x, dim=-1, descending=True).values, torch.topk(x, 3, dim=-1).values,
                torch.topk(x, 2, dim=0, largest=False).values, torch.argmax(x.flatten(1), dim=1))
    x = torch.randint(0, 3, (4, 9)).float()
    x[2] = 1.0  # a row of equal values
    return _plain(Lambda(fn), x.reshape(4, 3, 3).flatten(1).reshape(4, 9))


@program
def topk_sort_indices_on_ties():
    """The indices, not only the values, of top-k and sort on ties. PyTorch
    documents neither order, but its CPU kernels fix both (sort is stable,
    top-k selects with std::nth_element) and the real runtime's topk gives
    the same indices; ours returned the lowest tied index first until
    session 15 (runtime/kernels/portable/topk.cc)."""
    def fn(x):
        return tuple(torch.topk(x, 4, dim=-1)) + tuple(torch.sort(x, dim=-1, descending=True))
    return _plain(Lambda(fn), torch.randint(0, 3, (3, 10)).float())


@program
def where_masked_fill_broadcast():
    def fn(x, y, cm, rm, i):
        a = x.masked_fill(cm, -3.5)  # (1, C, 1, 1) mask
        b = torch.where(rm, x, y)  # (N, 1, H, 1) mask, y broadcast (1, C, 1, W)
        c = torch.where(x > 0, i, 2.5)  # int64 tensor and float scalar: float32
        d = torch.where(rm, i, -1)  # int64 stays int64
        e = i.masked_fill(cm, 7)
        f = torch.where(cm, x, torch.tensor(0.25))  # 0-d tensor operand
        return a, b, c, d, e, f, torch.where(x > y, True, rm)
    return _plain(Lambda(fn), torch.randn(2, 3, 4, 5), torch.randn(1, 3, 1, 5),
                  torch.tensor([True, False, True]).reshape(1, 3, 1, 1),
                  torch.rand(2, 1, 4, 1) > 0.5, torch.randint(-4, 5, (2, 3, 4, 5)))


@program
def index_ops_int32_int64():
    def fn(x, i64, i32, m):
        g = torch.gather(x, -1, i64)
        s = torch.zeros_like(x).scatter(-1, i64, g * 2)
        sv = torch.zeros_like(x).scatter(1, i64[:, :2], 5.0)
        sr = torch.ones(4, 6).scatter_reduce(1, i64, x[:, :3], reduce="prod")
        mean = torch.zeros(4, 6).scatter_reduce(1, i64, x[:, :3], reduce="mean", include_self=False)
        ia = torch.zeros(6, 6).index_add(0, i32.long(), x[:3], alpha=0.5)
        y = x.clone()
        y[m] = 0.0  # masked assignment: index_put with a bool mask
        z = x.clone()
        z[:, i32] = -1.0
        return (g, s, sv, sr, mean, ia, y, z, torch.index_select(x, -1, i32), torch.index_select(x, 0, i64[:, 0] % 4),
                x[i32 - 3], torch.take_along_dim(x, i64, dim=1))
    x = torch.randn(4, 6)
    return _plain(Lambda(fn), x, torch.randint(0, 6, (4, 3)), torch.tensor([5, 0, 3], dtype=torch.int32),
                  x > 0.5)


@program
def pad_modes_before_conv1d():
    """Reflect / replicate / circular padding before a Conv1d (the XNNPACK
    partitioner refuses this one)."""
    c1 = nn.Conv1d(4, 5, 3, stride=2)

    def fn(a):
        return (c1(F.pad(a, (3, 0), mode="reflect")), c1(F.pad(a, (1, 4), mode="replicate")),
                c1(F.pad(a, (2, 2), mode="circular")))
    return _plain(Lambda(fn), torch.randn(3, 4, 13))


class DetectionPost(nn.Module):
    """A detection head's decoding: anchors + predicted offsets (exp of
    log sizes, clamped), sigmoid scores, top-k over anchors, gather of the
    chosen boxes, and the pairwise IoU of the chosen boxes."""

    def __init__(self, anchors=40, classes=3):
        super().__init__()
        self.head = nn.Conv1d(8, 4 + classes, 1)
        self.register_buffer("anchors", torch.rand(anchors, 4) * torch.tensor([1.0, 1.0, 0.3, 0.3]))

    def forward(self, feat):
        p = self.head(feat).transpose(1, 2)  # b, anchors, 4 + classes
        a = self.anchors
        cxcy = a[:, :2] + p[..., :2] * a[:, 2:]
        wh = a[:, 2:] * torch.exp(p[..., 2:4].clamp(max=4.0))
        boxes = torch.cat([cxcy - wh / 2, cxcy + wh / 2], -1).clamp(0.0, 1.0)
        scores, labels = p[..., 4:].sigmoid().max(-1)
        top, idx = scores.topk(5, dim=-1)
        chosen = torch.gather(boxes, 1, idx.unsqueeze(-1).expand(-1, -1, 4))
        lt = torch.maximum(chosen[:, :, None, :2], chosen[:, None, :, :2])
        rb = torch.minimum(chosen[:, :, None, 2:], chosen[:, None, :, 2:])
        inter = (rb - lt).clamp(min=0).prod(-1)
        area = (chosen[..., 2:] - chosen[..., :2]).prod(-1)
        iou = inter / (area[:, :, None] + area[:, None, :] - inter + 1e-6)
        return top, torch.gather(labels, 1, idx), chosen, iou


@program
def detection_postprocess():
    return _plain(DetectionPost(), torch.randn(3, 8, 40))


@program
def lstm_proj_size_seq_first():
    lstm = nn.LSTM(6, 10, num_layers=2, proj_size=4, bidirectional=True)
    return _plain(Lambda(lambda x, h, c: lstm(x, (h, c))), torch.randn(5, 3, 6), torch.randn(4, 3, 4),
                  torch.randn(4, 3, 10))


class Norms1d3d(nn.Module):
    def __init__(self):
        super().__init__()
        self.in1 = nn.InstanceNorm1d(6)
        self.in1a = nn.InstanceNorm1d(6, affine=True)
        self.gnc = nn.GroupNorm(6, 6)
        self.gn1 = nn.GroupNorm(1, 6, affine=False)
        self.in3 = nn.InstanceNorm3d(2, affine=True)
        self.ln = nn.LayerNorm([6, 9], bias=False)
        with torch.no_grad():
            for m in (self.in1a, self.gnc, self.in3):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.5, 0.5)

    def forward(self, a, v):
        return self.in1(a), self.in1a(a), self.gnc(a), self.gn1(a), self.in3(v), self.ln(a)


@program
def norms_1d_3d():
    return _plain(Norms1d3d(), torch.randn(3, 6, 9) * 2 + 1, torch.randn(2, 2, 3, 4, 5))


@program
def int_bool_image_pipeline():
    """uint8 image -> float normalization, comparisons, bool logic, int
    reductions (int32 sums promote to int64), clamp and abs on integers."""
    def fn(img, lab):
        x = (img.float() / 255.0 - 0.5) / 0.25
        bright = img > 200
        mask = bright.any(1) & ~(lab == 0)
        i32 = img.to(torch.int32) - 128
        return (x, mask, i32.sum(-1), torch.clamp(i32, -50, 50), torch.abs(i32 - 3), bright.sum((1, 2)),
                img.max(), torch.argmax(img.flatten(1).to(torch.int64), 1), (img // 7).to(torch.uint8),
                torch.where(mask, lab, lab.new_full((), -1)))
    return _plain(Lambda(fn), torch.randint(0, 256, (2, 3, 4, 5), dtype=torch.uint8),
                  torch.randint(0, 3, (2, 4, 5)))



# Session 19's held-out operator mixes (models of that session are nd_ cases).

@program
def unfold_rot90_pixel_unshuffle():
    def fn(x):
        a = F.pixel_shuffle(x, 2)
        return (a, F.pixel_unshuffle(a, 2), torch.roll(x, shifts=(1, -2), dims=(2, 3)),
                F.unfold(x, kernel_size=3, padding=1, stride=2), torch.rot90(x, 1, (2, 3)))
    return _plain(Lambda(fn), torch.randn(1, 8, 6, 6))


@program
def resample_modes_and_grid_sample():
    def fn(x):
        return (F.interpolate(x, scale_factor=2.5, mode="bilinear", align_corners=False),
                F.interpolate(x, size=(7, 5), mode="bicubic", align_corners=True),
                F.interpolate(x, size=(9, 13), mode="nearest-exact"),
                F.interpolate(x, scale_factor=0.5, mode="area"),
                F.grid_sample(x, torch.tanh(x[:, :2].permute(0, 2, 3, 1)), align_corners=False))
    return _plain(Lambda(fn), torch.randn(2, 3, 8, 10))


@program
def pooling_ceil_divisor_dilation_lp():
    def fn(x):
        return (F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
                F.avg_pool2d(x, 2, divisor_override=3), F.max_pool2d(x, 3, 2, 1, dilation=2, ceil_mode=True),
                F.lp_pool2d(x.abs(), 2, 2), F.adaptive_avg_pool2d(x, (5, 3)), F.avg_pool1d(x.flatten(2), 4, 3, 1))
    return _plain(Lambda(fn), torch.randn(2, 4, 11, 9))


@program
def signed_division_and_activations():
    """remainder / fmod / floor_divide with negative operands (Python's and
    C's conventions), lerp, logit with eps, nan_to_num of 0/0, CELU, SELU,
    GLU, softsign, clamp with tensor bounds, bitwise ops, sign, trunc."""
    def fn(x, y, i, j):
        return (torch.atan2(x, y), torch.remainder(x, -1.5), torch.fmod(x, 1.25), torch.floor_divide(i, j),
                torch.remainder(i, j), torch.lerp(x, y, 0.3), torch.logit(torch.sigmoid(x), 1e-6),
                torch.nan_to_num(x / (y - y)), F.celu(x), F.selu(x), F.glu(x, -1), F.softsign(x),
                torch.clamp(x, min=y, max=y + 1), torch.bitwise_xor(i, j), torch.bitwise_and(i, 6),
                torch.sign(i), torch.trunc(x * 3))
    i = torch.randint(-20, 20, (4, 6))
    j = torch.randint(1, 7, (4, 6)) * torch.where(torch.rand(4, 6) > 0.5, 1, -1)
    return _plain(Lambda(fn), torch.randn(4, 6), torch.randn(4, 6), i, j)


@program
def split_tile_diagonal_one_hot():
    def fn(x, idx):
        a, b, c = torch.split(x, [1, 3, 2], dim=1)
        return (torch.triu(x[0], 1), torch.tril(x[0], -1), torch.diagonal(x, 1, 1, 2), torch.tile(a, (1, 2, 2)),
                torch.repeat_interleave(b, 2, dim=2), torch.narrow(c, 2, 1, 3), torch.flip(x, (0, 2)),
                torch.stack(torch.unbind(x, 1)[::2], -1), torch.gather(x, -1, idx), F.one_hot(idx[0], 6),
                torch.take_along_dim(x, idx, -1), x.unflatten(1, (2, 3)).transpose(-1, -2).contiguous())
    return _plain(Lambda(fn), torch.randn(3, 6, 6), torch.randint(0, 6, (3, 6, 4)))


@program
def attention_padding_mask_norm_first():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = nn.MultiheadAttention(32, 4, batch_first=True)
            self.enc = nn.TransformerEncoderLayer(32, 4, 64, batch_first=True, norm_first=True,
                                                  activation="gelu", dropout=0.0)

        def forward(self, x, mask):
            a, w = self.mha(x, x, x, key_padding_mask=mask, need_weights=True)
            q = x.view(2, 10, 4, 8).transpose(1, 2)
            return a, w, self.enc(x), F.scaled_dot_product_attention(q, q, q, is_causal=True)
    m = torch.zeros(2, 10, dtype=torch.bool)
    m[1, 7:] = True
    return _plain(M().eval(), torch.randn(2, 10, 32), m)


@program
def conv_transpose1d_conv3d_circular():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.t1 = nn.ConvTranspose1d(6, 4, 5, stride=3, padding=2, output_padding=1, groups=2, dilation=2)
            self.c3 = nn.Conv3d(2, 4, (2, 3, 3), stride=(1, 2, 2), padding=(1, 0, 1))
            self.t2 = nn.ConvTranspose2d(4, 8, 3, stride=2, padding=1, output_padding=1, groups=4)
            self.c1 = nn.Conv1d(6, 6, 3, padding=2, dilation=2, groups=3, padding_mode="circular")
            self.prelu = nn.PReLU(8)

        def forward(self, a, b, c):
            return (self.t1(a), self.c3(b), self.prelu(self.t2(c)), self.c1(a), F.max_pool3d(b, 2),
                    F.adaptive_avg_pool1d(a, 5))
    return _plain(M().eval(), torch.randn(2, 6, 11), torch.randn(1, 2, 4, 9, 9), torch.randn(2, 4, 5, 7))


@program
def norms_and_distances():
    def fn(x, y):
        return (F.normalize(x, dim=-1), F.cosine_similarity(x, y, dim=-1), F.pairwise_distance(x, y),
                torch.cdist(x, y), torch.linalg.vector_norm(x, ord=float("inf"), dim=-1),
                torch.linalg.vector_norm(x, ord=3, dim=(-2, -1)), F.local_response_norm(x.unsqueeze(0), 3),
                F.rms_norm(x, (8,), eps=1e-5), F.group_norm(x.transpose(1, 2), 2))
    return _plain(Lambda(fn), torch.randn(3, 5, 8), torch.randn(3, 5, 8))


for _name, _build in list(CASES.items()):
    if _build.__module__ != probe_xnnpack_heldout.__name__:
        continue

    def _nd(build=_build):
        c = build()
        inputs = c["inputs"][-1]
        return c["module"], c.get("export", inputs), inputs, c.get("dynamic_shapes")

    if "int8" not in _name and "dyn8" not in _name:
        PROGRAMS["nd_" + _name] = _nd
