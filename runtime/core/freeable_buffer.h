// FreeableBuffer: a read-only byte range plus the function that releases it.
//
// Data loaders return FreeableBuffers so that each kind of storage (mmap'ed
// pages, heap copies, caller memory) is released the right way. Move-only;
// the destructor calls Free(). Not thread-safe.

#ifndef EDGEFLEET_RUNTIME_CORE_FREEABLE_BUFFER_H_
#define EDGEFLEET_RUNTIME_CORE_FREEABLE_BUFFER_H_

#include <cstddef>

namespace edgefleet {

class FreeableBuffer {
 public:
  using FreeFn = void (*)(void* context, const void* data, size_t size);

  FreeableBuffer() = default;
  // `free_fn` may be null (nothing to release).
  FreeableBuffer(const void* data, size_t size, FreeFn free_fn, void* context = nullptr)
      : data_(data), size_(size), free_fn_(free_fn), context_(context) {}
  FreeableBuffer(FreeableBuffer&& other) noexcept { *this = static_cast<FreeableBuffer&&>(other); }
  FreeableBuffer& operator=(FreeableBuffer&& other) noexcept {
    if (this != &other) {
      Free();
      data_ = other.data_;
      size_ = other.size_;
      free_fn_ = other.free_fn_;
      context_ = other.context_;
      other.data_ = nullptr;
      other.size_ = 0;
      other.free_fn_ = nullptr;
    }
    return *this;
  }
  FreeableBuffer(const FreeableBuffer&) = delete;
  FreeableBuffer& operator=(const FreeableBuffer&) = delete;
  ~FreeableBuffer() { Free(); }

  // Releases the bytes; afterwards data() is null and size() is 0.
  void Free() {
    if (free_fn_ != nullptr && data_ != nullptr) free_fn_(context_, data_, size_);
    data_ = nullptr;
    size_ = 0;
    free_fn_ = nullptr;
  }

  const void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  const void* data_ = nullptr;
  size_t size_ = 0;
  FreeFn free_fn_ = nullptr;
  void* context_ = nullptr;
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_CORE_FREEABLE_BUFFER_H_
