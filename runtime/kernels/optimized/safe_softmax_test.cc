// The fuse_safe_softmax plan pass and edgefleet::safe_softmax.out on the
// chain torch.export writes for scaled_dot_product_attention's softmax: the
// fused plan gives the same values as the chain run with the optimized
// softmax and the portable bool kernels (rows of -inf only become 0, rows
// with some -inf or a NaN go through the softmax), at 1, 2 and 3 threads,
// also with the output over the scores' memory; chains that differ are left
// alone.

#include "runtime/kernels/optimized/safe_softmax.h"

#include <deque>
#include <limits>
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

constexpr int32_t kHeads = 3, kRows = 7, kCols = 37;
constexpr float kInf = std::numeric_limits<float>::infinity();

// scores [1, 3, 7, 37] -> the exported safe softmax chain -> out.
struct Chain {
  explicit Chain(bool out_on_scores)
      : x({1, kHeads, kRows, kCols}, Scores()),
        p({1, kHeads, kRows, kCols}),
        m({1, kHeads, kRows, kCols}),
        n({1, kHeads, kRows, kCols}),
        r({1, kHeads, kRows, 1}),
        c({1, kHeads, kRows, 1}),
        z({1, kHeads, kRows, kCols}),
        out({1, kHeads, kRows, kCols}) {
    EValue* last = Value(EValue::FromInt(-1));
    plan.Add("aten::_softmax.out", SoftmaxOut,
             {x.ev(), last, Value(EValue::FromBool(false)), p.ev(), p.ev()});
    plan.Add("aten::eq.Scalar_out", portable::EqScalarOut,
             {x.ev(), Value(EValue::FromDouble(-std::numeric_limits<double>::infinity())), m.ev(),
              m.ev()});
    plan.Add("aten::logical_not.out", portable::LogicalNotOut, {m.ev(), n.ev(), n.ev()});
    plan.Add("aten::any.out", portable::AnyOut,
             {n.ev(), last, Value(EValue::FromBool(true)), r.ev(), r.ev()});
    plan.Add("aten::logical_not.out", portable::LogicalNotOut, {r.ev(), c.ev(), c.ev()});
    plan.Add("aten::full_like.out", portable::FullLikeOut,
             {p.ev(), Value(EValue::FromDouble(0.0)), Value(EValue()), z.ev(), z.ev()});
    plan.Add("aten::where.self_out", portable::WhereSelfOut,
             {c.ev(), z.ev(), p.ev(), out.ev(), out.ev()});
    plan.SetIo(out.ev());
    if (out_on_scores) out.tensor().set_data(x.tensor().mutable_data());
  }
  // Random scores; row 1 of every head all -inf, row 2 partly -inf (a
  // causal mask), row 3 with a NaN, row 4 with +inf.
  static std::vector<float> Scores() {
    std::vector<float> v = Random<float>(kHeads * kRows * kCols, 71, -6, 6);
    for (int h = 0; h < kHeads; ++h) {
      float* s = v.data() + h * kRows * kCols;
      for (int j = 0; j < kCols; ++j) s[1 * kCols + j] = -kInf;
      for (int j = 5; j < kCols; ++j) s[2 * kCols + j] = -kInf;
      s[3 * kCols + 4] = std::numeric_limits<float>::quiet_NaN();
      s[4 * kCols + 9] = kInf;
    }
    return v;
  }
  EValue* Value(EValue v) {
    values.push_back(v);
    return &values.back();
  }
  std::vector<float> Result() {
    const float* d = out.tensor().data_as<const float>();
    return std::vector<float>(d, d + out.tensor().numel());
  }

  TestTensor<float> x, p;
  TestTensor<bool> m, n, r, c;
  TestTensor<float> z, out;
  std::deque<EValue> values;
  TestPlan plan;
};

TEST(FuseSafeSoftmaxPass, SameValuesAsTheChain) {
  ASSERT_EQ(RegisterOptimizedKernels(4), Error::kOk);
  testing::ForEachIsa([] {
    Chain ref(false);
    ASSERT_EQ(ref.plan.Execute(), Error::kOk) << LastErrorDetail();
    const std::vector<float> expected = ref.Result();
    // The chain's own semantics: a fully masked row is 0, a partly masked
    // one sums to 1.
    EXPECT_EQ(expected[1 * kCols], 0.0f);
    double sum = 0;
    for (int j = 0; j < kCols; ++j) sum += expected[2 * kCols + j];
    EXPECT_NEAR(sum, 1.0, 1e-6);
    for (bool in_place : {false, true}) {
      for (int threads : {1, 2, 3}) {
        SCOPED_TRACE(::testing::Message() << "in place " << in_place << " threads " << threads);
        Chain fused(in_place);
        FuseSafeSoftmax(fused.plan);
        ASSERT_EQ(fused.plan.live(), 1u);
        EXPECT_STREQ(fused.plan.op(0), "edgefleet::safe_softmax.out");
        ASSERT_EQ(fused.plan.Execute(threads), Error::kOk) << LastErrorDetail();
        testing::ExpectMatch(fused.Result(), expected, testing::kExact, "safe softmax");
      }
    }
  });
}

TEST(FuseSafeSoftmaxPass, LeavesOtherChainsAlone) {
  // any without keepdim, a fill of 1, the softmax's output read elsewhere,
  // the scores compared with another value: no fusion.
  for (int variant = 0; variant < 4; ++variant) {
    SCOPED_TRACE(variant);
    Chain chain(false);
    TestTensor<float> extra({1, kHeads, kRows, kCols});
    if (variant == 0) chain.plan.args(3)[2] = chain.Value(EValue::FromBool(false));
    if (variant == 1) chain.plan.args(5)[1] = chain.Value(EValue::FromDouble(1.0));
    if (variant == 2) {
      chain.plan.Add("aten::relu.out", portable::ReluOut, {chain.p.ev(), extra.ev(), extra.ev()});
    }
    if (variant == 3) chain.plan.args(1)[1] = chain.Value(EValue::FromDouble(0.0));
    FuseSafeSoftmax(chain.plan);
    EXPECT_STREQ(chain.plan.op(0), "aten::_softmax.out");
    EXPECT_STREQ(chain.plan.op(6), "aten::where.self_out");
  }
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet
