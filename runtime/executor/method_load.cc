// Method::Load and its phases: checking the planned arenas, parsing the
// values, initializing the delegates, decoding the instructions (resolving
// a kernel for each), finding the inputs that Execute overwrites, and the
// load-time plan optimization. The rest of Method is in method.cc.

#include <cstdio>
#include <cstring>

#include "runtime/backends/backend_registry.h"
#include "runtime/core/error_detail.h"
#include "runtime/executor/constant_folding.h"
#include "runtime/executor/method.h"
#include "runtime/executor/method_delegate.h"
#include "runtime/executor/method_trace.h"
#include "runtime/executor/plan_editor.h"
#include "runtime/executor/value_parser.h"
#include "runtime/format/program_generated.h"
#include "runtime/platform/log.h"

namespace edgefleet {

using edgefleet_fb::InstructionArguments;
using internal::LoadPhase;
using internal::TraceAllocation;
using internal::TraceScope;

namespace {

// Inserts `name` into `list`, a sorted ", "-separated list of distinct names
// held in `size` bytes. Returns false if `name` is already there. A name
// that does not fit is left out (and counts as new).
bool AddDistinctName(const char* name, char* list, size_t size) {
  const size_t len = strlen(name);
  const size_t used = strlen(list);
  char* pos = list;  // insertion point: the first entry greater than name
  while (*pos != '\0') {
    const char* end = strstr(pos, ", ");
    const size_t entry = end != nullptr ? static_cast<size_t>(end - pos) : strlen(pos);
    const int cmp = strncmp(pos, name, entry < len ? entry : len);
    if (cmp == 0 && entry == len) return false;
    if (cmp > 0 || (cmp == 0 && entry > len)) break;
    pos += entry;
    if (*pos != '\0') pos += 2;
  }
  const size_t insert = used == 0 ? len : len + 2;
  if (used + insert + 1 > size) return true;
  const size_t at = static_cast<size_t>(pos - list);
  if (*pos == '\0' && used > 0) {  // append at the end
    memcpy(list + used, ", ", 2);
    memcpy(list + used + 2, name, len + 1);
    return true;
  }
  memmove(list + at + insert, list + at, used - at + 1);
  memcpy(list + at, name, len);
  if (used > 0) memcpy(list + at + len, ", ", 2);
  return true;
}

}  // namespace

Result<Method> Method::Load(const Program& program, const char* name, const MemoryManager& memory,
                            const MethodOptions& options) {
  EF_CHECK_OR_RETURN(memory.method_allocator != nullptr, Error::kInvalidArgument,
                     "no method allocator");
  EF_CHECK_OR_RETURN(options.num_threads >= 1, Error::kInvalidArgument,
                     "num_threads must be at least 1");
  EF_CHECK_OR_RETURN(options.max_instructions >= 1, Error::kInvalidArgument,
                     "max_instructions must be at least 1");
  const TraceScope trace(options.tracer, LoadPhase("Program::load_method"));
  EF_ASSIGN_OR_RETURN(const edgefleet_fb::ExecutionPlan* plan, program.plan(name));
  Method method(program, MethodMeta(plan), memory, options);
  {
    const TraceScope init_trace(options.tracer, LoadPhase("Method::init"));
    EF_RETURN_IF_ERROR(method.Init(*plan));
  }
  return method;
}

Error Method::Init(const edgefleet_fb::ExecutionPlan& plan) {
  MemoryAllocator& allocator = *memory_.method_allocator;
  for (size_t i = 0; i < meta_.num_planned_buffers(); ++i) {
    const int64_t needed = *meta_.planned_buffer_size(i);
    EF_CHECK_OR_RETURN(
        memory_.planned_memory != nullptr && i < memory_.planned_memory->num_buffers() &&
            memory_.planned_memory->buffer(i).size() >= static_cast<uint64_t>(needed),
        Error::kInvalidArgument, "planned arena %zu: method needs %lld bytes", i,
        static_cast<long long>(needed));
  }
  num_values_ = plan.values()->size();
  size_t mark = allocator.used();
  {
    const TraceScope trace(tracer_, LoadPhase("parse_values"));
    EF_ASSIGN_OR_RETURN(values_, internal::ParseValues(*program_, plan, memory_));
  }

  num_inputs_ = plan.inputs()->size();
  num_outputs_ = plan.outputs()->size();
  input_indices_ = allocator.AllocateArray<size_t>(num_inputs_);
  input_set_ = allocator.AllocateArray<bool>(num_inputs_);
  input_clobbered_ = allocator.AllocateArray<bool>(num_inputs_);
  output_indices_ = allocator.AllocateArray<size_t>(num_outputs_);
  EF_CHECK_OR_RETURN((input_indices_ && input_set_ && input_clobbered_ && output_indices_) ||
                         (num_inputs_ == 0 && num_outputs_ == 0),
                     Error::kMemoryAllocationFailed, "method allocator exhausted (inputs)");
  for (size_t i = 0; i < num_inputs_; ++i) {
    input_indices_[i] = plan.inputs()->Get(static_cast<uint32_t>(i));
    // Non-tensor inputs are fixed at their traced value and count as set.
    input_set_[i] = !values_[input_indices_[i]].is_tensor();
  }
  for (size_t i = 0; i < num_outputs_; ++i) {
    output_indices_[i] = plan.outputs()->Get(static_cast<uint32_t>(i));
  }
  TraceAllocation(tracer_, "method", &allocator, mark);
  mark = allocator.used();
  {
    const TraceScope trace(tracer_, LoadPhase("init_delegates"));
    EF_RETURN_IF_ERROR(InitDelegates(plan));
  }
  TraceAllocation(tracer_, "method", &allocator, mark);
  mark = allocator.used();
  {
    const TraceScope trace(tracer_, LoadPhase("init_instructions"));
    EF_RETURN_IF_ERROR(InitInstructions(plan));
    FindClobberedInputs(plan);
  }
  TraceAllocation(tracer_, "method", &allocator, mark);
  mark = allocator.used();
  const size_t constant_mark =
      memory_.constant_allocator != nullptr ? memory_.constant_allocator->used() : 0;
  {
    const TraceScope trace(tracer_, LoadPhase("optimize_plan"));
    OptimizePlan(plan);
  }
  TraceAllocation(tracer_, "method", &allocator, mark);
  TraceAllocation(tracer_, "constant", memory_.constant_allocator, constant_mark);
  return Error::kOk;
}

void Method::OptimizePlan(const edgefleet_fb::ExecutionPlan& plan) {
  if (!options_.optimize_plan || memory_.constant_allocator == nullptr ||
      memory_.temp_allocator == nullptr || num_instructions_ == 0) {
    return;
  }
  const internal::MethodPlanEditor::MethodState state{&plan,
                                                      values_,
                                                      num_values_,
                                                      instructions_,
                                                      num_instructions_,
                                                      {input_indices_, num_inputs_},
                                                      {output_indices_, num_outputs_},
                                                      options_.num_threads};
  internal::MethodPlanEditor editor(state, memory_.constant_allocator, memory_.temp_allocator);
  if (!editor.ok()) return;
  if (options_.kernels == KernelPreference::kOptimizedFirst) {
    for (int i = 0; i < NumRegisteredPlanPasses(); ++i) RegisteredPlanPass(i).run(editor);
  }
  internal::FoldConstants(editor);
  // Passes and folding may have recorded details of rewrites they skipped.
  ClearErrorDetail();
}

void Method::FindClobberedInputs(const edgefleet_fb::ExecutionPlan& plan) {
  // Planned byte range of tensor value `v`, or false if it is not planned.
  struct Range {
    uint32_t arena;
    uint64_t begin, end;
  };
  auto range_of = [&](size_t v, Range* r) {
    if (!values_[v].is_tensor()) return false;
    const auto* alloc =
        plan.values()->Get(static_cast<uint32_t>(v))->val_as_Tensor()->allocation_info();
    if (alloc == nullptr) return false;
    r->arena = alloc->memory_id();
    r->begin = static_cast<uint64_t>(alloc->memory_offset_low()) |
               (static_cast<uint64_t>(alloc->memory_offset_high()) << 32);
    r->end = r->begin + values_[v].to_tensor().nbytes();
    return true;
  };
  for (size_t i = 0; i < num_inputs_; ++i) {
    input_clobbered_[i] = false;
    Range in;
    if (!range_of(input_indices_[i], &in)) continue;
    // Values written by instructions: kernel return slots (a tensor or a
    // list of output tensors) and delegate arguments.
    for (size_t pc = 0; pc < num_instructions_ && !input_clobbered_[i]; ++pc) {
      const Instruction& instruction = instructions_[pc];
      if (instruction.args.empty()) continue;
      const bool delegate = instruction.kind == Instruction::Kind::kDelegate;
      const size_t first = delegate ? 0 : instruction.args.size() - 1;
      for (size_t a = first; a < instruction.args.size(); ++a) {
        const EValue& arg = *instruction.args[a];
        const size_t v = static_cast<size_t>(&arg - values_);
        if (v == input_indices_[i]) continue;
        Range out;
        if (range_of(v, &out) && out.arena == in.arena && out.begin < in.end &&
            in.begin < out.end) {
          input_clobbered_[i] = true;
        }
        if (arg.tag() == Tag::kListTensor) {
          const BoxedTensorList& list = arg.to_tensor_list();
          for (size_t k = 0; k < list.size; ++k) {
            const size_t item = static_cast<size_t>(list.items[k] - values_);
            if (item != input_indices_[i] && range_of(item, &out) && out.arena == in.arena &&
                out.begin < in.end && in.begin < out.end) {
              input_clobbered_[i] = true;
            }
          }
        }
      }
    }
  }
}

Error Method::InitDelegates(const edgefleet_fb::ExecutionPlan& plan) {
  const size_t n = meta_.num_backends();
  if (n == 0) return Error::kOk;
  MemoryAllocator& allocator = *memory_.method_allocator;
  delegates_ = allocator.AllocateArray<Delegate>(n);
  EF_CHECK_OR_RETURN(delegates_ != nullptr, Error::kMemoryAllocationFailed,
                     "method allocator exhausted (delegates)");
  const auto* fb = program_->flatbuffer();
  for (size_t i = 0; i < n; ++i) {
    const auto* delegate = plan.delegates()->Get(static_cast<uint32_t>(i));
    const char* id = delegate->id()->c_str();
    const BackendInterface* backend = FindBackend(id);
    EF_CHECK_OR_RETURN(backend != nullptr, Error::kNotFound, "backend %s is not registered", id);
    EF_CHECK_OR_RETURN(backend->IsAvailable(), Error::kNotSupported,
                       "backend %s is not available in this build", id);
    FreeableBuffer processed;
    const auto* ref = delegate->processed();
    if (ref->location() == edgefleet_fb::DataLocation::INLINE) {
      const auto* data = fb->backend_delegate_data()->Get(ref->index())->data();
      processed = FreeableBuffer(data->data(), data->size(), nullptr);
    } else {
      EF_ASSIGN_OR_RETURN(
          processed,
          program_->LoadSegment(ref->index(), SegmentInfo{SegmentInfo::Type::kBackend, 0, id}));
    }
    const size_t num_specs = delegate->compile_specs() ? delegate->compile_specs()->size() : 0;
    CompileSpec* specs = allocator.AllocateArray<CompileSpec>(num_specs);
    EF_CHECK_OR_RETURN(specs != nullptr || num_specs == 0, Error::kMemoryAllocationFailed,
                       "method allocator exhausted (compile specs)");
    for (size_t s = 0; s < num_specs; ++s) {
      const auto* spec = delegate->compile_specs()->Get(static_cast<uint32_t>(s));
      specs[s] = {spec->key()->c_str(), spec->value() ? spec->value()->data() : nullptr,
                  spec->value() ? spec->value()->size() : 0};
    }
    const BackendInitContext context{
        &allocator,
        program_,
        meta_.name(),
        options_.num_threads,
        options_.kernels == KernelPreference::kOptimizedFirst,
        memory_.temp_allocator != nullptr ? memory_.temp_allocator->size() : 0};
    const TraceScope trace(tracer_, LoadPhase(id, static_cast<int32_t>(i)));
    Result<DelegateHandle*> handle = backend->Init(context, &processed, {specs, num_specs});
    if (!handle.ok()) return handle.error();
    delegates_[i] = {backend, *handle};
    num_delegates_ = i + 1;
  }
  return Error::kOk;
}

Error Method::InitInstructions(const edgefleet_fb::ExecutionPlan& plan) {
  const size_t num_chains = plan.chains() ? plan.chains()->size() : 0;
  if (num_chains == 0) return Error::kOk;
  EF_CHECK_OR_RETURN(num_chains == 1, Error::kNotSupported,
                     "programs with %zu chains are not supported", num_chains);
  if (plan.chains()->Get(0)->instructions() == nullptr) return Error::kOk;
  const auto& instructions = *plan.chains()->Get(0)->instructions();
  MemoryAllocator& allocator = *memory_.method_allocator;
  num_instructions_ = instructions.size();
  instructions_ = allocator.AllocateArray<Instruction>(num_instructions_);
  EF_CHECK_OR_RETURN(instructions_ != nullptr || num_instructions_ == 0,
                     Error::kMemoryAllocationFailed, "method allocator exhausted (instructions)");
  // Instructions without a kernel; the distinct unregistered operator names
  // (as ", "-separated text, cut to fit); the first registered operator that
  // has no kernel for its argument types.
  size_t missing = 0;
  size_t num_unregistered = 0;
  char unregistered[kMaxErrorDetail] = {};
  char first_mismatch[192] = {};
  for (size_t pc = 0; pc < num_instructions_; ++pc) {
    const auto* fb = instructions.Get(static_cast<uint32_t>(pc));
    Instruction& out = instructions_[pc];
    out = Instruction{Instruction::Kind::kFree, Instruction::Skip::kNo, nullptr, {}, 0, 0};
    const flatbuffers::Vector<int32_t>* args = nullptr;
    switch (fb->instr_args_type()) {
      case InstructionArguments::KernelCall:
        out.kind = Instruction::Kind::kKernel;
        out.a = fb->instr_args_as_KernelCall()->op_index();
        args = fb->instr_args_as_KernelCall()->args();
        break;
      case InstructionArguments::DelegateCall:
        out.kind = Instruction::Kind::kDelegate;
        out.a = fb->instr_args_as_DelegateCall()->delegate_index();
        args = fb->instr_args_as_DelegateCall()->args();
        break;
      case InstructionArguments::MoveCall: {
        out.kind = Instruction::Kind::kMove;
        out.a = fb->instr_args_as_MoveCall()->move_from();
        out.b = fb->instr_args_as_MoveCall()->move_to();
        // Moves keep every value's kind, so boxed lists stay well-typed.
        EF_CHECK_OR_RETURN(values_[out.a].tag() == values_[out.b].tag(), Error::kInvalidProgram,
                           "invalid program: move between values of different kinds");
        break;
      }
      case InstructionArguments::JumpFalseCall:
        out.kind = Instruction::Kind::kJumpFalse;
        out.a = fb->instr_args_as_JumpFalseCall()->cond_value_index();
        out.b = fb->instr_args_as_JumpFalseCall()->destination_instruction();
        break;
      default:
        out.kind = Instruction::Kind::kFree;
        out.a = fb->instr_args_as_FreeCall()->value_index();
        break;
    }
    if (args != nullptr) {
      EValue** arg_values = allocator.AllocateArray<EValue*>(args->size());
      EF_CHECK_OR_RETURN(arg_values != nullptr || args->size() == 0, Error::kMemoryAllocationFailed,
                         "method allocator exhausted (args)");
      for (uint32_t j = 0; j < args->size(); ++j) arg_values[j] = &values_[args->Get(j)];
      out.args = {arg_values, args->size()};
    }
    if (out.kind != Instruction::Kind::kKernel) continue;
    char name[128];
    EF_CHECK_OR_RETURN(meta_.operator_name(out.a, name, sizeof(name)), Error::kInvalidProgram,
                       "invalid program: operator name too long");
    out.kernel = ResolveKernel(name, out.args, options_.kernels);
    if (out.kernel == nullptr) {
      Log(LogLevel::kInfo, "missing operator: [%zu] %s", pc, name);
      ++missing;
      if (HasKernel(name)) {
        if (first_mismatch[0] == '\0') {
          // Usually the dtype is not among the kernels' declared ones (dtype_set.h).
          ScalarType dtype = ScalarType::kFloat;
          if (FirstTensorDtype(out.args, &dtype)) {
            snprintf(first_mismatch, sizeof(first_mismatch), "%s (first tensor %s)", name,
                     ScalarTypeName(dtype));
          } else {
            snprintf(first_mismatch, sizeof(first_mismatch), "%s", name);
          }
        }
      } else if (AddDistinctName(name, unregistered, sizeof(unregistered))) {
        ++num_unregistered;
      }
    }
  }
  if (missing > 0) {
    char more[64] = "";
    if (missing > 1) snprintf(more, sizeof(more), " (%zu instructions lack kernels)", missing);
    if (num_unregistered == 0) {
      EF_FAIL(Error::kOperatorMissing, "operator %s has no kernel for these argument types%s",
              first_mismatch, more);
    }
    char mismatch[256] = "";
    if (first_mismatch[0] != '\0') {
      snprintf(mismatch, sizeof(mismatch), "; operator %s has no kernel for these argument types",
               first_mismatch);
    }
    if (num_unregistered == 1) {
      EF_FAIL(Error::kOperatorMissing, "operator %s is not registered%s%s", unregistered, more,
              mismatch);
    }
    EF_FAIL(Error::kOperatorMissing, "%zu operators are not registered: %s%s", num_unregistered,
            unregistered, mismatch);
  }
  return Error::kOk;
}

}  // namespace edgefleet
