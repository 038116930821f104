#include "service/published_latencies.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>

namespace edgefleet {
namespace service {

constexpr size_t kMaxRows = 100000;

absl::StatusOr<std::vector<std::string>> SplitCsvLine(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        fields.back() += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      fields.emplace_back();
    } else if (ch != '\r') {
      fields.back() += ch;
    }
  }
  if (quoted) return absl::InvalidArgumentError("unterminated quote");
  return fields;
}

absl::StatusOr<std::vector<PublishedDevice>> ReadPublishedLatencies(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError("cannot read " + path);
  std::string line;
  if (!std::getline(in, line)) return absl::InvalidArgumentError(path + ": empty file");
  absl::StatusOr<std::vector<std::string>> header = SplitCsvLine(line);
  if (!header.ok()) return absl::InvalidArgumentError(path + ":1: " + header.status().ToString());
  std::map<std::string, size_t> column;
  for (size_t i = 0; i < header->size(); ++i) column[(*header)[i]] = i;
  for (const char* name : {"device", "model", "threads", "avg_ms"}) {
    if (column.find(name) == column.end()) {
      return absl::InvalidArgumentError(path + ": no column '" + name + "'");
    }
  }
  std::vector<PublishedDevice> devices;
  std::map<std::string, size_t> index;
  size_t line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (line_no > kMaxRows) return absl::InvalidArgumentError(path + ": too many rows");
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(line_no) + ": ";
    absl::StatusOr<std::vector<std::string>> f = SplitCsvLine(line);
    if (!f.ok()) return absl::InvalidArgumentError(where + std::string(f.status().message()));
    if (f->size() != header->size()) {
      return absl::InvalidArgumentError(where + "expected " + std::to_string(header->size()) +
                                        " fields, got " + std::to_string(f->size()));
    }
    FitPoint point;
    point.model = (*f)[column["model"]];
    char* end = nullptr;
    const std::string threads = (*f)[column["threads"]];
    const long t = std::strtol(threads.c_str(), &end, 10);
    if (threads.empty() || *end != '\0' || t < 1 || t > 1024) {
      return absl::InvalidArgumentError(where + "threads must be an integer in [1, 1024]");
    }
    point.threads = static_cast<int>(t);
    const std::string ms = (*f)[column["avg_ms"]];
    point.ms = std::strtod(ms.c_str(), &end);
    if (ms.empty() || *end != '\0' || !(point.ms > 0) || !std::isfinite(point.ms)) {
      return absl::InvalidArgumentError(where + "avg_ms must be a positive number");
    }
    const std::string& device = (*f)[column["device"]];
    auto [it, inserted] = index.emplace(device, devices.size());
    if (inserted) devices.push_back(PublishedDevice{device, {}});
    devices[it->second].points.push_back(point);
  }
  return devices;
}

}  // namespace service
}  // namespace edgefleet
