#include "service/host_thread_scaling.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <cmath>

namespace edgefleet {
namespace service {
namespace {

constexpr const char* kModel = "test/fixtures/small_cnn/model.pte";

TEST(HostThreadScalingTest, SerialShareIsAmdahlsAtTwoThreads) {
  EXPECT_EQ(RuntimeSerialShare(2.0), 0.0);
  EXPECT_EQ(RuntimeSerialShare(1.0), 1.0);
  EXPECT_NEAR(RuntimeSerialShare(1.6), 0.25, 1e-12);  // 1 / (0.25 + 0.75 / 2) = 1.6
  EXPECT_EQ(RuntimeSerialShare(2.5), 0.0);            // faster than linear: clamped
  EXPECT_EQ(RuntimeSerialShare(0.5), 1.0);            // slower with two threads: clamped
  EXPECT_EQ(RuntimeSerialShare(0.0), 0.0);            // not measured
}

TEST(HostThreadScalingTest, MeasuresBothThreadCountsOnTheProgram) {
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  if (CPU_COUNT(&allowed) < 2) GTEST_SKIP() << "this process may use one CPU";
  absl::StatusOr<double> speedup =
      MeasureTwoThreadSpeedup("small_cnn", kModel, v1::KERNELS_DEFAULT, 1, 3);
  ASSERT_TRUE(speedup.ok()) << speedup.status();
  EXPECT_TRUE(std::isfinite(*speedup));
  EXPECT_GT(*speedup, 0.0);
}

TEST(HostThreadScalingTest, OneCpuOrABadProgramIsAnError) {
  absl::StatusOr<double> missing = MeasureTwoThreadSpeedup(
      "nothing", "test/fixtures/no_such/model.pte", v1::KERNELS_DEFAULT, 0, 1);
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.status().code(), absl::StatusCode::kFailedPrecondition);

  cpu_set_t allowed, one;
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  int first = 0;
  while (!CPU_ISSET(first, &allowed)) ++first;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  absl::StatusOr<double> single =
      MeasureTwoThreadSpeedup("small_cnn", kModel, v1::KERNELS_DEFAULT, 0, 1);
  ASSERT_EQ(sched_setaffinity(0, sizeof(allowed), &allowed), 0);
  EXPECT_EQ(single.status().code(), absl::StatusCode::kFailedPrecondition) << single.status();
}

}  // namespace
}  // namespace service
}  // namespace edgefleet
