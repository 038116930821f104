#include "runtime/loaders/file_data_loader.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "runtime/core/error_detail.h"
#include "runtime/loaders/open_file.h"

namespace edgefleet {
namespace {

constexpr std::align_val_t kAlignment{alignof(std::max_align_t)};

void FreeAligned(void* /*context*/, const void* data, size_t /*size*/) {
  ::operator delete(const_cast<void*>(data), kAlignment);
}

}  // namespace

Result<FileDataLoader> FileDataLoader::Open(const char* path) {
  EF_ASSIGN_OR_RETURN(const internal::OpenedFile file, internal::OpenRegularFile(path));
  return FileDataLoader(file.fd, file.size);
}

FileDataLoader::FileDataLoader(FileDataLoader&& other) noexcept
    : fd_(other.fd_), size_(other.size_), bytes_read_(other.bytes_read_.load()) {
  other.fd_ = -1;
}

FileDataLoader::~FileDataLoader() {
  if (fd_ >= 0) ::close(fd_);
}

Result<FreeableBuffer> FileDataLoader::Load(size_t offset, size_t size,
                                            const SegmentInfo& /*info*/) {
  EF_CHECK_OR_RETURN(offset <= size_ && size <= size_ - offset, Error::kInvalidArgument,
                     "range [%zu, +%zu) outside the %zu-byte file", offset, size, size_);
  void* buffer = ::operator new(size == 0 ? 1 : size, kAlignment, std::nothrow);
  EF_CHECK_OR_RETURN(buffer != nullptr, Error::kMemoryAllocationFailed,
                     "cannot allocate %zu bytes to read the program", size);
  FreeableBuffer result(buffer, size, &FreeAligned);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd_, static_cast<uint8_t*>(buffer) + done, size - done,
                              static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    EF_CHECK_OR_RETURN(n > 0, Error::kAccessFailed, "read failed at offset %zu: %s", offset + done,
                       n == 0 ? "unexpected end of file" : strerror(errno));
    done += static_cast<size_t>(n);
  }
  bytes_read_.fetch_add(size);
  return result;
}

}  // namespace edgefleet
