#include "test/util/program_builder.h"

#include <cstring>

#include "test/util/pte_writer.h"

namespace edgefleet {
namespace testing {
namespace {

constexpr uint64_t kTensorAlignment = 16;

uint64_t AlignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

}  // namespace

ProgramBuilder::ProgramBuilder(const std::string& method_name) {
  auto plan = std::make_unique<edgefleet_fb::ExecutionPlanT>();
  plan->name = method_name;
  plan->non_const_buffer_sizes = {0, 0};
  plan->chains.push_back(std::make_unique<edgefleet_fb::ChainT>());
  program_.execution_plan.push_back(std::move(plan));
}

std::unique_ptr<edgefleet_fb::TensorT> ProgramBuilder::MakeTensor(
    ScalarType dtype, const std::vector<int32_t>& sizes, const std::vector<uint8_t>& dim_order) {
  auto t = std::make_unique<edgefleet_fb::TensorT>();
  t->scalar_type = static_cast<edgefleet_fb::ScalarType>(dtype);
  t->sizes = sizes;
  if (dim_order.empty()) {
    for (size_t i = 0; i < sizes.size(); ++i) t->dim_order.push_back(static_cast<uint8_t>(i));
  } else {
    t->dim_order = dim_order;
  }
  return t;
}

int ProgramBuilder::AddValue(edgefleet_fb::KernelTypesUnion value) {
  auto v = std::make_unique<edgefleet_fb::EValueT>();
  v->val = std::move(value);
  plan().values.push_back(std::move(v));
  return static_cast<int>(plan().values.size() - 1);
}

int ProgramBuilder::AddPlannedTensor(ScalarType dtype, const std::vector<int32_t>& sizes,
                                     const std::vector<uint8_t>& dim_order) {
  auto t = MakeTensor(dtype, sizes, dim_order);
  uint64_t nbytes = ElementSize(dtype);
  for (int32_t s : sizes) nbytes *= static_cast<uint64_t>(s);
  auto alloc = std::make_unique<edgefleet_fb::AllocationDetailsT>();
  alloc->memory_id = 1;
  alloc->memory_offset_low = static_cast<uint32_t>(planned_bytes_);
  alloc->memory_offset_high = static_cast<uint32_t>(planned_bytes_ >> 32);
  t->allocation_info = std::move(alloc);
  planned_bytes_ = AlignUp(planned_bytes_ + nbytes, kTensorAlignment);
  plan().non_const_buffer_sizes[1] = static_cast<int64_t>(planned_bytes_);
  edgefleet_fb::KernelTypesUnion u;
  u.Set(std::move(*t));
  return AddValue(std::move(u));
}

int ProgramBuilder::AddConstantTensor(ScalarType dtype, const std::vector<int32_t>& sizes,
                                      const std::vector<uint8_t>& bytes) {
  if (!program_.constant_segment) {
    program_.constant_segment = std::make_unique<edgefleet_fb::SubsegmentOffsetsT>();
    program_.constant_segment->offsets.push_back(0);  // placeholder for "no data"
  }
  auto& offsets = program_.constant_segment->offsets;
  const uint64_t offset = AlignUp(constants_.size(), kTensorAlignment);
  constants_.resize(offset);
  constants_.insert(constants_.end(), bytes.begin(), bytes.end());
  offsets.push_back(offset);
  auto t = MakeTensor(dtype, sizes, {});
  t->data_buffer_idx = static_cast<uint32_t>(offsets.size() - 1);
  edgefleet_fb::KernelTypesUnion u;
  u.Set(std::move(*t));
  return AddValue(std::move(u));
}

int ProgramBuilder::AddUnplannedTensor(ScalarType dtype, const std::vector<int32_t>& sizes) {
  edgefleet_fb::KernelTypesUnion u;
  u.Set(std::move(*MakeTensor(dtype, sizes, {})));
  return AddValue(std::move(u));
}

int ProgramBuilder::AddInt(int64_t value) {
  edgefleet_fb::IntT v;
  v.int_val = value;
  edgefleet_fb::KernelTypesUnion u;
  u.Set(std::move(v));
  return AddValue(std::move(u));
}

int ProgramBuilder::AddDouble(double value) {
  edgefleet_fb::DoubleT v;
  v.double_val = value;
  edgefleet_fb::KernelTypesUnion u;
  u.Set(std::move(v));
  return AddValue(std::move(u));
}

int ProgramBuilder::AddBool(bool value) {
  edgefleet_fb::BoolT v;
  v.bool_val = value;
  edgefleet_fb::KernelTypesUnion u;
  u.Set(std::move(v));
  return AddValue(std::move(u));
}

int ProgramBuilder::AddNull() {
  edgefleet_fb::KernelTypesUnion u;
  u.Set(edgefleet_fb::NullT());
  return AddValue(std::move(u));
}

int ProgramBuilder::AddIntList(const std::vector<int64_t>& values) {
  edgefleet_fb::IntListT list;
  for (int64_t v : values) list.items.push_back(AddInt(v));
  edgefleet_fb::KernelTypesUnion u;
  u.Set(std::move(list));
  return AddValue(std::move(u));
}

int ProgramBuilder::AddTensorList(const std::vector<int32_t>& value_indices) {
  edgefleet_fb::TensorListT list;
  list.items = value_indices;
  edgefleet_fb::KernelTypesUnion u;
  u.Set(std::move(list));
  return AddValue(std::move(u));
}

int ProgramBuilder::AddOperator(const std::string& name, const std::string& overload) {
  auto op = std::make_unique<edgefleet_fb::OperatorT>();
  op->name = name;
  op->overload = overload;
  plan().operators.push_back(std::move(op));
  return static_cast<int>(plan().operators.size() - 1);
}

edgefleet_fb::InstructionT& ProgramBuilder::AddInstruction() {
  auto& chain = *plan().chains[0];
  chain.instructions.push_back(std::make_unique<edgefleet_fb::InstructionT>());
  return *chain.instructions.back();
}

void ProgramBuilder::AddKernelCall(int op_index, const std::vector<int32_t>& args) {
  edgefleet_fb::KernelCallT call;
  call.op_index = op_index;
  call.args = args;
  AddInstruction().instr_args.Set(std::move(call));
}

int ProgramBuilder::AddDelegate(const std::string& backend_id,
                                const std::vector<uint8_t>& payload) {
  auto data = std::make_unique<edgefleet_fb::BackendDelegateInlineDataT>();
  data->data = payload;
  program_.backend_delegate_data.push_back(std::move(data));
  auto delegate = std::make_unique<edgefleet_fb::BackendDelegateT>();
  delegate->id = backend_id;
  delegate->processed = std::make_unique<edgefleet_fb::BackendDelegateDataReferenceT>();
  delegate->processed->location = edgefleet_fb::DataLocation::INLINE;
  delegate->processed->index = static_cast<uint32_t>(program_.backend_delegate_data.size() - 1);
  plan().delegates.push_back(std::move(delegate));
  return static_cast<int>(plan().delegates.size() - 1);
}

void ProgramBuilder::AddDelegateCall(int delegate_index, const std::vector<int32_t>& args) {
  edgefleet_fb::DelegateCallT call;
  call.delegate_index = delegate_index;
  call.args = args;
  AddInstruction().instr_args.Set(std::move(call));
}

void ProgramBuilder::AddMove(int from, int to) {
  edgefleet_fb::MoveCallT call;
  call.move_from = from;
  call.move_to = to;
  AddInstruction().instr_args.Set(std::move(call));
}

void ProgramBuilder::AddJumpFalse(int cond, int destination) {
  edgefleet_fb::JumpFalseCallT call;
  call.cond_value_index = cond;
  call.destination_instruction = destination;
  AddInstruction().instr_args.Set(std::move(call));
}

void ProgramBuilder::AddFree(int value) {
  edgefleet_fb::FreeCallT call;
  call.value_index = value;
  AddInstruction().instr_args.Set(std::move(call));
}

void ProgramBuilder::SetInputs(const std::vector<int32_t>& inputs) { plan().inputs = inputs; }
void ProgramBuilder::SetOutputs(const std::vector<int32_t>& outputs) { plan().outputs = outputs; }

edgefleet_fb::TensorT& ProgramBuilder::tensor(int index) {
  return *plan().values[index]->val.AsTensor();
}

std::vector<uint8_t> ProgramBuilder::Build(bool extended_header) const {
  // A copy of the program (the object API has no copy assignment) to which
  // the constant segment's table entry is added.
  edgefleet_fb::ProgramT program;
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(edgefleet_fb::Program::Pack(fbb, &program_), "ET12");
  edgefleet_fb::GetProgram(fbb.GetBufferPointer())->UnPackTo(&program);
  if (!constants_.empty()) {
    program.constant_segment->segment_index = static_cast<uint32_t>(program.segments.size());
    auto entry = std::make_unique<edgefleet_fb::DataSegmentT>();
    entry->offset = 0;
    entry->size = constants_.size();
    program.segments.push_back(std::move(entry));
  }
  return WritePte(program, constants_, extended_header);
}

}  // namespace testing
}  // namespace edgefleet
