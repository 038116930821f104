// Command-line parsing for edgefleet-run.
//
//   edgefleet-run run MODEL.pte [--method NAME] [--input FILE.npy]...
//       [--output-dir DIR] [--iterations N] [--warmup N] [--threads N]
//       [--load-mode mmap|file] [--portable-only] [--seed N] [--json]
//       [--profile] [--etdump FILE] [--trace FILE]
//       [--dump-intermediates DIR] [--dump-max-tensors N] [--dump-max-bytes N]
//   edgefleet-run inspect MODEL.pte [--portable-only] [--json]
//   edgefleet-run --help
//
// Flags may be written "--flag VALUE" or "--flag=VALUE" and may come before
// or after MODEL.pte. Numbers are strict decimals. Stateless; thread-safe.

#ifndef EDGEFLEET_RUNTIME_TOOLS_COMMAND_LINE_H_
#define EDGEFLEET_RUNTIME_TOOLS_COMMAND_LINE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/module/module.h"

namespace edgefleet {
namespace tools {

struct RunOptions {
  std::string model;
  std::string method = "forward";
  std::vector<std::string> inputs;  // .npy files, input i from inputs[i]
  std::string output_dir;           // empty: outputs are not written
  int iterations = 10;              // timed executes after the first
  int warmup = 0;                   // untimed executes before them
  int threads = 0;                  // 0: the number of online cores
  Module::LoadMode load_mode = Module::LoadMode::kMmap;
  bool portable_only = false;
  uint64_t seed = 0;
  bool json = false;
  bool profile = false;  // per-operator times over extra executes
  std::string etdump;    // non-empty: ETDump of load and the traced executes
  std::string trace;     // non-empty: Chrome trace JSON of the same
  // Non-empty: one extra execute's instruction outputs into this directory
  // (intermediate_dump.h), at most dump_max_tensors tensors and
  // dump_max_bytes bytes.
  std::string dump_intermediates;
  uint64_t dump_max_tensors = 10000;
  uint64_t dump_max_bytes = uint64_t{1} << 30;
};

struct InspectOptions {
  std::string model;
  bool portable_only = false;
  bool json = false;
};

struct CommandLine {
  enum class Command { kHelp, kRun, kInspect };
  Command command = Command::kHelp;
  RunOptions run;          // for kRun
  InspectOptions inspect;  // for kInspect
  // Set on failure when the invocation is structurally wrong (no command,
  // unknown command, no model), so the caller should print the usage text.
  bool show_usage = false;
};

// Parses argv[1..argc). Errors: kInvalidArgument with a one-line detail
// ("unknown flag '--foo'", "--iterations: 'x' is not a number in [0, ...]").
Error ParseCommandLine(int argc, const char* const* argv, CommandLine* out);

// The usage text (several lines, ending in a newline).
const char* UsageText();

}  // namespace tools
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_TOOLS_COMMAND_LINE_H_
