// The XNNPACK delegate's boundary values in the method's temp memory (the
// arena taken from the temp allocator at every Execute when it fits a
// quarter of it, else owned) and its static reshapes on our kernels when
// neither neighbour runs on XNNPACK: small graphs built in flatbuffers
// object form, decoded, compiled and run, their outputs checked by index
// arithmetic.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "runtime/backends/xnnpack/decoder_test_graph.h"
#include "runtime/backends/xnnpack/delegate.h"
#include "runtime/backends/xnnpack/graph_decoder.h"
#include "runtime/core/error_detail.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/kernels/portable/test_tensors.h"

#if EF_HAVE_XNNPACK

namespace edgefleet {
namespace xnnpack {
namespace {

using portable::testing::TestTensor;
using testing::TestGraph;

// v0 [1,2,3,4] (extern 0) -> transpose {0,2,3,1} -> v1 [1,3,4,2] ->
// reshape {1,3,8} -> v2 [1,3,8] -> transpose {0,2,1} -> v3 [1,8,3] (extern 1):
// y[0][j][i] = x[0][j % 2][i][j / 2].
TestGraph TransposeReshapeTranspose() {
  TestGraph t;
  t.g.xvalues.clear();
  t.g.xnodes.clear();
  t.AddValue(0, {1, 2, 3, 4}, 0, 0, testing::fb::XNNDatatype::xnn_datatype_fp32, 1);
  t.AddValue(1, {1, 3, 4, 2});
  t.AddValue(2, {1, 3, 8});
  t.AddValue(3, {1, 8, 3}, 0, 1, testing::fb::XNNDatatype::xnn_datatype_fp32, 2);
  t.g.input_ids = {0};
  t.g.output_ids = {3};
  auto* first = new testing::fb::XNNStaticTransposeT();
  first->num_dims = 4;
  first->perm = {0, 2, 3, 1};
  first->input_id = 0;
  first->output_id = 1;
  t.AddNode(testing::fb::XNodeUnion::XNNStaticTranspose, first);
  auto* reshape = new testing::fb::XNNStaticReshapeT();
  reshape->num_dims = 3;
  reshape->new_shape = {1, 3, 8};
  reshape->input_id = 1;
  reshape->output_id = 2;
  t.AddNode(testing::fb::XNodeUnion::XNNStaticReshape, reshape);
  auto* second = new testing::fb::XNNStaticTransposeT();
  second->num_dims = 3;
  second->perm = {0, 2, 1};
  second->input_id = 2;
  second->output_id = 3;
  t.AddNode(testing::fb::XNodeUnion::XNNStaticTranspose, second);
  return t;
}

std::unique_ptr<XnnpackDelegate> Compile(const TestGraph& t, size_t temp_bytes) {
  const std::vector<uint8_t> bytes = t.Bytes();
  Result<std::unique_ptr<Graph>> g = DecodeGraph(bytes.data(), bytes.size(), nullptr);
  EXPECT_TRUE(g.ok()) << LastErrorDetail();
  if (!g.ok()) return nullptr;
  Result<std::unique_ptr<XnnpackDelegate>> d =
      XnnpackDelegate::Create(std::move(g.get()), nullptr, 1, true, temp_bytes);
  EXPECT_TRUE(d.ok()) << LastErrorDetail();
  return d.ok() ? std::move(d.get()) : nullptr;
}

// Runs `d` on x (0..23) with `temp` and checks y by index arithmetic.
void ExpectTransposedReshaped(XnnpackDelegate& d, MemoryAllocator* temp) {
  std::vector<float> xs(24);
  for (int i = 0; i < 24; ++i) xs[i] = static_cast<float>(i);
  TestTensor<float> x({1, 2, 3, 4}, xs), y({1, 8, 3});
  EValue* args[2] = {x.ev(), y.ev()};
  ASSERT_EQ(d.Execute(temp, Span<EValue*>(args, 2)), Error::kOk) << LastErrorDetail();
  const std::vector<float> got = y.Values();
  for (int j = 0; j < 8; ++j) {
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(got[j * 3 + i], xs[(j % 2) * 12 + i * 4 + j / 2])
          << "y[0][" << j << "][" << i << "]";
    }
  }
}

TEST(DelegateArena, BoundaryValuesLiveInTempMemoryWhenTheyFit) {
  const TestGraph t = TransposeReshapeTranspose();
  std::unique_ptr<XnnpackDelegate> in_temp = Compile(t, 1 << 20);
  std::unique_ptr<XnnpackDelegate> owned = Compile(t, 0);
  ASSERT_NE(in_temp, nullptr);
  ASSERT_NE(owned, nullptr);
  // v1 and v2 (96 bytes each, plus tail padding) are in temp memory, not
  // counted as the delegate's.
  EXPECT_LT(in_temp->memory_bytes() + 192, owned->memory_bytes());
  std::vector<uint64_t> storage(1 << 17);
  MemoryAllocator temp(storage.data(), storage.size() * 8);
  for (int run = 0; run < 2; ++run) {  // the second at the same temp address
    ExpectTransposedReshaped(*in_temp, &temp);
    EXPECT_GE(temp.peak(), 192u);
    temp.Reset();
  }
  ExpectTransposedReshaped(*owned, nullptr);
  // Moved elsewhere in temp memory (another allocation first, where the
  // arena was): rebound, so that allocation is left alone.
  auto* other = static_cast<uint8_t*>(temp.Allocate(4096, 64));
  ASSERT_NE(other, nullptr);
  std::fill(other, other + 4096, 0xA5);
  ExpectTransposedReshaped(*in_temp, &temp);
  EXPECT_TRUE(std::all_of(other, other + 4096, [](uint8_t b) { return b == 0xA5; }))
      << "the arena wrote where it was before";
  // Without temp memory the arena has nowhere to live: a clear error.
  TestTensor<float> x({1, 2, 3, 4}), y({1, 8, 3});
  EValue* args[2] = {x.ev(), y.ev()};
  EXPECT_EQ(in_temp->Execute(nullptr, Span<EValue*>(args, 2)), Error::kMemoryAllocationFailed);
  EXPECT_NE(std::string(LastErrorDetail()).find("temp memory"), std::string::npos);
}

TEST(DelegateArena, AnArenaOverAQuarterOfTempMemoryIsOwned) {
  const TestGraph t = TransposeReshapeTranspose();
  std::unique_ptr<XnnpackDelegate> small_temp = Compile(t, 256);
  std::unique_ptr<XnnpackDelegate> owned = Compile(t, 0);
  ASSERT_NE(small_temp, nullptr);
  ASSERT_NE(owned, nullptr);
  EXPECT_EQ(small_temp->memory_bytes(), owned->memory_bytes());
  ExpectTransposedReshaped(*small_temp, nullptr);
}

TEST(DelegateArena, ALoneReshapeRunsOnOurKernels) {
  std::unique_ptr<XnnpackDelegate> d = Compile(TransposeReshapeTranspose(), 1 << 20);
  ASSERT_NE(d, nullptr);
  ASSERT_EQ(d->engine(0), Engine::kOwnKernel);
  ASSERT_EQ(d->engine(2), Engine::kOwnKernel);
  EXPECT_EQ(d->engine(1), Engine::kOwnKernel);
  EXPECT_EQ(d->num_xnnpack_runtimes(), 0u);
}

// v0 [1,4,4,2] -> max pooling 2x2 -> v1 [1,2,2,2] -> reshape {1,8} -> v2 ->
// hardswish -> v3 [1,8]: the reshape between two XNNPACK nodes stays in
// their runtime.
TEST(DelegateArena, AReshapeBetweenXnnpackNodesStaysOnXnnpack) {
  TestGraph t;
  t.g.xvalues.clear();
  t.g.xnodes.clear();
  t.AddValue(0, {1, 4, 4, 2}, 0, 0, testing::fb::XNNDatatype::xnn_datatype_fp32, 1);
  t.AddValue(1, {1, 2, 2, 2});
  t.AddValue(2, {1, 8});
  t.AddValue(3, {1, 8}, 0, 1, testing::fb::XNNDatatype::xnn_datatype_fp32, 2);
  t.g.input_ids = {0};
  t.g.output_ids = {3};
  auto* pool = new testing::fb::_XNNPooling2DT();
  pool->pooling_height = pool->pooling_width = 2;
  pool->stride_height = pool->stride_width = 2;
  pool->dilation_height = pool->dilation_width = 1;
  pool->input_id = 0;
  pool->output_id = 1;
  t.AddNode(testing::fb::XNodeUnion::XNNMaxPooling2d, pool);
  auto* reshape = new testing::fb::XNNStaticReshapeT();
  reshape->num_dims = 2;
  reshape->new_shape = {1, 8};
  reshape->input_id = 1;
  reshape->output_id = 2;
  t.AddNode(testing::fb::XNodeUnion::XNNStaticReshape, reshape);
  auto* hardswish = new testing::fb::_XNNNode1x1T();
  hardswish->input_id = 2;
  hardswish->output_id = 3;
  t.AddNode(testing::fb::XNodeUnion::XNNHardswish, hardswish);
  std::unique_ptr<XnnpackDelegate> d = Compile(t, 1 << 20);
  ASSERT_NE(d, nullptr);
  ASSERT_EQ(d->engine(0), Engine::kXnnpack);
  ASSERT_EQ(d->engine(2), Engine::kXnnpack);
  EXPECT_EQ(d->engine(1), Engine::kXnnpack);
  EXPECT_EQ(d->num_xnnpack_runtimes(), 1u);
}

}  // namespace
}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EF_HAVE_XNNPACK
