// The mechanism the load-time folding passes share (FoldInt8Clamps,
// clamp_folding.h; FoldFloatActivations, activation_folding.h): nodes that follow a
// producer are folded into it, the producer rewritten and the followers
// removed from the graph.
//
// Stateless; thread-compatible (edits the graph it is given).

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_NODE_FOLDING_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_NODE_FOLDING_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "runtime/backends/xnnpack/graph.h"

namespace edgefleet {
namespace xnnpack {

// Whether a node, as it would be after folding, still runs (on XNNPACK or
// our kernels); a fold that would leave it unrunnable is not made.
using NodeRuns = std::function<bool(const Graph&, const Node&)>;

// How many node inputs read each value (indexed by value id).
std::vector<uint32_t> CountReaders(const Graph& graph);

// Given a producer (a node of the graph, or what earlier folds made of it)
// and the index `next` of the first node after it, returns how many nodes
// from `next` on fold into it, having written the folded producer to
// `*fused`; 0 to fold nothing.
using FoldFn =
    std::function<size_t(const Graph& graph, const Node& producer, size_t next, Node* fused)>;

// Walks the nodes in order; at each producer, folds while `fold` says so
// (a fold result is offered again: chains fold one after the other).
// Removes the folded nodes; returns how many folds were made.
size_t FoldFollowers(Graph& graph, const FoldFn& fold);

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_NODE_FOLDING_H_
