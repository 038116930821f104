// Every parallel optimized kernel gives the same output bits at 1, 2, 3 and
// 4 threads: how the work is split (ranges of elements or rows, planes,
// transpose tiles, GEMM blocks, channel ranges) never changes an output's
// arithmetic. Each "split" case is large enough that the kernel hands work
// to the pool at 2+ threads (checked with ThreadPool::jobs_started(), so a
// case cannot pass by running on one thread), with sizes that do not divide
// by 2, 3, 4 or the tile sizes (ragged partitions); each "small" case is
// below the kernel's grain and must stay on the calling thread. Kernels that
// are exact against the portable kernel (data movement, elementwise,
// depthwise, pooling) are also compared with it at 4 threads; the others
// have their tolerance tests in the kernel's own test file.
//
// The int8 convolution kernels have the same check in quantized_conv_test.cc.
// The fused int8 add (quantized_add.h) is checked here, in 64K-element
// chunks with a ragged last one, with int8 and float first operands.

#include <string>
#include <vector>

#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/quantized_add.h"
#include "runtime/kernels/optimized/test_util.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

using testing::AppendBytes;
using testing::Call;
using testing::CheckSameBits;
using testing::ExpectMatch;
using testing::Grain;
using testing::Random;
using testing::RandomTensor;
using testing::TestIntList;
using testing::TestTensor;

// ---- elementwise ----

struct BinaryCase {
  std::vector<int32_t> a, b;
  std::vector<uint8_t> order;
  Grain grain;
};

TEST(ParallelDeterminism, BinaryOps) {
  const BinaryCase cases[] = {
      {{300007}, {300007}, {}, Grain::kSplits},                          // one run
      {{1, 96, 57, 57}, {1, 96, 1, 1}, {}, Grain::kSplits},              // squeeze-excite scale
      {{3, 70001}, {70001}, {}, Grain::kSplits},                         // few long rows
      {{1, 40, 45, 47}, {1, 40, 45, 47}, {0, 2, 3, 1}, Grain::kSplits},  // channels-last
      {{5, 7}, {7}, {}, Grain::kSmall},
      {{1, 8, 30, 30}, {1, 8, 1, 1}, {}, Grain::kSmall},
  };
  for (const BinaryCase& c : cases) {
    const std::vector<uint8_t> b_order =
        c.b.size() == c.a.size() ? c.order : std::vector<uint8_t>{};
    RandomTensor a(c.a, 11, c.order), b(c.b, 12, b_order);
    EValue alpha = EValue::FromDouble(2.5);
    for (int op = 0; op < 2; ++op) {
      const OpFunction opt = op == 0 ? AddOut : MulOut;
      const OpFunction ref = op == 0 ? portable::AddOut : portable::MulOut;
      const auto args = [&](TestTensor<float>& out) {
        return op == 0 ? std::vector<EValue*>{a.t.ev(), b.t.ev(), &alpha, out.ev(), out.ev()}
                       : std::vector<EValue*>{a.t.ev(), b.t.ev(), out.ev(), out.ev()};
      };
      CheckSameBits(std::string(op == 0 ? "add " : "mul ") + std::to_string(a.t.Values().size()),
                    c.grain, [&](int threads) {
                      TestTensor<float> o(c.a, {}, c.order);
                      EXPECT_EQ(Call(opt, args(o), threads), Error::kOk);
                      std::vector<uint8_t> bytes;
                      AppendBytes(o.Values(), &bytes);
                      return bytes;
                    });
      TestTensor<float> r(c.a, {}, c.order), o(c.a, {}, c.order);
      ASSERT_EQ(Call(ref, args(r)), Error::kOk);
      ASSERT_EQ(Call(opt, args(o), 4), Error::kOk);
      ExpectMatch(o.Values(), r.Values(), testing::kExact, "binary vs portable");
    }
  }
}

TEST(ParallelDeterminism, Activations) {
  for (const auto& [shape, grain] :
       {std::pair<std::vector<int32_t>, Grain>{{1, 16, 113, 113}, Grain::kSplits},
        {{3, 100}, Grain::kSmall}}) {
    RandomTensor x(shape, 21);
    for (const OpFunction fn : {HardswishOut, SigmoidOut, ReluOut}) {
      CheckSameBits("activation", grain, [&](int threads) {
        TestTensor<float> o(shape);
        EXPECT_EQ(Call(fn, {x.t.ev(), o.ev(), o.ev()}, threads), Error::kOk);
        std::vector<uint8_t> bytes;
        AppendBytes(o.Values(), &bytes);
        return bytes;
      });
    }
  }
}

TEST(ParallelDeterminism, BatchNorm) {
  const std::vector<int32_t> shape = {1, 70, 41, 39};
  RandomTensor x(shape, 31), weight({70}, 32), bias({70}, 33), mean({70}, 34);
  TestTensor<float> var({70}, Random<float>(70, 35, 0.1, 2.0));
  EValue momentum = EValue::FromDouble(0.1), eps = EValue::FromDouble(1e-5);
  CheckSameBits("batch norm", Grain::kSplits, [&](int threads) {
    TestTensor<float> o(shape), sm({0}), sv({0});
    EXPECT_EQ(Call(BatchNormOut,
                   {x.t.ev(), weight.t.ev(), bias.t.ev(), mean.t.ev(), var.ev(), &momentum, &eps,
                    o.ev(), sm.ev(), sv.ev(), o.ev()},
                   threads),
              Error::kOk);
    std::vector<uint8_t> bytes;
    AppendBytes(o.Values(), &bytes);
    return bytes;
  });
}

// ---- convolutions (GEMM, grouped, depthwise) ----

struct ConvCase {
  const char* name;
  int32_t cin, h, w, cout, k, stride, pad, groups;
  bool channels_last;
  Grain grain;
};

TEST(ParallelDeterminism, Convolutions) {
  const ConvCase cases[] = {
      {"stem 3x3 s2", 3, 113, 111, 16, 3, 2, 1, 1, false, Grain::kSplits},
      {"pointwise", 32, 29, 31, 97, 1, 1, 0, 1, false, Grain::kSplits},
      {"pointwise 7x7", 160, 7, 7, 960, 1, 1, 0, 1, false, Grain::kSplits},
      // Channels-last 1x1: C is pixels x output channels, split in half
      // tiles (49 x 160) or short tiles (196 x 64) and with ragged edges.
      {"pointwise channels-last 7x7", 576, 7, 7, 160, 1, 1, 0, 1, true, Grain::kSplits},
      {"pointwise channels-last 14x14", 384, 14, 14, 64, 1, 1, 0, 1, true, Grain::kSplits},
      {"pointwise channels-last ragged", 100, 13, 11, 24, 1, 1, 0, 1, true, Grain::kSplits},
      {"grouped", 64, 27, 29, 64, 3, 1, 1, 4, false, Grain::kSplits},
      // Narrow groups channels-last (grouped_nhwc.h): rows of pixels.
      {"grouped channels-last", 104, 15, 17, 104, 3, 1, 1, 13, true, Grain::kSplits},
      {"depthwise s1", 96, 57, 55, 96, 3, 1, 1, 96, false, Grain::kSplits},
      {"depthwise s2", 96, 113, 111, 96, 3, 2, 1, 96, false, Grain::kSplits},
      {"depthwise 5x5 7x7", 577, 7, 7, 577, 5, 1, 2, 577, false, Grain::kSplits},
      {"depthwise channels-last", 144, 29, 27, 144, 3, 1, 1, 144, true, Grain::kSplits},
      // Few rows: tasks split each row's channels too (ragged last block).
      {"depthwise channels-last 7x7", 961, 7, 7, 961, 3, 1, 1, 961, true, Grain::kSplits},
      // Fixed 3x3 / 5x5 windows at strides 1 and 2, channel tails of half,
      // quarter and single lanes.
      {"depthwise channels-last 3x3 s2", 37, 61, 63, 37, 3, 2, 1, 37, true, Grain::kSplits},
      {"depthwise channels-last 5x5", 100, 15, 17, 100, 5, 1, 2, 100, true, Grain::kSplits},
      {"depthwise channels-last 5x5 s2", 72, 45, 43, 72, 5, 2, 2, 72, true, Grain::kSplits},
      {"depthwise small", 8, 9, 9, 8, 3, 1, 1, 8, false, Grain::kSmall},
  };
  for (const ConvCase& c : cases) {
    const std::vector<uint8_t> order =
        c.channels_last ? std::vector<uint8_t>{0, 2, 3, 1} : std::vector<uint8_t>{};
    RandomTensor in({1, c.cin, c.h, c.w}, 41, order);
    RandomTensor weight({c.cout, c.cin / c.groups, c.k, c.k}, 42, order);
    RandomTensor bias({c.cout}, 43);
    TestIntList stride{c.stride, c.stride}, pad{c.pad, c.pad}, dil{1, 1}, out_pad{0, 0};
    EValue transposed = EValue::FromBool(false), groups = EValue::FromInt(c.groups);
    const int32_t oh = (c.h + 2 * c.pad - c.k) / c.stride + 1;
    const int32_t ow = (c.w + 2 * c.pad - c.k) / c.stride + 1;
    const std::vector<int32_t> out_shape = {1, c.cout, oh, ow};
    const auto args = [&](TestTensor<float>& out) {
      return std::vector<EValue*>{in.t.ev(), weight.t.ev(), bias.t.ev(), stride.ev(),
                                  pad.ev(),  dil.ev(),      &transposed, out_pad.ev(),
                                  &groups,   out.ev(),      out.ev()};
    };
    CheckSameBits(c.name, c.grain, [&](int threads) {
      TestTensor<float> o(out_shape, {}, order);
      EXPECT_EQ(Call(ConvolutionOut, args(o), threads), Error::kOk) << LastErrorDetail();
      std::vector<uint8_t> bytes;
      AppendBytes(o.Values(), &bytes);
      return bytes;
    });
    // Depthwise and the NCHW direct grouped kernel: exact.
    if (c.groups > 1 && c.cout == c.cin && (c.groups == c.cin || !c.channels_last)) {
      TestTensor<float> r(out_shape, {}, order), o(out_shape, {}, order);
      ASSERT_EQ(Call(portable::ConvolutionOut, args(r)), Error::kOk);
      ASSERT_EQ(Call(ConvolutionOut, args(o), 4), Error::kOk);
      ExpectMatch(o.Values(), r.Values(), testing::kExact, c.name);
    }
  }
}

// ---- matrix products: classifier GEMV and small-M GEMM ----

TEST(ParallelDeterminism, MatrixProducts) {
  for (const auto& [m, k, n] :
       {std::tuple<int32_t, int32_t, int32_t>{1, 1280, 1001}, {7, 515, 1003}, {2, 96, 37}}) {
    RandomTensor bias({n}, 51), a({m, k}, 52), b({k, n}, 53);
    EValue one = EValue::FromInt(1);
    CheckSameBits(
        "addmm m" + std::to_string(m), m * n * k >= (1 << 17) ? Grain::kSplits : Grain::kSmall,
        [&](int threads) {
          TestTensor<float> o({m, n});
          EXPECT_EQ(Call(AddmmOut, {bias.t.ev(), a.t.ev(), b.t.ev(), &one, &one, o.ev(), o.ev()},
                         threads),
                    Error::kOk);
          std::vector<uint8_t> bytes;
          AppendBytes(o.Values(), &bytes);
          return bytes;
        });
  }
}

// ---- pooling, global pooling, reductions ----

void CheckMaxPool(const std::vector<uint8_t>& order) {
  TestTensor<float> x({1, 64, 113, 111}, Random<float>(64 * 113 * 111, 61), order);
  TestIntList k{3, 3}, s{2, 2}, p{1, 1}, d{1, 1};
  EValue ceil_mode = EValue::FromBool(false);
  const std::vector<int32_t> out_shape = {1, 64, 57, 56};
  const auto args = [&](TestTensor<float>& out, TestTensor<int64_t>& idx) {
    return std::vector<EValue*>{x.ev(),     k.ev(),   s.ev(),   p.ev(),  d.ev(),
                                &ceil_mode, out.ev(), idx.ev(), out.ev()};
  };
  CheckSameBits(order.empty() ? "max pool" : "max pool channels-last", Grain::kSplits,
                [&](int threads) {
                  TestTensor<float> o(out_shape, {}, order);
                  TestTensor<int64_t> oi(out_shape);
                  EXPECT_EQ(Call(MaxPool2dWithIndicesOut, args(o, oi), threads), Error::kOk);
                  std::vector<uint8_t> bytes;
                  AppendBytes(o.Values(), &bytes);
                  AppendBytes(oi.Values(), &bytes);
                  return bytes;
                });
  TestTensor<float> r(out_shape), o(out_shape, {}, order);
  TestTensor<int64_t> ri(out_shape), oi(out_shape);
  ASSERT_EQ(Call(portable::MaxPool2dWithIndicesOut, args(r, ri)), Error::kOk);
  ASSERT_EQ(Call(MaxPool2dWithIndicesOut, args(o, oi), 4), Error::kOk);
  ExpectMatch(o.Values(), r.Values(), testing::kExact, "max pool");
  ExpectMatch(oi.Values(), ri.Values(), testing::kExact, "max pool indices");
}

// NCHW planes, and (channels-last input, max_pool_nhwc.h) rows of pixels.
TEST(ParallelDeterminism, MaxPool) {
  for (const auto& order : {std::vector<uint8_t>{}, std::vector<uint8_t>{0, 2, 3, 1}}) {
    CheckMaxPool(order);
  }
}

TEST(ParallelDeterminism, GlobalMean) {
  struct Case {
    std::vector<int32_t> shape;
    std::vector<uint8_t> order;
    Grain grain;
  };
  const Case cases[] = {
      {{1, 1281, 14, 14}, {}, Grain::kSplits},           // NCHW: one run per output
      {{1, 577, 14, 13}, {0, 2, 3, 1}, Grain::kSplits},  // channels-last: channel ranges
      {{1, 96, 7, 7}, {}, Grain::kSmall},
  };
  TestIntList spatial{-1, -2};
  EValue keepdim = EValue::FromBool(true), none;
  for (const Case& c : cases) {
    RandomTensor x(c.shape, 71, c.order);
    const std::vector<int32_t> out_shape = {1, c.shape[1], 1, 1};
    const auto args = [&](TestTensor<float>& out) {
      return std::vector<EValue*>{x.t.ev(), spatial.ev(), &keepdim, &none, out.ev(), out.ev()};
    };
    CheckSameBits("mean", c.grain, [&](int threads) {
      TestTensor<float> o(out_shape);
      EXPECT_EQ(Call(MeanOut, args(o), threads), Error::kOk);
      std::vector<uint8_t> bytes;
      AppendBytes(o.Values(), &bytes);
      return bytes;
    });
    if (!c.order.empty()) {  // summed in the portable order: exact
      TestTensor<float> r(out_shape), o(out_shape);
      ASSERT_EQ(Call(portable::MeanOut, args(r)), Error::kOk);
      ASSERT_EQ(Call(MeanOut, args(o), 4), Error::kOk);
      ExpectMatch(o.Values(), r.Values(), testing::kExact, "mean channels-last");
    }
  }
}

// ---- softmax and layer norm ----

TEST(ParallelDeterminism, SoftmaxAndLayerNorm) {
  RandomTensor x({67, 1001}, 81);
  EValue dim = EValue::FromInt(-1), no = EValue::FromBool(false);
  CheckSameBits("softmax", Grain::kSplits, [&](int threads) {
    TestTensor<float> o({67, 1001});
    EXPECT_EQ(Call(SoftmaxOut, {x.t.ev(), &dim, &no, o.ev(), o.ev()}, threads), Error::kOk);
    std::vector<uint8_t> bytes;
    AppendBytes(o.Values(), &bytes);
    return bytes;
  });
  RandomTensor y({131, 769}, 82), w({769}, 83), b({769}, 84);
  TestIntList shape{769};
  EValue eps = EValue::FromDouble(1e-5);
  CheckSameBits("layer norm", Grain::kSplits, [&](int threads) {
    TestTensor<float> o({131, 769}), mean({131, 1}), rstd({131, 1});
    EXPECT_EQ(
        Call(LayerNormOut,
             {y.t.ev(), shape.ev(), w.t.ev(), b.t.ev(), &eps, o.ev(), mean.ev(), rstd.ev(), o.ev()},
             threads),
        Error::kOk);
    std::vector<uint8_t> bytes;
    AppendBytes(o.Values(), &bytes);
    AppendBytes(mean.Values(), &bytes);
    AppendBytes(rstd.Values(), &bytes);
    return bytes;
  });
}

// ---- transposes and copies ----

struct PermuteCase {
  std::vector<int32_t> shape;
  std::vector<int64_t> dims;
  Grain grain;
};

TEST(ParallelDeterminism, PermuteAndTranspose) {
  const PermuteCase cases[] = {
      {{1, 64, 56, 57}, {0, 2, 3, 1}, Grain::kSplits},  // NCHW -> NHWC: one plane, tiles
      {{3, 61, 29, 37}, {0, 2, 3, 1}, Grain::kSplits},  // several planes
      {{2, 64, 30, 57}, {0, 2, 1, 3}, Grain::kSplits},  // contiguous runs
      {{50, 40, 33}, {2, 1, 0}, Grain::kSplits},        // many small planes
      {{300011}, {0}, Grain::kSplits},                  // one run
      {{4, 9, 11}, {2, 0, 1}, Grain::kSmall},
  };
  for (const PermuteCase& c : cases) {
    RandomTensor x(c.shape, 91);
    TestIntList dims(c.dims.size() == 1 ? TestIntList{c.dims[0]}
                     : c.dims.size() == 3
                         ? TestIntList{c.dims[0], c.dims[1], c.dims[2]}
                         : TestIntList{c.dims[0], c.dims[1], c.dims[2], c.dims[3]});
    std::vector<int32_t> out_shape;
    for (int64_t d : c.dims) out_shape.push_back(c.shape[d]);
    CheckSameBits("permute", c.grain, [&](int threads) {
      TestTensor<float> o(out_shape);
      EXPECT_EQ(Call(PermuteCopyOut, {x.t.ev(), dims.ev(), o.ev(), o.ev()}, threads), Error::kOk);
      std::vector<uint8_t> bytes;
      AppendBytes(o.Values(), &bytes);
      return bytes;
    });
    TestTensor<float> r(out_shape), o(out_shape);
    ASSERT_EQ(Call(portable::PermuteCopyOut, {x.t.ev(), dims.ev(), r.ev(), r.ev()}), Error::kOk);
    ASSERT_EQ(Call(PermuteCopyOut, {x.t.ev(), dims.ev(), o.ev(), o.ev()}, 4), Error::kOk);
    ExpectMatch(o.Values(), r.Values(), testing::kExact, "permute vs portable");
  }
  RandomTensor m({1001, 577}, 92);
  CheckSameBits("t_copy", Grain::kSplits, [&](int threads) {
    TestTensor<float> o({577, 1001});
    EXPECT_EQ(Call(TCopyOut, {m.t.ev(), o.ev(), o.ev()}, threads), Error::kOk);
    std::vector<uint8_t> bytes;
    AppendBytes(o.Values(), &bytes);
    return bytes;
  });
}

// ---- int8 quantize / dequantize, upsampling ----

TEST(ParallelDeterminism, QuantizeDequantize) {
  const std::vector<int32_t> shape = {1, 32, 113, 111};
  RandomTensor x(shape, 101);
  EValue s = EValue::FromDouble(0.0137), zp = EValue::FromInt(3), lo = EValue::FromInt(-128),
         hi = EValue::FromInt(127),
         dtype = EValue::FromInt(static_cast<int64_t>(ScalarType::kChar)), none;
  TestTensor<int8_t> q(shape);
  ASSERT_EQ(Call(QuantizePerTensorOut, {x.t.ev(), &s, &zp, &lo, &hi, &dtype, q.ev(), q.ev()}),
            Error::kOk);
  CheckSameBits("quantize", Grain::kSplits, [&](int threads) {
    TestTensor<int8_t> o(shape);
    EXPECT_EQ(
        Call(QuantizePerTensorOut, {x.t.ev(), &s, &zp, &lo, &hi, &dtype, o.ev(), o.ev()}, threads),
        Error::kOk);
    std::vector<uint8_t> bytes;
    AppendBytes(o.Values(), &bytes);
    return bytes;
  });
  CheckSameBits("dequantize", Grain::kSplits, [&](int threads) {
    TestTensor<float> o(shape);
    EXPECT_EQ(Call(DequantizePerTensorOut,
                   {q.ev(), &s, &zp, &lo, &hi, &dtype, &none, o.ev(), o.ev()}, threads),
              Error::kOk);
    std::vector<uint8_t> bytes;
    AppendBytes(o.Values(), &bytes);
    return bytes;
  });
}

TEST(ParallelDeterminism, QuantizedAdd) {
  for (const auto& [shape, grain] :
       {std::pair<std::vector<int32_t>, Grain>{{1, 40, 61, 59}, Grain::kSplits},
        {{3, 5, 7}, Grain::kSmall}}) {
    RandomTensor xa(shape, 121, {}), xb(shape, 122, {});
    EValue sa = EValue::FromDouble(0.0113), za = EValue::FromInt(-3),
           sb = EValue::FromDouble(0.0171), zb = EValue::FromInt(5),
           so = EValue::FromDouble(0.0219), zo = EValue::FromInt(2), lo = EValue::FromInt(-128),
           hi = EValue::FromInt(127),
           dtype = EValue::FromInt(static_cast<int64_t>(ScalarType::kChar));
    TestTensor<int8_t> qa(shape), qb(shape);
    ASSERT_EQ(Call(QuantizePerTensorOut, {xa.t.ev(), &sa, &za, &lo, &hi, &dtype, qa.ev(), qa.ev()}),
              Error::kOk);
    ASSERT_EQ(Call(QuantizePerTensorOut, {xb.t.ev(), &sb, &zb, &lo, &hi, &dtype, qb.ev(), qb.ev()}),
              Error::kOk);
    for (EValue* a : {qa.ev(), xa.t.ev()}) {  // int8, then float32, first operand
      CheckSameBits("quantized add", grain, [&](int threads) {
        TestTensor<int8_t> o(shape);
        EXPECT_EQ(
            Call(QuantizedAddOut,
                 {a, &sa, &za, qb.ev(), &sb, &zb, &so, &zo, &lo, &hi, o.ev(), o.ev()}, threads),
            Error::kOk);
        std::vector<uint8_t> bytes;
        AppendBytes(o.Values(), &bytes);
        return bytes;
      });
    }
  }
}

TEST(ParallelDeterminism, UpsampleBilinear) {
  RandomTensor x({1, 33, 61, 59}, 111);
  TestIntList size{122, 118};
  EValue align = EValue::FromBool(false), none;
  CheckSameBits("upsample", Grain::kSplits, [&](int threads) {
    TestTensor<float> o({1, 33, 122, 118});
    EXPECT_EQ(Call(UpsampleBilinear2dVecOut, {x.t.ev(), size.ev(), &align, &none, o.ev(), o.ev()},
                   threads),
              Error::kOk);
    std::vector<uint8_t> bytes;
    AppendBytes(o.Values(), &bytes);
    return bytes;
  });
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet
