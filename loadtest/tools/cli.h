// The edgefleet-loadtest command line, as a library so tests can call it.
//
//   synth   write a synthetic fleet's results (no server needed)
//   merge   combine shard result files into one
//   report  analyse result files (merged on the fly) and write report.json,
//           report.md and report.html; print the Markdown and the HTML path;
//           exit with the policy code of exit_code.h
//
//   run       drive a FleetSpec against edgefleet-server(s) (loadtest/driver),
//             then write results and, for the whole fleet, the reports
//   plan      size an experiment from a pilot
//   campaign  calibrate the statistics through a real server
//
// cli.cc dispatches and holds the commands that need no server; run, plan
// and campaign are in driver_commands.h (only with the gRPC driver), the
// help texts in usage.h, what the commands share in command_support.h.
// Not thread-safe (writes the given streams); call from main.

#ifndef EDGEFLEET_LOADTEST_TOOLS_CLI_H_
#define EDGEFLEET_LOADTEST_TOOLS_CLI_H_

#include <ostream>

namespace edgefleet {
namespace loadtest {

int RunCli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_TOOLS_CLI_H_
