// Load-time plan optimization: the PlanEditor's value analysis, constant
// folding, and a registered plan pass, on programs built by ProgramBuilder
// with test kernels whose executions are counted.

#include <cstring>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/core/error_detail.h"
#include "runtime/executor/method.h"
#include "runtime/kernels/plan_pass.h"
#include "runtime/loaders/buffer_data_loader.h"
#include "test/util/program_builder.h"

namespace edgefleet {
namespace {

using testing::ProgramBuilder;

int g_adds = 0;  // executions of edgefleet_plan_test::add.out

// edgefleet_plan_test::add.out(self, other, out, ret): float elementwise add.
void CountingAdd(KernelContext& ctx, Span<EValue*> args) {
  ++g_adds;
  const Tensor& a = args[0]->to_tensor();
  const Tensor& b = args[1]->to_tensor();
  Tensor& out = args[2]->to_tensor();
  if (a.numel() != b.numel() || a.numel() != out.numel()) {
    ctx.Fail(Error::kInvalidArgument);
    return;
  }
  for (int64_t i = 0; i < a.numel(); ++i) {
    out.data_as<float>()[i] = a.data_as<float>()[i] + b.data_as<float>()[i];
  }
}

// edgefleet_plan_test::sub.out: a - b, the replacement kernel of TestPass.
void Sub(KernelContext&, Span<EValue*> args) {
  const Tensor& a = args[0]->to_tensor();
  const Tensor& b = args[1]->to_tensor();
  Tensor& out = args[2]->to_tensor();
  for (int64_t i = 0; i < a.numel(); ++i) {
    out.data_as<float>()[i] = a.data_as<float>()[i] - b.data_as<float>()[i];
  }
}

// edgefleet_plan_test::two_out.out(x, out0, out1, [out0, out1]): copies x
// into both outputs (the shape of batch norm's three outputs).
void TwoOut(KernelContext&, Span<EValue*> args) {
  const Tensor& x = args[0]->to_tensor();
  for (int o = 1; o <= 2; ++o) {
    Tensor& out = args[o]->to_tensor();
    for (int64_t i = 0; i < x.numel(); ++i) out.data_as<float>()[i] = x.data_as<float>()[i];
  }
}

// edgefleet_plan_test::fail.out always fails.
void Fail(KernelContext& ctx, Span<EValue*>) {
  SetErrorDetail("edgefleet_plan_test::fail.out: refused");
  ctx.Fail(Error::kInvalidArgument);
}

const Kernel kKernels[] = {
    {"edgefleet_plan_test::add.out", &CountingAdd, nullptr, KernelVariant::kOptimized},
    {"edgefleet_plan_test::fail.out", &Fail, nullptr, KernelVariant::kOptimized},
    {"edgefleet_plan_test::sub.out", &Sub, nullptr, KernelVariant::kOptimized},
    {"edgefleet_plan_test::negate_me.out", &CountingAdd, nullptr, KernelVariant::kOptimized},
    {"edgefleet_plan_test::two_out.out", &TwoOut, nullptr, KernelVariant::kOptimized},
};

// What TestPass saw, for the analysis test.
struct PassObservation {
  bool ran = false;
  int64_t writer_of_sum = -2;
  size_t readers_of_sum = 99;
  bool constant_c = false, constant_x = true, io_x = false, io_sum = true;
};
PassObservation g_seen;

// Rewrites "negate_me(a, b)" into "sub(a, b)", after recording the facts
// the editor reports about the program of PassSeesFactsAndRewrites.
void TestPass(PlanEditor& plan) {
  for (size_t pc = 0; pc < plan.num_instructions(); ++pc) {
    const char* op = plan.op(pc);
    if (op == nullptr || strcmp(op, "edgefleet_plan_test::negate_me.out") != 0) continue;
    const Span<EValue*> args = plan.args(pc);
    g_seen.ran = true;
    g_seen.writer_of_sum = plan.writer(args[1]);
    g_seen.readers_of_sum = plan.num_readers(args[1]);
    g_seen.io_x = plan.is_method_io(args[0]);
    g_seen.constant_x = plan.is_constant(args[0]);
    g_seen.io_sum = plan.is_method_io(args[1]);
    const Kernel* sub =
        ResolveKernel("edgefleet_plan_test::sub.out", args, KernelPreference::kOptimizedFirst);
    EValue* replaced[] = {args[0], args[1], args[2], args[3]};
    if (sub != nullptr) plan.Replace(pc, *sub, {replaced, 4});
  }
  for (size_t pc = 0; pc < plan.num_instructions(); ++pc) {
    const char* op = plan.op(pc);
    if (op != nullptr && strcmp(op, "edgefleet_plan_test::add.out") == 0) {
      g_seen.constant_c = plan.is_constant(plan.args(pc)[1]);
    }
  }
}

std::vector<uint8_t> FloatBytes(std::vector<float> values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

class PlanOptimizationTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!HasKernel("edgefleet_plan_test::add.out")) {
      ASSERT_EQ(RegisterKernels(kKernels), Error::kOk);
      static const PlanPass kPasses[] = {{"edgefleet_plan_test_pass", &TestPass}};
      ASSERT_EQ(RegisterPlanPasses(kPasses), Error::kOk);
    }
  }

  // Loads "forward" of `b`; `constant_bytes` < 0: no constant allocator.
  Result<Method> Load(ProgramBuilder& b, long constant_bytes = 1 << 16) {
    bytes_ = b.Build();
    loader_ = std::make_unique<BufferDataLoader>(bytes_.data(), bytes_.size());
    Result<Program> program = Program::Load(loader_.get());
    if (!program.ok()) return program.error();
    program_ = std::make_unique<Program>(std::move(*program));
    MethodMeta meta = *program_->method_meta("forward");
    method_memory_.assign(meta.method_allocator_bytes(), 0);
    method_allocator_ =
        std::make_unique<MemoryAllocator>(method_memory_.data(), method_memory_.size());
    arena_.assign(*meta.planned_buffer_size(0), 0);
    spans_[0] = {arena_.data(), arena_.size()};
    planned_ = std::make_unique<PlannedMemory>(Span<Span<uint8_t>>(spans_, 1));
    temp_memory_.assign(1 << 16, 0);
    temp_ = std::make_unique<MemoryAllocator>(temp_memory_.data(), temp_memory_.size());
    constant_memory_.assign(constant_bytes < 0 ? 0 : static_cast<size_t>(constant_bytes), 0);
    constants_ =
        std::make_unique<MemoryAllocator>(constant_memory_.data(), constant_memory_.size());
    g_adds = 0;
    return Method::Load(*program_, "forward",
                        MemoryManager{method_allocator_.get(), planned_.get(), temp_.get(),
                                      constant_bytes < 0 ? nullptr : constants_.get()});
  }

  // Sets input 0 to `in` (4 floats), executes, returns output 0.
  std::vector<float> Run(Method& method, std::vector<float> in) {
    int32_t sizes[] = {4};
    uint8_t order[] = {0};
    int32_t strides[] = {1};
    Tensor x(ScalarType::kFloat, 1, sizes, order, strides, in.data(), ShapeDynamism::kStatic);
    EXPECT_EQ(method.SetInput(0, EValue::FromTensor(&x)), Error::kOk) << LastErrorDetail();
    EXPECT_EQ(method.Execute(), Error::kOk) << LastErrorDetail();
    const Tensor& out = method.output(0).to_tensor();
    return {out.data_as<float>(), out.data_as<float>() + out.numel()};
  }

  std::vector<uint8_t> bytes_, method_memory_, arena_, temp_memory_, constant_memory_;
  std::unique_ptr<BufferDataLoader> loader_;
  std::unique_ptr<Program> program_;
  std::unique_ptr<MemoryAllocator> method_allocator_, temp_, constants_;
  Span<uint8_t> spans_[1];
  std::unique_ptr<PlannedMemory> planned_;
};

// sum = c1 + c2 (constant inputs only); y = x + sum.
struct ConstantSumProgram {
  ConstantSumProgram() {
    x = b.AddPlannedTensor(ScalarType::kFloat, {4});
    c1 = b.AddConstantTensor(ScalarType::kFloat, {4}, FloatBytes({1, 2, 3, 4}));
    c2 = b.AddConstantTensor(ScalarType::kFloat, {4}, FloatBytes({10, 20, 30, 40}));
    sum = b.AddPlannedTensor(ScalarType::kFloat, {4});
    y = b.AddPlannedTensor(ScalarType::kFloat, {4});
    add = b.AddOperator("edgefleet_plan_test::add", "out");
    b.AddKernelCall(add, {c1, c2, sum, sum});
    b.AddKernelCall(add, {x, sum, y, y});
    b.SetInputs({x});
    b.SetOutputs({y});
  }
  ProgramBuilder b;
  int x, c1, c2, sum, y, add;
};

const std::vector<float> kSumPlusX = {1 + 11, 2 + 22, 3 + 33, 4 + 44};

TEST_F(PlanOptimizationTest, FoldsCallsOnConstantsOnceAtLoad) {
  ConstantSumProgram p;
  Result<Method> method = Load(p.b);
  ASSERT_TRUE(method.ok()) << LastErrorDetail();
  EXPECT_EQ(g_adds, 1);  // the fold
  EXPECT_STREQ(method->instruction_kind(0), "folded");
  EXPECT_STREQ(method->instruction_kind(1), "optimized");
  EXPECT_EQ(Run(*method, {1, 2, 3, 4}), kSumPlusX);
  EXPECT_EQ(Run(*method, {1, 2, 3, 4}), kSumPlusX);
  EXPECT_EQ(g_adds, 3);  // the fold, then one add per execute
  EXPECT_GT(constants_->used(), 0u);
}

TEST_F(PlanOptimizationTest, RepeatedConstantCallsShareOneResult) {
  // Like an unrolled RNN transposing the same weight every step:
  // s1 = c1 + c2; s2 = c1 + c2; y = (x + s1) + s2.
  ConstantSumProgram p;
  const int s2 = p.b.AddPlannedTensor(ScalarType::kFloat, {4});
  const int t = p.b.AddPlannedTensor(ScalarType::kFloat, {4});
  const int y2 = p.b.AddPlannedTensor(ScalarType::kFloat, {4});
  p.b.AddKernelCall(p.add, {p.c1, p.c2, s2, s2});
  p.b.plan().chains[0]->instructions.erase(p.b.plan().chains[0]->instructions.begin() + 1);
  p.b.AddKernelCall(p.add, {p.x, p.sum, t, t});
  p.b.AddKernelCall(p.add, {t, s2, y2, y2});
  p.b.SetOutputs({y2});
  Result<Method> method = Load(p.b);
  ASSERT_TRUE(method.ok()) << LastErrorDetail();
  EXPECT_STREQ(method->instruction_kind(0), "folded");
  EXPECT_STREQ(method->instruction_kind(1), "folded");
  EXPECT_EQ(g_adds, 1);                // computed once
  EXPECT_LE(constants_->used(), 64u);  // stored once (16 bytes, 64-aligned)
  EXPECT_EQ(Run(*method, {0, 0, 0, 0}), (std::vector<float>{22, 44, 66, 88}));
}

TEST_F(PlanOptimizationTest, FoldedValueSurvivesArenaReuse) {
  // The folded value's planned bytes are overwritten by every execute (the
  // arena is cleared here); the folded copy must not be.
  ConstantSumProgram p;
  Result<Method> method = Load(p.b);
  ASSERT_TRUE(method.ok()) << LastErrorDetail();
  std::fill(arena_.begin(), arena_.end(), 0);
  EXPECT_EQ(Run(*method, {1, 2, 3, 4}), kSumPlusX);
}

TEST_F(PlanOptimizationTest, NoConstantAllocatorMeansNoFolding) {
  ConstantSumProgram p;
  Result<Method> method = Load(p.b, -1);
  ASSERT_TRUE(method.ok()) << LastErrorDetail();
  EXPECT_EQ(g_adds, 0);
  EXPECT_STREQ(method->instruction_kind(0), "optimized");
  EXPECT_EQ(Run(*method, {1, 2, 3, 4}), kSumPlusX);
}

TEST_F(PlanOptimizationTest, OverBudgetCallsRunAtExecute) {
  ConstantSumProgram p;
  Result<Method> method = Load(p.b, 8);  // the sum needs 16 bytes
  ASSERT_TRUE(method.ok()) << LastErrorDetail();
  EXPECT_STREQ(method->instruction_kind(0), "optimized");
  EXPECT_EQ(Run(*method, {1, 2, 3, 4}), kSumPlusX);
}

TEST_F(PlanOptimizationTest, OptimizePlanOptionOff) {
  ConstantSumProgram p;
  MethodOptions options;
  options.optimize_plan = false;
  ASSERT_TRUE(Load(p.b).ok());  // sets up memory; load again with options
  method_allocator_->Reset();
  constants_->Reset();
  Result<Method> plain = Method::Load(
      *program_, "forward",
      MemoryManager{method_allocator_.get(), planned_.get(), temp_.get(), constants_.get()},
      options);
  ASSERT_TRUE(plain.ok()) << LastErrorDetail();
  EXPECT_STREQ(plain->instruction_kind(0), "optimized");
  EXPECT_EQ(constants_->used(), 0u);
}

TEST_F(PlanOptimizationTest, FailingCallIsLeftToFailAtExecute) {
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(ScalarType::kFloat, {4});
  const int c = b.AddConstantTensor(ScalarType::kFloat, {4}, FloatBytes({1, 2, 3, 4}));
  const int t = b.AddPlannedTensor(ScalarType::kFloat, {4});
  const int y = b.AddPlannedTensor(ScalarType::kFloat, {4});
  b.AddKernelCall(b.AddOperator("edgefleet_plan_test::fail", "out"), {c, t, t});
  b.AddKernelCall(b.AddOperator("edgefleet_plan_test::add", "out"), {x, t, y, y});
  b.SetInputs({x});
  b.SetOutputs({y});
  Result<Method> method = Load(b);
  ASSERT_TRUE(method.ok()) << LastErrorDetail();
  EXPECT_STREQ(method->instruction_kind(0), "optimized");
  float in[4] = {};
  int32_t sizes[] = {4};
  uint8_t order[] = {0};
  int32_t strides[] = {1};
  Tensor xt(ScalarType::kFloat, 1, sizes, order, strides, in, ShapeDynamism::kStatic);
  ASSERT_EQ(method->SetInput(0, EValue::FromTensor(&xt)), Error::kOk);
  EXPECT_EQ(method->Execute(), Error::kInvalidArgument);
  EXPECT_NE(strstr(LastErrorDetail(), "refused"), nullptr) << LastErrorDetail();
}

TEST_F(PlanOptimizationTest, MethodOutputsAreNotFolded) {
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(ScalarType::kFloat, {4});  // unused input
  const int c1 = b.AddConstantTensor(ScalarType::kFloat, {4}, FloatBytes({1, 2, 3, 4}));
  const int y = b.AddPlannedTensor(ScalarType::kFloat, {4});
  b.AddKernelCall(b.AddOperator("edgefleet_plan_test::add", "out"), {c1, c1, y, y});
  b.SetInputs({x});
  b.SetOutputs({y});
  Result<Method> method = Load(b);
  ASSERT_TRUE(method.ok()) << LastErrorDetail();
  EXPECT_STREQ(method->instruction_kind(0), "optimized");
  EXPECT_EQ(Run(*method, {0, 0, 0, 0}), (std::vector<float>{2, 4, 6, 8}));
}

TEST_F(PlanOptimizationTest, StaticViewOfAValueBlocksFoldingIt) {
  // `view` shares `sum`'s planned bytes and no instruction writes it (the
  // exporter's static views). Folding `sum` elsewhere would leave the view
  // reading stale arena bytes.
  ConstantSumProgram p;
  const int view = p.b.AddPlannedTensor(ScalarType::kFloat, {4});
  p.b.tensor(view).allocation_info->memory_offset_low =
      p.b.tensor(p.sum).allocation_info->memory_offset_low;
  p.b.plan().chains[0]->instructions.pop_back();
  p.b.AddKernelCall(p.add, {p.x, view, p.y, p.y});
  Result<Method> method = Load(p.b);
  ASSERT_TRUE(method.ok()) << LastErrorDetail();
  EXPECT_STREQ(method->instruction_kind(0), "optimized");
  EXPECT_EQ(Run(*method, {1, 2, 3, 4}), kSumPlusX);
}

TEST_F(PlanOptimizationTest, PassSeesFactsAndRewrites) {
  // sum = c1 + x (not constant); y = negate_me(x, sum) -> rewritten to x - sum.
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(ScalarType::kFloat, {4});
  const int c1 = b.AddConstantTensor(ScalarType::kFloat, {4}, FloatBytes({1, 2, 3, 4}));
  const int sum = b.AddPlannedTensor(ScalarType::kFloat, {4});
  const int y = b.AddPlannedTensor(ScalarType::kFloat, {4});
  b.AddKernelCall(b.AddOperator("edgefleet_plan_test::add", "out"), {x, c1, sum, sum});
  b.AddKernelCall(b.AddOperator("edgefleet_plan_test::negate_me", "out"), {x, sum, y, y});
  b.SetInputs({x});
  b.SetOutputs({y});
  g_seen = PassObservation();
  Result<Method> method = Load(b);
  ASSERT_TRUE(method.ok()) << LastErrorDetail();
  ASSERT_TRUE(g_seen.ran);
  EXPECT_EQ(g_seen.writer_of_sum, 0);
  EXPECT_EQ(g_seen.readers_of_sum, 1u);
  EXPECT_TRUE(g_seen.io_x);
  EXPECT_FALSE(g_seen.constant_x);
  EXPECT_FALSE(g_seen.io_sum);
  EXPECT_TRUE(g_seen.constant_c);
  char name[64];
  ASSERT_TRUE(method->instruction_name(1, name, sizeof(name)));
  EXPECT_STREQ(name, "edgefleet_plan_test::sub.out");
  // x - (x + c1) = -c1
  EXPECT_EQ(Run(*method, {5, 6, 7, 8}), (std::vector<float>{-1, -2, -3, -4}));
}

TEST_F(PlanOptimizationTest, AViewBelongsToTheLastValueWrittenToItsBytesBeforeItsRead) {
  // `a` and then `sum` are written to the same planned bytes; `view` (those
  // bytes, never written: an exporter's static view) is read after both, so
  // its reader counts as sum's; `late`, written there after the view's read,
  // does not take it. y = negate_me(x, sum) -> x - sum.
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(ScalarType::kFloat, {4});
  const int a = b.AddPlannedTensor(ScalarType::kFloat, {4});
  const int sum = b.AddPlannedTensor(ScalarType::kFloat, {4});
  const int view = b.AddPlannedTensor(ScalarType::kFloat, {4});
  const int late = b.AddPlannedTensor(ScalarType::kFloat, {4});
  const int y = b.AddPlannedTensor(ScalarType::kFloat, {4});
  const int z = b.AddPlannedTensor(ScalarType::kFloat, {4});
  const int w = b.AddPlannedTensor(ScalarType::kFloat, {4});
  for (const int shared : {a, view, late}) {
    b.tensor(shared).allocation_info->memory_offset_low =
        b.tensor(sum).allocation_info->memory_offset_low;
  }
  const int add = b.AddOperator("edgefleet_plan_test::add", "out");
  b.AddKernelCall(add, {x, x, a, a});
  b.AddKernelCall(add, {x, x, sum, sum});
  b.AddKernelCall(b.AddOperator("edgefleet_plan_test::negate_me", "out"), {x, sum, y, y});
  b.AddKernelCall(add, {x, view, z, z});
  b.AddKernelCall(add, {x, x, late, late});
  b.AddKernelCall(add, {late, z, w, w});
  b.SetInputs({x});
  b.SetOutputs({y, w});
  g_seen = PassObservation();
  Result<Method> method = Load(b);
  ASSERT_TRUE(method.ok()) << LastErrorDetail();
  ASSERT_TRUE(g_seen.ran);
  EXPECT_EQ(g_seen.writer_of_sum, 1);
  EXPECT_EQ(g_seen.readers_of_sum, 2u);  // negate_me and, through the view, z's add
  EXPECT_EQ(Run(*method, {1, 2, 3, 4}), (std::vector<float>{-1, -2, -3, -4}));
  const Tensor& w_out = method->output(1).to_tensor();
  EXPECT_EQ(std::vector<float>(w_out.data_as<float>(), w_out.data_as<float>() + 4),
            (std::vector<float>{5, 10, 15, 20}));  // late + z = 2x + 3x
}

TEST_F(PlanOptimizationTest, OutArgumentsRepeatedAsAReturnedListAreWrites) {
  // Like batch norm: op(x, out0, out1, [out0, out1]); y = x + out0.
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(ScalarType::kFloat, {4});
  const int o0 = b.AddPlannedTensor(ScalarType::kFloat, {4});
  const int o1 = b.AddPlannedTensor(ScalarType::kFloat, {4});
  const int y = b.AddPlannedTensor(ScalarType::kFloat, {4});
  const int list = b.AddTensorList({o0, o1});
  b.AddKernelCall(b.AddOperator("edgefleet_plan_test::two_out", "out"), {x, o0, o1, list});
  b.AddKernelCall(b.AddOperator("edgefleet_plan_test::negate_me", "out"), {x, o0, y, y});
  b.SetInputs({x});
  b.SetOutputs({y});
  g_seen = PassObservation();
  Result<Method> method = Load(b);
  ASSERT_TRUE(method.ok()) << LastErrorDetail();
  ASSERT_TRUE(g_seen.ran);
  EXPECT_EQ(g_seen.writer_of_sum, 0);    // o0 is written by the first call
  EXPECT_EQ(g_seen.readers_of_sum, 1u);  // and read only by the second
}

TEST_F(PlanOptimizationTest, PassesDoNotRunForPortableOnly) {
  ProgramBuilder b;
  const int x = b.AddPlannedTensor(ScalarType::kFloat, {4});
  const int y = b.AddPlannedTensor(ScalarType::kFloat, {4});
  b.AddKernelCall(b.AddOperator("edgefleet_plan_test::negate_me", "out"), {x, x, y, y});
  b.SetInputs({x});
  b.SetOutputs({y});
  g_seen = PassObservation();
  ASSERT_TRUE(Load(b).ok());
  EXPECT_TRUE(g_seen.ran);
  g_seen = PassObservation();
  MethodOptions options;
  options.kernels = KernelPreference::kPortableOnly;
  method_allocator_->Reset();
  constants_->Reset();
  // No portable kernel is registered for negate_me: load fails, and the
  // pass never saw the plan.
  Result<Method> portable = Method::Load(
      *program_, "forward",
      MemoryManager{method_allocator_.get(), planned_.get(), temp_.get(), constants_.get()},
      options);
  EXPECT_FALSE(portable.ok());
  EXPECT_FALSE(g_seen.ran);
}

}  // namespace
}  // namespace edgefleet
