// Micro-benchmarks of the optimized kernels' building blocks: GEMM GFLOP/s
// per instruction set against the host's peak, the 1x1 convolutions of
// MobileNetV2 (NHWC) and EfficientNet-B0 (NCHW) as GEMMs with their
// epilogues at 1 and 2 threads, NCHW and channels-last depthwise
// convolution on EfficientNet-B0's geometries (GMAC/s), the channels-last
// first layers over an RGB image (GMAC/s), and the thread pool's hand-off
// cost (a ParallelFor of a fixed amount of work, back to back while the
// workers spin, and after an idle gap that lets them sleep).

#include <benchmark/benchmark.h>

#include <chrono>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "runtime/core/memory_allocator.h"
#include "runtime/kernels/optimized/conv_small_input.h"
#include "runtime/kernels/optimized/cpu_features.h"
#include "runtime/kernels/optimized/depthwise.h"
#include "runtime/kernels/optimized/gemm.h"
#include "runtime/kernels/optimized/thread_pool.h"

namespace edgefleet {
namespace optimized {
namespace {

// Times C[m x n] = A[m x k] * B[k x n] (B read in place, as the XNNPACK
// delegate keeps its packed filters) on `threads` threads; GFLOP/s counter.
void TimeGemm(benchmark::State& state, int64_t m, int64_t n, int64_t k, int threads) {
  std::vector<float> a(m * k, 0.5f), b(k * n, 0.25f), c(m * n);
  std::vector<uint64_t> temp(8 << 17);
  MemoryAllocator allocator(temp.data(), temp.size() * 8);
  const StridedOperand av(a.data(), k, 1);
  const StridedOperand bv(b.data(), 1, n);
  for (auto _ : state) {
    allocator.Reset();
    KernelContext ctx(&allocator, threads);
    Gemm(ctx, m, n, k, av, bv, c.data(), n, false);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOPs"] =
      benchmark::Counter(2.0 * m * n * k, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(IsaName(HostIsa()));
}

void BM_Gemm(benchmark::State& state) {
  ForceIsa(static_cast<Isa>(state.range(3)));
  TimeGemm(state, state.range(0), state.range(1), state.range(2), 1);
  ForceIsa(Isa::kAvx512);
}

void GemmShapes(benchmark::internal::Benchmark* b) {
  for (int isa = 0; isa <= 2; ++isa) {
    b->Args({256, 256, 256, isa});
    b->Args({96, 3136, 24, isa});   // mobilenet_v2 1x1 expand, 56x56
    b->Args({3136, 144, 24, isa});  // the same in NHWC (the XNNPACK delegate's layout)
    b->Args({3136, 24, 144, isa});  // its 1x1 project, NHWC
    b->Args({12544, 96, 16, isa});  // mobilenet_v2 1x1 expand at 112x112, NHWC
    b->Args({320, 49, 960, isa});   // mobilenet_v2 late 1x1
    b->Args({64, 3136, 576, isa});  // resnet18 3x3 as im2col
    b->Args({1, 1000, 1280, isa});  // classifier, one row
    b->Args({576, 1, 144, isa});    // squeeze-excite 1x1 conv on 1x1
    b->Args({1280, 49, 320, isa});  // mobilenet_v2 last 1x1 conv
    b->Args({512, 49, 4608, isa});  // resnet18 3x3 conv at 7x7
    b->Args({3136, 64, 576, isa});  // resnet18 3x3 convs as NHWC GEMMs (the delegate's)
    b->Args({784, 128, 1152, isa});
    b->Args({196, 256, 2304, isa});
    b->Args({49, 512, 4608, isa});
  }
}
BENCHMARK(BM_Gemm)->Apply(GemmShapes);

// The 1x1 convolutions of MobileNetV2 and EfficientNet-B0 at 224 px, as
// the GEMMs they run as (one image): through the XNNPACK delegate, NHWC
// (M = pixels, N = output channels, the filter packed [in][out] and read
// in place, column bias); without a delegate, NCHW (M = output channels,
// N = pixels, image and weight read in place, row bias). ReLU6 on
// MobileNetV2's expansions, SiLU fused on EfficientNet-B0's expansions and
// head. `count`: how many layers of the model have the
// shape (the model's time in these layers is the sum of count x time).
enum class Act { kLinear, kRelu6, kSilu };
struct PointwiseShape {
  const char* model;
  bool nchw;
  int64_t pixels, in_c, out_c;
  Act act;
  int count;
};
constexpr PointwiseShape kPointwise[] = {
    {"mv2", false, 12544, 32, 16, Act::kLinear, 1},
    {"mv2", false, 12544, 16, 96, Act::kRelu6, 1},
    {"mv2", false, 3136, 96, 24, Act::kLinear, 1},
    {"mv2", false, 3136, 24, 144, Act::kRelu6, 2},
    {"mv2", false, 3136, 144, 24, Act::kLinear, 1},
    {"mv2", false, 784, 144, 32, Act::kLinear, 1},
    {"mv2", false, 784, 32, 192, Act::kRelu6, 3},
    {"mv2", false, 784, 192, 32, Act::kLinear, 2},
    {"mv2", false, 196, 192, 64, Act::kLinear, 1},
    {"mv2", false, 196, 64, 384, Act::kRelu6, 4},
    {"mv2", false, 196, 384, 64, Act::kLinear, 3},
    {"mv2", false, 196, 384, 96, Act::kLinear, 1},
    {"mv2", false, 196, 96, 576, Act::kRelu6, 3},
    {"mv2", false, 196, 576, 96, Act::kLinear, 2},
    {"mv2", false, 49, 576, 160, Act::kLinear, 1},
    {"mv2", false, 49, 160, 960, Act::kRelu6, 3},
    {"mv2", false, 49, 960, 160, Act::kLinear, 2},
    {"mv2", false, 49, 960, 320, Act::kLinear, 1},
    {"mv2", false, 49, 320, 1280, Act::kRelu6, 1},
    {"mv2", true, 12544, 32, 16, Act::kLinear, 1},
    {"mv2", true, 12544, 16, 96, Act::kRelu6, 1},
    {"mv2", true, 3136, 96, 24, Act::kLinear, 1},
    {"mv2", true, 3136, 24, 144, Act::kRelu6, 2},
    {"mv2", true, 3136, 144, 24, Act::kLinear, 1},
    {"mv2", true, 784, 144, 32, Act::kLinear, 1},
    {"mv2", true, 784, 32, 192, Act::kRelu6, 3},
    {"mv2", true, 784, 192, 32, Act::kLinear, 2},
    {"mv2", true, 196, 192, 64, Act::kLinear, 1},
    {"mv2", true, 196, 64, 384, Act::kRelu6, 4},
    {"mv2", true, 196, 384, 64, Act::kLinear, 3},
    {"mv2", true, 196, 384, 96, Act::kLinear, 1},
    {"mv2", true, 196, 96, 576, Act::kRelu6, 3},
    {"mv2", true, 196, 576, 96, Act::kLinear, 2},
    {"mv2", true, 49, 576, 160, Act::kLinear, 1},
    {"mv2", true, 49, 160, 960, Act::kRelu6, 3},
    {"mv2", true, 49, 960, 160, Act::kLinear, 2},
    {"mv2", true, 49, 960, 320, Act::kLinear, 1},
    {"mv2", true, 49, 320, 1280, Act::kRelu6, 1},
    {"effnet", true, 12544, 32, 16, Act::kLinear, 1},
    {"effnet", true, 12544, 16, 96, Act::kSilu, 1},
    {"effnet", true, 3136, 96, 24, Act::kLinear, 1},
    {"effnet", true, 3136, 24, 144, Act::kSilu, 2},
    {"effnet", true, 3136, 144, 24, Act::kLinear, 1},
    {"effnet", true, 784, 144, 40, Act::kLinear, 1},
    {"effnet", true, 784, 40, 240, Act::kSilu, 2},
    {"effnet", true, 784, 240, 40, Act::kLinear, 1},
    {"effnet", true, 196, 240, 80, Act::kLinear, 1},
    {"effnet", true, 196, 80, 480, Act::kSilu, 3},
    {"effnet", true, 196, 480, 80, Act::kLinear, 2},
    {"effnet", true, 196, 480, 112, Act::kLinear, 1},
    {"effnet", true, 196, 112, 672, Act::kSilu, 3},
    {"effnet", true, 196, 672, 112, Act::kLinear, 2},
    {"effnet", true, 49, 672, 192, Act::kLinear, 1},
    {"effnet", true, 49, 192, 1152, Act::kSilu, 4},
    {"effnet", true, 49, 1152, 192, Act::kLinear, 3},
    {"effnet", true, 49, 1152, 320, Act::kLinear, 1},
    {"effnet", true, 49, 320, 1280, Act::kSilu, 1},
};

// kPointwise[range(0)] on range(1) threads, the host's instruction set.
// CPU time is the process's (every thread's), so on a shared host the CPU
// column at 1 thread is the figure to compare; wall time ("Time") shows
// the 2-thread speed-up only on a quiet host.
void BM_Pointwise(benchmark::State& state) {
  const PointwiseShape& s = kPointwise[state.range(0)];
  const int threads = static_cast<int>(state.range(1));
  if (threads > 1 && StartKernelThreadPool(2) != Error::kOk) {
    state.SkipWithError("no thread pool");
    return;
  }
  const int64_t m = s.nchw ? s.out_c : s.pixels, n = s.nchw ? s.pixels : s.out_c, k = s.in_c;
  std::vector<float> x(s.pixels * k, 0.5f), w(s.out_c * k, 0.25f), bias(s.out_c, 0.125f);
  std::vector<float> y(s.pixels * s.out_c);
  std::vector<uint64_t> temp(8 << 17);
  MemoryAllocator allocator(temp.data(), temp.size() * 8);
  // NHWC: A = x[pixel][in], B = w[in][out]. NCHW: A = w[out][in], B =
  // x[in][pixel]. Both read in place.
  const StridedOperand av(s.nchw ? w.data() : x.data(), k, 1);
  const StridedOperand bv(s.nchw ? x.data() : w.data(), 1, n);
  GemmEpilogue ep;
  (s.nchw ? ep.row_bias : ep.col_bias) = bias.data();
  if (s.act == Act::kRelu6) {
    ep.lo = 0.0f;
    ep.hi = 6.0f;
  }
  if (s.act == Act::kSilu) ep.post = PostOp::kSilu;
  for (auto _ : state) {
    allocator.Reset();
    KernelContext ctx(&allocator, threads);
    Gemm(ctx, m, n, k, av, bv, y.data(), n, false, &ep);
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["GFLOPs"] =
      benchmark::Counter(2.0 * m * n * k, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["count"] = s.count;
  state.SetLabel(std::string(s.model) + (s.nchw ? " NCHW" : " NHWC") +
                 " pixels=" + std::to_string(s.pixels) + " in=" + std::to_string(k) +
                 " out=" + std::to_string(s.out_c) + " " + IsaName(HostIsa()));
}
BENCHMARK(BM_Pointwise)
    ->ArgNames({"shape", "threads"})
    ->ArgsProduct({benchmark::CreateDenseRange(0, std::size(kPointwise) - 1, 1), {1, 2}})
    ->MeasureProcessCPUTime();

// One image of hw x hw pixels, in_c to out_c channels in `groups` groups,
// a k x k window at `stride`, "same" padding.
ConvGeometry SquareWindow(int64_t in_c, int64_t out_c, int64_t groups, int64_t hw, int64_t k,
                          int64_t stride) {
  ConvGeometry g{};
  g.batch = 1;
  g.in_c = in_c;
  g.out_c = out_c;
  g.groups = groups;
  g.in_h = g.in_w = hw;
  g.k_h = g.k_w = k;
  g.stride[0] = g.stride[1] = stride;
  g.pad[0] = g.pad[1] = k / 2;
  g.dilation[0] = g.dilation[1] = 1;
  g.out_h = g.out_w = (hw + 2 * g.pad[0] - k) / stride + 1;
  return g;
}

// Depthwise convolution, one image: range(0) channels of range(1) x
// range(1), a range(2) x range(2) kernel at stride range(3) ("same"
// padding), with a bias, then SiLU (range(4) = 1, as EfficientNet fuses
// it) or nothing; NCHW (DepthwiseNchw: per-plane rows or the channels-last
// detour, whichever it picks) or, range(5) = 1, channels-last data
// (DepthwiseNhwc, as the XNNPACK delegate runs it); one thread, the host's
// instruction set. GMAC/s counter.
// A depthwise layer from the state's c, hw, k, s, silu and nhwc arguments
// on `threads` threads.
void TimeDepthwise(benchmark::State& state, int threads) {
  const int64_t c = state.range(0);
  const ConvGeometry g = SquareWindow(c, c, c, state.range(1), state.range(2), state.range(3));
  const PostOp post = state.range(4) != 0 ? PostOp::kSilu : PostOp::kNone;
  std::vector<float> x(g.in_c * g.in_h * g.in_w, 0.5f), w(g.out_c * g.taps(), 0.125f);
  std::vector<float> b(g.out_c, 0.25f), y(g.out_c * g.out_pixels());
  const int64_t w_strides[4] = {g.taps(), g.taps(), g.k_w, 1};
  std::vector<uint64_t> temp(8 << 17);
  MemoryAllocator allocator(temp.data(), temp.size() * 8);
  for (auto _ : state) {
    allocator.Reset();
    KernelContext ctx(&allocator, threads);
    const bool ok = state.range(5) != 0
                        ? DepthwiseNhwc(ctx, g, x.data(), w.data(), w_strides, b.data(), y.data(),
                                        -__builtin_inff(), __builtin_inff(), post)
                        : DepthwiseNchw(ctx, g, x.data(), w.data(), w_strides, b.data(), y.data(),
                                        -__builtin_inff(), __builtin_inff(), false, post);
    if (!ok) {
      state.SkipWithError("no scratch");
      return;
    }
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["GMACs"] =
      benchmark::Counter(static_cast<double>(g.out_c * g.out_pixels() * g.taps()),
                         benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(IsaName(HostIsa()));
}

void BM_Depthwise(benchmark::State& state) { TimeDepthwise(state, 1); }
BENCHMARK(BM_Depthwise)
    ->ArgNames({"c", "hw", "k", "s", "silu", "nhwc"})
    ->ArgsProduct({{32}, {112}, {3}, {1}, {0, 1}, {0, 1}})
    ->ArgsProduct({{96}, {112}, {3}, {2}, {0, 1}, {0, 1}})
    ->ArgsProduct({{144}, {56}, {3, 5}, {1, 2}, {0, 1}, {0, 1}})
    ->ArgsProduct({{240}, {28}, {3, 5}, {1, 2}, {0, 1}, {0, 1}})
    ->ArgsProduct({{672}, {14}, {5}, {1, 2}, {0, 1}, {0, 1}})
    ->ArgsProduct({{1152}, {7}, {3, 5}, {1}, {0, 1}, {0, 1}});

// A channels-last first layer over one 224x224 RGB image
// (ConvNhwcSmallInput): range(0) output channels, a range(1) x range(1)
// kernel at stride 2 ("same" padding), with a bias; one thread, the host's
// instruction set. GMAC/s counter.
void BM_SmallInputConv(benchmark::State& state) {
  const ConvGeometry g = SquareWindow(3, state.range(0), 1, 224, state.range(1), 2);
  std::vector<float> x(g.in_c * g.in_h * g.in_w, 0.5f), w(g.out_c * g.in_c * g.taps(), 0.125f);
  std::vector<float> b(g.out_c, 0.25f), y(g.out_c * g.out_pixels());
  KernelContext ctx(nullptr, 1);
  for (auto _ : state) {
    // Filter [kh][kw][ic][oc], as the delegate keeps it.
    ConvNhwcSmallInput(ctx, g, x.data(), w.data(), g.out_c, g.k_w * g.in_c * g.out_c,
                       g.in_c * g.out_c, b.data(), y.data(), -__builtin_inff(), __builtin_inff());
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["GMACs"] =
      benchmark::Counter(static_cast<double>(g.out_c * g.out_pixels() * g.taps() * g.in_c),
                         benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(IsaName(HostIsa()));
}
BENCHMARK(BM_SmallInputConv)
    ->ArgNames({"out_c", "k"})
    ->Args({16, 3})   // MobileNetV3
    ->Args({32, 3})   // MobileNetV2, EfficientNet-B0
    ->Args({64, 7});  // ResNet-18

// The host ISA's GEMM on range(3) threads of the kernels' pool: the
// parallel efficiency of the small-M shapes of late 1x1 convolutions.
void BM_GemmThreads(benchmark::State& state) {
  if (StartKernelThreadPool(2) != Error::kOk) {
    state.SkipWithError("no thread pool");
    return;
  }
  TimeGemm(state, state.range(0), state.range(1), state.range(2), static_cast<int>(state.range(3)));
}
BENCHMARK(BM_GemmThreads)
    ->ArgNames({"m", "n", "k", "threads"})
    ->ArgsProduct({{196}, {384}, {64}, {1, 2}})
    ->ArgsProduct({{196}, {576}, {96}, {1, 2}})
    ->ArgsProduct({{49}, {960}, {160}, {1, 2}})
    ->ArgsProduct({{49}, {576}, {96}, {1, 2}})
    ->ArgsProduct({{49}, {1280}, {320}, {1, 2}})
    ->ArgsProduct({{784}, {192}, {32}, {1, 2}})
    ->UseRealTime();

// MobileNetV2's channels-last depthwise layers (the delegate's) at 1 and 2
// threads.
void BM_DepthwiseThreads(benchmark::State& state) {
  if (StartKernelThreadPool(2) != Error::kOk) {
    state.SkipWithError("no thread pool");
    return;
  }
  TimeDepthwise(state, static_cast<int>(state.range(6)));
}
BENCHMARK(BM_DepthwiseThreads)
    ->ArgNames({"c", "hw", "k", "s", "silu", "nhwc", "threads"})
    ->ArgsProduct({{144}, {56}, {3}, {1, 2}, {0}, {1}, {1, 2}})
    ->ArgsProduct({{192}, {28}, {3}, {1, 2}, {0}, {1}, {1, 2}})
    ->ArgsProduct({{384}, {14}, {3}, {1}, {0}, {1}, {1, 2}})
    ->ArgsProduct({{576}, {14}, {3}, {2}, {0}, {1}, {1, 2}})
    ->ArgsProduct({{960}, {7}, {3}, {1}, {0}, {1}, {1, 2}})
    ->UseRealTime();

// About `units` microseconds of arithmetic the compiler cannot drop.
void Work(int64_t units) {
  float x = 1.0f;
  for (int64_t i = 0; i < units * 1000; ++i) {
    x = x * 0.999999f + 1e-7f;
    benchmark::DoNotOptimize(x);
  }
}

// ParallelFor of range(0) tasks of range(1) work units each on range(2)
// threads: time per call minus tasks * units / threads is the hand-off
// and join overhead. range(3) = 1 sleeps 2 ms (untimed) before each call,
// so the workers have gone from spinning to sleeping: the wake-up cost.
void BM_ParallelFor(benchmark::State& state) {
  const int64_t tasks = state.range(0), units = state.range(1);
  const int threads = static_cast<int>(state.range(2));
  const bool idle = state.range(3) != 0;
  if (StartKernelThreadPool(2) != Error::kOk) {
    state.SkipWithError("no thread pool");
    return;
  }
  for (auto _ : state) {
    if (idle) {
      state.PauseTiming();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      state.ResumeTiming();
    }
    ParallelFor(tasks, threads, [&](int64_t) { Work(units); });
  }
  state.SetLabel(idle ? "after idle" : "back to back");
}
BENCHMARK(BM_ParallelFor)
    ->ArgNames({"tasks", "units", "threads", "idle"})
    ->Args({2, 0, 1, 0})
    ->Args({2, 0, 2, 0})
    ->Args({2, 0, 2, 1})
    ->Args({2, 10, 1, 0})
    ->Args({2, 10, 2, 0})
    ->Args({2, 10, 2, 1})
    ->Args({32, 0, 1, 0})
    ->Args({32, 0, 2, 0})
    ->Args({32, 1, 1, 0})
    ->Args({32, 1, 2, 0})
    ->UseRealTime();

}  // namespace
}  // namespace optimized
}  // namespace edgefleet

BENCHMARK_MAIN();
