// Method::Load / SetInput / Execute on programs built by ProgramBuilder,
// with test-only kernels and backends registered under test names.

#include "runtime/executor/method.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/backends/backend_registry.h"
#include "runtime/core/error_detail.h"
#include "runtime/loaders/buffer_data_loader.h"
#include "test/util/program_builder.h"

namespace edgefleet {
namespace {

using testing::ProgramBuilder;

// True on a thread while DoublerBackend::RunWithThreads lends it "threads".
thread_local bool t_threads_lent = false;
// Whether the last TestAdd call ran with them lent.
bool g_add_saw_lent_threads = false;

// edgefleet_test::add.out(self, other, out, ret): float elementwise add of
// same-shape, default-dim-order tensors.
void TestAdd(KernelContext& ctx, Span<EValue*> args) {
  g_add_saw_lent_threads = t_threads_lent;
  if (args.size() != 4 || !args[0]->is_tensor() || !args[1]->is_tensor() || !args[2]->is_tensor()) {
    ctx.Fail(Error::kInvalidArgument);
    return;
  }
  const Tensor& a = args[0]->to_tensor();
  const Tensor& b = args[1]->to_tensor();
  Tensor& out = args[2]->to_tensor();
  if (out.Resize(a.sizes()) != Error::kOk || a.numel() != b.numel()) {
    ctx.Fail(Error::kInvalidArgument);
    return;
  }
  for (int64_t i = 0; i < a.numel(); ++i) {
    out.data_as<float>()[i] = a.data_as<float>()[i] + b.data_as<float>()[i];
  }
}

// edgefleet_test::fail.out always fails with a detail.
void TestFail(KernelContext& ctx, Span<EValue*>) {
  SetErrorDetail("edgefleet_test::fail.out: refused");
  ctx.Fail(Error::kInvalidArgument);
}

// "DoublerBackend": out = 2 * in, for float tensors.
class DoublerBackend final : public BackendInterface {
 public:
  bool IsAvailable() const override { return true; }
  Result<DelegateHandle*> Init(const BackendInitContext&, FreeableBuffer* processed,
                               Span<const CompileSpec>) const override {
    if (processed->size() != 3) return Error::kDelegateInvalidCompatibility;
    processed->Free();
    return static_cast<DelegateHandle*>(const_cast<DoublerBackend*>(this));
  }
  Error Execute(const BackendExecutionContext&, DelegateHandle*,
                Span<EValue*> args) const override {
    const Tensor& in = args[0]->to_tensor();
    Tensor& out = args[1]->to_tensor();
    for (int64_t i = 0; i < in.numel(); ++i) out.data_as<float>()[i] = 2 * in.data_as<float>()[i];
    ++executions;
    return Error::kOk;
  }
  Error RunWithThreads(DelegateHandle*, Error (*body)(void*), void* context) const override {
    t_threads_lent = true;
    const Error error = body(context);
    t_threads_lent = false;
    return error;
  }
  void Destroy(DelegateHandle*) const override { ++destroyed; }
  mutable int executions = 0;
  mutable int destroyed = 0;
};

DoublerBackend* g_doubler = nullptr;

class MethodTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    static const Kernel kKernels[] = {
        {"edgefleet_test::add.out", &TestAdd, nullptr, KernelVariant::kPortable},
        {"edgefleet_test::fail.out", &TestFail, nullptr, KernelVariant::kPortable},
        {"edgefleet_test::float_add.out", &TestAdd, nullptr, KernelVariant::kPortable,
         DtypeSet{ScalarType::kFloat}},
    };
    if (!HasKernel("edgefleet_test::add.out")) {
      ASSERT_EQ(RegisterKernels(kKernels), Error::kOk);
    }
    static DoublerBackend doubler;
    g_doubler = &doubler;
    if (FindBackend("DoublerBackend") == nullptr) {
      ASSERT_EQ(RegisterBackend("DoublerBackend", &doubler), Error::kOk);
    }
  }

  // Loads `b`'s program and method "forward" with right-sized memory.
  Result<Method> Load(const ProgramBuilder& b, size_t method_bytes = 0) {
    bytes_ = const_cast<ProgramBuilder&>(b).Build();
    loader_ = std::make_unique<BufferDataLoader>(bytes_.data(), bytes_.size());
    Result<Program> program = Program::Load(loader_.get());
    if (!program.ok()) return program.error();
    program_ = std::make_unique<Program>(std::move(*program));
    MethodMeta meta = *program_->method_meta("forward");
    method_memory_.assign(method_bytes ? method_bytes : meta.method_allocator_bytes(), 0);
    method_allocator_ =
        std::make_unique<MemoryAllocator>(method_memory_.data(), method_memory_.size());
    arena_.assign(meta.num_planned_buffers() ? *meta.planned_buffer_size(0) : 0, 0);
    spans_[0] = {arena_.data(), arena_.size()};
    planned_ = std::make_unique<PlannedMemory>(Span<Span<uint8_t>>(spans_, 1));
    ClearErrorDetail();
    return Method::Load(*program_, "forward",
                        MemoryManager{method_allocator_.get(), planned_.get(), nullptr});
  }

  std::vector<uint8_t> bytes_;
  std::unique_ptr<BufferDataLoader> loader_;
  std::unique_ptr<Program> program_;
  std::vector<uint8_t> method_memory_;
  std::unique_ptr<MemoryAllocator> method_allocator_;
  std::vector<uint8_t> arena_;
  Span<uint8_t> spans_[1];
  std::unique_ptr<PlannedMemory> planned_;
};

// A caller tensor over `data` with the default dim order.
struct CallerTensor {
  CallerTensor(ScalarType dtype, std::vector<int32_t> s, void* data) : sizes(std::move(s)) {
    for (size_t i = 0; i < sizes.size(); ++i) order.push_back(static_cast<uint8_t>(i));
    strides.resize(sizes.size());
    tensor = std::make_unique<Tensor>(dtype, static_cast<int>(sizes.size()), sizes.data(),
                                      order.data(), strides.data(), data, ShapeDynamism::kStatic);
  }
  EValue value() const { return EValue::FromTensor(tensor.get()); }
  std::vector<int32_t> sizes;
  std::vector<uint8_t> order;
  std::vector<int32_t> strides;
  std::unique_ptr<Tensor> tensor;
};

ProgramBuilder AddConstantProgram(std::vector<uint8_t> input_dim_order = {}) {
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(ScalarType::kFloat, {1, 2, 1, 2}, input_dim_order);
  std::vector<uint8_t> bytes(16);
  const float c[4] = {10, 20, 30, 40};
  memcpy(bytes.data(), c, 16);
  const int k = b.AddConstantTensor(ScalarType::kFloat, {1, 2, 1, 2}, bytes);
  const int y = b.AddPlannedTensor(ScalarType::kFloat, {1, 2, 1, 2});
  b.AddKernelCall(b.AddOperator("edgefleet_test::add", "out"), {x, k, y, y});
  b.SetInputs({x});
  b.SetOutputs({y});
  return b;
}

TEST_F(MethodTest, ExecutesKernelOnPlannedAndConstantTensors) {
  Result<Method> method = Load(AddConstantProgram());
  ASSERT_TRUE(method.ok()) << LastErrorDetail();
  float in[4] = {1, 2, 3, 4};
  CallerTensor x(ScalarType::kFloat, {1, 2, 1, 2}, in);
  ASSERT_EQ(method->SetInput(0, x.value()), Error::kOk) << LastErrorDetail();
  ASSERT_EQ(method->Execute(), Error::kOk) << LastErrorDetail();
  const Tensor& y = method->output(0).to_tensor();
  EXPECT_EQ(y.data_as<float>()[0], 11);
  EXPECT_EQ(y.data_as<float>()[3], 44);
  EXPECT_STREQ(method->instruction_kind(0), "portable");
  // Exactly the advertised method allocator bytes suffice.
  EXPECT_LE(method_allocator_->used(), method_memory_.size());
}

TEST_F(MethodTest, ConvertsCallerLayoutToChannelsLastInput) {
  // Input stored NHWC (dim order 0,2,3,1) with C=2, W=2: the constant is
  // added in memory order, so out[n,c,h,w] = x[n,c,h,w] + k[flat NHWC pos].
  Result<Method> method = Load(AddConstantProgram({0, 2, 3, 1}));
  ASSERT_TRUE(method.ok()) << LastErrorDetail();
  float in[4] = {1, 2, 3, 4};  // NCHW: c0 = {1,2}, c1 = {3,4}
  CallerTensor x(ScalarType::kFloat, {1, 2, 1, 2}, in);
  ASSERT_EQ(method->SetInput(0, x.value()), Error::kOk) << LastErrorDetail();
  ASSERT_EQ(method->Execute(), Error::kOk);
  // NHWC memory of x: [1,3,2,4]; plus [10,20,30,40] = [11,23,32,44].
  const float* y = method->output(0).to_tensor().data_as<float>();
  EXPECT_EQ(y[0], 11);
  EXPECT_EQ(y[1], 23);
  EXPECT_EQ(y[2], 32);
  EXPECT_EQ(y[3], 44);
}

TEST_F(MethodTest, RejectsWrongInputsWithSpecificMessages) {
  Result<Method> method = Load(AddConstantProgram());
  ASSERT_TRUE(method.ok());
  float small[2] = {};
  CallerTensor wrong_shape(ScalarType::kFloat, {1, 2}, small);
  EXPECT_EQ(method->SetInput(0, wrong_shape.value()), Error::kInvalidArgument);
  EXPECT_STREQ(LastErrorDetail(), "input 0: expected float32[1,2,1,2], got float32[1,2]");
  int64_t ints[4] = {};
  CallerTensor wrong_dtype(ScalarType::kLong, {1, 2, 1, 2}, ints);
  EXPECT_EQ(method->SetInput(0, wrong_dtype.value()), Error::kInvalidArgument);
  EXPECT_STREQ(LastErrorDetail(), "input 0: expected float32[1,2,1,2], got int64[1,2,1,2]");
  float same_rank[8] = {};
  CallerTensor other_shape(ScalarType::kFloat, {1, 2, 2, 2}, same_rank);
  EXPECT_EQ(method->SetInput(0, other_shape.value()), Error::kInvalidArgument);
  EXPECT_STREQ(LastErrorDetail(), "input 0: expected float32[1,2,1,2], got float32[1,2,2,2]");
  EXPECT_EQ(method->SetInput(0, EValue::FromInt(3)), Error::kInvalidArgument);
  EXPECT_EQ(method->SetInput(5, EValue::FromInt(3)), Error::kInvalidArgument);
  EXPECT_EQ(method->Execute(), Error::kInvalidState);
  EXPECT_STREQ(LastErrorDetail(), "input 0 has not been set");
}

TEST_F(MethodTest, BoundedDynamicInputResizesWithinBound) {
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(ScalarType::kFloat, {4, 2});
  const int z = b.AddPlannedTensor(ScalarType::kFloat, {4, 2});
  const int y = b.AddPlannedTensor(ScalarType::kFloat, {4, 2});
  for (int v : {x, z, y}) {
    b.tensor(v).shape_dynamism = edgefleet_fb::TensorShapeDynamism::DYNAMIC_BOUND;
  }
  b.AddKernelCall(b.AddOperator("edgefleet_test::add", "out"), {x, x, y, y});
  b.SetInputs({x});
  b.SetOutputs({y});
  Result<Method> method = Load(b);
  ASSERT_TRUE(method.ok()) << LastErrorDetail();
  float in[6] = {1, 2, 3, 4, 5, 6};
  CallerTensor three_rows(ScalarType::kFloat, {3, 2}, in);
  ASSERT_EQ(method->SetInput(0, three_rows.value()), Error::kOk) << LastErrorDetail();
  ASSERT_EQ(method->Execute(), Error::kOk);
  const Tensor& out = method->output(0).to_tensor();
  EXPECT_EQ(out.size(0), 3);
  EXPECT_EQ(out.data_as<float>()[5], 12);
  float big[10] = {};
  CallerTensor five_rows(ScalarType::kFloat, {5, 2}, big);
  EXPECT_EQ(method->SetInput(0, five_rows.value()), Error::kInvalidArgument);
  EXPECT_STREQ(LastErrorDetail(),
               "input 0: expected float32[4,2] (dynamic, bounded), got float32[5,2]");
}

TEST_F(MethodTest, InputWhoseMemoryIsReusedMustBeSetAgain) {
  // y = x + x is planned over x's own bytes, as the exporter's planner does
  // when x is dead after the add: a second Execute() would read garbage.
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(ScalarType::kFloat, {2});
  const int y = b.AddPlannedTensor(ScalarType::kFloat, {2});
  b.tensor(y).allocation_info->memory_offset_low = 0;
  b.AddKernelCall(b.AddOperator("edgefleet_test::add", "out"), {x, x, y, y});
  b.SetInputs({x});
  b.SetOutputs({y});
  Result<Method> method = Load(b);
  ASSERT_TRUE(method.ok()) << LastErrorDetail();
  float in[2] = {1, 2};
  CallerTensor xt(ScalarType::kFloat, {2}, in);
  ASSERT_EQ(method->SetInput(0, xt.value()), Error::kOk);
  ASSERT_EQ(method->Execute(), Error::kOk);
  EXPECT_EQ(method->output(0).to_tensor().data_as<float>()[1], 4);
  EXPECT_EQ(method->Execute(), Error::kInvalidState);
  EXPECT_STREQ(LastErrorDetail(),
               "input 0 has not been set since the last execute (the method reuses its memory)");
  ASSERT_EQ(method->SetInput(0, xt.value()), Error::kOk);
  ASSERT_EQ(method->Execute(), Error::kOk);
  EXPECT_EQ(method->output(0).to_tensor().data_as<float>()[1], 4);
}

TEST_F(MethodTest, InputsNotReusedStaySetAcrossExecutes) {
  Result<Method> method = Load(AddConstantProgram());
  ASSERT_TRUE(method.ok());
  float in[4] = {1, 2, 3, 4};
  CallerTensor x(ScalarType::kFloat, {1, 2, 1, 2}, in);
  ASSERT_EQ(method->SetInput(0, x.value()), Error::kOk);
  ASSERT_EQ(method->Execute(), Error::kOk);
  ASSERT_EQ(method->Execute(), Error::kOk) << LastErrorDetail();
  EXPECT_EQ(method->output(0).to_tensor().data_as<float>()[0], 11);
}

TEST_F(MethodTest, MissingOperatorIsNamed) {
  ProgramBuilder b = AddConstantProgram();
  const int op = b.AddOperator("aten::foo", "out");
  b.AddKernelCall(op, {0});
  b.AddKernelCall(op, {0});
  EXPECT_EQ(Load(b).error(), Error::kOperatorMissing);
  EXPECT_STREQ(LastErrorDetail(),
               "operator aten::foo.out is not registered (2 instructions lack kernels)");
}

TEST_F(MethodTest, AllMissingOperatorsAreNamedOnce) {
  ProgramBuilder b = AddConstantProgram();
  const int group_norm = b.AddOperator("aten::native_group_norm", "out");
  const int log1p = b.AddOperator("aten::log1p", "out");
  const int flip = b.AddOperator("aten::flip", "out");
  for (int op : {group_norm, log1p, flip, log1p, group_norm}) b.AddKernelCall(op, {0});
  EXPECT_EQ(Load(b).error(), Error::kOperatorMissing);
  EXPECT_STREQ(LastErrorDetail(),
               "3 operators are not registered: aten::flip.out, aten::log1p.out, "
               "aten::native_group_norm.out");
}

TEST_F(MethodTest, UndeclaredDtypeFailsAtLoadNamingIt) {
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(ScalarType::kHalf, {4});
  const int y = b.AddPlannedTensor(ScalarType::kHalf, {4});
  b.AddKernelCall(b.AddOperator("edgefleet_test::float_add", "out"), {x, x, y, y});
  b.SetInputs({x});
  b.SetOutputs({y});
  EXPECT_EQ(Load(b).error(), Error::kOperatorMissing);
  EXPECT_STREQ(LastErrorDetail(),
               "operator edgefleet_test::float_add.out (first tensor float16) has no kernel for "
               "these argument types");
}

TEST_F(MethodTest, KernelFailureNamesOperatorAndInstruction) {
  ProgramBuilder b = AddConstantProgram();
  b.AddKernelCall(b.AddOperator("edgefleet_test::fail", "out"), {0});
  Result<Method> method = Load(b);
  ASSERT_TRUE(method.ok()) << LastErrorDetail();
  float in[4] = {};
  CallerTensor x(ScalarType::kFloat, {1, 2, 1, 2}, in);
  ASSERT_EQ(method->SetInput(0, x.value()), Error::kOk);
  EXPECT_EQ(method->Execute(), Error::kInvalidArgument);
  EXPECT_STREQ(
      LastErrorDetail(),
      "edgefleet_test::fail.out failed at instruction 1: edgefleet_test::fail.out: refused");
}

TEST_F(MethodTest, UnregisteredBackendIsNamed) {
  ProgramBuilder b = AddConstantProgram();
  b.AddDelegateCall(b.AddDelegate("QnnBackend", {1, 2, 3}), {0, 2});
  EXPECT_EQ(Load(b).error(), Error::kNotFound);
  EXPECT_STREQ(LastErrorDetail(), "backend QnnBackend is not registered");
}

TEST_F(MethodTest, DelegateRunsAndIsDestroyed) {
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(ScalarType::kFloat, {3});
  const int y = b.AddPlannedTensor(ScalarType::kFloat, {3});
  b.AddDelegateCall(b.AddDelegate("DoublerBackend", {1, 2, 3}), {x, y});
  b.SetInputs({x});
  b.SetOutputs({y});
  const int destroyed_before = g_doubler->destroyed;
  {
    Result<Method> method = Load(b);
    ASSERT_TRUE(method.ok()) << LastErrorDetail();
    float in[3] = {1, 2, 3};
    CallerTensor xt(ScalarType::kFloat, {3}, in);
    ASSERT_EQ(method->SetInput(0, xt.value()), Error::kOk);
    ASSERT_EQ(method->Execute(), Error::kOk);
    EXPECT_EQ(method->output(0).to_tensor().data_as<float>()[2], 6);
    EXPECT_STREQ(method->instruction_kind(0), "delegate");
  }
  EXPECT_EQ(g_doubler->destroyed, destroyed_before + 1);
}

TEST_F(MethodTest, KernelsRunWithTheDelegatesThreads) {
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(ScalarType::kFloat, {3});
  const int y = b.AddPlannedTensor(ScalarType::kFloat, {3});
  const int z = b.AddPlannedTensor(ScalarType::kFloat, {3});
  b.AddDelegateCall(b.AddDelegate("DoublerBackend", {1, 2, 3}), {x, y});
  b.AddKernelCall(b.AddOperator("edgefleet_test::add", "out"), {y, x, z, z});
  b.SetInputs({x});
  b.SetOutputs({z});
  Result<Method> method = Load(b);
  ASSERT_TRUE(method.ok()) << LastErrorDetail();
  float in[3] = {1, 2, 3};
  CallerTensor xt(ScalarType::kFloat, {3}, in);
  ASSERT_EQ(method->SetInput(0, xt.value()), Error::kOk);
  g_add_saw_lent_threads = false;
  ASSERT_EQ(method->Execute(), Error::kOk);
  EXPECT_EQ(method->output(0).to_tensor().data_as<float>()[2], 9);  // 2 * 3 + 3
  EXPECT_TRUE(g_add_saw_lent_threads);
  EXPECT_FALSE(t_threads_lent);
}

TEST_F(MethodTest, EndlessJumpLoopIsStopped) {
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(ScalarType::kFloat, {1});
  const int cond = b.AddBool(false);
  b.AddJumpFalse(cond, 0);  // jumps to itself forever
  b.SetInputs({x});
  b.SetOutputs({x});
  Result<Method> method = Load(b);
  ASSERT_TRUE(method.ok()) << LastErrorDetail();
  float in[1] = {};
  CallerTensor xt(ScalarType::kFloat, {1}, in);
  ASSERT_EQ(method->SetInput(0, xt.value()), Error::kOk);
  EXPECT_EQ(method->Execute(), Error::kInvalidProgram);
  EXPECT_NE(std::string(LastErrorDetail()).find("endless loop"), std::string::npos);
}

TEST_F(MethodTest, MoveBetweenDifferentKindsIsRejected) {
  ProgramBuilder b = AddConstantProgram();
  b.AddMove(0, b.AddInt(3));
  EXPECT_EQ(Load(b).error(), Error::kInvalidProgram);
}

TEST_F(MethodTest, TooLittleMemoryFailsCleanly) {
  ProgramBuilder b = AddConstantProgram();
  for (size_t bytes : {size_t{1}, size_t{64}, size_t{200}}) {
    EXPECT_EQ(Load(b, bytes).error(), Error::kMemoryAllocationFailed) << bytes;
  }
}

TEST_F(MethodTest, UnboundedDynamicShapeIsNotSupported) {
  ProgramBuilder b = AddConstantProgram();
  b.tensor(0).shape_dynamism = edgefleet_fb::TensorShapeDynamism::DYNAMIC_UNBOUND;
  EXPECT_EQ(Load(b).error(), Error::kNotSupported);
  EXPECT_STREQ(LastErrorDetail(), "value 0: unbounded dynamic shapes are not supported");
}

}  // namespace
}  // namespace edgefleet
