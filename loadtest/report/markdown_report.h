// The pull-request comment: status and reasons first, then one table of
// p50/p90/p99 B-vs-A changes with CIs and verdicts per scope and metric,
// the ANR/OOM rates with Wilson intervals and guardrails, the sample-ratio
// check, LoadGen "enough samples?" answers, and per-scope details folded
// in <details> blocks. GitHub-flavoured Markdown. Pure; thread-safe.

#ifndef EDGEFLEET_LOADTEST_REPORT_MARKDOWN_REPORT_H_
#define EDGEFLEET_LOADTEST_REPORT_MARKDOWN_REPORT_H_

#include <string>

#include "loadtest/report/report_model.h"

namespace edgefleet {
namespace loadtest {

std::string RenderMarkdownReport(const Report& report);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_REPORT_MARKDOWN_REPORT_H_
