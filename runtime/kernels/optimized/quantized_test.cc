// quantize / dequantize kernels against the portable ones: bit-identical,
// including values that round half-way, saturate, and NaN / infinities.

#include <limits>
#include <vector>

#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/test_util.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

using testing::Call;
using testing::ExpectMatch;
using testing::ForEachIsa;
using testing::Random;
using testing::Supported;
using testing::TestTensor;

std::vector<float> QuantInputs(size_t n) {
  std::vector<float> v = Random<float>(n, 501, -3, 3);
  // Ties at scale 0.5: k + 0.5 steps, saturating values, specials.
  const float specials[] = {0.25f,
                            0.75f,
                            -0.25f,
                            -1.25f,
                            1e6f,
                            -1e6f,
                            5e7f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            0.0f,
                            -0.0f};
  for (size_t i = 0; i < sizeof(specials) / sizeof(specials[0]) && i < n; ++i) {
    v[i * 7 % n] = specials[i];
  }
  return v;
}

template <typename Q>
void CheckQuantize(int64_t zero_point, int64_t qmin, int64_t qmax, ScalarType t) {
  for (double scale : {0.5, 0.0137, 3.0}) {
    TestTensor<float> x({3, 5, 67}, QuantInputs(3 * 5 * 67));
    EValue s = EValue::FromDouble(scale), zp = EValue::FromInt(zero_point),
           lo = EValue::FromInt(qmin), hi = EValue::FromInt(qmax),
           dtype = EValue::FromInt(static_cast<int64_t>(t));
    TestTensor<Q> r({3, 5, 67}), o({3, 5, 67});
    const auto args = [&](TestTensor<Q>& out) {
      return std::vector<EValue*>{x.ev(), &s, &zp, &lo, &hi, &dtype, out.ev(), out.ev()};
    };
    EXPECT_TRUE(Supported(QuantizePerTensorSupports, args(o)));
    ASSERT_EQ(Call(portable::QuantizePerTensorOut, args(r)), Error::kOk);
    ASSERT_EQ(Call(QuantizePerTensorOut, args(o), 4), Error::kOk);
    ExpectMatch(o.Values(), r.Values(), testing::kExact, "quantize");

    // And back.
    EValue none;
    TestTensor<float> dr({3, 5, 67}), dq({3, 5, 67});
    const auto dargs = [&](TestTensor<float>& out) {
      return std::vector<EValue*>{r.ev(), &s, &zp, &lo, &hi, &dtype, &none, out.ev(), out.ev()};
    };
    EXPECT_TRUE(Supported(DequantizePerTensorSupports, dargs(dq)));
    ASSERT_EQ(Call(portable::DequantizePerTensorOut, dargs(dr)), Error::kOk);
    ASSERT_EQ(Call(DequantizePerTensorOut, dargs(dq)), Error::kOk);
    ExpectMatch(dq.Values(), dr.Values(), testing::kExact, "dequantize");
  }
}

TEST(QuantizedTest, PerTensorMatchesPortable) {
  ForEachIsa([] {
    CheckQuantize<int8_t>(-5, -128, 127, ScalarType::kChar);
    CheckQuantize<int8_t>(3, -127, 127, ScalarType::kChar);
    CheckQuantize<uint8_t>(128, 0, 255, ScalarType::kByte);
    CheckQuantize<uint8_t>(0, 10, 200, ScalarType::kByte);
  });
}

TEST(QuantizedTest, PerChannelMatchesPortable) {
  ForEachIsa([] {
    for (int64_t axis : {0, 1, -1}) {
      const std::vector<int32_t> shape = {6, 5, 3, 3};
      const int32_t channels = shape[axis < 0 ? axis + 4 : axis];
      std::vector<int8_t> q = Random<int8_t>(testing::Numel(shape), 511);
      TestTensor<int8_t> in(shape, q);
      TestTensor<float> scales({channels}, Random<float>(channels, 512, 0.001, 0.1));
      TestTensor<int64_t> zps({channels}, Random<int64_t>(channels, 513));
      EValue ax = EValue::FromInt(axis), lo = EValue::FromInt(-128), hi = EValue::FromInt(127),
             dtype = EValue::FromInt(static_cast<int64_t>(ScalarType::kChar)), none;
      for (bool with_zp : {false, true}) {
        TestTensor<float> r(shape), o(shape);
        const auto args = [&](TestTensor<float>& out) {
          return std::vector<EValue*>{
              in.ev(),  scales.ev(), with_zp ? zps.ev() : &none, &ax, &lo, &hi, &dtype, &none,
              out.ev(), out.ev()};
        };
        EXPECT_TRUE(Supported(DequantizePerChannelSupports, args(o)));
        ASSERT_EQ(Call(portable::DequantizePerChannelOut, args(r)), Error::kOk);
        ASSERT_EQ(Call(DequantizePerChannelOut, args(o)), Error::kOk);
        ExpectMatch(o.Values(), r.Values(), testing::kExact, "dequantize per channel");
      }
    }
  });
}

TEST(QuantizedTest, InvalidArgumentsFailLikePortable) {
  TestTensor<float> x({4}, {0.1f, 0.2f, 0.3f, 0.4f});
  TestTensor<int8_t> q({4});
  EValue s = EValue::FromDouble(0.1), zp = EValue::FromInt(0), lo = EValue::FromInt(-128),
         hi = EValue::FromInt(127), bad_hi = EValue::FromInt(300),
         wrong_dtype = EValue::FromInt(static_cast<int64_t>(ScalarType::kByte)),
         dtype = EValue::FromInt(static_cast<int64_t>(ScalarType::kChar));
  for (const std::vector<EValue*>& args :
       {std::vector<EValue*>{x.ev(), &s, &zp, &lo, &bad_hi, &dtype, q.ev(), q.ev()},
        std::vector<EValue*>{x.ev(), &s, &zp, &lo, &hi, &wrong_dtype, q.ev(), q.ev()},
        std::vector<EValue*>{x.ev(), &s, &zp, &lo, &hi}}) {
    const Error expected = Call(portable::QuantizePerTensorOut, args);
    const std::string detail = LastErrorDetail();
    EXPECT_NE(expected, Error::kOk);
    EXPECT_EQ(Call(QuantizePerTensorOut, args), expected);
    EXPECT_EQ(detail, LastErrorDetail());
  }
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet
