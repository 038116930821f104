// HostProfiler: measures what one model costs on this host, per operator
// class (op_classes.h), for the device-time model (device_time_model.h).
//
// Measure() loads the model's program with our runtime (one thread, the
// requested kernels), feeds seeded random inputs, runs `warmup` executes
// and then `runs` executes with a per-instruction observer (the runtime's
// InstructionObserver), and keeps each instruction's median thread CPU time
// (CLOCK_THREAD_CPUTIME_ID: time other processes take the core away is not
// counted, so a busy host measures close to what a quiet one does). Each
// executed kernel call is classified from its arguments' shapes against
// the host's ridge point: ProfileOptions::ridge_flops_per_byte when given
// (the host profile's), else the best FLOP/s of any convolution or matrix
// product of the same runs (instructions over 20 us only) over the bytes/s
// one core moves copying 32 MiB (memcpy, read + write). The overhead class
// counts 1 us per executed operator.
//
// HostProfileFile reads and writes the HostProfile textproto that keeps
// these measurements between calls (so predictions are deterministic).
//
// The old stack (STACK_PYTORCH_MOBILE, a .ptl) is profiled by
// pytorch_mobile_profiler.h with libtorch's own per-operator hooks and
// summarized the same way (SummarizeOperators).
// Stateless apart from the arguments; thread-compatible.

#ifndef EDGEFLEET_SERVICE_HOST_PROFILER_H_
#define EDGEFLEET_SERVICE_HOST_PROFILER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "edgefleet/v1/arm.pb.h"
#include "edgefleet/v1/host_profile.pb.h"
#include "service/op_classes.h"

namespace edgefleet {
namespace service {

// The ridge point of a model without a measurable compute kernel.
constexpr double kDefaultRidgeFlopsPerByte = 4.0;

struct ProfileOptions {
  int warmup = 2;
  int runs = 7;
  // > 0: classify against this host ridge point (HostProfile's) instead of
  // the one measured from this model's runs.
  double ridge_flops_per_byte = 0;
};

// Measures `path` as `model`: a .pte for STACK_EDGEFLEET, a .ptl for
// STACK_PYTORCH_MOBILE (pytorch_mobile_profiler.h). Errors: the runtime's
// load and execute errors as status (status_mapping.h), the old stack's
// (FAILED_PRECONDITION where it is not built), INVALID_ARGUMENT for no
// stack or non-default kernels on the old stack.
absl::StatusOr<v1::ModelHostProfile> MeasureHostProfile(const std::string& model,
                                                        const std::string& path, v1::Stack stack,
                                                        v1::Kernels kernels,
                                                        const ProfileOptions& options = {});

// One executed operator of a profiled model: its work and its median
// host time (thread CPU nanoseconds) over the profiled runs.
struct ProfiledOperator {
  OpWork work;
  double nanos = 0;
};

// Fills `out`'s ridge point and classes from `ops`: the ridge point is
// options.ridge_flops_per_byte when > 0, else the best FLOP/s of any
// compute operator over 20 us over one core's copy bandwidth; a compute
// operator without FLOPs (a delegate) is dense; the overhead class counts
// 1 us per operator.
void SummarizeOperators(const std::vector<ProfiledOperator>& ops, const ProfileOptions& options,
                        v1::ModelHostProfile* out);

// CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID), nanoseconds:
// unlike wall time it does not count the time other processes hold the
// core, so a loaded host measures (nearly) what a quiet one does.
uint64_t ThreadCpuNanos();

// Host time of `op_class` in `profile` (0 if absent).
double ClassHostUs(const v1::ModelHostProfile& profile, v1::OpClass op_class);

// The stored profile of (stack, model, kernels) if it was measured from a
// file of this size and digest; else null.
const v1::ModelHostProfile* FindHostProfile(const v1::HostProfile& profile, v1::Stack stack,
                                            const std::string& model, v1::Kernels kernels,
                                            uint64_t file_bytes, const std::string& file_digest);

// Size and FNV-1a 64 digest (16 hex digits) of `path`. Errors: NOT_FOUND.
absl::Status FileStamp(const std::string& path, uint64_t* bytes, std::string* digest);

// Errors: NOT_FOUND (no file), INVALID_ARGUMENT (not a HostProfile textproto).
absl::StatusOr<v1::HostProfile> ReadHostProfile(const std::string& path);
absl::Status WriteHostProfile(const std::string& path, const v1::HostProfile& profile);

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_HOST_PROFILER_H_
