#include "loadtest/stats/random.h"

#include <cmath>
#include <cstddef>

namespace edgefleet {
namespace loadtest {
namespace {

uint64_t RotateLeft(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t MixSeed(uint64_t seed, uint64_t stream) {
  return SplitMix64(SplitMix64(seed) ^ SplitMix64(stream + 0x632be59bd9b4e019ULL));
}

uint64_t HashString(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return SplitMix64(h);
}

Xoshiro256::Xoshiro256(uint64_t seed) {
  uint64_t x = seed;
  for (auto& word : s_) {
    x = SplitMix64(x);
    word = x;
  }
}

uint64_t Xoshiro256::Next() {
  const uint64_t result = RotateLeft(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = RotateLeft(s_[3], 45);
  return result;
}

double Xoshiro256::NextDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

double Xoshiro256::NextNormal() {
  // 1 - U keeps the logarithm's argument in (0, 1].
  const double u1 = 1.0 - NextDouble();
  const double u2 = NextDouble();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

PoissonOneSampler::PoissonOneSampler() {
  // CDF of Poisson(1): sum_{j<=k} e^-1 / j!.
  double pmf = std::exp(-1.0);
  double cdf = pmf;
  uint8_t k = 0;
  for (size_t u = 0; u < table_.size(); ++u) {
    const double level = static_cast<double>(u) / 65536.0;
    while (cdf <= level && k < 255) {
      ++k;
      pmf /= k;
      cdf += pmf;
    }
    table_[u] = k;
  }
}

void PoissonOneSampler::Fill(Xoshiro256& rng, uint8_t* weights, size_t n) const {
  size_t i = 0;
  while (i + 4 <= n) {
    const uint64_t bits = rng.Next();
    weights[i++] = table_[bits & 0xffff];
    weights[i++] = table_[(bits >> 16) & 0xffff];
    weights[i++] = table_[(bits >> 32) & 0xffff];
    weights[i++] = table_[bits >> 48];
  }
  if (i < n) {
    uint64_t bits = rng.Next();
    for (; i < n; ++i, bits >>= 16) weights[i] = table_[bits & 0xffff];
  }
}

}  // namespace loadtest
}  // namespace edgefleet
