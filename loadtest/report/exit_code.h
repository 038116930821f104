// The exit-code policy of edgefleet-loadtest, for CI gating:
//   0  pass          no regression beyond the minimum effect, guardrails met
//   1  error         the tool itself failed (bad input, I/O, usage)
//   2  regression    a metric or guardrail regressed
//   3  inconclusive  the data cannot rule a regression out
//   4  invalid       sample-ratio mismatch: the run itself is suspect
// Pure functions; thread-safe.

#ifndef EDGEFLEET_LOADTEST_REPORT_EXIT_CODE_H_
#define EDGEFLEET_LOADTEST_REPORT_EXIT_CODE_H_

#include "loadtest/report/report_model.h"

namespace edgefleet {
namespace loadtest {

inline constexpr int kExitPass = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitRegression = 2;
inline constexpr int kExitInconclusive = 3;
inline constexpr int kExitInvalid = 4;

int ExitCodeFor(RunStatus status);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_REPORT_EXIT_CODE_H_
