"""Cases of the quantized_decomposed kernels: token embeddings, quantized add,
per-token quantization parameters and the int8-weight matmuls (make_reference.py).
"""

import torch

from reference_cases import (
    CHANNELS_LAST, Out, OutSpec, Layout, case, functional, error, randn, randint)


def quantized_token_embedding():
    # The reference ops: torch's decompositions and executorch's
    # embedding_byte (importing registers them).
    import torch.ao.quantization.fx._decomposed  # noqa: F401
    import executorch.exir.passes._quant_patterns_and_replacements  # noqa: F401
    qd = torch.ops.quantized_decomposed
    x = randn(2, 3, 8) * 3
    scales = torch.rand(2, 3, 1) * 0.1 + 0.02
    zps = torch.randint(-5, 5, (2, 3, 1))
    q = qd.quantize_per_token(x, scales, zps, -128, 127, torch.int8)
    case("quantize_per_token/int8", "quantized_decomposed::quantize_per_token.out",
         [x, scales, zps, -128, 127, 1, Out(0)], q)
    case("dequantize_per_token/int8",
         "quantized_decomposed::dequantize_per_token.out",
         [q, scales, zps, -128, 127, 1, 6, Out(0)],
         qd.dequantize_per_token(q, scales, zps, -128, 127, torch.int8,
                                 torch.float32))
    error("quantize_per_token/scales", "quantized_decomposed::quantize_per_token.out",
          [x, scales[:1], zps, -128, 127, 1, OutSpec(torch.int8, x.shape)])
    w = torch.randint(-128, 127, (10, 8), dtype=torch.int8)
    idx = torch.tensor([[0, 9, 3], [3, 3, 1]])
    for groups in [1, 2, 4]:
        ws = torch.rand(10, groups) * 0.05 + 0.01
        wz = torch.randint(-3, 3, (10, groups)).float()
        ref = qd.embedding_byte(w, ws, wz, -128, 127, idx)
        case(f"embedding_byte/groups{groups}",
             "quantized_decomposed::embedding_byte.out",
             [w, ws, wz, -128, 127, idx, Out(0)], ref)
    ws1 = torch.rand(10) * 0.05 + 0.01
    ref = qd.embedding_byte(w, ws1, None, -128, 127, idx)
    case("embedding_byte/per_row_no_zero_points",
         "quantized_decomposed::embedding_byte.out",
         [w, ws1, None, -128, 127, idx, Out(0)], ref)
    ref = qd.embedding_byte.dtype(w, ws1, None, -128, 127, idx,
                                  dtype=torch.float32)
    case("embedding_byte/dtype", "quantized_decomposed::embedding_byte.dtype_out",
         [w, ws1, None, -128, 127, idx, 6, Out(0)], ref)
    error("embedding_byte/index", "quantized_decomposed::embedding_byte.out",
          [w, ws1, None, -128, 127, torch.tensor([10]),
           OutSpec(torch.float32, [1, 8])])
    # Packed tables: uint8 bytes holding 2 (4-bit) or 4 (2-bit) values.
    for bits, (qmin, qmax) in [(4, (-8, 7)), (2, (-2, 1))]:
        op = getattr(qd, f"embedding_{bits}bit")
        wp = torch.randint(0, 256, (10, 8 * bits // 8), dtype=torch.uint8)
        for groups in [1, 2]:
            ws = torch.rand(10, groups) * 0.05 + 0.01
            wz = torch.randint(-3, 3, (10, groups)).float()
            case(f"embedding_{bits}bit/groups{groups}",
                 f"quantized_decomposed::embedding_{bits}bit.out",
                 [wp, ws, wz, qmin, qmax, idx, Out(0)],
                 op(wp, ws, wz, qmin, qmax, idx))
        case(f"embedding_{bits}bit/per_row_no_zero_points",
             f"quantized_decomposed::embedding_{bits}bit.out",
             [wp, ws1, None, qmin, qmax, idx, Out(0)],
             op(wp, ws1, None, qmin, qmax, idx))
        ref = op.dtype(wp, ws1, None, qmin, qmax, idx, dtype=torch.float64)
        case(f"embedding_{bits}bit/dtype",
             f"quantized_decomposed::embedding_{bits}bit.dtype_out",
             [wp, ws1, None, qmin, qmax, idx, 7, Out(0)], ref,
             rtol=1e-6, atol=1e-7)
        error(f"embedding_{bits}bit/int8_table",
              f"quantized_decomposed::embedding_{bits}bit.out",
              [wp.view(torch.int8), ws1, None, qmin, qmax, idx,
               OutSpec(torch.float32, [2, 3, 8])])
        error(f"embedding_{bits}bit/index",
              f"quantized_decomposed::embedding_{bits}bit.out",
              [wp, ws1, None, qmin, qmax, torch.tensor([10]),
               OutSpec(torch.float32, [1, 8])])


def quantized_add():
    # The pattern the exporter replaces with quantized_decomposed::add:
    # dequantize both inputs, add, quantize.
    import torch.ao.quantization.fx._decomposed  # noqa: F401
    qd = torch.ops.quantized_decomposed
    op = "quantized_decomposed::add.out"

    def ref(a, sa, za, b, sb, zb, so, zo, lo, hi, dtype):
        x = qd.dequantize_per_tensor(a, sa, za, lo, hi, a.dtype)
        y = qd.dequantize_per_tensor(b, sb, zb, lo, hi, b.dtype)
        return qd.quantize_per_tensor(x + y, so, zo, lo, hi, dtype)

    for dtype, lo, hi in [(torch.uint8, 0, 255), (torch.int8, -128, 127)]:
        a = torch.randint(lo, hi + 1, (2, 3, 4), dtype=dtype)
        b = torch.randint(lo, hi + 1, (2, 3, 4), dtype=dtype)
        sa, za, sb, zb, so, zo = 0.0173, 3, 0.0291, -2, 0.0417, 1
        if dtype == torch.uint8:
            za, zb, zo = 128, 120, 131
        name = str(dtype).replace("torch.", "")
        case(f"quantized_add/{name}", op,
             [a, sa, za, lo, hi, b, sb, zb, lo, hi, so, zo, lo, hi, Out(0)],
             ref(a, sa, za, b, sb, zb, so, zo, lo, hi, dtype))
        b1 = b[:1, :, :1].contiguous()
        case(f"quantized_add/{name}_broadcast", op,
             [a, sa, za, lo, hi, b1, sb, zb, lo, hi, so, zo, lo, hi, Out(0)],
             ref(a, sa, za, b1, sb, zb, so, zo, lo, hi, dtype))
        # A small output scale saturates most sums at the range ends.
        case(f"quantized_add/{name}_saturating", op,
             [a, sa, za, lo, hi, b, sb, zb, lo, hi, 0.004, zo, lo, hi, Out(0)],
             ref(a, sa, za, b, sb, zb, 0.004, zo, lo, hi, dtype))
    a = torch.randint(-128, 128, (2, 3), dtype=torch.int8)
    error("quantized_add/range", op,
          [a, 0.1, 0, -128, 300, a, 0.1, 0, -128, 127, 0.1, 0, -128, 127,
           OutSpec(torch.int8, [2, 3])])
    error("quantized_add/shapes", op,
          [a, 0.1, 0, -128, 127, a[:, :2], 0.1, 0, -128, 127, 0.1, 0, -128, 127,
           OutSpec(torch.int8, [2, 3])])
    error("quantized_add/float", op,
          [a.float(), 0.1, 0, -128, 127, a, 0.1, 0, -128, 127, 0.1, 0, -128, 127,
           OutSpec(torch.int8, [2, 3])])


def choose_qparams_per_token():
    import torch.ao.quantization.fx._decomposed  # noqa: F401  (registers the op)
    op = "quantized_decomposed::choose_qparams_per_token_asymmetric.out"
    choose = torch.ops.quantized_decomposed.choose_qparams_per_token_asymmetric
    x = randn(2, 3, 8) * 3
    x[0, 0] = x[0, 0].abs() + 0.5   # all positive: min clamps to 0
    x[0, 1] = -x[0, 1].abs() - 0.5  # all negative: max clamps to 0
    x[0, 2] = 0.0                   # all zero: scale is eps
    x[1, 0, 3] = float("nan")       # NaN propagates to scale and zero point
    x[1, 1] *= 1000.0
    for name, t in [("float32", x), ("float64", randn(4, 5).double() * 7),
                    ("one_token", randn(6)), ("width1", randn(3, 1))]:
        case(f"choose_qparams_per_token/{name}", op, [t, 1, Out(0), Out(1)],
             list(choose(t, torch.int8)), rtol=0, atol=0)
    xc = randn(2, 3, 4, 5)
    case("choose_qparams_per_token/channels_last", op,
         [Layout(xc, CHANNELS_LAST), 1, Out(0), Out(1)],
         list(choose(xc, torch.int8)), rtol=0, atol=0)
    # A 0-d input is one token; the op's meta shape for it is [1].
    s = torch.tensor(-2.5)
    case("choose_qparams_per_token/scalar", op, [s, 1, Out(0), Out(1)],
         [o.reshape(1) for o in choose(s, torch.int8)], rtol=0, atol=0)
    error("choose_qparams_per_token/empty_token", op,
          [randn(2, 0), 1, OutSpec(torch.float64, [2, 1]), OutSpec(torch.int64, [2, 1])])
    error("choose_qparams_per_token/int_input", op,
          [randint(-5, 5, 2, 3), 1, OutSpec(torch.float64, [2, 1]),
           OutSpec(torch.int64, [2, 1])])
    error("choose_qparams_per_token/zero_point_dtype", op,
          [randn(2, 3), 1, OutSpec(torch.float64, [2, 1]), OutSpec(torch.float32, [2, 1])])
    error("choose_qparams_per_token/bad_dtype", op,
          [randn(2, 3), 99, OutSpec(torch.float64, [2, 1]), OutSpec(torch.int64, [2, 1])])


def mixed_matmuls():
    # Torch has no kernels for these ops; the references are the definition
    # (runtime/kernels/portable/mixed_matmul.cc) evaluated by torch:
    # dequantize the int8 weight, then mm / linear.
    mm = "quantized_decomposed::mixed_mm.out"
    x = randn(3, 10)
    w = randint(-128, 128, 10, 4, dtype=torch.int8)
    s = torch.rand(10) * 0.05 + 0.01
    zp = randint(-4, 4, 10).float()
    case("mixed_mm/no_zero_points", mm, [x, w, s, None, Out(0)],
         x @ (w.float() * s[:, None]))
    case("mixed_mm/zero_points", mm, [x, w, s, zp, Out(0)],
         x @ ((w.float() - zp[:, None]) * s[:, None]))
    case("mixed_mm/weight_column_major", mm, [x, Layout(w, [1, 0]), s, None, Out(0)],
         x @ (w.float() * s[:, None]))
    xd, sd = x.double(), s.double()
    case("mixed_mm/float64", mm, [xd, w, sd, None, Out(0)],
         xd @ (w.double() * sd[:, None]), rtol=1e-12, atol=1e-12)
    error("mixed_mm/shape", mm, [x, w[:9], s[:9], None, OutSpec(torch.float32, [3, 4])])
    error("mixed_mm/weight_uint8", mm, [x, w.to(torch.uint8), s, None,
                                        OutSpec(torch.float32, [3, 4])])
    error("mixed_mm/zero_points_shape", mm, [x, w, s, zp[:5], OutSpec(torch.float32, [3, 4])])

    lin = "quantized_decomposed::mixed_linear.out"
    x = randn(2, 3, 11)
    w = randint(-128, 128, 5, 11, dtype=torch.int8)

    def dequant(scales, zero_points):
        # scales [P] or [P, G]: groups of ceil(K / G) along K.
        if scales.dim() == 1:
            scales = scales[:, None]
            zero_points = None if zero_points is None else zero_points[:, None]
        gs = -(-w.shape[1] // scales.shape[1])
        idx = torch.arange(w.shape[1]) // gs
        zpe = 0 if zero_points is None else zero_points[:, idx]
        return (w.to(scales.dtype) - zpe) * scales[:, idx]

    s1 = torch.rand(5) * 0.05 + 0.01
    s4 = torch.rand(5, 4) * 0.05 + 0.01   # groups of 3, the last one of 2
    z4 = randint(-4, 4, 5, 4).float()
    F = torch.nn.functional
    case("mixed_linear/per_channel", lin, [x, w, s1, None, None, Out(0)],
         F.linear(x, dequant(s1, None)))
    case("mixed_linear/groups", lin, [x, w, s4, None, None, Out(0)],
         F.linear(x, dequant(s4, None)))
    case("mixed_linear/groups_zero_points", lin, [x, w, s4, z4, 6, Out(0)],
         F.linear(x, dequant(s4, z4)))
    case("mixed_linear/out_float64", lin, [x, w, s1, None, 7, Out(0)],
         F.linear(x, dequant(s1, None)).double())
    case("mixed_linear/2d_input", lin, [x[0], w, s1, None, None, Out(0)],
         F.linear(x[0], dequant(s1, None)))
    x4 = randn(2, 3, 4, 11)
    case("mixed_linear/channels_last_input", lin,
         [Layout(x4, CHANNELS_LAST), w, s1, None, None, Out(0)],
         F.linear(x4, dequant(s1, None)), out_dim_orders=[None])
    xd = x.double()
    sd = s4.double()
    case("mixed_linear/float64", lin, [xd, w, sd, None, None, Out(0)],
         F.linear(xd, dequant(sd, None)), rtol=1e-12, atol=1e-12)
    error("mixed_linear/k_mismatch", lin, [x, w[:, :10], s1, None, None,
                                           OutSpec(torch.float32, [2, 3, 5])])
    error("mixed_linear/dtype_mismatch", lin, [x, w, s1, None, 7,
                                               OutSpec(torch.float32, [2, 3, 5])])
    error("mixed_linear/too_many_groups", lin, [x, w, torch.rand(5, 12), None, None,
                                                OutSpec(torch.float32, [2, 3, 5])])
    error("mixed_linear/scales_dtype", lin, [x, w, s1.double(), None, None,
                                             OutSpec(torch.float32, [2, 3, 5])])
