#include "runtime/module/module.h"

#include <cstring>
#include <new>

#include "runtime/core/error_detail.h"
#include "runtime/core/page_block.h"
#include "runtime/loaders/buffer_data_loader.h"
#include "runtime/loaders/file_data_loader.h"
#include "runtime/loaders/mmap_data_loader.h"

namespace edgefleet {

// Memory of one method, in PageBlocks: huge pages for the large ones (the
// planned arenas, the constants packed at load), heap blocks aligned to a
// cache line for the small ones. Kernels ask the temp allocator for
// 64-byte-aligned scratch, and with 64-byte-aligned bases the padding (hence
// temp_peak) does not depend on addresses. Nothing reads a byte before a
// kernel or the loader writes it, so no block is zero-filled.
struct Module::LoadedMethod {
  static bool Allocate(size_t size, PageBlock* block) {
    return block->Allocate(size == 0 ? 1 : size, PageBlock::Contents::kUnspecified);
  }

  std::string name;
  PageBlock method_block, temp_block, constant_block;
  std::vector<PageBlock> arenas;
  std::vector<Span<uint8_t>> arena_spans;
  std::unique_ptr<MemoryAllocator> method_allocator, temp_allocator, constant_allocator;
  std::unique_ptr<PlannedMemory> planned;
  std::unique_ptr<Method> method;
};

Module::Module(std::unique_ptr<DataLoader> loader, std::vector<uint8_t> owned_data,
               const Options& options)
    : loader_(std::move(loader)), owned_data_(std::move(owned_data)), options_(options) {}

Module::~Module() {
  methods_.clear();  // Methods before the Program they reference.
  program_.reset();
}

Result<std::unique_ptr<Module>> Module::Load(const std::string& path, const Options& options) {
  std::unique_ptr<DataLoader> loader;
  if (options.load_mode == LoadMode::kMmap) {
    EF_ASSIGN_OR_RETURN(MmapDataLoader mmap, MmapDataLoader::Open(path.c_str()));
    loader.reset(new (std::nothrow) MmapDataLoader(std::move(mmap)));
  } else {
    EF_ASSIGN_OR_RETURN(FileDataLoader file, FileDataLoader::Open(path.c_str()));
    loader.reset(new (std::nothrow) FileDataLoader(std::move(file)));
  }
  EF_CHECK_OR_RETURN(loader != nullptr, Error::kMemoryAllocationFailed, "out of memory");
  std::unique_ptr<Module> module(new (std::nothrow) Module(std::move(loader), {}, options));
  EF_CHECK_OR_RETURN(module != nullptr, Error::kMemoryAllocationFailed, "out of memory");
  EF_ASSIGN_OR_RETURN(Program program, Program::Load(module->loader_.get()));
  module->program_.reset(new (std::nothrow) Program(std::move(program)));
  EF_CHECK_OR_RETURN(module->program_ != nullptr, Error::kMemoryAllocationFailed, "out of memory");
  return module;
}

Result<std::unique_ptr<Module>> Module::LoadFromBuffer(const void* data, size_t size,
                                                       const Options& options) {
  // std::vector's allocation is at least 16-byte aligned with glibc.
  std::vector<uint8_t> copy(static_cast<const uint8_t*>(data),
                            static_cast<const uint8_t*>(data) + size);
  EF_CHECK_OR_RETURN(reinterpret_cast<uintptr_t>(copy.data()) % 16 == 0, Error::kInternal,
                     "unaligned buffer copy");
  std::unique_ptr<DataLoader> loader(new (std::nothrow) BufferDataLoader(copy.data(), copy.size()));
  std::unique_ptr<Module> module(new (std::nothrow)
                                     Module(std::move(loader), std::move(copy), options));
  EF_CHECK_OR_RETURN(module != nullptr && module->loader_ != nullptr,
                     Error::kMemoryAllocationFailed, "out of memory");
  EF_ASSIGN_OR_RETURN(Program program, Program::Load(module->loader_.get()));
  module->program_.reset(new (std::nothrow) Program(std::move(program)));
  EF_CHECK_OR_RETURN(module->program_ != nullptr, Error::kMemoryAllocationFailed, "out of memory");
  return module;
}

Result<Method*> Module::LoadMethod(const char* name) {
  for (const auto& m : methods_) {
    if (m->name == name) return m->method.get();
  }
  EF_ASSIGN_OR_RETURN(MethodMeta meta, program_->method_meta(name));
  auto state = std::make_unique<LoadedMethod>();
  state->name = name;
  const size_t num_arenas = meta.num_planned_buffers();
  uint64_t total = meta.method_allocator_bytes();
  for (size_t i = 0; i < num_arenas; ++i)
    total += static_cast<uint64_t>(*meta.planned_buffer_size(i));
  EF_CHECK_OR_RETURN(total <= options_.max_method_bytes, Error::kMemoryAllocationFailed,
                     "method '%s' needs %llu bytes, above the limit of %llu", name,
                     static_cast<unsigned long long>(total),
                     static_cast<unsigned long long>(options_.max_method_bytes));
  state->arenas.resize(num_arenas);
  for (size_t i = 0; i < num_arenas; ++i) {
    const int64_t size = *meta.planned_buffer_size(i);
    EF_CHECK_OR_RETURN(LoadedMethod::Allocate(static_cast<size_t>(size), &state->arenas[i]),
                       Error::kMemoryAllocationFailed,
                       "cannot allocate planned arena %zu of %lld bytes", i,
                       static_cast<long long>(size));
    state->arena_spans.push_back({state->arenas[i].data(), static_cast<size_t>(size)});
  }
  EF_CHECK_OR_RETURN(LoadedMethod::Allocate(meta.method_allocator_bytes(), &state->method_block) &&
                         LoadedMethod::Allocate(options_.temp_allocator_bytes, &state->temp_block),
                     Error::kMemoryAllocationFailed, "cannot allocate method memory");
  state->method_allocator =
      std::make_unique<MemoryAllocator>(state->method_block.data(), state->method_block.size());
  state->temp_allocator =
      std::make_unique<MemoryAllocator>(state->temp_block.data(), state->temp_block.size());
  uint64_t constant_budget = options_.constant_budget_bytes;
  if (constant_budget == 0) {
    EF_ASSIGN_OR_RETURN(const size_t program_size, loader_->Size());
    constant_budget = 2 * static_cast<uint64_t>(program_size) + (1 << 20);
  }
  if (constant_budget > options_.max_method_bytes) constant_budget = options_.max_method_bytes;
  if (options_.method.optimize_plan &&
      LoadedMethod::Allocate(static_cast<size_t>(constant_budget), &state->constant_block)) {
    state->constant_allocator = std::make_unique<MemoryAllocator>(state->constant_block.data(),
                                                                  state->constant_block.size());
  }
  state->planned = std::make_unique<PlannedMemory>(
      Span<Span<uint8_t>>(state->arena_spans.data(), state->arena_spans.size()));
  const MemoryManager memory{state->method_allocator.get(), state->planned.get(),
                             state->temp_allocator.get(), state->constant_allocator.get()};
  EF_ASSIGN_OR_RETURN(Method method, Method::Load(*program_, name, memory, options_.method));
  state->method = std::make_unique<Method>(std::move(method));
  methods_.push_back(std::move(state));
  return methods_.back()->method.get();
}

Module::MemoryUse Module::memory_use(const char* name) const {
  MemoryUse use;
  for (const auto& m : methods_) {
    if (m->name != name) continue;
    for (const auto& arena : m->arena_spans) use.planned += arena.size();
    use.method_allocator = m->method_allocator->used();
    use.temp_peak = m->temp_allocator->peak();
    if (m->constant_allocator != nullptr) use.constants = m->constant_allocator->used();
    use.delegates = m->method->delegate_memory_bytes();
  }
  return use;
}

}  // namespace edgefleet
