// DataLoader: where the bytes of a program come from.
//
// A Program asks its loader for byte ranges (the flatbuffer, the constant
// segment, delegate blobs, named data) as it needs them. Implementations:
// loaders/buffer_data_loader.h (caller memory), file_data_loader.h (pread
// into aligned heap memory) and mmap_data_loader.h (mapped pages).
//
// Every loader counts the bytes it actually read from storage, which the
// emulator charges against the device's storage bandwidth. A loader must
// outlive the Program that uses it. Thread safety: Load() may be called from
// one thread at a time unless an implementation says otherwise.

#ifndef EDGEFLEET_RUNTIME_CORE_DATA_LOADER_H_
#define EDGEFLEET_RUNTIME_CORE_DATA_LOADER_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/freeable_buffer.h"
#include "runtime/core/result.h"

namespace edgefleet {

// What a loaded range is for; lets loaders choose caching or alignment.
struct SegmentInfo {
  enum class Type : uint8_t { kProgram, kConstant, kBackend, kMutable, kExternal };
  Type type = Type::kProgram;
  size_t segment_index = 0;
  const char* descriptor = nullptr;  // backend id for kBackend
};

class DataLoader {
 public:
  virtual ~DataLoader() = default;

  // Returns bytes [offset, offset + size), aligned to at least 16 bytes.
  // Errors: kInvalidArgument if the range is outside the data, kAccessFailed
  // on an I/O error, kMemoryAllocationFailed if a copy cannot be allocated.
  virtual Result<FreeableBuffer> Load(size_t offset, size_t size, const SegmentInfo& info) = 0;

  // Total size of the data in bytes.
  virtual Result<size_t> Size() const = 0;

  // Bytes read from storage so far (for mmap: bytes of the pages mapped in
  // response to Load calls, an upper bound of what the OS reads).
  virtual uint64_t BytesRead() const = 0;
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_CORE_DATA_LOADER_H_
