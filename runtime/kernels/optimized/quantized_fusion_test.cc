// The fuse_quantized_convolution plan pass on small plans held by a test
// PlanEditor: the rewritten plan computes what the original one did
// (power-of-two scales: exactly), and patterns that do not match exactly
// are left alone.

#include "runtime/kernels/optimized/quantized_fusion.h"

#include <cstdlib>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "runtime/kernels/optimized/quantized_conv.h"
#include "runtime/kernels/optimized/test_plan_editor.h"
#include "runtime/kernels/optimized/test_util.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

using testing::TestIntList;
using testing::TestPlan;
using testing::TestTensor;
using testing::TestTensorList;

std::vector<int8_t> RandomInt8(size_t n, uint32_t seed, int lo, int hi) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<int8_t> v(n);
  for (auto& x : v) x = static_cast<int8_t>(dist(gen));
  return v;
}

// x_q -> dq -> conv(dq_per_channel(W_q), b) -> q -> dq -> hardtanh -> q -> out.
struct ConvChain {
  explicit ConvChain(int groups = 1, int cin = 8, int cout = 12)
      : x({1, cin, 9, 7}, RandomInt8(cin * 63, 1, -128, 127)),
        xf({1, cin, 9, 7}),
        wq({cout, cin / groups, 3, 3}, RandomInt8(cout * cin / groups * 9, 2, -127, 127)),
        wscale({cout}, std::vector<float>(cout, 1.0f / 128)),
        wzp({cout}),
        wf({cout, cin / groups, 3, 3}),
        bias({cout}, std::vector<float>(cout, 0.5f)),
        yf({1, cout, 9, 7}),
        yq({1, cout, 9, 7}),
        zf({1, cout, 9, 7}),
        af({1, cout, 9, 7}),
        out({1, cout, 9, 7}),
        stride({1, 1}),
        pad({1, 1}),
        dil({1, 1}),
        outpad({0, 0}),
        groups_v(EValue::FromInt(groups)) {}

  void Build(TestPlan& plan, bool activation = true) {
    plan.Add(
        "quantized_decomposed::dequantize_per_channel.out", portable::DequantizePerChannelOut,
        {wq.ev(), wscale.ev(), wzp.ev(), &zero, &wqmin, &qmax, &dtype, &none, wf.ev(), wf.ev()});
    plan.Add("quantized_decomposed::dequantize_per_tensor.out", portable::DequantizePerTensorOut,
             {x.ev(), &s_in, &zp_in, &qmin, &qmax, &dtype, &none, xf.ev(), xf.ev()});
    plan.Add("aten::convolution.out", portable::ConvolutionOut,
             {xf.ev(), wf.ev(), bias.ev(), stride.ev(), pad.ev(), dil.ev(), &no, outpad.ev(),
              &groups_v, yf.ev(), yf.ev()});
    TestTensor<int8_t>& q1 = activation ? yq : out;
    plan.Add("quantized_decomposed::quantize_per_tensor.out", portable::QuantizePerTensorOut,
             {yf.ev(), &s_out, &zp_out, &qmin, &qmax, &dtype, q1.ev(), q1.ev()});
    if (activation) {
      plan.Add("quantized_decomposed::dequantize_per_tensor.out", portable::DequantizePerTensorOut,
               {yq.ev(), &s_out, &zp_out, &qmin, &qmax, &dtype, &none, zf.ev(), zf.ev()});
      plan.Add("aten::hardtanh.out", portable::HardtanhOut,
               {zf.ev(), &act_min, &act_max, af.ev(), af.ev()});
      plan.Add("quantized_decomposed::quantize_per_tensor.out", portable::QuantizePerTensorOut,
               {af.ev(), &s_out2, &zp_out, &qmin, &qmax, &dtype, out.ev(), out.ev()});
    }
    for (EValue* c : {wq.ev(), wscale.ev(), wzp.ev(), bias.ev()}) plan.SetConstant(c);
    plan.SetIo(x.ev());
    plan.SetIo(out.ev());
  }

  TestTensor<int8_t> x;
  TestTensor<float> xf;
  TestTensor<int8_t> wq;
  TestTensor<float> wscale;
  TestTensor<int64_t> wzp;
  TestTensor<float> wf, bias, yf;
  TestTensor<int8_t> yq;
  TestTensor<float> zf, af;
  TestTensor<int8_t> out;
  TestIntList stride, pad, dil, outpad;
  EValue groups_v, zero = EValue::FromInt(0), wqmin = EValue::FromInt(-127),
                   qmin = EValue::FromInt(-128), qmax = EValue::FromInt(127),
                   dtype = EValue::FromInt(1), none, no = EValue::FromBool(false),
                   s_in = EValue::FromDouble(0.125), zp_in = EValue::FromInt(-3),
                   s_out = EValue::FromDouble(0.25), zp_out = EValue::FromInt(9),
                   act_min = EValue::FromDouble(0.0), act_max = EValue::FromDouble(6.0),
                   s_out2 = EValue::FromDouble(0.25);
};

TEST(QuantizedFusionTest, FusesConvolutionChainExactly) {
  for (int groups : {1, 4, 8}) {
    SCOPED_TRACE("groups " + std::to_string(groups));
    ConvChain c(groups, 8, groups == 8 ? 8 : 12);
    TestPlan plan;
    c.Build(plan);
    ASSERT_EQ(plan.Execute(), Error::kOk);
    const std::vector<int8_t> want = c.out.Values();
    c.out.Set(std::vector<int8_t>(want.size(), 0));
    FuseQuantizedConvolution(plan);
    EXPECT_EQ(plan.live(), 1u);
    EXPECT_STREQ(plan.op(2), "edgefleet::quantized_convolution");
    ASSERT_EQ(plan.Execute(), Error::kOk) << LastErrorDetail();
    EXPECT_EQ(c.out.Values(), want);
    // The clamp of hardtanh reached the int8 output.
    int lo = 127;
    for (int8_t v : want) lo = std::min<int>(lo, v);
    EXPECT_EQ(lo, 9);
  }
}

TEST(QuantizedFusionTest, FusesWithoutActivation) {
  ConvChain c;
  TestPlan plan;
  c.Build(plan, /*activation=*/false);
  ASSERT_EQ(plan.Execute(), Error::kOk);
  const std::vector<int8_t> want = c.out.Values();
  FuseQuantizedConvolution(plan);
  EXPECT_EQ(plan.live(), 1u);
  ASSERT_EQ(plan.Execute(), Error::kOk);
  EXPECT_EQ(c.out.Values(), want);
}

TEST(QuantizedFusionTest, FusesLinear) {
  const int m = 1, k = 40, n = 21;
  TestTensor<int8_t> x({m, k}, RandomInt8(m * k, 5, -128, 127)), out({m, n});
  TestTensor<float> xf({m, k}), wf({n, k}), wt({k, n}), yf({m, n});
  TestTensor<int8_t> wq({n, k}, RandomInt8(n * k, 6, -127, 127));
  TestTensor<float> wscale({n}, std::vector<float>(n, 1.0f / 64)),
      bias({n}, std::vector<float>(n, 0.25f));
  EValue none,
      zero = EValue::FromInt(0), wqmin = EValue::FromInt(-127), qmin = EValue::FromInt(-128),
      qmax = EValue::FromInt(127), dtype = EValue::FromInt(1), s_in = EValue::FromDouble(0.125),
      zp_in = EValue::FromInt(-11), s_out = EValue::FromDouble(0.5), zp_out = EValue::FromInt(3),
      one = EValue::FromInt(1);
  TestIntList perm({1, 0});
  TestPlan plan;
  plan.Add("quantized_decomposed::dequantize_per_channel.out", portable::DequantizePerChannelOut,
           {wq.ev(), wscale.ev(), &none, &zero, &wqmin, &qmax, &dtype, &none, wf.ev(), wf.ev()});
  plan.Add("quantized_decomposed::dequantize_per_tensor.out", portable::DequantizePerTensorOut,
           {x.ev(), &s_in, &zp_in, &qmin, &qmax, &dtype, &none, xf.ev(), xf.ev()});
  plan.Add("aten::permute_copy.out", portable::PermuteCopyOut,
           {wf.ev(), perm.ev(), wt.ev(), wt.ev()});
  plan.Add("aten::addmm.out", portable::AddmmOut,
           {bias.ev(), xf.ev(), wt.ev(), &one, &one, yf.ev(), yf.ev()});
  plan.Add("quantized_decomposed::quantize_per_tensor.out", portable::QuantizePerTensorOut,
           {yf.ev(), &s_out, &zp_out, &qmin, &qmax, &dtype, out.ev(), out.ev()});
  for (EValue* v : {wq.ev(), wscale.ev(), bias.ev()}) plan.SetConstant(v);
  plan.SetIo(x.ev());
  plan.SetIo(out.ev());
  ASSERT_EQ(plan.Execute(), Error::kOk);
  const std::vector<int8_t> want = out.Values();
  FuseQuantizedConvolution(plan);
  EXPECT_EQ(plan.live(), 1u);
  EXPECT_STREQ(plan.op(3), "edgefleet::quantized_convolution");
  ASSERT_EQ(plan.Execute(), Error::kOk) << LastErrorDetail();
  EXPECT_EQ(out.Values(), want);
}

TEST(QuantizedFusionTest, FusesResidualAdd) {
  for (bool reused : {false, true}) {
    SCOPED_TRACE(reused ? "a's bytes reused before the add" : "plain");
    const std::vector<int32_t> shape = {1, 8, 5, 5};
    TestTensor<int8_t> aq(shape, RandomInt8(200, 11, -128, 127)),
        bq(shape, RandomInt8(200, 12, -128, 127)), out(shape), other(shape);
    TestTensor<float> af(shape), bf(shape), sum(shape);
    EValue none,
        qmin = EValue::FromInt(-128), qmax = EValue::FromInt(127), dtype = EValue::FromInt(1),
        sa = EValue::FromDouble(0.125), za = EValue::FromInt(4), sb = EValue::FromDouble(0.0625),
        zb = EValue::FromInt(-10), so = EValue::FromDouble(0.125), zo = EValue::FromInt(-5),
        one = EValue::FromInt(1);
    TestIntList dims({0, 1, 2, 3});
    TestPlan plan;
    plan.Add("quantized_decomposed::dequantize_per_tensor.out", portable::DequantizePerTensorOut,
             {aq.ev(), &sa, &za, &qmin, &qmax, &dtype, &none, af.ev(), af.ev()});
    if (reused) {
      // Something writes over a_q's bytes after its dequantize: the add
      // must keep reading the float a.
      other.tensor().set_data(aq.tensor().mutable_data());
      plan.Add("aten::permute_copy.out", portable::PermuteCopyOut,
               {bq.ev(), dims.ev(), other.ev(), other.ev()});
    }
    plan.Add("quantized_decomposed::dequantize_per_tensor.out", portable::DequantizePerTensorOut,
             {bq.ev(), &sb, &zb, &qmin, &qmax, &dtype, &none, bf.ev(), bf.ev()});
    plan.Add("aten::add.out", portable::AddOut, {af.ev(), bf.ev(), &one, sum.ev(), sum.ev()});
    plan.Add("quantized_decomposed::quantize_per_tensor.out", portable::QuantizePerTensorOut,
             {sum.ev(), &so, &zo, &qmin, &qmax, &dtype, out.ev(), out.ev()});
    plan.SetIo(aq.ev());
    plan.SetIo(bq.ev());
    plan.SetIo(out.ev());
    const std::vector<int8_t> a0 = aq.Values();
    ASSERT_EQ(plan.Execute(), Error::kOk);
    const std::vector<int8_t> want = out.Values();
    const size_t before = plan.live();
    FuseQuantizedConvolution(plan);
    // Removed: the quantize and b's dequantize, and a's unless reused.
    EXPECT_EQ(plan.live(), before - (reused ? 2 : 3));
    aq.Set(a0);
    out.Set(std::vector<int8_t>(200, 0));
    ASSERT_EQ(plan.Execute(), Error::kOk) << LastErrorDetail();
    EXPECT_EQ(out.Values(), want);
  }
}

// A ConvChain plan with an aten::cat that reads `channels` of the chain's
// float tensors (`read`, 1 x channels x 9 x 7) only through its tensor list.
struct ChainWithCat {
  ChainWithCat(TestTensor<float> ConvChain::*read, int channels)
      : list({(c.*read).ev()}), joined({1, channels, 9, 7}) {
    c.Build(plan);
    plan.Add("aten::cat.out", portable::CatOut, {list.ev(), &dim, joined.ev(), joined.ev()});
    plan.SetIo(joined.ev());
  }
  ConvChain c;
  TestPlan plan;
  TestTensorList list;
  TestTensor<float> joined;
  EValue dim = EValue::FromInt(1);
};

// A value read only through a tensor list (aten::cat's inputs) is still
// read: the fusion must keep computing it.
TEST(QuantizedFusionTest, KeepsValuesReadThroughTensorLists) {
  {  // The dequantized input also feeds the cat: its dequantize stays.
    ChainWithCat g(&ConvChain::xf, 8);
    ASSERT_EQ(g.plan.Execute(), Error::kOk) << LastErrorDetail();
    const std::vector<float> want_joined = g.joined.Values();
    const std::vector<int8_t> want_out = g.c.out.Values();
    FuseQuantizedConvolution(g.plan);
    EXPECT_STREQ(g.plan.op(2), "edgefleet::quantized_convolution");
    EXPECT_NE(g.plan.op(1), nullptr) << "the dequantize the cat reads was removed";
    g.c.xf.Set(std::vector<float>(want_joined.size(), 0.0f));
    g.joined.Set(std::vector<float>(want_joined.size(), 0.0f));
    g.c.out.Set(std::vector<int8_t>(want_out.size(), 0));
    ASSERT_EQ(g.plan.Execute(), Error::kOk) << LastErrorDetail();
    EXPECT_EQ(g.joined.Values(), want_joined);
    EXPECT_EQ(g.c.out.Values(), want_out);
  }
  {  // The convolution's float output is read once directly, once through
     // the list: it is not private to the quantize, so nothing is fused.
    ChainWithCat g(&ConvChain::yf, 12);
    const size_t before = g.plan.live();
    FuseQuantizedConvolution(g.plan);
    EXPECT_EQ(g.plan.live(), before);
  }
}

TEST(QuantizedFusionTest, LeavesNonMatchingPlansAlone) {
  {  // The convolution's float output is read twice.
    ConvChain c;
    TestPlan plan;
    c.Build(plan);
    TestTensor<float> copy({1, 12, 9, 7});
    plan.Add("aten::hardtanh.out", portable::HardtanhOut,
             {c.yf.ev(), &c.act_min, &c.act_max, copy.ev(), copy.ev()});
    const size_t before = plan.live();
    FuseQuantizedConvolution(plan);
    EXPECT_EQ(plan.live(), before);
  }
  {  // Weights not constant.
    ConvChain c3;
    TestPlan bare;
    bare.Add("quantized_decomposed::dequantize_per_channel.out", portable::DequantizePerChannelOut,
             {c3.wq.ev(), c3.wscale.ev(), c3.wzp.ev(), &c3.zero, &c3.wqmin, &c3.qmax, &c3.dtype,
              &c3.none, c3.wf.ev(), c3.wf.ev()});
    bare.Add("quantized_decomposed::dequantize_per_tensor.out", portable::DequantizePerTensorOut,
             {c3.x.ev(), &c3.s_in, &c3.zp_in, &c3.qmin, &c3.qmax, &c3.dtype, &c3.none, c3.xf.ev(),
              c3.xf.ev()});
    bare.Add("aten::convolution.out", portable::ConvolutionOut,
             {c3.xf.ev(), c3.wf.ev(), c3.bias.ev(), c3.stride.ev(), c3.pad.ev(), c3.dil.ev(),
              &c3.no, c3.outpad.ev(), &c3.groups_v, c3.yf.ev(), c3.yf.ev()});
    bare.Add("quantized_decomposed::quantize_per_tensor.out", portable::QuantizePerTensorOut,
             {c3.yf.ev(), &c3.s_out, &c3.zp_out, &c3.qmin, &c3.qmax, &c3.dtype, c3.out.ev(),
              c3.out.ev()});
    FuseQuantizedConvolution(bare);
    EXPECT_EQ(bare.live(), 4u);
  }
  {  // The output shares memory with the input (the planner reused the
     // input's bytes after its dequantize): fused, the kernel reads a copy.
    ConvChain c(1, 12, 12);
    const std::vector<int8_t> x = c.x.Values();
    c.out.tensor().set_data(c.x.tensor().mutable_data());
    TestPlan plan;
    c.Build(plan);
    ASSERT_EQ(plan.Execute(), Error::kOk);
    const std::vector<int8_t> want = c.x.Values();  // out's bytes
    EXPECT_NE(want, x);
    FuseQuantizedConvolution(plan);
    EXPECT_EQ(plan.live(), 1u);
    c.x.Set(x);
    ASSERT_EQ(plan.Execute(), Error::kOk);
    EXPECT_EQ(c.x.Values(), want);
  }
  {  // Another instruction between the convolution and the last quantize
     // reads memory the early write would clobber.
    ConvChain c(1, 12, 12);
    TestPlan plan;
    c.Build(plan);
    TestTensor<int8_t> other({1, 12, 9, 7}), other_out({1, 12, 9, 7});
    other.tensor().set_data(c.out.tensor().mutable_data());
    TestIntList dims({0, 1, 2, 3});
    plan.Add("aten::permute_copy.out", portable::PermuteCopyOut,
             {other.ev(), dims.ev(), other_out.ev(), other_out.ev()});
    // Move it between the convolution (pc 2) and the last quantize.
    TestPlan ordered;
    for (size_t pc : {0, 1, 2, 3, 7, 4, 5, 6}) {
      const auto& in = plan.instr(pc);
      ordered.Add(in.op.c_str(), in.fn, in.args);
    }
    for (EValue* v : {c.wq.ev(), c.wscale.ev(), c.wzp.ev(), c.bias.ev()}) ordered.SetConstant(v);
    ordered.SetIo(c.x.ev());
    ordered.SetIo(c.out.ev());
    FuseQuantizedConvolution(ordered);
    EXPECT_EQ(ordered.live(), 8u);
  }
  {  // Requantizing to another scale is not a clamp of the codes: only the
     // convolution and its first quantize fuse.
    ConvChain c;
    c.s_out2 = EValue::FromDouble(0.5);
    TestPlan plan;
    c.Build(plan);
    ASSERT_EQ(plan.Execute(), Error::kOk);
    const std::vector<int8_t> want = c.out.Values();
    FuseQuantizedConvolution(plan);
    EXPECT_EQ(plan.live(), 4u);
    ASSERT_EQ(plan.Execute(), Error::kOk);
    EXPECT_EQ(c.out.Values(), want);
  }
  {  // No memory for the packed weights: untouched.
    ConvChain c;
    TestPlan plan;
    plan.budget_ = 16;
    c.Build(plan);
    FuseQuantizedConvolution(plan);
    EXPECT_EQ(plan.live(), 7u);
  }
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet
