// XnnpackDelegate: one compiled DelegateCall payload, ready to execute.
//
// Compilation splits the graph's nodes, in order, into steps: maximal runs
// of nodes the system XNNPACK accepts become one XNNPACK runtime each
// (subgraph API), and each node it does not offer runs on our own kernels
// (node_kernels.h) between them. Values crossing a step boundary live in
// buffers the delegate owns; values inside a run stay XNNPACK-internal;
// the method's inputs and outputs are bound from the DelegateCall's
// arguments (args[external_id]) at every Execute, without copies.
//
// Ownership: owns the Graph (and so the named-data constants), the XNNPACK
// runtimes and the boundary buffers; shares the method's thread pool
// (method_threadpool.h) with the method's other delegates. Thread safety: Execute must
// not run concurrently on one delegate (a Method is used by one thread at
// a time); distinct delegates are independent.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_DELEGATE_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_DELEGATE_H_

#include <cstddef>
#include <memory>
#include <vector>

#include "runtime/backends/xnnpack/graph.h"
#include "runtime/backends/xnnpack/method_threadpool.h"
#include "runtime/core/evalue.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/page_block.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/devtools/event_tracer.h"

namespace edgefleet {
namespace xnnpack {

// Where a node runs: XNNPACK, our node kernels (node_kernels.h) or our
// optimized dense kernels (dense_nodes.h).
enum class Engine : uint8_t { kXnnpack, kOwnKernel, kOwnDense, kOwnInt8 };
// "xnnpack", "own", "own-optimized", "own-int8".
const char* EngineName(Engine engine);

class XnnpackDelegate {
 public:
  // Compiles `graph` to run on `threadpool` (null: the calling thread) and,
  // for nodes on our optimized kernels, on `num_threads` threads of the
  // kernels' pool. With `dense_on_own_kernels` the float32 convolutions and
  // fully connected layers run on our optimized kernels (dense_nodes.h; the
  // rule of docs/xnnpack-delegate.md), else on XNNPACK whenever it accepts
  // them. `temp_bytes`: the size of the temp allocator Execute will get (0:
  // none); an arena of boundary values of at most a quarter of it is taken
  // from there at every Execute instead of owned, so the method's delegates
  // (ShuffleNet's 15, a ViT's 86) reuse the same, cache-warm memory one
  // after the other. Errors: kNotSupported naming a node neither XNNPACK nor
  // our kernels can run, kInvalidProgram when XNNPACK rejects the graph.
  static Result<std::unique_ptr<XnnpackDelegate>> Create(std::unique_ptr<Graph> graph,
                                                         void* threadpool, int num_threads,
                                                         bool dense_on_own_kernels,
                                                         size_t temp_bytes = 0);
  ~XnnpackDelegate();
  XnnpackDelegate(const XnnpackDelegate&) = delete;
  XnnpackDelegate& operator=(const XnnpackDelegate&) = delete;

  // Runs the graph on `args` (indexed by external id), with scratch memory
  // for our kernels from `temp` (may be null: then only nodes that need none
  // can run; an arena in temp memory is taken from it first). With a
  // tracer, one kDelegateNode event per node our kernels
  // run (named by node type) and per XNNPACK runtime ("xnnpack_runtime" for
  // a run of several nodes), tagged with the first node's debug handle.
  // Errors: kInvalidArgument for a missing, mistyped or wrongly shaped
  // argument; kMemoryAllocationFailed when the scratch does not fit.
  Error Execute(MemoryAllocator* temp, Span<EValue*> args, EventTracer* tracer = nullptr);

  // Runs body(context) with the optimized kernels' parallel-for jobs on
  // this delegate's pthreadpool (the method's), when it has one.
  Error RunWithThreads(Error (*body)(void* context), void* context);

  const Graph& graph() const { return *graph_; }
  Engine engine(size_t node) const { return engines_[node]; }
  size_t num_xnnpack_runtimes() const;
  // Boundary buffers (unless in temp memory, counted there), XNNPACK's
  // packed constants and internal values,
  // the filters packed for our kernels
  // (counted from the graph, not measured: XNNPACK's padding and operator
  // state are left out) and constants copied out of the payload; named data
  // stays in the program.
  size_t memory_bytes() const {
    return build_bytes_ + packed_bytes_ + graph_->owned_constant_bytes;
  }

 private:
  struct Step;
  XnnpackDelegate() = default;
  // Engines, steps and boundary values (once).
  Error Plan();
  // Boundary buffers and XNNPACK runtimes for the shapes in dims_; again
  // whenever the inputs' shapes change (the 2022 XNNPACK cannot reshape).
  Error Build();
  // Re-infers every value's shape from the inputs' (in dims_) and rebuilds.
  Error Reshape();
  Error BuildXnnpackStep(size_t first, size_t last, Step& step);
  Error Bind(Span<EValue*> args);
  // Points the arena's values into `temp` when the arena lives there.
  Error BindArena(MemoryAllocator* temp);
  // Runs one step on the bound values.
  Error RunStep(Step& step, MemoryAllocator* temp);

  std::unique_ptr<Graph> graph_;
  std::vector<Engine> engines_;
  std::vector<Step> steps_;
  std::vector<bool> boundary_;             // per value: needs memory outside XNNPACK
  std::vector<int> producer_;              // per value: step writing it, -1 for none
  std::vector<int> step_of_;               // per node
  std::vector<std::vector<size_t>> dims_;  // per value: current shape
  std::vector<void*> data_;                // per value id: where its bytes are now
  // Boundary values' memory (arena_plan.h), planned at each Build (contents
  // unspecified until their producers write them): the values, their
  // offsets and the arena's size; owned (arena_) or, when it fits the
  // share of temp memory, taken from the temp allocator at every Execute
  // (arena_in_temp_; temp_base_ where it was last).
  std::vector<uint32_t> arena_values_;
  std::vector<size_t> arena_offsets_;
  size_t arena_bytes_ = 0;
  PageBlock arena_;
  bool arena_in_temp_ = false;
  size_t temp_bytes_ = 0;
  uint8_t* temp_base_ = nullptr;
  void* threadpool_ = nullptr;  // pthreadpool_t (method_threadpool.h), not owned
  int num_threads_ = 1;         // for our kernels
  bool dense_on_own_kernels_ = false;
  // Per node on our dense or int8 kernels: its filter packed for them (or
  // null), inside packed_filter_block_.
  std::vector<void*> packed_filters_;
  PageBlock packed_filter_block_;
  size_t packed_bytes_ = 0;
  // Of the last Build: boundary buffers, plus what XNNPACK holds for its
  // runtimes, counted from the graph (each constant it packs or keeps at its
  // element size, each internal value's bytes) so the figure is deterministic.
  size_t build_bytes_ = 0;
};

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_DELEGATE_H_
