#include "runtime/tools/inspect_command.h"

#include <memory>

#include "runtime/core/error_detail.h"
#include "runtime/kernels/kernel_registry.h"
#include "runtime/module/module.h"

namespace edgefleet {
namespace tools {
namespace {

const char* DynamismName(ShapeDynamism dynamism) {
  switch (dynamism) {
    case ShapeDynamism::kStatic:
      return "static";
    case ShapeDynamism::kDynamicBound:
      return "dynamic_bound";
    case ShapeDynamism::kDynamicUnbound:
      return "dynamic_unbound";
  }
  return "unknown";
}

InspectReport::Value DescribeValue(Result<Tag> tag, Result<TensorInfo> info) {
  InspectReport::Value value;
  value.tag = tag.ok() ? TagName(*tag) : "invalid";
  if (!tag.ok() || *tag != Tag::kTensor || !info.ok()) return value;
  value.is_tensor = true;
  value.dtype = ScalarTypeName(info->dtype);
  value.shape.assign(info->sizes.begin(), info->sizes.end());
  value.dim_order.assign(info->dim_order.begin(), info->dim_order.end());
  value.dynamism = DynamismName(info->dynamism);
  value.planned = info->is_memory_planned;
  value.nbytes = info->nbytes;
  return value;
}

InspectReport::MethodInfo DescribeMethod(const MethodMeta& meta) {
  InspectReport::MethodInfo m;
  m.name = meta.name();
  for (size_t i = 0; i < meta.num_inputs(); ++i) {
    m.inputs.push_back(DescribeValue(meta.input_tag(i), meta.input_tensor_info(i)));
  }
  for (size_t i = 0; i < meta.num_outputs(); ++i) {
    m.outputs.push_back(DescribeValue(meta.output_tag(i), meta.output_tensor_info(i)));
  }
  for (size_t i = 0; i < meta.num_planned_buffers(); ++i) {
    Result<int64_t> size = meta.planned_buffer_size(i);
    m.planned_buffers.push_back(size.ok() ? *size : -1);
  }
  m.method_allocator_bytes = meta.method_allocator_bytes();
  for (size_t i = 0; i < meta.num_operators(); ++i) {
    char name[256];
    const bool named = meta.operator_name(i, name, sizeof(name));
    m.operators.push_back(named ? name : "(name too long)");
    if (named && !HasKernel(name)) m.unregistered_operators.push_back(name);
  }
  for (size_t i = 0; i < meta.num_backends(); ++i) m.delegates.push_back(meta.backend_name(i));
  m.num_instructions = meta.num_instructions();
  return m;
}

}  // namespace

Result<InspectReport> InspectModel(const InspectOptions& options) {
  Module::Options module_options;
  module_options.method.kernels =
      options.portable_only ? KernelPreference::kPortableOnly : KernelPreference::kOptimizedFirst;
  EF_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, Module::Load(options.model, module_options));
  const Program& program = module->program();

  InspectReport report;
  report.model = options.model;
  report.kernels = options.portable_only ? "portable_only" : "optimized_first";
  report.extended_header = program.has_extended_header();
  report.program_size = program.program_size();
  for (size_t i = 0; i < program.num_segments(); ++i) {
    const SegmentInfoView segment = program.segment(i);
    report.segments.push_back({segment.offset, segment.size});
  }
  report.constant_segment_size = program.constant_segment_size();
  report.deprecated_inline_constants = program.uses_deprecated_constant_buffer();
  for (size_t i = 0; i < program.num_named_data(); ++i) {
    report.named_data_keys.push_back(program.named_data_key(i));
  }

  for (size_t i = 0; i < program.num_methods(); ++i) {
    const char* name = program.method_name(i);
    EF_ASSIGN_OR_RETURN(const MethodMeta meta, program.method_meta(name));
    InspectReport::MethodInfo info = DescribeMethod(meta);
    ClearErrorDetail();
    Result<Method*> method = module->LoadMethod(name);
    info.loaded = method.ok();
    if (method.ok()) {
      for (size_t pc = 0; pc < (*method)->num_instructions(); ++pc) {
        info.instruction_kinds.push_back((*method)->instruction_kind(pc));
        char op[128];
        if (!(*method)->instruction_name(pc, op, sizeof(op))) op[0] = '\0';
        info.instruction_names.push_back(op);
      }
      for (size_t d = 0; d < (*method)->num_delegates(); ++d) {
        char text[1024];
        const bool whole = (*method)->delegate_description(d, text, sizeof(text));
        info.delegate_descriptions.push_back(std::string(text) + (whole ? "" : " ..."));
      }
    } else {
      const char* detail = LastErrorDetail();
      info.load_error = detail[0] != '\0' ? detail : ErrorName(method.error());
    }
    report.methods.push_back(std::move(info));
  }
  return report;
}

}  // namespace tools
}  // namespace edgefleet
