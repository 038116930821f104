// The pack_matmul_panels plan pass and edgefleet::addmm_panels.out on small
// plans held by a test PlanEditor: a classifier's addmm over a permuted
// constant weight and an mm over a constant [K, N] become the panel kernel
// (the permute is dropped when nothing else reads it), and the rewritten
// plan gives the same bits as the optimized addmm / mm on the original
// operands and agrees with the portable kernels within the dot-product
// bound; products with more rows, or whose mat2 is not constant, are left
// alone.

#include "runtime/kernels/optimized/matmul_panels.h"

#include <memory>
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
using testing::TestIntList;
using testing::TestPlan;
using testing::TestTensor;

// permute_copy(W [n, k]) -> W^T; addmm(bias, x [m, k], W^T) -> y, or with
// `mm`, mm(x, W^T as a constant [k, n]) -> y. `reads_twice`: a relu also
// reads W^T.
struct Classifier {
  Classifier(int32_t m, int32_t k, int32_t n, bool mm, bool reads_twice)
      : x({m, k}, Random<float>(int64_t{m} * k, 1, -2, 2)),
        w({n, k}, Random<float>(int64_t{n} * k, 2)),
        wt({k, n}, TransposeOf(w.Values(), n, k)),
        bias({n}, Random<float>(n, 3)),
        y({m, n}),
        extra({k, n}),
        dims{1, 0} {
    if (mm) {
      plan.SetConstant(wt.ev());
      plan.Add("aten::mm.out", portable::MmOut, {x.ev(), wt.ev(), y.ev(), y.ev()});
    } else {
      plan.SetConstant(w.ev());
      plan.SetConstant(bias.ev());
      plan.Add("aten::permute_copy.out", portable::PermuteCopyOut,
               {w.ev(), dims.ev(), wt.ev(), wt.ev()});
      plan.Add("aten::addmm.out", portable::AddmmOut,
               {bias.ev(), x.ev(), wt.ev(), &one, &one, y.ev(), y.ev()});
    }
    if (reads_twice)
      plan.Add("aten::relu.out", portable::ReluOut, {wt.ev(), extra.ev(), extra.ev()});
    plan.SetIo(x.ev());
    plan.SetIo(y.ev());
  }
  static std::vector<float> TransposeOf(const std::vector<float>& v, int32_t rows, int32_t cols) {
    std::vector<float> t(v.size());
    for (int32_t r = 0; r < rows; ++r) {
      for (int32_t c = 0; c < cols; ++c) t[c * rows + r] = v[r * cols + c];
    }
    return t;
  }

  TestTensor<float> x, w, wt, bias, y, extra;
  TestIntList dims;
  EValue one = EValue::FromInt(1);
  TestPlan plan;
};

TEST(PackMatmulPanels, ClassifierReadsPanels) {
  for (bool mm : {false, true}) {
    for (int32_t m : {1, 3, 16}) {
      SCOPED_TRACE(std::string(mm ? "mm" : "addmm") + " m " + std::to_string(m));
      const int32_t k = 301, n = 203;
      Classifier ref(m, k, n, mm, false), packed(m, k, n, mm, false);
      ASSERT_EQ(ref.plan.Execute(), Error::kOk);
      PackMatmulPanels(packed.plan);
      const size_t at = mm ? 0 : 1;
      EXPECT_STREQ(packed.plan.op(at), "edgefleet::addmm_panels.out");
      if (!mm) {
        EXPECT_EQ(packed.plan.op(0), nullptr);  // the permute is dropped
      }
      ASSERT_EQ(packed.plan.Execute(), Error::kOk) << LastErrorDetail();
      // The optimized kernel on the original operands: the same bits.
      TestTensor<float> same({m, n});
      EValue one = EValue::FromInt(1);
      ASSERT_EQ(mm ? testing::Call(MmOut, {ref.x.ev(), ref.wt.ev(), same.ev(), same.ev()})
                   : testing::Call(AddmmOut, {ref.bias.ev(), ref.x.ev(), ref.wt.ev(), &one, &one,
                                              same.ev(), same.ev()}),
                Error::kOk);
      testing::ExpectMatch(packed.y.Values(), same.Values(), testing::kExact, "panels");
      const double unit = 1.0 / (1 << 24), depth = k + 1;
      testing::ExpectMatch(packed.y.Values(), ref.y.Values(),
                           {4.0 * depth * depth * unit, 4.0 * depth * unit}, "portable");
    }
  }
}

TEST(PackMatmulPanels, LeavesOtherProductsAlone) {
  {  // more rows than kMaxPanelRows
    Classifier c(kMaxPanelRows + 1, 8, 5, false, false);
    PackMatmulPanels(c.plan);
    EXPECT_STREQ(c.plan.op(1), "aten::addmm.out");
  }
  {  // mat2 not constant: the permuted weight is not a constant either
    Classifier c(1, 8, 5, false, false);
    TestPlan plain;
    plain.Add("aten::addmm.out", portable::AddmmOut,
              {c.bias.ev(), c.x.ev(), c.wt.ev(), &c.one, &c.one, c.y.ev(), c.y.ev()});
    PackMatmulPanels(plain);
    EXPECT_STREQ(plain.op(0), "aten::addmm.out");
  }
}

TEST(PackMatmulPanels, KeepsAPermuteOthersRead) {
  Classifier ref(1, 40, 33, false, true), packed(1, 40, 33, false, true);
  ASSERT_EQ(ref.plan.Execute(), Error::kOk);
  PackMatmulPanels(packed.plan);
  EXPECT_STREQ(packed.plan.op(0), "aten::permute_copy.out");
  EXPECT_STREQ(packed.plan.op(1), "edgefleet::addmm_panels.out");
  ASSERT_EQ(packed.plan.Execute(), Error::kOk);
  testing::ExpectMatch(packed.extra.Values(), ref.extra.Values(), testing::kExact, "relu");
}

// Panels of another width (packed under another instruction set) are not
// read: the kernel computes from mat2 instead.
TEST(AddmmPanelsKernel, IgnoresPanelsOfAnotherWidth) {
  Classifier c(2, 24, 17, true, false);
  TestTensor<float> wrong({4, 3}, std::vector<float>(12, 1e6f));
  TestTensor<float> y({2, 17}), ref({2, 17});
  EValue none;
  ASSERT_EQ(testing::Call(kAddmmPanelsKernel.fn,
                          {&none, c.x.ev(), c.wt.ev(), &c.one, &c.one, wrong.ev(), y.ev(), y.ev()}),
            Error::kOk);
  ASSERT_EQ(testing::Call(MmOut, {c.x.ev(), c.wt.ev(), ref.ev(), ref.ev()}), Error::kOk);
  testing::ExpectMatch(y.Values(), ref.Values(), testing::kExact, "fallback");
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet
