// DecodeGraph: payload bytes -> a validated Graph.
//
// Parses the XH00 framing, checks the flatbuffer identifier (XN00 or XN01),
// runs the flatbuffers verifier, decodes values and nodes, resolves constants
// (program named data by key, the payload's constant region, or the legacy
// in-graph buffers) and validates every node's operands (graph_validation.h).
// Anything malformed is kInvalidProgram ("xnnpack payload: ..."); valid but
// unsupported content (4-bit weights, unknown datatypes) is kNotSupported.
// Thread-compatible; `named_data` must be safe for concurrent const use.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_GRAPH_DECODER_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_GRAPH_DECODER_H_

#include <cstddef>
#include <memory>

#include "runtime/backends/xnnpack/graph.h"
#include "runtime/core/named_data_map.h"
#include "runtime/core/result.h"

namespace edgefleet {
namespace xnnpack {

// `named_data` may be null (then named constants are an error). The payload
// may be freed once this returns: the Graph keeps no pointer into it.
Result<std::unique_ptr<Graph>> DecodeGraph(const void* payload, size_t size,
                                           const NamedDataMap* named_data);

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_GRAPH_DECODER_H_
