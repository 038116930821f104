// End-to-end tests of the fleet driver and `edgefleet-loadtest run` against
// the real edgefleet-server on loopback (test/util/server_process.h):
// reports consistent with the streamed sessions, sharded == unsharded, and
// failed calls counted by cause. One server for the whole suite.

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "edgefleet/v1/emulator.grpc.pb.h"
#include "google/protobuf/text_format.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "loadtest/driver/driver.h"
#include "loadtest/driver/fleet_plan.h"
#include "loadtest/results/results_json.h"
#include "loadtest/tools/cli.h"
#include "nlohmann/json.hpp"
#include "test/service/service_stubs.h"

namespace edgefleet {
namespace loadtest {
namespace {

constexpr char kTinySpec[] = "test/loadtest/testdata/tiny.textproto";

std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class FleetDriverTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new testing::ServerProcess;
    std::vector<std::string> flags = testing::DefaultServerFlags();
    flags.push_back(std::string("--calibration=") + EF_TEST_CALIBRATION);
    ASSERT_TRUE(server_->Start(flags)) << server_->log();
  }
  static void TearDownTestSuite() {
    EXPECT_EQ(server_->Terminate(), 0);
    delete server_;
  }

  // Runs the cli; returns its exit code, stdout in *out.
  static int Cli(std::vector<std::string> args, std::string* out) {
    args.insert(args.begin(), "edgefleet-loadtest");
    std::vector<const char*> argv;
    for (const std::string& a : args) argv.push_back(a.c_str());
    std::ostringstream o, e;
    const int code = RunCli(static_cast<int>(argv.size()), argv.data(), o, e);
    *out = o.str() + e.str();
    return code;
  }

  static testing::ServerProcess* server_;
};
testing::ServerProcess* FleetDriverTest::server_ = nullptr;

TEST_F(FleetDriverTest, EndToEndReportsMatchTheSessions) {
  const std::filesystem::path dir = testing::MakeTempDir() + "/whole";
  std::string out;
  const int code =
      Cli({"run", std::string("--spec=") + kTinySpec, "--server=" + server_->address(),
           "--out-dir=" + dir.string(), "--progress=off", "--replicates=200", "--threads=2"},
          &out);
  ASSERT_NE(code, 1) << out;  // 0, 2, 3 or 4: a verdict, not a tool error
  for (const char* name : {"results.json", "report.json", "report.md", "report.html"}) {
    EXPECT_TRUE(std::filesystem::exists(dir / name)) << name << "\n" << out;
  }
  absl::StatusOr<ResultSet> results = ReadResultSetFile((dir / "results.json").string());
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->records().size(), 12u * 2 * 2);
  for (const SessionRecord& r : results->records()) {
    EXPECT_EQ(r.outcome, Outcome::kOk) << r.device_id << " " << r.error_cause;
    EXPECT_TRUE(r.Loaded());
    EXPECT_EQ(r.latencies_us.size(), 8u - 1 - 2);  // warm-up: 1 first + 2 dropped
    EXPECT_GT(r.LoadTotalUs(), 0);
  }
  const nlohmann::json report = nlohmann::json::parse(ReadText(dir / "report.json"));
  EXPECT_EQ(report["exit_code"].get<int>(), code);
  EXPECT_EQ(report["experiment"]["name"], "tiny");
  uint64_t fleet_sessions = 0;
  for (const nlohmann::json& scope : report["scopes"]) {
    const uint64_t n = scope["arms"]["A"]["sessions"].get<uint64_t>() +
                       scope["arms"]["B"]["sessions"].get<uint64_t>();
    fleet_sessions = std::max(fleet_sessions, n);  // the fleet-wide scope
    EXPECT_EQ(scope["arms"]["B"]["harness_errors"].get<uint64_t>(), 0u);
  }
  EXPECT_EQ(fleet_sessions, results->records().size());
  EXPECT_NE(ReadText(dir / "report.md").find("small_cnn.edgefleet"), std::string::npos);
  EXPECT_NE(out.find("HTML report: "), std::string::npos);

  // What explains the difference: both arms' Profile answers per class of
  // the spec, as a Profile call through the generated stub gives them.
  ASSERT_EQ(report["explanation"].size(), 2u);
  auto stub = v1::Emulator::NewStub(
      grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials()));
  for (const nlohmann::json& e : report["explanation"]) {
    const std::string device_class = e["device_class"].get<std::string>();
    double totals[2] = {0, 0};
    const char* arms[2] = {"small_cnn.pytorch-mobile", "small_cnn.edgefleet"};  // A, B
    for (int arm = 0; arm < 2; ++arm) {
      grpc::ClientContext context;
      v1::ProfileRequest request;
      request.set_arm(arms[arm]);
      request.set_device_class(device_class);
      v1::ProfileResponse profile;
      ASSERT_TRUE(stub->Profile(&context, request, &profile).ok());
      totals[arm] = profile.device_us();
    }
    EXPECT_DOUBLE_EQ(e["a_us"].get<double>(), totals[0]) << device_class;
    EXPECT_DOUBLE_EQ(e["b_us"].get<double>(), totals[1]) << device_class;
    // Every class is listed: the class changes add up to the total's.
    double change = 0, share = 0;
    for (const nlohmann::json& row : e["operator_classes"]) {
      change += row["change_us"].get<double>();
      share += row["share_of_change"].get<double>();
    }
    EXPECT_NEAR(change, totals[1] - totals[0], 1e-6 * totals[0]) << device_class;
    EXPECT_NEAR(share, 1.0, 1e-9) << device_class;
    EXPECT_FALSE(e["operators"].empty());
  }
  EXPECT_NE(ReadText(dir / "report.md").find("### What explains the difference"),
            std::string::npos);
  EXPECT_NE(ReadText(dir / "report.html").find("chart-explain"), std::string::npos);

  // `report`, from the saved files alone, writes the same reports, section
  // included: the profiles were saved beside the results.
  ASSERT_TRUE(std::filesystem::exists(dir / "results.profiles.json")) << out;
  const std::filesystem::path again = dir / "again";
  EXPECT_EQ(Cli({"report", "--out-dir=" + again.string(), "--replicates=200", "--threads=2",
                 (dir / "results.json").string()},
                &out),
            code)
      << out;
  for (const char* name : {"report.json", "report.md", "report.html"}) {
    EXPECT_EQ(ReadText(again / name), ReadText(dir / name)) << name;
  }
}

TEST_F(FleetDriverTest, ShardsMergedGiveTheUnshardedReport) {
  const std::string base = testing::MakeTempDir();
  std::string out;
  const std::vector<std::string> common = {std::string("--spec=") + kTinySpec,
                                           "--server=" + server_->address(), "--progress=off"};
  auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), common.begin(), common.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return Cli(args, &out);
  };
  const int whole_code = run({"--out-dir=" + base + "/whole", "--replicates=200", "--threads=2"});
  ASSERT_NE(whole_code, 1) << out;
  ASSERT_EQ(run({"--shard=0/2", "--out-dir=" + base + "/s"}), 0) << out;
  ASSERT_EQ(run({"--shard=1/2", "--out-dir=" + base + "/s", "--concurrency=1"}), 0) << out;
  ASSERT_EQ(Cli({"merge", "--out=" + base + "/merged.json", base + "/s/results.shard-1-of-2.json",
                 base + "/s/results.shard-0-of-2.json"},
                &out),
            0)
      << out;
  EXPECT_EQ(ReadText(base + "/merged.json"), ReadText(base + "/whole/results.json"));
  // Shards fetch no profiles: the merged results' report leaves the
  // explanation out, unless given the whole run's profiles.
  EXPECT_FALSE(std::filesystem::exists(base + "/s/results.shard-0-of-2.profiles.json"));
  ASSERT_NE(Cli({"report", "--out-dir=" + base + "/bare", "--replicates=200", "--threads=2",
                 base + "/merged.json"},
                &out),
            1)
      << out;
  EXPECT_TRUE(nlohmann::json::parse(ReadText(base + "/bare/report.json"))["explanation"].empty());
  const int merged_code =
      Cli({"report", "--out-dir=" + base + "/merged", "--replicates=200", "--threads=2",
           "--profiles=" + base + "/whole/results.profiles.json", base + "/merged.json"},
          &out);
  EXPECT_EQ(merged_code, whole_code) << out;
  for (const char* name : {"report.json", "report.md", "report.html"}) {
    EXPECT_EQ(ReadText(base + "/merged/" + name), ReadText(base + "/whole/" + name)) << name;
  }
  // A whole run without --explain leaves no profiles behind, not even an
  // earlier run's.
  ASSERT_NE(run({"--out-dir=" + base + "/whole", "--replicates=200", "--threads=2", "--explain=0"}),
            1)
      << out;
  EXPECT_FALSE(std::filesystem::exists(base + "/whole/results.profiles.json"));
}

TEST_F(FleetDriverTest, FailingArmIsCountedByCauseNotDropped) {
  absl::StatusOr<v1::FleetSpec> spec = ReadFleetSpecFile(kTinySpec);
  ASSERT_TRUE(spec.ok());
  spec->set_arm_b("no_such_arm");
  spec->set_max_retries(2);
  absl::StatusOr<FleetPlan> plan = ExpandFleet(*spec, ShardSpec{});
  ASSERT_TRUE(plan.ok());
  DriverOptions options;
  options.addresses = {server_->address()};
  DriverStats stats;
  absl::StatusOr<ResultSet> results = RunFleet(*plan, options, &stats);
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->records().size(), plan->sessions.size());
  size_t failed = 0;
  for (const SessionRecord& r : results->records()) {
    if (r.arm == Arm::kB) {
      EXPECT_EQ(r.outcome, Outcome::kHarnessError);
      EXPECT_EQ(r.error_cause, "NOT_FOUND");
      EXPECT_EQ(r.retries, 0u);  // NOT_FOUND is not retryable
      ++failed;
    } else {
      EXPECT_EQ(r.outcome, Outcome::kOk);
    }
  }
  EXPECT_EQ(failed, 24u);
  EXPECT_EQ(stats.harness_errors, 24u);
  EXPECT_EQ(stats.failed_calls_by_code.at("NOT_FOUND"), 24u);
  EXPECT_EQ(stats.calls, 48u);
  EXPECT_NE(DescribeStats(stats).find("NOT_FOUND=24"), std::string::npos);
}

TEST_F(FleetDriverTest, UnreachableAddressIsRetriedAndCounted) {
  absl::StatusOr<v1::FleetSpec> spec = ReadFleetSpecFile(kTinySpec);
  ASSERT_TRUE(spec.ok());
  absl::StatusOr<FleetPlan> plan = ExpandFleet(*spec, ShardSpec{});
  ASSERT_TRUE(plan.ok());
  DriverOptions options;
  // Even devices try the dead address first, then move to the live one.
  options.addresses = {"127.0.0.1:1", server_->address()};
  DriverStats stats;
  absl::StatusOr<ResultSet> results = RunFleet(*plan, options, &stats);
  ASSERT_TRUE(results.ok()) << results.status();
  uint64_t retried = 0;
  for (const SessionRecord& r : results->records()) {
    EXPECT_EQ(r.outcome, Outcome::kOk) << r.error_cause;
    EXPECT_EQ(r.retries, r.device_id % 2 == 0 ? 1u : 0u);
    retried += r.retries;
  }
  EXPECT_EQ(retried, 24u);
  EXPECT_EQ(stats.retries, 24u);
  EXPECT_EQ(stats.failed_calls_by_code.at("UNAVAILABLE"), 24u);
  EXPECT_EQ(stats.harness_errors, 0u);
}

TEST_F(FleetDriverTest, OpenLoopGivesTheClosedLoopResults) {
  // Device times are virtual: the arrival process changes scheduling only.
  absl::StatusOr<v1::FleetSpec> spec = ReadFleetSpecFile(kTinySpec);
  ASSERT_TRUE(spec.ok());
  DriverOptions options;
  options.addresses = {server_->address()};
  DriverStats stats;
  absl::StatusOr<FleetPlan> closed = ExpandFleet(*spec, ShardSpec{});
  ASSERT_TRUE(closed.ok());
  absl::StatusOr<ResultSet> a = RunFleet(*closed, options, &stats);
  ASSERT_TRUE(a.ok()) << a.status();
  spec->mutable_arrival()->set_kind(v1::ArrivalProcess::OPEN_LOOP);
  spec->mutable_arrival()->set_rate_per_second(400);
  spec->mutable_arrival()->set_concurrency(2);
  absl::StatusOr<FleetPlan> open = ExpandFleet(*spec, ShardSpec{});
  ASSERT_TRUE(open.ok());
  absl::StatusOr<ResultSet> b = RunFleet(*open, options, &stats);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(ResultSetToJson(*a), ResultSetToJson(*b));
  EXPECT_GT(stats.wall_seconds, 47.0 / 400 * 0.5);  // paced by the arrivals
}

TEST_F(FleetDriverTest, HashedDesignRunsAndReports) {
  const std::string base = testing::MakeTempDir();
  absl::StatusOr<v1::FleetSpec> spec = ReadFleetSpecFile(kTinySpec);
  ASSERT_TRUE(spec.ok());
  spec->set_assignment(v1::ASSIGNMENT_HASHED);
  spec->set_devices(40);
  std::string text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(*spec, &text));
  std::ofstream(base + "/hashed.textproto") << text;
  std::string out;
  const int code =
      Cli({"run", "--spec=" + base + "/hashed.textproto", "--server=" + server_->address(),
           "--out-dir=" + base, "--progress=off", "--replicates=200", "--threads=2"},
          &out);
  ASSERT_NE(code, 1) << out;
  absl::StatusOr<ResultSet> results = ReadResultSetFile(base + "/results.json");
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ(results->info().design, Design::kHashed);
  EXPECT_EQ(results->records().size(), 40u * 2);  // one arm per device
  const nlohmann::json stats = nlohmann::json::parse(ReadText(base + "/results.driver.json"));
  EXPECT_EQ(stats["sessions"].get<uint64_t>(), 80u);
  EXPECT_EQ(stats["harness_errors"].get<uint64_t>(), 0u);
  EXPECT_TRUE(std::filesystem::exists(base + "/report.html"));
}

// Covariates through the server: a class whose devices differ in speed
// (test_device_variation, speed_sigma 0.2) beside one whose devices do not,
// a pre-period of one session, an A/A run. Every record carries its
// device's draw and pre-period median; the report adjusts the per-session
// geometric mean for each and the adjusted intervals are narrower.
TEST_F(FleetDriverTest, CovariatesReachTheRecordsAndNarrowTheMeanChange) {
  const std::string base = testing::MakeTempDir();
  absl::StatusOr<v1::FleetSpec> spec = ReadFleetSpecFile(kTinySpec);
  ASSERT_TRUE(spec.ok());
  spec->set_assignment(v1::ASSIGNMENT_HASHED);
  spec->set_arm_a("small_cnn.edgefleet");
  spec->set_arm_b("small_cnn.edgefleet");
  spec->clear_population();
  v1::ClassShare* varied = spec->add_population();
  varied->set_device_class("test_device_variation");
  varied->set_share(3);
  v1::ClassShare* alike = spec->add_population();
  alike->set_device_class("mid_android");
  alike->set_share(1);
  spec->set_devices(120);
  spec->set_sessions_per_device(1);
  spec->set_pre_period_sessions(1);
  spec->mutable_sampled()->set_real_devices(0);
  std::string text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(*spec, &text));
  std::ofstream(base + "/covariates.textproto") << text;
  std::string out;
  const int code =
      Cli({"run", "--spec=" + base + "/covariates.textproto", "--server=" + server_->address(),
           "--out-dir=" + base, "--progress=off", "--replicates=200", "--threads=2"},
          &out);
  ASSERT_NE(code, 1) << out;
  absl::StatusOr<ResultSet> results = ReadResultSetFile(base + "/results.json");
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->records().size(), 120u);  // pre-period sessions are not records
  std::set<double> factors;
  for (const SessionRecord& r : results->records()) {
    EXPECT_GT(r.pre_period_us, 0) << r.device_id;
    if (r.device_class == "mid_android") {
      EXPECT_EQ(r.device_time_factor, 1.0);
    } else {
      EXPECT_GT(r.device_time_factor, 0.3);
      EXPECT_LT(r.device_time_factor, 3.0);
      factors.insert(r.device_time_factor);
    }
  }
  EXPECT_EQ(factors.size(), 90u);  // one draw per device
  const nlohmann::json stats = nlohmann::json::parse(ReadText(base + "/results.driver.json"));
  EXPECT_EQ(stats["sessions"].get<uint64_t>(), 120u);
  EXPECT_EQ(stats["pre_period_sessions"].get<uint64_t>(), 120u);
  const nlohmann::json report = nlohmann::json::parse(ReadText(base + "/report.json"));
  const nlohmann::json& overall = report["scopes"][0];
  ASSERT_EQ(overall["name"], "overall");
  const nlohmann::json& steady = overall["metrics"][2];
  ASSERT_EQ(steady["metric"], "steady_latency");
  const nlohmann::json& mean = steady["session_mean"];
  ASSERT_EQ(mean["adjusted"].size(), 2u) << mean.dump();
  const double width =
      mean["unadjusted"]["upper"].get<double>() - mean["unadjusted"]["lower"].get<double>();
  for (const nlohmann::json& a : mean["adjusted"]) {
    printf("%s: unadjusted %s, adjusted %s\n", a["covariate"].get<std::string>().c_str(),
           mean["unadjusted"].dump().c_str(), a.dump().c_str());
    EXPECT_LT(a["variance_ratio"].get<double>(), 0.5) << a.dump();
    EXPECT_LT(a["upper"].get<double>() - a["lower"].get<double>(), 0.75 * width) << a.dump();
  }
  EXPECT_NE(ReadText(base + "/report.md").find("by device_time_factor"), std::string::npos);
}

// Writes `spec` as a textproto in a fresh directory; returns its path.
std::string WriteSpec(const v1::FleetSpec& spec) {
  const std::string path = testing::MakeTempDir() + "/spec.textproto";
  std::string text;
  google::protobuf::TextFormat::PrintToString(spec, &text);
  std::ofstream(path) << text;
  return path;
}

TEST_F(FleetDriverTest, MisspelledArmOrClassIsAnErrorNotAVerdict) {
  absl::StatusOr<v1::FleetSpec> spec = ReadFleetSpecFile(kTinySpec);
  ASSERT_TRUE(spec.ok());
  spec->set_arm_b("small_cnn.edgeflet");
  spec->mutable_population(0)->set_device_class("mid_andriod");
  const std::string dir = testing::MakeTempDir();
  std::string out;
  const int code = Cli({"run", "--spec", WriteSpec(*spec), "--server", server_->address(),
                        "--out-dir", dir, "--progress=off"},
                       &out);
  printf("%s", out.c_str());
  EXPECT_EQ(code, 1);
  EXPECT_NE(out.find("arm 'small_cnn.edgeflet'"), std::string::npos);
  EXPECT_NE(out.find("device class 'mid_andriod'"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir + "/results.json"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/report.json"));
}

TEST_F(FleetDriverTest, AnArmOnAClassItCannotRunOnIsAnErrorNotAVerdict) {
  // The old stack (libtorch) needs an OS; the microcontroller class has none.
  absl::StatusOr<v1::FleetSpec> spec = ReadFleetSpecFile(kTinySpec);
  ASSERT_TRUE(spec.ok());
  v1::ClassShare* share = spec->add_population();
  share->set_device_class("microcontroller");
  share->set_share(1);
  const std::string dir = testing::MakeTempDir();
  std::string out;
  const int code = Cli({"run", "--spec", WriteSpec(*spec), "--server", server_->address(),
                        "--out-dir", dir, "--progress=off"},
                       &out);
  printf("%s", out.c_str());
  EXPECT_EQ(code, 1);
  EXPECT_NE(out.find("arm 'small_cnn.pytorch-mobile' cannot run on device class "
                     "'microcontroller': the pytorch-mobile stack needs an OS"),
            std::string::npos);
  EXPECT_EQ(out.find("'small_cnn.edgefleet' cannot run"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir + "/results.json"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/report.json"));
}

TEST_F(FleetDriverTest, CampaignChecksItsServerFirst) {
  absl::StatusOr<v1::FleetSpec> spec = ReadFleetSpecFile(kTinySpec);
  ASSERT_TRUE(spec.ok());
  spec->set_arm_a("small_cnn.edgeflet");
  struct Case {
    std::string spec, server, words;
  };
  for (const Case& c :
       std::vector<Case>{{kTinySpec, "127.0.0.1:1", "is edgefleet-server running there?"},
                         {WriteSpec(*spec), server_->address(), "arm 'small_cnn.edgeflet'"},
                         // The effect arms the campaign derives must be on the server too.
                         {kTinySpec, server_->address(), "arm 'small_cnn.pytorch-mobile.x1.05'"}}) {
    const std::string dir = testing::MakeTempDir();
    std::string out;
    const auto start = std::chrono::steady_clock::now();
    const int code = Cli({"campaign", "--spec=" + c.spec, "--server=" + c.server, "--aa-runs=1",
                          "--effect-runs=1", "--effects=0.05", "--out-dir=" + dir},
                         &out);
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    printf("campaign --server=%s: exit %d after %.2f s: %s", c.server.c_str(), code, took,
           out.c_str());
    EXPECT_EQ(code, 1) << c.server;
    EXPECT_LT(took, 10.0) << c.server;
    EXPECT_NE(out.find(c.words), std::string::npos) << out;
    EXPECT_EQ(out.find("harness errors"), std::string::npos) << out;
    EXPECT_EQ(out.find("campaign small_cnn"), std::string::npos) << "a run started: " << out;
  }
}

TEST_F(FleetDriverTest, UnreachableOrMalformedServerFailsAtOnce) {
  for (const std::string& server :
       {std::string("127.0.0.1:1"), std::string("127.0.0.1"), std::string("127.0.0.1:99999"),
        server_->address() + ",localhost",
        // An empty element (an unset variable in a
        // script) is an error, not skipped.
        server_->address() + ",", server_->address() + ",," + server_->address()}) {
    const std::string dir = testing::MakeTempDir();
    std::string out;
    const auto start = std::chrono::steady_clock::now();
    const int code = Cli({"run", std::string("--spec=") + kTinySpec, "--server=" + server,
                          "--out-dir=" + dir, "--progress=off"},
                         &out);
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    printf("--server=%s: exit %d after %.2f s: %s", server.c_str(), code, took, out.c_str());
    EXPECT_EQ(code, 1) << server;
    EXPECT_LT(took, 10.0) << server;
    EXPECT_FALSE(std::filesystem::exists(dir + "/report.json")) << server;
  }
}

TEST_F(FleetDriverTest, PlanChecksItsPilotServerFirst) {
  absl::StatusOr<v1::FleetSpec> spec = ReadFleetSpecFile(kTinySpec);
  ASSERT_TRUE(spec.ok());
  spec->mutable_population(0)->set_device_class("mid_andriod");
  for (const auto& [spec_path, server] :
       {std::pair<std::string, std::string>{kTinySpec, "127.0.0.1:1"},
        {WriteSpec(*spec), server_->address()}}) {
    std::string out;
    const int code =
        Cli({"plan", "--spec=" + spec_path, "--server=" + server, "--pilot-devices=20"}, &out);
    printf("plan --server=%s: exit %d: %s", server.c_str(), code, out.c_str());
    EXPECT_EQ(code, 1) << server;
    EXPECT_EQ(out.find("pilot: "), std::string::npos) << "the pilot ran: " << server;
    EXPECT_EQ(out.find("power plan"), std::string::npos) << "a plan was printed: " << server;
  }
}

TEST_F(FleetDriverTest, AnOutputDirectoryThatCannotBeWrittenFailsBeforeTheRun) {
  const std::string dir = testing::MakeTempDir();
  { std::ofstream(dir + "/a-file") << "not a directory"; }
  for (const std::string& flag :
       {"--out-dir=" + dir + "/a-file/reports", "--out=" + dir + "/a-file/results.json"}) {
    std::string out;
    const int code = Cli({"run", std::string("--spec=") + kTinySpec,
                          "--server=" + server_->address(), flag, "--progress=off"},
                         &out);
    printf("%s: exit %d: %s", flag.c_str(), code, out.c_str());
    EXPECT_EQ(code, 1) << flag;
    EXPECT_NE(out.find("output directory " + dir + "/a-file"), std::string::npos) << flag;
    EXPECT_EQ(out.find("driver: "), std::string::npos) << "sessions ran first: " << flag;
  }
}

TEST_F(FleetDriverTest, TooManyHarnessErrorsIsAnErrorNotAVerdict) {
  absl::StatusOr<v1::FleetSpec> spec = ReadFleetSpecFile(kTinySpec);
  ASSERT_TRUE(spec.ok());
  // Every session runs for real, 200 inferences: far longer than its 1 ms
  // call deadline, so every call fails (and its retries).
  spec->set_devices(4);
  spec->set_inferences_per_session(200);
  spec->mutable_sampled()->set_enabled(false);
  spec->set_call_timeout_ms(1);
  spec->set_max_retries(1);
  const std::string dir = testing::MakeTempDir();
  std::string out;
  const int code = Cli({"run", "--spec=" + WriteSpec(*spec), "--server=" + server_->address(),
                        "--out-dir=" + dir, "--progress=off"},
                       &out);
  printf("%s", out.c_str());
  EXPECT_EQ(code, 1);
  EXPECT_NE(out.find("16 of 16 sessions failed in the harness"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir + "/results.driver.json"));  // kept to diagnose
  EXPECT_FALSE(std::filesystem::exists(dir + "/report.json"));
}

TEST_F(FleetDriverTest, OneCalibrationIsHandedToEveryServer) {
  // A second server without a calibration file measures its own on start.
  testing::ServerProcess other;
  ASSERT_TRUE(other.Start(testing::DefaultServerFlags())) << other.log();
  auto fingerprint = [](const testing::ServerProcess& server) {
    grpc::ClientContext context;
    v1::GetCalibrationRequest request;
    request.add_arms("small_cnn.pytorch-mobile");
    request.add_arms("small_cnn.edgefleet");
    v1::GetCalibrationResponse response;
    const grpc::Status status = EmulatorStub(server)->GetCalibration(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.fingerprint();
  };
  const std::string first = fingerprint(*server_);
  const std::string before = fingerprint(other);
  printf("calibrations before: %s (first server) %s (second)\n", first.c_str(), before.c_str());
  EXPECT_NE(first, before);  // measured separately, they differ
  const std::string dir = testing::MakeTempDir();
  std::string out;
  const int code = Cli({"run", std::string("--spec=") + kTinySpec,
                        "--server=" + server_->address() + "," + other.address(),
                        "--out-dir=" + dir, "--progress=off", "--replicates=200", "--threads=2"},
                       &out);
  ASSERT_NE(code, 1) << out;
  EXPECT_EQ(fingerprint(other), first);
  EXPECT_NE(out.find("calibration " + first), std::string::npos) << out;
  absl::StatusOr<ResultSet> results = ReadResultSetFile(dir + "/results.json");
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ(results->info().calibration, first);
  EXPECT_NE(ReadText(dir + "/report.md").find("host calibration " + first), std::string::npos);
  EXPECT_EQ(other.Terminate(), 0);
}

TEST_F(FleetDriverTest, ACalibrationFileIsHandedToTheServers) {
  // The suite's server already uses this file: handing it over changes
  // nothing, and the run records its fingerprint.
  const std::string dir = testing::MakeTempDir();
  std::string out;
  const int code = Cli({"run", std::string("--spec=") + kTinySpec, "--server=" + server_->address(),
                        "--out-dir=" + dir, "--progress=off", "--replicates=200", "--threads=2",
                        std::string("--calibration=") + EF_TEST_CALIBRATION},
                       &out);
  ASSERT_NE(code, 1) << out;
  absl::StatusOr<ResultSet> results = ReadResultSetFile(dir + "/results.json");
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ(results->info().calibration.size(), 16u);
  EXPECT_NE(out.find("calibration " + results->info().calibration + " (from " +
                     EF_TEST_CALIBRATION + ")"),
            std::string::npos)
      << out;
  // A calibration without the spec's arms' costs is refused before any session.
  const std::string empty = testing::MakeTempDir() + "/reference_only.textproto";
  std::ofstream(empty) << "reference_model: \"mobilenet_v2_035\" reference_mac_ratio: 28.197 "
                          "reference_host_us: 10000\n";
  const int refused =
      Cli({"run", std::string("--spec=") + kTinySpec, "--server=" + server_->address(),
           "--out-dir=" + dir + "/x", "--progress=off", "--calibration=" + empty},
          &out);
  EXPECT_EQ(refused, 1);
  EXPECT_NE(out.find("has no host cost for arm"), std::string::npos) << out;
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet
