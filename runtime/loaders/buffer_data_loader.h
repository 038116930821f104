// BufferDataLoader: serves a program from memory the caller owns.
//
// Zero-copy: Load() returns views into the caller's buffer, which must be
// 16-byte aligned, outlive the loader and every Program using it, and be
// writable if untrusted programs are run (malformed programs may name a
// constant as a kernel output). BytesRead() counts the bytes handed out.
// Thread-safe.

#ifndef EDGEFLEET_RUNTIME_LOADERS_BUFFER_DATA_LOADER_H_
#define EDGEFLEET_RUNTIME_LOADERS_BUFFER_DATA_LOADER_H_

#include <atomic>

#include "runtime/core/data_loader.h"

namespace edgefleet {

class BufferDataLoader final : public DataLoader {
 public:
  BufferDataLoader(const void* data, size_t size)
      : data_(static_cast<const uint8_t*>(data)), size_(size) {}

  Result<FreeableBuffer> Load(size_t offset, size_t size, const SegmentInfo& info) override;
  Result<size_t> Size() const override { return size_; }
  uint64_t BytesRead() const override { return bytes_read_.load(); }

 private:
  const uint8_t* data_;
  size_t size_;
  std::atomic<uint64_t> bytes_read_{0};
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_LOADERS_BUFFER_DATA_LOADER_H_
