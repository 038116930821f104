// Max pooling, bilinear upsampling, permute/t copies, the dim-order copies
// and concatenation against the portable kernels: all bit-identical (values and
// indices).

#include <limits>
#include <memory>
#include <string>
#include <utility>
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
using testing::TestTensorList;

// ---- max_pool2d_with_indices ----

struct PoolCase {
  std::vector<int32_t> shape;
  int64_t k, s, p, d;
  bool ceil_mode;
};

int32_t PoolOut(int32_t in, const PoolCase& c) {
  const int64_t num = in + 2 * c.p - c.d * (c.k - 1) - 1 + (c.ceil_mode ? c.s - 1 : 0);
  int64_t out = num / c.s + 1;
  if (c.ceil_mode && (out - 1) * c.s >= in + c.p) --out;
  return static_cast<int32_t>(out);
}

void CheckMaxPool(const PoolCase& c, std::vector<float> values, int threads = 1) {
  SCOPED_TRACE(::testing::Message() << "k" << c.k << " s" << c.s << " p" << c.p << " d" << c.d
                                    << " ceil" << c.ceil_mode);
  const int rank = static_cast<int>(c.shape.size());
  std::vector<int32_t> out_shape = c.shape;
  out_shape[rank - 2] = PoolOut(c.shape[rank - 2], c);
  out_shape[rank - 1] = PoolOut(c.shape[rank - 1], c);
  TestTensor<float> x(c.shape, values);
  TestIntList k{c.k, c.k}, s{c.s, c.s}, p{c.p, c.p}, d{c.d, c.d};
  EValue ceil_mode = EValue::FromBool(c.ceil_mode);
  TestTensor<float> r(out_shape), o(out_shape);
  TestTensor<int64_t> ri(out_shape), oi(out_shape);
  const auto args = [&](TestTensor<float>& out, TestTensor<int64_t>& idx) {
    return std::vector<EValue*>{x.ev(),     k.ev(),   s.ev(),   p.ev(),  d.ev(),
                                &ceil_mode, out.ev(), idx.ev(), out.ev()};
  };
  EXPECT_TRUE(Supported(MaxPool2dSupports, args(o, oi)));
  ASSERT_EQ(Call(portable::MaxPool2dWithIndicesOut, args(r, ri)), Error::kOk) << LastErrorDetail();
  ASSERT_EQ(Call(MaxPool2dWithIndicesOut, args(o, oi), threads), Error::kOk);
  ExpectMatch(o.Values(), r.Values(), testing::kExact, "max values");
  ExpectMatch(oi.Values(), ri.Values(), testing::kExact, "max indices");
}

TEST(MaxPoolTest, MatchesPortable) {
  const PoolCase cases[] = {
      {{1, 4, 16, 16}, 3, 2, 1, 1, false},   {{2, 3, 15, 17}, 2, 2, 0, 1, false},
      {{1, 2, 13, 13}, 3, 2, 1, 1, true},    {{1, 2, 11, 9}, 3, 1, 1, 2, false},
      {{3, 10, 10}, 2, 3, 1, 1, true},       {{1, 1, 40, 40}, 5, 3, 2, 1, false},
      {{1, 64, 112, 112}, 3, 2, 1, 1, false}};
  ASSERT_EQ(RegisterOptimizedKernels(4), Error::kOk);
  ForEachIsa([&] {
    for (const PoolCase& c : cases) {
      const int64_t n = testing::Numel(c.shape);
      CheckMaxPool(c, Random<float>(n, 301));
      // Ties (few distinct values) keep the first maximum.
      std::vector<float> ties = Random<float>(n, 302);
      for (float& v : ties) v = std::floor(v * 2);
      CheckMaxPool(c, ties, 4);
    }
  });
}

TEST(MaxPoolTest, NanAndInfinityPlanes) {
  const PoolCase c = {{1, 3, 9, 9}, 3, 2, 1, 1, true};
  std::vector<float> v = Random<float>(243, 311);
  v[5] = std::numeric_limits<float>::quiet_NaN();
  v[20] = std::numeric_limits<float>::quiet_NaN();
  v[90] = std::numeric_limits<float>::infinity();
  for (int i = 162; i < 243; ++i) v[i] = -std::numeric_limits<float>::infinity();
  ForEachIsa([&] { CheckMaxPool(c, v); });
}

TEST(MaxPoolTest, UnsupportedAndInvalidCalls) {
  RandomTensor x({1, 2, 5, 5}, 321), cl({1, 2, 5, 5}, 322, {0, 2, 3, 1});
  TestIntList k{2, 2}, s{2, 2}, p{0, 0}, d{1, 1}, bad_p{3, 3};
  EValue no = EValue::FromBool(false);
  TestTensor<float> o({1, 2, 2, 2});
  TestTensor<int64_t> oi({1, 2, 2, 2});
  TestTensor<int32_t> wrong_idx({1, 2, 2, 2});
  EXPECT_FALSE(Supported(MaxPool2dSupports, {cl.t.ev(), k.ev(), s.ev(), p.ev(), d.ev(), &no, o.ev(),
                                             oi.ev(), o.ev()}));
  for (const std::vector<EValue*>& args :
       {std::vector<EValue*>{x.t.ev(), k.ev(), s.ev(), bad_p.ev(), d.ev(), &no, o.ev(), oi.ev(),
                             o.ev()},
        std::vector<EValue*>{x.t.ev(), k.ev(), s.ev(), p.ev(), d.ev(), &no, o.ev(), wrong_idx.ev(),
                             o.ev()},
        std::vector<EValue*>{x.t.ev(), k.ev()}}) {
    const Error expected = Call(portable::MaxPool2dWithIndicesOut, args);
    const std::string detail = LastErrorDetail();
    EXPECT_NE(expected, Error::kOk);
    EXPECT_EQ(Call(MaxPool2dWithIndicesOut, args), expected);
    EXPECT_EQ(detail, LastErrorDetail());
  }
}

// ---- upsample_bilinear2d ----

TEST(UpsampleTest, MatchesPortable) {
  struct Case {
    std::vector<int32_t> in, out;
    bool align_corners;
    double scale;  // 0: by output_size
  };
  const Case cases[] = {
      {{1, 21, 16, 16}, {1, 21, 256, 256}, false, 0}, {{2, 3, 5, 7}, {2, 3, 11, 3}, true, 0},
      {{1, 4, 9, 9}, {1, 4, 9, 9}, false, 0},         {{1, 2, 1, 1}, {1, 2, 6, 6}, false, 0},
      {{1, 2, 7, 5}, {1, 2, 17, 12}, false, 2.5},     {{1, 3, 8, 8}, {1, 3, 4, 4}, true, 0.5}};
  ForEachIsa([&] {
    for (const Case& c : cases) {
      RandomTensor x(c.in, 331);
      TestIntList size{c.out[2], c.out[3]};
      const double scales[2] = {c.scale, c.scale};
      EValue none, align = EValue::FromBool(c.align_corners),
                   factors = EValue::FromDoubleList(scales, 2);
      TestTensor<float> r(c.out), o(c.out);
      const auto args = [&](TestTensor<float>& out) {
        return c.scale > 0
                   ? std::vector<EValue*>{x.t.ev(), &none, &align, &factors, out.ev(), out.ev()}
                   : std::vector<EValue*>{x.t.ev(), size.ev(), &align, &none, out.ev(), out.ev()};
      };
      EXPECT_TRUE(Supported(UpsampleBilinear2dSupports, args(o)));
      ASSERT_EQ(Call(portable::UpsampleBilinear2dVecOut, args(r)), Error::kOk) << LastErrorDetail();
      ASSERT_EQ(Call(UpsampleBilinear2dVecOut, args(o), 4), Error::kOk);
      ExpectMatch(o.Values(), r.Values(), testing::kExact, "upsample");
    }
  });
}

TEST(UpsampleTest, InvalidArgumentsFailLikePortable) {
  RandomTensor x({1, 2, 4, 4}, 341);
  TestIntList size{8, 8}, bad{0, 8};
  EValue none, no = EValue::FromBool(false);
  const double scales[2] = {2, 2};
  EValue factors = EValue::FromDoubleList(scales, 2);
  TestTensor<float> o({1, 2, 8, 8});
  for (const std::vector<EValue*>& args :
       {std::vector<EValue*>{x.t.ev(), size.ev(), &no, &factors, o.ev(), o.ev()},
        std::vector<EValue*>{x.t.ev(), bad.ev(), &no, &none, o.ev(), o.ev()},
        std::vector<EValue*>{x.t.ev(), &none, &no, &none, o.ev(), o.ev()}}) {
    const Error expected = Call(portable::UpsampleBilinear2dVecOut, args);
    EXPECT_NE(expected, Error::kOk);
    EXPECT_EQ(Call(UpsampleBilinear2dVecOut, args), expected);
  }
}

// ---- permute_copy / t_copy ----

template <typename T>
void CheckPermute(const std::vector<int32_t>& shape, std::initializer_list<int64_t> dims,
                  const std::vector<uint8_t>& in_order = {}) {
  SCOPED_TRACE(::testing::Message() << "rank " << shape.size());
  TestTensor<T> x(shape, Random<T>(testing::Numel(shape), 351), in_order);
  TestIntList perm(dims);
  std::vector<int32_t> out_shape;
  for (int64_t d : dims) out_shape.push_back(shape[d < 0 ? d + shape.size() : d]);
  TestTensor<T> r(out_shape), o(out_shape);
  EXPECT_TRUE(Supported(PermuteSupports, {x.ev(), perm.ev(), o.ev(), o.ev()}));
  ASSERT_EQ(Call(portable::PermuteCopyOut, {x.ev(), perm.ev(), r.ev(), r.ev()}), Error::kOk);
  ASSERT_EQ(Call(PermuteCopyOut, {x.ev(), perm.ev(), o.ev(), o.ev()}), Error::kOk);
  ExpectMatch(o.Values(), r.Values(), testing::kExact, "permute");
}

TEST(PermuteTest, MatchesPortable) {
  ForEachIsa([] {
    CheckPermute<float>({1000, 1280}, {1, 0});
    CheckPermute<float>({37, 45}, {1, 0});
    CheckPermute<float>({2, 3, 4, 5}, {0, 2, 1, 3});
    CheckPermute<float>({2, 3, 4, 5}, {3, 1, 0, 2});
    CheckPermute<float>({1, 64, 4, 32}, {0, 2, 1, 3});
    CheckPermute<float>({2, 3, 4, 5}, {0, 2, 3, 1}, {0, 2, 3, 1});
    CheckPermute<float>({3, 1, 7, 2, 5}, {4, -1 + 4, 2, 0, 1});
    CheckPermute<int64_t>({9, 13, 3}, {2, 0, 1});
    CheckPermute<int8_t>({33, 17}, {1, 0});
    CheckPermute<int16_t>({5, 6, 7}, {1, 2, 0});
    CheckPermute<bool>({4, 5}, {1, 0});
    CheckPermute<float>({0, 5}, {1, 0});
    CheckPermute<float>({}, {});
  });
}

TEST(PermuteTest, TCopyAndInvalidCalls) {
  RandomTensor x({6, 9}, 361), v({7}, 362);
  TestTensor<float> r({9, 6}), o({9, 6}), rv({7}), ov({7});
  ASSERT_EQ(Call(portable::TCopyOut, {x.t.ev(), r.ev(), r.ev()}), Error::kOk);
  ASSERT_EQ(Call(TCopyOut, {x.t.ev(), o.ev(), o.ev()}), Error::kOk);
  ExpectMatch(o.Values(), r.Values(), testing::kExact, "t_copy");
  ASSERT_EQ(Call(TCopyOut, {v.t.ev(), ov.ev(), ov.ev()}), Error::kOk);
  ASSERT_EQ(Call(portable::TCopyOut, {v.t.ev(), rv.ev(), rv.ev()}), Error::kOk);
  ExpectMatch(ov.Values(), rv.Values(), testing::kExact, "t_copy 1-D");
  TestIntList not_a_perm{0, 0}, short_perm{1};
  TestTensor<int32_t> wrong_dtype({9, 6});
  for (const std::vector<EValue*>& args :
       {std::vector<EValue*>{x.t.ev(), not_a_perm.ev(), o.ev(), o.ev()},
        std::vector<EValue*>{x.t.ev(), short_perm.ev(), o.ev(), o.ev()},
        std::vector<EValue*>{x.t.ev(), not_a_perm.ev(), wrong_dtype.ev(), wrong_dtype.ev()}}) {
    const Error expected = Call(portable::PermuteCopyOut, args);
    const std::string detail = LastErrorDetail();
    EXPECT_NE(expected, Error::kOk);
    EXPECT_EQ(Call(PermuteCopyOut, args), expected);
    EXPECT_EQ(detail, LastErrorDetail());
  }
}

// ---- _clone_dim_order / _to_dim_order_copy ----

// Contiguous <-> channels-last and same-order copies of float and int64
// tensors, at 1, 2 and 3 threads; a dim order argument out's does not
// match, and a dtype conversion, run the portable kernel (same error, same
// values).
TEST(DimOrderCopyTest, MatchesPortable) {
  ASSERT_EQ(RegisterOptimizedKernels(4), Error::kOk);
  const std::vector<uint8_t> nchw = {0, 1, 2, 3}, nhwc = {0, 2, 3, 1};
  const std::vector<int32_t> shape = {2, 40, 33, 29};
  const int64_t numel = 2 * 40 * 33 * 29;
  for (auto [from, to] : {std::pair{nchw, nhwc}, {nhwc, nchw}, {nchw, nchw}}) {
    for (bool clone : {true, false}) {
      for (int threads : {1, 2, 3}) {
        SCOPED_TRACE(::testing::Message() << "clone " << clone << " threads " << threads);
        TestTensor<float> x(shape, Random<float>(numel, 91), from);
        TestTensor<int64_t> xi(shape, std::vector<int64_t>(numel, 7), from);
        TestIntList order{to[0], to[1], to[2], to[3]};
        EValue no = EValue::FromBool(false);
        TestTensor<float> ref(shape, {}, to), opt(shape, {}, to);
        TestTensor<int64_t> refi(shape, {}, to), opti(shape, {}, to);
        const OpFunction fn = clone ? CloneDimOrderOut : ToDimOrderCopyOut;
        const OpFunction pfn = clone ? portable::CloneDimOrderOut : portable::ToDimOrderCopyOut;
        const auto args = [&](EValue* in, EValue* out) {
          return std::vector<EValue*>{in, &no, order.ev(), out, out};
        };
        EXPECT_TRUE(Supported(DimOrderCopySupports, args(x.ev(), opt.ev())));
        ASSERT_EQ(Call(pfn, args(x.ev(), ref.ev())), Error::kOk) << LastErrorDetail();
        ASSERT_EQ(Call(fn, args(x.ev(), opt.ev()), threads), Error::kOk) << LastErrorDetail();
        ExpectMatch(opt.Values(), ref.Values(), testing::kExact, "float");
        ASSERT_EQ(Call(pfn, args(xi.ev(), refi.ev())), Error::kOk);
        ASSERT_EQ(Call(fn, args(xi.ev(), opti.ev()), threads), Error::kOk);
        ExpectMatch(opti.Values(), refi.Values(), testing::kExact, "int64");
      }
    }
  }
  // out's dim order is not the one asked for: the portable kernel's error.
  TestTensor<float> x({1, 3, 4, 5}, Random<float>(60, 92));
  TestTensor<float> out({1, 3, 4, 5});
  TestIntList cl{0, 2, 3, 1};
  EValue no = EValue::FromBool(false);
  const std::vector<EValue*> bad = {x.ev(), &no, cl.ev(), out.ev(), out.ev()};
  const Error expected = Call(portable::CloneDimOrderOut, bad);
  const std::string detail = LastErrorDetail();
  EXPECT_NE(expected, Error::kOk);
  EXPECT_EQ(Call(CloneDimOrderOut, bad), expected);
  EXPECT_EQ(LastErrorDetail(), detail);
  // A dtype conversion: not supported here, portable values.
  TestTensor<int64_t> li({1, 3, 4, 5}, std::vector<int64_t>(60, 3));
  EValue none;
  const std::vector<EValue*> convert = {li.ev(), &no, &none, out.ev(), out.ev()};
  EXPECT_FALSE(Supported(DimOrderCopySupports, convert));
  ASSERT_EQ(Call(ToDimOrderCopyOut, convert), Error::kOk);
  ExpectMatch(out.Values(), std::vector<float>(60, 3.0f), testing::kExact, "converted");
}

// ---- cat ----

struct CatCase {
  std::vector<std::vector<int32_t>> shapes;  // the inputs'
  int64_t dim;
  std::vector<uint8_t> order;  // every tensor's
};

// The inputs concatenated by the optimized and the portable kernel: the
// same bits, float32 and int64, at 1 and 3 threads.
void CheckCat(const CatCase& c) {
  std::vector<int32_t> out_shape = c.shapes[0];
  const int rank = static_cast<int>(out_shape.size());
  const int d = static_cast<int>(c.dim < 0 ? c.dim + rank : c.dim);
  out_shape[d] = 0;
  std::vector<std::unique_ptr<TestTensor<float>>> xs;
  std::vector<std::unique_ptr<TestTensor<int64_t>>> xis;
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    out_shape[d] += c.shapes[i][d];
    const int64_t n = testing::Numel(c.shapes[i]);
    xs.push_back(std::make_unique<TestTensor<float>>(
        c.shapes[i], Random<float>(n, 400 + static_cast<uint32_t>(i)), c.order));
    std::vector<int64_t> ints(n);
    for (int64_t k = 0; k < n; ++k) ints[k] = k * 7 + static_cast<int64_t>(i);
    xis.push_back(std::make_unique<TestTensor<int64_t>>(c.shapes[i], ints, c.order));
  }
  std::vector<EValue*> items, int_items;
  for (auto& x : xs) items.push_back(x->ev());
  for (auto& x : xis) int_items.push_back(x->ev());
  TestTensorList list(items), int_list(int_items);
  EValue dim = EValue::FromInt(c.dim);
  for (int threads : {1, 3}) {
    SCOPED_TRACE(::testing::Message() << "dim " << c.dim << " threads " << threads);
    TestTensor<float> ref(out_shape, {}, c.order), opt(out_shape, {}, c.order);
    TestTensor<int64_t> refi(out_shape, {}, c.order), opti(out_shape, {}, c.order);
    EXPECT_TRUE(Supported(CatSupports, {list.ev(), &dim, opt.ev(), opt.ev()}));
    ASSERT_EQ(Call(portable::CatOut, {list.ev(), &dim, ref.ev(), ref.ev()}), Error::kOk)
        << LastErrorDetail();
    ASSERT_EQ(Call(CatOut, {list.ev(), &dim, opt.ev(), opt.ev()}, threads), Error::kOk);
    ExpectMatch(opt.Values(), ref.Values(), testing::kExact, "float");
    ASSERT_EQ(Call(portable::CatOut, {int_list.ev(), &dim, refi.ev(), refi.ev()}), Error::kOk);
    ASSERT_EQ(Call(CatOut, {int_list.ev(), &dim, opti.ev(), opti.ev()}, threads), Error::kOk);
    ExpectMatch(opti.Values(), refi.Values(), testing::kExact, "int64");
  }
}

// Channels of NCHW and channels-last images (an inception block's
// branches, big enough to split over threads, one input empty), other
// dims of a channels-last image, and 2-D tensors.
TEST(CatTest, MatchesPortable) {
  ASSERT_EQ(RegisterOptimizedKernels(4), Error::kOk);
  const std::vector<uint8_t> nchw = {0, 1, 2, 3}, nhwc = {0, 2, 3, 1};
  const CatCase cases[] = {
      {{{1, 64, 28, 28}, {1, 128, 28, 28}, {1, 32, 28, 28}, {1, 32, 28, 28}}, 1, nhwc},
      {{{1, 64, 28, 28}, {1, 128, 28, 28}, {1, 32, 28, 28}}, 1, nchw},
      {{{2, 3, 5, 6}, {2, 0, 5, 6}, {2, 5, 5, 6}}, 1, nhwc},
      {{{2, 3, 5, 6}, {2, 3, 2, 6}}, 2, nhwc},
      {{{2, 3, 5, 6}, {2, 3, 5, 1}, {2, 3, 5, 4}}, -1, nhwc},
      {{{2, 3, 5, 6}, {1, 3, 5, 6}}, 0, nhwc},
      {{{4, 7}, {4, 1}, {4, 9}}, 1, {}},
      {{{4, 7}, {2, 7}}, 0, {}},
  };
  for (const CatCase& c : cases) CheckCat(c);
}

// Inputs of different dim orders (or out's differing from them), other
// dtypes than out's, a legacy empty input: not taken, the portable kernel's
// values; a wrong size, the portable kernel's error.
TEST(CatTest, UnsupportedAndInvalidCalls) {
  ASSERT_EQ(RegisterOptimizedKernels(4), Error::kOk);
  TestTensor<float> a({1, 2, 3, 3}, Random<float>(18, 410));
  TestTensor<float> b({1, 4, 3, 3}, Random<float>(36, 411), {0, 2, 3, 1});
  TestTensor<int64_t> bi({1, 4, 3, 3}, std::vector<int64_t>(36, 5));
  TestTensor<float> empty({0});
  EValue dim = EValue::FromInt(1);
  for (EValue* second : {b.ev(), bi.ev(), empty.ev()}) {
    TestTensorList list({a.ev(), second});
    const int32_t c = second == empty.ev() ? 2 : 6;
    TestTensor<float> ref({1, c, 3, 3}), opt({1, c, 3, 3});
    EXPECT_FALSE(Supported(CatSupports, {list.ev(), &dim, opt.ev(), opt.ev()}));
    ASSERT_EQ(Call(portable::CatOut, {list.ev(), &dim, ref.ev(), ref.ev()}), Error::kOk)
        << LastErrorDetail();
    ASSERT_EQ(Call(CatOut, {list.ev(), &dim, opt.ev(), opt.ev()}), Error::kOk);
    ExpectMatch(opt.Values(), ref.Values(), testing::kExact, "portable");
  }
  TestTensor<float> short_h({1, 4, 2, 3}, Random<float>(24, 412));
  TestTensorList bad({a.ev(), short_h.ev()});
  TestTensor<float> out({1, 6, 3, 3});
  const std::vector<EValue*> args = {bad.ev(), &dim, out.ev(), out.ev()};
  const Error expected = Call(portable::CatOut, args);
  const std::string detail = LastErrorDetail();
  EXPECT_NE(expected, Error::kOk);
  EXPECT_EQ(Call(CatOut, args), expected);
  EXPECT_EQ(LastErrorDetail(), detail);
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet
