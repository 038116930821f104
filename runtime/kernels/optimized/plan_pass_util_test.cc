// The plan-pass graph helpers (runtime/kernels/plan_pass_util.h) on a
// hand-built plan: reads through tensor lists count as reads, writers are
// not readers, removed instructions read nothing.

#include "runtime/kernels/plan_pass_util.h"

#include "runtime/kernels/optimized/test_plan_editor.h"
#include "runtime/kernels/optimized/test_util.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

using testing::TestPlan;
using testing::TestTensor;
using testing::TestTensorList;

// pc 0: a = relu(x); pc 1: b = relu(a); pc 2: c = cat([x, a]); pc 3: d = relu(x).
struct Graph {
  Graph() {
    plan.Add("aten::relu.out", portable::ReluOut, {x.ev(), a.ev(), a.ev()});
    plan.Add("aten::relu.out", portable::ReluOut, {a.ev(), b.ev(), b.ev()});
    plan.Add("aten::cat.out", portable::CatOut, {list.ev(), &dim, c.ev(), c.ev()});
    plan.Add("aten::relu.out", portable::ReluOut, {x.ev(), d.ev(), d.ev()});
  }
  TestTensor<float> x{{2}}, a{{2}}, b{{2}}, c{{4}}, d{{2}};
  TestTensorList list{{x.ev(), a.ev()}};
  EValue dim = EValue::FromInt(0);
  TestPlan plan;
};

TEST(PlanPassUtilTest, CountsReadsThroughTensorLists) {
  Graph g;
  EXPECT_TRUE(Names(g.plan, 2, g.a.ev()));
  EXPECT_EQ(NumNamingReaders(g.plan, g.a.ev()), 2u);  // pc 1 directly, pc 2 in the list
  EXPECT_EQ(NumNamingReaders(g.plan, g.x.ev()), 3u);
  EXPECT_EQ(NumNamingReaders(g.plan, g.b.ev()), 0u);  // only written
  int64_t pcs[2] = {-1, -1};
  EXPECT_EQ(ReadersAfter(g.plan, 0, g.a.ev(), pcs, 2), 2u);
  EXPECT_EQ(pcs[0], 1);
  EXPECT_EQ(pcs[1], 2);
  EXPECT_EQ(ReadersAfter(g.plan, 0, g.x.ev(), pcs, 1), 2u);  // more than max
  EXPECT_EQ(FirstReaderAfter(g.plan, 1, g.a.ev()), 2);       // only through the list
  EXPECT_EQ(FirstReaderAfter(g.plan, 2, g.a.ev()), -1);
  EXPECT_TRUE(NamedElsewhere(g.plan, g.a.ev(), 1));
  // Two readers: a is not private to pc 1.
  EXPECT_EQ(SoleReader(g.plan, 0, g.a.ev()), -1);
}

TEST(PlanPassUtilTest, RemovedInstructionsReadNothing) {
  Graph g;
  g.plan.Remove(1);
  EXPECT_FALSE(Names(g.plan, 1, g.a.ev()));
  EXPECT_EQ(NumNamingReaders(g.plan, g.a.ev()), 1u);
  // The one reader left reads `a` through the list.
  EXPECT_EQ(SoleReader(g.plan, 0, g.a.ev()), 2);
  g.plan.Remove(2);
  EXPECT_FALSE(NamedElsewhere(g.plan, g.a.ev(), 0));
  EXPECT_EQ(SoleReader(g.plan, 0, g.a.ev()), -1);
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet
