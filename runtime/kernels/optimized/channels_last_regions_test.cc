// The channels_last_regions plan pass on a small network held by a test
// PlanEditor: an RGB-like stem, a depthwise block with a residual add, a
// spatial mean feeding a per-channel gate (squeeze-and-excitation), a last
// convolution feeding a permute. The pass must relabel exactly the tensors
// every user of which runs either layout, and the rewritten plan (optimized
// kernels, channels-last inside, layout bridges at the edges) must compute
// what the portable kernels compute on the unrewritten plan, within the
// GEMM's dot-product bound, at every instruction set.

#include "runtime/kernels/optimized/channels_last_regions.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/kernels/optimized/binary_fusion.h"
#include "runtime/kernels/optimized/conv_fusion.h"
#include "runtime/kernels/optimized/kernel_util.h"
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
using testing::TestTensorList;
using testing::Tolerance;

// Which of the network's variations a test builds.
struct Variant {
  bool extra_permute_of_r1 = false;  // r1 also read by a permute (not layout-free)
  bool h1_is_output = false;         // h1 a method output inside the chain
  bool relu_in_place = false;        // r1 = relu(c1) written over c1 (one value)
  bool fuse = true;                  // fuse_convolution first
  bool no_budget = false;            // no method memory for panels
  bool all_groups = true;            // every allowed group, not only the worthwhile ones
};

// convolution.out calls (dilation 1) for hand-made plans, owning their
// scalar arguments; `opt`: the optimized kernel, else the portable one.
class ConvCalls {
 public:
  void Add(TestPlan& plan, bool opt, TestTensor<float>* x, TestTensor<float>* w,
           TestTensor<float>* b, int64_t stride, int64_t pad, int64_t groups,
           TestTensor<float>* y) {
    lists_.emplace_back(new TestIntList{stride, stride});
    TestIntList* s = lists_.back().get();
    lists_.emplace_back(new TestIntList{pad, pad});
    TestIntList* p = lists_.back().get();
    ints_.emplace_back(new EValue(EValue::FromInt(groups)));
    plan.Add("aten::convolution.out", opt ? optimized::ConvolutionOut : portable::ConvolutionOut,
             {x->ev(), w->ev(), b != nullptr ? b->ev() : &none_, s->ev(), p->ev(), dil_.ev(),
              &transposed_, out_pad_.ev(), ints_.back().get(), y->ev(), y->ev()});
  }

 private:
  std::vector<std::unique_ptr<TestIntList>> lists_;
  std::vector<std::unique_ptr<EValue>> ints_;
  TestIntList dil_{1, 1}, out_pad_{0, 0};
  EValue none_, transposed_ = EValue::FromBool(false);
};

class Net {
 public:
  explicit Net(Variant v) : v_(v) {
    x_ = Own("x", {1, 3, 12, 12}, Random<float>(3 * 144, 1, -2, 2));
    w1_ = Own("w1", {8, 3, 3, 3}, Random<float>(8 * 27, 2));
    b1_ = Own("b1", {8}, Random<float>(8, 3));
    wd_ = Own("wd", {8, 1, 3, 3}, Random<float>(72, 4));
    wp_ = Own("wp", {8, 8, 1, 1}, Random<float>(64, 5));
    wq_ = Own("wq", {16, 8, 3, 3}, Random<float>(16 * 72, 6));
    for (const char* n : {"c1", "r1", "d1", "h1", "p1", "a1", "g"}) Own(n, {1, 8, 6, 6});
    Own("m", {1, 8, 1, 1});
    Own("s", {1, 8, 1, 1});
    Own("q", {1, 16, 6, 6});
    Own("o", {1, 6, 6, 16});
    Own("e", {1, 6, 6, 8});
  }

  // The network as a plan; `opt`: optimized kernels, else portable.
  void Build(TestPlan& plan, bool opt) {
    for (TestTensor<float>* c : {w1_, b1_, wd_, wp_, wq_}) plan.SetConstant(c->ev());
    plan.SetIo(x_->ev());
    convs_.Add(plan, opt, x_, w1_, b1_, 2, 1, 1, (*this)["c1"]);
    EValue* r1 = v_.relu_in_place ? T("c1") : T("r1");
    plan.Add("aten::relu.out", opt ? optimized::ReluOut : portable::ReluOut, {T("c1"), r1, r1});
    convs_.Add(plan, opt, (*this)[v_.relu_in_place ? "c1" : "r1"], wd_, nullptr, 1, 1, 8,
               (*this)["d1"]);
    plan.Add("aten::hardswish.out", opt ? optimized::HardswishOut : portable::HardswishOut,
             {T("d1"), T("h1"), T("h1")});
    convs_.Add(plan, opt, (*this)["h1"], wp_, nullptr, 1, 0, 1, (*this)["p1"]);
    plan.Add("aten::add.out", opt ? optimized::AddOut : portable::AddOut,
             {T("p1"), r1, &one_, T("a1"), T("a1")});
    plan.Add("aten::mean.out", opt ? optimized::MeanOut : portable::MeanOut,
             {T("a1"), hw_.ev(), &keepdim_, &none_, T("m"), T("m")});
    plan.Add("aten::sigmoid.out", opt ? optimized::SigmoidOut : portable::SigmoidOut,
             {T("m"), T("s"), T("s")});
    plan.Add("aten::mul.out", opt ? optimized::MulOut : portable::MulOut,
             {T("a1"), T("s"), T("g"), T("g")});
    convs_.Add(plan, opt, (*this)["g"], wq_, nullptr, 1, 1, 1, (*this)["q"]);
    const auto permute = opt ? optimized::PermuteCopyOut : portable::PermuteCopyOut;
    plan.Add("aten::permute_copy.out", permute, {T("q"), nhwc_.ev(), T("o"), T("o")});
    if (v_.extra_permute_of_r1) {
      plan.Add("aten::permute_copy.out", permute, {r1, nhwc_.ev(), T("e"), T("e")});
      plan.SetIo(T("e"));
    }
    if (v_.h1_is_output) plan.SetIo(T("h1"));
    plan.SetIo(T("o"));
  }

  TestTensor<float>* operator[](const std::string& name) { return t_.at(name).get(); }
  EValue* T(const std::string& name) { return t_.at(name)->ev(); }
  bool ChannelsLast(const std::string& name) {
    const Span<const uint8_t> o = t_.at(name)->tensor().dim_order();
    return o.size() == 4 && o[0] == 0 && o[1] == 2 && o[2] == 3 && o[3] == 1;
  }
  // Every intermediate in logical order.
  std::map<std::string, std::vector<float>> Values() {
    std::map<std::string, std::vector<float>> values;
    for (const char* n : {"c1", "d1", "h1", "p1", "a1", "m", "s", "g", "q", "o"}) {
      values[n] = t_.at(n)->Values();
    }
    return values;
  }

 private:
  TestTensor<float>* Own(const std::string& name, std::vector<int32_t> sizes,
                         std::vector<float> values = {}) {
    t_[name].reset(new TestTensor<float>(sizes, values));
    return t_[name].get();
  }
  Variant v_;
  std::map<std::string, std::unique_ptr<TestTensor<float>>> t_;
  TestTensor<float>*x_, *w1_, *b1_, *wd_, *wp_, *wq_;
  ConvCalls convs_;
  TestIntList hw_{-1, -2}, nhwc_{0, 2, 3, 1};
  EValue none_, keepdim_ = EValue::FromBool(true), one_ = EValue::FromInt(1);
};

// The portable results of the unrewritten network.
std::map<std::string, std::vector<float>> Reference(Variant v) {
  Net net(v);
  TestPlan plan;
  net.Build(plan, false);
  EXPECT_EQ(plan.Execute(), Error::kOk);
  return net.Values();
}

// Within the dot-product bound of a depth-72 convolution chain, loosely.
constexpr Tolerance kBound{1e-5, 1e-5};

// Builds a plan twice: with the portable kernels (the reference values of
// `watched`), then with the optimized ones, rewritten by `rewrite`;
// `check` runs in between (layouts, the reference's other outputs), then
// the rewritten plan runs at every instruction set from poisoned
// `watched` tensors and must reproduce them.
void ExpectRewriteMatches(const std::function<void(TestPlan&, bool)>& build,
                          const std::function<void(TestPlan&)>& rewrite,
                          const std::vector<TestTensor<float>*>& watched,
                          const std::function<void(const TestPlan&)>& check) {
  TestPlan reference;
  build(reference, false);
  ASSERT_EQ(reference.Execute(), Error::kOk);
  std::vector<std::vector<float>> expected;
  for (TestTensor<float>* t : watched) expected.push_back(t->Values());
  TestPlan plan;
  build(plan, true);
  rewrite(plan);
  check(plan);
  testing::ForEachIsa([&] {
    for (size_t i = 0; i < watched.size(); ++i) {
      watched[i]->Set(std::vector<float>(expected[i].size(), -1234.0f));
    }
    ASSERT_EQ(plan.Execute(), Error::kOk) << LastErrorDetail();
    for (size_t i = 0; i < watched.size(); ++i) {
      testing::ExpectMatch(watched[i]->Values(), expected[i], kBound,
                           "watched " + std::to_string(i));
    }
  });
}

// Runs the pass on the variant and checks the relabeled set and the
// results at every instruction set.
void Check(Variant v, const std::vector<std::string>& channels_last) {
  const auto expected = Reference(v);
  Net net(v);
  TestPlan plan;
  net.Build(plan, true);
  if (v.fuse) FuseConvolution(plan);
  if (v.no_budget) plan.budget_ = 0;
  RelabelChannelsLastRegions(plan, !v.all_groups);
  for (const char* n : {"x", "c1", "r1", "d1", "h1", "p1", "a1", "m", "s", "g", "q", "o", "e"}) {
    bool want = false;
    for (const std::string& c : channels_last) want |= c == n;
    if (v.fuse && std::string(n) == "c1") want = false;  // not in the fused plan
    EXPECT_EQ(net.ChannelsLast(n), want) << n;
  }
  testing::ForEachIsa([&] {
    for (const char* n : {"c1", "d1", "h1", "p1", "a1", "m", "s", "g", "q", "o"}) {
      net[n]->Set(std::vector<float>(expected.at(n).size(), -1234.0f));
    }
    ASSERT_EQ(plan.Execute(), Error::kOk) << LastErrorDetail();
    const auto actual = net.Values();
    for (const auto& [name, values] : expected) {
      // c1: dead once fused into the relu, holding r1 when the relu is in place.
      if ((v.fuse || v.relu_in_place) && name == "c1") continue;
      testing::ExpectMatch(actual.at(name), values, kBound, name);
    }
  });
}

TEST(ChannelsLastRegions, RelabelsTheChainBetweenTheStemAndThePermute) {
  Check({}, {"c1", "r1", "d1", "h1", "p1", "a1", "g"});
}

TEST(ChannelsLastRegions, WithoutFusion) {
  Variant v;
  v.fuse = false;
  Check(v, {"c1", "r1", "d1", "h1", "p1", "a1", "g"});
}

TEST(ChannelsLastRegions, ATensorAlsoReadByAnotherOpKeepsItsWholeGroupNchw) {
  // r1 ties c1 (relu), a1 (add) and g (mul): all stay; d1 -> h1 is free.
  Variant v;
  v.extra_permute_of_r1 = true;
  Check(v, {"d1", "h1"});
}

TEST(ChannelsLastRegions, AMethodOutputInsideTheChainStaysNchw) {
  Variant v;
  v.h1_is_output = true;
  Check(v, {"c1", "r1", "p1", "a1", "g"});
}

TEST(ChannelsLastRegions, AnInPlaceActivationKeepsItsGroupNchw) {
  // c1 then has two writers (the stem and the relu): it, and a1, g, p1
  // tied to it, stay; d1 -> h1 is free.
  Variant v;
  v.relu_in_place = true;
  v.fuse = false;
  Check(v, {"d1", "h1"});
}

TEST(ChannelsLastRegions, ThePassSkipsGroupsWhoseEveryConvolutionIsBridged) {
  Variant v;
  v.all_groups = false;
  Check(v, {"c1", "r1", "d1", "h1", "p1", "a1", "g"});  // d1 -> p1 runs channels-last
  // With r1's group pinned by the permute, d1 -> h1 sits between two
  // bridged convolutions: left alone.
  v.extra_permute_of_r1 = true;
  Check(v, {});
  // With h1 an output, r1's group is read and written by bridged
  // convolutions only (the stem's input, d1, p1 and q's outputs NCHW).
  v.extra_permute_of_r1 = false;
  v.h1_is_output = true;
  Check(v, {});
}

TEST(ChannelsLastRegions, ConvolutionsTouchingARegionGetChannelsLastFilters) {
  Net net({});
  TestPlan plan;
  net.Build(plan, true);
  FuseConvolution(plan);
  RunChannelsLastRegions(plan);
  size_t with_panels = 0, depthwise = 0;
  for (size_t pc = 0; pc < plan.num_instructions(); ++pc) {
    if (plan.op(pc) == nullptr) continue;
    const Span<EValue*> args = plan.args(pc);
    if (args.size() == 14) ++with_panels;
    if (args.size() >= 11 && args[8]->is_int() && args[8]->to_int() == 8) {
      ++depthwise;
      // Its filter [8, 1, 3, 3] tap-major, [kh][kw][c], as its kernel reads it.
      const Tensor& w = args[1]->to_tensor();
      EXPECT_EQ(w.stride(0), 1);
      EXPECT_EQ(w.stride(3), 8);
      EXPECT_EQ(w.stride(2), 3 * 8);
    }
  }
  EXPECT_EQ(with_panels, 2u);  // the 1x1 and the last 3x3
  EXPECT_EQ(depthwise, 1u);
  // The 3-channel stem: its filter with the output channels innermost.
  const Tensor& stem = plan.args(0)[1]->to_tensor();
  EXPECT_EQ(plan.args(0).size(), 13u);
  EXPECT_EQ(stem.stride(0), 1);
  EXPECT_EQ(stem.stride(1), 8);
  EXPECT_EQ(stem.stride(2), 3 * 3 * 8);
}

TEST(ChannelsLastRegions, WithoutBudgetForPanelsTheFiltersArePackedPerCall) {
  Variant v;
  v.no_budget = true;
  Check(v, {"c1", "r1", "d1", "h1", "p1", "a1", "g"});
  Net net(v);
  TestPlan plan;
  net.Build(plan, true);
  plan.budget_ = 0;
  RunChannelsLastRegions(plan);
  for (size_t pc = 0; pc < plan.num_instructions(); ++pc) {
    if (plan.op(pc) != nullptr) {
      EXPECT_LE(plan.args(pc).size(), 11u);
    }
  }
}

// Convolution straight into convolution, and an unfused batch norm whose
// results slot is the list of its three outputs (as exported): y1, y2, y3
// relabeled, the method's input and output not.
TEST(ChannelsLastRegions, ConvolutionsAndABatchNormInARow) {
  TestTensor<float> x({1, 4, 10, 10}, Random<float>(400, 11, -2, 2));
  TestTensor<float> wa({8, 4, 3, 3}, Random<float>(288, 12)),
      wb({8, 8, 1, 1}, Random<float>(64, 13));
  TestTensor<float> wc({8, 1, 3, 3}, Random<float>(72, 14));
  TestTensor<float> gamma({8}, Random<float>(8, 15, 0.5, 1.5)), beta({8}, Random<float>(8, 16));
  TestTensor<float> mean({8}, Random<float>(8, 17)), var({8}, Random<float>(8, 18, 0.1, 2.0));
  TestTensor<float> y1({1, 8, 10, 10}), y2({1, 8, 10, 10}), y3({1, 8, 10, 10}), z({1, 8, 10, 10});
  TestTensor<float> save_mean({0}), save_invstd({0});
  TestTensorList results({y3.ev(), save_mean.ev(), save_invstd.ev()});
  ConvCalls convs;
  EValue momentum = EValue::FromDouble(0.1), eps = EValue::FromDouble(1e-5);
  const auto build = [&](TestPlan& plan, bool opt) {
    for (auto* c : {&wa, &wb, &wc, &gamma, &beta, &mean, &var}) plan.SetConstant(c->ev());
    plan.SetIo(x.ev());
    plan.SetIo(z.ev());
    convs.Add(plan, opt, &x, &wa, nullptr, 1, 1, 1, &y1);
    convs.Add(plan, opt, &y1, &wb, nullptr, 1, 0, 1, &y2);
    plan.Add("aten::_native_batch_norm_legit_no_training.out",
             opt ? optimized::BatchNormOut : portable::NativeBatchNormNoTrainingOut,
             {y2.ev(), gamma.ev(), beta.ev(), mean.ev(), var.ev(), &momentum, &eps, y3.ev(),
              save_mean.ev(), save_invstd.ev(), results.ev()},
             4);
    convs.Add(plan, opt, &y3, &wc, nullptr, 1, 1, 8, &z);
  };
  ExpectRewriteMatches(
      build, [](TestPlan& plan) { RunChannelsLastRegions(plan); }, {&z, &y3},
      [&](const TestPlan& plan) {
        for (auto* t : {&y1, &y2, &y3}) EXPECT_TRUE(IsChannelsLast(t->tensor()));
        for (auto* t : {&x, &z}) EXPECT_TRUE(t->tensor().IsDefaultDimOrder());
      });
}

// x -> a 3x3 convolution to `channels` (y1) -> a 3x3 convolution in groups
// of 4 channels (y2) -> a 1x1 convolution to 8 (z): `rewrite` applied, then
// `check`, and z and y2 must be what the portable kernels compute.
void ExpectGroupedChain(int32_t channels, const std::function<void(TestPlan&)>& rewrite,
                        const std::function<void(const TestPlan&)>& check) {
  TestTensor<float> x({1, 4, 8, 8}, Random<float>(256, 21, -2, 2));
  TestTensor<float> wa({channels, 4, 3, 3}, Random<float>(channels * 36, 22)),
      wg({channels, 4, 3, 3}, Random<float>(channels * 36, 23));
  TestTensor<float> wc({8, channels, 1, 1}, Random<float>(8 * channels, 24));
  TestTensor<float> y1({1, channels, 8, 8}), y2({1, channels, 8, 8}), z({1, 8, 8, 8});
  ConvCalls convs;
  const auto build = [&](TestPlan& plan, bool opt) {
    for (auto* c : {&wa, &wg, &wc}) plan.SetConstant(c->ev());
    plan.SetIo(x.ev());
    plan.SetIo(z.ev());
    convs.Add(plan, opt, &x, &wa, nullptr, 1, 1, 1, &y1);
    convs.Add(plan, opt, &y1, &wg, nullptr, 1, 1, channels / 4, &y2);
    convs.Add(plan, opt, &y2, &wc, nullptr, 1, 0, 1, &z);
  };
  ExpectRewriteMatches(build, rewrite, {&z, &y2}, [&](const TestPlan& plan) {
    for (auto* t : {&y1, &y2}) EXPECT_TRUE(IsChannelsLast(t->tensor()));
    check(plan);
  });
}

// Narrow groups (4 groups of 4 of 16 channels, which the channels-last
// grouped kernel takes) inside a region: its sides stay channels-last and
// its filter gets the output channels innermost.
TEST(ChannelsLastRegions, NarrowGroupsRunChannelsLast) {
  ExpectGroupedChain(
      16, [](TestPlan& plan) { RunChannelsLastRegions(plan); },
      [](const TestPlan& plan) {
        const Tensor& filter = plan.args(1)[1]->to_tensor();
        EXPECT_EQ(filter.stride(0), 1);
        EXPECT_EQ(filter.stride(1), 16 * 9);
      });
}

// 2 groups of 4 of 8 channels (too few for the channels-last grouped
// kernel), its input and output relabeled (every allowed group): it runs on
// NCHW copies of both, its filter left as it is.
TEST(ChannelsLastRegions, GroupedConvolutionsBetweenChannelsLastTensors) {
  ExpectGroupedChain(
      8, [](TestPlan& plan) { RelabelChannelsLastRegions(plan, false); },
      [](const TestPlan& plan) {
        EXPECT_EQ(plan.args(1).size(), 11u);
        EXPECT_TRUE(plan.args(1)[1]->to_tensor().IsDefaultDimOrder());
      });
}

// A max pool inside a region (ResNet's stem): its input y1 and its out p
// are relabeled (the stem convolution bridges from the NCHW input), the
// int64 indices keep their order, and p, the indices and z match.
TEST(ChannelsLastRegions, AMaxPoolJoinsARegion) {
  TestTensor<float> x({1, 3, 12, 12}, Random<float>(432, 31, -2, 2));
  TestTensor<float> wa({8, 3, 3, 3}, Random<float>(216, 32)),
      wb({8, 8, 3, 3}, Random<float>(576, 33));
  TestTensor<float> wc({8, 8, 1, 1}, Random<float>(64, 34));
  TestTensor<float> y1({1, 8, 12, 12}), p({1, 8, 6, 6}), y2({1, 8, 6, 6}), z({1, 8, 6, 6});
  TestTensor<int64_t> indices({1, 8, 6, 6});
  TestTensorList results({p.ev(), indices.ev()});
  ConvCalls convs;
  TestIntList one{1, 1}, two{2, 2}, three{3, 3};
  EValue no = EValue::FromBool(false);
  const auto build = [&](TestPlan& plan, bool opt) {
    for (auto* c : {&wa, &wb, &wc}) plan.SetConstant(c->ev());
    plan.SetIo(x.ev());
    plan.SetIo(z.ev());
    convs.Add(plan, opt, &x, &wa, nullptr, 1, 1, 1, &y1);
    plan.Add("aten::max_pool2d_with_indices.out",
             opt ? optimized::MaxPool2dWithIndicesOut : portable::MaxPool2dWithIndicesOut,
             {y1.ev(), three.ev(), two.ev(), one.ev(), one.ev(), &no, p.ev(), indices.ev(),
              results.ev()},
             3);
    convs.Add(plan, opt, &p, &wb, nullptr, 1, 1, 1, &y2);
    convs.Add(plan, opt, &y2, &wc, nullptr, 1, 0, 1, &z);
  };
  std::vector<int64_t> expected_indices;
  ExpectRewriteMatches(
      build, [](TestPlan& plan) { RunChannelsLastRegions(plan); }, {&z, &p},
      [&](const TestPlan& plan) {
        for (auto* t : {&y1, &p, &y2}) EXPECT_TRUE(IsChannelsLast(t->tensor()));
        for (auto* t : {&x, &z}) EXPECT_TRUE(t->tensor().IsDefaultDimOrder());
        EXPECT_TRUE(indices.tensor().IsDefaultDimOrder());
        expected_indices = indices.Values();  // the reference's, then poisoned
        indices.Set(std::vector<int64_t>(expected_indices.size(), -7));
      });
  testing::ExpectMatch(indices.Values(), expected_indices, testing::kExact, "indices");
}

// An add broadcasting a [C, H, W] constant over y2 (a broadcast that does
// not read alike in both layouts): y2 and the sum stay NCHW, y1 does not.
TEST(ChannelsLastRegions, APlaneBroadcastKeepsItsOpNchw) {
  TestTensor<float> x({1, 4, 6, 6}, Random<float>(144, 51, -2, 2));
  TestTensor<float> wa({8, 4, 3, 3}, Random<float>(288, 52)),
      wb({8, 8, 1, 1}, Random<float>(64, 53));
  TestTensor<float> wc({8, 8, 1, 1}, Random<float>(64, 54)),
      plane({8, 6, 6}, Random<float>(288, 55));
  TestTensor<float> y1({1, 8, 6, 6}), y2({1, 8, 6, 6}), y3({1, 8, 6, 6}), z({1, 8, 6, 6});
  ConvCalls convs;
  EValue alpha = EValue::FromInt(1);
  const auto build = [&](TestPlan& plan, bool opt) {
    for (auto* c : {&wa, &wb, &wc, &plane}) plan.SetConstant(c->ev());
    plan.SetIo(x.ev());
    plan.SetIo(z.ev());
    convs.Add(plan, opt, &x, &wa, nullptr, 1, 1, 1, &y1);
    convs.Add(plan, opt, &y1, &wb, nullptr, 1, 0, 1, &y2);
    plan.Add("aten::add.out", opt ? optimized::AddOut : portable::AddOut,
             {y2.ev(), plane.ev(), &alpha, y3.ev(), y3.ev()});
    convs.Add(plan, opt, &y3, &wc, nullptr, 1, 0, 1, &z);
  };
  ExpectRewriteMatches(
      build, [](TestPlan& plan) { RelabelChannelsLastRegions(plan, false); }, {&z},
      [&](const TestPlan& plan) {
        EXPECT_TRUE(IsChannelsLast(y1.tensor()));
        for (auto* t : {&y2, &y3}) EXPECT_TRUE(t->tensor().IsDefaultDimOrder());
      });
}

// A residual add and its relu fused (fuse_binary_activation) inside a
// region: the fused kernel is a binary operator to the pass, so its
// operands and out are relabeled as the add's and the relu's would be.
TEST(ChannelsLastRegions, AFusedResidualAddJoinsARegion) {
  TestTensor<float> x({1, 4, 6, 6}, Random<float>(144, 61, -2, 2));
  TestTensor<float> wa({8, 4, 3, 3}, Random<float>(288, 62)),
      wb({8, 8, 1, 1}, Random<float>(64, 63));
  TestTensor<float> wc({8, 8, 1, 1}, Random<float>(64, 64));
  TestTensor<float> y1({1, 8, 6, 6}), y2({1, 8, 6, 6}), t({1, 8, 6, 6}), u({1, 8, 6, 6}),
      z({1, 8, 6, 6});
  ConvCalls convs;
  EValue alpha = EValue::FromInt(1);
  const auto build = [&](TestPlan& plan, bool opt) {
    for (auto* c : {&wa, &wb, &wc}) plan.SetConstant(c->ev());
    plan.SetIo(x.ev());
    plan.SetIo(z.ev());
    convs.Add(plan, opt, &x, &wa, nullptr, 1, 1, 1, &y1);
    convs.Add(plan, opt, &y1, &wb, nullptr, 1, 0, 1, &y2);
    plan.Add("aten::add.out", opt ? optimized::AddOut : portable::AddOut,
             {y2.ev(), y1.ev(), &alpha, t.ev(), t.ev()});
    plan.Add("aten::relu.out", opt ? optimized::ReluOut : portable::ReluOut,
             {t.ev(), u.ev(), u.ev()});
    convs.Add(plan, opt, &u, &wc, nullptr, 1, 0, 1, &z);
  };
  ExpectRewriteMatches(
      build,
      [](TestPlan& plan) {
        FuseBinaryActivation(plan);
        RunChannelsLastRegions(plan);
      },
      {&z, &u},
      [&](const TestPlan& plan) {
        EXPECT_STREQ(plan.op(2), "edgefleet::fused_add_clamp.out");
        EXPECT_EQ(plan.op(3), nullptr);
        for (auto* v : {&y1, &y2, &u}) EXPECT_TRUE(IsChannelsLast(v->tensor()));
        for (auto* v : {&x, &z}) EXPECT_TRUE(v->tensor().IsDefaultDimOrder());
      });
}

// Two convolutions' outputs concatenated (an inception block's branches)
// and read by a third: inputs and out of the cat are one group, relabeled
// together; with a method input among the inputs, none of them is (nor the
// branches' input, then bridged at every reader).
TEST(ChannelsLastRegions, AConcatenationJoinsARegion) {
  for (bool input_in_list : {false, true}) {
    SCOPED_TRACE(input_in_list ? "a method input concatenated" : "branches");
    TestTensor<float> x({1, 4, 6, 6}, Random<float>(144, 71, -2, 2));
    TestTensor<float> w0({4, 4, 3, 3}, Random<float>(144, 75)),
        wa({8, 4, 3, 3}, Random<float>(288, 72)), wb({4, 4, 1, 1}, Random<float>(16, 73));
    TestTensor<float> wc({8, 16, 1, 1}, Random<float>(128, 74));
    TestTensor<float> y0({1, 4, 6, 6}), y1({1, 8, 6, 6}), y2({1, 4, 6, 6}), c({1, 16, 6, 6}),
        z({1, 8, 6, 6});
    TestTensorList branches({y1.ev(), y2.ev(), input_in_list ? x.ev() : y2.ev()});
    ConvCalls convs;
    EValue dim = EValue::FromInt(1);
    const auto build = [&](TestPlan& plan, bool opt) {
      for (auto* w : {&w0, &wa, &wb, &wc}) plan.SetConstant(w->ev());
      plan.SetIo(x.ev());
      plan.SetIo(z.ev());
      convs.Add(plan, opt, &x, &w0, nullptr, 1, 1, 1, &y0);
      convs.Add(plan, opt, &y0, &wa, nullptr, 1, 1, 1, &y1);
      convs.Add(plan, opt, &y0, &wb, nullptr, 1, 0, 1, &y2);
      plan.Add("aten::cat.out", opt ? optimized::CatOut : portable::CatOut,
               {branches.ev(), &dim, c.ev(), c.ev()});
      convs.Add(plan, opt, &c, &wc, nullptr, 1, 0, 1, &z);
    };
    ExpectRewriteMatches(
        build, [](TestPlan& plan) { RunChannelsLastRegions(plan); }, {&z},
        [&](const TestPlan& plan) {
          for (auto* t : {&y0, &y1, &y2, &c}) {
            EXPECT_EQ(IsChannelsLast(t->tensor()), !input_in_list);
          }
          for (auto* t : {&x, &z}) EXPECT_TRUE(t->tensor().IsDefaultDimOrder());
        });
  }
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet
