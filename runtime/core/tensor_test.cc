#include "runtime/core/tensor.h"

#include "gtest/gtest.h"

namespace edgefleet {
namespace {

TEST(TensorTest, StridesFollowDimOrder) {
  int32_t sizes[] = {2, 3, 4, 5};
  uint8_t channels_last[] = {0, 2, 3, 1};
  int32_t strides[4];
  float data[120];
  Tensor t(ScalarType::kFloat, 4, sizes, channels_last, strides, data, ShapeDynamism::kStatic);
  EXPECT_EQ(t.numel(), 120);
  EXPECT_EQ(t.nbytes(), 480u);
  // NHWC: C innermost, then W, then H, then N.
  EXPECT_EQ(t.stride(1), 1);
  EXPECT_EQ(t.stride(3), 3);
  EXPECT_EQ(t.stride(2), 15);
  EXPECT_EQ(t.stride(0), 60);
  EXPECT_FALSE(t.IsDefaultDimOrder());
}

TEST(TensorTest, ResizeRespectsDynamism) {
  int32_t sizes[] = {8, 16};
  uint8_t order[] = {0, 1};
  int32_t strides[2];
  Tensor bound(ScalarType::kFloat, 2, sizes, order, strides, nullptr, ShapeDynamism::kDynamicBound);
  const int32_t smaller[] = {3, 16};
  ASSERT_EQ(bound.Resize(smaller), Error::kOk);
  EXPECT_EQ(bound.numel(), 48);
  EXPECT_EQ(bound.stride(0), 16);
  const int32_t larger[] = {9, 16};
  EXPECT_EQ(bound.Resize(larger), Error::kInvalidArgument);
  const int32_t wrong_rank[] = {48};
  EXPECT_EQ(bound.Resize(wrong_rank), Error::kInvalidArgument);
  const int32_t negative[] = {-1, 16};
  EXPECT_EQ(bound.Resize(negative), Error::kInvalidArgument);

  int32_t ssizes[] = {2, 2};
  Tensor fixed(ScalarType::kFloat, 2, ssizes, order, strides, nullptr, ShapeDynamism::kStatic);
  const int32_t same[] = {2, 2};
  EXPECT_EQ(fixed.Resize(same), Error::kOk);
  const int32_t other[] = {1, 4};
  EXPECT_EQ(fixed.Resize(other), Error::kNotSupported);
}

TEST(TensorTest, CheckedNumelAndDimOrderValidation) {
  const int32_t huge[] = {1 << 30, 1 << 30, 1 << 30, 1 << 30};
  EXPECT_EQ(CheckedNumel(huge), -1);
  const int32_t empty[] = {3, 0, 2};
  EXPECT_EQ(CheckedNumel(empty), 0);
  const uint8_t ok[] = {1, 0, 2};
  const uint8_t dup[] = {1, 1, 2};
  const uint8_t range[] = {0, 3, 1};
  EXPECT_TRUE(IsValidDimOrder(ok));
  EXPECT_FALSE(IsValidDimOrder(dup));
  EXPECT_FALSE(IsValidDimOrder(range));
}

}  // namespace
}  // namespace edgefleet
