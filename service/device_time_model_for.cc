#include "service/device_time_model_for.h"

namespace edgefleet {
namespace service {

absl::StatusOr<DeviceTimeModel> DeviceTimeModelFor(const ServiceContext& context,
                                                   const v1::DeviceClass& device,
                                                   const std::string& model, v1::Stack stack) {
  if (context.device_time != nullptr) {
    absl::StatusOr<ModelOnDevice> predicted = context.device_time->For(device, model, {}, stack);
    if (!predicted.ok()) return predicted.status();
    const ModelOnDevice p = *std::move(predicted);
    return DeviceTimeModel(device, p.DeviceOverHost(),
                           [p](int threads) { return p.ThreadSpeedup(threads); });
  }
  absl::StatusOr<double> slowdown = context.calibration->Slowdown(device);
  if (!slowdown.ok()) return slowdown.status();
  return DeviceTimeModel(device, *slowdown);
}

}  // namespace service
}  // namespace edgefleet
