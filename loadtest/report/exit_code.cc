#include "loadtest/report/exit_code.h"

namespace edgefleet {
namespace loadtest {

int ExitCodeFor(RunStatus status) {
  switch (status) {
    case RunStatus::kPass:
      return kExitPass;
    case RunStatus::kRegression:
      return kExitRegression;
    case RunStatus::kInconclusive:
      return kExitInconclusive;
    case RunStatus::kInvalid:
      return kExitInvalid;
  }
  return kExitError;
}

}  // namespace loadtest
}  // namespace edgefleet
