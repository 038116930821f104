#include "loadtest/tools/flags.h"

#include <cstdlib>

namespace edgefleet {
namespace loadtest {

Flags::Flags(int argc, const char* const* argv, int first) {
  for (int i = first; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      help_ = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0) {
      positional_.push_back(arg);
      continue;
    }
    const size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      values_[arg.substr(2, eq - 2)] = arg.substr(eq + 1);
    } else if (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) {
      values_[arg.substr(2)] = argv[++i];
    } else if (error_.ok()) {
      error_ = absl::InvalidArgumentError("flag " + arg + " needs a value");
    }
  }
}

std::string Flags::GetString(const std::string& name, const std::string& fallback) {
  used_.insert(name);
  const auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

double Flags::GetDouble(const std::string& name, double fallback) {
  const std::string text = GetString(name, "");
  if (text.empty()) return fallback;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (*end != '\0' && error_.ok()) {
    error_ = absl::InvalidArgumentError("--" + name + ": not a number: " + text);
  }
  return value;
}

int64_t Flags::GetInt(const std::string& name, int64_t fallback) {
  const std::string text = GetString(name, "");
  if (text.empty()) return fallback;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (*end != '\0' && error_.ok()) {
    error_ = absl::InvalidArgumentError("--" + name + ": not an integer: " + text);
  }
  return value;
}

absl::Status Flags::Finish() const {
  if (!error_.ok()) return error_;
  for (const auto& [name, value] : values_) {
    if (used_.count(name) == 0) {
      return absl::InvalidArgumentError("unknown flag --" + name);
    }
  }
  return absl::OkStatus();
}

}  // namespace loadtest
}  // namespace edgefleet
