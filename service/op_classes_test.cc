#include "service/op_classes.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "runtime/module/host_tensor.h"

namespace edgefleet {
namespace service {
namespace {

struct Args {
  std::vector<std::unique_ptr<HostTensor>> tensors;
  std::vector<EValue> values;
  std::vector<EValue*> pointers;

  void Tensor(std::vector<int32_t> sizes) {
    tensors.push_back(std::move(
        *HostTensor::Create(ScalarType::kFloat, Span<const int32_t>(sizes.data(), sizes.size()))));
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
  // Intensity 589824 / 29184 = 20.2 FLOP/byte: dense below that ridge
  // (3x3, stride 1: output keeps the input's 16x16), memory-bound above it.
  EXPECT_TRUE(work.conv3x3_stride1);
  EXPECT_FALSE(work.pointwise);
  EXPECT_EQ(Classify(work, 4.0), v1::OP_CLASS_DENSE_3X3);
  EXPECT_EQ(Classify(work, 25.0), v1::OP_CLASS_MEMORY_BOUND);
}

TEST(OpClassesTest, DenseConvolutionsSplitByShape) {
  Args strided;  // 3x3 stride 2: the generic dense class
  strided.Tensor({1, 32, 32, 32});
  strided.Tensor({64, 32, 3, 3});
  strided.Tensor({1, 64, 16, 16});
  EXPECT_EQ(Classify(OperatorWork("aten::convolution.out", strided.Build()), 1.0),
            v1::OP_CLASS_DENSE);
  Args pointwise;
  pointwise.Tensor({1, 64, 28, 28});
  pointwise.Tensor({128, 64, 1, 1});
  pointwise.Tensor({1, 128, 28, 28});
  const OpWork work = OperatorWork("aten::convolution.out", pointwise.Build());
  EXPECT_DOUBLE_EQ(work.flops, 2.0 * 128 * 28 * 28 * 64);
  EXPECT_EQ(Classify(work, 1.0), v1::OP_CLASS_DENSE_POINTWISE);
  Args five;  // 5x5 stride 1
  five.Tensor({1, 16, 28, 28});
  five.Tensor({32, 16, 5, 5});
  five.Tensor({1, 32, 28, 28});
  EXPECT_EQ(Classify(OperatorWork("aten::convolution.out", five.Build()), 1.0), v1::OP_CLASS_DENSE);
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
  for (const char* name :
       {"aten::permute_copy.out", "aten::cat.out", "aten::view_copy.out",
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
