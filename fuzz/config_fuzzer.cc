// Fuzz target (e): the textproto configs edgefleet-server and
// edgefleet-loadtest read. The first byte picks the kind (byte % 3):
//   0  edgefleet.v1.DeviceClass  service::ParseTextproto + ValidateDeviceClass
//                                + DeviceClassRegistry::FromClasses
//   1  edgefleet.v1.ArmSet       service::ParseTextproto + ArmRegistry::FromArmSet
//                                against a small model repository made once
//                                in $TMPDIR (what ArmRegistry::Create does
//                                after reading the file)
//   2  edgefleet.v1.FleetSpec    loadtest::ParseFleetSpec + ValidateFleetSpec,
//                                ClassCounts, and ExpandFleet when small
// the rest is the textproto. Seeds: fuzz/corpus/config_fuzzer/ ('0', '1' or
// '2' followed by a committed deploy/ or test/service/testdata textproto).
//
// Oracles beyond the sanitizers, on accepted configs: the invariants the
// validators document (device_class.proto, arm.proto, fleet_spec.proto and
// the registries' headers), checked here independently; every number in
// the accepted message is finite (a NaN or infinite figure is never "in
// range"); enums hold declared values; print -> parse gives the same
// message, which validates again; ClassCounts sums to `devices`; rejected
// configs are INVALID_ARGUMENT.

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/reflection.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>
#include <string>

#include "edgefleet/v1/arm.pb.h"
#include "edgefleet/v1/device_class.pb.h"
#include "edgefleet/v1/fleet_spec.pb.h"
#include "fuzz/fuzz_invariant.h"
#include "loadtest/driver/fleet_plan.h"
#include "service/arm_registry.h"
#include "service/device_class_registry.h"
#include "service/model_repository.h"
#include "service/textproto_file.h"

namespace {

namespace pb = google::protobuf;
namespace v1 = edgefleet::v1;

constexpr size_t kMaxTextBytes = 64 * 1024;
// ExpandFleet only for plans this small (it materialises every session).
constexpr uint64_t kMaxExpandedSessions = 2000;

// Models of the fake repository: name -> has a .ptl. Covers the names the
// committed arm files use.
const std::pair<const char*, bool> kModels[] = {
    {"mobilenet_v2_035", true}, {"small_cnn", true}, {"mlp", false}, {"add", false}};

std::string g_repo_root;
std::unique_ptr<edgefleet::service::ModelRepository> g_repository;

void Touch(const std::string& path) { std::ofstream(path, std::ios::binary) << "x"; }

void MakeRepository() {
  const char* tmp = getenv("TMPDIR");
  g_repo_root = std::string(tmp && *tmp ? tmp : "/tmp") + "/edgefleet-config-fuzzer-" +
                std::to_string(getuid());
  mkdir(g_repo_root.c_str(), 0700);
  for (const auto& [name, has_ptl] : kModels) {
    const std::string dir = g_repo_root + "/" + name;
    mkdir(dir.c_str(), 0700);
    Touch(dir + "/model.pte");
    if (has_ptl) Touch(dir + "/model.ptl");
  }
  absl::StatusOr<std::unique_ptr<edgefleet::service::ModelRepository>> repo =
      edgefleet::service::ModelRepository::Open(g_repo_root);
  EF_FUZZ_INVARIANT(repo.ok(), "cannot make the model repository %s: %s", g_repo_root.c_str(),
                    repo.status().ToString().c_str());
  g_repository = *std::move(repo);
}

// Every float/double in `m` (recursively) is finite; every enum value is a
// declared one.
void CheckNumbersAndEnums(const pb::Message& m, const std::string& path) {
  const pb::Reflection* r = m.GetReflection();
  std::vector<const pb::FieldDescriptor*> fields;
  r->ListFields(m, &fields);
  for (const pb::FieldDescriptor* f : fields) {
    const std::string name = path + f->name();
    const int n = f->is_repeated() ? r->FieldSize(m, f) : 1;
    for (int i = 0; i < n; ++i) {
      switch (f->cpp_type()) {
        case pb::FieldDescriptor::CPPTYPE_DOUBLE: {
          const double v = f->is_repeated() ? r->GetRepeatedDouble(m, f, i) : r->GetDouble(m, f);
          EF_FUZZ_INVARIANT(std::isfinite(v), "accepted %s = %g", name.c_str(), v);
          break;
        }
        case pb::FieldDescriptor::CPPTYPE_FLOAT: {
          const float v = f->is_repeated() ? r->GetRepeatedFloat(m, f, i) : r->GetFloat(m, f);
          EF_FUZZ_INVARIANT(std::isfinite(v), "accepted %s = %g", name.c_str(), v);
          break;
        }
        case pb::FieldDescriptor::CPPTYPE_ENUM: {
          const int v = f->is_repeated() ? r->GetRepeatedEnumValue(m, f, i) : r->GetEnumValue(m, f);
          EF_FUZZ_INVARIANT(f->enum_type()->FindValueByNumber(v) != nullptr,
                            "accepted %s = %d, not a value of %s", name.c_str(), v,
                            f->enum_type()->full_name().c_str());
          break;
        }
        case pb::FieldDescriptor::CPPTYPE_MESSAGE:
          CheckNumbersAndEnums(
              f->is_repeated() ? r->GetRepeatedMessage(m, f, i) : r->GetMessage(m, f), name + ".");
          break;
        default:
          break;
      }
    }
  }
}

// Print -> parse reproduces `m` exactly.
template <typename Message>
Message ReparseOrDie(const Message& m) {
  std::string text;
  EF_FUZZ_INVARIANT(pb::TextFormat::PrintToString(m, &text), "cannot print an accepted %s",
                    m.GetTypeName().c_str());
  Message again;
  const absl::Status s = edgefleet::service::ParseTextproto(text, "reprint", &again);
  EF_FUZZ_INVARIANT(s.ok(), "printed %s does not parse: %s", m.GetTypeName().c_str(),
                    s.ToString().c_str());
  EF_FUZZ_INVARIANT(pb::util::MessageDifferencer::Equals(m, again),
                    "%s changed in a print/parse round trip", m.GetTypeName().c_str());
  return again;
}

bool Verbose() {
  static const bool verbose = getenv("EF_REPLAY_VERBOSE") != nullptr;
  return verbose;
}

void CheckRejected(const absl::Status& s, const char* what) {
  if (Verbose()) fprintf(stderr, "  %s: %s\n", what, s.ToString().c_str());
  EF_FUZZ_INVARIANT(s.code() == absl::StatusCode::kInvalidArgument && !s.message().empty(),
                    "%s rejected with %s, not INVALID_ARGUMENT", what, s.ToString().c_str());
}

bool InUnit(double x) { return x > 0 && x <= 1; }  // (0, 1]

void DeviceClass(const std::string& text) {
  v1::DeviceClass c;
  absl::Status s = edgefleet::service::ParseTextproto(text, "fuzz.textproto", &c);
  if (!s.ok()) return CheckRejected(s, "device class parse");
  s = edgefleet::service::ValidateDeviceClass(c);
  auto registry = edgefleet::service::DeviceClassRegistry::FromClasses({c});
  EF_FUZZ_INVARIANT(s.ok() == registry.ok(), "ValidateDeviceClass and FromClasses disagree");
  if (!s.ok()) {
    CheckRejected(registry.status(), "device class (registry)");
    return CheckRejected(s, "device class");
  }
  // device_class.proto and device_class_registry.h.
  EF_FUZZ_INVARIANT(
      edgefleet::service::IsValidClassName(c.name()) && !c.name().empty() && c.name().size() <= 32,
      "bad name accepted");
  EF_FUZZ_INVARIANT(c.platform() != v1::PLATFORM_UNSPECIFIED, "platform unset");
  EF_FUZZ_INVARIANT(c.cpu().clusters_size() >= 1, "no clusters");
  for (const auto& cluster : c.cpu().clusters()) {
    EF_FUZZ_INVARIANT(cluster.cores() >= 1 && InUnit(cluster.relative_speed()),
                      "cluster %s: cores %u, relative_speed %g", cluster.name().c_str(),
                      cluster.cores(), cluster.relative_speed());
  }
  EF_FUZZ_INVARIANT(c.cpu().parallel_fraction() >= 0 && c.cpu().parallel_fraction() < 1,
                    "parallel_fraction %g", c.cpu().parallel_fraction());
  EF_FUZZ_INVARIANT(c.reference().mobilenet_v2_latency_ms() > 0 && !c.reference().source().empty(),
                    "reference");
  EF_FUZZ_INVARIANT(
      c.memory().app_budget_bytes() > 0 && c.memory().app_budget_bytes() <= c.memory().ram_bytes(),
      "memory budget %llu of %llu", static_cast<unsigned long long>(c.memory().app_budget_bytes()),
      static_cast<unsigned long long>(c.memory().ram_bytes()));
  EF_FUZZ_INVARIANT(c.storage().read_bandwidth_bytes_per_second() > 0, "bandwidth");
  EF_FUZZ_INVARIANT(InUnit(c.thermal().sustained_fraction()) &&
                        c.thermal().heat_time_constant_s() > 0 &&
                        c.thermal().cool_time_constant_s() > 0,
                    "thermal");
  const auto& n = c.os_noise();
  EF_FUZZ_INVARIANT(
      n.preemptions_per_second() >= 0 && n.jitter_sigma() >= 0 && n.jitter_sigma() < 1, "os_noise");
  if (n.preemptions_per_second() > 0) {
    EF_FUZZ_INVARIANT(n.preemption_min_us() > 0 && n.preemption_pareto_alpha() > 1 &&
                          n.preemption_max_us() >= n.preemption_min_us(),
                      "preemptions");
  }
  EF_FUZZ_INVARIANT(c.display().refresh_hz() > 0 && c.display().refresh_hz() <= 1000, "refresh");
  EF_FUZZ_INVARIANT(c.responsiveness().anr_timeout_ms() > 0 &&
                        c.responsiveness().input_event_interval_ms() > 0 &&
                        c.responsiveness().frame_work_ms() >= 0,
                    "responsiveness");
  CheckNumbersAndEnums(c, "");
  const v1::DeviceClass again = ReparseOrDie(c);
  EF_FUZZ_INVARIANT(edgefleet::service::ValidateDeviceClass(again).ok(),
                    "a reprinted device class no longer validates");
  EF_FUZZ_INVARIANT((*registry)->classes().size() == 1 && (*registry)->Find(c.name()) != nullptr,
                    "registry lookup");
  // Names are unique in a registry.
  auto twice = edgefleet::service::DeviceClassRegistry::FromClasses({c, c});
  EF_FUZZ_INVARIANT(!twice.ok(), "a class defined twice was accepted");
  CheckRejected(twice.status(), "duplicate device class");
  if (Verbose()) fprintf(stderr, "  device class accepted\n");
}

bool IsValidArmName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char ch : name) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '-';
    if (!ok) return false;
  }
  return true;
}

void ArmSet(const std::string& text) {
  v1::ArmSet set;
  absl::Status s = edgefleet::service::ParseTextproto(text, "fuzz.textproto", &set);
  if (!s.ok()) return CheckRejected(s, "arm set parse");
  auto registry = edgefleet::service::ArmRegistry::FromArmSet(set, *g_repository);
  if (!registry.ok()) return CheckRejected(registry.status(), "arm set");
  // arm.proto and arm_registry.h.
  const std::vector<v1::Arm>& arms = (*registry)->arms();
  EF_FUZZ_INVARIANT(arms.size() == static_cast<size_t>(set.arms_size()), "%zu arms of %d",
                    arms.size(), set.arms_size());
  std::set<std::string> names;
  for (const v1::Arm& arm : arms) {
    EF_FUZZ_INVARIANT(IsValidArmName(arm.name()), "arm name '%s'", arm.name().c_str());
    EF_FUZZ_INVARIANT(names.insert(arm.name()).second, "arm '%s' twice", arm.name().c_str());
    EF_FUZZ_INVARIANT(arm.stack() == v1::STACK_EDGEFLEET || arm.stack() == v1::STACK_PYTORCH_MOBILE,
                      "arm '%s': stack %d", arm.name().c_str(), static_cast<int>(arm.stack()));
    EF_FUZZ_INVARIANT(arm.threads() >= 1 && arm.threads() <= 64, "arm '%s': threads %u",
                      arm.name().c_str(), arm.threads());
    EF_FUZZ_INVARIANT(arm.integration_policy() != v1::INTEGRATION_POLICY_UNSPECIFIED,
                      "arm '%s': policy left unspecified", arm.name().c_str());
    EF_FUZZ_INVARIANT(edgefleet::service::ModelRepository::ValidateName(arm.model()).ok(),
                      "arm '%s': model name accepted", arm.name().c_str());
    EF_FUZZ_INVARIANT(g_repository->OpenModel(arm.model(), arm.stack()).ok(),
                      "arm '%s': accepted without an openable model file", arm.name().c_str());
    EF_FUZZ_INVARIANT((*registry)->Find(arm.name()) != nullptr, "arm '%s' not found",
                      arm.name().c_str());
    CheckNumbersAndEnums(arm, "arms.");
  }
  v1::ArmSet accepted;
  for (const v1::Arm& arm : arms) *accepted.add_arms() = arm;
  const v1::ArmSet again = ReparseOrDie(accepted);
  EF_FUZZ_INVARIANT(edgefleet::service::ArmRegistry::FromArmSet(again, *g_repository).ok(),
                    "a reprinted arm set no longer validates");
  if (Verbose()) fprintf(stderr, "  arm set accepted\n");
}

void FleetSpec(const std::string& text) {
  absl::StatusOr<v1::FleetSpec> parsed = edgefleet::loadtest::ParseFleetSpec(text);
  if (!parsed.ok()) return CheckRejected(parsed.status(), "fleet spec parse");
  absl::StatusOr<v1::FleetSpec> valid = edgefleet::loadtest::ValidateFleetSpec(*parsed);
  if (!valid.ok()) return CheckRejected(valid.status(), "fleet spec");
  // fleet_spec.proto and fleet_plan.h; defaults filled in.
  const v1::FleetSpec& f = *valid;
  EF_FUZZ_INVARIANT(f.population_size() >= 1, "empty population");
  for (const auto& share : f.population()) {
    EF_FUZZ_INVARIANT(!share.device_class().empty() && share.share() > 0, "population share %g",
                      share.share());
  }
  EF_FUZZ_INVARIANT(!f.name().empty() && !f.arm_a().empty() && !f.arm_b().empty(), "names");
  EF_FUZZ_INVARIANT(
      f.devices() >= 1 && f.sessions_per_device() >= 1 && f.inferences_per_session() >= 1,
      "counts");
  EF_FUZZ_INVARIANT(f.inter_arrival_ms() >= 0, "inter_arrival_ms %g", f.inter_arrival_ms());
  EF_FUZZ_INVARIANT(f.arrival().concurrency() >= 1, "concurrency");
  if (f.arrival().kind() == v1::ArrivalProcess::OPEN_LOOP) {
    EF_FUZZ_INVARIANT(f.arrival().rate_per_second() > 0, "rate_per_second %g",
                      f.arrival().rate_per_second());
  }
  EF_FUZZ_INVARIANT(f.share_b() > 0 && f.share_b() < 1, "share_b %g", f.share_b());
  EF_FUZZ_INVARIANT(f.max_retries() >= 1 && f.call_timeout_ms() >= 1, "retries/timeout");
  CheckNumbersAndEnums(f, "");
  const v1::FleetSpec again = ReparseOrDie(f);
  absl::StatusOr<v1::FleetSpec> revalid = edgefleet::loadtest::ValidateFleetSpec(again);
  EF_FUZZ_INVARIANT(revalid.ok() && pb::util::MessageDifferencer::Equals(*revalid, f),
                    "validation is not idempotent");

  const std::vector<uint64_t> counts = edgefleet::loadtest::ClassCounts(f);
  EF_FUZZ_INVARIANT(counts.size() == static_cast<size_t>(f.population_size()), "counts size");
  uint64_t total = 0;
  for (uint64_t c : counts) {
    EF_FUZZ_INVARIANT(!__builtin_add_overflow(total, c, &total), "class counts overflow");
  }
  EF_FUZZ_INVARIANT(total == f.devices(), "class counts sum to %llu, devices %llu",
                    static_cast<unsigned long long>(total),
                    static_cast<unsigned long long>(f.devices()));

  if (Verbose()) fprintf(stderr, "  fleet spec accepted\n");
  uint64_t sessions = 0;
  if (__builtin_mul_overflow(f.devices(), uint64_t{f.sessions_per_device()}, &sessions) ||
      sessions > kMaxExpandedSessions) {
    return;
  }
  absl::StatusOr<edgefleet::loadtest::FleetPlan> plan =
      edgefleet::loadtest::ExpandFleet(f, edgefleet::loadtest::ShardSpec());
  EF_FUZZ_INVARIANT(plan.ok(), "ExpandFleet rejected a valid spec: %s",
                    plan.status().ToString().c_str());
  const uint64_t arms_per_session = f.assignment() == v1::ASSIGNMENT_PAIRED ? 2 : 1;
  EF_FUZZ_INVARIANT(plan->sessions.size() == sessions * arms_per_session,
                    "%zu sessions planned, expected %llu", plan->sessions.size(),
                    static_cast<unsigned long long>(sessions * arms_per_session));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  MakeRepository();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > kMaxTextBytes) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0:
      DeviceClass(text);
      break;
    case 1:
      ArmSet(text);
      break;
    default:
      FleetSpec(text);
      break;
  }
  return 0;
}
