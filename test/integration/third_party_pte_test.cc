// Programs written by the real ExecuTorch exporter and published in its
// repository (../shared/fixtures/third_party_pte, never copied here). Each
// test skips, saying so, when that folder is absent. Expected behaviour per
// file is documented in that folder's README.

#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/core/error_detail.h"
#include "runtime/kernels/portable/register_portable_kernels.h"
#include "runtime/module/host_tensor.h"
#include "runtime/module/module.h"

namespace edgefleet {
namespace {

const std::string kDir = "../shared/fixtures/third_party_pte/";

class ThirdPartyPteTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_EQ(RegisterPortableKernels(), Error::kOk); }

  // Loads `file` and method "forward", or skips if the folder is absent.
  void LoadOrSkip(const std::string& file) {
    const std::string path = kDir + file;
    if (FILE* f = fopen(path.c_str(), "rb")) {
      fclose(f);
    } else {
      GTEST_SKIP() << path << " not found: third-party samples absent, skipping";
    }
    path_ = path;
  }

  Result<std::unique_ptr<Module>> Load() {
    ClearErrorDetail();
    return Module::Load(path_, Module::Options{});
  }

  // Runs `method` on float inputs filled by `fill(input, element)`; returns
  // output 0 as floats.
  std::vector<float> Run(Method* method, float (*fill)(size_t, int64_t)) {
    std::vector<std::unique_ptr<HostTensor>> inputs;
    for (size_t i = 0; i < method->num_inputs(); ++i) {
      TensorInfo info = *method->meta().input_tensor_info(i);
      auto t = HostTensor::Create(info.dtype, info.sizes);
      EXPECT_TRUE(t.ok());
      for (int64_t k = 0; k < (*t)->tensor().numel(); ++k) {
        (*t)->tensor().data_as<float>()[k] = fill(i, k);
      }
      inputs.push_back(std::move(*t));
      EXPECT_EQ(method->SetInput(i, inputs.back()->value()), Error::kOk) << LastErrorDetail();
    }
    EXPECT_EQ(method->Execute(), Error::kOk) << LastErrorDetail();
    const Tensor& out = method->output(0).to_tensor();
    return std::vector<float>(out.data_as<float>(), out.data_as<float>() + out.numel());
  }

  std::string path_;
};

TEST_F(ThirdPartyPteTest, ArduinoAddModelAddsItsConstant) {
  for (const char* file : {"examples_arduino_examples_AddModel_model.pte",
                           "examples_arduino_examples_HelloExecuTorch_model.pte"}) {
    LoadOrSkip(file);
    if (IsSkipped()) return;
    auto module = Load();
    ASSERT_TRUE(module.ok()) << LastErrorDetail();
    EXPECT_TRUE((*module)->program().has_extended_header());
    Result<Method*> method = (*module)->LoadMethod("forward");
    ASSERT_TRUE(method.ok()) << LastErrorDetail();
    // f(0) is the constant; f(x) - f(0) must be x.
    const std::vector<float> constant = Run(*method, [](size_t, int64_t) { return 0.0f; });
    const std::vector<float> shifted =
        Run(*method, [](size_t, int64_t k) { return 1.5f * static_cast<float>(k + 1); });
    ASSERT_EQ(constant.size(), 3u);
    for (size_t k = 0; k < shifted.size(); ++k) {
      EXPECT_FLOAT_EQ(shifted[k] - constant[k], 1.5f * static_cast<float>(k + 1)) << file;
    }
  }
}

TEST_F(ThirdPartyPteTest, AppleAddWithoutExtendedHeaderAddsInputs) {
  LoadOrSkip("extension_apple_ExecuTorch___tests___resources_add.pte");
  if (IsSkipped()) return;
  auto module = Load();
  ASSERT_TRUE(module.ok()) << LastErrorDetail();
  EXPECT_FALSE((*module)->program().has_extended_header());
  Result<Method*> method = (*module)->LoadMethod("forward");
  ASSERT_TRUE(method.ok()) << LastErrorDetail();
  ASSERT_EQ((*method)->num_inputs(), 2u);
  const std::vector<float> out = Run(*method, [](size_t input, int64_t k) {
    return input == 0 ? static_cast<float>(k) + 0.25f : 10.0f * static_cast<float>(k);
  });
  for (size_t k = 0; k < out.size(); ++k) {
    EXPECT_FLOAT_EQ(out[k], 11.0f * static_cast<float>(k) + 0.25f);
  }
}

TEST_F(ThirdPartyPteTest, DeprecatedInlineConstantsRunAsAnAffineMap) {
  LoadOrSkip("test_models_deprecated_ModuleLinear-no-constant-segment.pte");
  if (IsSkipped()) return;
  auto module = Load();
  ASSERT_TRUE(module.ok()) << LastErrorDetail();
  EXPECT_TRUE((*module)->program().uses_deprecated_constant_buffer());
  Result<Method*> method = (*module)->LoadMethod("forward");
  ASSERT_TRUE(method.ok()) << LastErrorDetail();
  // A linear layer f(x) = Wx + b satisfies f(2x) - f(0) = 2 (f(x) - f(0)).
  const std::vector<float> f0 = Run(*method, [](size_t, int64_t) { return 0.0f; });
  const std::vector<float> f1 =
      Run(*method, [](size_t, int64_t k) { return 0.1f * static_cast<float>(k % 7) - 0.2f; });
  const std::vector<float> f2 =
      Run(*method, [](size_t, int64_t k) { return 0.2f * static_cast<float>(k % 7) - 0.4f; });
  ASSERT_FALSE(f0.empty());
  bool nonzero = false;
  for (size_t k = 0; k < f0.size(); ++k) {
    EXPECT_NEAR(f2[k] - f0[k], 2 * (f1[k] - f0[k]), 1e-5) << k;
    nonzero = nonzero || std::fabs(f1[k] - f0[k]) > 1e-6;
  }
  EXPECT_TRUE(nonzero) << "the layer's weights look all zero";
}

TEST_F(ThirdPartyPteTest, KeywordSpottingNamesTheMissingCortexMOperator) {
  LoadOrSkip("examples_arduino_examples_KeywordSpotting_model.pte");
  if (IsSkipped()) return;
  auto module = Load();
  ASSERT_TRUE(module.ok()) << LastErrorDetail();
  Result<Method*> method = (*module)->LoadMethod("forward");
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.error(), Error::kOperatorMissing);
  // Every missing operator is named in the one line, not only the first.
  const std::string detail = LastErrorDetail();
  EXPECT_EQ(detail.find("7 operators are not registered: cortex_m::"), 0u) << detail;
  for (const char* op :
       {"quantize_per_tensor", "dequantize_per_tensor", "quantized_conv2d",
        "quantized_depthwise_conv2d", "quantized_avg_pool2d", "quantized_linear", "pad"}) {
    EXPECT_NE(detail.find(std::string("cortex_m::") + op + ".out"), std::string::npos) << op;
  }
}

TEST_F(ThirdPartyPteTest, QnnProgramNamesTheUnregisteredBackend) {
  LoadOrSkip("examples_qualcomm_oss_scripts_llama_artifacts_stories260k_hybrid_llama_qnn.pte");
  if (IsSkipped()) return;
  auto module = Load();
  ASSERT_TRUE(module.ok()) << LastErrorDetail();
  const Program& program = (*module)->program();
  bool any_failed = false;
  for (size_t i = 0; i < program.num_methods(); ++i) {
    Result<Method*> method = (*module)->LoadMethod(program.method_name(i));
    if (method.ok()) continue;  // e.g. constant getter methods
    any_failed = true;
    EXPECT_EQ(method.error(), Error::kNotFound);
    EXPECT_STREQ(LastErrorDetail(), "backend QnnBackend is not registered");
  }
  EXPECT_TRUE(any_failed);
}

TEST_F(ThirdPartyPteTest, BundledProgramIsRefusedCleanly) {
  LoadOrSkip("extension_module_test_resources_bundled_program.bpte");
  if (IsSkipped()) return;
  auto module = Load();
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.error(), Error::kInvalidProgram);
  EXPECT_NE(std::string(LastErrorDetail()).find("is not 'ET12'"), std::string::npos);
}

}  // namespace
}  // namespace edgefleet
