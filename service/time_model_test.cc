#include "service/time_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "service/seeded_random.h"
#include "service/textproto_file.h"

namespace edgefleet {
namespace service {
namespace {

v1::DeviceClass HighEnd() {
  v1::DeviceClass c;
  EXPECT_TRUE(ReadTextprotoFile("deploy/device_classes/high_android.textproto", &c).ok());
  return c;
}

TEST(TimeModelTest, ThreadScalingFollowsTheFit) {
  const v1::DeviceClass c = HighEnd();
  const DeviceTimeModel model(c, /*slowdown=*/2.0);
  EXPECT_DOUBLE_EQ(model.ThreadSpeedup(1), 1.0);
  // Fitted to ncnn's SD 8 Gen 2 MobileNetV2: 10.02 ms / 3.23 ms on 4 big cores.
  EXPECT_NEAR(model.ThreadSpeedup(4), 10.02 / 3.23, 0.01);
  // All 8 cores: the A510s set the pace, slower than 4 big (as published).
  EXPECT_LT(model.ThreadSpeedup(8), model.ThreadSpeedup(4));
  EXPECT_DOUBLE_EQ(model.ComputeUs(/*host_us=*/1000, /*threads=*/1), 2000);
}

TEST(TimeModelTest, StorageReadIsLatencyPlusTransfer) {
  const v1::DeviceClass c = HighEnd();
  const DeviceTimeModel model(c, 1.0);
  EXPECT_DOUBLE_EQ(model.StorageReadUs(4200000000ull), 40 + 1e6);
}

TEST(TimeModelTest, ThermalHeatsWhenBusyAndCoolsWhenIdle) {
  const v1::DeviceClass c = HighEnd();
  ThermalState thermal(c.thermal(), /*initial_heat=*/0);
  EXPECT_DOUBLE_EQ(thermal.speed(), 1.0);
  thermal.Busy(3600e6);
  EXPECT_NEAR(thermal.speed(), c.thermal().sustained_fraction(), 1e-6);
  thermal.Idle(3600e6);
  EXPECT_NEAR(thermal.heat(), 0.0, 1e-6);
}

TEST(TimeModelTest, NoiseIsSeededAndCommonAcrossArms) {
  const v1::DeviceClass c = HighEnd();
  const OsNoise a(c.os_noise(), /*seed=*/7), b(c.os_noise(), /*seed=*/7), other(c.os_noise(), 8);
  EXPECT_EQ(a.Apply(10000, 3), b.Apply(10000, 3));
  EXPECT_NE(a.Apply(10000, 3), other.Apply(10000, 3));
  // Never faster than 1/2 of the clean time, never wildly slower.
  for (uint64_t e = 0; e < 1000; ++e) {
    const double us = a.Apply(10000, e);
    EXPECT_GT(us, 5000);
    EXPECT_LT(us, 10000 * 1.5 + c.os_noise().preemption_max_us() * 3);
  }
}

TEST(TimeModelTest, DeviceTimeFactorIsLognormalPerDevice) {
  v1::DeviceVariation none;
  EXPECT_EQ(DeviceTimeFactor(none, 42), 1.0);
  v1::DeviceVariation v;
  v.set_speed_sigma(0.2);
  EXPECT_EQ(DeviceTimeFactor(v, 42), DeviceTimeFactor(v, 42));
  EXPECT_NE(DeviceTimeFactor(v, 42), DeviceTimeFactor(v, 43));
  // log(factor) over 4000 devices: mean 0 (SE 0.2/sqrt(4000) = 0.0032),
  // SD 0.2 (SE ~ 0.0022).
  constexpr int kDevices = 4000;
  double sum = 0, sum_sq = 0;
  for (uint64_t d = 0; d < kDevices; ++d) {
    const double l = std::log(DeviceTimeFactor(v, Mix64(d)));
    sum += l;
    sum_sq += l * l;
  }
  const double mean = sum / kDevices;
  EXPECT_NEAR(mean, 0.0, 0.013);
  EXPECT_NEAR(std::sqrt(sum_sq / kDevices - mean * mean), 0.2, 0.009);
}

}  // namespace
}  // namespace service
}  // namespace edgefleet
