"""The networks of tools/export/probe_programs.py: small, seeded models that
are not in the zoo (segmentation with GroupNorm and transposed convolution,
bidirectional recurrences, audio encoders, vision transformers, mobile
blocks, a TCN and an attention decoder), and the registry PROGRAMS that
probe_ops.py adds its operator mixes to.

PROGRAMS maps a name to a function returning (module, example inputs,
run inputs, dynamic_shapes). The run inputs are what the probe feeds both
torch eager and the runtime; they differ from the example inputs only for
programs exported with bounded dynamic dims.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn

PROGRAMS = {}


def program(fn):
    PROGRAMS[fn.__name__] = fn
    return fn


def _plain(module, *inputs):
    return module, inputs, inputs, None


class Lambda(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


# --- segmentation ------------------------------------------------------------


class _UNetBlock(nn.Module):
    def __init__(self, cin, cout, groups):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(cin, cout, 3, padding=1), nn.GroupNorm(groups, cout), nn.SiLU(),
            nn.Conv2d(cout, cout, 3, padding=1), nn.GroupNorm(groups, cout), nn.ReLU())

    def forward(self, x):
        return self.body(x)


class UNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc1 = _UNetBlock(3, 8, 4)
        self.enc2 = _UNetBlock(8, 16, 4)
        self.mid = _UNetBlock(16, 32, 8)
        self.up2 = nn.ConvTranspose2d(32, 16, 2, stride=2)
        self.dec2 = _UNetBlock(32, 16, 4)
        self.up1 = nn.ConvTranspose2d(16, 8, 3, stride=2, padding=1, output_padding=1)
        self.dec1 = _UNetBlock(16, 8, 2)
        self.head = nn.Conv2d(8, 5, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        m = self.mid(F.avg_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([self.up2(m), e2], 1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], 1))
        logits = self.head(d1)
        # a second, coarser head upsampled bilinearly both ways
        coarse = F.interpolate(self.head(F.avg_pool2d(d1, 4)), scale_factor=4,
                               mode="bilinear", align_corners=False)
        coarse2 = F.interpolate(self.head(F.avg_pool2d(d1, 2)), size=x.shape[-2:],
                                mode="bilinear", align_corners=True)
        return logits.softmax(1), coarse + coarse2


@program
def unet_groupnorm():
    return _plain(UNet(), torch.randn(1, 3, 32, 32))


class SegHead(nn.Module):
    """ConvTranspose2d with groups and dilation, InstanceNorm, GroupNorm with
    one group, channels-last input."""

    def __init__(self):
        super().__init__()
        self.a = nn.ConvTranspose2d(8, 8, 3, stride=2, groups=4, dilation=2, padding=1)
        self.inorm = nn.InstanceNorm2d(8, affine=True)
        self.gn1 = nn.GroupNorm(1, 8)
        self.b = nn.ConvTranspose1d(8, 4, 4, stride=3, padding=1, output_padding=2)

    def forward(self, x):
        y = self.gn1(self.inorm(self.a(x)))
        z = self.b(y.mean(2))
        return y, z


@program
def seg_convtranspose_norms():
    return _plain(SegHead(), torch.randn(2, 8, 7, 9).to(memory_format=torch.channels_last))


# --- recurrences -------------------------------------------------------------


class BiRNN(nn.Module):
    def __init__(self, cell, batch_first, with_state):
        super().__init__()
        self.rnn = cell(12, 16, num_layers=2, bidirectional=True, batch_first=batch_first)
        self.with_state = with_state
        self.head = nn.Linear(32, 3)

    def forward(self, x, *state):
        if self.with_state:
            state = state[0] if len(state) == 1 else tuple(state)
            out, hidden = self.rnn(x, state)
        else:
            out, hidden = self.rnn(x)
        if isinstance(hidden, tuple):
            hidden = hidden[0] + hidden[1]
        return self.head(out), hidden


@program
def bilstm_batch_first():
    return _plain(BiRNN(nn.LSTM, True, False), torch.randn(2, 9, 12))


@program
def bilstm_seq_first_state():
    return _plain(BiRNN(nn.LSTM, False, True), torch.randn(9, 2, 12),
                  torch.randn(4, 2, 16), torch.randn(4, 2, 16))


@program
def bigru_batch_first():
    return _plain(BiRNN(nn.GRU, True, False), torch.randn(3, 7, 12))


@program
def bigru_seq_first_state():
    return _plain(BiRNN(nn.GRU, False, True), torch.randn(7, 3, 12), torch.randn(4, 3, 16))


# --- audio encoders ----------------------------------------------------------


def _sinusoids(length, channels):
    inv = torch.exp(-math.log(10000) / (channels // 2 - 1) * torch.arange(channels // 2))
    t = torch.arange(length)[:, None] * inv[None, :]
    return torch.cat([torch.sin(t), torch.cos(t)], dim=1)


class WhisperEncoder(nn.Module):
    def __init__(self, mels=16, d=32, heads=4, layers=2, frames=40):
        super().__init__()
        self.conv1 = nn.Conv1d(mels, d, 3, padding=1)
        self.conv2 = nn.Conv1d(d, d, 3, stride=2, padding=1)
        self.register_buffer("pos", _sinusoids(frames // 2, d))
        self.blocks = nn.ModuleList()
        for _ in range(layers):
            self.blocks.append(nn.ModuleDict(dict(
                ln1=nn.LayerNorm(d), attn=nn.MultiheadAttention(d, heads, batch_first=True),
                ln2=nn.LayerNorm(d), mlp=nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(),
                                                       nn.Linear(4 * d, d)))))
        self.ln = nn.LayerNorm(d)

    def forward(self, mel):
        x = F.gelu(self.conv1(mel))
        x = F.gelu(self.conv2(x)).permute(0, 2, 1)
        x = x + self.pos
        for b in self.blocks:
            h = b["ln1"](x)
            x = x + b["attn"](h, h, h, need_weights=False)[0]
            x = x + b["mlp"](b["ln2"](x))
        return self.ln(x)


@program
def whisper_like_encoder():
    return _plain(WhisperEncoder(), torch.randn(1, 16, 40))


class RelPosMHA(nn.Module):
    """Self-attention with a learned relative position bias (T5/Conformer
    style): the bias table is indexed by clamped pairwise distances."""

    def __init__(self, d, heads, max_rel=8):
        super().__init__()
        self.h, self.dh, self.max_rel = heads, d // heads, max_rel
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.bias = nn.Embedding(2 * max_rel + 1, heads)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).reshape(b, t, 3, self.h, self.dh).permute(2, 0, 3, 1, 4)
        pos = torch.arange(t)
        rel = (pos[None, :] - pos[:, None]).clamp(-self.max_rel, self.max_rel) + self.max_rel
        bias = self.bias(rel).permute(2, 0, 1)  # h, t, t
        att = (q @ k.transpose(-2, -1)) / math.sqrt(self.dh) + bias
        y = att.softmax(-1) @ v
        return self.out(y.transpose(1, 2).reshape(b, t, d))


class ConformerBlock(nn.Module):
    def __init__(self, d=32, heads=4, kernel=7):
        super().__init__()
        self.ff1 = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.SiLU(), nn.Linear(4 * d, d))
        self.ln_att = nn.LayerNorm(d)
        self.att = RelPosMHA(d, heads)
        self.ln_conv = nn.LayerNorm(d)
        self.pw1 = nn.Conv1d(d, 2 * d, 1)
        self.dw = nn.Conv1d(d, d, kernel, padding=kernel // 2, groups=d)
        self.bn = nn.BatchNorm1d(d)
        self.pw2 = nn.Conv1d(d, d, 1)
        self.ff2 = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.SiLU(), nn.Linear(4 * d, d))
        self.ln = nn.LayerNorm(d)

    def forward(self, x):
        x = x + 0.5 * self.ff1(x)
        x = x + self.att(self.ln_att(x))
        c = self.ln_conv(x).transpose(1, 2)
        c = F.glu(self.pw1(c), dim=1)
        c = self.pw2(F.silu(self.bn(self.dw(c))))
        x = x + c.transpose(1, 2)
        x = x + 0.5 * self.ff2(x)
        return self.ln(x)


class ConformerEncoder(nn.Module):
    def __init__(self, mels=20, d=32):
        super().__init__()
        # 2-D convolutional subsampling by 4 in time and frequency
        self.sub = nn.Sequential(nn.Conv2d(1, 8, 3, stride=2), nn.ReLU(),
                                 nn.Conv2d(8, 8, 3, stride=2), nn.ReLU())
        self.proj = nn.Linear(8 * 4, d)
        self.blocks = nn.Sequential(ConformerBlock(d), ConformerBlock(d))

    def forward(self, feats):  # b, t, mels
        x = self.sub(feats.unsqueeze(1))  # b, 8, t', f'
        b, c, t, f = x.shape
        x = self.proj(x.permute(0, 2, 1, 3).reshape(b, t, c * f))
        return self.blocks(x)


@program
def conformer_like_encoder():
    model = ConformerEncoder().eval()
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm1d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
    return _plain(model, torch.randn(2, 50, 20))


class Wav2VecFrontEnd(nn.Module):
    """Raw waveform: framing with Tensor.unfold, a Hann window, a mel-like
    projection, log compression, then a GroupNorm conv feature extractor."""

    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.hann_window(64))
        self.register_buffer("mel", torch.rand(64, 16))
        self.conv = nn.Sequential(nn.Conv1d(1, 8, 10, stride=5), nn.GroupNorm(8, 8), nn.GELU(),
                                  nn.Conv1d(8, 8, 3, stride=2), nn.GELU())

    def forward(self, wav):
        frames = wav.unfold(-1, 64, 32) * self.window  # b, n, 64
        spec = torch.log1p((frames @ self.mel).abs())
        feat = self.conv(wav.unsqueeze(1))
        return spec, feat


@program
def audio_frontend_unfold():
    return _plain(Wav2VecFrontEnd(), torch.randn(2, 400))


# --- vision transformers -----------------------------------------------------


class TinyViT(nn.Module):
    def __init__(self, d=48, patch=4, image=16, classes=10):
        super().__init__()
        self.embed = nn.Conv2d(3, d, patch, stride=patch)
        n = (image // patch) ** 2
        self.cls = nn.Parameter(torch.randn(1, 1, d) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, n + 1, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, 4, 2 * d, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        x = self.embed(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], 1) + self.pos
        return self.head(self.norm(self.encoder(x))[:, 0])


@program
def tiny_vit():
    return _plain(TinyViT().eval(), torch.randn(2, 3, 16, 16))


class DeiTBlock(nn.Module):
    """Hand-written attention (qkv reshape, scaled scores, softmax), LayerScale,
    class and distillation tokens, SDPA in a second branch."""

    def __init__(self, d=32, heads=4):
        super().__init__()
        self.h = heads
        self.norm1 = nn.LayerNorm(d, eps=1e-6)
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.proj = nn.Linear(d, d)
        self.gamma1 = nn.Parameter(torch.full((d,), 0.1))
        self.norm2 = nn.LayerNorm(d, eps=1e-6)
        self.fc1 = nn.Linear(d, 3 * d)
        self.fc2 = nn.Linear(3 * d, d)
        self.gamma2 = nn.Parameter(torch.full((d,), 0.1))
        self.tokens = nn.Parameter(torch.randn(1, 2, d))

    def forward(self, x):
        x = torch.cat([self.tokens.expand(x.shape[0], -1, -1), x], 1)
        b, n, d = x.shape
        qkv = self.qkv(self.norm1(x)).reshape(b, n, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        att = (q * (d // self.h) ** -0.5) @ k.transpose(-2, -1)
        y = (att.softmax(-1) @ v).transpose(1, 2).reshape(b, n, d)
        y2 = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, n, d)
        x = x + self.gamma1 * self.proj(y + y2)
        x = x + self.gamma2 * self.fc2(F.gelu(self.fc1(self.norm2(x)), approximate="tanh"))
        return (x[:, 0] + x[:, 1]) / 2


@program
def deit_block():
    return _plain(DeiTBlock(), torch.randn(2, 10, 32))


# --- mobile blocks -----------------------------------------------------------


class SqueezeExcite(nn.Module):
    def __init__(self, c, gate):
        super().__init__()
        self.fc1 = nn.Conv2d(c, c // 4, 1)
        self.fc2 = nn.Conv2d(c // 4, c, 1)
        self.gate = gate

    def forward(self, x):
        s = F.adaptive_avg_pool2d(x, 1)
        return x * self.gate(self.fc2(F.relu(self.fc1(s))))


class MobileNetV3Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.expand = nn.Sequential(nn.Conv2d(8, 24, 1, bias=False), nn.BatchNorm2d(24), nn.Hardswish())
        self.dw = nn.Sequential(nn.Conv2d(24, 24, 5, stride=2, padding=2, groups=24, bias=False),
                                nn.BatchNorm2d(24), nn.Hardswish())
        self.se = SqueezeExcite(24, nn.Hardsigmoid())
        self.project = nn.Sequential(nn.Conv2d(24, 8, 1, bias=False), nn.BatchNorm2d(8))
        self.short = nn.AvgPool2d(2)

    def forward(self, x):
        return self.project(self.se(self.dw(self.expand(x)))) + self.short(x)


class EfficientNetBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.expand = nn.Sequential(nn.Conv2d(8, 32, 1, bias=False), nn.BatchNorm2d(32), nn.SiLU())
        self.dw = nn.Sequential(nn.Conv2d(32, 32, 3, padding=1, groups=32, bias=False),
                                nn.BatchNorm2d(32), nn.SiLU())
        self.se = SqueezeExcite(32, nn.Sigmoid())
        self.project = nn.Sequential(nn.Conv2d(32, 8, 1, bias=False), nn.BatchNorm2d(8))
        self.grouped = nn.Conv2d(8, 16, 3, padding=2, dilation=2, groups=2)

    def forward(self, x):
        y = x + self.project(self.se(self.dw(self.expand(x))))
        return F.adaptive_avg_pool2d(F.relu6(self.grouped(y)), (3, 5))


def _bn_stats(model):
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.3, 0.3)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
    return model.eval()


@program
def mobilenetv3_block():
    return _plain(_bn_stats(MobileNetV3Block()), torch.randn(2, 8, 16, 16))


@program
def efficientnet_block():
    return _plain(_bn_stats(EfficientNetBlock()), torch.randn(1, 8, 15, 17))


# --- temporal convolution and decoders ------------------------------------


class CausalTCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList(
            nn.utils.parametrizations.weight_norm(nn.Conv1d(8, 8, 3, dilation=d)) for d in (1, 2, 4))
        self.inp = nn.Conv1d(4, 8, 1)

    def forward(self, x):
        h = self.inp(x)
        for i, conv in enumerate(self.convs):
            pad = 2 * (2 ** i)
            h = h + torch.tanh(conv(F.pad(h, (pad, 0)))) * torch.sigmoid(conv(F.pad(h, (pad, 0))))
        return h


@program
def causal_tcn_weight_norm():
    return _plain(CausalTCN(), torch.randn(2, 4, 30))


class LSTMCellLoop(nn.Module):
    """An unrolled LSTMCell / GRUCell decoder (autoregressive: each output
    feeds the next step) with attention over an encoder memory."""

    def __init__(self):
        super().__init__()
        self.cell = nn.LSTMCell(8, 16)
        self.gcell = nn.GRUCell(16, 8)
        self.key = nn.Linear(16, 16)

    def forward(self, mem, x):
        h = torch.zeros(mem.shape[0], 16)
        c = torch.zeros(mem.shape[0], 16)
        outs = []
        for _ in range(5):
            h, c = self.cell(x, (h, c))
            w = torch.softmax(torch.bmm(self.key(mem), h.unsqueeze(-1)).squeeze(-1), -1)
            ctx = (w.unsqueeze(-1) * mem).sum(1)
            x = self.gcell(ctx, x)
            outs.append(x)
        return torch.stack(outs, 1)


@program
def attention_decoder_cells():
    return _plain(LSTMCellLoop(), torch.randn(2, 6, 16), torch.randn(2, 8))
