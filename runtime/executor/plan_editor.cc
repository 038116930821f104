#include "runtime/executor/plan_editor.h"

#include <algorithm>
#include <cstring>

namespace edgefleet {
namespace internal {

MethodPlanEditor::MethodPlanEditor(const MethodState& method, MemoryAllocator* constants,
                                   MemoryAllocator* scratch)
    : method_(method), constants_(constants), scratch_(scratch), scratch_mark_(scratch->used()) {
  facts_ = scratch_->AllocateArray<Facts>(method_.num_values);
  aliases_ = scratch_->AllocateArray<size_t>(method_.num_values);
  alias_sources_ = scratch_->AllocateArray<int64_t>(method_.num_values);
  written_ = scratch_->AllocateArray<size_t>(method_.num_values);
  key_start_ = scratch_->AllocateArray<size_t>(method_.num_instructions + 2);
  if (facts_ == nullptr || aliases_ == nullptr || alias_sources_ == nullptr ||
      written_ == nullptr || key_start_ == nullptr) {
    facts_ = nullptr;
    return;
  }
  for (size_t v = 0; v < method_.num_values; ++v) {
    Facts& f = facts_[v];
    f = Facts{0, 0, -1, -1, 0, 0, 0, 0, 0, 0};
    const EValue& value = method_.values[v];
    if (!value.is_tensor()) continue;
    const Tensor& t = value.to_tensor();
    const auto* fb = method_.plan->values()->Get(static_cast<uint32_t>(v))->val_as_Tensor();
    const auto* alloc = fb != nullptr ? fb->allocation_info() : nullptr;
    if (alloc != nullptr) {
      f.flags |= kPlanned;
      f.arena = static_cast<int32_t>(alloc->memory_id());
      f.begin = static_cast<uint64_t>(alloc->memory_offset_low()) |
                (static_cast<uint64_t>(alloc->memory_offset_high()) << 32);
      f.end = f.begin + static_cast<uint64_t>(t.numel_bound()) * ElementSize(t.dtype());
    } else if (t.data() != nullptr) {
      f.flags |= kProgramConstant;
    }
  }
  for (size_t i : method_.inputs) facts_[i].flags |= kInput;
  for (size_t i : method_.outputs) facts_[i].flags |= kOutput;
}

MethodPlanEditor::~MethodPlanEditor() { scratch_->ResetTo(scratch_mark_); }

int64_t MethodPlanEditor::IndexOf(const EValue* value) const {
  if (value < method_.values || value >= method_.values + method_.num_values) return -1;
  return value - method_.values;
}

void MethodPlanEditor::Note(size_t pc, const EValue* value, bool write) const {
  const int64_t v = IndexOf(value);
  if (v < 0) return;
  Facts& f = facts_[v];
  const uint32_t at = static_cast<uint32_t>(pc + 1);
  if (write && f.write_at != at) {
    f.write_at = at;
    f.writers++;
    f.writer_pc = static_cast<int32_t>(pc);
  } else if (!write && f.read_at != at) {
    f.read_at = at;
    if (f.readers++ == 0) f.first_read = at;
  }
}

void MethodPlanEditor::NoteKernelCall(size_t pc) const {
  const Span<EValue*> args = method_.instructions[pc].args;
  const size_t n = args.size();
  if (n == 0) return;
  // Same value, or tensor lists of the same items.
  auto same = [](const EValue* a, const EValue* b) {
    if (a == b) return true;
    if (a->tag() != Tag::kListTensor || b->tag() != Tag::kListTensor) return false;
    const BoxedTensorList& x = a->to_tensor_list();
    const BoxedTensorList& y = b->to_tensor_list();
    if (x.size != y.size) return false;
    for (size_t i = 0; i < x.size; ++i) {
      if (x.items[i] != y.items[i]) return false;
    }
    return true;
  };
  size_t first_written = n - 1;
  // A returned tensor list whose items are the out arguments just before it
  // (batch norm: out0, out1, out2, [out0, out1, out2]).
  const EValue* last = args[n - 1];
  if (last->tag() == Tag::kListTensor) {
    const BoxedTensorList& items = last->to_tensor_list();
    bool repeated = items.size > 0 && items.size < n;
    for (size_t i = 0; i < items.size && repeated; ++i) {
      repeated = items.items[i] == args[n - 1 - items.size + i];
    }
    if (repeated) first_written = n - 1 - items.size;
  }
  for (size_t k = n / 2; k >= 1 && first_written == n - 1; --k) {
    bool repeated = true;
    for (size_t i = 0; i < k && repeated; ++i)
      repeated = same(args[n - k + i], args[n - 2 * k + i]);
    if (repeated) {
      first_written = n - 2 * k;
      break;
    }
  }
  for (size_t a = 0; a < n; ++a) {
    const bool write = a >= first_written;
    const EValue* arg = args[a];
    if (arg->tag() == Tag::kListTensor || arg->tag() == Tag::kListOptionalTensor) {
      const BoxedTensorList& items = arg->to_tensor_list();
      for (size_t k = 0; k < items.size; ++k) {
        if (items.items[k] != nullptr) Note(pc, items.items[k], write);
      }
    } else if (arg->tag() == Tag::kListInt) {
      const BoxedIntList& items = arg->to_int_list();
      for (size_t k = 0; k < items.size; ++k) Note(pc, items.items[k], false);
    } else {
      Note(pc, arg, write);
    }
  }
}

void MethodPlanEditor::Analyze() const {
  if (!dirty_) return;
  dirty_ = false;
  for (size_t v = 0; v < method_.num_values; ++v) {
    Facts& f = facts_[v];
    f.writer_pc = -1;
    f.writers = f.readers = f.first_read = f.read_at = f.write_at = 0;
  }
  for (size_t pc = 0; pc < method_.num_instructions; ++pc) {
    const Instruction& in = method_.instructions[pc];
    if (in.skip != Instruction::Skip::kNo) continue;
    switch (in.kind) {
      case Instruction::Kind::kKernel:
        NoteKernelCall(pc);
        break;
      case Instruction::Kind::kDelegate:
        ForEachArgValue(pc, [&](const EValue* value) {
          Note(pc, value, false);
          if (is_planned(value)) Note(pc, value, true);
        });
        break;
      case Instruction::Kind::kMove:
        Note(pc, &method_.values[in.a], false);
        Note(pc, &method_.values[in.b], true);
        break;
      case Instruction::Kind::kJumpFalse:
        Note(pc, &method_.values[in.a], false);
        break;
      case Instruction::Kind::kFree:
        break;
    }
  }
  num_aliases_ = 0;
  for (size_t v = 0; v < method_.num_values; ++v) {
    const Facts& f = facts_[v];
    if ((f.flags & (kPlanned | kIo | kFolded)) == kPlanned && f.writers == 0 && f.readers > 0) {
      aliases_[num_aliases_++] = v;
    }
  }
  if (num_aliases_ == 0) return;
  IndexWrittenValues();
  for (size_t i = 0; i < num_aliases_; ++i) alias_sources_[i] = AliasSource(aliases_[i]);
}

void MethodPlanEditor::IndexWrittenValues() const {
  // Counting sort by key: writer pc + 1, an input never written at 0 (as if
  // written before pc 0); -1 for values no alias can view.
  const size_t num_keys = method_.num_instructions + 1;
  auto key = [&](size_t v) -> int64_t {
    const Facts& f = facts_[v];
    if ((f.flags & kPlanned) == 0) return -1;
    if (f.writers == 1) return static_cast<int64_t>(f.writer_pc) + 1;
    if (f.writers == 0 && (f.flags & kInput) != 0) return 0;
    return -1;
  };
  std::memset(key_start_, 0, (num_keys + 1) * sizeof(size_t));
  for (size_t v = 0; v < method_.num_values; ++v) {
    const int64_t k = key(v);
    if (k >= 0) ++key_start_[k + 1];
  }
  for (size_t k = 0; k < num_keys; ++k) key_start_[k + 1] += key_start_[k];
  // Place in ascending v, using key_start_[k] as key k's cursor, then shift
  // the cursors (now each key's end) back to the starts.
  for (size_t v = 0; v < method_.num_values; ++v) {
    const int64_t k = key(v);
    if (k >= 0) written_[key_start_[k]++] = v;
  }
  for (size_t k = num_keys; k > 0; --k) key_start_[k] = key_start_[k - 1];
  key_start_[0] = 0;
}

int64_t MethodPlanEditor::AliasSource(size_t a) const {
  const Facts& alias = facts_[a];
  // Written strictly before the first reading pc (first_read - 1): keys up
  // to first_read - 1, the latest first.
  const size_t last_key = std::min<size_t>(alias.first_read, method_.num_instructions + 1);
  for (size_t k = last_key; k-- > 0;) {
    for (size_t i = key_start_[k]; i < key_start_[k + 1]; ++i) {
      const size_t v = written_[i];
      const Facts& f = facts_[v];
      if (v != a && f.arena == alias.arena && f.begin < alias.end && alias.begin < f.end) {
        return static_cast<int64_t>(v);
      }
    }
  }
  return -1;
}

size_t MethodPlanEditor::AliasReaders(size_t v) const {
  size_t readers = 0;
  for (size_t i = 0; i < num_aliases_; ++i) {
    if (alias_sources_[i] == static_cast<int64_t>(v)) readers += facts_[aliases_[i]].readers;
  }
  return readers;
}

bool MethodPlanEditor::has_alias(const EValue* value) const {
  const int64_t v = IndexOf(value);
  if (v < 0) return false;
  Analyze();
  for (size_t i = 0; i < num_aliases_; ++i) {
    if (alias_sources_[i] == v) return true;
  }
  return false;
}

const char* MethodPlanEditor::op(size_t pc) const {
  const Instruction& in = method_.instructions[pc];
  if (in.kind != Instruction::Kind::kKernel || in.skip != Instruction::Skip::kNo) return nullptr;
  return in.kernel->name;
}

Span<EValue*> MethodPlanEditor::args(size_t pc) const { return method_.instructions[pc].args; }

int64_t MethodPlanEditor::writer(const EValue* value) const {
  const int64_t v = IndexOf(value);
  if (v < 0) return -1;
  Analyze();
  const Facts& f = facts_[v];
  if (f.writers != 1 || (f.flags & (kInput | kFolded)) != 0) return -1;
  return f.writer_pc;
}

size_t MethodPlanEditor::num_readers(const EValue* value) const {
  const int64_t v = IndexOf(value);
  if (v < 0) return 0;
  Analyze();
  return facts_[v].readers + AliasReaders(static_cast<size_t>(v));
}

bool MethodPlanEditor::is_constant(const EValue* value) const {
  const int64_t v = IndexOf(value);
  if (v < 0) return true;
  Analyze();
  const Facts& f = facts_[v];
  if ((f.flags & kFolded) != 0) return true;
  if ((f.flags & kIo) != 0 || f.writers != 0) return false;
  return (f.flags & kProgramConstant) != 0 || !method_.values[v].is_tensor();
}

bool MethodPlanEditor::is_method_io(const EValue* value) const {
  const int64_t v = IndexOf(value);
  return v >= 0 && (facts_[v].flags & kIo) != 0;
}

bool MethodPlanEditor::is_planned(const EValue* value) const {
  const int64_t v = IndexOf(value);
  return v >= 0 && (facts_[v].flags & kPlanned) != 0;
}

void MethodPlanEditor::MarkFolded(const EValue* value) {
  const int64_t v = IndexOf(value);
  if (v >= 0) facts_[v].flags |= kFolded;
  dirty_ = true;
}

void* MethodPlanEditor::Allocate(size_t bytes, size_t alignment) {
  return constants_->Allocate(bytes, alignment);
}

EValue* MethodPlanEditor::NewValue(const EValue& value) { return constants_->New<EValue>(value); }

Error MethodPlanEditor::Replace(size_t pc, const Kernel& kernel, Span<EValue* const> args) {
  if (op(pc) == nullptr) return Error::kInvalidArgument;
  EValue** copy = constants_->AllocateArray<EValue*>(args.size());
  if (copy == nullptr && !args.empty()) return Error::kMemoryAllocationFailed;
  for (size_t i = 0; i < args.size(); ++i) copy[i] = args[i];
  Instruction& in = method_.instructions[pc];
  in.kernel = &kernel;
  in.args = {copy, args.size()};
  dirty_ = true;
  return Error::kOk;
}

void MethodPlanEditor::Remove(size_t pc) {
  if (op(pc) == nullptr) return;
  method_.instructions[pc].skip = Instruction::Skip::kFused;
  dirty_ = true;
}

}  // namespace internal
}  // namespace edgefleet
