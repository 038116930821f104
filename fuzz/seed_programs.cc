#include "fuzz/seed_programs.h"

#include <cstring>

#include "test/util/program_builder.h"

namespace edgefleet {
namespace fuzz {
namespace {

using testing::ProgramBuilder;
constexpr ScalarType kF32 = ScalarType::kFloat;

std::vector<uint8_t> FloatBytes(size_t n, float start, float step) {
  std::vector<uint8_t> bytes(n * sizeof(float));
  for (size_t i = 0; i < n; ++i) {
    const float v = start + step * static_cast<float>(i);
    memcpy(&bytes[i * sizeof(float)], &v, sizeof(float));
  }
  return bytes;
}

// out = x + alpha * y
ProgramBuilder Add(ScalarType dtype) {
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(dtype, {2, 3});
  const int y = b.AddPlannedTensor(dtype, {2, 3});
  const int alpha = b.AddInt(1);
  const int out = b.AddPlannedTensor(dtype, {2, 3});
  b.AddKernelCall(b.AddOperator("aten::add", "out"), {x, y, alpha, out, out});
  b.SetInputs({x, y});
  b.SetOutputs({out});
  return b;
}

// relu(x @ W + bias) with constants in the constant segment.
std::vector<uint8_t> Linear() {
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(kF32, {2, 4});
  const int w = b.AddConstantTensor(kF32, {4, 3}, FloatBytes(12, -1.0f, 0.25f));
  const int bias = b.AddConstantTensor(kF32, {3}, FloatBytes(3, 0.5f, -0.5f));
  const int one = b.AddDouble(1.0);
  const int h = b.AddPlannedTensor(kF32, {2, 3});
  const int out = b.AddPlannedTensor(kF32, {2, 3});
  b.AddKernelCall(b.AddOperator("aten::addmm", "out"), {bias, x, w, one, one, h, h});
  b.AddKernelCall(b.AddOperator("aten::relu", "out"), {h, out, out});
  b.SetInputs({x});
  b.SetOutputs({out});
  return b.Build();
}

// view_copy then permute_copy (boxed int-list arguments).
std::vector<uint8_t> ViewPermute() {
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(kF32, {2, 3, 4});
  const int size = b.AddIntList({6, 4});
  const int v = b.AddPlannedTensor(kF32, {6, 4});
  const int dims = b.AddIntList({1, 0});
  const int out = b.AddPlannedTensor(kF32, {4, 6});
  b.AddKernelCall(b.AddOperator("aten::view_copy", "out"), {x, size, v, v});
  b.AddKernelCall(b.AddOperator("aten::permute_copy", "out"), {v, dims, out, out});
  b.SetInputs({x});
  b.SetOutputs({out});
  return b.Build(false);
}

// add, a jump over relu, a move and a free.
std::vector<uint8_t> ControlFlow() {
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(kF32, {4});
  const int alpha = b.AddInt(1);
  const int y = b.AddPlannedTensor(kF32, {4});
  const int cond = b.AddBool(false);
  const int r = b.AddPlannedTensor(kF32, {4});
  const int out = b.AddPlannedTensor(kF32, {4});
  const int add = b.AddOperator("aten::add", "out");
  b.AddKernelCall(add, {x, x, alpha, y, y});
  b.AddJumpFalse(cond, 3);
  b.AddKernelCall(b.AddOperator("aten::relu", "out"), {y, r, r});
  b.AddMove(y, out);
  b.AddFree(r);
  b.SetInputs({x});
  b.SetOutputs({out});
  return b.Build(false);
}

// cat of a tensor list, then softmax along dim 1.
std::vector<uint8_t> CatSoftmax() {
  ProgramBuilder b;
  const int a = b.AddPlannedTensor(kF32, {2, 3});
  const int c = b.AddPlannedTensor(kF32, {2, 3});
  const int list = b.AddTensorList({a, c});
  const int dim0 = b.AddInt(0);
  const int cat = b.AddPlannedTensor(kF32, {4, 3});
  const int dim1 = b.AddInt(1);
  const int half = b.AddBool(false);
  const int out = b.AddPlannedTensor(kF32, {4, 3});
  b.AddKernelCall(b.AddOperator("aten::cat", "out"), {list, dim0, cat, cat});
  b.AddKernelCall(b.AddOperator("aten::_softmax", "out"), {cat, dim1, half, out, out});
  b.SetInputs({a, c});
  b.SetOutputs({out});
  return b.Build();
}

// A DYNAMIC_BOUND input and output.
std::vector<uint8_t> Dynamic() {
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(kF32, {4, 8});
  const int out = b.AddPlannedTensor(kF32, {4, 8});
  b.tensor(x).shape_dynamism = edgefleet_fb::TensorShapeDynamism::DYNAMIC_BOUND;
  b.tensor(out).shape_dynamism = edgefleet_fb::TensorShapeDynamism::DYNAMIC_BOUND;
  b.AddKernelCall(b.AddOperator("aten::sigmoid", "out"), {x, out, out});
  b.SetInputs({x});
  b.SetOutputs({out});
  return b.Build(false);
}

// Channels-last input converted to the default dim order.
std::vector<uint8_t> ChannelsLast() {
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(kF32, {1, 2, 3, 3}, {0, 2, 3, 1});
  const int non_blocking = b.AddBool(false);
  const int order = b.AddIntList({0, 1, 2, 3});
  const int out = b.AddPlannedTensor(kF32, {1, 2, 3, 3});
  b.AddKernelCall(b.AddOperator("dim_order_ops::_to_dim_order_copy", "out"),
                  {x, non_blocking, order, out, out});
  b.SetInputs({x});
  b.SetOutputs({out});
  return b.Build(false);
}

// A 3x3 convolution with constant weights and bias.
std::vector<uint8_t> Convolution() {
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(kF32, {1, 2, 5, 5});
  const int w = b.AddConstantTensor(kF32, {3, 2, 3, 3}, FloatBytes(54, -0.5f, 0.02f));
  const int bias = b.AddConstantTensor(kF32, {3}, FloatBytes(3, 0.1f, 0.1f));
  const int stride = b.AddIntList({1, 1});
  const int padding = b.AddIntList({1, 1});
  const int dilation = b.AddIntList({1, 1});
  const int transposed = b.AddBool(false);
  const int output_padding = b.AddIntList({0, 0});
  const int groups = b.AddInt(1);
  const int out = b.AddPlannedTensor(kF32, {1, 3, 5, 5});
  b.AddKernelCall(
      b.AddOperator("aten::convolution", "out"),
      {x, w, bias, stride, padding, dilation, transposed, output_padding, groups, out, out});
  b.SetInputs({x});
  b.SetOutputs({out});
  return b.Build();
}

// mean over dim 1 with keepdim, int64 arithmetic, full() with no inputs.
std::vector<uint8_t> Reductions() {
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(kF32, {2, 5});
  const int dims = b.AddIntList({1});
  const int keep = b.AddBool(true);
  const int none = b.AddNull();
  const int mean = b.AddPlannedTensor(kF32, {2, 1});
  b.AddKernelCall(b.AddOperator("aten::mean", "out"), {x, dims, keep, none, mean, mean});
  const int size = b.AddIntList({2, 2});
  const int fill = b.AddDouble(3.0);
  const int full = b.AddPlannedTensor(kF32, {2, 2});
  b.AddKernelCall(b.AddOperator("aten::full", "out"), {size, fill, full, full});
  b.SetInputs({x});
  b.SetOutputs({mean, full});
  return b.Build(false);
}

// A delegate call (the backend is usually not registered).
std::vector<uint8_t> Delegate() {
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(kF32, {2, 2});
  const int out = b.AddPlannedTensor(kF32, {2, 2});
  b.AddDelegateCall(b.AddDelegate("XnnpackBackend", {'X', 'N', '0', '1', 0, 0, 0, 0}), {x, out});
  b.SetInputs({x});
  b.SetOutputs({out});
  return b.Build();
}

// Two methods, the second a renamed copy of the first.
std::vector<uint8_t> TwoMethods() {
  ProgramBuilder b = Add(ScalarType::kLong);
  auto copy = std::make_unique<edgefleet_fb::ExecutionPlanT>(b.plan());
  copy->name = "other";
  b.program().execution_plan.push_back(std::move(copy));
  return b.Build(false);
}

// A constant in the deprecated inline constant_buffer table.
std::vector<uint8_t> InlineConstant() {
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(kF32, {4});
  const int c = b.AddUnplannedTensor(kF32, {4});
  b.tensor(c).data_buffer_idx = 1;
  b.program().constant_buffer.push_back(std::make_unique<edgefleet_fb::BufferT>());
  b.program().constant_buffer.push_back(std::make_unique<edgefleet_fb::BufferT>());
  b.program().constant_buffer[1]->storage = FloatBytes(4, 1.0f, 1.0f);
  const int alpha = b.AddInt(2);
  const int out = b.AddPlannedTensor(kF32, {4});
  b.AddKernelCall(b.AddOperator("aten::sub", "out"), {x, c, alpha, out, out});
  b.SetInputs({x});
  b.SetOutputs({out});
  return b.Build(false);
}

}  // namespace

std::vector<SeedProgram> BuildSeedPrograms() {
  std::vector<SeedProgram> seeds;
  seeds.push_back({"add_f32", Add(kF32).Build(false)});
  seeds.push_back({"add_bool_header", Add(ScalarType::kBool).Build(true)});
  seeds.push_back({"linear_constants", Linear()});
  seeds.push_back({"view_permute", ViewPermute()});
  seeds.push_back({"control_flow", ControlFlow()});
  seeds.push_back({"cat_softmax", CatSoftmax()});
  seeds.push_back({"dynamic_bound", Dynamic()});
  seeds.push_back({"channels_last", ChannelsLast()});
  seeds.push_back({"convolution", Convolution()});
  seeds.push_back({"reductions", Reductions()});
  seeds.push_back({"delegate", Delegate()});
  seeds.push_back({"two_methods", TwoMethods()});
  seeds.push_back({"inline_constant", InlineConstant()});
  return seeds;
}

}  // namespace fuzz
}  // namespace edgefleet
