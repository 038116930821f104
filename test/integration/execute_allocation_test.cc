// Executing a loaded method allocates nothing from the heap: every committed
// fixture program (test/fixtures/<name>/model.pte and model_xnnpack.pte),
// with the default kernel choice at one and at two threads, is executed
// twice to warm up (inputs set, then executed), then three more times while
// this binary's replacement of the global operator new counts calls on every
// thread. Kernels take
// their scratch from the method's temp arena and the delegate from memory
// it owns since load (docs/runtime.md, docs/xnnpack-delegate.md).
//
// A binary of its own: it replaces operator new for the whole process (with
// malloc and aligned_alloc, which libstdc++'s operator delete frees).

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/backends/xnnpack/xnnpack_backend.h"
#include "runtime/core/error_detail.h"
#include "runtime/kernels/optimized/register_optimized_kernels.h"
#include "runtime/kernels/portable/register_portable_kernels.h"
#include "runtime/module/host_tensor.h"
#include "runtime/module/module.h"
#include "runtime/tools/file_io.h"
#include "runtime/tools/npy.h"
#include "runtime/tools/npy_tensors.h"
#include "test/util/fixture_programs.h"

namespace {

std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};

void* Allocate(std::size_t n) {
  if (g_counting.load(std::memory_order_relaxed)) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
  }
  return std::malloc(n == 0 ? 1 : n);
}

void* AllocateAligned(std::size_t n, std::align_val_t alignment) {
  if (g_counting.load(std::memory_order_relaxed)) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
  }
  const std::size_t a = static_cast<std::size_t>(alignment);
  return std::aligned_alloc(a, (n + a - 1) / a * a);
}

}  // namespace

void* operator new(std::size_t n) {
  if (void* p = Allocate(n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  if (void* p = Allocate(n)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return Allocate(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return Allocate(n); }
void* operator new(std::size_t n, std::align_val_t a) {
  if (void* p = AllocateAligned(n, a)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n, std::align_val_t a) {
  if (void* p = AllocateAligned(n, a)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return AllocateAligned(n, a);
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return AllocateAligned(n, a);
}
namespace edgefleet {
namespace {

const std::string kFixtureDir = testing::kFixtureDir;

class ExecuteAllocationTest : public ::testing::TestWithParam<int> {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(RegisterPortableKernels(), Error::kOk);
    ASSERT_EQ(RegisterOptimizedKernels(), Error::kOk);
    ASSERT_EQ(RegisterXnnpackBackend(), Error::kOk);
  }
};

TEST_P(ExecuteAllocationTest, ExecuteAllocatesNothing) {
  const std::vector<std::string> programs = testing::FixturePrograms();
  ASSERT_GE(programs.size(), 14u) << "run tests from the repository root";
  for (const std::string& name : programs) {
    SCOPED_TRACE(name);
    Module::Options options;
    options.method.num_threads = GetParam();
    Result<std::unique_ptr<Module>> module = Module::Load(kFixtureDir + "/" + name, options);
    ASSERT_TRUE(module.ok()) << LastErrorDetail();
    Result<Method*> method = (*module)->LoadMethod("forward");
    ASSERT_TRUE(method.ok()) << LastErrorDetail();
    const std::string dir = kFixtureDir + "/" + name.substr(0, name.find('/'));
    std::vector<std::unique_ptr<HostTensor>> inputs;
    for (size_t i = 0; i < (*method)->num_inputs(); ++i) {
      Result<std::vector<uint8_t>> bytes =
          tools::ReadFileBytes(dir + "/input_" + std::to_string(i) + ".npy");
      ASSERT_TRUE(bytes.ok()) << LastErrorDetail();
      Result<tools::NpyArray> array = tools::ParseNpy(bytes->data(), bytes->size());
      ASSERT_TRUE(array.ok()) << LastErrorDetail();
      Result<std::unique_ptr<HostTensor>> t = tools::HostTensorFromNpy(*array);
      ASSERT_TRUE(t.ok()) << LastErrorDetail();
      inputs.push_back(std::move(*t));
    }
    // One request: set every input, execute.
    const auto run = [&]() {
      for (size_t i = 0; i < inputs.size(); ++i) {
        const Error e = (*method)->SetInput(i, inputs[i]->value());
        if (e != Error::kOk) return e;
      }
      return (*method)->Execute();
    };
    for (int warm = 0; warm < 2; ++warm) ASSERT_EQ(run(), Error::kOk) << LastErrorDetail();
    g_allocations = 0;
    g_counting = true;
    Error error = Error::kOk;
    for (int i = 0; i < 3 && error == Error::kOk; ++i) error = run();
    g_counting = false;
    ASSERT_EQ(error, Error::kOk) << LastErrorDetail();
    EXPECT_EQ(g_allocations.load(), 0) << "heap allocations in 3 requests";
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, ExecuteAllocationTest, ::testing::Values(1, 2));

}  // namespace
}  // namespace edgefleet
