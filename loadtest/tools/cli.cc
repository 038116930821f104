#include "loadtest/tools/cli.h"

#include <filesystem>
#include <string>

#include "loadtest/report/exit_code.h"
#include "loadtest/report/profiles_file.h"
#include "loadtest/results/results_json.h"
#include "loadtest/testing/synthetic_fleet.h"
#include "loadtest/tools/command_support.h"
#include "loadtest/tools/flags.h"
#include "loadtest/tools/usage.h"

#ifdef EF_LOADTEST_HAVE_DRIVER
#include "loadtest/tools/driver_commands.h"
#endif

namespace edgefleet {
namespace loadtest {
namespace cli {
namespace {

// The commands that need no server: synth, merge, report.

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

int ReportCommand(Flags& flags, std::ostream& out, std::ostream& err) {
  const std::filesystem::path dir = flags.GetString("out-dir", ".");
  const AnalysisOptions o = ReportOptions(flags);
  const std::string profiles_path = flags.GetString("profiles", "");
  if (flags.help()) return Help(flags, kReportUsage, out, err);
  if (absl::Status st = flags.Finish(); !st.ok()) return Fail(err, st);
  absl::StatusOr<ResultSet> results = ReadAndMerge(flags.positional());
  if (!results.ok()) return Fail(err, results.status());
  // "What explains the difference", from the profiles `run` saved.
  absl::StatusOr<ProfilePairs> profiles =
      profiles_path.empty() ? ProfilesBeside(flags.positional()) : ReadProfilesFile(profiles_path);
  if (!profiles.ok()) return Fail(err, profiles.status());
  return WriteReports(*results, o, dir, out, err, Explain(*profiles));
}

}  // namespace
}  // namespace cli

int RunCli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  if (argc < 2) {
    err << cli::Usage();
    return kExitError;
  }
  const std::string command = argv[1];
  if (command == "help" && argc >= 3) {  // "help run" is "run --help"
    const char* const again[] = {argv[0], argv[2], "--help"};
    return RunCli(3, again, out, err);
  }
  if (command == "help" || command == "--help" || command == "-h") {
    out << cli::Usage();
    return kExitPass;
  }
  Flags flags(argc, argv, 2);
  if (command == "synth") return cli::Synth(flags, out, err);
  if (command == "merge") return cli::Merge(flags, out, err);
  if (command == "report") return cli::ReportCommand(flags, out, err);
#ifdef EF_LOADTEST_HAVE_DRIVER
  if (command == "run") return cli::Run(flags, out, err);
  if (command == "plan") return cli::PlanCommand(flags, out, err);
  if (command == "campaign") return cli::CampaignCommand(flags, out, err);
#endif
  err << "unknown command '" << command << "'\n" << cli::Usage();
  return kExitError;
}

}  // namespace loadtest
}  // namespace edgefleet
