// What the edgefleet-loadtest commands share: the error exit, output
// directories and files, reading result files, the report flags, and
// writing the reports. Functions of their arguments (they write the files
// and streams they are given); call from one thread.

#ifndef EDGEFLEET_LOADTEST_TOOLS_COMMAND_SUPPORT_H_
#define EDGEFLEET_LOADTEST_TOOLS_COMMAND_SUPPORT_H_

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "loadtest/report/analysis.h"
#include "loadtest/report/explanation.h"
#include "loadtest/results/result_set.h"
#include "loadtest/tools/flags.h"

namespace edgefleet {
namespace loadtest {
namespace cli {

// Prints "edgefleet-loadtest: <message>" to `err`; returns kExitError.
int Fail(std::ostream& err, const absl::Status& status);

// Creates `dir` (empty: the current directory) if needed; an error unless
// it is a directory this process can write.
absl::Status WritableDirectory(const std::filesystem::path& dir);

absl::Status WriteFile(const std::filesystem::path& path, const std::string& text);

// Reads result files and combines them: one whole-fleet file, or the
// complete set of shards of one experiment.
absl::StatusOr<ResultSet> ReadAndMerge(const std::vector<std::string>& paths);

absl::Status BadSpending();

// Reads the report flags shared by `report`, `run`, `plan` and `campaign`.
AnalysisOptions ReportOptions(Flags& flags);
absl::Status CheckReportOptions(const AnalysisOptions& o);

// Writes report.{json,md,html} of `report` into `dir`, prints the Markdown
// and the HTML path; returns the exit-code policy's code. WriteReports
// analyses `results` first.
int WriteReport(const Report& report, const std::filesystem::path& dir, std::ostream& out,
                std::ostream& err);
int WriteReports(const ResultSet& results, const AnalysisOptions& o,
                 const std::filesystem::path& dir, std::ostream& out, std::ostream& err,
                 const std::vector<ClassExplanation>& explanation = {});

}  // namespace cli
}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_TOOLS_COMMAND_SUPPORT_H_
