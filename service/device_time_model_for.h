// DeviceTimeModelFor: the DeviceTimeModel (time_model.h) the emulator's
// sessions and single inferences use for one model on one device class.
//
// With the context's per-operator-class model (ServiceContext::device_time)
// the slowdown is that model's prediction for this model on this class
// over the model's host time, and the thread speedup is its predicted one
// (device_time_predictor.h ModelOnDevice), applied to the arm's calibrated
// host cost: each stack's factor comes from its own program's per-operator
// profile (the old stack's .ptl through the lite interpreter's operator
// hooks, pytorch_mobile_profiler.h), under the class's one fit. Without it (tools,
// tests): the class's single calibrated slowdown (host_calibration.h).
//
// Thread-safe (the predictor and the calibration store are).

#ifndef EDGEFLEET_SERVICE_DEVICE_TIME_MODEL_FOR_H_
#define EDGEFLEET_SERVICE_DEVICE_TIME_MODEL_FOR_H_

#include <string>

#include "absl/status/statusor.h"
#include "edgefleet/v1/device_class.pb.h"
#include "service/service_context.h"
#include "service/time_model.h"

namespace edgefleet {
namespace service {

// `device` must outlive the result. Errors: the predictor's (model or
// calibration point unknown, points refused) or the calibration store's.
absl::StatusOr<DeviceTimeModel> DeviceTimeModelFor(const ServiceContext& context,
                                                   const v1::DeviceClass& device,
                                                   const std::string& model, v1::Stack stack);

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_DEVICE_TIME_MODEL_FOR_H_
