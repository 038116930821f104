// Deterministic hashed assignment of devices to arms, for experiments that
// cannot run every device on both arms (the paired design is the default;
// docs/statistics.md).
//
// The arm depends only on (experiment seed, device id): the same device gets
// the same arm in every shard, process and rerun, independent of order. The
// hash is SplitMix64-based, so assignments of different seeds are
// independent. Pure functions; thread-safe.

#ifndef EDGEFLEET_LOADTEST_RESULTS_ASSIGNMENT_H_
#define EDGEFLEET_LOADTEST_RESULTS_ASSIGNMENT_H_

#include <cstdint>
#include <string_view>

#include "loadtest/results/session_record.h"

namespace edgefleet {
namespace loadtest {

// Uniform in [0, 1), a function of (seed, device_id) only.
double AssignmentPoint(uint64_t seed, uint64_t device_id);

// kB when AssignmentPoint(seed, device_id) < share_b, else kA.
// REQUIRES: 0 <= share_b <= 1.
Arm AssignArm(uint64_t seed, uint64_t device_id, double share_b);

// A 64-bit id for a textual device id (HashString).
uint64_t DeviceIdFromString(std::string_view id);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_RESULTS_ASSIGNMENT_H_
