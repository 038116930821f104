#include "runtime/backends/xnnpack/node_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace edgefleet {
namespace xnnpack {
namespace {

// A graph of one GlobalAvgPooling2d node: value 0 (qint8 NHWC input) -> value 1.
struct PoolingGraph {
  explicit PoolingGraph(std::vector<size_t> in_dims) {
    Value in;
    in.id = 0;
    in.type = DataType::kQint8;
    in.quant = QuantKind::kPerTensor;
    in.scale = 0.5f;
    in.zero_point = -3;
    in.dims = in_dims;
    Value out = in;
    out.id = 1;
    out.scale = 0.25f;
    out.zero_point = 1;
    out.dims = {in_dims[0], 1, 1, in_dims[3]};
    graph.values = {in, out};
    node.type = NodeType::kGlobalAvgPooling2d;
    node.inputs = {0};
    node.outputs = {1};
    dims = {in.dims, out.dims};
  }

  std::vector<int8_t> Run(const std::vector<int8_t>& x) {
    std::vector<int8_t> y(dims[1][0] * dims[1][3], 0);
    const void* in[1] = {x.data()};
    void* out[1] = {y.data()};
    KernelContext ctx(nullptr, /*num_threads=*/1);
    EXPECT_EQ(RunOwnNode(ctx, graph, node, dims, in, out), Error::kOk);
    return y;
  }

  Graph graph;
  Node node;
  std::vector<std::vector<size_t>> dims;
};

// Hand-computed: scale 0.5 / (0.25 * 4 pixels) = 0.5; each output is
// (sum - 4 * -3) * 0.5 + 1 rounded half to even. Channel 0: (3 + 12) * 0.5
// + 1 = 8.5 -> 8; channel 1: 7; channel 2: (-37 + 12) * 0.5 + 1 = -11.5 ->
// -12. Rounding before adding the zero point (the 2022 XNNPACK) would give
// 9, 7, -11.
TEST(OwnNodeKernels, Int8GlobalAveragePoolingRoundsAfterTheZeroPoint) {
  PoolingGraph p({1, 2, 2, 3});
  EXPECT_TRUE(OwnKernelSupports(p.graph, p.node));
  EXPECT_TRUE(OwnKernelPreferred(p.graph, p.node, /*optimized=*/false));
  const std::vector<int8_t> x = {1, 0, -10, 2, 0, -10, 0, 0, -10, 0, 0, -7};
  EXPECT_EQ(p.Run(x), (std::vector<int8_t>{8, 7, -12}));
}

// The node's output range and int8's saturate: output_max 1.0 is
// 1.0 / 0.25 + 1 = 5 in the output's steps; the second image's
// (400 + 12) * 0.5 + 1 = 207 saturates to 127 without a range.
TEST(OwnNodeKernels, Int8GlobalAveragePoolingClampsPerImage) {
  PoolingGraph p({2, 1, 4, 1});
  const std::vector<int8_t> x = {1, 2, 0, 0, 100, 100, 100, 100};
  EXPECT_EQ(p.Run(x), (std::vector<int8_t>{8, 127}));
  p.node.output_max = 1.0f;
  EXPECT_EQ(p.Run(x), (std::vector<int8_t>{5, 5}));
}

// XNNStaticTranspose on our kernel: y's dim i is x's dim perm[i], checked by
// index arithmetic for every permutation of ranks 1 to 4 (and the NCHW ->
// NHWC and NHWC -> NCHW of an image above the copy's split grain), for 1-
// and 4-byte elements, at 1 and 3 threads.
template <typename T>
void CheckTranspose(DataType type, const std::vector<size_t>& x_dims, std::vector<size_t> perm,
                    int threads) {
  const size_t rank = x_dims.size();
  Value x;
  x.id = 0;
  x.type = type;
  x.dims = x_dims;
  Value y = x;
  y.id = 1;
  for (size_t i = 0; i < rank; ++i) y.dims[i] = x_dims[perm[i]];
  Graph graph;
  graph.values = {x, y};
  Node node;
  node.type = NodeType::kStaticTranspose;
  node.inputs = {0};
  node.outputs = {1};
  node.list_a = perm;
  ASSERT_TRUE(OwnKernelSupports(graph, node));
  const std::vector<std::vector<size_t>> dims = {x.dims, y.dims};
  const size_t n = x.numel();
  std::vector<T> xs(n), ys(n, T{0});
  for (size_t i = 0; i < n; ++i) xs[i] = static_cast<T>(i * 7 + 3);
  const void* in[1] = {xs.data()};
  void* out[1] = {ys.data()};
  KernelContext ctx(nullptr, threads);
  ASSERT_EQ(RunOwnNode(ctx, graph, node, dims, in, out), Error::kOk);
  size_t x_stride[kMaxDims], index[kMaxDims] = {};  // index: over y, row-major
  for (size_t i = rank, stride = 1; i-- > 0;) {
    x_stride[i] = stride;
    stride *= x_dims[i];
  }
  for (size_t o = 0; o < n; ++o) {
    size_t src = 0;
    for (size_t i = 0; i < rank; ++i) src += index[i] * x_stride[perm[i]];
    ASSERT_EQ(ys[o], xs[src]) << "output element " << o << " of rank " << rank;
    for (size_t i = rank; i-- > 0;) {
      if (++index[i] < y.dims[i]) break;
      index[i] = 0;
    }
  }
}

TEST(OwnNodeKernels, StaticTransposeMatchesIndexArithmetic) {
  const std::vector<size_t> shape = {3, 1, 5, 7};
  for (size_t rank = 1; rank <= shape.size(); ++rank) {
    std::vector<size_t> x_dims;
    for (size_t i = 0; i < rank; ++i) x_dims.push_back(shape[i]);
    std::vector<size_t> perm(rank);
    for (size_t i = 0; i < rank; ++i) perm[i] = i;
    do {
      for (int threads : {1, 3}) {
        CheckTranspose<float>(DataType::kFp32, x_dims, perm, threads);
        CheckTranspose<int8_t>(DataType::kQint8, x_dims, perm, threads);
      }
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
  for (int threads : {1, 3}) {
    CheckTranspose<float>(DataType::kFp32, {1, 3, 224, 224}, {0, 2, 3, 1}, threads);
    CheckTranspose<float>(DataType::kFp32, {2, 56, 56, 24}, {0, 3, 1, 2}, threads);
  }
}

// XNNConcatenate2/3 and XNNStaticReshape on our kernels: each output element
// checked against the input it comes from, for 4-byte and 1-byte elements,
// at 1 and 3 threads, with enough rows (4096 of 256 bytes) to split.
template <typename T>
void CheckConcatenate(DataType type, size_t axis, const std::vector<std::vector<size_t>>& ins,
                      int threads) {
  Graph graph;
  Node node;
  node.type = ins.size() == 2 ? NodeType::kConcatenate2 : NodeType::kConcatenate3;
  node.axis = static_cast<uint32_t>(axis);
  std::vector<std::vector<size_t>> dims;
  std::vector<std::vector<T>> data;
  std::vector<size_t> out_dims = ins[0];
  out_dims[axis] = 0;
  for (size_t i = 0; i < ins.size(); ++i) {
    Value v;
    v.id = static_cast<uint32_t>(i);
    v.type = type;
    v.dims = ins[i];
    graph.values.push_back(v);
    node.inputs.push_back(v.id);
    dims.push_back(ins[i]);
    out_dims[axis] += ins[i][axis];
    data.emplace_back(v.numel());
    for (size_t k = 0; k < data.back().size(); ++k) {
      data.back()[k] = static_cast<T>(k * 3 + i * 101 + 1);
    }
  }
  Value y;
  y.id = static_cast<uint32_t>(ins.size());
  y.type = type;
  y.dims = out_dims;
  graph.values.push_back(y);
  node.outputs = {y.id};
  dims.push_back(out_dims);
  ASSERT_TRUE(OwnKernelSupports(graph, node));
  std::vector<T> ys(y.numel(), T{0});
  const void* in[3] = {};
  for (size_t i = 0; i < ins.size(); ++i) in[i] = data[i].data();
  void* out[1] = {ys.data()};
  KernelContext ctx(nullptr, threads);
  ASSERT_EQ(RunOwnNode(ctx, graph, node, dims, in, out), Error::kOk);
  size_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= out_dims[d];
  for (size_t d = axis + 1; d < out_dims.size(); ++d) inner *= out_dims[d];
  for (size_t o = 0; o < outer; ++o) {
    size_t at = 0;
    for (size_t i = 0; i < ins.size(); ++i) {
      const size_t len = ins[i][axis] * inner;
      for (size_t k = 0; k < len; ++k) {
        ASSERT_EQ(ys[(o * out_dims[axis] * inner) + at + k], data[i][o * len + k])
            << "row " << o << " input " << i << " element " << k << " threads " << threads;
      }
      at += len;
    }
  }
}

TEST(OwnNodeKernels, ConcatenateAndReshapeCopyTheirInputs) {
  for (int threads : {1, 3}) {
    CheckConcatenate<float>(DataType::kFp32, 3, {{1, 64, 64, 24}, {1, 64, 64, 40}}, threads);
    CheckConcatenate<float>(DataType::kFp32, 1, {{2, 3, 5}, {2, 1, 5}, {2, 4, 5}}, threads);
    CheckConcatenate<int8_t>(DataType::kQint8, 2, {{1, 64, 64, 8}, {1, 64, 3, 8}}, threads);
  }
  // Reshape: the same elements in the same order.
  Value x;
  x.id = 0;
  x.type = DataType::kFp32;
  x.dims = {2, 3, 4};
  Value y = x;
  y.id = 1;
  y.dims = {6, 4};
  Graph graph;
  graph.values = {x, y};
  Node node;
  node.type = NodeType::kStaticReshape;
  node.inputs = {0};
  node.outputs = {1};
  ASSERT_TRUE(OwnKernelSupports(graph, node));
  std::vector<float> xs(24), ys(24, 0.0f);
  for (int i = 0; i < 24; ++i) xs[i] = static_cast<float>(i * i);
  const void* in[1] = {xs.data()};
  void* out[1] = {ys.data()};
  KernelContext ctx(nullptr, 1);
  ASSERT_EQ(RunOwnNode(ctx, graph, node, {x.dims, y.dims}, in, out), Error::kOk);
  EXPECT_EQ(ys, xs);
}

// XNNPReLU on our kernel (the system XNNPACK takes only one static slope per
// channel): y = x for x >= 0, slope * x otherwise, the slope broadcast as
// NumPy does. Hand-computed for one slope, a per-channel slope [C] and a
// slope [W, 1] (one per column) over NHWC [1, 2, 2, 2], and with the node's output range.
TEST(OwnNodeKernels, PReluBroadcastsItsSlope) {
  const std::vector<float> x = {1, -2, -4, 3, -1, -1, 0.5f, -8};
  auto run = [&](std::vector<size_t> slope_dims, std::vector<float> slope, float lo, float hi) {
    Value xv;
    xv.id = 0;
    xv.type = DataType::kFp32;
    xv.dims = {1, 2, 2, 2};
    Value sv = xv;
    sv.id = 1;
    sv.dims = slope_dims;
    sv.data = slope.data();
    Value yv = xv;
    yv.id = 2;
    Graph graph;
    graph.values = {xv, sv, yv};
    Node node;
    node.type = NodeType::kPReLU;
    node.inputs = {0, 1};
    node.outputs = {2};
    node.output_min = lo;
    node.output_max = hi;
    EXPECT_TRUE(OwnKernelSupports(graph, node));
    std::vector<float> y(8, 0.0f);
    const void* in[2] = {x.data(), slope.data()};
    void* out[1] = {y.data()};
    KernelContext ctx(nullptr, 1);
    EXPECT_EQ(RunOwnNode(ctx, graph, node, {xv.dims, sv.dims, yv.dims}, in, out), Error::kOk);
    return y;
  };
  const float inf = __builtin_inff();
  EXPECT_EQ(run({1}, {0.25f}, -inf, inf),
            (std::vector<float>{1, -0.5f, -1, 3, -0.25f, -0.25f, 0.5f, -2}));
  EXPECT_EQ(run({2}, {0.5f, 2.0f}, -inf, inf),
            (std::vector<float>{1, -4, -2, 3, -0.5f, -2, 0.5f, -16}));
  EXPECT_EQ(run({2, 1}, {0.5f, 2.0f}, -inf, inf),
            (std::vector<float>{1, -1, -8, 3, -0.5f, -0.5f, 0.5f, -16}));
  EXPECT_EQ(run({2}, {0.5f, 2.0f}, -3.0f, 2.0f),
            (std::vector<float>{1, -3, -2, 2, -0.5f, -2, 0.5f, -3}));
}

}  // namespace
}  // namespace xnnpack
}  // namespace edgefleet
