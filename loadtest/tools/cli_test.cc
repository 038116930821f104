#include "loadtest/tools/cli.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "loadtest/report/exit_code.h"

namespace edgefleet {
namespace loadtest {
namespace {

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("ef_cli_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  int Run(std::vector<std::string> args) {
    args.insert(args.begin(), "edgefleet-loadtest");
    std::vector<const char*> argv;
    for (const std::string& a : args) argv.push_back(a.c_str());
    out_.str("");
    err_.str("");
    return RunCli(static_cast<int>(argv.size()), argv.data(), out_, err_);
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
  std::ostringstream out_, err_;
};

TEST_F(CliTest, SynthShardMergeReport) {
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(Run({"synth", "--devices=400", "--seed=5", "--latency-b=1.2",
                   "--shard=" + std::to_string(i) + "/2",
                   "--out=" + Path("s" + std::to_string(i) + ".json")}),
              kExitPass)
        << err_.str();
  }
  ASSERT_EQ(Run({"merge", "--out", Path("merged.json"), Path("s1.json"), Path("s0.json")}),
            kExitPass)
      << err_.str();
  const int code = Run({"report", "--replicates=200", "--threads=1", "--out-dir=" + Path("out"),
                        Path("merged.json")});
  EXPECT_EQ(code, kExitRegression) << err_.str();
  EXPECT_NE(out_.str().find("## EdgeFleet fleet A/B"), std::string::npos);
  EXPECT_NE(out_.str().find("HTML report: "), std::string::npos);
  for (const char* f : {"report.json", "report.md", "report.html"}) {
    EXPECT_TRUE(std::filesystem::exists(dir_ / "out" / f)) << f;
  }
  // Reporting straight from the shards gives the same report.
  ASSERT_EQ(Run({"report", "--replicates=200", "--threads=2", "--out-dir=" + Path("out2"),
                 Path("s0.json"), Path("s1.json")}),
            kExitRegression);
  std::ifstream a(dir_ / "out" / "report.json"), b(dir_ / "out2" / "report.json");
  std::stringstream sa, sb;
  sa << a.rdbuf();
  sb << b.rdbuf();
  EXPECT_EQ(sa.str(), sb.str());
}

TEST_F(CliTest, ErrorsExitWithOne) {
  EXPECT_EQ(Run({}), kExitError);
  EXPECT_EQ(Run({"frobnicate"}), kExitError);
  EXPECT_EQ(Run({"synth"}), kExitError);  // --out missing.
  EXPECT_EQ(Run({"synth", "--out", Path("x.json"), "--shard=3/2"}), kExitError);
  EXPECT_EQ(Run({"report", Path("missing.json")}), kExitError);
  EXPECT_EQ(Run({"report", "--confidence=2", Path("missing.json")}), kExitError);
  ASSERT_EQ(Run({"synth", "--devices=50", "--shard=0/2", "--out", Path("half.json")}), kExitPass);
  EXPECT_EQ(Run({"report", Path("half.json")}), kExitError);  // 1/2 missing.
  EXPECT_NE(err_.str().find("shard"), std::string::npos);
  EXPECT_EQ(Run({"help"}), kExitPass);
}

TEST_F(CliTest, HelpOnEveryCommandListsItsFlagsAndTheExitCodes) {
  for (const std::string help : {"--help", "-h", "help"}) {
    EXPECT_EQ(Run({help}), kExitPass) << help;
    EXPECT_NE(out_.str().find("commands: run, plan, campaign, synth, merge, report"),
              std::string::npos);
    EXPECT_NE(out_.str().find("exit codes: 0 pass, 1 error"), std::string::npos);
  }
  for (const std::string command : {"run", "synth", "merge", "report"}) {
    for (const std::string help : {"--help", "-h"}) {
      // Help wins over missing or other flags, and writes nothing.
      EXPECT_EQ(Run({command, help, "--out-dir", Path("nothing")}), kExitPass) << command;
      EXPECT_EQ(Run({command, help}), kExitPass) << command << " " << help << err_.str();
      EXPECT_NE(out_.str().find("usage: edgefleet-loadtest " + command), std::string::npos);
      EXPECT_NE(out_.str().find("exit codes:"), std::string::npos);
    }
  }
  EXPECT_FALSE(std::filesystem::exists(dir_ / "nothing"));
  // "help COMMAND" is COMMAND's help; every command's help lists -h, --help
  // and the flag syntax.
  for (const std::string command : {"run", "plan", "campaign", "synth", "merge", "report"}) {
    EXPECT_EQ(Run({"help", command}), kExitPass) << command;
    const std::string text = out_.str();
    EXPECT_EQ(text.find("usage: edgefleet-loadtest " + command), 0u) << command;
    EXPECT_NE(text.find("-h, --help"), std::string::npos) << command;
    EXPECT_NE(text.find("Flags are --name=value or --name value."), std::string::npos) << command;
  }
  Run({"run", "--help"});
  for (const char* flag : {"--spec", "--server", "--out-dir", "--calibration",
                           "--max-harness-errors", "--confidence", "--replicates"}) {
    EXPECT_NE(out_.str().find(flag), std::string::npos) << flag;
  }
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet
