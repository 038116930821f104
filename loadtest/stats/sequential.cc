#include "loadtest/stats/sequential.h"

#include "loadtest/stats/random.h"

namespace edgefleet {
namespace loadtest {

double PerLookConfidence(double confidence, int looks) {
  return 1.0 - (1.0 - confidence) / looks;
}

int LookOfDevice(uint64_t seed, uint64_t device_id, int looks) {
  // A stream of its own: independent of the arm assignment's hash, so look
  // groups are not correlated with arms.
  constexpr uint64_t kLookStream = 0x6c6f6f6b73ull;  // "looks"
  const uint64_t h = MixSeed(MixSeed(seed, kLookStream), device_id);
  const double u = static_cast<double>(h >> 11) * 0x1.0p-53;
  return static_cast<int>(u * looks);
}

}  // namespace loadtest
}  // namespace edgefleet
