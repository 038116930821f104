#include "runtime/loaders/mmap_data_loader.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/core/error_detail.h"
#include "runtime/loaders/open_file.h"

namespace edgefleet {
namespace {

// The context is the page-aligned start of the mapping; its length is
// recovered from where `data` sits in the first page.
void Unmap(void* context, const void* data, size_t size) {
  const uintptr_t page_start = reinterpret_cast<uintptr_t>(context);
  const size_t length = reinterpret_cast<uintptr_t>(data) - page_start + size;
  munmap(reinterpret_cast<void*>(page_start), length);
}

}  // namespace

Result<MmapDataLoader> MmapDataLoader::Open(const char* path) {
  EF_ASSIGN_OR_RETURN(const internal::OpenedFile file, internal::OpenRegularFile(path));
  return MmapDataLoader(file.fd, file.size, static_cast<size_t>(sysconf(_SC_PAGESIZE)));
}

MmapDataLoader::MmapDataLoader(MmapDataLoader&& other) noexcept
    : fd_(other.fd_),
      size_(other.size_),
      page_size_(other.page_size_),
      bytes_read_(other.bytes_read_.load()) {
  other.fd_ = -1;
}

MmapDataLoader::~MmapDataLoader() {
  if (fd_ >= 0) ::close(fd_);
}

Result<FreeableBuffer> MmapDataLoader::Load(size_t offset, size_t size,
                                            const SegmentInfo& /*info*/) {
  EF_CHECK_OR_RETURN(offset <= size_ && size <= size_ - offset, Error::kInvalidArgument,
                     "range [%zu, +%zu) outside the %zu-byte file", offset, size, size_);
  if (size == 0) return FreeableBuffer(nullptr, 0, nullptr);
  const size_t page_offset = offset - offset % page_size_;
  const size_t length = offset + size - page_offset;
  void* pages = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd_,
                     static_cast<off_t>(page_offset));
  EF_CHECK_OR_RETURN(pages != MAP_FAILED, Error::kAccessFailed, "mmap failed: %s", strerror(errno));
  const size_t mapped = (length + page_size_ - 1) / page_size_ * page_size_;
  bytes_read_.fetch_add(mapped);
  return FreeableBuffer(static_cast<uint8_t*>(pages) + (offset - page_offset), size, &Unmap, pages);
}

}  // namespace edgefleet
