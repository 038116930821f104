#include "fuzz/fuzz_invariant.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace fuzz {
namespace internal {

void InvariantFailed(const char* cond, const char* file, int line, const char* format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  fprintf(stderr, "INVARIANT VIOLATED: %s\n  at %s:%d (%s)\n  last error detail: %s\n", message,
          file, line, cond, LastErrorDetail());
  fflush(stderr);
  abort();
}

}  // namespace internal
}  // namespace fuzz
}  // namespace edgefleet
