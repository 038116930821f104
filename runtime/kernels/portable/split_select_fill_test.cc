// split_with_sizes_copy, split_copy, unbind_copy (split.cc), index_select
// (index_ops.cc), full_like, scalar_tensor and _to_copy (copy_ops.cc).

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
using I64 = std::vector<int64_t>;
using Sizes = std::vector<int32_t>;

// x = torch.arange(12.).reshape(2, 6)
F Arange(int n) {
  F v;
  for (int i = 0; i < n; ++i) v.push_back(static_cast<float>(i));
  return v;
}

TEST(SplitTest, WithSizesAlongLastDimAnyDimOrder) {
  // The GRU gate split: x.split([1, 2, 3], dim=1), outputs in other orders.
  TestTensor<float> x({2, 6}, Arange(12), {1, 0});
  TestTensor<float> a({2, 1});
  TestTensor<float> b({2, 2}, {}, {1, 0});
  TestTensor<float> c({2, 3});
  TestTensorList outs({a.ev(), b.ev(), c.ev()});
  TestIntList sizes({1, 2, 3});
  EValue dim = EValue::FromInt(-1);
  ASSERT_EQ(RunKernel(SplitWithSizesCopyOut, {x.ev(), sizes.ev(), &dim, outs.ev(), outs.ev()}),
            Error::kOk);
  EXPECT_EQ(a.Values(), (F{0, 6}));
  EXPECT_EQ(b.Values(), (F{1, 2, 7, 8}));
  EXPECT_EQ(c.Values(), (F{3, 4, 5, 9, 10, 11}));
  // A zero-size piece is allowed.
  TestTensor<float> e({2, 0});
  TestTensor<float> all({2, 6});
  TestTensorList outs2({e.ev(), all.ev()});
  TestIntList sizes2({0, 6});
  ASSERT_EQ(RunKernel(SplitWithSizesCopyOut, {x.ev(), sizes2.ev(), &dim, outs2.ev(), outs2.ev()}),
            Error::kOk);
  EXPECT_EQ(all.Values(), Arange(12));
}

TEST(SplitTest, WithSizesInvalid) {
  TestTensor<float> x({2, 6}, Arange(12));
  TestTensor<float> a({2, 3});
  TestTensor<float> b({2, 3});
  TestTensorList outs({a.ev(), b.ev()});
  EValue dim = EValue::FromInt(1);
  TestIntList short_sizes({3, 2});
  EXPECT_EQ(
      RunKernel(SplitWithSizesCopyOut, {x.ev(), short_sizes.ev(), &dim, outs.ev(), outs.ev()}),
      Error::kInvalidArgument);
  TestIntList three({2, 2, 2});
  EXPECT_EQ(RunKernel(SplitWithSizesCopyOut, {x.ev(), three.ev(), &dim, outs.ev(), outs.ev()}),
            Error::kInvalidArgument);
  TestIntList negative({-1, 7});
  EXPECT_EQ(RunKernel(SplitWithSizesCopyOut, {x.ev(), negative.ev(), &dim, outs.ev(), outs.ev()}),
            Error::kInvalidArgument);
  TestIntList ok({3, 3});
  EValue bad_dim = EValue::FromInt(2);
  EXPECT_EQ(RunKernel(SplitWithSizesCopyOut, {x.ev(), ok.ev(), &bad_dim, outs.ev(), outs.ev()}),
            Error::kInvalidArgument);
  TestTensor<int32_t> wrong({2, 3});
  TestTensorList mixed({a.ev(), wrong.ev()});
  EXPECT_EQ(RunKernel(SplitWithSizesCopyOut, {x.ev(), ok.ev(), &dim, mixed.ev(), mixed.ev()}),
            Error::kInvalidArgument);
  TestTensorList self({a.ev(), x.ev()});
  EXPECT_EQ(RunKernel(SplitWithSizesCopyOut, {x.ev(), ok.ev(), &dim, self.ev(), self.ev()}),
            Error::kInvalidArgument);
}

TEST(SplitTest, SplitCopyLastPieceSmaller) {
  // torch.arange(5).split(2) -> [0, 1], [2, 3], [4]
  TestTensor<int64_t> x({5}, {0, 1, 2, 3, 4});
  TestTensor<int64_t> a({2}), b({2}), c({2});
  TestTensorList outs({a.ev(), b.ev(), c.ev()});
  EValue two = EValue::FromInt(2);
  EValue zero = EValue::FromInt(0);
  ASSERT_EQ(RunKernel(SplitCopyTensorOut, {x.ev(), &two, &zero, outs.ev(), outs.ev()}), Error::kOk);
  EXPECT_EQ(a.Values(), (I64{0, 1}));
  EXPECT_EQ(b.Values(), (I64{2, 3}));
  EXPECT_EQ(c.Values(), (I64{4}));
  TestTensorList two_outs({a.ev(), b.ev()});
  EXPECT_EQ(RunKernel(SplitCopyTensorOut, {x.ev(), &two, &zero, two_outs.ev(), two_outs.ev()}),
            Error::kInvalidArgument);
  EXPECT_EQ(RunKernel(SplitCopyTensorOut, {x.ev(), &zero, &zero, outs.ev(), outs.ev()}),
            Error::kInvalidArgument);
  EValue huge = EValue::FromInt(INT64_MAX);
  TestTensor<int64_t> whole({5});
  TestTensorList one_out({whole.ev()});
  ASSERT_EQ(RunKernel(SplitCopyTensorOut, {x.ev(), &huge, &zero, one_out.ev(), one_out.ev()}),
            Error::kOk);
  EXPECT_EQ(whole.Values(), (I64{0, 1, 2, 3, 4}));
}

TEST(SplitTest, UnbindDropsTheDim) {
  // torch.arange(6.).reshape(2, 3).unbind(1) -> [0, 3], [1, 4], [2, 5]
  TestTensor<float> x({2, 3}, Arange(6), {1, 0});
  TestTensor<float> a({2}), b({2}), c({2});
  TestTensorList outs({a.ev(), b.ev(), c.ev()});
  EValue one = EValue::FromInt(1);
  ASSERT_EQ(RunKernel(UnbindCopyIntOut, {x.ev(), &one, outs.ev(), outs.ev()}), Error::kOk);
  EXPECT_EQ(a.Values(), (F{0, 3}));
  EXPECT_EQ(b.Values(), (F{1, 4}));
  EXPECT_EQ(c.Values(), (F{2, 5}));
  TestTensorList two({a.ev(), b.ev()});
  EXPECT_EQ(RunKernel(UnbindCopyIntOut, {x.ev(), &one, two.ev(), two.ev()}),
            Error::kInvalidArgument);
  TestTensor<float> s({}, {1});
  EValue zero = EValue::FromInt(0);
  EXPECT_EQ(RunKernel(UnbindCopyIntOut, {s.ev(), &zero, two.ev(), two.ev()}),
            Error::kInvalidArgument);
}

TEST(IndexSelectTest, RowsColumnsAndErrors) {
  // x = torch.arange(12.).reshape(3, 4); x.index_select(1, [3, 0, 3])
  TestTensor<float> x({3, 4}, Arange(12), {1, 0});
  TestTensor<int64_t> idx({3}, {3, 0, 3});
  TestTensor<float> out({3, 3});
  EValue one = EValue::FromInt(1);
  ASSERT_EQ(RunKernel(IndexSelectOut, {x.ev(), &one, idx.ev(), out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{3, 0, 3, 7, 4, 7, 11, 8, 11}));
  // int32 indices along dim 0; a 0-dim index keeps the dim with size 1.
  TestTensor<int32_t> row({}, {2});
  TestTensor<float> r({1, 4});
  EValue zero = EValue::FromInt(0);
  ASSERT_EQ(RunKernel(IndexSelectOut, {x.ev(), &zero, row.ev(), r.ev(), r.ev()}), Error::kOk);
  EXPECT_EQ(r.Values(), (F{8, 9, 10, 11}));
  // Empty index -> empty result.
  TestTensor<int64_t> none({0});
  TestTensor<float> empty({0, 4});
  ASSERT_EQ(RunKernel(IndexSelectOut, {x.ev(), &zero, none.ev(), empty.ev(), empty.ev()}),
            Error::kOk);
  EXPECT_EQ(empty.Sizes(), (Sizes{0, 4}));
  TestTensor<int64_t> bad({1}, {3});
  EXPECT_EQ(RunKernel(IndexSelectOut, {x.ev(), &zero, bad.ev(), r.ev(), r.ev()}),
            Error::kInvalidArgument);
  TestTensor<int64_t> negative({1}, {-1});
  EXPECT_EQ(RunKernel(IndexSelectOut, {x.ev(), &zero, negative.ev(), r.ev(), r.ev()}),
            Error::kInvalidArgument);
  TestTensor<float> float_index({1}, {0});
  EXPECT_EQ(RunKernel(IndexSelectOut, {x.ev(), &zero, float_index.ev(), r.ev(), r.ev()}),
            Error::kInvalidArgument);
}

TEST(FillTest, FullLikeScalarTensorAndToCopy) {
  TestTensor<float> like({2, 3});
  TestTensor<int32_t> out({2, 3}, {}, {1, 0});
  EValue value = EValue::FromDouble(2.7);
  EValue preserve = EValue::FromInt(1);  // memory_format: the out's order
  ASSERT_EQ(RunKernel(FullLikeOut, {like.ev(), &value, &preserve, out.ev(), out.ev()}), Error::kOk);
  // torch.full_like(torch.empty(2, 3, dtype=torch.int32), 2.7) -> 2
  EXPECT_EQ(out.Values(), (std::vector<int32_t>(6, 2)));
  TestTensor<float> empty_like({0, 3});
  TestTensor<float> empty({0, 3});
  EValue none;
  ASSERT_EQ(RunKernel(FullLikeOut, {empty_like.ev(), &value, &none, empty.ev(), empty.ev()}),
            Error::kOk);
  TestTensor<float> s({});
  EValue three = EValue::FromInt(3);
  ASSERT_EQ(RunKernel(ScalarTensorOut, {&three, s.ev(), s.ev()}), Error::kOk);
  EXPECT_EQ(s.Values(), (F{3}));
  EXPECT_EQ(RunKernel(ScalarTensorOut, {&none, s.ev(), s.ev()}), Error::kInvalidArgument);
  // _to_copy converts dtype and dim order: float -> int64 truncates.
  TestTensor<float> x({2, 2}, {1.5f, -2.5f, 3, 4.9f});
  TestTensor<int64_t> l({2, 2}, {}, {1, 0});
  EValue no = EValue::FromBool(false);
  ASSERT_EQ(RunKernel(ToCopyOut, {x.ev(), &no, &none, l.ev(), l.ev()}), Error::kOk);
  EXPECT_EQ(l.Values(), (I64{1, -2, 3, 4}));
  TestTensor<int64_t> wrong_shape({3});
  EXPECT_EQ(RunKernel(ToCopyOut, {x.ev(), &no, &none, wrong_shape.ev(), wrong_shape.ev()}),
            Error::kInvalidArgument);
}

}  // namespace
}  // namespace portable
}  // namespace edgefleet
