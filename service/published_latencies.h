// Published latencies: reads the CSV of published per-device benchmark
// figures (docs/fidelity/ncnn_benchncnn.csv: device, model, threads,
// avg_ms, ... with a header row; RFC 4180 quoting) into devices and points
// for the device-time model's population prior (device_time_fit.h).
//
// Only the columns `device`, `model`, `threads` and `avg_ms` are used; rows
// are grouped by device in file order. Pure functions; thread-safe.

#ifndef EDGEFLEET_SERVICE_PUBLISHED_LATENCIES_H_
#define EDGEFLEET_SERVICE_PUBLISHED_LATENCIES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "service/device_time_fit.h"

namespace edgefleet {
namespace service {

// Splits one CSV line into fields (double quotes quote commas; "" is a
// quote). Errors: INVALID_ARGUMENT for an unterminated quote.
absl::StatusOr<std::vector<std::string>> SplitCsvLine(const std::string& line);

// Errors: NOT_FOUND (unreadable), INVALID_ARGUMENT naming the line (missing
// column, bad number). At most 100000 rows.
absl::StatusOr<std::vector<PublishedDevice>> ReadPublishedLatencies(const std::string& path);

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_PUBLISHED_LATENCIES_H_
