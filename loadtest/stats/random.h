// Deterministic random numbers for the bootstrap and the synthetic fleet.
//
// The standard library's distributions are implementation-defined, so the
// same seed could give different reports on different toolchains. Everything
// here is specified bit for bit: SplitMix64 for seeding and hashing,
// xoshiro256** (Blackman & Vigna) as the generator, and a table-driven
// Poisson(1) sampler.
//
// A generator object is not thread-safe; give each thread (or each bootstrap
// replicate) its own, seeded with MixSeed(seed, stream).

#ifndef EDGEFLEET_LOADTEST_STATS_RANDOM_H_
#define EDGEFLEET_LOADTEST_STATS_RANDOM_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace edgefleet {
namespace loadtest {

// One SplitMix64 step: a bijective 64-bit mix with good avalanche.
uint64_t SplitMix64(uint64_t x);

// A seed for sub-stream `stream` of `seed`; distinct streams are independent
// for all practical purposes.
uint64_t MixSeed(uint64_t seed, uint64_t stream);

// A stable 64-bit hash of a string (FNV-1a, then SplitMix64), e.g. to derive
// a stream id from a scope name.
uint64_t HashString(std::string_view text);

class Xoshiro256 {
 public:
  explicit Xoshiro256(uint64_t seed);

  uint64_t Next();
  // Uniform on [0, 1) with 53 random bits.
  double NextDouble();
  // Standard normal (Box–Muller on two NextDouble() draws).
  double NextNormal();

 private:
  std::array<uint64_t, 4> s_;
};

// Poisson(1) variates, four per 64-bit draw: each 16-bit chunk u is mapped to
// the smallest k with P(K <= k) > u / 65536, i.e. the Poisson(1) CDF quantized
// to 2^-16. Used as bootstrap weights (the Poisson bootstrap).
class PoissonOneSampler {
 public:
  PoissonOneSampler();

  // Fills weights[0, n) from `rng`.
  void Fill(Xoshiro256& rng, uint8_t* weights, size_t n) const;

 private:
  std::array<uint8_t, 65536> table_;
};

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_STATS_RANDOM_H_
