// `edgefleet-loadtest plan`: sizes an experiment from a pilot (run on a
// server, or read from results) before it runs.

#include <cmath>

#include "loadtest/driver/driver.h"
#include "loadtest/driver/fleet_plan.h"
#include "loadtest/driver/preflight.h"
#include "loadtest/report/exit_code.h"
#include "loadtest/report/plan.h"
#include "loadtest/tools/command_support.h"
#include "loadtest/tools/driver_commands.h"
#include "loadtest/tools/usage.h"

namespace edgefleet {
namespace loadtest {
namespace cli {
namespace {

bool ParseMetric(const std::string& name, Metric* metric) {
  for (Metric m : kAllMetrics) {
    if (name == MetricName(m)) {
      *metric = m;
      return true;
    }
  }
  return false;
}

}  // namespace

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

}  // namespace cli
}  // namespace loadtest
}  // namespace edgefleet
