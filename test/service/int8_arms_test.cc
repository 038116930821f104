// The int8 MobileNetV2 on both stacks, as `make models` exports it
// (docs/zoo.md, "The old stack's int8 arm"): model.ptl (FX post-training
// static quantization for qnnpack, Debian's torch 1.13) served by the
// pytorch-mobile stack, model.pte (PT2E, XNNPACKQuantizer) by ours.
//
// - The old stack reproduces its own reference, torch 1.13 running the
//   converted quantized GraphModule (ptl_expected_0.npy, ptl_top1_expected.npy
//   written by the exporter), within one output quantization step on the
//   stored input and on the 100 seeded top-1 inputs.
// - The two arms agree on the top-1 class of at least the share of those
//   inputs the exporter measured and docs/zoo.md explains (the models
//   quantize the same float network with different activation grids, so a
//   few inputs whose top two logits are within quantization noise differ).
//
// Reads $EF_MODEL_CACHE (default .cache/models); skipped with a message
// when the model or its .ptl is absent (run `make models`).

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "runtime/tools/npy.h"
#include "service/stack.h"

namespace edgefleet {
namespace service {
namespace {

constexpr int kClasses = 1000;

std::string ModelDir() {
  const char* cache = std::getenv("EF_MODEL_CACHE");
  return std::string(cache != nullptr && *cache != '\0' ? cache : ".cache/models") +
         "/mobilenet_v2_int8";
}

bool Exists(const std::string& path) { return std::ifstream(path).good(); }

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

tools::NpyArray ReadNpy(const std::string& path) {
  const std::string bytes = ReadAll(path);
  Result<tools::NpyArray> array =
      tools::ParseNpy(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  EXPECT_TRUE(array.ok()) << path;
  return array.ok() ? *std::move(array) : tools::NpyArray();
}

std::vector<float> Floats(const uint8_t* data, size_t n) {
  std::vector<float> out(n);
  std::memcpy(out.data(), data, n * sizeof(float));
  return out;
}

// Sample `i` of a float32 array [N, ...] as one input [1, 3, 224, 224].
TensorData Sample(const tools::NpyArray& samples, size_t i) {
  TensorData t;
  t.dtype = ScalarType::kFloat;
  t.shape = {1, 3, 224, 224};
  const size_t bytes = 3 * 224 * 224 * sizeof(float);
  t.bytes.assign(samples.data.begin() + static_cast<std::ptrdiff_t>(i * bytes),
                 samples.data.begin() + static_cast<std::ptrdiff_t>((i + 1) * bytes));
  return t;
}

int Argmax(const std::vector<float>& logits) {
  return static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

class Int8ArmsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ModelDir();
    for (const char* file : {"model.pte", "model.ptl", "manifest.json", "top1_inputs.npy",
                             "top1_labels.npy", "ptl_top1_expected.npy", "ptl_expected_0.npy"}) {
      if (!Exists(dir_ + "/" + file)) {
        GTEST_SKIP() << dir_ << "/" << file << " is absent: run `make models`";
      }
    }
    manifest_ = nlohmann::json::parse(ReadAll(dir_ + "/manifest.json"));
    ASSERT_TRUE(manifest_.contains("ptl")) << "the manifest has no .ptl facts";
    Stack* old_stack = GetStack(v1::STACK_PYTORCH_MOBILE);
    if (!old_stack->Available().ok()) GTEST_SKIP() << old_stack->Available();
  }

  // Logits of `stack`'s file for each of `inputs`.
  std::vector<std::vector<float>> Run(v1::Stack id, const std::string& file,
                                      const std::vector<TensorData>& inputs) {
    absl::StatusOr<std::unique_ptr<LoadedModel>> model =
        GetStack(id)->Load(dir_ + "/" + file, StackOptions());
    EXPECT_TRUE(model.ok()) << model.status();
    std::vector<std::vector<float>> out;
    if (!model.ok()) return out;
    for (const TensorData& input : inputs) {
      absl::StatusOr<std::vector<TensorData>> result = (*model)->Run({input});
      EXPECT_TRUE(result.ok()) << result.status();
      if (!result.ok() || result->size() != 1 || result->front().bytes.size() != kClasses * 4) {
        ADD_FAILURE() << file << ": expected one [1, 1000] float output";
        return {};
      }
      out.push_back(Floats(result->front().bytes.data(), kClasses));
    }
    return out;
  }

  std::vector<TensorData> Top1Inputs() {
    const tools::NpyArray samples = ReadNpy(dir_ + "/top1_inputs.npy");
    std::vector<TensorData> inputs;
    for (size_t i = 0; i < static_cast<size_t>(samples.shape.empty() ? 0 : samples.shape[0]); ++i) {
      inputs.push_back(Sample(samples, i));
    }
    return inputs;
  }

  std::string dir_;
  nlohmann::json manifest_;
};

TEST_F(Int8ArmsTest, OldStackReproducesTorch113QuantizedEager) {
  const double scale = manifest_["ptl"]["output_quant"]["scale"].get<double>();
  ASSERT_GT(scale, 0);
  std::vector<TensorData> inputs = {Sample(ReadNpy(dir_ + "/input_0.npy"), 0)};
  const std::vector<TensorData> top1 = Top1Inputs();
  inputs.insert(inputs.end(), top1.begin(), top1.end());
  const std::vector<std::vector<float>> got = Run(v1::STACK_PYTORCH_MOBILE, "model.ptl", inputs);
  ASSERT_EQ(got.size(), inputs.size());
  const tools::NpyArray first = ReadNpy(dir_ + "/ptl_expected_0.npy");
  const tools::NpyArray rest = ReadNpy(dir_ + "/ptl_top1_expected.npy");
  ASSERT_EQ(rest.data.size(), top1.size() * kClasses * 4);
  double worst_steps = 0;
  int same_top1 = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const std::vector<float> want =
        i == 0 ? Floats(first.data.data(), kClasses)
               : Floats(rest.data.data() + (i - 1) * kClasses * 4, kClasses);
    for (int k = 0; k < kClasses; ++k) {
      worst_steps = std::max(worst_steps, std::fabs(got[i][k] - want[k]) / scale);
    }
    same_top1 += Argmax(got[i]) == Argmax(want);
  }
  std::printf("[ int8     ] old stack vs torch 1.13 quantized eager: %zu inputs, worst %.3g"
              " output steps, top-1 %d / %zu\n",
              got.size(), worst_steps, same_top1, got.size());
  EXPECT_LE(worst_steps, 1.0 + 1e-3);
}

TEST_F(Int8ArmsTest, ArmsAgreeOnTop1AsMeasuredByTheExporter) {
  const std::vector<TensorData> inputs = Top1Inputs();
  const tools::NpyArray labels = ReadNpy(dir_ + "/top1_labels.npy");  // torch's PT2E model
  ASSERT_EQ(labels.dtype, ScalarType::kLong);
  ASSERT_EQ(labels.data.size(), inputs.size() * 8);
  const std::vector<std::vector<float>> old_arm = Run(v1::STACK_PYTORCH_MOBILE, "model.ptl", inputs);
  const std::vector<std::vector<float>> new_arm = Run(v1::STACK_EDGEFLEET, "model.pte", inputs);
  ASSERT_EQ(old_arm.size(), inputs.size());
  ASSERT_EQ(new_arm.size(), inputs.size());
  int arms = 0, new_vs_torch = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    int64_t label;
    std::memcpy(&label, labels.data.data() + 8 * i, 8);
    arms += Argmax(old_arm[i]) == Argmax(new_arm[i]);
    new_vs_torch += Argmax(new_arm[i]) == label;
  }
  const double measured = manifest_["ptl"]["top1_agreement"].get<double>();
  std::printf("[ int8     ] top-1: old vs new arm %d / %zu (exporter, torch 1.13 vs torch: %.2f);"
              " new arm vs torch %d / %zu\n",
              arms, inputs.size(), measured, new_vs_torch, inputs.size());
  EXPECT_EQ(new_vs_torch, static_cast<int>(inputs.size()));
  // Each arm reproduces its reference (the test above, the zoo test), so
  // the arms agree exactly as often as their references do.
  EXPECT_EQ(arms, static_cast<int>(std::lround(measured * static_cast<double>(inputs.size()))));
}

}  // namespace
}  // namespace service
}  // namespace edgefleet
