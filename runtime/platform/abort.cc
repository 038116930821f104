#include "runtime/platform/abort.h"

#include <cstdlib>

#include "runtime/platform/log.h"

namespace edgefleet {

void Abort(const char* reason) {
  Log(LogLevel::kError, "abort: %s", reason);
  std::abort();
}

}  // namespace edgefleet
