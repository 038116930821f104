// The machine-readable report: schema "edgefleet.loadtest.report/1",
// documented field by field in docs/statistics.md. Keys keep a fixed
// order and numbers print with full precision, so equal reports serialize
// to equal bytes (the shard-merge test compares them). Non-finite numbers
// (unbounded CI ends, undefined ratios) are null. Pure; thread-safe.

#ifndef EDGEFLEET_LOADTEST_REPORT_JSON_REPORT_H_
#define EDGEFLEET_LOADTEST_REPORT_JSON_REPORT_H_

#include <string>

#include "loadtest/report/report_model.h"

namespace edgefleet {
namespace loadtest {

inline constexpr char kReportSchema[] = "edgefleet.loadtest.report/1";

std::string RenderJsonReport(const Report& report);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_REPORT_JSON_REPORT_H_
