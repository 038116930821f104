// The A/B report's "what explains the difference" section: per device
// class, the operator classes and operators whose predicted device time per
// inference changed most between arm A and arm B (the emulator's Profile
// RPC breakdowns, docs/service.md), with their share of each arm's total
// and of the total's change. The breakdowns are the device-time model's
// predictions from each arm's measured operators, not the fleet's
// observed latencies: they say where the model puts the difference.
//
// Pure functions; thread-safe.

#ifndef EDGEFLEET_LOADTEST_REPORT_EXPLANATION_H_
#define EDGEFLEET_LOADTEST_REPORT_EXPLANATION_H_

#include <utility>
#include <vector>

#include "loadtest/report/report_model.h"

namespace edgefleet {
namespace loadtest {

// Operators listed per class.
inline constexpr int kExplanationOperators = 8;

// One ClassExplanation per (A, B) pair, in order: every class present in
// either arm, and the `top_operators` operators, each by decreasing
// |b - a| (ties by name). REQUIRES: both breakdowns of a pair are of one
// device class.
std::vector<ClassExplanation> Explain(
    const std::vector<std::pair<DeviceTimeBreakdown, DeviceTimeBreakdown>>& pairs,
    int top_operators = kExplanationOperators);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_REPORT_EXPLANATION_H_
