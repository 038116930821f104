#include "loadtest/report/explanation.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace edgefleet {
namespace loadtest {
namespace {

// Rows of every name in `a` or `b`, largest |b - a| first, at most `limit`.
std::vector<ExplanationRow> Rows(const std::map<std::string, double>& a,
                                 const std::map<std::string, double>& b, double total_a,
                                 double total_b, size_t limit) {
  std::set<std::string> names;
  for (const auto& [name, us] : a) names.insert(name);
  for (const auto& [name, us] : b) names.insert(name);
  const double change = total_b - total_a;
  std::vector<ExplanationRow> rows;
  for (const std::string& name : names) {
    ExplanationRow row;
    row.name = name;
    if (auto it = a.find(name); it != a.end()) row.a_us = it->second;
    if (auto it = b.find(name); it != b.end()) row.b_us = it->second;
    if (row.a_us == 0 && row.b_us == 0) continue;
    row.share_a = total_a > 0 ? row.a_us / total_a : 0;
    row.share_b = total_b > 0 ? row.b_us / total_b : 0;
    row.share_of_change = change != 0 ? (row.b_us - row.a_us) / change : 0;
    rows.push_back(row);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const ExplanationRow& x, const ExplanationRow& y) {
    return std::fabs(x.b_us - x.a_us) > std::fabs(y.b_us - y.a_us);
  });
  if (rows.size() > limit) rows.resize(limit);
  return rows;
}

}  // namespace

std::vector<ClassExplanation> Explain(
    const std::vector<std::pair<DeviceTimeBreakdown, DeviceTimeBreakdown>>& pairs,
    int top_operators) {
  std::vector<ClassExplanation> out;
  for (const auto& [a, b] : pairs) {
    ClassExplanation e;
    e.device_class = a.device_class;
    e.a_us = a.device_us;
    e.b_us = b.device_us;
    e.classes = Rows(a.classes, b.classes, a.device_us, b.device_us, SIZE_MAX);
    e.operators = Rows(a.operators, b.operators, a.device_us, b.device_us,
                       static_cast<size_t>(std::max(0, top_operators)));
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace loadtest
}  // namespace edgefleet
