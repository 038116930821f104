// An XNNPACK payload's flatbuffer at an address the flatbuffers library may
// read in place.
//
// flatbuffers reads every scalar where it lies, so a buffer must start at an
// address aligned for its widest scalar (8 bytes); its verifier checks field
// alignment only relative to the buffer's start. The XH00 header may place the
// flatbuffer at any offset and inline delegate data promises no alignment, so
// a misaligned flatbuffer is copied once into aligned storage that this object
// owns (heap, load time only); an aligned one is used where it lies. Verify
// and read the flatbuffer through data() only, and only while this object
// lives. Thread-compatible.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_ALIGNED_FLATBUFFER_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_ALIGNED_FLATBUFFER_H_

#include <cstddef>
#include <cstdint>
#include <memory>

namespace edgefleet {
namespace xnnpack {

class AlignedFlatbuffer {
 public:
  static constexpr size_t kAlignment = alignof(uint64_t);

  AlignedFlatbuffer(const uint8_t* data, size_t size);

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  // True when data() is an owned copy rather than the caller's bytes.
  bool copied() const { return copy_ != nullptr; }

 private:
  std::unique_ptr<uint64_t[]> copy_;
  const uint8_t* data_;
  size_t size_;
};

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_ALIGNED_FLATBUFFER_H_
