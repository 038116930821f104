// The device-time profiles file: what a report's "what explains the
// difference" section is computed from (explanation.h), saved with a run's
// results so that `edgefleet-loadtest report` reproduces the section from
// files alone. `run` writes it beside the results file (RESULTS.json ->
// RESULTS.profiles.json); schema "edgefleet.loadtest.profiles/1"
// (docs/loadtest-cli.md):
//
//   {"schema": "edgefleet.loadtest.profiles/1",
//    "classes": [{"device_class": "mid_android",
//                 "A": {"device_us": 812.5,
//                       "operator_classes": {"dense": 640.1, ...},
//                       "operators": {"aten::convolution.out": 598.3, ...}},
//                 "B": {...}}, ...]}
//
// Numbers are written in their shortest round-trip form, so a read gives back
// exactly the breakdowns that were written, and the section `report` renders
// is the one `run` rendered. Reading validates every field (finite,
// non-negative times; one entry per device class) and names the first
// problem. Pure functions; thread-safe.

#ifndef EDGEFLEET_LOADTEST_REPORT_PROFILES_FILE_H_
#define EDGEFLEET_LOADTEST_REPORT_PROFILES_FILE_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "loadtest/report/report_model.h"

namespace edgefleet {
namespace loadtest {

inline constexpr char kProfilesSchema[] = "edgefleet.loadtest.profiles/1";

// (arm A, arm B) breakdowns per device class, in the spec's order.
using ProfilePairs = std::vector<std::pair<DeviceTimeBreakdown, DeviceTimeBreakdown>>;

// REQUIRES: both breakdowns of a pair name one device class.
std::string ProfilesToJson(const ProfilePairs& pairs);
// Errors: kInvalidArgument naming the first malformed field.
absl::StatusOr<ProfilePairs> ProfilesFromJson(std::string_view json);

// Where `run` puts the profiles of the results file `results_path`: its
// extension replaced by ".profiles.json".
std::string ProfilesPathFor(const std::string& results_path);

absl::Status WriteProfilesFile(const ProfilePairs& pairs, const std::string& path);
// Errors: kNotFound when `path` does not exist, kInvalidArgument (with the
// path) when it is malformed, kUnavailable when it cannot be read.
absl::StatusOr<ProfilePairs> ReadProfilesFile(const std::string& path);

// The profiles saved with the results files `results_paths` (one whole-fleet
// file, or the shards of one experiment): the file beside them
// (ProfilesPathFor) where there is one; empty when there is none. Errors: a
// malformed file (kInvalidArgument), two that differ (kFailedPrecondition).
absl::StatusOr<ProfilePairs> ProfilesBeside(const std::vector<std::string>& results_paths);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_REPORT_PROFILES_FILE_H_
