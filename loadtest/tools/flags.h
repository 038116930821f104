// A small "--name=value" / "--name value" parser for the subcommands, with
// typed getters that record the first error. Flags are declared by use:
// Finish() rejects any flag no getter asked for, so typos fail loudly.
// "--help" and "-h" take no value: they set help(). "--name" followed by
// another "--flag" (or nothing) is an error: the value is missing.
// Not thread-safe.

#ifndef EDGEFLEET_LOADTEST_TOOLS_FLAGS_H_
#define EDGEFLEET_LOADTEST_TOOLS_FLAGS_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace edgefleet {
namespace loadtest {

class Flags {
 public:
  // Parses argv[first..argc). Arguments not starting with "--" are
  // positional.
  Flags(int argc, const char* const* argv, int first);

  std::string GetString(const std::string& name, const std::string& fallback);
  double GetDouble(const std::string& name, double fallback);
  int64_t GetInt(const std::string& name, int64_t fallback);
  const std::vector<std::string>& positional() const { return positional_; }
  bool help() const { return help_; }
  // Names the getters asked for so far.
  const std::set<std::string>& used() const { return used_; }

  // The first parse error, or an unknown flag; OK otherwise.
  absl::Status Finish() const;

 private:
  std::map<std::string, std::string> values_;
  std::vector<std::string> positional_;
  std::set<std::string> used_;
  absl::Status error_;
  bool help_ = false;
};

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_TOOLS_FLAGS_H_
