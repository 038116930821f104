// The edgefleet-loadtest help texts: each command's usage (the flags it
// reads, docs/loadtest-cli.md's tables), the overall usage, and --help.
// Constant data and functions of their arguments; thread-safe.

#ifndef EDGEFLEET_LOADTEST_TOOLS_USAGE_H_
#define EDGEFLEET_LOADTEST_TOOLS_USAGE_H_

#include <ostream>
#include <string>

#include "loadtest/tools/flags.h"

namespace edgefleet {
namespace loadtest {
namespace cli {

extern const char kRunUsage[];
extern const char kSynthUsage[];
extern const char kMergeUsage[];
extern const char kReportUsage[];
extern const char kPlanUsage[];
extern const char kCampaignUsage[];

// Every command's usage and the exit codes (no command, or `help`).
std::string Usage();

// For --help: prints `usage`, checking that it names every flag the command
// read (a flag missing from its help is a bug: exit 1 saying which).
int Help(const Flags& flags, const char* usage, std::ostream& out, std::ostream& err);

}  // namespace cli
}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_TOOLS_USAGE_H_
