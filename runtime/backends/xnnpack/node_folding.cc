#include "runtime/backends/xnnpack/node_folding.h"

#include <utility>

namespace edgefleet {
namespace xnnpack {

std::vector<uint32_t> CountReaders(const Graph& g) {
  std::vector<uint32_t> readers(g.values.size(), 0);
  for (const Node& n : g.nodes) {
    for (uint32_t id : n.inputs) {
      if (id != kInvalidId && id < readers.size()) ++readers[id];
    }
  }
  return readers;
}

size_t FoldFollowers(Graph& g, const FoldFn& fold) {
  size_t folds = 0;
  std::vector<Node> kept;
  kept.reserve(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size();) {
    Node producer = g.nodes[i];
    size_t next = i + 1;
    for (Node fused; size_t k = fold(g, producer, next, &fused);) {
      producer = std::move(fused);
      next += k;
      ++folds;
    }
    kept.push_back(std::move(producer));
    i = next;
  }
  g.nodes = std::move(kept);
  return folds;
}

}  // namespace xnnpack
}  // namespace edgefleet
