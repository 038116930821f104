#include "runtime/tools/command_line.h"

#include <cstring>

#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace tools {
namespace {

constexpr uint64_t kMaxIterations = 1000 * 1000;
constexpr uint64_t kMaxThreads = 1024;

// Parses a non-negative decimal in [min, max].
Error ParseNumber(const std::string& flag, const std::string& text, uint64_t min, uint64_t max,
                  uint64_t* value) {
  uint64_t v = 0;
  bool ok = !text.empty() && text.size() <= 20;
  for (char c : text) {
    ok = ok && c >= '0' && c <= '9' && !__builtin_mul_overflow(v, uint64_t{10}, &v) &&
         !__builtin_add_overflow(v, static_cast<uint64_t>(c - '0'), &v);
  }
  EF_CHECK_OR_RETURN(ok && v >= min && v <= max, Error::kInvalidArgument,
                     "%s: '%.64s' is not a number in [%llu, %llu]", flag.c_str(), text.c_str(),
                     static_cast<unsigned long long>(min), static_cast<unsigned long long>(max));
  *value = v;
  return Error::kOk;
}

Error ParseInt(const std::string& flag, const std::string& text, uint64_t min, uint64_t max,
               int* value) {
  uint64_t v = 0;
  EF_RETURN_IF_ERROR(ParseNumber(flag, text, min, max, &v));
  *value = static_cast<int>(v);
  return Error::kOk;
}

bool TakesValue(const std::string& flag) {
  static const char* const kValueFlags[] = {
      "--method",        "--input",   "--output-dir",         "--iterations",
      "--warmup",        "--threads", "--load-mode",          "--seed",
      "--etdump",        "--trace",   "--dump-intermediates", "--dump-max-tensors",
      "--dump-max-bytes"};
  for (const char* f : kValueFlags) {
    if (flag == f) return true;
  }
  return false;
}

// Applies one flag to `run` (which, for inspect, only takes the flags that
// apply to inspect).
Error ApplyFlag(bool is_run, const std::string& flag, const std::string& value, CommandLine* out) {
  RunOptions& run = out->run;
  if (flag == "--json") {
    run.json = out->inspect.json = true;
  } else if (flag == "--portable-only") {
    run.portable_only = out->inspect.portable_only = true;
  } else if (!is_run) {
    EF_FAIL(Error::kInvalidArgument, "flag %s does not apply to inspect", flag.c_str());
  } else if (flag == "--profile") {
    run.profile = true;
  } else if (flag == "--method") {
    EF_CHECK_OR_RETURN(!value.empty(), Error::kInvalidArgument, "--method: empty name");
    run.method = value;
  } else if (flag == "--etdump") {
    EF_CHECK_OR_RETURN(!value.empty(), Error::kInvalidArgument, "--etdump: empty path");
    run.etdump = value;
  } else if (flag == "--trace") {
    EF_CHECK_OR_RETURN(!value.empty(), Error::kInvalidArgument, "--trace: empty path");
    run.trace = value;
  } else if (flag == "--dump-intermediates") {
    EF_CHECK_OR_RETURN(!value.empty(), Error::kInvalidArgument, "--dump-intermediates: empty path");
    run.dump_intermediates = value;
  } else if (flag == "--dump-max-tensors") {
    return ParseNumber(flag, value, 1, 1000000, &run.dump_max_tensors);
  } else if (flag == "--dump-max-bytes") {
    return ParseNumber(flag, value, 1, uint64_t{64} << 30, &run.dump_max_bytes);
  } else if (flag == "--input") {
    run.inputs.push_back(value);
  } else if (flag == "--output-dir") {
    EF_CHECK_OR_RETURN(!value.empty(), Error::kInvalidArgument, "--output-dir: empty path");
    run.output_dir = value;
  } else if (flag == "--iterations") {
    return ParseInt(flag, value, 0, kMaxIterations, &run.iterations);
  } else if (flag == "--warmup") {
    return ParseInt(flag, value, 0, kMaxIterations, &run.warmup);
  } else if (flag == "--threads") {
    return ParseInt(flag, value, 1, kMaxThreads, &run.threads);
  } else if (flag == "--seed") {
    return ParseNumber(flag, value, 0, UINT64_MAX, &run.seed);
  } else if (flag == "--load-mode") {
    if (value == "mmap") {
      run.load_mode = Module::LoadMode::kMmap;
    } else if (value == "file") {
      run.load_mode = Module::LoadMode::kFile;
    } else {
      EF_FAIL(Error::kInvalidArgument, "--load-mode: expected mmap or file, got '%.64s'",
              value.c_str());
    }
  }
  return Error::kOk;
}

}  // namespace

const char* UsageText() {
  return "usage: edgefleet-run run MODEL.pte [--method NAME] [--input FILE.npy]...\n"
         "                     [--output-dir DIR] [--iterations N] [--warmup N]\n"
         "                     [--threads N] [--load-mode mmap|file] [--portable-only]\n"
         "                     [--seed N] [--json] [--profile] [--etdump FILE]\n"
         "                     [--trace FILE] [--dump-intermediates DIR]\n"
         "                     [--dump-max-tensors N] [--dump-max-bytes N]\n"
         "       edgefleet-run inspect MODEL.pte [--portable-only] [--json]\n"
         "\n"
         "run      loads MODEL.pte, runs METHOD (default forward) once, then --warmup\n"
         "         untimed and --iterations (default 10) timed executions; inputs come\n"
         "         from --input .npy files in order, or are seeded random (--seed);\n"
         "         outputs are written to DIR/output_<i>.npy with --output-dir.\n"
         "         --profile adds max(iterations, 1) executes with per-instruction\n"
         "         timing and prints the time per operator and kernel; --etdump writes\n"
         "         the load and those executes as an ExecuTorch ETDump file (for the\n"
         "         ExecuTorch Inspector), --trace as Chrome trace JSON (Perfetto).\n"
         "         --dump-intermediates runs one more execute and writes each\n"
         "         instruction's output tensors to DIR (.npy files and index.json), at\n"
         "         most --dump-max-tensors (10000) tensors and --dump-max-bytes\n"
         "         (1073741824) bytes: past either bound it fails and writes nothing.\n"
         "inspect  prints the program layout and, per method, inputs, outputs, memory,\n"
         "         operators, delegates and the kernel each instruction resolves to.\n";
}

Error ParseCommandLine(int argc, const char* const* argv, CommandLine* out) {
  *out = CommandLine();
  if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
                    strcmp(argv[1], "help") == 0)) {
    out->command = CommandLine::Command::kHelp;
    return Error::kOk;
  }
  out->show_usage = true;
  EF_CHECK_OR_RETURN(argc >= 2, Error::kInvalidArgument, "missing command (run or inspect)");
  const std::string command = argv[1];
  EF_CHECK_OR_RETURN(command == "run" || command == "inspect", Error::kInvalidArgument,
                     "unknown command '%.64s' (expected run or inspect)", command.c_str());
  const bool is_run = command == "run";
  out->command = is_run ? CommandLine::Command::kRun : CommandLine::Command::kInspect;
  out->show_usage = false;

  std::string model;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      out->command = CommandLine::Command::kHelp;
      return Error::kOk;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      EF_CHECK_OR_RETURN(model.empty(), Error::kInvalidArgument,
                         "unexpected argument '%.64s' (the model is already '%.64s')", arg.c_str(),
                         model.c_str());
      model = arg;
      continue;
    }
    std::string value;
    const size_t eq = arg.find('=');
    const bool inline_value = eq != std::string::npos;
    if (inline_value) {
      value = arg.substr(eq + 1);
      arg.resize(eq);
    }
    const bool known =
        TakesValue(arg) || arg == "--json" || arg == "--portable-only" || arg == "--profile";
    EF_CHECK_OR_RETURN(known, Error::kInvalidArgument, "unknown flag '%.64s'", arg.c_str());
    if (TakesValue(arg)) {
      if (!inline_value) {
        EF_CHECK_OR_RETURN(i + 1 < argc, Error::kInvalidArgument, "%s needs a value", arg.c_str());
        value = argv[++i];
      }
    } else {
      EF_CHECK_OR_RETURN(!inline_value, Error::kInvalidArgument, "%s takes no value", arg.c_str());
    }
    EF_RETURN_IF_ERROR(ApplyFlag(is_run, arg, value, out));
  }
  if (model.empty()) {
    out->show_usage = true;
    EF_FAIL(Error::kInvalidArgument, "missing MODEL.pte");
  }
  out->run.model = out->inspect.model = model;
  return Error::kOk;
}

}  // namespace tools
}  // namespace edgefleet
