#include "runtime/executor/value_parser.h"

#include <cstring>

#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace internal {
namespace {

using edgefleet_fb::KernelTypes;

Result<Tensor*> ParseTensor(const Program& program, const edgefleet_fb::ExecutionPlan& plan,
                            const MemoryManager& memory, uint32_t index,
                            const edgefleet_fb::Tensor& t) {
  MemoryAllocator& allocator = *memory.method_allocator;
  const auto dynamism = static_cast<ShapeDynamism>(t.shape_dynamism());
  EF_CHECK_OR_RETURN(dynamism != ShapeDynamism::kDynamicUnbound, Error::kNotSupported,
                     "value %u: unbounded dynamic shapes are not supported", index);
  const auto* extra = t.extra_tensor_info();
  EF_CHECK_OR_RETURN(
      extra == nullptr || extra->location() != edgefleet_fb::TensorDataLocation::EXTERNAL,
      Error::kNotSupported, "value %u: tensor data in an external .ptd file is not supported",
      index);

  const int rank = static_cast<int>(t.sizes()->size());
  int32_t* sizes = allocator.AllocateArray<int32_t>(rank);
  uint8_t* dim_order = allocator.AllocateArray<uint8_t>(rank);
  int32_t* strides = allocator.AllocateArray<int32_t>(rank);
  EF_CHECK_OR_RETURN(sizes != nullptr && dim_order != nullptr && strides != nullptr,
                     Error::kMemoryAllocationFailed, "method allocator exhausted (tensor %u)",
                     index);
  if (rank > 0) {
    memcpy(sizes, t.sizes()->data(), rank * sizeof(int32_t));
    memcpy(dim_order, t.dim_order()->data(), rank);
  }
  Tensor* tensor = allocator.New<Tensor>(static_cast<ScalarType>(t.scalar_type()), rank, sizes,
                                         dim_order, strides, nullptr, dynamism);
  EF_CHECK_OR_RETURN(tensor != nullptr, Error::kMemoryAllocationFailed,
                     "method allocator exhausted (tensor %u)", index);

  const size_t nbytes = tensor->nbytes();
  const auto* alloc = t.allocation_info();
  if (alloc != nullptr) {
    EF_CHECK_OR_RETURN(memory.planned_memory != nullptr, Error::kInvalidArgument,
                       "method needs planned memory but none was given");
    const uint64_t offset = static_cast<uint64_t>(alloc->memory_offset_low()) |
                            (static_cast<uint64_t>(alloc->memory_offset_high()) << 32);
    EF_ASSIGN_OR_RETURN(uint8_t * data,
                        memory.planned_memory->Address(alloc->memory_id() - 1, offset, nbytes));
    tensor->set_data(data);
    if (t.data_buffer_idx() > 0) {
      EF_RETURN_IF_ERROR(program.LoadMutableData(t.data_buffer_idx(), nbytes, data));
    }
  } else if (t.data_buffer_idx() > 0) {
    EF_ASSIGN_OR_RETURN(const uint8_t* data, program.ConstantData(t.data_buffer_idx(), nbytes));
    // Kernels never write constants in valid programs; loaders hand out
    // writable (copy-on-write) memory so malformed ones cannot fault.
    tensor->set_data(const_cast<uint8_t*>(data));
  }
  return tensor;
}

template <typename ItemVector>
Result<EValue* const*> BoxItems(MemoryAllocator& allocator, EValue* values, const ItemVector& items,
                                bool allow_none) {
  EValue** boxed = allocator.AllocateArray<EValue*>(items.size());
  EF_CHECK_OR_RETURN(boxed != nullptr || items.size() == 0, Error::kMemoryAllocationFailed,
                     "method allocator exhausted (list)");
  for (uint32_t i = 0; i < items.size(); ++i) {
    const int64_t item = items.Get(i);
    boxed[i] = allow_none && (item < 0 || values[item].is_none()) ? nullptr : &values[item];
  }
  return boxed;
}

Error ParseList(MemoryAllocator& allocator, EValue* values, const edgefleet_fb::EValue& value,
                EValue* out) {
  switch (value.val_type()) {
    case KernelTypes::IntList: {
      const auto& items = *value.val_as_IntList()->items();
      EF_ASSIGN_OR_RETURN(EValue* const* boxed, BoxItems(allocator, values, items, false));
      int64_t* unboxed = allocator.AllocateArray<int64_t>(items.size());
      auto* list = allocator.New<BoxedIntList>(BoxedIntList{boxed, unboxed, items.size()});
      EF_CHECK_OR_RETURN(list != nullptr && (unboxed != nullptr || items.size() == 0),
                         Error::kMemoryAllocationFailed, "method allocator exhausted (list)");
      *out = EValue::FromIntList(list);
      return Error::kOk;
    }
    case KernelTypes::TensorList:
    case KernelTypes::OptionalTensorList: {
      const bool optional = value.val_type() == KernelTypes::OptionalTensorList;
      const auto& items = optional ? *value.val_as_OptionalTensorList()->items()
                                   : *value.val_as_TensorList()->items();
      EF_ASSIGN_OR_RETURN(EValue* const* boxed, BoxItems(allocator, values, items, optional));
      Tensor** unboxed = allocator.AllocateArray<Tensor*>(items.size());
      auto* list = allocator.New<BoxedTensorList>(BoxedTensorList{boxed, unboxed, items.size()});
      EF_CHECK_OR_RETURN(list != nullptr && (unboxed != nullptr || items.size() == 0),
                         Error::kMemoryAllocationFailed, "method allocator exhausted (list)");
      *out = EValue::FromTensorList(list, optional);
      return Error::kOk;
    }
    default:
      return Error::kOk;
  }
}

}  // namespace

Result<EValue*> ParseValues(const Program& program, const edgefleet_fb::ExecutionPlan& plan,
                            const MemoryManager& memory) {
  MemoryAllocator& allocator = *memory.method_allocator;
  const uint32_t n = plan.values()->size();
  EValue* values = allocator.AllocateArray<EValue>(n);
  EF_CHECK_OR_RETURN(values != nullptr || n == 0, Error::kMemoryAllocationFailed,
                     "method allocator exhausted (%u values)", n);
  // First pass: everything but boxed lists (which point at other values).
  for (uint32_t i = 0; i < n; ++i) {
    const auto& value = *plan.values()->Get(i);
    EValue& out = values[i];
    new (&out) EValue();
    switch (value.val_type()) {
      case KernelTypes::Int:
        out = EValue::FromInt(value.val_as_Int()->int_val());
        break;
      case KernelTypes::Bool:
        out = EValue::FromBool(value.val_as_Bool()->bool_val());
        break;
      case KernelTypes::Double:
        out = EValue::FromDouble(value.val_as_Double()->double_val());
        break;
      case KernelTypes::String: {
        const auto* s = value.val_as_String()->string_val();
        out = EValue::FromString(s->c_str(), s->size());
        break;
      }
      case KernelTypes::DoubleList: {
        const auto* items = value.val_as_DoubleList()->items();
        out = EValue::FromDoubleList(items->data(), items->size());
        break;
      }
      case KernelTypes::BoolList: {
        const auto* items = value.val_as_BoolList()->items();
        out = EValue::FromBoolList(items->data(), items->size());
        break;
      }
      case KernelTypes::Tensor: {
        EF_ASSIGN_OR_RETURN(Tensor * t,
                            ParseTensor(program, plan, memory, i, *value.val_as_Tensor()));
        out = EValue::FromTensor(t);
        break;
      }
      default:
        break;  // Null stays None; lists in the second pass.
    }
  }
  for (uint32_t i = 0; i < n; ++i) {
    EF_RETURN_IF_ERROR(ParseList(allocator, values, *plan.values()->Get(i), &values[i]));
  }
  return values;
}

}  // namespace internal
}  // namespace edgefleet
