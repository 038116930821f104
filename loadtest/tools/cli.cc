#include "loadtest/tools/cli.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "loadtest/report/analysis.h"
#include "loadtest/report/exit_code.h"
#include "loadtest/report/html_report.h"
#include "loadtest/report/json_report.h"
#include "loadtest/report/markdown_report.h"
#include "loadtest/results/results_json.h"
#include "loadtest/testing/synthetic_fleet.h"
#include "loadtest/tools/flags.h"

#ifdef EF_LOADTEST_HAVE_DRIVER
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "loadtest/driver/driver.h"
#include "loadtest/driver/fleet_plan.h"
#include "loadtest/driver/preflight.h"
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
  --calibration FILE       a HostCalibration textproto handed to every server
                           (default: the first server's, handed to the others)
  --max-harness-errors X   fraction of sessions whose calls failed above which
                           the run is an error, not a verdict (0.01)
  --tls_ca FILE            TLS: trust servers signed by this CA (PEM); plaintext without
  --tls_cert FILE, --tls_key FILE  TLS: client certificate and key (mutual TLS)
  --tls_server_name NAME   TLS: the name to verify instead of the address's host
  report flags (whole fleet), as `report`: --confidence X (0.95), --min-effect X (0.05),
                           --replicates N (1000), --threads N (the host's cores)
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
)";

constexpr char kExitCodes[] =
    R"(exit codes: 0 pass, 1 error (bad input, unreachable server, unknown arm or
  device class, too many harness errors), 2 regression, 3 inconclusive,
  4 invalid (sample-ratio mismatch)
)";

std::string Usage() {
  return std::string("usage: edgefleet-loadtest <command> [flags] [files]\n"
                     "commands: run, synth, merge, report; "
                     "`edgefleet-loadtest <command> --help` (or -h) for its flags.\n"
                     "Flags are --name=value or --name value.\n\n") +
         kRunUsage + "\n" + kSynthUsage + "\n" + kMergeUsage + "\n" + kReportUsage + "\n" +
         kExitCodes;
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
  out << text << kExitCodes;
  return kExitPass;
}

int Fail(std::ostream& err, const absl::Status& status) {
  err << "edgefleet-loadtest: " << status.message() << "\n";
  return kExitError;
}

absl::Status WriteFile(const std::filesystem::path& path,
                       const std::string& text) {
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
  o.inferences_per_session =
      static_cast<uint32_t>(flags.GetInt("inferences", 20));
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
  out << "wrote " << results.records().size() << " session records to "
      << path << "\n";
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
  out << "merged " << flags.positional().size() << " file(s), "
      << merged->records().size() << " session records, into " << path << "\n";
  return kExitPass;
}

// Reads the report flags shared by `report` and `run`.
AnalysisOptions ReportOptions(Flags& flags) {
  AnalysisOptions o;
  o.confidence = flags.GetDouble("confidence", o.confidence);
  o.min_effect = flags.GetDouble("min-effect", o.min_effect);
  o.bootstrap_replicates =
      static_cast<int>(flags.GetInt("replicates", o.bootstrap_replicates));
  o.threads = static_cast<int>(flags.GetInt(
      "threads", std::max(1u, std::thread::hardware_concurrency())));
  return o;
}

// Analyses `results`, writes report.{json,md,html} into `dir`, prints the
// Markdown and the HTML path; returns the exit-code policy's code.
int WriteReports(const ResultSet& results, const AnalysisOptions& o,
                 const std::filesystem::path& dir, std::ostream& out,
                 std::ostream& err) {
  if (!(o.confidence > 0 && o.confidence < 1) || o.min_effect < 0 ||
      o.bootstrap_replicates < 1) {
    return Fail(err, absl::InvalidArgumentError(
                         "need 0 < confidence < 1, min-effect >= 0, "
                         "replicates >= 1"));
  }
  const Report report = Analyze(Aggregate(results), o);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string markdown = RenderMarkdownReport(report);
  for (const auto& [name, text] :
       {std::pair<const char*, std::string>{"report.json",
                                            RenderJsonReport(report)},
        {"report.md", markdown},
        {"report.html", RenderHtmlReport(report)}}) {
    if (absl::Status st = WriteFile(dir / name, text); !st.ok()) {
      return Fail(err, st);
    }
  }
  out << markdown << "\nHTML report: "
      << std::filesystem::absolute(dir / "report.html").string() << "\n";
  return ExitCodeFor(report.status);
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
  const AnalysisOptions o = ReportOptions(flags);
  if (flags.help()) return Help(flags, kRunUsage, out, err);
  if (absl::Status st = flags.Finish(); !st.ok()) return Fail(err, st);
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
  absl::StatusOr<ShardSpec> shard = ShardSpec::Parse(shard_text);
  if (!shard.ok()) return Fail(err, shard.status());
  absl::StatusOr<v1::FleetSpec> spec = ReadFleetSpecFile(spec_path);
  if (!spec.ok()) return Fail(err, spec.status());
  if (concurrency > 0) {
    spec->mutable_arrival()->set_concurrency(static_cast<uint32_t>(concurrency));
  }
  absl::StatusOr<FleetPlan> plan = ExpandFleet(*std::move(spec), *shard);
  if (!plan.ok()) return Fail(err, plan.status());
  DriverOptions options;
  options.addresses = absl::StrSplit(servers, ',', absl::SkipEmpty());
  options.credentials = *std::move(credentials);
  options.tls_server_name = tls_server_name;
  PreflightOptions preflight_options;
  preflight_options.addresses = options.addresses;
  preflight_options.credentials = options.credentials;
  preflight_options.tls_server_name = options.tls_server_name;
  if (!calibration_path.empty()) {
    absl::StatusOr<v1::HostCalibration> calibration = ReadCalibrationFile(calibration_path);
    if (!calibration.ok()) return Fail(err, calibration.status());
    preflight_options.calibration = *std::move(calibration);
  }
  absl::StatusOr<PreflightResult> preflight = Preflight(plan->spec, preflight_options);
  if (!preflight.ok()) return Fail(err, preflight.status());
  plan->info.calibration = preflight->calibration_fingerprint;
  out << "calibration " << preflight->calibration_fingerprint << " (from "
      << (calibration_path.empty() ? preflight->calibration_source : calibration_path)
      << ") on " << options.addresses.size() << " server(s)\n";
  const bool tty = isatty(STDERR_FILENO) != 0;
  if (progress == "on" || (progress == "auto" && tty)) options.progress = &err;
  DriverStats stats;
  absl::StatusOr<ResultSet> results = RunFleet(*plan, options, &stats);
  if (!results.ok()) return Fail(err, results.status());
  out << "driver: " << DescribeStats(stats) << "\n";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (results_path.empty()) {
    results_path = (dir / (shard->IsWhole()
                               ? std::string("results.json")
                               : "results.shard-" + std::to_string(shard->index) +
                                     "-of-" + std::to_string(shard->count) + ".json"))
                       .string();
  }
  if (absl::Status st = WriteResultSetFile(*results, results_path); !st.ok()) {
    return Fail(err, st);
  }
  const std::filesystem::path stats_path =
      std::filesystem::path(results_path).replace_extension(".driver.json");
  if (absl::Status st = WriteFile(stats_path, DriverStatsToJson(stats)); !st.ok()) {
    return Fail(err, st);
  }
  out << "wrote " << results->records().size() << " session records to "
      << results_path << " (call accounting: " << stats_path.string() << ")\n";
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
  return WriteReports(*results, o, dir, out, err);
}
#endif  // EF_LOADTEST_HAVE_DRIVER

}  // namespace

int RunCli(int argc, const char* const* argv, std::ostream& out,
           std::ostream& err) {
  if (argc < 2) {
    err << Usage();
    return kExitError;
  }
  const std::string command = argv[1];
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
#endif
  err << "unknown command '" << command << "'\n" << Usage();
  return kExitError;
}

}  // namespace loadtest
}  // namespace edgefleet
