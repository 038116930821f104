#include "service/command_line.h"

#include <algorithm>

namespace edgefleet {
namespace service {

std::string CommandLine::Get(const std::string& name, const std::string& fallback) const {
  for (auto it = values.rbegin(); it != values.rend(); ++it) {
    if (it->first == name) return it->second;
  }
  return fallback;
}

std::vector<std::string> CommandLine::All(const std::string& name) const {
  std::vector<std::string> all;
  for (const auto& [flag, value] : values) {
    if (flag == name) all.push_back(value);
  }
  return all;
}

absl::StatusOr<CommandLine> ParseCommandLine(const std::vector<std::string>& words,
                                             const std::set<std::string>& valued,
                                             const std::set<std::string>& switches) {
  CommandLine line;
  if (std::find_if(words.begin(), words.end(), [](const std::string& w) {
        return w == "--help" || w == "-h";
      }) != words.end()) {
    line.help = true;
    return line;
  }
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (word.rfind("--", 0) != 0 || word.size() == 2) {
      return absl::InvalidArgumentError("expected --name=value or --name value, got '" + word +
                                        "'");
    }
    const size_t eq = word.find('=');
    const std::string name = word.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    if (switches.count(name) > 0) {
      if (eq != std::string::npos) {
        return absl::InvalidArgumentError("flag --" + name + " takes no value");
      }
      line.switches.insert(name);
      continue;
    }
    if (valued.count(name) == 0) return absl::InvalidArgumentError("unknown flag --" + name);
    if (eq != std::string::npos) {
      line.values.emplace_back(name, word.substr(eq + 1));
    } else if (i + 1 < words.size() && words[i + 1].rfind("--", 0) != 0) {
      line.values.emplace_back(name, words[++i]);
    } else {
      return absl::InvalidArgumentError("flag --" + name + " needs a value");
    }
  }
  return line;
}

}  // namespace service
}  // namespace edgefleet
