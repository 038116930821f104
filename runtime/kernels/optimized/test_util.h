// Test helpers for the optimized kernels: seeded random tensors, running a
// kernel with a chosen thread count and scratch size, comparing an
// optimized kernel with its portable reference, and looping over the
// instruction sets the host has, checking that a kernel gives the same bits
// at any thread count. Test-only (heap, gtest).

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_TEST_UTIL_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_TEST_UTIL_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/core/error_detail.h"
#include "runtime/kernels/optimized/cpu_features.h"
#include "runtime/kernels/optimized/register_optimized_kernels.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/portable/test_tensors.h"

namespace edgefleet {
namespace optimized {
namespace testing {

using portable::testing::TestIntList;
using portable::testing::TestTensor;
using portable::testing::TestTensorList;

// `n` values uniform in [lo, hi) from a generator seeded with `seed`.
template <typename T>
std::vector<T> Random(size_t n, uint32_t seed, double lo = -1.0, double hi = 1.0) {
  std::mt19937 gen(seed);
  std::vector<T> v(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<double> dist(lo, hi);
    for (auto& x : v) x = static_cast<T>(dist(gen));
  } else if constexpr (std::is_same_v<T, bool>) {
    for (size_t i = 0; i < n; ++i) v[i] = gen() & 1;
  } else {
    std::uniform_int_distribution<int64_t> dist(-100, 100);
    for (auto& x : v) x = static_cast<T>(dist(gen));
  }
  return v;
}

inline int64_t Numel(const std::vector<int32_t>& sizes) {
  int64_t n = 1;
  for (int32_t s : sizes) n *= s;
  return n;
}

// A float tensor of `sizes` (optionally in `dim_order`) with random values.
struct RandomTensor {
  RandomTensor(std::vector<int32_t> sizes, uint32_t seed, std::vector<uint8_t> dim_order = {})
      : t(sizes, Random<float>(Numel(sizes), seed), dim_order) {}
  TestTensor<float> t;
};

// Runs `fn` with `threads` threads and `temp_bytes` of scratch; returns the
// failure (kOk on success).
inline Error Call(OpFunction fn, std::vector<EValue*> args, int threads = 1,
                  size_t temp_bytes = 8 << 20) {
  std::vector<uint64_t> temp_memory(temp_bytes / 8 + 1);
  MemoryAllocator temp(temp_memory.data(), temp_bytes);
  KernelContext ctx(&temp, threads);
  ClearErrorDetail();
  fn(ctx, Span<EValue*>(args.data(), args.size()));
  return ctx.failure();
}

// supports(args) for a brace list of arguments.
inline bool Supported(SupportsFunction supports, std::vector<EValue*> args) {
  return supports(Span<EValue* const>(args.data(), args.size()));
}

// How two results must agree: exactly (NaN matches NaN, 0 matches -0), or
// within abs_tol + rel_tol * |expected| per element.
struct Tolerance {
  double abs_tol = 0;
  double rel_tol = 0;
};
inline constexpr Tolerance kExact{};

template <typename T>
void ExpectMatch(const std::vector<T>& actual, const std::vector<T>& expected, Tolerance tol,
                 const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  int reported = 0;
  for (size_t i = 0; i < actual.size() && reported < 5; ++i) {
    bool ok;
    if constexpr (std::is_floating_point_v<T>) {
      const double a = actual[i], e = expected[i];
      ok = (std::isnan(a) && std::isnan(e)) || a == e ||
           std::fabs(a - e) <= tol.abs_tol + tol.rel_tol * std::fabs(e);
    } else {
      ok = actual[i] == expected[i];
    }
    if (!ok) {
      ++reported;
      ADD_FAILURE() << what << ": element " << i << " is " << +actual[i] << ", expected "
                    << +expected[i];
    }
  }
}

// The instruction sets this host runs, lowest first; each test runs its
// body once per entry (ForceIsa) and restores the best one afterwards.
inline std::vector<Isa> HostIsas() {
  ForceIsa(Isa::kAvx512);
  std::vector<Isa> isas;
  for (Isa isa : {Isa::kGeneric, Isa::kAvx2, Isa::kAvx512}) {
    if (static_cast<int>(isa) <= static_cast<int>(HostIsa())) {
      isas.push_back(isa);
    }
  }
  return isas;
}

template <typename F>
void ForEachIsa(F&& body) {
  for (Isa isa : HostIsas()) {
    ForceIsa(isa);
    SCOPED_TRACE(std::string("isa ") + IsaName(isa));
    body();
  }
  ForceIsa(Isa::kAvx512);
}

// Whether a call must split its work over the pool, or is below the
// kernel's grain and must stay on the calling thread.
enum class Grain { kSplits, kSmall };

// Appends the bytes of `v` to `bytes`.
template <typename T>
void AppendBytes(const std::vector<T>& v, std::vector<uint8_t>* bytes) {
  const size_t at = bytes->size();
  bytes->resize(at + v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(bytes->data() + at, v.data(), v.size() * sizeof(T));
}

// `run(threads)` runs a kernel with that many threads and returns the bytes
// of all its outputs: at 2, 3 and 4 threads they must be the bytes at 1
// thread, and the pool must have run a job (kSplits) or none (kSmall), so
// a case cannot pass by never splitting. Starts the kernels' pool with 4
// threads if none is running (a pool of at least 2 is required).
inline void CheckSameBits(const std::string& what, Grain grain,
                          const std::function<std::vector<uint8_t>(int)>& run) {
  SCOPED_TRACE(what);
  ASSERT_EQ(RegisterOptimizedKernels(4), Error::kOk);
  ThreadPool* pool = KernelThreadPool();
  ASSERT_NE(pool, nullptr);
  // Another test in this process may have started a smaller pool: the
  // partitions still follow the requested thread counts.
  ASSERT_GE(pool->num_threads(), 2);
  const std::vector<uint8_t> one = run(1);
  ASSERT_FALSE(one.empty());
  for (int threads : {2, 3, 4}) {
    const uint64_t before = pool->jobs_started();
    const std::vector<uint8_t> bits = run(threads);
    const uint64_t jobs = pool->jobs_started() - before;
    if (grain == Grain::kSplits) {
      EXPECT_GT(jobs, 0u) << "ran on one thread at " << threads << " threads";
    } else {
      EXPECT_EQ(jobs, 0u) << "split a call below the grain at " << threads << " threads";
    }
    ASSERT_EQ(bits.size(), one.size());
    size_t first = 0;
    while (first < one.size() && bits[first] == one[first]) ++first;
    EXPECT_EQ(first, one.size()) << "at " << threads
                                 << " threads the output differs from 1 thread at byte " << first;
  }
}

}  // namespace testing
}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_TEST_UTIL_H_
