#include "runtime/executor/program_validation.h"

#include "runtime/core/error_detail.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor.h"

namespace edgefleet {
namespace internal {
namespace {

using edgefleet_fb::ExecutionPlan;
using edgefleet_fb::InstructionArguments;
using edgefleet_fb::KernelTypes;

// Largest tensor the runtime handles: element counts must fit in int32
// strides, as in the real runtime's int32 sizes.
constexpr int64_t kMaxNumel = INT32_MAX;

#define INVALID(...) EF_FAIL(Error::kInvalidProgram, "invalid program: " __VA_ARGS__)

// Validation of one execution plan.
class PlanValidator {
 public:
  PlanValidator(const edgefleet_fb::Program& program, const ExecutionPlan& plan,
                const ProgramLayout& layout)
      : program_(program), plan_(plan), layout_(layout) {}

  Error Run() {
    if (plan_.name() == nullptr) INVALID("method without a name");
    if (plan_.values() == nullptr || plan_.inputs() == nullptr || plan_.outputs() == nullptr ||
        plan_.non_const_buffer_sizes() == nullptr) {
      INVALID("method '%s' lacks values, inputs, outputs or buffer sizes", plan_.name()->c_str());
    }
    num_values_ = plan_.values()->size();
    for (int64_t size : *plan_.non_const_buffer_sizes()) {
      if (size < 0) INVALID("negative planned buffer size %lld", static_cast<long long>(size));
    }
    for (uint32_t i = 0; i < num_values_; ++i) EF_RETURN_IF_ERROR(CheckValue(i));
    for (int32_t index : *plan_.inputs()) EF_RETURN_IF_ERROR(CheckIndex(index, "input"));
    for (int32_t index : *plan_.outputs()) EF_RETURN_IF_ERROR(CheckIndex(index, "output"));
    if (plan_.operators() != nullptr) {
      for (const auto* op : *plan_.operators()) {
        if (op == nullptr || op->name() == nullptr) INVALID("operator without a name");
      }
    }
    if (plan_.delegates() != nullptr) {
      for (const auto* delegate : *plan_.delegates()) {
        EF_RETURN_IF_ERROR(CheckDelegate(delegate));
      }
    }
    if (plan_.chains() != nullptr) {
      for (const auto* chain : *plan_.chains()) EF_RETURN_IF_ERROR(CheckChain(chain));
    }
    return Error::kOk;
  }

 private:
  Error CheckIndex(int64_t index, const char* what) const {
    if (index < 0 || index >= static_cast<int64_t>(num_values_)) {
      INVALID("%s value index %lld out of range (%u values)", what, static_cast<long long>(index),
              num_values_);
    }
    return Error::kOk;
  }

  Error CheckIndexOfType(int64_t index, KernelTypes type, const char* what) const {
    EF_RETURN_IF_ERROR(CheckIndex(index, what));
    const auto* value = plan_.values()->Get(static_cast<uint32_t>(index));
    if (value == nullptr || value->val_type() != type) {
      INVALID("%s refers to value %lld of the wrong kind", what, static_cast<long long>(index));
    }
    return Error::kOk;
  }

  Error CheckValue(uint32_t i) const {
    const auto* value = plan_.values()->Get(i);
    if (value == nullptr || value->val() == nullptr) INVALID("value %u is empty", i);
    switch (value->val_type()) {
      case KernelTypes::Null:
      case KernelTypes::Int:
      case KernelTypes::Bool:
      case KernelTypes::Double:
        return Error::kOk;
      case KernelTypes::String:
        if (value->val_as_String()->string_val() == nullptr)
          INVALID("value %u: string without data", i);
        return Error::kOk;
      case KernelTypes::DoubleList:
        if (value->val_as_DoubleList()->items() == nullptr)
          INVALID("value %u: list without items", i);
        return Error::kOk;
      case KernelTypes::BoolList:
        if (value->val_as_BoolList()->items() == nullptr)
          INVALID("value %u: list without items", i);
        return Error::kOk;
      case KernelTypes::IntList: {
        const auto* items = value->val_as_IntList()->items();
        if (items == nullptr) INVALID("value %u: list without items", i);
        for (int64_t item : *items) {
          EF_RETURN_IF_ERROR(CheckIndexOfType(item, KernelTypes::Int, "int list item"));
        }
        return Error::kOk;
      }
      case KernelTypes::TensorList: {
        const auto* items = value->val_as_TensorList()->items();
        if (items == nullptr) INVALID("value %u: list without items", i);
        for (int32_t item : *items) {
          EF_RETURN_IF_ERROR(CheckIndexOfType(item, KernelTypes::Tensor, "tensor list item"));
        }
        return Error::kOk;
      }
      case KernelTypes::OptionalTensorList: {
        const auto* items = value->val_as_OptionalTensorList()->items();
        if (items == nullptr) INVALID("value %u: list without items", i);
        for (int32_t item : *items) {
          if (item == -1) continue;
          EF_RETURN_IF_ERROR(CheckIndex(item, "optional tensor list item"));
          const auto type = plan_.values()->Get(static_cast<uint32_t>(item))->val_type();
          if (type != KernelTypes::Tensor && type != KernelTypes::Null) {
            INVALID("optional tensor list item %d is neither a tensor nor None", item);
          }
        }
        return Error::kOk;
      }
      case KernelTypes::Tensor:
        return CheckTensor(i, *value->val_as_Tensor());
      default:
        INVALID("value %u has unknown kind %d", i, static_cast<int>(value->val_type()));
    }
  }

  Error CheckTensor(uint32_t i, const edgefleet_fb::Tensor& t) const {
    const int dtype = static_cast<int>(t.scalar_type());
    if (!IsValidScalarType(dtype)) INVALID("tensor %u has unknown dtype %d", i, dtype);
    if (t.sizes() == nullptr) INVALID("tensor %u has no sizes", i);
    const uint32_t rank = t.sizes()->size();
    if (rank > static_cast<uint32_t>(kMaxTensorRank)) {
      INVALID("tensor %u has rank %u, above the limit of %d", i, rank, kMaxTensorRank);
    }
    if (t.dim_order() == nullptr || t.dim_order()->size() != rank ||
        !IsValidDimOrder({t.dim_order()->data(), rank})) {
      INVALID("tensor %u has an invalid dim order", i);
    }
    if (t.storage_offset() != 0) INVALID("tensor %u has a non-zero storage offset", i);
    const int64_t numel = CheckedNumel({t.sizes()->data(), rank});
    if (numel < 0 || numel > kMaxNumel) {
      INVALID("tensor %u: numel overflow or negative size", i);
    }
    const size_t element_size = ElementSize(static_cast<ScalarType>(dtype));
    const uint64_t nbytes = static_cast<uint64_t>(numel) * element_size;
    const auto* info = t.extra_tensor_info();
    if (info != nullptr && info->location() == edgefleet_fb::TensorDataLocation::EXTERNAL) {
      return Error::kOk;  // Resolved (or refused) by Method::Load.
    }
    const auto* alloc = t.allocation_info();
    if (alloc != nullptr) {
      const auto* sizes = plan_.non_const_buffer_sizes();
      if (alloc->memory_id() == 0 || alloc->memory_id() >= sizes->size()) {
        INVALID("tensor %u: memory id %u out of range", i, alloc->memory_id());
      }
      const uint64_t offset = static_cast<uint64_t>(alloc->memory_offset_low()) |
                              (static_cast<uint64_t>(alloc->memory_offset_high()) << 32);
      const uint64_t arena = static_cast<uint64_t>(sizes->Get(alloc->memory_id()));
      if (offset > arena || nbytes > arena - offset) {
        INVALID("tensor %u: planned offset past end of arena %u", i, alloc->memory_id());
      }
      if (offset % element_size != 0) INVALID("tensor %u: misaligned planned offset", i);
    }
    const uint32_t idx = t.data_buffer_idx();
    if (idx == 0) return Error::kOk;
    if (alloc != nullptr) return CheckMutableData(i, idx, nbytes);
    return CheckConstant(i, idx, nbytes, element_size);
  }

  Error CheckConstant(uint32_t i, uint32_t idx, uint64_t nbytes, size_t element_size) const {
    const auto* segment = program_.constant_segment();
    if (segment != nullptr && segment->offsets() != nullptr && segment->offsets()->size() > 1) {
      if (idx >= segment->offsets()->size()) {
        INVALID("tensor %u: constant index %u out of range", i, idx);
      }
      const uint64_t offset = segment->offsets()->Get(idx);
      if (offset > layout_.constant_segment_size ||
          nbytes > layout_.constant_segment_size - offset) {
        INVALID("constant offset past end of segment (tensor %u)", i);
      }
      if (offset % element_size != 0) INVALID("tensor %u: misaligned constant offset", i);
      return Error::kOk;
    }
    const auto* buffers = program_.constant_buffer();
    if (buffers == nullptr || idx >= buffers->size()) {
      INVALID("tensor %u: constant index %u out of range", i, idx);
    }
    const auto* storage = buffers->Get(idx)->storage();
    if (storage == nullptr || storage->size() < nbytes) {
      INVALID("tensor %u: inline constant smaller than the tensor", i);
    }
    if (reinterpret_cast<uintptr_t>(storage->data()) % element_size != 0) {
      INVALID("tensor %u: misaligned inline constant", i);
    }
    return Error::kOk;
  }

  Error CheckMutableData(uint32_t i, uint32_t idx, uint64_t nbytes) const {
    const auto* segments = program_.mutable_data_segments();
    if (segments == nullptr || segments->size() == 0) {
      INVALID("tensor %u has initial data but the program has no mutable segment", i);
    }
    const auto* offsets = segments->Get(0)->offsets();
    if (offsets == nullptr || idx >= offsets->size()) {
      INVALID("tensor %u: mutable data index %u out of range", i, idx);
    }
    (void)nbytes;  // Checked against the segment size when loaded.
    return Error::kOk;
  }

  Error CheckDelegate(const edgefleet_fb::BackendDelegate* delegate) const {
    if (delegate == nullptr || delegate->id() == nullptr || delegate->processed() == nullptr) {
      INVALID("delegate without id or payload");
    }
    const auto* ref = delegate->processed();
    if (ref->location() == edgefleet_fb::DataLocation::INLINE) {
      const auto* inline_data = program_.backend_delegate_data();
      if (inline_data == nullptr || ref->index() >= inline_data->size() ||
          inline_data->Get(ref->index())->data() == nullptr) {
        INVALID("delegate %s: inline payload index %u out of range", delegate->id()->c_str(),
                ref->index());
      }
    } else if (ref->location() == edgefleet_fb::DataLocation::SEGMENT) {
      if (program_.segments() == nullptr || ref->index() >= program_.segments()->size()) {
        INVALID("delegate %s: segment index %u out of range", delegate->id()->c_str(),
                ref->index());
      }
    } else {
      INVALID("delegate %s: unknown data location", delegate->id()->c_str());
    }
    if (delegate->compile_specs() != nullptr) {
      for (const auto* spec : *delegate->compile_specs()) {
        if (spec == nullptr || spec->key() == nullptr) INVALID("compile spec without a key");
      }
    }
    return Error::kOk;
  }

  Error CheckArgs(const flatbuffers::Vector<int32_t>* args) const {
    if (args == nullptr) INVALID("call without an argument list");
    for (int32_t arg : *args) EF_RETURN_IF_ERROR(CheckIndex(arg, "argument"));
    return Error::kOk;
  }

  Error CheckChain(const edgefleet_fb::Chain* chain) const {
    if (chain == nullptr) INVALID("empty chain entry");
    if (chain->instructions() == nullptr) return Error::kOk;  // no instructions
    const uint32_t n = chain->instructions()->size();
    for (uint32_t pc = 0; pc < n; ++pc) {
      const auto* instruction = chain->instructions()->Get(pc);
      if (instruction == nullptr || instruction->instr_args() == nullptr) {
        INVALID("instruction %u is empty", pc);
      }
      switch (instruction->instr_args_type()) {
        case InstructionArguments::KernelCall: {
          const auto* call = instruction->instr_args_as_KernelCall();
          const uint32_t num_ops = plan_.operators() ? plan_.operators()->size() : 0;
          if (call->op_index() < 0 || static_cast<uint32_t>(call->op_index()) >= num_ops) {
            INVALID("instruction %u: operator index %d out of range", pc, call->op_index());
          }
          EF_RETURN_IF_ERROR(CheckArgs(call->args()));
          break;
        }
        case InstructionArguments::DelegateCall: {
          const auto* call = instruction->instr_args_as_DelegateCall();
          const uint32_t num = plan_.delegates() ? plan_.delegates()->size() : 0;
          if (call->delegate_index() < 0 || static_cast<uint32_t>(call->delegate_index()) >= num) {
            INVALID("instruction %u: delegate index %d out of range", pc, call->delegate_index());
          }
          EF_RETURN_IF_ERROR(CheckArgs(call->args()));
          break;
        }
        case InstructionArguments::MoveCall: {
          const auto* call = instruction->instr_args_as_MoveCall();
          EF_RETURN_IF_ERROR(CheckIndex(call->move_from(), "move source"));
          EF_RETURN_IF_ERROR(CheckIndex(call->move_to(), "move destination"));
          break;
        }
        case InstructionArguments::JumpFalseCall: {
          const auto* call = instruction->instr_args_as_JumpFalseCall();
          EF_RETURN_IF_ERROR(CheckIndex(call->cond_value_index(), "jump condition"));
          if (call->destination_instruction() < 0 ||
              static_cast<uint32_t>(call->destination_instruction()) > n) {
            INVALID("instruction %u: jump destination %d out of range", pc,
                    call->destination_instruction());
          }
          break;
        }
        case InstructionArguments::FreeCall:
          EF_RETURN_IF_ERROR(CheckIndexOfType(instruction->instr_args_as_FreeCall()->value_index(),
                                              KernelTypes::Tensor, "free"));
          break;
        default:
          INVALID("instruction %u has unknown kind %d", pc,
                  static_cast<int>(instruction->instr_args_type()));
      }
    }
    return Error::kOk;
  }

  const edgefleet_fb::Program& program_;
  const ExecutionPlan& plan_;
  const ProgramLayout& layout_;
  uint32_t num_values_ = 0;
};

Error CheckSegments(const edgefleet_fb::Program& program, const ProgramLayout& layout) {
  if (program.segments() != nullptr) {
    for (const auto* segment : *program.segments()) {
      if (segment == nullptr) INVALID("empty segment entry");
      uint64_t end;
      if (__builtin_add_overflow(layout.segment_base_offset, segment->offset(), &end) ||
          __builtin_add_overflow(end, segment->size(), &end) || end > layout.file_size) {
        INVALID("segment past end of file");
      }
      // The exporter aligns segments to 128 bytes; tensor data in them is
      // read in place, so it must be at least 16-byte aligned.
      if ((layout.segment_base_offset + segment->offset()) % 16 != 0) {
        INVALID("segment at offset %llu is not 16-byte aligned",
                static_cast<unsigned long long>(layout.segment_base_offset + segment->offset()));
      }
    }
  }
  const uint32_t num_segments = program.segments() ? program.segments()->size() : 0;
  if (program.named_data() != nullptr) {
    for (const auto* entry : *program.named_data()) {
      if (entry == nullptr || entry->key() == nullptr || entry->segment_index() >= num_segments) {
        INVALID("named data entry without key or with segment out of range");
      }
    }
  }
  if (program.mutable_data_segments() != nullptr) {
    for (const auto* entry : *program.mutable_data_segments()) {
      if (entry == nullptr || entry->segment_index() >= num_segments) {
        INVALID("mutable data segment index out of range");
      }
    }
  }
  return Error::kOk;
}

}  // namespace

namespace {

template <typename T>
bool ElementsAligned(const flatbuffers::Vector<T>* vector) {
  return vector == nullptr || reinterpret_cast<uintptr_t>(vector->data()) % alignof(T) == 0;
}

}  // namespace

bool WideVectorsAligned(const edgefleet_fb::Program& program) {
  if (program.constant_segment() != nullptr &&
      !ElementsAligned(program.constant_segment()->offsets())) {
    return false;
  }
  if (program.mutable_data_segments() != nullptr) {
    for (const auto* entry : *program.mutable_data_segments()) {
      if (entry != nullptr && !ElementsAligned(entry->offsets())) return false;
    }
  }
  if (program.execution_plan() == nullptr) return true;
  for (const auto* plan : *program.execution_plan()) {
    if (plan == nullptr) continue;
    if (!ElementsAligned(plan->non_const_buffer_sizes())) return false;
    if (plan->values() == nullptr) continue;
    for (const auto* value : *plan->values()) {
      if (value == nullptr) continue;
      if (const auto* list = value->val_as_IntList(); list && !ElementsAligned(list->items())) {
        return false;
      }
      if (const auto* list = value->val_as_DoubleList(); list && !ElementsAligned(list->items())) {
        return false;
      }
    }
  }
  return true;
}

Error ValidateProgram(const edgefleet_fb::Program& program, const ProgramLayout& layout) {
  if (!WideVectorsAligned(program)) INVALID("misaligned 8-byte vector");
  EF_RETURN_IF_ERROR(CheckSegments(program, layout));
  if (program.execution_plan() == nullptr) INVALID("no execution plan");
  for (const auto* plan : *program.execution_plan()) {
    if (plan == nullptr) INVALID("empty execution plan entry");
    EF_RETURN_IF_ERROR(PlanValidator(program, *plan, layout).Run());
  }
  return Error::kOk;
}

#undef INVALID

}  // namespace internal
}  // namespace edgefleet
