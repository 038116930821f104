// `edgefleet-run run`: load a program, run one method with given or random
// inputs, time it, and write its outputs as .npy files.
//
// Timing (MonotonicNanos): load_ms is Module::Load (program load and
// verification), method_load_ms is LoadMethod, first_ms the first
// SetInput + Execute, then `warmup` untimed and `iterations` timed
// SetInput + Execute rounds. Outputs are taken after the last execute.
//
// Stateless; thread-safe provided kernels and backends are registered.

#ifndef EDGEFLEET_RUNTIME_TOOLS_RUN_COMMAND_H_
#define EDGEFLEET_RUNTIME_TOOLS_RUN_COMMAND_H_

#include "runtime/core/result.h"
#include "runtime/tools/command_line.h"
#include "runtime/tools/run_report.h"

namespace edgefleet {
namespace tools {

// Runs `options.method` of `options.model`. Every error is recorded with a
// one-line detail (error_detail.h): file and .npy problems, every runtime
// failure as the runtime describes it, unwritable outputs.
Result<RunReport> RunModel(const RunOptions& options);

}  // namespace tools
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_TOOLS_RUN_COMMAND_H_
