// The fused int8 convolution / linear kernel against the portable chain it
// replaces: dequantize -> convolution / addmm -> quantize. Results must be
// identical: with power-of-two scales (and biases on the products' grid)
// on the integer paths, with arbitrary scales and biases on the float-chain
// path.

#include "runtime/kernels/optimized/quantized_conv.h"

#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "runtime/kernels/optimized/int8_gemm.h"
#include "runtime/kernels/optimized/test_util.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

using testing::Call;
using testing::ForEachIsa;
using testing::TestIntList;
using testing::TestTensor;

// A 64-byte aligned 1-D uint8 tensor holding a packed blob.
class PackedBlob {
 public:
  explicit PackedBlob(size_t bytes) : storage_(bytes + 64) {
    uintptr_t p = reinterpret_cast<uintptr_t>(storage_.data());
    data_ = reinterpret_cast<uint8_t*>((p + 63) / 64 * 64);
    size_ = static_cast<int32_t>(bytes);
    tensor_ = std::make_unique<Tensor>(ScalarType::kByte, 1, &size_, &dim_order_, &stride_, data_,
                                       ShapeDynamism::kStatic);
    ev_ = EValue::FromTensor(tensor_.get());
  }
  uint8_t* data() { return data_; }
  EValue* ev() { return &ev_; }

 private:
  std::vector<uint8_t> storage_;
  uint8_t* data_;
  int32_t size_;
  uint8_t dim_order_ = 0;
  int32_t stride_ = 1;
  std::unique_ptr<Tensor> tensor_;
  EValue ev_;
};

std::vector<int8_t> RandomInt8(size_t n, uint32_t seed, int lo, int hi) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<int8_t> v(n);
  for (auto& x : v) x = static_cast<int8_t>(dist(gen));
  return v;
}

struct ConvCase {
  int n, cin, cout, h, w, kh, kw, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, groups;
};

struct Quant {
  bool power_of_two;
  int32_t in_zp, out_zp;
  int32_t out_min, out_max;  // a fused clamp narrows the range
};

// Scales: powers of two (exact), or arbitrary ones.
float WeightScale(std::mt19937& gen, bool p2) {
  if (p2) return std::ldexp(1.0f, -7 - static_cast<int>(gen() % 3));
  return std::uniform_real_distribution<float>(0.002f, 0.02f)(gen);
}

void CheckConv(const ConvCase& c, const Quant& q, int threads, uint32_t seed) {
  SCOPED_TRACE("case cin " + std::to_string(c.cin) + " cout " + std::to_string(c.cout) + " k " +
               std::to_string(c.kh) + "x" + std::to_string(c.kw) + " s " +
               std::to_string(c.stride_h) + " g " + std::to_string(c.groups) + " seed " +
               std::to_string(seed) + (q.power_of_two ? " p2" : " arbitrary"));
  std::mt19937 gen(seed);
  const int cin_g = c.cin / c.groups;
  const std::vector<int32_t> xs = {c.n, c.cin, c.h, c.w};
  const std::vector<int32_t> ws = {c.cout, cin_g, c.kh, c.kw};
  const int oh = (c.h + 2 * c.pad_h - c.dil_h * (c.kh - 1) - 1) / c.stride_h + 1;
  const int ow = (c.w + 2 * c.pad_w - c.dil_w * (c.kw - 1) - 1) / c.stride_w + 1;
  const std::vector<int32_t> ys = {c.n, c.cout, oh, ow};
  const double in_scale = q.power_of_two ? 0.125 : 0.0371;
  const double out_scale = q.power_of_two ? 0.25 : 0.0913;
  std::vector<float> wscale(c.cout), bias(c.cout);
  for (int i = 0; i < c.cout; ++i) {
    wscale[i] = WeightScale(gen, q.power_of_two);
    // Power-of-two scales: bias on the grid of in_scale * w_scale (the
    // integer paths); otherwise any float, as PT2E exports keep it.
    const float unit = static_cast<float>(in_scale) * wscale[i];
    bias[i] = unit * static_cast<float>(static_cast<int>(gen() % 2001) - 1000);
    if (!q.power_of_two) bias[i] += std::uniform_real_distribution<float>(-0.5f, 0.5f)(gen);
  }
  TestTensor<int8_t> x(xs, RandomInt8(testing::Numel(xs), seed + 1, -128, 127));
  TestTensor<int8_t> wq(ws, RandomInt8(testing::Numel(ws), seed + 2, -127, 127));
  TestTensor<float> wsc({c.cout}, wscale), b({c.cout}, bias);
  TestTensor<int64_t> wzp({c.cout});

  // Reference: the portable chain.
  EValue s_in = EValue::FromDouble(in_scale), zp_in = EValue::FromInt(q.in_zp),
         qmin = EValue::FromInt(-128), qmax = EValue::FromInt(127), wqmin = EValue::FromInt(-127),
         dtype = EValue::FromInt(1), none, axis = EValue::FromInt(0),
         s_out = EValue::FromDouble(out_scale), zp_out = EValue::FromInt(q.out_zp),
         transposed = EValue::FromBool(false), groups = EValue::FromInt(c.groups);
  TestTensor<float> xf(xs), wf(ws), yf(ys);
  TestTensor<int8_t> ref(ys), out(ys);
  ASSERT_EQ(Call(portable::DequantizePerTensorOut,
                 {x.ev(), &s_in, &zp_in, &qmin, &qmax, &dtype, &none, xf.ev(), xf.ev()}),
            Error::kOk);
  ASSERT_EQ(Call(portable::DequantizePerChannelOut, {wq.ev(), wsc.ev(), wzp.ev(), &axis, &wqmin,
                                                     &qmax, &dtype, &none, wf.ev(), wf.ev()}),
            Error::kOk);
  TestIntList stride({c.stride_h, c.stride_w}), pad({c.pad_h, c.pad_w}), dil({c.dil_h, c.dil_w}),
      outpad({0, 0});
  ASSERT_EQ(
      Call(portable::ConvolutionOut, {xf.ev(), wf.ev(), b.ev(), stride.ev(), pad.ev(), dil.ev(),
                                      &transposed, outpad.ev(), &groups, yf.ev(), yf.ev()}),
      Error::kOk);
  ASSERT_EQ(Call(portable::QuantizePerTensorOut,
                 {yf.ev(), &s_out, &zp_out, &qmin, &qmax, &dtype, ref.ev(), ref.ev()}),
            Error::kOk);

  QuantizedConvSpec spec;
  spec.out_channels = c.cout;
  spec.in_channels = c.cin;
  spec.kernel_h = c.kh;
  spec.kernel_w = c.kw;
  spec.groups = c.groups;
  spec.stride_h = c.stride_h;
  spec.stride_w = c.stride_w;
  spec.pad_h = c.pad_h;
  spec.pad_w = c.pad_w;
  spec.dilation_h = c.dil_h;
  spec.dilation_w = c.dil_w;
  spec.in_scale = static_cast<float>(in_scale);
  spec.in_zero_point = q.in_zp;
  spec.out_scale = out_scale;
  spec.out_zero_point = q.out_zp;
  spec.out_min = q.out_min;
  spec.out_max = q.out_max;
  const size_t bytes =
      QuantizedConvPackedBytes(spec, wq.Values().data(), wscale.data(), bias.data());
  ASSERT_GT(bytes, 0u);
  PackedBlob blob(bytes);
  ASSERT_TRUE(PackQuantizedConv(spec, wq.Values().data(), wscale.data(), bias.data(), blob.data()));
  ASSERT_EQ(Call(QuantizedConvolutionOut, {x.ev(), blob.ev(), out.ev(), out.ev()}, threads),
            Error::kOk)
      << LastErrorDetail();
  const std::vector<int8_t> got = out.Values(), want = ref.Values();
  int reported = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    int expected = want[i];
    expected = expected < q.out_min ? q.out_min : (expected > q.out_max ? q.out_max : expected);
    const int diff = std::abs(got[i] - expected);
    if (diff > 0 && reported++ < 5) {
      ADD_FAILURE() << "element " << i << " is " << +got[i] << ", expected " << expected;
    }
  }
}

const ConvCase kCases[] = {
    // n cin cout h w kh kw sh sw ph pw dh dw groups
    {1, 32, 16, 17, 13, 1, 1, 1, 1, 0, 0, 1, 1, 1},   // 1x1, two panels
    {1, 5, 7, 6, 11, 1, 1, 1, 1, 0, 0, 1, 1, 1},      // odd channels, depth 5
    {2, 24, 30, 9, 9, 1, 1, 1, 1, 0, 0, 1, 1, 1},     // batch 2
    {1, 200, 70, 9, 9, 1, 1, 1, 1, 0, 0, 1, 1, 1},    // deep, ragged rows
    {1, 3, 32, 23, 19, 3, 3, 2, 2, 1, 1, 1, 1, 1},    // first mobilenet layer
    {1, 6, 9, 10, 12, 1, 1, 2, 2, 0, 0, 1, 1, 1},     // strided 1x1
    {1, 8, 12, 11, 7, 3, 3, 1, 1, 1, 1, 1, 1, 4},     // grouped
    {1, 4, 6, 8, 9, 3, 2, 1, 2, 2, 0, 2, 1, 2},       // asymmetric, dilated
    {1, 19, 19, 15, 21, 3, 3, 1, 1, 1, 1, 1, 1, 19},  // depthwise s1
    {1, 24, 24, 16, 17, 3, 3, 2, 2, 1, 1, 1, 1, 24},  // depthwise s2
    {2, 5, 5, 13, 11, 5, 5, 1, 2, 4, 3, 2, 1, 5},     // depthwise 5x5 dilated
    {1, 17, 17, 3, 40, 3, 3, 1, 1, 1, 1, 1, 1, 17},   // depthwise wide rows
    {1, 16, 16, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 16},    // depthwise 1x1 image
    {1, 21, 21, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 21},    // depthwise 7x7, channel tail
    {1, 3, 3, 40, 35, 3, 3, 1, 1, 1, 1, 1, 1, 3},     // depthwise, large plane
    {1, 4, 4, 41, 38, 3, 3, 2, 2, 1, 1, 1, 1, 4},     // depthwise s2, large plane
    {1, 2, 2, 37, 50, 3, 5, 1, 2, 2, 2, 1, 2, 2},     // large plane, dilated s(1,2)
};

TEST(QuantizedConvTest, MatchesPortableChain) {
  ForEachIsa([] {
    SCOPED_TRACE(Int8DotName(HostInt8Dot()));
    uint32_t seed = 100;
    for (const ConvCase& c : kCases) {
      CheckConv(c, {true, 3, -5, -128, 127}, 1, seed++);
      CheckConv(c, {true, -128, 127, -128, 127}, 2, seed++);
      CheckConv(c, {true, 12, -7, -7, 41}, 1, seed++);  // fused clamp
      CheckConv(c, {false, -9, 4, -128, 127}, 1, seed++);
    }
  });
}

void CheckLinear(int m, int k, int n, bool p2, int threads, uint32_t seed) {
  SCOPED_TRACE("linear " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n));
  std::mt19937 gen(seed);
  const double in_scale = p2 ? 0.125 : 0.043, out_scale = p2 ? 0.5 : 0.117;
  const int32_t in_zp = -11, out_zp = 18;
  std::vector<float> wscale(n), bias(n);
  for (int i = 0; i < n; ++i) {
    wscale[i] = WeightScale(gen, p2);
    bias[i] = static_cast<float>(in_scale) * wscale[i] *
              static_cast<float>(static_cast<int>(gen() % 2001) - 1000);
  }
  TestTensor<int8_t> x({m, k}, RandomInt8(m * k, seed + 1, -128, 127));
  TestTensor<int8_t> wq({n, k}, RandomInt8(n * k, seed + 2, -127, 127));
  TestTensor<float> wsc({n}, wscale), b({n}, bias), xf({m, k}), wf({n, k}), wt({k, n}), yf({m, n});
  TestTensor<int64_t> wzp({n});
  TestTensor<int8_t> ref({m, n}), out({m, n});
  EValue s_in = EValue::FromDouble(in_scale), zp_in = EValue::FromInt(in_zp),
         qmin = EValue::FromInt(-128), qmax = EValue::FromInt(127), wqmin = EValue::FromInt(-127),
         dtype = EValue::FromInt(1), none, axis = EValue::FromInt(0),
         s_out = EValue::FromDouble(out_scale), zp_out = EValue::FromInt(out_zp),
         one = EValue::FromInt(1);
  TestIntList perm({1, 0});
  ASSERT_EQ(Call(portable::DequantizePerTensorOut,
                 {x.ev(), &s_in, &zp_in, &qmin, &qmax, &dtype, &none, xf.ev(), xf.ev()}),
            Error::kOk);
  ASSERT_EQ(Call(portable::DequantizePerChannelOut, {wq.ev(), wsc.ev(), wzp.ev(), &axis, &wqmin,
                                                     &qmax, &dtype, &none, wf.ev(), wf.ev()}),
            Error::kOk);
  ASSERT_EQ(Call(portable::PermuteCopyOut, {wf.ev(), perm.ev(), wt.ev(), wt.ev()}), Error::kOk);
  ASSERT_EQ(Call(portable::AddmmOut, {b.ev(), xf.ev(), wt.ev(), &one, &one, yf.ev(), yf.ev()}),
            Error::kOk);
  ASSERT_EQ(Call(portable::QuantizePerTensorOut,
                 {yf.ev(), &s_out, &zp_out, &qmin, &qmax, &dtype, ref.ev(), ref.ev()}),
            Error::kOk);
  QuantizedConvSpec spec;
  spec.kind = QuantizedOpKind::kLinear;
  spec.out_channels = n;
  spec.in_channels = k;
  spec.in_scale = static_cast<float>(in_scale);
  spec.in_zero_point = in_zp;
  spec.out_scale = out_scale;
  spec.out_zero_point = out_zp;
  PackedBlob blob(QuantizedConvPackedBytes(spec, wq.Values().data(), wscale.data(), bias.data()));
  ASSERT_TRUE(PackQuantizedConv(spec, wq.Values().data(), wscale.data(), bias.data(), blob.data()));
  ASSERT_EQ(Call(QuantizedConvolutionOut, {x.ev(), blob.ev(), out.ev(), out.ev()}, threads),
            Error::kOk)
      << LastErrorDetail();
  const std::vector<int8_t> got = out.Values(), want = ref.Values();
  int reported = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i] && reported++ < 5) {
      ADD_FAILURE() << "element " << i << " is " << +got[i] << ", expected " << +want[i];
    }
  }
}

TEST(QuantizedConvTest, LinearMatchesPortableChain) {
  ForEachIsa([] {
    SCOPED_TRACE(Int8DotName(HostInt8Dot()));
    uint32_t seed = 900;
    for (bool p2 : {true, false}) {
      CheckLinear(1, 1280, 100, p2, 1, seed++);
      CheckLinear(1, 1280, 1001, p2, 3, seed++);  // M = 1 split by row tiles
      CheckLinear(3, 13, 10, p2, 1, seed++);
      CheckLinear(70, 64, 33, p2, 2, seed++);
      CheckLinear(2, 5, 7, p2, 1, seed++);
    }
  });
}

TEST(QuantizedConvTest, OutputMayShareTheInputsMemory) {
  for (int groups : {1, 8}) {
    QuantizedConvSpec spec;
    spec.out_channels = spec.in_channels = 8;
    spec.groups = groups;
    spec.kernel_h = spec.kernel_w = groups == 1 ? 1 : 3;
    spec.pad_h = spec.pad_w = groups == 1 ? 0 : 1;
    spec.in_scale = 0.125f;
    spec.in_zero_point = 5;
    spec.out_scale = 0.5;
    const int taps = spec.kernel_h * spec.kernel_w * (groups == 1 ? 8 : 1);
    const std::vector<int8_t> w = RandomInt8(8 * taps, 31, -127, 127);
    const std::vector<float> scales(8, 1.0f / 128);
    PackedBlob blob(QuantizedConvPackedBytes(spec, w.data(), scales.data(), nullptr));
    ASSERT_TRUE(PackQuantizedConv(spec, w.data(), scales.data(), nullptr, blob.data()));
    const std::vector<int8_t> xv = RandomInt8(8 * 6 * 5, 32, -128, 127);
    TestTensor<int8_t> x({1, 8, 6, 5}, xv), out({1, 8, 6, 5});
    ASSERT_EQ(Call(QuantizedConvolutionOut, {x.ev(), blob.ev(), out.ev(), out.ev()}), Error::kOk);
    TestTensor<int8_t> aliased({1, 8, 6, 5});
    aliased.tensor().set_data(x.tensor().mutable_data());
    ASSERT_EQ(Call(QuantizedConvolutionOut, {x.ev(), blob.ev(), aliased.ev(), aliased.ev()}),
              Error::kOk);
    EXPECT_EQ(x.Values(), out.Values());  // TestTensor reads its own storage
  }
}

TEST(QuantizedConvTest, RejectsInvalidArguments) {
  QuantizedConvSpec spec;
  spec.out_channels = 4;
  spec.in_channels = 3;
  spec.kernel_h = spec.kernel_w = 3;
  spec.pad_h = spec.pad_w = 1;
  spec.in_scale = 0.5f;
  spec.out_scale = 0.25;
  const std::vector<int8_t> w(4 * 3 * 9, 1);
  const std::vector<float> scales(4, 0.01f);
  const size_t bytes = QuantizedConvPackedBytes(spec, w.data(), scales.data(), nullptr);
  ASSERT_GT(bytes, 0u);
  PackedBlob blob(bytes);
  ASSERT_TRUE(PackQuantizedConv(spec, w.data(), scales.data(), nullptr, blob.data()));

  TestTensor<int8_t> x({1, 3, 5, 5}), out({1, 4, 5, 5});
  EXPECT_EQ(Call(QuantizedConvolutionOut, {x.ev(), blob.ev(), out.ev(), out.ev()}), Error::kOk);
  // Wrong argument count.
  EXPECT_EQ(Call(QuantizedConvolutionOut, {x.ev(), blob.ev(), out.ev()}), Error::kInvalidArgument);
  // Wrong channel count, dtype, rank; static out of the wrong shape.
  TestTensor<int8_t> x4({1, 4, 5, 5}), x3({3, 5, 5});
  TestTensor<float> xf({1, 3, 5, 5});
  TestTensor<int8_t> bad_out({1, 4, 4, 4}, {}, {}, ShapeDynamism::kStatic);
  EXPECT_EQ(Call(QuantizedConvolutionOut, {x4.ev(), blob.ev(), out.ev(), out.ev()}),
            Error::kInvalidArgument);
  EXPECT_EQ(Call(QuantizedConvolutionOut, {x3.ev(), blob.ev(), out.ev(), out.ev()}),
            Error::kInvalidArgument);
  EXPECT_EQ(Call(QuantizedConvolutionOut, {xf.ev(), blob.ev(), out.ev(), out.ev()}),
            Error::kInvalidArgument);
  EXPECT_EQ(Call(QuantizedConvolutionOut, {x.ev(), blob.ev(), bad_out.ev(), bad_out.ev()}),
            Error::kInvalidArgument);
  EXPECT_NE(std::string(LastErrorDetail()).find("edgefleet::quantized_convolution"),
            std::string::npos);
  // Input smaller than the kernel.
  TestTensor<int8_t> tiny({1, 3, 0, 0});
  EXPECT_EQ(Call(QuantizedConvolutionOut, {tiny.ev(), blob.ev(), out.ev(), out.ev()}),
            Error::kInvalidArgument);
  // Not a packed blob: plain tensor, corrupt magic, truncated.
  TestTensor<uint8_t> junk({static_cast<int32_t>(bytes)});
  EXPECT_EQ(Call(QuantizedConvolutionOut, {x.ev(), junk.ev(), out.ev(), out.ev()}),
            Error::kInvalidArgument);
  EXPECT_EQ(Call(QuantizedConvolutionOut, {x.ev(), x.ev(), out.ev(), out.ev()}),
            Error::kInvalidArgument);
  PackedBlob corrupt(bytes);
  ASSERT_TRUE(PackQuantizedConv(spec, w.data(), scales.data(), nullptr, corrupt.data()));
  corrupt.data()[0] ^= 1;
  EXPECT_EQ(Call(QuantizedConvolutionOut, {x.ev(), corrupt.ev(), out.ev(), out.ev()}),
            Error::kInvalidArgument);
  PackedBlob truncated(64);
  std::memcpy(truncated.data(), blob.data(), 64);
  EXPECT_EQ(Call(QuantizedConvolutionOut, {x.ev(), truncated.ev(), out.ev(), out.ev()}),
            Error::kInvalidArgument);
  // No scratch: the GEMM path needs some.
  EXPECT_EQ(Call(QuantizedConvolutionOut, {x.ev(), blob.ev(), out.ev(), out.ev()}, 1, 0),
            Error::kMemoryAllocationFailed);

  // Invalid specs are refused by the packer.
  QuantizedConvSpec bad = spec;
  bad.groups = 2;  // 3 channels
  EXPECT_EQ(QuantizedConvPackedBytes(bad, w.data(), scales.data(), nullptr), 0u);
  bad = spec;
  bad.in_zero_point = 300;
  EXPECT_EQ(QuantizedConvPackedBytes(bad, w.data(), scales.data(), nullptr), 0u);
  bad = spec;
  bad.out_min = 10;
  bad.out_max = 5;
  EXPECT_EQ(QuantizedConvPackedBytes(bad, w.data(), scales.data(), nullptr), 0u);
  bad = spec;
  bad.out_scale = 0;
  EXPECT_EQ(QuantizedConvPackedBytes(bad, w.data(), scales.data(), nullptr), 0u);
  bad = spec;
  bad.stride_h = 0;
  EXPECT_EQ(QuantizedConvPackedBytes(bad, w.data(), scales.data(), nullptr), 0u);
  EXPECT_FALSE(PackQuantizedConv(bad, w.data(), scales.data(), nullptr, blob.data()));
}

// The int8 convolutions, depthwise and linear give the same bits at 1-4
// threads (testing::CheckSameBits), split or, below their grain, not.
TEST(QuantizedConvTest, SameBitsAtEveryThreadCount) {
  struct Case {
    const char* name;
    QuantizedOpKind kind;
    int32_t cin, cout, h, w, k, stride, groups;
    testing::Grain grain;
  };
  const Case cases[] = {
      {"pointwise", QuantizedOpKind::kConv2d, 64, 97, 29, 31, 1, 1, 1, testing::Grain::kSplits},
      {"3x3", QuantizedOpKind::kConv2d, 16, 33, 57, 55, 3, 1, 1, testing::Grain::kSplits},
      {"depthwise s1", QuantizedOpKind::kConv2d, 96, 96, 57, 55, 3, 1, 96, testing::Grain::kSplits},
      {"depthwise s2", QuantizedOpKind::kConv2d, 144, 144, 57, 55, 3, 2, 144,
       testing::Grain::kSplits},
      {"linear M=1", QuantizedOpKind::kLinear, 1280, 1001, 1, 1, 1, 1, 1, testing::Grain::kSplits},
      {"depthwise small", QuantizedOpKind::kConv2d, 8, 8, 9, 9, 3, 1, 8, testing::Grain::kSmall},
  };
  uint32_t seed = 1200;
  for (const Case& c : cases) {
    const bool linear = c.kind == QuantizedOpKind::kLinear;
    QuantizedConvSpec spec;
    spec.kind = c.kind;
    spec.in_channels = c.cin;
    spec.out_channels = c.cout;
    spec.groups = c.groups;
    spec.kernel_h = spec.kernel_w = c.k;
    spec.stride_h = spec.stride_w = c.stride;
    spec.pad_h = spec.pad_w = c.k / 2;
    spec.in_scale = 0.05f;
    spec.in_zero_point = 3;
    const int depth = c.cin / c.groups * c.k * c.k;
    // Output codes spread over the range (few saturate): the product's
    // spread is about 0.05 * 74 * 0.01 * 73 * sqrt(depth).
    spec.out_scale = 2.7 * std::sqrt(static_cast<double>(depth)) / 40;
    spec.out_zero_point = -4;
    std::mt19937 gen(seed++);
    std::vector<float> wscale(c.cout), bias(c.cout);
    for (int i = 0; i < c.cout; ++i) {
      wscale[i] = std::uniform_real_distribution<float>(0.005f, 0.015f)(gen);
      bias[i] = std::uniform_real_distribution<float>(-2.0f, 2.0f)(gen);
    }
    const std::vector<int8_t> w =
        RandomInt8(static_cast<size_t>(c.cout) * depth, seed++, -127, 127);
    PackedBlob blob(QuantizedConvPackedBytes(spec, w.data(), wscale.data(), bias.data()));
    ASSERT_TRUE(PackQuantizedConv(spec, w.data(), wscale.data(), bias.data(), blob.data()));
    const std::vector<int32_t> xs =
        linear ? std::vector<int32_t>{1, c.cin} : std::vector<int32_t>{1, c.cin, c.h, c.w};
    TestTensor<int8_t> x(xs, RandomInt8(testing::Numel(xs), seed++, -128, 127));
    const int32_t oh = (c.h + 2 * (c.k / 2) - c.k) / c.stride + 1;
    const int32_t ow = (c.w + 2 * (c.k / 2) - c.k) / c.stride + 1;
    const std::vector<int32_t> ys =
        linear ? std::vector<int32_t>{1, c.cout} : std::vector<int32_t>{1, c.cout, oh, ow};
    testing::CheckSameBits(c.name, c.grain, [&](int threads) {
      TestTensor<int8_t> out(ys);
      EXPECT_EQ(Call(QuantizedConvolutionOut, {x.ev(), blob.ev(), out.ev(), out.ev()}, threads),
                Error::kOk)
          << LastErrorDetail();
      std::vector<uint8_t> bytes;
      testing::AppendBytes(out.Values(), &bytes);
      return bytes;
    });
  }
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet
