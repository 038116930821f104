#include <cstdint>
#include <cstring>
#include <limits>

#include "gtest/gtest.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/test_tensors.h"

namespace edgefleet {
namespace portable {
namespace {

using testing::RunKernel;
using testing::TestTensor;

using F = std::vector<float>;

template <typename T>
class EveryDtypeTest : public ::testing::Test {};
using RealTypes = ::testing::Types<uint8_t, int8_t, int16_t, int32_t, int64_t, float, double>;
TYPED_TEST_SUITE(EveryDtypeTest, RealTypes);

TYPED_TEST(EveryDtypeTest, AddSubMulKeepTheDtype) {
  using T = TypeParam;
  TestTensor<T> a({3}, {1, 2, 3});
  TestTensor<T> b({3}, {4, 5, 6});
  TestTensor<T> out({3});
  EValue alpha = EValue::FromInt(2);
  ASSERT_EQ(RunKernel(AddOut, {a.ev(), b.ev(), &alpha, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (std::vector<T>{9, 12, 15}));
  ASSERT_EQ(RunKernel(SubOut, {b.ev(), a.ev(), &alpha, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (std::vector<T>{2, 1, 0}));
  ASSERT_EQ(RunKernel(MulOut, {a.ev(), b.ev(), out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (std::vector<T>{4, 10, 18}));
}

TEST(AddTest, SameShapeFloat) {
  TestTensor<float> a({3}, {1, 2, 3});
  TestTensor<float> b({3}, {10, 20, 30});
  TestTensor<float> out({3});
  EValue alpha = EValue::FromInt(1);
  ASSERT_EQ(RunKernel(AddOut, {a.ev(), b.ev(), &alpha, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{11, 22, 33}));
}

TEST(AddTest, BroadcastWithAlpha) {
  TestTensor<float> a({2, 3}, {1, 2, 3, 4, 5, 6});
  TestTensor<float> b({3}, {1, 0, -1});
  TestTensor<float> out({2, 3});
  EValue alpha = EValue::FromDouble(2.0);
  ASSERT_EQ(RunKernel(AddOut, {a.ev(), b.ev(), &alpha, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{3, 2, 1, 6, 5, 4}));
}

TEST(AddTest, BroadcastBothSidesResizesDynamicOut) {
  TestTensor<float> a({2, 1}, {1, 2});
  TestTensor<float> b({1, 3}, {10, 20, 30});
  TestTensor<float> out({1, 1}, {}, {}, ShapeDynamism::kDynamicBound, 6);
  EValue alpha = EValue::FromInt(1);
  ASSERT_EQ(RunKernel(AddOut, {a.ev(), b.ev(), &alpha, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Sizes(), (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(out.Values(), (F{11, 21, 31, 12, 22, 32}));
}

TEST(AddTest, ChannelsLastInputsAndOutput) {
  // Logical NCHW [1, 2, 2, 2] values 0..7; b is contiguous.
  TestTensor<float> a({1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}, {0, 2, 3, 1});
  TestTensor<float> b({1, 2, 2, 2}, {0, 10, 20, 30, 40, 50, 60, 70});
  TestTensor<float> out({1, 2, 2, 2}, {}, {0, 2, 3, 1});
  EValue alpha = EValue::FromInt(1);
  ASSERT_EQ(RunKernel(AddOut, {a.ev(), b.ev(), &alpha, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{0, 11, 22, 33, 44, 55, 66, 77}));
  // Memory of the channels-last output: (h, w, c) order.
  const float* raw = out.tensor().data_as<float>();
  EXPECT_EQ(raw[0], 0);
  EXPECT_EQ(raw[1], 44);
  EXPECT_EQ(raw[2], 11);
}

TEST(AddTest, PromotesInt64AndFloat) {
  TestTensor<int64_t> a({2}, {1, 2});
  TestTensor<float> b({2}, {0.5f, 0.25f});
  TestTensor<float> out({2});
  EValue alpha = EValue::FromInt(1);
  ASSERT_EQ(RunKernel(AddOut, {a.ev(), b.ev(), &alpha, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{1.5f, 2.25f}));
}

TEST(AddTest, Int32WrapsAndBoolIsLogicalOr) {
  TestTensor<int32_t> a({2}, {std::numeric_limits<int32_t>::max(), -5});
  TestTensor<int32_t> b({2}, {1, 3});
  TestTensor<int32_t> out({2});
  EValue alpha = EValue::FromInt(1);
  ASSERT_EQ(RunKernel(AddOut, {a.ev(), b.ev(), &alpha, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), -2}));

  TestTensor<bool> p({3}, {true, false, false});
  TestTensor<bool> q({3}, {false, false, true});
  TestTensor<bool> r({3});
  ASSERT_EQ(RunKernel(AddOut, {p.ev(), q.ev(), &alpha, r.ev(), r.ev()}), Error::kOk);
  EXPECT_EQ(r.Values(), (std::vector<bool>{true, false, true}));
}

TEST(AddTest, EmptyTensor) {
  TestTensor<float> a({0, 3});
  TestTensor<float> b({3}, {1, 2, 3});
  TestTensor<float> out({0, 3});
  EValue alpha = EValue::FromInt(1);
  ASSERT_EQ(RunKernel(AddOut, {a.ev(), b.ev(), &alpha, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.tensor().numel(), 0);
}

TEST(AddTest, InvalidArguments) {
  TestTensor<float> a({2}, {1, 2});
  TestTensor<float> b({3}, {1, 2, 3});
  TestTensor<float> out({2});
  EValue alpha = EValue::FromInt(1);
  // Wrong count.
  EXPECT_EQ(RunKernel(AddOut, {a.ev(), a.ev(), &alpha, out.ev()}), Error::kInvalidArgument);
  EXPECT_NE(std::strstr(LastErrorDetail(), "aten::add.out"), nullptr);
  // Wrong tag: alpha is a tensor.
  EXPECT_EQ(RunKernel(AddOut, {a.ev(), a.ev(), a.ev(), out.ev(), out.ev()}),
            Error::kInvalidArgument);
  // Shapes that do not broadcast.
  EXPECT_EQ(RunKernel(AddOut, {a.ev(), b.ev(), &alpha, out.ev(), out.ev()}),
            Error::kInvalidArgument);
  EXPECT_NE(std::strstr(LastErrorDetail(), "[2] and [3]"), nullptr);
  // Static out of the wrong shape.
  TestTensor<float> fixed({3}, {}, {}, ShapeDynamism::kStatic);
  EXPECT_EQ(RunKernel(AddOut, {a.ev(), a.ev(), &alpha, fixed.ev(), fixed.ev()}),
            Error::kNotSupported);
  // Float result into an int out.
  TestTensor<int32_t> int_out({2});
  EXPECT_EQ(RunKernel(AddOut, {a.ev(), a.ev(), &alpha, int_out.ev(), int_out.ev()}),
            Error::kInvalidArgument);
  // Floating alpha with integer inputs.
  TestTensor<int32_t> i({2}, {1, 2});
  EValue float_alpha = EValue::FromDouble(0.5);
  EXPECT_EQ(RunKernel(AddOut, {i.ev(), i.ev(), &float_alpha, int_out.ev(), int_out.ev()}),
            Error::kInvalidArgument);
  // Elements but no data.
  int32_t sizes[] = {2};
  uint8_t order[] = {0};
  int32_t strides[1];
  Tensor no_data(ScalarType::kFloat, 1, sizes, order, strides, nullptr, ShapeDynamism::kStatic);
  EValue no_data_ev = EValue::FromTensor(&no_data);
  EXPECT_EQ(RunKernel(AddOut, {&no_data_ev, a.ev(), &alpha, out.ev(), out.ev()}),
            Error::kInvalidArgument);
}

TEST(SubTest, AlphaAndBoolRejected) {
  TestTensor<int64_t> a({3}, {10, 20, 30});
  TestTensor<int64_t> b({3}, {1, 2, 3});
  TestTensor<int64_t> out({3});
  EValue alpha = EValue::FromInt(3);
  ASSERT_EQ(RunKernel(SubOut, {a.ev(), b.ev(), &alpha, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (std::vector<int64_t>{7, 14, 21}));

  TestTensor<bool> p({1}, {true});
  TestTensor<bool> r({1});
  EValue one = EValue::FromInt(1);
  EXPECT_EQ(RunKernel(SubOut, {p.ev(), p.ev(), &one, r.ev(), r.ev()}), Error::kInvalidArgument);
}

TEST(ScalarOpsTest, AddSubMulDivScalar) {
  TestTensor<int32_t> a({3}, {1, 2, -3});
  TestTensor<float> out({3});
  EValue two_and_half = EValue::FromDouble(2.5);
  EValue one = EValue::FromInt(1);
  // int tensor + 2.5 promotes to float32.
  ASSERT_EQ(RunKernel(AddScalarOut, {a.ev(), &two_and_half, &one, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{3.5f, 4.5f, -0.5f}));
  ASSERT_EQ(RunKernel(SubScalarOut, {a.ev(), &two_and_half, &one, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{-1.5f, -0.5f, -5.5f}));
  // int tensor * int scalar stays int32.
  TestTensor<int32_t> int_out({3});
  EValue three = EValue::FromInt(3);
  ASSERT_EQ(RunKernel(MulScalarOut, {a.ev(), &three, int_out.ev(), int_out.ev()}), Error::kOk);
  EXPECT_EQ(int_out.Values(), (std::vector<int32_t>{3, 6, -9}));
  // ... but cannot store a float result.
  EXPECT_EQ(RunKernel(AddScalarOut, {a.ev(), &two_and_half, &one, int_out.ev(), int_out.ev()}),
            Error::kInvalidArgument);
  // Integer true division by a scalar gives float.
  EValue two = EValue::FromInt(2);
  ASSERT_EQ(RunKernel(DivScalarOut, {a.ev(), &two, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{0.5f, 1.0f, -1.5f}));
}

TEST(MulTest, FloatBroadcastAndBool) {
  TestTensor<float> a({2, 2}, {1, 2, 3, 4});
  TestTensor<float> b({2, 1}, {10, -1});
  TestTensor<float> out({2, 2});
  ASSERT_EQ(RunKernel(MulOut, {a.ev(), b.ev(), out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{10, 20, -3, -4}));
  TestTensor<bool> p({2}, {true, true});
  TestTensor<bool> q({2}, {true, false});
  TestTensor<bool> r({2});
  ASSERT_EQ(RunKernel(MulOut, {p.ev(), q.ev(), r.ev(), r.ev()}), Error::kOk);
  EXPECT_EQ(r.Values(), (std::vector<bool>{true, false}));
}

TEST(DivTest, IntegersDivideToFloat) {
  TestTensor<int64_t> a({3}, {1, 3, -7});
  TestTensor<int64_t> b({3}, {2, 2, 2});
  TestTensor<float> out({3});
  ASSERT_EQ(RunKernel(DivOut, {a.ev(), b.ev(), out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{0.5f, 1.5f, -3.5f}));
  TestTensor<int64_t> int_out({3});
  EXPECT_EQ(RunKernel(DivOut, {a.ev(), b.ev(), int_out.ev(), int_out.ev()}),
            Error::kInvalidArgument);
}

TEST(DivTest, RoundingModes) {
  TestTensor<int32_t> a({4}, {7, -7, 7, -7});
  TestTensor<int32_t> b({4}, {2, 2, -2, -2});
  TestTensor<int32_t> out({4});
  EValue floor = EValue::FromString("floor", 5);
  EValue trunc = EValue::FromString("trunc", 5);
  ASSERT_EQ(RunKernel(DivOutMode, {a.ev(), b.ev(), &floor, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (std::vector<int32_t>{3, -4, -4, 3}));
  ASSERT_EQ(RunKernel(DivOutMode, {a.ev(), b.ev(), &trunc, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (std::vector<int32_t>{3, -3, -3, 3}));

  // torch.div(torch.tensor([7.5, -7.5, 1.0]), torch.tensor([2., 2., -0.5]),
  //           rounding_mode='floor') -> [3., -4., -2.]
  TestTensor<float> x({3}, {7.5f, -7.5f, 1.0f});
  TestTensor<float> y({3}, {2, 2, -0.5f});
  TestTensor<float> z({3});
  ASSERT_EQ(RunKernel(DivOutMode, {x.ev(), y.ev(), &floor, z.ev(), z.ev()}), Error::kOk);
  EXPECT_EQ(z.Values(), (F{3, -4, -2}));
  EValue none;
  ASSERT_EQ(RunKernel(DivOutMode, {x.ev(), y.ev(), &none, z.ev(), z.ev()}), Error::kOk);
  EXPECT_EQ(z.Values(), (F{3.75f, -3.75f, -2}));

  // INT64_MIN / -1 wraps instead of trapping.
  TestTensor<int64_t> m({1}, {std::numeric_limits<int64_t>::min()});
  TestTensor<int64_t> n({1}, {-1});
  TestTensor<int64_t> mo({1});
  ASSERT_EQ(RunKernel(DivOutMode, {m.ev(), n.ev(), &trunc, mo.ev(), mo.ev()}), Error::kOk);
  EXPECT_EQ(mo.Values()[0], std::numeric_limits<int64_t>::min());
}

TEST(DivTest, IntegerDivisionByZeroAndBadModeFail) {
  TestTensor<int32_t> a({2}, {1, 2});
  TestTensor<int32_t> b({2}, {1, 0});
  TestTensor<int32_t> out({2});
  EValue floor = EValue::FromString("floor", 5);
  EXPECT_EQ(RunKernel(DivOutMode, {a.ev(), b.ev(), &floor, out.ev(), out.ev()}),
            Error::kInvalidArgument);
  EXPECT_NE(std::strstr(LastErrorDetail(), "division by zero"), nullptr);
  EValue bad = EValue::FromString("round", 5);
  EXPECT_EQ(RunKernel(DivOutMode, {a.ev(), a.ev(), &bad, out.ev(), out.ev()}),
            Error::kInvalidArgument);
}

}  // namespace
}  // namespace portable
}  // namespace edgefleet
