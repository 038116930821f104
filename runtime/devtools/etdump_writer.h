// ETDump writer: a TraceRecorder's events as an ETDump file (etdump.fbs),
// the profiling format of ExecuTorch's developer tools; the upstream
// Inspector (executorch.devtools.Inspector) reads it.
//
// Layout, as the upstream runtime writes it:
//   - a RunData "Default" with the load phases (ProfileEvent chain_index -1)
//     and allocation events, then one RunData "Execute" per Method::execute;
//   - per executed instruction one ProfileEvent with chain_index 0 and
//     instruction_id = its index, named "native_call_<operator>" for kernel
//     calls (the "aten::" namespace dropped: "native_call_convolution.out";
//     other namespaces kept), "DELEGATE_CALL", "MOVE_CALL", "JF_CALL" or
//     "FREE_CALL". The span is the whole instruction (upstream's kernel
//     wrapper span and its OPERATOR_CALL span are one span here);
//   - work inside a delegate call: ProfileEvents with the call's
//     instruction_id and, as the upstream XNNPACK delegate writes them,
//     delegate_debug_id_str = "<name> #<k>" (the k-th node of that name in
//     this call: "XNNStaticTranspose #2") and delegate_debug_id_int -1; the
//     Inspector lists them under that name. (The node's debug handle is in
//     the Chrome trace; the exporter's ETRecord for XNNPACK has no delegate
//     map to look it up in.)
//   - times in nanoseconds of the monotonic clock (the Inspector's default
//     source time scale).
//   - allocation events (AllocationEvent, allocators listed per RunData)
//     only with EtdumpOptions::allocations: the upstream Inspector (tested
//     with executorch 1.5.1) fails on any event that is not a profile or
//     debug event ("Unable to find populated event").
// The kernel kind (portable/optimized/folded/fused) has no field in the
// format; it is in the Chrome trace and the profile table instead.
//
// Stateless functions; the heap is used (host-side export).

#ifndef EDGEFLEET_RUNTIME_DEVTOOLS_ETDUMP_WRITER_H_
#define EDGEFLEET_RUNTIME_DEVTOOLS_ETDUMP_WRITER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/devtools/trace_recorder.h"

namespace edgefleet {

// The ProfileEvent name the writer gives a record ("native_call_add.out",
// "DELEGATE_CALL", "Method::execute", "init_delegate XnnpackBackend#0", ...).
std::string EtdumpEventName(const TraceEvent& event);

struct EtdumpOptions {
  bool allocations = false;  // write allocation events (see above)
};

// The complete file, size-prefixed with identifier "ED00". Records never
// closed (a run that failed mid-event) are left out.
std::vector<uint8_t> WriteEtdump(const TraceRecorder& recorder, const EtdumpOptions& options = {});

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_DEVTOOLS_ETDUMP_WRITER_H_
