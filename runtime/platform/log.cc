#include "runtime/platform/log.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace edgefleet {
namespace {

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "D";
    case LogLevel::kInfo:
      return "I";
    case LogLevel::kWarning:
      return "W";
    case LogLevel::kError:
      return "E";
  }
  return "?";
}

void StderrSink(LogLevel level, const char* message) {
  fprintf(stderr, "[edgefleet %s] %s\n", LevelName(level), message);
}

LogLevel LevelFromEnvironment() {
  const char* value = getenv("EDGEFLEET_LOG_LEVEL");
  if (value == nullptr) return LogLevel::kWarning;
  if (strcmp(value, "debug") == 0) return LogLevel::kDebug;
  if (strcmp(value, "info") == 0) return LogLevel::kInfo;
  if (strcmp(value, "error") == 0) return LogLevel::kError;
  return LogLevel::kWarning;
}

std::atomic<LogSink> g_sink{&StderrSink};
std::atomic<int> g_min_level{static_cast<int>(LevelFromEnvironment())};

}  // namespace

void Log(LogLevel level, const char* format, ...) {
  if (static_cast<int>(level) < g_min_level.load(std::memory_order_relaxed)) {
    return;
  }
  char message[512];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  g_sink.load(std::memory_order_acquire)(level, message);
}

void SetLogSink(LogSink sink) {
  g_sink.store(sink != nullptr ? sink : &StderrSink, std::memory_order_release);
}

void SetMinLogLevel(LogLevel level) {
  g_min_level.store(static_cast<int>(level), std::memory_order_relaxed);
}

}  // namespace edgefleet
