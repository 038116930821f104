#include "service/tensor_codec.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace edgefleet {
namespace service {
namespace {

absl::Status Invalid(const std::string& input, const std::string& what) {
  return absl::InvalidArgumentError(input + ": " + what);
}

// Copies typed contents into `bytes` (element width of `dtype`). Returns
// the number of elements the field that `dtype` uses holds, or -1 if the
// request used a field that does not match the datatype.
template <typename Src, typename Dst>
void CopyElements(const google::protobuf::RepeatedField<Src>& src, std::vector<uint8_t>* bytes) {
  bytes->resize(src.size() * sizeof(Dst));
  for (int i = 0; i < src.size(); ++i) {
    const Dst v = static_cast<Dst>(src.Get(i));
    memcpy(bytes->data() + i * sizeof(Dst), &v, sizeof(Dst));
  }
}

// The InferTensorContents field a datatype's typed data goes in ("" when
// it must be raw: FP16, BF16).
const char* TypedField(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::kBool:
      return "bool_contents";
    case ScalarType::kChar:
    case ScalarType::kShort:
    case ScalarType::kInt:
      return "int_contents";
    case ScalarType::kLong:
      return "int64_contents";
    case ScalarType::kByte:
    case ScalarType::kUInt16:
    case ScalarType::kUInt32:
      return "uint_contents";
    case ScalarType::kUInt64:
      return "uint64_contents";
    case ScalarType::kFloat:
      return "fp32_contents";
    case ScalarType::kDouble:
      return "fp64_contents";
    default:
      return "";
  }
}

// "one output, output_0" / "3 outputs, output_0, output_1, output_2".
std::string Listing(size_t count, const std::string& noun, const std::vector<std::string>& names) {
  std::string text = count == 1 ? "one " + noun : std::to_string(count) + " " + noun + "s";
  for (const std::string& name : names) text += ", " + name;
  return text;
}

std::vector<std::string> OutputNames(size_t count) {
  std::vector<std::string> names;
  for (size_t j = 0; j < count; ++j) names.push_back("output_" + std::to_string(j));
  return names;
}

// OK unless `parameters` (of an input or requested output `what`) ask for
// a protocol extension this server does not offer, which a client would
// otherwise believe honoured: shared memory (its data would be neither read
// nor written there) or classification (it would get raw scores).
template <typename Parameters>
absl::Status CheckExtensions(const Parameters& parameters, const std::string& what) {
  for (const char* name : {"shared_memory_region", "shared_memory_offset",
                           "shared_memory_byte_size", "classification"}) {
    if (parameters.count(name) > 0) {
      return absl::InvalidArgumentError(what.substr(0, 64) + ": parameter '" + name +
                                        "' asks for an extension this server does not offer "
                                        "(no shared memory, no classification); send the data "
                                        "in the request and read raw outputs");
    }
  }
  return absl::OkStatus();
}

// The requested outputs, each once, among `count` outputs.
absl::Status CheckRequestedOutputs(const inference::ModelInferRequest& request, size_t count) {
  const std::vector<std::string> names = OutputNames(count);
  std::map<std::string, int> seen;
  for (const auto& requested : request.outputs()) {
    if (absl::Status s = CheckExtensions(requested.parameters(), requested.name()); !s.ok()) {
      return s;
    }
    if (std::find(names.begin(), names.end(), requested.name()) == names.end()) {
      return absl::InvalidArgumentError("unknown output '" + requested.name().substr(0, 64) +
                                        "'; the model has " + Listing(count, "output", names));
    }
    if (++seen[requested.name()] > 1) {
      return absl::InvalidArgumentError("output '" + requested.name() + "' requested twice");
    }
  }
  return absl::OkStatus();
}

int64_t TypedCount(const inference::InferTensorContents& c, ScalarType dtype) {
  switch (dtype) {
    case ScalarType::kBool:
      return c.bool_contents_size();
    case ScalarType::kChar:
    case ScalarType::kShort:
    case ScalarType::kInt:
      return c.int_contents_size();
    case ScalarType::kLong:
      return c.int64_contents_size();
    case ScalarType::kByte:
    case ScalarType::kUInt16:
    case ScalarType::kUInt32:
      return c.uint_contents_size();
    case ScalarType::kUInt64:
      return c.uint64_contents_size();
    case ScalarType::kFloat:
      return c.fp32_contents_size();
    case ScalarType::kDouble:
      return c.fp64_contents_size();
    default:
      return -1;  // FP16/BF16 must be raw
  }
}

int64_t TotalTypedCount(const inference::InferTensorContents& c) {
  return c.bool_contents_size() + c.int_contents_size() + c.int64_contents_size() +
         c.uint_contents_size() + c.uint64_contents_size() + c.fp32_contents_size() +
         c.fp64_contents_size() + c.bytes_contents_size();
}

void CopyTyped(const inference::InferTensorContents& c, ScalarType dtype,
               std::vector<uint8_t>* bytes) {
  switch (dtype) {
    case ScalarType::kBool:
      CopyElements<bool, uint8_t>(c.bool_contents(), bytes);
      break;
    case ScalarType::kChar:
      CopyElements<int32_t, int8_t>(c.int_contents(), bytes);
      break;
    case ScalarType::kShort:
      CopyElements<int32_t, int16_t>(c.int_contents(), bytes);
      break;
    case ScalarType::kInt:
      CopyElements<int32_t, int32_t>(c.int_contents(), bytes);
      break;
    case ScalarType::kLong:
      CopyElements<int64_t, int64_t>(c.int64_contents(), bytes);
      break;
    case ScalarType::kByte:
      CopyElements<uint32_t, uint8_t>(c.uint_contents(), bytes);
      break;
    case ScalarType::kUInt16:
      CopyElements<uint32_t, uint16_t>(c.uint_contents(), bytes);
      break;
    case ScalarType::kUInt32:
      CopyElements<uint32_t, uint32_t>(c.uint_contents(), bytes);
      break;
    case ScalarType::kUInt64:
      CopyElements<uint64_t, uint64_t>(c.uint64_contents(), bytes);
      break;
    case ScalarType::kFloat:
      CopyElements<float, float>(c.fp32_contents(), bytes);
      break;
    case ScalarType::kDouble:
      CopyElements<double, double>(c.fp64_contents(), bytes);
      break;
    default:
      break;
  }
}

absl::Status CheckShape(const TensorSpec& spec, const std::vector<int64_t>& shape,
                        const std::string& datatype) {
  // min_shape is filled by ModelRepository::Signature; a spec built
  // without it is static.
  const std::vector<int64_t>& min =
      spec.min_shape.size() == spec.shape.size() ? spec.min_shape : spec.shape;
  bool ok = shape.size() == spec.shape.size();
  for (size_t d = 0; ok && d < shape.size(); ++d) {
    ok = shape[d] >= min[d] && shape[d] <= spec.shape[d];
  }
  if (!ok) {
    const char* want_type = KserveDatatype(spec.dtype);
    return Invalid(spec.name, "expected " +
                                  DescribeBounds(want_type ? want_type : "?", min, spec.shape) +
                                  ", got " + DescribeShape(datatype, shape));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<TensorData>> DecodeInputs(const inference::ModelInferRequest& request,
                                                     const ModelSignature& signature) {
  const bool raw = request.raw_input_contents_size() > 0;
  if (raw && request.raw_input_contents_size() != request.inputs_size()) {
    return absl::InvalidArgumentError(
        "raw_input_contents has " + std::to_string(request.raw_input_contents_size()) +
        " entries for " + std::to_string(request.inputs_size()) + " inputs");
  }
  std::map<std::string, int> by_name;
  for (int i = 0; i < request.inputs_size(); ++i) {
    const std::string& name = request.inputs(i).name();
    if (absl::Status s = CheckExtensions(request.inputs(i).parameters(), name); !s.ok()) return s;
    bool known = false;
    for (const TensorSpec& spec : signature.inputs) known = known || spec.name == name;
    if (!known) {
      std::vector<std::string> names;
      for (const TensorSpec& spec : signature.inputs) names.push_back(spec.name);
      return absl::InvalidArgumentError("unknown input '" + name.substr(0, 64) +
                                        "'; the model takes " +
                                        Listing(names.size(), "input", names));
    }
    if (!by_name.emplace(name, i).second) {
      return absl::InvalidArgumentError("input '" + name + "' given twice");
    }
  }
  std::vector<TensorData> inputs;
  for (const TensorSpec& spec : signature.inputs) {
    auto it = by_name.find(spec.name);
    if (it == by_name.end()) return Invalid(spec.name, "missing");
    const auto& tensor = request.inputs(it->second);
    TensorData data;
    if (!ScalarTypeFromKserve(tensor.datatype(), &data.dtype)) {
      return Invalid(spec.name, "unknown datatype '" + tensor.datatype().substr(0, 16) + "'");
    }
    if (data.dtype != spec.dtype) {
      return Invalid(spec.name, std::string("expected datatype ") + KserveDatatype(spec.dtype) +
                                    ", got " + tensor.datatype());
    }
    data.shape.assign(tensor.shape().begin(), tensor.shape().end());
    if (absl::Status s = CheckShape(spec, data.shape, tensor.datatype()); !s.ok()) return s;
    const int64_t numel = data.numel();
    const uint64_t nbytes = static_cast<uint64_t>(numel) * ElementSize(data.dtype);
    if (raw) {
      if (tensor.has_contents() && TotalTypedCount(tensor.contents()) > 0) {
        return Invalid(spec.name, "has both raw and typed contents");
      }
      const std::string& bytes = request.raw_input_contents(it->second);
      if (bytes.size() != nbytes) {
        return Invalid(spec.name, "raw contents hold " + std::to_string(bytes.size()) + " bytes; " +
                                      DescribeShape(tensor.datatype(), data.shape) + " needs " +
                                      std::to_string(nbytes));
      }
      data.bytes.assign(bytes.begin(), bytes.end());
    } else {
      const int64_t count = TypedCount(tensor.contents(), data.dtype);
      if (count < 0) {
        return Invalid(spec.name, tensor.datatype() + " data must be sent as raw contents");
      }
      const int64_t elsewhere = TotalTypedCount(tensor.contents()) - count;
      if (elsewhere > 0) {
        return Invalid(spec.name, tensor.datatype() + " data goes in contents." +
                                      TypedField(data.dtype) + " (or raw_input_contents); " +
                                      std::to_string(elsewhere) +
                                      " elements are in other contents fields");
      }
      if (count != numel) {
        return Invalid(spec.name, "contents." + std::string(TypedField(data.dtype)) + " holds " +
                                      std::to_string(count) + " elements; " +
                                      DescribeShape(tensor.datatype(), data.shape) + " needs " +
                                      std::to_string(numel));
      }
      CopyTyped(tensor.contents(), data.dtype, &data.bytes);
    }
    inputs.push_back(std::move(data));
  }
  if (absl::Status s = CheckRequestedOutputs(request, signature.outputs.size()); !s.ok()) {
    return s;
  }
  return inputs;
}

absl::Status EncodeOutputs(const inference::ModelInferRequest& request,
                           std::vector<TensorData> outputs,
                           inference::ModelInferResponse* response) {
  if (absl::Status s = CheckRequestedOutputs(request, outputs.size()); !s.ok()) return s;
  std::vector<size_t> wanted;
  if (request.outputs().empty()) {
    for (size_t j = 0; j < outputs.size(); ++j) wanted.push_back(j);
  } else {
    for (const auto& requested : request.outputs()) {
      wanted.push_back(static_cast<size_t>(std::stoul(requested.name().substr(7))));
    }
  }
  for (size_t j : wanted) {
    TensorData& out = outputs[j];
    auto* tensor = response->add_outputs();
    tensor->set_name("output_" + std::to_string(j));
    const char* datatype = KserveDatatype(out.dtype);
    tensor->set_datatype(datatype != nullptr ? datatype : "BYTES");
    for (int64_t d : out.shape) tensor->add_shape(d);
    response->add_raw_output_contents(std::string(out.bytes.begin(), out.bytes.end()));
  }
  return absl::OkStatus();
}

}  // namespace service
}  // namespace edgefleet
