// amax / amin and any / all (reduction.cc).

#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/test_tensors.h"

namespace edgefleet {
namespace portable {
namespace {

using testing::RunKernel;
using testing::TestIntList;
using testing::TestTensor;
using B = std::vector<bool>;
using F = std::vector<float>;
using I32 = std::vector<int32_t>;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

TEST(AmaxAminTest, NanPropagatesAndAllDims) {
  // x = torch.tensor([[3., -1, 2], [nan, 5, 0]])
  TestTensor<float> x({2, 3}, {3, -1, 2, kNan, 5, 0});
  TestIntList dim1({1});
  TestIntList dim0({0});
  EValue no = EValue::FromBool(false);
  TestTensor<float> out({2});
  ASSERT_EQ(RunKernel(AmaxOut, {x.ev(), dim1.ev(), &no, out.ev(), out.ev()}), Error::kOk);
  F v = out.Values();  // torch.amax(x, dim=1): [3, nan]
  EXPECT_EQ(v[0], 3);
  EXPECT_TRUE(std::isnan(v[1]));
  TestTensor<float> out3({3});
  ASSERT_EQ(RunKernel(AminOut, {x.ev(), dim0.ev(), &no, out3.ev(), out3.ev()}), Error::kOk);
  v = out3.Values();  // torch.amin(x, dim=0): [nan, -1, 0]
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], -1);
  EXPECT_EQ(v[2], 0);
  // dim=[] reduces everything.
  TestIntList none({});
  TestTensor<float> scalar({});
  ASSERT_EQ(RunKernel(AmaxOut, {x.ev(), none.ev(), &no, scalar.ev(), scalar.ev()}), Error::kOk);
  EXPECT_TRUE(std::isnan(scalar.Values()[0]));
}

TEST(AmaxAminTest, IntKeepdimAndDimOrder) {
  // i = torch.arange(24, dtype=torch.int32).reshape(2, 3, 4) % 7, stored
  // with dim order (2, 0, 1).
  I32 values;
  for (int k = 0; k < 24; ++k) values.push_back(k % 7);
  TestTensor<int32_t> i({2, 3, 4}, values, {2, 0, 1});
  TestIntList dims({0, 2});
  EValue yes = EValue::FromBool(true);
  EValue no = EValue::FromBool(false);
  TestTensor<int32_t> kept({1, 3, 1});
  ASSERT_EQ(RunKernel(AmaxOut, {i.ev(), dims.ev(), &yes, kept.ev(), kept.ev()}), Error::kOk);
  EXPECT_EQ(kept.Values(), (I32{6, 6, 6}));
  TestIntList last({-1});
  TestTensor<int32_t> out({2, 3}, {}, {1, 0});
  ASSERT_EQ(RunKernel(AminOut, {i.ev(), last.ev(), &no, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (I32{0, 0, 1, 0, 2, 0}));
}

TEST(AmaxAminTest, InvalidArguments) {
  TestTensor<float> x({2, 3});
  EValue no = EValue::FromBool(false);
  TestIntList dim1({1});
  TestTensor<double> wrong_dtype({2});
  EXPECT_EQ(RunKernel(AmaxOut, {x.ev(), dim1.ev(), &no, wrong_dtype.ev(), wrong_dtype.ev()}),
            Error::kInvalidArgument);
  TestIntList bad({2});
  TestTensor<float> out({2});
  EXPECT_EQ(RunKernel(AmaxOut, {x.ev(), bad.ev(), &no, out.ev(), out.ev()}),
            Error::kInvalidArgument);
  // Reducing a zero-size dim has no identity.
  TestTensor<float> empty({2, 0});
  EXPECT_EQ(RunKernel(AmaxOut, {empty.ev(), dim1.ev(), &no, out.ev(), out.ev()}),
            Error::kInvalidArgument);
  // ...but an empty result is fine.
  TestIntList dim0({0});
  TestTensor<float> none({0});
  EXPECT_EQ(RunKernel(AminOut, {empty.ev(), dim0.ev(), &no, none.ev(), none.ev()}), Error::kOk);
}

TEST(AnyAllTest, DimDimsAndAll) {
  // m = torch.tensor([[False, True, False], [False, False, False]])
  TestTensor<bool> m({2, 3}, {false, true, false, false, false, false});
  EValue last = EValue::FromInt(-1);
  EValue yes = EValue::FromBool(true);
  EValue no = EValue::FromBool(false);
  TestTensor<bool> kept({2, 1});
  // m.any(dim=-1, keepdim=True) (the MHA masked-row pattern)
  ASSERT_EQ(RunKernel(AnyOut, {m.ev(), &last, &yes, kept.ev(), kept.ev()}), Error::kOk);
  EXPECT_EQ(kept.Values(), (B{true, false}));
  TestTensor<bool> cols({3});
  EValue zero = EValue::FromInt(0);
  ASSERT_EQ(RunKernel(AllOut, {m.ev(), &zero, &no, cols.ev(), cols.ev()}), Error::kOk);
  EXPECT_EQ(cols.Values(), (B{false, false, false}));
  TestTensor<bool> scalar({});
  ASSERT_EQ(RunKernel(AnyAllOut, {m.ev(), scalar.ev(), scalar.ev()}), Error::kOk);
  EXPECT_EQ(scalar.Values(), (B{true}));
  ASSERT_EQ(RunKernel(AllAllOut, {m.ev(), scalar.ev(), scalar.ev()}), Error::kOk);
  EXPECT_EQ(scalar.Values(), (B{false}));
  // Float input, several dims, non-default dim order; NaN counts as true.
  TestTensor<float> f({2, 2, 2}, {0, kNan, 1, 2, 0, 0, 0, -1}, {2, 1, 0});
  TestIntList dims({0, 2});
  TestTensor<bool> two({2});
  ASSERT_EQ(RunKernel(AllDimsOut, {f.ev(), dims.ev(), &no, two.ev(), two.ev()}), Error::kOk);
  EXPECT_EQ(two.Values(), (B{false, false}));
  ASSERT_EQ(RunKernel(AnyDimsOut, {f.ev(), dims.ev(), &no, two.ev(), two.ev()}), Error::kOk);
  EXPECT_EQ(two.Values(), (B{true, true}));
  // dim=None: everything.
  EValue none;
  ASSERT_EQ(RunKernel(AnyDimsOut, {f.ev(), &none, &no, scalar.ev(), scalar.ev()}), Error::kOk);
  EXPECT_EQ(scalar.Values(), (B{true}));
}

TEST(AnyAllTest, EmptyUint8OutAndInvalid) {
  // Empty reductions: any -> False, all -> True.
  TestTensor<float> empty({2, 0});
  EValue one = EValue::FromInt(1);
  EValue no = EValue::FromBool(false);
  TestTensor<uint8_t> out({2});
  ASSERT_EQ(RunKernel(AnyOut, {empty.ev(), &one, &no, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (std::vector<uint8_t>{0, 0}));
  ASSERT_EQ(RunKernel(AllOut, {empty.ev(), &one, &no, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (std::vector<uint8_t>{1, 1}));
  // A float out is refused, as is a dim out of range.
  TestTensor<float> fo({2});
  EXPECT_EQ(RunKernel(AnyOut, {empty.ev(), &one, &no, fo.ev(), fo.ev()}), Error::kInvalidArgument);
  EValue three = EValue::FromInt(3);
  EXPECT_EQ(RunKernel(AnyOut, {empty.ev(), &three, &no, out.ev(), out.ev()}),
            Error::kInvalidArgument);
  EXPECT_EQ(RunKernel(AnyAllOut, {empty.ev(), out.ev()}), Error::kInvalidArgument);
}

}  // namespace
}  // namespace portable
}  // namespace edgefleet
