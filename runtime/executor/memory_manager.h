// MemoryManager: the memory a Method may use, all owned by the caller.
//
// - method_allocator: the value table, tensor metadata, argument lists and
//   instruction table, allocated once by Method::Load (see
//   MethodMeta::method_allocator_bytes()).
// - planned_memory: the arenas for memory-planned tensors, sized by
//   MethodMeta::planned_buffer_size().
// - temp_allocator: kernel and delegate scratch, reset after every
//   instruction; may be null when no kernel needs scratch.
// - constant_allocator: values the Method derives once at load (folded
//   constants, pre-packed weights; see MethodOptions::optimize_plan); may
//   be null, which turns those optimizations off. Its size is a budget:
//   what does not fit is simply not optimized.
// All of them must outlive the Method. Not thread-safe.

#ifndef EDGEFLEET_RUNTIME_EXECUTOR_MEMORY_MANAGER_H_
#define EDGEFLEET_RUNTIME_EXECUTOR_MEMORY_MANAGER_H_

#include "runtime/core/memory_allocator.h"
#include "runtime/core/planned_memory.h"

namespace edgefleet {

struct MemoryManager {
  MemoryAllocator* method_allocator = nullptr;
  PlannedMemory* planned_memory = nullptr;
  MemoryAllocator* temp_allocator = nullptr;
  MemoryAllocator* constant_allocator = nullptr;
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_EXECUTOR_MEMORY_MANAGER_H_
