// Runtime log sink.
//
// The runtime writes diagnostics through Log(). The default sink writes
// messages at or above the minimum level (kWarning, or the EDGEFLEET_LOG_LEVEL
// environment variable: debug|info|warning|error) to stderr. Embedders may
// install their own sink. Thread-safe: the sink pointer is atomic and sinks
// must themselves be thread-safe.

#ifndef EDGEFLEET_RUNTIME_PLATFORM_LOG_H_
#define EDGEFLEET_RUNTIME_PLATFORM_LOG_H_

namespace edgefleet {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

using LogSink = void (*)(LogLevel level, const char* message);

void Log(LogLevel level, const char* format, ...) __attribute__((format(printf, 2, 3)));

// Replaces the sink; nullptr restores the default stderr sink.
void SetLogSink(LogSink sink);

// Messages below `level` are dropped before formatting.
void SetMinLogLevel(LogLevel level);

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_PLATFORM_LOG_H_
