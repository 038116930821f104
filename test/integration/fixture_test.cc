// Every committed fixture (test/fixtures/<name>/, written by the real
// ExecuTorch exporter from a torch model) must reproduce torch eager's
// outputs: |ours - torch| <= 1e-5 * max(1, |torch|) for every element, with
// portable kernels only and with the default kernel choice, at one thread and
// at two (the XNNPACK delegate's operators then run on the runtime's thread
// pool through the pthreadpool entry points it defines). Both programs of
// a fixture are run: model.pte (no delegate) and model_xnnpack.pte (lowered
// with XnnpackPartitioner, run by the XNNPACK delegate). For quantized
// fixtures the expected outputs are the real ExecuTorch runtime's on the same
// file (tools/export/export_xnnpack_fixtures.py).

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/backends/xnnpack/xnnpack_backend.h"
#include "runtime/core/error_detail.h"
#include "runtime/kernels/optimized/register_optimized_kernels.h"
#include "runtime/kernels/portable/register_portable_kernels.h"
#include "runtime/module/host_tensor.h"
#include "runtime/module/module.h"
#include "runtime/tools/file_io.h"
#include "runtime/tools/npy.h"
#include "runtime/tools/npy_tensors.h"
#include "test/util/fixture_programs.h"

namespace edgefleet {
namespace {

const std::string kFixtureDir = testing::kFixtureDir;

// Loads `dir/prefix_i.npy` for i = 0, 1, ... until one is missing.
std::vector<tools::NpyArray> LoadNumbered(const std::string& dir, const std::string& prefix) {
  std::vector<tools::NpyArray> arrays;
  for (int i = 0;; ++i) {
    Result<std::vector<uint8_t>> bytes =
        tools::ReadFileBytes(dir + "/" + prefix + "_" + std::to_string(i) + ".npy");
    if (!bytes.ok()) break;
    Result<tools::NpyArray> array = tools::ParseNpy(bytes->data(), bytes->size());
    EXPECT_TRUE(array.ok()) << LastErrorDetail();
    if (!array.ok()) break;
    arrays.push_back(std::move(*array));
  }
  return arrays;
}

template <typename T>
void ExpectClose(const tools::NpyArray& ours, const tools::NpyArray& ref, const std::string& what) {
  const T* a = reinterpret_cast<const T*>(ours.data.data());
  const T* b = reinterpret_cast<const T*>(ref.data.data());
  double worst = 0;
  int64_t worst_at = 0;
  for (int64_t i = 0; i < ref.numel(); ++i) {
    const double tolerance = 1e-5 * std::max(1.0, std::fabs(static_cast<double>(b[i])));
    const double excess =
        std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i])) / tolerance;
    if (!(excess <= worst)) {
      worst = excess;
      worst_at = i;
    }
  }
  EXPECT_LE(worst, 1.0) << what << ": element " << worst_at << " is " << a[worst_at]
                        << ", torch gives " << b[worst_at];
}

class FixtureTest : public ::testing::TestWithParam<std::tuple<std::string, bool, int>> {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(RegisterPortableKernels(), Error::kOk);
    ASSERT_EQ(RegisterOptimizedKernels(), Error::kOk);
    ASSERT_EQ(RegisterXnnpackBackend(), Error::kOk);
  }
};

TEST_P(FixtureTest, MatchesTorchEager) {
  const auto& [name, portable_only, threads] = GetParam();
  const std::string dir = kFixtureDir + "/" + name.substr(0, name.find('/'));
  Module::Options options;
  if (portable_only) options.method.kernels = KernelPreference::kPortableOnly;
  options.method.num_threads = threads;
  Result<std::unique_ptr<Module>> module = Module::Load(kFixtureDir + "/" + name, options);
  ASSERT_TRUE(module.ok()) << LastErrorDetail();
  Result<Method*> method = (*module)->LoadMethod("forward");
  ASSERT_TRUE(method.ok()) << LastErrorDetail();

  std::vector<tools::NpyArray> inputs = LoadNumbered(dir, "input");
  std::vector<tools::NpyArray> expected = LoadNumbered(dir, "expected");
  ASSERT_EQ(inputs.size(), (*method)->num_inputs());
  ASSERT_EQ(expected.size(), (*method)->num_outputs());
  std::vector<std::unique_ptr<HostTensor>> held;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Result<std::unique_ptr<HostTensor>> t = tools::HostTensorFromNpy(inputs[i]);
    ASSERT_TRUE(t.ok()) << LastErrorDetail();
    held.push_back(std::move(*t));
  }
  // Twice: the second run must not depend on state left by the first.
  for (int run = 0; run < 2; ++run) {
    for (size_t i = 0; i < held.size(); ++i) {
      ASSERT_EQ((*method)->SetInput(i, held[i]->value()), Error::kOk) << LastErrorDetail();
    }
    ASSERT_EQ((*method)->Execute(), Error::kOk) << LastErrorDetail();
    for (size_t i = 0; i < expected.size(); ++i) {
      const EValue& out = (*method)->output(i);
      ASSERT_TRUE(out.is_tensor());
      Result<tools::NpyArray> copy = tools::NpyFromTensor(out.to_tensor());
      ASSERT_TRUE(copy.ok()) << LastErrorDetail();
      const tools::NpyArray& ours = *copy;
      ASSERT_EQ(ours.dtype, expected[i].dtype) << "output " << i;
      ASSERT_EQ(ours.shape, expected[i].shape) << "output " << i;
      const std::string what = name + " output " + std::to_string(i);
      switch (ours.dtype) {
        case ScalarType::kFloat:
          ExpectClose<float>(ours, expected[i], what);
          break;
        case ScalarType::kLong:
          ExpectClose<int64_t>(ours, expected[i], what);
          break;
        case ScalarType::kInt:
          ExpectClose<int32_t>(ours, expected[i], what);
          break;
        default:
          EXPECT_EQ(ours.data, expected[i].data) << what;
          break;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Committed, FixtureTest,
                         ::testing::Combine(::testing::ValuesIn(testing::FixturePrograms()),
                                            ::testing::Bool(), ::testing::Values(1, 2)),
                         [](const ::testing::TestParamInfo<FixtureTest::ParamType>& info) {
                           std::string name = std::get<0>(info.param);
                           const size_t slash = name.find('/');
                           name = name.substr(0, slash) +
                                  (name.substr(slash + 1) == "model.pte" ? "" : "_xnnpack");
                           return name + (std::get<1>(info.param) ? "_portable" : "_default") +
                                  "_" + std::to_string(std::get<2>(info.param)) + "thr";
                         });

TEST(FixtureSetTest, FixturesArePresent) {
  const std::vector<std::string> names = testing::FixturePrograms();
  EXPECT_GE(names.size(), 14u) << "run tests from the repository root";
  EXPECT_GE(std::count_if(names.begin(), names.end(),
                          [](const std::string& n) { return n.find("_xnnpack.pte") != n.npos; }),
            12)
      << "the XNNPACK-lowered fixtures are missing";
}

}  // namespace
}  // namespace edgefleet
