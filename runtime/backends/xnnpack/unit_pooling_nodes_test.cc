// Average and max pooling with a 1 x 1 window on our kernel
// (unit_pooling_nodes.h), through the delegate's node entry points: a
// strided subsampling of NHWC, checked element by element against the
// input at the window's one position (hand-computed indices), with and
// without an output range; the nodes it does not take.

#include "runtime/backends/xnnpack/unit_pooling_nodes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "runtime/backends/xnnpack/node_kernels.h"

namespace edgefleet {
namespace xnnpack {
namespace {

struct PoolGraph {
  Graph g;
  Node n;
};

PoolGraph MakePool(NodeType type, const Dims& in, uint32_t stride_h, uint32_t stride_w) {
  PoolGraph p;
  p.g.values.resize(2);
  for (uint32_t id : {0u, 1u}) {
    p.g.values[id].id = id;
    p.g.values[id].type = DataType::kFp32;
  }
  p.g.values[0].dims = in;
  p.g.values[1].dims = {in[0], (in[1] - 1) / stride_h + 1, (in[2] - 1) / stride_w + 1, in[3]};
  p.n.type = type;
  p.n.inputs = {0};
  p.n.outputs = {1};
  p.n.window.stride_h = stride_h;
  p.n.window.stride_w = stride_w;
  return p;
}

void CheckSubsampling(NodeType type, const Dims& in, uint32_t sh, uint32_t sw, float lo, float hi) {
  SCOPED_TRACE(::testing::Message() << NodeTypeName(type) << " " << in[0] << "x" << in[1] << "x"
                                    << in[2] << "x" << in[3] << " stride " << sh << "x" << sw);
  PoolGraph p = MakePool(type, in, sh, sw);
  p.n.output_min = lo;
  p.n.output_max = hi;
  ASSERT_TRUE(OwnKernelSupports(p.g, p.n));
  const Dims& out = p.g.values[1].dims;
  std::vector<float> x(in[0] * in[1] * in[2] * in[3]);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  for (float& v : x) v = dist(rng);
  x[0] = std::nanf("");
  std::vector<float> y(out[0] * out[1] * out[2] * out[3], -99.0f);
  const std::vector<Dims> dims = {in, out};
  const void* ins[1] = {x.data()};
  void* outs[1] = {y.data()};
  KernelContext ctx(nullptr, 1);
  ASSERT_EQ(RunOwnNode(ctx, p.g, p.n, dims, ins, outs), Error::kOk);
  for (size_t b = 0; b < out[0]; ++b) {
    for (size_t oh = 0; oh < out[1]; ++oh) {
      for (size_t ow = 0; ow < out[2]; ++ow) {
        for (size_t c = 0; c < out[3]; ++c) {
          const float v = x[((b * in[1] + oh * sh) * in[2] + ow * sw) * in[3] + c];
          const float got = y[((b * out[1] + oh) * out[2] + ow) * out[3] + c];
          if (std::isnan(v)) {
            EXPECT_TRUE(std::isnan(got));
          } else {
            EXPECT_EQ(got, v < lo ? lo : (v > hi ? hi : v))
                << b << " " << oh << " " << ow << " " << c;
          }
        }
      }
    }
  }
}

TEST(UnitPooling, SubsamplesAtTheStrides) {
  for (NodeType type : {NodeType::kAvgPooling2d, NodeType::kMaxPooling2d}) {
    CheckSubsampling(type, {2, 11, 10, 5}, 2, 2, -INFINITY, INFINITY);  // avg_pool2d(x, 1, 2)
    CheckSubsampling(type, {1, 7, 9, 3}, 3, 1, -INFINITY, INFINITY);
    CheckSubsampling(type, {3, 4, 4, 17}, 1, 1, -INFINITY, INFINITY);  // the identity
    CheckSubsampling(type, {2, 6, 5, 4}, 2, 3, -0.5f, 0.75f);          // a folded clamp
  }
}

TEST(UnitPooling, TakesOnlyFloatOneElementWindowsWithoutPadding) {
  PoolGraph p = MakePool(NodeType::kAvgPooling2d, {1, 6, 6, 2}, 2, 2);
  EXPECT_TRUE(UnitPoolingSupports(p.g, p.n));
  p.n.window.kernel_w = 2;  // XNNPACK's
  EXPECT_FALSE(UnitPoolingSupports(p.g, p.n));
  p = MakePool(NodeType::kMaxPooling2d, {1, 6, 6, 2}, 1, 1);
  p.n.window.pad_left = 1;
  EXPECT_FALSE(UnitPoolingSupports(p.g, p.n));
  p = MakePool(NodeType::kMaxPooling2d, {1, 6, 6, 2}, 1, 1);
  p.g.values[1].type = DataType::kQint8;
  EXPECT_FALSE(UnitPoolingSupports(p.g, p.n));
  p = MakePool(NodeType::kGlobalAvgPooling2d, {1, 6, 6, 2}, 1, 1);
  EXPECT_FALSE(UnitPoolingSupports(p.g, p.n));
}

}  // namespace
}  // namespace xnnpack
}  // namespace edgefleet
