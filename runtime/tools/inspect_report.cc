#include "runtime/tools/inspect_report.h"

#include <algorithm>

#include "runtime/tools/json_writer.h"

namespace edgefleet {
namespace tools {
namespace {

std::string Join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i > 0 ? separator : "") + items[i];
  return out;
}

// `i` left-aligned in a field of `width` characters.
std::string Padded(size_t i, size_t width) {
  std::string text = std::to_string(i);
  text.resize(std::max(width, text.size() + 1), ' ');
  return text;
}

// "0" or "2: a, b".
std::string CountedList(const std::vector<std::string>& items) {
  return std::to_string(items.size()) + (items.empty() ? "" : ": " + Join(items, ", "));
}

template <typename T>
std::string Tuple(const std::vector<T>& items, char open, char close) {
  std::string out(1, open);
  for (size_t i = 0; i < items.size(); ++i) {
    out += (i > 0 ? "," : "") + std::to_string(items[i]);
  }
  return out + close;
}

void ValueToJson(const InspectReport::Value& value, JsonWriter& json) {
  json.BeginObject().Key("tag").String(value.tag);
  if (value.is_tensor) {
    json.Key("dtype").String(value.dtype);
    json.Key("shape").BeginArray();
    for (int32_t d : value.shape) json.Int(d);
    json.EndArray();
    json.Key("dim_order").BeginArray();
    for (uint8_t d : value.dim_order) json.Int(d);
    json.EndArray();
    json.Key("dynamism").String(value.dynamism);
    json.Key("planned").Bool(value.planned);
    json.Key("nbytes").Uint(value.nbytes);
  }
  json.EndObject();
}

void StringsToJson(const std::vector<std::string>& items, JsonWriter& json) {
  json.BeginArray();
  for (const std::string& item : items) json.String(item);
  json.EndArray();
}

void MethodToJson(const InspectReport::MethodInfo& m, JsonWriter& json) {
  json.BeginObject().Key("name").String(m.name);
  json.Key("inputs").BeginArray();
  for (const auto& v : m.inputs) ValueToJson(v, json);
  json.EndArray();
  json.Key("outputs").BeginArray();
  for (const auto& v : m.outputs) ValueToJson(v, json);
  json.EndArray();
  json.Key("planned_buffers").BeginArray();
  for (int64_t size : m.planned_buffers) json.Int(size);
  json.EndArray();
  json.Key("method_allocator_bytes").Uint(m.method_allocator_bytes);
  json.Key("operators");
  StringsToJson(m.operators, json);
  json.Key("unregistered_operators");
  StringsToJson(m.unregistered_operators, json);
  json.Key("delegates");
  StringsToJson(m.delegates, json);
  json.Key("delegate_descriptions");
  StringsToJson(m.delegate_descriptions, json);
  json.Key("instructions").Uint(m.num_instructions);
  json.Key("loaded").Bool(m.loaded);
  if (m.loaded) {
    json.Key("instruction_kinds");
    StringsToJson(m.instruction_kinds, json);
    json.Key("instruction_names");
    StringsToJson(m.instruction_names, json);
  } else {
    json.Key("load_error").String(m.load_error);
  }
  json.EndObject();
}

std::string ValueToText(const InspectReport::Value& value) {
  if (!value.is_tensor) return value.tag;
  return "tensor " + value.dtype + Tuple(value.shape, '[', ']') + " dim_order " +
         Tuple(value.dim_order, '(', ')') + " " + value.dynamism +
         (value.planned ? " planned" : " unplanned") + " " + std::to_string(value.nbytes) +
         " bytes";
}

// "[0-11] portable, [12] delegate": runs of equal kinds, by instruction index.
std::string KindRuns(const std::vector<std::string>& kinds) {
  std::vector<std::string> runs;
  for (size_t start = 0; start < kinds.size();) {
    size_t end = start;
    while (end + 1 < kinds.size() && kinds[end + 1] == kinds[start]) ++end;
    std::string range = "[" + std::to_string(start);
    if (end > start) range += "-" + std::to_string(end);
    runs.push_back(range + "] " + kinds[start]);
    start = end + 1;
  }
  return Join(runs, ", ");
}

void MethodToText(const InspectReport::MethodInfo& m, std::string* out) {
  *out += "method " + m.name + "\n";
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    *out += "  input " + Padded(i, 11) + ValueToText(m.inputs[i]) + "\n";
  }
  for (size_t i = 0; i < m.outputs.size(); ++i) {
    *out += "  output " + Padded(i, 10) + ValueToText(m.outputs[i]) + "\n";
  }
  *out += "  planned buffers  " + Tuple(m.planned_buffers, '[', ']') + " bytes\n";
  *out += "  method allocator " + std::to_string(m.method_allocator_bytes) + " bytes\n";
  *out += "  operators        " + CountedList(m.operators) + "\n";
  if (!m.unregistered_operators.empty()) {
    *out += "  unregistered     " + CountedList(m.unregistered_operators) + "\n";
  }
  *out += "  delegates        " + CountedList(m.delegates) + "\n";
  for (size_t i = 0; i < m.delegate_descriptions.size(); ++i) {
    if (m.delegate_descriptions[i].empty()) continue;
    *out += "    [" + std::to_string(i) + "] " + m.delegate_descriptions[i] + "\n";
  }
  *out += "  instructions     " + std::to_string(m.num_instructions) + "\n";
  if (m.loaded) {
    *out += "  kernels          " +
            (m.instruction_kinds.empty() ? "none" : KindRuns(m.instruction_kinds)) + "\n";
  } else {
    *out += "  kernels          not resolved: " + m.load_error + "\n";
  }
}

}  // namespace

std::string InspectReportToJson(const InspectReport& report) {
  JsonWriter json;
  json.BeginObject();
  json.Key("model").String(report.model);
  json.Key("kernels").String(report.kernels);
  json.Key("extended_header").Bool(report.extended_header);
  json.Key("program_size").Uint(report.program_size);
  json.Key("segments").BeginArray();
  for (const auto& s : report.segments) {
    json.BeginObject().Key("offset").Uint(s.offset).Key("size").Uint(s.size).EndObject();
  }
  json.EndArray();
  json.Key("constant_segment_size").Uint(report.constant_segment_size);
  json.Key("deprecated_inline_constants").Bool(report.deprecated_inline_constants);
  json.Key("named_data_keys");
  StringsToJson(report.named_data_keys, json);
  json.Key("methods").BeginArray();
  for (const auto& m : report.methods) MethodToJson(m, json);
  json.EndArray();
  json.EndObject();
  return json.str();
}

std::string InspectReportToText(const InspectReport& report) {
  std::string out = "program " + report.model + "\n";
  out += "  extended header  " + std::string(report.extended_header ? "yes" : "no") + "\n";
  out += "  program size     " + std::to_string(report.program_size) + " bytes\n";
  std::vector<std::string> segments;
  for (size_t i = 0; i < report.segments.size(); ++i) {
    segments.push_back("[" + std::to_string(i) + "] offset " +
                       std::to_string(report.segments[i].offset) + " size " +
                       std::to_string(report.segments[i].size));
  }
  out += "  segments         " + CountedList(segments) + "\n";
  out += "  constant segment " + std::to_string(report.constant_segment_size) + " bytes\n";
  out += "  inline constants " +
         std::string(report.deprecated_inline_constants ? "yes (deprecated)" : "no") + "\n";
  out += "  named data       " +
         (report.named_data_keys.empty() ? "none" : Join(report.named_data_keys, ", ")) + "\n";
  for (const auto& m : report.methods) MethodToText(m, &out);
  return out;
}

}  // namespace tools
}  // namespace edgefleet
