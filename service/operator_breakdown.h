// OperatorBreakdown: the Profile RPC's answer (emulator.proto
// ProfileResponse): an arm's measured operators (host_profiler.h
// OperatorProfile) turned into predicted device time on one device class
// by the per-operator-class model (device_time_fit.h).
//
// The model is linear in each class's host time, so each class has a rate
// (device us per host us) on the device at the arm's threads:
//   rate_c = exp(r_m) * exp(theta_c) / S_c(threads)
// (PredictMs of one host microsecond of class c), and each operator gets
//   device_us = (rate_{class} * host_us + rate_overhead * 1 us) * time_scale.
// The operators sum to the response's device_us, and so do the classes
// (the overhead class collects every operator's fixed cost).
//
// Pure function; thread-safe.

#ifndef EDGEFLEET_SERVICE_OPERATOR_BREAKDOWN_H_
#define EDGEFLEET_SERVICE_OPERATOR_BREAKDOWN_H_

#include "edgefleet/v1/arm.pb.h"
#include "edgefleet/v1/device_class.pb.h"
#include "edgefleet/v1/emulator.pb.h"
#include "service/device_time_predictor.h"
#include "service/host_profiler.h"

namespace edgefleet {
namespace service {

// `time_scale` is the arm's injected effect on this class (1 for none);
// `on_device` gives the device's fitted factors, the model's offsets and
// the CPU (its host costs are not used: `measured` has the arm's own).
v1::ProfileResponse OperatorBreakdown(const v1::Arm& arm, const v1::DeviceClass& device,
                                      const OperatorProfile& measured,
                                      const ModelOnDevice& on_device, double time_scale);

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_OPERATOR_BREAKDOWN_H_
