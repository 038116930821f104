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
  absl::StatusOr<ThreadScaling> scaling =
      MeasureThreadScaling("small_cnn", kModel, v1::KERNELS_DEFAULT, 1, 3);
  ASSERT_TRUE(scaling.ok()) << scaling.status();
  EXPECT_GT(scaling->one_thread_us, 0.0);
  EXPECT_GT(scaling->two_thread_us, 0.0);
  // What the profile keeps: both times and their ratio.
  v1::ModelHostProfile entry;
  SetThreadScaling(*scaling, &entry);
  EXPECT_EQ(entry.one_thread_wall_us(), scaling->one_thread_us);
  EXPECT_EQ(entry.two_thread_wall_us(), scaling->two_thread_us);
  EXPECT_EQ(entry.two_thread_speedup(), scaling->one_thread_us / scaling->two_thread_us);
  EXPECT_TRUE(std::isfinite(entry.two_thread_speedup()));
}

TEST(HostThreadScalingTest, SpeedupIsTheRatioOfTheTimes) {
  EXPECT_EQ((ThreadScaling{3000, 1875}).Speedup(), 1.6);
  EXPECT_EQ((ThreadScaling{1000, 1000}).Speedup(), 1.0);
  EXPECT_EQ((ThreadScaling{0, 1000}).Speedup(), 0.0);  // not measured
  EXPECT_EQ((ThreadScaling{1000, 0}).Speedup(), 0.0);
}

TEST(HostThreadScalingTest, OneCpuOrABadProgramIsAnError) {
  absl::StatusOr<ThreadScaling> missing =
      MeasureThreadScaling("nothing", "test/fixtures/no_such/model.pte", v1::KERNELS_DEFAULT, 0, 1);
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.status().code(), absl::StatusCode::kFailedPrecondition);

  cpu_set_t allowed, one;
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  int first = 0;
  while (!CPU_ISSET(first, &allowed)) ++first;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  absl::StatusOr<ThreadScaling> single =
      MeasureThreadScaling("small_cnn", kModel, v1::KERNELS_DEFAULT, 0, 1);
  ASSERT_EQ(sched_setaffinity(0, sizeof(allowed), &allowed), 0);
  EXPECT_EQ(single.status().code(), absl::StatusCode::kFailedPrecondition) << single.status();
}

}  // namespace
}  // namespace service
}  // namespace edgefleet
