#include "runtime/core/error_detail.h"

#include <cstdarg>
#include <cstdio>

#include "runtime/platform/log.h"

namespace edgefleet {
namespace {
thread_local char g_detail[kMaxErrorDetail];
}  // namespace

void SetErrorDetail(const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(g_detail, sizeof(g_detail), format, args);
  va_end(args);
  Log(LogLevel::kDebug, "%s", g_detail);
}

const char* LastErrorDetail() { return g_detail; }

void ClearErrorDetail() { g_detail[0] = '\0'; }

}  // namespace edgefleet
