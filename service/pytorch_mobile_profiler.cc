#include "service/pytorch_mobile_profiler.h"

#include <ATen/ATen.h>
#include <ATen/core/class_type.h>
#include <ATen/core/function.h>
#include <ATen/native/quantized/PackedParams.h>
#include <ATen/record_function.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "runtime/platform/clock.h"
#include "service/model_repository.h"
#include "service/pytorch_mobile_stack.h"
#include "service/tensor_data.h"

namespace edgefleet {
namespace service {
namespace {

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

double Bytes(const at::Tensor& t) { return static_cast<double>(t.numel() * t.element_size()); }

// The shapes of a convolution: weight [Cout, Cin/groups, k...] and its
// geometry per spatial dimension.
struct ConvShape {
  at::Tensor weight;
  c10::optional<at::Tensor> bias;
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups = 1;
};

// The state an XNNPACK op context keeps (its __getstate__: the unpacked
// weight, bias and geometry it was prepacked from).
c10::IValue TorchbindState(const c10::IValue& context) {
  if (!context.isObject()) return c10::IValue();
  torch::jit::Function* getstate = context.toObjectRef().type()->findMethod("__getstate__");
  if (getstate == nullptr) return c10::IValue();
  torch::jit::Stack stack{context};
  getstate->run(stack);
  return stack.empty() ? c10::IValue() : stack.back();
}

std::vector<int64_t> IntList(const c10::IValue& v) {
  return v.isIntList() ? v.toIntVector() : std::vector<int64_t>();
}

// Work of a convolution with `input` and `shape`: every output element
// takes Cin/groups x kernel-window multiply-adds.
OpWork ConvWork(const at::Tensor& input, const ConvShape& shape) {
  OpWork work;
  const at::Tensor& w = shape.weight;
  const int64_t spatial = w.dim() - 2;
  if (spatial < 1 || input.dim() != w.dim()) return work;
  int64_t out_numel = input.size(0) * w.size(0);
  bool pointwise = true, threes = true, same = shape.groups == 1;
  for (int64_t d = 0; d < spatial; ++d) {
    const auto at_or = [&](const std::vector<int64_t>& v, int64_t fallback) {
      return v.empty() ? fallback : v[static_cast<size_t>(std::min<int64_t>(d, v.size() - 1))];
    };
    const int64_t k = w.size(2 + d), in = input.size(2 + d);
    const int64_t s = at_or(shape.stride, 1), p = at_or(shape.padding, 0),
                  dil = at_or(shape.dilation, 1);
    const int64_t out = s > 0 ? (in + 2 * p - dil * (k - 1) - 1) / s + 1 : 0;
    out_numel *= std::max<int64_t>(out, 0);
    pointwise = pointwise && k == 1;
    threes = threes && k == 3;
    same = same && s == 1 && out == in;
  }
  work.compute_kernel = true;
  work.flops = 2.0 * static_cast<double>(out_numel) * static_cast<double>(w[0].numel());
  work.bytes = Bytes(input) + Bytes(w) + (shape.bias ? Bytes(*shape.bias) : 0.0) +
               static_cast<double>(out_numel) * input.element_size();
  work.pointwise = pointwise;
  work.conv3x3_stride1 = threes && same;
  return work;
}

// Work of x[..., K] @ weight[N, K]^T.
OpWork LinearWork(const at::Tensor& input, const at::Tensor& weight,
                  const c10::optional<at::Tensor>& bias) {
  OpWork work;
  if (input.dim() < 1 || weight.dim() != 2 || input.size(-1) != weight.size(1)) return work;
  const double rows = static_cast<double>(input.numel() / std::max<int64_t>(1, input.size(-1)));
  work.compute_kernel = true;
  work.pointwise = true;
  work.flops = 2.0 * rows * static_cast<double>(weight.numel());
  work.bytes = Bytes(input) + Bytes(weight) + (bias ? Bytes(*bias) : 0.0) +
               rows * static_cast<double>(weight.size(0)) * input.element_size();
  return work;
}

const at::Tensor* FirstTensor(c10::ArrayRef<const c10::IValue> inputs) {
  for (const c10::IValue& v : inputs) {
    if (v.isTensor()) return &v.toTensor();
  }
  return nullptr;
}

const c10::IValue* FirstObject(c10::ArrayRef<const c10::IValue> inputs) {
  for (const c10::IValue& v : inputs) {
    if (v.isObject()) return &v;
  }
  return nullptr;
}

c10::optional<at::Tensor> OptionalTensor(const c10::IValue& v) {
  if (v.isTensor()) return v.toTensor();
  return c10::nullopt;
}

// Operators with no arithmetic that op_classes.h does not name (torch
// names where the exporter has *_copy variants, and interpreter metadata).
constexpr const char* kTorchDataMovement[] = {
    "flatten",
    "contiguous",
    "chunk",
    "size",
    "dim",
    "len",
    "Int",
    "Float",
    "ListConstruct",
    "ListUnpack",
    "TupleConstruct",
    "TupleUnpack",
    "__getitem__",
    "append",
    "numel",
    "t",
};

std::string BaseName(const std::string& name) {
  size_t start = name.rfind("::");
  start = start == std::string::npos ? 0 : start + 2;
  const size_t dot = name.find('.', start);
  return name.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
}

OpWork TorchOperatorWork(const std::string& name, c10::ArrayRef<const c10::IValue> inputs) {
  const std::string base = BaseName(name);
  const at::Tensor* x = FirstTensor(inputs);
  if (x != nullptr && x->defined()) {
    if (name == "prepacked::conv2d_clamp_run" || name == "prepacked::linear_clamp_run") {
      // Conv2d state: (weight, bias, stride, padding, dilation, groups,
      // min, max); linear: (weight, bias, min, max).
      const c10::IValue* context = FirstObject(inputs);
      const c10::IValue state = context ? TorchbindState(*context) : c10::IValue();
      if (state.isTuple()) {
        // A copy: indexing the tuple in place trips -Warray-bounds (its
        // inline storage holds three).
        const std::vector<c10::IValue> e = state.toTupleRef().elements().vec();
        if (name == "prepacked::linear_clamp_run" && e.size() >= 2 && e[0].isTensor()) {
          return LinearWork(*x, e[0].toTensor(), OptionalTensor(e[1]));
        }
        if (e.size() >= 6 && e[0].isTensor() && e[5].isInt()) {
          ConvShape shape{e[0].toTensor(), OptionalTensor(e[1]), IntList(e[2]),
                          IntList(e[3]),   IntList(e[4]),        e[5].toInt()};
          return ConvWork(*x, shape);
        }
      }
    } else if (StartsWith(name, "quantized::conv")) {
      const c10::IValue* packed = FirstObject(inputs);
      if (packed != nullptr && base.find("conv2d") != std::string::npos) {
        auto params = packed->toCustomClass<ConvPackedParamsBase<2>>();
        auto [weight, bias] = params->unpack();
        ConvShape shape{weight,
                        bias,
                        params->stride().vec(),
                        params->padding().vec(),
                        params->dilation().vec(),
                        params->groups()};
        return ConvWork(*x, shape);
      }
    } else if (StartsWith(name, "quantized::linear")) {
      const c10::IValue* packed = FirstObject(inputs);
      if (packed != nullptr) {
        auto [weight, bias] = packed->toCustomClass<LinearPackedParamsBase>()->unpack();
        return LinearWork(*x, weight, bias);
      }
    } else if ((base == "conv1d" || base == "conv2d") && inputs.size() >= 7 &&
               inputs[1].isTensor() && inputs[6].isInt()) {
      ConvShape shape{inputs[1].toTensor(), OptionalTensor(inputs[2]), IntList(inputs[3]),
                      IntList(inputs[4]),   IntList(inputs[5]),        inputs[6].toInt()};
      return ConvWork(*x, shape);
    } else if (base == "linear" && inputs.size() >= 2 && inputs[1].isTensor()) {
      return LinearWork(*x, inputs[1].toTensor(),
                        inputs.size() > 2 ? OptionalTensor(inputs[2]) : c10::nullopt);
    } else if (base == "addmm" && inputs.size() >= 3 && inputs[1].isTensor() &&
               inputs[2].isTensor() && inputs[2].toTensor().dim() == 2) {
      return LinearWork(inputs[1].toTensor(), inputs[2].toTensor().t(), OptionalTensor(inputs[0]));
    } else if ((base == "mm" || base == "matmul" || base == "bmm") && inputs.size() >= 2 &&
               inputs[1].isTensor() && inputs[1].toTensor().dim() >= 2) {
      const at::Tensor& b = inputs[1].toTensor();
      OpWork work;
      work.compute_kernel = work.pointwise = true;
      const double rows = static_cast<double>(x->numel() / std::max<int64_t>(1, x->size(-1)));
      work.flops = 2.0 * rows * static_cast<double>(b.size(-1)) * static_cast<double>(x->size(-1));
      work.bytes =
          Bytes(*x) + Bytes(b) + rows * static_cast<double>(b.size(-1)) * x->element_size();
      return work;
    }
  }
  // Not a compute kernel: its class comes from its name.
  OpWork work = OperatorWork(name, {});
  work.compute_kernel = false;
  work.flops = 0;
  for (const char* op : kTorchDataMovement) work.data_movement |= base == op;
  for (const c10::IValue& v : inputs) {
    if (v.isTensor() && v.toTensor().defined()) work.bytes += Bytes(v.toTensor());
  }
  return work;
}

// One executed operator: its name, work and thread CPU time in each run.
struct OperatorRecord {
  std::string name;
  OpWork work;
  std::vector<uint64_t> nanos;
};

// What the thread-local callback fills during one profiled run.
struct Recorder {
  std::vector<OperatorRecord>* ops = nullptr;
  size_t next = 0;           // operator index within the run
  bool first_run = true;     // work is computed once
  bool mismatch = false;     // the sequence differs from the first run's
  std::vector<size_t> open;  // indices of started, not yet ended operators
  std::vector<uint64_t> starts;
};

thread_local Recorder* tls_recorder = nullptr;

std::unique_ptr<at::ObserverContext> OnOperatorStart(const at::RecordFunction& fn) {
  Recorder* r = tls_recorder;
  if (r == nullptr) return nullptr;
  const std::string name = fn.name();
  const size_t index = r->next++;
  if (r->first_run) {
    r->ops->push_back({name, TorchOperatorWork(name, fn.inputs()), {}});
  } else if (index >= r->ops->size() || (*r->ops)[index].name != name) {
    r->mismatch = true;
  }
  r->open.push_back(index);
  r->starts.push_back(ThreadCpuNanos());
  return nullptr;
}

void OnOperatorEnd(const at::RecordFunction&, at::ObserverContext*) {
  const uint64_t now = ThreadCpuNanos();
  Recorder* r = tls_recorder;
  if (r == nullptr || r->open.empty()) return;
  const size_t index = r->open.back();
  const uint64_t start = r->starts.back();
  r->open.pop_back();
  r->starts.pop_back();
  if (!r->mismatch && index < r->ops->size()) (*r->ops)[index].nanos.push_back(now - start);
}

// Installs the callback on this thread for its lifetime.
class ScopedOperatorCallback {
 public:
  explicit ScopedOperatorCallback(Recorder* recorder) {
    tls_recorder = recorder;
    handle_ =
        at::addThreadLocalCallback(at::RecordFunctionCallback(&OnOperatorStart, &OnOperatorEnd)
                                       .needsInputs(true)
                                       .scopes({at::RecordScope::LITE_INTERPRETER}));
  }
  ~ScopedOperatorCallback() {
    at::removeCallback(handle_);
    tls_recorder = nullptr;
  }
  ScopedOperatorCallback(const ScopedOperatorCallback&) = delete;
  ScopedOperatorCallback& operator=(const ScopedOperatorCallback&) = delete;

 private:
  at::CallbackHandle handle_;
};

std::string Dirname(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string Basename(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

absl::StatusOr<OperatorProfile> MeasurePytorchMobileOperators(const std::string& model,
                                                              const std::string& path,
                                                              const ProfileOptions& options) {
  // The inputs: the caller's, else the signature of the model.pte beside
  // the .ptl.
  std::vector<TensorSpec> specs = options.inputs;
  if (specs.empty()) {
    const std::string folder = Dirname(path);
    absl::StatusOr<std::unique_ptr<ModelRepository>> repository =
        ModelRepository::Open(Dirname(folder));
    if (!repository.ok()) return repository.status();
    absl::StatusOr<ModelSignature> signature = (*repository)->Signature(Basename(folder));
    if (!signature.ok()) {
      return absl::Status(signature.status().code(), "the inputs of " + path +
                                                         " come from the model.pte beside it: " +
                                                         std::string(signature.status().message()));
    }
    specs = signature->inputs;
  }
  const std::vector<TensorData> inputs = SeededInputs(specs, /*seed=*/1);

  PytorchMobileStack stack;
  if (absl::Status s = stack.Available(); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<LoadedModel>> loaded = stack.Load(path, StackOptions());
  if (!loaded.ok()) return loaded.status();

  OperatorProfile profile;
  v1::ModelHostProfile& out = profile.summary;
  out.set_stack(v1::STACK_PYTORCH_MOBILE);
  out.set_model(model);
  out.set_kernels(v1::KERNELS_DEFAULT);
  uint64_t bytes = 0;
  std::string digest;
  if (absl::Status s = FileStamp(path, &bytes, &digest); !s.ok()) return s;
  out.set_file_bytes(bytes);
  out.set_file_digest(digest);

  const int runs = std::max(1, options.runs);
  std::vector<OperatorRecord> ops;
  std::vector<double> totals;
  Recorder recorder;
  recorder.ops = &ops;
  for (int i = 0; i < std::max(0, options.warmup) + runs; ++i) {
    const bool observed = i >= options.warmup;
    // Timed without the callback, profiled with it (its clock reads and
    // argument inspection would inflate the total).
    for (int pass = 0; pass < (observed ? 2 : 1); ++pass) {
      absl::StatusOr<std::vector<TensorData>> result;
      const uint64_t start = ThreadCpuNanos();
      if (pass == 1) {
        recorder.next = 0;
        ScopedOperatorCallback callback(&recorder);
        result = (*loaded)->Run(inputs);
      } else {
        result = (*loaded)->Run(inputs);
      }
      const uint64_t elapsed = ThreadCpuNanos() - start;
      if (!result.ok()) return result.status();
      if (pass == 0 && observed) totals.push_back(static_cast<double>(elapsed));
      if (pass == 1) {
        if (recorder.mismatch || recorder.next != ops.size()) {
          return absl::InternalError(path +
                                     ": the lite interpreter's operator sequence differs"
                                     " between runs; a per-operator profile needs the"
                                     " same operators every run");
        }
        recorder.first_run = false;
      }
    }
  }
  if (ops.empty()) {
    return absl::InternalError(path +
                               ": the lite interpreter reported no operators (its"
                               " RecordFunction hooks are not compiled in?)");
  }
  std::sort(totals.begin(), totals.end());
  out.set_total_us(totals[totals.size() / 2] / 1e3);
  out.set_runs(static_cast<uint32_t>(runs));

  for (OperatorRecord& op : ops) {
    std::sort(op.nanos.begin(), op.nanos.end());
    ProfiledOperator profiled;
    profiled.name = op.name;
    profiled.kernel = "lite_interpreter";
    profiled.work = op.work;
    profiled.nanos = op.nanos.empty() ? 0 : static_cast<double>(op.nanos[op.nanos.size() / 2]);
    profile.operators.push_back(std::move(profiled));
  }
  SummarizeOperators(&profile.operators, options, &out);
  return profile;
}

}  // namespace service
}  // namespace edgefleet
