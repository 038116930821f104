// ServiceContext: the shared parts every RPC handler uses, owned by the
// Server (server.h) and borrowed by the handlers, which must not outlive it.
// Each member documents its own thread safety; all are safe to share.

#ifndef EDGEFLEET_SERVICE_SERVICE_CONTEXT_H_
#define EDGEFLEET_SERVICE_SERVICE_CONTEXT_H_

#include <string>

#include "service/admin_token.h"
#include "service/arm_registry.h"
#include "service/calibrator.h"
#include "service/compute_slots.h"
#include "service/device_class_registry.h"
#include "service/device_time_predictor.h"
#include "service/host_calibration.h"
#include "service/metrics.h"
#include "service/model_repository.h"

namespace edgefleet {
namespace service {

struct ServiceContext {
  ModelRepository* repository = nullptr;
  DeviceClassRegistry* device_classes = nullptr;
  ArmRegistry* arms = nullptr;
  ComputeSlots* slots = nullptr;
  HostCalibrationStore* calibration = nullptr;
  Calibrator* calibrator = nullptr;
  // The per-operator-class device-time model sessions take device time
  // from; null (tools, tests): one calibrated slowdown per class.
  DeviceTimePredictor* device_time = nullptr;
  ServiceMetrics* metrics = nullptr;  // may be null (tools, tests)
  std::string default_device_class;
  std::string calibration_file;  // where Calibrate saves; may be empty
  int max_session_s = 600;       // wall-clock cap on one session (--max_session_s)
  // Required by state-changing RPCs when set (thread-safe, immutable).
  const AdminToken* admin_token = nullptr;
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_SERVICE_CONTEXT_H_
