// ef_tracer_bench: what the event tracer costs, printed as figures.
//
//   ef_tracer_bench [--rounds N] [MODEL.pte]...
//   ef_tracer_bench --write-chain FILE.pte   (writes the synthetic program)
//
// For each program (by default a synthetic chain of 2000 tiny aten::add
// calls, where per-instruction overhead dominates, plus the given .pte
// files), executes it in N rounds (default 31); each round runs one execute
// with no tracer attached and one with a TraceRecorder, in alternating
// order, and times each. Prints the median execute time of both, their
// ratio, and the tracer's cost per executed instruction. The no-tracer path
// is the executor's normal path (one null test per instruction); to see that
// cost, time the synthetic program (--write-chain) with `edgefleet-run run
// --iterations N` built with and without the tracer, side by side.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/backends/xnnpack/xnnpack_backend.h"
#include "runtime/core/error_detail.h"
#include "runtime/devtools/trace_recorder.h"
#include "runtime/kernels/optimized/register_optimized_kernels.h"
#include "runtime/kernels/portable/register_portable_kernels.h"
#include "runtime/module/method_inputs.h"
#include "runtime/module/module.h"
#include "runtime/platform/clock.h"
#include "test/util/program_builder.h"

namespace edgefleet {
namespace {

constexpr int kChainLength = 2000;

// x -> x + x -> ... : kChainLength add.out calls on [1, 4] float tensors.
std::vector<uint8_t> AddChain() {
  testing::ProgramBuilder b;
  const int x = b.AddPlannedTensor(ScalarType::kFloat, {1, 4});
  const int alpha = b.AddInt(1);
  const int add = b.AddOperator("aten::add", "out");
  int previous = x;
  for (int i = 0; i < kChainLength; ++i) {
    const int out = b.AddPlannedTensor(ScalarType::kFloat, {1, 4});
    b.AddKernelCall(add, {previous, x, alpha, out, out});
    previous = out;
  }
  b.SetInputs({x});
  b.SetOutputs({previous});
  return b.Build();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

int Bench(const std::string& label, std::unique_ptr<Module> module, int rounds) {
  Result<Method*> loaded = module->LoadMethod("forward");
  if (!loaded.ok()) {
    fprintf(stderr, "%s: %s\n", label.c_str(), LastErrorDetail());
    return 1;
  }
  Method& method = **loaded;
  Result<MethodInputs> inputs = MethodInputs::Random(method.meta(), 1);
  if (!inputs.ok()) {
    fprintf(stderr, "%s: inputs: %s\n", label.c_str(), LastErrorDetail());
    return 1;
  }
  std::vector<TraceRecord> records(4 * method.num_instructions() + 4096);
  TraceRecorder recorder({records.data(), records.size()});
  auto timed = [&](EventTracer* tracer, std::vector<double>* ms) {
    recorder.Clear();
    method.set_event_tracer(tracer);
    if (inputs->Apply(method) != Error::kOk) return false;
    const uint64_t start = MonotonicNanos();
    const Error error = method.Execute();
    ms->push_back(static_cast<double>(MonotonicNanos() - start) / 1e6);
    method.set_event_tracer(nullptr);
    return error == Error::kOk;
  };
  std::vector<double> plain, traced, warm;
  for (int i = 0; i < 3; ++i) timed(nullptr, &warm);
  size_t executed = 0;
  for (int r = 0; r < rounds; ++r) {
    const bool ok = r % 2 == 0 ? timed(nullptr, &plain) && timed(&recorder, &traced)
                               : timed(&recorder, &traced) && timed(nullptr, &plain);
    if (!ok) {
      fprintf(stderr, "%s: execute failed: %s\n", label.c_str(), LastErrorDetail());
      return 1;
    }
    if (r == 0 || executed == 0) {
      executed = 0;
      for (size_t i = 0; i < recorder.size(); ++i) {
        executed += recorder.record(i).event.kind == TraceEventKind::kInstruction;
      }
    }
  }
  const double a = Median(plain), b = Median(traced);
  printf("%-44.44s %7zu %12.4f %12.4f %7.3f %10.1f\n", label.c_str(), executed, a, b,
         a > 0 ? b / a : 0, executed > 0 ? (b - a) * 1e6 / static_cast<double>(executed) : 0);
  return 0;
}

}  // namespace
}  // namespace edgefleet

int main(int argc, char** argv) {
  using namespace edgefleet;
  int rounds = 31;
  std::vector<std::string> models;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--write-chain") == 0 && i + 1 < argc) {
      const std::vector<uint8_t> chain = AddChain();
      FILE* f = fopen(argv[i + 1], "wb");
      const bool ok = f != nullptr && fwrite(chain.data(), 1, chain.size(), f) == chain.size();
      if (f != nullptr && fclose(f) != 0) return 1;
      if (!ok) fprintf(stderr, "cannot write %s\n", argv[i + 1]);
      return ok ? 0 : 1;
    }
    if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      rounds = atoi(argv[++i]);
      if (rounds < 1 || rounds > 100000) {
        fprintf(stderr, "--rounds: expected 1..100000\n");
        return 2;
      }
    } else {
      models.push_back(argv[i]);
    }
  }
  if (RegisterPortableKernels() != Error::kOk || RegisterOptimizedKernels() != Error::kOk ||
      RegisterXnnpackBackend() != Error::kOk) {
    fprintf(stderr, "registration failed: %s\n", LastErrorDetail());
    return 1;
  }
  printf("%d rounds, medians; overhead = (traced - untraced) per executed instruction\n", rounds);
  printf("%-44s %7s %12s %12s %7s %10s\n", "program", "instrs", "untraced ms", "traced ms", "ratio",
         "ns/instr");
  Module::Options options;
  const std::vector<uint8_t> chain = AddChain();
  Result<std::unique_ptr<Module>> module =
      Module::LoadFromBuffer(chain.data(), chain.size(), options);
  if (!module.ok()) {
    fprintf(stderr, "add chain: %s\n", LastErrorDetail());
    return 1;
  }
  int status = Bench("synthetic: 2000 x aten::add.out on [1,4]", std::move(*module), rounds);
  for (const std::string& path : models) {
    Result<std::unique_ptr<Module>> m = Module::Load(path, options);
    if (!m.ok()) {
      fprintf(stderr, "%s: %s\n", path.c_str(), LastErrorDetail());
      status = 1;
      continue;
    }
    status |= Bench(path, std::move(*m), rounds);
  }
  return status;
}
