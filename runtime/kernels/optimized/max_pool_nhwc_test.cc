// The channels-last max pool (max_pool_nhwc.h) against the portable kernel
// on default-order copies: values and indices bit-identical for channel
// counts below, at and past a vector (tails), padding, dilation, ceil mode,
// ties, NaN and infinities, outs and indices in either dim order, at 1 and
// 3 threads and on every instruction set the host has; and through
// aten::max_pool2d_with_indices.out's optimized kernel.

#include "runtime/kernels/optimized/max_pool_nhwc.h"

#include <cmath>
#include <limits>
#include <vector>

#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/test_util.h"
#include "runtime/kernels/portable/pool_util.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

using testing::Call;
using testing::ExpectMatch;
using testing::ForEachIsa;
using testing::Random;
using testing::TestIntList;
using testing::TestTensor;

const std::vector<uint8_t> kNchw = {0, 1, 2, 3}, kNhwc = {0, 2, 3, 1};

struct Case {
  int32_t n, c, h, w;
  int64_t k, s, p, d;
  bool ceil_mode;
};

ConvGeometry GeometryOf(const Case& c) {
  ConvGeometry g{};
  g.batch = c.n;
  g.in_c = g.out_c = g.groups = c.c;
  g.in_h = c.h;
  g.in_w = c.w;
  g.k_h = g.k_w = c.k;
  g.stride[0] = g.stride[1] = c.s;
  g.pad[0] = g.pad[1] = c.p;
  g.dilation[0] = g.dilation[1] = c.d;
  g.out_h = portable::PoolOutSize(c.h, c.k, c.p, c.s, c.d, c.ceil_mode);
  g.out_w = portable::PoolOutSize(c.w, c.k, c.p, c.s, c.d, c.ceil_mode);
  return g;
}

// MaxPoolNhwc on `values` (logical NCHW order) against the portable
// kernel, for each dim order of out and of indices, and without indices
// (left as they were).
void Check(const Case& c, const std::vector<float>& values, int threads) {
  SCOPED_TRACE(::testing::Message()
               << "c" << c.c << " " << c.h << "x" << c.w << " k" << c.k << " s" << c.s << " p"
               << c.p << " d" << c.d << " ceil" << c.ceil_mode << " threads " << threads);
  const ConvGeometry g = GeometryOf(c);
  const std::vector<int32_t> in_shape = {c.n, c.c, c.h, c.w};
  const std::vector<int32_t> out_shape = {c.n, c.c, static_cast<int32_t>(g.out_h),
                                          static_cast<int32_t>(g.out_w)};
  TestTensor<float> x(in_shape, values), x_cl(in_shape, values, kNhwc);
  TestTensor<float> r(out_shape);
  TestTensor<int64_t> ri(out_shape);
  TestIntList k{c.k, c.k}, s{c.s, c.s}, p{c.p, c.p}, d{c.d, c.d};
  EValue ceil_mode = EValue::FromBool(c.ceil_mode);
  ASSERT_EQ(Call(portable::MaxPool2dWithIndicesOut,
                 {x.ev(), k.ev(), s.ev(), p.ev(), d.ev(), &ceil_mode, r.ev(), ri.ev(), r.ev()}),
            Error::kOk)
      << LastErrorDetail();
  const std::vector<int64_t> poison(ri.Values().size(), -7);
  for (const auto& out_order : {kNhwc, kNchw}) {
    for (int indices : {0, 1, 2}) {  // NCHW, channels-last, none (values only)
      TestTensor<float> o(out_shape, {}, out_order);
      TestTensor<int64_t> oi(out_shape, poison, indices == 1 ? kNhwc : kNchw);
      std::vector<uint64_t> temp_memory(1 << 16);
      MemoryAllocator temp(temp_memory.data(), temp_memory.size() * 8);
      KernelContext ctx(&temp, threads);
      ASSERT_TRUE(
          MaxPoolNhwc(ctx, g, x_cl.tensor(), o.tensor(), indices < 2 ? &oi.tensor() : nullptr));
      ExpectMatch(o.Values(), r.Values(), testing::kExact, "max values");
      ExpectMatch(oi.Values(), indices < 2 ? ri.Values() : poison, testing::kExact, "max indices");
    }
  }
}

const Case kCases[] = {
    {1, 64, 16, 16, 3, 2, 1, 1, false},  // ResNet's stem pool, smaller
    {2, 3, 15, 17, 2, 2, 0, 1, false},   // fewer channels than any vector
    {1, 20, 13, 13, 3, 2, 1, 1, true},   // a channel tail; ceil mode
    {1, 8, 11, 9, 3, 1, 1, 2, false},    // dilation
    {1, 33, 10, 10, 5, 3, 2, 1, false},  // a window wider than the stride
    {1, 17, 9, 21, 2, 3, 1, 1, true},    // stride past the window; ceil mode
    {1, 64, 34, 30, 3, 1, 1, 1, false},  // enough output to split over threads
};

TEST(MaxPoolNhwcTest, MatchesPortable) {
  ASSERT_EQ(RegisterOptimizedKernels(4), Error::kOk);
  ForEachIsa([&] {
    for (const Case& c : kCases) {
      const int64_t n = int64_t{c.n} * c.c * c.h * c.w;
      Check(c, Random<float>(n, 501), 1);
      // Ties (few distinct values) keep the first maximum.
      std::vector<float> ties = Random<float>(n, 502);
      for (float& v : ties) v = std::floor(v * 2);
      Check(c, ties, 3);
    }
  });
}

// NaN wins (the last one in a window), infinities compare as values, and a
// window of -inf keeps its first valid tap: rows holding any of them are
// done the scalar way, the others stay vectorized, in one call.
TEST(MaxPoolNhwcTest, NanAndInfinities) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (const Case& c : {Case{1, 20, 9, 9, 3, 2, 1, 1, true}, Case{1, 3, 7, 7, 2, 1, 0, 1, false}}) {
    const int64_t plane = int64_t{c.h} * c.w, n = c.c * plane;
    std::vector<float> v = Random<float>(n, 511);
    v[5] = nan;
    v[6] = nan;
    v[plane + 20] = inf;
    v[2 * plane + 40] = -inf;
    for (int64_t i = 2 * plane; i < 2 * plane + c.w * 3; ++i) v[i] = -inf;
    ForEachIsa([&] { Check(c, v, 1); });
  }
}

// Through the registered kernel: a channels-last input with a channels-last
// out (a region's max pool) and with a default-order out.
TEST(MaxPoolNhwcTest, RegisteredKernelTakesChannelsLastInputs) {
  ASSERT_EQ(RegisterOptimizedKernels(4), Error::kOk);
  const Case c = {2, 24, 12, 12, 3, 2, 1, 1, false};
  const std::vector<int32_t> in_shape = {c.n, c.c, c.h, c.w}, out_shape = {c.n, c.c, 6, 6};
  const std::vector<float> values = Random<float>(2 * 24 * 144, 521);
  TestTensor<float> x(in_shape, values), x_cl(in_shape, values, kNhwc), r(out_shape);
  TestTensor<int64_t> ri(out_shape);
  TestIntList k{3, 3}, s{2, 2}, p{1, 1}, d{1, 1};
  EValue no = EValue::FromBool(false);
  ASSERT_EQ(Call(portable::MaxPool2dWithIndicesOut,
                 {x.ev(), k.ev(), s.ev(), p.ev(), d.ev(), &no, r.ev(), ri.ev(), r.ev()}),
            Error::kOk);
  for (const auto& out_order : {kNhwc, kNchw}) {
    TestTensor<float> o(out_shape, {}, out_order);
    TestTensor<int64_t> oi(out_shape);
    ASSERT_EQ(Call(MaxPool2dWithIndicesOut,
                   {x_cl.ev(), k.ev(), s.ev(), p.ev(), d.ev(), &no, o.ev(), oi.ev(), o.ev()}, 2),
              Error::kOk);
    ExpectMatch(o.Values(), r.Values(), testing::kExact, "max values");
    ExpectMatch(oi.Values(), ri.Values(), testing::kExact, "max indices");
  }
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet
