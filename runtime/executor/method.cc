// Method's lifetime, inputs, Execute and introspection; Method::Load and
// its phases are in method_load.cc.

#include "runtime/executor/method.h"

#include <cstdio>

#include "runtime/core/error_detail.h"
#include "runtime/core/tensor_copy.h"
#include "runtime/executor/method_delegate.h"
#include "runtime/executor/method_trace.h"

namespace edgefleet {

using internal::TraceAllocation;
using internal::TraceScope;

namespace {

// "float32[1,3,224,224]" for error messages.
void DescribeTensor(ScalarType dtype, Span<const int32_t> sizes, char* buffer, size_t size) {
  int n = snprintf(buffer, size, "%s[", ScalarTypeName(dtype));
  for (size_t d = 0; d < sizes.size() && n > 0 && static_cast<size_t>(n) < size; ++d) {
    n += snprintf(buffer + n, size - n, d == 0 ? "%d" : ",%d", sizes[d]);
  }
  if (n > 0 && static_cast<size_t>(n) < size) snprintf(buffer + n, size - n, "]");
}

}  // namespace

Method::Method(const Program& program, MethodMeta meta, const MemoryManager& memory,
               const MethodOptions& options)
    : program_(&program),
      meta_(meta),
      memory_(memory),
      options_(options),
      tracer_(options.tracer) {}

Method::Method(Method&& other) noexcept
    : program_(other.program_),
      meta_(other.meta_),
      memory_(other.memory_),
      options_(other.options_),
      values_(other.values_),
      num_values_(other.num_values_),
      input_indices_(other.input_indices_),
      input_set_(other.input_set_),
      input_clobbered_(other.input_clobbered_),
      num_inputs_(other.num_inputs_),
      output_indices_(other.output_indices_),
      num_outputs_(other.num_outputs_),
      delegates_(other.delegates_),
      num_delegates_(other.num_delegates_),
      instructions_(other.instructions_),
      num_instructions_(other.num_instructions_),
      tracer_(other.tracer_),
      executed_(other.executed_) {
  other.delegates_ = nullptr;
  other.num_delegates_ = 0;
}

Method::~Method() {
  for (size_t i = 0; i < num_delegates_; ++i) {
    if (delegates_[i].handle != nullptr) delegates_[i].backend->Destroy(delegates_[i].handle);
  }
}

bool Method::delegate_description(size_t i, char* buffer, size_t size) const {
  return delegates_[i].backend->Describe(delegates_[i].handle, buffer, size);
}

size_t Method::delegate_memory_bytes() const {
  size_t bytes = 0;
  for (size_t i = 0; i < num_delegates_; ++i) {
    bytes += delegates_[i].backend->MemoryBytes(delegates_[i].handle);
  }
  return bytes;
}

Error Method::SetTensorInput(size_t i, Tensor& dst, const Tensor& src) {
  const TensorInfo info = *meta_.input_tensor_info(i);
  if (src.dtype() != dst.dtype() || src.dim() != dst.dim() ||
      dst.Resize(src.sizes()) != Error::kOk) {
    char expected[96], got[96];
    DescribeTensor(dst.dtype(), info.sizes, expected, sizeof(expected));
    DescribeTensor(src.dtype(), src.sizes(), got, sizeof(got));
    EF_FAIL(Error::kInvalidArgument, "input %zu: expected %s%s, got %s", i, expected,
            dst.dynamism() != ShapeDynamism::kStatic ? " (dynamic, bounded)" : "", got);
  }
  if (info.is_memory_planned) return CopyTensorData(src, dst);
  // Unplanned input: alias the caller's data, which must use our dim order.
  EF_CHECK_OR_RETURN(src.numel() == 0 || src.data() != nullptr, Error::kInvalidArgument,
                     "input %zu: no data", i);
  for (int d = 0; d < src.dim(); ++d) {
    EF_CHECK_OR_RETURN(src.size(d) <= 1 || src.stride(d) == dst.stride(d), Error::kInvalidArgument,
                       "input %zu: unplanned input must use the program's dim order", i);
  }
  dst.set_data(const_cast<void*>(src.data()));
  return Error::kOk;
}

Error Method::SetInput(size_t i, const EValue& value) {
  EF_CHECK_OR_RETURN(i < num_inputs_, Error::kInvalidArgument,
                     "input %zu out of range (method has %zu inputs)", i, num_inputs_);
  EValue& dst = values_[input_indices_[i]];
  EF_CHECK_OR_RETURN(dst.tag() == value.tag(), Error::kInvalidArgument,
                     "input %zu: expected %s, got %s", i, TagName(dst.tag()), TagName(value.tag()));
  switch (dst.tag()) {
    case Tag::kTensor:
      EF_RETURN_IF_ERROR(SetTensorInput(i, dst.to_tensor(), value.to_tensor()));
      break;
    case Tag::kInt:
      EF_CHECK_OR_RETURN(dst.to_int() == value.to_int(), Error::kInvalidArgument,
                         "input %zu: expected the traced value %lld", i,
                         static_cast<long long>(dst.to_int()));
      break;
    case Tag::kBool:
      EF_CHECK_OR_RETURN(dst.to_bool() == value.to_bool(), Error::kInvalidArgument,
                         "input %zu: expected the traced value", i);
      break;
    case Tag::kDouble: {
      const double a = dst.to_double(), b = value.to_double();
      const double diff = a > b ? a - b : b - a;
      EF_CHECK_OR_RETURN(diff <= 1e-4 + 1e-5 * (b < 0 ? -b : b), Error::kInvalidArgument,
                         "input %zu: expected the traced value %g", i, a);
      break;
    }
    default:
      EF_FAIL(Error::kNotSupported, "input %zu: %s inputs are not supported", i,
              TagName(dst.tag()));
  }
  input_set_[i] = true;
  return Error::kOk;
}

Error Method::ExecuteInstruction(const Instruction& instruction, size_t* next_pc) {
  switch (instruction.kind) {
    case Instruction::Kind::kKernel: {
      if (instruction.skip != Instruction::Skip::kNo) return Error::kOk;
      KernelContext context(memory_.temp_allocator, options_.num_threads);
      instruction.kernel->fn(context, instruction.args);
      if (context.failed()) {
        char name[128];
        meta_.operator_name(instruction.a, name, sizeof(name));
        char detail[kMaxErrorDetail];
        snprintf(detail, sizeof(detail), "%s", LastErrorDetail());
        EF_FAIL(context.failure(), "%s failed at instruction %zu: %s", name, *next_pc - 1, detail);
      }
      return Error::kOk;
    }
    case Instruction::Kind::kDelegate: {
      const Delegate& d = delegates_[instruction.a];
      const BackendExecutionContext context{memory_.temp_allocator, meta_.name(), tracer_};
      return d.backend->Execute(context, d.handle, instruction.args);
    }
    case Instruction::Kind::kMove:
      values_[instruction.b] = values_[instruction.a];
      return Error::kOk;
    case Instruction::Kind::kJumpFalse: {
      const EValue& cond = values_[instruction.a];
      bool value;
      if (cond.is_bool()) {
        value = cond.to_bool();
      } else if (cond.is_tensor() && cond.to_tensor().dtype() == ScalarType::kBool &&
                 (cond.to_tensor().numel() == 0 || cond.to_tensor().data() != nullptr)) {
        const Tensor& t = cond.to_tensor();
        value = true;
        for (int64_t k = 0; k < t.numel(); ++k) value = value && t.data_as<uint8_t>()[k] != 0;
      } else {
        EF_FAIL(Error::kInvalidProgram, "invalid program: jump condition is not a bool");
      }
      if (!value) *next_pc = static_cast<size_t>(instruction.b);
      return Error::kOk;
    }
    case Instruction::Kind::kFree:
      if (values_[instruction.a].is_tensor()) values_[instruction.a].to_tensor().set_data(nullptr);
      return Error::kOk;
  }
  return Error::kInternal;
}

Error Method::Execute() {
  for (size_t i = 0; i < num_inputs_; ++i) {
    EF_CHECK_OR_RETURN(input_set_[i], Error::kInvalidState, "input %zu has not been set%s", i,
                       input_clobbered_[i] && executed_
                           ? " since the last execute (the method reuses its memory)"
                           : "");
  }
  for (size_t i = 0; i < num_inputs_; ++i) {
    if (input_clobbered_[i]) input_set_[i] = false;
  }
  executed_ = true;
  EventTracer* const tracer = tracer_;
  const TraceScope trace(tracer, TraceEvent{TraceEventKind::kExecute, "Method::execute"});
  // With delegates, the instructions run inside the first one's
  // RunWithThreads: kernels and delegates share its threads.
  const auto run = [](void* method) { return static_cast<Method*>(method)->RunInstructions(); };
  if (num_delegates_ > 0) {
    return delegates_[0].backend->RunWithThreads(delegates_[0].handle, run, this);
  }
  return RunInstructions();
}

Error Method::RunInstructions() {
  EventTracer* const tracer = tracer_;
  uint64_t steps = 0;
  size_t pc = 0;
  while (pc < num_instructions_) {
    EF_CHECK_OR_RETURN(++steps <= options_.max_instructions, Error::kInvalidProgram,
                       "invalid program: more than %llu instructions executed (endless loop?)",
                       static_cast<unsigned long long>(options_.max_instructions));
    const size_t current = pc++;
    Error error;
    if (tracer == nullptr) {
      error = ExecuteInstruction(instructions_[current], &pc);
    } else {
      const TraceToken token = tracer->Begin(InstructionEvent(current));
      error = ExecuteInstruction(instructions_[current], &pc);
      tracer->End(token);
      TraceAllocation(tracer, "temp", memory_.temp_allocator, 0);
    }
    if (memory_.temp_allocator != nullptr) memory_.temp_allocator->Reset();
    if (error != Error::kOk) return error;
  }
  return Error::kOk;
}

TraceEvent Method::InstructionEvent(size_t pc) const {
  const Instruction& instruction = instructions_[pc];
  TraceEvent event{TraceEventKind::kInstruction, nullptr, instruction_kind(pc)};
  event.instruction = static_cast<int32_t>(pc);
  switch (instruction.kind) {
    case Instruction::Kind::kKernel:
      event.name = instruction.kernel->name;
      break;
    case Instruction::Kind::kDelegate:
      event.name = meta_.backend_name(static_cast<size_t>(instruction.a));
      event.delegate_id = instruction.a;
      break;
    case Instruction::Kind::kMove:
      event.name = "move";
      break;
    case Instruction::Kind::kJumpFalse:
      event.name = "jump_false";
      break;
    case Instruction::Kind::kFree:
      event.name = "free";
      break;
  }
  return event;
}

const EValue& Method::output(size_t i) const { return values_[output_indices_[i]]; }

const char* Method::instruction_kind(size_t pc) const {
  const Instruction& instruction = instructions_[pc];
  switch (instruction.kind) {
    case Instruction::Kind::kKernel:
      if (instruction.skip == Instruction::Skip::kFolded) return "folded";
      if (instruction.skip == Instruction::Skip::kFused) return "fused";
      return KernelVariantName(instruction.kernel->variant);
    case Instruction::Kind::kDelegate:
      return "delegate";
    default:
      return "control";
  }
}

Span<EValue* const> Method::instruction_args(size_t pc) const {
  const Instruction& instruction = instructions_[pc];
  if (instruction.kind != Instruction::Kind::kKernel &&
      instruction.kind != Instruction::Kind::kDelegate) {
    return {};
  }
  return {instruction.args.data(), instruction.args.size()};
}

bool Method::instruction_name(size_t pc, char* buffer, size_t size) const {
  const Instruction& instruction = instructions_[pc];
  const char* kind = "free";
  switch (instruction.kind) {
    case Instruction::Kind::kKernel:
      return snprintf(buffer, size, "%s", instruction.kernel->name) < static_cast<int>(size);
    case Instruction::Kind::kDelegate:  // "delegate XnnpackBackend#0": timed per delegate
      return snprintf(buffer, size, "delegate %s#%d",
                      meta_.backend_name(static_cast<size_t>(instruction.a)),
                      instruction.a) < static_cast<int>(size);
    case Instruction::Kind::kMove:
      kind = "move";
      break;
    case Instruction::Kind::kJumpFalse:
      kind = "jump_false";
      break;
    case Instruction::Kind::kFree:
      break;
  }
  return snprintf(buffer, size, "%s", kind) < static_cast<int>(size);
}

}  // namespace edgefleet
