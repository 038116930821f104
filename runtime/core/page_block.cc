#include "runtime/core/page_block.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <new>
#include <utility>

namespace edgefleet {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;

size_t RoundUp(size_t x, size_t unit) { return (x + unit - 1) / unit * unit; }

}  // namespace

PageBlock::~PageBlock() { Release(); }

PageBlock::PageBlock(PageBlock&& other) noexcept { *this = std::move(other); }

PageBlock& PageBlock::operator=(PageBlock&& other) noexcept {
  if (this != &other) {
    Release();
    data_ = std::exchange(other.data_, nullptr);
    base_ = std::exchange(other.base_, nullptr);
    base_len_ = std::exchange(other.base_len_, 0);
    size_ = std::exchange(other.size_, 0);
    resident_ = std::exchange(other.resident_, 0);
  }
  return *this;
}

bool PageBlock::Allocate(size_t bytes, Contents contents) {
  Release();
  if (bytes == 0) return true;
  if (bytes < kHugePage) {
    // Small: the heap, whose freed chunks come back already faulted in
    // when a process loads models again and again (the emulator does).
    data_ = static_cast<uint8_t*>(::operator new[](bytes, std::align_val_t{64}, std::nothrow));
    if (data_ == nullptr) return false;
    if (contents == Contents::kZero) std::memset(data_, 0, bytes);
    size_ = resident_ = bytes;
    return true;
  }
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t length = RoundUp(bytes, page);
  // 2 MiB more, so that a 2 MiB-aligned start exists inside the mapping.
  const size_t map_len = length + kHugePage;
  if (length < bytes || map_len < length) return false;  // overflow
  void* p = mmap(nullptr, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  base_ = static_cast<uint8_t*>(p);
  base_len_ = map_len;
  data_ = reinterpret_cast<uint8_t*>(RoundUp(reinterpret_cast<uintptr_t>(base_), kHugePage));
#ifdef MADV_HUGEPAGE
  // Whole 2 MiB units only: the tail stays in small pages, so at most a page
  // more than asked for becomes resident. Advice: ordinary pages where the
  // kernel declines.
  madvise(data_, length / kHugePage * kHugePage, MADV_HUGEPAGE);
#endif
  size_ = bytes;
  resident_ = length;
  return true;
}

void PageBlock::Release() {
  if (base_ != nullptr) {
    munmap(base_, base_len_);
  } else if (data_ != nullptr) {
    ::operator delete[](data_, std::align_val_t{64});
  }
  data_ = base_ = nullptr;
  base_len_ = size_ = resident_ = 0;
}

}  // namespace edgefleet
