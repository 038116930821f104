"""Cases of allclose, out and functional (make_reference.py).
"""

import torch

from reference_cases import (
    Out, OutSpec, case, functional, error, randn)


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
