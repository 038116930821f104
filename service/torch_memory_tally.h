// TorchMemoryTally: allocator accounting for the pytorch-mobile stack.
//
// InstallTallyingCpuAllocator() replaces libtorch's CPU allocator (once per
// process) with one that charges every allocation to the tally that is
// current on the allocating thread (a TorchMemoryTally::Scope), and credits
// it back when the memory is freed, on whatever thread. A tally therefore
// knows how many bytes libtorch holds for one loaded model (weights copied
// out of the archive, bytecode, activations) and their peak.
//
// Ownership: a tally is reference-counted: the owner's handle plus one
// reference per live allocation, so it outlives tensors that escape the
// model. Thread-safe (atomics).

#ifndef EDGEFLEET_SERVICE_TORCH_MEMORY_TALLY_H_
#define EDGEFLEET_SERVICE_TORCH_MEMORY_TALLY_H_

#include <atomic>
#include <cstdint>

namespace edgefleet {
namespace service {

class TorchMemoryTally {
 public:
  // A new tally with one reference (the caller's); Release() it when done.
  static TorchMemoryTally* Create();

  void Retain() { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Release();

  void Add(uint64_t bytes);
  void Subtract(uint64_t bytes) { current_.fetch_sub(bytes, std::memory_order_relaxed); }
  uint64_t current() const { return current_.load(std::memory_order_relaxed); }
  uint64_t peak() const { return peak_.load(std::memory_order_relaxed); }

  // Makes `tally` current on this thread for the scope's lifetime.
  class Scope {
   public:
    explicit Scope(TorchMemoryTally* tally);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    TorchMemoryTally* previous_;
  };

  // The calling thread's current tally, or nullptr.
  static TorchMemoryTally* Current();

 private:
  TorchMemoryTally() = default;

  std::atomic<int64_t> refs_{1};
  std::atomic<uint64_t> current_{0};
  std::atomic<uint64_t> peak_{0};
};

// Installs the tallying allocator as libtorch's CPU allocator. Idempotent
// and thread-safe.
void InstallTallyingCpuAllocator();

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_TORCH_MEMORY_TALLY_H_
