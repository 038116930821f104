#include "service/emulator_service.h"

#include <algorithm>
#include <cstdint>

#include "service/operator_breakdown.h"
#include "service/stack.h"
#include "service/status_mapping.h"

namespace edgefleet {
namespace service {

EmulatorService::EmulatorService(const ServiceContext& context)
    : context_(context),
      sessions_(context),
      experiments_(&sessions_),
      operator_profiles_(context.repository) {}

grpc::Status EmulatorService::ListDeviceClasses(grpc::ServerContext*,
                                                const v1::ListDeviceClassesRequest*,
                                                v1::ListDeviceClassesResponse* response) {
  for (const v1::DeviceClass& c : context_.device_classes->classes()) {
    *response->add_device_classes() = c;
  }
  return grpc::Status::OK;
}

grpc::Status EmulatorService::ListArms(grpc::ServerContext*, const v1::ListArmsRequest*,
                                       v1::ListArmsResponse* response) {
  for (const v1::Arm& arm : context_.arms->arms()) {
    *response->add_arms() = arm;
    for (const v1::DeviceClass& device : context_.device_classes->classes()) {
      if (absl::Status s = ArmRunsOn(arm, device); !s.ok()) {
        v1::ArmRestriction* restriction = response->add_restrictions();
        restriction->set_arm(arm.name());
        restriction->set_device_class(device.name());
        restriction->set_reason(std::string(s.message()));
      }
    }
  }
  return grpc::Status::OK;
}

grpc::Status EmulatorService::RunSession(grpc::ServerContext* context,
                                         const v1::RunSessionRequest* request,
                                         v1::SessionResult* response) {
  std::unique_ptr<ComputeSlots::Admission> admission;
  if (absl::Status s =
          context_.slots->TryAdmit(&admission, ComputeSlots::ClientOf(context->peer()));
      !s.ok()) {
    return ToGrpcStatus(s);
  }
  absl::StatusOr<v1::SessionResult> result =
      sessions_.Run(request->spec(), 0, [context] { return context->IsCancelled(); });
  if (!result.ok()) return ToGrpcStatus(result.status());
  if (result->outcome() == v1::SESSION_OUTCOME_CANCELLED && context->IsCancelled()) {
    return grpc::Status(grpc::StatusCode::CANCELLED, result->error_message());
  }
  *response = *std::move(result);
  return grpc::Status::OK;
}

grpc::Status EmulatorService::RunExperiment(grpc::ServerContext* context,
                                            const v1::RunExperimentRequest* request,
                                            grpc::ServerWriter<v1::SessionResult>* writer) {
  std::unique_ptr<ComputeSlots::Admission> admission;
  if (absl::Status s =
          context_.slots->TryAdmit(&admission, ComputeSlots::ClientOf(context->peer()));
      !s.ok()) {
    return ToGrpcStatus(s);
  }
  absl::StatusOr<ExperimentSessions> specs = ExpandExperiment(*request);
  if (!specs.ok()) return ToGrpcStatus(specs.status());
  // Each session running at once is a call's worth of work: beyond the
  // first, every worker holds an admission of its own (so the experiment
  // counts against the server's and this client's bounds like that many
  // RunSession calls), and there are never more than compute slots.
  const int wanted = static_cast<int>(
      std::min<uint64_t>({request->parallelism() > 0 ? request->parallelism() : UINT32_MAX,
                          static_cast<uint64_t>(context_.slots->slots()), specs->size()}));
  std::vector<std::unique_ptr<ComputeSlots::Admission>> workers;
  while (static_cast<int>(workers.size()) + 1 < wanted) {
    std::unique_ptr<ComputeSlots::Admission> more;
    if (!context_.slots->TryAdmit(&more, ComputeSlots::ClientOf(context->peer())).ok()) break;
    workers.push_back(std::move(more));
  }
  const absl::Status status = experiments_.Run(
      *specs, static_cast<int>(workers.size()) + 1,
      [writer](const v1::SessionResult& result) { return writer->Write(result); },
      [context] { return context->IsCancelled(); });
  return ToGrpcStatus(status);
}

grpc::Status EmulatorService::AuthorizeAdmin(const grpc::ServerContext& context) const {
  return context_.admin_token != nullptr ? context_.admin_token->Authorize(context)
                                         : grpc::Status::OK;
}

grpc::Status EmulatorService::Calibrate(grpc::ServerContext* context,
                                        const v1::CalibrateRequest* request,
                                        v1::CalibrateResponse* response) {
  // Calibrate measures (holding a slot) and rewrites the calibration file.
  if (grpc::Status s = AuthorizeAdmin(*context); !s.ok()) return s;
  std::unique_ptr<ComputeSlots::Admission> admission;
  if (absl::Status s =
          context_.slots->TryAdmit(&admission, ComputeSlots::ClientOf(context->peer()));
      !s.ok()) {
    return ToGrpcStatus(s);
  }
  if (request->samples() > 100) {
    return ToGrpcStatus(absl::InvalidArgumentError("samples must be <= 100"));
  }
  absl::StatusOr<v1::HostCalibration> calibration = context_.calibrator->Calibrate(
      *context_.arms, *context_.device_classes, static_cast<int>(request->samples()));
  if (!calibration.ok()) return ToGrpcStatus(calibration.status());
  if (!context_.calibration_file.empty()) {
    if (absl::Status s = HostCalibrationStore::WriteFile(context_.calibration_file, *calibration);
        !s.ok()) {
      return ToGrpcStatus(s);
    }
  }
  *response->mutable_calibration() = *std::move(calibration);
  return grpc::Status::OK;
}

grpc::Status EmulatorService::GetCalibration(grpc::ServerContext* context,
                                             const v1::GetCalibrationRequest* request,
                                             v1::GetCalibrationResponse* response) {
  std::vector<CostKey> keys;
  for (const std::string& name : request->arms()) {
    const v1::Arm* arm = context_.arms->Find(name);
    if (arm == nullptr) {
      return ToGrpcStatus(
          absl::NotFoundError("unknown arm '" + name.substr(0, 64) + "' (ListArms lists them)"));
    }
    keys.push_back({arm->stack(), arm->model(), arm->kernels()});
  }
  std::unique_ptr<ComputeSlots::Admission> admission;
  if (absl::Status s =
          context_.slots->TryAdmit(&admission, ComputeSlots::ClientOf(context->peer()));
      !s.ok()) {
    return ToGrpcStatus(s);
  }
  if (absl::Status s = context_.calibrator->EnsureReference(); !s.ok()) return ToGrpcStatus(s);
  for (const CostKey& key : keys) {
    if (absl::StatusOr<v1::HostCost> cost = context_.calibrator->CostFor(key); !cost.ok()) {
      return ToGrpcStatus(cost.status());
    }
  }
  *response->mutable_calibration() = context_.calibration->Snapshot();
  response->set_fingerprint(CalibrationFingerprint(response->calibration()));
  return grpc::Status::OK;
}

grpc::Status EmulatorService::SetCalibration(grpc::ServerContext* context,
                                             const v1::SetCalibrationRequest* request,
                                             v1::SetCalibrationResponse* response) {
  // Replaces the figures every caller gets.
  if (grpc::Status s = AuthorizeAdmin(*context); !s.ok()) return s;
  if (absl::Status s = CheckCalibration(request->calibration(), "calibration"); !s.ok()) {
    return ToGrpcStatus(s);
  }
  // Its reference must be a model this server has: one it can measure
  // again (Calibrate) and compare with.
  const std::string& reference = request->calibration().reference_model();
  if (absl::Status s = ModelRepository::ValidateName(reference); !s.ok()) {
    return ToGrpcStatus(
        absl::InvalidArgumentError("calibration: reference_model: " + std::string(s.message())));
  }
  if (!context_.repository->OpenModel(reference, v1::STACK_EDGEFLEET).ok()) {
    return ToGrpcStatus(absl::FailedPreconditionError(
        "calibration: reference model '" + reference +
        "' is not in this server's model repository; hand over a calibration whose "
        "reference both servers have (edgefleet-server --reference_model)"));
  }
  context_.calibration->Replace(request->calibration());
  response->set_fingerprint(CalibrationFingerprint(context_.calibration->Snapshot()));
  return grpc::Status::OK;
}

grpc::Status EmulatorService::Profile(grpc::ServerContext* context,
                                      const v1::ProfileRequest* request,
                                      v1::ProfileResponse* response) {
  const v1::Arm* arm = context_.arms->Find(request->arm());
  if (arm == nullptr) {
    return ToGrpcStatus(absl::NotFoundError("unknown arm '" + request->arm().substr(0, 64) +
                                            "' (ListArms lists them)"));
  }
  const v1::DeviceClass* device = context_.device_classes->Find(request->device_class());
  if (device == nullptr) {
    return ToGrpcStatus(absl::NotFoundError("unknown device class '" +
                                            request->device_class().substr(0, 64) +
                                            "' (ListDeviceClasses lists them)"));
  }
  if (absl::Status s = ArmRunsOn(*arm, *device); !s.ok()) return ToGrpcStatus(s);
  if (context_.device_time == nullptr) {
    return ToGrpcStatus(absl::FailedPreconditionError(
        "Profile needs the per-operator-class device-time model, which this server runs"
        " without"));
  }
  std::unique_ptr<ComputeSlots::Admission> admission;
  if (absl::Status s =
          context_.slots->TryAdmit(&admission, ComputeSlots::ClientOf(context->peer()));
      !s.ok()) {
    return ToGrpcStatus(s);
  }
  // The device's fit and the model's offsets first: measuring the model's
  // host profile (if new) also fixes the host's ridge point.
  absl::StatusOr<ModelOnDevice> on_device = context_.device_time->For(*device, arm->model());
  if (!on_device.ok()) return ToGrpcStatus(on_device.status());
  absl::StatusOr<std::shared_ptr<const OperatorProfile>> measured =
      operator_profiles_.For(*arm, context_.device_time->ridge_flops_per_byte());
  if (!measured.ok()) return ToGrpcStatus(measured.status());
  *response =
      OperatorBreakdown(*arm, *device, **measured, *on_device, TimeScaleOn(*arm, device->name()));
  response->set_source(
      arm->stack() == v1::STACK_PYTORCH_MOBILE
          ? "libtorch's RecordFunction hooks around each operator the lite interpreter calls"
            " (scope LITE_INTERPRETER), thread CPU time, median of 7 runs on one thread; the"
            " interpreter's own time between operators is not attributed (libtorch's Kineto"
            " edge profiler is not built in Debian's libtorch)"
          : "our runtime's TraceRecorder, thread CPU time per instruction, median of 7"
            " executes on one thread; a delegate call is one operator (class dense)");
  return grpc::Status::OK;
}

}  // namespace service
}  // namespace edgefleet
