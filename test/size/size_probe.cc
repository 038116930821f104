// A minimal program runner with no kernels and no backends, linked from the
// core runtime only (platform, core, format, executor, loaders). Its
// stripped size, minus that of empty_main, is the size of the core runtime
// (tools/bench/core_size.sh). It also serves as the smallest example of the
// runtime API: load, verify, plan memory, load a method.

#include <cstdio>
#include <vector>

#include "runtime/core/error_detail.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/loaders/mmap_data_loader.h"

int main(int argc, char** argv) {
  using namespace edgefleet;
  if (argc != 2) {
    fprintf(stderr, "usage: size_probe MODEL.pte\n");
    return 2;
  }
  Result<MmapDataLoader> loader = MmapDataLoader::Open(argv[1]);
  if (!loader.ok()) return fprintf(stderr, "%s\n", LastErrorDetail()), 1;
  Result<Program> program = Program::Load(&*loader);
  if (!program.ok()) return fprintf(stderr, "%s\n", LastErrorDetail()), 1;
  Result<MethodMeta> meta = program->method_meta("forward");
  if (!meta.ok()) return fprintf(stderr, "%s\n", LastErrorDetail()), 1;
  static uint8_t method_pool[1 << 20];
  static uint8_t arena[4 << 20];
  MemoryAllocator method_allocator(method_pool, sizeof(method_pool));
  Span<uint8_t> arenas[1] = {{arena, sizeof(arena)}};
  PlannedMemory planned({arenas, meta->num_planned_buffers() > 0 ? 1u : 0u});
  Result<Method> method =
      Method::Load(*program, "forward", MemoryManager{&method_allocator, &planned, nullptr});
  printf("%s\n", method.ok() ? "loaded" : LastErrorDetail());
  return 0;
}
