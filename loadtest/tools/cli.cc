#include "loadtest/tools/cli.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "loadtest/report/analysis.h"
#include "loadtest/report/exit_code.h"
#include "loadtest/report/explanation.h"
#include "loadtest/report/html_report.h"
#include "loadtest/report/json_report.h"
#include "loadtest/report/markdown_report.h"
#include "loadtest/report/plan.h"
#include "loadtest/results/results_json.h"
#include "loadtest/stats/sequential.h"
#include "loadtest/testing/synthetic_fleet.h"
#include "loadtest/tools/flags.h"

#ifdef EF_LOADTEST_HAVE_DRIVER
#include <unistd.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "loadtest/driver/driver.h"
#include "loadtest/driver/fleet_plan.h"
#include "loadtest/driver/preflight.h"
#include "loadtest/driver/profiles.h"
#include "loadtest/tools/campaign.h"
#include "loadtest/tools/experiment_runner.h"
#include "service/admin_token.h"
#include "service/transport_security.h"
#endif

namespace edgefleet {
namespace loadtest {
namespace {

constexpr char kRunUsage[] =
    R"(usage: edgefleet-loadtest run --spec FLEET.textproto --server HOST:PORT[,HOST:PORT...] [flags]
  Checks the servers first (reachable, the spec's arms and device classes
  exist, one calibration handed to all), runs the fleet, writes the results
  and, for the whole fleet, the reports; exits with the verdict's code.
  --spec FILE              fleet spec, an edgefleet.v1.FleetSpec textproto (required)
  --server LIST            edgefleet-server addresses, HOST:PORT[,HOST:PORT...] (required)
  --shard i/n              run shard i of n only (0/1: the whole fleet)
  --out-dir DIR            where every output goes (.)
  --out FILE               the results file (DIR/results.json; a shard:
                           DIR/results.shard-i-of-n.json); call accounting goes
                           beside it as *.driver.json
  --concurrency N          override the spec's arrival.concurrency (0: keep the spec's)
  --progress MODE          auto, on or off: progress bar on stderr (auto: when a terminal)
  --looks K                group-sequential: K looks, stop at the first decided one (1)
  --spending NAME          alpha spending over the looks: obrien-fleming or pocock
                           (obrien-fleming)
  --calibration FILE       a HostCalibration textproto handed to every server
                           (default: the first server's, handed to the others)
  --max-harness-errors X   fraction of sessions whose calls failed above which
                           the run is an error, not a verdict (0.01)
  --tls_ca FILE            TLS: trust servers signed by this CA (PEM); plaintext without
  --tls_cert FILE, --tls_key FILE  TLS: client certificate and key (mutual TLS)
  --tls_server_name NAME   TLS: the name to verify instead of the address's host
  --admin_token_file FILE  the servers' admin token, sent with SetCalibration (servers
                           started with --admin_token_file require it)
  --explain 1|0            whole fleet: before the sessions, ask the first server for
                           both arms' device-time profiles on every class (Profile RPC)
                           for the reports' "what explains the difference" section (1;
                           a server that cannot answer leaves it out, with a warning)
  report flags (whole fleet), as `report`: --confidence X (0.95), --min-effect X (0.05),
                           --replicates N (1000), --threads N (the host's cores),
                           --stratify 1|0 (1)
  Whole-fleet outputs in DIR: results.json, results.driver.json, report.json,
  report.md, report.html.
)";

constexpr char kSynthUsage[] =
    R"(usage: edgefleet-loadtest synth --out FILE [flags]
  Writes a synthetic fleet's results (no server needed).
  --out FILE               results file to write (required)
  --devices N              devices (1000)
  --sessions N             sessions per device (1)
  --inferences N           inferences per session (20)
  --seed N                 seed (1)
  --design D               paired or hashed (paired)
  --share-b X              hashed design: share of devices on B (0.5)
  --shard i/n              write shard i of n only (0/1)
  --latency-b X            B's latency multiplier (1)
  --load-b X               B's load-time multiplier (1)
  --memory-b X             B's memory multiplier (1)
  --anr-b X                B's ANR-rate multiplier (1)
  --oom-b X                B's OOM-rate multiplier (1)
  --stack-error-b X        B's stack error rate (0)
  --effect-class NAME      apply B's effects to this device class only (all)
  --harness-error-rate X   share of sessions that are harness errors (0)
)";

constexpr char kMergeUsage[] =
    R"(usage: edgefleet-loadtest merge --out FILE SHARD.json...
  Combines the complete set of shard result files of one experiment.
  --out FILE               merged results file to write (required)
)";

constexpr char kReportUsage[] =
    R"(usage: edgefleet-loadtest report [flags] RESULTS.json...
  Analyses result files (shards are merged on the fly), writes report.json,
  report.md and report.html, prints the Markdown; exits with the verdict's code.
  --out-dir DIR            where the reports go (.)
  --confidence X           confidence of the intervals (0.95)
  --min-effect X           smallest relative change that counts (0.05)
  --replicates N           bootstrap replicates (1000)
  --threads N              analysis threads (the host's cores)
  --stratify 1|0           fleet-wide figures as the mixture of the classes at the
                           spec's shares (1), or over pooled sessions (0)
)";

constexpr char kPlanUsage[] =
    R"(usage: edgefleet-loadtest plan --spec FLEET.textproto (--server HOST:PORT | --pilot RESULTS.json) [flags]
  Sizes an experiment before it runs: devices and sessions per class and
  fleet-wide to decide each metric, and to show the ANR rate below its guardrail.
  --spec FILE              fleet spec (required)
  --server HOST:PORT       run a pilot there (sampled mode)
  --pilot FILE             or use these pilot results
  --pilot-devices N        pilot size (2000)
  --metric NAME            metric to size (steady_latency)
  --effect X               relative change to detect (0.05)
  --quantile X             quantile of the metric (0.9)
  --power X                power (0.8)
  report flags, as `report`: --confidence X, --min-effect X, --replicates N, --threads N,
                           --stratify 1|0
)";

constexpr char kCampaignUsage[] =
    R"(usage: edgefleet-loadtest campaign --spec FLEET.textproto --server HOST:PORT [flags]
  Calibrates the statistics: A/A experiments and injected-effect experiments
  through a real server (loadtest/tools/campaign.sh; docs/statistics.md).
  --spec FILE              fleet spec (required)
  --server HOST:PORT       edgefleet-server address (required)
  --out-dir DIR            where the campaign's results go (.)
  --aa-runs N              A/A experiments (200)
  --effect-runs N          experiments per injected effect (50)
  --effects LIST           injected slowdowns (0.03,0.05,0.10)
  --effect-class C         inject on this device class only (all)
  --looks K                group-sequential looks per experiment (1)
  --spending NAME          alpha spending over the looks: obrien-fleming or pocock
                           (obrien-fleming)
  --devices N              devices per experiment (the spec's)
  report flags, as `report`: --confidence X, --min-effect X, --replicates N, --threads N,
                           --stratify 1|0
)";

constexpr char kHelpFlags[] =
    R"(  -h, --help               this text
  Flags are --name=value or --name value.
)";

constexpr char kExitCodes[] =
    R"(exit codes: 0 pass, 1 error (bad input, unreachable server, unknown arm or
  device class, an arm on a class the server cannot run it on, too many
  harness errors), 2 regression, 3 inconclusive, 4 invalid (sample-ratio
  mismatch)
)";

std::string Usage() {
  return std::string(
             "usage: edgefleet-loadtest <command> [flags] [files]\n"
             "commands: run, plan, campaign, synth, merge, report; "
             "`edgefleet-loadtest <command> --help` (or -h) for its flags.\n"
             "Flags are --name=value or --name value.\n\n") +
         kRunUsage + "\n" + kPlanUsage + "\n" + kCampaignUsage + "\n" + kSynthUsage + "\n" +
         kMergeUsage + "\n" + kReportUsage + "\n" + kExitCodes;
}

// For --help: prints `usage`, checking that it names every flag the command
// read (a flag missing from its help is a bug: exit 1 saying which).
int Help(const Flags& flags, const char* usage, std::ostream& out, std::ostream& err) {
  const std::string text = usage;
  for (const std::string& name : flags.used()) {
    if (text.find("--" + name + " ") == std::string::npos &&
        text.find("--" + name + ",") == std::string::npos &&
        text.find("--" + name + "\n") == std::string::npos) {
      err << "edgefleet-loadtest: internal: flag --" << name << " is not in the help\n";
      return kExitError;
    }
  }
  out << text << kHelpFlags << kExitCodes;
  return kExitPass;
}

// Creates `dir` (empty: the current directory) if needed; an error unless
// it is a directory this process can write.
absl::Status WritableDirectory(const std::filesystem::path& dir) {
  const std::filesystem::path d = dir.empty() ? std::filesystem::path(".") : dir;
  std::error_code ec;
  std::filesystem::create_directories(d, ec);
  if (ec || !std::filesystem::is_directory(d)) {
    return absl::FailedPreconditionError("cannot create the output directory " + d.string() +
                                         (ec ? ": " + ec.message() : ""));
  }
  if (access(d.c_str(), W_OK) != 0) {
    return absl::FailedPreconditionError("the output directory " + d.string() +
                                         " is not writable: " + std::strerror(errno));
  }
  return absl::OkStatus();
}

int Fail(std::ostream& err, const absl::Status& status) {
  err << "edgefleet-loadtest: " << status.message() << "\n";
  return kExitError;
}

absl::Status WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) return absl::UnavailableError("cannot write " + path.string());
  return absl::OkStatus();
}

// Reads result files and combines them: one whole-fleet file, or the
// complete set of shards of one experiment.
absl::StatusOr<ResultSet> ReadAndMerge(const std::vector<std::string>& paths) {
  if (paths.empty()) return absl::InvalidArgumentError("no result files given");
  std::vector<ResultSet> parts;
  for (const std::string& path : paths) {
    absl::StatusOr<ResultSet> part = ReadResultSetFile(path);
    if (!part.ok()) return part.status();
    parts.push_back(*std::move(part));
  }
  return MergeShards(std::move(parts));
}

int Synth(Flags& flags, std::ostream& out, std::ostream& err) {
  SyntheticFleetOptions o;
  const std::string path = flags.GetString("out", "");
  o.devices = static_cast<uint64_t>(flags.GetInt("devices", 1000));
  o.sessions_per_device = static_cast<uint32_t>(flags.GetInt("sessions", 1));
  o.inferences_per_session = static_cast<uint32_t>(flags.GetInt("inferences", 20));
  o.seed = static_cast<uint64_t>(flags.GetInt("seed", 1));
  const std::string design = flags.GetString("design", "paired");
  o.share_b = flags.GetDouble("share-b", 0.5);
  const std::string shard = flags.GetString("shard", "0/1");
  o.effect_b.latency = flags.GetDouble("latency-b", 1);
  o.effect_b.load = flags.GetDouble("load-b", 1);
  o.effect_b.memory = flags.GetDouble("memory-b", 1);
  o.effect_b.anr = flags.GetDouble("anr-b", 1);
  o.effect_b.oom = flags.GetDouble("oom-b", 1);
  o.effect_b.stack_error_rate = flags.GetDouble("stack-error-b", 0);
  o.effect_class = flags.GetString("effect-class", "");
  o.harness_error_rate = flags.GetDouble("harness-error-rate", 0);
  if (flags.help()) return Help(flags, kSynthUsage, out, err);
  if (absl::Status st = flags.Finish(); !st.ok()) return Fail(err, st);
  if (path.empty()) return Fail(err, absl::InvalidArgumentError("--out is required"));
  if (!ParseDesign(design, &o.design)) {
    return Fail(err, absl::InvalidArgumentError("--design: paired or hashed"));
  }
  absl::StatusOr<ShardSpec> spec = ShardSpec::Parse(shard);
  if (!spec.ok()) return Fail(err, spec.status());
  o.shard = *spec;
  const ResultSet results = GenerateSyntheticFleet(o);
  if (absl::Status st = WriteResultSetFile(results, path); !st.ok()) {
    return Fail(err, st);
  }
  out << "wrote " << results.records().size() << " session records to " << path << "\n";
  return kExitPass;
}

int Merge(Flags& flags, std::ostream& out, std::ostream& err) {
  const std::string path = flags.GetString("out", "");
  if (flags.help()) return Help(flags, kMergeUsage, out, err);
  if (absl::Status st = flags.Finish(); !st.ok()) return Fail(err, st);
  if (path.empty()) return Fail(err, absl::InvalidArgumentError("--out is required"));
  absl::StatusOr<ResultSet> merged = ReadAndMerge(flags.positional());
  if (!merged.ok()) return Fail(err, merged.status());
  if (absl::Status st = WriteResultSetFile(*merged, path); !st.ok()) {
    return Fail(err, st);
  }
  out << "merged " << flags.positional().size() << " file(s), " << merged->records().size()
      << " session records, into " << path << "\n";
  return kExitPass;
}

// Reads the report flags shared by `report` and `run`.
absl::Status BadSpending() {
  return absl::InvalidArgumentError("--spending must be obrien-fleming or pocock");
}

AnalysisOptions ReportOptions(Flags& flags) {
  AnalysisOptions o;
  o.confidence = flags.GetDouble("confidence", o.confidence);
  o.min_effect = flags.GetDouble("min-effect", o.min_effect);
  o.bootstrap_replicates = static_cast<int>(flags.GetInt("replicates", o.bootstrap_replicates));
  o.threads =
      static_cast<int>(flags.GetInt("threads", std::max(1u, std::thread::hardware_concurrency())));
  o.stratify = flags.GetInt("stratify", 1) != 0;
  return o;
}

absl::Status CheckReportOptions(const AnalysisOptions& o) {
  if (!(o.confidence > 0 && o.confidence < 1) || !(o.min_effect >= 0) ||
      o.bootstrap_replicates < 1 || o.bootstrap_replicates > 1000000) {
    return absl::InvalidArgumentError(
        "need 0 < confidence < 1, min-effect >= 0, 1 <= replicates <= 1e6");
  }
  return absl::OkStatus();
}

// Writes report.{json,md,html} of `report` into `dir`, prints the Markdown
// and the HTML path; returns the exit-code policy's code. WriteReports
// analyses `results` first.
int WriteReport(const Report& report, const std::filesystem::path& dir, std::ostream& out,
                std::ostream& err) {
  if (absl::Status st = WritableDirectory(dir); !st.ok()) return Fail(err, st);
  const std::string markdown = RenderMarkdownReport(report);
  for (const auto& [name, text] :
       {std::pair<const char*, std::string>{"report.json", RenderJsonReport(report)},
        {"report.md", markdown},
        {"report.html", RenderHtmlReport(report)}}) {
    if (absl::Status st = WriteFile(dir / name, text); !st.ok()) {
      return Fail(err, st);
    }
  }
  out << markdown << "\nHTML report: " << std::filesystem::absolute(dir / "report.html").string()
      << "\n";
  return ExitCodeFor(report.status);
}

int WriteReports(const ResultSet& results, const AnalysisOptions& o,
                 const std::filesystem::path& dir, std::ostream& out, std::ostream& err,
                 const std::vector<ClassExplanation>& explanation = {}) {
  if (absl::Status st = CheckReportOptions(o); !st.ok()) return Fail(err, st);
  Report report = Analyze(Aggregate(results), o);
  report.explanation = explanation;
  return WriteReport(report, dir, out, err);
}

int ReportCommand(Flags& flags, std::ostream& out, std::ostream& err) {
  const std::filesystem::path dir = flags.GetString("out-dir", ".");
  const AnalysisOptions o = ReportOptions(flags);
  if (flags.help()) return Help(flags, kReportUsage, out, err);
  if (absl::Status st = flags.Finish(); !st.ok()) return Fail(err, st);
  absl::StatusOr<ResultSet> results = ReadAndMerge(flags.positional());
  if (!results.ok()) return Fail(err, results.status());
  return WriteReports(*results, o, dir, out, err);
}

#ifdef EF_LOADTEST_HAVE_DRIVER
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
  std::vector<ClassExplanation> explanation;
  if (explain && shard->IsWhole()) {
    ProfileFetchOptions fetch;
    fetch.address = options.addresses.front();
    fetch.credentials = options.credentials;
    fetch.tls_server_name = options.tls_server_name;
    absl::StatusOr<std::vector<std::pair<v1::ProfileResponse, v1::ProfileResponse>>> profiles =
        FetchProfiles(plan->spec, fetch);
    if (profiles.ok()) {
      std::vector<std::pair<DeviceTimeBreakdown, DeviceTimeBreakdown>> pairs;
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
  out << "wrote " << results->records().size() << " session records to " << results_path
      << " (call accounting: " << stats_path.string() << ")\n";
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

bool ParseMetric(const std::string& name, Metric* metric) {
  for (Metric m : kAllMetrics) {
    if (name == MetricName(m)) {
      *metric = m;
      return true;
    }
  }
  return false;
}

int PlanCommand(Flags& flags, std::ostream& out, std::ostream& err) {
  const std::string spec_path = flags.GetString("spec", "");
  const std::string server = flags.GetString("server", "");
  const std::string pilot_path = flags.GetString("pilot", "");
  const int64_t pilot_devices = flags.GetInt("pilot-devices", 2000);
  const std::string metric = flags.GetString("metric", "steady_latency");
  PlanOptions po;
  po.effect = flags.GetDouble("effect", po.effect);
  po.quantile = flags.GetDouble("quantile", po.quantile);
  po.power = flags.GetDouble("power", po.power);
  if (flags.help()) return Help(flags, kPlanUsage, out, err);
  const AnalysisOptions o = ReportOptions(flags);
  if (absl::Status st = flags.Finish(); !st.ok()) return Fail(err, st);
  if (absl::Status st = CheckReportOptions(o); !st.ok()) return Fail(err, st);
  if (spec_path.empty() || server.empty() == pilot_path.empty()) {
    return Fail(err, absl::InvalidArgumentError(
                         "--spec and exactly one of --server, --pilot are required"));
  }
  if (!ParseMetric(metric, &po.metric)) {
    return Fail(err, absl::InvalidArgumentError("--metric: unknown metric " + metric));
  }
  if (!(po.effect > -1 && po.effect != 0 && std::isfinite(po.effect)) ||
      !(po.quantile > 0 && po.quantile < 1) || !(po.power > 0 && po.power < 1) ||
      pilot_devices < 2 || pilot_devices > 1000000) {
    return Fail(err, absl::InvalidArgumentError("need effect > -1 and != 0, 0 < quantile < 1, "
                                                "0 < power < 1, 2 <= pilot-devices <= 1e6"));
  }
  absl::StatusOr<v1::FleetSpec> spec = ReadFleetSpecFile(spec_path);
  if (!spec.ok()) return Fail(err, spec.status());
  absl::StatusOr<FleetPlan> target = ExpandFleet(*spec, ShardSpec{});
  if (!target.ok()) return Fail(err, target.status());
  absl::StatusOr<ResultSet> pilot = absl::UnknownError("no pilot");
  if (!pilot_path.empty()) {
    pilot = ReadAndMerge({pilot_path});
  } else {
    // Pilot: the spec's arms, paired (both arms on every device), every
    // device sampled (the arms' calibrated costs), pilot_devices devices.
    v1::FleetSpec p = target->spec;
    p.set_devices(static_cast<uint64_t>(pilot_devices));
    p.set_assignment(v1::ASSIGNMENT_PAIRED);
    p.mutable_sampled()->set_enabled(true);
    p.mutable_sampled()->set_real_devices(0);
    absl::StatusOr<FleetPlan> pilot_plan = ExpandFleet(p, ShardSpec{});
    if (!pilot_plan.ok()) return Fail(err, pilot_plan.status());
    DriverOptions options;
    absl::StatusOr<std::vector<std::string>> addresses = ServerAddresses(server);
    if (!addresses.ok()) return Fail(err, addresses.status());
    options.addresses = *std::move(addresses);
    // As `run`: an unreachable server or a spec naming what it lacks is an
    // error, not a plan made of harness errors.
    PreflightOptions preflight;
    preflight.addresses = options.addresses;
    if (absl::StatusOr<PreflightResult> checked = Preflight(p, preflight); !checked.ok()) {
      return Fail(err, checked.status());
    }
    DriverStats stats;
    pilot = RunFleet(*pilot_plan, options, &stats);
    if (pilot.ok()) out << "pilot: " << DescribeStats(stats) << "\n";
  }
  if (!pilot.ok()) return Fail(err, pilot.status());
  const FleetAggregate aggregate = Aggregate(*pilot);
  po.class_shares = target->info.class_shares;
  po.hashed = target->info.design == Design::kHashed;
  po.share_b = target->info.share_b;
  po.sessions_per_device = target->spec.sessions_per_device();
  po.confidence = o.confidence;
  po.min_effect = o.min_effect;
  po.replicates = o.bootstrap_replicates;
  po.threads = o.threads;
  po.seed = target->info.seed;
  po.anr_ceiling_overall = o.anr_ceiling_overall;
  po.anr_ceiling_class = o.anr_ceiling_class;
  po.min_units = o.min_units;
  // k of the report the planned experiment will produce (analysis.cc).
  po.comparisons = static_cast<int>((1 + po.class_shares.size()) *
                                    (kMetricCount * o.decision_quantiles.size() + 3));
  out << RenderPlan(PlanExperiment(aggregate, po));
  return kExitPass;
}

std::vector<double> ParseList(const std::string& text, bool* ok) {
  std::vector<double> v;
  *ok = true;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    double x = 0;
    if (!absl::SimpleAtod(part, &x) || !(x > -1 && x < 10) || x == 0) *ok = false;
    v.push_back(x);
  }
  return v;
}

int CampaignCommand(Flags& flags, std::ostream& out, std::ostream& err) {
  const std::string spec_path = flags.GetString("spec", "");
  const std::string server = flags.GetString("server", "");
  const std::filesystem::path dir = flags.GetString("out-dir", ".");
  CampaignOptions c;
  c.aa_runs = static_cast<int>(flags.GetInt("aa-runs", c.aa_runs));
  c.effect_runs = static_cast<int>(flags.GetInt("effect-runs", c.effect_runs));
  const std::string effects = flags.GetString("effects", "0.03,0.05,0.10");
  c.effect_class = flags.GetString("effect-class", "");
  c.looks = static_cast<int>(flags.GetInt("looks", 1));
  const int64_t devices = flags.GetInt("devices", 0);
  c.analysis = ReportOptions(flags);
  const std::string spending = flags.GetString("spending", SpendingName(c.analysis.spending));
  if (flags.help()) return Help(flags, kCampaignUsage, out, err);
  if (absl::Status st = flags.Finish(); !st.ok()) return Fail(err, st);
  if (!ParseSpending(spending, &c.analysis.spending)) return Fail(err, BadSpending());
  if (absl::Status st = CheckReportOptions(c.analysis); !st.ok()) return Fail(err, st);
  bool ok = true;
  c.effects = ParseList(effects, &ok);
  if (spec_path.empty() || server.empty() || !ok || c.aa_runs < 1 || c.aa_runs > 100000 ||
      c.effect_runs < 0 || c.effect_runs > 100000 || c.looks < 1 || c.looks > 100) {
    return Fail(err, absl::InvalidArgumentError("need --spec, --server, 1 <= aa-runs <= 1e5, "
                                                "0 <= effect-runs <= 1e5, effects in (-1, 10) and "
                                                "!= 0, 1 <= looks <= 100"));
  }
  absl::StatusOr<v1::FleetSpec> spec = ReadFleetSpecFile(spec_path);
  if (!spec.ok()) return Fail(err, spec.status());
  if (devices > 0) spec->set_devices(static_cast<uint64_t>(devices));
  absl::StatusOr<v1::FleetSpec> valid = ValidateFleetSpec(*std::move(spec));
  if (!valid.ok()) return Fail(err, valid.status());
  c.spec = *std::move(valid);
  if (c.effect_runs == 0) c.effects.clear();
  absl::StatusOr<std::vector<std::string>> addresses = ServerAddresses(server);
  if (!addresses.ok()) return Fail(err, addresses.status());
  c.driver.addresses = *std::move(addresses);
  c.progress = &err;
  if (absl::Status st = WritableDirectory(dir); !st.ok()) return Fail(err, st);
  std::ofstream runs(dir / "campaign_runs.jsonl", std::ios::binary);
  absl::StatusOr<std::string> summary = RunCampaign(c, runs);
  if (!summary.ok()) return Fail(err, summary.status());
  if (absl::Status st = WriteFile(dir / "campaign.md", *summary); !st.ok()) {
    return Fail(err, st);
  }
  out << *summary << "\nruns: " << (dir / "campaign_runs.jsonl").string() << "\n";
  return kExitPass;
}
#endif  // EF_LOADTEST_HAVE_DRIVER

}  // namespace

int RunCli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  if (argc < 2) {
    err << Usage();
    return kExitError;
  }
  const std::string command = argv[1];
  if (command == "help" && argc >= 3) {  // "help run" is "run --help"
    const char* const again[] = {argv[0], argv[2], "--help"};
    return RunCli(3, again, out, err);
  }
  if (command == "help" || command == "--help" || command == "-h") {
    out << Usage();
    return kExitPass;
  }
  Flags flags(argc, argv, 2);
  if (command == "synth") return Synth(flags, out, err);
  if (command == "merge") return Merge(flags, out, err);
  if (command == "report") return ReportCommand(flags, out, err);
#ifdef EF_LOADTEST_HAVE_DRIVER
  if (command == "run") return Run(flags, out, err);
  if (command == "plan") return PlanCommand(flags, out, err);
  if (command == "campaign") return CampaignCommand(flags, out, err);
#endif
  err << "unknown command '" << command << "'\n" << Usage();
  return kExitError;
}

}  // namespace loadtest
}  // namespace edgefleet
