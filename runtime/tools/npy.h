// Reading and writing NumPy .npy arrays (format versions 1.0, 2.0 and 3.0).
//
// An NpyArray owns a logical C-order (row-major) copy of the elements.
// Supported dtypes: <f4 <f8 <f2 <i8 <i4 <i2 |i1 |u1 |b1 (bfloat16 has no
// NumPy dtype); fortran_order must be False. ParseNpy treats its input as untrusted (it is fuzzed):
// the header is bounded (kMaxNpyHeaderBytes, rank <= kMaxNpyRank), numel * itemsize is
// overflow-checked, and the data must fill the rest of the buffer exactly.
//
// Stateless functions; thread-safe. Errors are recorded with SetErrorDetail
// (error_detail.h) before they are returned.

#ifndef EDGEFLEET_RUNTIME_TOOLS_NPY_H_
#define EDGEFLEET_RUNTIME_TOOLS_NPY_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/core/result.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"
#include "runtime/tools/npy_header.h"

namespace edgefleet {
namespace tools {

// Longest header dictionary accepted, in bytes.
inline constexpr size_t kMaxNpyHeaderBytes = 64 * 1024;

struct NpyArray {
  ScalarType dtype = ScalarType::kFloat;
  std::vector<int32_t> shape;  // empty: a 0-d array (one element)
  std::vector<uint8_t> data;   // numel * ElementSize(dtype) bytes, C order

  int64_t numel() const;
};

// Parses a whole .npy file held in memory.
// Errors: kInvalidArgument for malformed files (bad magic, truncated or
// oversized header, malformed dict, overflowing shape, data size mismatch,
// bool bytes other than 0/1); kNotSupported for well-formed files this
// parser does not handle (versions other than 1.0-3.0, fortran order,
// float16 and other dtypes).
Result<NpyArray> ParseNpy(const uint8_t* data, size_t size);

// Serializes `array` as a version 1.0 file (2.0 if the header needs it),
// header padded to a multiple of 64 bytes as NumPy does. Errors:
// kNotSupported if the dtype has no supported descr; kInvalidArgument if
// the data size does not match the shape.
Result<std::vector<uint8_t>> SerializeNpy(const NpyArray& array);

}  // namespace tools
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_TOOLS_NPY_H_
