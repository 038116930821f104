// Attention's masking ops on their fast paths (mask_ops.cc) give exactly
// the portable kernels' results, at 1, 2 and 3 threads: eq.Scalar_out with
// -inf, NaN and numbers rounded to float32; logical_not; any over the last
// dim, with and without keepdim; where with operands of the out's shape,
// one element and one value per row. Calls off the fast paths (any over
// another dim, a where broadcasting in another dim) go to the portable
// kernel and give its results too.

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/test_util.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

using testing::Random;
using testing::TestIntList;
using testing::TestTensor;

constexpr float kInf = std::numeric_limits<float>::infinity();

// Scores with -inf, +inf, NaN and exact values sprinkled in.
std::vector<float> Scores(int64_t n, uint64_t seed) {
  std::vector<float> v = Random<float>(n, seed, -3, 3);
  for (int64_t i = 0; i < n; i += 7) v[i] = -kInf;
  for (int64_t i = 3; i < n; i += 97) v[i] = std::nan("");
  for (int64_t i = 5; i < n; i += 89) v[i] = 0.1f;
  if (n > 11) v[11] = kInf;
  return v;
}

std::vector<bool> Bools(int64_t n, uint64_t seed, int every) {
  std::vector<float> r = Random<float>(n, seed, 0, 1);
  std::vector<bool> b(n);
  for (int64_t i = 0; i < n; ++i) b[i] = r[i] < 1.0f / every;
  return b;
}

template <typename T>
std::vector<T> Data(TestTensor<T>& t) {
  return t.Values();
}

TEST(MaskOps, EqScalarMatchesPortable) {
  const std::vector<int32_t> shape = {2, 3, 97, 97};
  const int64_t n = 2 * 3 * 97 * 97;
  TestTensor<float> x(shape, Scores(n, 1));
  for (EValue s : {EValue::FromDouble(-HUGE_VAL), EValue::FromDouble(0.1), EValue::FromInt(0)}) {
    TestTensor<bool> ref(shape);
    ASSERT_EQ(testing::Call(portable::EqScalarOut, {x.ev(), &s, ref.ev(), ref.ev()}), Error::kOk);
    for (int threads : {1, 2, 3}) {
      TestTensor<bool> out(shape);
      ASSERT_TRUE(testing::Supported(EqScalarSupports, {x.ev(), &s, out.ev(), out.ev()}));
      ASSERT_EQ(testing::Call(EqScalarOut, {x.ev(), &s, out.ev(), out.ev()}, threads), Error::kOk);
      EXPECT_EQ(Data(out), Data(ref)) << threads;
    }
  }
}

TEST(MaskOps, LogicalNotMatchesPortable) {
  const std::vector<int32_t> shape = {3, 197, 197};
  TestTensor<bool> x(shape, Bools(3 * 197 * 197, 2, 3)), ref(shape);
  ASSERT_EQ(testing::Call(portable::LogicalNotOut, {x.ev(), ref.ev(), ref.ev()}), Error::kOk);
  for (int threads : {1, 2, 3}) {
    TestTensor<bool> out(shape);
    ASSERT_EQ(testing::Call(LogicalNotOut, {x.ev(), out.ev(), out.ev()}, threads), Error::kOk);
    EXPECT_EQ(Data(out), Data(ref)) << threads;
  }
}

TEST(MaskOps, AnyMatchesPortable) {
  const std::vector<int32_t> shape = {1, 3, 197, 197};
  // Sparse trues: most rows have none, some have one.
  TestTensor<bool> x(shape, Bools(3 * 197 * 197, 3, 5000));
  for (int64_t dim : {-1, 3, 2}) {
    for (bool keepdim : {true, false}) {
      std::vector<int32_t> out_shape = shape;
      const size_t d = dim < 0 ? 3 : static_cast<size_t>(dim);
      if (keepdim) {
        out_shape[d] = 1;
      } else {
        out_shape.erase(out_shape.begin() + d);
      }
      EValue dim_v = EValue::FromInt(dim), keep_v = EValue::FromBool(keepdim);
      TestTensor<bool> ref(out_shape);
      ASSERT_EQ(testing::Call(portable::AnyOut, {x.ev(), &dim_v, &keep_v, ref.ev(), ref.ev()}),
                Error::kOk);
      // The last dim is the fast path; dim 2 is the portable kernel's.
      EXPECT_EQ(testing::Supported(AnySupports, {x.ev(), &dim_v, &keep_v, ref.ev(), ref.ev()}),
                d == 3);
      for (int threads : {1, 2, 3}) {
        TestTensor<bool> out(out_shape);
        ASSERT_EQ(testing::Call(AnyOut, {x.ev(), &dim_v, &keep_v, out.ev(), out.ev()}, threads),
                  Error::kOk);
        EXPECT_EQ(Data(out), Data(ref)) << dim << " " << keepdim << " " << threads;
      }
    }
  }
}

TEST(MaskOps, WhereMatchesPortable) {
  const std::vector<int32_t> shape = {1, 3, 197, 197}, rows = {1, 3, 197, 1}, one = {1},
                             columns = {1, 3, 1, 197};
  struct Case {
    std::vector<int32_t> cond, a, b;
    bool fast;
  };
  const Case cases[] = {
      {shape, shape, shape, true}, {rows, one, shape, true}, {rows, shape, one, true},
      {shape, rows, shape, true},  {one, shape, rows, true}, {columns, one, shape, false},
  };
  for (const Case& c : cases) {
    auto numel = [](const std::vector<int32_t>& s) {
      int64_t k = 1;
      for (int32_t v : s) k *= v;
      return k;
    };
    TestTensor<bool> cond(c.cond, Bools(numel(c.cond), 4, 2));
    TestTensor<float> a(c.a, Scores(numel(c.a), 5)), b(c.b, Random<float>(numel(c.b), 6));
    TestTensor<float> ref(shape);
    ASSERT_EQ(
        testing::Call(portable::WhereSelfOut, {cond.ev(), a.ev(), b.ev(), ref.ev(), ref.ev()}),
        Error::kOk);
    EXPECT_EQ(testing::Supported(WhereSupports, {cond.ev(), a.ev(), b.ev(), ref.ev(), ref.ev()}),
              c.fast);
    for (int threads : {1, 2, 3}) {
      TestTensor<float> out(shape);
      ASSERT_EQ(
          testing::Call(WhereSelfOut, {cond.ev(), a.ev(), b.ev(), out.ev(), out.ev()}, threads),
          Error::kOk);
      testing::ExpectMatch(out.Values(), ref.Values(), testing::kExact,
                           "where " + std::to_string(threads));
    }
  }
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet
