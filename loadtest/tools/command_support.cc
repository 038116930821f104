#include "loadtest/tools/command_support.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <thread>

#include "loadtest/report/exit_code.h"
#include "loadtest/report/html_report.h"
#include "loadtest/report/json_report.h"
#include "loadtest/report/markdown_report.h"
#include "loadtest/results/results_json.h"

namespace edgefleet {
namespace loadtest {
namespace cli {

absl::Status WritableDirectory(const std::filesystem::path& dir) {
  const std::filesystem::path d = dir.empty() ? std::filesystem::path(".") : dir;
  std::error_code ec;
  std::filesystem::create_directories(d, ec);
  if (ec || !std::filesystem::is_directory(d)) {
    return absl::FailedPreconditionError("cannot create the output directory " + d.string() +
                                         (ec ? ": " + ec.message() : ""));
  }
  if (access(d.c_str(), W_OK) != 0) {
    return absl::FailedPreconditionError("the output directory " + d.string() +
                                         " is not writable: " + std::strerror(errno));
  }
  return absl::OkStatus();
}

int Fail(std::ostream& err, const absl::Status& status) {
  err << "edgefleet-loadtest: " << status.message() << "\n";
  return kExitError;
}

absl::Status WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) return absl::UnavailableError("cannot write " + path.string());
  return absl::OkStatus();
}

absl::StatusOr<ResultSet> ReadAndMerge(const std::vector<std::string>& paths) {
  if (paths.empty()) return absl::InvalidArgumentError("no result files given");
  std::vector<ResultSet> parts;
  for (const std::string& path : paths) {
    absl::StatusOr<ResultSet> part = ReadResultSetFile(path);
    if (!part.ok()) return part.status();
    parts.push_back(*std::move(part));
  }
  return MergeShards(std::move(parts));
}

absl::Status BadSpending() {
  return absl::InvalidArgumentError("--spending must be obrien-fleming or pocock");
}

AnalysisOptions ReportOptions(Flags& flags) {
  AnalysisOptions o;
  o.confidence = flags.GetDouble("confidence", o.confidence);
  o.min_effect = flags.GetDouble("min-effect", o.min_effect);
  o.bootstrap_replicates = static_cast<int>(flags.GetInt("replicates", o.bootstrap_replicates));
  o.threads =
      static_cast<int>(flags.GetInt("threads", std::max(1u, std::thread::hardware_concurrency())));
  o.stratify = flags.GetInt("stratify", 1) != 0;
  return o;
}

absl::Status CheckReportOptions(const AnalysisOptions& o) {
  if (!(o.confidence > 0 && o.confidence < 1) || !(o.min_effect >= 0) ||
      o.bootstrap_replicates < 1 || o.bootstrap_replicates > 1000000) {
    return absl::InvalidArgumentError(
        "need 0 < confidence < 1, min-effect >= 0, 1 <= replicates <= 1e6");
  }
  return absl::OkStatus();
}

int WriteReport(const Report& report, const std::filesystem::path& dir, std::ostream& out,
                std::ostream& err) {
  if (absl::Status st = WritableDirectory(dir); !st.ok()) return Fail(err, st);
  const std::string markdown = RenderMarkdownReport(report);
  for (const auto& [name, text] :
       {std::pair<const char*, std::string>{"report.json", RenderJsonReport(report)},
        {"report.md", markdown},
        {"report.html", RenderHtmlReport(report)}}) {
    if (absl::Status st = WriteFile(dir / name, text); !st.ok()) {
      return Fail(err, st);
    }
  }
  out << markdown << "\nHTML report: " << std::filesystem::absolute(dir / "report.html").string()
      << "\n";
  return ExitCodeFor(report.status);
}

int WriteReports(const ResultSet& results, const AnalysisOptions& o,
                 const std::filesystem::path& dir, std::ostream& out, std::ostream& err,
                 const std::vector<ClassExplanation>& explanation) {
  if (absl::Status st = CheckReportOptions(o); !st.ok()) return Fail(err, st);
  Report report = Analyze(Aggregate(results), o);
  report.explanation = explanation;
  return WriteReport(report, dir, out, err);
}

}  // namespace cli
}  // namespace loadtest
}  // namespace edgefleet
