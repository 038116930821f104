// Float32 Multiply and Add on our kernels (float_binary_nodes.h): which
// shapes are a per-channel scale or a same-shape add, and products and sums
// against ones computed here element by element with numpy broadcasting
// (the same bits: one rounding each), for the fast paths (either operand
// order, a scale per batch image, threads splitting the work, the output
// range) and the general broadcasting the kernels fall back to.

#include "runtime/backends/xnnpack/float_binary_nodes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "runtime/backends/xnnpack/node_kernels.h"
#include "runtime/kernels/optimized/thread_pool.h"

namespace edgefleet {
namespace xnnpack {
namespace {

struct BinaryGraph {
  BinaryGraph(const Dims& a, const Dims& b, const Dims& y, NodeType type = NodeType::kMultiply) {
    g.values.resize(3);
    const Dims shapes[3] = {a, b, y};
    for (uint32_t id = 0; id < 3; ++id) {
      g.values[id].id = id;
      g.values[id].type = DataType::kFp32;
      g.values[id].dims = shapes[id];
    }
    node.type = type;
    node.inputs = {0, 1};
    node.outputs = {2};
    g.nodes = {node};
  }
  Graph g;
  Node node;
};

size_t Numel(const Dims& d) {
  size_t n = 1;
  for (size_t v : d) n *= v;
  return n;
}

// The element of x (shape d, right-aligned against y's rank) that y's
// index `k` reads under broadcasting.
float At(const std::vector<float>& x, const Dims& d, const Dims& y, size_t k) {
  size_t offset = 0, stride = 1;
  for (size_t i = y.size(); i-- > 0;) {
    const size_t yi = k % y[i];
    k /= y[i];
    if (i + d.size() < y.size()) continue;
    const size_t di = d[i + d.size() - y.size()];
    offset += (di == 1 ? 0 : yi) * stride;
    stride *= di;
  }
  return x[offset];
}

void CheckBinary(NodeType type, const Dims& ad, const Dims& bd, const Dims& yd, float lo, float hi,
                 int threads) {
  SCOPED_TRACE(::testing::Message() << "a rank " << ad.size() << " b rank " << bd.size()
                                    << " numel " << Numel(yd) << " threads " << threads);
  BinaryGraph m(ad, bd, yd, type);
  m.node.output_min = lo;
  m.node.output_max = hi;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> a(Numel(ad)), b(Numel(bd)), y(Numel(yd), std::nanf(""));
  for (float& v : a) v = dist(rng);
  for (float& v : b) v = dist(rng);
  const std::vector<Dims> dims = {ad, bd, yd};
  const void* in[2] = {a.data(), b.data()};
  void* out[1] = {y.data()};
  KernelContext ctx(nullptr, threads);
  ASSERT_TRUE(OwnKernelSupports(m.g, m.node));
  ASSERT_EQ(RunOwnNode(ctx, m.g, m.node, dims, in, out), Error::kOk);
  for (size_t k = 0; k < y.size(); ++k) {
    const float u = At(a, ad, yd, k), v = At(b, bd, yd, k);
    const float want = std::min(std::max(type == NodeType::kAdd ? u + v : u * v, lo), hi);
    ASSERT_EQ(y[k], want) << "at " << k;
  }
}

TEST(ChannelScale, ShapesThatScaleChannels) {
  const auto scales = [](const Dims& a, const Dims& b, const Dims& y) {
    BinaryGraph m(a, b, y);
    return IsChannelScale(m.g, m.node);
  };
  EXPECT_TRUE(scales({1, 4, 4, 8}, {1, 1, 1, 8}, {1, 4, 4, 8}));
  EXPECT_TRUE(scales({1, 1, 1, 8}, {1, 4, 4, 8}, {1, 4, 4, 8}));   // either order
  EXPECT_TRUE(scales({2, 4, 4, 8}, {2, 1, 1, 8}, {2, 4, 4, 8}));   // a scale per image
  EXPECT_TRUE(scales({2, 4, 4, 8}, {8}, {2, 4, 4, 8}));            // rank-reduced
  EXPECT_FALSE(scales({1, 4, 4, 8}, {1, 4, 1, 8}, {1, 4, 4, 8}));  // per row
  EXPECT_FALSE(scales({1, 4, 4, 8}, {1, 1, 1, 1}, {1, 4, 4, 8}));  // a scalar
  EXPECT_FALSE(scales({1, 4, 4, 8}, {1, 4, 4, 8}, {1, 4, 4, 8}));  // elementwise
  BinaryGraph quantized({1, 4, 4, 8}, {1, 1, 1, 8}, {1, 4, 4, 8});
  for (Value& v : quantized.g.values) v.type = DataType::kQint8;
  EXPECT_FALSE(IsChannelScale(quantized.g, quantized.node));
  EXPECT_FALSE(OwnKernelSupports(quantized.g, quantized.node));
}

TEST(ChannelScale, MultipliesAsBroadcastElementByElement) {
  ASSERT_EQ(optimized::StartKernelThreadPool(3), Error::kOk);
  for (int threads : {1, 3}) {
    CheckBinary(NodeType::kMultiply, {1, 5, 7, 37}, {1, 1, 1, 37}, {1, 5, 7, 37}, -INFINITY,
                INFINITY, threads);
    CheckBinary(NodeType::kMultiply, {1, 1, 1, 37}, {1, 5, 7, 37}, {1, 5, 7, 37}, -INFINITY,
                INFINITY, threads);
    CheckBinary(NodeType::kMultiply, {2, 3, 3, 16}, {2, 1, 1, 16}, {2, 3, 3, 16}, -INFINITY,
                INFINITY, threads);
    // Split over threads, clamped.
    CheckBinary(NodeType::kMultiply, {1, 40, 40, 48}, {48}, {1, 40, 40, 48}, -0.5f, 0.75f, threads);
    // Not a channel scale: general broadcasting.
    CheckBinary(NodeType::kMultiply, {2, 1, 3}, {4, 1}, {2, 4, 3}, -INFINITY, INFINITY, threads);
    CheckBinary(NodeType::kMultiply, {3, 5}, {3, 5}, {3, 5}, -1.0f, 1.0f, threads);
  }
}

TEST(SameShapeAdd, ShapesThatAreSameShapeAdds) {
  BinaryGraph same({1, 7, 7, 24}, {1, 7, 7, 24}, {1, 7, 7, 24}, NodeType::kAdd);
  EXPECT_TRUE(IsSameShapeAdd(same.g, same.node));
  EXPECT_TRUE(OwnKernelPreferred(same.g, same.node, /*optimized=*/true));
  EXPECT_FALSE(OwnKernelPreferred(same.g, same.node, /*optimized=*/false));
  BinaryGraph broadcast({1, 7, 7, 24}, {24}, {1, 7, 7, 24}, NodeType::kAdd);
  EXPECT_FALSE(IsSameShapeAdd(broadcast.g, broadcast.node));
  EXPECT_FALSE(OwnKernelPreferred(broadcast.g, broadcast.node, /*optimized=*/true));
  BinaryGraph multiply({3, 5}, {3, 5}, {3, 5});
  EXPECT_FALSE(IsSameShapeAdd(multiply.g, multiply.node));
  BinaryGraph quantized({3, 5}, {3, 5}, {3, 5}, NodeType::kAdd);
  for (Value& v : quantized.g.values) v.type = DataType::kQint8;
  EXPECT_FALSE(IsSameShapeAdd(quantized.g, quantized.node));
}

TEST(SameShapeAdd, AddsAsBroadcastElementByElement) {
  ASSERT_EQ(optimized::StartKernelThreadPool(3), Error::kOk);
  for (int threads : {1, 3}) {
    CheckBinary(NodeType::kAdd, {1, 5, 7, 37}, {1, 5, 7, 37}, {1, 5, 7, 37}, -INFINITY, INFINITY,
                threads);
    // Split over threads (ragged ranges), clamped.
    CheckBinary(NodeType::kAdd, {1, 57, 41, 31}, {1, 57, 41, 31}, {1, 57, 41, 31}, -0.5f, 0.75f,
                threads);
    // Shapes that changed at run time: general broadcasting.
    CheckBinary(NodeType::kAdd, {2, 1, 3}, {4, 1}, {2, 4, 3}, -INFINITY, INFINITY, threads);
  }
}

}  // namespace
}  // namespace xnnpack
}  // namespace edgefleet
