#include "service/main_thread_model.h"

#include <gtest/gtest.h>

namespace edgefleet {
namespace service {
namespace {

v1::DeviceClass Device() {
  v1::DeviceClass c;
  c.mutable_display()->set_refresh_hz(50);  // 20 ms vsync
  c.mutable_responsiveness()->set_anr_timeout_ms(5000);
  c.mutable_responsiveness()->set_input_event_interval_ms(100);
  c.mutable_responsiveness()->set_frame_work_ms(5);
  return c;
}

TEST(MainThreadModelTest, IdleMainThreadDrawsOnlyNormalFrames) {
  const MainThreadReport r = SimulateMainThread({}, /*session_end_us=*/1000000, Device());
  EXPECT_EQ(r.total_frames, 50u);
  EXPECT_EQ(r.slow_frames, 0u);
  EXPECT_EQ(r.frozen_frames, 0u);
  EXPECT_EQ(r.anr_count, 0u);
  EXPECT_EQ(r.max_input_delay_us, 0);
}

TEST(MainThreadModelTest, ShortBlockIsASlowFrame) {
  const MainThreadReport r = SimulateMainThread({{0, 30000}}, 1000000, Device());
  EXPECT_EQ(r.slow_frames, 1u);
  EXPECT_EQ(r.frozen_frames, 0u);
  EXPECT_EQ(r.anr_count, 0u);
  EXPECT_EQ(r.max_input_delay_us, 30000);  // the event at t=0 waits 30 ms
}

TEST(MainThreadModelTest, LongBlockIsFrozenAndPastTheTimeoutAnAnr) {
  const MainThreadReport frozen = SimulateMainThread({{50000, 1050000}}, 2000000, Device());
  EXPECT_EQ(frozen.frozen_frames, 1u);
  EXPECT_EQ(frozen.anr_count, 0u);
  EXPECT_EQ(frozen.max_input_delay_us, 950000);  // event at 100 ms waits until 1.05 s

  const MainThreadReport anr = SimulateMainThread({{0, 6000000}}, 7000000, Device());
  EXPECT_EQ(anr.anr_count, 1u);
  EXPECT_EQ(anr.frozen_frames, 1u);
  EXPECT_EQ(anr.max_input_delay_us, 6000000);
}

TEST(MainThreadModelTest, BlockBetweenInputEventsDelaysNothing) {
  const MainThreadReport r = SimulateMainThread({{10000, 90000}}, 1000000, Device());
  EXPECT_EQ(r.max_input_delay_us, 0);
  EXPECT_EQ(r.slow_frames, 1u);
}

}  // namespace
}  // namespace service
}  // namespace edgefleet
