#include "runtime/tools/command_line.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace tools {
namespace {

// Parses "edgefleet-run" followed by `args`.
Error Parse(std::vector<const char*> args, CommandLine* out) {
  args.insert(args.begin(), "edgefleet-run");
  ClearErrorDetail();
  return ParseCommandLine(static_cast<int>(args.size()), args.data(), out);
}

std::string Detail() { return LastErrorDetail(); }

TEST(CommandLineTest, ParsesRunWithEveryFlag) {
  CommandLine cl;
  ASSERT_EQ(Parse({"run",
                   "--method",
                   "main",
                   "--input",
                   "a.npy",
                   "m.pte",
                   "--input=b.npy",
                   "--output-dir",
                   "out",
                   "--iterations",
                   "5",
                   "--warmup=2",
                   "--threads",
                   "4",
                   "--load-mode",
                   "file",
                   "--portable-only",
                   "--seed",
                   "18446744073709551615",
                   "--json"},
                  &cl),
            Error::kOk)
      << Detail();
  EXPECT_EQ(cl.command, CommandLine::Command::kRun);
  const RunOptions& r = cl.run;
  EXPECT_EQ(r.model, "m.pte");
  EXPECT_EQ(r.method, "main");
  EXPECT_EQ(r.inputs, (std::vector<std::string>{"a.npy", "b.npy"}));
  EXPECT_EQ(r.output_dir, "out");
  EXPECT_EQ(r.iterations, 5);
  EXPECT_EQ(r.warmup, 2);
  EXPECT_EQ(r.threads, 4);
  EXPECT_EQ(r.load_mode, Module::LoadMode::kFile);
  EXPECT_TRUE(r.portable_only);
  EXPECT_EQ(r.seed, UINT64_MAX);
  EXPECT_TRUE(r.json);
}

TEST(CommandLineTest, RunDefaults) {
  CommandLine cl;
  ASSERT_EQ(Parse({"run", "m.pte"}, &cl), Error::kOk);
  EXPECT_EQ(cl.run.method, "forward");
  EXPECT_EQ(cl.run.iterations, 10);
  EXPECT_EQ(cl.run.warmup, 0);
  EXPECT_EQ(cl.run.load_mode, Module::LoadMode::kMmap);
  EXPECT_FALSE(cl.run.json);
  EXPECT_TRUE(cl.run.inputs.empty());
}

TEST(CommandLineTest, ParsesInspectAndHelp) {
  CommandLine cl;
  ASSERT_EQ(Parse({"inspect", "--json", "m.pte"}, &cl), Error::kOk);
  EXPECT_EQ(cl.command, CommandLine::Command::kInspect);
  EXPECT_EQ(cl.inspect.model, "m.pte");
  EXPECT_TRUE(cl.inspect.json);
  ASSERT_EQ(Parse({"--help"}, &cl), Error::kOk);
  EXPECT_EQ(cl.command, CommandLine::Command::kHelp);
  ASSERT_EQ(Parse({"run", "m.pte", "-h"}, &cl), Error::kOk);
  EXPECT_EQ(cl.command, CommandLine::Command::kHelp);
}

TEST(CommandLineTest, StructuralErrorsAskForUsage) {
  CommandLine cl;
  EXPECT_EQ(Parse({}, &cl), Error::kInvalidArgument);
  EXPECT_TRUE(cl.show_usage);
  EXPECT_EQ(Parse({"bench", "m.pte"}, &cl), Error::kInvalidArgument);
  EXPECT_TRUE(cl.show_usage);
  EXPECT_EQ(Detail(), "unknown command 'bench' (expected run or inspect)");
  EXPECT_EQ(Parse({"run", "--json"}, &cl), Error::kInvalidArgument);
  EXPECT_TRUE(cl.show_usage);
  EXPECT_EQ(Detail(), "missing MODEL.pte");
}

TEST(CommandLineTest, FlagErrorsAreOneLine) {
  const struct {
    std::vector<const char*> args;
    const char* detail;
  } cases[] = {
      {{"run", "m.pte", "--bogus"}, "unknown flag '--bogus'"},
      {{"run", "m.pte", "--iterations"}, "--iterations needs a value"},
      {{"run", "m.pte", "--iterations", "ten"},
       "--iterations: 'ten' is not a number in [0, 1000000]"},
      {{"run", "m.pte", "--iterations", "-1"},
       "--iterations: '-1' is not a number in [0, 1000000]"},
      {{"run", "m.pte", "--threads", "0"}, "--threads: '0' is not a number in [1, 1024]"},
      {{"run", "m.pte", "--seed", "18446744073709551616"},
       "--seed: '18446744073709551616' is not a number in [0, 18446744073709551615]"},
      {{"run", "m.pte", "--load-mode", "zip"}, "--load-mode: expected mmap or file, got 'zip'"},
      {{"run", "m.pte", "--json=yes"}, "--json takes no value"},
      {{"run", "m.pte", "n.pte"}, "unexpected argument 'n.pte' (the model is already 'm.pte')"},
      {{"inspect", "m.pte", "--iterations", "3"}, "flag --iterations does not apply to inspect"},
  };
  for (const auto& c : cases) {
    CommandLine cl;
    EXPECT_EQ(Parse(c.args, &cl), Error::kInvalidArgument);
    EXPECT_EQ(Detail(), c.detail);
    EXPECT_FALSE(cl.show_usage) << c.detail;
  }
}

}  // namespace
}  // namespace tools
}  // namespace edgefleet
