"""Cases of the element-wise kernels: unary math, sign and classification,
activations, bitwise and other binary operators (make_reference.py).
"""

import torch

from reference_cases import (
    CHANNELS_LAST, Out, OutSpec, Layout, dtype_name, case, error, randn, randint)


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
