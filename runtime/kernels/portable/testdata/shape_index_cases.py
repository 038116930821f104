"""Cases of the shape, index, padding, distance, resampling, quantized and
comparison kernels (make_reference.py).
"""

import torch

from reference_cases import (
    CHANNELS_LAST, BoolList, Out, OutSpec, Layout, TensorList, case, functional, inplace, error, randn,
    randint)


# ------------------------------------------------ shape, index and padding

def shape_ops():
    x = randn(2, 3, 4)
    xi = randint(-9, 9, 3, 4, dtype=torch.int16)
    xc = randn(2, 3, 2, 2)
    for dims in [[0], [1, 2], [-1], [0, 1, 2], []]:
        case(f"flip/{dims}", "flip.out", [x, dims, Out(0)], torch.flip(x, dims))
    case("flip/int16", "flip.out", [xi, [1], Out(0)], torch.flip(xi, [1]))
    case("flip/bool", "flip.out", [xi > 0, [0], Out(0)], torch.flip(xi > 0, [0]))
    case("flip/channels_last", "flip.out", [Layout(xc, CHANNELS_LAST), [1, 3],
                                            Out(0)], torch.flip(xc, [1, 3]))
    error("flip/repeated", "flip.out", [x, [1, 1], OutSpec(torch.float32,
                                                           x.shape)])
    for shifts, dims in [([1], [0]), ([2, -1], [1, 2]), ([5], [2]),
                         ([3], []), ([-7], []), ([1, 1], [1, 1])]:
        case(f"roll/{shifts}_{dims}", "roll.out", [x, shifts, dims, Out(0)],
             torch.roll(x, shifts, dims))
    case("roll/channels_last", "roll.out",
         [Layout(xc, CHANNELS_LAST), [1, 1], [1, 3], Out(0)],
         torch.roll(xc, [1, 1], [1, 3]))
    case("roll/int16_flat", "roll.out", [xi, [5], [], Out(0)],
         torch.roll(xi, 5))
    error("roll/mismatch", "roll.out", [x, [1, 2], [0], OutSpec(torch.float32,
                                                                x.shape)])

    m = randn(3, 4, 5)
    for offset, d1, d2 in [(0, 0, 1), (1, 1, 2), (-1, 0, 2), (2, 2, 0),
                           (9, 0, 1)]:
        case(f"diagonal/{offset}_{d1}_{d2}", "diagonal_copy.out",
             [m, offset, d1, d2, Out(0)],
             torch.diagonal(m, offset, d1, d2).contiguous())
    error("diagonal/same_dims", "diagonal_copy.out",
          [m, 0, 1, 1, OutSpec(torch.float32, [3, 4])])
    for dim, start, length in [(0, 1, 2), (2, -3, 2), (1, 0, 0), (1, 4, 0)]:
        case(f"narrow/{dim}_{start}_{length}", "narrow_copy.out",
             [m, dim, start, length, Out(0)],
             torch.narrow_copy(m, dim, start, length))
    error("narrow/too_long", "narrow_copy.out",
          [m, 0, 2, 2, OutSpec(torch.float32, [2, 4, 5])])
    for dim, size, step in [(2, 2, 1), (1, 2, 2), (0, 3, 1), (2, 0, 3)]:
        case(f"unfold/{dim}_{size}_{step}", "unfold_copy.out",
             [m, dim, size, step, Out(0)], m.unfold(dim, size, step).contiguous())
    error("unfold/too_big", "unfold_copy.out",
          [m, 0, 4, 1, OutSpec(torch.float32, [1, 4, 5, 4])])

    src = randn(3, 5)
    for dim, index in [(1, 2), (1, -1)]:
        case(f"select_scatter/{dim}_{index}", "select_scatter.out",
             [m, src, dim, index, Out(0)],
             torch.select_scatter(m, src, dim, index))
    s0 = randn(4, 5)
    case("select_scatter/dim0", "select_scatter.out", [m, s0, 0, 1, Out(0)],
         torch.select_scatter(m, s0, 0, 1))
    error("select_scatter/index", "select_scatter.out",
          [m, src, 1, 4, OutSpec(torch.float32, m.shape)])

    a, b, c = randn(2, 3), randn(2, 3), randn(2, 3)
    for dim in [0, 1, 2, -1]:
        case(f"stack/dim{dim}", "stack.out", [TensorList([a, b, c]), dim,
                                              Out(0)], torch.stack([a, b, c],
                                                                   dim))
    ai = randint(0, 5, 2, 3, dtype=torch.int32)
    case("stack/promote_int_float", "stack.out",
         [TensorList([a, ai]), 0, Out(0)], torch.stack([a, ai]))
    error("stack/shape", "stack.out",
          [TensorList([a, randn(3, 2)]), 0, OutSpec(torch.float32, [2, 2, 3])])
    for reps in [[2, 1], [1, 3], [2, 2, 2], [0, 1]]:
        case(f"repeat/{reps}", "repeat.out", [a, reps, Out(0)], a.repeat(*reps))
    case("repeat/int16", "repeat.out", [xi, [2, 1], Out(0)], xi.repeat(2, 1))
    error("repeat/short", "repeat.out", [a, [2], OutSpec(torch.float32, [4])])
    t = randn(2, 4, 5)
    for diag in [0, 1, -1, -5, 9]:
        case(f"tril/{diag}", "tril.out", [t, diag, Out(0)], torch.tril(t, diag))
    case("tril/int16", "tril.out", [xi, 0, Out(0)], torch.tril(xi))
    error("tril/1d", "tril.out", [randn(3), 0, OutSpec(torch.float32, [3])])

    p = randn(2, 8, 3, 2)
    case("pixel_shuffle/2", "pixel_shuffle.out", [p, 2, Out(0)],
         torch.pixel_shuffle(p, 2))
    p3 = randn(9, 2, 2)
    case("pixel_shuffle/3_unbatched", "pixel_shuffle.out", [p3, 3, Out(0)],
         torch.pixel_shuffle(p3, 3))
    case("pixel_shuffle/channels_last", "pixel_shuffle.out",
         [Layout(p, CHANNELS_LAST), 2, Out(0)], torch.pixel_shuffle(p, 2))
    u = randn(2, 2, 4, 6)
    case("pixel_unshuffle/2", "pixel_unshuffle.out", [u, 2, Out(0)],
         torch.pixel_unshuffle(u, 2))
    error("pixel_shuffle/indivisible", "pixel_shuffle.out",
          [randn(1, 6, 2, 2), 2, OutSpec(torch.float32, [1, 1, 4, 4])])
    error("pixel_unshuffle/indivisible", "pixel_unshuffle.out",
          [randn(1, 1, 3, 4), 2, OutSpec(torch.float32, [1, 4, 1, 2])])

    F = torch.nn.functional
    for kind in ["reflect", "replicate"]:
        name = "reflection" if kind == "reflect" else "replication"
        x1 = randn(2, 3, 5)
        case(f"{name}_pad1d/batched", f"{name}_pad1d.out", [x1, [2, 3], Out(0)],
             F.pad(x1, [2, 3], mode=kind))
        x1u = randn(3, 5)
        case(f"{name}_pad1d/unbatched", f"{name}_pad1d.out",
             [x1u, [0, 4], Out(0)], F.pad(x1u, [0, 4], mode=kind))
        x2 = randn(1, 2, 4, 5)
        case(f"{name}_pad2d/batched", f"{name}_pad2d.out",
             [x2, [1, 2, 3, 0], Out(0)], F.pad(x2, [1, 2, 3, 0], mode=kind))
        case(f"{name}_pad2d/channels_last", f"{name}_pad2d.out",
             [Layout(x2, CHANNELS_LAST), [1, 1, 1, 1], Out(0)],
             F.pad(x2, [1, 1, 1, 1], mode=kind))
        x2i = randint(-5, 5, 2, 3, 3, dtype=torch.int32)
        if kind == "replicate":
            case(f"{name}_pad2d/int32", f"{name}_pad2d.out",
                 [x2i, [1, 1, 2, 2], Out(0)],
                 torch.ops.aten.replication_pad2d(x2i, [1, 1, 2, 2]))
        x3 = randn(1, 2, 3, 3, 4)
        case(f"{name}_pad3d/batched", f"{name}_pad3d.out",
             [x3, [1, 2, 0, 1, 2, 1], Out(0)],
             F.pad(x3, [1, 2, 0, 1, 2, 1], mode=kind))
        error(f"{name}_pad2d/count", f"{name}_pad2d.out",
              [x2, [1, 1], OutSpec(torch.float32, x2.shape)])
    error("reflection_pad1d/too_wide", "reflection_pad1d.out",
          [randn(2, 3), [3, 0], OutSpec(torch.float32, [2, 6])])
    error("replication_pad1d/empty_dim", "replication_pad1d.out",
          [torch.zeros(2, 0), [1, 1], OutSpec(torch.float32, [2, 2])])

    s = randn(3, 4)
    idx = torch.tensor([[0, 2, 1, 0], [2, 2, 0, 1]])
    case("gather/dim0", "gather.out", [s, 0, idx, False, Out(0)],
         torch.gather(s, 0, idx))
    idx1 = torch.tensor([[3, 0], [1, -1], [2, 2]])
    case("gather/dim1_negative", "gather.out", [s, 1, idx1, False, Out(0)],
         torch.gather(s, 1, idx1.remainder(4)))
    case("gather/int16", "gather.out", [xi, 1, idx1.remainder(4), False, Out(0)],
         torch.gather(xi, 1, idx1.remainder(4)))
    error("gather/out_of_range", "gather.out",
          [s, 0, torch.tensor([[3]]), False, OutSpec(torch.float32, [1, 1])])
    error("gather/int32_index", "gather.out",
          [s, 0, idx.int(), False, OutSpec(torch.float32, [2, 4])])
    sidx = torch.tensor([[0, 1, 2, 0], [1, 2, 0, 1]])
    ssrc = randn(2, 4)
    case("scatter_src/dim0", "scatter.src_out", [s, 0, sidx, ssrc, Out(0)],
         torch.scatter(s, 0, sidx, ssrc))
    sidx1 = torch.tensor([[3, 1], [0, 2], [1, 0]])
    big = randn(3, 5)
    case("scatter_src/dim1_src_larger", "scatter.src_out",
         [s, 1, sidx1, big, Out(0)], torch.scatter(s, 1, sidx1, big))
    case("scatter_value/float", "scatter.value_out",
         [s, 1, sidx1, 7.5, Out(0)], torch.scatter(s, 1, sidx1, 7.5))
    case("scatter_value/int16", "scatter.value_out",
         [xi, 0, sidx, -3, Out(0)], torch.scatter(xi, 0, sidx, -3))
    dup = torch.tensor([[0, 0, 1, 1], [0, 2, 2, 1]])
    case("scatter_add/duplicates", "scatter_add.out",
         [s, 0, dup, ssrc, Out(0)], torch.scatter_add(s, 0, dup, ssrc))
    srci = randint(-3, 3, 2, 4, dtype=torch.int16)
    case("scatter_add/int16", "scatter_add.out", [xi, 0, dup, srci, Out(0)],
         torch.scatter_add(xi, 0, dup, srci))
    error("scatter_add/out_of_range", "scatter_add.out",
          [s, 0, torch.tensor([[0, 5]]), ssrc, OutSpec(torch.float32, [3, 4])])

    mask = torch.rand(3, 4) > 0.5
    row_mask = torch.tensor([True, False, False, True])
    case("masked_fill/full_mask", "masked_fill.Scalar_out",
         [s, mask, -1.25, Out(0)], s.masked_fill(mask, -1.25))
    case("masked_fill/broadcast_mask", "masked_fill.Scalar_out",
         [s, row_mask, 3, Out(0)], s.masked_fill(row_mask, 3))
    case("masked_fill/int16", "masked_fill.Scalar_out",
         [xi, mask, 100, Out(0)], xi.masked_fill(mask, 100))
    case("masked_fill/channels_last", "masked_fill.Scalar_out",
         [Layout(xc, CHANNELS_LAST), torch.tensor([True, False]), 0.5, Out(0)],
         xc.masked_fill(torch.tensor([True, False]), 0.5),
         out_dim_orders=[CHANNELS_LAST])
    error("masked_fill/float_mask", "masked_fill.Scalar_out",
          [s, mask.float(), 1.0, OutSpec(torch.float32, [3, 4])])
    error("masked_fill/mask_grows_self", "masked_fill.Scalar_out",
          [randn(4), mask, 1.0, OutSpec(torch.float32, [4])])
    case("masked_select/full", "masked_select.out", [s, mask, Out(0)],
         torch.masked_select(s, mask))
    v4 = randn(4)
    case("masked_select/broadcast_self", "masked_select.out",
         [v4, mask, Out(0)], torch.masked_select(v4, mask))
    case("masked_select/none", "masked_select.out",
         [s, torch.zeros(3, 4, dtype=torch.bool), Out(0)],
         torch.masked_select(s, torch.zeros(3, 4, dtype=torch.bool)))
    source = randn(12)
    case("masked_scatter/full", "masked_scatter.out",
         [s, mask, source, Out(0)], s.masked_scatter(mask, source))
    case("masked_scatter/broadcast", "masked_scatter.out",
         [s, row_mask, source.reshape(3, 4), Out(0)],
         s.masked_scatter(row_mask, source.reshape(3, 4)))
    error("masked_scatter/short_source", "masked_scatter.out",
          [s, torch.ones(3, 4, dtype=torch.bool), randn(5),
           OutSpec(torch.float32, [3, 4])])
    nz = torch.tensor([[0.0, 1.5, 0.0], [float("nan"), 0.0, -2.0]])
    case("nonzero/float", "nonzero.out", [nz, Out(0)], torch.nonzero(nz))
    case("nonzero/int16_3d", "nonzero.out", [xi.reshape(2, 3, 2), Out(0)],
         torch.nonzero(xi.reshape(2, 3, 2)))
    case("nonzero/bool_none", "nonzero.out",
         [torch.zeros(4, dtype=torch.bool), Out(0)],
         torch.nonzero(torch.zeros(4, dtype=torch.bool)))
    error("nonzero/int32_out", "nonzero.out", [nz, OutSpec(torch.int32, [3, 2])])
    reps = torch.tensor([2, 0, 3, 1])
    case("repeat_interleave/int64", "repeat_interleave.Tensor_out",
         [reps, None, Out(0)], torch.repeat_interleave(reps))
    case("repeat_interleave/int32_size", "repeat_interleave.Tensor_out",
         [reps.int(), 6, Out(0)], torch.repeat_interleave(reps.int(),
                                                          output_size=6))
    error("repeat_interleave/negative", "repeat_interleave.Tensor_out",
          [torch.tensor([1, -1]), None, OutSpec(torch.int64, [0])])
    error("repeat_interleave/size_mismatch", "repeat_interleave.Tensor_out",
          [reps, 5, OutSpec(torch.int64, [6])])



def index_copy_distance_ops():
    s = randn(4, 5)
    i0 = torch.tensor([0, 2, 2])
    v = randn(3, 5)
    case("index_put/rows_accumulate_duplicates", "index_put.out",
         [s, TensorList([i0], optional=True), v, True, Out(0)],
         torch.index_put(s, (i0,), v, True))
    # Duplicate indices without accumulate leave the winner unspecified in
    # torch, so this case uses distinct rows (one negative).
    i_neg = torch.tensor([0, -1])
    case("index_put/rows_assign", "index_put.out",
         [s, TensorList([i_neg], optional=True), v[:2], False, Out(0)],
         torch.index_put(s, (i_neg,), v[:2], False))
    i1 = torch.tensor([1, 3])
    case("index_put/two_dims_broadcast_value", "index_put.out",
         [s, TensorList([torch.tensor([0, 3]), i1], optional=True),
          torch.tensor(9.0), False, Out(0)],
         torch.index_put(s, (torch.tensor([0, 3]), i1), torch.tensor(9.0)))
    col = randn(4, 1)
    case("index_put/slice_then_index", "index_put.out",
         [s, TensorList([None, i1], optional=True), col, True, Out(0)],
         s.index_put((torch.arange(4).unsqueeze(1), i1), col, True))
    mask = s > 0
    case("index_put/bool_mask", "index_put.out",
         [s, TensorList([mask], optional=True), torch.tensor(0.0), False,
          Out(0)], torch.index_put(s, (mask,), torch.tensor(0.0)))
    si = randint(-5, 5, 6, dtype=torch.int32)
    case("index_put/int32_accumulate", "index_put.out",
         [si, TensorList([torch.tensor([1, 1, 5])], optional=True),
          torch.tensor([2, 3, 4], dtype=torch.int32), True, Out(0)],
         torch.index_put(si, (torch.tensor([1, 1, 5]),),
                         torch.tensor([2, 3, 4], dtype=torch.int32), True))
    error("index_put/out_of_range", "index_put.out",
          [s, TensorList([torch.tensor([4])], optional=True), randn(1, 5),
           False, OutSpec(torch.float32, [4, 5])])
    error("index_put/values_shape", "index_put.out",
          [s, TensorList([i0], optional=True), randn(2, 5), False,
           OutSpec(torch.float32, [4, 5])])
    add = randn(2, 5)
    inplace("index_put_/accumulate", "index_put_",
            [s, TensorList([i1], optional=True), add, True], 0,
            torch.index_put(s, (i1,), add, True))

    dst = randn(3, 4)
    src_row = randint(-3, 3, 4, dtype=torch.int32)
    inplace("copy_/broadcast_convert", "copy_", [dst, src_row, False], 0,
            dst.clone().copy_(src_row))
    src = randn(3, 4)
    inplace("copy_/same", "copy_", [dst, src, False], 0, src)
    error("copy_/no_broadcast", "copy_", [dst, randn(2, 4), False])
    x = randn(2, 3)
    for op in ["et_copy::_h2d_copy.out", "et_copy::_d2h_copy.out"]:
        case(f"{op}/float", op, [x, Out(0)], x)
    case("_empty_dim_order/shape", "dim_order_ops::_empty_dim_order.out",
         [[0, 3], None, Out(0)], torch.empty(0, 3))
    case("_empty_dim_order/dim_order", "dim_order_ops::_empty_dim_order.out",
         [[1, 0, 2, 2], [0, 2, 3, 1], Out(0)], torch.empty(1, 0, 2, 2),
         out_dim_orders=[CHANNELS_LAST])
    error("_empty_dim_order/wrong_order", "dim_order_ops::_empty_dim_order.out",
          [[2, 2], [1, 0], OutSpec(torch.float32, [2, 2])])

    a, b = randn(2, 5, 3), randn(2, 4, 3)
    for p in [2.0, 1.0, 0.0, 3.5, float("inf")]:
        case(f"cdist/p{p}", "_cdist_forward.out", [a, b, p, None, Out(0)],
             torch.ops.aten._cdist_forward(a, b, p, None), rtol=1e-5, atol=1e-5)
    bb = randn(1, 4, 3)
    case("cdist/broadcast_batch", "_cdist_forward.out",
         [a, bb, 2.0, 0, Out(0)], torch.ops.aten._cdist_forward(a, bb, 2.0, 0),
         rtol=1e-5, atol=1e-5)
    case("cdist/float64", "_cdist_forward.out",
         [a.double(), b.double(), 2.0, None, Out(0)],
         torch.ops.aten._cdist_forward(a.double(), b.double(), 2.0, None), rtol=1e-12,
         atol=1e-12)
    error("cdist/negative_p", "_cdist_forward.out",
          [a, b, -1.0, None, OutSpec(torch.float32, [2, 5, 4])])
    error("cdist/width", "_cdist_forward.out",
          [a, randn(2, 4, 2), 2.0, None, OutSpec(torch.float32, [2, 5, 4])])
    r = randn(5, 3)
    for p in [2.0, 1.0, 0.5, float("inf")]:
        case(f"pdist/p{p}", "_pdist_forward.out", [r, p, Out(0)],
             torch.ops.aten._pdist_forward(r, p), rtol=1e-5, atol=1e-5)
    case("pdist/one_row", "_pdist_forward.out", [randn(1, 3), 2.0, Out(0)],
         torch.ops.aten._pdist_forward(randn(1, 3), 2.0))

    d = randn(3, 4)
    for train in [False, None]:
        y, m = torch.ops.aten.native_dropout(d, 0.3, False)
        case(f"native_dropout/eval_{train}", "native_dropout.out",
             [d, 0.3, train, Out(0), Out(1)], [y, m])
    y, m = torch.ops.aten.native_dropout(d, 0.0, True)
    case("native_dropout/train_p0", "native_dropout.out",
         [d, 0.0, True, Out(0), Out(1)], [y, m])
    y, m = torch.ops.aten.native_dropout(d, 1.0, True)
    case("native_dropout/train_p1", "native_dropout.out",
         [d, 1.0, True, Out(0), Out(1)], [y, m])
    error("native_dropout/bad_p", "native_dropout.out",
          [d, 1.5, True, OutSpec(torch.float32, [3, 4]),
           OutSpec(torch.bool, [3, 4])])



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


def max_pool_backward():
    op = "max_pool2d_with_indices_backward.grad_input"
    configs = [  # name: input shape, kernel, stride, padding, dilation, ceil
        ("overlapping", (2, 3, 6, 7), [3, 3], [1, 1], [0, 0], [1, 1], False),
        ("strided_padded", (1, 2, 7, 8), [3, 2], [2, 2], [1, 1], [1, 1], False),
        ("dilated_ceil", (2, 2, 9, 9), [2, 2], [2, 2], [0, 0], [2, 2], True),
        ("rank3", (3, 5, 5), [2, 2], [], [0, 0], [1, 1], False),
    ]
    for name, shape, k, s, p, d, ceil in configs:
        # Few distinct values, so windows share their maximum.
        x = randint(-3, 3, *shape).float()
        _, idx = torch.ops.aten.max_pool2d_with_indices(x, k, s, p, d, ceil)
        g = randn(*idx.shape)
        ref = torch.ops.aten.max_pool2d_with_indices_backward(
            g, x, k, s, p, d, ceil, idx)
        case(f"max_pool_backward/{name}", op, [g, x, k, s, p, d, ceil, idx, Out(0)],
             ref)
    x = randn(2, 3, 6, 6)
    _, idx = torch.ops.aten.max_pool2d_with_indices(x, [2, 2], [2, 2])
    g = randn(*idx.shape)
    ref = torch.ops.aten.max_pool2d_with_indices_backward(
        g, x, [2, 2], [2, 2], [0, 0], [1, 1], False, idx)
    case("max_pool_backward/channels_last", op,
         [Layout(g, CHANNELS_LAST), Layout(x, CHANNELS_LAST), [2, 2], [2, 2], [0, 0],
          [1, 1], False, Layout(idx, CHANNELS_LAST), Out(0)],
         ref, out_dim_orders=[CHANNELS_LAST])
    xd, gd = x.double(), g.double()
    case("max_pool_backward/float64", op,
         [gd, xd, [2, 2], [2, 2], [0, 0], [1, 1], False, idx, Out(0)],
         torch.ops.aten.max_pool2d_with_indices_backward(
             gd, xd, [2, 2], [2, 2], [0, 0], [1, 1], False, idx),
         rtol=1e-12, atol=1e-14)
    bad = idx.clone()
    bad[0, 0, 0, 0] = 36
    error("max_pool_backward/index_range", op,
          [g, x, [2, 2], [2, 2], [0, 0], [1, 1], False, bad,
           OutSpec(torch.float32, x.shape)])
    error("max_pool_backward/grad_shape", op,
          [g[:, :, :2], x, [2, 2], [2, 2], [0, 0], [1, 1], False, idx[:, :, :2],
           OutSpec(torch.float32, x.shape)])
    error("max_pool_backward/int_grad", op,
          [g.long(), x.long(), [2, 2], [2, 2], [0, 0], [1, 1], False, idx,
           OutSpec(torch.int64, x.shape)])


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


def upsample_aa():
    op = "_upsample_bilinear2d_aa.out"
    aa = torch.ops.aten._upsample_bilinear2d_aa
    x = randn(2, 3, 11, 13)
    for name, size, align in [("down3", [4, 5], False), ("down_align", [3, 4], True),
                              ("up", [17, 20], False), ("up_align", [16, 26], True),
                              ("mixed", [22, 5], False), ("same_width", [5, 13], False),
                              ("same_height", [11, 4], False), ("one", [1, 1], False),
                              ("one_align", [1, 2], True)]:
        case(f"upsample_aa/{name}", op, [x, size, align, None, None, Out(0)],
             aa(x, size, align, None, None))
    case("upsample_aa/scales", op, [x, [5, 6], False, 0.5, 0.5, Out(0)],
         aa(x, [5, 6], False, 0.5, 0.5))
    case("upsample_aa/channels_last", op,
         [Layout(x, CHANNELS_LAST), [6, 4], False, None, None, Out(0)],
         aa(x, [6, 4], False, None, None), out_dim_orders=[CHANNELS_LAST])
    # Downscaling by more than 2 takes more than 4 taps per axis.
    big = randn(1, 2, 40, 37)
    case("upsample_aa/down_many_taps", op, [big, [3, 5], False, None, None, Out(0)],
         aa(big, [3, 5], False, None, None))
    case("upsample_aa/empty_batch", op,
         [randn(0, 3, 5, 5), [2, 3], False, None, None, Out(0)],
         aa(randn(0, 3, 5, 5), [2, 3], False, None, None))
    xd = x.double()
    case("upsample_aa/float64", op, [xd, [4, 9], False, None, None, Out(0)],
         aa(xd, [4, 9], False, None, None), rtol=1e-12, atol=1e-13)
    # uint8: ATen's fixed-point weights; 3 channels take its vectorized path
    # on AVX2 hosts, 5 its generic one. Results must match exactly.
    img = randint(0, 256, 2, 3, 19, 23, dtype=torch.uint8)
    img5 = randint(0, 256, 1, 5, 19, 23, dtype=torch.uint8)
    for name, t, size, align in [("uint8_down", img, [7, 9], False),
                                 ("uint8_up", img, [25, 31], False),
                                 ("uint8_align", img, [8, 30], True),
                                 ("uint8_many_taps", img, [2, 3], False),
                                 ("uint8_same_height", img, [19, 11], False),
                                 ("uint8_c5", img5, [7, 40], False)]:
        case(f"upsample_aa/{name}", op, [t, size, align, None, None, Out(0)],
             aa(t, size, align, None, None), rtol=0, atol=0)
    case("upsample_aa/uint8_channels_last", op,
         [Layout(img, CHANNELS_LAST), [10, 12], False, None, None, Out(0)],
         aa(img.contiguous(memory_format=torch.channels_last), [10, 12], False, None, None),
         rtol=0, atol=0, out_dim_orders=[CHANNELS_LAST])
    error("upsample_aa/int64", op, [x.long(), [4, 5], False, None, None,
                                    OutSpec(torch.int64, [2, 3, 4, 5])])
    error("upsample_aa/zero_size", op, [x, [0, 5], False, None, None,
                                        OutSpec(torch.float32, [2, 3, 0, 5])])
    error("upsample_aa/rank3", op, [x[0], [4, 5], False, None, None,
                                    OutSpec(torch.float32, [3, 4, 5])])
    error("upsample_aa/one_size", op, [x, [4], False, None, None,
                                       OutSpec(torch.float32, [2, 3, 4, 4])])
    error("upsample_aa/out_dtype", op, [x, [4, 5], False, None, None,
                                        OutSpec(torch.float64, [2, 3, 4, 5])])
    error("upsample_aa/empty_height", op, [randn(1, 3, 0, 5), [4, 5], False, None, None,
                                           OutSpec(torch.float32, [1, 3, 4, 5])])


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


def allclose():
    out_op, fn_op = "allclose.out", "allclose.Tensor"
    a = randn(3, 4)
    near = a + 1e-6
    far = a.clone()
    far[1, 2] += 1e-3
    special = torch.tensor([1.0, float("inf"), float("-inf"), float("nan"), 0.0])
    special_b = torch.tensor([1.0, float("inf"), float("-inf"), float("nan"), 1e-9])
    i8 = torch.tensor([100, -128, 5], dtype=torch.int8)
    i8b = torch.tensor([-100, 0, 5], dtype=torch.int8)
    i32 = torch.tensor([16777217, 3], dtype=torch.int32)
    i32b = torch.tensor([16777216, 3], dtype=torch.int32)
    items = [
        ("near", a, near, 1e-5, 1e-8, False),
        ("far", a, far, 1e-5, 1e-8, False),
        ("far_loose", a, far, 1e-2, 1e-3, False),
        ("zero_tolerance", a, a.clone(), 0.0, 0.0, False),
        ("zero_tolerance_near", a, near, 0.0, 0.0, False),
        ("broadcast", a, a[1:2] * 0 + a[1], 1e-5, 1e-8, False),
        ("broadcast_equal", a[1:2].expand(3, 4).contiguous(), a[1], 1e-5, 1e-8, False),
        ("nan", special, special_b, 1e-5, 1e-8, False),
        ("equal_nan", special, special_b, 1e-5, 1e-8, True),
        ("inf_mismatch", special, special_b.flip(0), 1e-5, 1e-8, True),
        ("int8_no_wrap", i8, i8b, 0.0, 60.0, False),
        ("int8_atol", i8, i8b, 0.0, 200.0, False),
        ("int32_in_float32", i32, i32b, 0.0, 0.5, False),
        ("bool", torch.tensor([True, False]), torch.tensor([False, False]), 0.5, 1.0, False),
        ("bool_exact", torch.tensor([True, False]), torch.tensor([False, False]), 0.0, 0.0, False),
        ("float64", a.double(), near.double(), 1e-9, 1e-9, False),
        ("empty", randn(0, 3), randn(0, 3), 1e-5, 1e-8, False),
    ]
    for name, x, y, rtol, atol, equal_nan in items:
        ref = torch.tensor(torch.allclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan))
        case(f"allclose/{name}", out_op, [x, y, rtol, atol, equal_nan, False, Out(0)], ref)
    ref = torch.tensor([torch.allclose(a, far)])
    functional("allclose/functional", fn_op, [a, far, 1e-5, 1e-8, False, True, Out(0)], ref)
    functional("allclose/functional_near", fn_op, [a, near, 1e-5, 1e-8, False, True, Out(0)],
               torch.tensor([torch.allclose(a, near)]))
    error("allclose/dtype_mismatch", out_op, [a, a.double(), 1e-5, 1e-8, False, False,
                                              OutSpec(torch.bool, [])])
    error("allclose/shapes", out_op, [a, randn(4, 3), 1e-5, 1e-8, False, False,
                                      OutSpec(torch.bool, [])])
    error("allclose/out_float", out_op, [a, a, 1e-5, 1e-8, False, False,
                                         OutSpec(torch.float32, [])])
    error("allclose/out_two", out_op, [a, a, 1e-5, 1e-8, False, False,
                                       OutSpec(torch.bool, [2])])
    error("allclose/negative_rtol", out_op, [a, a, -1.0, 1e-8, False, False,
                                             OutSpec(torch.bool, [])])


def convolution_backward():
    """aten::convolution_backward.out: the gradients torch computes for
    regular convolutions (1-D and 2-D, strided, padded, dilated, grouped,
    depthwise), every output_mask, float32 and float64, a channels-last
    input; transposed is refused (as the real runtime's portable kernel)."""
    op = "convolution_backward.out"
    configs = [  # name: input shape, weight shape, stride, padding, dilation, groups
        ("3x3", (2, 3, 7, 6), (4, 3, 3, 3), [1, 1], [1, 1], [1, 1], 1),
        ("strided_dilated", (1, 4, 9, 8), (6, 2, 3, 2), [2, 1], [2, 0], [2, 1], 2),
        ("depthwise", (2, 5, 6, 6), (5, 1, 3, 3), [2, 2], [1, 1], [1, 1], 5),
        ("conv1d", (2, 3, 11), (4, 3, 3), [2], [1], [1], 1),
        ("pointwise_uneven_stride", (1, 2, 5, 5), (3, 2, 1, 1), [3, 3], [0, 0], [1, 1], 1),
    ]
    for name, xs, ws, s, p, d, g in configs:
        x, w = randn(*xs), randn(*ws)
        y = torch.ops.aten.convolution(x, w, None, s, p, d, False, [0] * len(s), g)
        dy = randn(*y.shape)
        for mask in ([True, True, True], [True, False, True], [False, True, False]):
            gx, gw, gb = torch.ops.aten.convolution_backward(
                dy, x, w, [ws[0]], s, p, d, False, [0] * len(s), g, mask)
            # A masked-off out is left as it was: zeros of its shape here.
            zeros = (torch.zeros_like(x), torch.zeros_like(w), torch.zeros(ws[0]))
            outs = [t if m else z for t, z, m in zip((gx, gw, gb), zeros, mask)]
            tag = "".join("1" if m else "0" for m in mask)
            case(f"convolution_backward/{name}/{tag}", op,
                 [dy, x, w, [ws[0]], s, p, d, False, [0] * len(s), g, BoolList(mask),
                  Out(0), Out(1), Out(2)], outs, rtol=1e-4, atol=1e-5)
    x, w = randn(2, 3, 5, 5), randn(4, 3, 3, 3)
    dy = randn(2, 4, 5, 5)
    gx, gw, gb = torch.ops.aten.convolution_backward(
        dy, x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True])
    case("convolution_backward/channels_last", op,
         [Layout(dy, CHANNELS_LAST), Layout(x, CHANNELS_LAST), w, None, [1, 1], [1, 1], [1, 1],
          False, [0, 0], 1, BoolList([True, True, True]), Out(0), Out(1), Out(2)],
         [gx, gw, gb], rtol=1e-4, atol=1e-5, out_dim_orders=[CHANNELS_LAST, None, None])
    xd, wd, dyd = x.double(), w.double(), dy.double()
    gx, gw, gb = torch.ops.aten.convolution_backward(
        dyd, xd, wd, [4], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True])
    case("convolution_backward/float64", op,
         [dyd, xd, wd, [4], [1, 1], [1, 1], [1, 1], False, [0, 0], 1,
          BoolList([True, True, True]), Out(0), Out(1), Out(2)], [gx, gw, gb])
    bad = [dy, x, w, [4], [1, 1], [1, 1], [1, 1], False, [0, 0], 1,
           BoolList([True, True, True]), OutSpec(torch.float32, [2, 3, 5, 5]),
           OutSpec(torch.float32, [4, 3, 3, 3]), OutSpec(torch.float32, [4])]
    transposed = list(bad)
    transposed[7] = True
    error("convolution_backward/transposed", op, transposed)
    wrong_grad = list(bad)
    wrong_grad[0] = randn(2, 4, 4, 5)
    error("convolution_backward/grad_output_shape", op, wrong_grad)
    wrong_bias = list(bad)
    wrong_bias[3] = [3]
    error("convolution_backward/bias_sizes", op, wrong_bias)
    short_mask = list(bad)
    short_mask[10] = BoolList([True, True])
    error("convolution_backward/mask_length", op, short_mask)
