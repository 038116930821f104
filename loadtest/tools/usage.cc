#include "loadtest/tools/usage.h"

#include "loadtest/report/exit_code.h"

namespace edgefleet {
namespace loadtest {
namespace cli {

const char kRunUsage[] =
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
                           for the reports' "what explains the difference" section, saved
                           beside the results as *.profiles.json for `report` (1; a
                           server that cannot answer leaves it out, with a warning)
  report flags (whole fleet), as `report`: --confidence X (0.95), --min-effect X (0.05),
                           --replicates N (1000), --threads N (the host's cores),
                           --stratify 1|0 (1)
  Whole-fleet outputs in DIR: results.json, results.driver.json,
  results.profiles.json (with --explain 1), report.json, report.md, report.html.
)";

const char kSynthUsage[] =
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

const char kMergeUsage[] =
    R"(usage: edgefleet-loadtest merge --out FILE SHARD.json...
  Combines the complete set of shard result files of one experiment.
  --out FILE               merged results file to write (required)
)";

const char kReportUsage[] =
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
  --profiles FILE          the arms' device-time profiles for "what explains the
                           difference" (default: RESULTS.profiles.json beside a results
                           file, which `run` writes; none: the section is left out)
)";

const char kPlanUsage[] =
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

const char kCampaignUsage[] =
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

namespace {

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

}  // namespace

std::string Usage() {
  return std::string(
             "usage: edgefleet-loadtest <command> [flags] [files]\n"
             "commands: run, plan, campaign, synth, merge, report; "
             "`edgefleet-loadtest <command> --help` (or -h) for its flags.\n"
             "Flags are --name=value or --name value.\n\n") +
         kRunUsage + "\n" + kPlanUsage + "\n" + kCampaignUsage + "\n" + kSynthUsage + "\n" +
         kMergeUsage + "\n" + kReportUsage + "\n" + kExitCodes;
}

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

}  // namespace cli
}  // namespace loadtest
}  // namespace edgefleet
