#include "service/health_probe.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "common/mutex.h"
#include "service/command_line.h"
#include "service/transport_security.h"

namespace edgefleet {
namespace service {
namespace {

constexpr char kCheckMethod[] = "/grpc.health.v1.Health/Check";

constexpr char kHealthUsage[] =
    "usage: edgefleet-server health [flags]   (or edgefleet-health [flags])\n"
    "  asks grpc.health.v1.Health/Check; exit 0 when SERVING, 1 otherwise, 2 for bad flags\n"
    "  --address=HOST:PORT         the server (127.0.0.1:8001)\n"
    "  --service=NAME              the service to ask about ('': the whole server)\n"
    "  --timeout_s=N               give up after N s, 1..3600 (5)\n"
    "  --tls_ca=FILE               TLS: trust servers this CA signed (none: plaintext)\n"
    "  --tls_cert=FILE --tls_key=FILE  TLS: client certificate and key (none)\n"
    "  --tls_server_name=NAME      TLS: the name to verify (the address's host)\n"
    "  -h, --help                  this text\n"
    "Flags are --name=value or --name value.\n";
constexpr int kServing = 1;  // HealthCheckResponse.ServingStatus.SERVING

// HealthCheckRequest { string service = 1; }
std::string EncodeRequest(const std::string& service) {
  std::string bytes;
  if (service.empty()) return bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream out(&stream);
  out.WriteTag(/*field 1, length-delimited*/ (1 << 3) | 2);
  out.WriteVarint32(static_cast<uint32_t>(service.size()));
  out.WriteString(service);
  return bytes;
}

// HealthCheckResponse { ServingStatus status = 1; }: the status, or -1 if
// the bytes are not such a message. Unknown fields are skipped.
int DecodeStatus(const std::string& bytes) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  int status = 0;  // proto3 default: UNKNOWN
  while (uint32_t tag = in.ReadTag()) {
    if (tag == ((1 << 3) | 0)) {
      uint32_t value = 0;
      if (!in.ReadVarint32(&value)) return -1;
      status = static_cast<int>(value);
    } else if (!google::protobuf::internal::WireFormatLite::SkipField(&in, tag)) {
      return -1;
    }
  }
  return in.ConsumedEntireMessage() ? status : -1;
}

}  // namespace

int HealthProbeMain(const std::vector<std::string>& args) {
  absl::StatusOr<CommandLine> line = ParseCommandLine(
      args,
      {"address", "service", "timeout_s", "tls_ca", "tls_cert", "tls_key", "tls_server_name"});
  if (!line.ok()) {
    fprintf(stderr, "edgefleet-server health: %s\n%s", std::string(line.status().message()).c_str(),
            kHealthUsage);
    return 2;
  }
  if (line->help) {
    fputs(kHealthUsage, stdout);
    return 0;
  }
  std::map<std::string, std::string> flags = {{"address", "127.0.0.1:8001"},
                                              {"service", ""},
                                              {"timeout_s", "5"},
                                              {"tls_ca", ""},
                                              {"tls_cert", ""},
                                              {"tls_key", ""},
                                              {"tls_server_name", ""}};
  for (const auto& [name, value] : line->values) flags[name] = value;
  char* end = nullptr;
  const long timeout_s = strtol(flags["timeout_s"].c_str(), &end, 10);
  if (*end != '\0' || timeout_s < 1 || timeout_s > 3600) {
    fprintf(stderr, "edgefleet-server health: --timeout_s must be 1..3600\n");
    return 2;
  }
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      MakeChannelCredentials({flags["tls_ca"], flags["tls_cert"], flags["tls_key"]});
  if (!credentials.ok()) {
    fprintf(stderr, "edgefleet-server health: %s\n",
            std::string(credentials.status().message()).c_str());
    return 2;
  }
  grpc::ChannelArguments channel_args;
  if (!flags["tls_server_name"].empty()) {
    channel_args.SetSslTargetNameOverride(flags["tls_server_name"]);
  }
  grpc::GenericStub stub(grpc::CreateCustomChannel(flags["address"], *credentials, channel_args));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(timeout_s));
  const std::string request_bytes = EncodeRequest(flags["service"]);
  grpc::Slice slice(request_bytes);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  // The call's outcome, from gRPC's callback thread to this one.
  struct Outcome {
    Mutex mu;
    CondVar done_cv;
    bool done EF_GUARDED_BY(mu) = false;
    grpc::Status status EF_GUARDED_BY(mu);
  } outcome;
  stub.UnaryCall(&context, kCheckMethod, grpc::StubOptions(), &request, &response,
                 [&](grpc::Status s) {
                   MutexLock lock(&outcome.mu);
                   outcome.status = std::move(s);
                   outcome.done = true;
                   outcome.done_cv.NotifyOne();
                 });
  grpc::Status status;
  {
    MutexLock lock(&outcome.mu);
    while (!outcome.done) outcome.done_cv.Wait(&outcome.mu);  // the deadline bounds the wait
    status = outcome.status;
  }
  if (!status.ok()) {
    fprintf(stderr, "edgefleet-server health: %s: %s\n", flags["address"].c_str(),
            status.error_message().c_str());
    return 1;
  }
  std::vector<grpc::Slice> slices;
  std::string bytes;
  if (response.Dump(&slices).ok()) {
    for (const grpc::Slice& s : slices)
      bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  const int serving = DecodeStatus(bytes);
  if (serving != kServing) {
    fprintf(stderr, "edgefleet-server health: %s: %s\n", flags["address"].c_str(),
            serving < 0 ? "malformed HealthCheckResponse" : "not serving");
    return 1;
  }
  return 0;
}

}  // namespace service
}  // namespace edgefleet
