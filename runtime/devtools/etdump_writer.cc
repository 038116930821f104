#include "runtime/devtools/etdump_writer.h"

#include <cstring>
#include <map>
#include <utility>

#include "runtime/devtools/etdump_generated.h"

namespace edgefleet {

namespace fb = edgefleet_etdump;

std::string EtdumpEventName(const TraceEvent& event) {
  const char* name = event.name != nullptr ? event.name : "";
  switch (event.kind) {
    case TraceEventKind::kInstruction:
      if (event.delegate_id >= 0) return "DELEGATE_CALL";
      if (strcmp(name, "move") == 0) return "MOVE_CALL";
      if (strcmp(name, "jump_false") == 0) return "JF_CALL";
      if (strcmp(name, "free") == 0) return "FREE_CALL";
      if (strncmp(name, "aten::", 6) == 0) name += 6;
      return std::string("native_call_") + name;
    case TraceEventKind::kLoadPhase:
      if (event.delegate_id >= 0) {  // distinct per delegate: the Inspector merges equal names
        return std::string("init_delegate ") + name + "#" + std::to_string(event.delegate_id);
      }
      return name;
    default:
      return name;
  }
}

namespace {

// One RunData under construction.
struct Block {
  const char* name;
  std::vector<std::string> allocators;
  std::vector<flatbuffers::Offset<fb::Event>> events;
  // Delegate nodes seen so far per (instruction, name), for "name #k".
  std::map<std::pair<int32_t, std::string>, int> node_counts;
};

int32_t AllocatorId(Block& block, const char* name) {
  for (size_t i = 0; i < block.allocators.size(); ++i) {
    if (block.allocators[i] == name) return static_cast<int32_t>(i);
  }
  block.allocators.emplace_back(name);
  return static_cast<int32_t>(block.allocators.size() - 1);
}

}  // namespace

std::vector<uint8_t> WriteEtdump(const TraceRecorder& recorder, const EtdumpOptions& options) {
  flatbuffers::FlatBufferBuilder builder;
  std::vector<Block> blocks;
  for (size_t i = 0; i < recorder.size(); ++i) {
    const TraceRecord& r = recorder.record(i);
    const TraceEvent& e = r.event;
    // A top-level execute opens an "Execute" block; load phases after an
    // execute open a new "Default" block.
    const bool top = r.depth == 0;
    if (blocks.empty() || (top && e.kind == TraceEventKind::kExecute) ||
        (top && e.kind == TraceEventKind::kLoadPhase &&
         strcmp(blocks.back().name, "Default") != 0)) {
      blocks.push_back({e.kind == TraceEventKind::kExecute ? "Execute" : "Default", {}, {}, {}});
    }
    Block& block = blocks.back();
    if (e.kind == TraceEventKind::kAllocation) {
      if (!options.allocations) continue;
      const int32_t id = AllocatorId(block, e.name != nullptr ? e.name : "");
      const auto allocation = fb::CreateAllocationEvent(builder, id, e.bytes);
      block.events.push_back(fb::CreateEvent(builder, 0, allocation));
      continue;
    }
    if (r.end_ns == 0) continue;  // never closed
    const bool in_chain =
        e.kind == TraceEventKind::kInstruction || e.kind == TraceEventKind::kDelegateNode;
    const std::string name = EtdumpEventName(e);
    std::string node_id;  // delegate nodes: "XNNConvolution2D #2", as upstream XNNPACK names them
    if (e.kind == TraceEventKind::kDelegateNode) {
      node_id = name + " #" + std::to_string(++block.node_counts[{e.instruction, name}]);
    }
    const auto profile = fb::CreateProfileEventDirect(
        builder, name.c_str(), in_chain ? 0 : -1, in_chain ? e.instruction : -1, -1,
        node_id.empty() ? nullptr : node_id.c_str(), nullptr, r.start_ns, r.end_ns);
    block.events.push_back(fb::CreateEvent(builder, profile));
  }
  std::vector<flatbuffers::Offset<fb::RunData>> run_data;
  for (Block& block : blocks) {
    std::vector<flatbuffers::Offset<fb::Allocator>> allocators;
    for (const std::string& name : block.allocators) {
      allocators.push_back(fb::CreateAllocatorDirect(builder, name.c_str()));
    }
    run_data.push_back(fb::CreateRunDataDirect(
        builder, block.name, -1, allocators.empty() ? nullptr : &allocators, &block.events));
  }
  const auto root = fb::CreateETDumpDirect(builder, 0, &run_data);
  fb::FinishSizePrefixedETDumpBuffer(builder, root);
  return std::vector<uint8_t>(builder.GetBufferPointer(),
                              builder.GetBufferPointer() + builder.GetSize());
}

}  // namespace edgefleet
