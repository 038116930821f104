// ConvAcrossLayouts through the convolution kernels: an NCHW input with a
// channels-last output and the reverse, grouped convolutions with either
// side channels-last, a channels-last output over its input's memory, and bounded-dynamic outs
// holding another batch's sizes, against the portable
// convolution on separate NCHW buffers (within the GEMM's dot-product bound), at every instruction
// set.

#include "runtime/kernels/optimized/conv_layout_bridge.h"

#include <algorithm>
#include <vector>

#include "runtime/kernels/optimized/conv_fusion.h"
#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/test_util.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

using testing::Random;
using testing::TestIntList;
using testing::TestTensor;

const std::vector<uint8_t> kNchw = {0, 1, 2, 3}, kNhwc = {0, 2, 3, 1};
constexpr testing::Tolerance kBound{1e-5, 1e-5};

struct Case {
  std::vector<uint8_t> in_order, out_order;
  int64_t groups, stride;
  bool over_input;  // out's data is in's
  // Batch of out's sizes before the call (bounded-dynamic, capacity for the
  // larger of it and 2): a method's out keeps its previous execution's
  // sizes until the kernel resizes it to the input's batch, 2.
  int32_t out_batch = 2;
};

// t's elements in logical order, read from its data pointer.
std::vector<float> Logical(const Tensor& t) {
  std::vector<float> v;
  const float* d = t.data_as<const float>();
  for (int32_t n = 0; n < t.size(0); ++n) {
    for (int32_t c = 0; c < t.size(1); ++c) {
      for (int32_t h = 0; h < t.size(2); ++h) {
        for (int32_t w = 0; w < t.size(3); ++w) {
          v.push_back(d[n * t.stride(0) + c * t.stride(1) + h * t.stride(2) + w * t.stride(3)]);
        }
      }
    }
  }
  return v;
}

// conv(x [2, 8, 9, 9], w [8, 8 / groups, 3, 3], pad 1) in the case's layouts.
void Check(const Case& c) {
  const std::vector<float> xs = Random<float>(2 * 8 * 81, 41, -2, 2);
  const std::vector<float> ws = Random<float>(8 * (8 / c.groups) * 9, 42);
  const int32_t o = static_cast<int32_t>((9 + 2 - 3) / c.stride + 1);
  TestTensor<float> w({8, static_cast<int32_t>(8 / c.groups), 3, 3}, ws),
      b({8}, Random<float>(8, 43));
  TestIntList stride{c.stride, c.stride}, pad{1, 1}, dil{1, 1}, out_pad{0, 0};
  EValue no = EValue::FromBool(false), groups = EValue::FromInt(c.groups), none;
  const auto args = [&](TestTensor<float>& x, TestTensor<float>& y) {
    return std::vector<EValue*>{x.ev(),       w.ev(),  b.ev(), stride.ev(), pad.ev(), dil.ev(), &no,
                                out_pad.ev(), &groups, &none,  &none,       y.ev(),   y.ev()};
  };
  TestTensor<float> rx({2, 8, 9, 9}, xs), ry({2, 8, o, o});
  std::vector<EValue*> ref = args(rx, ry);
  ref.erase(ref.begin() + 9, ref.begin() + 11);  // no bounds: convolution.out
  ASSERT_EQ(testing::Call(portable::ConvolutionOut, ref), Error::kOk);
  const std::vector<float> expected = ry.Values();
  testing::ForEachIsa([&] {
    const int64_t capacity = std::max(c.out_batch, 2) * 8 * o * o;
    TestTensor<float> x({2, 8, 9, 9}, xs, c.in_order),
        y({c.out_batch, 8, o, o}, {}, c.out_order, ShapeDynamism::kDynamicBound, capacity);
    if (c.over_input) y.tensor().set_data(x.tensor().mutable_data());
    ASSERT_EQ(testing::Call(FusedConvolutionOut, args(x, y)), Error::kOk) << LastErrorDetail();
    ASSERT_EQ(y.tensor().size(0), 2);
    testing::ExpectMatch(Logical(y.tensor()), expected, kBound, "fused convolution");
    if (c.over_input) return;
    TestTensor<float> x2({2, 8, 9, 9}, xs, c.in_order),
        y2({c.out_batch, 8, o, o}, {}, c.out_order, ShapeDynamism::kDynamicBound, capacity);
    std::vector<EValue*> plain = args(x2, y2);
    plain.erase(plain.begin() + 9, plain.begin() + 11);
    ASSERT_EQ(testing::Call(optimized::ConvolutionOut, plain), Error::kOk) << LastErrorDetail();
    testing::ExpectMatch(y2.Values(), expected, kBound, "convolution");
  });
}

TEST(ConvAcrossLayouts, NchwInChannelsLastOut) {
  Check({kNchw, kNhwc, 1, 1, false});
  Check({kNchw, kNhwc, 8, 2, false});
}

TEST(ConvAcrossLayouts, ChannelsLastInNchwOut) {
  Check({kNhwc, kNchw, 1, 2, false});
  Check({kNhwc, kNchw, 8, 1, false});
}

TEST(ConvAcrossLayouts, GroupedRunsOnNchwCopies) {
  Check({kNhwc, kNhwc, 2, 1, false});
  Check({kNchw, kNhwc, 2, 2, false});
  Check({kNhwc, kNchw, 2, 1, false});
  Check({kNhwc, kNhwc, 2, 2, true});
}

TEST(ConvAcrossLayouts, BoundedDynamicOutTakesTheInputsBatch) {
  for (int32_t out_batch : {3, 1}) {                // out's previous sizes larger, smaller
    Check({kNhwc, kNchw, 1, 2, false, out_batch});  // the out bridged through a copy
    Check({kNhwc, kNhwc, 2, 1, false, out_batch});  // grouped: NCHW copies
    Check({kNchw, kNhwc, 1, 1, false, out_batch});
  }
}

TEST(ConvAcrossLayouts, ChannelsLastOutOverItsInput) {
  Check({kNhwc, kNhwc, 8, 2, true});  // depthwise, stride 2: out smaller
  Check({kNhwc, kNhwc, 1, 1, true});  // one group, same size
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet
