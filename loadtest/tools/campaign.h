// Calibration campaign of the A/B statistics through a real server: many
// seeded A/A experiments (the same arm on both sides) and injected-effect
// experiments (arm B = arm A with Arm.time_scale = 1 + X, fleet-wide or on
// one class), each a full run of the fleet spec (sampled mode) and its
// analysis (group-sequential with `looks` > 1: a claim at any look counts).
// Tallies the false-positive rate per metric and overall with
// Wilson intervals, the A/A spread of the fleet-wide estimates, and the
// power per effect. `edgefleet-loadtest campaign`; docs/statistics.md.
//
// Arms: the server must define `arm_a` and, for each effect X and target,
// `<arm_a>.x<1+X>` (every class) and `<arm_a>.x<1+X>.<class>` (one class):
// the same arm with time_scale 1 + X (and time_scale_device_class).
// loadtest/tools/campaign.sh writes such an arm set and starts the server.
//
// Thread-compatible: one call at a time.

#ifndef EDGEFLEET_LOADTEST_TOOLS_CAMPAIGN_H_
#define EDGEFLEET_LOADTEST_TOOLS_CAMPAIGN_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "edgefleet/v1/fleet_spec.pb.h"
#include "loadtest/driver/driver.h"
#include "loadtest/report/report_model.h"

namespace edgefleet {
namespace loadtest {

struct CampaignOptions {
  v1::FleetSpec spec;  // Validated; arm_a is the base arm.
  int aa_runs = 200;
  int effect_runs = 50;  // Per effect and target.
  std::vector<double> effects = {0.03, 0.05, 0.10};
  std::string effect_class;  // One-class target; empty: fleet-wide only.
  int looks = 1;             // Group-sequential looks per run.
  AnalysisOptions analysis;
  DriverOptions driver;
  std::ostream* progress = nullptr;  // One line per run.
};

// The arm name of effect X (fleet-wide when device_class is empty).
std::string EffectArmName(const std::string& arm_a, double effect, const std::string& device_class);

// Runs the campaign; returns the Markdown summary and writes the per-run
// JSON lines to `runs_jsonl` (one object per run).
absl::StatusOr<std::string> RunCampaign(const CampaignOptions& options, std::ostream& runs_jsonl);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_TOOLS_CAMPAIGN_H_
