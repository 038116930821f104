#include "loadtest/results/result_set.h"

#include <algorithm>
#include <iterator>

namespace edgefleet {
namespace loadtest {

const char* DesignName(Design design) { return design == Design::kPaired ? "paired" : "hashed"; }

bool ParseDesign(std::string_view name, Design* design) {
  if (name == "paired") {
    *design = Design::kPaired;
  } else if (name == "hashed") {
    *design = Design::kHashed;
  } else {
    return false;
  }
  return true;
}

absl::Status ResultSet::Canonicalize() {
  for (const SessionRecord& r : records_) {
    if (!shard_.Contains(r.device_id)) {
      return absl::InvalidArgumentError("device " + std::to_string(r.device_id) +
                                        " is not in shard " + shard_.ToString());
    }
  }
  std::sort(records_.begin(), records_.end(), CanonicalLess);
  const auto dup = std::adjacent_find(records_.begin(), records_.end(), SameKey);
  if (dup != records_.end()) {
    return absl::InvalidArgumentError(
        "duplicate session: device " + std::to_string(dup->device_id) + " session " +
        std::to_string(dup->session_index) + " arm " + ArmName(dup->arm));
  }
  return absl::OkStatus();
}

absl::StatusOr<ResultSet> MergeShards(std::vector<ResultSet> shards) {
  if (shards.empty()) return absl::InvalidArgumentError("no shards to merge");
  const ExperimentInfo& info = shards.front().info();
  const uint32_t count = shards.front().shard().count;
  if (shards.size() != count) {
    return absl::InvalidArgumentError("have " + std::to_string(shards.size()) + " shard(s) of " +
                                      std::to_string(count));
  }
  std::vector<bool> seen(count, false);
  size_t total = 0;
  for (const ResultSet& s : shards) {
    if (!(s.info() == info)) {
      return absl::InvalidArgumentError("shard " + s.shard().ToString() +
                                        " is from another experiment");
    }
    if (s.shard().count != count || seen[s.shard().index]) {
      return absl::InvalidArgumentError("shard " + s.shard().ToString() +
                                        " is repeated or of another split");
    }
    seen[s.shard().index] = true;
    total += s.records().size();
  }
  ResultSet merged(info, ShardSpec{});
  merged.Reserve(total);
  for (ResultSet& s : shards) {
    if (absl::Status st = s.Canonicalize(); !st.ok()) return st;
    auto& records = s.mutable_records();
    std::move(records.begin(), records.end(), std::back_inserter(merged.mutable_records()));
    records.clear();
  }
  if (absl::Status st = merged.Canonicalize(); !st.ok()) return st;
  return merged;
}

}  // namespace loadtest
}  // namespace edgefleet
