#include "runtime/tools/cli.h"

#include <cstdlib>
#include <string>

#include "runtime/backends/xnnpack/xnnpack_backend.h"
#include "runtime/core/error_detail.h"
#include "runtime/kernels/optimized/register_optimized_kernels.h"
#include "runtime/kernels/portable/register_portable_kernels.h"
#include "runtime/platform/log.h"
#include "runtime/tools/command_line.h"
#include "runtime/tools/inspect_command.h"
#include "runtime/tools/run_command.h"

namespace edgefleet {
namespace tools {
namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

void DropLogMessage(LogLevel, const char*) {}

// Prints the single error line for `error` and returns kExitFailure.
int Fail(Error error, FILE* err) {
  const char* detail = LastErrorDetail();
  if (detail[0] != '\0') {
    fprintf(err, "edgefleet-run: %s\n", detail);
  } else {
    fprintf(err, "edgefleet-run: failed (%s)\n", ErrorName(error));
  }
  return kExitFailure;
}

void Print(const std::string& text, bool newline, FILE* out) {
  fwrite(text.data(), 1, text.size(), out);
  if (newline) fputc('\n', out);
  fflush(out);
}

}  // namespace

int RunCli(int argc, const char* const* argv, FILE* out, FILE* err) {
  if (getenv("EDGEFLEET_LOG_LEVEL") == nullptr) SetLogSink(&DropLogMessage);
  ClearErrorDetail();

  CommandLine command_line;
  if (ParseCommandLine(argc, argv, &command_line) != Error::kOk) {
    fprintf(err, "edgefleet-run: %s\n", LastErrorDetail());
    if (command_line.show_usage) fputs(UsageText(), err);
    return kExitUsage;
  }
  if (command_line.command == CommandLine::Command::kHelp) {
    fputs(UsageText(), out);
    return 0;
  }

  const Error registered = RegisterPortableKernels();
  if (registered != Error::kOk) return Fail(registered, err);
  if (const Error e = RegisterOptimizedKernels(); e != Error::kOk) return Fail(e, err);
  if (const Error e = RegisterXnnpackBackend(); e != Error::kOk) return Fail(e, err);

  if (command_line.command == CommandLine::Command::kRun) {
    Result<RunReport> report = RunModel(command_line.run);
    if (!report.ok()) return Fail(report.error(), err);
    if (command_line.run.json) {
      Print(RunReportToJson(*report), true, out);
    } else {
      Print(RunReportToText(*report), false, out);
    }
    return 0;
  }
  Result<InspectReport> report = InspectModel(command_line.inspect);
  if (!report.ok()) return Fail(report.error(), err);
  if (command_line.inspect.json) {
    Print(InspectReportToJson(*report), true, out);
  } else {
    Print(InspectReportToText(*report), false, out);
  }
  return 0;
}

}  // namespace tools
}  // namespace edgefleet
