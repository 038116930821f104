// Test-only access to reference.json, the scipy/numpy values written by
// make_reference.py. Loaded once per test binary; the returned object is
// immutable and safe to read from any test.

#ifndef EDGEFLEET_LOADTEST_STATS_TESTDATA_REFERENCE_DATA_H_
#define EDGEFLEET_LOADTEST_STATS_TESTDATA_REFERENCE_DATA_H_

#include <cmath>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "nlohmann/json.hpp"

namespace edgefleet {
namespace loadtest {

inline const nlohmann::json& Reference() {
  static const nlohmann::json* const data = [] {
    std::ifstream in(EF_STATS_REFERENCE);
    if (!in) throw std::runtime_error("cannot open " EF_STATS_REFERENCE);
    return new nlohmann::json(nlohmann::json::parse(in));
  }();
  return *data;
}

// A reference number that may be JSON null (an unbounded interval end).
inline double NumberOr(const nlohmann::json& v, double if_null) {
  return v.is_null() ? if_null : v.get<double>();
}

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_STATS_TESTDATA_REFERENCE_DATA_H_
