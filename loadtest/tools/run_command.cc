// `edgefleet-loadtest run`: preflight the servers, drive the fleet (or one
// shard of it; group-sequential with --looks), write the results and, for
// the whole fleet, the reports.

#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "loadtest/driver/driver.h"
#include "loadtest/driver/fleet_plan.h"
#include "loadtest/driver/preflight.h"
#include "loadtest/driver/profiles.h"
#include "loadtest/report/exit_code.h"
#include "loadtest/report/profiles_file.h"
#include "loadtest/results/results_json.h"
#include "loadtest/stats/sequential.h"
#include "loadtest/tools/command_support.h"
#include "loadtest/tools/driver_commands.h"
#include "loadtest/tools/experiment_runner.h"
#include "loadtest/tools/usage.h"
#include "service/admin_token.h"
#include "service/transport_security.h"

namespace edgefleet {
namespace loadtest {
namespace cli {
namespace {

// The report's view of a Profile answer: device us per class and per
// operator name (summed over the operator's executions).
DeviceTimeBreakdown ToBreakdown(const v1::ProfileResponse& profile) {
  DeviceTimeBreakdown out;
  out.device_class = profile.device_class();
  out.device_us = profile.device_us();
  for (const v1::OpClassDeviceTime& c : profile.classes()) {
    std::string name = v1::OpClass_Name(c.op_class());
    if (name.rfind("OP_CLASS_", 0) == 0) name = name.substr(9);
    for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (c.device_us() > 0) out.classes[name] += c.device_us();
  }
  for (const v1::OperatorDeviceTime& op : profile.operators()) {
    out.operators[op.name()] += op.device_us();
  }
  return out;
}

}  // namespace

// --server's comma-separated addresses, each checked (CheckAddress): an
// empty element ("A," or "A,,B") is an error, not skipped.
absl::StatusOr<std::vector<std::string>> ServerAddresses(const std::string& list) {
  std::vector<std::string> addresses = absl::StrSplit(list, ',');
  for (const std::string& address : addresses) {
    if (absl::Status s = CheckAddress(address); !s.ok()) return s;
  }
  return addresses;
}

int Run(Flags& flags, std::ostream& out, std::ostream& err) {
  const std::string spec_path = flags.GetString("spec", "");
  const std::string servers = flags.GetString("server", "");
  const std::string shard_text = flags.GetString("shard", "0/1");
  const std::filesystem::path dir = flags.GetString("out-dir", ".");
  std::string results_path = flags.GetString("out", "");
  const int64_t concurrency = flags.GetInt("concurrency", 0);
  const std::string progress = flags.GetString("progress", "auto");
  const std::string calibration_path = flags.GetString("calibration", "");
  const double max_harness_errors = flags.GetDouble("max-harness-errors", 0.01);
  const service::ClientTlsFiles tls{flags.GetString("tls_ca", ""), flags.GetString("tls_cert", ""),
                                    flags.GetString("tls_key", "")};
  const std::string tls_server_name = flags.GetString("tls_server_name", "");
  const std::string admin_token_file = flags.GetString("admin_token_file", "");
  const int64_t looks = flags.GetInt("looks", 1);
  const bool explain = flags.GetInt("explain", 1) != 0;
  AnalysisOptions o = ReportOptions(flags);
  const std::string spending = flags.GetString("spending", SpendingName(o.spending));
  if (flags.help()) return Help(flags, kRunUsage, out, err);
  if (absl::Status st = flags.Finish(); !st.ok()) return Fail(err, st);
  if (!ParseSpending(spending, &o.spending)) return Fail(err, BadSpending());
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      service::MakeChannelCredentials(tls);
  if (!credentials.ok()) return Fail(err, credentials.status());
  if (spec_path.empty() || servers.empty()) {
    return Fail(err, absl::InvalidArgumentError("--spec and --server are required"));
  }
  if (progress != "auto" && progress != "on" && progress != "off") {
    return Fail(err, absl::InvalidArgumentError("--progress: auto, on or off"));
  }
  if (!(max_harness_errors >= 0 && max_harness_errors <= 1)) {
    return Fail(err, absl::InvalidArgumentError("--max-harness-errors must be in [0, 1]"));
  }
  if (absl::Status st = CheckReportOptions(o); !st.ok()) return Fail(err, st);
  if (looks < 1 || looks > 100) {
    return Fail(err, absl::InvalidArgumentError("--looks must be in [1, 100]"));
  }
  absl::StatusOr<ShardSpec> shard = ShardSpec::Parse(shard_text);
  if (!shard.ok()) return Fail(err, shard.status());
  if (looks > 1 && !shard->IsWhole()) {
    return Fail(err, absl::InvalidArgumentError(
                         "--looks needs the whole fleet (a shard cannot stop early)"));
  }
  if (results_path.empty()) {
    results_path = (dir / (shard->IsWhole() ? std::string("results.json")
                                            : "results.shard-" + std::to_string(shard->index) +
                                                  "-of-" + std::to_string(shard->count) + ".json"))
                       .string();
  }
  // Where the outputs go must take them before any session runs.
  for (const std::filesystem::path& d : {dir, std::filesystem::path(results_path).parent_path()}) {
    if (absl::Status st = WritableDirectory(d); !st.ok()) return Fail(err, st);
  }
  absl::StatusOr<v1::FleetSpec> spec = ReadFleetSpecFile(spec_path);
  if (!spec.ok()) return Fail(err, spec.status());
  if (concurrency > 0) {
    spec->mutable_arrival()->set_concurrency(static_cast<uint32_t>(concurrency));
  }
  absl::StatusOr<FleetPlan> plan = ExpandFleet(*std::move(spec), *shard);
  if (!plan.ok()) return Fail(err, plan.status());
  DriverOptions options;
  absl::StatusOr<std::vector<std::string>> addresses = ServerAddresses(servers);
  if (!addresses.ok()) return Fail(err, addresses.status());
  options.addresses = *std::move(addresses);
  options.credentials = *std::move(credentials);
  options.tls_server_name = tls_server_name;
  PreflightOptions preflight_options;
  preflight_options.addresses = options.addresses;
  preflight_options.credentials = options.credentials;
  preflight_options.tls_server_name = options.tls_server_name;
  if (!admin_token_file.empty()) {
    absl::StatusOr<std::unique_ptr<service::AdminToken>> token =
        service::AdminToken::FromFile(admin_token_file);
    if (!token.ok()) return Fail(err, token.status());
    preflight_options.authorization = (*token)->AuthorizationValue();
  }
  if (!calibration_path.empty()) {
    absl::StatusOr<v1::HostCalibration> calibration = ReadCalibrationFile(calibration_path);
    if (!calibration.ok()) return Fail(err, calibration.status());
    preflight_options.calibration = *std::move(calibration);
  }
  absl::StatusOr<PreflightResult> preflight = Preflight(plan->spec, preflight_options);
  if (!preflight.ok()) return Fail(err, preflight.status());
  plan->info.calibration = preflight->calibration_fingerprint;
  out << "calibration " << preflight->calibration_fingerprint << " (from "
      << (calibration_path.empty() ? preflight->calibration_source : calibration_path) << ") on "
      << options.addresses.size() << " server(s)\n";
  ProfilePairs pairs;  // saved with the results, for `report`
  std::vector<ClassExplanation> explanation;
  if (explain && shard->IsWhole()) {
    ProfileFetchOptions fetch;
    fetch.address = options.addresses.front();
    fetch.credentials = options.credentials;
    fetch.tls_server_name = options.tls_server_name;
    absl::StatusOr<std::vector<std::pair<v1::ProfileResponse, v1::ProfileResponse>>> profiles =
        FetchProfiles(plan->spec, fetch);
    if (profiles.ok()) {
      for (const auto& [a, b] : *profiles) pairs.emplace_back(ToBreakdown(a), ToBreakdown(b));
      explanation = Explain(pairs);
      out << "device-time profiles of both arms on " << pairs.size() << " class(es) from "
          << fetch.address << "\n";
    } else {
      // The verdict does not depend on the section: run without it, and say why.
      err << "edgefleet-loadtest: warning: the reports leave out \"what explains the "
             "difference\": "
          << profiles.status().message() << "\n";
    }
  }
  const bool tty = isatty(STDERR_FILENO) != 0;
  if (progress == "on" || (progress == "auto" && tty)) options.progress = &err;
  DriverStats stats;
  absl::StatusOr<ResultSet> results = absl::UnknownError("not run");
  Report sequential_report;
  if (looks > 1) {
    absl::StatusOr<ExperimentOutcome> outcome =
        RunExperiment(*plan, options, o, static_cast<int>(looks));
    if (!outcome.ok()) return Fail(err, outcome.status());
    stats = outcome->stats;
    results = std::move(outcome->results);
    sequential_report = std::move(outcome->report);
  } else {
    results = RunFleet(*plan, options, &stats);
  }
  if (!results.ok()) return Fail(err, results.status());
  out << "driver: " << DescribeStats(stats) << "\n";
  if (absl::Status st = WriteResultSetFile(*results, results_path); !st.ok()) {
    return Fail(err, st);
  }
  const std::filesystem::path stats_path =
      std::filesystem::path(results_path).replace_extension(".driver.json");
  if (absl::Status st = WriteFile(stats_path, DriverStatsToJson(stats)); !st.ok()) {
    return Fail(err, st);
  }
  // The profiles beside the results, or none (not a stale one of an
  // earlier run: `report` would take it for this run's).
  const std::string profiles_path = ProfilesPathFor(results_path);
  std::error_code ignored;
  std::filesystem::remove(profiles_path, ignored);
  if (!pairs.empty()) {
    if (absl::Status st = WriteProfilesFile(pairs, profiles_path); !st.ok()) return Fail(err, st);
  }
  out << "wrote " << results->records().size() << " session records to " << results_path
      << " (call accounting: " << stats_path.string()
      << (pairs.empty() ? "" : ", device-time profiles: " + profiles_path) << ")\n";
  if (stats.harness_errors > max_harness_errors * static_cast<double>(stats.sessions)) {
    return Fail(err, absl::UnavailableError(absl::StrCat(
                         stats.harness_errors, " of ", stats.sessions,
                         " sessions failed in the harness (over --max-harness-errors ",
                         max_harness_errors, "): no verdict; see ", stats_path.string())));
  }
  if (!shard->IsWhole()) {
    out << "shard " << shard->ToString()
        << ": merge all shards with `edgefleet-loadtest merge`, then `report`\n";
    return kExitPass;
  }
  if (looks > 1) {
    sequential_report.explanation = std::move(explanation);
    return WriteReport(sequential_report, dir, out, err);
  }
  return WriteReports(*results, o, dir, out, err, explanation);
}

}  // namespace cli
}  // namespace loadtest
}  // namespace edgefleet
