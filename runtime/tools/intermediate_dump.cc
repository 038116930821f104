#include "runtime/tools/intermediate_dump.h"

#include <cstdio>

#include "runtime/core/error_detail.h"
#include "runtime/tools/error_context.h"
#include "runtime/tools/file_io.h"
#include "runtime/tools/json_writer.h"
#include "runtime/tools/npy_tensors.h"

namespace edgefleet {
namespace tools {

IntermediateDump::IntermediateDump(const Method& method, size_t max_tensors, uint64_t max_bytes)
    : method_(method), max_tensors_(max_tensors), max_bytes_(max_bytes) {}

TraceToken IntermediateDump::Begin(const TraceEvent& event) {
  if (event.kind != TraceEventKind::kInstruction || event.instruction < 0) return kDroppedEvent;
  Entry entry;
  entry.instruction = event.instruction;
  entry.name = event.name != nullptr ? event.name : "";
  entry.kernel = event.detail != nullptr ? event.detail : "";
  entries_.push_back(std::move(entry));
  return static_cast<TraceToken>(entries_.size() - 1);
}

void IntermediateDump::Copy(const Tensor& tensor, Entry* entry) {
  if (!overflow_.empty()) return;
  if (tensors_ + 1 > max_tensors_) {
    overflow_ = "more than " + std::to_string(max_tensors_) + " tensors";
    return;
  }
  if (bytes_ + tensor.nbytes() > max_bytes_) {
    overflow_ = "more than " + std::to_string(max_bytes_) + " bytes";
    return;
  }
  Result<NpyArray> array = NpyFromTensor(tensor);
  if (!array.ok()) {
    overflow_ =
        "instruction " + std::to_string(entry->instruction) + ": its output cannot be copied";
    return;
  }
  ++tensors_;
  bytes_ += tensor.nbytes();
  entry->tensors.push_back(*std::move(array));
}

void IntermediateDump::End(TraceToken token) {
  if (token >= entries_.size()) return;
  Entry& entry = entries_[token];
  if (entry.kernel == "folded" || entry.kernel == "fused" || entry.kernel == "control") return;
  const Span<EValue* const> args = method_.instruction_args(static_cast<size_t>(entry.instruction));
  if (args.size() == 0 || args[args.size() - 1] == nullptr) return;
  const EValue& out = *args[args.size() - 1];
  if (out.is_tensor()) {
    Copy(out.to_tensor(), &entry);
  } else if (out.tag() == Tag::kListTensor) {
    for (Tensor* t : out.to_tensor_list().Get()) {
      if (t != nullptr) Copy(*t, &entry);
    }
  }
}

Error IntermediateDump::Write(const std::string& dir, const std::string& model,
                              const std::string& method_name) const {
  EF_RETURN_IF_ERROR(EnsureDirectory(dir));
  JsonWriter json;
  json.BeginObject().Key("model").String(model).Key("method").String(method_name);
  json.Key("instructions").BeginArray();
  for (const Entry& entry : entries_) {
    json.BeginObject()
        .Key("instruction")
        .Int(entry.instruction)
        .Key("name")
        .String(entry.name)
        .Key("kernel")
        .String(entry.kernel)
        .Key("files")
        .BeginArray();
    for (size_t k = 0; k < entry.tensors.size(); ++k) {
      char file[64];
      snprintf(file, sizeof(file), "%05d_%zu.npy", entry.instruction, k);
      Result<std::vector<uint8_t>> bytes = SerializeNpy(entry.tensors[k]);
      if (!bytes.ok()) return WithErrorContext(bytes.error(), file);
      EF_RETURN_IF_ERROR(WriteFileBytes(dir + "/" + file, *bytes));
      json.String(file);
    }
    json.EndArray().EndObject();
  }
  json.EndArray().EndObject();
  const std::string text = json.str() + "\n";
  return WriteFileBytes(dir + "/index.json", std::vector<uint8_t>(text.begin(), text.end()));
}

}  // namespace tools
}  // namespace edgefleet
