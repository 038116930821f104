// FileDataLoader: reads a program with pread into aligned heap buffers.
//
// For platforms without mmap. Each Load() allocates (nothrow) and reads the
// range; the returned buffer frees it. Owns its file descriptor.
// Thread-safe: pread does not move a shared file offset.

#ifndef EDGEFLEET_RUNTIME_LOADERS_FILE_DATA_LOADER_H_
#define EDGEFLEET_RUNTIME_LOADERS_FILE_DATA_LOADER_H_

#include <atomic>

#include "runtime/core/data_loader.h"

namespace edgefleet {

class FileDataLoader final : public DataLoader {
 public:
  // Errors: kAccessFailed if the file cannot be opened or sized.
  static Result<FileDataLoader> Open(const char* path);

  FileDataLoader(FileDataLoader&& other) noexcept;
  FileDataLoader(const FileDataLoader&) = delete;
  FileDataLoader& operator=(const FileDataLoader&) = delete;
  ~FileDataLoader() override;

  Result<FreeableBuffer> Load(size_t offset, size_t size, const SegmentInfo& info) override;
  Result<size_t> Size() const override { return size_; }
  uint64_t BytesRead() const override { return bytes_read_.load(); }

 private:
  FileDataLoader(int fd, size_t size) : fd_(fd), size_(size) {}

  int fd_;
  size_t size_;
  std::atomic<uint64_t> bytes_read_{0};
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_LOADERS_FILE_DATA_LOADER_H_
