// aten::grid_sampler_2d.out against torch's F.grid_sample
// (testdata/grid_sampler_reference.h, make_grid_sampler_reference.py):
// every interpolation x padding mode x align_corners, float64 and float32,
// contiguous and channels-last inputs; and its argument errors.

#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/test_tensors.h"
#include "runtime/kernels/portable/testdata/grid_sampler_reference.h"

namespace edgefleet {
namespace portable {
namespace {

namespace ref = grid_sampler_reference;
using testing::ExpectNear;
using testing::RunKernel;
using testing::TestTensor;

template <typename T>
std::vector<T> Cast(const double* begin, const double* end) {
  return std::vector<T>(begin, end);
}

template <typename T>
Error GridSample(TestTensor<T>& in, TestTensor<T>& grid, int64_t mode, int64_t padding, bool align,
                 TestTensor<T>& out) {
  EValue m = EValue::FromInt(mode);
  EValue p = EValue::FromInt(padding);
  EValue a = EValue::FromBool(align);
  return RunKernel(GridSampler2dOut, {in.ev(), grid.ev(), &m, &p, &a, out.ev(), out.ev()});
}

template <typename T>
void ExpectAllCases(std::vector<uint8_t> input_dim_order, double tolerance) {
  TestTensor<T> in({1, 2, 3, 4}, Cast<T>(std::begin(ref::kInput), std::end(ref::kInput)),
                   input_dim_order);
  TestTensor<T> grid({1, 3, 5, 2}, Cast<T>(std::begin(ref::kGrid), std::end(ref::kGrid)));
  for (const ref::Case& c : ref::kCases) {
    SCOPED_TRACE(::testing::Message() << "interpolation " << c.interpolation << " padding "
                                      << c.padding << " align_corners " << c.align_corners);
    TestTensor<T> out({1, 2, 3, 5});
    ASSERT_EQ(GridSample(in, grid, c.interpolation, c.padding, c.align_corners, out), Error::kOk);
    const std::vector<T> want(std::begin(c.expected), std::end(c.expected));
    ExpectNear(out.Values(), want, tolerance);
  }
}

TEST(GridSampler2dTest, MatchesTorchFloat64) { ExpectAllCases<double>({}, 1e-12); }

TEST(GridSampler2dTest, MatchesTorchFloat32) { ExpectAllCases<float>({}, 2e-6); }

TEST(GridSampler2dTest, MatchesTorchChannelsLast) { ExpectAllCases<float>({0, 2, 3, 1}, 2e-6); }

TEST(GridSampler2dTest, ResizesOutToGridSize) {
  TestTensor<float> in({1, 1, 2, 2}, {1, 2, 3, 4});
  // align_corners: the corners (-1,-1) and (1,1) are the corner pixels.
  TestTensor<float> grid({1, 1, 2, 2}, {-1, -1, 1, 1});
  TestTensor<float> out({1, 1, 4, 4}, {}, {}, ShapeDynamism::kDynamicBound);
  ASSERT_EQ(GridSample(in, grid, 0, 0, true, out), Error::kOk);
  EXPECT_EQ(out.Sizes(), (std::vector<int32_t>{1, 1, 1, 2}));
  EXPECT_EQ(out.Values(), (std::vector<float>{1, 4}));
}

TEST(GridSampler2dTest, RefusesBadArguments) {
  TestTensor<float> in({1, 1, 2, 2}, {1, 2, 3, 4});
  TestTensor<float> grid({1, 1, 1, 2}, {0, 0});
  TestTensor<float> out({1, 1, 1, 1});
  EXPECT_EQ(GridSample(in, grid, 3, 0, false, out), Error::kInvalidArgument);
  EXPECT_EQ(GridSample(in, grid, 0, -1, false, out), Error::kInvalidArgument);
  TestTensor<float> bad_grid({1, 1, 1, 3}, {0, 0, 0});
  EXPECT_EQ(GridSample(in, bad_grid, 0, 0, false, out), Error::kInvalidArgument);
  TestTensor<float> other_batch({2, 1, 1, 2}, {0, 0, 0, 0});
  EXPECT_EQ(GridSample(in, other_batch, 0, 0, false, out), Error::kInvalidArgument);
  TestTensor<int32_t> ints({1, 1, 2, 2}, {1, 2, 3, 4});
  TestTensor<int32_t> int_grid({1, 1, 1, 2}, {0, 0});
  TestTensor<int32_t> int_out({1, 1, 1, 1});
  EXPECT_EQ(GridSample(ints, int_grid, 0, 0, false, int_out), Error::kNotSupported);
}

TEST(GridSampler2dTest, NonFiniteCoordinatesStayInBounds) {
  TestTensor<float> in({1, 1, 2, 2}, {1, 2, 3, 4});
  const float inf = std::numeric_limits<float>::infinity();
  TestTensor<float> grid({1, 1, 2, 2}, {inf, 0, -1e30f, 1e30f});
  TestTensor<float> out({1, 1, 1, 2});
  for (int64_t mode = 0; mode < 3; ++mode) {
    // zeros padding: far outside reads nothing; the kernel must not crash.
    EXPECT_EQ(GridSample(in, grid, mode, 0, false, out), Error::kOk) << mode;
  }
}

}  // namespace
}  // namespace portable
}  // namespace edgefleet
