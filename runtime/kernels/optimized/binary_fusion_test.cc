// The fuse_binary_activation plan pass and the edgefleet::fused_*_clamp
// kernels on small plans held by a test PlanEditor: the fused plan gives
// the same bits as the unfused optimized chain (add / sub / mul, then
// relu / hardtanh / clamp) and as the portable chain, with NaN, +-inf and
// -0 among the inputs, broadcast operands, channels-last tensors, out over
// an operand's memory, at 1, 2 and 3 threads and every instruction set; and
// the pass leaves the pair alone when fusing would be unsafe.

#include "runtime/kernels/optimized/binary_fusion.h"

#include <cstring>
#include <deque>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/test_plan_editor.h"
#include "runtime/kernels/optimized/test_util.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

using testing::Random;
using testing::TestPlan;
using testing::TestTensor;

enum class Bin { kAdd, kSub, kMul };
enum class Act { kRelu, kHardtanh, kClampMin, kClampMax, kClampNone };

struct Case {
  const char* name;
  Bin op;
  Act act;
  std::vector<int32_t> a_sizes, b_sizes, out_sizes;
  bool channels_last;  // a (and b when of out's shape), t and u
  double alpha;
  bool in_place;  // u over a's memory (a of out's shape)
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

// Values in [-2, 2) with NaN, +-inf, -0, 0 and the bounds mixed in; every
// operand has -0 at the multiples of 29 (so -0 + -0 = -0 reaches relu).
std::vector<float> Inputs(int64_t n, uint32_t seed) {
  std::vector<float> v = Random<float>(n, seed, -2, 2);
  const float specials[] = {
      __builtin_nanf(""), __builtin_inff(), -__builtin_inff(), -0.0f, 0.0f, 6.0f, -1.0f};
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = (i * 7 + seed) % 23;
    if (k < 7) v[i] = specials[k];
    if (i % 29 == 0) v[i] = -0.0f;
  }
  return v;
}

// Bit-identical element by element.
void ExpectSameBits(const std::vector<float>& actual, const std::vector<float>& expected,
                    const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  int reported = 0;
  for (size_t i = 0; i < actual.size() && reported < 5; ++i) {
    if (std::memcmp(&actual[i], &expected[i], sizeof(float)) != 0) {
      ++reported;
      ADD_FAILURE() << what << ": element " << i << " is " << actual[i] << ", expected "
                    << expected[i];
    }
  }
}

// a op b -> activation, as a plan over tensors owned here; `kernels`:
// optimized or portable.
class Chain {
 public:
  enum class Kernels { kOptimized, kPortable };

  Chain(const Case& c, Kernels kernels) : c_(c) {
    const std::vector<uint8_t> cl = {0, 2, 3, 1};
    const auto order = [&](const std::vector<int32_t>& s) {
      return c.channels_last && s == c.out_sizes ? cl : std::vector<uint8_t>{};
    };
    a_ = Own(c.a_sizes, Inputs(testing::Numel(c.a_sizes), 1), order(c.a_sizes),
             testing::Numel(c.a_sizes) + 1);
    b_ = Own(c.b_sizes, Inputs(testing::Numel(c.b_sizes), 2), order(c.b_sizes));
    t_ = Own(c.out_sizes, {}, order(c.out_sizes));
    u_ = Own(c.out_sizes, {}, order(c.out_sizes));
    const bool opt = kernels == Kernels::kOptimized;
    const bool alpha = c.op != Bin::kMul;
    std::vector<EValue*> bin = {a_->ev(), b_->ev()};
    if (alpha) bin.push_back(Value(EValue::FromDouble(c.alpha)));
    bin.push_back(t_->ev());
    bin.push_back(t_->ev());
    switch (c.op) {
      case Bin::kAdd:
        plan.Add("aten::add.out", opt ? optimized::AddOut : portable::AddOut, bin);
        break;
      case Bin::kSub:
        plan.Add("aten::sub.out", opt ? optimized::SubOut : portable::SubOut, bin);
        break;
      case Bin::kMul:
        plan.Add("aten::mul.out", opt ? optimized::MulOut : portable::MulOut, bin);
        break;
    }
    EValue* none = Value(EValue());
    const auto clamp = [&](EValue* lo, EValue* hi) {
      plan.Add("aten::clamp.out", opt ? optimized::ClampOut : portable::ClampOut,
               {t_->ev(), lo, hi, u_->ev(), u_->ev()});
    };
    switch (c.act) {
      case Act::kRelu:
        plan.Add("aten::relu.out", opt ? optimized::ReluOut : portable::ReluOut,
                 {t_->ev(), u_->ev(), u_->ev()});
        break;
      case Act::kHardtanh:
        plan.Add("aten::hardtanh.out", opt ? optimized::HardtanhOut : portable::HardtanhOut,
                 {t_->ev(), Value(EValue::FromDouble(-1.0)), Value(EValue::FromInt(6)), u_->ev(),
                  u_->ev()});
        break;
      case Act::kClampMin:
        clamp(Value(EValue::FromDouble(0.5)), none);
        break;
      case Act::kClampMax:
        clamp(none, Value(EValue::FromDouble(0.25)));
        break;
      case Act::kClampNone:
        clamp(none, none);
        break;
    }
    plan.SetIo(a_->ev());
    plan.SetIo(b_->ev());
    plan.SetIo(u_->ev());
  }

  // u's elements after running the plan from fresh inputs.
  std::vector<float> Run(int threads) {
    a_->Set(Inputs(testing::Numel(c_.a_sizes), 1));
    EXPECT_EQ(plan.Execute(threads), Error::kOk) << LastErrorDetail();
    return aliased_ ? a_->Values() : u_->Values();
  }
  void PutUOverA() {
    u_->tensor().set_data(a_->tensor().mutable_data());
    aliased_ = true;
  }

  TestPlan plan;
  TestTensor<float>*a_, *b_, *t_, *u_;
  EValue* Value(EValue v) {
    values_.push_back(v);
    return &values_.back();
  }
  TestTensor<float>* Own(std::vector<int32_t> sizes, std::vector<float> values = {},
                         std::vector<uint8_t> order = {}, int64_t capacity = -1) {
    tensors_.emplace_back(
        new TestTensor<float>(sizes, values, order, ShapeDynamism::kDynamicBound, capacity));
    return tensors_.back().get();
  }

 private:
  Case c_;
  bool aliased_ = false;
  std::vector<std::unique_ptr<TestTensor<float>>> tensors_;
  std::deque<EValue> values_;
};

const char* FusedName(Bin op) {
  return op == Bin::kAdd   ? "edgefleet::fused_add_clamp.out"
         : op == Bin::kSub ? "edgefleet::fused_sub_clamp.out"
                           : "edgefleet::fused_mul_clamp.out";
}

const std::vector<int32_t> kSmall = {1, 8, 5, 7};
const std::vector<int32_t> kLarge = {2, 64, 28, 28};  // over 3 kMinRangeElements ranges

const Case kCases[] = {
    {"add_relu", Bin::kAdd, Act::kRelu, kSmall, kSmall, kSmall, false, 1, false},
    {"add_relu_large", Bin::kAdd, Act::kRelu, kLarge, kLarge, kLarge, false, 1, false},
    {"add_relu_large_in_place", Bin::kAdd, Act::kRelu, kLarge, kLarge, kLarge, false, 1, true},
    {"add_relu_channels_last", Bin::kAdd, Act::kRelu, kLarge, kLarge, kLarge, true, 1, false},
    {"add_relu_channels_last_in_place", Bin::kAdd, Act::kRelu, kSmall, kSmall, kSmall, true, 1,
     true},
    {"add_per_channel_channels_last",
     Bin::kAdd,
     Act::kRelu,
     kLarge,
     {1, 64, 1, 1},
     kLarge,
     true,
     1,
     false},
    {"add_alpha_hardtanh", Bin::kAdd, Act::kHardtanh, kSmall, kSmall, kSmall, false, 0.5, false},
    {"add_row_broadcast_clamp_min",
     Bin::kAdd,
     Act::kClampMin,
     kLarge,
     {28},
     kLarge,
     false,
     1,
     false},
    {"add_broadcast_self_in_place", Bin::kAdd, Act::kRelu, kSmall, {7}, kSmall, false, 2, true},
    {"add_broadcast_first_operand", Bin::kAdd, Act::kRelu, {5, 7}, kSmall, kSmall, false, 1, false},
    {"sub_clamp_max", Bin::kSub, Act::kClampMax, kLarge, kLarge, kLarge, false, 1, false},
    {"sub_alpha_relu", Bin::kSub, Act::kRelu, kSmall, kSmall, kSmall, true, -3, false},
    {"mul_hardtanh", Bin::kMul, Act::kHardtanh, kLarge, {1, 64, 1, 1}, kLarge, false, 1, false},
    {"mul_relu_in_place", Bin::kMul, Act::kRelu, kSmall, kSmall, kSmall, false, 1, true},
};

class FuseBinaryActivationTest : public ::testing::TestWithParam<Case> {};

TEST_P(FuseBinaryActivationTest, SameBitsAsTheUnfusedChains) {
  ASSERT_EQ(RegisterOptimizedKernels(4), Error::kOk);
  const Case& c = GetParam();
  Chain unfused(c, Chain::Kernels::kOptimized), portable(c, Chain::Kernels::kPortable);
  Chain fused(c, Chain::Kernels::kOptimized);
  if (c.in_place) fused.PutUOverA();
  const std::vector<float> expected = unfused.Run(1);
  ExpectSameBits(portable.Run(1), expected, "portable chain");
  FuseBinaryActivation(fused.plan);
  ASSERT_EQ(fused.plan.live(), 1u) << "the activation is removed";
  EXPECT_STREQ(fused.plan.op(0), FusedName(c.op));
  testing::ForEachIsa([&] {
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE("threads " + std::to_string(threads));
      ExpectSameBits(fused.Run(threads), expected, c.name);
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Cases, FuseBinaryActivationTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.name);
                         });

Case Basic() { return {"basic", Bin::kAdd, Act::kRelu, kSmall, kSmall, kSmall, false, 1, false}; }

// The pass leaves the plan as it was: every instruction live, the add first.
void ExpectUnfused(TestPlan& plan) {
  const size_t live = plan.live();
  FuseBinaryActivation(plan);
  EXPECT_EQ(plan.live(), live);
  EXPECT_STREQ(plan.op(0), "aten::add.out");
}

TEST(FuseBinaryActivation, RefusesWhenTheSumHasASecondReader) {
  Chain chain(Basic(), Chain::Kernels::kOptimized);
  TestTensor<float>* w = chain.Own(kSmall);
  chain.plan.Add("aten::mul.out", optimized::MulOut,
                 {chain.t_->ev(), chain.t_->ev(), w->ev(), w->ev()});
  ExpectUnfused(chain.plan);
}

TEST(FuseBinaryActivation, RefusesWhenTheSumIsAMethodOutput) {
  Chain chain(Basic(), Chain::Kernels::kOptimized);
  chain.plan.SetIo(chain.t_->ev());
  ExpectUnfused(chain.plan);
}

TEST(FuseBinaryActivation, RefusesBoundsThatAreNotConstant) {
  Case c = Basic();
  c.act = Act::kHardtanh;
  Chain chain(c, Chain::Kernels::kOptimized);
  // An instruction (never run) writes the hardtanh's min.
  EValue* lo = chain.plan.args(1)[1];
  chain.plan.Add("test::write_min", optimized::ReluOut, {lo}, 1);
  ExpectUnfused(chain.plan);
}

TEST(FuseBinaryActivation, RefusesAClampWithoutBounds) {
  Case c = Basic();
  c.act = Act::kClampNone;
  Chain chain(c, Chain::Kernels::kOptimized);
  ExpectUnfused(chain.plan);
}

TEST(FuseBinaryActivation, RefusesAnOutPartlyOverAnOperand) {
  Chain chain(Basic(), Chain::Kernels::kOptimized);
  chain.u_->tensor().set_data(static_cast<float*>(chain.a_->tensor().mutable_data()) + 1);
  ExpectUnfused(chain.plan);
}

TEST(FuseBinaryActivation, RefusesAnOutOverABroadcastOperand) {
  Case c = Basic();
  c.b_sizes = {1, 8, 1, 1};
  Chain chain(c, Chain::Kernels::kOptimized);
  chain.u_->tensor().set_data(chain.b_->tensor().mutable_data());
  ExpectUnfused(chain.plan);
}

TEST(FuseBinaryActivation, RefusesWhenAnInstructionBetweenTouchesTheOut) {
  Chain chain(Basic(), Chain::Kernels::kOptimized);
  // Between the add and the relu, something reads memory u will take.
  TestTensor<float>* view = chain.Own(kSmall);
  view->tensor().set_data(chain.u_->tensor().mutable_data());
  TestTensor<float>* w = chain.Own(kSmall);
  TestPlan& plan = chain.plan;
  TestPlan reordered;
  reordered.Add(plan.op(0), plan.instr(0).fn, plan.instr(0).args);
  reordered.Add("aten::mul.out", optimized::MulOut, {view->ev(), view->ev(), w->ev(), w->ev()});
  reordered.Add(plan.op(1), plan.instr(1).fn, plan.instr(1).args);
  ExpectUnfused(reordered);
}

TEST(FuseBinaryActivation, RefusesAnOutOfAnotherDimOrder) {
  Case c = Basic();
  Chain chain(c, Chain::Kernels::kOptimized);
  const std::vector<uint8_t> cl = {0, 2, 3, 1};
  TestTensor<float>* u = chain.Own(kSmall, {}, cl);
  TestPlan& plan = chain.plan;
  TestPlan other;
  other.Add(plan.op(0), plan.instr(0).fn, plan.instr(0).args);
  other.Add(plan.op(1), plan.instr(1).fn, {chain.t_->ev(), u->ev(), u->ev()});
  ExpectUnfused(other);
}

// Calls the fast path does not take (an operand channels-last, out not) run
// the portable operator, then the clamp: still the unfused chain's bits.
TEST(FusedBinaryClamp, OutsideTheFastPathAsTheUnfusedChain) {
  const std::vector<uint8_t> cl = {0, 2, 3, 1};
  TestTensor<float> a(kSmall, Inputs(280, 3)), b(kSmall, Inputs(280, 4), cl);
  TestTensor<float> t(kSmall), u(kSmall), fused_u(kSmall);
  EValue alpha = EValue::FromInt(1), lo = EValue::FromDouble(0.0), none;
  ASSERT_EQ(testing::Call(AddOut, {a.ev(), b.ev(), &alpha, t.ev(), t.ev()}), Error::kOk);
  ASSERT_EQ(testing::Call(ReluOut, {t.ev(), u.ev(), u.ev()}), Error::kOk);
  ASSERT_EQ(testing::Call(FusedAddClampOut,
                          {a.ev(), b.ev(), &alpha, &lo, &none, fused_u.ev(), fused_u.ev()}),
            Error::kOk)
      << LastErrorDetail();
  ExpectSameBits(fused_u.Values(), u.Values(), "mixed layouts");
}

TEST(FusedBinaryClamp, RejectsBadArguments) {
  TestTensor<float> a(kSmall), b(kSmall), u(kSmall);
  EValue lo = EValue::FromDouble(0.0);
  // mul takes no alpha: one argument too many.
  EXPECT_EQ(testing::Call(FusedMulClampOut, {a.ev(), b.ev(), &lo, &lo, &lo, u.ev(), u.ev()}),
            Error::kInvalidArgument);
  // A tensor where a bound belongs.
  EXPECT_EQ(testing::Call(FusedAddClampOut, {a.ev(), b.ev(), &lo, b.ev(), &lo, u.ev(), u.ev()}),
            Error::kInvalidArgument);
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet
