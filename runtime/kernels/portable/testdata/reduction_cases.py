"""Cases of the reductions, sorts, normalizations, copies and fills
(make_reference.py).
"""

import math

import torch

from reference_cases import (
    CHANNELS_LAST, cases, Out, OutSpec, Layout, tensor_json, case, dtype_name, error, randn,
    randint)


# --------------------------------------------------------------- reductions

def reductions():
    x = randn(3, 4, 5)
    xi = randint(-3, 4, 3, 4)
    for dim, keep in [(0, False), (1, True), (-1, False)]:
        case(f"prod/dim{dim}_keep{keep}", "prod.int_out",
             [x, dim, keep, None, Out(0)], torch.prod(x, dim, keep))
    case("prod/all", "prod.out", [x[:2, :2], None, Out(0)], torch.prod(x[:2, :2]))
    case("prod/int_to_int64", "prod.out", [xi.int(), None, Out(0)],
         torch.prod(xi.int()))
    case("prod/int_dim", "prod.int_out", [xi, 1, False, None, Out(0)],
         torch.prod(xi, 1))
    case("prod/dtype", "prod.int_out",
         [xi, 0, False, 7, Out(0)], torch.prod(xi, 0, dtype=torch.float64))
    case("prod/empty_is_one", "prod.int_out",
         [torch.zeros(2, 0), 1, False, None, Out(0)],
         torch.prod(torch.zeros(2, 0), 1))
    case("prod/bool", "prod.out", [torch.tensor([True, True]), None, Out(0)],
         torch.prod(torch.tensor([True, True])))
    xc = randn(2, 3, 2, 2)
    case("prod/channels_last", "prod.int_out",
         [Layout(xc, CHANNELS_LAST), 1, True, None, Out(0)],
         torch.prod(xc, 1, True))
    error("prod/bad_dim", "prod.int_out",
          [x, 3, False, None, OutSpec(torch.float32, [3, 4])])

    v = randn(4, 5, 6) * 3 + 1
    for dims, unbiased, keep in [([1], True, False), ([0, 2], False, True),
                                 (None, True, False), ([], True, False)]:
        ref = torch.var(v, dim=dims if dims else None, unbiased=unbiased,
                        keepdim=keep)
        case(f"var/{dims}_{unbiased}_{keep}", "var.out",
             [v, dims, unbiased, keep, Out(0)], ref)
    for correction in [0, 1, 2, None]:
        ref = torch.var(v, dim=[2], correction=correction)
        case(f"var_correction/{correction}", "var.correction_out",
             [v, [2], correction, False, Out(0)], ref)
        ref_v, ref_m = torch.var_mean(v, dim=[0, 1], correction=correction,
                                      keepdim=True)
        case(f"var_mean/{correction}", "var_mean.correction_out",
             [v, [0, 1], correction, True, Out(0), Out(1)], [ref_v, ref_m])
    case("var_correction/double_correction", "var.correction_out",
         [v.double(), [1], 0.5, False, Out(0)],
         torch.var(v.double(), dim=[1], correction=0.5), rtol=1e-12,
         atol=1e-12)
    case("var/single_element_nan", "var.out",
         [randn(3, 1), [1], True, False, Out(0)],
         torch.var(randn(3, 1), dim=[1]))
    vc = randn(2, 3, 2, 2)
    case("var/channels_last", "var.out",
         [Layout(vc, CHANNELS_LAST), [1], True, True, Out(0)],
         torch.var(vc, dim=[1], keepdim=True))
    error("var/int", "var.out",
          [xi, [1], True, False, OutSpec(torch.float32, [3])])

    m = randn(3, 5)
    m[1, 2] = float("nan")
    m[2, 0] = m[2, 3] = 7.0  # tie: first index wins
    for fn, op in [(torch.max, "max.dim_max"), (torch.min, "min.dim_min")]:
        for dim, keep in [(1, False), (0, True), (-1, True)]:
            r = fn(m, dim, keep)
            case(f"{op}/dim{dim}_keep{keep}", op, [m, dim, keep, Out(0),
                                                   Out(1)],
                 [r.values, r.indices])
        ri = fn(xi, 0)
        case(f"{op}/int64", op, [xi, 0, False, Out(0), Out(1)],
             [ri.values, ri.indices])
        bools = torch.tensor([[True, False], [False, False]])
        rb = fn(bools, 1)
        case(f"{op}/bool", op, [bools, 1, False, Out(0), Out(1)],
             [rb.values, rb.indices])
        error(f"{op}/empty_dim", op,
              [torch.zeros(2, 0), 1, False, OutSpec(torch.float32, [2]),
               OutSpec(torch.int64, [2])])
    case("max.unary_out/float", "max.unary_out", [x, Out(0)], torch.max(x))
    case("min.unary_out/float", "min.unary_out", [x, Out(0)], torch.min(x))
    case("max.unary_out/nan", "max.unary_out", [m, Out(0)], torch.max(m))
    case("min.unary_out/int8", "min.unary_out",
         [xi.to(torch.int8), Out(0)], torch.min(xi.to(torch.int8)))
    error("max.unary_out/empty", "max.unary_out",
          [torch.zeros(0), OutSpec(torch.float32, [])])

    case("mean.dtype_out/float", "mean.dtype_out", [x, None, Out(0)],
         torch.mean(x))
    case("mean.dtype_out/int_dtype", "mean.dtype_out",
         [xi, 6, Out(0)], torch.mean(xi, dtype=torch.float32))
    case("mean.dtype_out/float64", "mean.dtype_out",
         [x, 7, Out(0)], torch.mean(x, dtype=torch.float64))
    error("mean.dtype_out/int_no_dtype", "mean.dtype_out",
          [xi, None, OutSpec(torch.float32, [])])

    c = randn(3, 4, 5)
    for dim in [0, 1, -1]:
        case(f"cumsum/dim{dim}", "cumsum.out", [c, dim, None, Out(0)],
             torch.cumsum(c, dim))
    case("cumsum/int_to_int64", "cumsum.out",
         [xi.int(), 1, 4, Out(0)], torch.cumsum(xi.int(), 1, dtype=torch.int64))
    case("cumsum/bool", "cumsum.out",
         [torch.tensor([True, False, True]), 0, 4, Out(0)],
         torch.cumsum(torch.tensor([True, False, True]), 0, dtype=torch.int64))
    case("cumsum/int_to_float", "cumsum.out",
         [xi, 0, 6, Out(0)], torch.cumsum(xi, 0, dtype=torch.float32))
    case("cumsum/scalar", "cumsum.out",
         [torch.tensor(2.5), 0, None, Out(0)], torch.cumsum(torch.tensor(2.5), 0))
    case("cumsum/empty", "cumsum.out",
         [torch.zeros(0, 3), 1, None, Out(0)], torch.cumsum(torch.zeros(0, 3), 1))
    cc = randn(2, 3, 2, 2)
    case("cumsum/channels_last", "cumsum.out",
         [Layout(cc, CHANNELS_LAST), 1, None, Out(0)], torch.cumsum(cc, 1),
         out_dim_orders=[CHANNELS_LAST])
    error("cumsum/bad_dim", "cumsum.out",
          [c, 3, None, OutSpec(torch.float32, [3, 4, 5])])
    error("cumsum/float_to_int", "cumsum.out",
          [c, 0, None, OutSpec(torch.int64, [3, 4, 5])])

    t = torch.randperm(40).reshape(4, 10).float() - 20
    for k, dim, largest in [(3, 1, True), (2, 0, False), (1, -1, False),
                            (10, 1, True), (0, 1, True)]:
        r = torch.topk(t, k, dim, largest, True)
        case(f"topk/k{k}_dim{dim}_{largest}", "topk.values",
             [t, k, dim, largest, True, Out(0), Out(1)],
             [r.values, r.indices])
    tn = torch.tensor([1.0, float("nan"), 3.0, -2.0])
    r = torch.topk(tn, 2)
    case("topk/nan_largest", "topk.values",
         [tn, 2, -1, True, True, Out(0), Out(1)], [r.values, r.indices])
    r = torch.topk(tn, 2, largest=False)
    case("topk/nan_smallest", "topk.values",
         [tn, 2, -1, False, True, Out(0), Out(1)], [r.values, r.indices])
    ti = torch.randperm(12).reshape(3, 4).to(torch.int32)
    r = torch.topk(ti, 2, 1)
    case("topk/int32", "topk.values", [ti, 2, 1, True, True, Out(0), Out(1)],
         [r.values, r.indices])
    error("topk/k_too_large", "topk.values",
          [t, 11, 1, True, True, OutSpec(torch.float32, [4, 11]),
           OutSpec(torch.int64, [4, 11])])


# ------------------------------------------------------------ normalization

def norms():
    for shape, groups, affine in [((2, 6, 4, 4), 3, True),
                                  ((1, 4, 5), 2, False),
                                  ((3, 8), 4, True), ((2, 6, 2, 3), 6, True),
                                  ((2, 4, 3, 3), 1, True)]:
        x = randn(*shape) * 2 + 0.5
        c = shape[1]
        hw = math.prod(shape[2:])
        w = randn(c) if affine else None
        b = randn(c) if affine else None
        y, mean, rstd = torch.ops.aten.native_group_norm(
            x, w, b, shape[0], c, hw, groups, 1e-5)
        case(f"group_norm/{shape}_{groups}_{affine}", "native_group_norm.out",
             [x, w, b, shape[0], c, hw, groups, 1e-5, Out(0), Out(1), Out(2)],
             [y, mean, rstd], rtol=1e-4, atol=1e-5)
    x = randn(2, 4, 3, 3)
    w, b = randn(4), randn(4)
    y, mean, rstd = torch.ops.aten.native_group_norm(x, w, b, 2, 4, 9, 2, 1e-5)
    case("group_norm/channels_last", "native_group_norm.out",
         [Layout(x, CHANNELS_LAST), w, b, 2, 4, 9, 2, 1e-5, Out(0), Out(1),
          Out(2)], [y, mean, rstd], rtol=1e-4, atol=1e-5,
         out_dim_orders=[CHANNELS_LAST, None, None])
    error("group_norm/indivisible", "native_group_norm.out",
          [x, w, b, 2, 4, 9, 3, 1e-5, OutSpec(torch.float32, x.shape),
           OutSpec(torch.float32, [2, 3]), OutSpec(torch.float32, [2, 3])])
    error("group_norm/bad_hw", "native_group_norm.out",
          [x, w, b, 2, 4, 8, 2, 1e-5, OutSpec(torch.float32, x.shape),
           OutSpec(torch.float32, [2, 2]), OutSpec(torch.float32, [2, 2])])

    x = randn(4, 3, 2, 2) * 2 + 1
    w, b = randn(3), randn(3)
    rm, rv = randn(3), torch.rand(3) + 0.5
    rm2, rv2 = rm.clone(), rv.clone()
    y, sm, si = torch.ops.aten._native_batch_norm_legit(
        x, w, b, rm2, rv2, True, 0.1, 1e-5)
    # The running statistics are updated in place: the test reads them back
    # as extra outputs (arguments 3 and 4 are also outputs).
    case("batch_norm_legit/training", "_native_batch_norm_legit.out",
         [x, w, b, rm, rv, True, 0.1, 1e-5, Out(0), Out(1), Out(2)],
         [y, sm, si], rtol=1e-4, atol=1e-5)
    cases[-1]["updated"] = [{"arg": 3, "expect": tensor_json(rm2)},
                            {"arg": 4, "expect": tensor_json(rv2)}]
    y, sm, si = torch.ops.aten._native_batch_norm_legit_no_training(
        x, w, b, rm, rv, 0.1, 1e-5)
    case("batch_norm_legit/inference", "_native_batch_norm_legit.out",
         [x, w, b, rm, rv, False, 0.1, 1e-5, Out(0), Out(1), Out(2)],
         [y, sm, si], rtol=1e-4, atol=1e-5)
    y, sm, si = torch.ops.aten._native_batch_norm_legit(
        x, None, None, True, 0.1, 1e-3)
    case("batch_norm_legit/no_stats", "_native_batch_norm_legit.no_stats_out",
         [x, None, None, True, 0.1, 1e-3, Out(0), Out(1), Out(2)],
         [y, sm, si], rtol=1e-4, atol=1e-5)
    x3 = randn(5, 3, 7)
    y, sm, si = torch.ops.aten._native_batch_norm_legit(
        x3, w, None, True, 0.1, 1e-5)
    case("batch_norm_legit/no_stats_3d", "_native_batch_norm_legit.no_stats_out",
         [x3, w, None, True, 0.1, 1e-5, Out(0), Out(1), Out(2)],
         [y, sm, si], rtol=1e-4, atol=1e-5)
    error("batch_norm_legit/no_stats_eval",
          "_native_batch_norm_legit.no_stats_out",
          [x, None, None, False, 0.1, 1e-3, OutSpec(torch.float32, x.shape),
           OutSpec(torch.float32, [0]), OutSpec(torch.float32, [0])])


# ---------------------------------------------------------- copies and fills

def copies_fills():
    x = randn(2, 3)
    for op in ["alias_copy", "detach_copy", "lift_fresh_copy"]:
        case(f"{op}/float", f"{op}.out", [x, Out(0)], x.clone())
        xi = randint(-5, 5, 4, dtype=torch.int16)
        case(f"{op}/int16", f"{op}.out", [xi, Out(0)], xi.clone())
        error(f"{op}/dtype", f"{op}.out", [x, OutSpec(torch.float64, [2, 3])])
    case("zeros/float", "zeros.out", [[2, 3], Out(0)], torch.zeros(2, 3))
    case("zeros/int8", "zeros.out", [[4], Out(0)],
         torch.zeros(4, dtype=torch.int8))
    case("ones/bool", "ones.out", [[2, 2], Out(0)],
         torch.ones(2, 2, dtype=torch.bool))
    case("ones/float64_empty", "ones.out", [[0, 3], Out(0)],
         torch.ones(0, 3, dtype=torch.float64))
    error("zeros/negative", "zeros.out", [[-1], OutSpec(torch.float32, [1])])
    case("fill_scalar/float_int", "fill.Scalar_out", [x, 3, Out(0)],
         torch.full_like(x, 3))
    case("fill_scalar/int_double", "fill.Scalar_out",
         [randint(0, 3, 3), 2.75, Out(0)], torch.full((3,), 2, dtype=torch.int64))
    case("fill_tensor/float", "fill.Tensor_out",
         [x, torch.tensor(-1.5), Out(0)], torch.full_like(x, -1.5))
    error("fill_tensor/not_scalar", "fill.Tensor_out",
          [x, torch.tensor([1.0, 2.0]), OutSpec(torch.float32, [2, 3])])


def sort():
    """aten::sort.values (to_edge keeps aten.sort): both directions, every
    dim, ties (kept in index order: torch's CPU sort is stable), NaN (above
    every number), int32 and int64, a channels-last input, an empty dim;
    a bad dim fails."""
    op = "sort.values"
    t = torch.randint(-4, 5, (3, 5, 6)).float()  # many ties
    for dim, descending in [(-1, False), (-1, True), (0, True), (1, False)]:
        r = torch.sort(t, stable=True, dim=dim, descending=descending)
        case(f"sort/dim{dim}_{'desc' if descending else 'asc'}", op,
             [t, dim, descending, Out(0), Out(1)], [r.values, r.indices])
    tn = torch.tensor([[1.0, float("nan"), 3.0, -2.0, float("-inf"), 3.0]]).double()
    for descending in (False, True):
        r = torch.sort(tn, stable=True, dim=-1, descending=descending)
        case(f"sort/nan_float64_{descending}", op, [tn, -1, descending, Out(0), Out(1)],
             [r.values, r.indices])
    for dtype in (torch.int32, torch.int64):
        ti = randint(-50, 50, 4, 7, dtype=dtype)
        r = torch.sort(ti, stable=True, dim=1, descending=True)
        case(f"sort/{dtype_name(dtype)}", op, [ti, 1, True, Out(0), Out(1)],
             [r.values, r.indices])
    tc = randn(2, 3, 4, 5)
    r = torch.sort(tc, stable=True, dim=1)
    case("sort/channels_last", op, [Layout(tc, CHANNELS_LAST), 1, False, Out(0), Out(1)],
         [r.values, r.indices], out_dim_orders=[CHANNELS_LAST, CHANNELS_LAST])
    te = torch.zeros(3, 0)
    r = torch.sort(te, 1)
    case("sort/empty", op, [te, 1, False, Out(0), Out(1)], [r.values, r.indices])
    error("sort/bad_dim", op, [t, 3, False, OutSpec(torch.float32, [3, 5, 6]),
                               OutSpec(torch.int64, [3, 5, 6])])


def topk_ties():
    """aten::topk.values on ties (drawn last, so the other cases' inputs do
    not move): PyTorch's CPU kernel selects with std::partial_sort when
    k * 64 <= n, else std::nth_element (and std::sort of the first k - 1
    when sorted), comparing values alone; which tied index comes out is
    that selection's, not the lowest. Both paths, both directions, NaN
    ties, sorted=False, a non-last dim."""
    op = "topk.values"
    t = torch.randint(0, 3, (4, 10)).float()  # nth_element: k * 64 > 10
    for k, largest, srt in [(4, True, True), (3, False, True), (6, True, False), (1, True, True)]:
        r = torch.topk(t, k, -1, largest, srt)
        case(f"topk_ties/nth_k{k}_{'largest' if largest else 'smallest'}_{'sorted' if srt else 'unsorted'}",
             op, [t, k, -1, largest, srt, Out(0), Out(1)], [r.values, r.indices])
    w = torch.randint(0, 4, (2, 200)).float()  # partial_sort: k * 64 <= 200
    for largest in (True, False):
        r = torch.topk(w, 3, 1, largest, True)
        case(f"topk_ties/partial_{'largest' if largest else 'smallest'}", op,
             [w, 3, 1, largest, True, Out(0), Out(1)], [r.values, r.indices])
    tn = torch.tensor([[float("nan"), 1.0, float("nan"), 1.0, 2.0, float("nan"), 2.0]])
    for largest in (True, False):
        r = torch.topk(tn, 4, 1, largest, True)
        case(f"topk_ties/nan_{'largest' if largest else 'smallest'}", op,
             [tn, 4, 1, largest, True, Out(0), Out(1)], [r.values, r.indices])
    c = torch.randint(0, 2, (9, 3)).to(torch.int32)
    r = torch.topk(c, 5, 0)
    case("topk_ties/int32_dim0", op, [c, 5, 0, True, True, Out(0), Out(1)], [r.values, r.indices])
