#include "service/pytorch_mobile_stack.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <caffe2/serialize/file_adapter.h>
#include <torch/csrc/jit/mobile/import.h>
#include <torch/csrc/jit/mobile/module.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>

#include "service/torch_memory_tally.h"

namespace edgefleet {
namespace service {
namespace {

using Clock = std::chrono::steady_clock;

int64_t MicrosSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count();
}

// Counts the bytes the interpreter reads from the archive.
class CountingFileAdapter final : public caffe2::serialize::ReadAdapterInterface {
 public:
  CountingFileAdapter(const std::string& path, std::atomic<uint64_t>* bytes_read)
      : file_(path), bytes_read_(bytes_read) {}
  size_t size() const override { return file_.size(); }
  size_t read(uint64_t pos, void* buf, size_t n, const char* what) const override {
    const size_t got = file_.read(pos, buf, n, what);
    bytes_read_->fetch_add(got, std::memory_order_relaxed);
    return got;
  }

 private:
  caffe2::serialize::FileAdapter file_;
  std::atomic<uint64_t>* bytes_read_;
};

bool ToTorchType(ScalarType dtype, c10::ScalarType* out) {
  switch (dtype) {
    case ScalarType::kByte:
      *out = c10::kByte;
      return true;
    case ScalarType::kChar:
      *out = c10::kChar;
      return true;
    case ScalarType::kShort:
      *out = c10::kShort;
      return true;
    case ScalarType::kInt:
      *out = c10::kInt;
      return true;
    case ScalarType::kLong:
      *out = c10::kLong;
      return true;
    case ScalarType::kHalf:
      *out = c10::kHalf;
      return true;
    case ScalarType::kFloat:
      *out = c10::kFloat;
      return true;
    case ScalarType::kDouble:
      *out = c10::kDouble;
      return true;
    case ScalarType::kBool:
      *out = c10::kBool;
      return true;
    case ScalarType::kBFloat16:
      *out = c10::kBFloat16;
      return true;
    default:
      return false;
  }
}

bool FromTorchType(c10::ScalarType dtype, ScalarType* out) {
  for (ScalarType t : {ScalarType::kByte, ScalarType::kChar, ScalarType::kShort, ScalarType::kInt,
                       ScalarType::kLong, ScalarType::kHalf, ScalarType::kFloat,
                       ScalarType::kDouble, ScalarType::kBool, ScalarType::kBFloat16}) {
    c10::ScalarType candidate;
    if (ToTorchType(t, &candidate) && candidate == dtype) {
      *out = t;
      return true;
    }
  }
  return false;
}

absl::Status FlattenOutputs(const c10::IValue& value, std::vector<TensorData>* outputs) {
  if (value.isTensor()) {
    const at::Tensor t = value.toTensor().contiguous();
    TensorData out;
    if (!FromTorchType(t.scalar_type(), &out.dtype)) {
      return absl::UnimplementedError(
          "output dtype " + std::string(c10::toString(t.scalar_type())) + " is not served");
    }
    for (int64_t d : t.sizes()) out.shape.push_back(d);
    const uint8_t* data = static_cast<const uint8_t*>(t.data_ptr());
    out.bytes.assign(data, data + t.nbytes());
    outputs->push_back(std::move(out));
    return absl::OkStatus();
  }
  if (value.isTuple()) {
    for (const c10::IValue& element : value.toTupleRef().elements()) {
      if (absl::Status s = FlattenOutputs(element, outputs); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
  if (value.isList()) {
    for (const c10::IValue& element : value.toListRef()) {
      if (absl::Status s = FlattenOutputs(element, outputs); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
  return absl::OkStatus();  // scalars and None are not served (as our stack)
}

class PytorchMobileModel final : public LoadedModel {
 public:
  PytorchMobileModel(torch::jit::mobile::Module module, TorchMemoryTally* tally,
                     const LoadFacts& facts)
      : module_(std::move(module)), tally_(tally) {
    facts_ = facts;
  }
  ~PytorchMobileModel() override {
    {
      TorchMemoryTally::Scope scope(tally_);
      module_ = torch::jit::mobile::Module();
    }
    tally_->Release();
  }

  absl::StatusOr<std::vector<TensorData>> Run(const std::vector<TensorData>& inputs) override {
    TorchMemoryTally::Scope scope(tally_);
    try {
      std::vector<c10::IValue> args;
      for (const TensorData& input : inputs) {
        c10::ScalarType dtype;
        if (!ToTorchType(input.dtype, &dtype)) {
          return absl::InvalidArgumentError("input dtype not supported by pytorch-mobile");
        }
        // from_blob does not copy: the inputs outlive forward().
        args.emplace_back(at::from_blob(const_cast<uint8_t*>(input.bytes.data()), input.shape,
                                        at::TensorOptions().dtype(dtype)));
      }
      c10::InferenceMode inference_mode;
      const c10::IValue result = module_.forward(args);
      std::vector<TensorData> outputs;
      if (absl::Status s = FlattenOutputs(result, &outputs); !s.ok()) return s;
      return outputs;
    } catch (const std::exception& e) {
      return absl::InternalError(std::string("pytorch-mobile forward failed: ") + e.what());
    }
  }

  uint64_t peak_memory_bytes() const override { return tally_->peak(); }

 private:
  torch::jit::mobile::Module module_;
  TorchMemoryTally* tally_;  // one reference owned
};

}  // namespace

PytorchMobileStack::PytorchMobileStack() {
  InstallTallyingAllocators();
  static std::once_flag once;
  std::call_once(once, [] {
    at::set_num_threads(1);
    at::set_num_interop_threads(1);
    // Quantized operators run on QNNPACK, as in PyTorch Mobile builds; a
    // server libtorch defaults to oneDNN. Packed weights are built at load
    // by the engine set then.
    const std::vector<at::QEngine>& engines = at::globalContext().supportedQEngines();
    if (std::find(engines.begin(), engines.end(), at::QEngine::QNNPACK) != engines.end()) {
      at::globalContext().setQEngine(at::QEngine::QNNPACK);
    }
  });
}

absl::Status PytorchMobileStack::Available() const {
  if (!XnnpackTallied()) {
    return absl::FailedPreconditionError(
        "pytorch-mobile: XNNPACK was initialised before the stack could install its tallying"
        " allocator (or XNNPACK does not run on this CPU), so the memory of prepacked weights"
        " could not be counted");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<LoadedModel>> PytorchMobileStack::Load(const std::string& path,
                                                                      const StackOptions&) {
  TorchMemoryTally* tally = TorchMemoryTally::Create();
  std::atomic<uint64_t> bytes_read{0};
  LoadFacts facts;
  try {
    TorchMemoryTally::Scope scope(tally);
    const Clock::time_point start = Clock::now();
    torch::jit::mobile::Module module = torch::jit::_load_for_mobile(
        std::make_unique<CountingFileAdapter>(path, &bytes_read), c10::Device(c10::kCPU));
    facts.host_parse_us = MicrosSince(start);
    facts.host_init_us = 0;
    facts.bytes_read = bytes_read.load();
    facts.memory_bytes = tally->current();
    facts.memory_xnnpack_bytes = tally->current(TorchMemoryTally::kXnnpack);
    return std::unique_ptr<LoadedModel>(new PytorchMobileModel(std::move(module), tally, facts));
  } catch (const std::exception& e) {
    tally->Release();
    std::string what = e.what();
    if (const size_t eol = what.find('\n'); eol != std::string::npos) what.resize(eol);
    return absl::FailedPreconditionError("pytorch-mobile cannot load the model: " + what);
  }
}

}  // namespace service
}  // namespace edgefleet
