// MmapDataLoader: maps the ranges of a program file that are asked for.
//
// Only the pages a Load() covers are mapped, so a program reads what it
// needs, not the whole file. Mappings are private and copy-on-write: the
// file is never modified, and malformed programs that write into constants
// cannot fault. BytesRead() counts the bytes of the mapped pages (what the
// OS may read from storage). Owns its file descriptor. Thread-safe.

#ifndef EDGEFLEET_RUNTIME_LOADERS_MMAP_DATA_LOADER_H_
#define EDGEFLEET_RUNTIME_LOADERS_MMAP_DATA_LOADER_H_

#include <atomic>

#include "runtime/core/data_loader.h"

namespace edgefleet {

class MmapDataLoader final : public DataLoader {
 public:
  // Errors: kAccessFailed if the file cannot be opened or sized.
  static Result<MmapDataLoader> Open(const char* path);

  MmapDataLoader(MmapDataLoader&& other) noexcept;
  MmapDataLoader(const MmapDataLoader&) = delete;
  MmapDataLoader& operator=(const MmapDataLoader&) = delete;
  ~MmapDataLoader() override;

  Result<FreeableBuffer> Load(size_t offset, size_t size, const SegmentInfo& info) override;
  Result<size_t> Size() const override { return size_; }
  uint64_t BytesRead() const override { return bytes_read_.load(); }

 private:
  MmapDataLoader(int fd, size_t size, size_t page_size)
      : fd_(fd), size_(size), page_size_(page_size) {}

  int fd_;
  size_t size_;
  size_t page_size_;
  std::atomic<uint64_t> bytes_read_{0};
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_LOADERS_MMAP_DATA_LOADER_H_
