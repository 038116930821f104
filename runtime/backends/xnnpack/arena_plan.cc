#include "runtime/backends/xnnpack/arena_plan.h"

#include <algorithm>
#include <numeric>

namespace edgefleet {
namespace xnnpack {

ArenaPlan PlanArena(const std::vector<Lifetime>& values, size_t alignment) {
  const auto align = [alignment](size_t x) { return (x + alignment - 1) & ~(alignment - 1); };
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return values[a].bytes > values[b].bytes; });
  ArenaPlan plan;
  plan.offsets.assign(values.size(), 0);
  std::vector<size_t> placed;                   // indices, in placement order
  std::vector<std::pair<size_t, size_t>> busy;  // [begin, end) of time-overlapping values
  for (size_t i : order) {
    const Lifetime& v = values[i];
    busy.clear();
    for (size_t j : placed) {
      const Lifetime& u = values[j];
      if (u.first_step <= v.last_step && v.first_step <= u.last_step) {
        busy.emplace_back(plan.offsets[j], plan.offsets[j] + align(u.bytes));
      }
    }
    std::sort(busy.begin(), busy.end());
    size_t offset = 0;
    const size_t need = align(v.bytes);
    for (const auto& [begin, end] : busy) {
      if (offset + need <= begin) break;
      offset = std::max(offset, end);
    }
    plan.offsets[i] = offset;
    plan.size = std::max(plan.size, offset + need);
    placed.push_back(i);
  }
  return plan;
}

}  // namespace xnnpack
}  // namespace edgefleet
