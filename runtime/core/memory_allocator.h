// MemoryAllocator: a bump allocator over a caller-owned byte range.
//
// The runtime core never calls malloc; every byte it uses comes from an
// allocator like this one, handed in by the caller. Allocation fails (returns
// nullptr and records an error detail) when the range is exhausted. Memory is
// released only all at once by Reset(). Not thread-safe.

#ifndef EDGEFLEET_RUNTIME_CORE_MEMORY_ALLOCATOR_H_
#define EDGEFLEET_RUNTIME_CORE_MEMORY_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <new>

namespace edgefleet {

class MemoryAllocator {
 public:
  // The allocator hands out bytes from [base, base + size). The caller owns
  // that memory and keeps it alive as long as anything allocated from it.
  MemoryAllocator(void* base, size_t size) : base_(static_cast<uint8_t*>(base)), size_(size) {}
  MemoryAllocator(const MemoryAllocator&) = delete;
  MemoryAllocator& operator=(const MemoryAllocator&) = delete;

  // Returns `size` bytes aligned to `alignment` (a power of two), or nullptr.
  void* Allocate(size_t size, size_t alignment = alignof(std::max_align_t));

  // Uninitialized storage for `count` objects of type T, or nullptr.
  template <typename T>
  T* AllocateArray(size_t count) {
    if (count > SIZE_MAX / sizeof(T)) return nullptr;
    return static_cast<T*>(Allocate(count * sizeof(T), alignof(T)));
  }

  // Constructs a T in allocator memory, or returns nullptr. T's destructor
  // is never run: use only trivially destructible types or objects whose
  // owner destroys them explicitly.
  template <typename T, typename... Args>
  T* New(Args&&... args) {
    void* p = Allocate(sizeof(T), alignof(T));
    return p == nullptr ? nullptr : new (p) T(static_cast<Args&&>(args)...);
  }

  // Releases everything allocated so far.
  void Reset() { used_ = 0; }
  // Releases what was allocated after used() returned `mark`.
  // REQUIRES: mark <= used().
  void ResetTo(size_t mark) { used_ = mark; }

  size_t size() const { return size_; }
  size_t used() const { return used_; }
  // Highest used() since construction.
  size_t peak() const { return peak_; }

 private:
  uint8_t* base_;
  size_t size_;
  size_t used_ = 0;
  size_t peak_ = 0;
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_CORE_MEMORY_ALLOCATOR_H_
