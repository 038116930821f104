#include "runtime/devtools/etdump_reader.h"

#include <cstring>

#include "runtime/core/error_detail.h"
#include "runtime/devtools/etdump_generated.h"

namespace edgefleet {

namespace fb = edgefleet_etdump;

namespace {

std::string Str(const flatbuffers::String* s) { return s != nullptr ? s->str() : std::string(); }

Error ReadEvent(const fb::Event& in, size_t num_allocators, EtdumpEvent* out) {
  const int members = (in.profile_event() != nullptr) + (in.allocation_event() != nullptr) +
                      (in.debug_event() != nullptr);
  EF_CHECK_OR_RETURN(members == 1, Error::kInvalidArgument,
                     "etdump: an event has %d members (exactly one required)", members);
  if (const fb::ProfileEvent* p = in.profile_event()) {
    out->kind = EtdumpEvent::Kind::kProfile;
    out->name = Str(p->name());
    out->chain_index = p->chain_index();
    out->instruction_id = p->instruction_id();
    out->delegate_debug_id_int = p->delegate_debug_id_int();
    out->delegate_debug_id_str = Str(p->delegate_debug_id_str());
    out->start_time = p->start_time();
    out->end_time = p->end_time();
  } else if (const fb::AllocationEvent* a = in.allocation_event()) {
    out->kind = EtdumpEvent::Kind::kAllocation;
    EF_CHECK_OR_RETURN(
        a->allocator_id() >= 0 && static_cast<size_t>(a->allocator_id()) < num_allocators,
        Error::kInvalidArgument, "etdump: allocation event names allocator %d of %zu",
        a->allocator_id(), num_allocators);
    out->allocator_id = a->allocator_id();
    out->allocation_size = a->allocation_size();
  } else {
    const fb::DebugEvent* d = in.debug_event();
    out->kind = EtdumpEvent::Kind::kDebug;
    out->name = Str(d->name());
    out->instruction_id = d->instruction_id();
    out->delegate_debug_id_int = d->delegate_debug_id_int();
    out->delegate_debug_id_str = Str(d->delegate_debug_id_str());
  }
  return Error::kOk;
}

}  // namespace

Result<Etdump> ReadEtdump(const uint8_t* data, size_t size) {
  EF_CHECK_OR_RETURN(data != nullptr && size >= 12, Error::kInvalidArgument,
                     "etdump: %zu bytes is too short for a size-prefixed flatbuffer", size);
  uint32_t prefix;
  memcpy(&prefix, data, sizeof(prefix));  // little-endian, like the format
  EF_CHECK_OR_RETURN(prefix == size - 4, Error::kInvalidArgument,
                     "etdump: size prefix %u does not match the %zu bytes after it", prefix,
                     size - 4);
  EF_CHECK_OR_RETURN(fb::SizePrefixedETDumpBufferHasIdentifier(data), Error::kInvalidArgument,
                     "etdump: no \"ED00\" file identifier");
  flatbuffers::Verifier verifier(data, size);
  EF_CHECK_OR_RETURN(fb::VerifySizePrefixedETDumpBuffer(verifier), Error::kInvalidArgument,
                     "etdump: the flatbuffer fails verification (truncated or corrupt)");
  const fb::ETDump* root = fb::GetSizePrefixedETDump(data);
  Etdump out;
  out.version = root->version();
  if (root->run_data() == nullptr) return out;
  for (const fb::RunData* in : *root->run_data()) {
    EtdumpRun run;
    run.name = Str(in->name());
    run.bundled_input_index = in->bundled_input_index();
    if (in->allocators() != nullptr) {
      for (const fb::Allocator* a : *in->allocators()) run.allocators.push_back(Str(a->name()));
    }
    if (in->events() != nullptr) {
      run.events.reserve(in->events()->size());
      for (const fb::Event* e : *in->events()) {
        EtdumpEvent event;
        EF_RETURN_IF_ERROR(ReadEvent(*e, run.allocators.size(), &event));
        run.events.push_back(std::move(event));
      }
    }
    out.runs.push_back(std::move(run));
  }
  return out;
}

}  // namespace edgefleet
