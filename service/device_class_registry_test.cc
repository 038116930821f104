#include "service/device_class_registry.h"

#include <gtest/gtest.h>

#include "service/textproto_file.h"

namespace edgefleet {
namespace service {
namespace {

TEST(DeviceClassRegistryTest, DefaultSetLoadsAndIsComplete) {
  absl::StatusOr<std::unique_ptr<DeviceClassRegistry>> registry =
      DeviceClassRegistry::Create("deploy/device_classes");
  ASSERT_TRUE(registry.ok()) << registry.status();
  for (const char* name : {"low_android", "mid_android", "high_android", "iphone", "vr_headset",
                           "ai_glasses", "microcontroller"}) {
    EXPECT_NE((*registry)->Find(name), nullptr) << name;
  }
  EXPECT_EQ((*registry)->Find("nope"), nullptr);
}

v1::DeviceClass Parse(const std::string& text) {
  v1::DeviceClass c;
  EXPECT_TRUE(ParseTextproto(text, "test", &c).ok());
  return c;
}

std::string ValidText() {
  return R"pb(
    name: "t"
    platform: PLATFORM_ANDROID
    cpu {
      clusters { name: "big" cores: 2 relative_speed: 1 }
      parallel_fraction: 0.9
    }
    reference { mobilenet_v2_latency_ms: 10 source: "x" }
    memory { ram_bytes: 1000 app_budget_bytes: 500 }
    storage { read_bandwidth_bytes_per_second: 100 access_latency_us: 1 }
    thermal { sustained_fraction: 0.7 heat_time_constant_s: 1 cool_time_constant_s: 1 }
    os_noise { jitter_sigma: 0.1 }
    display { refresh_hz: 60 }
    responsiveness { anr_timeout_ms: 5000 input_event_interval_ms: 100 frame_work_ms: 4 }
  )pb";
}

TEST(DeviceClassRegistryTest, ValidationNamesTheField) {
  EXPECT_TRUE(ValidateDeviceClass(Parse(ValidText())).ok());
  struct Case {
    const char* edit;
    const char* field;
  };
  for (const Case& c : std::vector<Case>{
           {"memory { app_budget_bytes: 5000 }", "memory.app_budget_bytes"},
           {"cpu { clusters { cores: 0 relative_speed: 1 } }", "cpu.clusters[1].cores"},
           {"thermal { sustained_fraction: 1.5 }", "thermal.sustained_fraction"},
           {"display { refresh_hz: 5000 }", "display.refresh_hz"},
           {"name: \"Bad Name\"", "name"},
           {"os_noise { preemptions_per_second: 5 }", "os_noise.preemption_min_us"},
           // Found by fuzz/config_fuzzer.cc: open enums and infinite figures.
           {"platform: 7", "platform"},
           {"os_noise { preemption_max_us: inf }", "os_noise.preemption_*"},
           {"device_variation { speed_sigma: -0.1 }", "device_variation.speed_sigma"},
           {"device_variation { speed_sigma: nan }", "device_variation.speed_sigma"},
           {"device_variation { speed_sigma: 2 }", "device_variation.speed_sigma"},
       }) {
    v1::DeviceClass device = Parse(ValidText());
    v1::DeviceClass edit = Parse(c.edit);
    device.MergeFrom(edit);
    const absl::Status status = ValidateDeviceClass(device);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.edit;
    EXPECT_NE(status.message().find(c.field), std::string::npos) << status;
  }
}

TEST(DeviceClassRegistryTest, MalformedTextprotoNamesFileLineAndColumn) {
  v1::DeviceClass c;
  const absl::Status status = ParseTextproto("name: \"x\"\ncpu { corez: 3 }\n", "f.textproto", &c);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("f.textproto:2:"), std::string::npos) << status;
  EXPECT_NE(status.message().find("corez"), std::string::npos) << status;
}

TEST(DeviceClassRegistryTest, DuplicateNamesAreRejected) {
  absl::StatusOr<std::unique_ptr<DeviceClassRegistry>> registry =
      DeviceClassRegistry::FromClasses({Parse(ValidText()), Parse(ValidText())});
  EXPECT_EQ(registry.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(registry.status().message().find("twice"), std::string::npos);
}

}  // namespace
}  // namespace service
}  // namespace edgefleet
