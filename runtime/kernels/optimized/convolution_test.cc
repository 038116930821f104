// aten::convolution.out (optimized) against the portable kernel over many
// geometries: NCHW and channels-last, 1-D and 2-D, groups (depthwise with
// and without a multiplier), strides, padding, dilation (including taps
// that only ever read padding), bias, batches, odd sizes, threads and
// scarce scratch.
//
// GEMM paths: the sums are reordered, so the tolerance is the dot-product
// bound of gemm_test.cc for depth cin/groups * kh * kw (+1 for the bias).
// Depthwise paths and NCHW grouped convolutions with at most 16 output
// channels per group (grouped_conv.h) compute in the portable order: exact.

#include <vector>

#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/test_util.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

using testing::Call;
using testing::ExpectMatch;
using testing::ForEachIsa;
using testing::RandomTensor;
using testing::Supported;
using testing::TestIntList;
using testing::TestTensor;
using testing::Tolerance;

struct ConvCase {
  int32_t n, cin, h, w, cout, kh, kw;
  int64_t stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, groups;
  bool bias;
};

std::vector<int32_t> OutShape(const ConvCase& c, bool rank3) {
  const int32_t oh = (c.h + 2 * c.pad_h - c.dil_h * (c.kh - 1) - 1) / c.stride_h + 1;
  const int32_t ow = (c.w + 2 * c.pad_w - c.dil_w * (c.kw - 1) - 1) / c.stride_w + 1;
  if (rank3) return {c.n, c.cout, ow};
  return {c.n, c.cout, oh, ow};
}

// Runs both kernels; `channels_last` uses that dim order for input, weight
// and output; `rank3` runs a 1-D convolution (h and kh must be 1).
void CheckConv(const ConvCase& c, bool channels_last, bool rank3 = false, int threads = 1,
               size_t temp_bytes = 8 << 20) {
  SCOPED_TRACE(::testing::Message()
               << "n" << c.n << " cin" << c.cin << " " << c.h << "x" << c.w << " cout" << c.cout
               << " k" << c.kh << "x" << c.kw << " s" << c.stride_h << "," << c.stride_w << " p"
               << c.pad_h << "," << c.pad_w << " d" << c.dil_h << "," << c.dil_w << " g" << c.groups
               << " bias" << c.bias << " cl" << channels_last << " rank3 " << rank3 << " threads "
               << threads);
  const std::vector<uint8_t> order =
      channels_last ? std::vector<uint8_t>{0, 2, 3, 1} : std::vector<uint8_t>{};
  std::vector<int32_t> in_shape = {c.n, c.cin, c.h, c.w};
  std::vector<int32_t> w_shape = {c.cout, static_cast<int32_t>(c.cin / c.groups), c.kh, c.kw};
  if (rank3) {
    in_shape = {c.n, c.cin, c.w};
    w_shape = {c.cout, static_cast<int32_t>(c.cin / c.groups), c.kw};
  }
  RandomTensor in(in_shape, 101, order), weight(w_shape, 102, order);
  RandomTensor bias({c.cout}, 103);
  EValue none;
  TestIntList stride = rank3 ? TestIntList{c.stride_w} : TestIntList{c.stride_h, c.stride_w};
  TestIntList pad = rank3 ? TestIntList{c.pad_w} : TestIntList{c.pad_h, c.pad_w};
  TestIntList dil = rank3 ? TestIntList{c.dil_w} : TestIntList{c.dil_h, c.dil_w};
  TestIntList out_pad = rank3 ? TestIntList{0} : TestIntList{0, 0};
  EValue transposed = EValue::FromBool(false);
  EValue groups = EValue::FromInt(c.groups);
  const std::vector<int32_t> out_shape = OutShape(c, rank3);
  TestTensor<float> ref(out_shape, {}, order), opt(out_shape, {}, order);
  const auto args = [&](TestTensor<float>& out) {
    return std::vector<EValue*>{in.t.ev(),   weight.t.ev(), c.bias ? bias.t.ev() : &none,
                                stride.ev(), pad.ev(),      dil.ev(),
                                &transposed, out_pad.ev(),  &groups,
                                out.ev(),    out.ev()};
  };
  ASSERT_EQ(Call(portable::ConvolutionOut, args(ref)), Error::kOk) << LastErrorDetail();
  EXPECT_TRUE(Supported(ConvolutionSupports, args(opt)));
  ASSERT_EQ(Call(ConvolutionOut, args(opt), threads, temp_bytes), Error::kOk) << LastErrorDetail();
  const bool depthwise = c.groups == c.cin && c.groups > 1;
  const int64_t per_group = c.groups > 0 ? c.cout / c.groups : 0;
  // The NCHW direct kernel (the channels-last one, grouped_nhwc.h, uses
  // fused multiply-adds: the bound below).
  const bool grouped = c.groups > 1 && !depthwise && per_group <= 16 && !channels_last;
  const int64_t depth = c.cin / c.groups * c.kh * c.kw + 1;
  const double unit = 1.0 / (1 << 24);
  const Tolerance tol = (depthwise && (!channels_last || c.cout == c.cin)) || grouped
                            ? testing::kExact
                            : Tolerance{4.0 * depth * depth * unit, 4.0 * depth * unit};
  ExpectMatch(opt.Values(), ref.Values(), tol, "convolution");
}

const ConvCase kCases[] = {
    // n cin h  w  cout kh kw sh sw ph pw dh dw g  bias
    {1, 3, 16, 16, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},     // small stem
    {1, 3, 23, 19, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, true},    // stride 2, odd
    {2, 5, 9, 11, 7, 1, 1, 1, 1, 0, 0, 1, 1, 1, false},     // pointwise
    {1, 16, 7, 7, 40, 1, 1, 1, 1, 0, 0, 1, 1, 1, true},     // pointwise 7x7
    {1, 8, 14, 14, 12, 1, 1, 2, 2, 0, 0, 1, 1, 1, true},    // 1x1 stride 2
    {1, 3, 30, 30, 10, 7, 7, 2, 2, 3, 3, 1, 1, 1, false},   // 7x7 stem
    {2, 3, 11, 9, 12, 3, 3, 2, 2, 1, 1, 1, 1, 1, true},     // stem, batch 2
    {1, 3, 20, 18, 24, 3, 3, 2, 2, 1, 1, 1, 1, 1, true},    // ShuffleNet's: a channel tail
    {1, 1, 12, 10, 5, 3, 5, 1, 2, 2, 1, 2, 1, 1, false},    // 1 channel, 3x5, dilated rows
    {1, 6, 12, 12, 6, 3, 3, 1, 1, 2, 2, 2, 2, 1, true},     // dilation 2
    {1, 4, 6, 6, 5, 3, 3, 1, 1, 4, 4, 4, 4, 1, true},       // taps in padding
    {1, 4, 5, 5, 3, 3, 3, 1, 1, 6, 6, 6, 6, 1, false},      // only the center
    {1, 4, 8, 10, 6, 3, 5, 1, 2, 1, 2, 1, 1, 2, true},      // groups 2
    {1, 8, 12, 12, 8, 3, 3, 1, 1, 1, 1, 1, 1, 8, true},     // depthwise
    {2, 6, 15, 13, 6, 3, 3, 2, 2, 1, 1, 1, 1, 6, false},    // depthwise s2
    {1, 10, 7, 7, 10, 5, 5, 1, 1, 2, 2, 1, 1, 10, true},    // depthwise 5x5
    {1, 4, 9, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 4, true},       // multiplier 2
    {1, 4, 7, 7, 8, 3, 3, 1, 1, 1, 1, 1, 1, 4, true},       // multiplier 2, 7 rows (rows path)
    {1, 3, 6, 5, 6, 3, 3, 1, 1, 1, 1, 1, 1, 3, false},      // multiplier 2, 6 rows of 5
    {1, 5, 11, 11, 5, 3, 3, 3, 3, 2, 2, 2, 2, 5, true},     // dw stride 3 dil 2
    {1, 32, 7, 7, 32, 3, 3, 1, 1, 1, 1, 1, 1, 32, true},    // dw small plane
    {1, 20, 9, 23, 20, 5, 5, 2, 2, 2, 2, 1, 1, 20, true},   // dw 5x5 s2, wide rows
    {1, 19, 8, 30, 19, 3, 3, 1, 1, 2, 2, 2, 2, 19, false},  // dw dilated, wide rows
    {1, 12, 7, 7, 12, 5, 5, 1, 1, 2, 2, 1, 1, 12, true},    // dw 7 rows: one block
    {1, 9, 6, 5, 9, 3, 3, 1, 1, 1, 1, 1, 1, 9, true},       // dw 6 rows of 5
    {1, 6, 5, 7, 6, 3, 3, 1, 1, 1, 1, 1, 1, 6, false},      // dw 5 rows of 7
    {1, 4, 11, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 4, true},      // dw 11 rows: overlapping blocks
    {1, 6, 14, 14, 6, 5, 5, 2, 2, 2, 2, 1, 1, 6, false},    // dw 5x5 s2 to 7x7
    {1, 5, 19, 37, 5, 3, 3, 1, 1, 1, 1, 1, 1, 5, true},     // dw 37 wide, 19 rows
    {2, 7, 13, 14, 7, 3, 3, 1, 1, 1, 1, 1, 1, 7, true},     // dw 14 wide, batch 2
    {1, 4, 3, 3, 4, 3, 3, 1, 1, 1, 1, 1, 1, 4, true},       // dw tiny planes
    {1, 3, 1, 1, 3, 3, 3, 1, 1, 1, 1, 1, 1, 3, false},      // dw 1x1 planes
    {1, 3, 4, 4, 2, 4, 4, 1, 1, 0, 0, 1, 1, 1, true},       // kernel = input
    {1, 2, 3, 3, 3, 3, 3, 5, 5, 0, 0, 1, 1, 1, false},      // one output
    {0, 3, 8, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},       // empty batch
};

TEST(ConvolutionTest, Nchw) {
  ForEachIsa([] {
    for (const ConvCase& c : kCases) CheckConv(c, false);
  });
}

TEST(ConvolutionTest, ChannelsLast) {
  ForEachIsa([] {
    for (const ConvCase& c : kCases) CheckConv(c, true);
  });
}

TEST(ConvolutionTest, OneDimensional) {
  const ConvCase cases[] = {{1, 40, 1, 101, 64, 1, 3, 1, 1, 0, 1, 1, 1, 1, true},
                            {2, 16, 1, 50, 16, 1, 3, 1, 2, 0, 1, 1, 1, 16, true},
                            {1, 8, 1, 33, 12, 1, 5, 1, 1, 0, 4, 1, 2, 1, false},
                            {1, 12, 1, 20, 12, 1, 1, 1, 1, 0, 0, 1, 1, 1, true}};
  ForEachIsa([&] {
    for (const ConvCase& c : cases) CheckConv(c, false, /*rank3=*/true);
  });
}

TEST(ConvolutionTest, LargerLayers) {
  const ConvCase cases[] = {{1, 64, 28, 28, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},
                            {1, 96, 56, 56, 96, 3, 3, 2, 2, 1, 1, 1, 1, 96, true},
                            {1, 160, 7, 7, 960, 1, 1, 1, 1, 0, 0, 1, 1, 1, false},
                            {1, 64, 16, 16, 32, 3, 3, 1, 1, 12, 12, 12, 12, 1, true}};
  for (const ConvCase& c : cases) CheckConv(c, false);
}

TEST(ConvolutionTest, ChannelsLastReadThroughRowPointers) {
  // Channels-last convolutions over at least 16 channels per group read the
  // image through row pointers (one per pixel and tap; padding at a zero
  // row) instead of packing patches: tiles crossing output rows, strides,
  // dilation, taps in the padding, two groups, a run of channels longer
  // than a depth block, batches and threads.
  const ConvCase cases[] = {{1, 64, 13, 11, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},
                            {2, 48, 15, 15, 33, 3, 3, 2, 2, 1, 1, 1, 1, 1, false},
                            {1, 32, 12, 12, 16, 3, 3, 1, 1, 2, 2, 2, 2, 1, true},
                            {1, 80, 9, 9, 24, 3, 3, 1, 1, 1, 1, 1, 1, 2, true},
                            {1, 300, 7, 7, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},
                            {1, 64, 16, 16, 32, 3, 3, 1, 1, 12, 12, 12, 12, 1, true},
                            {1, 40, 10, 9, 8, 5, 3, 2, 1, 2, 1, 1, 2, 1, false},
                            // SqueezeNet's expand layers: 16 channels per tap
                            {1, 16, 15, 14, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, true}};
  ForEachIsa([&] {
    for (const ConvCase& c : cases) {
      CheckConv(c, true);
      CheckConv(c, true, false, 3);
    }
  });
}

TEST(ConvolutionTest, ThreadsAndScarceScratch) {
  ASSERT_EQ(RegisterOptimizedKernels(4), Error::kOk);
  const ConvCase cases[] = {{1, 32, 20, 20, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},
                            {2, 48, 30, 30, 48, 3, 3, 2, 2, 1, 1, 1, 1, 48, true},
                            {1, 32, 20, 20, 48, 1, 1, 1, 1, 0, 0, 1, 1, 1, false}};
  for (const ConvCase& c : cases) {
    for (bool cl : {false, true}) {
      CheckConv(c, cl, false, 4);
      CheckConv(c, cl, false, 2, 64 << 10);  // fewer threads / other paths
      CheckConv(c, cl, false, 1, 1 << 10);   // portable fallback
    }
  }
}

// Grouped convolutions with few channels per group (RegNet's group width 8)
// run the direct kernel: exact, at 1, 2 and 3 threads.
TEST(ConvolutionTest, GroupedDirect) {
  ASSERT_EQ(RegisterOptimizedKernels(4), Error::kOk);
  const ConvCase cases[] = {
      // n cin h  w  cout kh kw sh sw ph pw dh dw g  bias
      {1, 48, 56, 56, 48, 3, 3, 2, 2, 1, 1, 1, 1, 6, true},  // RegNet stage 1, stride 2
      {1, 24, 14, 14, 24, 3, 3, 1, 1, 1, 1, 1, 1, 3, true},  // 8 per group, 14 x 14
      {1, 16, 7, 7, 32, 3, 3, 1, 1, 1, 1, 1, 1, 2, false},   // 16 out per group: two blocks
      {2, 12, 9, 13, 20, 3, 5, 1, 2, 1, 2, 1, 1, 4, true},   // 5 out per group, odd, stride w 2
      {1, 8, 12, 12, 12, 3, 3, 1, 1, 2, 2, 2, 2, 4, true},   // dilation 2
      {1, 8, 5, 40, 8, 1, 1, 1, 1, 0, 0, 1, 1, 2, false},    // grouped 1 x 1, wide rows
  };
  ForEachIsa([&] {
    for (const ConvCase& c : cases) {
      for (int threads : {1, 2, 3}) CheckConv(c, false, false, threads);
    }
    CheckConv({1, 16, 1, 37, 24, 1, 3, 1, 1, 0, 1, 1, 1, 4, true}, false, /*rank3=*/true);
  });
}

// Narrow groups channels-last (grouped_nhwc.h): within the dot-product
// bound, at 1, 2 and 3 threads, the weight in any order (here channels-last too, so the kernel
// copies it output-channel-innermost).
TEST(ConvolutionTest, GroupedChannelsLast) {
  ASSERT_EQ(RegisterOptimizedKernels(4), Error::kOk);
  const ConvCase cases[] = {
      // n cin h  w  cout kh kw sh sw ph pw dh dw g  bias
      {1, 48, 30, 30, 48, 3, 3, 2, 2, 1, 1, 1, 1, 6, true},     // RegNet stage 1, stride 2
      {1, 104, 14, 14, 104, 3, 3, 1, 1, 1, 1, 1, 1, 13, true},  // 8 per group, a channel tail
      {2, 64, 7, 7, 64, 3, 3, 1, 1, 1, 1, 1, 1, 2, false},      // 32 per group: not taken
      {1, 32, 9, 11, 32, 3, 5, 1, 2, 1, 2, 1, 1, 2, true},      // 16 per group, 3 x 5, stride w 2
      {1, 16, 12, 12, 16, 3, 3, 1, 1, 2, 2, 2, 2, 4, true},     // 4 per group, dilation 2
      {1, 40, 6, 6, 40, 1, 1, 1, 1, 0, 0, 1, 1, 20, false},     // 2 per group, 1 x 1
      {1, 24, 5, 5, 24, 5, 5, 1, 1, 4, 4, 2, 2, 3, true},       // taps in the padding
      {1, 32, 11, 11, 32, 3, 3, 1, 1, 1, 1, 1, 1, 4, false},    // 9 interior columns: 6 + 3
      {1, 16, 7, 7, 16, 3, 3, 1, 1, 1, 1, 1, 1, 2, true},       // 5 interior columns
      // Edge columns four vectors of channels at a time, then a tail.
      {1, 80, 7, 7, 80, 3, 3, 1, 1, 1, 1, 1, 1, 10, true},
      {1, 56, 5, 5, 56, 3, 3, 1, 1, 1, 1, 1, 1, 7, true},  // 3 interior columns, 2 vectors each
  };
  ForEachIsa([&] {
    for (const ConvCase& c : cases) {
      for (int threads : {1, 2, 3}) CheckConv(c, true, false, threads);
    }
  });
}

TEST(ConvolutionTest, UnsupportedCallsRunPortable) {
  RandomTensor in({1, 4, 6, 6}, 111), weight({4, 2, 3, 3}, 112);
  TestIntList one{1, 1}, zero{0, 0};
  EValue none, transposed = EValue::FromBool(true), groups = EValue::FromInt(1);
  TestTensor<float> ref({1, 2, 8, 8}), opt({1, 2, 8, 8});
  const auto args = [&](TestTensor<float>& out) {
    return std::vector<EValue*>{in.t.ev(),   weight.t.ev(), &none,   one.ev(), zero.ev(), one.ev(),
                                &transposed, zero.ev(),     &groups, out.ev(), out.ev()};
  };
  EXPECT_FALSE(Supported(ConvolutionSupports, args(opt)));  // transposed
  ASSERT_EQ(Call(portable::ConvolutionOut, args(ref)), Error::kOk);
  ASSERT_EQ(Call(ConvolutionOut, args(opt)), Error::kOk);
  ExpectMatch(opt.Values(), ref.Values(), testing::kExact, "transposed");
  // Mixed layouts: input channels-last, out NCHW.
  RandomTensor cl({1, 4, 6, 6}, 113, {0, 2, 3, 1});
  EValue no = EValue::FromBool(false);
  TestTensor<float> out({1, 4, 4, 4});
  EXPECT_FALSE(
      Supported(ConvolutionSupports, {cl.t.ev(), weight.t.ev(), &none, one.ev(), zero.ev(),
                                      one.ev(), &no, zero.ev(), &groups, out.ev(), out.ev()}));
}

TEST(ConvolutionTest, InvalidArgumentsFailLikePortable) {
  RandomTensor in({1, 4, 6, 6}, 121), weight({3, 4, 3, 3}, 122), bad_w({3, 3, 3, 3}, 123);
  TestIntList one{1, 1}, zero{0, 0}, neg{-1, 1}, three{1, 1, 1};
  EValue none, no = EValue::FromBool(false), g1 = EValue::FromInt(1), g0 = EValue::FromInt(0);
  TestTensor<float> out({1, 3, 4, 4});
  TestTensor<int32_t> int_out({1, 3, 4, 4});
  const std::vector<std::vector<EValue*>> calls = {
      {in.t.ev(), bad_w.t.ev(), &none, one.ev(), zero.ev(), one.ev(), &no, zero.ev(), &g1, out.ev(),
       out.ev()},
      {in.t.ev(), weight.t.ev(), &none, neg.ev(), zero.ev(), one.ev(), &no, zero.ev(), &g1,
       out.ev(), out.ev()},
      {in.t.ev(), weight.t.ev(), &none, one.ev(), zero.ev(), three.ev(), &no, zero.ev(), &g1,
       out.ev(), out.ev()},
      {in.t.ev(), weight.t.ev(), &none, one.ev(), zero.ev(), one.ev(), &no, zero.ev(), &g0,
       out.ev(), out.ev()},
      {in.t.ev(), weight.t.ev(), &none, one.ev(), zero.ev(), one.ev(), &no, zero.ev(), &g1,
       int_out.ev(), int_out.ev()},
      {in.t.ev(), weight.t.ev(), &none, one.ev()},
  };
  for (const auto& args : calls) {
    const Error expected = Call(portable::ConvolutionOut, args);
    const std::string detail = LastErrorDetail();
    EXPECT_NE(expected, Error::kOk);
    EXPECT_EQ(Call(ConvolutionOut, args), expected);
    EXPECT_EQ(detail, LastErrorDetail());
  }
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet
