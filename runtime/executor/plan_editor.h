// MethodPlanEditor: the executor's PlanEditor (kernels/plan_pass.h) over a
// method being loaded (internal to the executor).
//
// It derives, from the instruction list, which instruction writes each
// value and how many read it. A kernel call writes its out arguments and
// return slots: the trailing 2k arguments when the last k repeat the k
// before them (ExecuTorch lists `out` arguments, then the same values as
// returns), else the last argument. Moves write their target; delegate
// calls read and write every planned tensor they name. Everything else an
// instruction names is read.
//
// The exporter also makes static views without instructions: a planned
// tensor that no instruction writes reads whatever memory it shares with
// others ("pure alias"). Its source is the overlapping value written last
// before the alias is first read (or an overlapping method input); readers
// of an alias count as readers of its source, so "one reader" stays true.
// The facts are recomputed lazily after Replace/Remove.
//
// Besides the PlanEditor interface it marks values folded (constant_folding.h)
// so later instructions see them as constants.
//
// Memory: analysis arrays come from `scratch` (released by the destructor
// back to where it found it); everything that must outlive loading (new
// values, replaced argument lists, packed or folded data) comes from
// `constants`. Not thread-safe; lives only during Method::Load.

#ifndef EDGEFLEET_RUNTIME_EXECUTOR_PLAN_EDITOR_H_
#define EDGEFLEET_RUNTIME_EXECUTOR_PLAN_EDITOR_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/memory_allocator.h"
#include "runtime/executor/instruction.h"
#include "runtime/format/program_generated.h"
#include "runtime/kernels/plan_pass.h"
#include "runtime/kernels/plan_pass_util.h"

namespace edgefleet {
namespace internal {

class MethodPlanEditor final : public PlanEditor {
 public:
  struct MethodState {
    const edgefleet_fb::ExecutionPlan* plan;
    EValue* values;
    size_t num_values;
    Instruction* instructions;
    size_t num_instructions;
    Span<const size_t> inputs;   // value indices
    Span<const size_t> outputs;  // value indices
    int num_threads;
  };

  // Use only if ok(): false when `scratch` could not hold the analysis.
  MethodPlanEditor(const MethodState& method, MemoryAllocator* constants, MemoryAllocator* scratch);
  ~MethodPlanEditor() override;
  MethodPlanEditor(const MethodPlanEditor&) = delete;
  MethodPlanEditor& operator=(const MethodPlanEditor&) = delete;

  bool ok() const { return facts_ != nullptr; }

  // PlanEditor.
  size_t num_instructions() const override { return method_.num_instructions; }
  const char* op(size_t pc) const override;
  Span<EValue*> args(size_t pc) const override;
  int num_threads() const override { return method_.num_threads; }
  int64_t writer(const EValue* value) const override;
  size_t num_readers(const EValue* value) const override;
  bool is_constant(const EValue* value) const override;
  bool is_method_io(const EValue* value) const override;
  void* Allocate(size_t bytes, size_t alignment) override;
  EValue* NewValue(const EValue& value) override;
  Error Replace(size_t pc, const Kernel& kernel, Span<EValue* const> args) override;
  void Remove(size_t pc) override;

  // For constant folding.
  Instruction& instruction(size_t pc) { return method_.instructions[pc]; }
  const Instruction& instruction(size_t pc) const { return method_.instructions[pc]; }
  // True if `value` is a tensor in a planned arena.
  bool is_planned(const EValue* value) const;
  // True if a pure alias views `value`'s planned bytes.
  bool has_alias(const EValue* value) const;
  // Marks `value` computed at load: constant from now on.
  void MarkFolded(const EValue* value);
  MemoryAllocator* scratch() { return scratch_; }

  // Calls `fn(value)` for each value instruction `pc` names (a value named
  // twice is passed twice), list items instead of the lists themselves.
  template <typename Fn>
  void ForEachArgValue(size_t pc, Fn fn) const;

 private:
  struct Facts {
    uint64_t begin, end;  // planned bytes (kPlanned)
    int32_t arena;        // planned arena (kPlanned)
    int32_t writer_pc;
    uint32_t writers;
    uint32_t readers;
    uint32_t first_read;  // pc + 1 of the first instruction that read the value
    uint32_t read_at;     // pc + 1 of the last instruction that read the value
    uint32_t write_at;    // pc + 1 of the last instruction that wrote it
    uint8_t flags;
  };
  enum Flag : uint8_t {
    kPlanned = 1,
    kInput = 2,
    kOutput = 4,
    kFolded = 8,
    kProgramConstant = 16,
    kIo = kInput | kOutput,
  };

  // Index of `value` in the method's table, or -1 for values from NewValue.
  int64_t IndexOf(const EValue* value) const;
  void Analyze() const;
  void Note(size_t pc, const EValue* value, bool write) const;
  void NoteKernelCall(size_t pc) const;
  // Groups the values a pure alias may view (planned, written by one
  // instruction or an input never written) by the pc that writes them.
  void IndexWrittenValues() const;
  // The value pure alias `a` views, or -1: of the planned values overlapping
  // its bytes and written before its first read, the last written (the
  // lowest index among values written by the same instruction). Needs
  // IndexWrittenValues().
  int64_t AliasSource(size_t a) const;
  // Readers of pure aliases of value `v`.
  size_t AliasReaders(size_t v) const;

  MethodState method_;
  MemoryAllocator* constants_;
  MemoryAllocator* scratch_;
  size_t scratch_mark_;
  mutable Facts* facts_ = nullptr;
  mutable bool dirty_ = true;
  // Pure aliases and their sources (value indices or -1), valid after
  // Analyze().
  mutable size_t* aliases_ = nullptr;
  mutable int64_t* alias_sources_ = nullptr;
  mutable size_t num_aliases_ = 0;
  // IndexWrittenValues(): value indices ordered by write key (writer pc + 1,
  // 0 for inputs), ascending within a key; key k's values are
  // written_[key_start_[k] .. key_start_[k + 1]).
  mutable size_t* written_ = nullptr;
  mutable size_t* key_start_ = nullptr;
};

template <typename Fn>
void MethodPlanEditor::ForEachArgValue(size_t pc, Fn fn) const {
  const Span<EValue*> args = method_.instructions[pc].args;
  edgefleet::ForEachArgValue(Span<EValue* const>(args.data(), args.size()), fn);
}

}  // namespace internal
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_EXECUTOR_PLAN_EDITOR_H_
