// The fuse_convolution plan pass and edgefleet::fused_convolution on small
// plans held by a test PlanEditor: the rewritten plan computes what the
// unfused portable chain computes (batch norm folding reassociates: within a
// dot-product bound; a fused activation alone: bit-identical to the
// optimized convolution followed by the activation), including when the
// output takes the input's memory, and patterns that do not match exactly
// are left alone. Also the GEMM epilogue against an explicit pass.

#include "runtime/kernels/optimized/conv_fusion.h"

#include <cmath>
#include <deque>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/kernels/optimized/gemm.h"
#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/test_plan_editor.h"
#include "runtime/kernels/optimized/test_util.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

using testing::Random;
using testing::TestIntList;
using testing::TestPlan;
using testing::TestTensor;
using testing::Tolerance;

// The elements of `t` in logical order, read where its data pointer points
// (TestTensor::Values reads the test tensor's own storage).
std::vector<float> Elements(const Tensor& t) {
  std::vector<float> out;
  for (int64_t i = 0; i < t.numel(); ++i) {
    int64_t flat = i, offset = 0;
    for (int d = t.dim() - 1; d >= 0; --d) {
      offset += (flat % t.size(d)) * t.stride(d);
      flat /= t.size(d);
    }
    out.push_back(t.data_as<const float>()[offset]);
  }
  return out;
}

enum class Act { kNone, kRelu, kHardtanh, kClampMaxOnly };

struct Case {
  const char* name;
  int32_t n, cin, h, w, cout, k, stride, pad, groups;
  bool bias, batch_norm;
  Act act;
  bool channels_last;  // activations and weight
  bool weight_channels_last;
  bool out_on_input;  // the last output shares the input's memory
};

// One convolution [-> batch norm] [-> activation] chain, built twice: as a
// plan for the pass and as the reference (portable kernels, separate
// memory). Tensors are owned here.
class Chain {
 public:
  explicit Chain(const Case& c) : c_(c) {
    const int32_t oh = (c.h + 2 * c.pad - c.k) / c.stride + 1;
    const int32_t ow = (c.w + 2 * c.pad - c.k) / c.stride + 1;
    in_shape_ = {c.n, c.cin, c.h, c.w};
    out_shape_ = {c.n, c.cout, oh, ow};
    const std::vector<uint8_t> cl = {0, 2, 3, 1};
    order_ = c.channels_last ? cl : std::vector<uint8_t>{};
    w_order_ = c.weight_channels_last ? cl : std::vector<uint8_t>{};
  }

  // Builds the plan into `plan` with fresh tensors; returns the output.
  TestTensor<float>* Build(TestPlan& plan, bool alias) {
    const Case& c = c_;
    const int64_t in_numel = testing::Numel(in_shape_);
    const int64_t out_numel = testing::Numel(out_shape_);
    const int64_t capacity = std::max(in_numel, out_numel);
    auto* x = Own(in_shape_, Random<float>(in_numel, 1, -2, 2), order_, capacity);
    auto* w = Own({c.cout, c.cin / c.groups, c.k, c.k},
                  Random<float>(c.cout * (c.cin / c.groups) * c.k * c.k, 2), w_order_);
    auto* b = Own({c.cout}, Random<float>(c.cout, 3));
    plan.SetConstant(w->ev());
    plan.SetConstant(b->ev());
    plan.SetIo(x->ev());
    auto* y = Own(out_shape_, {}, order_);
    ints_.emplace_back(new TestIntList{c.stride, c.stride});
    EValue* stride = ints_.back()->ev();
    ints_.emplace_back(new TestIntList{c.pad, c.pad});
    EValue* pad = ints_.back()->ev();
    ints_.emplace_back(new TestIntList{1, 1});
    EValue* dil = ints_.back()->ev();
    ints_.emplace_back(new TestIntList{0, 0});
    EValue* out_pad = ints_.back()->ev();
    EValue* transposed = Value(EValue::FromBool(false));
    EValue* groups = Value(EValue::FromInt(c.groups));
    EValue* none = Value(EValue());
    plan.Add("aten::convolution.out", portable::ConvolutionOut,
             {x->ev(), w->ev(), c.bias ? b->ev() : none, stride, pad, dil, transposed, out_pad,
              groups, y->ev(), y->ev()});
    TestTensor<float>* last = y;
    if (c.batch_norm) {
      auto* gamma = Own({c.cout}, Random<float>(c.cout, 4, 0.5, 1.5));
      auto* beta = Own({c.cout}, Random<float>(c.cout, 5));
      auto* mean = Own({c.cout}, Random<float>(c.cout, 6));
      auto* var = Own({c.cout}, Random<float>(c.cout, 7, 0.1, 2.0));
      for (auto* t : {gamma, beta, mean, var}) plan.SetConstant(t->ev());
      auto* z = Own(out_shape_, {}, order_);
      auto* save_mean = Own({0});
      auto* save_invstd = Own({0});
      bn_save_mean_ = save_mean->ev();
      bn_mean_ = mean->ev();
      // The real program's return slot is a list of the three outputs; the
      // portable kernel ignores it, so the test passes out again.
      plan.Add("aten::_native_batch_norm_legit_no_training.out",
               portable::NativeBatchNormNoTrainingOut,
               {last->ev(), gamma->ev(), beta->ev(), mean->ev(), var->ev(),
                Value(EValue::FromDouble(0.1)), Value(EValue::FromDouble(1e-5)), z->ev(),
                save_mean->ev(), save_invstd->ev(), z->ev()},
               4);
      last = z;
    }
    if (c.act != Act::kNone) {
      auto* r = Own(out_shape_, {}, order_);
      if (c.act == Act::kRelu) {
        plan.Add("aten::relu.out", portable::ReluOut, {last->ev(), r->ev(), r->ev()});
      } else if (c.act == Act::kHardtanh) {
        plan.Add("aten::hardtanh.out", portable::HardtanhOut,
                 {last->ev(), Value(EValue::FromDouble(0.0)), Value(EValue::FromDouble(6.0)),
                  r->ev(), r->ev()});
      } else {
        plan.Add("aten::clamp.out", portable::ClampOut,
                 {last->ev(), none, Value(EValue::FromDouble(0.25)), r->ev(), r->ev()});
      }
      last = r;
    }
    if (alias) last->tensor().set_data(x->tensor().mutable_data());
    plan.SetIo(last->ev());
    return last;
  }

  EValue* bn_save_mean() const { return bn_save_mean_; }
  EValue* bn_mean() const { return bn_mean_; }

 private:
  TestTensor<float>* Own(std::vector<int32_t> sizes, std::vector<float> values = {},
                         std::vector<uint8_t> order = {}, int64_t capacity = -1) {
    tensors_.emplace_back(
        new TestTensor<float>(sizes, values, order, ShapeDynamism::kDynamicBound, capacity));
    return tensors_.back().get();
  }
  EValue* Value(EValue v) {
    values_.push_back(v);
    return &values_.back();
  }

  Case c_;
  std::vector<int32_t> in_shape_, out_shape_;
  std::vector<uint8_t> order_, w_order_;
  std::vector<std::unique_ptr<TestTensor<float>>> tensors_;
  std::vector<std::unique_ptr<TestIntList>> ints_;
  std::deque<EValue> values_;
  EValue* bn_save_mean_ = nullptr;
  EValue* bn_mean_ = nullptr;
};

const Case kCases[] = {
    // name                     n cin  h  w cout k s p g  bias   bn    act
    {"pointwise_bn_hardtanh", 1, 16, 9, 11, 24, 1, 1, 0, 1, false, true, Act::kHardtanh, false,
     false, false},
    {"pointwise_bn_in_place", 1, 16, 9, 11, 24, 1, 1, 0, 1, false, true, Act::kHardtanh, false,
     false, true},
    {"stem_s2_bn_relu", 1, 3, 17, 15, 8, 3, 2, 1, 1, false, true, Act::kRelu, false, false, false},
    {"stem_s2_in_place", 1, 3, 17, 15, 8, 3, 2, 1, 1, true, true, Act::kRelu, false, false, true},
    {"depthwise_bn_hardtanh", 1, 12, 10, 10, 12, 3, 1, 1, 12, false, true, Act::kHardtanh, false,
     false, false},
    {"depthwise_in_place", 1, 12, 10, 10, 12, 3, 1, 1, 12, false, true, Act::kHardtanh, false,
     false, true},
    {"depthwise_s2_in_place", 1, 40, 13, 13, 40, 3, 2, 1, 40, true, true, Act::kRelu, false, false,
     true},
    {"conv_bias_relu_only", 2, 6, 8, 8, 10, 3, 1, 1, 1, true, false, Act::kRelu, false, false,
     false},
    {"clamp_max_only", 1, 8, 7, 7, 8, 1, 1, 0, 1, true, false, Act::kClampMaxOnly, false, false,
     false},
    {"bn_only", 1, 8, 7, 7, 16, 3, 1, 1, 2, true, true, Act::kNone, false, false, false},
    {"channels_last", 1, 8, 6, 7, 16, 3, 1, 1, 1, true, true, Act::kRelu, true, true, false},
    {"channels_last_weight", 1, 8, 6, 7, 16, 3, 2, 1, 1, false, true, Act::kHardtanh, false, true,
     false},
    {"channels_last_in_place", 1, 8, 6, 7, 8, 1, 1, 0, 1, false, true, Act::kRelu, true, true,
     true},
    {"batch2_in_place", 2, 8, 6, 6, 8, 3, 1, 1, 1, true, true, Act::kRelu, false, false, true},
};

class FuseConvolutionTest : public ::testing::TestWithParam<Case> {};

TEST_P(FuseConvolutionTest, MatchesUnfusedChain) {
  const Case& c = GetParam();
  for (int threads : {1, 2}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    Chain ref_chain(c), chain(c);
    TestPlan ref, plan;
    TestTensor<float>* expected = ref_chain.Build(ref, false);
    TestTensor<float>* actual = chain.Build(plan, c.out_on_input);
    FuseConvolution(plan);
    ASSERT_EQ(plan.live(), 1u) << "everything fused into the convolution";
    EXPECT_STREQ(plan.op(0), "edgefleet::fused_convolution.out");
    ASSERT_EQ(ref.Execute(threads), Error::kOk);
    ASSERT_EQ(plan.Execute(threads), Error::kOk) << LastErrorDetail();
    // Folding moves results by rounding: the dot-product bound of the GEMM
    // tests over depth cin/groups * k * k (+ bias, + the batch-norm affine).
    const double depth = c.cin / c.groups * c.k * c.k + 3;
    const double unit = 1.0 / (1 << 24);
    testing::ExpectMatch(Elements(actual->tensor()), expected->Values(),
                         Tolerance{16.0 * depth * unit, 16.0 * depth * unit}, c.name);
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, FuseConvolutionTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.name);
                         });

Case Basic() {
  return {"basic", 1, 8, 6, 6, 8, 3, 1, 1, 1, true, true, Act::kRelu, false, false, false};
}

TEST(FuseConvolutionPass, LeavesTwoReadersAlone) {
  Chain chain(Basic());
  TestPlan plan;
  chain.Build(plan, false);
  // A second reader of the convolution's output.
  TestTensor<float> extra({1, 8, 6, 6});
  plan.Add("aten::relu.out", portable::ReluOut, {plan.args(0)[9], extra.ev(), extra.ev()});
  FuseConvolution(plan);
  EXPECT_STREQ(plan.op(0), "aten::convolution.out");
  EXPECT_EQ(plan.live(), 4u);
}

// `plan` with one value no longer reported constant.
class Forget : public PlanEditor {
 public:
  Forget(TestPlan& plan, const EValue* v) : p_(plan), forgotten_(v) {}
  size_t num_instructions() const override { return p_.num_instructions(); }
  const char* op(size_t pc) const override { return p_.op(pc); }
  Span<EValue*> args(size_t pc) const override { return p_.args(pc); }
  int num_threads() const override { return 1; }
  int64_t writer(const EValue* v) const override { return p_.writer(v); }
  size_t num_readers(const EValue* v) const override { return p_.num_readers(v); }
  bool is_constant(const EValue* v) const override { return v != forgotten_ && p_.is_constant(v); }
  bool is_method_io(const EValue* v) const override { return p_.is_method_io(v); }
  void* Allocate(size_t b, size_t a) override { return p_.Allocate(b, a); }
  EValue* NewValue(const EValue& v) override { return p_.NewValue(v); }
  Error Replace(size_t pc, const Kernel& k, Span<EValue* const> a) override {
    return p_.Replace(pc, k, a);
  }
  void Remove(size_t pc) override { p_.Remove(pc); }

 private:
  TestPlan& p_;
  const EValue* forgotten_;
};

TEST(FuseConvolutionPass, LeavesNonConstantWeightAlone) {
  TestPlan plan;
  Chain chain(Basic());
  chain.Build(plan, false);
  Forget no_weight(plan, plan.args(0)[1]);
  FuseConvolution(no_weight);
  EXPECT_EQ(plan.live(), 3u) << "weight not constant: nothing fused";
  EXPECT_STREQ(plan.op(0), "aten::convolution.out");
}

TEST(FuseConvolutionPass, LeavesNonConstantBatchNormAlone) {
  // The running mean not constant: no folding; the activation reads the
  // batch norm, not the convolution, so it stays too.
  TestPlan plan;
  Chain chain(Basic());
  chain.Build(plan, false);
  Forget no_mean(plan, chain.bn_mean());
  FuseConvolution(no_mean);
  EXPECT_EQ(plan.live(), 3u);
  EXPECT_STREQ(plan.op(0), "aten::convolution.out");
}

TEST(FuseConvolutionPass, LeavesMethodOutputAlone) {
  Chain chain(Basic());
  TestPlan plan;
  chain.Build(plan, false);
  plan.SetIo(plan.args(0)[9]);  // the convolution's output is a method output
  FuseConvolution(plan);
  EXPECT_EQ(plan.live(), 3u);
  EXPECT_STREQ(plan.op(0), "aten::convolution.out");
}

TEST(FuseConvolutionPass, LeavesUsedSaveMeanAlone) {
  Chain chain(Basic());
  TestPlan plan;
  chain.Build(plan, false);
  TestTensor<float> copy({0});
  plan.Add("aten::relu.out", portable::ReluOut, {chain.bn_save_mean(), copy.ev(), copy.ev()});
  FuseConvolution(plan);
  EXPECT_STREQ(plan.op(1), "aten::_native_batch_norm_legit_no_training.out");
  EXPECT_STREQ(plan.op(0), "aten::convolution.out");
}

TEST(FuseConvolutionPass, LeavesPlanAloneWithoutBudget) {
  Chain chain(Basic());
  TestPlan plan;
  chain.Build(plan, false);
  plan.budget_ = 0;
  FuseConvolution(plan);
  // No memory for folded weights: the batch norm stays, and so does the
  // activation (it does not read the convolution).
  EXPECT_EQ(plan.live(), 3u);
}

TEST(FuseConvolutionPass, InterveningWriterBlocksEarlyWrite) {
  // conv -> relu writing the batch norm's output memory -> bn: writing the
  // batch norm's output at the convolution would be clobbered by the relu.
  Case c = Basic();
  c.act = Act::kNone;
  Chain chain(c);
  TestPlan built;
  chain.Build(built, false);
  TestTensor<float> src({1, 8, 6, 6}), alias({1, 8, 6, 6});
  EValue* z = built.args(1)[7];
  alias.tensor().set_data(z->to_tensor().mutable_data());  // another value, same bytes
  TestPlan plan;
  plan.Add("aten::convolution.out", portable::ConvolutionOut,
           std::vector<EValue*>(built.args(0).begin(), built.args(0).end()));
  plan.Add("aten::relu.out", portable::ReluOut, {src.ev(), alias.ev(), alias.ev()});
  plan.Add("aten::_native_batch_norm_legit_no_training.out", portable::NativeBatchNormNoTrainingOut,
           std::vector<EValue*>(built.args(1).begin(), built.args(1).end()), 4);
  for (size_t i = 1; i <= 4; ++i) plan.SetConstant(built.args(1)[i]);
  plan.SetConstant(built.args(0)[1]);
  plan.SetConstant(built.args(0)[2]);
  FuseConvolution(plan);
  EXPECT_STREQ(plan.op(0), "aten::convolution.out");
  EXPECT_EQ(plan.live(), 3u);
}

// conv -> batch norm -> the exported hardswish (add 3 -> clamp(0, None) ->
// clamp(None, 6) -> mul by y -> div 6) or hardsigmoid (without the mul),
// the constants 3 and 6 made by _to_dim_order_copy of int64 constants, as
// torch.export writes them.
struct HardChain {
  explicit HardChain(bool hardswish, int32_t groups, int32_t k, bool in_place)
      : x({1, 16, 9, 9}, Random<float>(16 * 81, 41, -3, 3), {}, ShapeDynamism::kDynamicBound,
          16 * 81),
        w({16, 16 / groups, k, k}, Random<float>(16 * (16 / groups) * k * k, 42)),
        gamma({16}, Random<float>(16, 43, 0.5, 1.5)),
        beta({16}, Random<float>(16, 44)),
        mean({16}, Random<float>(16, 45)),
        var({16}, Random<float>(16, 46, 0.5, 1.5)),
        y({1, 16, 9, 9}),
        z({1, 16, 9, 9}),
        a({1, 16, 9, 9}),
        c1({1, 16, 9, 9}),
        c2({1, 16, 9, 9}),
        m({1, 16, 9, 9}),
        out({1, 16, 9, 9}),
        save_mean({0}),
        save_invstd({0}),
        three_l({}, {3}),
        six_l({}, {6}),
        three({}),
        six({}),
        stride{1, 1},
        pad{k / 2, k / 2},
        dil{1, 1},
        out_pad{0, 0},
        order{} {
    EValue* v_false = Value(EValue::FromBool(false));
    plan.Add("aten::convolution.out", portable::ConvolutionOut,
             {x.ev(), w.ev(), Value(EValue()), stride.ev(), pad.ev(), dil.ev(), v_false,
              out_pad.ev(), Value(EValue::FromInt(groups)), y.ev(), y.ev()});
    plan.Add("aten::_native_batch_norm_legit_no_training.out",
             portable::NativeBatchNormNoTrainingOut,
             {y.ev(), gamma.ev(), beta.ev(), mean.ev(), var.ev(), Value(EValue::FromDouble(0.1)),
              Value(EValue::FromDouble(1e-3)), z.ev(), save_mean.ev(), save_invstd.ev(), z.ev()},
             4);
    plan.Add("dim_order_ops::_to_dim_order_copy.out", portable::ToDimOrderCopyOut,
             {three_l.ev(), v_false, Value(EValue()), three.ev(), three.ev()});
    plan.Add("aten::add.out", portable::AddOut,
             {z.ev(), three.ev(), Value(EValue::FromInt(1)), a.ev(), a.ev()});
    plan.Add("aten::clamp.out", portable::ClampOut,
             {a.ev(), Value(EValue::FromInt(0)), Value(EValue()), c1.ev(), c1.ev()});
    plan.Add("aten::clamp.out", portable::ClampOut,
             {c1.ev(), Value(EValue()), Value(EValue::FromInt(6)), c2.ev(), c2.ev()});
    EValue* q = c2.ev();
    if (hardswish) {
      plan.Add("aten::mul.out", portable::MulOut, {z.ev(), c2.ev(), m.ev(), m.ev()});
      q = m.ev();
    }
    plan.Add("dim_order_ops::_to_dim_order_copy.out", portable::ToDimOrderCopyOut,
             {six_l.ev(), v_false, Value(EValue()), six.ev(), six.ev()});
    plan.Add("aten::div.out", portable::DivOut, {q, six.ev(), out.ev(), out.ev()});
    for (auto* t : {&w, &gamma, &beta, &mean, &var}) plan.SetConstant(t->ev());
    plan.SetConstant(three_l.ev());
    plan.SetConstant(six_l.ev());
    plan.SetIo(x.ev());
    plan.SetIo(out.ev());
    if (in_place) out.tensor().set_data(x.tensor().mutable_data());
  }
  EValue* Value(EValue v) {
    values.push_back(v);
    return &values.back();
  }

  TestTensor<float> x, w, gamma, beta, mean, var, y, z, a, c1, c2, m, out, save_mean, save_invstd;
  TestTensor<int64_t> three_l, six_l;
  TestTensor<float> three, six;
  TestIntList stride, pad, dil, out_pad;
  std::vector<int> order;
  std::deque<EValue> values;
  TestPlan plan;
};

TEST(FuseConvolutionPass, FusesExportedHardswishAndHardsigmoid) {
  for (bool hardswish : {true, false}) {
    for (auto [groups, k, in_place] : {std::tuple<int32_t, int32_t, bool>{1, 1, false},
                                       {16, 3, false},
                                       {16, 3, true},
                                       {1, 3, true},
                                       {1, 1, true}}) {
      SCOPED_TRACE((hardswish ? "hardswish" : "hardsigmoid") + std::string(" groups ") +
                   std::to_string(groups) + " k " + std::to_string(k) +
                   (in_place ? " in place" : ""));
      HardChain ref(hardswish, groups, k, false), fused(hardswish, groups, k, in_place);
      FuseConvolution(fused.plan);
      ASSERT_EQ(fused.plan.live(), 1u);
      EXPECT_STREQ(fused.plan.op(0), hardswish ? "edgefleet::fused_convolution_hardswish.out"
                                               : "edgefleet::fused_convolution_hardsigmoid.out");
      ASSERT_EQ(ref.plan.Execute(), Error::kOk);
      ASSERT_EQ(fused.plan.Execute(), Error::kOk) << LastErrorDetail();
      const double depth = 16 / groups * k * k + 3;
      const double unit = 1.0 / (1 << 24);
      testing::ExpectMatch(Elements(fused.out.tensor()), ref.out.Values(),
                           Tolerance{16.0 * depth * unit, 16.0 * depth * unit}, "hard");
    }
  }
}

TEST(FuseConvolutionPass, LeavesOtherHardChainsAlone) {
  // The clamp's upper bound is not 6: no fusion of the chain (the batch
  // norm is still folded).
  HardChain chain(true, 1, 1, false);
  EValue* seven = chain.Value(EValue::FromInt(7));
  const Span<EValue*> clamp2 = chain.plan.args(5);
  clamp2[2] = seven;
  FuseConvolution(chain.plan);
  EXPECT_STREQ(chain.plan.op(0), "edgefleet::fused_convolution.out");
  EXPECT_STREQ(chain.plan.op(3), "aten::add.out");
  // A third reader of y: not a hardswish of y alone.
  HardChain third(true, 1, 1, false);
  TestTensor<float> extra({1, 16, 9, 9});
  third.plan.Add("aten::relu.out", portable::ReluOut, {third.z.ev(), extra.ev(), extra.ev()});
  FuseConvolution(third.plan);
  EXPECT_STREQ(third.plan.op(3), "aten::add.out");
}

// The fused kernel itself: NaN and infinities propagate as through the
// separate activation, and the optimized convolution followed by the clamp
// gives the same bits.
TEST(FusedConvolutionKernel, SameBitsAsConvolutionThenClamp) {
  testing::ForEachIsa([] {
    for (int k : {1, 3}) {
      const int32_t cin = 7, cout = 29, h = 9, w = 13;
      std::vector<float> xv = Random<float>(cin * h * w, 11, -3, 3);
      xv[5] = std::numeric_limits<float>::quiet_NaN();
      xv[17] = std::numeric_limits<float>::infinity();
      TestTensor<float> x({1, cin, h, w}, xv);
      TestTensor<float> wt({cout, cin, k, k}, Random<float>(cout * cin * k * k, 12));
      TestTensor<float> b({cout}, Random<float>(cout, 13));
      const int32_t p = k / 2;
      TestIntList stride{1, 1}, pad{p, p}, dil{1, 1}, out_pad{0, 0};
      EValue tr = EValue::FromBool(false), groups = EValue::FromInt(1);
      EValue lo = EValue::FromDouble(-0.5), hi = EValue::FromInt(2), none;
      TestTensor<float> ref({1, cout, h, w}), act({1, cout, h, w}), fused({1, cout, h, w});
      ASSERT_EQ(
          testing::Call(ConvolutionOut, {x.ev(), wt.ev(), b.ev(), stride.ev(), pad.ev(), dil.ev(),
                                         &tr, out_pad.ev(), &groups, ref.ev(), ref.ev()}),
          Error::kOk);
      ASSERT_EQ(testing::Call(portable::ClampOut, {ref.ev(), &lo, &hi, act.ev(), act.ev()}),
                Error::kOk);
      ASSERT_EQ(testing::Call(FusedConvolutionOut,
                              {x.ev(), wt.ev(), b.ev(), stride.ev(), pad.ev(), dil.ev(), &tr,
                               out_pad.ev(), &groups, &lo, &hi, fused.ev(), fused.ev()}),
                Error::kOk)
          << LastErrorDetail();
      testing::ExpectMatch(fused.Values(), act.Values(), testing::kExact, "fused clamp");
      // No bounds at all: the plain convolution.
      TestTensor<float> plain({1, cout, h, w});
      ASSERT_EQ(testing::Call(FusedConvolutionOut,
                              {x.ev(), wt.ev(), b.ev(), stride.ev(), pad.ev(), dil.ev(), &tr,
                               out_pad.ev(), &groups, &none, &none, plain.ev(), plain.ev()}),
                Error::kOk);
      testing::ExpectMatch(plain.Values(), ref.Values(), testing::kExact, "no bounds");
    }
  });
}

TEST(FusedConvolutionKernel, RejectsBadArguments) {
  TestTensor<float> x({1, 2, 3, 3});
  EValue not_a_bound = EValue::FromBool(true);
  std::vector<EValue*> args(13, x.ev());
  args[9] = &not_a_bound;
  EXPECT_EQ(testing::Call(FusedConvolutionOut, args), Error::kInvalidArgument);
  EXPECT_EQ(testing::Call(FusedConvolutionOut, {x.ev(), x.ev()}), Error::kInvalidArgument);
}

TEST(FusedConvolutionKernel, FailsCleanlyWithoutTempForTheCopy) {
  // 1x1 with out on the input needs a copy of the input; no temp memory.
  const int32_t c = 64, hw = 32;
  TestTensor<float> x({1, c, hw, hw}, Random<float>(c * hw * hw, 21));
  TestTensor<float> wt({c, c, 1, 1}, Random<float>(c * c, 22));
  TestTensor<float> out({1, c, hw, hw});
  out.tensor().set_data(x.tensor().mutable_data());
  TestIntList stride{1, 1}, pad{0, 0}, dil{1, 1}, out_pad{0, 0};
  EValue tr = EValue::FromBool(false), groups = EValue::FromInt(1), none;
  EXPECT_EQ(testing::Call(FusedConvolutionOut,
                          {x.ev(), wt.ev(), &none, stride.ev(), pad.ev(), dil.ev(), &tr,
                           out_pad.ev(), &groups, &none, &none, out.ev(), out.ev()},
                          1, 1024),
            Error::kMemoryAllocationFailed);
}

TEST(GemmEpilogue, MatchesSeparatePass) {
  testing::ForEachIsa([] {
    for (auto [m, n, k] : {std::tuple<int, int, int>{13, 70, 300},
                           {40, 33, 17},
                           {2, 50, 9},
                           {30, 1, 20},
                           {25, 64, 256}}) {
      std::vector<float> a = Random<float>(m * k, 31), b = Random<float>(k * n, 32);
      std::vector<float> rb = Random<float>(m, 33), cb = Random<float>(n, 34);
      for (int variant = 0; variant < 3; ++variant) {
        GemmEpilogue e;
        if (variant != 1) e.row_bias = rb.data();
        if (variant != 0) e.col_bias = cb.data();
        e.lo = variant == 2 ? -std::numeric_limits<float>::infinity() : -0.5f;
        e.hi = 0.75f;
        std::vector<float> fused(m * n), plain(m * n);
        std::vector<uint64_t> temp_memory((8 << 20) / 8);
        MemoryAllocator temp(temp_memory.data(), 8 << 20);
        KernelContext ctx(&temp, 1);
        const StridedOperand ao(a.data(), k, 1), bo(b.data(), 1, n);
        ASSERT_TRUE(Gemm(ctx, m, n, k, ao, bo, plain.data(), n, false));
        ASSERT_TRUE(Gemm(ctx, m, n, k, ao, bo, fused.data(), n, false, &e));
        for (int i = 0; i < m; ++i) {
          for (int j = 0; j < n; ++j) {
            float v = plain[i * n + j];
            if (e.row_bias != nullptr) v += rb[i];
            if (e.col_bias != nullptr) v += cb[j];
            v = v < e.lo ? e.lo : v;
            v = v > e.hi ? e.hi : v;
            plain[i * n + j] = v;
          }
        }
        testing::ExpectMatch(fused, plain, testing::kExact,
                             "epilogue " + std::to_string(m) + "x" + std::to_string(n));
      }
    }
  });
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet
