#include <cmath>
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
using F = std::vector<float>;
using S = std::vector<int32_t>;

F Arange(int n) {
  F v;
  for (int i = 0; i < n; ++i) v.push_back(static_cast<float>(i));
  return v;
}

TEST(ReductionTest, MeanOverDimsKeepdimAndAll) {
  // torch.arange(24.).reshape(2, 3, 4).mean(dim=[0, 2]) -> [7.5, 11.5, 15.5]
  TestTensor<float> x({2, 3, 4}, Arange(24), {2, 0, 1});
  TestTensor<float> out({3});
  TestIntList dims({0, 2});
  EValue no = EValue::FromBool(false);
  EValue yes = EValue::FromBool(true);
  EValue none;
  ASSERT_EQ(RunKernel(MeanOut, {x.ev(), dims.ev(), &no, &none, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{7.5f, 11.5f, 15.5f}));
  // .mean(dim=[-1], keepdim=True)
  TestTensor<float> kept({2, 3, 1});
  TestIntList last({-1});
  ASSERT_EQ(RunKernel(MeanOut, {x.ev(), last.ev(), &yes, &none, kept.ev(), kept.ev()}), Error::kOk);
  EXPECT_EQ(kept.Values(), (F{1.5f, 5.5f, 9.5f, 13.5f, 17.5f, 21.5f}));
  // dim=None reduces everything.
  TestTensor<float> all({});
  ASSERT_EQ(RunKernel(MeanOut, {x.ev(), &none, &no, &none, all.ev(), all.ev()}), Error::kOk);
  EXPECT_EQ(all.Values(), (F{11.5f}));
  // Mean over an empty dim is NaN.
  TestTensor<float> empty({2, 0});
  TestTensor<float> nan({2});
  TestIntList one({1});
  ASSERT_EQ(RunKernel(MeanOut, {empty.ev(), one.ev(), &no, &none, nan.ev(), nan.ev()}), Error::kOk);
  EXPECT_TRUE(std::isnan(nan.Values()[0]));
  // Errors: duplicate dim, integer out, dtype mismatch.
  TestIntList dup({0, -3});
  EXPECT_EQ(RunKernel(MeanOut, {x.ev(), dup.ev(), &no, &none, out.ev(), out.ev()}),
            Error::kInvalidArgument);
  TestTensor<int64_t> iout({3});
  EXPECT_EQ(RunKernel(MeanOut, {x.ev(), dims.ev(), &no, &none, iout.ev(), iout.ev()}),
            Error::kInvalidArgument);
  EValue dtype_double = EValue::FromInt(7);
  EXPECT_EQ(RunKernel(MeanOut, {x.ev(), dims.ev(), &no, &dtype_double, out.ev(), out.ev()}),
            Error::kInvalidArgument);
}

TEST(ReductionTest, SumIntAndBool) {
  // torch.arange(24, dtype=torch.int32).reshape(2, 3, 4).sum(dim=[1])
  std::vector<int32_t> x24;
  for (int i = 0; i < 24; ++i) x24.push_back(i);
  TestTensor<int32_t> x({2, 3, 4}, x24);
  TestTensor<int64_t> out({2, 4});
  TestIntList dims({1});
  EValue no = EValue::FromBool(false);
  EValue int64 = EValue::FromInt(4);
  ASSERT_EQ(RunKernel(SumIntListOut, {x.ev(), dims.ev(), &no, &int64, out.ev(), out.ev()}),
            Error::kOk);
  EXPECT_EQ(out.Values(), (std::vector<int64_t>{12, 15, 18, 21, 48, 51, 54, 57}));
  TestTensor<bool> b({4}, {true, false, true, true});
  TestTensor<int64_t> count({});
  TestIntList empty({});
  EValue none;
  ASSERT_EQ(RunKernel(SumIntListOut, {b.ev(), empty.ev(), &no, &none, count.ev(), count.ev()}),
            Error::kOk);
  EXPECT_EQ(count.Values(), (std::vector<int64_t>{3}));
}

TEST(IndexTest, SliceCopy) {
  TestTensor<float> x({2, 5}, Arange(10));
  TestTensor<float> out({2, 2});
  EValue dim = EValue::FromInt(1);
  EValue start = EValue::FromInt(-4);
  EValue none;
  EValue step = EValue::FromInt(2);
  // x[:, -4::2]
  ASSERT_EQ(RunKernel(SliceCopyTensorOut, {x.ev(), &dim, &start, &none, &step, out.ev(), out.ev()}),
            Error::kOk);
  EXPECT_EQ(out.Values(), (F{1, 3, 6, 8}));
  // Out-of-range bounds clamp: x[1:100] along dim 0.
  EValue d0 = EValue::FromInt(0);
  EValue one = EValue::FromInt(1);
  EValue big = EValue::FromInt(100);
  TestTensor<float> row({1, 5});
  ASSERT_EQ(RunKernel(SliceCopyTensorOut, {x.ev(), &d0, &one, &big, &one, row.ev(), row.ev()}),
            Error::kOk);
  EXPECT_EQ(row.Values(), (F{5, 6, 7, 8, 9}));
  // end < start gives an empty slice.
  TestTensor<float> empty({2, 0});
  ASSERT_EQ(RunKernel(SliceCopyTensorOut, {x.ev(), &dim, &big, &one, &one, empty.ev(), empty.ev()}),
            Error::kOk);
  EValue zero = EValue::FromInt(0);
  EXPECT_EQ(RunKernel(SliceCopyTensorOut, {x.ev(), &dim, &none, &none, &zero, out.ev(), out.ev()}),
            Error::kInvalidArgument);  // A step far past the size takes one element (torch: x[:,
                                       // 2::2**62]); the
  // stride it would give is never formed (it overflows int64).
  EValue two = EValue::FromInt(2);
  EValue huge = EValue::FromInt(int64_t{1} << 62);
  TestTensor<float> column({2, 1});
  ASSERT_EQ(
      RunKernel(SliceCopyTensorOut, {x.ev(), &dim, &two, &none, &huge, column.ev(), column.ev()}),
      Error::kOk);
  EXPECT_EQ(column.Values(), (F{2, 7}));
}

TEST(IndexTest, SelectCopy) {
  TestTensor<float> x({2, 3}, Arange(6), {1, 0});
  TestTensor<float> out({2});
  EValue dim = EValue::FromInt(1);
  EValue index = EValue::FromInt(-1);
  ASSERT_EQ(RunKernel(SelectCopyIntOut, {x.ev(), &dim, &index, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{2, 5}));
  EValue bad = EValue::FromInt(3);
  EXPECT_EQ(RunKernel(SelectCopyIntOut, {x.ev(), &dim, &bad, out.ev(), out.ev()}),
            Error::kInvalidArgument);
}

TEST(IndexTest, ConstantPadNd) {
  TestTensor<float> x({2, 2}, {1, 2, 3, 4});
  TestTensor<float> out({3, 5});
  // F.pad(x, [2, 1, 0, 1], value=-1)
  TestIntList pad({2, 1, 0, 1});
  EValue value = EValue::FromDouble(-1);
  ASSERT_EQ(RunKernel(ConstantPadNdOut, {x.ev(), pad.ev(), &value, out.ev(), out.ev()}),
            Error::kOk);
  EXPECT_EQ(out.Values(), (F{-1, -1, 1, 2, -1, -1, -1, 3, 4, -1, -1, -1, -1, -1, -1}));
  // Negative padding crops: F.pad(x, [-1, 1]) -> [[2, 0], [4, 0]].
  TestTensor<float> cropped({2, 2});
  TestIntList crop({-1, 1});
  EValue zero = EValue::FromInt(0);
  ASSERT_EQ(RunKernel(ConstantPadNdOut, {x.ev(), crop.ev(), &zero, cropped.ev(), cropped.ev()}),
            Error::kOk);
  EXPECT_EQ(cropped.Values(), (F{2, 0, 4, 0}));
  TestIntList odd({1, 2, 3});
  EXPECT_EQ(RunKernel(ConstantPadNdOut, {x.ev(), odd.ev(), &zero, out.ev(), out.ev()}),
            Error::kInvalidArgument);
}

TEST(IndexTest, Embedding) {
  TestTensor<float> weight({3, 2}, {0, 1, 10, 11, 20, 21});
  TestTensor<int64_t> indices({2, 2}, {2, 0, 1, 1});
  TestTensor<float> out({2, 2, 2});
  EValue padding_idx = EValue::FromInt(-1);
  EValue no = EValue::FromBool(false);
  ASSERT_EQ(RunKernel(EmbeddingOut,
                      {weight.ev(), indices.ev(), &padding_idx, &no, &no, out.ev(), out.ev()}),
            Error::kOk);
  EXPECT_EQ(out.Values(), (F{20, 21, 0, 1, 10, 11, 10, 11}));
  TestTensor<int32_t> bad({1}, {3});
  TestTensor<float> row({1, 2});
  EXPECT_EQ(
      RunKernel(EmbeddingOut, {weight.ev(), bad.ev(), &padding_idx, &no, &no, row.ev(), row.ev()}),
      Error::kInvalidArgument);
  TestTensor<float> float_indices({1});
  EXPECT_EQ(RunKernel(EmbeddingOut, {weight.ev(), float_indices.ev(), &padding_idx, &no, &no,
                                     row.ev(), row.ev()}),
            Error::kInvalidArgument);
}

}  // namespace
}  // namespace portable
}  // namespace edgefleet
