// ExerciseProgram: load, initialize every method into bounded exact-size
// arenas, set seeded inputs, execute, and read every output byte.

#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <vector>

#include "fuzz/fuzz_harness.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/planned_memory.h"
#include "runtime/executor/method.h"
#include "runtime/loaders/buffer_data_loader.h"

namespace edgefleet {
namespace fuzz {
namespace {

// Planned arenas start filled with this byte: deterministic, and garbage
// that index-like kernels must not trust (0xBEBEBEBE is a negative int32).
constexpr uint8_t kArenaFill = 0xBE;

// splitmix64: small, seedable, reproducible everywhere.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t Below(uint64_t n) { return n == 0 ? 0 : Next() % n; }

 private:
  uint64_t state_;
};

// An exact-size heap block (ASan puts a redzone right after it).
struct Block {
  struct Free {
    void operator()(uint8_t* p) const { ::operator delete[](p, std::align_val_t{64}); }
  };
  std::unique_ptr<uint8_t[], Free> data;
  size_t size = 0;

  explicit Block(size_t n) : data(new (std::align_val_t{64}) uint8_t[n == 0 ? 1 : n]), size(n) {}
};

// Storage for one input tensor in the program's dim order.
struct InputTensor {
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  std::vector<int32_t> strides;
  std::unique_ptr<Block> data;
  std::unique_ptr<Tensor> tensor;
};

template <typename T>
void FillInts(T* out, int64_t n, Rng& rng, bool extreme) {
  for (int64_t i = 0; i < n; ++i) {
    if (extreme && rng.Below(4) == 0) {
      out[i] = rng.Below(2) ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
    } else {
      out[i] = static_cast<T>(static_cast<int64_t>(rng.Below(12)) - 2);
    }
  }
}

template <typename T>
void FillFloats(T* out, int64_t n, Rng& rng, bool extreme) {
  static const T kSpecial[] = {std::numeric_limits<T>::quiet_NaN(),
                               std::numeric_limits<T>::infinity(),
                               -std::numeric_limits<T>::infinity(),
                               std::numeric_limits<T>::max(),
                               T(0),
                               T(-0.0)};
  for (int64_t i = 0; i < n; ++i) {
    if (extreme && rng.Below(4) == 0) {
      out[i] = kSpecial[rng.Below(sizeof(kSpecial) / sizeof(kSpecial[0]))];
    } else {
      out[i] = static_cast<T>(static_cast<double>(rng.Below(1 << 16)) / 8192.0 - 4.0);
    }
  }
}

void FillTensor(Tensor& t, Rng& rng, bool extreme) {
  const int64_t n = t.numel();
  void* p = t.mutable_data();
  switch (t.dtype()) {
    case ScalarType::kFloat:
      FillFloats(static_cast<float*>(p), n, rng, extreme);
      break;
    case ScalarType::kDouble:
      FillFloats(static_cast<double*>(p), n, rng, extreme);
      break;
    case ScalarType::kBool:
      for (int64_t i = 0; i < n; ++i) static_cast<uint8_t*>(p)[i] = rng.Below(2);
      break;
    case ScalarType::kByte:
      FillInts(static_cast<uint8_t*>(p), n, rng, extreme);
      break;
    case ScalarType::kChar:
      FillInts(static_cast<int8_t*>(p), n, rng, extreme);
      break;
    case ScalarType::kShort:
      FillInts(static_cast<int16_t*>(p), n, rng, extreme);
      break;
    case ScalarType::kInt:
      FillInts(static_cast<int32_t*>(p), n, rng, extreme);
      break;
    case ScalarType::kLong:
      FillInts(static_cast<int64_t*>(p), n, rng, extreme);
      break;
    default: {
      uint8_t* bytes = static_cast<uint8_t*>(p);
      for (size_t i = 0; i < t.nbytes(); ++i) bytes[i] = static_cast<uint8_t>(rng.Next());
    }
  }
}

// A tensor matching input `i`'s metadata (sometimes shrunk, for dynamic
// inputs), or null if it would be too large.
std::unique_ptr<InputTensor> MakeInput(const TensorInfo& info, const Limits& limits, Rng& rng,
                                       bool extreme) {
  if (info.nbytes > limits.max_method_bytes) return nullptr;
  auto in = std::make_unique<InputTensor>();
  in->sizes.assign(info.sizes.begin(), info.sizes.end());
  in->dim_order.assign(info.dim_order.begin(), info.dim_order.end());
  in->strides.resize(in->sizes.size());
  if (info.dynamism == ShapeDynamism::kDynamicBound && !in->sizes.empty() && rng.Below(2)) {
    int32_t& s = in->sizes[rng.Below(in->sizes.size())];
    if (s > 0) s = static_cast<int32_t>(rng.Below(static_cast<uint64_t>(s) + 1));
  }
  in->data = std::make_unique<Block>(info.nbytes);
  in->tensor = std::make_unique<Tensor>(info.dtype, static_cast<int>(in->sizes.size()),
                                        in->sizes.data(), in->dim_order.data(), in->strides.data(),
                                        in->data->data.get(), info.dynamism);
  FillTensor(*in->tensor, rng, extreme);
  return in;
}

// Reads every byte of every output tensor, so ASan checks that outputs lie
// inside live memory.
void TouchOutputs(const Method& method) {
  volatile uint8_t sink = 0;
  for (size_t i = 0; i < method.num_outputs(); ++i) {
    const EValue& v = method.output(i);
    if (!v.is_tensor() || v.tensor_ptr() == nullptr) continue;
    const Tensor& t = v.to_tensor();
    EF_FUZZ_INVARIANT(t.dim() >= 0 && t.dim() <= kMaxTensorRank && t.numel() >= 0,
                      "output %zu has a corrupt shape", i);
    if (t.data() == nullptr) continue;
    const uint8_t* bytes = static_cast<const uint8_t*>(t.data());
    uint8_t acc = 0;
    for (size_t b = 0; b < t.nbytes(); ++b) acc ^= bytes[b];
    sink = sink ^ acc;
  }
  (void)sink;
}

void Record(Outcome& outcome, Stage stage, Error error) {
  if (outcome.error == Error::kOk && error != Error::kOk) {
    outcome.stage = stage;
    outcome.error = error;
  }
}

// Runs one method; returns false if it was skipped as too large.
bool RunMethod(const Program& program, const char* name, const Limits& limits, Rng& rng,
               Outcome& outcome) {
  Result<MethodMeta> meta_result = program.method_meta(name);
  if (!meta_result.ok()) {
    Record(outcome, Stage::kMethodLoad, meta_result.error());
    return true;
  }
  const MethodMeta& meta = *meta_result;
  uint64_t planned = 0;
  for (size_t i = 0; i < meta.num_planned_buffers(); ++i) {
    const uint64_t size = static_cast<uint64_t>(*meta.planned_buffer_size(i));
    if (size > limits.max_method_bytes || planned + size > limits.max_method_bytes) return false;
    planned += size;
  }
  const size_t method_bytes = meta.method_allocator_bytes();
  if (method_bytes > limits.max_method_bytes - planned) return false;
  if (planned > outcome.planned_bytes) outcome.planned_bytes = planned;
  if (method_bytes > outcome.method_bytes) outcome.method_bytes = method_bytes;

  std::vector<std::unique_ptr<Block>> arenas;
  std::vector<Span<uint8_t>> spans;
  for (size_t i = 0; i < meta.num_planned_buffers(); ++i) {
    arenas.push_back(std::make_unique<Block>(static_cast<size_t>(*meta.planned_buffer_size(i))));
    memset(arenas.back()->data.get(), kArenaFill, arenas.back()->size);
    spans.push_back({arenas.back()->data.get(), arenas.back()->size});
  }
  Block method_block(method_bytes), temp_block(limits.temp_bytes),
      constant_block(limits.constant_bytes);
  MemoryAllocator method_allocator(method_block.data.get(), method_block.size);
  MemoryAllocator temp_allocator(temp_block.data.get(), temp_block.size);
  MemoryAllocator constant_allocator(constant_block.data.get(), constant_block.size);
  PlannedMemory planned_memory({spans.data(), spans.size()});
  const MemoryManager memory{&method_allocator, &planned_memory, &temp_allocator,
                             &constant_allocator};
  MethodOptions options;
  options.kernels = limits.kernels;
  options.max_instructions =
      2 * static_cast<uint64_t>(meta.num_instructions()) + limits.max_instructions;

  Result<Method> loaded = Method::Load(program, name, memory, options);
  if (!loaded.ok()) {
    EF_FUZZ_INVARIANT(loaded.error() != Error::kMemoryAllocationFailed || meta.num_backends() > 0,
                      "Method::Load ran out of the %zu bytes method_allocator_bytes() "
                      "promised for '%s'",
                      method_bytes, name);
    Record(outcome, Stage::kMethodLoad, loaded.error());
    return true;
  }
  Method& method = *loaded;
  EF_FUZZ_INVARIANT(
      method.num_inputs() == meta.num_inputs() && method.num_outputs() == meta.num_outputs(),
      "Method and MethodMeta disagree on inputs/outputs");
  EF_FUZZ_INVARIANT(method.num_instructions() <= meta.num_instructions(),
                    "Method has more instructions than MethodMeta");
  EF_FUZZ_INVARIANT(method_allocator.used() <= method_bytes, "method allocator overused");
  if (constant_allocator.used() > outcome.constant_bytes) {
    outcome.constant_bytes = constant_allocator.used();
  }
  for (size_t pc = 0; pc < method.num_instructions(); ++pc) {
    EF_FUZZ_INVARIANT(method.instruction_kind(pc) != nullptr, "instruction_kind(%zu)", pc);
  }

  const bool extreme = rng.Below(8) == 0;
  std::vector<std::unique_ptr<InputTensor>> inputs;
  for (size_t i = 0; i < meta.num_inputs(); ++i) {
    Result<TensorInfo> info = meta.input_tensor_info(i);
    if (!info.ok()) continue;  // Non-tensor inputs keep their traced value.
    if (rng.Below(16) == 0) {  // A wrong-kind value must be refused.
      EF_FUZZ_INVARIANT(method.SetInput(i, EValue::FromInt(1)) != Error::kOk,
                        "SetInput accepted an int for tensor input %zu", i);
    }
    inputs.push_back(MakeInput(*info, limits, rng, extreme));
    if (inputs.back() == nullptr) continue;
    Record(outcome, Stage::kSetInput,
           method.SetInput(i, EValue::FromTensor(inputs.back()->tensor.get())));
  }
  EF_FUZZ_INVARIANT(method.SetInput(meta.num_inputs(), EValue()) == Error::kInvalidArgument,
                    "SetInput past the end did not fail");
  for (int run = 0; run < limits.executions; ++run) {
    const Error error = method.Execute();
    Record(outcome, Stage::kExecute, error);
    if (error != Error::kOk) break;
    TouchOutputs(method);
  }
  if (temp_allocator.peak() > outcome.temp_peak) outcome.temp_peak = temp_allocator.peak();
  ++outcome.methods_executed;
  return true;
}

}  // namespace

const char* StageName(Stage stage) {
  switch (stage) {
    case Stage::kLoad:
      return "load";
    case Stage::kMethodLoad:
      return "method_load";
    case Stage::kSetInput:
      return "set_input";
    case Stage::kExecute:
      return "execute";
    case Stage::kSkipped:
      return "skipped";
    case Stage::kDone:
      return "done";
  }
  return "unknown";
}

Outcome ExerciseProgram(const uint8_t* data, size_t size, const Limits& limits, uint64_t seed,
                        bool run_methods) {
  InitRuntimeOnce();
  Outcome outcome;
  AlignedBuffer buffer(data, size);
  BufferDataLoader loader(buffer.data(), buffer.size());
  Result<Program> program = Program::Load(&loader);
  if (!program.ok()) {
    outcome.error = program.error();
    return outcome;
  }
  EF_FUZZ_INVARIANT(loader.BytesRead() > 0, "a program loaded without reading bytes");
  InspectProgram(*program);
  outcome.stage = Stage::kDone;
  if (!run_methods) return outcome;
  Rng rng(seed);
  bool skipped = false;
  const size_t n = program->num_methods();
  for (size_t m = 0; m < n && m < limits.max_methods; ++m) {
    if (!RunMethod(*program, program->method_name(m), limits, rng, outcome)) skipped = true;
  }
  if (outcome.error == Error::kOk && skipped && outcome.methods_executed == 0) {
    outcome.stage = Stage::kSkipped;
  }
  return outcome;
}

}  // namespace fuzz
}  // namespace edgefleet
