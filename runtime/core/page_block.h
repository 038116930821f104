// PageBlock: one 64-byte-aligned block of memory taken straight from the
// kernel, for a method's large buffers: the planned arenas and the constants
// packed at load (Module), the XNNPACK delegate's packed filters and arena.
//
// Why not operator new: a block of megabytes written once at load costs one
// page fault per 4 KiB page when malloc maps it (those faults were about a
// third of MobileNetV2's delegate load), and a kernel streaming megabytes of
// activations or filters through 4 KiB pages misses the TLB: ResNet-18's
// 512-channel convolutions ran 8-13 % slower on heap blocks than on these.
// A PageBlock of 2 MiB or more is its own mapping, 2 MiB-aligned, and asks
// for transparent huge pages for its whole 2 MiB units (madvise
// MADV_HUGEPAGE, which Linux honours in its default "madvise" mode), so they
// fault once per 2 MiB; the tail, and every block where huge pages are
// unavailable, is ordinary pages with the same contents. A smaller block comes from the heap
// (64-byte aligned): a process that loads models again and again, as the emulator does, gets back
// chunks that are already faulted in. A block is zero-filled unless its
// owner asks for unspecified contents (it overwrites every byte it reads, as
// the packed filters do): a heap block then skips the memset.
//
// Owns its mapping (released by the destructor); movable, not copyable.
// Thread-compatible.

#ifndef EDGEFLEET_RUNTIME_CORE_PAGE_BLOCK_H_
#define EDGEFLEET_RUNTIME_CORE_PAGE_BLOCK_H_

#include <cstddef>
#include <cstdint>

namespace edgefleet {

class PageBlock {
 public:
  PageBlock() = default;
  ~PageBlock();
  PageBlock(PageBlock&& other) noexcept;
  PageBlock& operator=(PageBlock&& other) noexcept;
  PageBlock(const PageBlock&) = delete;
  PageBlock& operator=(const PageBlock&) = delete;

  enum class Contents { kZero, kUnspecified };

  // A block of at least `bytes` bytes (none for 0), zero unless `contents`
  // is kUnspecified; false, leaving the block empty, when the kernel refuses
  // the mapping.
  bool Allocate(size_t bytes, Contents contents = Contents::kZero);

  uint8_t* data() const { return data_; }
  // Bytes usable (what Allocate was asked for).
  size_t size() const { return size_; }
  // Bytes the block can make resident: size() (heap), or size() rounded up
  // to whole pages (mapped).
  size_t resident_bytes() const { return resident_; }

 private:
  void Release();

  uint8_t* data_ = nullptr;  // 2 MiB-aligned (mapped) or 64-byte aligned (heap)
  uint8_t* base_ = nullptr;  // what mmap returned; null for a heap block
  size_t base_len_ = 0;      // what was mapped
  size_t size_ = 0;
  size_t resident_ = 0;
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_CORE_PAGE_BLOCK_H_
