// ETDump reader: parses an ETDump file (etdump.fbs) into plain structs, for
// tests and tools. Meant for untrusted input: the whole buffer is checked by
// the flatbuffers verifier (bounds, alignment, nesting depth, table count)
// before anything is read, and files that break the format's rules (no
// "ED00" identifier, a size prefix that does not match the data, an event
// with zero or several members, an allocation naming no allocator) are
// refused with kInvalidArgument and a one-line detail. Work and memory are
// bounded by the input's size. Debug events keep only their name and ids.
//
// Stateless; thread-safe.

#ifndef EDGEFLEET_RUNTIME_DEVTOOLS_ETDUMP_READER_H_
#define EDGEFLEET_RUNTIME_DEVTOOLS_ETDUMP_READER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/result.h"

namespace edgefleet {

struct EtdumpEvent {
  enum class Kind { kProfile, kAllocation, kDebug };
  Kind kind = Kind::kProfile;
  std::string name;  // profile and debug events
  int32_t chain_index = -1;
  int32_t instruction_id = -1;
  int32_t delegate_debug_id_int = -1;
  std::string delegate_debug_id_str;
  uint64_t start_time = 0;  // profile events, in the writer's ticks
  uint64_t end_time = 0;
  int32_t allocator_id = -1;  // allocation events: index into allocators
  uint64_t allocation_size = 0;
};

struct EtdumpRun {
  std::string name;  // "Default", "Execute", ...
  int32_t bundled_input_index = -1;
  std::vector<std::string> allocators;
  std::vector<EtdumpEvent> events;
};

struct Etdump {
  uint32_t version = 0;
  std::vector<EtdumpRun> runs;
};

// Parses a size-prefixed ETDump file (as the runtime writes it).
Result<Etdump> ReadEtdump(const uint8_t* data, size_t size);

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_DEVTOOLS_ETDUMP_READER_H_
