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

TEST(ConfigTest, AcceptsBothFlagForms) {
  ServerConfig c;
  ASSERT_TRUE(
      ParseServerFlags({"srv", "--model_repository", "m", "--port", "7", "--max_session_s=9",
                        "--max_calls_per_client", "3", "--shutdown_grace_s", "0"},
                       &c)
          .ok());
  EXPECT_EQ(c.model_repository, "m");
  EXPECT_EQ(c.port, 7);
  EXPECT_EQ(c.max_session_s, 9);
  EXPECT_EQ(c.max_calls_per_client, 3);
  EXPECT_EQ(c.shutdown_grace_s, 0);
  ServerConfig d;
  const absl::Status s = ParseServerFlags({"srv", "--model_repository=m", "--port"}, &d);
  EXPECT_NE(s.message().find("--port needs a value"), std::string::npos) << s;
  EXPECT_NE(ParseServerFlags({"srv", "--model_repository=m", "stray"}, &d).message().find("stray"),
            std::string::npos);
}

TEST(ConfigTest, UsageListsEveryFlagItAccepts) {
  // Every "--name" the usage shows parses, and every flag a config can set
  // is shown: the parser rejects unknown names, so probing each usage name
  // with its own default-free value form checks the first half; the second
  // is checked by the fields below, one per flag.
  const std::string usage = ServerUsage();
  for (const char* flag : {"model_repository",
                           "device_classes",
                           "arms",
                           "calibration",
                           "out",
                           "address",
                           "port",
                           "metrics_port",
                           "port_file",
                           "compute_slots",
                           "queue_bound",
                           "max_message_bytes",
                           "default_device_class",
                           "calibration_samples",
                           "reference_model",
                           "reference_mac_ratio",
                           "pin_slots",
                           "drain_timeout_s",
                           "shutdown_grace_s",
                           "max_calls_per_client",
                           "max_session_s",
                           "host_profile"}) {
    EXPECT_NE(usage.find(std::string("--") + flag + "="), std::string::npos) << flag;
    ServerConfig c;
    const absl::Status s =
        ParseServerFlags({"srv", "--model_repository=m", std::string("--") + flag + "=?"}, &c);
    EXPECT_EQ(s.message().find("unknown flag"), std::string::npos) << flag << ": " << s;
  }
}

}  // namespace
}  // namespace service
}  // namespace edgefleet
