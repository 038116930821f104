#include "loadtest/results/assignment.h"

#include <cmath>

#include "gtest/gtest.h"

namespace edgefleet {
namespace loadtest {
namespace {

TEST(AssignmentTest, DeterministicPerSeedAndDevice) {
  for (uint64_t d = 0; d < 100; ++d) {
    EXPECT_EQ(AssignArm(7, d, 0.5), AssignArm(7, d, 0.5));
  }
  int differ = 0;
  for (uint64_t d = 0; d < 1000; ++d) {
    differ += AssignArm(7, d, 0.5) != AssignArm(8, d, 0.5);
  }
  EXPECT_GT(differ, 400);  // Seeds give independent splits (~500).
  EXPECT_LT(differ, 600);
}

TEST(AssignmentTest, RespectsTheShare) {
  for (double share : {0.1, 0.5, 0.8}) {
    int on_b = 0;
    const int n = 100000;
    for (int d = 0; d < n; ++d) on_b += AssignArm(3, d, share) == Arm::kB;
    // 5 standard deviations of Binomial(n, share).
    EXPECT_NEAR(on_b / static_cast<double>(n), share, 5 * std::sqrt(share * (1 - share) / n));
  }
  EXPECT_EQ(AssignArm(3, 42, 0.0), Arm::kA);
  EXPECT_EQ(AssignArm(3, 42, 1.0), Arm::kB);
}

TEST(AssignmentTest, StringIdsHashStably) {
  EXPECT_EQ(DeviceIdFromString("pixel-7/abc"), DeviceIdFromString("pixel-7/abc"));
  EXPECT_NE(DeviceIdFromString("pixel-7/abc"), DeviceIdFromString("pixel-7/abd"));
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet
