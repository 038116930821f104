#include "service/seeded_random.h"

#include <cmath>

namespace edgefleet {
namespace service {

uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t HashName(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

SeededRandom::SeededRandom(uint64_t seed, uint64_t stream)
    : state_(Mix64(seed) ^ Mix64(stream * 0xd1b54a32d192ed03ULL + 1)) {}

uint64_t SeededRandom::NextU64() {
  state_ += 0x9e3779b97f4a7c15ULL;
  uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double SeededRandom::Uniform() {
  // 53 random bits, shifted by half a step so neither end is reached.
  return (static_cast<double>(NextU64() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

double SeededRandom::Normal() {
  const double u1 = Uniform();
  const double u2 = Uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

double SeededRandom::Exponential(double mean) { return -mean * std::log(Uniform()); }

double SeededRandom::Pareto(double x_min, double alpha) {
  return x_min / std::pow(Uniform(), 1.0 / alpha);
}

}  // namespace service
}  // namespace edgefleet
