// PlanArena: values alive at the same step never share bytes, values that
// are not may, offsets are aligned; a hand-worked chain and random plans.

#include "runtime/backends/xnnpack/arena_plan.h"

#include <gtest/gtest.h>

#include <random>

namespace edgefleet {
namespace xnnpack {
namespace {

bool Overlap(const Lifetime& a, const Lifetime& b) {
  return a.first_step <= b.last_step && b.first_step <= a.last_step;
}

void ExpectValid(const std::vector<Lifetime>& v, const ArenaPlan& plan, size_t alignment) {
  ASSERT_EQ(plan.offsets.size(), v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(plan.offsets[i] % alignment, 0u) << i;
    EXPECT_LE(plan.offsets[i] + v[i].bytes, plan.size) << i;
    for (size_t j = i + 1; j < v.size(); ++j) {
      if (!Overlap(v[i], v[j])) continue;
      const bool disjoint = plan.offsets[i] + v[i].bytes <= plan.offsets[j] ||
                            plan.offsets[j] + v[j].bytes <= plan.offsets[i];
      EXPECT_TRUE(disjoint) << "values " << i << " and " << j << " are alive together";
    }
  }
}

TEST(ArenaPlan, ChainReusesMemory) {
  // A chain of steps: each value is written at step s and read at s + 1, so
  // only neighbours are alive together; two 64-byte-aligned slots suffice.
  const std::vector<Lifetime> chain = {{100, 0, 1}, {64, 1, 2}, {100, 2, 3}, {30, 3, 4}};
  const ArenaPlan plan = PlanArena(chain, 64);
  ExpectValid(chain, plan, 64);
  // Largest first: both 100-byte values (128 aligned) at 0, the others above.
  EXPECT_EQ(plan.offsets[0], 0u);
  EXPECT_EQ(plan.offsets[2], 0u);
  EXPECT_EQ(plan.offsets[1], 128u);
  EXPECT_EQ(plan.offsets[3], 128u);
  EXPECT_EQ(plan.size, 192u);
}

TEST(ArenaPlan, AllAliveTogetherAreStacked) {
  const std::vector<Lifetime> v = {{10, 0, 5}, {20, 1, 4}, {30, 2, 3}};
  const ArenaPlan plan = PlanArena(v, 16);
  ExpectValid(v, plan, 16);
  EXPECT_EQ(plan.size, 16u + 32u + 32u);
}

TEST(ArenaPlan, RandomPlansAreValid) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<Lifetime> v(1 + rng() % 40);
    size_t total = 0;
    for (Lifetime& l : v) {
      l.bytes = rng() % 5000;
      l.first_step = static_cast<int>(rng() % 30);
      l.last_step = l.first_step + static_cast<int>(rng() % 6);
      total += (l.bytes + 63) / 64 * 64;
    }
    const ArenaPlan plan = PlanArena(v, 64);
    ExpectValid(v, plan, 64);
    EXPECT_LE(plan.size, total);
  }
  EXPECT_EQ(PlanArena({}, 64).size, 0u);
}

}  // namespace
}  // namespace xnnpack
}  // namespace edgefleet
