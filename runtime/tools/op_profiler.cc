#include "runtime/tools/op_profiler.h"

#include <algorithm>
#include <map>
#include <utility>

#include "runtime/platform/clock.h"

namespace edgefleet {
namespace tools {

OpProfiler::OpProfiler(size_t num_instructions) : nanos_(num_instructions, 0) {}

void OpProfiler::OnInstructionStart(size_t /*chain*/, size_t /*pc*/) {
  start_ = MonotonicNanos();
}

void OpProfiler::OnInstructionEnd(size_t /*chain*/, size_t pc) {
  if (pc < nanos_.size()) nanos_[pc] += MonotonicNanos() - start_;
}

std::vector<OpProfileRow> OpProfiler::Summarize(const Method& method) const {
  std::map<std::pair<std::string, std::string>, OpProfileRow> rows;
  uint64_t total = 0;
  const size_t n = std::min(nanos_.size(), method.num_instructions());
  for (size_t pc = 0; pc < n; ++pc) {
    char name[128];
    if (!method.instruction_name(pc, name, sizeof(name))) name[0] = '\0';
    OpProfileRow& row = rows[{name, method.instruction_kind(pc)}];
    row.instructions++;
    row.ms_per_run += static_cast<double>(nanos_[pc]);
    total += nanos_[pc];
  }
  std::vector<OpProfileRow> out;
  for (auto& [key, row] : rows) {
    row.op = key.first;
    row.kernel = key.second;
    row.share = total > 0 ? row.ms_per_run / static_cast<double>(total) : 0;
    row.ms_per_run /= 1e6 * std::max(runs_, 1);
    out.push_back(std::move(row));
  }
  std::sort(out.begin(), out.end(), [](const OpProfileRow& a, const OpProfileRow& b) {
    return a.ms_per_run > b.ms_per_run;
  });
  return out;
}

}  // namespace tools
}  // namespace edgefleet
