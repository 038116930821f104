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
using Sizes = std::vector<int32_t>;

// x = torch.arange(12.).reshape(1, 1, 3, 4) * 0.5 - 1; x[0, 0, 1, 2] = 7
const F kX = {-1, -0.5f, 0, 0.5f, 1, 1.5f, 7, 2.5f, 3, 3.5f, 4, 4.5f};

// Output tensors for up to 8x8 planes.
constexpr int64_t kCapacity = 64;

class UpsampleTest : public ::testing::Test {
 protected:
  TestTensor<float> x_{{1, 1, 3, 4}, kX};
  TestTensor<float> out_{{1, 1, 1, 1}, {}, {}, ShapeDynamism::kDynamicBound, kCapacity};
  EValue none_;
  EValue align_ = EValue::FromBool(true);
  EValue no_align_ = EValue::FromBool(false);

  Error Bilinear(EValue* in, EValue* size, EValue* align, EValue* scales, EValue* out) {
    return RunKernel(UpsampleBilinear2dVecOut, {in, size, align, scales, out, out});
  }
  Error Nearest(EValue* in, EValue* size, EValue* scales, EValue* out) {
    return RunKernel(UpsampleNearest2dVecOut, {in, size, scales, out, out});
  }
};

TEST_F(UpsampleTest, BilinearOutputSize) {
  TestIntList size({5, 7});
  ASSERT_EQ(Bilinear(x_.ev(), size.ev(), &no_align_, &none_, out_.ev()), Error::kOk);
  EXPECT_EQ(out_.Sizes(), (Sizes{1, 1, 5, 7}));
  // F.interpolate(x, size=(5, 7), mode='bilinear', align_corners=False)
  ExpectNear(
      out_.Values(),
      F{-1.0f,       -0.821428537f, -0.535714269f,  -0.24999994f, 0.0357143879f, 0.321428657f,
        0.5f,        -0.199999928f, -0.0214285105f, 0.264285803f, 1.55000043f,   2.69285703f,
        1.83571422f, 1.30000007f,   1.0f,           1.17857146f,  1.46428573f,   4.25000095f,
        6.67857075f, 4.10714197f,   2.5f,           2.20000029f,  2.37857175f,   2.66428614f,
        3.95000029f, 5.09285641f,   4.23571396f,    3.70000029f,  3.0f,          3.17857122f,
        3.46428561f, 3.74999976f,   4.03571415f,    4.32142878f,  4.5f},
      1e-6);
  ASSERT_EQ(Bilinear(x_.ev(), size.ev(), &align_, &none_, out_.ev()), Error::kOk);
  // ... align_corners=True
  ExpectNear(out_.Values(),
             F{-1,   -0.75f, -0.5f, -0.25f, 0,    0.25f, 0.5f, 0,     0.25f, 0.5f,  2,     3.5f,
               2.5f, 1.5f,   1,     1.25f,  1.5f, 4.25f, 7,    4.75f, 2.5f,  2,     2.25f, 2.5f,
               4,    5.5f,   4.5f,  3.5f,   3,    3.25f, 3.5f, 3.75f, 4,     4.25f, 4.5f},
             1e-6);
  // Downsampling to 2x2.
  TestIntList small({2, 2});
  ASSERT_EQ(Bilinear(x_.ev(), small.ev(), &no_align_, &none_, out_.ev()), Error::kOk);
  ExpectNear(out_.Values(), F{-0.25f, 1.375f, 2.75f, 4.375f}, 1e-6);
}

TEST_F(UpsampleTest, BilinearScaleFactorsAndChannelsLast) {
  // scale_factor=(1.5, 0.5): output 4x2, source index from 1 / scale.
  const double scales[2] = {1.5, 0.5};
  EValue factors = EValue::FromDoubleList(scales, 2);
  // Two channels, channels-last, the second channel is x + 10.
  F two;
  for (int c = 0; c < 2; ++c) {
    for (float v : kX) two.push_back(v + 10 * c);
  }
  TestTensor<float> x({1, 2, 3, 4}, two, {0, 2, 3, 1});
  TestTensor<float> out({1, 2, 4, 2}, {}, {0, 2, 3, 1});
  ASSERT_EQ(Bilinear(x.ev(), &none_, &no_align_, &factors, out.ev()), Error::kOk);
  const F first = {-0.75f, 0.25f, 0.25f, 2.5f, 1.58333349f, 4.66666651f, 2.91666675f, 4.33333349f};
  F want = first;
  for (float v : first) want.push_back(v + 10);
  ExpectNear(out.Values(), want, 1e-5);
}

TEST_F(UpsampleTest, NearestSizesAndScales) {
  TestIntList size({5, 7});
  ASSERT_EQ(Nearest(x_.ev(), size.ev(), &none_, out_.ev()), Error::kOk);
  // F.interpolate(x, size=(5, 7), mode='nearest')
  EXPECT_EQ(out_.Values(), (F{-1, -1, -0.5f, -0.5f, 0, 0, 0.5f, -1, -1, -0.5f, -0.5f, 0, 0, 0.5f,
                              1,  1,  1.5f,  1.5f,  7, 7, 2.5f, 1,  1,  1.5f,  1.5f,  7, 7, 2.5f,
                              3,  3,  3.5f,  3.5f,  4, 4, 4.5f}));
  // Exactly 2x uses out_index >> 1.
  TestIntList twice({6, 8});
  ASSERT_EQ(Nearest(x_.ev(), twice.ev(), &none_, out_.ev()), Error::kOk);
  EXPECT_EQ(out_.Values()[20], 7);
  EXPECT_EQ(out_.Values()[47], 4.5f);
  const double scales[2] = {1.5, 0.5};
  EValue factors = EValue::FromDoubleList(scales, 2);
  ASSERT_EQ(Nearest(x_.ev(), &none_, &factors, out_.ev()), Error::kOk);
  EXPECT_EQ(out_.Sizes(), (Sizes{1, 1, 4, 2}));
  EXPECT_EQ(out_.Values(), (F{-1, 0, -1, 0, 1, 7, 3, 4}));
  // Integer and bool tensors are copied as they are.
  TestTensor<int64_t> xi({1, 1, 1, 2}, {5, -6});
  TestTensor<int64_t> oi({1, 1, 2, 4});
  ASSERT_EQ(Nearest(xi.ev(), twice.ev(), &none_, oi.ev()),
            Error::kInvalidArgument);  // 6x8 does not fit in 8 elements
  TestIntList two_four({2, 4});
  ASSERT_EQ(Nearest(xi.ev(), two_four.ev(), &none_, oi.ev()), Error::kOk);
  EXPECT_EQ(oi.Values(), (std::vector<int64_t>{5, 5, -6, -6, 5, 5, -6, -6}));
}

TEST_F(UpsampleTest, EmptyBatchAndInvalidArguments) {
  TestTensor<float> empty({0, 3, 2, 2});
  TestTensor<float> eo({0, 3, 4, 4});
  TestIntList four({4, 4});
  EXPECT_EQ(Bilinear(empty.ev(), four.ev(), &no_align_, &none_, eo.ev()), Error::kOk);
  EXPECT_EQ(Nearest(empty.ev(), four.ev(), &none_, eo.ev()), Error::kOk);
  const double scales[2] = {2, 2};
  EValue factors = EValue::FromDoubleList(scales, 2);
  // Both or neither of output_size and scale_factors.
  EXPECT_EQ(Bilinear(x_.ev(), four.ev(), &no_align_, &factors, out_.ev()), Error::kInvalidArgument);
  EXPECT_EQ(Nearest(x_.ev(), &none_, &none_, out_.ev()), Error::kInvalidArgument);
  TestIntList one({4});
  EXPECT_EQ(Nearest(x_.ev(), one.ev(), &none_, out_.ev()), Error::kInvalidArgument);
  TestIntList zero({0, 4});
  EXPECT_EQ(Nearest(x_.ev(), zero.ev(), &none_, out_.ev()), Error::kInvalidArgument);
  const double bad[2] = {-1, 2};
  EValue bad_factors = EValue::FromDoubleList(bad, 2);
  EXPECT_EQ(Nearest(x_.ev(), &none_, &bad_factors, out_.ev()), Error::kInvalidArgument);
  // Rank 3, dtype mismatch, integer bilinear.
  TestTensor<float> r3({1, 3, 4});
  EXPECT_EQ(Nearest(r3.ev(), four.ev(), &none_, out_.ev()), Error::kInvalidArgument);
  TestTensor<double> od({1, 1, 4, 4});
  EXPECT_EQ(Nearest(x_.ev(), four.ev(), &none_, od.ev()), Error::kInvalidArgument);
  TestTensor<int32_t> xi({1, 1, 2, 2});
  TestTensor<int32_t> oi({1, 1, 4, 4});
  EXPECT_EQ(Bilinear(xi.ev(), four.ev(), &no_align_, &none_, oi.ev()), Error::kNotSupported);
}

}  // namespace
}  // namespace portable
}  // namespace edgefleet
