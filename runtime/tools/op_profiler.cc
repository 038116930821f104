#include "runtime/tools/op_profiler.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>

namespace edgefleet {
namespace tools {

std::vector<OpProfileRow> SummarizeProfile(const TraceRecorder& recorder, const Method& method) {
  std::vector<uint64_t> nanos(method.num_instructions(), 0);
  size_t runs = 0;
  for (size_t i = 0; i < recorder.size(); ++i) {
    const TraceRecord& r = recorder.record(i);
    if (r.event.kind == TraceEventKind::kExecute) ++runs;
    if (r.event.kind != TraceEventKind::kInstruction || r.end_ns < r.start_ns) continue;
    const size_t pc = static_cast<size_t>(r.event.instruction);
    if (r.event.instruction >= 0 && pc < nanos.size()) nanos[pc] += r.end_ns - r.start_ns;
  }
  std::map<std::pair<std::string, std::string>, OpProfileRow> rows;
  uint64_t total = 0;
  for (size_t pc = 0; pc < nanos.size(); ++pc) {
    char name[128];
    if (!method.instruction_name(pc, name, sizeof(name))) name[0] = '\0';
    OpProfileRow& row = rows[{name, method.instruction_kind(pc)}];
    row.instructions++;
    row.ms_per_run += static_cast<double>(nanos[pc]);
    total += nanos[pc];
  }
  std::vector<OpProfileRow> out;
  for (auto& [key, row] : rows) {
    row.op = key.first;
    row.kernel = key.second;
    row.share = total > 0 ? row.ms_per_run / static_cast<double>(total) : 0;
    row.ms_per_run /= 1e6 * static_cast<double>(std::max<size_t>(runs, 1));
    out.push_back(std::move(row));
  }
  std::sort(out.begin(), out.end(), [](const OpProfileRow& a, const OpProfileRow& b) {
    return a.ms_per_run > b.ms_per_run;
  });
  return out;
}

std::vector<OpProfileRow> SummarizeDelegateNodes(const TraceRecorder& recorder) {
  std::map<std::pair<std::string, std::string>, std::pair<size_t, uint64_t>> nodes;
  uint64_t delegate_calls = 0;  // summed delegate-call time
  size_t runs = 0;
  for (size_t i = 0; i < recorder.size(); ++i) {
    const TraceRecord& r = recorder.record(i);
    if (r.event.kind == TraceEventKind::kExecute) ++runs;
    if (r.end_ns < r.start_ns) continue;  // never closed
    const TraceEvent& e = r.event;
    if (e.kind == TraceEventKind::kInstruction && e.detail != nullptr &&
        std::string(e.detail) == "delegate") {
      delegate_calls += r.end_ns - r.start_ns;
    }
    if (e.kind != TraceEventKind::kDelegateNode) continue;
    auto& [count, nanos] =
        nodes[{e.name != nullptr ? e.name : "", e.detail != nullptr ? e.detail : ""}];
    ++count;
    nanos += r.end_ns - r.start_ns;
  }
  const double per_run = static_cast<double>(std::max<size_t>(runs, 1));
  std::vector<OpProfileRow> out;
  for (const auto& [key, value] : nodes) {
    OpProfileRow row;
    row.op = key.first;
    row.kernel = key.second;
    row.instructions = static_cast<size_t>(static_cast<double>(value.first) / per_run + 0.5);
    row.ms_per_run = static_cast<double>(value.second) / (1e6 * per_run);
    row.share = delegate_calls > 0
                    ? static_cast<double>(value.second) / static_cast<double>(delegate_calls)
                    : 0;
    out.push_back(std::move(row));
  }
  std::sort(out.begin(), out.end(), [](const OpProfileRow& a, const OpProfileRow& b) {
    return a.ms_per_run > b.ms_per_run;
  });
  return out;
}

}  // namespace tools
}  // namespace edgefleet
