#include "runtime/module/random_fill.h"

#include <memory>

#include "gtest/gtest.h"
#include "runtime/module/host_tensor.h"

namespace edgefleet {
namespace {

std::unique_ptr<HostTensor> Filled(ScalarType dtype, uint64_t seed) {
  const int32_t sizes[] = {4, 64};
  Result<std::unique_ptr<HostTensor>> t = HostTensor::Create(dtype, sizes);
  EXPECT_TRUE(t.ok());
  std::mt19937_64 rng(seed);
  EXPECT_EQ(FillRandom(rng, (*t)->tensor()), Error::kOk);
  return std::move(*t);
}

TEST(RandomFillTest, FloatsAreInRangeAndSeeded) {
  auto a = Filled(ScalarType::kFloat, 7), b = Filled(ScalarType::kFloat, 7),
       c = Filled(ScalarType::kFloat, 8);
  const float* x = a->tensor().data_as<float>();
  bool differs = false;
  for (int i = 0; i < 256; ++i) {
    EXPECT_GE(x[i], -1.0f);
    EXPECT_LT(x[i], 1.0f);
    EXPECT_EQ(x[i], b->tensor().data_as<float>()[i]);
    differs = differs || x[i] != c->tensor().data_as<float>()[i];
  }
  EXPECT_TRUE(differs);
}

TEST(RandomFillTest, IntsAndBools) {
  auto ints = Filled(ScalarType::kLong, 1);
  auto bools = Filled(ScalarType::kBool, 1);
  for (int i = 0; i < 256; ++i) {
    EXPECT_GE(ints->tensor().data_as<int64_t>()[i], 0);
    EXPECT_LT(ints->tensor().data_as<int64_t>()[i], 10);
    EXPECT_LE(bools->tensor().data_as<uint8_t>()[i], 1);
  }
}

TEST(RandomFillTest, RejectsQuantizedTypes) {
  const int32_t sizes[] = {2};
  auto t = HostTensor::Create(ScalarType::kQInt8, sizes);
  ASSERT_TRUE(t.ok());
  std::mt19937_64 rng(0);
  EXPECT_EQ(FillRandom(rng, (*t)->tensor()), Error::kNotSupported);
}

}  // namespace
}  // namespace edgefleet
