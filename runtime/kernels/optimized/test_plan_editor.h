// Test-only PlanEditor for the plan pass tests of the optimized kernels.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_TEST_PLAN_EDITOR_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_TEST_PLAN_EDITOR_H_

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "runtime/core/memory_allocator.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/plan_pass.h"
#include "runtime/kernels/plan_pass_util.h"

namespace edgefleet {
namespace optimized {
namespace testing {

// A PlanEditor over a list of kernel calls built by hand, for testing plan
// passes: the arguments from `first_out` on (the last two unless Add says
// otherwise: out and return slot) are written, the others read, items of
// tensor lists included (as MethodPlanEditor counts them; no views);
// Execute() runs the live calls in order.
class TestPlan : public PlanEditor {
 public:
  struct Instr {
    std::string op;
    std::vector<EValue*> args;
    OpFunction fn;
    size_t first_out;
    bool live = true;
  };

  void Add(const char* op, OpFunction fn, std::vector<EValue*> args, size_t num_out = 2) {
    const size_t first = args.size() - num_out;
    instrs_.push_back({op, std::move(args), fn, first});
  }
  void SetConstant(const EValue* v) { constants_.push_back(v); }
  void SetIo(const EValue* v) { io_.push_back(v); }

  Error Execute(int threads = 1) {
    for (Instr& in : instrs_) {
      if (!in.live) continue;
      std::vector<uint64_t> temp_memory((8 << 20) / 8);
      MemoryAllocator temp(temp_memory.data(), 8 << 20);
      KernelContext ctx(&temp, threads);
      in.fn(ctx, Span<EValue*>(in.args.data(), in.args.size()));
      if (ctx.failed()) return ctx.failure();
    }
    return Error::kOk;
  }
  size_t live() const {
    size_t n = 0;
    for (const Instr& in : instrs_) n += in.live;
    return n;
  }
  const Instr& instr(size_t pc) const { return instrs_[pc]; }

  size_t num_instructions() const override { return instrs_.size(); }
  const char* op(size_t pc) const override {
    return instrs_[pc].live ? instrs_[pc].op.c_str() : nullptr;
  }
  Span<EValue*> args(size_t pc) const override {
    auto& a = const_cast<std::vector<EValue*>&>(instrs_[pc].args);
    return {a.data(), a.size()};
  }
  int num_threads() const override { return 1; }
  int64_t writer(const EValue* value) const override {
    int64_t found = -1;
    int count = 0;
    for (size_t pc = 0; pc < instrs_.size(); ++pc) {
      const Instr& in = instrs_[pc];
      if (!in.live) continue;
      bool writes = false;
      ForEachArgValue(
          Span<EValue* const>(in.args.data() + in.first_out, in.args.size() - in.first_out),
          [&](const EValue* a) { writes |= a == value; });
      if (writes) {
        found = static_cast<int64_t>(pc);
        ++count;
      }
    }
    return count == 1 ? found : -1;
  }
  size_t num_readers(const EValue* value) const override {
    size_t n = 0;
    for (const Instr& in : instrs_) {
      if (!in.live) continue;
      bool reads = false;
      ForEachArgValue(Span<EValue* const>(in.args.data(), in.first_out),
                      [&](const EValue* a) { reads |= a == value; });
      n += reads;
    }
    return n;
  }
  bool is_constant(const EValue* value) const override {
    for (const EValue* c : constants_) {
      if (c == value) return true;
    }
    return false;
  }
  bool is_method_io(const EValue* value) const override {
    for (const EValue* c : io_) {
      if (c == value) return true;
    }
    return false;
  }
  void* Allocate(size_t bytes, size_t alignment) override {
    if (budget_ < bytes) return nullptr;
    budget_ -= bytes;
    blocks_.emplace_back(bytes + alignment);
    uintptr_t p = reinterpret_cast<uintptr_t>(blocks_.back().data());
    return reinterpret_cast<void*>((p + alignment - 1) / alignment * alignment);
  }
  EValue* NewValue(const EValue& value) override {
    values_.push_back(value);
    return &values_.back();
  }
  Error Replace(size_t pc, const Kernel& kernel, Span<EValue* const> args) override {
    if (!instrs_[pc].live) return Error::kInvalidArgument;
    instrs_[pc].op = kernel.name;
    instrs_[pc].fn = kernel.fn;
    instrs_[pc].args.assign(args.data(), args.data() + args.size());
    instrs_[pc].first_out = args.size() - 2;
    return Error::kOk;
  }
  void Remove(size_t pc) override { instrs_[pc].live = false; }

  size_t budget_ = size_t{1} << 30;

 private:
  std::vector<Instr> instrs_;
  std::vector<const EValue*> constants_, io_;
  std::deque<std::vector<uint8_t>> blocks_;
  std::deque<EValue> values_;
};

}  // namespace testing
}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_TEST_PLAN_EDITOR_H_
