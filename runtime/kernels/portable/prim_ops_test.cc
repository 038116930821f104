#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/kernels/kernel_registry.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/register_portable_kernels.h"
#include "runtime/kernels/portable/test_tensors.h"

namespace edgefleet {
namespace portable {
namespace {

using testing::RunKernel;
using testing::TestIntList;
using testing::TestTensor;

// Runs a binary prim op and returns the result slot.
EValue Binary(OpFunction fn, EValue a, EValue b, Error expected = Error::kOk) {
  EValue out = EValue::FromInt(0);
  EXPECT_EQ(RunKernel(fn, {&a, &b, &out}), expected);
  return out;
}

TEST(PrimOpsTest, SymSizeAndNumel) {
  TestTensor<float> x({2, 3, 4});
  EValue dim = EValue::FromInt(-1);
  EValue out;
  ASSERT_EQ(RunKernel(SymSizeInt, {x.ev(), &dim, &out}), Error::kOk);
  ASSERT_TRUE(out.is_int());
  EXPECT_EQ(out.to_int(), 4);
  ASSERT_EQ(RunKernel(SymNumel, {x.ev(), &out}), Error::kOk);
  EXPECT_EQ(out.to_int(), 24);
  EValue bad = EValue::FromInt(3);
  EXPECT_EQ(RunKernel(SymSizeInt, {x.ev(), &bad, &out}), Error::kInvalidArgument);
}

TEST(PrimOpsTest, IntArithmeticFollowsPython) {
  EXPECT_EQ(Binary(PrimAddScalar, EValue::FromInt(2), EValue::FromInt(3)).to_int(), 5);
  EXPECT_EQ(Binary(PrimSubScalar, EValue::FromInt(2), EValue::FromInt(3)).to_int(), -1);
  EXPECT_EQ(Binary(PrimMulScalar, EValue::FromInt(-4), EValue::FromInt(3)).to_int(), -12);
  // -7 // 2 == -4 and -7 % 2 == 1 in Python; 7 % -2 == -1.
  EXPECT_EQ(Binary(PrimFloorDivScalar, EValue::FromInt(-7), EValue::FromInt(2)).to_int(), -4);
  EXPECT_EQ(Binary(PrimFloorDivInt, EValue::FromInt(7), EValue::FromInt(2)).to_int(), 3);
  EXPECT_EQ(Binary(PrimModScalar, EValue::FromInt(-7), EValue::FromInt(2)).to_int(), 1);
  EXPECT_EQ(Binary(PrimModInt, EValue::FromInt(7), EValue::FromInt(-2)).to_int(), -1);
  EXPECT_EQ(Binary(PrimSymMaxScalar, EValue::FromInt(7), EValue::FromInt(9)).to_int(), 9);
  EXPECT_EQ(Binary(PrimSymMinScalar, EValue::FromInt(7), EValue::FromInt(9)).to_int(), 7);
  // True division always gives a float.
  const EValue q = Binary(PrimTrueDivScalar, EValue::FromInt(7), EValue::FromInt(2));
  ASSERT_TRUE(q.is_double());
  EXPECT_EQ(q.to_double(), 3.5);
  Binary(PrimFloorDivScalar, EValue::FromInt(1), EValue::FromInt(0), Error::kInvalidArgument);
  Binary(PrimModInt, EValue::FromInt(1), EValue::FromDouble(2), Error::kInvalidArgument);
}

TEST(PrimOpsTest, DoubleArithmeticAndComparisons) {
  const EValue sum = Binary(PrimAddScalar, EValue::FromInt(1), EValue::FromDouble(0.5));
  ASSERT_TRUE(sum.is_double());
  EXPECT_EQ(sum.to_double(), 1.5);
  // -7.5 // 2 == -4.0 and -7.5 % 2 == 0.5 in Python.
  EXPECT_EQ(Binary(PrimFloorDivScalar, EValue::FromDouble(-7.5), EValue::FromInt(2)).to_double(),
            -4.0);
  EXPECT_EQ(Binary(PrimModScalar, EValue::FromDouble(-7.5), EValue::FromInt(2)).to_double(), 0.5);
  const EValue lt = Binary(PrimLtScalar, EValue::FromInt(1), EValue::FromDouble(1.5));
  ASSERT_TRUE(lt.is_bool());
  EXPECT_TRUE(lt.to_bool());
  EXPECT_TRUE(Binary(PrimEqScalar, EValue::FromInt(2), EValue::FromDouble(2)).to_bool());
  EXPECT_FALSE(Binary(PrimGtScalar, EValue::FromInt(2), EValue::FromInt(2)).to_bool());
  EXPECT_TRUE(Binary(PrimGeScalar, EValue::FromInt(2), EValue::FromInt(2)).to_bool());
  EXPECT_TRUE(Binary(PrimLeScalar, EValue::FromInt(1), EValue::FromInt(2)).to_bool());
}

TEST(PrimOpsTest, UnaryOps) {
  EValue a = EValue::FromInt(5);
  EValue out;
  ASSERT_EQ(RunKernel(PrimNegScalar, {&a, &out}), Error::kOk);
  EXPECT_EQ(out.to_int(), -5);
  ASSERT_EQ(RunKernel(PrimSymFloatScalar, {&a, &out}), Error::kOk);
  ASSERT_TRUE(out.is_double());
  EXPECT_EQ(out.to_double(), 5.0);
  EValue half = EValue::FromDouble(2.5);
  ASSERT_EQ(RunKernel(PrimRoundScalar, {&half, &out}), Error::kOk);
  EXPECT_EQ(out.to_int(), 2);  // Python rounds half to even
  ASSERT_EQ(RunKernel(PrimCeilScalar, {&half, &out}), Error::kOk);
  EXPECT_EQ(out.to_int(), 3);
  EValue neg = EValue::FromDouble(-2.5);
  ASSERT_EQ(RunKernel(PrimSymIntScalar, {&neg, &out}), Error::kOk);
  EXPECT_EQ(out.to_int(), -2);
  EValue t = EValue::FromBool(true);
  EValue x = EValue::FromInt(1);
  EValue y = EValue::FromInt(2);
  ASSERT_EQ(RunKernel(PrimSymIteScalar, {&t, &x, &y, &out}), Error::kOk);
  EXPECT_EQ(out.to_int(), 1);
  TestTensor<float> tensor({1});
  EXPECT_EQ(RunKernel(PrimNegScalar, {tensor.ev(), &out}), Error::kInvalidArgument);
  EXPECT_EQ(RunKernel(PrimNegScalar, {&a}), Error::kInvalidArgument);
}

TEST(PrimOpsTest, EtViewAliasesInput) {
  TestTensor<float> x({2, 3}, {0, 1, 2, 3, 4, 5});
  // The out tensor has no memory of its own (as an unplanned view).
  int32_t sizes[] = {6};
  uint8_t order[] = {0};
  int32_t strides[1];
  Tensor view(ScalarType::kFloat, 1, sizes, order, strides, nullptr, ShapeDynamism::kDynamicBound);
  EValue view_ev = EValue::FromTensor(&view);
  TestIntList size({3, -1});
  // Rank 1 view cannot take a rank-2 size.
  EXPECT_EQ(RunKernel(EtViewDefault, {x.ev(), size.ev(), &view_ev}), Error::kInvalidArgument);
  int32_t sizes2[] = {1, 1};
  uint8_t order2[] = {0, 1};
  int32_t strides2[2];
  Tensor view2(ScalarType::kFloat, 2, sizes2, order2, strides2, nullptr,
               ShapeDynamism::kDynamicBound);
  EValue view2_ev = EValue::FromTensor(&view2);
  ASSERT_EQ(RunKernel(EtViewDefault, {x.ev(), size.ev(), &view2_ev}), Error::kOk);
  EXPECT_EQ(view2.size(0), 3);
  EXPECT_EQ(view2.size(1), 2);
  EXPECT_EQ(view2.data(), x.tensor().data());
  TestTensor<float> channels_last({1, 2, 1, 3}, {}, {0, 2, 3, 1});
  EXPECT_EQ(RunKernel(EtViewDefault, {channels_last.ev(), size.ev(), &view2_ev}),
            Error::kInvalidArgument);
}

TEST(RegistrationTest, EveryKernelIsRegisteredOnce) {
  ASSERT_EQ(RegisterPortableKernels(), Error::kOk);
  ASSERT_EQ(RegisterPortableKernels(), Error::kOk);  // idempotent
  const char* const kNames[] = {"aten::convolution.out",
                                "aten::_native_batch_norm_legit_no_training.out",
                                "aten::add.out",
                                "aten::div.out_mode",
                                "aten::mean.out",
                                "aten::max_pool2d_with_indices.out",
                                "aten::cat.out",
                                "dim_order_ops::_clone_dim_order.out",
                                "dim_order_ops::_to_dim_order_copy.out",
                                "aten::sym_size.int",
                                "aten::sym_numel",
                                "executorch_prim::et_view.default",
                                "executorch_prim::floordiv.int",
                                "executorch_prim::sym_float.Scalar"};
  for (const char* name : kNames) {
    EXPECT_TRUE(HasKernel(name)) << name;
  }
  int portable = 0;
  for (int i = 0; i < NumRegisteredKernels(); ++i) {
    if (RegisteredKernel(i).variant == KernelVariant::kPortable) ++portable;
  }
  EXPECT_GE(portable, 75);
}

}  // namespace
}  // namespace portable
}  // namespace edgefleet
