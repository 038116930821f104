// The main-thread (ANR and frame) model of a session.
//
// An app's main thread dispatches a synthetic input event every
// `input_event_interval_ms` and draws a frame every vsync (1 / refresh).
// Whatever the integration policy puts on the main thread (a model load,
// inferences) blocks it for a busy interval. Then:
//  - an input event that arrives in a busy interval waits until its end;
//    a busy interval in which some event waits longer than the class's ANR
//    timeout counts one ANR (Android raises one "Input dispatching timed
//    out" per stall);
//  - the frames that fall into a busy interval merge into one frame that
//    lasts the interval plus one frame's work; every other vsync draws a
//    normal frame of `frame_work_ms`. Frames over 16 ms and up to 700 ms
//    are slow, frames over 700 ms frozen (Android vitals thresholds).
// Pure function; thread-safe.

#ifndef EDGEFLEET_SERVICE_MAIN_THREAD_MODEL_H_
#define EDGEFLEET_SERVICE_MAIN_THREAD_MODEL_H_

#include <cstdint>
#include <vector>

#include "edgefleet/v1/device_class.pb.h"

namespace edgefleet {
namespace service {

inline constexpr int64_t kSlowFrameUs = 16000;
inline constexpr int64_t kFrozenFrameUs = 700000;

struct BusyInterval {
  int64_t start_us;
  int64_t end_us;
};

struct MainThreadReport {
  uint32_t anr_count = 0;
  uint32_t slow_frames = 0;
  uint32_t frozen_frames = 0;
  uint32_t total_frames = 0;
  int64_t max_input_delay_us = 0;
};

// REQUIRES: `busy` sorted by start, non-overlapping, within
// [0, session_end_us]; the class is valid.
MainThreadReport SimulateMainThread(const std::vector<BusyInterval>& busy, int64_t session_end_us,
                                    const v1::DeviceClass& device_class);

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_MAIN_THREAD_MODEL_H_
