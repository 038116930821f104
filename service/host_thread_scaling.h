// HostThreadScaling: how our runtime itself scales from one thread to two
// on a model, measured once on this host, so the emulator does not assume
// it (device_time_fit.h, PredictMs: the runtime's serial share).
//
// MeasureThreadScaling() loads the model's program twice with our runtime
// (the requested kernels), with one and with two threads, feeds both the
// same seeded random inputs and alternates their executes (warmup, then
// `runs` timed executes each, wall clock), and returns the fastest execute
// of each: on a host busy with other work, the executes least disturbed by
// it. Its Speedup() (one-thread time over two-thread time) is what the
// host profile keeps as two_thread_speedup (SetThreadScaling writes both
// times and their ratio). Non-delegated kernels get a two-thread pool of
// their own for the measurement (the service's kernel pool has one thread
// per compute slot); the XNNPACK delegate uses its method's pthreadpool as
// always.
//
// RuntimeSerialShare() turns a speedup S into the share of the program's
// work the runtime leaves on one thread (Amdahl's law at two threads:
// 2 / S - 1, clamped to [0, 1]); 0 when S was not measured (0).
//
// Stateless; thread-compatible (it runs the model on the calling thread
// and one helper thread).

#ifndef EDGEFLEET_SERVICE_HOST_THREAD_SCALING_H_
#define EDGEFLEET_SERVICE_HOST_THREAD_SCALING_H_

#include <string>

#include "absl/status/statusor.h"
#include "edgefleet/v1/host_profile.pb.h"

namespace edgefleet {
namespace service {

// The fastest one- and two-thread executes of a program, microseconds.
struct ThreadScaling {
  double one_thread_us = 0;
  double two_thread_us = 0;
  // one_thread_us / two_thread_us; 0 when either is not positive.
  double Speedup() const;
};

// Errors: FAILED_PRECONDITION when this process may use fewer than two
// CPUs (nothing to measure); the runtime's errors loading or running the
// program.
absl::StatusOr<ThreadScaling> MeasureThreadScaling(const std::string& model,
                                                   const std::string& path, v1::Kernels kernels,
                                                   int warmup, int runs);

// Writes `scaling` into `entry`: one_thread_wall_us, two_thread_wall_us and
// two_thread_speedup (their ratio).
void SetThreadScaling(const ThreadScaling& scaling, v1::ModelHostProfile* entry);

double RuntimeSerialShare(double two_thread_speedup);

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_HOST_THREAD_SCALING_H_
