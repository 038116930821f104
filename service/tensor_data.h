// TensorData: a dense, row-major tensor value owned by the service, passed
// between the wire codec and the stacks; TensorSpec: a model input's or
// output's name, dtype and shape. Plain values, not thread-safe.

#ifndef EDGEFLEET_SERVICE_TENSOR_DATA_H_
#define EDGEFLEET_SERVICE_TENSOR_DATA_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/scalar_type.h"

namespace edgefleet {
namespace service {

struct TensorSpec {
  std::string name;  // "input_0", "output_1", ...
  ScalarType dtype = ScalarType::kFloat;
  std::vector<int64_t> shape;  // export-time (upper-bound) shape
  bool dynamic = false;        // sizes may shrink within `shape` (same rank)
  // The smallest size of each dimension (== shape for a static tensor and
  // for the fixed dimensions of a dynamic one; ModelRepository::Signature
  // fills it for inputs and outputs).
  std::vector<int64_t> min_shape;
};

// "FP32[1..8,16]": the range of each dimension that varies, the size of
// each fixed one.
std::string DescribeBounds(const std::string& datatype, const std::vector<int64_t>& min_shape,
                           const std::vector<int64_t>& max_shape);

struct TensorData {
  ScalarType dtype = ScalarType::kFloat;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;  // numel() * ElementSize(dtype) bytes

  // Product of the shape (1 for a scalar); -1 if negative or overflowing.
  int64_t numel() const;
};

// Product of `shape`, or -1 if a size is negative or the product overflows.
int64_t ShapeNumel(const std::vector<int64_t>& shape);

// The Open Inference Protocol datatype of `dtype` ("FP32", "INT64", ...),
// or nullptr if the protocol has none.
const char* KserveDatatype(ScalarType dtype);

// The dtype of a protocol datatype; false if unknown or not supported.
bool ScalarTypeFromKserve(const std::string& datatype, ScalarType* dtype);

// "FP32[1,3,96,96]".
std::string DescribeShape(const std::string& datatype, const std::vector<int64_t>& shape);

// Seeded random inputs for `specs` (uniform in [-1, 1) for floats, small
// non-negative integers otherwise): what sessions feed their models. The
// same seed gives the same bytes.
std::vector<TensorData> SeededInputs(const std::vector<TensorSpec>& specs, uint64_t seed);

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_TENSOR_DATA_H_
