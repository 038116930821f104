// quantized_decomposed::* kernels; expected values are torch's
// (torch.ops.quantized_decomposed.*, torch/ao/quantization/fx/_decomposed.py).

#include <vector>

#include "gtest/gtest.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/test_tensors.h"

namespace edgefleet {
namespace portable {
namespace {

using testing::ExpectNear;
using testing::RunKernel;
using testing::TestTensor;
using testing::TestTensorList;
using F = std::vector<float>;
using I8 = std::vector<int8_t>;

constexpr int64_t kInt8 = static_cast<int64_t>(ScalarType::kChar);
constexpr int64_t kUint8 = static_cast<int64_t>(ScalarType::kByte);

// v = torch.tensor([-1, -.25, 0, .05, .125, .375, .2, 1, 100, -100])
const F kV = {-1, -0.25f, 0, 0.05f, 0.125f, 0.375f, 0.2f, 1, 100, -100};

struct QParams {
  EValue scale, zero_point, quant_min, quant_max, dtype;
  QParams(double s, int64_t zp, int64_t lo, int64_t hi, int64_t t)
      : scale(EValue::FromDouble(s)),
        zero_point(EValue::FromInt(zp)),
        quant_min(EValue::FromInt(lo)),
        quant_max(EValue::FromInt(hi)),
        dtype(EValue::FromInt(t)) {}
};

Error Quantize(EValue* in, QParams& q, EValue* out) {
  return RunKernel(QuantizePerTensorOut,
                   {in, &q.scale, &q.zero_point, &q.quant_min, &q.quant_max, &q.dtype, out, out});
}

Error Dequantize(EValue* in, QParams& q, EValue* out_dtype, EValue* out) {
  return RunKernel(DequantizePerTensorOut, {in, &q.scale, &q.zero_point, &q.quant_min, &q.quant_max,
                                            &q.dtype, out_dtype, out, out});
}

TEST(QuantizePerTensorTest, RoundsHalfToEvenAndClamps) {
  TestTensor<float> v({10}, kV);
  TestTensor<int8_t> q({10});
  QParams int8(0.25, 3, -128, 127, kInt8);
  ASSERT_EQ(Quantize(v.ev(), int8, q.ev()), Error::kOk);
  // quantize_per_tensor(v, 0.25, 3, -128, 127, torch.int8): 0.125 / 0.25
  // = 0.5 rounds to 0, 0.375 / 0.25 = 1.5 rounds to 2.
  EXPECT_EQ(q.Values(), (I8{-1, 2, 3, 3, 3, 5, 4, 7, 127, -128}));
  TestTensor<uint8_t> u({10});
  QParams uint8(0.1, 128, 0, 255, kUint8);
  ASSERT_EQ(Quantize(v.ev(), uint8, u.ev()), Error::kOk);
  EXPECT_EQ(u.Values(), (std::vector<uint8_t>{118, 126, 128, 128, 129, 132, 130, 138, 255, 0}));
}

TEST(QuantizePerTensorTest, TensorVariantAndDimOrder) {
  // scale / zero point as one-element tensors; channels-last in and out.
  F values;
  for (int i = 0; i < 8; ++i) values.push_back(0.3f * i - 1);
  TestTensor<float> x({1, 2, 2, 2}, values, {0, 2, 3, 1});
  TestTensor<int8_t> q({1, 2, 2, 2}, {}, {0, 2, 3, 1});
  TestTensor<double> scale({1}, {0.1});
  TestTensor<int64_t> zp({1}, {-2});
  EValue lo = EValue::FromInt(-128), hi = EValue::FromInt(127);
  EValue dtype = EValue::FromInt(kInt8);
  ASSERT_EQ(RunKernel(QuantizePerTensorTensorOut,
                      {x.ev(), scale.ev(), zp.ev(), &lo, &hi, &dtype, q.ev(), q.ev()}),
            Error::kOk);
  // round((0.3 i - 1) / 0.1) - 2
  EXPECT_EQ(q.Values(), (I8{-12, -9, -6, -3, 0, 3, 6, 9}));
  TestTensor<float> back({1, 2, 2, 2});
  EValue none;
  ASSERT_EQ(RunKernel(DequantizePerTensorTensorOut,
                      {q.ev(), scale.ev(), zp.ev(), &lo, &hi, &dtype, &none, back.ev(), back.ev()}),
            Error::kOk);
  ExpectNear(back.Values(), F{-1, -0.7f, -0.4f, -0.1f, 0.2f, 0.5f, 0.8f, 1.1f}, 1e-6);
  TestTensor<int64_t> two_zps({2}, {0, 1});
  EXPECT_EQ(RunKernel(QuantizePerTensorTensorOut,
                      {x.ev(), scale.ev(), two_zps.ev(), &lo, &hi, &dtype, q.ev(), q.ev()}),
            Error::kInvalidArgument);
}

TEST(DequantizePerTensorTest, ValuesOutDtypeAndEmpty) {
  TestTensor<int8_t> q({5}, {-128, -1, 0, 3, 127});
  TestTensor<float> out({5});
  QParams int8(0.1, 3, -128, 127, kInt8);
  EValue none;
  ASSERT_EQ(Dequantize(q.ev(), int8, &none, out.ev()), Error::kOk);
  // dequantize_per_tensor(q, 0.1, 3, -128, 127, torch.int8)
  EXPECT_EQ(out.Values(), (F{-13.1000004f, -0.400000006f, -0.300000012f, 0, 12.4000006f}));
  EValue want_double = EValue::FromInt(static_cast<int64_t>(ScalarType::kDouble));
  TestTensor<double> dout({5});
  ASSERT_EQ(Dequantize(q.ev(), int8, &want_double, dout.ev()), Error::kOk);
  EXPECT_NEAR(dout.Values()[4], 12.4, 1e-12);
  // out_dtype must match out.
  EXPECT_EQ(Dequantize(q.ev(), int8, &want_double, out.ev()), Error::kInvalidArgument);
  TestTensor<int8_t> empty({0, 3});
  TestTensor<float> eo({0, 3});
  EXPECT_EQ(Dequantize(empty.ev(), int8, &none, eo.ev()), Error::kOk);
}

TEST(QuantizePerTensorTest, InvalidArguments) {
  TestTensor<float> v({10}, kV);
  TestTensor<int8_t> q({10});
  TestTensor<float> f({10});
  EValue none;
  QParams says_uint8(0.25, 3, 0, 255, kUint8);
  EXPECT_EQ(Quantize(v.ev(), says_uint8, q.ev()), Error::kInvalidArgument);
  QParams wide(0.25, 3, -129, 127, kInt8);
  EXPECT_EQ(Quantize(v.ev(), wide, q.ev()), Error::kInvalidArgument);
  QParams inverted(0.25, 3, 10, -10, kInt8);
  EXPECT_EQ(Quantize(v.ev(), inverted, q.ev()), Error::kInvalidArgument);
  QParams int8(0.25, 3, -128, 127, kInt8);
  // Quantizing an int tensor, dequantizing a float one, a float "qtype".
  TestTensor<int32_t> i({10});
  EXPECT_EQ(Quantize(i.ev(), int8, q.ev()), Error::kInvalidArgument);
  EXPECT_EQ(Dequantize(f.ev(), int8, &none, f.ev()), Error::kInvalidArgument);
  QParams float_type(0.25, 3, -128, 127, static_cast<int64_t>(ScalarType::kFloat));
  EXPECT_EQ(Quantize(v.ev(), float_type, f.ev()), Error::kInvalidArgument);
  // Wrong shape out, wrong argument count.
  TestTensor<int8_t> short_q({4});
  EXPECT_EQ(Quantize(v.ev(), int8, short_q.ev()), Error::kInvalidArgument);
  EXPECT_EQ(RunKernel(QuantizePerTensorOut, {v.ev(), q.ev()}), Error::kInvalidArgument);
  // A zero scale saturates instead of invoking undefined behaviour.
  QParams zero_scale(0.0, 0, -128, 127, kInt8);
  EXPECT_EQ(Quantize(v.ev(), zero_scale, q.ev()), Error::kOk);
}

// w = torch.tensor([[.5, -.3, .2], [1.5, -2., .05]])
const F kW = {0.5f, -0.3f, 0.2f, 1.5f, -2, 0.05f};

TEST(PerChannelTest, QuantizeAxis0And1) {
  TestTensor<float> w({2, 3}, kW);
  TestTensor<int8_t> q({2, 3});
  TestTensor<float> s0({2}, {0.01f, 0.02f});
  TestTensor<int64_t> zp0({2}, {0, 1});
  EValue axis0 = EValue::FromInt(0), axis1 = EValue::FromInt(-1);
  EValue lo = EValue::FromInt(-127), hi = EValue::FromInt(127);
  EValue dtype = EValue::FromInt(kInt8);
  ASSERT_EQ(RunKernel(QuantizePerChannelOut,
                      {w.ev(), s0.ev(), zp0.ev(), &axis0, &lo, &hi, &dtype, q.ev(), q.ev()}),
            Error::kOk);
  EXPECT_EQ(q.Values(), (I8{50, -30, 20, 76, -99, 3}));
  TestTensor<float> s1({3}, {0.01f, 0.02f, 0.003f});
  TestTensor<int32_t> zp1({3}, {0, 1, -2});
  TestTensor<int8_t> qt({2, 3}, {}, {1, 0});
  ASSERT_EQ(RunKernel(QuantizePerChannelOut,
                      {w.ev(), s1.ev(), zp1.ev(), &axis1, &lo, &hi, &dtype, qt.ev(), qt.ev()}),
            Error::kOk);
  EXPECT_EQ(qt.Values(), (I8{50, -14, 65, 127, -99, 15}));
  // Scales of the wrong length.
  EXPECT_EQ(RunKernel(QuantizePerChannelOut,
                      {w.ev(), s1.ev(), zp1.ev(), &axis0, &lo, &hi, &dtype, q.ev(), q.ev()}),
            Error::kInvalidArgument);
}

TEST(PerChannelTest, DequantizeWithAndWithoutZeroPoints) {
  TestTensor<int8_t> wq({2, 3}, {50, -30, 20, 75, -100, 3});
  TestTensor<float> s0({2}, {0.01f, 0.02f});
  TestTensor<int64_t> zp0({2}, {0, 1});
  TestTensor<float> out({2, 3}, {}, {1, 0});
  EValue axis0 = EValue::FromInt(0), axis1 = EValue::FromInt(1);
  EValue lo = EValue::FromInt(-127), hi = EValue::FromInt(127);
  EValue dtype = EValue::FromInt(kInt8);
  EValue none;
  ASSERT_EQ(RunKernel(DequantizePerChannelOut, {wq.ev(), s0.ev(), zp0.ev(), &axis0, &lo, &hi,
                                                &dtype, &none, out.ev(), out.ev()}),
            Error::kOk);
  EXPECT_EQ(out.Values(),
            (F{0.5f, -0.299999982f, 0.199999988f, 1.48000002f, -2.01999998f, 0.0399999991f}));
  TestTensor<float> s1({3}, {0.01f, 0.02f, 0.003f});
  ASSERT_EQ(RunKernel(DequantizePerChannelOut, {wq.ev(), s1.ev(), &none, &axis1, &lo, &hi, &dtype,
                                                &none, out.ev(), out.ev()}),
            Error::kOk);
  EXPECT_EQ(out.Values(), (F{0.5f, -0.599999964f, 0.0600000024f, 0.75f, -2, 0.00899999961f}));
  // Axis out of range, 0-dim input, dtype mismatch.
  EValue axis2 = EValue::FromInt(2);
  EXPECT_EQ(RunKernel(DequantizePerChannelOut, {wq.ev(), s0.ev(), &none, &axis2, &lo, &hi, &dtype,
                                                &none, out.ev(), out.ev()}),
            Error::kInvalidArgument);
  TestTensor<int8_t> scalar({}, {1});
  EXPECT_EQ(RunKernel(DequantizePerChannelOut, {scalar.ev(), s0.ev(), &none, &axis0, &lo, &hi,
                                                &dtype, &none, out.ev(), out.ev()}),
            Error::kInvalidArgument);
  EValue u8 = EValue::FromInt(kUint8);
  EXPECT_EQ(RunKernel(DequantizePerChannelOut,
                      {wq.ev(), s0.ev(), &none, &axis0, &lo, &hi, &u8, &none, out.ev(), out.ev()}),
            Error::kInvalidArgument);
}

TEST(ChooseQparamsTest, AffineRange) {
  TestTensor<float> x({4}, {-1.5f, 0.25f, 2, 3.1f});
  TestTensor<double> scale({1});
  TestTensor<int64_t> zp({1});
  TestTensorList ret({scale.ev(), zp.ev()});
  EValue lo = EValue::FromInt(-128), hi = EValue::FromInt(127);
  EValue eps = EValue::FromDouble(1e-5);
  EValue dtype = EValue::FromInt(kInt8);
  ASSERT_EQ(RunKernel(ChooseQparamsTensorOut,
                      {x.ev(), &lo, &hi, &eps, &dtype, scale.ev(), zp.ev(), ret.ev()}),
            Error::kOk);
  // choose_qparams.tensor(x, -128, 127, 1e-5, torch.int8)
  EXPECT_EQ(scale.Values()[0], 0.018039215356111526);
  EXPECT_EQ(zp.Values()[0], -45);
  TestTensor<float> pos({2}, {0.5f, 2});
  EValue u_lo = EValue::FromInt(0), u_hi = EValue::FromInt(255);
  EValue u8 = EValue::FromInt(kUint8);
  ASSERT_EQ(RunKernel(ChooseQparamsTensorOut,
                      {pos.ev(), &u_lo, &u_hi, &eps, &u8, scale.ev(), zp.ev(), ret.ev()}),
            Error::kOk);
  EXPECT_EQ(scale.Values()[0], 0.007843137718737125);
  EXPECT_EQ(zp.Values()[0], 0);
  TestTensor<float> empty({0});
  EXPECT_EQ(RunKernel(ChooseQparamsTensorOut,
                      {empty.ev(), &lo, &hi, &eps, &dtype, scale.ev(), zp.ev(), ret.ev()}),
            Error::kInvalidArgument);
  EValue bad_dtype = EValue::FromInt(1000);
  EXPECT_EQ(RunKernel(ChooseQparamsTensorOut,
                      {x.ev(), &lo, &hi, &eps, &bad_dtype, scale.ev(), zp.ev(), ret.ev()}),
            Error::kInvalidArgument);
}

}  // namespace
}  // namespace portable
}  // namespace edgefleet
