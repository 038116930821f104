// InspectReport: what `edgefleet-run inspect` found in a program, and its
// JSON and text forms.
//
// A plain value type; formatting functions are stateless and thread-safe.

#ifndef EDGEFLEET_RUNTIME_TOOLS_INSPECT_REPORT_H_
#define EDGEFLEET_RUNTIME_TOOLS_INSPECT_REPORT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace edgefleet {
namespace tools {

struct InspectReport {
  // A method input or output.
  struct Value {
    std::string tag;  // TagName(): "Tensor", "Int", "Double", "Bool", "None", ...
    bool is_tensor = false;
    // Tensor facts (is_tensor only).
    std::string dtype;
    std::vector<int32_t> shape;
    std::vector<uint8_t> dim_order;
    std::string dynamism;  // "static", "dynamic_bound", "dynamic_unbound"
    bool planned = false;
    uint64_t nbytes = 0;
  };

  struct Segment {
    uint64_t offset = 0;
    uint64_t size = 0;
  };

  struct MethodInfo {
    std::string name;
    std::vector<Value> inputs;
    std::vector<Value> outputs;
    std::vector<int64_t> planned_buffers;  // bytes, 0-based arenas
    uint64_t method_allocator_bytes = 0;
    std::vector<std::string> operators;  // "aten::add.out"
    // The operators no kernel is registered for (every one, not only the
    // first that stops the load).
    std::vector<std::string> unregistered_operators;
    std::vector<std::string> delegates;  // backend ids
    size_t num_instructions = 0;
    // Kernel resolution: whether Method::Load succeeded, why not, and the
    // kind of every instruction (portable/optimized/delegate/control).
    bool loaded = false;
    std::string load_error;
    std::vector<std::string> instruction_kinds;
    // Per instruction: what it runs, as Method::instruction_name gives it.
    std::vector<std::string> instruction_names;
    // Per delegate: the backend's description of what it compiled.
    std::vector<std::string> delegate_descriptions;
  };

  std::string model;
  std::string kernels;  // "optimized_first" or "portable_only"
  bool extended_header = false;
  uint64_t program_size = 0;
  std::vector<Segment> segments;
  uint64_t constant_segment_size = 0;
  bool deprecated_inline_constants = false;
  std::vector<std::string> named_data_keys;
  std::vector<MethodInfo> methods;
};

// One JSON object (no trailing newline).
std::string InspectReportToJson(const InspectReport& report);

// A human-readable listing (several lines, ending in a newline).
std::string InspectReportToText(const InspectReport& report);

}  // namespace tools
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_TOOLS_INSPECT_REPORT_H_
