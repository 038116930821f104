// The fuse_convolution pass on convolution -> sigmoid [-> mul by the
// convolution's output] (nn.SiLU as torch.export writes it, and the gate of a
// squeeze-and-excitation block): the fused edgefleet::fused_convolution_silu
// / _sigmoid kernel gives the bits of the optimized convolution, sigmoid and
// mul kernels run one after the other, at 1, 2 and 3 threads and with the
// output over the input's memory, agrees with the portable chain within the
// convolution's and the sigmoid's bounds, and chains that are not exactly
// this are left alone.

#include <cmath>
#include <deque>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/kernels/optimized/conv_fusion.h"
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

enum class Kernels { kPortable, kOptimized };

// convolution(x, w, b) -> sigmoid -> [mul(y, s) or mul(s, y)], 16 -> 16
// channels over 9 x 9 (3 x 3 kernels padded, or 1 x 1), with the kernels
// of `kernels`.
struct SigmoidChain {
  SigmoidChain(bool silu, int32_t groups, int32_t k, bool in_place, bool swap, Kernels kernels)
      : x({1, 16, 9, 9}, Random<float>(16 * 81, 51, -4, 4)),
        w({16, 16 / groups, k, k}, Random<float>(16 * (16 / groups) * k * k, 52)),
        b({16}, Random<float>(16, 53)),
        y({1, 16, 9, 9}),
        s({1, 16, 9, 9}),
        out({1, 16, 9, 9}),
        stride{1, 1},
        pad{k / 2, k / 2},
        dil{1, 1},
        out_pad{0, 0} {
    const bool opt = kernels == Kernels::kOptimized;
    EValue* v_false = Value(EValue::FromBool(false));
    plan.Add("aten::convolution.out", opt ? ConvolutionOut : portable::ConvolutionOut,
             {x.ev(), w.ev(), b.ev(), stride.ev(), pad.ev(), dil.ev(), v_false, out_pad.ev(),
              Value(EValue::FromInt(groups)), y.ev(), y.ev()});
    EValue* sig_out = silu ? s.ev() : out.ev();
    plan.Add("aten::sigmoid.out", opt ? SigmoidOut : portable::SigmoidOut,
             {y.ev(), sig_out, sig_out});
    if (silu) {
      plan.Add("aten::mul.out", opt ? MulOut : portable::MulOut,
               {swap ? s.ev() : y.ev(), swap ? y.ev() : s.ev(), out.ev(), out.ev()});
    }
    plan.SetConstant(w.ev());
    plan.SetConstant(b.ev());
    plan.SetIo(x.ev());
    plan.SetIo(out.ev());
    if (in_place) out.tensor().set_data(x.tensor().mutable_data());
  }
  EValue* Value(EValue v) {
    values.push_back(v);
    return &values.back();
  }
  // out's elements where its data pointer points (it may be x's memory).
  std::vector<float> Result() {
    const float* p = out.tensor().data_as<const float>();
    return std::vector<float>(p, p + out.tensor().numel());
  }

  TestTensor<float> x, w, b, y, s, out;
  TestIntList stride, pad, dil, out_pad;
  std::deque<EValue> values;
  TestPlan plan;
};

TEST(FuseConvolutionPass, FusesSiluAndSigmoid) {
  testing::ForEachIsa([] {
    for (bool silu : {true, false}) {
      for (auto [groups, k, in_place, swap] :
           {std::tuple<int32_t, int32_t, bool, bool>{1, 1, false, false},
            {1, 3, false, true},
            {4, 3, false, false},
            {16, 3, false, false},
            {16, 3, true, true},
            {1, 3, true, false},
            {1, 1, true, false}}) {
        SCOPED_TRACE((silu ? "silu" : "sigmoid") + std::string(" groups ") +
                     std::to_string(groups) + " k " + std::to_string(k) +
                     (in_place ? " in place" : "") + (swap ? " mul(s, y)" : ""));
        SigmoidChain portable(silu, groups, k, false, swap, Kernels::kPortable);
        SigmoidChain optimized(silu, groups, k, false, swap, Kernels::kOptimized);
        ASSERT_EQ(portable.plan.Execute(), Error::kOk);
        ASSERT_EQ(optimized.plan.Execute(), Error::kOk);
        for (int threads : {1, 2, 3}) {
          SCOPED_TRACE(std::to_string(threads) + " threads");
          SigmoidChain fused(silu, groups, k, in_place, swap, Kernels::kPortable);
          FuseConvolution(fused.plan);
          ASSERT_EQ(fused.plan.live(), 1u);
          EXPECT_STREQ(fused.plan.op(0), silu ? "edgefleet::fused_convolution_silu.out"
                                              : "edgefleet::fused_convolution_sigmoid.out");
          ASSERT_EQ(fused.plan.Execute(threads), Error::kOk) << LastErrorDetail();
          // The same bits as the optimized kernels one after the other.
          testing::ExpectMatch(fused.Result(), optimized.Result(), testing::kExact, "bits");
          // The portable chain: the convolution's dot-product bound (depth
          // terms of |x| <= 4, |w| <= 1, plus the bias) through the
          // sigmoid (slope <= 1/4; SiLU: slope < 1.1), plus 8 ulp of
          // the sigmoid.
          const double depth = 16 / groups * k * k + 1;
          const double unit = 1.0 / (1 << 24);
          const double conv = 4.0 * depth * depth * unit;
          testing::ExpectMatch(fused.Result(), portable.Result(),
                               Tolerance{(silu ? 1.1 : 0.25) * conv + 1e-7, 8 * 2 * unit},
                               "portable");
        }
      }
    }
  });
}

TEST(FuseConvolutionPass, LeavesOtherSigmoidChainsAlone) {
  // The sigmoid's output read again later: the mul is not its only reader.
  {
    SigmoidChain chain(true, 1, 1, false, false, Kernels::kPortable);
    TestTensor<float> extra({1, 16, 9, 9});
    chain.plan.Add("aten::relu.out", portable::ReluOut, {chain.s.ev(), extra.ev(), extra.ev()});
    FuseConvolution(chain.plan);
    EXPECT_STREQ(chain.plan.op(0), "aten::convolution.out");
    EXPECT_EQ(chain.plan.live(), 4u);
  }
  // mul(y, y): not y * sigmoid(y).
  {
    SigmoidChain chain(true, 1, 1, false, false, Kernels::kPortable);
    chain.plan.args(2)[1] = chain.y.ev();
    FuseConvolution(chain.plan);
    EXPECT_STREQ(chain.plan.op(0), "aten::convolution.out");
  }
  // A squeeze-and-excitation gate: sigmoid of a [1, C, 1, 1] convolution
  // output times a larger tensor. The sigmoid fuses; the broadcast mul stays.
  {
    TestTensor<float> x({1, 8, 1, 1}, Random<float>(8, 61)),
        w({16, 8, 1, 1}, Random<float>(128, 62));
    TestTensor<float> y({1, 16, 1, 1}), s({1, 16, 1, 1}),
        big({1, 16, 5, 5}, Random<float>(400, 63));
    TestTensor<float> out({1, 16, 5, 5});
    TestIntList one{1, 1}, zero{0, 0};
    EValue none, v_false = EValue::FromBool(false), groups = EValue::FromInt(1);
    TestPlan plan;
    plan.Add("aten::convolution.out", portable::ConvolutionOut,
             {x.ev(), w.ev(), &none, one.ev(), zero.ev(), one.ev(), &v_false, zero.ev(), &groups,
              y.ev(), y.ev()});
    plan.Add("aten::sigmoid.out", portable::SigmoidOut, {y.ev(), s.ev(), s.ev()});
    plan.Add("aten::mul.out", portable::MulOut, {big.ev(), s.ev(), out.ev(), out.ev()});
    plan.SetConstant(w.ev());
    plan.SetIo(x.ev());
    plan.SetIo(out.ev());
    FuseConvolution(plan);
    EXPECT_STREQ(plan.op(0), "edgefleet::fused_convolution_sigmoid.out");
    EXPECT_STREQ(plan.op(2), "aten::mul.out");
    EXPECT_EQ(plan.live(), 2u);
  }
}

// NaN and infinities through the fused SiLU are what the separate kernels
// give: sigmoid(+inf) = 1, silu(-inf) = -inf * 0 = NaN, NaN stays NaN.
TEST(FusedConvolutionKernel, SiluOfNonFiniteValues) {
  testing::ForEachIsa([] {
    for (bool in_place : {false, true}) {
      SigmoidChain optimized(true, 16, 3, false, false, Kernels::kOptimized);
      SigmoidChain fused(true, 16, 3, in_place, false, Kernels::kPortable);
      for (SigmoidChain* c : {&optimized, &fused}) {
        float* x = c->x.tensor().data_as<float>();
        x[3] = std::numeric_limits<float>::quiet_NaN();
        x[40] = std::numeric_limits<float>::infinity();
        x[100] = -std::numeric_limits<float>::infinity();
      }
      FuseConvolution(fused.plan);
      ASSERT_EQ(fused.plan.live(), 1u);
      ASSERT_EQ(optimized.plan.Execute(), Error::kOk);
      ASSERT_EQ(fused.plan.Execute(), Error::kOk);
      testing::ExpectMatch(fused.Result(), optimized.Result(), testing::kExact, "non-finite");
    }
  });
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet
