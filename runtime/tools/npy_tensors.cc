#include "runtime/tools/npy_tensors.h"

#include <cstring>

#include "runtime/core/error_detail.h"
#include "runtime/module/method_io.h"

namespace edgefleet {
namespace tools {
namespace {

// The scalar dtype a 0-d array must have to stand for a `tag` input.
ScalarType ScalarInputDtype(Tag tag) {
  switch (tag) {
    case Tag::kInt:
      return ScalarType::kLong;
    case Tag::kDouble:
      return ScalarType::kDouble;
    default:
      return ScalarType::kBool;
  }
}

template <typename T>
T ReadScalar(const NpyArray& array) {
  T value;
  memcpy(&value, array.data.data(), sizeof(T));
  return value;
}

Span<const int32_t> ShapeOf(const NpyArray& array) {
  return Span<const int32_t>(array.shape.data(), array.shape.size());
}

}  // namespace

Result<std::unique_ptr<HostTensor>> HostTensorFromNpy(const NpyArray& array) {
  return HostTensor::FromBytes(array.dtype, ShapeOf(array),
                               Span<const uint8_t>(array.data.data(), array.data.size()));
}

Result<NpyArray> NpyFromTensor(const Tensor& tensor) {
  NpyArray array;
  array.dtype = tensor.dtype();
  array.shape.assign(tensor.sizes().begin(), tensor.sizes().end());
  array.data.resize(tensor.nbytes());
  EF_RETURN_IF_ERROR(CopyToContiguous(tensor, Span<uint8_t>(array.data.data(), array.data.size())));
  return array;
}

Result<MethodInputs> MethodInputsFromArrays(const MethodMeta& meta,
                                            const std::vector<NpyArray>& arrays,
                                            const std::vector<std::string>& sources) {
  const size_t n = meta.num_inputs();
  EF_CHECK_OR_RETURN(arrays.size() <= n, Error::kInvalidArgument,
                     "method '%s' has %zu input(s), got %zu --input file(s)", meta.name(), n,
                     arrays.size());
  MethodInputs result(meta);
  for (size_t i = 0; i < n; ++i) {
    EF_ASSIGN_OR_RETURN(const Tag tag, meta.input_tag(i));
    if (i >= arrays.size()) {
      EF_CHECK_OR_RETURN(tag != Tag::kTensor, Error::kInvalidArgument,
                         "method '%s' has %zu input(s), got %zu --input file(s)", meta.name(), n,
                         arrays.size());
      continue;  // left at the traced value
    }
    const NpyArray& array = arrays[i];
    const std::string given = DescribeTensor(array.dtype, ShapeOf(array));
    MethodInputs::Description description{i < sources.size() ? sources[i] : "", given};
    if (tag == Tag::kTensor) {
      EF_ASSIGN_OR_RETURN(std::unique_ptr<HostTensor> tensor, HostTensorFromNpy(array));
      EF_RETURN_IF_ERROR(result.SetTensor(i, std::move(tensor), std::move(description)));
      continue;
    }
    EF_CHECK_OR_RETURN(tag == Tag::kInt || tag == Tag::kDouble || tag == Tag::kBool,
                       Error::kNotSupported, "input %zu: %s inputs cannot be given as .npy", i,
                       TagName(tag));
    const ScalarType want = ScalarInputDtype(tag);
    EF_CHECK_OR_RETURN(array.shape.empty() && array.dtype == want, Error::kInvalidArgument,
                       "input %zu: expected a 0-d %s array for this %s input, got %s", i,
                       ScalarTypeName(want), TagName(tag), given.c_str());
    EValue value = tag == Tag::kInt      ? EValue::FromInt(ReadScalar<int64_t>(array))
                   : tag == Tag::kDouble ? EValue::FromDouble(ReadScalar<double>(array))
                                         : EValue::FromBool(array.data[0] != 0);
    EF_RETURN_IF_ERROR(result.SetValue(i, value, std::move(description)));
  }
  return result;
}

}  // namespace tools
}  // namespace edgefleet
