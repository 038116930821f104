// Micro-benchmarks of the optimized kernels' building blocks, per
// instruction set: GEMM GFLOP/s against the host's peak.

#include <benchmark/benchmark.h>

#include <vector>

#include "runtime/core/memory_allocator.h"
#include "runtime/kernels/optimized/cpu_features.h"
#include "runtime/kernels/optimized/gemm.h"

namespace edgefleet {
namespace optimized {
namespace {

void BM_Gemm(benchmark::State& state) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  ForceIsa(static_cast<Isa>(state.range(3)));
  std::vector<float> a(m * k, 0.5f), b(k * n, 0.25f), c(m * n);
  std::vector<uint64_t> temp(8 << 17);
  MemoryAllocator allocator(temp.data(), temp.size() * 8);
  const StridedOperand av(a.data(), k, 1);
  const StridedOperand bv(b.data(), 1, n);
  for (auto _ : state) {
    allocator.Reset();
    KernelContext ctx(&allocator, 1);
    Gemm(ctx, m, n, k, av, bv, c.data(), n, false);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOPs"] = benchmark::Counter(
      2.0 * m * n * k, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(IsaName(HostIsa()));
  ForceIsa(Isa::kAvx512);
}

void GemmShapes(benchmark::internal::Benchmark* b) {
  for (int isa = 0; isa <= 2; ++isa) {
    b->Args({256, 256, 256, isa});
    b->Args({96, 3136, 24, isa});    // mobilenet_v2 1x1 expand, 56x56
    b->Args({320, 49, 960, isa});    // mobilenet_v2 late 1x1
    b->Args({64, 3136, 576, isa});   // resnet18 3x3 as im2col
    b->Args({1, 1000, 1280, isa});   // classifier, one row
    b->Args({576, 1, 144, isa});     // squeeze-excite 1x1 conv on 1x1
    b->Args({1280, 49, 320, isa});   // mobilenet_v2 last 1x1 conv
    b->Args({512, 49, 4608, isa});   // resnet18 3x3 conv at 7x7
  }
}
BENCHMARK(BM_Gemm)->Apply(GemmShapes);

}  // namespace
}  // namespace optimized
}  // namespace edgefleet

BENCHMARK_MAIN();
