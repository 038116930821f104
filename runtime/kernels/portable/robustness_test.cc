// Every registered portable kernel, called with random argument lists drawn
// from a pool of odd values (wrong tags, negative sizes, empty and 0-dim
// tensors, aliased outputs, huge ints), must return without crashing. Run
// under the asan preset this also checks that no call reads or writes out of
// bounds.

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/kernels/kernel_registry.h"
#include "runtime/kernels/portable/register_portable_kernels.h"
#include "runtime/kernels/portable/test_tensors.h"

namespace edgefleet {
namespace portable {
namespace {

using testing::RunKernel;
using testing::TestIntList;
using testing::TestTensor;
using testing::TestTensorList;

// Scale factors for the DoubleList argument of the upsample kernels.
const double kDoubleList[2] = {2.0, 0.5};

// A fresh pool of values for one call (kernels may overwrite them).
class Pool {
 public:
  explicit Pool(std::mt19937& rng) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{3},
                      std::numeric_limits<int64_t>::min(), int64_t{1} << 40}) {
      scalars_.push_back(EValue::FromInt(v));
    }
    scalars_.push_back(EValue::FromDouble(0.5));
    scalars_.push_back(EValue::FromDouble(nan));
    scalars_.push_back(EValue::FromBool(true));
    scalars_.push_back(EValue());
    scalars_.push_back(EValue::FromString("floor", 5));
    scalars_.push_back(EValue::FromString("tanh", 4));
    scalars_.push_back(EValue::FromDoubleList(kDoubleList, 2));
    lists_.push_back(std::make_unique<TestIntList>(std::initializer_list<int64_t>{}));
    lists_.push_back(std::make_unique<TestIntList>(std::initializer_list<int64_t>{1, 1}));
    lists_.push_back(std::make_unique<TestIntList>(std::initializer_list<int64_t>{-1, 4}));
    lists_.push_back(std::make_unique<TestIntList>(std::initializer_list<int64_t>{0, 2, 3, 1}));
    lists_.push_back(
        std::make_unique<TestIntList>(std::initializer_list<int64_t>{int64_t{1} << 31}));
    lists_.push_back(std::make_unique<TestIntList>(std::initializer_list<int64_t>{2, 2}));
    std::uniform_real_distribution<float> value(-3, 3);
    const auto floats = [&](int n) {
      std::vector<float> v;
      for (int i = 0; i < n; ++i) v.push_back(value(rng));
      return v;
    };
    const auto dyn = ShapeDynamism::kDynamicBound;
    f_.push_back(std::make_unique<TestTensor<float>>(std::vector<int32_t>{2, 3}, floats(6),
                                                     std::vector<uint8_t>{}, dyn, 64));
    f_.push_back(std::make_unique<TestTensor<float>>(std::vector<int32_t>{1, 2, 3, 3}, floats(18),
                                                     std::vector<uint8_t>{0, 2, 3, 1}, dyn, 256));
    f_.push_back(std::make_unique<TestTensor<float>>(std::vector<int32_t>{1, 3, 4, 4}, floats(48)));
    f_.push_back(std::make_unique<TestTensor<float>>(std::vector<int32_t>{0}));
    f_.push_back(std::make_unique<TestTensor<float>>(std::vector<int32_t>{}, floats(1)));
    f_.push_back(std::make_unique<TestTensor<float>>(
        std::vector<int32_t>{2, 2}, floats(4), std::vector<uint8_t>{}, ShapeDynamism::kStatic));
    f_.push_back(std::make_unique<TestTensor<float>>(std::vector<int32_t>{3}, floats(3),
                                                     std::vector<uint8_t>{}, dyn, 1000));
    i64_ = std::make_unique<TestTensor<int64_t>>(std::vector<int32_t>{2, 3},
                                                 std::vector<int64_t>{0, 1, -1, 2, 5, 1});
    i32_ = std::make_unique<TestTensor<int32_t>>(std::vector<int32_t>{4},
                                                 std::vector<int32_t>{3, 0, -7, 1});
    i8_ = std::make_unique<TestTensor<int8_t>>(std::vector<int32_t>{2, 3},
                                               std::vector<int8_t>{-128, -1, 0, 1, 5, 127});
    b_ = std::make_unique<TestTensor<bool>>(
        std::vector<int32_t>{2, 3}, std::vector<bool>{true, false, true, true, false, false});
    d_ = std::make_unique<TestTensor<double>>(std::vector<int32_t>{3, 3},
                                              std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9});
    for (auto& t : f_) values_.push_back(t->ev());
    values_.push_back(i64_->ev());
    values_.push_back(i32_->ev());
    values_.push_back(i8_->ev());
    values_.push_back(b_->ev());
    values_.push_back(d_->ev());
    tensor_list_ =
        std::make_unique<TestTensorList>(std::initializer_list<EValue*>{f_[0]->ev(), f_[0]->ev()});
    values_.push_back(tensor_list_->ev());
    optional_list_ = std::make_unique<TestTensorList>(
        std::initializer_list<EValue*>{i64_->ev(), nullptr, b_->ev()},
        /*optional=*/true);
    values_.push_back(optional_list_->ev());
    for (auto& l : lists_) values_.push_back(l->ev());
    for (EValue& s : scalars_) values_.push_back(&s);
  }

  EValue* Pick(std::mt19937& rng) {
    return values_[std::uniform_int_distribution<size_t>(0, values_.size() - 1)(rng)];
  }

 private:
  std::vector<EValue> scalars_;
  std::vector<std::unique_ptr<TestIntList>> lists_;
  std::vector<std::unique_ptr<TestTensor<float>>> f_;
  std::unique_ptr<TestTensor<int64_t>> i64_;
  std::unique_ptr<TestTensor<int32_t>> i32_;
  std::unique_ptr<TestTensor<int8_t>> i8_;
  std::unique_ptr<TestTensor<bool>> b_;
  std::unique_ptr<TestTensor<double>> d_;
  std::unique_ptr<TestTensorList> tensor_list_;
  std::unique_ptr<TestTensorList> optional_list_;
  std::vector<EValue*> values_;
};

TEST(RobustnessTest, RandomArgumentsNeverCrash) {
  ASSERT_EQ(RegisterPortableKernels(), Error::kOk);
  std::mt19937 rng(1234);
  int failures = 0;
  int calls = 0;
  for (int k = 0; k < NumRegisteredKernels(); ++k) {
    const Kernel& kernel = RegisteredKernel(k);
    if (kernel.variant != KernelVariant::kPortable) continue;
    for (int round = 0; round < 200; ++round) {
      Pool pool(rng);
      std::vector<EValue*> args(std::uniform_int_distribution<int>(0, 11)(rng));
      for (EValue*& a : args) a = pool.Pick(rng);
      failures += RunKernel(kernel.fn, args, 4096) != Error::kOk ? 1 : 0;
      ++calls;
    }
  }
  // Nearly every random call is invalid; all of them returned.
  EXPECT_GT(failures, calls / 2);
}

}  // namespace
}  // namespace portable
}  // namespace edgefleet
