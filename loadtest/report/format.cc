#include "loadtest/report/format.h"

#include <cmath>
#include <cstdio>

namespace edgefleet {
namespace loadtest {
namespace {

std::string Printf(const char* format, double value, const char* unit) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value, unit);
  return buffer;
}

std::string NonFinite(double value) {
  if (std::isnan(value)) return "—";
  return value > 0 ? "∞" : "-∞";
}

std::string Duration(double us) {
  const double magnitude = std::fabs(us);
  if (magnitude < 1000) return Printf("%.0f %s", us, "µs");
  if (magnitude < 10000) return Printf("%.2f %s", us / 1e3, "ms");
  if (magnitude < 1e6) return Printf("%.1f %s", us / 1e3, "ms");
  return Printf("%.2f %s", us / 1e6, "s");
}

std::string Bytes(double bytes) {
  const double magnitude = std::fabs(bytes);
  if (magnitude < 1024) return Printf("%.0f %s", bytes, "B");
  if (magnitude < 1024 * 1024) return Printf("%.1f %s", bytes / 1024, "KiB");
  if (magnitude < 1024.0 * 1024 * 1024) {
    return Printf("%.1f %s", bytes / (1024 * 1024), "MiB");
  }
  return Printf("%.2f %s", bytes / (1024.0 * 1024 * 1024), "GiB");
}

}  // namespace

std::string FormatValue(Metric metric, double value) {
  if (!std::isfinite(value)) return NonFinite(value);
  return metric == Metric::kPeakMemory ? Bytes(value) : Duration(value);
}

std::string FormatDelta(Metric metric, double delta) {
  if (!std::isfinite(delta)) return NonFinite(delta);
  const std::string body = FormatValue(metric, delta);
  return delta >= 0 ? "+" + body : body;
}

std::string FormatSignedPercent(double fraction) {
  if (!std::isfinite(fraction)) return NonFinite(fraction);
  return Printf("%+.1f %s", 100 * fraction, "%");
}

std::string FormatPercent(double fraction) {
  if (!std::isfinite(fraction)) return NonFinite(fraction);
  return Printf(std::fabs(fraction) < 0.01 ? "%.2f %s" : "%.1f %s", 100 * fraction, "%");
}

std::string FormatPercentInterval(double lower, double upper) {
  return "[" + FormatSignedPercent(lower) + ", " + FormatSignedPercent(upper) + "]";
}

std::string FormatNumber(double value, int digits) {
  if (!std::isfinite(value)) return NonFinite(value);
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*g", digits, value);
  return buffer;
}

}  // namespace loadtest
}  // namespace edgefleet
