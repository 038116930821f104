#include "service/config.h"

#include <gtest/gtest.h>

namespace edgefleet {
namespace service {
namespace {

TEST(ConfigTest, ParsesFlags) {
  ServerConfig c;
  ASSERT_TRUE(ParseServerFlags({"srv", "--model_repository=m", "--port=0", "--queue_bound=3",
                                "--pin_slots=false", "--reference_mac_ratio=2.5"},
                               &c)
                  .ok());
  EXPECT_EQ(c.model_repository, "m");
  EXPECT_EQ(c.port, 0);
  EXPECT_EQ(c.queue_bound, 3);
  EXPECT_FALSE(c.pin_slots);
  EXPECT_DOUBLE_EQ(c.reference_mac_ratio, 2.5);
  EXPECT_FALSE(c.calibrate_only);
}

TEST(ConfigTest, CalibrateSubcommandNeedsAnOutput) {
  ServerConfig c;
  EXPECT_EQ(ParseServerFlags({"srv", "calibrate", "--model_repository=m"}, &c).code(),
            absl::StatusCode::kInvalidArgument);
  ServerConfig d;
  ASSERT_TRUE(ParseServerFlags({"srv", "calibrate", "--model_repository=m", "--out=f"}, &d).ok());
  EXPECT_TRUE(d.calibrate_only);
  EXPECT_EQ(d.calibration_out, "f");
}

TEST(ConfigTest, BadFlagsNameTheFlag) {
  ServerConfig c;
  absl::Status s = ParseServerFlags({"srv", "--model_repository=m", "--port=70000"}, &c);
  EXPECT_NE(s.message().find("--port"), std::string::npos);
  s = ParseServerFlags({"srv", "--model_repository=m", "--colour=red"}, &c);
  EXPECT_NE(s.message().find("unknown flag --colour"), std::string::npos);
  ServerConfig fresh;
  s = ParseServerFlags({"srv", "--port=1"}, &fresh);
  EXPECT_NE(s.message().find("--model_repository is required"), std::string::npos);
}

}  // namespace
}  // namespace service
}  // namespace edgefleet
