// The pack_small_plane_panels plan pass and the fused convolution kernel
// reading the panels (SmallPlaneNchwPanels) on small plans held by a test
// PlanEditor: the rewritten plan computes what the portable convolution
// [then the activation] computes, within the GEMM's dot-product bound, at
// every instruction set (panels packed under the host's, so the narrower
// sets read panels of another width); convolutions the panels do not apply
// to are left alone.

#include "runtime/kernels/optimized/small_plane_panels.h"

#include <deque>
#include <memory>
#include <vector>

#include "runtime/kernels/optimized/conv_fusion.h"
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

struct Case {
  int32_t n, cin, h, w, cout, k;
  bool bias, relu;
  int64_t stride = 1, pad = 0, dil = 1;
  int32_t out_n = -1;  // the output's batch when it differs from the input's (a malformed plan)
};

// x -> convolution [-> relu] as a plan, the weight and bias constant.
class Chain {
 public:
  explicit Chain(const Case& c) : c_(c) {
    const int64_t span = c.dil * (c.k - 1) + 1;
    const int32_t oh = static_cast<int32_t>((c.h + 2 * c.pad - span) / c.stride + 1);
    const int32_t ow = static_cast<int32_t>((c.w + 2 * c.pad - span) / c.stride + 1);
    x_ = Own({c.n, c.cin, c.h, c.w}, Random<float>(int64_t{c.n} * c.cin * c.h * c.w, 1, -2, 2));
    w_ = Own({c.cout, c.cin, c.k, c.k}, Random<float>(int64_t{c.cout} * c.cin * c.k * c.k, 2));
    b_ = Own({c.cout}, Random<float>(c.cout, 3));
    const int32_t out_n = c.out_n < 0 ? c.n : c.out_n;
    y_ = Own({out_n, c.cout, oh, ow});
    r_ = Own({out_n, c.cout, oh, ow});
    stride_.reset(new TestIntList{c.stride, c.stride});
    dil_.reset(new TestIntList{c.dil, c.dil});
    pad_.reset(new TestIntList{c.pad, c.pad});
    out_pad_.reset(new TestIntList{0, 0});
  }

  void Build(TestPlan& plan) {
    plan.SetConstant(w_->ev());
    plan.SetConstant(b_->ev());
    plan.SetIo(x_->ev());
    plan.Add("aten::convolution.out", portable::ConvolutionOut,
             {x_->ev(), w_->ev(), c_.bias ? b_->ev() : &none_, stride_->ev(), pad_->ev(),
              dil_->ev(), &transposed_, out_pad_->ev(), &groups_, y_->ev(), y_->ev()});
    if (c_.relu) plan.Add("aten::relu.out", portable::ReluOut, {y_->ev(), r_->ev(), r_->ev()});
    plan.SetIo(Out()->ev());
  }

  TestTensor<float>* Out() const { return c_.relu ? r_ : y_; }
  // The chain's result from the portable kernels on this chain's tensors.
  std::vector<float> Reference() {
    TestPlan plan;
    Build(plan);
    EXPECT_EQ(plan.Execute(), Error::kOk);
    return Out()->Values();
  }
  Tolerance Bound() const {
    const double depth = c_.cin * c_.k * c_.k + 1, unit = 1.0 / (1 << 24);
    return {4.0 * depth * depth * unit, 4.0 * depth * unit};
  }

 private:
  TestTensor<float>* Own(std::vector<int32_t> sizes, std::vector<float> values = {}) {
    tensors_.emplace_back(new TestTensor<float>(sizes, values));
    return tensors_.back().get();
  }

  Case c_;
  TestTensor<float>*x_, *w_, *b_, *y_, *r_;
  std::vector<std::unique_ptr<TestTensor<float>>> tensors_;
  std::unique_ptr<TestIntList> stride_, pad_, dil_, out_pad_;
  EValue none_, transposed_ = EValue::FromBool(false), groups_ = EValue::FromInt(1);
};

class PackSmallPlanePanelsTest : public ::testing::TestWithParam<Case> {};

TEST_P(PackSmallPlanePanelsTest, RewrittenPlanMatchesPortable) {
  const Case& c = GetParam();
  Chain chain(c);
  const std::vector<float> expected = chain.Reference();
  TestPlan plan;
  chain.Build(plan);
  FuseConvolution(plan);  // the relu into the convolution, if any
  PackSmallPlanePanels(plan);
  ASSERT_EQ(plan.args(0).size(), 14u) << "panels added";
  EXPECT_STREQ(plan.op(0), "edgefleet::fused_convolution.out");
  EXPECT_EQ(plan.live(), 1u);
  testing::ForEachIsa([&] {
    chain.Out()->Set(std::vector<float>(expected.size(), -1234.0f));
    ASSERT_EQ(plan.Execute(), Error::kOk) << LastErrorDetail();
    testing::ExpectMatch(chain.Out()->Values(), expected, chain.Bound(), "convolution");
  });
}

const Case kCases[] = {
    {1, 16, 7, 7, 40, 1, true, false},           // the 7x7 stage, 40 = 32 + 8 channels
    {1, 16, 7, 7, 40, 1, false, true},           // fused relu, no bias
    {2, 300, 3, 5, 17, 1, true, false},          // batch 2, depth across a KC block
    {1, 5, 1, 1, 70, 1, true, true},             // 1 x 1 planes (squeeze-and-excitation)
    {1, 8, 8, 8, 33, 1, true, false},            // kMaxPanelPixels
    {1, 1, 2, 3, 1, 1, false, false},            // one channel each
    {1, 24, 7, 7, 40, 3, true, true, 1, 1},      // 3x3 on the 7x7 stage, fused relu
    {1, 12, 14, 13, 33, 3, false, false, 2, 1},  // 3x3 / 2 to 7x7, odd width
    {2, 9, 7, 7, 20, 3, true, false, 1, 2, 2},   // dilated, batch 2
    {1, 8, 14, 14, 16, 1, true, false, 2, 0},    // 1x1 / 2 (a residual shortcut)
    {1, 100, 4, 4, 10, 3, true, false, 1, 1},    // depth 900: four KC blocks
};
INSTANTIATE_TEST_SUITE_P(Shapes, PackSmallPlanePanelsTest, ::testing::ValuesIn(kCases));

TEST(PackSmallPlanePanels, LeavesOtherConvolutionsAlone) {
  const Case others[] = {
      {1, 8, 9, 8, 12, 1, true, false},              // 72 pixels: above kMaxPanelPixels
      {1, 8, 11, 11, 12, 3, true, false, 1, 1},      // 3 x 3, 121 pixels
      {1, 8, 4, 4, 12, 1, true, false, 1, 0, 1, 0},  // malformed: an empty output batch
      {1, 8, 4, 4, 12, 1, true, false, 1, 0, 1, 2},  // malformed: output batch 2 of 1
  };
  for (const Case& c : others) {
    Chain chain(c);
    TestPlan plan;
    chain.Build(plan);
    PackSmallPlanePanels(plan);
    EXPECT_STREQ(plan.op(0), "aten::convolution.out");
    EXPECT_EQ(plan.args(0).size(), 11u);
  }
}

TEST(PackSmallPlanePanels, LeavesPlanAloneWithoutBudgetOrConstantWeight) {
  const Case c = {1, 16, 7, 7, 40, 1, true, false};
  Chain chain(c);
  TestPlan no_budget;
  chain.Build(no_budget);
  no_budget.budget_ = 0;
  PackSmallPlanePanels(no_budget);
  EXPECT_STREQ(no_budget.op(0), "aten::convolution.out");
  Chain other(c);
  TestPlan plan;
  other.Build(plan);
  TestPlan weight_not_constant;
  weight_not_constant.Add("aten::convolution.out", portable::ConvolutionOut,
                          std::vector<EValue*>(plan.args(0).begin(), plan.args(0).end()));
  PackSmallPlanePanels(weight_not_constant);
  EXPECT_STREQ(weight_not_constant.op(0), "aten::convolution.out");
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet
