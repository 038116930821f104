// Per-operator profile: where a Method spends its time, per operator and
// kernel, summarized from the instruction events a TraceRecorder kept
// (runtime/devtools). `edgefleet-run run --profile` records extra executes
// after the timed ones, so the tracer's own cost (two clock reads per
// instruction) never inflates the reported latency.
//
// Stateless function; thread-safe.

#ifndef EDGEFLEET_RUNTIME_TOOLS_OP_PROFILER_H_
#define EDGEFLEET_RUNTIME_TOOLS_OP_PROFILER_H_

#include <cstddef>
#include <string>
#include <vector>

#include "runtime/devtools/trace_recorder.h"
#include "runtime/executor/method.h"

namespace edgefleet {
namespace tools {

struct OpProfileRow {
  std::string op;           // "aten::convolution.out", or "delegate ...", "move", ...
  std::string kernel;       // "portable", "optimized", "folded", "fused", "delegate", "control"
  size_t instructions = 0;  // instructions of this kind in the method
  double ms_per_run = 0;    // mean time per recorded execute
  double share = 0;         // of the summed instruction time, 0..1
};

// Rows slowest first, from the instruction events of `recorder` averaged
// over its recorded executes. REQUIRES: `method` is the traced method.
std::vector<OpProfileRow> SummarizeProfile(const TraceRecorder& recorder, const Method& method);

// Work inside delegate calls, slowest first, from the delegate-node events
// of `recorder` (event_tracer.h) averaged over its recorded executes: one
// row per node name and engine ("XNNConv2d" on "own-optimized",
// "xnnpack_runtime" on "xnnpack"), `instructions` = events of that row per
// execute, `share` = of the summed delegate-call time (the rest is the
// delegate's own work between its nodes: binding arguments, reshaping).
// Empty when no delegate reported nodes.
std::vector<OpProfileRow> SummarizeDelegateNodes(const TraceRecorder& recorder);

}  // namespace tools
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_TOOLS_OP_PROFILER_H_
