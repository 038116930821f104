// Fuzz target (i): ReadEtdump (runtime/devtools, the ETDump reader) over
// arbitrary bytes. It must refuse or accept cleanly; an accepted file must
// keep the format's rules the reader promises (allocation events name an
// allocator of their block) and hold no more events than its bytes allow.

#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_harness.h"
#include "runtime/devtools/etdump_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  edgefleet::Result<edgefleet::Etdump> etdump = edgefleet::ReadEtdump(data, size);
  if (!etdump.ok()) return 0;
  size_t events = 0;
  for (const edgefleet::EtdumpRun& run : etdump->runs) {
    for (const edgefleet::EtdumpEvent& e : run.events) {
      ++events;
      if (e.kind == edgefleet::EtdumpEvent::Kind::kAllocation) {
        EF_FUZZ_INVARIANT(
            e.allocator_id >= 0 && static_cast<size_t>(e.allocator_id) < run.allocators.size(),
            "allocator %d of %zu", e.allocator_id, run.allocators.size());
      }
    }
  }
  // Each event is at least a 4-byte offset in its vector.
  EF_FUZZ_INVARIANT(events <= size / 4, "%zu events from %zu bytes", events, size);
  return 0;
}
