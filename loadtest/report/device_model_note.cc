#include "loadtest/report/device_model_note.h"

#include "loadtest/report/format.h"

namespace edgefleet {
namespace loadtest {

DeviceModelError ValidatedDeviceModelError() {
  DeviceModelError e;
  e.median_abs_error = EF_FIDELITY_MEDIAN_ABS_ERROR;
  e.within_25_percent = EF_FIDELITY_WITHIN_25_PERCENT;
  e.unseen_model_median = EF_FIDELITY_UNSEEN_MODEL_MEDIAN_ABS_ERROR;
  e.multi_thread_median = EF_FIDELITY_MULTI_THREAD_MEDIAN_ABS_ERROR;
  return e;
}

std::string DeviceModelNote() {
  const DeviceModelError e = ValidatedDeviceModelError();
  return "Device times are predictions of the per-operator-class device-time model; on "
         "held-out published devices its median error is " +
         FormatNumber(100 * e.median_abs_error) + " % (" + FormatNumber(100 * e.within_25_percent) +
         " % of predictions within ±25 %; " + FormatNumber(100 * e.multi_thread_median) +
         " % multi-thread; " + FormatNumber(100 * e.unseen_model_median) +
         " % for a model it was not fitted on; docs/fidelity.md).";
}

}  // namespace loadtest
}  // namespace edgefleet
