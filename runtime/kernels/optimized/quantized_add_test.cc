// The fused quantized add against the portable chain it replaces:
// dequantize (each int8 operand) -> add -> quantize, bit for bit.

#include "runtime/kernels/optimized/quantized_add.h"

#include <limits>
#include <random>
#include <string>
#include <vector>

#include "runtime/kernels/optimized/test_util.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

using testing::Call;
using testing::ForEachIsa;
using testing::Random;
using testing::TestTensor;

std::vector<int8_t> Codes(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<int8_t> v(n);
  for (auto& x : v) x = static_cast<int8_t>(static_cast<int>(gen() % 256) - 128);
  return v;
}

// a (int8 or float) + b (int8), quantized, against the portable chain.
void Check(const std::vector<int32_t>& shape, bool a_float, double sa, int64_t za, double sb,
           int64_t zb, double so, int64_t zo, int64_t qmin, int64_t qmax, int threads,
           uint32_t seed) {
  SCOPED_TRACE("numel " + std::to_string(testing::Numel(shape)) + (a_float ? " float a" : ""));
  const int64_t n = testing::Numel(shape);
  TestTensor<int8_t> aq(shape, Codes(n, seed)), bq(shape, Codes(n, seed + 1));
  std::vector<float> af_values = Random<float>(n, seed + 2, -20, 20);
  if (n > 3) {
    af_values[1] = std::numeric_limits<float>::quiet_NaN();
    af_values[2] = std::numeric_limits<float>::infinity();
  }
  TestTensor<float> af(shape, af_values), a_deq(shape), b_deq(shape), sum(shape);
  TestTensor<int8_t> ref(shape), out(shape);
  EValue s_a = EValue::FromDouble(sa), z_a = EValue::FromInt(za), s_b = EValue::FromDouble(sb),
         z_b = EValue::FromInt(zb), s_o = EValue::FromDouble(so), z_o = EValue::FromInt(zo),
         lo = EValue::FromInt(qmin), hi = EValue::FromInt(qmax), full_lo = EValue::FromInt(-128),
         full_hi = EValue::FromInt(127), dtype = EValue::FromInt(1), none, one = EValue::FromInt(1);
  EValue* a_in = af.ev();
  if (!a_float) {
    ASSERT_EQ(Call(portable::DequantizePerTensorOut, {aq.ev(), &s_a, &z_a, &full_lo, &full_hi,
                                                      &dtype, &none, a_deq.ev(), a_deq.ev()}),
              Error::kOk);
    a_in = a_deq.ev();
  }
  ASSERT_EQ(Call(portable::DequantizePerTensorOut,
                 {bq.ev(), &s_b, &z_b, &full_lo, &full_hi, &dtype, &none, b_deq.ev(), b_deq.ev()}),
            Error::kOk);
  ASSERT_EQ(Call(portable::AddOut, {a_in, b_deq.ev(), &one, sum.ev(), sum.ev()}), Error::kOk);
  ASSERT_EQ(Call(portable::QuantizePerTensorOut,
                 {sum.ev(), &s_o, &z_o, &lo, &hi, &dtype, ref.ev(), ref.ev()}),
            Error::kOk);
  EValue* a_arg = a_float ? af.ev() : aq.ev();
  ASSERT_EQ(Call(QuantizedAddOut,
                 {a_arg, &s_a, &z_a, bq.ev(), &s_b, &z_b, &s_o, &z_o, &lo, &hi, out.ev(), out.ev()},
                 threads),
            Error::kOk)
      << LastErrorDetail();
  testing::ExpectMatch(out.Values(), ref.Values(), testing::kExact, "quantized add");
}

TEST(QuantizedAddTest, MatchesPortableChain) {
  ForEachIsa([] {
    uint32_t seed = 1;
    for (const std::vector<int32_t>& shape :
         std::vector<std::vector<int32_t>>{{1, 24, 56, 56}, {3, 5, 7}, {17}, {1}, {0, 4}}) {
      Check(shape, false, 0.125, 4, 0.0625, -10, 0.125, -5, -128, 127, 1, seed++);
      Check(shape, false, 0.0371, -3, 0.0913, 7, 0.117, 2, -128, 127, 2, seed++);
      Check(shape, true, 1, 0, 0.25, 3, 0.5, 0, -20, 90, 1, seed++);
    }
    // More than one parallel chunk.
    Check({2, 100, 700}, false, 0.125, 1, 0.25, -2, 0.25, 3, -128, 127, 2, seed++);
  });
}

TEST(QuantizedAddTest, OutMaySharePlannedMemoryWithAnOperand) {
  const std::vector<int32_t> shape = {4, 33};
  TestTensor<int8_t> a(shape, Codes(132, 7)), b(shape, Codes(132, 8)), out(shape);
  EValue s = EValue::FromDouble(0.25), z = EValue::FromInt(1), lo = EValue::FromInt(-128),
         hi = EValue::FromInt(127);
  ASSERT_EQ(
      Call(QuantizedAddOut, {a.ev(), &s, &z, b.ev(), &s, &z, &s, &z, &lo, &hi, out.ev(), out.ev()}),
      Error::kOk);
  // out is a itself, then out starts inside a float operand.
  TestTensor<int8_t> in_place(shape);
  in_place.tensor().set_data(a.tensor().mutable_data());
  ASSERT_EQ(Call(QuantizedAddOut,
                 {a.ev(), &s, &z, b.ev(), &s, &z, &s, &z, &lo, &hi, in_place.ev(), in_place.ev()}),
            Error::kOk);
  EXPECT_EQ(a.Values(), out.Values());
  TestTensor<float> f(shape, Random<float>(132, 9, -10, 10));
  TestTensor<int8_t> ref(shape), shifted(shape);
  EValue none;
  ASSERT_EQ(Call(QuantizedAddOut,
                 {f.ev(), &none, &none, b.ev(), &s, &z, &s, &z, &lo, &hi, ref.ev(), ref.ev()}),
            Error::kOk);
  shifted.tensor().set_data(static_cast<char*>(f.tensor().mutable_data()) + 40);
  ASSERT_EQ(Call(QuantizedAddOut, {f.ev(), &none, &none, b.ev(), &s, &z, &s, &z, &lo, &hi,
                                   shifted.ev(), shifted.ev()}),
            Error::kOk);
  std::vector<int8_t> got(132);
  std::memcpy(got.data(), static_cast<char*>(f.tensor().mutable_data()) + 40, 132);
  EXPECT_EQ(got, ref.Values());
}

TEST(QuantizedAddTest, RejectsInvalidArguments) {
  TestTensor<int8_t> a({2, 3}), b({2, 3}), out({2, 3}), small({3});
  TestTensor<float> fout({2, 3});
  TestTensor<int32_t> wide({2, 3});
  EValue s = EValue::FromDouble(0.5), z = EValue::FromInt(0), lo = EValue::FromInt(-128),
         hi = EValue::FromInt(127), zero = EValue::FromDouble(0.0), none,
         bad_hi = EValue::FromInt(300);
  const auto call = [&](EValue* x, EValue* sx, EValue* y, EValue* so, EValue* h, EValue* o) {
    return Call(QuantizedAddOut, {x, sx, &z, y, &s, &z, so, &z, &lo, h, o, o});
  };
  EXPECT_EQ(call(a.ev(), &s, b.ev(), &s, &hi, out.ev()), Error::kOk);
  EXPECT_EQ(Call(QuantizedAddOut, {a.ev(), &s, &z, b.ev()}), Error::kInvalidArgument);
  EXPECT_EQ(call(a.ev(), &s, b.ev(), &s, &hi, fout.ev()), Error::kInvalidArgument);
  EXPECT_EQ(call(small.ev(), &s, b.ev(), &s, &hi, out.ev()), Error::kInvalidArgument);
  EXPECT_EQ(call(wide.ev(), &s, b.ev(), &s, &hi, out.ev()), Error::kInvalidArgument);
  EXPECT_EQ(call(a.ev(), &none, b.ev(), &s, &hi, out.ev()), Error::kInvalidArgument);
  EXPECT_EQ(call(a.ev(), &zero, b.ev(), &s, &hi, out.ev()), Error::kInvalidArgument);
  EXPECT_EQ(call(a.ev(), &s, b.ev(), &zero, &hi, out.ev()), Error::kInvalidArgument);
  EXPECT_EQ(call(a.ev(), &s, b.ev(), &s, &bad_hi, out.ev()), Error::kInvalidArgument);
  EXPECT_NE(std::string(LastErrorDetail()).find("edgefleet::quantized_add"), std::string::npos);
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet
