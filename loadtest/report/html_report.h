// The human report: one self-contained HTML file (inline CSS and SVG, no
// script, no external resource) that opens offline in any browser. It shows
// the run status and reasons, the B-vs-A quantile table, latency CDFs per
// scope and arm (steady latency and first inference), load-time and memory
// bars, ANR / OOM rates with Wilson intervals and guardrails, and the
// sample-ratio and sample-count checks. Pure; thread-safe.

#ifndef EDGEFLEET_LOADTEST_REPORT_HTML_REPORT_H_
#define EDGEFLEET_LOADTEST_REPORT_HTML_REPORT_H_

#include <string>

#include "loadtest/report/report_model.h"

namespace edgefleet {
namespace loadtest {

std::string RenderHtmlReport(const Report& report);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_REPORT_HTML_REPORT_H_
