// RunReport: what `edgefleet-run run` measured, and its JSON and text forms.
//
// A plain value type; formatting functions are stateless and thread-safe.

#ifndef EDGEFLEET_RUNTIME_TOOLS_RUN_REPORT_H_
#define EDGEFLEET_RUNTIME_TOOLS_RUN_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/module/method_inputs.h"
#include "runtime/module/module.h"
#include "runtime/tools/command_line.h"
#include "runtime/tools/latency_stats.h"
#include "runtime/tools/op_profiler.h"

namespace edgefleet {
namespace tools {

struct RunReport {
  struct Output {
    std::string dtype;           // "float32", "int64", ... or TagName() ("None")
    std::vector<int32_t> shape;  // empty for scalars
    bool has_shape = true;       // false for outputs that are not arrays
    std::string file;            // written .npy, or empty
  };

  RunOptions options;  // threads resolved to the count used
  double load_ms = 0;
  double method_load_ms = 0;
  double first_ms = 0;
  LatencySummary latency_ms;  // meaningful if options.iterations > 0
  // Process CPU time per timed iteration (all threads): unlike latency, not
  // counting time other processes hold the cores. Meaningful like latency_ms.
  double cpu_ms = 0;
  uint64_t bytes_read = 0;
  Module::MemoryUse memory;
  std::vector<MethodInputs::Description> inputs;
  std::vector<Output> outputs;
  std::vector<OpProfileRow> profile;  // with options.profile, slowest first
  // With options.profile: work inside delegate calls (SummarizeDelegateNodes).
  std::vector<OpProfileRow> delegate_nodes;
  // With --profile, --etdump or --trace: events the tracer kept and those
  // it dropped because its buffer was full.
  uint64_t trace_events = 0;
  uint64_t trace_dropped = 0;
  // With --dump-intermediates: tensors and bytes written.
  uint64_t dumped_tensors = 0;
  uint64_t dumped_bytes = 0;
};

// One JSON object (no trailing newline).
std::string RunReportToJson(const RunReport& report);

// A short human-readable summary (several lines, ending in a newline).
std::string RunReportToText(const RunReport& report);

}  // namespace tools
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_TOOLS_RUN_REPORT_H_
