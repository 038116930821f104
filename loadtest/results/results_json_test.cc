#include "loadtest/results/results_json.h"

#include "gtest/gtest.h"
#include "loadtest/testing/synthetic_fleet.h"

namespace edgefleet {
namespace loadtest {
namespace {

TEST(ResultsJsonTest, RoundTripIsExact) {
  SyntheticFleetOptions o;
  o.devices = 60;
  o.seed = 5;
  o.harness_error_rate = 0.05;  // Exercise error_cause.
  o.effect_b.stack_error_rate = 0.05;
  o.shard = ShardSpec{1, 2};
  const ResultSet original = GenerateSyntheticFleet(o);
  absl::StatusOr<ResultSet> back = ResultSetFromJson(ResultSetToJson(original));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->info(), original.info());
  EXPECT_EQ(back->shard(), original.shard());
  ASSERT_EQ(back->records().size(), original.records().size());
  for (size_t i = 0; i < original.records().size(); ++i) {
    EXPECT_EQ(back->records()[i], original.records()[i]) << i;
  }
  EXPECT_EQ(ResultSetToJson(*back), ResultSetToJson(original));
}

TEST(ResultsJsonTest, RejectsMalformedInput) {
  EXPECT_FALSE(ResultSetFromJson("{").ok());
  EXPECT_FALSE(ResultSetFromJson(R"({"schema":"other/1"})").ok());
  const std::string head = R"({"schema":"edgefleet.loadtest.results/1","experiment":{"name":"x",)"
                           R"("seed":1,"design":"paired","arm_a":"a","arm_b":"b","share_b":0.5,)"
                           R"("spec_digest":""},"shard":{"index":0,"count":1},"sessions":[)";
  const std::string good =
      R"({"device_id":1,"session":0,"arm":"A","class":"c","outcome":"ok",)"
      R"("retries":0,"load_us":[1,2,3],"first_inference_us":4,)"
      R"("latencies_us":[5,6],"peak_memory_bytes":7,"anr":0,"frames":[0,0,9]})";
  ASSERT_TRUE(ResultSetFromJson(head + good + "]}").ok());
  std::string bad_arm = good;
  bad_arm.replace(bad_arm.find("\"A\""), 3, "\"C\"");
  absl::StatusOr<ResultSet> r = ResultSetFromJson(head + good + "," + bad_arm + "]}");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("session 1"), std::string::npos) << r.status();
  std::string short_load = good;
  short_load.replace(short_load.find("[1,2,3]"), 7, "[1,2]");
  EXPECT_FALSE(ResultSetFromJson(head + short_load + "]}").ok());
  // Covariates are optional; present, they must be in range.
  const std::string with_covariates =
      good.substr(0, good.size() - 1) +
      R"(,"covariates":{"device_time_factor":1.25,"pre_period_us":4000}})";
  absl::StatusOr<ResultSet> cov = ResultSetFromJson(head + with_covariates + "]}");
  ASSERT_TRUE(cov.ok()) << cov.status();
  EXPECT_EQ(cov->records()[0].device_time_factor, 1.25);
  EXPECT_EQ(cov->records()[0].pre_period_us, 4000);
  for (const char* bad :
       {R"("device_time_factor":0})", R"("device_time_factor":-1})", R"("pre_period_us":-5})"}) {
    const std::string text = good.substr(0, good.size() - 1) + ",\"covariates\":{" + bad + "}";
    EXPECT_FALSE(ResultSetFromJson(head + text + "]}").ok()) << bad;
  }
  EXPECT_FALSE(ReadResultSetFile("/nonexistent/results.json").ok());
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet
