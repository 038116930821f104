#include "loadtest/results/shard.h"

#include <charconv>

#include "absl/status/status.h"

namespace edgefleet {
namespace loadtest {
namespace {

bool ParseUint32(std::string_view text, uint32_t* out) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && ptr == end;
}

}  // namespace

absl::StatusOr<ShardSpec> ShardSpec::Parse(std::string_view text) {
  const size_t slash = text.find('/');
  ShardSpec spec;
  if (slash == std::string_view::npos || !ParseUint32(text.substr(0, slash), &spec.index) ||
      !ParseUint32(text.substr(slash + 1), &spec.count)) {
    return absl::InvalidArgumentError("shard must look like i/n, got '" + std::string(text) + "'");
  }
  if (spec.count == 0 || spec.index >= spec.count) {
    return absl::InvalidArgumentError("shard " + std::string(text) + ": need 0 <= i < n");
  }
  return spec;
}

std::string ShardSpec::ToString() const {
  return std::to_string(index) + "/" + std::to_string(count);
}

}  // namespace loadtest
}  // namespace edgefleet
