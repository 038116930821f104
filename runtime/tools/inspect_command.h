// `edgefleet-run inspect`: describe a program's layout and its methods.
//
// The program must load (a malformed file is an error). Each method is then
// also loaded to learn which kernel every instruction resolves to; a method
// that cannot be loaded (missing operator or backend, ...) is reported with
// the reason instead of failing the command.
//
// Stateless; thread-safe provided kernels and backends are registered.

#ifndef EDGEFLEET_RUNTIME_TOOLS_INSPECT_COMMAND_H_
#define EDGEFLEET_RUNTIME_TOOLS_INSPECT_COMMAND_H_

#include "runtime/core/result.h"
#include "runtime/tools/command_line.h"
#include "runtime/tools/inspect_report.h"

namespace edgefleet {
namespace tools {

// Errors: as Module::Load and Program::method_meta, with their details.
Result<InspectReport> InspectModel(const InspectOptions& options);

}  // namespace tools
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_TOOLS_INSPECT_COMMAND_H_
