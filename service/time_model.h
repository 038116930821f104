// The emulator's time model: how calibrated host costs become device time.
//
// DeviceTimeModel turns host work (microseconds on one host core, from the
// host calibration) into device work for one device class and one model:
//   device_us = host_us * slowdown / ThreadSpeedup(threads)
// The emulator's sessions take `slowdown` and the thread speedup from the
// per-operator-class model (device_time_predictor.h ModelOnDevice: the
// model's predicted device time over its host time, and its predicted
// speedup). Without that model (the two-argument constructor) `slowdown`
// is one factor for every model and the speedup is Amdahl's law over the
// class's cores with its parallel_fraction (AmdahlSpeedup).
//
// DeviceTimeFactor is a device's own compute-time factor within its class;
// ThermalState scales speed by the heat state; OsNoise adds seeded jitter
// and preemptions. Every function is deterministic: the same inputs give
// the same doubles on any host. All are value types, not thread-safe.

#ifndef EDGEFLEET_SERVICE_TIME_MODEL_H_
#define EDGEFLEET_SERVICE_TIME_MODEL_H_

#include <cstdint>
#include <functional>

#include "edgefleet/v1/device_class.pb.h"

namespace edgefleet {
namespace service {

// Amdahl speedup of `threads` threads over one fastest core of `cpu` for work
// whose parallel fraction is `parallel_fraction`: cores in use fastest first,
// static partitioning (the slowest core in use sets the pace), more threads
// than cores add nothing. 1 for threads <= 1.
double AmdahlSpeedup(const v1::Cpu& cpu, double parallel_fraction, int threads);

class DeviceTimeModel {
 public:
  // REQUIRES: device_class is valid (ValidateDeviceClass), slowdown > 0.
  DeviceTimeModel(const v1::DeviceClass& device_class, double slowdown);
  // With the speedup of each thread count given (`thread_speedup`, e.g.
  // ModelOnDevice::ThreadSpeedup; must be >= 1 for threads >= 1).
  DeviceTimeModel(const v1::DeviceClass& device_class, double slowdown,
                  std::function<double(int)> thread_speedup);

  double slowdown() const { return slowdown_; }

  // Speedup of `threads` threads over one fastest core (1 for threads <= 1).
  double ThreadSpeedup(int threads) const;

  // Device time of work that took `host_us` on one host core, run with
  // `threads` threads, at full clock (before thermal state and noise).
  double ComputeUs(double host_us, int threads) const;

  // Storage time to read `bytes` from a file: access latency + transfer.
  double StorageReadUs(uint64_t bytes) const;

 private:
  const v1::DeviceClass& class_;
  double slowdown_;
  std::function<double(int)> thread_speedup_;  // empty: the class's Amdahl speedup
};

// The compute-time factor of device `device_seed` of a class with
// `variation` (device_class.proto DeviceVariation): exp(speed_sigma * Z),
// Z standard normal drawn from (device_seed, a stream of its own, apart
// from OsNoise's); exactly 1 when speed_sigma is 0.
double DeviceTimeFactor(const v1::DeviceVariation& variation, uint64_t device_seed);

// First-order heat model (device_class.proto, Thermal).
class ThermalState {
 public:
  ThermalState(const v1::Thermal& thermal, double initial_heat);

  double heat() const { return heat_; }
  // Speed fraction at the current heat: 1 - (1 - sustained) * heat.
  double speed() const;
  // Advances the state by `us` of busy or idle time.
  void Busy(double us);
  void Idle(double us);

 private:
  const v1::Thermal& thermal_;
  double heat_;
};

// Seeded OS noise (device_class.proto, OsNoise).
class OsNoise {
 public:
  OsNoise(const v1::OsNoise& noise, uint64_t seed);

  // Duration of a busy interval that needs `clean_us` of work: lognormal
  // jitter (mean 1), plus Poisson preemptions with capped Pareto durations.
  // `event` numbers the interval within the session: the same (seed, event)
  // draws the same numbers on every arm.
  double Apply(double clean_us, uint64_t event) const;

 private:
  const v1::OsNoise& noise_;
  uint64_t seed_;
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_TIME_MODEL_H_
