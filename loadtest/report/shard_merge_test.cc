// Sharded runs merged give exactly the report of the unsharded run with the
// same seed: same records, same bootstrap streams, same bytes.

#include <cstdio>
#include <filesystem>

#include "gtest/gtest.h"
#include "loadtest/report/analysis.h"
#include "loadtest/report/html_report.h"
#include "loadtest/report/json_report.h"
#include "loadtest/report/markdown_report.h"
#include "loadtest/results/results_json.h"
#include "loadtest/testing/synthetic_fleet.h"

namespace edgefleet {
namespace loadtest {
namespace {

TEST(ShardMergeTest, MergedShardsGiveTheUnshardedReport) {
  SyntheticFleetOptions fleet;
  fleet.devices = 500;
  fleet.sessions_per_device = 2;
  fleet.seed = 31;
  fleet.effect_b.latency = 1.08;
  AnalysisOptions options;
  options.bootstrap_replicates = 400;
  options.threads = 2;
  const Report whole = Analyze(Aggregate(GenerateSyntheticFleet(fleet)), options);

  // Shards go through their files, as separate jobs would.
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "ef_shard_merge_test";
  std::filesystem::create_directories(dir);
  std::vector<ResultSet> shards;
  for (uint32_t i = 0; i < 4; ++i) {
    SyntheticFleetOptions part = fleet;
    part.shard = ShardSpec{3 - i, 4};
    const std::string path = (dir / ("shard" + std::to_string(i))).string();
    ASSERT_TRUE(WriteResultSetFile(GenerateSyntheticFleet(part), path).ok());
    absl::StatusOr<ResultSet> back = ReadResultSetFile(path);
    ASSERT_TRUE(back.ok()) << back.status();
    shards.push_back(*std::move(back));
  }
  std::filesystem::remove_all(dir);
  absl::StatusOr<ResultSet> merged = MergeShards(std::move(shards));
  ASSERT_TRUE(merged.ok()) << merged.status();
  options.threads = 1;  // Thread count must not matter either.
  const Report combined = Analyze(Aggregate(*merged), options);

  EXPECT_EQ(RenderJsonReport(combined), RenderJsonReport(whole));
  EXPECT_EQ(RenderMarkdownReport(combined), RenderMarkdownReport(whole));
  EXPECT_EQ(RenderHtmlReport(combined), RenderHtmlReport(whole));
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet
