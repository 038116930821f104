#!/usr/bin/env python3
"""Writes reference.json: operator cases for the portable kernels with the
outputs PyTorch computes for them (torch_reference_test.cc replays each case
through the registered kernel and compares).

Run once and commit the output (the tests never run Python):

    tools/.venv/bin/python runtime/kernels/portable/testdata/make_reference.py

Inputs are seeded; rerunning with the same torch version rewrites the same
file. The torch version used is recorded in the output.

A case lists the kernel's arguments in schema order. Tensors carry dtype,
sizes, values in logical (row-major) order and optionally a dim order (the
test lays the data out accordingly). OUT(k) is the k-th expected output,
created by the test with that dtype, shape and dim order. Error cases give
the out tensors' dtype and shape instead and expect the kernel to fail.
"""

import json
import math
import pathlib

import torch

OUT_PATH = pathlib.Path(__file__).with_name("reference.json")
torch.manual_seed(20261125)

CHANNELS_LAST = [0, 2, 3, 1]
cases = []


class Out:
    def __init__(self, k):
        self.k = k


class OutSpec:
    def __init__(self, dtype, sizes, dim_order=None):
        self.dtype, self.sizes, self.dim_order = dtype, list(sizes), dim_order


class Layout:
    """A tensor argument laid out with a non-default dim order."""

    def __init__(self, t, dim_order):
        self.t, self.dim_order = t, dim_order


class TensorList:
    def __init__(self, items, optional=False):
        self.items, self.optional = items, optional


def dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def values(t):
    flat = t.detach().reshape(-1).tolist()
    if t.dtype.is_floating_point:
        return [("nan" if math.isnan(v) else ("inf" if v > 0 else "-inf"))
                if not math.isfinite(v) else v for v in flat]
    return flat


def tensor_json(t, dim_order=None):
    out = {"dtype": dtype_name(t.dtype), "sizes": list(t.shape),
           "values": values(t)}
    if dim_order is not None:
        out["dim_order"] = dim_order
    return out


def arg_json(a):
    if isinstance(a, Out):
        return {"out": a.k}
    if isinstance(a, OutSpec):
        spec = {"dtype": dtype_name(a.dtype), "sizes": a.sizes, "values": []}
        if a.dim_order is not None:
            spec["dim_order"] = a.dim_order
        return {"out_spec": spec}
    if isinstance(a, Layout):
        return {"tensor": tensor_json(a.t, a.dim_order)}
    if isinstance(a, torch.Tensor):
        return {"tensor": tensor_json(a)}
    if isinstance(a, TensorList):
        key = "optional_tensor_list" if a.optional else "tensor_list"
        return {key: [None if t is None else tensor_json(t) for t in a.items]}
    if a is None:
        return {"none": None}
    if isinstance(a, bool):
        return {"bool": a}
    if isinstance(a, int):
        return {"int": a}
    if isinstance(a, float):
        if not math.isfinite(a):
            return {"double": "nan" if math.isnan(a) else
                    ("inf" if a > 0 else "-inf")}
        return {"double": a}
    if isinstance(a, str):
        return {"string": a}
    if isinstance(a, (list, tuple)):
        return {"int_list": list(a)}
    raise TypeError(a)


def case(name, op, args, outs, rtol=1e-5, atol=1e-6, out_dim_orders=None):
    """outs: the tensors torch computed, in schema order."""
    if isinstance(outs, torch.Tensor):
        outs = [outs]
    orders = out_dim_orders or [None] * len(outs)
    cases.append({
        "name": name, "op": op if "::" in op else "aten::" + op,
        "args": [arg_json(a) for a in args],
        "outputs": [tensor_json(o, d) for o, d in zip(outs, orders)],
        "rtol": rtol, "atol": atol})


def inplace(name, op, args, arg, result, rtol=1e-5, atol=1e-6):
    """An in-place op whose argument `arg` must equal `result` afterwards."""
    case(name, op, args, result, rtol, atol)
    cases[-1]["inplace"] = arg


def error(name, op, args):
    cases.append({"name": name, "op": op if "::" in op else "aten::" + op,
                  "args": [arg_json(a) for a in args], "outputs": [],
                  "error": True})


def randn(*shape, dtype=torch.float32):
    return torch.randn(*shape, dtype=torch.float64).to(dtype)


def randint(lo, hi, *shape, dtype=torch.int64):
    return torch.randint(lo, hi, shape, dtype=dtype)


# ---------------------------------------------------------------- unary math

def unary_floating():
    special = torch.tensor([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, 10.0,
                            float("inf"), float("-inf"), float("nan"), 1e-7])
    domains = {  # op: (function, typical input)
        "tan": (torch.tan, randn(3, 4)),
        "asin": (torch.asin, torch.rand(3, 4) * 2 - 1),
        "acos": (torch.acos, torch.rand(3, 4) * 2 - 1),
        "atan": (torch.atan, randn(3, 4) * 3),
        "sinh": (torch.sinh, randn(3, 4) * 2),
        "cosh": (torch.cosh, randn(3, 4) * 2),
        "asinh": (torch.asinh, randn(3, 4) * 3),
        "acosh": (torch.acosh, torch.rand(3, 4) * 5 + 1),
        "atanh": (torch.atanh, torch.rand(3, 4) * 1.8 - 0.9),
        "expm1": (torch.expm1, randn(3, 4)),
        "log1p": (torch.log1p, torch.rand(3, 4) * 5 - 0.9),
        "log2": (torch.log2, torch.rand(3, 4) * 10),
        "log10": (torch.log10, torch.rand(3, 4) * 10),
        "reciprocal": (torch.reciprocal, randn(3, 4)),
    }
    for op, (fn, x) in domains.items():
        name = op + ".out"
        case(f"{op}/float32", name, [x, Out(0)], fn(x))
        case(f"{op}/special", name, [special, Out(0)], fn(special))
        xd = x.double()
        case(f"{op}/float64", name, [xd, Out(0)], fn(xd), rtol=1e-12,
             atol=1e-14)
        xi = randint(1, 5, 2, 3)
        case(f"{op}/int64_to_float32", name, [xi, Out(0)], fn(xi))
        xc = randn(2, 3, 2, 2)
        case(f"{op}/channels_last", name, [Layout(xc, CHANNELS_LAST), Out(0)],
             fn(xc), out_dim_orders=[CHANNELS_LAST])
        case(f"{op}/empty", name, [torch.zeros(0, 3), Out(0)],
             fn(torch.zeros(0, 3)))
        error(f"{op}/int_out", name, [x, OutSpec(torch.int32, x.shape)])
        error(f"{op}/wrong_shape", name,
              [x, OutSpec(torch.float32, [5], dim_order=None)])
    x = torch.rand(3, 4)
    x[0, 0], x[0, 1] = 0.0, 1.0
    case("logit/no_eps", "logit.out", [x, None, Out(0)], torch.logit(x))
    case("logit/eps", "logit.out", [x, 0.1, Out(0)], torch.logit(x, 0.1))
    case("logit/float64", "logit.out", [x.double(), 1e-6, Out(0)],
         torch.logit(x.double(), 1e-6), rtol=1e-12, atol=1e-14)


def sign_classify():
    x = torch.tensor([[-2.5, 0.0, -0.0, 3.0], [float("nan"), float("inf"),
                                                float("-inf"), 1e-30]])
    for op, fn in [("sign", torch.sign), ("isnan", torch.isnan),
                   ("isinf", torch.isinf)]:
        case(f"{op}/float32", f"{op}.out", [x, Out(0)], fn(x))
        case(f"{op}/float64", f"{op}.out", [x.double(), Out(0)],
             fn(x.double()))
        xi = torch.tensor([-3, 0, 7, -1], dtype=torch.int8)
        case(f"{op}/int8", f"{op}.out", [xi, Out(0)], fn(xi))
        xc = randn(2, 3, 2, 2)
        case(f"{op}/channels_last", f"{op}.out",
             [Layout(xc, CHANNELS_LAST), Out(0)], fn(xc))
    xb = torch.tensor([True, False])
    case("sign/bool", "sign.out", [xb, Out(0)], torch.sign(xb))
    error("isnan/float_out", "isnan.out", [x, OutSpec(torch.float32, x.shape)])


def activations():
    x = randn(4, 5) * 3
    for alpha, scale, iscale in [(1.0, 1.0, 1.0), (0.5, 2.0, 1.5)]:
        y = torch.ops.aten.elu(x, alpha, scale, iscale)
        case(f"elu/{alpha}_{scale}_{iscale}", "elu.out",
             [x, alpha, scale, iscale, Out(0)], y)
    case("elu/float64", "elu.out", [x.double(), 1.0, 1.0, 1.0, Out(0)],
         torch.nn.functional.elu(x.double()), rtol=1e-12, atol=1e-14)
    error("elu/int", "elu.out", [randint(-3, 3, 4), 1.0, 1.0, 1.0,
                                 OutSpec(torch.int64, [4])])
    for slope in [0.01, 0.2, -1.5]:
        case(f"leaky_relu/{slope}", "leaky_relu.out", [x, slope, Out(0)],
             torch.nn.functional.leaky_relu(x, slope))
    xc = randn(2, 3, 2, 2)
    case("leaky_relu/channels_last", "leaky_relu.out",
         [Layout(xc, CHANNELS_LAST), 0.1, Out(0)],
         torch.nn.functional.leaky_relu(xc, 0.1),
         out_dim_orders=[CHANNELS_LAST])
    g = randn(2, 6, 4)
    for dim in [1, -1, 0]:
        case(f"glu/dim{dim}", "glu.out", [g, dim, Out(0)],
             torch.nn.functional.glu(g, dim))
    case("glu/float64", "glu.out", [g.double(), 1, Out(0)],
         torch.nn.functional.glu(g.double(), 1), rtol=1e-12, atol=1e-14)
    error("glu/odd", "glu.out", [randn(3, 5), 1, OutSpec(torch.float32, [3, 2])])
    error("glu/dim", "glu.out", [randn(3, 4), 2, OutSpec(torch.float32, [3, 2])])


# ------------------------------------------------------------------- binary

def bitwise():
    a = randint(-100, 100, 3, 4, dtype=torch.int32)
    b = randint(-100, 100, 4, dtype=torch.int32)
    a8 = randint(-128, 127, 3, 4, dtype=torch.int8)
    u8 = randint(0, 255, 4, dtype=torch.uint8)
    ba = torch.tensor([True, False, True, False])
    bb = torch.tensor([True, True, False, False])
    for op, fn in [("and", torch.bitwise_and), ("or", torch.bitwise_or),
                   ("xor", torch.bitwise_xor)]:
        t = f"bitwise_{op}.Tensor_out"
        case(f"bitwise_{op}/int32_broadcast", t, [a, b, Out(0)], fn(a, b))
        case(f"bitwise_{op}/int8_uint8_promote", t, [a8, u8, Out(0)],
             fn(a8, u8))
        case(f"bitwise_{op}/bool", t, [ba, bb, Out(0)], fn(ba, bb))
        case(f"bitwise_{op}/int64_scalar", f"bitwise_{op}.Scalar_out",
             [a.long(), 0x55, Out(0)], fn(a.long(), 0x55))
        case(f"bitwise_{op}/int8_scalar_keeps_dtype",
             f"bitwise_{op}.Scalar_out", [a8, 7, Out(0)], fn(a8, 7))
        case(f"bitwise_{op}/bool_scalar", f"bitwise_{op}.Scalar_out",
             [ba, True, Out(0)], fn(ba, True))
        error(f"bitwise_{op}/float", t,
              [randn(4), randn(4), OutSpec(torch.float32, [4])])
        error(f"bitwise_{op}/no_broadcast", t,
              [a, randint(0, 3, 3, dtype=torch.int32),
               OutSpec(torch.int32, [3, 4])])
    case("bitwise_not/int16", "bitwise_not.out",
         [a.short(), Out(0)], torch.bitwise_not(a.short()))
    case("bitwise_not/uint8", "bitwise_not.out", [u8, Out(0)],
         torch.bitwise_not(u8))
    case("bitwise_not/bool", "bitwise_not.out", [ba, Out(0)],
         torch.bitwise_not(ba))
    error("bitwise_not/float", "bitwise_not.out",
          [randn(3), OutSpec(torch.float32, [3])])
    vals = torch.tensor([1, -1, 5, -128, 127, 64, -7, 3], dtype=torch.int8)
    shifts = torch.tensor([0, 1, 3, 7, 8, 9, -1, 2], dtype=torch.int8)
    for dt in [torch.int8, torch.int32, torch.int64]:
        v, s = vals.to(dt), shifts.to(dt)
        n = dtype_name(dt)
        case(f"left_shift/{n}", "bitwise_left_shift.Tensor_out",
             [v, s, Out(0)], torch.bitwise_left_shift(v, s))
        case(f"right_shift/{n}", "bitwise_right_shift.Tensor_out",
             [v, s, Out(0)], torch.bitwise_right_shift(v, s))
    vu = torch.tensor([1, 200, 255, 16], dtype=torch.uint8)
    su = torch.tensor([1, 2, 8, 9], dtype=torch.uint8)
    case("left_shift/uint8", "bitwise_left_shift.Tensor_out", [vu, su, Out(0)],
         torch.bitwise_left_shift(vu, su))
    case("right_shift/uint8", "bitwise_right_shift.Tensor_out",
         [vu, su, Out(0)], torch.bitwise_right_shift(vu, su))
    case("left_shift/scalar", "bitwise_left_shift.Tensor_Scalar_out",
         [a, 3, Out(0)], torch.bitwise_left_shift(a, 3))
    case("right_shift/scalar", "bitwise_right_shift.Tensor_Scalar_out",
         [a, 2, Out(0)], torch.bitwise_right_shift(a, 2))


def binary_misc():
    y = randn(3, 4)
    x = randn(4)
    x[0] = 0.0
    y[0, 0] = 0.0
    case("atan2/broadcast", "atan2.out", [y, x, Out(0)], torch.atan2(y, x))
    case("atan2/float64", "atan2.out", [y.double(), x.double(), Out(0)],
         torch.atan2(y.double(), x.double()), rtol=1e-12, atol=1e-14)
    yi, xi = randint(-5, 5, 6), randint(-5, 5, 6)
    case("atan2/int_to_float", "atan2.out", [yi, xi, Out(0)],
         torch.atan2(yi, xi))
    case("atan2/float_int", "atan2.out", [y, xi[:4], Out(0)],
         torch.atan2(y, xi[:4]))
    yc, xc = randn(2, 3, 2, 2), randn(2, 3, 2, 2)
    case("atan2/channels_last", "atan2.out",
         [Layout(yc, CHANNELS_LAST), xc, Out(0)], torch.atan2(yc, xc),
         out_dim_orders=[CHANNELS_LAST])
    error("atan2/int_out", "atan2.out", [yi, xi, OutSpec(torch.int64, [6])])

    a = randn(3, 4) * 5
    b = randn(4) * 2
    case("floor_divide/float", "floor_divide.out", [a, b, Out(0)],
         torch.floor_divide(a, b))
    ai = randint(-20, 20, 3, 4)
    bi = torch.tensor([3, -3, 7, -1])
    case("floor_divide/int64", "floor_divide.out", [ai, bi, Out(0)],
         torch.floor_divide(ai, bi))
    case("floor_divide/int_float_promote", "floor_divide.out",
         [ai, b, Out(0)], torch.floor_divide(ai, b))
    error("floor_divide/int_by_zero", "floor_divide.out",
          [ai, torch.tensor([1, 0, 1, 1]), OutSpec(torch.int64, [3, 4])])

    case("rsub/float_int_alpha", "rsub.Scalar_out", [a, 2, 3, Out(0)],
         torch.rsub(a, 2, alpha=3))
    case("rsub/float_double", "rsub.Scalar_out", [a, 1.5, 1, Out(0)],
         torch.rsub(a, 1.5))
    case("rsub/int", "rsub.Scalar_out", [ai, 10, 2, Out(0)],
         torch.rsub(ai, 10, alpha=2))
    case("rsub/int_double_promotes", "rsub.Scalar_out",
         [ai, 0.5, 1, Out(0)], torch.rsub(ai, 0.5))

    e = randn(3, 4)
    case("pow_scalar/float", "pow.Scalar_out", [2.0, e, Out(0)],
         torch.pow(2.0, e))
    case("pow_scalar/int_base_float_exp", "pow.Scalar_out", [3, e, Out(0)],
         torch.pow(3, e))
    ei = randint(0, 6, 5)
    case("pow_scalar/int", "pow.Scalar_out", [3, ei, Out(0)], torch.pow(3, ei))
    case("pow_scalar/double_base_int_exp", "pow.Scalar_out",
         [1.5, ei, Out(0)], torch.pow(1.5, ei))

    for mode in ["trunc", "floor", None]:
        case(f"div_scalar_mode/{mode}", "div.Scalar_mode_out",
             [a, 1.5, mode, Out(0)], torch.div(a, 1.5, rounding_mode=mode))
        case(f"div_scalar_mode/int_{mode}", "div.Scalar_mode_out",
             [ai, 3, mode, Out(0)], torch.div(ai, 3, rounding_mode=mode))
    error("div_scalar_mode/bad_mode", "div.Scalar_mode_out",
          [a, 1.5, "round", OutSpec(torch.float32, [3, 4])])

    x = randn(3, 4)
    lo, hi = randn(4) - 1, randn(3, 1) + 1
    case("clamp_tensor/both", "clamp.Tensor_out", [x, lo, hi, Out(0)],
         torch.clamp(x, lo, hi))
    case("clamp_tensor/min_only", "clamp.Tensor_out", [x, lo, None, Out(0)],
         torch.clamp(x, min=lo))
    case("clamp_tensor/max_only", "clamp.Tensor_out", [x, None, hi, Out(0)],
         torch.clamp(x, max=hi))
    xi8 = randint(-100, 100, 6, dtype=torch.int8)
    li = torch.tensor([-5], dtype=torch.int32)
    case("clamp_tensor/int_promote", "clamp.Tensor_out",
         [xi8, li, torch.tensor(50, dtype=torch.int64), Out(0)],
         torch.clamp(xi8, li, torch.tensor(50)))
    case("clamp_tensor/int_float_bound", "clamp.Tensor_out",
         [xi8, torch.tensor([-2.5]), None, Out(0)],
         torch.clamp(xi8, torch.tensor([-2.5])))
    xn = torch.tensor([float("nan"), 1.0, -3.0, 5.0])
    case("clamp_tensor/nan", "clamp.Tensor_out",
         [xn, torch.tensor([0.0]), torch.tensor([2.0]), Out(0)],
         torch.clamp(xn, torch.tensor([0.0]), torch.tensor([2.0])))
    error("clamp_tensor/none", "clamp.Tensor_out",
          [x, None, None, OutSpec(torch.float32, [3, 4])])


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


def main():
    unary_floating()
    sign_classify()
    activations()
    bitwise()
    binary_misc()
    reductions()
    norms()
    copies_fills()
    for extra in EXTRA:
        extra()
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    OUT_PATH.write_text(json.dumps(
        {"generator": "make_reference.py", "torch": torch.__version__,
         "cases": cases}, indent=None, separators=(",", ":"),
        allow_nan=False) + "\n")
    print(f"wrote {len(cases)} cases to {OUT_PATH}")


EXTRA = []

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


EXTRA.append(shape_ops)

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


EXTRA.append(index_copy_distance_ops)

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


EXTRA.append(quantized_token_embedding)

if __name__ == "__main__":
    main()
