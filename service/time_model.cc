#include "service/time_model.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "service/seeded_random.h"

namespace edgefleet {
namespace service {

DeviceTimeModel::DeviceTimeModel(const v1::DeviceClass& device_class, double slowdown)
    : class_(device_class), slowdown_(slowdown) {}

DeviceTimeModel::DeviceTimeModel(const v1::DeviceClass& device_class, double slowdown,
                                 std::function<double(int)> thread_speedup)
    : class_(device_class), slowdown_(slowdown), thread_speedup_(std::move(thread_speedup)) {}

double AmdahlSpeedup(const v1::Cpu& cpu, double parallel_fraction, int threads) {
  if (threads <= 1) return 1.0;
  // Cores in use, fastest first; more threads than cores oversubscribe and
  // add nothing.
  int used = 0;
  double slowest = 1.0;
  for (const auto& cluster : cpu.clusters()) {
    for (uint32_t c = 0; c < cluster.cores() && used < threads; ++c) {
      ++used;
      slowest = std::min(slowest, cluster.relative_speed());
    }
  }
  const double capacity = std::max(1.0, used * slowest);
  const double p = parallel_fraction;
  return 1.0 / ((1.0 - p) + p / capacity);
}

double DeviceTimeFactor(const v1::DeviceVariation& variation, uint64_t device_seed) {
  if (variation.speed_sigma() == 0) return 1.0;
  SeededRandom random(device_seed, HashName("device_variation.speed"));
  return std::exp(variation.speed_sigma() * random.Normal());
}

double DeviceTimeModel::ThreadSpeedup(int threads) const {
  if (thread_speedup_) return threads <= 1 ? 1.0 : thread_speedup_(threads);
  return AmdahlSpeedup(class_.cpu(), class_.cpu().parallel_fraction(), threads);
}

double DeviceTimeModel::ComputeUs(double host_us, int threads) const {
  return host_us * slowdown_ / ThreadSpeedup(threads);
}

double DeviceTimeModel::StorageReadUs(uint64_t bytes) const {
  const double bandwidth = static_cast<double>(class_.storage().read_bandwidth_bytes_per_second());
  return class_.storage().access_latency_us() + static_cast<double>(bytes) * 1e6 / bandwidth;
}

ThermalState::ThermalState(const v1::Thermal& thermal, double initial_heat)
    : thermal_(thermal), heat_(std::clamp(initial_heat, 0.0, 1.0)) {}

double ThermalState::speed() const { return 1.0 - (1.0 - thermal_.sustained_fraction()) * heat_; }

void ThermalState::Busy(double us) {
  const double tau = thermal_.heat_time_constant_s() * 1e6;
  heat_ = 1.0 - (1.0 - heat_) * std::exp(-us / tau);
}

void ThermalState::Idle(double us) {
  const double tau = thermal_.cool_time_constant_s() * 1e6;
  heat_ *= std::exp(-us / tau);
}

OsNoise::OsNoise(const v1::OsNoise& noise, uint64_t seed) : noise_(noise), seed_(seed) {}

double OsNoise::Apply(double clean_us, uint64_t event) const {
  SeededRandom random(seed_, event);
  const double sigma = noise_.jitter_sigma();
  double us = clean_us * std::exp(sigma * random.Normal() - 0.5 * sigma * sigma);
  const double rate = noise_.preemptions_per_second();
  if (rate > 0) {
    const double mean_gap_us = 1e6 / rate;
    double preempted = 0;
    for (double at = random.Exponential(mean_gap_us); at < us;
         at += random.Exponential(mean_gap_us)) {
      preempted +=
          std::min(random.Pareto(noise_.preemption_min_us(), noise_.preemption_pareto_alpha()),
                   noise_.preemption_max_us());
    }
    us += preempted;
  }
  return us;
}

}  // namespace service
}  // namespace edgefleet
