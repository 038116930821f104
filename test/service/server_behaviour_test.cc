// Server behaviour through the real binary: metrics after sessions,
// overload, SIGTERM drain, malformed configuration.

#include <grpcpp/client_context.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <thread>
#include <tuple>

#include "test/service/service_stubs.h"

namespace edgefleet {
namespace testing {
namespace {

std::vector<std::string> Flags() {
  std::vector<std::string> flags = DefaultServerFlags();
  flags.push_back(std::string("--calibration=") + EF_TEST_CALIBRATION);
  return flags;
}

v1::RunSessionRequest Session(const std::string& arm, const std::string& device_class,
                              uint32_t inferences, double inter_arrival_ms, bool paced) {
  v1::RunSessionRequest request;
  v1::SessionSpec* spec = request.mutable_spec();
  spec->set_arm(arm);
  spec->set_device_class(device_class);
  spec->set_seed(9);
  spec->set_inferences(inferences);
  spec->set_inter_arrival_ms(inter_arrival_ms);
  if (paced) spec->set_pacing(v1::PACING_WALL_CLOCK);
  return request;
}

// The value of the sample `name{labels...}` whose label text contains every
// one of `must`, summed over matches.
double Sample(const std::string& body, const std::string& name,
              const std::vector<std::string>& must) {
  double total = 0;
  std::istringstream lines(body);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(name + "{", 0) != 0 && line.rfind(name + " ", 0) != 0) continue;
    bool all = true;
    for (const std::string& m : must) all = all && line.find(m) != std::string::npos;
    if (all) total += std::stod(line.substr(line.rfind(' ') + 1));
  }
  return total;
}

// Waits until the server reports `n` requests in flight (up to 30 s).
bool WaitForInflight(const ServerProcess& server, int n) {
  for (int i = 0; i < 600; ++i) {
    if (Sample(FetchMetrics(server.metrics_port()), "edgefleet_inflight_requests", {}) == n) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

TEST(ServerBehaviourTest, MetricsCountTheSessionsRun) {
  ServerProcess server;
  ASSERT_TRUE(server.Start(Flags())) << server.log();
  auto stub = EmulatorStub(server);
  int ok = 0, oom = 0, inferences = 0;
  uint32_t anrs = 0, frozen = 0, anr_sessions = 0;
  for (const auto& [arm, device_class] : std::vector<std::pair<std::string, std::string>>{
           {"mobilenet.edgefleet", "mid_android"},
           {"mobilenet.edgefleet", "mid_android"},
           {"mobilenet.legacy", "test_slow_storage"},
           {"mobilenet.edgefleet", "test_tiny_memory"}}) {
    grpc::ClientContext context;
    v1::SessionResult result;
    ASSERT_TRUE(stub->RunSession(&context, Session(arm, device_class, 3, 20, false), &result).ok());
    if (result.outcome() == v1::SESSION_OUTCOME_OK) ++ok;
    if (result.outcome() == v1::SESSION_OUTCOME_OOM_KILLED) ++oom;
    inferences += result.latency_us_size();
    anrs += result.anr_count();
    anr_sessions += result.anr_count() > 0 ? 1 : 0;
    frozen += result.frozen_frames();
  }
  const std::string body = FetchMetrics(server.metrics_port());
  printf("%s\n", body.c_str());
  for (const char* family :
       {"edgefleet_model_load_seconds", "edgefleet_inference_seconds", "edgefleet_anr_total",
        "edgefleet_frames_total", "edgefleet_oom_kills_total", "edgefleet_sessions_total",
        "edgefleet_memory_peak_bytes", "edgefleet_inflight_requests", "edgefleet_build_info"}) {
    EXPECT_NE(body.find(std::string("# TYPE ") + family + " "), std::string::npos) << family;
  }
  EXPECT_EQ(Sample(body, "edgefleet_sessions_total", {"outcome=\"ok\""}), ok);
  EXPECT_EQ(Sample(body, "edgefleet_sessions_total", {"outcome=\"oom_killed\""}), oom);
  EXPECT_EQ(Sample(body, "edgefleet_oom_kills_total", {}), oom);
  EXPECT_EQ(Sample(body, "edgefleet_inference_seconds_count", {}), inferences);
  EXPECT_EQ(Sample(body, "edgefleet_model_load_seconds_count", {}), ok + oom);
  EXPECT_EQ(Sample(body, "edgefleet_anr_total", {}), anrs);
  EXPECT_EQ(Sample(body, "edgefleet_anr_sessions_total", {}), anr_sessions);
  EXPECT_GE(anrs, 1u);
  EXPECT_EQ(Sample(body, "edgefleet_frames_total", {"kind=\"frozen\""}), frozen);
  EXPECT_EQ(Sample(body, "edgefleet_sessions_total",
                   {"arm=\"mobilenet.edgefleet\"", "device_class=\"mid_android\"",
                    "stack=\"edgefleet\"", "model=\"mobilenet_v2_035\""}),
            2);
  EXPECT_EQ(Sample(body, "edgefleet_build_info", {}), 1);
  // The documented buckets (docs/service.md, "Metrics"): 100 us to 60 s,
  // with 16 ms, 700 ms, 5 s.
  for (const char* le : {"le=\"0.0001\"", "le=\"0.016\"", "le=\"0.7\"", "le=\"5\"", "le=\"60\""}) {
    EXPECT_NE(body.find(std::string("edgefleet_inference_seconds_bucket{")), std::string::npos);
    EXPECT_GT(Sample(body, "edgefleet_model_load_seconds_bucket", {le}), -1) << le;
    EXPECT_NE(body.find(le), std::string::npos) << le;
  }
  EXPECT_EQ(server.Terminate(), 0);
}

TEST(ServerBehaviourTest, OverloadBeyondTheQueueBoundIsResourceExhaustedAtOnce) {
  std::vector<std::string> flags = Flags();
  flags.push_back("--compute_slots=1");
  flags.push_back("--queue_bound=0");
  ServerProcess server;
  ASSERT_TRUE(server.Start(flags)) << server.log();
  // A wall-clock paced session holds the only admission for ~1.5 s.
  std::thread long_call([&] {
    grpc::ClientContext context;
    v1::SessionResult result;
    const grpc::Status status = EmulatorStub(server)->RunSession(
        &context, Session("mlp.edgefleet", "mid_android", 15, 100, true), &result);
    EXPECT_TRUE(status.ok()) << status.error_message();
  });
  ASSERT_TRUE(WaitForInflight(server, 1));
  grpc::ClientContext context;
  v1::SessionResult result;
  const auto start = std::chrono::steady_clock::now();
  const grpc::Status status = EmulatorStub(server)->RunSession(
      &context, Session("mlp.edgefleet", "mid_android", 1, 0, false), &result);
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  printf("second call: %d %s after %.3f s\n", status.error_code(), status.error_message().c_str(),
         waited);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(status.error_message().find("server busy"), std::string::npos);
  long_call.join();
  EXPECT_EQ(server.Terminate(), 0);
}

// Waits until the server reports `n` requests in flight; the seconds from
// now to the start of the scrape that saw it (so a slow scrape on a loaded
// host does not count), or -1 after 3000 scrapes.
double SecondsUntilInflight(const ServerProcess& server, int n) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 3000; ++i) {
    const auto scrape = std::chrono::steady_clock::now();
    if (Sample(FetchMetrics(server.metrics_port()), "edgefleet_inflight_requests", {}) == n) {
      return std::chrono::duration<double>(scrape - start).count();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;
}

TEST(ServerBehaviourTest, AbandonedCallsFreeTheirSlotsWithinASecond) {
  // Every kind of long call, each abandoned by its client after 0.5 s: wall-
  // clock paced sessions (60 x 100 ms), a REAL-mode session (100000 real
  // inferences), and an experiment of two paced sessions at once (each
  // takes an admission). Together they fill the admission (2 slots +
  // queue 5).
  std::vector<std::string> flags = Flags();
  flags.push_back("--compute_slots=2");
  flags.push_back("--queue_bound=5");
  flags.push_back("--max_calls_per_client=7");
  ServerProcess server;
  ASSERT_TRUE(server.Start(flags)) << server.log();
  const auto deadline = std::chrono::system_clock::now() + std::chrono::milliseconds(500);
  std::vector<std::thread> calls;
  std::vector<grpc::Status> statuses(6);
  for (int i = 0; i < 4; ++i) {
    calls.emplace_back([&, i] {
      grpc::ClientContext context;
      context.set_deadline(deadline);
      v1::SessionResult result;
      statuses[i] = EmulatorStub(server)->RunSession(
          &context, Session("mlp.edgefleet", "mid_android", 60, 100, true), &result);
    });
  }
  calls.emplace_back([&] {
    grpc::ClientContext context;
    context.set_deadline(deadline);
    v1::RunSessionRequest request = Session("mobilenet.edgefleet", "mid_android", 100000, 0, false);
    request.mutable_spec()->set_execution_mode(v1::EXECUTION_MODE_REAL);
    v1::SessionResult result;
    statuses[4] = EmulatorStub(server)->RunSession(&context, request, &result);
  });
  calls.emplace_back([&] {
    grpc::ClientContext context;
    context.set_deadline(deadline);
    v1::RunExperimentRequest request;
    for (int i = 0; i < 4; ++i) {
      *request.add_sessions() = Session("mlp.edgefleet", "mid_android", 60, 100, true).spec();
    }
    request.set_parallelism(2);
    auto reader = EmulatorStub(server)->RunExperiment(&context, request);
    v1::SessionResult result;
    while (reader->Read(&result)) {
    }
    statuses[5] = reader->Finish();
  });
  for (std::thread& t : calls) t.join();
  for (const grpc::Status& status : statuses) {
    EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << status.error_message();
  }
  // Every call's deadline has passed: the server must let go of them.
  const double freed = SecondsUntilInflight(server, 0);
  printf("all six abandoned calls left the server %.3f s after their deadline\n", freed);
  EXPECT_GE(freed, 0);
  EXPECT_LT(freed, 1.0);
  const std::string body = FetchMetrics(server.metrics_port());
  const double cancelled = Sample(body, "edgefleet_sessions_total", {"outcome=\"cancelled\""});
  printf("sessions cancelled: %.0f\n", cancelled);
  EXPECT_GE(cancelled, 5);  // the 4 + 1 sessions, and the experiment's running ones
  // And the server serves again at once.
  grpc::ClientContext context;
  v1::SessionResult result;
  const grpc::Status after = EmulatorStub(server)->RunSession(
      &context, Session("mlp.edgefleet", "mid_android", 2, 0, false), &result);
  EXPECT_TRUE(after.ok()) << after.error_message();
  EXPECT_EQ(result.outcome(), v1::SESSION_OUTCOME_OK);
  EXPECT_EQ(server.Terminate(), 0);
}

TEST(ServerBehaviourTest, OneClientCannotFillTheQueue) {
  std::vector<std::string> flags = Flags();
  flags.push_back("--compute_slots=1");
  flags.push_back("--queue_bound=3");  // admits 4; one client gets (4 + 1) / 2 = 2
  ServerProcess server;
  ASSERT_TRUE(server.Start(flags)) << server.log();
  const auto deadline = std::chrono::system_clock::now() + std::chrono::seconds(3);
  std::vector<std::thread> holders;
  for (int i = 0; i < 2; ++i) {
    holders.emplace_back([&] {
      grpc::ClientContext context;
      context.set_deadline(deadline);
      v1::SessionResult result;
      EmulatorStub(server)->RunSession(
          &context, Session("mlp.edgefleet", "mid_android", 60, 100, true), &result);
    });
  }
  ASSERT_TRUE(WaitForInflight(server, 2));
  grpc::ClientContext context;
  v1::SessionResult result;
  const grpc::Status third = EmulatorStub(server)->RunSession(
      &context, Session("mlp.edgefleet", "mid_android", 1, 0, false), &result);
  printf("third call from the same client: %d %s\n", third.error_code(),
         third.error_message().c_str());
  EXPECT_EQ(third.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(third.error_message().find("too many calls from this client"), std::string::npos);
  for (std::thread& t : holders) t.join();
  EXPECT_EQ(server.Terminate(), 0);
}

TEST(ServerBehaviourTest, OneExperimentCannotMonopoliseTheServer) {
  // Admits 2 slots + queue 2 = 4; one client host gets 2. (Every test
  // client is 127.0.0.1: a second host cannot be made here, so the room
  // left for one is read from the metrics.)
  std::vector<std::string> flags = Flags();
  flags.push_back("--compute_slots=2");
  flags.push_back("--queue_bound=2");
  ServerProcess server;
  ASSERT_TRUE(server.Start(flags)) << server.log();
  // The client asks for 64 sessions at once: 8 paced sessions of 1 s.
  grpc::Status experiment;
  int results = 0;
  std::thread a([&] {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(120));
    v1::RunExperimentRequest request;
    for (int i = 0; i < 8; ++i) {
      *request.add_sessions() = Session("mlp.edgefleet", "mid_android", 10, 100, true).spec();
    }
    request.set_parallelism(64);
    auto reader = EmulatorStub(server)->RunExperiment(&context, request);
    v1::SessionResult result;
    while (reader->Read(&result)) ++results;
    experiment = reader->Finish();
  });
  // It runs as many sessions as its host may have calls: 2, not 64, each
  // counted as a call.
  ASSERT_TRUE(WaitForInflight(server, 2));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const std::string body = FetchMetrics(server.metrics_port());
  EXPECT_EQ(Sample(body, "edgefleet_inflight_requests", {}), 2);
  // The other half of the server stays for other hosts.
  EXPECT_EQ(Sample(body, "edgefleet_inflight_limit", {}), 4);
  {  // So the client's next call is over its bound.
    grpc::ClientContext context;
    v1::SessionResult result;
    const grpc::Status status = EmulatorStub(server)->RunSession(
        &context, Session("mlp.edgefleet", "mid_android", 1, 0, false), &result);
    printf("the client's second call: %d %s\n", status.error_code(),
           status.error_message().c_str());
    EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_NE(status.error_message().find("too many calls from this client"), std::string::npos);
  }
  a.join();
  EXPECT_TRUE(experiment.ok()) << experiment.error_message();
  EXPECT_EQ(results, 8);
  EXPECT_EQ(server.Terminate(), 0);
}

// The server's peak resident memory (VmHWM), in bytes.
int64_t PeakMemoryBytes(const ServerProcess& server) {
  std::ifstream status("/proc/" + std::to_string(server.pid()) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  }
  return -1;
}

TEST(ServerBehaviourTest, AMillionSessionPlanCostsNoMemoryUpFront) {
  ServerProcess server;
  ASSERT_TRUE(server.Start(Flags())) << server.log();
  v1::RunExperimentRequest request;
  request.set_experiment_id(std::string(128, 'e'));
  v1::ExperimentPlan* plan = request.mutable_plan();
  plan->add_arms("mlp.edgefleet");
  plan->add_device_classes("mid_android");
  plan->set_sessions_per_class(1000000);
  plan->set_inferences(1);
  plan->set_execution_mode(v1::EXECUTION_MODE_SAMPLED);
  const int64_t before = PeakMemoryBytes(server);
  {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(3));
    auto reader = EmulatorStub(server)->RunExperiment(&context, request);
    v1::SessionResult result;
    int results = 0;
    while (reader->Read(&result)) ++results;
    const grpc::Status status = reader->Finish();
    printf("a million-session plan: %d results, then %d %s\n", results, status.error_code(),
           status.error_message().c_str());
    EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  }
  ASSERT_GE(SecondsUntilInflight(server, 0), 0);
  const int64_t after = PeakMemoryBytes(server);
  printf("server peak memory %.1f MB -> %.1f MB\n", before / 1e6, after / 1e6);
  // Expanded up front, the million specs (with their 160-character ids)
  // grew the server by hundreds of MB.
  EXPECT_LT(after - before, 64 << 20);
  // An id that long in every session is refused.
  request.set_experiment_id(std::string(129, 'e'));
  grpc::ClientContext context;
  auto reader = EmulatorStub(server)->RunExperiment(&context, request);
  v1::SessionResult result;
  while (reader->Read(&result)) {
  }
  const grpc::Status status = reader->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("experiment_id is longer than 128"), std::string::npos)
      << status.error_message();
  EXPECT_EQ(server.Terminate(), 0);
}

TEST(ServerBehaviourTest, SessionsStopAtTheServersSessionCap) {
  std::vector<std::string> flags = Flags();
  flags.push_back("--max_session_s=1");
  ServerProcess server;
  ASSERT_TRUE(server.Start(flags)) << server.log();
  // A paced session that cannot fit is refused up front...
  grpc::ClientContext paced_context;
  v1::SessionResult paced;
  const grpc::Status refused = EmulatorStub(server)->RunSession(
      &paced_context, Session("mlp.edgefleet", "mid_android", 20, 100, true), &paced);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(refused.error_message().find("--max_session_s"), std::string::npos);
  // ... and a long REAL-mode one stops after it, as CANCELLED.
  grpc::ClientContext context;
  v1::RunSessionRequest request = Session("mobilenet.edgefleet", "mid_android", 100000, 0, false);
  request.mutable_spec()->set_execution_mode(v1::EXECUTION_MODE_REAL);
  v1::SessionResult result;
  const auto start = std::chrono::steady_clock::now();
  const grpc::Status status = EmulatorStub(server)->RunSession(&context, request, &result);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  printf("capped session: %s after %.2f s, %d inferences: %s\n", status.ok() ? "OK" : "error", took,
         result.latency_us_size(), result.error_message().c_str());
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(result.outcome(), v1::SESSION_OUTCOME_CANCELLED);
  EXPECT_NE(result.error_message().find("--max_session_s"), std::string::npos);
  EXPECT_LT(took, 5.0);
  EXPECT_EQ(server.Terminate(), 0);
}

TEST(ServerBehaviourTest, SigtermDrainsInFlightCallsThenExitsZero) {
  ServerProcess server;
  ASSERT_TRUE(server.Start(Flags())) << server.log();
  grpc::Status in_flight;
  v1::SessionResult result;
  std::thread call([&] {
    grpc::ClientContext context;
    in_flight = EmulatorStub(server)->RunSession(
        &context, Session("mlp.edgefleet", "mid_android", 10, 150, true), &result);
  });
  ASSERT_TRUE(WaitForInflight(server, 1));
  kill(server.pid(), SIGTERM);
  const int code = server.WaitExit();
  call.join();
  printf("in-flight call: %s, %d inferences; exit code %d\n",
         in_flight.ok() ? "OK" : in_flight.error_message().c_str(), result.latency_us_size(), code);
  EXPECT_TRUE(in_flight.ok()) << in_flight.error_message();
  EXPECT_EQ(result.latency_us_size(), 10);
  EXPECT_EQ(code, 0);
  EXPECT_NE(server.log().find("draining"), std::string::npos);
}

TEST(ServerBehaviourTest, CalibrateRpcMeasuresAndSavesTheFactorsItUses) {
  const std::string file = MakeTempDir() + "/calibration.textproto";
  std::vector<std::string> flags = DefaultServerFlags();
  flags.push_back("--calibration=" + file);  // absent: measured on first use
  flags.push_back("--arms=test/service/testdata/small_arms.textproto");
  ServerProcess server;
  ASSERT_TRUE(server.Start(flags)) << server.log();
  grpc::ClientContext context;
  v1::CalibrateRequest request;
  request.set_samples(2);
  v1::CalibrateResponse response;
  const grpc::Status status = EmulatorStub(server)->Calibrate(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  const v1::HostCalibration& c = response.calibration();
  printf("%s", c.DebugString().c_str());
  EXPECT_GT(c.reference_host_us(), 0);
  EXPECT_EQ(c.reference_model(), "mobilenet_v2_035");
  EXPECT_GE(c.costs_size(), 2);           // the reference and the arms' models
  EXPECT_EQ(c.class_factors_size(), 10);  // 7 default classes + 3 test classes
  for (const v1::ClassFactor& f : c.class_factors()) EXPECT_GT(f.slowdown(), 0) << f.device_class();
  std::ifstream saved(file);
  EXPECT_TRUE(saved.good()) << "Calibrate did not write " << file;
  EXPECT_EQ(server.Terminate(), 0);
}

TEST(ServerBehaviourTest, CalibrationHandOverChecksWhatItIsGiven) {
  ServerProcess server;
  ASSERT_TRUE(server.Start(Flags())) << server.log();
  auto stub = EmulatorStub(server);
  {
    grpc::ClientContext context;
    v1::GetCalibrationRequest request;
    request.add_arms("no_such_arm");
    v1::GetCalibrationResponse response;
    EXPECT_EQ(stub->GetCalibration(&context, request, &response).error_code(),
              grpc::StatusCode::NOT_FOUND);
  }
  v1::GetCalibrationResponse current;
  {
    grpc::ClientContext context;
    v1::GetCalibrationRequest request;
    request.add_arms("mlp.edgefleet");
    ASSERT_TRUE(stub->GetCalibration(&context, request, &current).ok());
    EXPECT_EQ(current.fingerprint().size(), 16u);
  }
  // No reference, absurd costs: refused, and the calibration in use stays.
  v1::HostCalibration absurd = current.calibration();
  absurd.mutable_costs(0)->set_inference_us(int64_t{1} << 62);
  // Two costs for one (stack, model, kernels), as two calibration files
  // pasted together give: which one counts would be an accident.
  v1::HostCalibration twice = current.calibration();
  *twice.add_costs() = twice.costs(0);
  twice.mutable_costs(twice.costs_size() - 1)->set_inference_us(twice.costs(0).inference_us() + 1);
  for (const v1::HostCalibration& bad : {v1::HostCalibration(), absurd, twice}) {
    grpc::ClientContext context;
    v1::SetCalibrationRequest request;
    *request.mutable_calibration() = bad;
    v1::SetCalibrationResponse response;
    const grpc::Status status = stub->SetCalibration(&context, request, &response);
    printf("bad calibration: %s\n", status.error_message().c_str());
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  }
  // A reference model this server does not have, or a path for one.
  for (const auto& [reference, code, words] :
       std::vector<std::tuple<std::string, grpc::StatusCode, std::string>>{
           {"no_such_model", grpc::StatusCode::FAILED_PRECONDITION,
            "reference model 'no_such_model' is not in this server's model repository"},
           {"../fixtures/mlp", grpc::StatusCode::INVALID_ARGUMENT, "path separator"},
           {"", grpc::StatusCode::INVALID_ARGUMENT, "reference_model: model name is empty"}}) {
    grpc::ClientContext context;
    v1::SetCalibrationRequest request;
    *request.mutable_calibration() = current.calibration();
    request.mutable_calibration()->set_reference_model(reference);
    v1::SetCalibrationResponse response;
    const grpc::Status status = stub->SetCalibration(&context, request, &response);
    printf("reference '%s': %d %s\n", reference.c_str(), status.error_code(),
           status.error_message().c_str());
    EXPECT_EQ(status.error_code(), code) << reference;
    EXPECT_NE(status.error_message().find(words), std::string::npos) << status.error_message();
  }
  {  // Nothing refused replaced the calibration in use.
    grpc::ClientContext context;
    v1::GetCalibrationRequest request;
    v1::GetCalibrationResponse after;
    ASSERT_TRUE(stub->GetCalibration(&context, request, &after).ok());
    EXPECT_EQ(after.fingerprint(), current.fingerprint());
  }
  grpc::ClientContext context;
  v1::SetCalibrationRequest request;
  *request.mutable_calibration() = current.calibration();
  v1::SetCalibrationResponse response;
  ASSERT_TRUE(stub->SetCalibration(&context, request, &response).ok());
  EXPECT_EQ(response.fingerprint(), current.fingerprint());
  EXPECT_EQ(server.Terminate(), 0);
}

TEST(ServerBehaviourTest, MalformedConfigsStopTheServerWithAMessage) {
  struct Case {
    std::string flag;
    std::string words;
  };
  for (const Case& c : std::vector<Case>{
           {"--device_classes=test/service/testdata/bad_device_classes", "broken.textproto:5:"},
           {"--arms=test/service/testdata/device_classes/test_tiny_memory.textproto",
            "no field named \"name\""},
           {"--device_classes=/no/such/dir", "cannot read directory"},
           {"--default_device_class=toaster", "toaster"},
       }) {
    std::vector<std::string> flags = Flags();
    flags.push_back(c.flag);
    ServerProcess server;
    EXPECT_FALSE(server.Start(flags)) << c.flag;
    printf("%s\n  -> %s", c.flag.c_str(), server.log().c_str());
    EXPECT_NE(server.log().find(c.words), std::string::npos) << server.log();
  }
}

}  // namespace
}  // namespace testing
}  // namespace edgefleet
