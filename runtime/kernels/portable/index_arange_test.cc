// index.Tensor_out (index_tensor.cc), slice_scatter (index_ops.cc),
// as_strided_copy (permute_ops.cc), copy and arange (copy_ops.cc), argmax
// and argmin (reduction.cc).

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
using testing::TestTensorList;
using F = std::vector<float>;
using I64 = std::vector<int64_t>;
using Sizes = std::vector<int32_t>;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

F Arange(int n) {
  F v;
  for (int i = 0; i < n; ++i) v.push_back(static_cast<float>(i));
  return v;
}

// Output tensors with room for any result up to 32 elements.
template <typename T>
std::unique_ptr<TestTensor<T>> Out(std::vector<int32_t> sizes) {
  return std::make_unique<TestTensor<T>>(sizes, std::vector<T>{}, std::vector<uint8_t>{},
                                         ShapeDynamism::kDynamicBound, 32);
}

TEST(IndexTensorTest, IntegerIndices) {
  // t = torch.arange(12.).reshape(3, 4), stored column-major.
  TestTensor<float> t({3, 4}, Arange(12), {1, 0});
  // t[[2, -3]]
  TestTensor<int64_t> rows({2}, {2, -3});
  TestTensorList one({rows.ev()}, /*optional=*/true);
  auto out = Out<float>({2, 4});
  ASSERT_EQ(RunKernel(IndexTensorOut, {t.ev(), one.ev(), out->ev(), out->ev()}), Error::kOk);
  EXPECT_EQ(out->Values(), (F{8, 9, 10, 11, 0, 1, 2, 3}));
  // t[[[0], [2]], [1, 3]]: the two index tensors broadcast to [2, 2].
  TestTensor<int32_t> r({2, 1}, {0, 2});
  TestTensor<int64_t> c({2}, {1, 3});
  TestTensorList two({r.ev(), c.ev()}, /*optional=*/true);
  ASSERT_EQ(RunKernel(IndexTensorOut, {t.ev(), two.ev(), out->ev(), out->ev()}), Error::kOk);
  EXPECT_EQ(out->Sizes(), (Sizes{2, 2}));
  EXPECT_EQ(out->Values(), (F{1, 3, 9, 11}));
}

TEST(IndexTensorTest, NoneGapsAndPlacement) {
  // t3 = torch.arange(24.).reshape(2, 3, 4)
  TestTensor<float> t3({2, 3, 4}, Arange(24));
  // t3[:, [2, 0]]: B replaces dim 1 -> [2, 2, 4].
  TestTensor<int64_t> mid({2}, {2, 0});
  TestTensorList gap({nullptr, mid.ev()}, /*optional=*/true);
  auto out = Out<float>({2, 2, 4});
  ASSERT_EQ(RunKernel(IndexTensorOut, {t3.ev(), gap.ev(), out->ev(), out->ev()}), Error::kOk);
  EXPECT_EQ(out->Sizes(), (Sizes{2, 2, 4}));
  EXPECT_EQ(out->Values(), (F{8, 9, 10, 11, 0, 1, 2, 3, 20, 21, 22, 23, 12, 13, 14, 15}));
  // t3[[1, 0], :, [3, 2]]: separated indices put B first -> [2, 3].
  TestTensor<int64_t> i0({2}, {1, 0});
  TestTensor<int64_t> i2({2}, {3, 2});
  TestTensorList apart({i0.ev(), nullptr, i2.ev()}, /*optional=*/true);
  auto out2 = Out<float>({1, 1});
  ASSERT_EQ(RunKernel(IndexTensorOut, {t3.ev(), apart.ev(), out2->ev(), out2->ev()}), Error::kOk);
  EXPECT_EQ(out2->Sizes(), (Sizes{2, 3}));
  EXPECT_EQ(out2->Values(), (F{15, 19, 23, 2, 6, 10}));
}

TEST(IndexTensorTest, BoolMasks) {
  TestTensor<float> t({3, 4}, Arange(12));
  // t[mask] with a [3, 4] mask -> the true elements in row-major order.
  TestTensor<bool> mask(
      {3, 4}, {true, false, false, true, false, false, true, false, false, false, false, false},
      {1, 0});
  TestTensorList m({mask.ev()}, /*optional=*/true);
  auto out = Out<float>({3});
  ASSERT_EQ(RunKernel(IndexTensorOut, {t.ev(), m.ev(), out->ev(), out->ev()}), Error::kOk);
  EXPECT_EQ(out->Values(), (F{0, 3, 6}));
  // t[[False, True, True]] selects rows.
  TestTensor<bool> rows({3}, {false, true, true});
  TestTensorList r({rows.ev()}, /*optional=*/true);
  auto out2 = Out<float>({1, 1});
  ASSERT_EQ(RunKernel(IndexTensorOut, {t.ev(), r.ev(), out2->ev(), out2->ev()}), Error::kOk);
  EXPECT_EQ(out2->Sizes(), (Sizes{2, 4}));
  EXPECT_EQ(out2->Values(), (F{4, 5, 6, 7, 8, 9, 10, 11}));
  // An all-false mask gives an empty result; a wrong-size mask fails.
  TestTensor<bool> none({3}, {false, false, false});
  TestTensorList n({none.ev()}, /*optional=*/true);
  ASSERT_EQ(RunKernel(IndexTensorOut, {t.ev(), n.ev(), out2->ev(), out2->ev()}), Error::kOk);
  EXPECT_EQ(out2->Sizes(), (Sizes{0, 4}));
  TestTensor<bool> wrong({4}, {true, true, true, true});
  TestTensorList w({wrong.ev()}, /*optional=*/true);
  EXPECT_EQ(RunKernel(IndexTensorOut, {t.ev(), w.ev(), out->ev(), out->ev()}),
            Error::kInvalidArgument);
}

TEST(IndexTensorTest, InvalidArguments) {
  TestTensor<float> t({3, 4}, Arange(12));
  auto out = Out<float>({1, 4});
  TestTensor<int64_t> big({1}, {3});
  TestTensorList b({big.ev()}, /*optional=*/true);
  EXPECT_EQ(RunKernel(IndexTensorOut, {t.ev(), b.ev(), out->ev(), out->ev()}),
            Error::kInvalidArgument);
  TestTensor<float> float_index({1}, {0});
  TestTensorList f({float_index.ev()}, /*optional=*/true);
  EXPECT_EQ(RunKernel(IndexTensorOut, {t.ev(), f.ev(), out->ev(), out->ev()}),
            Error::kInvalidArgument);
  TestTensor<int64_t> i({1}, {0});
  TestTensorList three({i.ev(), i.ev(), i.ev()}, /*optional=*/true);
  EXPECT_EQ(RunKernel(IndexTensorOut, {t.ev(), three.ev(), out->ev(), out->ev()}),
            Error::kInvalidArgument);
  TestTensorList all_none({nullptr}, /*optional=*/true);
  EXPECT_EQ(RunKernel(IndexTensorOut, {t.ev(), all_none.ev(), out->ev(), out->ev()}),
            Error::kNotSupported);
  TestTensor<int64_t> a({2}, {0, 1});
  TestTensor<int64_t> c({3}, {0, 1, 2});
  TestTensorList mismatch({a.ev(), c.ev()}, /*optional=*/true);
  EXPECT_EQ(RunKernel(IndexTensorOut, {t.ev(), mismatch.ev(), out->ev(), out->ev()}),
            Error::kInvalidArgument);
  TestTensor<double> d({1, 4});
  TestTensorList ok({i.ev()}, /*optional=*/true);
  EXPECT_EQ(RunKernel(IndexTensorOut, {t.ev(), ok.ev(), d.ev(), d.ev()}), Error::kInvalidArgument);
}

TEST(SliceScatterTest, EveryOtherColumn) {
  // torch.slice_scatter(t, torch.full((3, 2), -1.), 1, 1, None, 2)
  TestTensor<float> t({3, 4}, Arange(12), {1, 0});
  TestTensor<float> src({3, 2}, F(6, -1));
  TestTensor<float> out({3, 4});
  EValue dim = EValue::FromInt(1), start = EValue::FromInt(1), none;
  EValue step = EValue::FromInt(2);
  ASSERT_EQ(RunKernel(SliceScatterOut,
                      {t.ev(), src.ev(), &dim, &start, &none, &step, out.ev(), out.ev()}),
            Error::kOk);
  EXPECT_EQ(out.Values(), (F{0, -1, 2, -1, 4, -1, 6, -1, 8, -1, 10, -1}));
  TestTensor<float> wrong({3, 3});
  EXPECT_EQ(RunKernel(SliceScatterOut,
                      {t.ev(), wrong.ev(), &dim, &start, &none, &step, out.ev(), out.ev()}),
            Error::kInvalidArgument);
  EValue zero_step = EValue::FromInt(0);
  EXPECT_EQ(RunKernel(SliceScatterOut,
                      {t.ev(), src.ev(), &dim, &start, &none, &zero_step, out.ev(), out.ev()}),
            Error::kInvalidArgument);
}

TEST(AsStridedCopyTest, ViewOfStorageAndBounds) {
  // torch.as_strided(torch.arange(12.).reshape(3, 4), (2, 2), (1, 4), 1)
  TestTensor<float> t({3, 4}, Arange(12));
  TestIntList size({2, 2});
  TestIntList stride({1, 4});
  EValue offset = EValue::FromInt(1);
  TestTensor<float> out({2, 2});
  ASSERT_EQ(
      RunKernel(AsStridedCopyOut, {t.ev(), size.ev(), stride.ev(), &offset, out.ev(), out.ev()}),
      Error::kOk);
  EXPECT_EQ(out.Values(), (F{1, 5, 2, 6}));
  // Reaching past the storage, negative strides, mismatched lists.
  EValue far = EValue::FromInt(8);
  EXPECT_EQ(RunKernel(AsStridedCopyOut, {t.ev(), size.ev(), stride.ev(), &far, out.ev(), out.ev()}),
            Error::kInvalidArgument);
  TestIntList negative({-1, 4});
  EXPECT_EQ(
      RunKernel(AsStridedCopyOut, {t.ev(), size.ev(), negative.ev(), &offset, out.ev(), out.ev()}),
      Error::kInvalidArgument);
  TestIntList one({1});
  EXPECT_EQ(RunKernel(AsStridedCopyOut, {t.ev(), size.ev(), one.ev(), &offset, out.ev(), out.ev()}),
            Error::kInvalidArgument);
  // An empty view reads nothing, whatever the offset.
  TestIntList empty_size({0, 2});
  TestTensor<float> empty({0, 2});
  EXPECT_EQ(RunKernel(AsStridedCopyOut,
                      {t.ev(), empty_size.ev(), stride.ev(), &far, empty.ev(), empty.ev()}),
            Error::kOk);
}

TEST(CopyTest, BroadcastsSrcAndConverts) {
  // torch.empty(2, 3, dtype=torch.int32).copy_(torch.tensor([1.9, -2.5, 3]))
  TestTensor<int32_t> self({2, 3});
  TestTensor<float> src({3}, {1.9f, -2.5f, 3});
  TestTensor<int32_t> out({2, 3}, {}, {1, 0});
  EValue no = EValue::FromBool(false);
  ASSERT_EQ(RunKernel(CopyOut, {self.ev(), src.ev(), &no, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (std::vector<int32_t>{1, -2, 3, 1, -2, 3}));
  TestTensor<float> bad({2});
  EXPECT_EQ(RunKernel(CopyOut, {self.ev(), bad.ev(), &no, out.ev(), out.ev()}),
            Error::kInvalidArgument);
}

TEST(ArangeTest, FloatIntNegativeAndInvalid) {
  // torch.arange(1, 2.0, 0.3) -> [1, 1.3, 1.6, 1.9] (float32)
  auto out = Out<float>({4});
  EValue start = EValue::FromInt(1), end = EValue::FromDouble(2.0);
  EValue step = EValue::FromDouble(0.3);
  ASSERT_EQ(RunKernel(ArangeStartOut, {&start, &end, &step, out->ev(), out->ev()}), Error::kOk);
  ExpectNear(out->Values(), F{1, 1.29999995f, 1.60000002f, 1.89999998f}, 0);
  // torch.arange(10, 0, -3) -> [10, 7, 4, 1]
  auto longs = Out<int64_t>({4});
  EValue ten = EValue::FromInt(10), zero = EValue::FromInt(0);
  EValue minus3 = EValue::FromInt(-3);
  ASSERT_EQ(RunKernel(ArangeStartOut, {&ten, &zero, &minus3, longs->ev(), longs->ev()}),
            Error::kOk);
  EXPECT_EQ(longs->Values(), (I64{10, 7, 4, 1}));
  EValue five = EValue::FromInt(5);
  ASSERT_EQ(RunKernel(ArangeOut, {&five, out->ev(), out->ev()}), Error::kOk);
  EXPECT_EQ(out->Values(), (F{0, 1, 2, 3, 4}));
  // Empty range; zero step; a step pointing away from end.
  ASSERT_EQ(RunKernel(ArangeOut, {&zero, out->ev(), out->ev()}), Error::kOk);
  EXPECT_EQ(out->Sizes(), (Sizes{0}));
  EXPECT_EQ(RunKernel(ArangeStartOut, {&start, &end, &zero, out->ev(), out->ev()}),
            Error::kInvalidArgument);
  EXPECT_EQ(RunKernel(ArangeStartOut, {&zero, &ten, &minus3, out->ev(), out->ev()}),
            Error::kInvalidArgument);
  EValue huge = EValue::FromDouble(1e12);
  EXPECT_EQ(RunKernel(ArangeOut, {&huge, out->ev(), out->ev()}), Error::kInvalidArgument);
}

TEST(ArgmaxTest, DimNoneKeepdimAndNan) {
  // m = [[1, 5, 5], [nan, 2, nan]]
  TestTensor<float> m({2, 3}, {1, 5, 5, kNan, 2, kNan}, {1, 0});
  EValue one = EValue::FromInt(1), zero = EValue::FromInt(0), none;
  EValue no = EValue::FromBool(false), yes = EValue::FromBool(true);
  auto out = Out<int64_t>({2});
  ASSERT_EQ(RunKernel(ArgmaxOut, {m.ev(), &one, &no, out->ev(), out->ev()}), Error::kOk);
  EXPECT_EQ(out->Values(), (I64{1, 0}));  // first max; NaN wins
  ASSERT_EQ(RunKernel(ArgminOut, {m.ev(), &zero, &no, out->ev(), out->ev()}), Error::kOk);
  EXPECT_EQ(out->Values(), (I64{1, 1, 1}));
  TestTensor<int64_t> scalar({});
  ASSERT_EQ(RunKernel(ArgmaxOut, {m.ev(), &none, &no, scalar.ev(), scalar.ev()}), Error::kOk);
  EXPECT_EQ(scalar.Values(), (I64{3}));  // index into the flattened tensor
  // torch.tensor([[3, 9, 9], [4, 1, 0]]).argmax(dim=0, keepdim=True)
  TestTensor<int32_t> i({2, 3}, {3, 9, 9, 4, 1, 0});
  auto kept = Out<int64_t>({1, 1});
  ASSERT_EQ(RunKernel(ArgmaxOut, {i.ev(), &zero, &yes, kept->ev(), kept->ev()}), Error::kOk);
  EXPECT_EQ(kept->Sizes(), (Sizes{1, 3}));
  EXPECT_EQ(kept->Values(), (I64{1, 0, 0}));
  // An empty dim, a non-int64 out.
  TestTensor<float> empty({2, 0});
  EXPECT_EQ(RunKernel(ArgmaxOut, {empty.ev(), &one, &no, out->ev(), out->ev()}),
            Error::kInvalidArgument);
  TestTensor<int32_t> wrong({2});
  EXPECT_EQ(RunKernel(ArgmaxOut, {m.ev(), &one, &no, wrong.ev(), wrong.ev()}),
            Error::kInvalidArgument);
}

}  // namespace
}  // namespace portable
}  // namespace edgefleet
