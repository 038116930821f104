// OpProfiler: where a Method spends its time, per operator and kernel.
//
// An InstructionObserver that adds up the monotonic time of every
// instruction over the executes it watches; Summarize() groups the totals
// by (operator, kernel variant). `edgefleet-run run --profile` attaches it
// for extra executes after the timed ones, so the observer's own cost (two
// clock reads per instruction) never inflates the reported latency.
//
// Ownership: plain value type. Thread safety: one executing thread.

#ifndef EDGEFLEET_RUNTIME_TOOLS_OP_PROFILER_H_
#define EDGEFLEET_RUNTIME_TOOLS_OP_PROFILER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/executor/method.h"

namespace edgefleet {
namespace tools {

struct OpProfileRow {
  std::string op;         // "aten::convolution.out", or "delegate", "move", ...
  std::string kernel;     // "portable", "optimized", "delegate", "control"
  size_t instructions = 0;  // instructions of this kind in the method
  double ms_per_run = 0;    // mean time per execute
  double share = 0;         // of the summed instruction time, 0..1
};

class OpProfiler : public InstructionObserver {
 public:
  explicit OpProfiler(size_t num_instructions);

  void OnInstructionStart(size_t chain, size_t pc) override;
  void OnInstructionEnd(size_t chain, size_t pc) override;

  // Counts one observed execute (call after each Execute()).
  void EndRun() { ++runs_; }

  // Rows slowest first. REQUIRES: `method` is the observed method.
  std::vector<OpProfileRow> Summarize(const Method& method) const;

 private:
  std::vector<uint64_t> nanos_;  // per instruction, summed over runs
  uint64_t start_ = 0;
  int runs_ = 0;
};

}  // namespace tools
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_TOOLS_OP_PROFILER_H_
