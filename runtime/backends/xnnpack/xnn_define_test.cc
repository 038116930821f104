// DefineValue: what the delegate hands to the system XNNPACK's subgraph API;
// XnnpackAccepts: a float32 clamp with an empty range (PyTorch's clamp with
// min above max) goes to our kernel, which makes every element max as
// PyTorch does (NaN stays NaN).

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#if EF_HAVE_XNNPACK
#include <xnnpack.h>

#include "runtime/backends/xnnpack/node_kernels.h"
#include "runtime/backends/xnnpack/xnn_define.h"
#include "runtime/backends/xnnpack/xnn_memory.h"
#endif

namespace edgefleet {
namespace xnnpack {
namespace {

#if EF_HAVE_XNNPACK
// The 2022 XNNPACK checks dims[0] scales of a per-channel value whatever its
// channel dim: a value with fewer scales than dims[0] is kept off it (it
// would read past the scales); one with enough is defined.
TEST(DefineValue, PerChannelValueNeedsScalesForDimZero) {
  XnnpackMemoryScope scope;
  ASSERT_EQ(scope.status(), Error::kOk);
  xnn_subgraph_t sg = nullptr;
  ASSERT_EQ(xnn_create_subgraph(0, 0, &sg), xnn_status_success);
  std::vector<int8_t> data(8, 1);
  Value v;
  v.id = 0;
  v.type = DataType::kQcint8;
  v.quant = QuantKind::kPerChannel;
  v.data = data.data();
  v.channel_scales = {0.5f, 0.25f};
  uint32_t id = XNN_INVALID_VALUE_ID;
  v.dims = {4, 2};  // [in, out], scales along dim 1: 2 scales, dims[0] = 4
  v.channel_dim = 1;
  EXPECT_FALSE(DefineValue(sg, v, v.dims, XNN_INVALID_VALUE_ID, 0, &id));
  v.dims = {2, 4};  // [out, in], scales along dim 0
  v.channel_dim = 0;
  EXPECT_TRUE(DefineValue(sg, v, v.dims, XNN_INVALID_VALUE_ID, 0, &id));
  v.dims = {1, 2, 2, 2};  // a depthwise filter [1, kh, kw, channels]
  v.channel_dim = 3;
  EXPECT_TRUE(DefineValue(sg, v, v.dims, XNN_INVALID_VALUE_ID, 0, &id));
  xnn_delete_subgraph(sg);
}

TEST(XnnpackAccepts, EmptyClampRangeRunsOnOurKernel) {
  XnnpackMemoryScope scope;
  ASSERT_EQ(scope.status(), Error::kOk);
  Graph g;
  g.values.resize(2);
  for (uint32_t id : {0u, 1u}) {
    g.values[id].id = id;
    g.values[id].type = DataType::kFp32;
    g.values[id].dims = {1, 5};
  }
  Node n;
  n.type = NodeType::kClamp;
  n.inputs = {0};
  n.outputs = {1};
  n.output_min = -1.0f;
  n.output_max = 1.0f;
  EXPECT_TRUE(XnnpackAccepts(g, n));
  const std::vector<Dims> dims = {{1, 5}, {1, 5}};
  const std::vector<float> x = {-3.0f, 0.25f, 2.0f, std::nanf(""), 0.5f};
  // torch.clamp(x, 0.5, -0.5) and F.hardtanh(x, 0.0, 0.0).
  for (const auto& [lo, hi] : {std::pair{0.5f, -0.5f}, std::pair{0.0f, 0.0f}}) {
    n.output_min = lo;
    n.output_max = hi;
    EXPECT_FALSE(XnnpackAccepts(g, n));
    ASSERT_TRUE(OwnKernelSupports(g, n));
    std::vector<float> y(5, 7.0f);
    const void* in[1] = {x.data()};
    void* out[1] = {y.data()};
    KernelContext ctx(nullptr, 1);
    ASSERT_EQ(RunOwnNode(ctx, g, n, dims, in, out), Error::kOk);
    for (size_t i = 0; i < 5; ++i) {
      if (std::isnan(x[i])) {
        EXPECT_TRUE(std::isnan(y[i]));
      } else {
        EXPECT_EQ(y[i], hi) << i;
      }
    }
  }
}
#endif

}  // namespace
}  // namespace xnnpack
}  // namespace edgefleet
