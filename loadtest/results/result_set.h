// The results of one experiment run, or of one shard of it: what the driver
// writes, the merge command combines and the report reads.
//
// Merging is exact by construction: a ResultSet keeps every SessionRecord
// (raw samples, no sketches), and Canonicalize() sorts them into one total
// order, so shards merged in any order hold exactly the records, in exactly
// the order, of the unsharded run with the same seed; the report is a pure
// function of that.
//
// Not thread-safe: a driver with concurrent sessions appends under its own
// lock, or collects per worker and merges.

#ifndef EDGEFLEET_LOADTEST_RESULTS_RESULT_SET_H_
#define EDGEFLEET_LOADTEST_RESULTS_RESULT_SET_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "loadtest/results/session_record.h"
#include "loadtest/results/shard.h"

namespace edgefleet {
namespace loadtest {

enum class Design : uint8_t {
  kPaired = 0,  // Every (device, session) runs on both arms.
  kHashed = 1,  // Each device runs on one arm, by AssignArm().
};

const char* DesignName(Design design);  // "paired" / "hashed".
bool ParseDesign(std::string_view name, Design* design);

// What identifies an experiment; equal in every shard of it.
struct ExperimentInfo {
  std::string name;
  uint64_t seed = 0;
  Design design = Design::kPaired;
  std::string arm_a = "A";  // Human-readable arm descriptions.
  std::string arm_b = "B";
  double share_b = 0.5;     // Designed share of sessions on B.
  std::string spec_digest;  // Fingerprint of the fleet spec, set by the driver.
  // Fingerprint of the host calibration every server used (the driver's
  // preflight; empty for synthetic fleets).
  std::string calibration;
  // Population share of each device class in the fleet spec (normalized to
  // sum to 1): the weights of the stratified fleet-wide estimates. Empty
  // when the results carry none; the analysis then weighs classes by their
  // observed device counts (docs/statistics.md).
  std::map<std::string, double> class_shares;

  bool operator==(const ExperimentInfo& o) const {
    return name == o.name && seed == o.seed && design == o.design && arm_a == o.arm_a &&
           arm_b == o.arm_b && share_b == o.share_b && spec_digest == o.spec_digest &&
           calibration == o.calibration && class_shares == o.class_shares;
  }
};

class ResultSet {
 public:
  ResultSet(ExperimentInfo info, ShardSpec shard) : info_(std::move(info)), shard_(shard) {}

  void Add(SessionRecord record) { records_.push_back(std::move(record)); }
  void Reserve(size_t n) { records_.reserve(n); }

  // Sorts into canonical order. Fails if a (device, session, arm) repeats,
  // or a record's device is outside this set's shard.
  absl::Status Canonicalize();

  const ExperimentInfo& info() const { return info_; }
  const ShardSpec& shard() const { return shard_; }
  const std::vector<SessionRecord>& records() const { return records_; }
  std::vector<SessionRecord>& mutable_records() { return records_; }

 private:
  ExperimentInfo info_;
  ShardSpec shard_;
  std::vector<SessionRecord> records_;
};

// Combines the shards 0..n-1 of one experiment (any order, each exactly
// once, equal ExperimentInfo) into the whole-fleet ResultSet, canonicalized.
// A single whole-fleet set is returned canonicalized.
absl::StatusOr<ResultSet> MergeShards(std::vector<ResultSet> shards);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_RESULTS_RESULT_SET_H_
