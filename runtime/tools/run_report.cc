#include "runtime/tools/run_report.h"

#include <cstdarg>
#include <cstdio>

#include "runtime/tools/json_writer.h"

namespace edgefleet {
namespace tools {
namespace {

void Appendf(std::string* out, const char* format, ...) __attribute__((format(printf, 2, 3)));
void Appendf(std::string* out, const char* format, ...) {
  char line[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(line, sizeof(line), format, args);
  va_end(args);
  out->append(line);
}

std::string ShapeText(const RunReport::Output& output) {
  if (!output.has_shape) return output.dtype;
  std::string text = output.dtype + "[";
  for (size_t d = 0; d < output.shape.size(); ++d) {
    text += (d > 0 ? "," : "") + std::to_string(output.shape[d]);
  }
  return text + "]";
}

// "1.2 MiB" style byte counts for the text summary.
std::string Bytes(uint64_t bytes) {
  char text[32];
  if (bytes < 1024) {
    snprintf(text, sizeof(text), "%llu B", static_cast<unsigned long long>(bytes));
  } else if (bytes < (1 << 20)) {
    snprintf(text, sizeof(text), "%.1f KiB", bytes / 1024.0);
  } else {
    snprintf(text, sizeof(text), "%.1f MiB", bytes / (1024.0 * 1024.0));
  }
  return text;
}

}  // namespace

std::string RunReportToJson(const RunReport& report) {
  const RunOptions& o = report.options;
  JsonWriter json;
  json.BeginObject();
  json.Key("model").String(o.model);
  json.Key("method").String(o.method);
  json.Key("load_mode").String(o.load_mode == Module::LoadMode::kMmap ? "mmap" : "file");
  json.Key("kernels").String(o.portable_only ? "portable_only" : "optimized_first");
  json.Key("threads").Int(o.threads);
  json.Key("seed").Uint(o.seed);
  json.Key("load_ms").Double(report.load_ms);
  json.Key("method_load_ms").Double(report.method_load_ms);
  json.Key("first_ms").Double(report.first_ms);
  json.Key("warmup").Int(o.warmup);
  json.Key("iterations").Int(o.iterations);
  json.Key("latency_ms").BeginObject();
  const bool timed = o.iterations > 0;
  const LatencySummary& l = report.latency_ms;
  for (const auto& [name, value] : {std::pair<const char*, double>{"p50", l.p50},
                                    {"p90", l.p90},
                                    {"min", l.min},
                                    {"max", l.max},
                                    {"mean", l.mean}}) {
    json.Key(name);
    if (timed) {
      json.Double(value);
    } else {
      json.Null();
    }
  }
  json.EndObject();
  json.Key("cpu_ms");
  if (timed) {
    json.Double(report.cpu_ms);
  } else {
    json.Null();
  }
  json.Key("bytes_read").Uint(report.bytes_read);
  json.Key("memory").BeginObject();
  json.Key("planned").Uint(report.memory.planned);
  json.Key("method_allocator").Uint(report.memory.method_allocator);
  json.Key("temp_peak").Uint(report.memory.temp_peak);
  json.Key("constants").Uint(report.memory.constants);
  json.Key("delegates").Uint(report.memory.delegates);
  json.EndObject();
  json.Key("inputs").BeginArray();
  for (const MethodInputs::Description& input : report.inputs) {
    json.BeginObject().Key("source").String(input.source).Key("value").String(input.value);
    json.EndObject();
  }
  json.EndArray();
  json.Key("outputs").BeginArray();
  for (const RunReport::Output& output : report.outputs) {
    json.BeginObject().Key("dtype").String(output.dtype).Key("shape");
    if (output.has_shape) {
      json.BeginArray();
      for (int32_t d : output.shape) json.Int(d);
      json.EndArray();
    } else {
      json.Null();
    }
    if (!output.file.empty()) json.Key("file").String(output.file);
    json.EndObject();
  }
  json.EndArray();
  if (o.profile || !o.etdump.empty() || !o.trace.empty()) {
    json.Key("trace").BeginObject().Key("events").Uint(report.trace_events);
    json.Key("dropped").Uint(report.trace_dropped);
    if (!o.etdump.empty()) json.Key("etdump").String(o.etdump);
    if (!o.trace.empty()) json.Key("chrome_trace").String(o.trace);
    json.EndObject();
  }
  if (!o.dump_intermediates.empty()) {
    json.Key("intermediates").BeginObject().Key("dir").String(o.dump_intermediates);
    json.Key("tensors").Uint(report.dumped_tensors).Key("bytes").Uint(report.dumped_bytes);
    json.EndObject();
  }
  if (o.profile) {
    json.Key("profile").BeginArray();
    for (const OpProfileRow& row : report.profile) {
      json.BeginObject().Key("op").String(row.op).Key("kernel").String(row.kernel);
      json.Key("instructions").Uint(row.instructions).Key("ms_per_run").Double(row.ms_per_run);
      json.Key("share").Double(row.share).EndObject();
    }
    json.EndArray();
    json.Key("delegate_nodes").BeginArray();
    for (const OpProfileRow& row : report.delegate_nodes) {
      json.BeginObject().Key("node").String(row.op).Key("engine").String(row.kernel);
      json.Key("events_per_run").Uint(row.instructions).Key("ms_per_run").Double(row.ms_per_run);
      json.Key("share_of_delegate_calls").Double(row.share).EndObject();
    }
    json.EndArray();
  }
  json.EndObject();
  return json.str();
}

std::string RunReportToText(const RunReport& report) {
  const RunOptions& o = report.options;
  std::string out;
  Appendf(&out, "model       %s (method %s, %s kernels, %d thread%s)\n", o.model.c_str(),
          o.method.c_str(), o.portable_only ? "portable" : "optimized-first", o.threads,
          o.threads == 1 ? "" : "s");
  Appendf(&out, "load        %.3f ms program (%s), %.3f ms method, %s read\n", report.load_ms,
          o.load_mode == Module::LoadMode::kMmap ? "mmap" : "file", report.method_load_ms,
          Bytes(report.bytes_read).c_str());
  Appendf(&out, "first       %.3f ms\n", report.first_ms);
  if (o.iterations > 0) {
    const LatencySummary& l = report.latency_ms;
    Appendf(&out,
            "latency     p50 %.3f  p90 %.3f  min %.3f  max %.3f  mean %.3f ms "
            "(%d iterations, %d warmup)\n",
            l.p50, l.p90, l.min, l.max, l.mean, o.iterations, o.warmup);
    Appendf(&out, "cpu         %.3f ms per iteration (process, all threads)\n", report.cpu_ms);
  }
  Appendf(&out,
          "memory      planned %s, method allocator %s, temp peak %s, derived constants %s, "
          "delegates %s\n",
          Bytes(report.memory.planned).c_str(), Bytes(report.memory.method_allocator).c_str(),
          Bytes(report.memory.temp_peak).c_str(), Bytes(report.memory.constants).c_str(),
          Bytes(report.memory.delegates).c_str());
  for (size_t i = 0; i < report.inputs.size(); ++i) {
    Appendf(&out, "input %-5zu %s (%s)\n", i, report.inputs[i].value.c_str(),
            report.inputs[i].source.c_str());
  }
  for (size_t i = 0; i < report.outputs.size(); ++i) {
    const RunReport::Output& output = report.outputs[i];
    Appendf(&out, "output %-4zu %s%s%s\n", i, ShapeText(output).c_str(),
            output.file.empty() ? "" : " -> ", output.file.c_str());
  }
  if (o.profile || !o.etdump.empty() || !o.trace.empty()) {
    Appendf(&out, "trace       %llu events recorded, %llu dropped (buffer full)%s%s%s%s\n",
            static_cast<unsigned long long>(report.trace_events),
            static_cast<unsigned long long>(report.trace_dropped),
            o.etdump.empty() ? "" : ", etdump -> ", o.etdump.c_str(),
            o.trace.empty() ? "" : ", chrome trace -> ", o.trace.c_str());
  }
  if (!o.dump_intermediates.empty()) {
    Appendf(&out, "intermediates %llu tensors, %llu bytes -> %s\n",
            static_cast<unsigned long long>(report.dumped_tensors),
            static_cast<unsigned long long>(report.dumped_bytes), o.dump_intermediates.c_str());
  }
  if (o.profile) {
    Appendf(&out, "profile     %-44s %-9s %6s %10s %6s\n", "operator", "kernel", "instrs", "ms/run",
            "share");
    for (const OpProfileRow& row : report.profile) {
      Appendf(&out, "            %-44.44s %-9s %6zu %10.4f %5.1f%%\n", row.op.c_str(),
              row.kernel.c_str(), row.instructions, row.ms_per_run, 100 * row.share);
    }
    if (!report.delegate_nodes.empty()) {
      // Share: of the delegate calls' time.
      Appendf(&out, "delegate    %-40s %-13s %6s %10s %6s\n", "node (inside delegate calls)",
              "engine", "events", "ms/run", "share");
    }
    for (const OpProfileRow& row : report.delegate_nodes) {
      Appendf(&out, "            %-40.40s %-13s %6zu %10.4f %5.1f%%\n", row.op.c_str(),
              row.kernel.c_str(), row.instructions, row.ms_per_run, 100 * row.share);
    }
  }
  return out;
}

}  // namespace tools
}  // namespace edgefleet
