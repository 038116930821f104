// The flag syntax every edgefleet-server command shares (the server,
// `calibrate`, `health`, `predict`, `fit-prior`, and edgefleet-health):
// "--name=value" and "--name value" for flags that take a value, "--name"
// for switches, "--help" / "-h" anywhere for the command's usage. A flag
// may be repeated (All() keeps every value in order; Get() the last).
// Unknown flags, positional words, a value-taking flag without a value
// (or followed by another "--flag") and a switch given a value are errors
// naming the word. Pure functions; thread-compatible.

#ifndef EDGEFLEET_SERVICE_COMMAND_LINE_H_
#define EDGEFLEET_SERVICE_COMMAND_LINE_H_

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace edgefleet {
namespace service {

struct CommandLine {
  // (name, value) in command-line order, repeats kept.
  std::vector<std::pair<std::string, std::string>> values;
  std::set<std::string> switches;
  bool help = false;  // "--help" or "-h" was given: nothing else is checked

  std::string Get(const std::string& name, const std::string& fallback = "") const;
  std::vector<std::string> All(const std::string& name) const;
};

// `words` are the arguments after the command name. `valued` are the flags
// that take a value, `switches` those that take none.
absl::StatusOr<CommandLine> ParseCommandLine(const std::vector<std::string>& words,
                                             const std::set<std::string>& valued,
                                             const std::set<std::string>& switches = {});

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_COMMAND_LINE_H_
