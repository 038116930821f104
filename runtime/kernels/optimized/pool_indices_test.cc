// The drop_unused_pool_indices plan pass and edgefleet::max_pool2d_values.out
// on small plans held by a test PlanEditor: a max pool whose indices nothing
// reads becomes the values-only kernel, whose values are the portable
// kernel's bits (channels-last and NCHW inputs, NaN among them, 1 and 3
// threads, every instruction set) and which writes nothing where the
// indices were; a pool whose indices are read or are a method output is
// left alone.

#include "runtime/kernels/optimized/pool_indices.h"

#include <cmath>
#include <string>
#include <vector>

#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/test_plan_editor.h"
#include "runtime/kernels/optimized/test_util.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

using testing::Random;
using testing::TestIntList;
using testing::TestPlan;
using testing::TestTensor;

const std::vector<uint8_t> kNchw = {0, 1, 2, 3}, kNhwc = {0, 2, 3, 1};

// x -> max pool 3x3 stride 2 padding 1 (y, indices i) -> relu (z), the
// pool's indices read by a second instruction (a copy into j) when
// `indices_read`, and a method output when `indices_io`.
struct PoolPlan {
  PoolPlan(const std::vector<uint8_t>& order, bool indices_read, bool indices_io)
      : x({1, 20, 11, 9}, Values(), order),
        y({1, 20, 6, 5}, {}, order),
        z({1, 20, 6, 5}, {}, order),
        i({1, 20, 6, 5}, std::vector<int64_t>(600, -7)),
        j({1, 20, 6, 5}) {
    plan.SetIo(x.ev());
    plan.SetIo(z.ev());
    if (indices_io) plan.SetIo(i.ev());
    plan.Add("aten::max_pool2d_with_indices.out", MaxPool2dWithIndicesOut,
             {x.ev(), k.ev(), s.ev(), p.ev(), d.ev(), &ceil, y.ev(), i.ev(), results.ev()}, 3);
    plan.Add("aten::relu.out", ReluOut, {y.ev(), z.ev(), z.ev()});
    if (indices_read) {
      plan.Add("aten::clone.out", portable::CloneOut, {i.ev(), &none, j.ev(), j.ev()});
    }
  }
  static std::vector<float> Values() {
    std::vector<float> v = Random<float>(20 * 11 * 9, 81);
    v[17] = std::nanf("");
    v[400] = -__builtin_inff();
    return v;
  }

  TestTensor<float> x, y, z;
  TestTensor<int64_t> i, j;
  TestIntList k{3, 3}, s{2, 2}, p{1, 1}, d{1, 1};
  EValue ceil = EValue::FromBool(false), none;
  testing::TestTensorList results{{y.ev(), i.ev()}};
  TestPlan plan;
};

// z as the portable kernels compute it.
std::vector<float> Reference(const std::vector<uint8_t>& order) {
  PoolPlan ref(order, false, false);
  TestTensor<float> y({1, 20, 6, 5});
  TestTensor<int64_t> i({1, 20, 6, 5});
  EXPECT_EQ(testing::Call(portable::MaxPool2dWithIndicesOut,
                          {ref.x.ev(), ref.k.ev(), ref.s.ev(), ref.p.ev(), ref.d.ev(), &ref.ceil,
                           y.ev(), i.ev(), y.ev()}),
            Error::kOk);
  std::vector<float> z = y.Values();
  for (float& v : z) v = v < 0 ? 0.0f : v;  // relu; NaN stays
  return z;
}

TEST(DropUnusedPoolIndices, UnreadIndicesAreNotComputed) {
  ASSERT_EQ(RegisterOptimizedKernels(4), Error::kOk);
  for (const auto& order : {kNhwc, kNchw}) {
    SCOPED_TRACE(order == kNhwc ? "channels-last" : "NCHW");
    const std::vector<float> expected = Reference(order);
    PoolPlan net(order, false, false);
    DropUnusedPoolIndices(net.plan);
    ASSERT_STREQ(net.plan.op(0), "edgefleet::max_pool2d_values.out");
    const Span<EValue*> args = net.plan.args(0);
    ASSERT_EQ(args.size(), 8u);
    EXPECT_EQ(args[6], net.y.ev());
    EXPECT_EQ(args[7], net.y.ev());
    EXPECT_EQ(net.plan.writer(net.i.ev()), -1);  // no instruction names it
    testing::ForEachIsa([&] {
      for (int threads : {1, 3}) {
        net.z.Set(std::vector<float>(600, -1.0f));
        ASSERT_EQ(net.plan.Execute(threads), Error::kOk) << LastErrorDetail();
        testing::ExpectMatch(net.z.Values(), expected, testing::kExact, "z");
        testing::ExpectMatch(net.i.Values(), std::vector<int64_t>(600, -7), testing::kExact,
                             "indices untouched");
      }
    });
  }
}

TEST(DropUnusedPoolIndices, IndicesReadOrReturnedKeepThePool) {
  for (bool read : {true, false}) {
    PoolPlan net(kNhwc, read, !read);
    DropUnusedPoolIndices(net.plan);
    EXPECT_STREQ(net.plan.op(0), "aten::max_pool2d_with_indices.out") << "read " << read;
  }
}

// The kernel called directly with another argument count: a clear error.
TEST(DropUnusedPoolIndices, TheKernelChecksItsArguments) {
  PoolPlan net(kNchw, false, false);
  EXPECT_EQ(testing::Call(MaxPool2dValuesOut, {net.x.ev(), net.y.ev()}), Error::kInvalidArgument);
  EXPECT_NE(std::string(LastErrorDetail()).find("max_pool2d_values"), std::string::npos);
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet
