"""Cases of the pooling backward, anti-aliased resampling and grid sampler kernels
(make_reference.py).
"""

import torch

from reference_cases import (
    CHANNELS_LAST, Out, OutSpec, Layout, case, error, randn, randint)


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


def grid_sampler_2d():
    """aten::grid_sampler_2d.out called as a program calls it (its out and
    the return slot; grid_sampler_test.cc has every mode combination):
    bilinear / nearest / bicubic with zeros / border / reflection padding,
    both align_corners, a grid reaching outside [-1, 1]."""
    x = randn(2, 3, 5, 6)
    grid = torch.rand(2, 4, 7, 2, dtype=torch.float64).float() * 2.6 - 1.3
    for mode, mode_name in enumerate(("bilinear", "nearest", "bicubic")):
        for padding, padding_name in enumerate(("zeros", "border", "reflection")):
            align = mode == padding  # both values over the nine pairs
            y = torch.ops.aten.grid_sampler_2d(x, grid, mode, padding, align)
            case(f"grid_sampler_2d/{mode_name}_{padding_name}_{int(align)}", "grid_sampler_2d.out",
                 [x, grid, mode, padding, align, Out(0)], y, rtol=1e-4, atol=1e-5)
