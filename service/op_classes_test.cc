#include "service/op_classes.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "runtime/tools/host_tensor.h"

namespace edgefleet {
namespace service {
namespace {

struct Args {
  std::vector<std::unique_ptr<tools::HostTensor>> tensors;
  std::vector<EValue> values;
  std::vector<EValue*> pointers;

  void Tensor(std::vector<int32_t> sizes) {
    tensors.push_back(std::move(*tools::HostTensor::Create(
        ScalarType::kFloat, Span<const int32_t>(sizes.data(), sizes.size()))));
  }

  // The kernel's argument list: tensors in order, then `out` repeated (as
  // the .out convention passes it twice).
  Span<EValue* const> Build() {
    for (auto& t : tensors) values.push_back(t->value());
    values.push_back(tensors.back()->value());
    for (auto& v : values) pointers.push_back(&v);
    return {pointers.data(), pointers.size()};
  }
};

TEST(OpClassesTest, ConvolutionFlopsAndBytesFromShapes) {
  Args a;
  a.Tensor({1, 8, 16, 16});   // x
  a.Tensor({16, 8, 3, 3});    // w
  a.Tensor({1, 16, 16, 16});  // out
  const OpWork work = OperatorWork("aten::convolution.out", a.Build());
  EXPECT_TRUE(work.compute_kernel);
  // 4096 outputs x 72 multiply-adds x 2.
  EXPECT_DOUBLE_EQ(work.flops, 2.0 * 4096 * 72);
  // x + w + out once each (out is passed twice), 4 bytes per float.
  EXPECT_DOUBLE_EQ(work.bytes, 4.0 * (2048 + 1152 + 4096));
  // Intensity 589824 / 29184 = 20.2 FLOP/byte: dense below that ridge,
  // memory-bound above it.
  EXPECT_EQ(Classify(work, 4.0), v1::OP_CLASS_DENSE);
  EXPECT_EQ(Classify(work, 25.0), v1::OP_CLASS_MEMORY_BOUND);
}

TEST(OpClassesTest, DepthwiseConvolutionIsMemoryBound) {
  Args a;
  a.Tensor({1, 32, 56, 56});
  a.Tensor({32, 1, 3, 3});
  a.Tensor({1, 32, 56, 56});
  const OpWork work = OperatorWork("edgefleet::fused_convolution.out", a.Build());
  EXPECT_DOUBLE_EQ(work.flops, 2.0 * 32 * 56 * 56 * 9);
  // 2 x 9 FLOP per output over ~8 bytes per output: ~2.2 FLOP/byte.
  EXPECT_EQ(Classify(work, 4.0), v1::OP_CLASS_MEMORY_BOUND);
}

TEST(OpClassesTest, AddmmCountsTheInnerDimension) {
  Args a;
  a.Tensor({1000});        // bias
  a.Tensor({1, 1280});     // mat1
  a.Tensor({1280, 1000});  // mat2
  a.Tensor({1, 1000});     // out
  const OpWork work = OperatorWork("aten::addmm.out", a.Build());
  EXPECT_DOUBLE_EQ(work.flops, 2.0 * 1000 * 1280);
}

TEST(OpClassesTest, OtherOperatorsAreElementwiseOrDataMovement) {
  for (const char* name : {"aten::permute_copy.out", "aten::cat.out", "aten::view_copy.out",
                           "dim_order_ops::_to_dim_order_copy.out", "aten::slice_copy.Tensor_out"}) {
    Args a;
    a.Tensor({2, 3});
    a.Tensor({3, 2});
    EXPECT_EQ(Classify(OperatorWork(name, a.Build()), 4.0), v1::OP_CLASS_DATA_MOVEMENT) << name;
  }
  for (const char* name : {"aten::add.out", "aten::hardtanh.out", "aten::mean.out",
                           "aten::_native_batch_norm_legit_no_training.out",
                           "aten::max_pool2d_with_indices.out", "aten::sigmoid.out"}) {
    Args a;
    a.Tensor({2, 3});
    a.Tensor({2, 3});
    const OpWork work = OperatorWork(name, a.Build());
    EXPECT_EQ(work.flops, 0);
    EXPECT_EQ(Classify(work, 4.0), v1::OP_CLASS_ELEMENTWISE) << name;
  }
}

}  // namespace
}  // namespace service
}  // namespace edgefleet
