#include "loadtest/driver/preflight.h"

#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "edgefleet/v1/emulator.grpc.pb.h"
#include "google/protobuf/text_format.h"
#include "grpcpp/grpcpp.h"

namespace edgefleet {
namespace loadtest {
namespace {

bool AllDigits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

void SetDeadline(grpc::ClientContext* context, std::chrono::milliseconds timeout) {
  context->set_deadline(std::chrono::system_clock::now() + timeout);
}

absl::Status CallError(const std::string& address, const char* rpc, const grpc::Status& status) {
  const bool unreachable = status.error_code() == grpc::StatusCode::UNAVAILABLE ||
                           status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
  return absl::Status(
      unreachable ? absl::StatusCode::kUnavailable
                  : static_cast<absl::StatusCode>(status.error_code()),
      absl::StrCat("server ", address, ": ", rpc, " failed: ", status.error_message(),
                   unreachable ? " (is edgefleet-server running there?)" : ""));
}

}  // namespace

absl::Status CheckAddress(const std::string& address) {
  if (address.rfind("unix:", 0) == 0) {
    if (address.size() > 5) return absl::OkStatus();
    return absl::InvalidArgumentError("--server: 'unix:' needs a socket path");
  }
  const size_t colon = address.rfind(':');
  const std::string host = colon == std::string::npos ? address : address.substr(0, colon);
  const std::string port = colon == std::string::npos ? "" : address.substr(colon + 1);
  const bool v6 = host.size() >= 2 && host.front() == '[' && host.back() == ']';
  if (colon == std::string::npos || host.empty() || (!v6 && host.find(':') != std::string::npos) ||
      !AllDigits(port) || port.size() > 5 || std::stoi(port) < 1 || std::stoi(port) > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--server: '", address,
                     "' is not HOST:PORT (port 1..65535; IPv6 as [ADDR]:PORT; or unix:PATH)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::HostCalibration> ReadCalibrationFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("cannot read calibration " + path);
  std::ostringstream text;
  text << in.rdbuf();
  v1::HostCalibration calibration;
  if (!google::protobuf::TextFormat::ParseFromString(text.str(), &calibration)) {
    return absl::InvalidArgumentError(path + ": not an edgefleet.v1.HostCalibration textproto");
  }
  return calibration;
}

absl::StatusOr<PreflightResult> Preflight(const v1::FleetSpec& spec,
                                          const PreflightOptions& options) {
  if (options.addresses.empty()) return absl::InvalidArgumentError("--server: no address");
  for (const std::string& address : options.addresses) {
    if (absl::Status s = CheckAddress(address); !s.ok()) return s;
  }
  std::vector<std::unique_ptr<v1::Emulator::Stub>> stubs;
  for (const std::string& address : options.addresses) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(64 << 20);
    if (!options.tls_server_name.empty()) args.SetSslTargetNameOverride(options.tls_server_name);
    stubs.push_back(v1::Emulator::NewStub(grpc::CreateCustomChannel(
        address,
        options.credentials != nullptr ? options.credentials : grpc::InsecureChannelCredentials(),
        args)));
  }

  // Names the spec uses.
  std::set<std::string> arms = {spec.arm_a(), spec.arm_b()};
  std::set<std::string> classes;
  for (const v1::ClassShare& share : spec.population()) classes.insert(share.device_class());

  std::vector<v1::Arm> spec_arms;  // as the first server defines them
  for (size_t i = 0; i < stubs.size(); ++i) {
    const std::string& address = options.addresses[i];
    grpc::ClientContext class_context;
    SetDeadline(&class_context, options.timeout);
    v1::ListDeviceClassesResponse class_list;
    grpc::Status status =
        stubs[i]->ListDeviceClasses(&class_context, v1::ListDeviceClassesRequest(), &class_list);
    if (!status.ok()) return CallError(address, "ListDeviceClasses", status);
    grpc::ClientContext arm_context;
    SetDeadline(&arm_context, options.timeout);
    v1::ListArmsResponse arm_list;
    status = stubs[i]->ListArms(&arm_context, v1::ListArmsRequest(), &arm_list);
    if (!status.ok()) return CallError(address, "ListArms", status);

    std::set<std::string> known_classes, known_arms;
    for (const v1::DeviceClass& c : class_list.device_classes()) known_classes.insert(c.name());
    for (const v1::Arm& a : arm_list.arms()) {
      known_arms.insert(a.name());
      if (i == 0 && arms.count(a.name()) > 0) spec_arms.push_back(a);
    }
    std::vector<std::string> problems;
    for (const std::string& arm : arms) {
      if (known_arms.count(arm) == 0) problems.push_back(absl::StrCat("arm '", arm, "'"));
    }
    for (const std::string& c : classes) {
      if (known_classes.count(c) == 0) problems.push_back(absl::StrCat("device class '", c, "'"));
    }
    if (!problems.empty()) {
      return absl::NotFoundError(absl::StrCat(
          "the fleet spec names what server ", address, " does not have: ",
          absl::StrJoin(problems, ", "), " (its arms: ", absl::StrJoin(known_arms, ", "),
          "; its device classes: ", absl::StrJoin(known_classes, ", "), ")"));
    }
    // Every arm runs on every class of the population.
    for (const v1::ArmRestriction& r : arm_list.restrictions()) {
      if (arms.count(r.arm()) > 0 && classes.count(r.device_class()) > 0) {
        problems.push_back(r.reason());
      }
    }
    if (!problems.empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("the fleet spec asks server ", address,
                       " for what it cannot run: ", absl::StrJoin(problems, "; ")));
    }
  }

  // One calibration for every server.
  PreflightResult result;
  v1::HostCalibration calibration;
  size_t first_to_set = 0;
  if (options.calibration.has_value()) {
    calibration = *options.calibration;
    result.calibration_source = "file";
    for (const v1::Arm& arm : spec_arms) {
      bool found = false;
      for (const v1::HostCost& cost : calibration.costs()) {
        found = found || (cost.stack() == arm.stack() && cost.model() == arm.model() &&
                          cost.kernels() == arm.kernels());
      }
      if (!found) {
        return absl::FailedPreconditionError(absl::StrCat(
            "the calibration has no host cost for arm '", arm.name(), "' (model ", arm.model(),
            "); make it with `edgefleet-server calibrate` on a server that has the arm"));
      }
    }
  } else {
    grpc::ClientContext context;
    SetDeadline(&context, options.calibration_timeout);
    v1::GetCalibrationRequest request;
    for (const std::string& arm : arms) request.add_arms(arm);
    v1::GetCalibrationResponse response;
    const grpc::Status status = stubs[0]->GetCalibration(&context, request, &response);
    if (!status.ok()) return CallError(options.addresses[0], "GetCalibration", status);
    calibration = response.calibration();
    result.calibration_fingerprint = response.fingerprint();
    result.calibration_source = "server " + options.addresses[0];
    first_to_set = 1;
  }
  for (size_t i = first_to_set; i < stubs.size(); ++i) {
    grpc::ClientContext context;
    SetDeadline(&context, options.timeout);
    if (!options.authorization.empty()) context.AddMetadata("authorization", options.authorization);
    v1::SetCalibrationRequest request;
    *request.mutable_calibration() = calibration;
    v1::SetCalibrationResponse response;
    const grpc::Status status = stubs[i]->SetCalibration(&context, request, &response);
    if (!status.ok()) return CallError(options.addresses[i], "SetCalibration", status);
    if (result.calibration_fingerprint.empty()) {
      result.calibration_fingerprint = response.fingerprint();
    } else if (response.fingerprint() != result.calibration_fingerprint) {
      return absl::FailedPreconditionError(absl::StrCat(
          "server ", options.addresses[i], " reports calibration ", response.fingerprint(),
          " after being given ", result.calibration_fingerprint));
    }
  }
  return result;
}

}  // namespace loadtest
}  // namespace edgefleet
