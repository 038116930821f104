#include "runtime/module/method_inputs.h"

#include <random>

#include "runtime/core/error_detail.h"
#include "runtime/core/tensor_copy.h"
#include "runtime/module/random_fill.h"

namespace edgefleet {

MethodInputs::MethodInputs(const MethodMeta& meta)
    : meta_(meta), inputs_(meta.num_inputs()), descriptions_(meta.num_inputs()) {
  for (size_t i = 0; i < inputs_.size(); ++i) {
    Result<Tag> tag = meta.input_tag(i);
    descriptions_[i] = {"traced", tag.ok() ? TagName(*tag) : "?"};
  }
}

Error MethodInputs::MatchUnplannedDimOrder(size_t i, Input& input) {
  Result<TensorInfo> info = meta_.input_tensor_info(i);
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

Error MethodInputs::SetTensor(size_t i, std::unique_ptr<HostTensor> tensor,
                              Description description) {
  EF_CHECK_OR_RETURN(i < inputs_.size() && tensor != nullptr, Error::kInvalidArgument,
                     "input %zu out of range (method has %zu inputs)", i, inputs_.size());
  Input& input = inputs_[i];
  input.tensor = std::move(tensor);
  input.value = input.tensor->value();
  input.provided = true;
  descriptions_[i] = std::move(description);
  return MatchUnplannedDimOrder(i, input);
}

Error MethodInputs::SetValue(size_t i, EValue value, Description description) {
  EF_CHECK_OR_RETURN(i < inputs_.size(), Error::kInvalidArgument,
                     "input %zu out of range (method has %zu inputs)", i, inputs_.size());
  inputs_[i] = Input{nullptr, value, true};
  descriptions_[i] = std::move(description);
  return Error::kOk;
}

Error MethodInputs::SetTraced(size_t i, Description description) {
  EF_CHECK_OR_RETURN(i < inputs_.size(), Error::kInvalidArgument,
                     "input %zu out of range (method has %zu inputs)", i, inputs_.size());
  inputs_[i] = Input{};
  descriptions_[i] = std::move(description);
  return Error::kOk;
}

Result<MethodInputs> MethodInputs::Random(const MethodMeta& meta, uint64_t seed) {
  std::mt19937_64 rng(seed);
  MethodInputs result(meta);
  for (size_t i = 0; i < meta.num_inputs(); ++i) {
    EF_ASSIGN_OR_RETURN(const Tag tag, meta.input_tag(i));
    if (tag != Tag::kTensor) continue;
    EF_ASSIGN_OR_RETURN(const TensorInfo info, meta.input_tensor_info(i));
    Input& input = result.inputs_[i];
    // Unplanned inputs alias our memory, so generate them in their order.
    const Span<const uint8_t> order =
        info.is_memory_planned ? Span<const uint8_t>() : info.dim_order;
    EF_ASSIGN_OR_RETURN(input.tensor, HostTensor::Create(info.dtype, info.sizes, order));
    const Error fill = FillRandom(rng, input.tensor->tensor());
    if (fill != Error::kOk) {
      const std::string detail = LastErrorDetail();
      EF_FAIL(fill, "input %zu: %s", i, detail.c_str());
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

}  // namespace edgefleet
