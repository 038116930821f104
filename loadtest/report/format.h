// Number formatting shared by the Markdown and HTML writers and the
// verdict reasons: durations, sizes, signed percentages, intervals.
// Pure functions; thread-safe.

#ifndef EDGEFLEET_LOADTEST_REPORT_FORMAT_H_
#define EDGEFLEET_LOADTEST_REPORT_FORMAT_H_

#include <string>

#include "loadtest/results/aggregate.h"

namespace edgefleet {
namespace loadtest {

// A value of `metric` in its natural unit: "12.3 ms", "850 µs", "1.25 s",
// "84.2 MiB". Infinities print as "∞" / "-∞", NaN as "—".
std::string FormatValue(Metric metric, double value);

// A signed difference of `metric`: "+1.20 ms", "-3.0 MiB".
std::string FormatDelta(Metric metric, double delta);

// A fraction as a signed percentage with one decimal: "+14.2 %".
std::string FormatSignedPercent(double fraction);

// A fraction as a percentage: "0.47 %" (two decimals below 1 %).
std::string FormatPercent(double fraction);

// "[lo, hi]" with both ends formatted by FormatSignedPercent.
std::string FormatPercentInterval(double lower, double upper);

// A plain number with `digits` significant digits ("0.000123", "4.5e-09").
std::string FormatNumber(double value, int digits = 3);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_REPORT_FORMAT_H_
