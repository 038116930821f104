// BackendInterface: a delegate that runs part of a program (e.g. XNNPACK).
//
// The exporter replaces a lowered subgraph by a DelegateCall whose payload
// ("processed" bytes) the backend compiles at method load (Init) and runs at
// execute (Execute). Backends are registered by explicit calls
// (RegisterXnnpackBackend()) into a bounded table, see backend_registry.h.
//
// Thread safety: a backend object is shared by all methods and must be
// stateless or internally synchronized; a DelegateHandle belongs to one
// Method and is used by one thread at a time. Backends may use the heap.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_BACKEND_H_
#define EDGEFLEET_RUNTIME_BACKENDS_BACKEND_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/evalue.h"
#include "runtime/core/freeable_buffer.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/named_data_map.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/devtools/event_tracer.h"

namespace edgefleet {

// Opaque per-delegate state returned by Init.
using DelegateHandle = void;

struct CompileSpec {
  const char* key;
  const uint8_t* value;
  size_t size;
};

struct BackendInitContext {
  MemoryAllocator* method_allocator;  // lives as long as the Method
  const NamedDataMap* named_data;     // the program's named data, may be null
  const char* method_name;
  int num_threads;
  // False when the method runs portable kernels only (MethodOptions::kernels):
  // a backend then leaves our optimized kernels alone too.
  bool optimized_kernels;
  // Bytes of the temp allocator every Execute gets (0: none): scratch a
  // delegate may take per call instead of owning it.
  size_t temp_allocator_bytes = 0;
};

struct BackendExecutionContext {
  MemoryAllocator* temp_allocator;  // reset after the call
  const char* method_name;
  // Where the backend may report work inside the call (kDelegateNode
  // events); null when the method is not traced.
  EventTracer* tracer = nullptr;
};

class BackendInterface {
 public:
  virtual ~BackendInterface() = default;

  // False if the backend cannot run on this machine.
  virtual bool IsAvailable() const = 0;

  // Compiles `processed`; the backend may Free() it once done with it.
  virtual Result<DelegateHandle*> Init(const BackendInitContext& context, FreeableBuffer* processed,
                                       Span<const CompileSpec> specs) const = 0;

  // Runs the delegate on `args` (inputs, then outputs).
  virtual Error Execute(const BackendExecutionContext& context, DelegateHandle* handle,
                        Span<EValue*> args) const = 0;

  // Runs body(context) with this delegate's threads lent to the calling
  // thread, so that the method's kernels outside the delegate run on them
  // too and a method has one set of threads, not two competing ones (the
  // XNNPACK delegate lends its method's pthreadpool). Method::Execute wraps
  // its instructions in the first delegate's call. Default: body(context).
  virtual Error RunWithThreads(DelegateHandle* handle, Error (*body)(void* context),
                               void* context) const {
    return body(context);
  }

  // Releases what Init created. Called once per successful Init.
  virtual void Destroy(DelegateHandle* handle) const = 0;

  // Heap bytes a compiled delegate holds (packed weights, workspaces,
  // buffers), for memory reports. Default: 0.
  virtual size_t MemoryBytes(DelegateHandle* handle) const { return 0; }

  // One line describing a compiled delegate for inspection (e.g. its node
  // types and where each runs), NUL-terminated in `buffer`. False if it was
  // cut to fit. Default: empty.
  virtual bool Describe(DelegateHandle* handle, char* buffer, size_t size) const {
    if (size > 0) buffer[0] = '\0';
    return true;
  }
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_BACKEND_H_
