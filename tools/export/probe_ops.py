"""The operator mixes of tools/export/probe_programs.py: programs built
around the index, sort, scan, resampling, reduction, normalization and
elementwise operators users' models carry, dtypes other than float32 flowing
through the graph (int64, int32, bool, float64, float16, bfloat16) and
bounded dynamic shapes. Each registers itself in probe_models.PROGRAMS."""

import torch
import torch.nn.functional as F
from torch import nn

from probe_models import Lambda, _plain, program


@program
def mish_softplus_scan_topk_var():
    def fn(x):
        a = F.mish(x) + F.softplus(x, beta=2.0, threshold=5.0) + F.softplus(x * 30)
        c = torch.cumsum(a, dim=1) + torch.cumsum(torch.sigmoid(x), dim=-1)
        vals, idx = torch.topk(c, 3, dim=-1)
        small, sidx = torch.topk(x, 2, dim=1, largest=False)
        v = torch.var(x, dim=-1, keepdim=True) + torch.std(x, dim=1, unbiased=False, keepdim=True).mean()
        return vals, idx, small, sidx, v, torch.var(x, dim=(0, 2), correction=0)
    return _plain(Lambda(fn), torch.randn(2, 5, 9))


@program
def sort_argsort():
    def fn(x):
        s, i = torch.sort(x, dim=-1, descending=True)
        a = torch.argsort(x, dim=0)
        m, mi = torch.max(x, dim=1)
        return s, i, a, m, mi, torch.msort(x)
    return _plain(Lambda(fn), torch.randn(4, 6, 7))


@program
def pooling_3d():
    def fn(x):
        return F.max_pool3d(x, 2), F.avg_pool3d(x, (1, 2, 2))
    return _plain(Lambda(fn), torch.randn(2, 1, 3, 9, 10))


@program
def exporter_refused_ops():
    """Operators torch.export keeps outside the core ATen set (no
    decomposition): the exporter refuses them, as it does for users. Others
    it refuses: hypot, masked_select, >> on tensors, repeat_interleave with
    tensor repeats, adaptive_max_pool2d, rrelu."""
    def fn(x):
        return (torch.sort(x, stable=True)[1], torch.median(x, dim=-1).values, torch.cummax(x, dim=-1)[0],
                torch.cumprod(x, dim=-1),
                torch.round(x, decimals=1))
    return _plain(Lambda(fn), torch.randn(4, 6))


@program
def gather_scatter_index_put():
    def fn(x, idx, pos):
        g = torch.gather(x, 1, idx)
        s = torch.zeros(4, 10).scatter(1, idx, g)
        sa = torch.zeros(4, 10).scatter_add(1, idx, g)
        sr = torch.full((4, 10), -1.0).scatter_reduce(1, idx, g, reduce="amax", include_self=False)
        ip = x.clone()
        ip[pos, pos + 1] = 7.0
        acc = torch.zeros(10).index_put((pos,), torch.ones(3), accumulate=True)
        sel = torch.index_select(x, 1, pos)
        return g, s, sa, sr, ip, acc, sel, x[pos][:, pos]
    idx = torch.randint(0, 10, (4, 6))
    return _plain(Lambda(fn), torch.randn(4, 10), idx, torch.tensor([0, 2, 2]))


@program
def masked_where_compare():
    def fn(x, y):
        mask = (x > 0.3) & ~(y < -0.5) | (x == y)
        a = x.masked_fill(mask, -1e4)
        b = torch.where(mask, x, y)
        c = torch.where(x > y, x * 2, 0.5)
        causal = torch.ones(5, 5, dtype=torch.bool).tril()
        att = (x[0] @ y[0].T).masked_fill(~causal, float("-inf")).softmax(-1)
        return a, b, c, att, mask.sum(-1), mask.any(1)
    return _plain(Lambda(fn), torch.randn(3, 5, 5), torch.randn(3, 5, 5))


class BagOfEmbeddings(nn.Module):
    """EmbeddingBag-like: gather rows, then per-bag sums and means by
    scatter_add / index_add over a bag id per token."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 8, padding_idx=0)

    def forward(self, tokens, bag_of):
        rows = self.emb(tokens)
        sums = torch.zeros(4, 8).index_add(0, bag_of, rows)
        counts = torch.zeros(4).scatter_add(0, bag_of, torch.ones_like(bag_of, dtype=torch.float))
        means = sums / counts.clamp(min=1).unsqueeze(1)
        return sums, means


@program
def embedding_bag_like():
    tokens = torch.randint(0, 50, (12,))
    tokens[3] = 0
    return _plain(BagOfEmbeddings(), tokens, torch.arange(12) // 3)


@program
def embedding_bag_module():
    """nn.EmbeddingBag itself (aten::_embedding_bag)."""
    bag = nn.EmbeddingBag(50, 8, mode="mean")
    return _plain(Lambda(lambda t: bag(t)), torch.randint(0, 50, (4, 3)))


@program
def einsum_mix():
    def fn(a, b, c):
        return (torch.einsum("bij,bjk->bik", a, b), torch.einsum("bij->bj", a),
                torch.einsum("i,j->ij", c, c), torch.einsum("bhid,bhjd->bhij", a.unsqueeze(1), a.unsqueeze(1)),
                torch.einsum("bii->b", a[:, :, :4]), torch.einsum("bij,j->bi", a, b[0, :, 0]))
    return _plain(Lambda(fn), torch.randn(2, 4, 5), torch.randn(2, 5, 3), torch.randn(6))


@program
def interpolate_modes():
    def fn(x):
        return (F.interpolate(x, scale_factor=2.0, mode="nearest"),
                F.interpolate(x, size=(11, 13), mode="nearest-exact"),
                F.interpolate(x, size=(11, 13), mode="nearest"),
                F.interpolate(x, scale_factor=1.5, mode="bicubic", align_corners=False),
                F.interpolate(x, size=(9, 4), mode="bicubic", align_corners=True),
                F.interpolate(x, size=(12, 12), mode="bilinear", antialias=False),
                F.interpolate(x, size=(3, 4), mode="bilinear", antialias=True),
                F.interpolate(x, size=(3, 5), mode="area"),
                F.interpolate(x[:, :, 0], size=17, mode="linear"),
                F.interpolate(x.unsqueeze(2), size=(2, 7, 9), mode="trilinear"))
    return _plain(Lambda(fn), torch.randn(1, 3, 6, 7))


@program
def pixel_shuffle_roll_flip():
    def fn(x):
        p = F.pixel_shuffle(x, 2)
        u = F.pixel_unshuffle(p, 2)
        r = torch.roll(x, shifts=(1, -2), dims=(2, 3)) + torch.roll(x, 3)
        f = torch.flip(x, dims=(1, 3))
        ri = torch.repeat_interleave(x[:, :2], 3, dim=1)
        return p, u - x, r, f, ri, x.tile(1, 1, 2, 1), x.expand(2, -1, -1, -1) * 1.0
    return _plain(Lambda(fn), torch.randn(1, 8, 3, 4))


@program
def grid_sample_modes():
    def fn(x, grid):
        return (F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False),
                F.grid_sample(x, grid, mode="nearest", padding_mode="border", align_corners=True),
                F.grid_sample(x, grid, mode="bilinear", padding_mode="reflection", align_corners=False),
                F.grid_sample(x, grid, mode="bicubic", padding_mode="zeros", align_corners=True),
                F.affine_grid(torch.tensor([[[0.9, 0.1, 0.05], [-0.1, 1.1, 0.0]]]), [1, 2, 4, 5],
                              align_corners=False))
    return _plain(Lambda(fn), torch.randn(1, 2, 5, 6), torch.rand(1, 4, 7, 2) * 2.4 - 1.2)


@program
def unfold_fold_im2col():
    def fn(x):
        cols = F.unfold(x, kernel_size=3, padding=1, stride=2, dilation=1)
        back = F.fold(cols, output_size=(7, 8), kernel_size=3, padding=1, stride=2)
        cols2 = F.unfold(x, kernel_size=(2, 3), dilation=(2, 1))
        return cols, back, cols2, x.unfold(3, 3, 2)
    return _plain(Lambda(fn), torch.randn(2, 3, 7, 8))


@program
def logsumexp_norm_cdist():
    def fn(x, y):
        return (torch.logsumexp(x, dim=-1), torch.logsumexp(x * 100, dim=(0, 1)),
                torch.linalg.vector_norm(x, ord=2, dim=-1), torch.linalg.vector_norm(x, ord=1, dim=1),
                torch.linalg.vector_norm(x, ord=float("inf"), dim=-1), torch.norm(x),
                torch.linalg.vector_norm(x, ord=3, dim=(1, 2)), torch.cdist(x, y),
                torch.cdist(x, y, p=1.0), F.normalize(x, dim=-1), F.cosine_similarity(x, x.flip(1), dim=-1),
                F.pairwise_distance(x[0], y[0, :4]))
    return _plain(Lambda(fn), torch.randn(2, 4, 6), torch.randn(2, 5, 6))


class NormsNonLast(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_c = nn.LayerNorm(6)
        self.ln_hw = nn.LayerNorm([5, 7], elementwise_affine=True)
        self.ln_nobias = nn.LayerNorm(7, bias=False)
        self.rms = nn.RMSNorm(7)
        self.gn = nn.GroupNorm(3, 6)

    def forward(self, x):
        a = self.ln_c(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)  # channel LayerNorm
        b = self.ln_hw(x)
        c = self.ln_nobias(x.transpose(2, 3).contiguous().transpose(2, 3))
        d = self.rms(x)
        e = self.gn(x.to(memory_format=torch.channels_last))
        f = F.batch_norm(x, None, None, training=True)
        return a, b, c, d, e, f


@program
def layer_norms_non_last_dims():
    return _plain(NormsNonLast(), torch.randn(2, 6, 5, 7) * 3 + 1)


@program
def int_bool_int32_flow():
    def fn(x, ids):
        i32 = ids.to(torch.int32)
        a = (i32 * 3 + 1) // 2 % 5
        b = torch.bitwise_xor(ids, ids // 2) & 0x0F
        m = (ids % 3 == 0) | (x.argmax(-1) > 2)
        cnt = m.to(torch.int64).cumsum(0)
        oh = (ids.unsqueeze(-1) == torch.arange(8)).to(torch.float32)
        q = torch.clamp(torch.round(x * 10), -20, 20).to(torch.int32)
        s = torch.sum(q, dim=-1) + i32
        return a, b, m, cnt, oh, s, torch.remainder(ids - 10, 4), torch.fmod(ids - 10, 4), i32.max(), torch.sign(x).to(torch.int8)
    return _plain(Lambda(fn), torch.randn(6, 5), torch.randint(0, 8, (6,)))


@program
def float64_part():
    def fn(x):
        d = x.double()
        y = torch.exp(d * 3).sum(-1, keepdim=True).log() + torch.tanh(d) @ d.transpose(-1, -2)
        return y.float(), F.softmax(d, -1), torch.cumsum(d, 0)
    return _plain(Lambda(fn), torch.randn(4, 4))


@program
def float16_part():
    def fn(x):
        h = x.half()
        return (h * 2 + 1).float()
    return _plain(Lambda(fn), torch.randn(4, 4))


@program
def bfloat16_part():
    def fn(x):
        h = x.to(torch.bfloat16)
        return (h * 2 + 1).float()
    return _plain(Lambda(fn), torch.randn(4, 4))


class DynMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 4))
        self.ln = nn.LayerNorm(4)

    def forward(self, x):
        return self.ln(self.net(x)).softmax(-1), x.sum(0)


@program
def dynamic_batch_mlp():
    batch = torch.export.Dim("batch", min=1, max=16)
    return DynMLP(), (torch.randn(4, 8),), (torch.randn(11, 8),), ({0: batch},)


class DynSeq(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(6, 8, 3, padding=1)
        self.attn = nn.MultiheadAttention(8, 2, batch_first=True)
        self.gru = nn.GRU(8, 8, batch_first=True)

    def forward(self, x):
        h = F.relu(self.conv(x.transpose(1, 2))).transpose(1, 2)
        a = self.attn(h, h, h, need_weights=False)[0]
        return a.mean(1), torch.cumsum(h, 1)[:, -1]


@program
def dynamic_seq_conv_attention():
    seq = torch.export.Dim("seq", min=2, max=32)
    return DynSeq().eval(), (torch.randn(1, 10, 6),), (torch.randn(1, 23, 6),), ({1: seq},)


@program
def elementwise_math_mix():
    def fn(x, y):
        return (torch.atan2(x, y), torch.erf(x), torch.expm1(x), torch.log1p(x.abs()), torch.rsqrt(x.abs() + 0.1),
                torch.clamp(x, min=y - 1, max=y + 1), torch.lerp(x, y, 0.3), torch.pow(x.abs(), y),
                torch.trunc(x * 3), torch.round(x * 3), torch.fmod(x, 0.7), torch.remainder(x, 0.7),
                torch.logaddexp(x, y), torch.sinc(x), torch.xlogy(x.abs(), y.abs()),
                torch.floor_divide(x, 0.3), torch.reciprocal(y + 3), torch.logit(torch.sigmoid(x), eps=1e-6))
    return _plain(Lambda(fn), torch.randn(3, 8), torch.randn(3, 8))


@program
def activations_mix():
    prelu = nn.PReLU(4)
    with torch.no_grad():
        prelu.weight.copy_(torch.tensor([0.1, 0.2, -0.3, 0.4]))

    def fn(x):
        return (F.elu(x, 0.7), F.selu(x), F.celu(x, 1.3), F.leaky_relu(x, 0.05), F.hardtanh(x, -0.5, 0.8),
                F.relu6(x * 4), F.softsign(x), F.tanhshrink(x), F.logsigmoid(x), F.softmin(x, 1),
                F.log_softmax(x, 1), prelu(x), F.hardshrink(x, 0.3), F.softshrink(x, 0.3), F.glu(x, 1),
                F.threshold(x, 0.1, -2.0), F.silu(x), F.gelu(x), F.hardswish(x))
    return _plain(Lambda(fn), torch.randn(2, 4, 6) * 2)


@program
def pooling_mix():
    def fn(x):
        m, i = F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, return_indices=True)
        return (m, i, F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False, ceil_mode=True),
                F.avg_pool2d(x, 2, divisor_override=3), F.adaptive_avg_pool2d(x, (4, 3)),
                F.lp_pool2d(x, 2, 2), F.max_pool1d(x[:, 0], 2, dilation=2),
                F.avg_pool1d(x[:, 0], 3, stride=1, padding=1))
    return _plain(Lambda(fn), torch.randn(2, 3, 9, 10))


@program
def shape_ops_mix():
    def fn(x):
        a, b, c = torch.split(x, [1, 2, 3], dim=-1)
        parts = torch.chunk(x, 3, dim=1)
        st = torch.stack([a.squeeze(-1), b.sum(-1), c.mean(-1)], dim=1)
        un = torch.unbind(x, dim=0)
        d = torch.diff(x, dim=-1)
        diag = torch.diagonal(x[0], offset=1)
        tri = torch.triu(x[0], diagonal=1) - torch.tril(x[0], -1)
        return (st, parts[1].sum(1) * un[1][:1], d, diag, tri, x.narrow(2, 1, 3), torch.amax(x, (0, 2)), torch.aminmax(x, dim=-1)[0],
                torch.prod(x, dim=1), torch.nan_to_num(x / (x > 0).float()), F.pad(x, (1, 2, 0, 1), mode="reflect"),
                F.pad(x, (2, 1), mode="replicate"), F.pad(x.unsqueeze(0), (1, 1, 1, 1), mode="circular"),
                F.pad(x, (1, 1, 1, 1), value=3.0), x.unflatten(-1, (2, 3)).sum(-1))
    return _plain(Lambda(fn), torch.randn(2, 5, 6))


class Conv3dMix(nn.Module):
    def __init__(self):
        super().__init__()
        self.c3 = nn.Conv3d(2, 4, (2, 3, 3), padding=(0, 1, 1), stride=(1, 2, 1))
        self.t3 = nn.ConvTranspose3d(4, 2, 2, stride=2)
        self.c1 = nn.Conv1d(3, 6, 5, padding="same", dilation=2, groups=3, padding_mode="reflect")
        self.c2 = nn.Conv2d(3, 4, 3, padding=1, padding_mode="circular")

    def forward(self, v, s, im):
        return self.t3(F.relu(self.c3(v))), self.c1(s), self.c2(im)


@program
def conv3d_and_padding_modes():
    return _plain(Conv3dMix(), torch.randn(1, 2, 4, 6, 5), torch.randn(2, 3, 20), torch.randn(1, 3, 6, 7))
