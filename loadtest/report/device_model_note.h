// DeviceModelNote: the sentence the A/B reports put next to their verdict,
// saying that emulated device times are predictions and how far off the
// device-time model is on published devices it was not fitted to.
//
// The figures are those of docs/fidelity/summary.json (written by
// tools/fidelity/make_report.py with docs/fidelity.md), compiled in by CMake
// at configure time (loadtest/report/CMakeLists.txt); regenerating the
// summary reconfigures the build. Pure; thread-safe.

#ifndef EDGEFLEET_LOADTEST_REPORT_DEVICE_MODEL_NOTE_H_
#define EDGEFLEET_LOADTEST_REPORT_DEVICE_MODEL_NOTE_H_

#include <string>

namespace edgefleet {
namespace loadtest {

struct DeviceModelError {
  double median_abs_error = 0;     // published models on held-out devices, single thread
  double within_25_percent = 0;    // share of those predictions within ±25 %
  double unseen_model_median = 0;  // held-out device and held-out model
  double multi_thread_median = 0;  // held-out devices, multi-thread
};

// The validated error compiled in from docs/fidelity/summary.json.
DeviceModelError ValidatedDeviceModelError();

// "Device times are predictions of the device-time model; on held-out
// published devices its median error is X % ... (docs/fidelity.md)."
std::string DeviceModelNote();

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_REPORT_DEVICE_MODEL_NOTE_H_
