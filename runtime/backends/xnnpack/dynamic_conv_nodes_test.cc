// Dynamically quantized convolutions on our kernel (dynamic_conv_nodes.h),
// through the delegate's node entry points, against a reference written
// here from PyTorch's definition (conv2d / conv_transpose2d of the
// dequantized input and filter, NCHW loops in double, zero padding): dense,
// grouped, strided, dilated, padded, depthwise with a multiplier, transposed
// with output padding, two images with their own quantization parameters,
// a pointwise convolution with a scale and zero point per pixel,
// the output range; the nodes it does not take. And graph validation's
// acceptance of internal values the exporter declares with permuted dims
// (a quantizer's output after a transpose, cancelling transposes).

#include "runtime/backends/xnnpack/dynamic_conv_nodes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "runtime/backends/xnnpack/graph_validation.h"
#include "runtime/backends/xnnpack/node_kernels.h"
#include "runtime/core/memory_allocator.h"

namespace edgefleet {
namespace xnnpack {
namespace {

size_t Numel(const Dims& d) {
  size_t n = 1;
  for (size_t s : d) n *= s;
  return n;
}

struct ConvCase {
  NodeType type;
  size_t batch, ih, iw, ic, oc;
  WindowParams p;
  bool bias;
  float lo = -INFINITY, hi = INFINITY;
  bool per_pixel = false;  // quantization rows of one pixel (pointwise)
};

size_t OutSize(const ConvCase& c, size_t in, size_t k, size_t s, size_t d, size_t pad0, size_t pad1,
               size_t adj) {
  if (c.type == NodeType::kConvTranspose2d)
    return s * (in - 1) + adj + d * (k - 1) + 1 - pad0 - pad1;
  return (in + pad0 + pad1 - d * (k - 1) - 1) / s + 1;
}

void Check(const ConvCase& c) {
  SCOPED_TRACE(::testing::Message()
               << NodeTypeName(c.type) << " " << c.ic << "->" << c.oc << " groups " << c.p.groups);
  const WindowParams& p = c.p;
  const size_t oh = OutSize(c, c.ih, p.kernel_h, p.stride_h, p.dilation_h, p.pad_top, p.pad_bottom,
                            p.adjustment_h);
  const size_t ow = OutSize(c, c.iw, p.kernel_w, p.stride_w, p.dilation_w, p.pad_left, p.pad_right,
                            p.adjustment_w);
  const bool dw = c.type == NodeType::kDepthwiseConv2d;
  const size_t gic = dw ? 1 : p.group_input_channels;
  const size_t goc = dw ? c.oc / p.groups : p.group_output_channels;
  Graph g;
  g.values.resize(4);
  for (uint32_t id = 0; id < 4; ++id) g.values[id].id = id;
  Value& x = g.values[0];
  x.type = DataType::kQdint8;
  x.quant = QuantKind::kPerToken;
  x.num_nonbatch_dims = c.per_pixel ? 1 : 3;
  x.dims = {c.batch, c.ih, c.iw, c.ic};
  const size_t num_rows = c.per_pixel ? c.batch * c.ih * c.iw : c.batch;
  Value& w = g.values[1];
  w.type = DataType::kQcint8;
  w.quant = QuantKind::kPerChannel;
  w.channel_dim = dw ? 3 : 0;
  w.dims = dw ? Dims{1, p.kernel_h, p.kernel_w, c.oc} : Dims{c.oc, p.kernel_h, p.kernel_w, gic};
  Value& b = g.values[2];
  b.type = DataType::kFp32;
  b.dims = {c.oc};
  Value& y = g.values[3];
  y.type = DataType::kFp32;
  y.dims = {c.batch, oh, ow, c.oc};

  std::mt19937 rng(5);
  std::uniform_int_distribution<int> i8(-128, 127);
  std::uniform_real_distribution<float> u(0.01f, 0.05f);
  const size_t x_numel = c.batch * c.ih * c.iw * c.ic;
  std::vector<int8_t> xq(((x_numel + 7) & ~size_t{7}) + num_rows * sizeof(RowQuant));
  for (size_t i = 0; i < x_numel; ++i) xq[i] = static_cast<int8_t>(i8(rng));
  std::vector<RowQuant> rows(num_rows);
  for (RowQuant& r : rows) r = {u(rng), i8(rng) / 2};
  std::memcpy(xq.data() + ((x_numel + 7) & ~size_t{7}), rows.data(), num_rows * sizeof(RowQuant));
  std::vector<int8_t> wq(Numel(w.dims));
  for (int8_t& v : wq) v = static_cast<int8_t>(i8(rng));
  w.data = wq.data();
  for (size_t o = 0; o < c.oc; ++o) w.channel_scales.push_back(u(rng));
  std::vector<float> bias(c.oc);
  for (float& v : bias) v = u(rng) * 20 - 0.5f;
  b.data = bias.data();

  Node n;
  n.type = c.type;
  n.inputs = {0, 1, c.bias ? 2u : kInvalidId};
  n.outputs = {3};
  n.window = p;
  n.output_min = c.lo;
  n.output_max = c.hi;
  g.nodes = {n};
  ASSERT_TRUE(OwnKernelSupports(g, n));
  std::vector<float> got(Numel(y.dims), std::nanf(""));
  const std::vector<Dims> dims = {x.dims, w.dims, b.dims, y.dims};
  const void* in[3] = {xq.data(), wq.data(), c.bias ? bias.data() : nullptr};
  void* out[1] = {got.data()};
  std::vector<uint64_t> temp(1 << 16);
  MemoryAllocator allocator(temp.data(), temp.size() * sizeof(uint64_t));
  KernelContext ctx(&allocator, 1);
  ASSERT_EQ(RunOwnNode(ctx, g, n, dims, in, out), Error::kOk);

  // PyTorch's definition on the dequantized operands: for a forward
  // convolution y[o] += x[i] * w where i = o * stride + k * dilation - pad;
  // transposed, o = i * stride + k * dilation - pad.
  std::vector<double> want(got.size(), 0.0);
  for (size_t bi = 0; bi < c.batch; ++bi) {
    for (size_t yy = 0; yy < (c.type == NodeType::kConvTranspose2d ? c.ih : oh); ++yy) {
      for (size_t xx = 0; xx < (c.type == NodeType::kConvTranspose2d ? c.iw : ow); ++xx) {
        for (size_t ky = 0; ky < p.kernel_h; ++ky) {
          for (size_t kx = 0; kx < p.kernel_w; ++kx) {
            const long a = static_cast<long>(yy * p.stride_h + ky * p.dilation_h) - p.pad_top;
            const long e = static_cast<long>(xx * p.stride_w + kx * p.dilation_w) - p.pad_left;
            const bool tr = c.type == NodeType::kConvTranspose2d;
            const long iy = tr ? yy : a, ix = tr ? xx : e, oy = tr ? a : yy, ox = tr ? e : xx;
            if (iy < 0 || ix < 0 || oy < 0 || ox < 0 || iy >= long(c.ih) || ix >= long(c.iw) ||
                oy >= long(oh) || ox >= long(ow)) {
              continue;
            }
            for (size_t o = 0; o < c.oc; ++o) {
              for (size_t ci = 0; ci < gic; ++ci) {
                const size_t ch = (o / goc) * gic + ci;
                const size_t pixel = (bi * c.ih + iy) * c.iw + ix;
                const RowQuant rq = rows[c.per_pixel ? pixel : bi];
                const double xv = rq.scale * (xq[pixel * c.ic + ch] - rq.zero_point);
                const size_t wi = dw ? (ky * p.kernel_w + kx) * c.oc + o
                                     : ((o * p.kernel_h + ky) * p.kernel_w + kx) * gic + ci;
                want[((bi * oh + oy) * ow + ox) * c.oc + o] += xv * w.channel_scales[o] * wq[wi];
              }
            }
          }
        }
      }
    }
  }
  for (size_t i = 0; i < got.size(); ++i) {
    double v = want[i] + (c.bias ? bias[i % c.oc] : 0.0);
    v = std::min(std::max(v, double{c.lo}), double{c.hi});
    ASSERT_NEAR(got[i], v, 1e-5 * std::max(1.0, std::fabs(v))) << "element " << i;
  }
}

WindowParams Window(uint32_t k_h, uint32_t k_w, uint32_t s, uint32_t d, uint32_t pad,
                    uint32_t groups, uint32_t gic, uint32_t goc) {
  WindowParams p;
  p.kernel_h = k_h;
  p.kernel_w = k_w;
  p.stride_h = p.stride_w = s;
  p.dilation_h = p.dilation_w = d;
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = pad;
  p.groups = groups;
  p.group_input_channels = gic;
  p.group_output_channels = goc;
  return p;
}

TEST(DynamicConvolution, MatchesTheDequantizedDefinition) {
  Check({NodeType::kConv2d, 2, 8, 7, 3, 5, Window(3, 3, 1, 1, 1, 1, 3, 5), true});
  Check({NodeType::kConv2d, 1, 9, 10, 8, 6, Window(3, 2, 2, 2, 2, 2, 4, 3), false});
  Check({NodeType::kConv2d, 2, 5, 5, 4, 4, Window(1, 1, 1, 1, 0, 1, 4, 4), true, 0.0f, 0.5f});
  Check({NodeType::kDepthwiseConv2d, 2, 7, 6, 3, 6, Window(3, 3, 2, 1, 1, 3, 1, 2), true});
  ConvCase t{NodeType::kConvTranspose2d, 2, 4, 5, 6, 4, Window(3, 3, 2, 1, 1, 2, 3, 2), true};
  t.p.adjustment_h = t.p.adjustment_w = 1;
  Check(t);
  Check({NodeType::kConvTranspose2d, 1, 5, 5, 4, 6, Window(2, 2, 2, 1, 0, 1, 4, 6), false});
  ConvCase pointwise{NodeType::kConv2d, 2, 4, 3, 6, 5, Window(1, 1, 1, 1, 0, 1, 6, 5), true};
  pointwise.per_pixel = true;
  Check(pointwise);
}

// Convert -> q -> a pointwise qd8 convolution: q's rows become pixels; read
// by a 3 x 3 one as well, or by a grouped 1 x 1 one, q keeps whole images.
TEST(DynamicConvolution, PointwiseInputsAreQuantizedPerPixel) {
  for (int variant : {0, 1, 2}) {
    const bool also_3x3 = variant == 1;
    Graph g;
    g.values.resize(6);
    for (uint32_t id = 0; id < 6; ++id) g.values[id].id = id;
    g.values[0].type = g.values[2].type = g.values[4].type = DataType::kFp32;
    g.values[1].type = DataType::kQdint8;
    g.values[1].quant = QuantKind::kPerToken;
    g.values[1].num_nonbatch_dims = 3;
    g.values[1].dims = {1, 4, 4, 3};
    Node convert;
    convert.type = NodeType::kConvert;
    convert.inputs = {0};
    convert.outputs = {1};
    Node pw;
    pw.type = NodeType::kConv2d;
    pw.inputs = {1, 5, kInvalidId};
    pw.outputs = {2};
    if (variant == 2) pw.window.groups = 3;
    Node k3 = pw;
    k3.window.kernel_h = k3.window.kernel_w = 3;
    k3.outputs = {4};
    g.nodes = {convert, pw};
    if (also_3x3) g.nodes.push_back(k3);
    QuantizePointwiseInputsPerPixel(g);
    EXPECT_EQ(g.values[1].num_nonbatch_dims, variant == 0 ? 1 : 3);
  }
}

TEST(DynamicConvolution, TakesOnlyQd8InputsWithPerChannelFilters) {
  Graph g;
  g.values.resize(3);
  for (uint32_t id = 0; id < 3; ++id) g.values[id].id = id;
  std::vector<int8_t> wq(4 * 3 * 3 * 2);
  g.values[0] = {0, DataType::kQdint8, {1, 5, 5, 2}};
  g.values[0].quant = QuantKind::kPerToken;
  g.values[0].num_nonbatch_dims = 3;
  g.values[1] = {1, DataType::kQcint8, {4, 3, 3, 2}};
  g.values[1].quant = QuantKind::kPerChannel;
  g.values[1].channel_scales.assign(4, 0.1f);
  g.values[1].data = wq.data();
  g.values[2] = {2, DataType::kFp32, {1, 3, 3, 4}};
  Node n;
  n.type = NodeType::kConv2d;
  n.inputs = {0, 1, kInvalidId};
  n.outputs = {2};
  n.window.kernel_h = n.window.kernel_w = 3;
  EXPECT_TRUE(DynamicConvolutionSupports(g, n));
  g.values[0].num_nonbatch_dims = 1;  // a row per pixel: only pointwise convolutions
  EXPECT_FALSE(DynamicConvolutionSupports(g, n));
  g.values[0].num_nonbatch_dims = 3;
  g.values[1].channel_scales.assign(1, 0.1f);
  EXPECT_FALSE(DynamicConvolutionSupports(g, n));
  g.values[1].channel_scales.assign(4, 0.1f);
  g.values[1].data = nullptr;  // not constant
  EXPECT_FALSE(DynamicConvolutionSupports(g, n));
  g.values[1].data = wq.data();
  g.values[0].type = DataType::kFp32;
  EXPECT_FALSE(DynamicConvolutionSupports(g, n));
}

// x (external input, NHWC) -> XNNConvert -> q (qdint8, declared NCHW as the
// exporter writes it after a transpose): valid, q takes the inferred dims;
// declared with another element count, the usual shape error.
TEST(DynamicConvolution, QuantizerOutputDeclaredBeforeTheTransposeTakesTheInferredDims) {
  for (const Dims& declared : {Dims{1, 4, 5, 5}, Dims{1, 4, 5, 6}}) {
    Graph g;
    g.values.resize(2);
    g.values[0] = {0, DataType::kFp32, {1, 5, 5, 4}};
    g.values[0].external_id = 0;
    g.values[0].flags = kFlagExternalInput;
    g.values[1] = {1, DataType::kQdint8, declared};
    g.values[1].quant = QuantKind::kPerToken;
    g.values[1].num_nonbatch_dims = 3;
    Node n;
    n.type = NodeType::kConvert;
    n.inputs = {0};
    n.outputs = {1};
    g.nodes = {n};
    const Error e = ValidateGraph(g);
    if (Numel(declared) == 100) {
      EXPECT_EQ(e, Error::kOk);
      EXPECT_EQ(g.values[1].dims, (Dims{1, 5, 5, 4}));
    } else {
      EXPECT_EQ(e, Error::kInvalidProgram);
    }
  }
}

// ConvNeXt's downsampling layer, dynamically quantized: two transposes that
// cancel out, the second's output declared with NCHW dims [1, 8, 6, 6] for
// NHWC data [1, 6, 6, 8]: valid, it takes the inferred dims; declared with
// dims that are no permutation of them, the usual shape error.
TEST(DynamicConvolution, TransposeOutputDeclaredWithPermutedDimsTakesTheInferredDims) {
  for (const Dims& declared : {Dims{1, 8, 6, 6}, Dims{1, 8, 3, 12}}) {
    Graph g;
    g.values.resize(3);
    g.values[0] = {0, DataType::kFp32, {1, 6, 6, 8}};
    g.values[0].external_id = 0;
    g.values[0].flags = kFlagExternalInput;
    g.values[1] = {1, DataType::kFp32, {1, 6, 8, 6}};
    g.values[2] = {2, DataType::kFp32, declared};
    Node first;
    first.type = NodeType::kStaticTranspose;
    first.inputs = {0};
    first.outputs = {1};
    first.list_a = {0, 2, 3, 1};
    Node second = first;
    second.inputs = {1};
    second.outputs = {2};
    second.list_a = {0, 3, 1, 2};
    g.nodes = {first, second};
    const Error e = ValidateGraph(g);
    if (declared[2] == 6) {
      EXPECT_EQ(e, Error::kOk);
      EXPECT_EQ(g.values[2].dims, (Dims{1, 6, 6, 8}));
    } else {
      EXPECT_EQ(e, Error::kInvalidProgram);
    }
  }
}

}  // namespace
}  // namespace xnnpack
}  // namespace edgefleet
