#include "runtime/tools/error_context.h"

#include <cstring>

#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace tools {

Error WithErrorContext(Error error, const char* context) {
  char detail[kMaxErrorDetail];
  const char* last = LastErrorDetail();
  strncpy(detail, last[0] != '\0' ? last : ErrorName(error), sizeof(detail) - 1);
  detail[sizeof(detail) - 1] = '\0';
  SetErrorDetail("%s: %s", context, detail);
  return error;
}

}  // namespace tools
}  // namespace edgefleet
