// TorchMemoryTally: memory accounting for the pytorch-mobile stack.
//
// InstallTallyingAllocators() replaces, once per process, the two allocators
// libtorch's lite interpreter allocates a model's memory through:
//   - libtorch's CPU allocator (c10): tensors, i.e. weights copied out of
//     the archive and activations;
//   - XNNPACK's allocator: the prepacked weights that optimize_for_mobile's
//     prepacked::*_prepack contexts build when a .ptl is loaded, and the
//     indirection buffers and workspaces XNNPACK operators set up when they
//     first run. Debian's libtorch links the system libXNNPACK and calls
//     xnn_initialize(nullptr) on first use; XNNPACK keeps the allocator of
//     its first initialisation, so ours must be installed before (the
//     stack's constructor does). Installed() says whether it took effect.
// Each allocation is charged to the tally that is current on the allocating
// thread (a TorchMemoryTally::Scope) and credited back when it is freed, on
// whatever thread. A tally therefore knows how many bytes libtorch and
// XNNPACK hold for one loaded model, and their peak.
//
// Not counted: what libtorch allocates with plain malloc (the interpreter's
// bytecode, operator tables, archive records). tools/ptl_heap_probe
// measures the whole process heap around a load and a run in an isolated
// process and reconciles it with the tally (docs/service.md).
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
  enum Source { kTorchAllocator = 0, kXnnpack = 1, kSources = 2 };

  // A new tally with one reference (the caller's); Release() it when done.
  static TorchMemoryTally* Create();

  void Retain() { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Release();

  void Add(Source source, uint64_t bytes);
  void Subtract(Source source, uint64_t bytes);
  // Bytes held now (all sources) and their peak.
  uint64_t current() const { return current_.load(std::memory_order_relaxed); }
  uint64_t peak() const { return peak_.load(std::memory_order_relaxed); }
  // Bytes held now through one allocator.
  uint64_t current(Source source) const {
    return by_source_[source].load(std::memory_order_relaxed);
  }

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
  std::atomic<uint64_t> by_source_[kSources] = {};
};

// Installs the tallying allocators as libtorch's CPU allocator and
// XNNPACK's allocator. Idempotent and thread-safe; call it before anything
// in the process initialises XNNPACK.
void InstallTallyingAllocators();

// Whether XNNPACK allocates through the tallying allocator (false when
// something initialised XNNPACK with another allocator first, or XNNPACK
// does not run on this CPU). Valid after InstallTallyingAllocators().
bool XnnpackTallied();

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_TORCH_MEMORY_TALLY_H_
