// EmulatorService: edgefleet.v1.Emulator (emulator.proto): device classes
// and arms, RunSession, RunExperiment (server-streamed results) and
// Calibrate. RunSession and RunExperiment are admitted through the compute
// slots' queue bound (RESOURCE_EXHAUSTED at once when full); Calibrate
// holds every measurement slot in turn and saves to --calibration.
// GetCalibration and SetCalibration hand one server's calibration to
// another (the fleet driver's one calibration per experiment). Profile
// answers an arm's device-time breakdown per operator and operator class
// (operator_breakdown.h; host costs measured once per program,
// operator_profiles.h), admitted like RunSession. With an admin token
// (admin_token.h), Calibrate and SetCalibration require it.
//
// Thread-safe (gRPC calls handlers concurrently).

#ifndef EDGEFLEET_SERVICE_EMULATOR_SERVICE_H_
#define EDGEFLEET_SERVICE_EMULATOR_SERVICE_H_

#include "edgefleet/v1/emulator.grpc.pb.h"
#include "service/experiment_runner.h"
#include "service/operator_profiles.h"
#include "service/service_context.h"
#include "service/session_runner.h"

namespace edgefleet {
namespace service {

class EmulatorService final : public v1::Emulator::Service {
 public:
  explicit EmulatorService(const ServiceContext& context);

  grpc::Status ListDeviceClasses(grpc::ServerContext*, const v1::ListDeviceClassesRequest*,
                                 v1::ListDeviceClassesResponse* response) override;
  grpc::Status ListArms(grpc::ServerContext*, const v1::ListArmsRequest*,
                        v1::ListArmsResponse* response) override;
  grpc::Status RunSession(grpc::ServerContext*, const v1::RunSessionRequest* request,
                          v1::SessionResult* response) override;
  grpc::Status RunExperiment(grpc::ServerContext* context, const v1::RunExperimentRequest* request,
                             grpc::ServerWriter<v1::SessionResult>* writer) override;
  grpc::Status Calibrate(grpc::ServerContext*, const v1::CalibrateRequest* request,
                         v1::CalibrateResponse* response) override;
  grpc::Status GetCalibration(grpc::ServerContext*, const v1::GetCalibrationRequest* request,
                              v1::GetCalibrationResponse* response) override;
  grpc::Status SetCalibration(grpc::ServerContext*, const v1::SetCalibrationRequest* request,
                              v1::SetCalibrationResponse* response) override;
  grpc::Status Profile(grpc::ServerContext* context, const v1::ProfileRequest* request,
                       v1::ProfileResponse* response) override;

 private:
  // OK without an admin token; else the token's verdict on the call.
  grpc::Status AuthorizeAdmin(const grpc::ServerContext& context) const;

  ServiceContext context_;
  SessionRunner sessions_;
  ExperimentRunner experiments_;
  OperatorProfiles operator_profiles_;
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_EMULATOR_SERVICE_H_
