// `--shard i/n`: which slice of the fleet one loadtest process runs.
//
// Device d belongs to shard d mod n. Interleaving (rather than contiguous
// ranges) gives every shard the same mix of device classes when the driver
// enumerates devices class by class, so shards finish at about the same
// time. A device's sessions on both arms always land in the same shard,
// which keeps paired units whole. Value type; thread-safe to read.

#ifndef EDGEFLEET_LOADTEST_RESULTS_SHARD_H_
#define EDGEFLEET_LOADTEST_RESULTS_SHARD_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace edgefleet {
namespace loadtest {

struct ShardSpec {
  uint32_t index = 0;
  uint32_t count = 1;  // 1: the whole fleet.

  // Parses "i/n" with 0 <= i < n, n >= 1.
  static absl::StatusOr<ShardSpec> Parse(std::string_view text);

  bool Contains(uint64_t device_id) const { return device_id % count == index; }
  bool IsWhole() const { return count == 1; }
  std::string ToString() const;
  bool operator==(const ShardSpec& other) const {
    return index == other.index && count == other.count;
  }
};

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_RESULTS_SHARD_H_
