// InputBinder and CopyToContiguous on identity programs whose input (also
// the output) is stored channels-last, planned or not: the values must come
// back in C order, the method must hold NHWC memory, and the caller's bytes
// must be free to change after Bind().

#include "runtime/module/method_io.h"

#include <cstring>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/core/error_detail.h"
#include "runtime/module/module.h"
#include "test/util/program_builder.h"

namespace edgefleet {
namespace {

using testing::ProgramBuilder;

constexpr int32_t kSizes[4] = {1, 2, 2, 3};  // N, C, H, W

std::unique_ptr<Module> IdentityModule(bool planned) {
  ProgramBuilder b;
  const std::vector<int32_t> sizes(kSizes, kSizes + 4);
  const int t = planned ? b.AddPlannedTensor(ScalarType::kFloat, sizes, {0, 2, 3, 1})
                        : b.AddUnplannedTensor(ScalarType::kFloat, sizes);
  if (!planned) b.tensor(t).dim_order = {0, 2, 3, 1};
  b.SetInputs({t});
  b.SetOutputs({t});
  const std::vector<uint8_t> file = b.Build();
  Result<std::unique_ptr<Module>> module =
      Module::LoadFromBuffer(file.data(), file.size(), Module::Options());
  EXPECT_TRUE(module.ok()) << LastErrorDetail();
  return module.ok() ? std::move(*module) : nullptr;
}

Span<const uint8_t> Bytes(const std::vector<float>& v) {
  return Span<const uint8_t>(reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4);
}

TEST(MethodIoTest, BindsOnceAndCopiesOutputsBackInCOrder) {
  for (bool planned : {true, false}) {
    SCOPED_TRACE(planned ? "planned" : "unplanned");
    std::unique_ptr<Module> module = IdentityModule(planned);
    ASSERT_NE(module, nullptr);
    Result<Method*> method = module->LoadMethod("forward");
    ASSERT_TRUE(method.ok()) << LastErrorDetail();
    std::vector<float> in(12);
    for (int i = 0; i < 12; ++i) in[i] = static_cast<float>(i);
    InputBinder binder;
    ASSERT_EQ(
        binder.Bind(**method, 0, ScalarType::kFloat, Span<const int32_t>(kSizes, 4), Bytes(in)),
        Error::kOk)
        << LastErrorDetail();
    // The method holds its own copy: the caller may reuse its buffer.
    std::vector<float> scribbled = in;
    in.assign(12, -1.0f);
    ASSERT_EQ((*method)->Execute(), Error::kOk) << LastErrorDetail();
    const Tensor& out = (*method)->output(0).to_tensor();
    ASSERT_NE(out.data(), static_cast<const void*>(in.data()));
    // NHWC memory: element (c, h, w) of C order index c*6 + h*3 + w sits at
    // h*6 + w*2 + c.
    const float* memory = out.data_as<float>();
    for (int c = 0; c < 2; ++c) {
      for (int h = 0; h < 2; ++h) {
        for (int w = 0; w < 3; ++w) {
          EXPECT_EQ(memory[h * 6 + w * 2 + c], scribbled[c * 6 + h * 3 + w]);
        }
      }
    }
    std::vector<uint8_t> back(out.nbytes());
    ASSERT_EQ(CopyToContiguous(out, Span<uint8_t>(back.data(), back.size())), Error::kOk)
        << LastErrorDetail();
    std::vector<float> values(12);
    memcpy(values.data(), back.data(), back.size());
    EXPECT_EQ(values, scribbled);
  }
}

TEST(MethodIoTest, RefusesMismatchedBytesAndDestinations) {
  std::unique_ptr<Module> module = IdentityModule(/*planned=*/true);
  ASSERT_NE(module, nullptr);
  Result<Method*> method = module->LoadMethod("forward");
  ASSERT_TRUE(method.ok()) << LastErrorDetail();
  const std::vector<float> short_input(11);
  InputBinder binder;
  EXPECT_EQ(binder.Bind(**method, 0, ScalarType::kFloat, Span<const int32_t>(kSizes, 4),
                        Bytes(short_input)),
            Error::kInvalidArgument);
  EXPECT_NE(std::string(LastErrorDetail()).find("do not match"), std::string::npos)
      << LastErrorDetail();
  EXPECT_EQ(binder.Bind(**method, 1, ScalarType::kFloat, Span<const int32_t>(kSizes, 4),
                        Bytes(std::vector<float>(12))),
            Error::kInvalidArgument);
  const Tensor& out = (*method)->output(0).to_tensor();
  std::vector<uint8_t> small(out.nbytes() - 1);
  EXPECT_EQ(CopyToContiguous(out, Span<uint8_t>(small.data(), small.size())),
            Error::kInvalidArgument);
}

}  // namespace
}  // namespace edgefleet
