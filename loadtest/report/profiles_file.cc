#include "loadtest/report/profiles_file.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "nlohmann/json.hpp"

namespace edgefleet {
namespace loadtest {
namespace {

using Json = nlohmann::ordered_json;

Json ArmToJson(const DeviceTimeBreakdown& b) {
  Json j;
  j["device_us"] = b.device_us;
  j["operator_classes"] = Json::object();
  for (const auto& [name, us] : b.classes) j["operator_classes"][name] = us;
  j["operators"] = Json::object();
  for (const auto& [name, us] : b.operators) j["operators"][name] = us;
  return j;
}

// A device time: a finite, non-negative number. Throws with `what`.
double DeviceUs(const Json& j, const std::string& what) {
  if (!j.is_number()) throw std::invalid_argument(what + " is not a number");
  const double us = j.get<double>();
  if (!std::isfinite(us) || us < 0) throw std::invalid_argument(what + " is not >= 0");
  return us;
}

std::map<std::string, double> TimesFromJson(const Json& j, const std::string& what) {
  if (!j.is_object()) throw std::invalid_argument(what + " is not an object");
  std::map<std::string, double> out;
  for (const auto& [name, us] : j.items()) {
    if (name.empty()) throw std::invalid_argument(what + " has an empty name");
    out[name] = DeviceUs(us, what + "." + name);
  }
  return out;
}

DeviceTimeBreakdown ArmFromJson(const Json& j, const std::string& device_class,
                                const std::string& what) {
  if (!j.is_object()) throw std::invalid_argument(what + " is not an object");
  DeviceTimeBreakdown b;
  b.device_class = device_class;
  b.device_us = DeviceUs(j.at("device_us"), what + ".device_us");
  b.classes = TimesFromJson(j.at("operator_classes"), what + ".operator_classes");
  b.operators = TimesFromJson(j.at("operators"), what + ".operators");
  return b;
}

}  // namespace

std::string ProfilesToJson(const ProfilePairs& pairs) {
  Json j;
  j["schema"] = kProfilesSchema;
  Json classes = Json::array();
  for (const auto& [a, b] : pairs) {
    Json c;
    c["device_class"] = a.device_class;
    c["A"] = ArmToJson(a);
    c["B"] = ArmToJson(b);
    classes.push_back(std::move(c));
  }
  j["classes"] = std::move(classes);
  return j.dump(1) + "\n";
}

absl::StatusOr<ProfilePairs> ProfilesFromJson(std::string_view text) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return absl::InvalidArgumentError("not valid JSON");
  std::string where = "the file";
  try {
    if (!j.is_object() || !j.contains("schema") || j["schema"] != kProfilesSchema) {
      return absl::InvalidArgumentError(std::string("not a profiles file (schema ") +
                                        kProfilesSchema + ")");
    }
    const Json& classes = j.at("classes");
    if (!classes.is_array()) return absl::InvalidArgumentError("classes is not an array");
    ProfilePairs pairs;
    std::set<std::string> seen;
    for (size_t i = 0; i < classes.size(); ++i) {
      const std::string what = "classes[" + std::to_string(i) + "]";
      where = what;
      const Json& c = classes[i];
      if (!c.is_object()) return absl::InvalidArgumentError(what + " is not an object");
      const std::string device_class = c.at("device_class").get<std::string>();
      if (device_class.empty() || !seen.insert(device_class).second) {
        return absl::InvalidArgumentError(what + ": empty or repeated device class \"" +
                                          device_class + "\"");
      }
      pairs.emplace_back(ArmFromJson(c.at("A"), device_class, what + ".A"),
                         ArmFromJson(c.at("B"), device_class, what + ".B"));
    }
    return pairs;
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError("in " + where + ": " + e.what());
  }
}

std::string ProfilesPathFor(const std::string& results_path) {
  return std::filesystem::path(results_path).replace_extension(".profiles.json").string();
}

absl::Status WriteProfilesFile(const ProfilePairs& pairs, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  out << ProfilesToJson(pairs);
  out.close();
  if (!out) return absl::UnavailableError("cannot write " + path);
  return absl::OkStatus();
}

absl::StatusOr<ProfilePairs> ReadProfilesFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return absl::NotFoundError("no " + path);
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::UnavailableError("cannot open " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (!in.good() && !in.eof()) return absl::UnavailableError("cannot read " + path);
  absl::StatusOr<ProfilePairs> pairs = ProfilesFromJson(buffer.str());
  if (!pairs.ok()) {
    return absl::InvalidArgumentError(path + ": " + std::string(pairs.status().message()));
  }
  return pairs;
}

absl::StatusOr<ProfilePairs> ProfilesBeside(const std::vector<std::string>& results_paths) {
  ProfilePairs found;
  std::string found_path;
  for (const std::string& results_path : results_paths) {
    const std::string path = ProfilesPathFor(results_path);
    absl::StatusOr<ProfilePairs> pairs = ReadProfilesFile(path);
    if (absl::IsNotFound(pairs.status())) continue;
    if (!pairs.ok()) return pairs.status();
    if (!found_path.empty() && path != found_path &&
        ProfilesToJson(*pairs) != ProfilesToJson(found)) {
      return absl::FailedPreconditionError("the profiles files " + found_path + " and " + path +
                                           " differ: name one with --profiles");
    }
    found_path = path;
    found = *std::move(pairs);
  }
  return found;
}

}  // namespace loadtest
}  // namespace edgefleet
