// The event tracer (through the executor, on committed fixtures), the
// allocation-free recorder's overflow, the ETDump writer round trip through
// our reader, the reader on the real runtime's sample file, and the reader's
// refusal of malformed input.

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "gtest/gtest.h"
#include "runtime/backends/xnnpack/xnnpack_backend.h"
#include "runtime/core/error_detail.h"
#include "runtime/devtools/etdump_generated.h"
#include "runtime/devtools/etdump_reader.h"
#include "runtime/devtools/etdump_writer.h"
#include "runtime/devtools/trace_recorder.h"
#include "runtime/kernels/optimized/register_optimized_kernels.h"
#include "runtime/kernels/portable/register_portable_kernels.h"
#include "runtime/module/method_inputs.h"
#include "runtime/module/module.h"

namespace edgefleet {
namespace {

// Programs exported by the real exporter (test/fixtures/README.md).
constexpr char kCnn[] = "test/fixtures/small_cnn/model.pte";
constexpr char kXnnpack[] = "test/fixtures/xnnpack_conv_mix/model_xnnpack.pte";
// The real runtime's sample ETDump, outside the repository; skipped without.
constexpr char kRealEtdump[] =
    "../shared/fixtures/third_party_pte/docs_source_tutorials_source_etdump.etdp";

std::vector<uint8_t> ReadAll(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

class DevtoolsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(RegisterPortableKernels(), Error::kOk);
    ASSERT_EQ(RegisterOptimizedKernels(), Error::kOk);
    ASSERT_EQ(RegisterXnnpackBackend(), Error::kOk);
  }

  // Loads `path` with `tracer` attached for the method load.
  Method* Load(const char* path, EventTracer* tracer) {
    Module::Options options;
    options.method.tracer = tracer;
    Result<std::unique_ptr<Module>> module = Module::Load(path, options);
    EXPECT_TRUE(module.ok()) << LastErrorDetail();
    if (!module.ok()) return nullptr;
    module_ = std::move(*module);
    Result<Method*> method = module_->LoadMethod("forward");
    EXPECT_TRUE(method.ok()) << LastErrorDetail();
    return method.ok() ? *method : nullptr;
  }

  // Sets seeded random inputs and executes once.
  static Error Run(Method& method) {
    Result<MethodInputs> inputs = MethodInputs::Random(method.meta(), 1);
    if (!inputs.ok()) return inputs.error();
    EF_RETURN_IF_ERROR(inputs->Apply(method));
    return method.Execute();
  }

  std::unique_ptr<Module> module_;
};

std::vector<const TraceRecord*> OfKind(const TraceRecorder& r, TraceEventKind kind) {
  std::vector<const TraceRecord*> out;
  for (size_t i = 0; i < r.size(); ++i) {
    if (r.record(i).event.kind == kind) out.push_back(&r.record(i));
  }
  return out;
}

TEST_F(DevtoolsTest, TracesLoadPhasesAndEveryInstruction) {
  std::vector<TraceRecord> buffer(1024);
  TraceRecorder recorder({buffer.data(), buffer.size()});
  Method* method = Load(kCnn, &recorder);
  ASSERT_NE(method, nullptr);
  std::vector<std::string> phases;
  for (const TraceRecord* r : OfKind(recorder, TraceEventKind::kLoadPhase)) {
    phases.push_back(r->event.name);
    EXPECT_GE(r->end_ns, r->start_ns);
  }
  const std::vector<std::string> expected = {"Program::load_method", "Method::init",
                                             "parse_values",         "init_delegates",
                                             "init_instructions",    "optimize_plan"};
  EXPECT_EQ(phases, expected);
  const auto allocations = OfKind(recorder, TraceEventKind::kAllocation);
  ASSERT_FALSE(allocations.empty());
  EXPECT_STREQ(allocations[0]->event.name, "method");
  EXPECT_GT(allocations[0]->event.bytes, 0u);

  const size_t loaded = recorder.size();
  ASSERT_EQ(Run(*method), Error::kOk) << LastErrorDetail();
  ASSERT_EQ(OfKind(recorder, TraceEventKind::kExecute).size(), 1u);
  const auto instructions = OfKind(recorder, TraceEventKind::kInstruction);
  ASSERT_EQ(instructions.size(), method->num_instructions());
  for (size_t pc = 0; pc < instructions.size(); ++pc) {
    const TraceEvent& e = instructions[pc]->event;
    EXPECT_EQ(e.instruction, static_cast<int32_t>(pc));
    char name[128];
    ASSERT_TRUE(method->instruction_name(pc, name, sizeof(name)));
    EXPECT_STREQ(e.name, name);
    EXPECT_STREQ(e.detail, method->instruction_kind(pc));
    EXPECT_GE(instructions[pc]->end_ns, instructions[pc]->start_ns);
    EXPECT_EQ(instructions[pc]->depth, 1u);  // inside Method::execute
  }
  EXPECT_EQ(recorder.dropped(), 0u);

  // Detached: executes record nothing.
  method->set_event_tracer(nullptr);
  const size_t traced = recorder.size();
  ASSERT_EQ(Run(*method), Error::kOk);
  EXPECT_EQ(recorder.size(), traced);
  EXPECT_GT(traced, loaded);
}

TEST_F(DevtoolsTest, DelegateNodesBelongToTheirDelegateCall) {
  std::vector<TraceRecord> buffer(1024);
  TraceRecorder recorder({buffer.data(), buffer.size()});
  Method* method = Load(kXnnpack, &recorder);
  ASSERT_NE(method, nullptr);
  const auto init = OfKind(recorder, TraceEventKind::kLoadPhase);
  size_t delegate_inits = 0;
  for (const TraceRecord* r : init) delegate_inits += r->event.delegate_id >= 0;
  EXPECT_EQ(delegate_inits, method->num_delegates());
  ASSERT_EQ(Run(*method), Error::kOk) << LastErrorDetail();
  const auto nodes = OfKind(recorder, TraceEventKind::kDelegateNode);
  ASSERT_FALSE(nodes.empty());
  for (const TraceRecord* n : nodes) {
    ASSERT_GE(n->event.instruction, 0);
    EXPECT_STREQ(method->instruction_kind(static_cast<size_t>(n->event.instruction)), "delegate");
    EXPECT_EQ(n->depth, 2u);  // execute > delegate call > node
    EXPECT_TRUE(strcmp(n->event.detail, "xnnpack") == 0 || strcmp(n->event.detail, "own") == 0 ||
                strcmp(n->event.detail, "own-optimized") == 0)
        << n->event.detail;  // xnnpack::EngineName
  }
}

TEST_F(DevtoolsTest, FullBufferDropsAndCountsWithoutFailing) {
  std::vector<TraceRecord> unbounded(1024);
  TraceRecorder all({unbounded.data(), unbounded.size()});
  Method* method = Load(kCnn, &all);
  ASSERT_NE(method, nullptr);
  ASSERT_EQ(Run(*method), Error::kOk);
  for (size_t capacity : {0, 1, 3}) {
    std::vector<TraceRecord> small(capacity);
    TraceRecorder recorder({small.data(), small.size()});
    all.Clear();
    method->set_event_tracer(&all);
    ASSERT_EQ(Run(*method), Error::kOk);
    const size_t wanted = all.size();
    method->set_event_tracer(&recorder);
    ASSERT_EQ(Run(*method), Error::kOk) << "capacity " << capacity;
    EXPECT_EQ(recorder.size(), capacity);
    EXPECT_EQ(recorder.size() + recorder.dropped(), wanted);
    for (size_t i = 0; i < recorder.size(); ++i) {
      const TraceRecord& r = recorder.record(i);
      EXPECT_GE(r.end_ns, r.start_ns);
      EXPECT_NE(r.end_ns, 0u) << "kept event " << i << " was never closed";
    }
    // The exporters skip nothing they should keep and read no dropped slot.
    const std::vector<uint8_t> file = WriteEtdump(recorder);
    EXPECT_TRUE(ReadEtdump(file.data(), file.size()).ok()) << LastErrorDetail();
  }
}

// The thread CPU clock leaves out time the thread does not run (here a
// sleep); the monotonic clock counts it. Then a traced execute on the CPU
// clock: every instruction's span inside the execute's.
TEST_F(DevtoolsTest, ThreadCpuClockCountsOnlyRunningTime) {
  for (const TraceClock clock : {TraceClock::kMonotonic, TraceClock::kThreadCpu}) {
    std::vector<TraceRecord> buffer(4);
    TraceRecorder recorder({buffer.data(), buffer.size()}, clock);
    const TraceToken token = recorder.Begin({TraceEventKind::kExecute, "sleep"});
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    recorder.End(token);
    const uint64_t ns = recorder.record(0).end_ns - recorder.record(0).start_ns;
    if (clock == TraceClock::kMonotonic) {
      EXPECT_GE(ns, 30000000u);
    } else {
      EXPECT_LT(ns, 10000000u);  // a sleeping thread uses (almost) no CPU
    }
  }
  std::vector<TraceRecord> buffer(1024);
  TraceRecorder recorder({buffer.data(), buffer.size()}, TraceClock::kThreadCpu);
  Method* method = Load(kXnnpack, nullptr);
  ASSERT_NE(method, nullptr);
  method->set_event_tracer(&recorder);
  ASSERT_EQ(Run(*method), Error::kOk);
  ASSERT_GT(recorder.size(), method->num_instructions());
  const TraceRecord& execute = recorder.record(0);
  ASSERT_EQ(execute.event.kind, TraceEventKind::kExecute);
  size_t instructions = 0;
  for (size_t i = 1; i < recorder.size(); ++i) {
    const TraceRecord& r = recorder.record(i);
    if (r.event.kind != TraceEventKind::kInstruction) continue;
    ++instructions;
    EXPECT_LE(execute.start_ns, r.start_ns);
    EXPECT_LE(r.start_ns, r.end_ns);
    EXPECT_LE(r.end_ns, execute.end_ns);
  }
  EXPECT_EQ(instructions, method->num_instructions());
}

TEST_F(DevtoolsTest, EtdumpRoundTripThroughOurReader) {
  std::vector<TraceRecord> buffer(1024);
  TraceRecorder recorder({buffer.data(), buffer.size()});
  Method* method = Load(kXnnpack, &recorder);
  ASSERT_NE(method, nullptr);
  ASSERT_EQ(Run(*method), Error::kOk);
  ASSERT_EQ(Run(*method), Error::kOk);
  for (const bool allocations : {false, true}) {
    EtdumpOptions options;
    options.allocations = allocations;
    const std::vector<uint8_t> file = WriteEtdump(recorder, options);
    uint32_t prefix;
    memcpy(&prefix, file.data(), 4);
    EXPECT_EQ(prefix + 4, file.size());
    EXPECT_EQ(memcmp(file.data() + 8, "ED00", 4), 0);
    Result<Etdump> read = ReadEtdump(file.data(), file.size());
    ASSERT_TRUE(read.ok()) << LastErrorDetail();
    ASSERT_EQ(read->runs.size(), 3u);
    EXPECT_EQ(read->runs[0].name, "Default");
    EXPECT_EQ(read->runs[1].name, "Execute");
    EXPECT_EQ(read->runs[2].name, "Execute");
    // Every record appears once, in order, with its times.
    size_t next = 0;
    for (const EtdumpRun& run : read->runs) {
      std::map<std::string, int> node_counts;
      for (const EtdumpEvent& e : run.events) {
        while (next < recorder.size() && !allocations &&
               recorder.record(next).event.kind == TraceEventKind::kAllocation) {
          ++next;
        }
        ASSERT_LT(next, recorder.size());
        const TraceRecord& r = recorder.record(next++);
        if (r.event.kind == TraceEventKind::kAllocation) {
          ASSERT_EQ(e.kind, EtdumpEvent::Kind::kAllocation);
          EXPECT_EQ(run.allocators[e.allocator_id], r.event.name);
          EXPECT_EQ(e.allocation_size, r.event.bytes);
          continue;
        }
        ASSERT_EQ(e.kind, EtdumpEvent::Kind::kProfile);
        EXPECT_EQ(e.name, EtdumpEventName(r.event));
        EXPECT_EQ(e.start_time, r.start_ns);
        EXPECT_EQ(e.end_time, r.end_ns);
        const bool in_chain = r.event.kind == TraceEventKind::kInstruction ||
                              r.event.kind == TraceEventKind::kDelegateNode;
        EXPECT_EQ(e.chain_index, in_chain ? 0 : -1);
        EXPECT_EQ(e.instruction_id, in_chain ? r.event.instruction : -1);
        EXPECT_EQ(e.delegate_debug_id_int, -1);
        if (r.event.kind == TraceEventKind::kDelegateNode) {
          // "<name> #k": k counts this name's nodes in this call, from 1.
          const std::string prefix = e.name + " #";
          ASSERT_EQ(e.delegate_debug_id_str.compare(0, prefix.size(), prefix), 0)
              << e.delegate_debug_id_str;
          const std::string key = std::to_string(r.event.instruction) + "/" + e.name;
          EXPECT_EQ(e.delegate_debug_id_str, prefix + std::to_string(++node_counts[key]));
        } else {
          EXPECT_EQ(e.delegate_debug_id_str, "");
        }
      }
    }
    while (next < recorder.size() &&
           recorder.record(next).event.kind == TraceEventKind::kAllocation) {
      ++next;
    }
    EXPECT_EQ(next, recorder.size());
  }
}

TEST(EtdumpNames, FollowTheUpstreamRuntime) {
  TraceEvent e{TraceEventKind::kInstruction, "aten::convolution.out", "optimized"};
  EXPECT_EQ(EtdumpEventName(e), "native_call_convolution.out");
  e.name = "edgefleet::fused_convolution.out";
  EXPECT_EQ(EtdumpEventName(e), "native_call_edgefleet::fused_convolution.out");
  e.name = "XnnpackBackend";
  e.delegate_id = 0;
  EXPECT_EQ(EtdumpEventName(e), "DELEGATE_CALL");
  e.delegate_id = -1;
  for (auto [ours, theirs] : {std::pair<const char*, const char*>{"move", "MOVE_CALL"},
                              {"jump_false", "JF_CALL"},
                              {"free", "FREE_CALL"}}) {
    e.name = ours;
    EXPECT_EQ(EtdumpEventName(e), theirs);
  }
}

TEST(EtdumpReader, ReadsTheRealRuntimesSample) {
  const std::vector<uint8_t> file = ReadAll(kRealEtdump);
  if (file.empty()) GTEST_SKIP() << kRealEtdump << " not present";
  Result<Etdump> read = ReadEtdump(file.data(), file.size());
  ASSERT_TRUE(read.ok()) << LastErrorDetail();
  // Hand-checked with the upstream deserializer (executorch.devtools.etdump).
  ASSERT_EQ(read->runs.size(), 2u);
  EXPECT_EQ(read->runs[0].name, "Default");
  ASSERT_EQ(read->runs[0].events.size(), 2u);
  EXPECT_EQ(read->runs[0].events[0].name, "Method::init");
  EXPECT_EQ(read->runs[0].events[1].name, "Program::load_method");
  EXPECT_EQ(read->runs[1].name, "Execute");
  ASSERT_EQ(read->runs[1].events.size(), 29u);
  const EtdumpEvent& first = read->runs[1].events[0];
  EXPECT_EQ(first.name, "native_call_convolution.out");
  EXPECT_EQ(first.chain_index, 0);
  EXPECT_EQ(first.instruction_id, 0);
  EXPECT_EQ(first.start_time, 426786u);
  EXPECT_EQ(first.end_time, 971569u);
  size_t operator_calls = 0;
  for (const EtdumpEvent& e : read->runs[1].events) operator_calls += e.name == "OPERATOR_CALL";
  EXPECT_EQ(operator_calls, 14u);
  EXPECT_EQ(read->runs[1].events.back().name, "Method::execute");
}

// A file written by hand with the generated builder, to break rules the
// verifier cannot see.
std::vector<uint8_t> HandWritten(bool two_members, int32_t allocator_id) {
  namespace fb = edgefleet_etdump;
  flatbuffers::FlatBufferBuilder b;
  const auto profile = fb::CreateProfileEventDirect(b, "x", 0, 0, -1, nullptr, nullptr, 1, 2);
  const auto allocation = fb::CreateAllocationEvent(b, allocator_id, 8);
  std::vector<flatbuffers::Offset<fb::Event>> events = {
      two_members ? fb::CreateEvent(b, profile, allocation) : fb::CreateEvent(b, 0, allocation)};
  std::vector<flatbuffers::Offset<fb::Allocator>> allocators = {
      fb::CreateAllocatorDirect(b, "method")};
  std::vector<flatbuffers::Offset<fb::RunData>> runs = {
      fb::CreateRunDataDirect(b, "Default", -1, &allocators, &events)};
  fb::FinishSizePrefixedETDumpBuffer(b, fb::CreateETDumpDirect(b, 0, &runs));
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

TEST(EtdumpReader, RefusesMalformedFiles) {
  const std::vector<uint8_t> good = HandWritten(false, 0);
  ASSERT_TRUE(ReadEtdump(good.data(), good.size()).ok()) << LastErrorDetail();

  const std::vector<uint8_t> two = HandWritten(true, 0);
  EXPECT_EQ(ReadEtdump(two.data(), two.size()).error(), Error::kInvalidArgument);
  EXPECT_NE(std::string(LastErrorDetail()).find("2 members"), std::string::npos);
  const std::vector<uint8_t> bad_allocator = HandWritten(false, 1);
  EXPECT_EQ(ReadEtdump(bad_allocator.data(), bad_allocator.size()).error(),
            Error::kInvalidArgument);

  std::vector<uint8_t> wrong_id = good;
  wrong_id[8] = 'X';
  EXPECT_EQ(ReadEtdump(wrong_id.data(), wrong_id.size()).error(), Error::kInvalidArgument);
  std::vector<uint8_t> longer = good;
  longer.push_back(0);
  EXPECT_EQ(ReadEtdump(longer.data(), longer.size()).error(), Error::kInvalidArgument);
  EXPECT_EQ(ReadEtdump(nullptr, 0).error(), Error::kInvalidArgument);

  // Every truncation, with a matching size prefix so that only the verifier
  // can catch it: refused, or (cutting only unused tail bytes) read as the
  // whole file. And every single-byte corruption: a clean result either way.
  const Etdump whole = *ReadEtdump(good.data(), good.size());
  size_t refused = 0;
  for (size_t n = 0; n < good.size(); ++n) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + n);
    if (n >= 4) {
      const uint32_t prefix = static_cast<uint32_t>(n - 4);
      memcpy(cut.data(), &prefix, 4);
    }
    Result<Etdump> read = ReadEtdump(cut.data(), cut.size());
    if (!read.ok()) {
      ++refused;
      continue;
    }
    ASSERT_EQ(read->runs.size(), 1u) << "cut at " << n;
    ASSERT_EQ(read->runs[0].events.size(), 1u) << "cut at " << n;
    EXPECT_EQ(read->runs[0].allocators, whole.runs[0].allocators) << "cut at " << n;
    EXPECT_EQ(read->runs[0].events[0].allocation_size, 8u) << "cut at " << n;
  }
  EXPECT_GT(refused, good.size() / 2);
  for (size_t i = 0; i < good.size(); ++i) {
    for (uint8_t flip : {0x01, 0x80, 0xff}) {
      std::vector<uint8_t> bad = good;
      bad[i] ^= flip;
      Result<Etdump> read = ReadEtdump(bad.data(), bad.size());
      if (read.ok()) {
        for (const EtdumpRun& run : read->runs) {
          for (const EtdumpEvent& e : run.events) {
            if (e.kind == EtdumpEvent::Kind::kAllocation) {
              EXPECT_LT(static_cast<size_t>(e.allocator_id), run.allocators.size());
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace edgefleet
