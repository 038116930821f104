#include "runtime/backends/xnnpack/xnnpack_backend.h"

#include <cstdio>
#include <memory>

#include "runtime/backends/backend_registry.h"
#include "runtime/backends/xnnpack/delegate.h"
#include "runtime/backends/xnnpack/graph_decoder.h"
#include "runtime/backends/xnnpack/method_threadpool.h"
#include "runtime/backends/xnnpack/xnn_memory.h"
#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace {

using xnnpack::XnnpackDelegate;

class XnnpackBackend final : public BackendInterface {
 public:
  bool IsAvailable() const override { return true; }

  Result<DelegateHandle*> Init(const BackendInitContext& context, FreeableBuffer* processed,
                               Span<const CompileSpec> specs) const override {
    EF_ASSIGN_OR_RETURN(
        std::unique_ptr<xnnpack::Graph> graph,
        xnnpack::DecodeGraph(processed->data(), processed->size(), context.named_data));
    processed->Free();  // the graph keeps nothing that points into it
    EF_ASSIGN_OR_RETURN(void* pool, xnnpack::MethodThreadpool(context.num_threads));
    EF_ASSIGN_OR_RETURN(
        std::unique_ptr<XnnpackDelegate> delegate,
        XnnpackDelegate::Create(std::move(graph), pool, context.num_threads,
                                context.optimized_kernels, context.temp_allocator_bytes));
    return static_cast<DelegateHandle*>(delegate.release());
  }

  Error Execute(const BackendExecutionContext& context, DelegateHandle* handle,
                Span<EValue*> args) const override {
    return static_cast<XnnpackDelegate*>(handle)->Execute(context.temp_allocator, args,
                                                          context.tracer);
  }

  Error RunWithThreads(DelegateHandle* handle, Error (*body)(void* context),
                       void* context) const override {
    return static_cast<XnnpackDelegate*>(handle)->RunWithThreads(body, context);
  }

  void Destroy(DelegateHandle* handle) const override {
    delete static_cast<XnnpackDelegate*>(handle);
  }

  size_t MemoryBytes(DelegateHandle* handle) const override {
    return static_cast<XnnpackDelegate*>(handle)->memory_bytes();
  }

  bool Describe(DelegateHandle* handle, char* buffer, size_t size) const override {
    const auto& d = *static_cast<const XnnpackDelegate*>(handle);
    const xnnpack::Graph& g = d.graph();
    // Node types in order of first appearance, each with its count and engine.
    int used = std::snprintf(buffer, size, "%zu nodes in %zu XNNPACK runtime(s):", g.nodes.size(),
                             d.num_xnnpack_runtimes());
    bool fits = used >= 0 && static_cast<size_t>(used) < size;
    for (size_t i = 0; i < g.nodes.size() && fits; ++i) {
      bool seen = false;
      for (size_t j = 0; j < i && !seen; ++j) {
        seen = g.nodes[j].type == g.nodes[i].type && d.engine(j) == d.engine(i);
      }
      if (seen) continue;
      size_t count = 0;
      for (size_t j = i; j < g.nodes.size(); ++j) {
        count += g.nodes[j].type == g.nodes[i].type && d.engine(j) == d.engine(i);
      }
      const int n = std::snprintf(buffer + used, size - used, " %s x%zu (%s)",
                                  xnnpack::NodeTypeName(g.nodes[i].type), count,
                                  xnnpack::EngineName(d.engine(i)));
      fits = n >= 0 && static_cast<size_t>(used + n) < size;
      if (fits) used += n;
    }
    return fits;
  }
};

}  // namespace

Error RegisterXnnpackBackend() {
  static const XnnpackBackend backend;
  if (FindBackend(kXnnpackBackendId) == &backend) return Error::kOk;
  return RegisterBackend(kXnnpackBackendId, &backend);
}

Error PrepareXnnpackBackend(int num_threads) {
  { const xnnpack::XnnpackMemoryScope initialized; }
  return xnnpack::MethodThreadpool(num_threads).error();
}

}  // namespace edgefleet
