#include "runtime/tools/run_command.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <thread>

#include "runtime/backends/xnnpack/xnnpack_backend.h"
#include "runtime/core/error_detail.h"
#include "runtime/devtools/etdump_writer.h"
#include "runtime/devtools/trace_recorder.h"
#include "runtime/platform/clock.h"
#include "runtime/tools/chrome_trace.h"
#include "runtime/tools/error_context.h"
#include "runtime/tools/file_io.h"
#include "runtime/tools/intermediate_dump.h"
#include "runtime/tools/latency_stats.h"
#include "runtime/tools/npy.h"
#include "runtime/tools/npy_tensors.h"

namespace edgefleet {
namespace tools {
namespace {

double MillisSince(uint64_t start_nanos) {
  return static_cast<double>(MonotonicNanos() - start_nanos) / 1e6;
}

Result<std::vector<NpyArray>> ReadInputFiles(const std::vector<std::string>& paths) {
  std::vector<NpyArray> arrays;
  for (const std::string& path : paths) {
    EF_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadFileBytes(path));
    Result<NpyArray> array = ParseNpy(bytes.data(), bytes.size());
    if (!array.ok()) return WithErrorContext(array.error(), path.c_str());
    arrays.push_back(std::move(array.get()));
  }
  return arrays;
}

// Checks that `name` is a method of the program, listing those it has.
Error CheckMethodExists(const Program& program, const std::string& name) {
  // The list is cut to fit the one-line detail.
  constexpr size_t kMaxListed = 120;
  std::string names;
  for (size_t i = 0; i < program.num_methods(); ++i) {
    if (name == program.method_name(i)) return Error::kOk;
    if (names.size() > kMaxListed) continue;
    names += (i > 0 ? ", " : "") + std::string(program.method_name(i));
    if (names.size() > kMaxListed) names += ", ...";
  }
  EF_FAIL(Error::kNotFound, "method '%.64s' not found (the program has: %s)", name.c_str(),
          names.c_str());
}

// A .npy view of output `value`, or false in `*is_array` for kinds that
// have none (None, strings, lists).
Result<NpyArray> OutputArray(const EValue& value, bool* is_array) {
  NpyArray array;
  *is_array = true;
  const auto scalar = [&array](ScalarType dtype, const void* data, size_t size) {
    array.dtype = dtype;
    array.data.assign(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + size);
  };
  if (value.is_tensor()) {
    return NpyFromTensor(value.to_tensor());
  }
  if (value.is_int()) {
    const int64_t v = value.to_int();
    scalar(ScalarType::kLong, &v, sizeof(v));
  } else if (value.is_double()) {
    const double v = value.to_double();
    scalar(ScalarType::kDouble, &v, sizeof(v));
  } else if (value.is_bool()) {
    const uint8_t v = value.to_bool() ? 1 : 0;
    scalar(ScalarType::kBool, &v, sizeof(v));
  } else {
    *is_array = false;
  }
  return array;
}

Error CollectOutputs(const Method& method, const std::string& output_dir, RunReport* report) {
  for (size_t i = 0; i < method.num_outputs(); ++i) {
    const std::string context = "output " + std::to_string(i);
    const EValue& value = method.output(i);
    bool is_array = false;
    Result<NpyArray> converted = OutputArray(value, &is_array);
    if (!converted.ok()) return WithErrorContext(converted.error(), context.c_str());
    const NpyArray& array = *converted;
    RunReport::Output output;
    output.has_shape = is_array;
    output.dtype = is_array ? ScalarTypeName(array.dtype) : TagName(value.tag());
    output.shape = array.shape;
    if (!output_dir.empty()) {
      EF_CHECK_OR_RETURN(is_array, Error::kNotSupported,
                         "output %zu: a %s output cannot be written as .npy", i,
                         TagName(value.tag()));
      Result<std::vector<uint8_t>> bytes = SerializeNpy(array);
      if (!bytes.ok()) return WithErrorContext(bytes.error(), context.c_str());
      output.file = output_dir + "/output_" + std::to_string(i) + ".npy";
      EF_RETURN_IF_ERROR(WriteFileBytes(output.file, *bytes));
    }
    report->outputs.push_back(std::move(output));
  }
  return Error::kOk;
}

Error RunOnce(MethodInputs& inputs, Method& method) {
  EF_RETURN_IF_ERROR(inputs.Apply(method));
  return method.Execute();
}

// Record buffer for `runs` traced executes of a method of
// `num_instructions` instructions: load phases, per execute its event, one
// event and one scratch allocation per instruction, and room for delegate
// nodes; capped (a full buffer drops and counts further events).
size_t TraceCapacity(size_t num_instructions, size_t runs) {
  constexpr size_t kLoadEvents = 256;
  constexpr size_t kDelegateNodesPerRun = 1024;
  constexpr size_t kMaxRecords = size_t{1} << 20;
  const size_t per_run = 1 + 2 * num_instructions + kDelegateNodesPerRun;
  return std::min(kMaxRecords, kLoadEvents + runs * per_run);
}

// Writes the recorder's events where `options` asks.
Error ExportTrace(const TraceRecorder& recorder, const RunOptions& options) {
  if (!options.etdump.empty()) {
    EF_RETURN_IF_ERROR(WriteFileBytes(options.etdump, WriteEtdump(recorder)));
  }
  if (!options.trace.empty()) {
    const std::string json = ChromeTraceJson(recorder, "edgefleet-run " + options.model);
    EF_RETURN_IF_ERROR(
        WriteFileBytes(options.trace, std::vector<uint8_t>(json.begin(), json.end())));
  }
  return Error::kOk;
}

}  // namespace

Result<RunReport> RunModel(const RunOptions& options) {
  RunReport report;
  report.options = options;
  if (report.options.threads <= 0) {
    report.options.threads = static_cast<int>(std::thread::hardware_concurrency());
    if (report.options.threads <= 0) report.options.threads = 1;
  }
  // Cheap failures first: unreadable inputs, an unusable output directory.
  EF_ASSIGN_OR_RETURN(std::vector<NpyArray> arrays, ReadInputFiles(options.inputs));
  if (!options.output_dir.empty()) EF_RETURN_IF_ERROR(EnsureDirectory(options.output_dir));

  Module::Options module_options;
  module_options.load_mode = options.load_mode;
  module_options.method.kernels =
      options.portable_only ? KernelPreference::kPortableOnly : KernelPreference::kOptimizedFirst;
  module_options.method.num_threads = report.options.threads;
  // One tracer sees the method load and the extra executes after the timed
  // ones; it is detached while timing.
  const bool traced = options.profile || !options.etdump.empty() || !options.trace.empty();
  const size_t traced_runs = static_cast<size_t>(std::max(options.iterations, 1));
  std::vector<TraceRecord> records;
  std::unique_ptr<TraceRecorder> recorder;

  uint64_t start = MonotonicNanos();
  EF_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, Module::Load(options.model, module_options));
  report.load_ms = MillisSince(start);

  const char* name = options.method.c_str();
  EF_RETURN_IF_ERROR(CheckMethodExists(module->program(), options.method));
  EF_ASSIGN_OR_RETURN(const MethodMeta meta, module->program().method_meta(name));
  // The real runtime initializes XNNPACK and starts its thread pool before
  // any program loads; so does this, outside the timed loads, for a method
  // with an XNNPACK delegate (only: the pool's idle workers spin, and
  // would take the CPU from the load of a method that never uses them).
  for (size_t i = 0; i < meta.num_backends(); ++i) {
    if (std::strcmp(meta.backend_name(i), "XnnpackBackend") == 0) {
      EF_RETURN_IF_ERROR(PrepareXnnpackBackend(report.options.threads));
      break;
    }
  }
  Result<MethodInputs> inputs = options.inputs.empty()
                                    ? MethodInputs::Random(meta, options.seed)
                                    : MethodInputsFromArrays(meta, arrays, options.inputs);
  if (!inputs.ok()) return inputs.error();
  report.inputs = inputs->descriptions();

  if (traced) {
    records.resize(TraceCapacity(meta.num_instructions(), traced_runs));
    recorder = std::make_unique<TraceRecorder>(Span<TraceRecord>(records.data(), records.size()));
    module->set_method_tracer(recorder.get());
  }
  start = MonotonicNanos();
  EF_ASSIGN_OR_RETURN(Method * method, module->LoadMethod(name));
  report.method_load_ms = MillisSince(start);
  method->set_event_tracer(nullptr);

  start = MonotonicNanos();
  EF_RETURN_IF_ERROR(RunOnce(*inputs, *method));
  report.first_ms = MillisSince(start);
  for (int i = 0; i < options.warmup; ++i) EF_RETURN_IF_ERROR(RunOnce(*inputs, *method));
  if (options.iterations > 0) {
    std::vector<double> samples;
    samples.reserve(static_cast<size_t>(options.iterations));
    const uint64_t cpu_start = ProcessCpuNanos();
    for (int i = 0; i < options.iterations; ++i) {
      start = MonotonicNanos();
      EF_RETURN_IF_ERROR(RunOnce(*inputs, *method));
      samples.push_back(MillisSince(start));
    }
    report.cpu_ms = static_cast<double>(ProcessCpuNanos() - cpu_start) / 1e6 / options.iterations;
    report.latency_ms = SummarizeLatencies(std::move(samples));
  }
  if (traced) {
    method->set_event_tracer(recorder.get());
    for (size_t i = 0; i < traced_runs; ++i) {
      const Error error = RunOnce(*inputs, *method);
      if (error != Error::kOk) {
        method->set_event_tracer(nullptr);
        return error;
      }
    }
    method->set_event_tracer(nullptr);
    report.trace_events = recorder->size();
    report.trace_dropped = recorder->dropped();
    if (options.profile) {
      report.profile = SummarizeProfile(*recorder, *method);
      report.delegate_nodes = SummarizeDelegateNodes(*recorder);
    }
    EF_RETURN_IF_ERROR(ExportTrace(*recorder, options));
  }

  if (!options.dump_intermediates.empty()) {
    IntermediateDump dump(*method, static_cast<size_t>(options.dump_max_tensors),
                          options.dump_max_bytes);
    method->set_event_tracer(&dump);
    const Error error = RunOnce(*inputs, *method);
    method->set_event_tracer(nullptr);
    EF_RETURN_IF_ERROR(error);
    EF_CHECK_OR_RETURN(dump.overflowed().empty(), Error::kOutOfResources,
                       "--dump-intermediates: the execute's outputs are %s (raise "
                       "--dump-max-tensors / --dump-max-bytes); nothing written",
                       dump.overflowed().c_str());
    EF_RETURN_IF_ERROR(dump.Write(options.dump_intermediates, options.model, options.method));
    report.dumped_tensors = dump.tensors();
    report.dumped_bytes = dump.bytes();
  }

  EF_RETURN_IF_ERROR(CollectOutputs(*method, options.output_dir, &report));
  report.memory = module->memory_use(name);
  report.bytes_read = module->bytes_read();
  return report;
}

}  // namespace tools
}  // namespace edgefleet
