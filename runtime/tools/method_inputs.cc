#include "runtime/tools/method_inputs.h"

#include <cstring>
#include <random>

#include "runtime/core/error_detail.h"
#include "runtime/core/tensor_copy.h"
#include "runtime/tools/error_context.h"
#include "runtime/tools/random_fill.h"

namespace edgefleet {
namespace tools {
namespace {

// The scalar dtype a 0-d array must have to stand for a `tag` input.
ScalarType ScalarInputDtype(Tag tag) {
  switch (tag) {
    case Tag::kInt: return ScalarType::kLong;
    case Tag::kDouble: return ScalarType::kDouble;
    default: return ScalarType::kBool;
  }
}

template <typename T>
T ReadScalar(const NpyArray& array) {
  T value;
  memcpy(&value, array.data.data(), sizeof(T));
  return value;
}

}  // namespace

Error MethodInputs::MatchUnplannedDimOrder(const MethodMeta& meta, size_t i, Input& input) {
  Result<TensorInfo> info = meta.input_tensor_info(i);
  if (!info.ok() || info->is_memory_planned) return Error::kOk;
  const Tensor& src = input.tensor->tensor();
  // A rank mismatch is left for Method::SetInput to report.
  if (info->dim_order.size() != static_cast<size_t>(src.dim())) return Error::kOk;
  EF_ASSIGN_OR_RETURN(std::unique_ptr<HostTensor> converted,
                      HostTensor::Create(src.dtype(), src.sizes(), info->dim_order));
  EF_RETURN_IF_ERROR(CopyTensorData(src, converted->tensor()));
  input.tensor = std::move(converted);
  input.value = input.tensor->value();
  return Error::kOk;
}

Result<MethodInputs> MethodInputs::FromArrays(const MethodMeta& meta,
                                              const std::vector<NpyArray>& arrays,
                                              const std::vector<std::string>& sources) {
  const size_t n = meta.num_inputs();
  EF_CHECK_OR_RETURN(arrays.size() <= n, Error::kInvalidArgument,
                     "method '%s' has %zu input(s), got %zu --input file(s)", meta.name(), n,
                     arrays.size());
  MethodInputs result;
  result.inputs_.resize(n);
  result.descriptions_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    EF_ASSIGN_OR_RETURN(const Tag tag, meta.input_tag(i));
    Input& input = result.inputs_[i];
    Description& description = result.descriptions_[i];
    if (i >= arrays.size()) {
      EF_CHECK_OR_RETURN(tag != Tag::kTensor, Error::kInvalidArgument,
                         "method '%s' has %zu input(s), got %zu --input file(s)", meta.name(),
                         n, arrays.size());
      description = {"traced", TagName(tag)};
      continue;
    }
    const NpyArray& array = arrays[i];
    const std::string given =
        DescribeTensor(array.dtype, Span<const int32_t>(array.shape.data(), array.shape.size()));
    description = {i < sources.size() ? sources[i] : "", given};
    input.provided = true;
    if (tag == Tag::kTensor) {
      EF_ASSIGN_OR_RETURN(input.tensor, HostTensor::FromNpy(array));
      input.value = input.tensor->value();
      EF_RETURN_IF_ERROR(MatchUnplannedDimOrder(meta, i, input));
      continue;
    }
    EF_CHECK_OR_RETURN(tag == Tag::kInt || tag == Tag::kDouble || tag == Tag::kBool,
                       Error::kNotSupported, "input %zu: %s inputs cannot be given as .npy", i,
                       TagName(tag));
    const ScalarType want = ScalarInputDtype(tag);
    EF_CHECK_OR_RETURN(array.shape.empty() && array.dtype == want, Error::kInvalidArgument,
                       "input %zu: expected a 0-d %s array for this %s input, got %s", i,
                       ScalarTypeName(want), TagName(tag), given.c_str());
    if (tag == Tag::kInt) {
      input.value = EValue::FromInt(ReadScalar<int64_t>(array));
    } else if (tag == Tag::kDouble) {
      input.value = EValue::FromDouble(ReadScalar<double>(array));
    } else {
      input.value = EValue::FromBool(array.data[0] != 0);
    }
  }
  return result;
}

Result<MethodInputs> MethodInputs::Random(const MethodMeta& meta, uint64_t seed) {
  std::mt19937_64 rng(seed);
  MethodInputs result;
  const size_t n = meta.num_inputs();
  result.inputs_.resize(n);
  result.descriptions_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    EF_ASSIGN_OR_RETURN(const Tag tag, meta.input_tag(i));
    if (tag != Tag::kTensor) {
      result.descriptions_[i] = {"traced", TagName(tag)};
      continue;
    }
    EF_ASSIGN_OR_RETURN(const TensorInfo info, meta.input_tensor_info(i));
    Input& input = result.inputs_[i];
    // Unplanned inputs alias our memory, so generate them in their order.
    const Span<const uint8_t> order =
        info.is_memory_planned ? Span<const uint8_t>() : info.dim_order;
    EF_ASSIGN_OR_RETURN(input.tensor, HostTensor::Create(info.dtype, info.sizes, order));
    const Error fill = FillRandom(rng, input.tensor->tensor());
    if (fill != Error::kOk) {
      return WithErrorContext(fill, ("input " + std::to_string(i)).c_str());
    }
    input.value = input.tensor->value();
    input.provided = true;
    result.descriptions_[i] = {"random", DescribeTensor(info.dtype, info.sizes)};
  }
  return result;
}

Error MethodInputs::Apply(Method& method) {
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (inputs_[i].provided) EF_RETURN_IF_ERROR(method.SetInput(i, inputs_[i].value));
  }
  return Error::kOk;
}

}  // namespace tools
}  // namespace edgefleet
