"""Cases of the shape, index, padding and distance kernels (make_reference.py).
"""

import torch

from reference_cases import (
    CHANNELS_LAST, Out, OutSpec, Layout, TensorList, case, functional, inplace, error, randn,
    randint)


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


def scatter_reduce():
    """aten::scatter_reduce.two_out: every reduction with and without
    include_self, an index smaller than src, repeated indices,
    NaN through amax / amin, floor-rounded integer mean, a channels-last
    self; an unknown reduction and an out-of-range index fail."""
    op = "scatter_reduce.two_out"
    self_, src = randn(4, 6), randn(4, 5)
    index = randint(0, 6, 3, 5)
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            y = torch.scatter_reduce(self_, 1, index, src, reduce, include_self=include_self)
            case(f"scatter_reduce/{reduce}_{include_self}", op,
                 [self_, 1, index, src, reduce, include_self, Out(0)], y)
    sn = src.clone()
    sn[0, 0] = float("nan")
    idx0 = torch.tensor([[1, 1, 0]])
    for reduce in ("amax", "amin"):
        y = torch.scatter_reduce(self_[:2], 0, idx0.expand(2, 3).clone(), sn[:2, :3], reduce)
        case(f"scatter_reduce/nan_{reduce}", op,
             [self_[:2], 0, idx0.expand(2, 3).clone(), sn[:2, :3], reduce, True, Out(0)], y)
    si, xi = randint(-20, 20, 3, 4, dtype=torch.int32), randint(-20, 20, 3, 4, dtype=torch.int32)
    ii = randint(0, 4, 3, 4)
    for include_self in (True, False):
        y = torch.scatter_reduce(si, 1, ii, xi, "mean", include_self=include_self)
        case(f"scatter_reduce/int32_mean_{include_self}", op,
             [si, 1, ii, xi, "mean", include_self, Out(0)], y)
    sc = randn(2, 3, 4, 4)
    ic = randint(0, 3, 2, 3, 4, 4)
    y = torch.scatter_reduce(sc, 1, ic, sc, "sum", include_self=False)
    case("scatter_reduce/channels_last", op,
         [Layout(sc, CHANNELS_LAST), 1, ic, sc, "sum", False, Out(0)], y,
         out_dim_orders=[CHANNELS_LAST])
    error("scatter_reduce/bad_reduce", op,
          [self_, 1, index, src, "median", True, OutSpec(torch.float32, [4, 6])])
    error("scatter_reduce/index_out_of_range", op,
          [self_, 1, index + 12, src, "sum", True, OutSpec(torch.float32, [4, 6])])
