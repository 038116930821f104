#include "service/tensor_data.h"

#include <cstring>

#include "service/seeded_random.h"

namespace edgefleet {
namespace service {
namespace {

struct DatatypeName {
  ScalarType dtype;
  const char* name;
};

constexpr DatatypeName kDatatypes[] = {
    {ScalarType::kBool, "BOOL"},     {ScalarType::kByte, "UINT8"},
    {ScalarType::kChar, "INT8"},     {ScalarType::kShort, "INT16"},
    {ScalarType::kInt, "INT32"},     {ScalarType::kLong, "INT64"},
    {ScalarType::kHalf, "FP16"},     {ScalarType::kFloat, "FP32"},
    {ScalarType::kDouble, "FP64"},   {ScalarType::kBFloat16, "BF16"},
    {ScalarType::kUInt16, "UINT16"}, {ScalarType::kUInt32, "UINT32"},
    {ScalarType::kUInt64, "UINT64"},
};

}  // namespace

int64_t ShapeNumel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return -1;
  }
  return n;
}

int64_t TensorData::numel() const { return ShapeNumel(shape); }

const char* KserveDatatype(ScalarType dtype) {
  for (const auto& d : kDatatypes) {
    if (d.dtype == dtype) return d.name;
  }
  return nullptr;
}

bool ScalarTypeFromKserve(const std::string& datatype, ScalarType* dtype) {
  for (const auto& d : kDatatypes) {
    if (datatype == d.name) {
      *dtype = d.dtype;
      return true;
    }
  }
  return false;
}

std::string DescribeShape(const std::string& datatype, const std::vector<int64_t>& shape) {
  std::string out = datatype + "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ",";
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

std::string DescribeBounds(const std::string& datatype, const std::vector<int64_t>& min_shape,
                           const std::vector<int64_t>& max_shape) {
  std::string out = datatype + "[";
  for (size_t i = 0; i < max_shape.size(); ++i) {
    if (i > 0) out += ",";
    if (i < min_shape.size() && min_shape[i] != max_shape[i]) {
      out += std::to_string(min_shape[i]) + "..";
    }
    out += std::to_string(max_shape[i]);
  }
  return out + "]";
}

std::vector<TensorData> SeededInputs(const std::vector<TensorSpec>& specs, uint64_t seed) {
  std::vector<TensorData> inputs;
  for (size_t i = 0; i < specs.size(); ++i) {
    SeededRandom random(seed, /*stream=*/0x1000 + i);
    TensorData t;
    t.dtype = specs[i].dtype;
    t.shape = specs[i].shape;
    const int64_t n = std::max<int64_t>(t.numel(), 0);
    t.bytes.resize(static_cast<size_t>(n) * ElementSize(t.dtype));
    for (int64_t k = 0; k < n; ++k) {
      const double u = random.Uniform();
      uint8_t* at = t.bytes.data() + k * ElementSize(t.dtype);
      switch (t.dtype) {
        case ScalarType::kFloat: {
          const float v = static_cast<float>(2.0 * u - 1.0);
          memcpy(at, &v, sizeof(v));
          break;
        }
        case ScalarType::kDouble: {
          const double v = 2.0 * u - 1.0;
          memcpy(at, &v, sizeof(v));
          break;
        }
        case ScalarType::kBool:
          *at = u < 0.5 ? 0 : 1;
          break;
        default: {
          // Small non-negative integers (valid indices for most models),
          // little-endian in the element's width.
          const uint64_t v = static_cast<uint64_t>(u * 4.0);
          memcpy(at, &v, ElementSize(t.dtype) < sizeof(v) ? ElementSize(t.dtype) : sizeof(v));
          break;
        }
      }
    }
    inputs.push_back(std::move(t));
  }
  return inputs;
}

}  // namespace service
}  // namespace edgefleet
