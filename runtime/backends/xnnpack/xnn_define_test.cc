// DefineValue: what the delegate hands to the system XNNPACK's subgraph API.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#if EF_HAVE_XNNPACK
#include <xnnpack.h>

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
#endif

}  // namespace
}  // namespace xnnpack
}  // namespace edgefleet
