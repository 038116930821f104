// The old stack's per-operator host profile: what a .ptl costs on this host
// in the lite interpreter, per operator class (op_classes.h), for the
// device-time model, as host_profiler.h measures the edgefleet stack.
//
// The model is loaded and run by PytorchMobileStack (one intra-op thread,
// the served path) on seeded inputs of the signature of the model.pte next
// to the .ptl (a .ptl records no input shapes; both files are the same
// model). Timing uses libtorch's own per-operator hook: the lite interpreter
// opens a RecordFunction of scope LITE_INTERPRETER around every operator it
// calls (torch/csrc/jit/mobile/interpreter.cpp, libtorch 1.13), and a
// thread-local callback restricted to that scope reads the thread CPU clock
// (runtime/platform/clock.h ThreadCpuNanos) at its start and end. The same
// observation is what torch.autograd.profiler shows for a lite-interpreter
// module; its Kineto edge profiler (KinetoEdgeCPUProfiler) is not built in
// Debian's libtorch. `warmup` runs, then `runs` runs timed without the
// callback (the total) and `runs` with it (per operator, median per
// executed operator); the operator sequence must be the same in every run.
//
// Work per operator (for the classification) comes from the arguments the
// interpreter passes: convolutions and linear layers, also prepacked
// (prepacked::conv2d_clamp_run / linear_clamp_run: shapes from the XNNPACK
// context's __getstate__, the weights it keeps) and quantized
// (quantized::conv2d*, quantized::linear*: shapes from the packed params),
// get FLOPs (multiply-add = 2) and bytes (input, weight, bias, output);
// other operators are data movement or elementwise by name as in
// op_classes.h, with the bytes of their tensor arguments. Metadata
// operators the lite interpreter calls (aten::size, aten::Int, list
// building) are data movement.
//
// Stateless; thread-compatible (the callback is thread-local).

#ifndef EDGEFLEET_SERVICE_PYTORCH_MOBILE_PROFILER_H_
#define EDGEFLEET_SERVICE_PYTORCH_MOBILE_PROFILER_H_

#include <string>

#include "absl/status/statusor.h"
#include "edgefleet/v1/host_profile.pb.h"
#include "service/host_profiler.h"

namespace edgefleet {
namespace service {

// Measures the .ptl at `path` (a model folder's model.ptl, with its
// model.pte beside it) as `model` on the old stack: the per-class summary
// and every operator the interpreter called (kernel "lite_interpreter").
// Errors:
// FAILED_PRECONDITION where the old stack is not built or not available,
// the stack's load errors, NOT_FOUND / the runtime's errors for the .pte
// beside it, INTERNAL when a run fails or the operator sequence changes
// between runs.
absl::StatusOr<OperatorProfile> MeasurePytorchMobileOperators(const std::string& model,
                                                              const std::string& path,
                                                              const ProfileOptions& options);

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_PYTORCH_MOBILE_PROFILER_H_
