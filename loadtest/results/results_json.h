// The shard / results file: a ResultSet as JSON, schema
// "edgefleet.loadtest.results/1" (documented in docs/statistics.md).
//
// Integers only for times and sizes, so a write followed by a read gives
// back exactly the same records. Reading validates every field and reports
// the first problem with the index of the offending session. Pure
// functions; thread-safe.

#ifndef EDGEFLEET_LOADTEST_RESULTS_RESULTS_JSON_H_
#define EDGEFLEET_LOADTEST_RESULTS_RESULTS_JSON_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "loadtest/results/result_set.h"

namespace edgefleet {
namespace loadtest {

inline constexpr char kResultsSchema[] = "edgefleet.loadtest.results/1";

std::string ResultSetToJson(const ResultSet& results);
absl::StatusOr<ResultSet> ResultSetFromJson(std::string_view json);

absl::Status WriteResultSetFile(const ResultSet& results, const std::string& path);
absl::StatusOr<ResultSet> ReadResultSetFile(const std::string& path);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_RESULTS_RESULTS_JSON_H_
