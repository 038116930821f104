// Transport security and the admin token, against the real edgefleet-server
// on loopback (docs/security.md): TLS by flag, client certificates when
// asked, and the bearer token that Calibrate requires. The certificates are
// fresh from make_test_certs.sh (ctest fixture ef_test_certs).
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

#include "edgefleet/v1/emulator.grpc.pb.h"
#include "inference/grpc_service.grpc.pb.h"
#include "test/service/service_stubs.h"

namespace edgefleet {
namespace testing {
namespace {

std::string Cert(const std::string& name) { return std::string(EF_TEST_CERT_DIR) + "/" + name; }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> TlsFlags() {
  std::vector<std::string> flags = DefaultServerFlags();
  flags.push_back(std::string("--calibration=") + EF_TEST_CALIBRATION);
  flags.push_back("--tls_cert=" + Cert("server.pem"));
  flags.push_back("--tls_key=" + Cert("server.key.pem"));
  return flags;
}

grpc::SslCredentialsOptions Roots(const std::string& ca) {
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = ReadFile(Cert(ca));
  return options;
}

// ServerLive over `credentials` with a 5 s deadline.
grpc::Status Live(const ServerProcess& server,
                  std::shared_ptr<grpc::ChannelCredentials> credentials) {
  auto stub = inference::GRPCInferenceService::NewStub(
      grpc::CreateChannel(server.address(), std::move(credentials)));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  inference::ServerLiveRequest request;
  inference::ServerLiveResponse response;
  grpc::Status status = stub->ServerLive(&context, request, &response);
  if (status.ok() && !response.live()) return grpc::Status(grpc::StatusCode::INTERNAL, "not live");
  return status;
}

TEST(SecurityTest, PlaintextClientAgainstTlsServerFailsCleanly) {
  ServerProcess server;
  ASSERT_TRUE(server.Start(TlsFlags())) << server.log();
  const auto start = std::chrono::steady_clock::now();
  const grpc::Status plaintext = Live(server, grpc::InsecureChannelCredentials());
  EXPECT_EQ(plaintext.error_code(), grpc::StatusCode::UNAVAILABLE) << plaintext.error_message();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(6));
  // A client that does not trust the server's CA is refused too.
  EXPECT_EQ(Live(server, grpc::SslCredentials(Roots("other_ca.pem"))).error_code(),
            grpc::StatusCode::UNAVAILABLE);
  // The server is unharmed, and a client trusting its CA gets through.
  EXPECT_EQ(kill(server.pid(), 0), 0) << server.log();
  const grpc::Status tls = Live(server, grpc::SslCredentials(Roots("ca.pem")));
  EXPECT_TRUE(tls.ok()) << tls.error_message() << "\n" << server.log();
}

TEST(SecurityTest, ClientCertificatesAreRequiredWhenConfigured) {
  std::vector<std::string> flags = TlsFlags();
  flags.push_back("--tls_client_ca=" + Cert("ca.pem"));
  ServerProcess server;
  ASSERT_TRUE(server.Start(flags)) << server.log();
  EXPECT_EQ(Live(server, grpc::SslCredentials(Roots("ca.pem"))).error_code(),
            grpc::StatusCode::UNAVAILABLE);
  grpc::SslCredentialsOptions with_cert = Roots("ca.pem");
  with_cert.pem_cert_chain = ReadFile(Cert("client.pem"));
  with_cert.pem_private_key = ReadFile(Cert("client.key.pem"));
  const grpc::Status status = Live(server, grpc::SslCredentials(with_cert));
  EXPECT_TRUE(status.ok()) << status.error_message() << "\n" << server.log();
}

// `edgefleet-server health ARGS`'s exit code.
int Health(const std::string& args) {
  const int status = std::system((std::string(EF_SERVER_BINARY) + " health " + args).c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(SecurityTest, HealthSubcommandSpeaksTheHealthProtocolOverTls) {
  ServerProcess server;
  ASSERT_TRUE(server.Start(TlsFlags())) << server.log();
  const std::string address = "--address=" + server.address() + " --timeout_s=5";
  EXPECT_EQ(Health(address + " --tls_ca=" + Cert("ca.pem")), 0);
  EXPECT_EQ(Health(address + " --tls_ca=" + Cert("ca.pem") + " --service=no.such.Service"), 1)
      << "a service the server does not know is not SERVING";
  EXPECT_EQ(Health(address), 1) << "plaintext against TLS";
  EXPECT_EQ(Health(address + " --tls_ca=" + Cert("other_ca.pem")), 1) << "untrusted server";
  EXPECT_EQ(Health("--no_such_flag=1"), 2);
  EXPECT_EQ(Health(address + " --tls_cert=" + Cert("client.pem")), 2) << "cert without key";
  ASSERT_EQ(server.Terminate(), 0);
  EXPECT_EQ(Health(address + " --tls_ca=" + Cert("ca.pem")), 1) << "nobody listening";
}

// Runs `edgefleet-loadtest ARGS`; returns its stdout and stderr, sets the exit code.
std::string Loadtest(const std::string& args, int* exit_code) {
  FILE* pipe = popen((std::string(EF_LOADTEST_BINARY) + " " + args + " 2>&1").c_str(), "r");
  std::string out;
  char buffer[4096];
  while (pipe != nullptr && fgets(buffer, sizeof buffer, pipe) != nullptr) out += buffer;
  const int status = pipe != nullptr ? pclose(pipe) : -1;
  *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

// The fleet driver over TLS: trusting the server's CA, every session runs
// (no harness error); trusting another CA, every call fails.
TEST(SecurityTest, FleetDriverSpeaksTls) {
  ServerProcess server;
  ASSERT_TRUE(server.Start(TlsFlags())) << server.log();
  const std::string common =
      "run --spec=test/loadtest/testdata/tiny.textproto --progress=off "
      "--replicates=200 --server=" +
      server.address() + " --out-dir=";
  const std::regex harness("harness errors ([0-9]+)");
  std::smatch m;
  int code = 0;
  const std::string ok = Loadtest(common + MakeTempDir() + " --tls_ca=" + Cert("ca.pem"), &code);
  EXPECT_TRUE(code == 0 || code == 2 || code == 3 || code == 4) << code << "\n" << ok;
  ASSERT_TRUE(std::regex_search(ok, m, harness)) << ok;
  EXPECT_EQ(m[1], "0") << ok;
  // A server another CA signed fails the driver's preflight: exit 1 naming
  // the failed handshake, before any session runs.
  const std::string bad =
      Loadtest(common + MakeTempDir() + " --tls_ca=" + Cert("other_ca.pem"), &code);
  EXPECT_EQ(code, 1) << bad;
  EXPECT_NE(bad.find("certificate verify failed"), std::string::npos) << bad;
  EXPECT_FALSE(std::regex_search(bad, m, harness)) << "no session may run: " << bad;
  Loadtest(common + MakeTempDir() + " --tls_cert=" + Cert("client.pem"), &code);
  EXPECT_EQ(code, 1) << "--tls_cert without --tls_key and --tls_ca is a usage error";
}

TEST(SecurityTest, BadTlsFlagsStopTheServerWithAMessage) {
  std::vector<std::string> flags = DefaultServerFlags();
  flags.push_back("--tls_cert=" + Cert("server.pem"));  // no key
  ServerProcess server;
  EXPECT_FALSE(server.Start(flags));
  EXPECT_NE(server.log().find("--tls_cert and --tls_key go together"), std::string::npos)
      << server.log();
}

TEST(SecurityTest, CalibrateNeedsTheAdminToken) {
  const std::string dir = MakeTempDir();
  const std::string calibration = dir + "/calibration.textproto";
  std::ofstream(calibration) << ReadFile(EF_TEST_CALIBRATION);
  std::vector<std::string> flags = DefaultServerFlags();
  flags.push_back("--calibration=" + calibration);
  flags.push_back("--admin_token_file=" + Cert("admin_token"));
  ServerProcess server;
  ASSERT_TRUE(server.Start(flags)) << server.log();
  std::string token = ReadFile(Cert("admin_token"));
  while (!token.empty() && token.back() == '\n') token.pop_back();
  ASSERT_GE(token.size(), 16u);
  std::string wrong = token;
  wrong.back() = wrong.back() == 'a' ? 'b' : 'a';

  auto calibrate = [&](const char* header, const std::string& value, uint32_t samples) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    if (header != nullptr) context.AddMetadata(header, value);
    v1::CalibrateRequest request;
    request.set_samples(samples);
    v1::CalibrateResponse response;
    return EmulatorStub(server)->Calibrate(&context, request, &response);
  };
  const std::string before = ReadFile(calibration);
  for (const auto& [header, value] : std::vector<std::pair<const char*, std::string>>{
           {nullptr, ""},
           {"authorization", "Bearer " + wrong},
           {"authorization", "Bearer " + token.substr(0, token.size() - 1)},
           {"authorization", token},  // no scheme
           {"authorization", "Basic " + token},
           {"x-admin-token", token}}) {
    SCOPED_TRACE(std::string(header ? header : "(none)") + ": " + value);
    const grpc::Status status = calibrate(header, value, 1);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << status.error_message();
  }
  EXPECT_EQ(ReadFile(calibration), before) << "an unauthenticated Calibrate changed the file";
  // The right token gets past authentication to the request's own checks
  // (101 samples is over the limit, so nothing is measured or written).
  const grpc::Status authorized = calibrate("authorization", "Bearer " + token, 101);
  EXPECT_EQ(authorized.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
      << authorized.error_message();
  EXPECT_NE(authorized.error_message().find("samples"), std::string::npos);
  // Read-only RPCs need no token.
  grpc::ClientContext context;
  v1::ListDeviceClassesRequest request;
  v1::ListDeviceClassesResponse response;
  EXPECT_TRUE(EmulatorStub(server)->ListDeviceClasses(&context, request, &response).ok());
}

TEST(SecurityTest, SetCalibrationNeedsTheAdminToken) {
  std::vector<std::string> flags = DefaultServerFlags();
  flags.push_back("--admin_token_file=" + Cert("admin_token"));
  ServerProcess server;
  ASSERT_TRUE(server.Start(flags)) << server.log();
  std::string token = ReadFile(Cert("admin_token"));
  while (!token.empty() && token.back() == '\n') token.pop_back();
  auto stub = EmulatorStub(server);
  auto fingerprint = [&] {
    grpc::ClientContext context;
    v1::GetCalibrationRequest request;
    v1::GetCalibrationResponse response;
    EXPECT_TRUE(stub->GetCalibration(&context, request, &response).ok());  // read-only: no token
    return response;
  };
  const v1::GetCalibrationResponse before = fingerprint();
  ASSERT_EQ(before.fingerprint().size(), 16u);
  // A valid calibration with other figures: what an attacker would hand in.
  v1::HostCalibration changed = before.calibration();
  ASSERT_GT(changed.costs_size(), 0);
  changed.mutable_costs(0)->set_inference_us(changed.costs(0).inference_us() + 1000);
  auto set = [&](const std::string& authorization) {
    grpc::ClientContext context;
    if (!authorization.empty()) context.AddMetadata("authorization", authorization);
    v1::SetCalibrationRequest request;
    *request.mutable_calibration() = changed;
    v1::SetCalibrationResponse response;
    return stub->SetCalibration(&context, request, &response);
  };
  for (const std::string& authorization : {std::string(), "Bearer " + token + "x", token}) {
    EXPECT_EQ(set(authorization).error_code(), grpc::StatusCode::UNAUTHENTICATED) << authorization;
  }
  EXPECT_EQ(fingerprint().fingerprint(), before.fingerprint())
      << "an unauthenticated SetCalibration changed the calibration";
  const grpc::Status authorized = set("Bearer " + token);
  EXPECT_TRUE(authorized.ok()) << authorized.error_message();
  EXPECT_NE(fingerprint().fingerprint(), before.fingerprint());
}

}  // namespace
}  // namespace testing
}  // namespace edgefleet
