"""Cases of the 3-D pooling kernels, aten::avg_pool3d.out and
aten::max_pool3d_with_indices.out (make_reference.py): windows, strides,
padding, dilation, ceil_mode, count_include_pad, divisor_override, rank-4
inputs, a channels-last-3d layout, float64, int32 (max), NaN, and invalid arguments; one
case is the avg_pool3d that torch.export makes of nn.LocalResponseNorm.
"""

import torch

from reference_cases import Layout, Out, OutSpec, case, error, randint, randn

CHANNELS_LAST_3D = [0, 2, 3, 4, 1]


def avg_pool_3d():
    op = "avg_pool3d.out"
    configs = [  # name: input shape, kernel, stride, padding, ceil, count_include_pad, divisor
        ("local_response_norm", (1, 1, 12, 6, 5), [5, 1, 1], [1, 1, 1], [0, 0, 0], False, True,
         None),
        ("strided_padded_ceil", (2, 3, 5, 7, 6), [3, 2, 3], [2, 2, 2], [1, 1, 1], True, True,
         None),
        ("exclude_pad", (1, 2, 6, 5, 7), [3, 3, 2], [2, 1, 2], [1, 1, 1], True, False, None),
        ("divisor_override", (1, 2, 4, 5, 6), [2, 3, 2], [1, 2, 2], [1, 1, 0], False, True, 5),
        ("rank4_one_entry_lists", (3, 4, 5, 6), [2], [], [0], False, True, None),
    ]
    for name, shape, k, s, p, ceil, include_pad, divisor in configs:
        x = randn(*shape)
        y = torch.ops.aten.avg_pool3d(x, k, s, p, ceil, include_pad, divisor)
        case(f"avg_pool3d/{name}", op, [x, k, s, p, ceil, include_pad, divisor, Out(0)], y)
    x = randn(2, 3, 4, 5, 6)
    args = [[2, 3, 2], [2, 1, 2], [1, 1, 0], True, False, None]
    case("avg_pool3d/channels_last", op, [Layout(x, CHANNELS_LAST_3D)] + args + [Out(0)],
         torch.ops.aten.avg_pool3d(x, *args), out_dim_orders=[CHANNELS_LAST_3D])
    xd = x.double()
    case("avg_pool3d/float64", op, [xd] + args + [Out(0)], torch.ops.aten.avg_pool3d(xd, *args),
         rtol=1e-12, atol=1e-14)
    out = OutSpec(torch.float32, [2, 3, 2, 5, 3])
    error("avg_pool3d/rank3", op, [x[0, 0], [2, 2, 2], [], [0], False, True, None, out])
    error("avg_pool3d/padding_over_half_kernel", op,
          [x, [2, 2, 2], [], [2, 0, 0], False, True, None, out])
    error("avg_pool3d/zero_divisor", op, [x, [2, 2, 2], [], [0], False, True, 0, out])
    error("avg_pool3d/two_entry_kernel", op, [x, [2, 2], [], [0], False, True, None, out])
    error("avg_pool3d/int_input", op,
          [randint(0, 5, 1, 1, 2, 2, 2), [2], [], [0], False, True, None,
           OutSpec(torch.int64, [1, 1, 1, 1, 1])])


def max_pool_3d():
    op = "max_pool3d_with_indices.out"
    configs = [  # name: input shape, kernel, stride, padding, dilation, ceil
        ("overlapping", (2, 3, 5, 6, 7), [3, 3, 3], [1, 1, 1], [0, 0, 0], [1, 1, 1], False),
        ("strided_padded_ceil", (1, 2, 7, 6, 8), [3, 2, 3], [2, 2, 2], [1, 1, 1], [1, 1, 1],
         True),
        ("dilated", (1, 2, 7, 8, 9), [2, 3, 2], [1, 2, 2], [1, 0, 1], [2, 1, 3], True),
        ("rank4_one_entry_lists", (3, 5, 5, 6), [2], [], [0], [1], False),
    ]
    for name, shape, k, s, p, d, ceil in configs:
        # Few distinct values, so windows share their maximum (first one wins).
        x = randint(-3, 3, *shape).float()
        y, idx = torch.ops.aten.max_pool3d_with_indices(x, k, s, p, d, ceil)
        case(f"max_pool3d/{name}", op, [x, k, s, p, d, ceil, Out(0), Out(1)], [y, idx])
    x = randn(2, 3, 4, 5, 6)
    args = [[2, 3, 2], [2, 1, 2], [1, 1, 0], [1, 1, 1], True]
    y, idx = torch.ops.aten.max_pool3d_with_indices(x, *args)
    case("max_pool3d/channels_last", op, [Layout(x, CHANNELS_LAST_3D)] + args + [Out(0), Out(1)],
         [y, idx], out_dim_orders=[CHANNELS_LAST_3D, CHANNELS_LAST_3D])
    xd = x.double()
    xd[0, 1, 2, 3, 4] = float("nan")
    y, idx = torch.ops.aten.max_pool3d_with_indices(xd, *args)
    case("max_pool3d/float64_nan", op, [xd] + args + [Out(0), Out(1)], [y, idx])
    xi = randint(-50, 50, 1, 2, 5, 4, 6, dtype=torch.int32)
    y, idx = torch.ops.aten.max_pool3d_with_indices(xi, [2, 2, 3], [1, 2, 2], [1, 0, 1])
    case("max_pool3d/int32", op, [xi, [2, 2, 3], [1, 2, 2], [1, 0, 1], [1], False, Out(0), Out(1)],
         [y, idx])
    out = [OutSpec(torch.float32, [2, 3, 3, 5, 4]), OutSpec(torch.int64, [2, 3, 3, 5, 4])]
    error("max_pool3d/int32_indices", op,
          [x] + args + [out[0], OutSpec(torch.int32, [2, 3, 3, 5, 4])])
    error("max_pool3d/zero_dilation", op, [x, [2], [], [0], [0], False] + out)
    error("max_pool3d/window_larger_than_input", op, [x, [5], [1], [0], [1], False] + out)
    error("max_pool3d/rank3", op, [x[0, 0], [2], [], [0], [1], False] + out)
