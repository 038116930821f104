#include "loadtest/driver/fleet_plan.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "loadtest/results/assignment.h"
#include "loadtest/stats/random.h"

namespace edgefleet {
namespace loadtest {

namespace {

// Keeps the first parse error with its position (and keeps protobuf from
// logging every error to stderr).
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (first_.empty()) first_ = absl::StrCat(line + 1, ":", column + 1, ": ", message);
  }
  void AddWarning(int, google::protobuf::io::ColumnNumber, const std::string&) override {}
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

}  // namespace

absl::StatusOr<v1::FleetSpec> ParseFleetSpec(const std::string& text) {
  v1::FleetSpec spec;
  FirstErrorCollector errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(text, &spec)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fleet spec: ", errors.first().empty() ? "textproto parse error" : errors.first()));
  }
  return spec;
}

absl::StatusOr<v1::FleetSpec> ReadFleetSpecFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  if (!in || !std::filesystem::is_regular_file(path, ec)) {
    return absl::NotFoundError("cannot read fleet spec " + path +
                               (in ? ": not a regular file" : ""));
  }
  std::ostringstream text;
  text << in.rdbuf();
  absl::StatusOr<v1::FleetSpec> spec = ParseFleetSpec(text.str());
  if (!spec.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", spec.status().message()));
  }
  return spec;
}

absl::StatusOr<v1::FleetSpec> ValidateFleetSpec(v1::FleetSpec spec) {
  auto bad = [](const std::string& what) {
    return absl::InvalidArgumentError("fleet spec: " + what);
  };
  if (spec.population().empty()) return bad("population: at least one class");
  double total_share = 0;
  std::set<std::string> classes;
  for (const v1::ClassShare& share : spec.population()) {
    if (share.device_class().empty()) return bad("population.device_class empty");
    // A class twice is a slip (one meant another class), not a larger share.
    if (!classes.insert(share.device_class()).second) {
      return bad("population: device class '" + share.device_class().substr(0, 64) +
                 "' is listed twice");
    }
    if (!(share.share() > 0) || !std::isfinite(share.share())) {
      return bad("population.share must be > 0 for " + share.device_class());
    }
    total_share += share.share();
  }
  // ClassCounts divides by the sum: it must be finite too.
  if (!std::isfinite(total_share)) return bad("population shares must sum to a finite number");
  if (spec.arm_a().empty() || spec.arm_b().empty()) return bad("arm_a and arm_b required");
  // Device counts stay exact in double arithmetic (ClassCounts).
  if (spec.devices() < 1 || spec.devices() > kMaxDevices) {
    return bad(absl::StrCat("devices must be in [1, ", kMaxDevices, "]"));
  }
  if (spec.sessions_per_device() == 0) spec.set_sessions_per_device(1);
  if (spec.inferences_per_session() < 1) return bad("inferences_per_session must be >= 1");
  if (spec.pre_period_sessions() > kMaxPrePeriodSessions) {
    return bad(absl::StrCat("pre_period_sessions must be in [0, ", kMaxPrePeriodSessions, "]"));
  }
  if (!(spec.inter_arrival_ms() >= 0) || !std::isfinite(spec.inter_arrival_ms())) {
    return bad("inter_arrival_ms must be >= 0 and finite");
  }
  if (spec.arrival().concurrency() == 0) spec.mutable_arrival()->set_concurrency(4);
  // proto3 enums are open: a textproto may carry any number ("kind: 7").
  if (!v1::ArrivalProcess::Kind_IsValid(spec.arrival().kind())) {
    return bad("arrival.kind must be CLOSED_LOOP or OPEN_LOOP");
  }
  if (!std::isfinite(spec.arrival().rate_per_second()) || spec.arrival().rate_per_second() < 0) {
    return bad("arrival.rate_per_second must be >= 0 and finite");
  }
  if (spec.arrival().kind() == v1::ArrivalProcess::OPEN_LOOP &&
      !(spec.arrival().rate_per_second() > 0)) {
    return bad("arrival.rate_per_second must be > 0 for OPEN_LOOP");
  }
  if (!v1::AssignmentDesign_IsValid(spec.assignment())) {
    return bad("assignment must be ASSIGNMENT_PAIRED or ASSIGNMENT_HASHED");
  }
  if (spec.share_b() == 0) spec.set_share_b(0.5);
  if (!(spec.share_b() > 0 && spec.share_b() < 1)) return bad("share_b must be in (0, 1)");
  if (spec.max_retries() == 0) spec.set_max_retries(3);
  if (spec.call_timeout_ms() == 0) spec.set_call_timeout_ms(120000);
  if (spec.name().empty()) spec.set_name("fleet");
  return spec;
}

std::vector<uint64_t> ClassCounts(const v1::FleetSpec& spec) {
  const size_t n = static_cast<size_t>(spec.population_size());
  double total = 0;
  for (const v1::ClassShare& s : spec.population()) total += s.share();
  std::vector<uint64_t> counts(n);
  std::vector<std::pair<double, size_t>> remainders;
  uint64_t assigned = 0;
  for (size_t i = 0; i < n; ++i) {
    // share / total <= 1 (a finite sum of positive shares), so exact <=
    // devices <= kMaxDevices < 2^53 and the conversion is exact; devices *
    // share first could overflow to inf for shares near DBL_MAX.
    const double exact = static_cast<double>(spec.devices()) *
                         (spec.population(static_cast<int>(i)).share() / total);
    counts[i] = static_cast<uint64_t>(std::floor(exact));
    assigned += counts[i];
    remainders.push_back({exact - std::floor(exact), i});
  }
  // Largest remainders first; ties to the earlier class.
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; assigned < spec.devices(); ++k, ++assigned) {
    ++counts[remainders[k % n].second];
  }
  return counts;
}

absl::StatusOr<FleetPlan> ExpandFleet(v1::FleetSpec raw, ShardSpec shard) {
  absl::StatusOr<v1::FleetSpec> spec = ValidateFleetSpec(std::move(raw));
  if (!spec.ok()) return spec.status();
  FleetPlan plan;
  plan.spec = *std::move(spec);
  plan.shard = shard;
  const v1::FleetSpec& s = plan.spec;
  const bool paired = s.assignment() == v1::ASSIGNMENT_PAIRED;
  plan.info.name = s.name();
  plan.info.seed = s.seed();
  plan.info.design = paired ? Design::kPaired : Design::kHashed;
  plan.info.arm_a = s.arm_a();
  plan.info.arm_b = s.arm_b();
  plan.info.share_b = paired ? 0.5 : s.share_b();
  double total_share = 0;
  for (const v1::ClassShare& c : s.population()) total_share += c.share();
  for (const v1::ClassShare& c : s.population()) {
    plan.info.class_shares[c.device_class()] += c.share() / total_share;
  }
  std::string canonical;
  google::protobuf::TextFormat::Printer printer;
  printer.SetSingleLineMode(true);
  v1::FleetSpec identity = s;
  identity.clear_arrival();  // scheduling only: shards may differ in it
  printer.PrintToString(identity, &canonical);
  plan.info.spec_digest = absl::StrCat(HashString(canonical));

  const std::vector<uint64_t> counts = ClassCounts(s);
  uint64_t device_id = 0;
  for (size_t c = 0; c < counts.size(); ++c) {
    const std::string& cls = s.population(static_cast<int>(c)).device_class();
    for (uint64_t i = 0; i < counts[c]; ++i, ++device_id) {
      if (!shard.Contains(device_id)) continue;
      const uint64_t device_seed = MixSeed(s.seed(), device_id);
      const bool real = !s.sampled().enabled() || device_id < s.sampled().real_devices();
      std::vector<Arm> arms;
      if (paired) {
        arms = {Arm::kA, Arm::kB};
      } else {
        arms = {AssignArm(s.seed(), device_id, s.share_b())};
      }
      // The pre-period: arm A, seeds of their own, before the experiment's
      // sessions in the plan.
      for (uint32_t k = 0; k < s.pre_period_sessions(); ++k) {
        PlannedSession p;
        p.device_id = device_id;
        p.session_index = k;
        p.arm = Arm::kA;
        p.device_class = cls;
        p.pre_period = true;
        v1::SessionSpec& spec_out = p.spec;
        spec_out.set_arm(s.arm_a());
        spec_out.set_device_class(cls);
        spec_out.set_seed(MixSeed(MixSeed(device_seed, kPrePeriodStream), k));
        spec_out.set_device_seed(device_seed);
        spec_out.set_inferences(s.inferences_per_session());
        spec_out.set_inter_arrival_ms(s.inter_arrival_ms());
        spec_out.set_execution_mode(real ? v1::EXECUTION_MODE_REAL : v1::EXECUTION_MODE_SAMPLED);
        spec_out.set_session_id(absl::StrCat("d", device_id, ".pre", k, ".A"));
        plan.sessions.push_back(std::move(p));
      }
      for (uint32_t k = 0; k < s.sessions_per_device(); ++k) {
        for (Arm arm : arms) {
          PlannedSession p;
          p.device_id = device_id;
          p.session_index = k;
          p.arm = arm;
          p.device_class = cls;
          v1::SessionSpec& spec_out = p.spec;
          spec_out.set_arm(arm == Arm::kA ? s.arm_a() : s.arm_b());
          spec_out.set_device_class(cls);
          spec_out.set_seed(MixSeed(device_seed, k));
          spec_out.set_device_seed(device_seed);
          spec_out.set_inferences(s.inferences_per_session());
          spec_out.set_inter_arrival_ms(s.inter_arrival_ms());
          spec_out.set_execution_mode(real ? v1::EXECUTION_MODE_REAL : v1::EXECUTION_MODE_SAMPLED);
          spec_out.set_session_id(absl::StrCat("d", device_id, ".s", k, ".", ArmName(arm)));
          plan.sessions.push_back(std::move(p));
        }
      }
    }
  }
  return plan;
}

}  // namespace loadtest
}  // namespace edgefleet
