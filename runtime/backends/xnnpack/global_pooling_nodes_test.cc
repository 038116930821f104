// Float32 global average pooling on our kernel (global_pooling_nodes.h),
// through the delegate's node entry points, against the portable mean's
// arithmetic done here element by element (the same bits): ragged channel
// counts (vector tails), batches, the output range,
// and threads splitting the channels. (The int8 rounding:
// OwnNodeKernels.Int8GlobalAveragePoolingRoundsAfterTheZeroPoint.)

#include "runtime/backends/xnnpack/global_pooling_nodes.h"

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

void CheckFloatPooling(const std::vector<size_t>& in_dims, float lo, float hi, int threads) {
  SCOPED_TRACE(::testing::Message() << "dims " << in_dims[0] << "x" << in_dims[1] << "x"
                                    << in_dims[2] << "x" << in_dims[3] << " threads " << threads);
  Graph g;
  g.values.resize(2);
  for (uint32_t id : {0u, 1u}) {
    g.values[id].id = id;
    g.values[id].type = DataType::kFp32;
  }
  g.values[0].dims = in_dims;
  g.values[1].dims = {in_dims[0], 1, 1, in_dims[3]};
  Node n;
  n.type = NodeType::kGlobalAvgPooling2d;
  n.inputs = {0};
  n.outputs = {1};
  n.output_min = lo;
  n.output_max = hi;
  g.nodes = {n};
  ASSERT_TRUE(OwnKernelSupports(g, n));
  ASSERT_TRUE(OwnKernelPreferred(g, n, /*optimized=*/true));
  ASSERT_FALSE(OwnKernelPreferred(g, n, /*optimized=*/false));  // --portable-only: XNNPACK's

  const size_t batch = in_dims[0], pixels = in_dims[1] * in_dims[2], channels = in_dims[3];
  std::vector<float> x(batch * pixels * channels);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-2.0f, 3.0f);
  for (float& v : x) v = dist(rng);
  std::vector<float> y(batch * channels, std::nanf(""));
  const std::vector<std::vector<size_t>> dims = {g.values[0].dims, g.values[1].dims};
  const void* in[1] = {x.data()};
  void* out[1] = {y.data()};
  KernelContext ctx(nullptr, threads);
  ASSERT_EQ(RunOwnNode(ctx, g, n, dims, in, out), Error::kOk);
  for (size_t b = 0; b < batch; ++b) {
    for (size_t c = 0; c < channels; ++c) {
      // The portable mean's arithmetic: a float sum from 0 in pixel order,
      // divided in float; then the output range.
      float sum = 0;
      for (size_t p = 0; p < pixels; ++p) sum += x[(b * pixels + p) * channels + c];
      const float want = std::min(std::max(sum / static_cast<float>(pixels), lo), hi);
      ASSERT_EQ(y[b * channels + c], want) << "b " << b << " c " << c;
    }
  }
}

TEST(GlobalAveragePooling, Float32MeansOverPixelsPerChannel) {
  ASSERT_EQ(optimized::StartKernelThreadPool(3), Error::kOk);
  for (int threads : {1, 3}) {
    CheckFloatPooling({1, 1, 1, 5}, -INFINITY, INFINITY, threads);
    CheckFloatPooling({2, 5, 7, 37}, -INFINITY, INFINITY, threads);
    CheckFloatPooling({1, 7, 7, 1152}, -INFINITY, INFINITY, threads);
    // Split over threads (channel ranges [0, 65), [65, 130)); unclamped,
    // then clamped to a range that keeps some means (they are 0.5 +- 0.1).
    CheckFloatPooling({2, 24, 24, 130}, -INFINITY, INFINITY, threads);
    CheckFloatPooling({2, 24, 24, 130}, 0.47f, 0.53f, threads);
  }
}

}  // namespace
}  // namespace xnnpack
}  // namespace edgefleet
