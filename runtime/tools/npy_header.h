// The header dictionary of a NumPy .npy file, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 224, 224), }
//
// The header is untrusted input: ParseNpyHeader accepts exactly this Python
// literal subset (a dict of the three keys, each once; single- or
// double-quoted strings without escapes; True/False; a tuple of decimal
// non-negative ints with a trailing comma for one element) and rejects
// everything else with a detail message. It never reads past `size` and
// bounds every count (rank, dimension values, string lengths).
//
// Stateless functions; thread-safe.

#ifndef EDGEFLEET_RUNTIME_TOOLS_NPY_HEADER_H_
#define EDGEFLEET_RUNTIME_TOOLS_NPY_HEADER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/result.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"

namespace edgefleet {
namespace tools {

// Highest rank a .npy file may have (the runtime's tensor rank limit).
inline constexpr int kMaxNpyRank = 16;

struct NpyHeader {
  std::string descr;  // e.g. "<f4"
  bool fortran_order = false;
  std::vector<int32_t> shape;  // empty for a 0-d array
};

// Parses the dictionary text (without the magic/version/length preamble).
// Trailing spaces and newlines after the closing brace are allowed.
// Errors: kInvalidArgument with a detail naming what is malformed
// (dimensions above INT32_MAX and rank above kMaxNpyRank included).
Result<NpyHeader> ParseNpyHeader(const char* text, size_t size);

// Formats the dictionary as NumPy writes it (no padding, no newline).
std::string FormatNpyHeader(const char* descr, Span<const int32_t> shape);

// The ScalarType of a descr ("<f4" -> kFloat). Errors: kNotSupported with a
// detail for float16, big-endian and every other unsupported dtype.
Result<ScalarType> ScalarTypeFromNpyDescr(const std::string& descr);

// The descr of `type`, or nullptr if .npy files of that type are not
// supported (float16, bfloat16, quantized, ...).
const char* NpyDescrFromScalarType(ScalarType type);

// "(1, 3, 224, 224)", "(5,)" or "()".
std::string FormatShapeTuple(Span<const int32_t> shape);

}  // namespace tools
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_TOOLS_NPY_HEADER_H_
