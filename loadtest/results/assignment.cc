#include "loadtest/results/assignment.h"

#include "loadtest/stats/random.h"

namespace edgefleet {
namespace loadtest {

double AssignmentPoint(uint64_t seed, uint64_t device_id) {
  return static_cast<double>(MixSeed(seed, device_id) >> 11) * 0x1.0p-53;
}

Arm AssignArm(uint64_t seed, uint64_t device_id, double share_b) {
  return AssignmentPoint(seed, device_id) < share_b ? Arm::kB : Arm::kA;
}

uint64_t DeviceIdFromString(std::string_view id) { return HashString(id); }

}  // namespace loadtest
}  // namespace edgefleet
