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

// x = torch.arange(18.).reshape(1, 2, 3, 3)
F Arange(int n) {
  F v;
  for (int i = 0; i < n; ++i) v.push_back(static_cast<float>(i));
  return v;
}
// w = torch.tensor([1.,0,0,-1, 2,1,0,0, 0,1,1,0, -1,0,0,1]).reshape(2,2,2,2)
const F kWeight = {1, 0, 0, -1, 2, 1, 0, 0, 0, 1, 1, 0, -1, 0, 0, 1};

struct ConvCall {
  TestIntList stride, padding, dilation, output_padding;
  EValue transposed, groups, none;
  ConvCall(std::initializer_list<int64_t> s, std::initializer_list<int64_t> p,
           std::initializer_list<int64_t> d, bool t = false, int64_t g = 1,
           std::initializer_list<int64_t> op = {0, 0})
      : stride(s),
        padding(p),
        dilation(d),
        output_padding(op),
        transposed(EValue::FromBool(t)),
        groups(EValue::FromInt(g)) {}
  Error Run(EValue* in, EValue* weight, EValue* bias, EValue* out) {
    return RunKernel(ConvolutionOut,
                     {in, weight, bias == nullptr ? &none : bias, stride.ev(), padding.ev(),
                      dilation.ev(), &transposed, output_padding.ev(), &groups, out, out});
  }
};

TEST(ConvolutionTest, Basic2dWithBias) {
  TestTensor<float> x({1, 2, 3, 3}, Arange(18));
  TestTensor<float> w({2, 2, 2, 2}, kWeight);
  TestTensor<float> b({2}, {0.5f, -1.0f});
  TestTensor<float> out({1, 2, 2, 2});
  ConvCall call({1, 1}, {0, 0}, {1, 1});
  ASSERT_EQ(call.Run(x.ev(), w.ev(), b.ev(), out.ev()), Error::kOk);
  // F.conv2d(x, w, b)
  EXPECT_EQ(out.Values(), (F{24.5, 27.5, 33.5, 36.5, 7, 9, 13, 15}));
}

TEST(ConvolutionTest, ChannelsLastInputWeightAndOutput) {
  TestTensor<float> x({1, 2, 3, 3}, Arange(18), {0, 2, 3, 1});
  TestTensor<float> w({2, 2, 2, 2}, kWeight, {0, 2, 3, 1});
  TestTensor<float> b({2}, {0.5f, -1.0f});
  TestTensor<float> out({1, 2, 2, 2}, {}, {0, 2, 3, 1});
  ConvCall call({1}, {0}, {1});  // single-entry lists apply to H and W
  ASSERT_EQ(call.Run(x.ev(), w.ev(), b.ev(), out.ev()), Error::kOk);
  EXPECT_EQ(out.Values(), (F{24.5, 27.5, 33.5, 36.5, 7, 9, 13, 15}));
  // NHWC memory: (h0, w0) holds both channels first.
  EXPECT_EQ(out.tensor().data_as<float>()[1], 7);
}

TEST(ConvolutionTest, StridePaddingDilation) {
  TestTensor<float> x({1, 2, 3, 3}, Arange(18));
  TestTensor<float> w({2, 2, 2, 2}, kWeight);
  TestTensor<float> b({2}, {0.5f, -1.0f});
  TestTensor<float> out({1, 2, 2, 2});
  ConvCall strided({2, 2}, {1, 1}, {1, 1});
  ASSERT_EQ(strided.Run(x.ev(), w.ev(), b.ev(), out.ev()), Error::kOk);
  // F.conv2d(x, w, b, stride=2, padding=1)
  EXPECT_EQ(out.Values(), (F{0.5, -1.5, 6.5, 36.5, 8, 11, 17, 15}));

  TestTensor<float> out2({1, 2, 3, 3});
  ConvCall dilated({1, 1}, {1, 1}, {2, 2});
  ASSERT_EQ(dilated.Run(x.ev(), w.ev(), nullptr, out2.ev()), Error::kOk);
  // F.conv2d(x, w, None, padding=1, dilation=2)
  EXPECT_EQ(out2.Values(),
            (F{-4, -5, 0, 3, 21, 21, 13, 41, 30, 13, 17, 4, 17, 16, -3, 4, -7, -13}));
}

TEST(ConvolutionTest, Depthwise) {
  TestTensor<float> x({1, 2, 3, 3}, Arange(18));
  TestTensor<float> w({2, 1, 2, 2}, {1, 2, 3, 4, -1, 0, 0, 1});
  TestTensor<float> out({1, 2, 2, 2});
  ConvCall call({1, 1}, {0, 0}, {1, 1}, false, 2);
  ASSERT_EQ(call.Run(x.ev(), w.ev(), nullptr, out.ev()), Error::kOk);
  // F.conv2d(x, w, groups=2)
  EXPECT_EQ(out.Values(), (F{27, 37, 57, 67, 4, 4, 4, 4}));
}

TEST(ConvolutionTest, Conv1d) {
  TestTensor<float> x({1, 2, 5}, Arange(10));
  TestTensor<float> w({3, 2, 2}, {1, -1, 2, 0, 0, 1, 1, 1, 1, 0, 0, 1});
  TestTensor<float> b({3}, {1, 2, 3});
  TestTensor<float> out({1, 3, 3});
  ConvCall call({2}, {1}, {1});
  ASSERT_EQ(call.Run(x.ev(), w.ev(), b.ev(), out.ev()), Error::kOk);
  // F.conv1d(x, w, b, stride=2, padding=1)
  EXPECT_EQ(out.Values(), (F{1, 12, 16, 7, 17, 23, 8, 11, 15}));
}

TEST(ConvolutionTest, Transposed) {
  TestTensor<float> x({1, 2, 2, 2}, {0, 1, 3, 4, 9, 10, 12, 13});
  TestTensor<float> w({2, 1, 2, 2}, {1, 2, 3, 4, 0, 1, 1, 0});
  TestTensor<float> b({1}, {1});
  TestTensor<float> out({1, 1, 4, 4});
  ConvCall call({2, 2}, {0, 0}, {1, 1}, true);
  ASSERT_EQ(call.Run(x.ev(), w.ev(), b.ev(), out.ev()), Error::kOk);
  // F.conv_transpose2d(x, w, torch.tensor([1.]), stride=2)
  EXPECT_EQ(out.Values(), (F{1, 10, 2, 13, 10, 1, 14, 5, 4, 19, 5, 22, 22, 13, 26, 17}));
}

TEST(ConvolutionTest, EmptyBatch) {
  TestTensor<float> x({0, 2, 3, 3});
  TestTensor<float> w({2, 2, 2, 2}, kWeight);
  TestTensor<float> out({0, 2, 2, 2});
  ConvCall call({1, 1}, {0, 0}, {1, 1});
  ASSERT_EQ(call.Run(x.ev(), w.ev(), nullptr, out.ev()), Error::kOk);
  EXPECT_EQ(out.tensor().numel(), 0);
}

TEST(ConvolutionTest, InvalidArguments) {
  TestTensor<float> x({1, 2, 3, 3}, Arange(18));
  TestTensor<float> w3({2, 3, 2, 2});  // wrong input channels
  TestTensor<float> w({2, 2, 2, 2}, kWeight);
  TestTensor<float> bad_bias({3});
  TestTensor<float> out({1, 2, 2, 2});
  ConvCall call({1, 1}, {0, 0}, {1, 1});
  EXPECT_EQ(call.Run(x.ev(), w3.ev(), nullptr, out.ev()), Error::kInvalidArgument);
  EXPECT_EQ(call.Run(x.ev(), w.ev(), bad_bias.ev(), out.ev()), Error::kInvalidArgument);
  ConvCall zero_stride({0, 1}, {0, 0}, {1, 1});
  EXPECT_EQ(zero_stride.Run(x.ev(), w.ev(), nullptr, out.ev()), Error::kInvalidArgument);
  ConvCall bad_groups({1, 1}, {0, 0}, {1, 1}, false, 0);
  EXPECT_EQ(bad_groups.Run(x.ev(), w.ev(), nullptr, out.ev()), Error::kInvalidArgument);
  TestTensor<float> big_w({2, 2, 5, 5});  // kernel larger than the input
  EXPECT_EQ(call.Run(x.ev(), big_w.ev(), nullptr, out.ev()), Error::kInvalidArgument);
  TestTensor<float> fixed({1, 2, 3, 3}, {}, {}, ShapeDynamism::kStatic);
  EXPECT_EQ(call.Run(x.ev(), w.ev(), nullptr, fixed.ev()), Error::kNotSupported);
  TestTensor<int32_t> xi({1, 2, 3, 3});
  EXPECT_EQ(call.Run(xi.ev(), w.ev(), nullptr, out.ev()), Error::kInvalidArgument);
  EValue none;
  EXPECT_EQ(RunKernel(ConvolutionOut, {x.ev(), w.ev(), &none}), Error::kInvalidArgument);
}

}  // namespace
}  // namespace portable
}  // namespace edgefleet
