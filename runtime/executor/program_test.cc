// Program::Load on well-formed and deliberately malformed files. Each
// malformed case must fail with its specific error and detail, never crash.

#include "runtime/executor/program.h"

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/core/error_detail.h"
#include "runtime/loaders/buffer_data_loader.h"
#include "test/util/program_builder.h"

namespace edgefleet {
namespace {

using testing::ProgramBuilder;

// Loads `bytes` from a 16-byte-aligned copy.
struct Loaded {
  std::vector<uint8_t> storage;
  std::unique_ptr<BufferDataLoader> loader;
};

Result<Program> LoadBytes(const std::vector<uint8_t>& bytes, Loaded* holder) {
  // std::vector<uint8_t> memory from operator new is 16-byte aligned.
  holder->storage = bytes;
  holder->loader = std::make_unique<BufferDataLoader>(holder->storage.data(), bytes.size());
  ClearErrorDetail();
  return Program::Load(holder->loader.get());
}

// x (planned [2,2] float) + c (constant [2,2] float) -> y.
ProgramBuilder AddConstantProgram() {
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(ScalarType::kFloat, {2, 2});
  std::vector<uint8_t> bytes(16);
  const float c[4] = {1, 2, 3, 4};
  memcpy(bytes.data(), c, 16);
  const int k = b.AddConstantTensor(ScalarType::kFloat, {2, 2}, bytes);
  const int alpha = b.AddInt(1);
  const int y = b.AddPlannedTensor(ScalarType::kFloat, {2, 2});
  const int op = b.AddOperator("aten::add", "out");
  b.AddKernelCall(op, {x, k, alpha, y, y});
  b.SetInputs({x});
  b.SetOutputs({y});
  return b;
}

TEST(ProgramTest, LoadsWellFormedProgramWithSegments) {
  Loaded holder;
  Result<Program> program = LoadBytes(AddConstantProgram().Build(), &holder);
  ASSERT_TRUE(program.ok()) << LastErrorDetail();
  EXPECT_TRUE(program->has_extended_header());
  EXPECT_EQ(program->num_methods(), 1u);
  EXPECT_STREQ(program->method_name(0), "forward");
  EXPECT_EQ(program->num_segments(), 1u);
  EXPECT_EQ(program->constant_segment_size(), 16u);
  Result<MethodMeta> meta = program->method_meta("forward");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->num_inputs(), 1u);
  EXPECT_EQ(meta->num_planned_buffers(), 1u);
  EXPECT_EQ(*meta->planned_buffer_size(0), 32);
  Result<TensorInfo> in = meta->input_tensor_info(0);
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(in->dtype, ScalarType::kFloat);
  EXPECT_EQ(in->nbytes, 16u);
  EXPECT_TRUE(in->is_memory_planned);
  char name[64];
  ASSERT_TRUE(meta->operator_name(0, name, sizeof(name)));
  EXPECT_STREQ(name, "aten::add.out");
  EXPECT_EQ(program->method_meta("nope").error(), Error::kNotFound);
}

TEST(ProgramTest, LoadsFileWithoutExtendedHeader) {
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(ScalarType::kFloat, {3});
  b.SetInputs({x});
  b.SetOutputs({x});
  Loaded holder;
  Result<Program> program = LoadBytes(b.Build(/*extended_header=*/false), &holder);
  ASSERT_TRUE(program.ok()) << LastErrorDetail();
  EXPECT_FALSE(program->has_extended_header());
}

struct MalformedCase {
  const char* name;
  std::function<void(ProgramBuilder&)> corrupt_program;      // may be null
  std::function<void(std::vector<uint8_t>&)> corrupt_bytes;  // may be null
  Error error;
  const char* detail;  // expected substring of the detail
};

void PrintTo(const MalformedCase& c, std::ostream* os) { *os << c.name; }

class MalformedProgramTest : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(MalformedProgramTest, FailsWithSpecificError) {
  const MalformedCase& c = GetParam();
  ProgramBuilder b = AddConstantProgram();
  if (c.corrupt_program) c.corrupt_program(b);
  std::vector<uint8_t> bytes = b.Build();
  if (c.corrupt_bytes) c.corrupt_bytes(bytes);
  Loaded holder;
  Result<Program> program = LoadBytes(bytes, &holder);
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.error(), c.error) << LastErrorDetail();
  EXPECT_NE(std::string(LastErrorDetail()).find(c.detail), std::string::npos)
      << "detail was: " << LastErrorDetail();
}

using fb = edgefleet_fb::ProgramT;
void SetU32(std::vector<uint8_t>& bytes, size_t at, uint32_t v) { memcpy(&bytes[at], &v, 4); }
void SetU64(std::vector<uint8_t>& bytes, size_t at, uint64_t v) { memcpy(&bytes[at], &v, 8); }

const MalformedCase kMalformedCases[] = {
    {"Empty", nullptr, [](std::vector<uint8_t>& b) { b.resize(4); }, Error::kInvalidProgram,
     "too small"},
    {"WrongIdentifier", nullptr, [](std::vector<uint8_t>& b) { memcpy(&b[4], "XX12", 4); },
     Error::kInvalidProgram, "identifier 'XX12'"},
    {"IncompatibleVersion", nullptr, [](std::vector<uint8_t>& b) { memcpy(&b[4], "ET99", 4); },
     Error::kInvalidProgram, "incompatible version"},
    {"TruncatedFlatbuffer", nullptr,
     [](std::vector<uint8_t>& b) {
       b.resize(200);
       SetU64(b, 16, 200);  // program_size
       SetU64(b, 24, 0);    // no segments
       SetU64(b, 32, 0);
     },
     Error::kInvalidProgram, "flatbuffer verification failed"},
    {"RootOffsetPastEnd", nullptr, [](std::vector<uint8_t>& b) { SetU32(b, 0, 0x7fffffff); },
     Error::kInvalidProgram, "flatbuffer verification failed"},
    {"ShortExtendedHeader", nullptr, [](std::vector<uint8_t>& b) { SetU32(b, 12, 8); },
     Error::kInvalidProgram, "extended header length"},
    {"ProgramSizePastEnd", nullptr, [](std::vector<uint8_t>& b) { SetU64(b, 16, 1u << 30); },
     Error::kInvalidProgram, "program size"},
    {"SegmentsPastEnd", nullptr, [](std::vector<uint8_t>& b) { SetU64(b, 32, 1u << 30); },
     Error::kInvalidProgram, "file size is too small"},
    {"SegmentOffsetPastEnd",
     [](ProgramBuilder& p) {
       // Build() appends the real segment; add a bogus one as well.
       auto s = std::make_unique<edgefleet_fb::DataSegmentT>();
       s->offset = 1u << 20;
       s->size = 16;
       p.program().segments.push_back(std::move(s));
     },
     nullptr, Error::kInvalidProgram, "segment past end of file"},
    {"ConstantOffsetPastEnd",
     [](ProgramBuilder& p) { p.program().constant_segment->offsets[1] = 4096; }, nullptr,
     Error::kInvalidProgram, "constant offset past end of segment"},
    {"ConstantIndexOutOfRange", [](ProgramBuilder& p) { p.tensor(1).data_buffer_idx = 9; }, nullptr,
     Error::kInvalidProgram, "constant index 9 out of range"},
    {"PlannedOffsetPastArena",
     [](ProgramBuilder& p) { p.tensor(0).allocation_info->memory_offset_low = 1000; }, nullptr,
     Error::kInvalidProgram, "planned offset past end of arena"},
    {"PlannedOffsetHighWord",
     [](ProgramBuilder& p) { p.tensor(0).allocation_info->memory_offset_high = 1; }, nullptr,
     Error::kInvalidProgram, "planned offset past end of arena"},
    {"MemoryIdZero", [](ProgramBuilder& p) { p.tensor(0).allocation_info->memory_id = 0; }, nullptr,
     Error::kInvalidProgram, "memory id 0 out of range"},
    {"MemoryIdTooLarge", [](ProgramBuilder& p) { p.tensor(0).allocation_info->memory_id = 5; },
     nullptr, Error::kInvalidProgram, "memory id 5 out of range"},
    {"NegativeBufferSize", [](ProgramBuilder& p) { p.plan().non_const_buffer_sizes[1] = -1; },
     nullptr, Error::kInvalidProgram, "negative planned buffer size"},
    {"NumelOverflow",
     [](ProgramBuilder& p) {
       p.tensor(0).sizes = {1 << 30, 1 << 30, 1 << 30};
       p.tensor(0).dim_order = {0, 1, 2};
     },
     nullptr, Error::kInvalidProgram, "numel overflow"},
    {"NegativeSize",
     [](ProgramBuilder& p) {
       p.tensor(0).sizes = {-2, 2};
     },
     nullptr, Error::kInvalidProgram, "numel overflow or negative size"},
    {"RankAboveLimit",
     [](ProgramBuilder& p) {
       p.tensor(0).sizes.assign(17, 1);
       p.tensor(0).dim_order.clear();
       for (uint8_t i = 0; i < 17; ++i) p.tensor(0).dim_order.push_back(i);
     },
     nullptr, Error::kInvalidProgram, "rank 17"},
    {"InvalidDimOrder",
     [](ProgramBuilder& p) {
       p.tensor(0).dim_order = {1, 1};
     },
     nullptr, Error::kInvalidProgram, "invalid dim order"},
    {"UnknownDtype",
     [](ProgramBuilder& p) { p.tensor(0).scalar_type = static_cast<edgefleet_fb::ScalarType>(9); },
     nullptr, Error::kInvalidProgram, "unknown dtype 9"},
    {"StorageOffset", [](ProgramBuilder& p) { p.tensor(0).storage_offset = 4; }, nullptr,
     Error::kInvalidProgram, "storage offset"},
    {"InputIndexOutOfRange", [](ProgramBuilder& p) { p.plan().inputs = {77}; }, nullptr,
     Error::kInvalidProgram, "input value index 77 out of range"},
    {"OutputIndexNegative", [](ProgramBuilder& p) { p.plan().outputs = {-1}; }, nullptr,
     Error::kInvalidProgram, "output value index -1 out of range"},
    {"KernelArgOutOfRange",
     [](ProgramBuilder& p) {
       p.plan().chains[0]->instructions[0]->instr_args.AsKernelCall()->args[1] = 1234;
     },
     nullptr, Error::kInvalidProgram, "argument value index 1234 out of range"},
    {"OperatorIndexOutOfRange",
     [](ProgramBuilder& p) {
       p.plan().chains[0]->instructions[0]->instr_args.AsKernelCall()->op_index = 3;
     },
     nullptr, Error::kInvalidProgram, "operator index 3 out of range"},
    {"DelegateIndexOutOfRange", [](ProgramBuilder& p) { p.AddDelegateCall(2, {0}); }, nullptr,
     Error::kInvalidProgram, "delegate index 2 out of range"},
    {"JumpPastEnd", [](ProgramBuilder& p) { p.AddJumpFalse(0, 50); }, nullptr,
     Error::kInvalidProgram, "jump destination 50 out of range"},
    {"MoveOutOfRange", [](ProgramBuilder& p) { p.AddMove(0, 99); }, nullptr, Error::kInvalidProgram,
     "move destination value index 99"},
    {"FreeOfNonTensor", [](ProgramBuilder& p) { p.AddFree(2); }, nullptr, Error::kInvalidProgram,
     "free refers to value 2 of the wrong kind"},
    {"IntListItemNotInt",
     [](ProgramBuilder& p) {
       const int list = p.AddIntList({1, 2});
       p.plan().values[list]->val.AsIntList()->items[0] = 0;  // a tensor
     },
     nullptr, Error::kInvalidProgram, "int list item refers to value 0"},
    {"TensorListItemOutOfRange",
     [](ProgramBuilder& p) {
       p.AddTensorList({0, 500});
     },
     nullptr, Error::kInvalidProgram, "tensor list item value index 500"},
    {"InlineDelegatePayloadOutOfRange",
     [](ProgramBuilder& p) {
       p.AddDelegate("XnnpackBackend", {1, 2, 3});
       p.plan().delegates[0]->processed->index = 7;
     },
     nullptr, Error::kInvalidProgram, "inline payload index 7 out of range"},
    {"SegmentDelegateOutOfRange",
     [](ProgramBuilder& p) {
       p.AddDelegate("XnnpackBackend", {1, 2, 3});
       p.plan().delegates[0]->processed->location = edgefleet_fb::DataLocation::SEGMENT;
       p.plan().delegates[0]->processed->index = 4;
     },
     nullptr, Error::kInvalidProgram, "segment index 4 out of range"},
    {"NoValues", [](ProgramBuilder& p) { p.plan().values.clear(); }, nullptr,
     Error::kInvalidProgram, "lacks values"},
};

INSTANTIATE_TEST_SUITE_P(AllKinds, MalformedProgramTest, ::testing::ValuesIn(kMalformedCases),
                         [](const ::testing::TestParamInfo<MalformedCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(ProgramTest, EveryTruncationFailsCleanly) {
  const std::vector<uint8_t> bytes = AddConstantProgram().Build();
  for (size_t size = 0; size < bytes.size(); ++size) {
    Loaded holder;
    Result<Program> program =
        LoadBytes(std::vector<uint8_t>(bytes.begin(), bytes.begin() + size), &holder);
    EXPECT_FALSE(program.ok()) << "truncated to " << size;
    EXPECT_EQ(program.error(), Error::kInvalidProgram) << LastErrorDetail();
  }
}

TEST(ProgramTest, EverySingleByteFlipLoadsOrFailsCleanly) {
  const std::vector<uint8_t> bytes = AddConstantProgram().Build();
  int rejected = 0;
  for (size_t at = 0; at < bytes.size(); ++at) {
    std::vector<uint8_t> mutated = bytes;
    mutated[at] ^= 0xff;
    Loaded holder;
    Result<Program> program = LoadBytes(mutated, &holder);
    if (!program.ok()) {
      ++rejected;
      EXPECT_NE(LastErrorDetail()[0], '\0') << "no detail for flip at " << at;
    }
  }
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace edgefleet
