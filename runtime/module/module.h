// Module: the convenient way to run a .pte file (heap allowed here).
//
// Module::Load(path) opens the file with an mmap (or pread) loader, loads
// and verifies the Program, and LoadMethod(name) allocates exactly the
// memory MethodMeta asks for (method allocator, planned arenas, a temp
// arena) and loads the Method. It also reports what was allocated, for the
// emulator's memory accounting.
//
// Ownership: the Module owns the loader, the Program, every loaded Method
// and their memory. Method pointers stay valid until the Module dies.
// Thread safety: not thread-safe; use one Module per thread, or share the
// Program by loading Methods from several Modules.

#ifndef EDGEFLEET_RUNTIME_MODULE_MODULE_H_
#define EDGEFLEET_RUNTIME_MODULE_MODULE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/data_loader.h"
#include "runtime/core/result.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"

namespace edgefleet {

class Module {
 public:
  enum class LoadMode { kMmap, kFile };

  struct Options {
    LoadMode load_mode = LoadMode::kMmap;
    MethodOptions method;
    // Kernel scratch arena per method, reset after every instruction.
    size_t temp_allocator_bytes = 8 << 20;
    // Most bytes one method may ask for (planned arenas plus method
    // allocator): a bound against files that declare absurd arenas.
    uint64_t max_method_bytes = uint64_t{4} << 30;
    // Budget for what a method derives at load (folded constants, packed
    // weights; MemoryManager::constant_allocator). 0: twice the program's
    // size plus 1 MiB. Reserved, and touched only as far as used.
    uint64_t constant_budget_bytes = 0;
  };

  // What a loaded method uses, in bytes.
  struct MemoryUse {
    uint64_t planned = 0;           // planned arenas
    uint64_t method_allocator = 0;  // value table and metadata actually used
    uint64_t temp_peak = 0;         // highest kernel scratch use so far
    uint64_t constants = 0;         // derived at load (folded, packed)
    uint64_t delegates = 0;         // held by delegates (XNNPACK packed weights, workspaces)
    uint64_t total() const {
      return planned + method_allocator + temp_peak + constants + delegates;
    }
  };

  // Errors: kAccessFailed (file), and everything Program::Load returns.
  static Result<std::unique_ptr<Module>> Load(const std::string& path, const Options& options);
  // Loads from memory (copied into an aligned, owned buffer).
  static Result<std::unique_ptr<Module>> LoadFromBuffer(const void* data, size_t size,
                                                        const Options& options);

  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  const Program& program() const { return *program_; }

  // Tracer given to methods loaded from now on (MethodOptions::tracer); they
  // report their load to it and keep it until Method::set_event_tracer.
  void set_method_tracer(EventTracer* tracer) { options_.method.tracer = tracer; }

  // Loads `name` (once; later calls return the same Method).
  Result<Method*> LoadMethod(const char* name);

  // Memory of a loaded method. REQUIRES: LoadMethod(name) succeeded.
  MemoryUse memory_use(const char* name) const;

  // Bytes the loader has read from storage so far.
  uint64_t bytes_read() const { return loader_->BytesRead(); }

 private:
  struct LoadedMethod;

  Module(std::unique_ptr<DataLoader> loader, std::vector<uint8_t> owned_data,
         const Options& options);

  std::unique_ptr<DataLoader> loader_;
  std::vector<uint8_t> owned_data_;  // backing store of LoadFromBuffer
  Options options_;
  std::unique_ptr<Program> program_;
  std::vector<std::unique_ptr<LoadedMethod>> methods_;
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_MODULE_MODULE_H_
