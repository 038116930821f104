#include <vector>

#include "gtest/gtest.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/test_tensors.h"

namespace edgefleet {
namespace portable {
namespace {

using testing::ExpectNear;
using testing::RunKernel;
using testing::TestTensor;
using testing::TestTensorList;
using F = std::vector<float>;

// s = torch.tensor([[1., 2, 3], [0, 0, 0], [-1, 5, 1000]])
const F kLogits = {1, 2, 3, 0, 0, 0, -1, 5, 1000};

TEST(SoftmaxTest, LastAndFirstDim) {
  TestTensor<float> x({3, 3}, kLogits);
  TestTensor<float> out({3, 3});
  EValue dim = EValue::FromInt(-1);
  EValue no = EValue::FromBool(false);
  ASSERT_EQ(RunKernel(SoftmaxOut, {x.ev(), &dim, &no, out.ev(), out.ev()}), Error::kOk);
  // torch.softmax(s, 1)
  ExpectNear(out.Values(), F{0.0900305733f, 0.244728476f, 0.665240943f, 0.333333343f, 0.333333343f,
                             0.333333343f, 0, 0, 1});
  // torch.softmax(s, 0), with a column-major input.
  TestTensor<float> xt({3, 3}, kLogits, {1, 0});
  EValue dim0 = EValue::FromInt(0);
  ASSERT_EQ(RunKernel(SoftmaxOut, {xt.ev(), &dim0, &no, out.ev(), out.ev()}), Error::kOk);
  ExpectNear(out.Values(), F{0.665240943f, 0.0471234173f, 0, 0.244728476f, 0.0063774609f, 0,
                             0.0900305733f, 0.946499169f, 1});
}

TEST(SoftmaxTest, LogSoftmaxAndErrors) {
  TestTensor<float> x({3, 3}, kLogits);
  TestTensor<float> out({3, 3});
  EValue dim = EValue::FromInt(1);
  EValue no = EValue::FromBool(false);
  ASSERT_EQ(RunKernel(LogSoftmaxOut, {x.ev(), &dim, &no, out.ev(), out.ev()}), Error::kOk);
  // torch.log_softmax(s, 1)
  ExpectNear(out.Values(), F{-2.40760589f, -1.40760589f, -0.407605946f, -1.09861231f, -1.09861231f,
                             -1.09861231f, -1001, -995, 0});
  EValue bad_dim = EValue::FromInt(2);
  EXPECT_EQ(RunKernel(SoftmaxOut, {x.ev(), &bad_dim, &no, out.ev(), out.ev()}),
            Error::kInvalidArgument);
  EValue yes = EValue::FromBool(true);
  EXPECT_EQ(RunKernel(SoftmaxOut, {x.ev(), &dim, &yes, out.ev(), out.ev()}), Error::kNotSupported);
  TestTensor<int64_t> xi({3});
  TestTensor<int64_t> oi({3});
  EValue d0 = EValue::FromInt(0);
  EXPECT_EQ(RunKernel(SoftmaxOut, {xi.ev(), &d0, &no, oi.ev(), oi.ev()}), Error::kNotSupported);
}

struct BatchNormCall {
  EValue momentum = EValue::FromDouble(0.1);
  EValue eps = EValue::FromDouble(1e-5);
  Error Run(EValue* x, EValue* w, EValue* b, EValue* mean, EValue* var, EValue* out,
            EValue* save_mean, EValue* save_invstd) {
    TestTensorList ret({out, save_mean, save_invstd});
    return RunKernel(NativeBatchNormNoTrainingOut,
                     {x, w, b, mean, var, &momentum, &eps, out, save_mean, save_invstd, ret.ev()});
  }
};

TEST(BatchNormTest, PerChannelAffineChannelsLast) {
  // torch.ops.aten._native_batch_norm_legit_no_training(
  //     torch.arange(8.).reshape(1, 2, 2, 2), torch.tensor([1., 2]),
  //     torch.tensor([0., 1]), torch.tensor([1., 4]),
  //     torch.tensor([4., 0.25]), 0.1, 1e-5)
  const F expected = {-0.499999404f, 0,           0.499999404f, 0.999998808f, 1,
                      4.99991989f,   8.99983978f, 12.9997597f};
  for (bool channels_last : {false, true}) {
    std::vector<uint8_t> order;
    if (channels_last) order = {0, 2, 3, 1};
    TestTensor<float> x({1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}, order);
    TestTensor<float> w({2}, {1, 2});
    TestTensor<float> b({2}, {0, 1});
    TestTensor<float> mean({2}, {1, 4});
    TestTensor<float> var({2}, {4, 0.25f});
    TestTensor<float> out({1, 2, 2, 2}, {}, order);
    // Exported programs declare the saved statistics as [0].
    TestTensor<float> save_mean({0}, {}, {}, ShapeDynamism::kStatic);
    TestTensor<float> save_invstd({0}, {}, {}, ShapeDynamism::kStatic);
    ASSERT_EQ(BatchNormCall().Run(x.ev(), w.ev(), b.ev(), mean.ev(), var.ev(), out.ev(),
                                  save_mean.ev(), save_invstd.ev()),
              Error::kOk);
    ExpectNear(out.Values(), expected);
  }
}

TEST(BatchNormTest, NoAffineAndErrors) {
  TestTensor<float> x({2, 1}, {3, 5});
  TestTensor<float> mean({1}, {1});
  TestTensor<float> var({1}, {4});
  TestTensor<float> out({2, 1});
  TestTensor<float> s1({0});
  TestTensor<float> s2({0});
  EValue none;
  ASSERT_EQ(
      BatchNormCall().Run(x.ev(), &none, &none, mean.ev(), var.ev(), out.ev(), s1.ev(), s2.ev()),
      Error::kOk);
  ExpectNear(out.Values(), F{1, 2}, 1e-4);  // (x - 1) / 2
  TestTensor<float> bad_mean({2});
  EXPECT_EQ(BatchNormCall().Run(x.ev(), &none, &none, bad_mean.ev(), var.ev(), out.ev(), s1.ev(),
                                s2.ev()),
            Error::kInvalidArgument);
  TestTensor<float> v({3});
  TestTensor<float> vo({3});
  EXPECT_EQ(
      BatchNormCall().Run(v.ev(), &none, &none, mean.ev(), var.ev(), vo.ev(), s1.ev(), s2.ev()),
      Error::kInvalidArgument);
}

TEST(LayerNormTest, AffineWithStatistics) {
  // torch.ops.aten.native_layer_norm(torch.tensor([[1., 2, 3, 4],
  //     [2, 2, 2, 2]]), [4], torch.tensor([1., 2, 1, 1]),
  //     torch.tensor([0., 0, 1, 0]), 1e-5)
  TestTensor<float> x({2, 4}, {1, 2, 3, 4, 2, 2, 2, 2});
  testing::TestIntList shape({4});
  TestTensor<float> w({4}, {1, 2, 1, 1});
  TestTensor<float> b({4}, {0, 0, 1, 0});
  EValue eps = EValue::FromDouble(1e-5);
  TestTensor<float> out({2, 4});
  TestTensor<float> mean({2, 1});
  TestTensor<float> rstd({2, 1});
  TestTensorList ret({out.ev(), mean.ev(), rstd.ev()});
  ASSERT_EQ(RunKernel(NativeLayerNormOut, {x.ev(), shape.ev(), w.ev(), b.ev(), &eps, out.ev(),
                                           mean.ev(), rstd.ev(), ret.ev()}),
            Error::kOk);
  ExpectNear(out.Values(), F{-1.34163547f, -0.894423664f, 1.44721186f, 1.34163547f, 0, 0, 1, 0});
  ExpectNear(mean.Values(), F{2.5f, 2.0f});
  ExpectNear(rstd.Values(), F{0.894423664f, 316.227783f}, 1e-3);
  testing::TestIntList bad_shape({3});
  EXPECT_EQ(RunKernel(NativeLayerNormOut, {x.ev(), bad_shape.ev(), w.ev(), b.ev(), &eps, out.ev(),
                                           mean.ev(), rstd.ev(), ret.ev()}),
            Error::kInvalidArgument);
}

}  // namespace
}  // namespace portable
}  // namespace edgefleet
