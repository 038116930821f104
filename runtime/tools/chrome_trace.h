// Chrome trace export: a TraceRecorder's events as Trace Event Format JSON
// (the format of chrome://tracing and https://ui.perfetto.dev).
//
// One process, one track for the thread that loaded and executed the
// method (the recorder is fed by that thread only; delegate worker threads
// are not traced). Load phases, executes, instructions and delegate nodes
// are complete events ("ph":"X") with "cat" load/execute/instruction/
// delegate and args (kernel kind, instruction index, delegate debug id);
// allocations are thread-scoped instant events ("ph":"i") with their byte
// count. Timestamps are microseconds from the first recorded event.
//
// Stateless function; thread-safe.

#ifndef EDGEFLEET_RUNTIME_TOOLS_CHROME_TRACE_H_
#define EDGEFLEET_RUNTIME_TOOLS_CHROME_TRACE_H_

#include <string>

#include "runtime/devtools/trace_recorder.h"

namespace edgefleet {
namespace tools {

// The JSON document; `process_name` labels the process track.
std::string ChromeTraceJson(const TraceRecorder& recorder, const std::string& process_name);

}  // namespace tools
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_TOOLS_CHROME_TRACE_H_
