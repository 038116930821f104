"""float16 and bfloat16 cases (make_reference.py): the kernels that store
these dtypes and compute in float32, checked against the outputs torch's own
CPU kernels produce for float16 and bfloat16 inputs.

Torch computes these dtypes in float32 too and rounds each result once, but
may sum in another order (vectorized or blocked), so a result may sit one
unit in the last place (ulp) away: values must agree within two ulps of the
dtype (rtol = 2 * eps) or eps absolutely near zero. Inputs are drawn in
float64, rounded to the dtype, and stay away from rounding-mode edges.
"""

import torch

from reference_cases import (
    CHANNELS_LAST, BoolList, Layout, Out, TensorList, case, dtype_name, randn, randint)

REDUCED = [torch.float16, torch.bfloat16]


def close(dtype, scale=1.0):
    """Tolerances of two ulps (relative) and `scale` ulps of 1 (absolute)."""
    eps = torch.finfo(dtype).eps
    return {"rtol": 2 * eps, "atol": scale * eps}


def reduced_floats():
    for dtype in REDUCED:
        elementwise(dtype)
        activations(dtype)
        reductions(dtype)
        norms(dtype)
        linear_algebra(dtype)
        pooling(dtype)
        selection_copies(dtype)
        mixed_runs(dtype)
        sort_scatter_reduce(dtype)
        convolution_3d(dtype)


def elementwise(dtype):
    t = dtype_name(dtype)
    a = randn(3, 4).to(dtype)
    b = randn(4).to(dtype)
    tol = close(dtype)
    case(f"add/{t}_broadcast_alpha", "add.out", [a, b, 2, Out(0)], torch.add(a, b, alpha=2),
         **tol)
    f32 = randn(3, 4)
    case(f"add/{t}_float32_promotes", "add.out", [a, f32, 1, Out(0)], torch.add(a, f32), **tol)
    i64 = randint(-5, 5, 3, 4)
    case(f"add/{t}_int64_keeps", "add.out", [a, i64, 1, Out(0)], torch.add(a, i64), **tol)
    other = torch.bfloat16 if dtype == torch.float16 else torch.float16
    mixed = b.to(other)
    case(f"add/{t}_{dtype_name(other)}_promotes_to_float32", "add.out", [a, mixed, 1, Out(0)],
         torch.add(a, mixed), **tol)
    case(f"sub/{t}", "sub.out", [a, b, 1, Out(0)], torch.sub(a, b), **tol)
    case(f"mul/{t}", "mul.out", [a, b, Out(0)], torch.mul(a, b), **tol)
    case(f"div/{t}", "div.out", [a, b, Out(0)], torch.div(a, b), **tol)
    case(f"add.Scalar/{t}", "add.Scalar_out", [a, 2.5, 1, Out(0)], torch.add(a, 2.5), **tol)
    case(f"mul.Scalar/{t}", "mul.Scalar_out", [a, 0.3, Out(0)], torch.mul(a, 0.3), **tol)
    case(f"div.Scalar/{t}", "div.Scalar_out", [a, 3, Out(0)], torch.div(a, 3), **tol)
    case(f"rsub.Scalar/{t}", "rsub.Scalar_out", [a, 1.5, 2, Out(0)],
         torch.rsub(a, 1.5, alpha=2), **tol)
    pos = a.abs() + 0.25
    case(f"pow.Tensor_Scalar/{t}", "pow.Tensor_Scalar_out", [pos, 1.5, Out(0)],
         torch.pow(pos, 1.5), **tol)
    case(f"maximum/{t}", "maximum.out", [a, b, Out(0)], torch.maximum(a, b), **tol)
    case(f"minimum/{t}", "minimum.out", [a, b, Out(0)], torch.minimum(a, b), **tol)
    for op, fn in [("eq", torch.eq), ("lt", torch.lt), ("ge", torch.ge)]:
        case(f"{op}.Tensor/{t}", f"{op}.Tensor_out", [a, a.roll(1, 1), Out(0)],
             fn(a, a.roll(1, 1)))
        case(f"{op}.Scalar/{t}", f"{op}.Scalar_out", [a, 0.5, Out(0)], fn(a, 0.5))
    case(f"atan2/{t}", "atan2.out", [a, b, Out(0)], torch.atan2(a, b), **tol)
    cond = randn(3, 4) > 0
    case(f"where/{t}", "where.self_out", [cond, a, b, Out(0)], torch.where(cond, a, b))
    case(f"logical_not/{t}", "logical_not.out", [a.round(), Out(0)],
         torch.logical_not(a.round()))


def activations(dtype):
    t = dtype_name(dtype)
    x = (randn(2, 3, 5) * 3).to(dtype)
    pos = x.abs() + 0.1
    tol = close(dtype)
    unary = {
        "relu": (torch.relu, x), "sigmoid": (torch.sigmoid, x), "tanh": (torch.tanh, x),
        "exp": (torch.exp, x / 2), "log": (torch.log, pos), "sqrt": (torch.sqrt, pos),
        "rsqrt": (torch.rsqrt, pos), "neg": (torch.neg, x), "abs": (torch.abs, x),
        "sin": (torch.sin, x), "cos": (torch.cos, x), "erf": (torch.erf, x),
        "hardswish": (torch.nn.functional.hardswish, x),
        "hardsigmoid": (torch.nn.functional.hardsigmoid, x),
        "floor": (torch.floor, x), "ceil": (torch.ceil, x), "trunc": (torch.trunc, x),
        "reciprocal": (torch.reciprocal, pos), "log1p": (torch.log1p, pos),
        "expm1": (torch.expm1, x / 2), "sign": (torch.sign, x),
    }
    for op, (fn, v) in unary.items():
        case(f"{op}/{t}", f"{op}.out", [v, Out(0)], fn(v), **tol)
    xc = (randn(2, 3, 2, 2) * 3).to(dtype)
    case(f"sigmoid/{t}_channels_last", "sigmoid.out", [Layout(xc, CHANNELS_LAST), Out(0)],
         torch.sigmoid(xc), out_dim_orders=[CHANNELS_LAST], **tol)
    for mode in ["none", "tanh"]:
        case(f"gelu/{t}_{mode}", "gelu.out", [x, mode, Out(0)],
             torch.nn.functional.gelu(x, approximate=mode), **tol)
    case(f"hardtanh/{t}", "hardtanh.out", [x, -1.0, 2, Out(0)],
         torch.nn.functional.hardtanh(x, -1.0, 2), **tol)
    case(f"clamp/{t}", "clamp.out", [x, -0.5, None, Out(0)], torch.clamp(x, min=-0.5), **tol)
    case(f"leaky_relu/{t}", "leaky_relu.out", [x, 0.1, Out(0)],
         torch.nn.functional.leaky_relu(x, 0.1), **tol)
    case(f"elu/{t}", "elu.out", [x, 1.0, 1.0, 1.0, Out(0)], torch.nn.functional.elu(x), **tol)
    case(f"glu/{t}", "glu.out", [x[:, :2], 1, Out(0)], torch.nn.functional.glu(x[:, :2], 1),
         **tol)
    for dim in [-1, 1]:
        case(f"softmax/{t}_dim{dim}", "_softmax.out", [x, dim, False, Out(0)],
             torch.softmax(x, dim), **tol)
        case(f"log_softmax/{t}_dim{dim}", "_log_softmax.out", [x, dim, False, Out(0)],
             torch.log_softmax(x, dim), **tol)


def reductions(dtype):
    t = dtype_name(dtype)
    x = (randn(3, 4, 5) + 0.5).to(dtype)
    tol = close(dtype, scale=4)
    case(f"mean/{t}", "mean.out", [x, [1], False, None, Out(0)], torch.mean(x, [1]), **tol)
    case(f"mean/{t}_all_keepdim", "mean.out", [x, None, True, None, Out(0)],
         torch.mean(x, [0, 1, 2], keepdim=True), **tol)
    case(f"sum/{t}", "sum.IntList_out", [x, [0, 2], False, None, Out(0)],
         torch.sum(x, [0, 2]), **tol)
    case(f"amax/{t}", "amax.out", [x, [2], False, Out(0)], torch.amax(x, [2]))
    case(f"amin/{t}", "amin.out", [x, [0], True, Out(0)], torch.amin(x, [0], keepdim=True))
    case(f"argmax/{t}", "argmax.out", [x, 1, False, Out(0)], torch.argmax(x, 1))
    case(f"argmin/{t}", "argmin.out", [x, None, False, Out(0)], torch.argmin(x))
    values, indices = torch.max(x, 2)
    case(f"max.dim/{t}", "max.dim_max", [x, 2, False, Out(0), Out(1)], [values, indices])
    case(f"max.unary/{t}", "max.unary_out", [x, Out(0)], torch.max(x))
    case(f"var/{t}", "var.correction_out", [x, [2], 1, False, Out(0)],
         torch.var(x, [2], correction=1), **tol)
    case(f"cumsum/{t}", "cumsum.out", [x, 2, None, Out(0)], torch.cumsum(x, 2), **tol)
    case(f"prod/{t}", "prod.int_out", [x, 1, False, None, Out(0)], torch.prod(x, 1), **tol)
    values, indices = torch.topk(x, 2, 2)
    case(f"topk/{t}", "topk.values", [x, 2, 2, True, True, Out(0), Out(1)], [values, indices])


def norms(dtype):
    t = dtype_name(dtype)
    tol = close(dtype, scale=4)
    x = (randn(2, 3, 6) * 2 + 0.5).to(dtype)
    w, b = randn(6).to(dtype), randn(6).to(dtype)
    outs = torch.ops.aten.native_layer_norm(x, [6], w, b, 1e-5)
    case(f"layer_norm/{t}", "native_layer_norm.out",
         [x, [6], w, b, 1e-5, Out(0), Out(1), Out(2)], list(outs), **tol)
    x4 = (randn(2, 4, 3, 3) * 2 + 1).to(dtype)
    w4, b4 = randn(4).to(dtype), randn(4).to(dtype)
    rm, rv = randn(4).to(dtype), (torch.rand(4) + 0.5).to(dtype)
    outs = torch.ops.aten._native_batch_norm_legit_no_training(x4, w4, b4, rm, rv, 0.1, 1e-5)
    case(f"batch_norm/{t}", "_native_batch_norm_legit_no_training.out",
         [x4, w4, b4, rm, rv, 0.1, 1e-5, Out(0), Out(1), Out(2)], list(outs), **tol)
    outs = torch.ops.aten.native_group_norm(x4, w4, b4, 2, 4, 9, 2, 1e-5)
    case(f"group_norm/{t}", "native_group_norm.out",
         [x4, w4, b4, 2, 4, 9, 2, 1e-5, Out(0), Out(1), Out(2)], list(outs), **tol)


def linear_algebra(dtype):
    t = dtype_name(dtype)
    tol = close(dtype, scale=8)
    a, b = randn(4, 16).to(dtype), randn(16, 5).to(dtype)
    case(f"mm/{t}", "mm.out", [a, b, Out(0)], torch.mm(a, b), **tol)
    case(f"mm/{t}_transposed", "mm.out", [a, b.t().contiguous().t(), Out(0)], torch.mm(a, b),
         **tol)
    bias = randn(5).to(dtype)
    case(f"addmm/{t}", "addmm.out", [bias, a, b, 0.5, 2, Out(0)],
         torch.addmm(bias, a, b, beta=0.5, alpha=2), **tol)
    ba, bb = randn(2, 3, 8).to(dtype), randn(2, 8, 4).to(dtype)
    case(f"bmm/{t}", "bmm.out", [ba, bb, Out(0)], torch.bmm(ba, bb), **tol)
    x, w = randn(2, 3, 16).to(dtype), randn(5, 16).to(dtype)
    case(f"linear/{t}", "linear.out", [x, w, bias, Out(0)],
         torch.nn.functional.linear(x, w, bias), **tol)
    xc, wc, bc = randn(1, 4, 6, 6).to(dtype), randn(6, 2, 3, 3).to(dtype), randn(6).to(dtype)
    conv = torch.ops.aten.convolution(xc, wc, bc, [1, 1], [1, 1], [1, 1], False, [0, 0], 2)
    case(f"convolution/{t}_grouped", "convolution.out",
         [xc, wc, bc, [1, 1], [1, 1], [1, 1], False, [0, 0], 2, Out(0)], conv, **tol)
    case(f"convolution/{t}_channels_last", "convolution.out",
         [Layout(xc, CHANNELS_LAST), wc, bc, [1, 1], [1, 1], [1, 1], False, [0, 0], 2, Out(0)],
         conv, out_dim_orders=[CHANNELS_LAST], **tol)
    dy = randn(*conv.shape).to(dtype)
    grads = torch.ops.aten.convolution_backward(
        dy, xc, wc, [6], [1, 1], [1, 1], [1, 1], False, [0, 0], 2, [True, True, True])
    case(f"convolution_backward/{t}", "convolution_backward.out",
         [dy, xc, wc, [6], [1, 1], [1, 1], [1, 1], False, [0, 0], 2,
          BoolList([True, True, True]), Out(0), Out(1), Out(2)], list(grads),
         **close(dtype, scale=16))
    wt = randn(4, 3, 3, 3).to(dtype)
    conv = torch.ops.aten.convolution(xc, wt, None, [2, 2], [1, 1], [1, 1], True, [1, 1], 1)
    case(f"convolution/{t}_transposed", "convolution.out",
         [xc, wt, None, [2, 2], [1, 1], [1, 1], True, [1, 1], 1, Out(0)], conv, **tol)


def pooling(dtype):
    t = dtype_name(dtype)
    tol = close(dtype, scale=4)
    x = randn(1, 3, 6, 7).to(dtype)
    case(f"avg_pool2d/{t}", "avg_pool2d.out",
         [x, [3, 3], [2, 2], [1, 1], False, True, None, Out(0)],
         torch.nn.functional.avg_pool2d(x, 3, 2, 1), **tol)
    case(f"adaptive_avg_pool2d/{t}", "_adaptive_avg_pool2d.out", [x, [2, 3], Out(0)],
         torch.nn.functional.adaptive_avg_pool2d(x, [2, 3]), **tol)
    values, indices = torch.ops.aten.max_pool2d_with_indices(x, [2, 2], [2, 2], [0, 0], [1, 1])
    case(f"max_pool2d/{t}", "max_pool2d_with_indices.out",
         [x, [2, 2], [2, 2], [0, 0], [1, 1], False, Out(0), Out(1)], [values, indices])
    values, indices3 = torch.ops.aten.max_pool2d_with_indices(x, [3, 3], [1, 1], [1, 1], [1, 1])
    grad = randn(*values.shape).to(dtype)
    case(f"max_pool2d_backward/{t}", "max_pool2d_with_indices_backward.grad_input",
         [grad, x, [3, 3], [1, 1], [1, 1], [1, 1], False, indices3, Out(0)],
         torch.ops.aten.max_pool2d_with_indices_backward(
             grad, x, [3, 3], [1, 1], [1, 1], [1, 1], False, indices3))
    case(f"upsample_nearest2d/{t}", "upsample_nearest2d.vec_out", [x, [9, 14], None, Out(0)],
         torch.nn.functional.interpolate(x, size=[9, 14], mode="nearest"))
    case(f"upsample_bilinear2d/{t}", "upsample_bilinear2d.vec_out",
         [x, [9, 14], False, None, Out(0)],
         torch.nn.functional.interpolate(x, size=[9, 14], mode="bilinear"), **tol)


def selection_copies(dtype):
    t = dtype_name(dtype)
    x = randn(3, 4).to(dtype)
    f32 = randn(3, 4)
    case(f"to_copy/{t}_to_float32", "_to_copy.out", [x, False, None, Out(0)], x.float())
    case(f"to_copy/float32_to_{t}", "_to_copy.out", [f32, False, None, Out(0)], f32.to(dtype))
    case(f"copy/{t}_from_float32", "copy.out", [x, f32[0], False, Out(0)],
         f32[0].expand(3, 4).to(dtype))
    case(f"full/{t}", "full.out", [[2, 3], 0.1, Out(0)], torch.full([2, 3], 0.1, dtype=dtype))
    case(f"constant_pad_nd/{t}", "constant_pad_nd.out", [x, [1, 2], 0.3, Out(0)],
         torch.nn.functional.pad(x, [1, 2], value=0.3))
    case(f"cat/{t}_float32_promotes", "cat.out", [TensorList([x, f32]), 0, Out(0)],
         torch.cat([x, f32], 0))
    mask = randn(3, 4) > 0
    case(f"masked_fill/{t}", "masked_fill.Scalar_out", [x, mask, -0.7, Out(0)],
         x.masked_fill(mask, -0.7))
    index = randint(0, 3, 2, 4)
    case(f"gather/{t}", "gather.out", [x, 0, index, False, Out(0)], torch.gather(x, 0, index))
    case(f"scatter_add/{t}", "scatter_add.out", [x, 0, index, x[:2], Out(0)],
         torch.scatter_add(x, 0, index, x[:2]))
    case(f"stack/{t}", "stack.out", [TensorList([x, x * 2]), 1, Out(0)],
         torch.stack([x, x * 2], 1))
    y, m = torch.ops.aten.native_dropout(x, 0.0, True)
    case(f"native_dropout/{t}_train_p0", "native_dropout.out", [x, 0.0, True, Out(0), Out(1)],
         [y, m])


def mixed_runs(dtype):
    """The run-wise mixed-dtype loops (where, comparisons, any / all) with
    this dtype beside float32 or the other 16-bit type, broadcast and
    transposed (strided) operands."""
    t = dtype_name(dtype)
    a = randn(3, 4).to(dtype)
    f32 = randn(4)
    other = (torch.bfloat16 if dtype == torch.float16 else torch.float16)
    b = randn(3, 4).to(other)
    cond = randn(3, 1) > 0
    case(f"where/{t}_float32_promotes", "where.self_out", [cond, a, f32, Out(0)],
         torch.where(cond, a, f32))
    case(f"where/{t}_{dtype_name(other)}_transposed", "where.self_out",
         [cond, Layout(a, [1, 0]), b, Out(0)], torch.where(cond, a, b))
    case(f"where/{t}_into_{t}_scalar_operand", "where.self_out",
         [cond, a, torch.tensor(0.1, dtype=dtype), Out(0)],
         torch.where(cond, a, torch.tensor(0.1, dtype=dtype)))
    case(f"lt.Tensor/{t}_float32", "lt.Tensor_out", [a, f32, Out(0)], torch.lt(a, f32))
    case(f"eq.Tensor/{t}_{dtype_name(other)}", "eq.Tensor_out", [a, a.to(other), Out(0)],
         torch.eq(a, a.to(other)))
    z = torch.tensor([[0.0, -0.0, 0.0, 0.0], [0.0, float("nan"), 0.0, -0.0],
                      [1e-3, 0.0, -2.0, 0.5]]).to(dtype)
    case(f"any.out/{t}", "any.out", [z, 1, False, Out(0)], torch.any(z, 1))
    case(f"any.dims/{t}_transposed", "any.dims_out", [Layout(z, [1, 0]), [0], True, Out(0)],
         torch.any(z, 0, keepdim=True))
    case(f"all.out/{t}", "all.out", [z + 1, 0, False, Out(0)], torch.all(z + 1, 0))
    case(f"all.all/{t}", "all.all_out", [z, Out(0)], torch.all(z))


def sort_scatter_reduce(dtype):
    t = dtype_name(dtype)
    x = (randn(3, 6) * 2).round().to(dtype)  # ties
    x[1, 2] = float("nan")
    for dim, descending in [(1, False), (0, True)]:
        r = torch.sort(x, stable=True, dim=dim, descending=descending)
        case(f"sort/{t}_dim{dim}_{'desc' if descending else 'asc'}", "sort.values",
             [x, dim, descending, Out(0), Out(1)], [r.values, r.indices])
    self_, src = randn(4, 6).to(dtype), randn(4, 5).to(dtype)
    index = randint(0, 6, 3, 5)
    tol = close(dtype, scale=4)
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            y = torch.scatter_reduce(self_, 1, index, src, reduce, include_self=include_self)
            case(f"scatter_reduce/{t}_{reduce}_{include_self}", "scatter_reduce.two_out",
                 [self_, 1, index, src, reduce, include_self, Out(0)], y, **tol)


def convolution_3d(dtype):
    """Rank-5 convolution, regular and transposed: float32 sums over depth,
    channels and kernel, one rounding."""
    t = dtype_name(dtype)
    tol = close(dtype, scale=8)
    x, w, b = randn(1, 4, 4, 5, 5).to(dtype), randn(6, 2, 2, 3, 3).to(dtype), randn(6).to(dtype)
    args = [[1, 2, 1], [1, 1, 0], [2, 1, 1], False, [0, 0, 0], 2]
    y = torch.ops.aten.convolution(x, w, b, *args)
    case(f"convolution_3d/{t}_grouped_dilated", "convolution.out", [x, w, b, *args, Out(0)], y,
         **tol)
    cl3d = [0, 2, 3, 4, 1]
    case(f"convolution_3d/{t}_channels_last", "convolution.out",
         [Layout(x, cl3d), w, b, *args, Out(0)], y, out_dim_orders=[cl3d], **tol)
    wt = randn(4, 3, 2, 2, 3).to(dtype)
    args = [[2, 1, 2], [0, 1, 1], [1, 1, 1], True, [1, 0, 1], 1]
    y = torch.ops.aten.convolution(x, wt, None, *args)
    case(f"convolution_3d/{t}_transposed", "convolution.out", [x, wt, None, *args, Out(0)], y,
         **tol)
