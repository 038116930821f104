// HostProfiler: measures what one model costs on this host, per operator
// class (op_classes.h), for the device-time model (device_time_model.h).
//
// MeasureOperatorProfile() loads the model's program with our runtime (one
// thread, the requested kernels), feeds seeded random inputs, runs `warmup`
// executes and then `runs` executes traced by the runtime's TraceRecorder
// (runtime/devtools/trace_recorder.h) on the thread CPU clock
// (TraceClock::kThreadCpu: time other processes take the core away is not
// counted, so a busy host measures close to what a quiet one does), and
// keeps each instruction's median over the runs. Each
// executed kernel call is classified from its arguments' shapes against
// the host's ridge point: ProfileOptions::ridge_flops_per_byte when given
// (the host profile's), else the best FLOP/s of any convolution or matrix
// product of the same runs (instructions over 20 us only) over the bytes/s
// one core moves copying 32 MiB (memcpy, read + write). The overhead class
// counts 1 us per executed operator.
//
// HostProfileFile reads and writes the HostProfile textproto that keeps
// these measurements between calls (so predictions are deterministic);
// it keeps the per-class sums, the Profile RPC (operator_breakdown.h) the
// per-operator figures.
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
#include "service/tensor_data.h"

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
  // The old stack's inputs (a .ptl declares none). Empty: read from the
  // model.pte beside the .ptl, which needs the file's real path, not the
  // /proc/self/fd name of a repository's ModelFile.
  std::vector<TensorSpec> inputs;
};

// One executed operator of a profiled model: its name, work, median host
// time (thread CPU nanoseconds) over the profiled runs and class.
struct ProfiledOperator {
  // The kernel ("aten::convolution.out", a fused kernel such as
  // "edgefleet::fused_convolution.out", "delegate XnnpackBackend#0"), or on
  // the old stack the operator the lite interpreter called
  // ("prepacked::conv2d_clamp_run").
  std::string name;
  // Our runtime: the kernel kind ("portable", "optimized", "delegate"); the
  // old stack: "lite_interpreter".
  std::string kernel;
  OpWork work;
  double nanos = 0;
  v1::OpClass op_class = v1::OP_CLASS_UNSPECIFIED;  // set by SummarizeOperators
};

// A measured model: the per-class summary and the operators behind it, in
// execution order.
struct OperatorProfile {
  v1::ModelHostProfile summary;
  std::vector<ProfiledOperator> operators;
};

// Measures `path` as `model`: a .pte for STACK_EDGEFLEET, a .ptl for
// STACK_PYTORCH_MOBILE (pytorch_mobile_profiler.h). Errors: the runtime's
// load and execute errors as status (status_mapping.h), the old stack's
// (FAILED_PRECONDITION where it is not built), INVALID_ARGUMENT for no
// stack or non-default kernels on the old stack.
absl::StatusOr<OperatorProfile> MeasureOperatorProfile(const std::string& model,
                                                       const std::string& path, v1::Stack stack,
                                                       v1::Kernels kernels,
                                                       const ProfileOptions& options = {});
// The summary of MeasureOperatorProfile; for STACK_EDGEFLEET also our
// runtime's two-thread speedup on the program (host_thread_scaling.h; left
// 0 when the process may use one CPU only).
absl::StatusOr<v1::ModelHostProfile> MeasureHostProfile(const std::string& model,
                                                        const std::string& path, v1::Stack stack,
                                                        v1::Kernels kernels,
                                                        const ProfileOptions& options = {});

// Classifies `ops` and fills `out`'s ridge point and classes from them: the
// ridge point is options.ridge_flops_per_byte when > 0, else the best
// FLOP/s of any compute operator over 20 us over one core's copy
// bandwidth; a compute operator without FLOPs (a delegate) is dense; the
// overhead class counts 1 us per operator.
void SummarizeOperators(std::vector<ProfiledOperator>* ops, const ProfileOptions& options,
                        v1::ModelHostProfile* out);

// Host time of `op_class` in `profile` (0 if absent).
double ClassHostUs(const v1::ModelHostProfile& profile, v1::OpClass op_class);

// The stored profile of (stack, model, kernels) if it was measured from a
// file of this size and digest; else null.
const v1::ModelHostProfile* FindHostProfile(const v1::HostProfile& profile, v1::Stack stack,
                                            const std::string& model, v1::Kernels kernels,
                                            uint64_t file_bytes, const std::string& file_digest);

// Size and FNV-1a 64 digest (16 hex digits) of `path`, computed once per
// file identity (device, inode, size, modification time) in this process.
// Thread-safe. Errors: NOT_FOUND.
absl::Status FileStamp(const std::string& path, uint64_t* bytes, std::string* digest);

// Errors: NOT_FOUND (no file), INVALID_ARGUMENT (not a HostProfile textproto).
absl::StatusOr<v1::HostProfile> ReadHostProfile(const std::string& path);
absl::Status WriteHostProfile(const std::string& path, const v1::HostProfile& profile);

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_HOST_PROFILER_H_
