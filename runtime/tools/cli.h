// The edgefleet-run command line: parse, dispatch to run / inspect, print.
//
// Exit codes: 0 success; 1 the command failed (exactly one line on `err`,
// "edgefleet-run: <what went wrong>", from the runtime's error detail);
// 2 usage errors (unknown flag, bad number: one line; no command or no
// model: that line followed by the usage text).
//
// RunCli registers the portable kernels and, unless EDGEFLEET_LOG_LEVEL is
// set, replaces the runtime's log sink with one that drops every message,
// so that `err` carries only the error line. Both are process-wide; call
// from one thread at a time.

#ifndef EDGEFLEET_RUNTIME_TOOLS_CLI_H_
#define EDGEFLEET_RUNTIME_TOOLS_CLI_H_

#include <cstdio>

namespace edgefleet {
namespace tools {

int RunCli(int argc, const char* const* argv, FILE* out, FILE* err);

}  // namespace tools
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_TOOLS_CLI_H_
