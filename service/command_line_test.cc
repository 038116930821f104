#include "service/command_line.h"

#include <gtest/gtest.h>

namespace edgefleet {
namespace service {
namespace {

const std::set<std::string> kValued = {"address", "model"};
const std::set<std::string> kSwitches = {"json"};

TEST(CommandLineTest, BothValueSyntaxesSwitchesAndRepeats) {
  absl::StatusOr<CommandLine> line = ParseCommandLine(
      {"--address", "127.0.0.1:1", "--model=a", "--json", "--model", "b"}, kValued, kSwitches);
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_FALSE(line->help);
  EXPECT_EQ(line->Get("address"), "127.0.0.1:1");
  EXPECT_EQ(line->All("model"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(line->Get("model"), "b");
  EXPECT_EQ(line->Get("absent", "fallback"), "fallback");
  EXPECT_EQ(line->switches.count("json"), 1u);
  // A value may contain '=' and start with a single '-'.
  line = ParseCommandLine({"--address=a=b", "--model", "-1"}, kValued, kSwitches);
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->Get("address"), "a=b");
  EXPECT_EQ(line->Get("model"), "-1");
}

TEST(CommandLineTest, HelpAnywhereWins) {
  for (const std::vector<std::string>& words : std::vector<std::vector<std::string>>{
           {"--help"}, {"-h"}, {"--bogus", "-h"}, {"--address", "x", "--help"}}) {
    absl::StatusOr<CommandLine> line = ParseCommandLine(words, kValued, kSwitches);
    ASSERT_TRUE(line.ok()) << words.front();
    EXPECT_TRUE(line->help) << words.front();
  }
}

TEST(CommandLineTest, MistakesAreErrorsNamingTheWord) {
  struct Case {
    std::vector<std::string> words;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {{"--adress=x"}, "unknown flag --adress"},
           {{"--address"}, "flag --address needs a value"},
           {{"--address", "--json"}, "flag --address needs a value"},
           {{"--json=1"}, "flag --json takes no value"},
           {{"address=x"}, "got 'address=x'"},
           {{"--"}, "got '--'"},
           {{"-address", "x"}, "got '-address'"},
       }) {
    absl::StatusOr<CommandLine> line = ParseCommandLine(c.words, kValued, kSwitches);
    ASSERT_FALSE(line.ok()) << c.words.front();
    EXPECT_EQ(line.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(line.status().message()).find(c.message), std::string::npos)
        << line.status();
  }
}

}  // namespace
}  // namespace service
}  // namespace edgefleet
