// The device-time profiles file: a write and a read give back exactly the
// breakdowns (so the explanation computed from them is the same), and every
// malformed file is refused with the field named.

#include "loadtest/report/profiles_file.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>

#include "gtest/gtest.h"
#include "loadtest/report/explanation.h"
#include "loadtest/report/json_report.h"

namespace edgefleet {
namespace loadtest {
namespace {

ProfilePairs Sample() {
  DeviceTimeBreakdown a, b, c, d;
  a.device_class = b.device_class = "mid_android";
  a.device_us = 1000.0 / 3;  // not exact in decimal: the round trip must keep every bit
  a.classes = {{"dense", 200.0 / 3}, {"memory_bound", 0.1 + 0.2}};
  a.operators = {{"aten::convolution.out", 1e-300}, {"aten::add.out", 0}};
  b.device_us = 1300.25;
  b.classes = {{"dense", 650}, {"elementwise", 20}};
  b.operators = {{"prepacked::conv2d_clamp_run", 1200}, {"aten::add", 100.125}};
  c.device_class = d.device_class = "low_ios";
  c.device_us = d.device_us = 0;  // a class with nothing measured
  return {{a, b}, {c, d}};
}

void ExpectSame(const DeviceTimeBreakdown& x, const DeviceTimeBreakdown& y) {
  EXPECT_EQ(x.device_class, y.device_class);
  EXPECT_EQ(x.device_us, y.device_us);  // bit for bit
  EXPECT_EQ(x.classes, y.classes);
  EXPECT_EQ(x.operators, y.operators);
}

TEST(ProfilesFileTest, RoundTripKeepsEveryBit) {
  const ProfilePairs pairs = Sample();
  absl::StatusOr<ProfilePairs> back = ProfilesFromJson(ProfilesToJson(pairs));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    ExpectSame((*back)[i].first, pairs[i].first);
    ExpectSame((*back)[i].second, pairs[i].second);
  }
  // The section computed from the file is the one computed from the RPC answers.
  Report live, from_file;
  live.explanation = Explain(pairs);
  from_file.explanation = Explain(*back);
  EXPECT_EQ(RenderJsonReport(from_file), RenderJsonReport(live));
}

TEST(ProfilesFileTest, FileBesideTheResults) {
  EXPECT_EQ(ProfilesPathFor("out/results.json"), "out/results.profiles.json");
  EXPECT_EQ(ProfilesPathFor("r.shard-0-of-2.json"), "r.shard-0-of-2.profiles.json");
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ef_profiles_file_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "results.profiles.json").string();
  ASSERT_TRUE(WriteProfilesFile(Sample(), path).ok());
  absl::StatusOr<ProfilePairs> back = ReadProfilesFile(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->size(), 2u);
  EXPECT_EQ(ReadProfilesFile((dir / "none.json").string()).status().code(),
            absl::StatusCode::kNotFound);
  { std::ofstream(path, std::ios::binary) << "{\"schema\": 1}"; }
  absl::StatusOr<ProfilePairs> bad = ReadProfilesFile(path);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find(path), std::string::npos) << bad.status();
  std::filesystem::remove_all(dir);
}

TEST(ProfilesFileTest, MalformedFilesAreRefusedWithTheFieldNamed) {
  const std::string good = ProfilesToJson(Sample());
  ASSERT_TRUE(ProfilesFromJson(good).ok());
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  const struct {
    std::string text;
    const char* expect;  // in the message
  } cases[] = {
      {"", "not valid JSON"},
      {good.substr(0, good.size() / 2), "not valid JSON"},
      {"[]", "not a profiles file"},
      {replaced("profiles/1", "profiles/2"), "not a profiles file"},
      {replaced("\"classes\"", "\"klasses\""), "classes"},
      {replaced("\"device_us\": 1300.25", "\"device_us\": -1"), "classes[0].B.device_us"},
      {replaced("\"device_us\": 1300.25", "\"device_us\": null"), "classes[0].B.device_us"},
      {replaced("\"dense\": 650.0", "\"dense\": \"650\""), "classes[0].B.operator_classes.dense"},
      {replaced("\"low_ios\"", "\"mid_android\""), "repeated device class"},
      {replaced("\"low_ios\"", "\"\""), "empty or repeated device class"},
      {replaced("\"low_ios\"", "7"), "classes[1]"},
      {replaced("\"operators\"", "\"ops\""), "classes[0]"},
  };
  for (const auto& c : cases) {
    absl::StatusOr<ProfilePairs> r = ProfilesFromJson(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(c.expect), std::string::npos)
        << r.status() << "\nexpected: " << c.expect;
  }
  // Infinite times cannot be written as JSON numbers: they come back as null
  // and are refused, never read as 0.
  ProfilePairs inf = Sample();
  inf[0].first.device_us = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(ProfilesFromJson(ProfilesToJson(inf)).ok());
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet
