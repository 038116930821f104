// The edgefleet-loadtest commands that talk to edgefleet-server (built only
// with the gRPC fleet driver, EF_LOADTEST_HAVE_DRIVER):
//   run       run_command.cc
//   plan      plan_command.cc
//   campaign  campaign_command.cc
// Each reads its flags, writes `out` and `err` and returns the exit code;
// call from main's thread (each starts and joins its own driver threads).

#ifndef EDGEFLEET_LOADTEST_TOOLS_DRIVER_COMMANDS_H_
#define EDGEFLEET_LOADTEST_TOOLS_DRIVER_COMMANDS_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "loadtest/tools/flags.h"

namespace edgefleet {
namespace loadtest {
namespace cli {

int Run(Flags& flags, std::ostream& out, std::ostream& err);
int PlanCommand(Flags& flags, std::ostream& out, std::ostream& err);
int CampaignCommand(Flags& flags, std::ostream& out, std::ostream& err);

// --server's comma-separated addresses, each checked (CheckAddress): an
// empty element ("A," or "A,,B") is an error, not skipped.
absl::StatusOr<std::vector<std::string>> ServerAddresses(const std::string& list);

}  // namespace cli
}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_TOOLS_DRIVER_COMMANDS_H_
