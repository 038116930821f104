// Throughput of the sampled mode's statistics path: draw a synthetic fleet
// (device times from distributions, as the sampled mode does), aggregate it,
// analyse it (bootstrap CIs, rank tests, rates, early stopping) and render
// the three reports. Prints session records per second for each stage and
// end to end, against the target of a million device sessions a minute.
//
//   loadtest_stats_bench [--devices 250000] [--sessions 2] [--inferences 20]
//                        [--threads N] [--replicates 1000] [--seed 1]

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "loadtest/report/analysis.h"
#include "loadtest/report/html_report.h"
#include "loadtest/report/json_report.h"
#include "loadtest/report/markdown_report.h"
#include "loadtest/testing/synthetic_fleet.h"
#include "loadtest/tools/flags.h"

namespace edgefleet {
namespace loadtest {
namespace {

// Wall and process CPU time of one stage. CPU time (all threads) shows the
// cost independent of other load on the host.
class Stopwatch {
 public:
  Stopwatch() : wall_(std::chrono::steady_clock::now()), cpu_(CpuSeconds()) {}
  double Wall() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_).count();
  }
  double Cpu() const { return CpuSeconds() - cpu_; }

 private:
  static double CpuSeconds() {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
  }
  std::chrono::steady_clock::time_point wall_;
  double cpu_;
};

struct Stage {
  const char* name;
  double wall;
  double cpu;
};

int Main(int argc, char** argv) {
  Flags flags(argc, argv, 1);
  SyntheticFleetOptions fleet;
  fleet.devices = static_cast<uint64_t>(flags.GetInt("devices", 250000));
  fleet.sessions_per_device = static_cast<uint32_t>(flags.GetInt("sessions", 2));
  fleet.inferences_per_session = static_cast<uint32_t>(flags.GetInt("inferences", 20));
  fleet.seed = static_cast<uint64_t>(flags.GetInt("seed", 1));
  fleet.effect_b.latency = 1.05;
  AnalysisOptions options;
  options.threads =
      static_cast<int>(flags.GetInt("threads", std::max(1u, std::thread::hardware_concurrency())));
  options.bootstrap_replicates =
      static_cast<int>(flags.GetInt("replicates", options.bootstrap_replicates));
  if (absl::Status st = flags.Finish(); !st.ok()) {
    std::fprintf(stderr, "%s\n", std::string(st.message()).c_str());
    return 1;
  }

  std::vector<Stage> stages;
  Stopwatch watch;
  const ResultSet results = GenerateSyntheticFleet(fleet);
  stages.push_back({"draw (sampled mode)", watch.Wall(), watch.Cpu()});
  watch = Stopwatch();
  const FleetAggregate aggregate = Aggregate(results);
  stages.push_back({"aggregate", watch.Wall(), watch.Cpu()});
  watch = Stopwatch();
  const Report report = Analyze(aggregate, options);
  stages.push_back({"analyse", watch.Wall(), watch.Cpu()});
  watch = Stopwatch();
  const size_t bytes = RenderJsonReport(report).size() + RenderMarkdownReport(report).size() +
                       RenderHtmlReport(report).size();
  stages.push_back({"render", watch.Wall(), watch.Cpu()});

  const double records = static_cast<double>(results.records().size());
  int replicates = 0;
  for (const MetricReport& m : report.scopes[0].metrics) {
    replicates = std::max(replicates, m.replicates);
  }
  std::printf(
      "fleet: %llu devices x %u sessions x 2 arms = %.0f session records, "
      "%u inferences each; %d threads; %d bootstrap replicates (overall); "
      "reports %zu KiB\n",
      static_cast<unsigned long long>(fleet.devices), fleet.sessions_per_device, records,
      fleet.inferences_per_session, options.threads, replicates, bytes / 1024);
  std::printf("  %-22s %9s %9s %14s\n", "stage", "wall s", "cpu s", "sessions/s");
  double stats_wall = 0, stats_cpu = 0, total_wall = 0;
  for (const Stage& s : stages) {
    std::printf("  %-22s %9.2f %9.2f %14.0f\n", s.name, s.wall, s.cpu, records / s.wall);
    total_wall += s.wall;
    if (&s != &stages.front()) {
      stats_wall += s.wall;
      stats_cpu += s.cpu;
    }
  }
  std::printf(
      "statistics path (aggregate + analyse + render): %.0f sessions/s"
      " = %.2f million/minute wall (%.2f million per CPU-minute)\n",
      records / stats_wall, records / stats_wall * 60 / 1e6, records / stats_cpu * 60 / 1e6);
  std::printf(
      "sampled mode end to end (draw + statistics):     %.0f sessions/s"
      " = %.2f million/minute (target 1.00)\n",
      records / total_wall, records / total_wall * 60 / 1e6);
  return 0;
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet

int main(int argc, char** argv) { return edgefleet::loadtest::Main(argc, argv); }
