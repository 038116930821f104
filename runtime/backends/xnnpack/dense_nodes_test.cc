// The delegate's dense nodes on our optimized kernels against direct sums
// written from XNNPACK's definitions (NHWC data; OHWI, [1, kh, kw, oc] and
// [units, depth] filters), with and without packed filters, biases and
// clamps, strides, dilation, padding and groups.

#include "runtime/backends/xnnpack/dense_nodes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "runtime/core/memory_allocator.h"
#include "runtime/kernels/optimized/cpu_features.h"

namespace edgefleet {
namespace xnnpack {
namespace {

struct Case {
  const char* name;
  NodeType type;
  size_t n, h, w, c;  // input NHWC
  uint32_t kh, kw, stride, dilation, pad, groups, group_in, group_out;
  bool bias;
  float lo, hi;
};

std::vector<float> Random(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) x = dist(rng);
  return v;
}

class Fixture {
 public:
  explicit Fixture(const Case& c) {
    Node& n = node;
    n.type = c.type;
    n.output_min = c.lo;
    n.output_max = c.hi;
    n.window.kernel_h = c.kh;
    n.window.kernel_w = c.kw;
    n.window.stride_h = n.window.stride_w = c.stride;
    n.window.dilation_h = n.window.dilation_w = c.dilation;
    n.window.pad_top = n.window.pad_bottom = n.window.pad_left = n.window.pad_right = c.pad;
    n.window.groups = c.groups;
    n.window.group_input_channels = c.group_in;
    n.window.group_output_channels = c.group_out;
    const bool dw = c.type == NodeType::kDepthwiseConv2d;
    out_c = dw ? c.groups * (c.group_out / c.group_in) : c.groups * c.group_out;
    oh = (c.h + 2 * c.pad - c.dilation * (c.kh - 1) - 1) / c.stride + 1;
    ow = (c.w + 2 * c.pad - c.dilation * (c.kw - 1) - 1) / c.stride + 1;
    Dims x_dims{c.n, c.h, c.w, c.c};
    Dims w_dims = dw ? Dims{1, c.kh, c.kw, out_c} : Dims{out_c, c.kh, c.kw, c.group_in};
    Dims y_dims{c.n, oh, ow, out_c};
    if (c.type == NodeType::kFullyConnected) {
      out_c = c.group_out;
      x_dims = {c.n, c.c};
      w_dims = {out_c, c.c};
      y_dims = {c.n, out_c};
    }
    x = Random(Numel(x_dims), 1);
    w = Random(Numel(w_dims), 2);
    b = Random(out_c, 3);
    Add(DataType::kFp32, x_dims, nullptr);
    Add(DataType::kFp32, w_dims, w.data());
    Add(DataType::kFp32, c.bias ? Dims{out_c} : Dims{}, c.bias ? b.data() : nullptr);
    Add(DataType::kFp32, y_dims, nullptr);
    n.inputs = {0, 1, c.bias ? 2u : kInvalidId};
    n.outputs = {3};
    for (const Value& v : graph.values) dims.push_back(v.dims);
  }

  static size_t Numel(const Dims& d) {
    size_t p = 1;
    for (size_t x : d) p *= x;
    return p;
  }

  void Add(DataType type, Dims d, const float* data) {
    Value v;
    v.id = static_cast<uint32_t>(graph.values.size());
    v.type = type;
    v.dims = std::move(d);
    v.data = data;
    graph.values.push_back(v);
  }

  // The direct sum, from XNNPACK's definitions.
  std::vector<float> Reference(const Case& c) const {
    std::vector<float> y;
    if (c.type == NodeType::kFullyConnected) {
      for (size_t r = 0; r < c.n; ++r) {
        for (size_t u = 0; u < out_c; ++u) {
          double acc = c.bias ? b[u] : 0.0;
          for (size_t k = 0; k < c.c; ++k) acc += double{x[r * c.c + k]} * w[u * c.c + k];
          y.push_back(std::min(std::max(static_cast<float>(acc), c.lo), c.hi));
        }
      }
      return y;
    }
    const bool dw = c.type == NodeType::kDepthwiseConv2d;
    for (size_t n = 0; n < c.n; ++n) {
      for (size_t oy = 0; oy < oh; ++oy) {
        for (size_t ox = 0; ox < ow; ++ox) {
          for (size_t oc = 0; oc < out_c; ++oc) {
            const size_t g = dw ? oc / (c.group_out / c.group_in) : oc / c.group_out;
            double acc = c.bias ? b[oc] : 0.0;
            for (size_t ky = 0; ky < c.kh; ++ky) {
              for (size_t kx = 0; kx < c.kw; ++kx) {
                const long iy = static_cast<long>(oy * c.stride + ky * c.dilation) - c.pad;
                const long ix = static_cast<long>(ox * c.stride + kx * c.dilation) - c.pad;
                if (iy < 0 || ix < 0 || iy >= static_cast<long>(c.h) ||
                    ix >= static_cast<long>(c.w)) {
                  continue;
                }
                const float* px = &x[((n * c.h + iy) * c.w + ix) * c.c];
                if (dw) {
                  acc += double{px[g]} * w[(ky * c.kw + kx) * out_c + oc];
                } else {
                  for (size_t ic = 0; ic < c.group_in; ++ic) {
                    acc += double{px[g * c.group_in + ic]} *
                           w[((oc * c.kh + ky) * c.kw + kx) * c.group_in + ic];
                  }
                }
              }
            }
            y.push_back(std::min(std::max(static_cast<float>(acc), c.lo), c.hi));
          }
        }
      }
    }
    return y;
  }

  Graph graph;
  Node node;
  std::vector<Dims> dims;
  std::vector<float> x, w, b;
  size_t out_c = 0, oh = 1, ow = 1;
};

constexpr float kInf = __builtin_inff();

const Case kCases[] = {
    {"pointwise", NodeType::kConv2d, 1, 7, 9, 24, 1, 1, 1, 1, 0, 1, 24, 40, true, -kInf, kInf},
    {"pointwise_relu6", NodeType::kConv2d, 2, 5, 5, 17, 1, 1, 1, 1, 0, 1, 17, 33, true, 0, 6},
    {"conv3x3_stride2", NodeType::kConv2d, 1, 11, 10, 3, 3, 3, 2, 1, 1, 1, 3, 16, true, -kInf,
     kInf},
    // First layers over images (the direct small-input kernel when packed):
    // output channels past the vectors, dilation, 1 and 4 input channels.
    {"image_rgb_ragged_relu6", NodeType::kConv2d, 2, 9, 13, 3, 3, 3, 2, 1, 1, 1, 3, 19, true, 0, 6},
    {"image_gray_5x5_dilated", NodeType::kConv2d, 1, 12, 11, 1, 5, 5, 1, 2, 3, 1, 1, 8, false,
     -kInf, kInf},
    {"image_4ch_7x7_stride2", NodeType::kConv2d, 1, 20, 17, 4, 7, 7, 2, 1, 3, 1, 4, 40, true, -kInf,
     kInf},
    {"conv_8ch_stays_with_xnnpack", NodeType::kConv2d, 1, 6, 6, 8, 3, 3, 1, 1, 1, 1, 8, 8, true,
     -kInf, kInf},
    {"conv3x3_wide", NodeType::kConv2d, 2, 7, 6, 20, 3, 3, 1, 1, 1, 1, 20, 24, true, 0, 6},
    {"conv5x3_wide_stride2_dilated", NodeType::kConv2d, 1, 13, 11, 16, 5, 3, 2, 2, 2, 1, 16, 9,
     false, -kInf, kInf},
    {"conv3x3_48ch_row_pointers", NodeType::kConv2d, 1, 9, 7, 48, 3, 3, 2, 1, 1, 1, 48, 40, true,
     -kInf, kInf},
    {"conv_dilated_grouped", NodeType::kConv2d, 1, 9, 9, 8, 3, 3, 1, 2, 2, 2, 4, 6, false, -1, 1},
    // Narrow groups (grouped_nhwc.h): 13 of 8 channels (a channel tail),
    // 8 of 2 with stride 2.
    {"grouped_13x8", NodeType::kConv2d, 1, 9, 10, 104, 3, 3, 1, 1, 1, 13, 8, 8, true, 0, 6},
    {"grouped_8x2_stride2", NodeType::kConv2d, 2, 11, 9, 16, 3, 3, 2, 1, 1, 8, 2, 2, false, -kInf,
     kInf},
    {"depthwise", NodeType::kDepthwiseConv2d, 1, 12, 12, 32, 3, 3, 1, 1, 1, 32, 1, 1, true, 0, 6},
    {"depthwise_stride2_x2", NodeType::kDepthwiseConv2d, 1, 9, 8, 5, 5, 5, 2, 1, 2, 5, 1, 2, true,
     -kInf, kInf},
    {"fully_connected", NodeType::kFullyConnected, 3, 1, 1, 50, 1, 1, 1, 1, 0, 1, 1, 21, true,
     -kInf, kInf},
    {"fully_connected_gemv", NodeType::kFullyConnected, 1, 1, 1, 128, 1, 1, 1, 1, 0, 1, 1, 1000,
     false, -0.5, 0.5},
};

// Every kernel the rule can pick (the GEMM on panels or on the filter in
// place, packed patches or row pointers, the small-input and depthwise
// kernels, fully connected), without and with a folded SiLU, Hardswish or
// Sigmoid (activation_folding.h: x * sigmoid(x), x * clamp(x + 3, 0, 6) / 6,
// sigmoid(x) of the node's clamped output).
TEST(DenseNodes, MatchDirectSums) {
  std::vector<uint8_t> scratch(8 << 20);
  for (const Case& c : kCases) {
    for (bool packed : {false, true}) {
      for (FusedActivation act : {FusedActivation::kNone, FusedActivation::kSilu,
                                  FusedActivation::kHardswish, FusedActivation::kSigmoid}) {
        Fixture f(c);
        f.node.activation = act;
        ASSERT_TRUE(DenseKernelSupports(f.graph, f.node)) << c.name;
        std::vector<float> filter(packed ? PackedFilterFloats(f.graph, f.node) : 0);
        if (!filter.empty()) PackDenseFilter(f.graph, f.node, filter.data());
        std::vector<float> want = f.Reference(c);
        for (float& v : want) {
          const double d = v;
          if (act == FusedActivation::kSilu) v = static_cast<float>(d / (1.0 + std::exp(-d)));
          if (act == FusedActivation::kSigmoid) v = static_cast<float>(1.0 / (1.0 + std::exp(-d)));
          if (act == FusedActivation::kHardswish) {
            v = static_cast<float>(d * std::min(std::max(d + 3.0, 0.0), 6.0) / 6.0);
          }
        }
        std::vector<float> y(want.size(), std::nanf(""));
        MemoryAllocator temp(scratch.data(), scratch.size());
        KernelContext ctx(&temp, 1);
        const void* in[3] = {f.x.data(), f.w.data(), c.bias ? f.b.data() : nullptr};
        void* out[1] = {y.data()};
        ASSERT_EQ(RunDenseNode(ctx, f.graph, f.node, f.dims, in, out,
                               filter.empty() ? nullptr : filter.data()),
                  Error::kOk)
            << c.name;
        for (size_t i = 0; i < want.size(); ++i) {
          ASSERT_NEAR(y[i], want[i], 1e-4f * std::max(1.0f, std::fabs(want[i])))
              << c.name << (packed ? " packed" : "") << " activation " << static_cast<int>(act)
              << " element " << i;
        }
      }
    }
  }
}

// The rule: fully connected layers, pointwise convolutions, one-group
// convolutions over at least 16 or at most 4 input channels, and on
// AVX-512 hosts depthwise convolutions without a depth multiplier (read
// in place: no packed copy) and narrow groups (as many input as output
// channels per group, a power of two up to 16, at least 16 channels).
TEST(DenseNodes, RuleTakesFullyConnectedPointwiseWideOrImageAndDepthwiseConvolutions) {
  const bool avx512 = optimized::HostIsa() == optimized::Isa::kAvx512;
  for (const Case& c : kCases) {
    Fixture f(c);
    const bool pointwise = c.kh == 1 && c.kw == 1 && c.stride == 1 && c.pad == 0;
    const bool depthwise = c.type == NodeType::kDepthwiseConv2d && c.group_out == 1 && avx512;
    const bool narrow_groups =
        c.type == NodeType::kConv2d && c.groups > 1 && avx512 && c.group_in == c.group_out &&
        c.group_out <= 16 && (c.group_out & (c.group_out - 1)) == 0 && c.groups * c.group_out >= 16;
    const bool preferred = c.type == NodeType::kFullyConnected || depthwise || narrow_groups ||
                           (c.type == NodeType::kConv2d && c.groups == 1 &&
                            (pointwise || c.group_in >= 16 || c.group_in <= 4));
    EXPECT_EQ(DenseKernelPreferred(f.graph, f.node), preferred) << c.name;
    EXPECT_EQ(PackedFilterFloats(f.graph, f.node) > 0, preferred && !depthwise) << c.name;
  }
}

TEST(DenseNodes, RefusesWhatTheyDoNotCompute) {
  Fixture f(kCases[0]);
  f.graph.values[0].type = DataType::kQint8;
  EXPECT_FALSE(DenseKernelSupports(f.graph, f.node));
  Fixture asymmetric(kCases[2]);
  asymmetric.node.window.pad_bottom = 0;
  EXPECT_FALSE(DenseKernelSupports(asymmetric.graph, asymmetric.node));
  Fixture same(kCases[2]);
  same.node.flags = 4;  // XNN_FLAG_TENSORFLOW_SAME_PADDING
  EXPECT_FALSE(DenseKernelSupports(same.graph, same.node));
}

TEST(DenseNodes, ScratchExhaustionIsAnError) {
  Fixture f(kCases[2]);
  std::vector<float> y(f.Reference(kCases[2]).size());
  uint8_t tiny[64];
  MemoryAllocator temp(tiny, sizeof(tiny));
  KernelContext ctx(&temp, 1);
  const void* in[3] = {f.x.data(), f.w.data(), f.b.data()};
  void* out[1] = {y.data()};
  EXPECT_EQ(RunDenseNode(ctx, f.graph, f.node, f.dims, in, out, nullptr),
            Error::kMemoryAllocationFailed);
}

}  // namespace
}  // namespace xnnpack
}  // namespace edgefleet
