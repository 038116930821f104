// The old stack's per-operator host profile (service/pytorch_mobile_profiler.h)
// on the .ptl fixtures: the operators the lite interpreter reports and the
// work computed from their arguments, against hand-computed FLOPs
// (small_cnn) and against the new stack's profile of the same model's .pte
// (mobilenet_v2_035: same convolutions and linear layer, counted from
// entirely different arguments: XNNPACK contexts vs the program's tensors).
// Times are measured but not asserted.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "service/host_profiler.h"
#include "service/op_classes.h"

namespace edgefleet {
namespace service {
namespace {

const v1::OpClassCost& Cost(const v1::ModelHostProfile& p, v1::OpClass c) {
  for (const v1::OpClassCost& cost : p.classes()) {
    if (cost.op_class() == c) return cost;
  }
  static const v1::OpClassCost kNone;
  return kNone;
}

void Print(const v1::ModelHostProfile& p) {
  std::printf("[ profile  ] %s (%s): total %.1f us, ridge %.2f FLOP/B\n", p.model().c_str(),
              p.stack() == v1::STACK_PYTORCH_MOBILE ? "pytorch-mobile" : "edgefleet", p.total_us(),
              p.ridge_flops_per_byte());
  for (const v1::OpClassCost& c : p.classes()) {
    std::printf("[ profile  ]   %-16s %4u ops %10.1f us %14.0f FLOP %12.0f B\n",
                OpClassName(c.op_class()), c.instructions(), c.host_us(), c.flops(), c.bytes());
  }
}

ProfileOptions FixedRidge(double ridge) {
  ProfileOptions options;
  options.warmup = 1;
  options.runs = 3;
  options.ridge_flops_per_byte = ridge;
  return options;
}

TEST(OldStackProfile, SmallCnnOperatorsAndFlopsByHand) {
  // Conv2d(3, 8, 3, padding 1) on [1,3,16,16] (BatchNorm folded, ReLU in
  // the clamp), MaxPool2d(2), Flatten, Linear(512, 10).
  absl::StatusOr<v1::ModelHostProfile> p =
      MeasureHostProfile("small_cnn", "test/fixtures/small_cnn/model.ptl", v1::STACK_PYTORCH_MOBILE,
                         v1::KERNELS_DEFAULT, FixedRidge(1.0));
  ASSERT_TRUE(p.ok()) << p.status();
  Print(*p);
  EXPECT_EQ(p->stack(), v1::STACK_PYTORCH_MOBILE);
  // Conv: 2 x (8 x 16 x 16 outputs) x (3 x 3 x 3) = 110,592 FLOP over
  // 3,072 + 864 + 32 + 8,192 bytes = 9.1 FLOP/B: 3x3 stride 1 above the
  // ridge of 1.
  const v1::OpClassCost& conv = Cost(*p, v1::OP_CLASS_DENSE_3X3);
  EXPECT_EQ(conv.instructions(), 1u);
  EXPECT_DOUBLE_EQ(conv.flops(), 110592.0);
  EXPECT_DOUBLE_EQ(conv.bytes(), 3072.0 + 864 + 32 + 8192);
  // Linear: 2 x 512 x 10 = 10,240 FLOP over 2,048 + 20,480 + 40 + 40 bytes
  // = 0.45 FLOP/B: below the ridge.
  const v1::OpClassCost& linear = Cost(*p, v1::OP_CLASS_MEMORY_BOUND);
  EXPECT_EQ(linear.instructions(), 1u);
  EXPECT_DOUBLE_EQ(linear.flops(), 10240.0);
  EXPECT_DOUBLE_EQ(linear.bytes(), 2048.0 + 20480 + 40 + 40);
  EXPECT_EQ(Cost(*p, v1::OP_CLASS_ELEMENTWISE).instructions(), 1u);    // max_pool2d
  EXPECT_EQ(Cost(*p, v1::OP_CLASS_DATA_MOVEMENT).instructions(), 1u);  // flatten
  EXPECT_EQ(Cost(*p, v1::OP_CLASS_OVERHEAD).instructions(), 4u);
  EXPECT_GT(p->total_us(), 0);
  EXPECT_GT(conv.host_us(), 0);
}

// FLOPs and operator count over the compute classes (convolutions and
// matrix products, whichever side of the ridge they fall on).
struct ComputeWork {
  double flops = 0;
  uint32_t instructions = 0;
};
ComputeWork ComputeWorkOf(const v1::ModelHostProfile& profile) {
  ComputeWork work;
  for (v1::OpClass c : {v1::OP_CLASS_DENSE, v1::OP_CLASS_DENSE_POINTWISE, v1::OP_CLASS_DENSE_3X3,
                        v1::OP_CLASS_MEMORY_BOUND}) {
    work.flops += Cost(profile, c).flops();
    work.instructions += Cost(profile, c).instructions();
  }
  return work;
}

TEST(OldStackProfile, MobileNetV2WorkMatchesTheNewStacksProfile) {
  const std::string dir = "test/fixtures/mobilenet_v2_035/";
  const ProfileOptions options = FixedRidge(4.0);
  absl::StatusOr<v1::ModelHostProfile> old_stack =
      MeasureHostProfile("mobilenet_v2_035", dir + "model.ptl", v1::STACK_PYTORCH_MOBILE,
                         v1::KERNELS_DEFAULT, options);
  ASSERT_TRUE(old_stack.ok()) << old_stack.status();
  absl::StatusOr<v1::ModelHostProfile> new_stack = MeasureHostProfile(
      "mobilenet_v2_035", dir + "model.pte", v1::STACK_EDGEFLEET, v1::KERNELS_PORTABLE, options);
  ASSERT_TRUE(new_stack.ok()) << new_stack.status();
  Print(*old_stack);
  Print(*new_stack);
  const ComputeWork old_work = ComputeWorkOf(*old_stack), new_work = ComputeWorkOf(*new_stack);
  const double old_flops = old_work.flops, new_flops = new_work.flops;
  const uint32_t old_compute = old_work.instructions, new_compute = new_work.instructions;
  // 52 convolutions and the classifier in both.
  EXPECT_EQ(old_compute, 53u);
  EXPECT_EQ(new_compute, 53u);
  EXPECT_GT(old_flops, 1e7);
  EXPECT_DOUBLE_EQ(old_flops, new_flops);
  // The per-class split may differ near the ridge: the .ptl's convolutions
  // carry the folded batch norm as a bias, the .pte's have none, so their
  // bytes (and intensity) differ slightly. The 17 depthwise convolutions
  // (under 2 FLOP/B) are memory-bound on both.
  EXPECT_GE(Cost(*old_stack, v1::OP_CLASS_MEMORY_BOUND).instructions(), 17u);
  EXPECT_GE(Cost(*new_stack, v1::OP_CLASS_MEMORY_BOUND).instructions(), 17u);
}

// The int8 .ptl of `make models` (quantized::conv2d / quantized::linear
// with qnnpack packed params) against the int8 .pte run with portable
// kernels (dequantize -> convolution -> quantize): the same 53 layers.
TEST(OldStackProfile, Int8MobileNetV2WorkMatchesTheNewStacksProfile) {
  const char* cache = std::getenv("EF_MODEL_CACHE");
  const std::string dir =
      std::string(cache != nullptr && *cache != '\0' ? cache : ".cache/models") +
      "/mobilenet_v2_int8/";
  if (!std::filesystem::exists(dir + "model.ptl") || !std::filesystem::exists(dir + "model.pte")) {
    GTEST_SKIP() << dir << " has no model.ptl and model.pte: run `make models`";
  }
  ProfileOptions options = FixedRidge(4.0);
  options.warmup = 0;
  options.runs = 1;
  absl::StatusOr<v1::ModelHostProfile> old_stack =
      MeasureHostProfile("mobilenet_v2_int8", dir + "model.ptl", v1::STACK_PYTORCH_MOBILE,
                         v1::KERNELS_DEFAULT, options);
  ASSERT_TRUE(old_stack.ok()) << old_stack.status();
  absl::StatusOr<v1::ModelHostProfile> new_stack = MeasureHostProfile(
      "mobilenet_v2_int8", dir + "model.pte", v1::STACK_EDGEFLEET, v1::KERNELS_PORTABLE, options);
  ASSERT_TRUE(new_stack.ok()) << new_stack.status();
  Print(*old_stack);
  Print(*new_stack);
  const ComputeWork old_work = ComputeWorkOf(*old_stack), new_work = ComputeWorkOf(*new_stack);
  const double old_flops = old_work.flops, new_flops = new_work.flops;
  const uint32_t old_compute = old_work.instructions, new_compute = new_work.instructions;
  EXPECT_EQ(old_compute, 53u);
  EXPECT_EQ(new_compute, 53u);
  EXPECT_GT(old_flops, 5e8);
  EXPECT_DOUBLE_EQ(old_flops, new_flops);
}

TEST(OldStackProfile, NeedsTheModelPteBesideThePtl) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ef_old_profile_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir / "small_cnn");
  std::filesystem::copy_file("test/fixtures/small_cnn/model.ptl", dir / "small_cnn/model.ptl",
                             std::filesystem::copy_options::overwrite_existing);
  absl::StatusOr<v1::ModelHostProfile> p =
      MeasureHostProfile("small_cnn", (dir / "small_cnn/model.ptl").string(),
                         v1::STACK_PYTORCH_MOBILE, v1::KERNELS_DEFAULT, FixedRidge(1.0));
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kNotFound) << p.status();
  EXPECT_NE(p.status().message().find("model.pte beside it"), std::string::npos) << p.status();
}

TEST(OldStackProfile, RefusesOtherKernels) {
  absl::StatusOr<v1::ModelHostProfile> p =
      MeasureHostProfile("small_cnn", "test/fixtures/small_cnn/model.ptl", v1::STACK_PYTORCH_MOBILE,
                         v1::KERNELS_PORTABLE, FixedRidge(1.0));
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument) << p.status();
}

}  // namespace
}  // namespace service
}  // namespace edgefleet
