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
using testing::TestTensorList;
using F = std::vector<float>;
using S = std::vector<int32_t>;

// x = torch.arange(6.).reshape(2, 3)
const F kX = {0, 1, 2, 3, 4, 5};

TEST(PermuteTest, PermuteTransposeAndT) {
  // torch.arange(24.).reshape(2, 3, 4).permute(2, 0, 1)
  F x24;
  for (int i = 0; i < 24; ++i) x24.push_back(i);
  TestTensor<float> x({2, 3, 4}, x24);
  TestTensor<float> out({4, 2, 3});
  TestIntList dims({2, 0, -2});
  ASSERT_EQ(RunKernel(PermuteCopyOut, {x.ev(), dims.ev(), out.ev(), out.ev()}), Error::kOk);
  const F expected = {0, 4, 8,  12, 16, 20, 1, 5, 9,  13, 17, 21,
                      2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23};
  EXPECT_EQ(out.Values(), expected);
  // Same result from a channels-last-like input into a permuted out.
  TestTensor<float> xc({2, 3, 4}, x24, {0, 2, 1});
  TestTensor<float> oc({4, 2, 3}, {}, {2, 1, 0});
  ASSERT_EQ(RunKernel(PermuteCopyOut, {xc.ev(), dims.ev(), oc.ev(), oc.ev()}), Error::kOk);
  EXPECT_EQ(oc.Values(), expected);
  TestIntList bad({0, 0, 1});
  EXPECT_EQ(RunKernel(PermuteCopyOut, {x.ev(), bad.ev(), out.ev(), out.ev()}),
            Error::kInvalidArgument);

  TestTensor<float> m({2, 3}, kX);
  TestTensor<float> mt({3, 2});
  ASSERT_EQ(RunKernel(TCopyOut, {m.ev(), mt.ev(), mt.ev()}), Error::kOk);
  EXPECT_EQ(mt.Values(), (F{0, 3, 1, 4, 2, 5}));
  EValue d0 = EValue::FromInt(-1);
  EValue d1 = EValue::FromInt(0);
  ASSERT_EQ(RunKernel(TransposeCopyIntOut, {m.ev(), &d0, &d1, mt.ev(), mt.ev()}), Error::kOk);
  EXPECT_EQ(mt.Values(), (F{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(RunKernel(TCopyOut, {x.ev(), out.ev(), out.ev()}), Error::kInvalidArgument);
}

TEST(ExpandTest, NewDimsMinusOneAndErrors) {
  TestTensor<int64_t> x({3, 1}, {1, 2, 3});
  TestTensor<int64_t> out({2, 3, 2});
  TestIntList size({2, -1, 2});
  EValue implicit = EValue::FromBool(false);
  ASSERT_EQ(RunKernel(ExpandCopyOut, {x.ev(), size.ev(), &implicit, out.ev(), out.ev()}),
            Error::kOk);
  EXPECT_EQ(out.Values(), (std::vector<int64_t>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
  TestIntList bad({2, 4, 2});
  EXPECT_EQ(RunKernel(ExpandCopyOut, {x.ev(), bad.ev(), &implicit, out.ev(), out.ev()}),
            Error::kInvalidArgument);
  TestIntList leading_minus_one({-1, 3, 2});
  EXPECT_EQ(
      RunKernel(ExpandCopyOut, {x.ev(), leading_minus_one.ev(), &implicit, out.ev(), out.ev()}),
      Error::kInvalidArgument);
}

TEST(ViewTest, ViewCopyInfersAndConvertsLayout) {
  TestTensor<float> x({2, 3}, kX, {1, 0});  // column-major storage
  TestTensor<float> out({3, 2});
  TestIntList size({-1, 2});
  ASSERT_EQ(RunKernel(ViewCopyOut, {x.ev(), size.ev(), out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Sizes(), (S{3, 2}));
  EXPECT_EQ(out.Values(), kX);  // logical order is kept
  EXPECT_EQ(out.tensor().data_as<float>()[1], 1);
  TestIntList bad({4, -1});
  EXPECT_EQ(RunKernel(ViewCopyOut, {x.ev(), bad.ev(), out.ev(), out.ev()}),
            Error::kInvalidArgument);
  TestIntList two_infer({-1, -1});
  EXPECT_EQ(RunKernel(ViewCopyOut, {x.ev(), two_infer.ev(), out.ev(), out.ev()}),
            Error::kInvalidArgument);
  TestTensor<float> fixed({2, 3}, {}, {}, ShapeDynamism::kStatic);
  TestIntList size32({3, 2});
  EXPECT_EQ(RunKernel(ViewCopyOut, {x.ev(), size32.ev(), fixed.ev(), fixed.ev()}),
            Error::kNotSupported);
}

TEST(ViewTest, UnsqueezeAndSqueeze) {
  TestTensor<float> x({2, 3}, kX);
  TestTensor<float> out({2, 1, 3});
  EValue dim = EValue::FromInt(-2);
  ASSERT_EQ(RunKernel(UnsqueezeCopyOut, {x.ev(), &dim, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), kX);
  EValue bad_dim = EValue::FromInt(3);
  EXPECT_EQ(RunKernel(UnsqueezeCopyOut, {x.ev(), &bad_dim, out.ev(), out.ev()}),
            Error::kInvalidArgument);

  TestTensor<float> y({1, 2, 1, 3}, kX);
  TestTensor<float> squeezed({2, 1, 3});
  EValue d0 = EValue::FromInt(0);
  ASSERT_EQ(RunKernel(SqueezeCopyDimOut, {y.ev(), &d0, squeezed.ev(), squeezed.ev()}), Error::kOk);
  EXPECT_EQ(squeezed.Sizes(), (S{2, 1, 3}));
  // Squeezing a dim of size 2 keeps it.
  TestTensor<float> same({1, 2, 1, 3});
  EValue d1 = EValue::FromInt(1);
  ASSERT_EQ(RunKernel(SqueezeCopyDimOut, {y.ev(), &d1, same.ev(), same.ev()}), Error::kOk);
  TestTensor<float> both({2, 3});
  TestIntList dims({0, -2});
  ASSERT_EQ(RunKernel(SqueezeCopyDimsOut, {y.ev(), dims.ev(), both.ev(), both.ev()}), Error::kOk);
  EXPECT_EQ(both.Values(), kX);
  TestIntList bad({4});
  EXPECT_EQ(RunKernel(SqueezeCopyDimsOut, {y.ev(), bad.ev(), both.ev(), both.ev()}),
            Error::kInvalidArgument);
}

TEST(CatTest, DimPromotionAndLegacyEmpty) {
  TestTensor<float> a({2, 1}, {1, 2});
  TestTensor<int64_t> b({2, 2}, {3, 4, 5, 6});
  TestTensor<float> skipped({0});
  TestTensorList list({a.ev(), skipped.ev(), b.ev()});
  TestTensor<float> out({2, 3}, {}, {1, 0});
  EValue dim = EValue::FromInt(-1);
  ASSERT_EQ(RunKernel(CatOut, {list.ev(), &dim, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{1, 3, 4, 2, 5, 6}));
  TestTensorList rows({a.ev(), a.ev()});
  TestTensor<float> stacked({4, 1});
  EValue d0 = EValue::FromInt(0);
  ASSERT_EQ(RunKernel(CatOut, {rows.ev(), &d0, stacked.ev(), stacked.ev()}), Error::kOk);
  EXPECT_EQ(stacked.Values(), (F{1, 2, 1, 2}));
  // Mismatched non-cat dims, and a float input into an int out.
  TestTensor<float> c({3, 1});
  TestTensorList mismatched({a.ev(), c.ev()});
  EXPECT_EQ(RunKernel(CatOut, {mismatched.ev(), &dim, out.ev(), out.ev()}),
            Error::kInvalidArgument);
  TestTensor<int64_t> int_out({2, 3});
  EXPECT_EQ(RunKernel(CatOut, {list.ev(), &dim, int_out.ev(), int_out.ev()}),
            Error::kInvalidArgument);
  EValue not_list = EValue::FromInt(0);
  EXPECT_EQ(RunKernel(CatOut, {&not_list, &dim, out.ev(), out.ev()}), Error::kInvalidArgument);
}

TEST(CopyTest, CloneAndDimOrderOps) {
  TestTensor<float> x({1, 2, 1, 2}, {1, 2, 3, 4});
  TestTensor<float> out({1, 2, 1, 2}, {}, {0, 2, 3, 1});
  EValue none;
  ASSERT_EQ(RunKernel(CloneOut, {x.ev(), &none, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{1, 2, 3, 4}));
  EXPECT_EQ(out.tensor().data_as<float>()[1], 3);  // channels-last memory

  EValue non_blocking = EValue::FromBool(false);
  TestIntList channels_last({0, 2, 3, 1});
  TestTensor<float> back({1, 2, 1, 2});
  ASSERT_EQ(RunKernel(CloneDimOrderOut, {out.ev(), &non_blocking, &none, back.ev(), back.ev()}),
            Error::kOk);
  EXPECT_EQ(back.Values(), (F{1, 2, 3, 4}));
  // The dim_order argument must be the out tensor's.
  EXPECT_EQ(RunKernel(CloneDimOrderOut,
                      {x.ev(), &non_blocking, channels_last.ev(), back.ev(), back.ev()}),
            Error::kInvalidArgument);
  ASSERT_EQ(
      RunKernel(CloneDimOrderOut, {x.ev(), &non_blocking, channels_last.ev(), out.ev(), out.ev()}),
      Error::kOk);
  // _to_dim_order_copy converts dtype; clone does not.
  TestTensor<int32_t> as_int({1, 2, 1, 2});
  TestTensor<float> fractions({1, 2, 1, 2}, {1.5f, -2.5f, 3, 255});
  ASSERT_EQ(RunKernel(ToDimOrderCopyOut,
                      {fractions.ev(), &non_blocking, &none, as_int.ev(), as_int.ev()}),
            Error::kOk);
  EXPECT_EQ(as_int.Values(), (std::vector<int32_t>{1, -2, 3, 255}));
  TestTensor<bool> as_bool({1, 2, 1, 2});
  ASSERT_EQ(
      RunKernel(ToDimOrderCopyOut, {as_int.ev(), &non_blocking, &none, as_bool.ev(), as_bool.ev()}),
      Error::kOk);
  EXPECT_EQ(as_bool.Values(), (std::vector<bool>{true, true, true, true}));
  EXPECT_EQ(RunKernel(CloneOut, {x.ev(), &none, as_int.ev(), as_int.ev()}),
            Error::kInvalidArgument);
  // A 0-dim int64 to float (two_in_tuple_out fixture's scalar constant).
  TestTensor<int64_t> scalar({}, {7});
  TestTensor<float> scalar_out({});
  TestIntList empty_order({});
  ASSERT_EQ(RunKernel(ToDimOrderCopyOut, {scalar.ev(), &non_blocking, empty_order.ev(),
                                          scalar_out.ev(), scalar_out.ev()}),
            Error::kOk);
  EXPECT_EQ(scalar_out.Values(), (F{7}));
}

TEST(FullTest, FillsEveryDtype) {
  TestIntList size({2, 2});
  TestTensor<float> out({2, 2});
  EValue value = EValue::FromDouble(1.5);
  ASSERT_EQ(RunKernel(FullOut, {size.ev(), &value, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{1.5f, 1.5f, 1.5f, 1.5f}));
  TestTensor<int64_t> ints({1}, {}, {}, ShapeDynamism::kDynamicBound, 4);
  EValue seven = EValue::FromInt(7);
  ASSERT_EQ(RunKernel(FullOut, {size.ev(), &seven, ints.ev(), ints.ev()}),
            Error::kInvalidArgument);  // rank 1 out, rank 2 size
  TestTensor<int64_t> ints2({2, 2});
  ASSERT_EQ(RunKernel(FullOut, {size.ev(), &seven, ints2.ev(), ints2.ev()}), Error::kOk);
  EXPECT_EQ(ints2.Values(), (std::vector<int64_t>{7, 7, 7, 7}));
  TestIntList negative({-1, 2});
  EXPECT_EQ(RunKernel(FullOut, {negative.ev(), &seven, ints2.ev(), ints2.ev()}),
            Error::kInvalidArgument);
}

}  // namespace
}  // namespace portable
}  // namespace edgefleet
