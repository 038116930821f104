// Elementwise kernels (binary arithmetic, activations), batch norm and mean
// against the portable kernels. All are bit-identical to the portable ones
// except sigmoid and tanh (vectorized exp: within 4 ulp, checked against
// libm in double) and mean over a contiguous run (a reordered double sum:
// within 1 ulp of the float result).

#include <cmath>
#include <limits>
#include <memory>
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
using testing::RandomTensor;
using testing::Supported;
using testing::TestIntList;
using testing::TestTensor;
using testing::Tolerance;

constexpr double kUlp = 1.0 / (1 << 23);

struct BinaryCase {
  std::vector<int32_t> a, b;
  std::vector<uint8_t> order;  // for a, b and out (same rank)
};

const BinaryCase kBinaryCases[] = {
    {{7}, {7}, {}},
    {{2, 3, 37}, {2, 3, 37}, {}},                // same shape, odd tail
    {{4, 33}, {33}, {}},                         // row broadcast
    {{1, 16, 5, 5}, {1, 16, 1, 1}, {}},          // per-channel (squeeze-excite)
    {{3, 1, 20}, {3, 9, 1}, {}},                 // both sides broadcast
    {{5, 6}, {1}, {}},                           // one-element tensor
    {{1, 64}, {1, 1, 64}, {}},                   // leading 1s (the flat fast path)
    {{1, 1, 9}, {9}, {}},                        // leading 1s on the other side
    {{}, {}, {}},                                // 0-dim
    {{2, 0, 3}, {2, 0, 3}, {}},                  // empty
    {{1, 8, 6, 6}, {1, 8, 6, 6}, {0, 2, 3, 1}},  // channels-last
    {{1, 8, 6, 6}, {1, 8, 1, 1}, {0, 2, 3, 1}},  // channels-last broadcast
    {{2, 3, 4}, {4, 3, 1}, {}},                  // shapes that do not broadcast
    {{300000}, {300000}, {}},                    // threaded chunks
};

using BinaryFn = void (*)(KernelContext&, Span<EValue*>);

void CheckBinary(BinaryFn opt, BinaryFn ref, bool alpha, const char* name) {
  ForEachIsa([&] {
    for (const BinaryCase& c : kBinaryCases) {
      const bool broadcastable = !(c.a.size() == 3 && c.a[0] == 2 && c.b[0] == 4);
      std::vector<int32_t> out_shape = c.a.size() >= c.b.size() ? c.a : c.b;
      for (size_t i = 0; broadcastable && i < out_shape.size(); ++i) {
        const size_t ai = i + c.a.size() - out_shape.size();
        const size_t bi = i + c.b.size() - out_shape.size();
        if (i + c.a.size() >= out_shape.size() && c.a[ai] != 1) out_shape[i] = c.a[ai];
        if (i + c.b.size() >= out_shape.size() && c.b[bi] != 1) out_shape[i] = c.b[bi];
      }
      const std::vector<uint8_t> b_order =
          c.b.size() == c.order.size() ? c.order : std::vector<uint8_t>{};
      RandomTensor a(c.a, 201, c.order), b(c.b, 202, b_order);
      for (const EValue& alpha_value :
           {EValue::FromInt(1), EValue::FromDouble(2.5), EValue::FromInt(-3)}) {
        EValue al = alpha_value;
        TestTensor<float> r(out_shape, {}, c.order), o(out_shape, {}, c.order);
        const auto args = [&](TestTensor<float>& out) {
          return alpha ? std::vector<EValue*>{a.t.ev(), b.t.ev(), &al, out.ev(), out.ev()}
                       : std::vector<EValue*>{a.t.ev(), b.t.ev(), out.ev(), out.ev()};
        };
        const Error expected = Call(ref, args(r));
        const std::string detail = LastErrorDetail();
        ASSERT_EQ(Call(opt, args(o)), expected) << name;
        if (expected != Error::kOk) {
          EXPECT_EQ(detail, LastErrorDetail());
          continue;
        }
        EXPECT_EQ(o.Sizes(), r.Sizes());
        ExpectMatch(o.Values(), r.Values(), testing::kExact, name);
        if (!alpha) break;
      }
    }
  });
}

TEST(BinaryTest, AddSubMulDivMatchPortable) {
  ASSERT_EQ(RegisterOptimizedKernels(4), Error::kOk);
  CheckBinary(AddOut, portable::AddOut, true, "add");
  CheckBinary(SubOut, portable::SubOut, true, "sub");
  CheckBinary(MulOut, portable::MulOut, false, "mul");
  CheckBinary(DivOut, portable::DivOut, false, "div");
}

TEST(BinaryTest, ScalarVariantsMatchPortable) {
  const BinaryFn opt[] = {AddScalarOut, SubScalarOut, MulScalarOut, DivScalarOut};
  const BinaryFn ref[] = {portable::AddScalarOut, portable::SubScalarOut, portable::MulScalarOut,
                          portable::DivScalarOut};
  ForEachIsa([&] {
    for (int op = 0; op < 4; ++op) {
      for (const EValue& other : {EValue::FromDouble(0.3), EValue::FromInt(-2),
                                  EValue::FromBool(true), EValue::FromDouble(0.0)}) {
        RandomTensor a({3, 41}, 211);
        EValue s = other, alpha = EValue::FromDouble(1.5);
        TestTensor<float> r({3, 41}), o({3, 41});
        const auto args = [&](TestTensor<float>& out) {
          return op < 2 ? std::vector<EValue*>{a.t.ev(), &s, &alpha, out.ev(), out.ev()}
                        : std::vector<EValue*>{a.t.ev(), &s, out.ev(), out.ev()};
        };
        EXPECT_TRUE(Supported(BinaryScalarSupports, args(o)));
        ASSERT_EQ(Call(ref[op], args(r)), Error::kOk);
        ASSERT_EQ(Call(opt[op], args(o)), Error::kOk);
        ExpectMatch(o.Values(), r.Values(), testing::kExact, "scalar op");
      }
    }
  });
}

TEST(BinaryTest, OtherDtypesAndBadAlphaGoPortable) {
  TestTensor<int32_t> ia({4}, {1, 2, 3, 4}), ib({4}, {5, 6, 7, 8}), io({4});
  EValue one = EValue::FromInt(1);
  EXPECT_FALSE(Supported(BinarySupports, {ia.ev(), ib.ev(), &one, io.ev(), io.ev()}));
  ASSERT_EQ(Call(AddOut, {ia.ev(), ib.ev(), &one, io.ev(), io.ev()}), Error::kOk);
  EXPECT_EQ(io.Values(), (std::vector<int32_t>{6, 8, 10, 12}));
  RandomTensor a({4}, 221), b({4}, 222);
  TestTensor<float> o({4});
  EValue bool_alpha = EValue::FromBool(true);
  const Error expected = Call(portable::AddOut, {a.t.ev(), b.t.ev(), &bool_alpha, o.ev(), o.ev()});
  EXPECT_NE(expected, Error::kOk);
  EXPECT_EQ(Call(AddOut, {a.t.ev(), b.t.ev(), &bool_alpha, o.ev(), o.ev()}), expected);
  // Mixed float / double inputs: supports() refuses, portable promotes.
  TestTensor<double> d({4}, {1, 2, 3, 4});
  TestTensor<double> od({4});
  EXPECT_FALSE(Supported(BinarySupports, {a.t.ev(), d.ev(), &one, od.ev(), od.ev()}));
  EXPECT_EQ(Call(AddOut, {a.t.ev(), d.ev(), &one, od.ev(), od.ev()}), Error::kOk);
}

// ---- activations ----

std::vector<float> SpecialValues() {
  std::vector<float> v = Random<float>(997, 231, -12, 12);
  const float specials[] = {0.0f,
                            -0.0f,
                            3.0f,
                            -3.0f,
                            6.0f,
                            1e-8f,
                            -1e-8f,
                            88.0f,
                            -88.0f,
                            100.0f,
                            -100.0f,
                            0.55f,
                            -0.55f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::denorm_min()};
  v.insert(v.end(), std::begin(specials), std::end(specials));
  return v;
}

template <typename... Bounds>
void CheckUnary(BinaryFn opt, BinaryFn ref, Tolerance tol, const char* name, Bounds... bounds) {
  ForEachIsa([&] {
    for (const std::vector<uint8_t>& order :
         {std::vector<uint8_t>{}, std::vector<uint8_t>{0, 2, 3, 1}}) {
      const std::vector<float> values = SpecialValues();
      TestTensor<float> x({1, 2, 34, 15}, std::vector<float>(values.begin(), values.begin() + 1020),
                          order);
      TestTensor<float> r({1, 2, 34, 15}, {}, order), o({1, 2, 34, 15}, {}, order);
      EValue bound_values[] = {bounds...};
      const auto args = [&](TestTensor<float>& out) {
        std::vector<EValue*> a = {x.ev()};
        for (EValue& b : bound_values) a.push_back(&b);
        a.push_back(out.ev());
        a.push_back(out.ev());
        return a;
      };
      EXPECT_TRUE(Supported(UnarySupports, args(o)));
      ASSERT_EQ(Call(ref, args(r)), Error::kOk);
      ASSERT_EQ(Call(opt, args(o)), Error::kOk);
      ExpectMatch(o.Values(), r.Values(), tol, name);
    }
  });
}

TEST(UnaryTest, ExactActivations) {
  CheckUnary(ReluOut, portable::ReluOut, testing::kExact, "relu");
  CheckUnary(HardswishOut, portable::HardswishOut, testing::kExact, "hardswish");
  CheckUnary(HardsigmoidOut, portable::HardsigmoidOut, testing::kExact, "hardsigmoid");
  CheckUnary(HardtanhOut, portable::HardtanhOut, testing::kExact, "hardtanh",
             EValue::FromDouble(0.0), EValue::FromDouble(6.0));
  CheckUnary(HardtanhOut, portable::HardtanhOut, testing::kExact, "hardtanh int",
             EValue::FromInt(-1), EValue::FromInt(1));
  CheckUnary(ClampOut, portable::ClampOut, testing::kExact, "clamp", EValue::FromDouble(-0.5),
             EValue::FromDouble(0.25));
  CheckUnary(ClampOut, portable::ClampOut, testing::kExact, "clamp min", EValue::FromDouble(-0.5),
             EValue());
  CheckUnary(ClampOut, portable::ClampOut, testing::kExact, "clamp max", EValue(),
             EValue::FromInt(2));
  CheckUnary(ClampOut, portable::ClampOut, testing::kExact, "clamp lo > hi",
             EValue::FromDouble(1.0), EValue::FromDouble(-1.0));
}

TEST(UnaryTest, SigmoidAndTanhWithinFourUlp) {
  const Tolerance tol{1e-37, 4 * kUlp};
  CheckUnary(SigmoidOut, portable::SigmoidOut, tol, "sigmoid");
  CheckUnary(TanhOut, portable::TanhOut, tol, "tanh");
}

TEST(UnaryTest, GeluWithinErfAccuracy) {
  // erf within 7 ulp (4e-7 absolute): gelu within 0.5 * |x| * 4e-7 + 8 ulp.
  const char none[] = "none", tanh[] = "tanh";
  CheckUnary(GeluOut, portable::GeluOut, {1e-6, 8 * kUlp}, "gelu", EValue::FromString(none, 4));
  CheckUnary(GeluOut, portable::GeluOut, {1e-6, 8 * kUlp}, "gelu default", EValue());
  CheckUnary(GeluOut, portable::GeluOut, {1e-6, 8 * kUlp}, "gelu tanh",
             EValue::FromString(tanh, 4));
  // An unknown mode: the portable kernel's error.
  RandomTensor x({5}, 232);
  TestTensor<float> o({5});
  EValue bad = EValue::FromString("erf", 3);
  const Error expected = Call(portable::GeluOut, {x.t.ev(), &bad, o.ev(), o.ev()});
  EXPECT_NE(expected, Error::kOk);
  EXPECT_EQ(Call(GeluOut, {x.t.ev(), &bad, o.ev(), o.ev()}), expected);
}

TEST(UnaryTest, UnsupportedCallsRunPortable) {
  TestTensor<int32_t> xi({3}, {-1, 0, 5}), oi({3});
  EXPECT_FALSE(Supported(UnarySupports, {xi.ev(), oi.ev(), oi.ev()}));
  ASSERT_EQ(Call(ReluOut, {xi.ev(), oi.ev(), oi.ev()}), Error::kOk);
  EXPECT_EQ(oi.Values(), (std::vector<int32_t>{0, 0, 5}));
  RandomTensor x({2, 3}, 241);
  TestTensor<float> o({2, 3});
  EValue none;
  const Error expected = Call(portable::ClampOut, {x.t.ev(), &none, &none, o.ev(), o.ev()});
  EXPECT_NE(expected, Error::kOk);
  EXPECT_EQ(Call(ClampOut, {x.t.ev(), &none, &none, o.ev(), o.ev()}), expected);
  // Output in another dim order than the input.
  RandomTensor cl({1, 2, 3, 3}, 242, {0, 2, 3, 1});
  TestTensor<float> r({1, 2, 3, 3}), oo({1, 2, 3, 3});
  EXPECT_FALSE(Supported(UnarySupports, {cl.t.ev(), oo.ev(), oo.ev()}));
  ASSERT_EQ(Call(portable::TanhOut, {cl.t.ev(), r.ev(), r.ev()}), Error::kOk);
  ASSERT_EQ(Call(TanhOut, {cl.t.ev(), oo.ev(), oo.ev()}), Error::kOk);
  ExpectMatch(oo.Values(), r.Values(), testing::kExact, "portable tanh");
}

// ---- batch norm ----

TEST(BatchNormTest, MatchesPortable) {
  struct Case {
    std::vector<int32_t> shape;
    std::vector<uint8_t> order;
    bool affine;
  };
  const Case cases[] = {{{2, 5}, {}, true},
                        {{1, 3, 17}, {}, false},
                        {{2, 16, 7, 9}, {}, true},
                        {{1, 24, 5, 5}, {0, 2, 3, 1}, true},
                        {{1, 8, 0, 3}, {}, true},
                        {{1, 70, 40, 40}, {}, true},
                        {{2, 7, 30, 30}, {0, 2, 3, 1}, true}};  // channels-last pixel blocks
  ASSERT_EQ(RegisterOptimizedKernels(4), Error::kOk);
  ForEachIsa([&] {
    for (const Case& c : cases) {
      const int32_t channels = c.shape[1];
      RandomTensor x(c.shape, 251, c.order), weight({channels}, 252), bias({channels}, 253),
          mean({channels}, 254);
      TestTensor<float> var({channels}, Random<float>(channels, 255, 0.1, 2.0));
      EValue none, momentum = EValue::FromDouble(0.1), eps = EValue::FromDouble(1e-5);
      TestTensor<float> r(c.shape, {}, c.order), o(c.shape, {}, c.order);
      TestTensor<float> rm({0}), rv({0}), om({0}), ov({0});
      const auto args = [&](TestTensor<float>& out, TestTensor<float>& sm, TestTensor<float>& sv) {
        return std::vector<EValue*>{x.t.ev(),
                                    c.affine ? weight.t.ev() : &none,
                                    c.affine ? bias.t.ev() : &none,
                                    mean.t.ev(),
                                    var.ev(),
                                    &momentum,
                                    &eps,
                                    out.ev(),
                                    sm.ev(),
                                    sv.ev(),
                                    out.ev()};
      };
      EXPECT_TRUE(Supported(BatchNormSupports, args(o, om, ov)));
      ASSERT_EQ(Call(portable::NativeBatchNormNoTrainingOut, args(r, rm, rv)), Error::kOk);
      ASSERT_EQ(Call(BatchNormOut, args(o, om, ov), 4), Error::kOk);
      ExpectMatch(o.Values(), r.Values(), testing::kExact, "batch norm");
    }
  });
}

TEST(BatchNormTest, InvalidArgumentsFailLikePortable) {
  RandomTensor x({1, 4, 3, 3}, 261), short_param({3}, 262), param({4}, 263);
  EValue momentum = EValue::FromDouble(0.1), eps = EValue::FromDouble(1e-5);
  TestTensor<float> out({1, 4, 3, 3}), sm({0}), sv({0});
  const std::vector<EValue*> args = {
      x.t.ev(), short_param.t.ev(), param.t.ev(), param.t.ev(), param.t.ev(), &momentum,
      &eps,     out.ev(),           sm.ev(),      sv.ev(),      out.ev()};
  const Error expected = Call(portable::NativeBatchNormNoTrainingOut, args);
  const std::string detail = LastErrorDetail();
  EXPECT_NE(expected, Error::kOk);
  EXPECT_EQ(Call(BatchNormOut, args), expected);
  EXPECT_EQ(detail, LastErrorDetail());
}

// ---- mean ----

TEST(MeanTest, MatchesPortable) {
  struct Case {
    std::vector<int32_t> shape;
    std::vector<uint8_t> order;
    TestIntList* dims;
    bool keepdim;
    std::vector<int32_t> out;
  };
  TestIntList spatial{-1, -2}, hw{2, 3}, seq{1}, all{}, last{-1}, first{0};
  const Case cases[] = {{{1, 1280, 7, 7}, {}, &spatial, true, {1, 1280, 1, 1}},
                        {{2, 40, 5, 6}, {}, &hw, false, {2, 40}},
                        {{1, 24, 9, 9}, {0, 2, 3, 1}, &hw, true, {1, 24, 1, 1}},
                        {{1, 64, 128}, {}, &seq, false, {1, 128}},
                        {{3, 17, 33}, {}, &last, true, {3, 17, 1}},
                        {{6, 5}, {}, &all, false, {}},
                        {{6, 5}, {}, &first, true, {1, 5}},
                        {{1, 8, 1, 1}, {}, &spatial, true, {1, 8, 1, 1}},
                        {{2, 0, 4}, {}, &last, false, {2, 0}}};
  ForEachIsa([&] {
    for (const Case& c : cases) {
      RandomTensor x(c.shape, 271, c.order);
      EValue keepdim = EValue::FromBool(c.keepdim), none;
      TestTensor<float> ref(c.out), opt(c.out);
      const auto args = [&](TestTensor<float>& out) {
        return std::vector<EValue*>{x.t.ev(), c.dims->ev(), &keepdim, &none, out.ev(), out.ev()};
      };
      ASSERT_EQ(Call(portable::MeanOut, args(ref)), Error::kOk) << LastErrorDetail();
      EXPECT_TRUE(Supported(MeanSupports, args(opt)));
      ASSERT_EQ(Call(MeanOut, args(opt)), Error::kOk) << LastErrorDetail();
      ExpectMatch(opt.Values(), ref.Values(), {0, kUlp}, "mean");
    }
  });
}

// Spatial means whose runs are summed through transposed tiles (16 outputs,
// 64 elements at a time) and their remainders: the portable kernel's bits.
TEST(MeanTest, SpatialMeansAreThePortableBits) {
  TestIntList spatial{-1, -2};
  const std::vector<std::vector<int32_t>> shapes = {
      {1, 37, 13, 11}, {2, 16, 8, 8},   {1, 33, 64, 3}, {1, 1152, 7, 7},
      {1, 96, 56, 56}, {1, 17, 16, 16}, {1, 20, 15, 20}};
  ForEachIsa([&] {
    for (const std::vector<int32_t>& shape : shapes) {
      SCOPED_TRACE(::testing::Message() << shape[1] << "x" << shape[2] << "x" << shape[3]);
      RandomTensor x(shape, 272);
      EValue keepdim = EValue::FromBool(true), none;
      const std::vector<int32_t> out_shape = {shape[0], shape[1], 1, 1};
      TestTensor<float> ref(out_shape), opt(out_shape);
      const auto args = [&](TestTensor<float>& out) {
        return std::vector<EValue*>{x.t.ev(), spatial.ev(), &keepdim, &none, out.ev(), out.ev()};
      };
      ASSERT_EQ(Call(portable::MeanOut, args(ref)), Error::kOk) << LastErrorDetail();
      ASSERT_EQ(Call(MeanOut, args(opt)), Error::kOk) << LastErrorDetail();
      ExpectMatch(opt.Values(), ref.Values(), testing::kExact, "mean");
    }
  });
}

// ---- softmax and layer norm ----

TEST(SoftmaxTest, MatchesPortableWithinFewUlp) {
  ASSERT_EQ(RegisterOptimizedKernels(4), Error::kOk);
  const std::vector<std::vector<int32_t>> shapes = {
      {1, 4, 64, 64}, {3, 37}, {2, 1}, {5}, {200, 513}};
  ForEachIsa([&] {
    for (const auto& shape : shapes) {
      std::vector<float> v = Random<float>(testing::Numel(shape), 291, -20, 20);
      if (v.size() > 100) {  // a row with NaN and one with infinity
        v[3] = std::numeric_limits<float>::quiet_NaN();
        v[v.size() - 2] = std::numeric_limits<float>::infinity();
      }
      TestTensor<float> x(shape, v), r(shape), o(shape);
      EValue dim = EValue::FromInt(-1), no = EValue::FromBool(false);
      const auto args = [&](TestTensor<float>& out) {
        return std::vector<EValue*>{x.ev(), &dim, &no, out.ev(), out.ev()};
      };
      EXPECT_TRUE(Supported(SoftmaxSupports, args(o)));
      ASSERT_EQ(Call(portable::SoftmaxOut, args(r)), Error::kOk);
      ASSERT_EQ(Call(SoftmaxOut, args(o), 4), Error::kOk);
      // Both sum n floats, in different orders: within n ulp, plus exp.
      const double n = shape.back();
      ExpectMatch(o.Values(), r.Values(), {1e-30, (n + 8) * kUlp}, "softmax");
    }
    // Not the innermost dim: the portable kernel.
    RandomTensor x({3, 5, 7}, 292);
    TestTensor<float> r({3, 5, 7}), o({3, 5, 7});
    EValue dim = EValue::FromInt(1), no = EValue::FromBool(false);
    ASSERT_EQ(Call(portable::SoftmaxOut, {x.t.ev(), &dim, &no, r.ev(), r.ev()}), Error::kOk);
    ASSERT_EQ(Call(SoftmaxOut, {x.t.ev(), &dim, &no, o.ev(), o.ev()}), Error::kOk);
    ExpectMatch(o.Values(), r.Values(), testing::kExact, "softmax dim 1");
  });
}

TEST(LayerNormTest, MatchesPortable) {
  struct Case {
    std::vector<int32_t> shape;
    std::vector<int64_t> normalized;
    bool affine;
  };
  const Case cases[] = {{{1, 64, 128}, {128}, true},
                        {{2, 3, 5, 7}, {5, 7}, true},
                        {{4, 33}, {33}, false},
                        {{6}, {6}, true},
                        {{300, 256}, {256}, true}};
  ForEachIsa([&] {
    for (const Case& c : cases) {
      std::vector<int32_t> param_shape(c.normalized.begin(), c.normalized.end());
      std::vector<int32_t> stats = c.shape;
      for (size_t i = c.shape.size() - c.normalized.size(); i < c.shape.size(); ++i) stats[i] = 1;
      RandomTensor x(c.shape, 293), w(param_shape, 294), b(param_shape, 295);
      TestIntList normalized{};
      std::vector<EValue> items;
      EValue none, eps = EValue::FromDouble(1e-5);
      TestTensor<float> r(c.shape), o(c.shape), rm(stats), rs(stats), om(stats), os(stats);
      std::unique_ptr<TestIntList> shape_list;
      if (c.normalized.size() == 1) {
        shape_list = std::make_unique<TestIntList>(std::initializer_list<int64_t>{c.normalized[0]});
      } else {
        shape_list = std::make_unique<TestIntList>(
            std::initializer_list<int64_t>{c.normalized[0], c.normalized[1]});
      }
      const auto args = [&](TestTensor<float>& out, TestTensor<float>& mean,
                            TestTensor<float>& rstd) {
        return std::vector<EValue*>{x.t.ev(),
                                    shape_list->ev(),
                                    c.affine ? w.t.ev() : &none,
                                    c.affine ? b.t.ev() : &none,
                                    &eps,
                                    out.ev(),
                                    mean.ev(),
                                    rstd.ev(),
                                    out.ev()};
      };
      EXPECT_TRUE(Supported(LayerNormSupports, args(o, om, os)));
      ASSERT_EQ(Call(portable::NativeLayerNormOut, args(r, rm, rs)), Error::kOk);
      ASSERT_EQ(Call(LayerNormOut, args(o, om, os)), Error::kOk);
      ExpectMatch(o.Values(), r.Values(), {0, kUlp}, "layer norm");
      ExpectMatch(om.Values(), rm.Values(), {0, kUlp}, "layer norm mean");
      ExpectMatch(os.Values(), rs.Values(), {0, kUlp}, "layer norm rstd");
    }
  });
}

TEST(LayerNormTest, InvalidArgumentsFailLikePortable) {
  RandomTensor x({2, 8}, 296), w({7}, 297);
  TestIntList wrong{7}, right{8};
  EValue none, eps = EValue::FromDouble(1e-5);
  TestTensor<float> out({2, 8}), mean({2, 1}), rstd({2, 1});
  for (const std::vector<EValue*>& args :
       {std::vector<EValue*>{x.t.ev(), wrong.ev(), &none, &none, &eps, out.ev(), mean.ev(),
                             rstd.ev(), out.ev()},
        std::vector<EValue*>{x.t.ev(), right.ev(), w.t.ev(), &none, &eps, out.ev(), mean.ev(),
                             rstd.ev(), out.ev()}}) {
    const Error expected = Call(portable::NativeLayerNormOut, args);
    const std::string detail = LastErrorDetail();
    EXPECT_NE(expected, Error::kOk);
    EXPECT_EQ(Call(LayerNormOut, args), expected);
    EXPECT_EQ(detail, LastErrorDetail());
  }
}

TEST(MeanTest, InvalidArgumentsFailLikePortable) {
  RandomTensor x({2, 3, 4}, 281);
  TestIntList bad{5}, twice{1, 1};
  EValue keepdim = EValue::FromBool(false), none, int_dtype = EValue::FromInt(3);
  TestTensor<float> out({2, 3});
  for (EValue* dims : {bad.ev(), twice.ev()}) {
    const std::vector<EValue*> args = {x.t.ev(), dims, &keepdim, &none, out.ev(), out.ev()};
    const Error expected = Call(portable::MeanOut, args);
    EXPECT_NE(expected, Error::kOk);
    EXPECT_EQ(Call(MeanOut, args), expected);
  }
  TestIntList last{-1};
  const std::vector<EValue*> args = {x.t.ev(), last.ev(), &keepdim, &int_dtype, out.ev(), out.ev()};
  const Error expected = Call(portable::MeanOut, args);
  EXPECT_NE(expected, Error::kOk);
  EXPECT_EQ(Call(MeanOut, args), expected);
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet
