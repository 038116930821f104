#include "loadtest/tools/flags.h"

#include "gtest/gtest.h"

namespace edgefleet {
namespace loadtest {
namespace {

TEST(FlagsTest, ParsesBothSpellingsAndPositionals) {
  const char* argv[] = {"tool", "cmd", "--a=1", "--b", "2.5", "file1", "--c", "x", "file2"};
  Flags flags(9, argv, 2);
  EXPECT_EQ(flags.GetInt("a", 0), 1);
  EXPECT_EQ(flags.GetDouble("b", 0), 2.5);
  EXPECT_EQ(flags.GetString("c", ""), "x");
  EXPECT_EQ(flags.GetString("missing", "dflt"), "dflt");
  EXPECT_EQ(flags.positional(), (std::vector<std::string>{"file1", "file2"}));
  EXPECT_TRUE(flags.Finish().ok());
}

TEST(FlagsTest, ReportsErrors) {
  const char* typo[] = {"tool", "cmd", "--devcies=3"};
  Flags unknown(3, typo, 2);
  unknown.GetInt("devices", 1);
  EXPECT_FALSE(unknown.Finish().ok());
  const char* bad[] = {"tool", "cmd", "--n=abc"};
  Flags not_int(3, bad, 2);
  not_int.GetInt("n", 1);
  EXPECT_FALSE(not_int.Finish().ok());
  const char* dangling[] = {"tool", "cmd", "--n"};
  EXPECT_FALSE(Flags(3, dangling, 2).Finish().ok());
  // A forgotten value does not swallow the next flag.
  const char* forgotten[] = {"tool", "cmd", "--out-dir", "--progress", "off"};
  Flags swallowed(5, forgotten, 2);
  swallowed.GetString("out-dir", ".");
  swallowed.GetString("progress", "auto");
  const absl::Status status = swallowed.Finish();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("--out-dir needs a value"), std::string::npos)
      << status;
}

TEST(FlagsTest, HelpTakesNoValue) {
  for (const char* help : {"--help", "-h"}) {
    const char* argv[] = {"tool", "cmd", help, "--n", "3"};
    Flags flags(5, argv, 2);
    EXPECT_TRUE(flags.help()) << help;
    EXPECT_EQ(flags.GetInt("n", 0), 3);
    EXPECT_TRUE(flags.positional().empty());
    EXPECT_TRUE(flags.Finish().ok()) << help;
  }
  const char* last[] = {"tool", "cmd", "--help"};
  Flags flags(3, last, 2);
  EXPECT_TRUE(flags.help());
  EXPECT_TRUE(flags.Finish().ok());  // not "--help needs a value"
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet
