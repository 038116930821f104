#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/test_tensors.h"

namespace edgefleet {
namespace portable {
namespace {

using testing::ExpectNear;
using testing::RunKernel;
using testing::TestIntList;
using testing::TestTensor;
using F = std::vector<float>;
using I = std::vector<int64_t>;

// x = torch.tensor([[1., 5, 2, 0], [3, -1, 4, 8], [7, 6, -2, 1]])
//         .reshape(1, 1, 3, 4)
const F kInput = {1, 5, 2, 0, 3, -1, 4, 8, 7, 6, -2, 1};

struct MaxPoolCall {
  TestIntList kernel, stride, padding, dilation;
  EValue ceil;
  using List = std::initializer_list<int64_t>;
  MaxPoolCall(List k, List s, List p, List d, bool c)
      : kernel(k), stride(s), padding(p), dilation(d), ceil(EValue::FromBool(c)) {}
  Error Run(EValue* in, EValue* out, EValue* indices) {
    testing::TestTensorList ret({out, indices});
    return RunKernel(MaxPool2dWithIndicesOut, {in, kernel.ev(), stride.ev(), padding.ev(),
                                               dilation.ev(), &ceil, out, indices, ret.ev()});
  }
};

TEST(MaxPoolTest, WindowsPaddingCeilAndDilation) {
  TestTensor<float> x({1, 1, 3, 4}, kInput);
  TestTensor<float> out({1, 1, 3, 4}, {}, {}, ShapeDynamism::kDynamicBound);
  TestTensor<int64_t> idx({1, 1, 3, 4}, {}, {}, ShapeDynamism::kDynamicBound);
  // F.max_pool2d(x, 2, 2, return_indices=True)
  MaxPoolCall k2({2, 2}, {2, 2}, {0, 0}, {1, 1}, false);
  ASSERT_EQ(k2.Run(x.ev(), out.ev(), idx.ev()), Error::kOk);
  EXPECT_EQ(out.Sizes(), (std::vector<int32_t>{1, 1, 1, 2}));
  EXPECT_EQ(out.Values(), (F{5, 8}));
  EXPECT_EQ(idx.Values(), (I{1, 7}));
  // ceil_mode=True keeps the partial last row of windows.
  MaxPoolCall ceil({2}, {}, {0}, {1}, true);  // empty stride = kernel size
  ASSERT_EQ(ceil.Run(x.ev(), out.ev(), idx.ev()), Error::kOk);
  EXPECT_EQ(out.Values(), (F{5, 8, 7, 1}));
  EXPECT_EQ(idx.Values(), (I{1, 7, 8, 11}));
  // kernel 3, stride 1, padding 1.
  MaxPoolCall padded({3, 3}, {1, 1}, {1, 1}, {1, 1}, false);
  ASSERT_EQ(padded.Run(x.ev(), out.ev(), idx.ev()), Error::kOk);
  EXPECT_EQ(out.Values(), (F{5, 5, 8, 8, 7, 7, 8, 8, 7, 7, 8, 8}));
  EXPECT_EQ(idx.Values(), (I{1, 1, 7, 7, 8, 8, 7, 7, 8, 8, 7, 7}));
  // kernel 2, stride 1, dilation 2.
  MaxPoolCall dilated({2, 2}, {1, 1}, {0, 0}, {2, 2}, false);
  ASSERT_EQ(dilated.Run(x.ev(), out.ev(), idx.ev()), Error::kOk);
  EXPECT_EQ(out.Values(), (F{7, 6}));
  EXPECT_EQ(idx.Values(), (I{8, 9}));
}

TEST(MaxPoolTest, ChannelsLastRank3AndInt) {
  // Two channels: the second is the first negated.
  F two = kInput;
  for (float v : kInput) two.push_back(-v);
  TestTensor<float> x({1, 2, 3, 4}, two, {0, 2, 3, 1});
  TestTensor<float> out({1, 2, 1, 2}, {}, {0, 2, 3, 1});
  TestTensor<int64_t> idx({1, 2, 1, 2});
  MaxPoolCall k2({2, 2}, {2, 2}, {0, 0}, {1, 1}, false);
  ASSERT_EQ(k2.Run(x.ev(), out.ev(), idx.ev()), Error::kOk);
  EXPECT_EQ(out.Values(), (F{5, 8, 1, 0}));
  EXPECT_EQ(idx.Values(), (I{1, 7, 5, 3}));

  TestTensor<int32_t> xi({1, 3, 4}, {1, 5, 2, 0, 3, -1, 4, 8, 7, 6, -2, 1});
  TestTensor<int32_t> oi({1, 1, 2});
  TestTensor<int64_t> ii({1, 1, 2});
  ASSERT_EQ(k2.Run(xi.ev(), oi.ev(), ii.ev()), Error::kOk);
  EXPECT_EQ(oi.Values(), (std::vector<int32_t>{5, 8}));
}

TEST(MaxPoolTest, NanWins) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  TestTensor<float> x({1, 2, 2}, {1, nan, 3, 2});
  TestTensor<float> out({1, 1, 1});
  TestTensor<int64_t> idx({1, 1, 1});
  MaxPoolCall k2({2, 2}, {2, 2}, {0, 0}, {1, 1}, false);
  ASSERT_EQ(k2.Run(x.ev(), out.ev(), idx.ev()), Error::kOk);
  EXPECT_TRUE(std::isnan(out.Values()[0]));
  EXPECT_EQ(idx.Values(), (I{1}));
}

TEST(MaxPoolTest, InvalidArguments) {
  TestTensor<float> x({1, 1, 3, 4}, kInput);
  TestTensor<float> out({1, 1, 1, 2});
  TestTensor<int64_t> idx({1, 1, 1, 2});
  TestTensor<int32_t> bad_idx({1, 1, 1, 2});
  MaxPoolCall k2({2, 2}, {2, 2}, {0, 0}, {1, 1}, false);
  EXPECT_EQ(k2.Run(x.ev(), out.ev(), bad_idx.ev()), Error::kInvalidArgument);
  MaxPoolCall big_pad({2, 2}, {2, 2}, {2, 2}, {1, 1}, false);
  EXPECT_EQ(big_pad.Run(x.ev(), out.ev(), idx.ev()), Error::kInvalidArgument);
  MaxPoolCall too_big({5, 5}, {1, 1}, {0, 0}, {1, 1}, false);
  EXPECT_EQ(too_big.Run(x.ev(), out.ev(), idx.ev()), Error::kInvalidArgument);
  MaxPoolCall three({2, 2, 2}, {2, 2}, {0, 0}, {1, 1}, false);
  EXPECT_EQ(three.Run(x.ev(), out.ev(), idx.ev()), Error::kInvalidArgument);
  TestTensor<float> flat({12}, kInput);
  EXPECT_EQ(k2.Run(flat.ev(), out.ev(), idx.ev()), Error::kInvalidArgument);
}

struct AvgPoolCall {
  TestIntList kernel, stride, padding;
  EValue ceil, include_pad, divisor;
  using List = std::initializer_list<int64_t>;
  AvgPoolCall(List k, List s, List p, bool c, bool inc, EValue div = EValue())
      : kernel(k),
        stride(s),
        padding(p),
        ceil(EValue::FromBool(c)),
        include_pad(EValue::FromBool(inc)),
        divisor(div) {}
  Error Run(EValue* in, EValue* out) {
    return RunKernel(AvgPool2dOut, {in, kernel.ev(), stride.ev(), padding.ev(), &ceil, &include_pad,
                                    &divisor, out, out});
  }
};

TEST(AvgPoolTest, PaddingCeilAndDivisor) {
  TestTensor<float> x({1, 1, 3, 4}, kInput);
  TestTensor<float> out({1, 1, 2, 2}, {}, {}, ShapeDynamism::kDynamicBound);
  // F.avg_pool2d(x, 2, 2)
  ASSERT_EQ(AvgPoolCall({2, 2}, {2, 2}, {0, 0}, false, true).Run(x.ev(), out.ev()), Error::kOk);
  EXPECT_EQ(out.Values(), (F{2, 3.5}));
  // ceil_mode=True: the last row of windows covers one input row.
  ASSERT_EQ(AvgPoolCall({2, 2}, {2, 2}, {0, 0}, true, true).Run(x.ev(), out.ev()), Error::kOk);
  EXPECT_EQ(out.Values(), (F{2, 3.5, 6.5, -0.5}));
  // F.avg_pool2d(x, 3, 2, padding=1[, count_include_pad=False])
  ASSERT_EQ(AvgPoolCall({3, 3}, {2, 2}, {1, 1}, false, true).Run(x.ev(), out.ev()), Error::kOk);
  ExpectNear(out.Values(), F{0.888888896f, 2.0f, 1.66666663f, 1.77777779f});
  ASSERT_EQ(AvgPoolCall({3, 3}, {2, 2}, {1, 1}, false, false).Run(x.ev(), out.ev()), Error::kOk);
  ExpectNear(out.Values(), F{2.0f, 3.0f, 3.75f, 2.66666675f});
  // divisor_override=3
  ASSERT_EQ(
      AvgPoolCall({2, 2}, {2, 2}, {0, 0}, false, true, EValue::FromInt(3)).Run(x.ev(), out.ev()),
      Error::kOk);
  ExpectNear(out.Values(), F{2.66666675f, 4.66666651f});
  EXPECT_EQ(
      AvgPoolCall({2, 2}, {2, 2}, {0, 0}, false, true, EValue::FromInt(0)).Run(x.ev(), out.ev()),
      Error::kInvalidArgument);
  TestTensor<int32_t> xi({1, 1, 3, 4});
  TestTensor<int32_t> oi({1, 1, 1, 2});
  EXPECT_EQ(AvgPoolCall({2, 2}, {2, 2}, {0, 0}, false, true).Run(xi.ev(), oi.ev()),
            Error::kNotSupported);
}

TEST(AdaptiveAvgPoolTest, UnevenWindowsAndGlobal) {
  TestTensor<float> x({1, 1, 3, 4}, kInput, {0, 2, 3, 1});
  TestTensor<float> out({1, 1, 2, 3});
  TestIntList size({2, 3});
  ASSERT_EQ(RunKernel(AdaptiveAvgPool2dOut, {x.ev(), size.ev(), out.ev(), out.ev()}), Error::kOk);
  // F.adaptive_avg_pool2d(x, (2, 3))
  EXPECT_EQ(out.Values(), (F{2, 2.5, 3.5, 3.75, 1.75, 2.75}));
  TestTensor<float> global({1, 1, 1, 1});
  TestIntList one({1, 1});
  ASSERT_EQ(RunKernel(AdaptiveAvgPool2dOut, {x.ev(), one.ev(), global.ev(), global.ev()}),
            Error::kOk);
  ExpectNear(global.Values(), F{2.83333325f});
  TestIntList negative({-1, 1});
  EXPECT_EQ(RunKernel(AdaptiveAvgPool2dOut, {x.ev(), negative.ev(), global.ev(), global.ev()}),
            Error::kInvalidArgument);
}

}  // namespace
}  // namespace portable
}  // namespace edgefleet
