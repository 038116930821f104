#include "runtime/tools/chrome_trace.h"

#include <cstdint>

#include "runtime/tools/json_writer.h"

namespace edgefleet {
namespace tools {
namespace {

constexpr int kPid = 1;
constexpr int kTid = 1;

const char* Category(TraceEventKind kind) {
  switch (kind) {
    case TraceEventKind::kLoadPhase:
      return "load";
    case TraceEventKind::kExecute:
      return "execute";
    case TraceEventKind::kInstruction:
      return "instruction";
    case TraceEventKind::kDelegateNode:
      return "delegate";
    case TraceEventKind::kAllocation:
      return "allocation";
  }
  return "other";
}

void Metadata(JsonWriter& json, const char* what, const std::string& name) {
  json.BeginObject().Key("name").String(what).Key("ph").String("M");
  json.Key("pid").Int(kPid).Key("tid").Int(kTid);
  json.Key("args").BeginObject().Key("name").String(name).EndObject().EndObject();
}

}  // namespace

std::string ChromeTraceJson(const TraceRecorder& recorder, const std::string& process_name) {
  uint64_t origin = UINT64_MAX;
  for (size_t i = 0; i < recorder.size(); ++i) {
    if (recorder.record(i).start_ns < origin) origin = recorder.record(i).start_ns;
  }
  JsonWriter json;
  json.BeginObject().Key("displayTimeUnit").String("ns").Key("traceEvents").BeginArray();
  Metadata(json, "process_name", process_name);
  Metadata(json, "thread_name", "method thread");
  for (size_t i = 0; i < recorder.size(); ++i) {
    const TraceRecord& r = recorder.record(i);
    const TraceEvent& e = r.event;
    const bool point = e.kind == TraceEventKind::kAllocation;
    if (!point && r.end_ns == 0) continue;  // never closed
    std::string name = e.name != nullptr ? e.name : "";
    if (point) name = "alloc " + name;
    json.BeginObject().Key("name").String(name).Key("cat").String(Category(e.kind));
    json.Key("ph").String(point ? "i" : "X");
    json.Key("ts").Double(static_cast<double>(r.start_ns - origin) / 1e3);
    if (point) {
      json.Key("s").String("t");
    } else {
      json.Key("dur").Double(static_cast<double>(r.end_ns - r.start_ns) / 1e3);
    }
    json.Key("pid").Int(kPid).Key("tid").Int(kTid).Key("args").BeginObject();
    if (e.detail != nullptr) {
      json.Key(e.kind == TraceEventKind::kInstruction ? "kernel" : "engine").String(e.detail);
    }
    if (e.instruction >= 0) json.Key("instruction").Int(e.instruction);
    if (e.delegate_id >= 0) {
      json.Key(e.kind == TraceEventKind::kDelegateNode ? "delegate_debug_id" : "delegate")
          .Int(e.delegate_id);
    }
    if (point) json.Key("bytes").Uint(e.bytes);
    json.EndObject().EndObject();
  }
  json.EndArray();
  json.Key("otherData").BeginObject().Key("dropped_events").Uint(recorder.dropped());
  json.EndObject().EndObject();
  return json.str();
}

}  // namespace tools
}  // namespace edgefleet
