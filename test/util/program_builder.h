// ProgramBuilder: writes .pte files for tests and fuzz seeds.
//
// Builds a program through the flatbuffers object API of our own schema and
// serializes it the way the real exporter lays files out: flatbuffer, then
// (when there are segments) an "eh00" extended header spliced in at byte 8,
// and 128-byte-aligned segments after the program. Tests may reach into
// program() / plan() to corrupt any field on purpose. Not thread-safe.

#ifndef EDGEFLEET_TEST_UTIL_PROGRAM_BUILDER_H_
#define EDGEFLEET_TEST_UTIL_PROGRAM_BUILDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/scalar_type.h"
#include "runtime/format/program_generated.h"

namespace edgefleet {
namespace testing {

class ProgramBuilder {
 public:
  // Starts a program with one method `method_name`, one chain and one
  // planned arena (non_const_buffer_sizes = [0, 0], grown by AddTensor).
  explicit ProgramBuilder(const std::string& method_name = "forward");

  // A tensor in planned arena 1, placed after the previous planned tensors
  // (16-byte aligned). Returns its value index.
  int AddPlannedTensor(ScalarType dtype, const std::vector<int32_t>& sizes,
                       const std::vector<uint8_t>& dim_order = {});
  // A constant tensor whose bytes go to the constant segment.
  int AddConstantTensor(ScalarType dtype, const std::vector<int32_t>& sizes,
                        const std::vector<uint8_t>& bytes);
  // A tensor with no data (neither planned nor constant).
  int AddUnplannedTensor(ScalarType dtype, const std::vector<int32_t>& sizes);
  int AddInt(int64_t value);
  int AddDouble(double value);
  int AddBool(bool value);
  int AddNull();
  // A boxed int list: adds one Int value per element, then the list.
  int AddIntList(const std::vector<int64_t>& values);
  int AddTensorList(const std::vector<int32_t>& value_indices);

  // Operator table entry; returns its index.
  int AddOperator(const std::string& name, const std::string& overload);
  void AddKernelCall(int op_index, const std::vector<int32_t>& args);
  // A delegate with an inline payload; returns its delegate index.
  int AddDelegate(const std::string& backend_id, const std::vector<uint8_t>& payload);
  void AddDelegateCall(int delegate_index, const std::vector<int32_t>& args);
  void AddMove(int from, int to);
  void AddJumpFalse(int cond, int destination);
  void AddFree(int value);

  void SetInputs(const std::vector<int32_t>& inputs);
  void SetOutputs(const std::vector<int32_t>& outputs);

  // Serializes the file. With `extended_header` false and no constants, the
  // whole file is the flatbuffer (like small real files).
  std::vector<uint8_t> Build(bool extended_header = true) const;

  edgefleet_fb::ProgramT& program() { return program_; }
  edgefleet_fb::ExecutionPlanT& plan() { return *program_.execution_plan[0]; }
  // The tensor table entry of value `index`. REQUIRES: it is a tensor.
  edgefleet_fb::TensorT& tensor(int index);

 private:
  int AddValue(edgefleet_fb::KernelTypesUnion value);
  edgefleet_fb::InstructionT& AddInstruction();
  std::unique_ptr<edgefleet_fb::TensorT> MakeTensor(ScalarType dtype,
                                                    const std::vector<int32_t>& sizes,
                                                    const std::vector<uint8_t>& dim_order);

  edgefleet_fb::ProgramT program_;
  std::vector<uint8_t> constants_;
  uint64_t planned_bytes_ = 0;
};

}  // namespace testing
}  // namespace edgefleet

#endif  // EDGEFLEET_TEST_UTIL_PROGRAM_BUILDER_H_
