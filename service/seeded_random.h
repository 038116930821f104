// SeededRandom: a small counter-based random source for the emulator.
//
// Emulated figures must be reproducible to the microsecond on any host, so
// the service does not use std:: distributions (their algorithms are
// implementation-defined). A stream is identified by (seed, stream id); two
// arms of a paired session draw the same numbers for the same stream (common
// random numbers). Generator: SplitMix64. Not thread-safe; one per user.

#ifndef EDGEFLEET_SERVICE_SEEDED_RANDOM_H_
#define EDGEFLEET_SERVICE_SEEDED_RANDOM_H_

#include <cstdint>
#include <string>

namespace edgefleet {
namespace service {

// SplitMix64's finalizer: a bijective 64-bit mix.
uint64_t Mix64(uint64_t x);

// FNV-1a of `text`, for deriving seeds from names.
uint64_t HashName(const std::string& text);

class SeededRandom {
 public:
  SeededRandom(uint64_t seed, uint64_t stream);

  uint64_t NextU64();
  // Uniform in (0, 1): never exactly 0 or 1.
  double Uniform();
  // Standard normal (Box-Muller).
  double Normal();
  // Exponential with the given mean.
  double Exponential(double mean);
  // Pareto with scale `x_min` > 0 and shape `alpha` > 0.
  double Pareto(double x_min, double alpha);

 private:
  uint64_t state_;
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_SEEDED_RANDOM_H_
