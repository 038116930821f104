// Maps the delegate's values and nodes onto the system XNNPACK's subgraph
// API (the 2022 interface of Debian bookworm's libxnnpack: add2/multiply2,
// xnn_define_convolution_2d, ...). Each function returns false when this
// XNNPACK has no call for the value or node, or rejects it; the caller then
// runs the node on our own kernels or reports it as unsupported.
// Stateless; the subgraph belongs to the caller.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_XNN_DEFINE_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_XNN_DEFINE_H_

#include <xnnpack.h>

#include <cstdint>
#include <vector>

#include "runtime/backends/xnnpack/graph.h"

namespace edgefleet {
namespace xnnpack {

// Defines `value`, with shape `dims`, in `subgraph` with the given external
// id (XNN_INVALID_VALUE_ID for an internal value) and flags; `*id` receives
// XNNPACK's id.
bool DefineValue(xnn_subgraph_t subgraph, const Value& value, const Dims& dims,
                 uint32_t external_id, uint32_t flags, uint32_t* id);

// Defines `node`; `ids` maps graph value ids to the subgraph's ids;
// `out_dims` is the current shape of its first output (a reshape's target,
// with any inferred dim resolved).
bool DefineNode(xnn_subgraph_t subgraph, const Node& node, const std::vector<uint32_t>& ids,
                const Dims& out_dims);

// True when this XNNPACK accepts `node` with its operands' types and shapes
// (tried on a scratch subgraph).
bool XnnpackAccepts(const Graph& graph, const Node& node);

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_XNN_DEFINE_H_
