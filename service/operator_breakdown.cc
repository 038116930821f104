#include "service/operator_breakdown.h"

#include <algorithm>

#include "service/device_time_fit.h"
#include "service/op_classes.h"

namespace edgefleet {
namespace service {

v1::ProfileResponse OperatorBreakdown(const v1::Arm& arm, const v1::DeviceClass& device,
                                      const OperatorProfile& measured,
                                      const ModelOnDevice& on_device, double time_scale) {
  const int threads = static_cast<int>(std::max(1u, arm.threads()));
  // Device us per host us of each class: the model's prediction for one
  // host microsecond of that class alone.
  ClassVector rate{};
  for (int c = 0; c < kNumOpClasses; ++c) {
    ModelCost unit = on_device.cost;
    unit.host_us.fill(0);
    unit.host_us[c] = 1;
    rate[c] = PredictMs(on_device.factors, unit, on_device.cpu, threads) * 1e3;
  }
  const int overhead = OpClassIndex(v1::OP_CLASS_OVERHEAD);

  v1::ProfileResponse out;
  out.set_arm(arm.name());
  out.set_device_class(device.name());
  out.set_stack(arm.stack());
  out.set_model(arm.model());
  out.set_kernels(arm.kernels());
  out.set_threads(static_cast<uint32_t>(threads));
  out.set_time_scale(time_scale);
  v1::OpClassDeviceTime classes[kNumOpClasses];
  for (int c = 0; c < kNumOpClasses; ++c) {
    classes[c].set_op_class(kOpClasses[c]);
    classes[c].set_rate(rate[c] * time_scale);
  }
  double host_total = 0, device_total = 0;
  uint32_t index = 0;
  for (const ProfiledOperator& op : measured.operators) {
    const int c = OpClassIndex(op.op_class);
    if (c < 0 || c == overhead) continue;  // SummarizeOperators sets an instruction class
    const double host_us = op.nanos / 1e3;
    const double own_us = rate[c] * host_us * time_scale;
    const double fixed_us = rate[overhead] * 1.0 * time_scale;
    v1::OperatorDeviceTime* row = out.add_operators();
    row->set_index(index++);
    row->set_name(op.name);
    row->set_kernel(op.kernel);
    row->set_op_class(op.op_class);
    row->set_host_us(host_us);
    row->set_device_us(own_us + fixed_us);
    classes[c].set_operators(classes[c].operators() + 1);
    classes[c].set_host_us(classes[c].host_us() + host_us);
    classes[c].set_device_us(classes[c].device_us() + own_us);
    classes[overhead].set_operators(classes[overhead].operators() + 1);
    classes[overhead].set_host_us(classes[overhead].host_us() + 1.0);
    classes[overhead].set_device_us(classes[overhead].device_us() + fixed_us);
    host_total += host_us;
    device_total += own_us + fixed_us;
  }
  out.set_host_us(host_total);
  out.set_device_us(device_total);
  const double share_base = device_total > 0 ? device_total : 1;
  for (v1::OperatorDeviceTime& row : *out.mutable_operators()) {
    row.set_share(row.device_us() / share_base);
  }
  for (v1::OpClassDeviceTime& row : classes) {
    row.set_share(row.device_us() / share_base);
    *out.add_classes() = row;
  }
  return out;
}

}  // namespace service
}  // namespace edgefleet
