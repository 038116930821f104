#include "service/main_thread_model.h"

#include <algorithm>
#include <cmath>

namespace edgefleet {
namespace service {
namespace {

void CountFrame(int64_t duration_us, MainThreadReport* report) {
  ++report->total_frames;
  if (duration_us > kFrozenFrameUs) {
    ++report->frozen_frames;
  } else if (duration_us > kSlowFrameUs) {
    ++report->slow_frames;
  }
}

// Number of multiples of `period` in [from, to).
int64_t TicksIn(int64_t from, int64_t to, int64_t period) {
  if (to <= from) return 0;
  const int64_t first = (from + period - 1) / period;
  const int64_t last = (to - 1) / period;
  return std::max<int64_t>(0, last - first + 1);
}

}  // namespace

MainThreadReport SimulateMainThread(const std::vector<BusyInterval>& busy, int64_t session_end_us,
                                    const v1::DeviceClass& device_class) {
  MainThreadReport report;
  const auto& r = device_class.responsiveness();
  const int64_t input_period = static_cast<int64_t>(r.input_event_interval_ms()) * 1000;
  const int64_t anr_timeout = static_cast<int64_t>(r.anr_timeout_ms()) * 1000;
  const int64_t vsync = std::max<int64_t>(
      1, static_cast<int64_t>(std::llround(1e6 / device_class.display().refresh_hz())));
  const int64_t frame_work = static_cast<int64_t>(std::llround(r.frame_work_ms() * 1000));

  int64_t idle_from = 0;
  for (const BusyInterval& interval : busy) {
    // Normal frames in the idle stretch before this interval.
    const int64_t idle_frames = TicksIn(idle_from, interval.start_us, vsync);
    for (int64_t i = 0; i < idle_frames; ++i) CountFrame(frame_work, &report);
    // The first input event that arrives during the interval waits longest.
    const int64_t first_event =
        (interval.start_us + input_period - 1) / input_period * input_period;
    if (first_event < interval.end_us) {
      const int64_t delay = interval.end_us - first_event;
      report.max_input_delay_us = std::max(report.max_input_delay_us, delay);
      if (delay > anr_timeout) ++report.anr_count;
    }
    if (interval.end_us > interval.start_us) {
      CountFrame(interval.end_us - interval.start_us + frame_work, &report);
    }
    idle_from = interval.end_us;
  }
  const int64_t tail_frames = TicksIn(idle_from, session_end_us, vsync);
  for (int64_t i = 0; i < tail_frames; ++i) CountFrame(frame_work, &report);
  return report;
}

}  // namespace service
}  // namespace edgefleet
