#include "runtime/executor/method_meta.h"

#include <cstdio>

#include "runtime/core/error_detail.h"
#include "runtime/format/program_generated.h"

namespace edgefleet {

using edgefleet_fb::KernelTypes;

Tag TagForValueType(uint8_t type) {
  switch (static_cast<KernelTypes>(type)) {
    case KernelTypes::Int:
      return Tag::kInt;
    case KernelTypes::Bool:
      return Tag::kBool;
    case KernelTypes::Double:
      return Tag::kDouble;
    case KernelTypes::Tensor:
      return Tag::kTensor;
    case KernelTypes::String:
      return Tag::kString;
    case KernelTypes::IntList:
      return Tag::kListInt;
    case KernelTypes::DoubleList:
      return Tag::kListDouble;
    case KernelTypes::BoolList:
      return Tag::kListBool;
    case KernelTypes::TensorList:
      return Tag::kListTensor;
    case KernelTypes::OptionalTensorList:
      return Tag::kListOptionalTensor;
    default:
      return Tag::kNone;
  }
}

const char* MethodMeta::name() const { return plan_->name()->c_str(); }

size_t MethodMeta::num_inputs() const { return plan_->inputs()->size(); }
size_t MethodMeta::num_outputs() const { return plan_->outputs()->size(); }

Result<Tag> MethodMeta::value_tag(size_t value_index) const {
  return TagForValueType(
      static_cast<uint8_t>(plan_->values()->Get(static_cast<uint32_t>(value_index))->val_type()));
}

Result<TensorInfo> MethodMeta::tensor_info(size_t value_index) const {
  const auto* value = plan_->values()->Get(static_cast<uint32_t>(value_index));
  EF_CHECK_OR_RETURN(value->val_type() == KernelTypes::Tensor, Error::kInvalidType,
                     "value %zu is a %s, not a tensor", value_index,
                     TagName(TagForValueType(static_cast<uint8_t>(value->val_type()))));
  const auto* t = value->val_as_Tensor();
  TensorInfo info;
  info.dtype = static_cast<ScalarType>(t->scalar_type());
  info.sizes = {t->sizes()->data(), t->sizes()->size()};
  info.dim_order = {t->dim_order()->data(), t->dim_order()->size()};
  info.dynamism = static_cast<ShapeDynamism>(t->shape_dynamism());
  info.nbytes = static_cast<size_t>(CheckedNumel(info.sizes)) * ElementSize(info.dtype);
  info.is_memory_planned = t->allocation_info() != nullptr;
  return info;
}

Result<Tag> MethodMeta::input_tag(size_t i) const {
  EF_CHECK_OR_RETURN(i < num_inputs(), Error::kInvalidArgument,
                     "input %zu out of range (%zu inputs)", i, num_inputs());
  return value_tag(plan_->inputs()->Get(static_cast<uint32_t>(i)));
}

Result<TensorInfo> MethodMeta::input_tensor_info(size_t i) const {
  EF_CHECK_OR_RETURN(i < num_inputs(), Error::kInvalidArgument,
                     "input %zu out of range (%zu inputs)", i, num_inputs());
  return tensor_info(plan_->inputs()->Get(static_cast<uint32_t>(i)));
}

Result<Tag> MethodMeta::output_tag(size_t i) const {
  EF_CHECK_OR_RETURN(i < num_outputs(), Error::kInvalidArgument,
                     "output %zu out of range (%zu outputs)", i, num_outputs());
  return value_tag(plan_->outputs()->Get(static_cast<uint32_t>(i)));
}

Result<TensorInfo> MethodMeta::output_tensor_info(size_t i) const {
  EF_CHECK_OR_RETURN(i < num_outputs(), Error::kInvalidArgument,
                     "output %zu out of range (%zu outputs)", i, num_outputs());
  return tensor_info(plan_->outputs()->Get(static_cast<uint32_t>(i)));
}

size_t MethodMeta::num_planned_buffers() const {
  const size_t n = plan_->non_const_buffer_sizes()->size();
  return n == 0 ? 0 : n - 1;  // entry 0 is reserved
}

Result<int64_t> MethodMeta::planned_buffer_size(size_t i) const {
  EF_CHECK_OR_RETURN(i < num_planned_buffers(), Error::kInvalidArgument,
                     "planned buffer %zu out of range", i);
  return plan_->non_const_buffer_sizes()->Get(static_cast<uint32_t>(i + 1));
}

size_t MethodMeta::num_operators() const {
  return plan_->operators() ? plan_->operators()->size() : 0;
}

bool MethodMeta::operator_name(size_t i, char* buffer, size_t size) const {
  const auto* op = plan_->operators()->Get(static_cast<uint32_t>(i));
  const char* overload = op->overload() ? op->overload()->c_str() : "";
  const int n = overload[0] != '\0' ? snprintf(buffer, size, "%s.%s", op->name()->c_str(), overload)
                                    : snprintf(buffer, size, "%s", op->name()->c_str());
  return n >= 0 && static_cast<size_t>(n) < size;
}

size_t MethodMeta::num_backends() const {
  return plan_->delegates() ? plan_->delegates()->size() : 0;
}

const char* MethodMeta::backend_name(size_t i) const {
  return plan_->delegates()->Get(static_cast<uint32_t>(i))->id()->c_str();
}

size_t MethodMeta::num_instructions() const {
  size_t n = 0;
  if (plan_->chains() != nullptr) {
    for (const auto* chain : *plan_->chains()) {
      if (chain->instructions() != nullptr) n += chain->instructions()->size();
    }
  }
  return n;
}

size_t MethodMeta::method_allocator_bytes() const {
  // Every allocation is padded to at most 16 bytes of alignment.
  constexpr size_t kPad = alignof(std::max_align_t);
  size_t bytes = plan_->values()->size() * sizeof(EValue) + kPad;
  // Input indices, set and clobbered flags; output indices.
  bytes += plan_->inputs()->size() * (sizeof(size_t) + 2 * sizeof(bool)) + 3 * kPad;
  bytes += plan_->outputs()->size() * sizeof(size_t) + kPad;
  for (const auto* value : *plan_->values()) {
    switch (value->val_type()) {
      case KernelTypes::Tensor: {
        const size_t rank = value->val_as_Tensor()->sizes()->size();
        bytes += sizeof(Tensor) + rank * (2 * sizeof(int32_t) + sizeof(uint8_t)) + 4 * kPad;
        break;
      }
      case KernelTypes::IntList:
        bytes += sizeof(BoxedIntList) +
                 value->val_as_IntList()->items()->size() * (sizeof(EValue*) + sizeof(int64_t)) +
                 3 * kPad;
        break;
      case KernelTypes::TensorList:
        bytes += sizeof(BoxedTensorList) +
                 value->val_as_TensorList()->items()->size() * 2 * sizeof(void*) + 3 * kPad;
        break;
      case KernelTypes::OptionalTensorList:
        bytes += sizeof(BoxedTensorList) +
                 value->val_as_OptionalTensorList()->items()->size() * 2 * sizeof(void*) + 3 * kPad;
        break;
      default:
        break;
    }
  }
  // Instruction table: one record plus argument pointers per instruction.
  constexpr size_t kInstructionRecordBytes = 64;
  if (plan_->chains() != nullptr) {
    for (const auto* chain : *plan_->chains()) {
      if (chain->instructions() == nullptr) continue;
      bytes += chain->instructions()->size() * kInstructionRecordBytes + kPad;
      for (const auto* instruction : *chain->instructions()) {
        const flatbuffers::Vector<int32_t>* args = nullptr;
        if (const auto* k = instruction->instr_args_as_KernelCall()) args = k->args();
        if (const auto* d = instruction->instr_args_as_DelegateCall()) args = d->args();
        if (args != nullptr) bytes += args->size() * sizeof(EValue*) + kPad;
      }
    }
  }
  bytes += num_backends() * (64 + kPad);
  return bytes;
}

}  // namespace edgefleet
