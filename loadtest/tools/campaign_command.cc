// `edgefleet-loadtest campaign`: calibrates the statistics with A/A and
// injected-effect experiments through a real server (campaign.h).

#include <filesystem>
#include <fstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "loadtest/driver/fleet_plan.h"
#include "loadtest/report/exit_code.h"
#include "loadtest/stats/sequential.h"
#include "loadtest/tools/campaign.h"
#include "loadtest/tools/command_support.h"
#include "loadtest/tools/driver_commands.h"
#include "loadtest/tools/usage.h"

namespace edgefleet {
namespace loadtest {
namespace cli {
namespace {

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

}  // namespace

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

}  // namespace cli
}  // namespace loadtest
}  // namespace edgefleet
