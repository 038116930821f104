#include "fuzz/xnnpack_payload_harness.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "fuzz/fuzz_invariant.h"
#include "runtime/backends/xnnpack/aligned_flatbuffer.h"
#include "runtime/backends/xnnpack/delegate.h"
#include "runtime/backends/xnnpack/graph_decoder.h"
#include "runtime/backends/xnnpack/payload_header.h"
#include "runtime/core/error_detail.h"
#include "runtime/core/evalue.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/tensor.h"
#include "runtime/platform/log.h"
#include "xnnpack_graph_generated.h"

namespace edgefleet {
namespace fuzz {
namespace {

using xnnpack::DataType;
using xnnpack::Graph;
using xnnpack::Value;

constexpr size_t kScratchBytes = size_t{8} << 20;

bool ScalarTypeOf(DataType type, ScalarType* out) {
  switch (type) {
    case DataType::kFp32:
      *out = ScalarType::kFloat;
      return true;
    case DataType::kFp16:
      *out = ScalarType::kHalf;
      return true;
    case DataType::kQint8:
      *out = ScalarType::kChar;
      return true;
    case DataType::kQuint8:
      *out = ScalarType::kByte;
      return true;
    case DataType::kQint32:
    case DataType::kInt32:
      *out = ScalarType::kInt;
      return true;
    default:
      return false;
  }
}

// One argument tensor with its own shape arrays and zero-filled data.
struct Arg {
  int32_t sizes[xnnpack::kMaxDims] = {};
  uint8_t dim_order[xnnpack::kMaxDims] = {};
  int32_t strides[xnnpack::kMaxDims] = {};
  std::unique_ptr<uint8_t[]> data;
  std::unique_ptr<Tensor> tensor;
  EValue value;
  bool input = false;
  std::vector<size_t> declared;
};

// Resizes every input argument: to the declared shape, or (`seed` != 0) to
// a shape no larger in any dim, derived from `seed`. False when a resize
// fails (the shrunk shapes are within the bound, so it cannot).
bool ShapeInputs(std::vector<std::unique_ptr<Arg>>& args, uint64_t seed) {
  const bool shrink = seed != 0;
  for (auto& arg : args) {
    if (!arg->input) continue;
    int32_t sizes[xnnpack::kMaxDims];
    for (size_t d = 0; d < arg->declared.size(); ++d) {
      const size_t full = arg->declared[d];
      sizes[d] = static_cast<int32_t>(!shrink || full == 0 ? full : 1 + seed % full);
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    }
    if (arg->tensor->Resize({sizes, arg->declared.size()}) != Error::kOk) return false;
  }
  return true;
}

uint64_t Fnv1a(const uint8_t* data, size_t size) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
  return h | 1;
}

void CheckGraph(const Graph& g) {
  const size_t n = g.values.size();
  for (const xnnpack::Node& node : g.nodes) {
    for (uint32_t id : node.inputs) {
      EF_FUZZ_INVARIANT(id == xnnpack::kInvalidId || id < n, "node input %u of %zu values", id, n);
    }
    for (uint32_t id : node.outputs) {
      EF_FUZZ_INVARIANT(id < n, "node output %u of %zu values", id, n);
    }
  }
  for (const std::vector<uint32_t>* ids : {&g.input_values, &g.output_values}) {
    for (uint32_t id : *ids) {
      EF_FUZZ_INVARIANT(id < n && g.values[id].external_id < g.num_externs,
                        "graph input/output %u is not an external value", id);
    }
  }
}

bool Rejected(Error error, std::initializer_list<Error> allowed) {
  for (Error e : allowed) {
    if (error == e) return true;
  }
  return false;
}

}  // namespace

SyntheticNamedData::SyntheticNamedData(const uint8_t* payload, size_t size, size_t max_bytes) {
  Result<xnnpack::PayloadSections> s = xnnpack::ParsePayload(payload, size);
  if (!s.ok() || s.get().flatbuffer_size < 8) return;
  const xnnpack::AlignedFlatbuffer flatbuffer(s.get().flatbuffer, s.get().flatbuffer_size);
  flatbuffers::Verifier verifier(flatbuffer.data(), flatbuffer.size());
  if (!verifier.VerifyBuffer<edgefleet_xnn::XNNGraph>(nullptr)) return;
  const auto* table = edgefleet_xnn::GetXNNGraph(flatbuffer.data())->constant_data();
  size_t total = 0;
  for (uint32_t i = 0; table != nullptr && i < table->size(); ++i) {
    const auto* entry = table->Get(i);
    if (entry->named_key() == nullptr || sizes_.count(entry->named_key()->str()) != 0) continue;
    if (entry->size() > max_bytes - total) continue;
    total += entry->size();
    sizes_[entry->named_key()->str()] = entry->size();
  }
}

Result<FreeableBuffer> SyntheticNamedData::GetData(const char* key) const {
  auto it = sizes_.find(key);
  if (it == sizes_.end()) return Error::kNotFound;
  auto& blob = const_cast<SyntheticNamedData*>(this)->blobs_[key];
  if (blob == nullptr) {
    // Every 4-byte word is the float 0.0625: valid as quantization scales
    // (scale_buffer_idx), small as fp32 weights, plain bytes as int8 ones.
    blob.reset(new uint8_t[it->second + 4]);
    const float fill = 0.0625f;
    for (size_t i = 0; i < it->second; i += 4) std::memcpy(blob.get() + i, &fill, 4);
  }
  return FreeableBuffer(blob.get(), it->second, nullptr);
}

namespace {

// With EF_FUZZ_VERBOSE set, prints how far each input got (seed triage).
PayloadStage Report(PayloadStage stage) {
  static const bool verbose = std::getenv("EF_FUZZ_VERBOSE") != nullptr;
  if (verbose) {
    static const char* const names[] = {"decode", "create", "execute", "skipped", "done"};
    fprintf(stderr, "xnnpack payload: stopped at %s: %s\n", names[static_cast<int>(stage)],
            stage == PayloadStage::kDone ? "ok" : LastErrorDetail());
  }
  return stage;
}

}  // namespace

PayloadStage ExercisePayload(const uint8_t* data, size_t size, const NamedDataMap* named,
                             const PayloadLimits& limits) {
  SetMinLogLevel(LogLevel::kError);
  std::unique_ptr<SyntheticNamedData> synthetic;
  if (named == nullptr) {
    synthetic = std::make_unique<SyntheticNamedData>(data, size, limits.named_bytes);
    named = synthetic.get();
  }
  ClearErrorDetail();
  Result<std::unique_ptr<Graph>> graph = xnnpack::DecodeGraph(data, size, named);
  if (!graph.ok()) {
    EF_FUZZ_INVARIANT(Rejected(graph.error(), {Error::kInvalidProgram, Error::kNotSupported,
                                               Error::kDelegateInvalidCompatibility}),
                      "DecodeGraph failed with %s", ErrorName(graph.error()));
    EF_FUZZ_INVARIANT(std::strstr(LastErrorDetail(), "xnnpack") != nullptr,
                      "DecodeGraph failed without an xnnpack detail");
    return Report(PayloadStage::kDecode);
  }
  CheckGraph(*graph.get());
  // The arguments, sized from the graph's external values (before the
  // graph moves into the delegate).
  const Graph& g = *graph.get();
  size_t value_bytes = 0;
  for (const Value& v : g.values) {
    if (!v.is_constant()) value_bytes += v.nbytes();
  }
  const bool run = value_bytes <= limits.execute_bytes;
  std::vector<std::unique_ptr<Arg>> args;
  std::vector<EValue*> arg_ptrs(g.num_externs, nullptr);
  std::vector<EValue> none(g.num_externs);
  for (uint32_t e = 0; e < g.num_externs; ++e) arg_ptrs[e] = &none[e];
  bool executable = run;
  for (const std::vector<uint32_t>* ids : {&g.input_values, &g.output_values}) {
    for (uint32_t id : *ids) {
      if (!executable) break;
      const Value& v = g.values[id];
      ScalarType dtype = ScalarType::kFloat;
      bool fits = ScalarTypeOf(v.type, &dtype);
      for (size_t d : v.dims) fits = fits && d <= static_cast<size_t>(INT32_MAX);
      if (!fits) {
        executable = false;
        break;
      }
      auto arg = std::make_unique<Arg>();
      for (size_t d = 0; d < v.dims.size(); ++d) {
        arg->sizes[d] = static_cast<int32_t>(v.dims[d]);
        arg->dim_order[d] = static_cast<uint8_t>(d);
      }
      arg->data.reset(new uint8_t[v.nbytes() + 64]());
      arg->tensor = std::make_unique<Tensor>(dtype, static_cast<int>(v.dims.size()), arg->sizes,
                                             arg->dim_order, arg->strides, arg->data.get(),
                                             ShapeDynamism::kDynamicBound);
      arg->tensor->set_numel_bound(static_cast<int64_t>(v.numel()));
      arg->value = EValue::FromTensor(arg->tensor.get());
      arg_ptrs[v.external_id] = &arg->value;
      arg->input = ids == &g.input_values;
      arg->declared = v.dims;
      args.push_back(std::move(arg));
    }
  }
  ClearErrorDetail();
  // Half of the inputs put the float32 convolutions and fully connected
  // layers on our optimized kernels (the default rule), half on XNNPACK.
  const bool dense_on_own_kernels = (Fnv1a(data, size) & 4) != 0;
  Result<std::unique_ptr<xnnpack::XnnpackDelegate>> delegate =
      xnnpack::XnnpackDelegate::Create(std::move(graph.get()), nullptr, 1, dense_on_own_kernels);
  if (!delegate.ok()) {
    EF_FUZZ_INVARIANT(Rejected(delegate.error(), {Error::kInvalidProgram, Error::kNotSupported,
                                                  Error::kMemoryAllocationFailed}),
                      "Create failed with %s", ErrorName(delegate.error()));
    EF_FUZZ_INVARIANT(std::strstr(LastErrorDetail(), "xnnpack") != nullptr,
                      "Create failed without an xnnpack detail");
    return Report(PayloadStage::kCreate);
  }
  if (!executable) return Report(PayloadStage::kSkipped);
  const Span<EValue*> call{arg_ptrs.data(), arg_ptrs.size()};
  // Kernel scratch as a method gives it (Module's default is 8 MiB).
  static std::unique_ptr<uint8_t[]> scratch(new uint8_t[kScratchBytes]);
  MemoryAllocator temp(scratch.get(), kScratchBytes);
  const Error error = delegate.get()->Execute(&temp, call);
  if (error != Error::kOk) return Report(PayloadStage::kExecute);
  // Every other input: run again on smaller input shapes (the delegate
  // re-infers its shapes and rebuilds), then on the declared ones, which
  // must work again as the first time.
  if (Fnv1a(data, size) & 2) {
    EF_FUZZ_INVARIANT(ShapeInputs(args, Fnv1a(data, size)), "shrinking an input failed");
    temp.Reset();
    const Error shrunk = delegate.get()->Execute(&temp, call);
    if (std::getenv("EF_FUZZ_VERBOSE") != nullptr) {
      fprintf(stderr, "xnnpack payload: smaller inputs: %s %s\n", ErrorName(shrunk),
              shrunk == Error::kOk ? "" : LastErrorDetail());
    }
    EF_FUZZ_INVARIANT(ShapeInputs(args, 0), "restoring an input's shape failed");
    for (auto& arg : args) {
      if (arg->input) continue;
      int32_t sizes[xnnpack::kMaxDims];
      for (size_t d = 0; d < arg->declared.size(); ++d)
        sizes[d] = static_cast<int32_t>(arg->declared[d]);
      EF_FUZZ_INVARIANT(arg->tensor->Resize({sizes, arg->declared.size()}) == Error::kOk,
                        "restoring an output's shape failed");
    }
    temp.Reset();
    const Error again = delegate.get()->Execute(&temp, call);
    EF_FUZZ_INVARIANT(again == Error::kOk,
                      "Execute on the declared shapes failed (%s: %s) after a shape change",
                      ErrorName(again), LastErrorDetail());
  }
  return Report(PayloadStage::kDone);
}

}  // namespace fuzz
}  // namespace edgefleet
