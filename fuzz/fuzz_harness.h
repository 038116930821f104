// Shared body of the program fuzz targets and the mutation campaign: load a
// .pte image from memory, inspect every piece of metadata, initialize each
// method into bounded arenas, feed seeded inputs and execute.
//
// Oracles beyond the sanitizers: anything Program::Load accepts must be
// internally consistent (every MethodMeta accessor answers, tensor infos are
// well formed, a method without delegates initializes within
// method_allocator_bytes(), outputs lie inside readable memory). A broken
// invariant prints "INVARIANT VIOLATED: ..." and aborts, which libFuzzer and
// the replay main report as a crash.
//
// Every arena is a separate exact-size heap block, so AddressSanitizer sees
// a kernel that writes past its planned tensor. Stateless apart from a
// one-time kernel registration; thread-compatible.

#ifndef EDGEFLEET_FUZZ_FUZZ_HARNESS_H_
#define EDGEFLEET_FUZZ_FUZZ_HARNESS_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "fuzz/fuzz_invariant.h"
#include "runtime/core/error.h"
#include "runtime/executor/program.h"
#include "runtime/kernels/kernel_registry.h"

namespace edgefleet {
namespace fuzz {

// A 64-byte-aligned, writable copy of the input (BufferDataLoader needs
// 16-byte alignment; malformed programs may write into "constants").
class AlignedBuffer {
 public:
  AlignedBuffer(const uint8_t* data, size_t size);
  uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(uint8_t* p) const;
  };
  std::unique_ptr<uint8_t, Free> data_;
  size_t size_;
};

struct Limits {
  // Planned arenas plus method allocator of one method; larger programs are
  // skipped (counted as kSkipped, not as failures).
  uint64_t max_method_bytes = 64ull << 20;
  // Kernel scratch (temp allocator) per method.
  size_t temp_bytes = 4u << 20;
  // Budget for what Method::Load derives (folded constants, packed
  // weights: MemoryManager::constant_allocator) per method.
  size_t constant_bytes = 1u << 20;
  size_t max_methods = 4;
  int executions = 1;
  KernelPreference kernels = KernelPreference::kOptimizedFirst;
  // Instructions per Execute(): real programs run each instruction once,
  // so at most twice the method's instruction count plus this many; a
  // mutated jump cannot loop a heavy kernel (100,000 batch norms took 12 s
  // under ASan).
  uint64_t max_instructions = 64;
};

// How far a case got. kDone: every method executed without error.
enum class Stage : uint8_t { kLoad, kMethodLoad, kSetInput, kExecute, kSkipped, kDone };
const char* StageName(Stage stage);

struct Outcome {
  Stage stage = Stage::kLoad;
  Error error = Error::kOk;     // first error seen (kOk for kDone/kSkipped)
  uint64_t planned_bytes = 0;   // largest sum of planned arenas of a method
  uint64_t method_bytes = 0;    // largest method_allocator_bytes() requested
  uint64_t temp_peak = 0;       // highest kernel scratch use
  uint64_t constant_bytes = 0;  // most derived-constant bytes a method used
  size_t methods_executed = 0;
};

// Registers the portable kernels (once per process) and quiets the log.
void InitRuntimeOnce();

// Calls every Program and MethodMeta accessor and checks their answers.
void InspectProgram(const Program& program);

// Program::Load on an aligned copy of `data`; then, if `run_methods`,
// Method::Load + SetInput + Execute for up to limits.max_methods methods.
// `seed` drives input contents and which optional paths are exercised.
Outcome ExerciseProgram(const uint8_t* data, size_t size, const Limits& limits, uint64_t seed,
                        bool run_methods = true);

// FNV-1a of the input: a reproducible seed for input contents.
uint64_t HashBytes(const uint8_t* data, size_t size);

}  // namespace fuzz
}  // namespace edgefleet

#endif  // EDGEFLEET_FUZZ_FUZZ_HARNESS_H_
