"""Reference cases of aten::convolution_backward.out (the input, weight and
bias gradients torch computes) and of 3-D aten::convolution.out
(make_reference.py)."""

import torch

from reference_cases import CHANNELS_LAST, BoolList, Out, OutSpec, Layout, case, error, randn


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


def convolution_3d():
    """aten::convolution.out on rank-5 (N, C, D, H, W) tensors, regular and
    transposed: strides, padding, dilation, output padding, groups, with and
    without bias, a channels-last-3d input and out, float64; the 3-D
    gradient is refused."""
    op = "convolution.out"
    configs = [  # name: transposed, input, weight, stride, padding, dilation, out padding, groups
        ("regular", False, (2, 2, 4, 6, 5), (4, 2, 2, 3, 3), [1, 2, 1], [0, 1, 1], [1, 1, 1],
         [0, 0, 0], 1),
        ("dilated_grouped", False, (1, 4, 7, 6, 6), (6, 2, 3, 2, 3), [2, 1, 2], [2, 0, 1],
         [2, 1, 1], [0, 0, 0], 2),
        ("depthwise_one_entry_lists", False, (1, 3, 5, 5, 5), (3, 1, 3, 3, 3), [2], [1], [1],
         [0], 3),
        ("transposed", True, (1, 4, 3, 4, 2), (4, 2, 2, 2, 2), [2, 2, 2], [0, 0, 0], [1, 1, 1],
         [0, 0, 0], 1),
        ("transposed_padded_grouped", True, (2, 4, 3, 3, 4), (4, 3, 3, 2, 3), [2, 1, 3],
         [1, 0, 1], [1, 2, 1], [1, 0, 2], 2),
    ]
    for name, transposed, xs, ws, s, p, d, op_, g in configs:
        x, w = randn(*xs), randn(*ws)
        cout = ws[1] * g if transposed else ws[0]
        for bias in (randn(cout), None):
            y = torch.ops.aten.convolution(x, w, bias, s, p, d, transposed, op_, g)
            tag = "bias" if bias is not None else "no_bias"
            case(f"convolution_3d/{name}/{tag}", op,
                 [x, w, bias, s, p, d, transposed, op_, g, Out(0)], y, rtol=1e-4, atol=1e-5)
    cl3d = [0, 2, 3, 4, 1]
    x, w, b = randn(1, 3, 4, 5, 6), randn(2, 3, 3, 2, 3), randn(2)
    y = torch.ops.aten.convolution(x, w, b, [1, 2, 1], [1, 0, 1], [1, 1, 1], False, [0, 0, 0], 1)
    case("convolution_3d/channels_last", op,
         [Layout(x, cl3d), w, b, [1, 2, 1], [1, 0, 1], [1, 1, 1], False, [0, 0, 0], 1, Out(0)],
         y, rtol=1e-4, atol=1e-5, out_dim_orders=[cl3d])
    xd, wtd = x.double(), w.transpose(0, 1).contiguous().double()  # (C_in, C_out, k...)
    y = torch.ops.aten.convolution(xd, wtd, None, [1], [1], [1], True, [0], 1)
    case("convolution_3d/transposed_float64", op,
         [xd, wtd, None, [1], [1], [1], True, [0], 1, Out(0)], y)
    dy = randn(1, 2, 4, 3, 6)
    error("convolution_backward/3d", "convolution_backward.out",
          [dy, x, w, [2], [1, 2, 1], [1, 0, 1], [1, 1, 1], False, [0, 0, 0], 1,
           BoolList([True, True, True]), OutSpec(torch.float32, [1, 3, 4, 5, 6]),
           OutSpec(torch.float32, [2, 3, 3, 2, 3]), OutSpec(torch.float32, [2])])
    error("convolution_3d/rank_mismatch", op,
          [x, randn(2, 3, 3, 3), None, [1], [0], [1], False, [0], 1, OutSpec(torch.float32, [1])])
