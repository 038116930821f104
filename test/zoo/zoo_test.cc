// The model zoo (tools/export/zoo/export_zoo.py, `make models`) must
// reproduce torch on the exported inputs, with portable kernels only and
// with the default kernel choice (optimized where available):
//   float32 models: |ours - torch| <= 1e-4 * max(1, |torch|) per element;
//   the int8 model (the quantizer's own scales): on the stored input and on
//   100 seeded inputs, >= 99.9 % of output elements within one output
//   quantization step of the real ExecuTorch runtime on the same file
//   (runtime[_xnnpack]_*expected*.npy, saved by the exporter) and every
//   top-1 class the real runtime's; the portable program (model.pte) also
//   gives torch's top-1 class (torch running the converted GraphModule) on
//   every input. The largest differences, to both, are printed.
// Models are read from $EF_MODEL_CACHE (default .cache/models/, relative to
// the repository root) or, for the small ones committed as fixtures, from
// test/fixtures/zoo_<name>/. A model found in neither place is skipped with
// a message: CI may not run `make models`.
// The reduced-size zoo (test/fixtures/zoo_mini/<name>/, every family with
// narrow widths and small inputs: the same operators and fusion paths,
// tools/export/zoo/export_mini_zoo.py) is committed and never skipped: a
// missing file fails, so every family is checked on a fresh machine.

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/backends/xnnpack/xnnpack_backend.h"
#include "runtime/core/error_detail.h"
#include "runtime/kernels/optimized/register_optimized_kernels.h"
#include "runtime/kernels/portable/register_portable_kernels.h"
#include "runtime/module/host_tensor.h"
#include "runtime/module/module.h"
#include "runtime/tools/file_io.h"
#include "runtime/tools/npy.h"
#include "runtime/tools/npy_tensors.h"

namespace edgefleet {
namespace {

struct ZooModel {
  const char* name;
  bool quantized;
};

// For test names and failure messages.
void PrintTo(const ZooModel& model, std::ostream* os) { *os << model.name; }

const ZooModel kZoo[] = {
    {"mobilenet_v2", false}, {"mobilenet_v3_small", false},
    {"resnet18", false},     {"deeplabv3_mobilenet_v3_large", false},
    {"text_langid", false},  {"bwe_gru", false},
    {"kws_conv1d", false},   {"mobilenet_v2_int8", true},
};

// The slow-family set (docs/performance-families.md): checked when exported,
// no reduced-size copies committed.
const ZooModel kSlowFamilies[] = {
    {"efficientnet_b0", false},
    {"regnet_y_400mf", false},
    {"vit_tiny", false},
};

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string CacheDir() {
  const char* dir = std::getenv("EF_MODEL_CACHE");
  return dir != nullptr && *dir != '\0' ? dir : ".cache/models";
}

// The folder holding `name`'s model.pte, or "" if it is absent. A folder
// counts once its export is complete: the exporter writes manifest.json
// last, so a `make models` still running (or stopped half way) leaves a
// folder the tests skip rather than fail on.
std::string ModelDir(const std::string& name) {
  for (const std::string& dir : {CacheDir() + "/" + name, "test/fixtures/zoo_" + name}) {
    if (FileExists(dir + "/model.pte") && FileExists(dir + "/manifest.json")) return dir;
  }
  return "";
}

tools::NpyArray LoadNpy(const std::string& path) {
  Result<std::vector<uint8_t>> bytes = tools::ReadFileBytes(path);
  EXPECT_TRUE(bytes.ok()) << path << ": " << LastErrorDetail();
  if (!bytes.ok()) return {};
  Result<tools::NpyArray> array = tools::ParseNpy(bytes->data(), bytes->size());
  EXPECT_TRUE(array.ok()) << path << ": " << LastErrorDetail();
  return array.ok() ? std::move(*array) : tools::NpyArray{};
}

// Loads `dir/prefix_i.npy` for i = 0, 1, ... until one is missing.
std::vector<tools::NpyArray> LoadNumbered(const std::string& dir, const std::string& prefix) {
  std::vector<tools::NpyArray> arrays;
  for (int i = 0;; ++i) {
    const std::string path = dir + "/" + prefix + "_" + std::to_string(i) + ".npy";
    if (!FileExists(path)) break;
    arrays.push_back(LoadNpy(path));
  }
  return arrays;
}

const float* Floats(const tools::NpyArray& a) {
  return reinterpret_cast<const float*>(a.data.data());
}

// A loaded zoo model: its method and the tensors it reads inputs from.
class ZooRun {
 public:
  // `file`: model.pte, or model_xnnpack.pte (lowered with XnnpackPartitioner).
  bool Load(const std::string& dir, bool portable_only, const char* file = "model.pte") {
    Module::Options options;
    if (portable_only) options.method.kernels = KernelPreference::kPortableOnly;
    Result<std::unique_ptr<Module>> module = Module::Load(dir + "/" + file, options);
    EXPECT_TRUE(module.ok()) << LastErrorDetail();
    if (!module.ok()) return false;
    module_ = std::move(*module);
    Result<Method*> method = module_->LoadMethod("forward");
    EXPECT_TRUE(method.ok()) << LastErrorDetail();
    if (!method.ok()) return false;
    method_ = *method;
    return true;
  }

  // Runs the method on `inputs` and returns copies of its outputs.
  std::vector<tools::NpyArray> Run(const std::vector<tools::NpyArray>& inputs) {
    std::vector<tools::NpyArray> outputs;
    EXPECT_EQ(inputs.size(), method_->num_inputs());
    for (size_t i = 0; i < inputs.size(); ++i) {
      Result<std::unique_ptr<HostTensor>> t = tools::HostTensorFromNpy(inputs[i]);
      EXPECT_TRUE(t.ok()) << LastErrorDetail();
      if (!t.ok()) return outputs;
      EValue value = (*t)->value();
      EXPECT_EQ(method_->SetInput(i, value), Error::kOk) << LastErrorDetail();
    }
    const Error executed = method_->Execute();
    EXPECT_EQ(executed, Error::kOk) << LastErrorDetail();
    if (executed != Error::kOk) return outputs;
    for (size_t i = 0; i < method_->num_outputs(); ++i) {
      const EValue& out = method_->output(i);
      EXPECT_TRUE(out.is_tensor());
      if (!out.is_tensor()) return {};
      Result<tools::NpyArray> copy = tools::NpyFromTensor(out.to_tensor());
      EXPECT_TRUE(copy.ok()) << LastErrorDetail();
      if (!copy.ok()) return {};
      outputs.push_back(std::move(*copy));
    }
    return outputs;
  }

 private:
  std::unique_ptr<Module> module_;
  Method* method_ = nullptr;
};

// The largest |ours - ref| / tolerance(ref) over all elements, where
// tolerance(r) = abs_tol * max(1, |r|) (`relative`) or abs_tol.
struct Worst {
  double excess = 0;
  double abs_error = 0;
  int64_t at = 0;
};

Worst Compare(const tools::NpyArray& ours, const tools::NpyArray& ref, double tol, bool relative) {
  Worst w;
  for (int64_t i = 0; i < ref.numel(); ++i) {
    const double r = Floats(ref)[i];
    const double error = std::fabs(static_cast<double>(Floats(ours)[i]) - r);
    const double excess = error / (tol * (relative ? std::max(1.0, std::fabs(r)) : 1.0));
    w.abs_error = std::max(w.abs_error, error);
    if (!(excess <= w.excess)) {
      w.excess = excess;
      w.at = i;
    }
  }
  return w;
}

nlohmann::json Manifest(const std::string& dir) {
  std::ifstream in(dir + "/manifest.json");
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << dir << "/manifest.json is not valid JSON";
  return j;
}

void RegisterAllKernels() {
  ASSERT_EQ(RegisterPortableKernels(), Error::kOk);
  ASSERT_EQ(RegisterOptimizedKernels(), Error::kOk);
  ASSERT_EQ(RegisterXnnpackBackend(), Error::kOk);
}

class ZooTest : public ::testing::TestWithParam<std::tuple<ZooModel, bool>> {
 protected:
  static void SetUpTestSuite() { RegisterAllKernels(); }
};

const char kMiniZoo[] = "test/fixtures/zoo_mini/";

#define EF_ZOO_DIR_OR_SKIP(dir, name)                                          \
  const std::string dir = ModelDir(name);                                      \
  if (dir.empty()) {                                                           \
    GTEST_SKIP() << "zoo model " << (name) << " is absent from " << CacheDir() \
                 << " and test/fixtures (or its export is not complete: no "   \
                 << "manifest.json): run `make models` to export it";          \
  }

// Runs `file` of the float model `model` twice on its stored inputs against
// torch's outputs `expected_<j>.npy`.
void ExpectMatchesTorch(const ZooModel& model, const std::string& dir, bool portable_only,
                        const char* file) {
  ASSERT_FALSE(model.quantized) << "int8 models are checked by ExpectInt8Agreement";
  ZooRun run;
  ASSERT_TRUE(run.Load(dir, portable_only, file));
  const std::vector<tools::NpyArray> inputs = LoadNumbered(dir, "input");
  const std::vector<tools::NpyArray> expected = LoadNumbered(dir, "expected");
  ASSERT_FALSE(expected.empty());
  // Twice: the second run must not depend on state left by the first.
  for (int pass = 0; pass < 2; ++pass) {
    const std::vector<tools::NpyArray> outputs = run.Run(inputs);
    ASSERT_EQ(outputs.size(), expected.size());
    for (size_t i = 0; i < outputs.size(); ++i) {
      ASSERT_EQ(outputs[i].dtype, ScalarType::kFloat) << "output " << i;
      ASSERT_EQ(outputs[i].dtype, expected[i].dtype) << "output " << i;
      ASSERT_EQ(outputs[i].shape, expected[i].shape) << "output " << i;
      const Worst w = Compare(outputs[i], expected[i], 1e-4, /*relative=*/true);
      if (pass == 0) {
        std::printf("[ zoo      ] %s %s%s output %zu: max abs error %.3g (%.3g of the tolerance)\n",
                    model.name, file, portable_only ? " (portable)" : "", i, w.abs_error, w.excess);
      }
      EXPECT_LE(w.excess, 1.0) << model.name << " output " << i << ": element " << w.at << " is "
                               << Floats(outputs[i])[w.at] << ", torch gives "
                               << Floats(expected[i])[w.at];
    }
  }
}

// Our int8 outputs against a reference on the same inputs.
struct Agreement {
  int64_t elements = 0;
  int64_t within_one_step = 0;
  double max_steps = 0;  // the largest difference, in output steps
  int64_t top1_same = 0;
  int64_t samples = 0;
};

// The first index of the largest of `n` values (torch.argmax's choice).
int64_t Top1(const float* y, int64_t n) { return std::max_element(y, y + n) - y; }

// `ours` and `ref` are [samples, classes] outputs quantized with step `step`.
Agreement Agree(const std::vector<float>& ours, const std::vector<float>& ref, int64_t classes,
                double step) {
  Agreement a;
  a.elements = static_cast<int64_t>(ref.size());
  a.samples = a.elements / classes;
  for (int64_t i = 0; i < a.elements; ++i) {
    const double steps = std::fabs(static_cast<double>(ours[i]) - ref[i]) / step;
    // One step, plus float rounding of the dequantized values.
    a.within_one_step += steps <= 1 + 1e-5 ? 1 : 0;
    a.max_steps = std::max(a.max_steps, steps);
  }
  for (int64_t s = 0; s < a.samples; ++s) {
    a.top1_same += Top1(&ours[s * classes], classes) == Top1(&ref[s * classes], classes) ? 1 : 0;
  }
  return a;
}

std::string Describe(const Agreement& a) {
  char text[160];
  std::snprintf(text, sizeof(text),
                "%.3f %% of %lld elements within one step, largest difference %.0f steps,"
                " top-1 %lld / %lld",
                100.0 * a.within_one_step / std::max<int64_t>(1, a.elements),
                static_cast<long long>(a.elements), a.max_steps,
                static_cast<long long>(a.top1_same), static_cast<long long>(a.samples));
  return text;
}

// Appends the float32 values of `a` to `out`.
void AppendFloats(const tools::NpyArray& a, std::vector<float>* out) {
  EXPECT_EQ(a.dtype, ScalarType::kFloat);
  if (a.dtype == ScalarType::kFloat) out->insert(out->end(), Floats(a), Floats(a) + a.numel());
}

// A reference's outputs on input_0.npy and then on each top-1 sample:
// `<prefix>expected_0.npy` and `<prefix>top1_expected.npy`.
std::vector<float> Int8Reference(const std::string& dir, const std::string& prefix) {
  std::vector<float> values;
  AppendFloats(LoadNpy(dir + "/" + prefix + "expected_0.npy"), &values);
  AppendFloats(LoadNpy(dir + "/" + prefix + "top1_expected.npy"), &values);
  return values;
}

// What an int8 run must meet against the real runtime on the same file.
// Agreement with torch is printed, never required: on the full-size model
// the real runtime itself gives torch's top-1 class on about half of the
// inputs (docs/zoo.md, "The int8 model's scales").
struct Int8Requirement {
  // >= 99.9 % of the output elements within one output step.
  bool within_one_step = true;
  // The same top-1 class on every input.
  bool top1 = true;
};

// Runs `file` of the int8 model in `dir` on input_0.npy and on the top-1
// samples (top1_inputs.npy, [N, 1, ...]) against the real ExecuTorch
// runtime's outputs on the same file (`runtime_prefix`: "runtime_" for
// model.pte, "runtime_xnnpack_" for model_xnnpack.pte) and torch's (the
// converted GraphModule), prints both agreements and checks `required`.
void ExpectInt8Agreement(const std::string& name, const std::string& dir, const char* file,
                         const char* runtime_prefix, bool portable_only, Int8Requirement required) {
  const std::vector<tools::NpyArray> inputs = LoadNumbered(dir, "input");
  const tools::NpyArray samples = LoadNpy(dir + "/top1_inputs.npy");
  ASSERT_EQ(inputs.size(), 1u);
  ASSERT_EQ(samples.dtype, ScalarType::kFloat);
  ASSERT_GE(samples.shape.size(), 2u);
  const int64_t count = samples.shape[0];
  ASSERT_GT(count, 0);
  const double step = Manifest(dir)["output_quant"][0]["scale"].get<double>();
  ZooRun run;
  ASSERT_TRUE(run.Load(dir, portable_only, file));
  std::vector<float> ours;
  const size_t sample_bytes = samples.data.size() / static_cast<size_t>(count);
  for (int64_t s = -1; s < count; ++s) {
    tools::NpyArray input;
    if (s < 0) {
      input = inputs[0];
    } else {
      input.dtype = ScalarType::kFloat;
      input.shape.assign(samples.shape.begin() + 1, samples.shape.end());
      input.data.assign(samples.data.begin() + s * sample_bytes,
                        samples.data.begin() + (s + 1) * sample_bytes);
    }
    const std::vector<tools::NpyArray> outputs = run.Run({input});
    ASSERT_EQ(outputs.size(), 1u);
    AppendFloats(outputs[0], &ours);
  }
  const int64_t classes = static_cast<int64_t>(ours.size()) / (count + 1);
  const std::vector<float> real = Int8Reference(dir, runtime_prefix);
  const std::vector<float> torch = Int8Reference(dir, "");
  ASSERT_EQ(real.size(), ours.size());
  ASSERT_EQ(torch.size(), ours.size());
  const Agreement vs_real = Agree(ours, real, classes, step);
  const Agreement vs_torch = Agree(ours, torch, classes, step);
  const Agreement real_vs_torch = Agree(real, torch, classes, step);
  std::printf("[ zoo      ] %s %s%s vs real runtime: %s\n", name.c_str(), file,
              portable_only ? " (portable)" : "", Describe(vs_real).c_str());
  std::printf("[ zoo      ] %s %s%s vs torch: %s (real runtime vs torch: %s)\n", name.c_str(), file,
              portable_only ? " (portable)" : "", Describe(vs_torch).c_str(),
              Describe(real_vs_torch).c_str());
  if (required.within_one_step) {
    EXPECT_GE(vs_real.within_one_step, 0.999 * vs_real.elements) << Describe(vs_real);
  }
  if (required.top1) {
    EXPECT_EQ(vs_real.top1_same, vs_real.samples) << Describe(vs_real);
  }
}

TEST_P(ZooTest, MatchesTorch) {
  const auto& [model, portable_only] = GetParam();
  EF_ZOO_DIR_OR_SKIP(dir, model.name);
  if (model.quantized) GTEST_SKIP() << model.name << ": checked by Zoo/Int8Top1Test";
  ExpectMatchesTorch(model, dir, portable_only, "model.pte");
}

// The same model lowered to XNNPACK by the real exporter, run by our delegate.
TEST_P(ZooTest, XnnpackLoweredMatchesTorch) {
  const auto& [model, portable_only] = GetParam();
  EF_ZOO_DIR_OR_SKIP(dir, model.name);
  if (!FileExists(dir + "/model_xnnpack.pte")) {
    GTEST_SKIP() << model.name << " has no model_xnnpack.pte (make models exports it)";
  }
  if (model.quantized) {
    // XNNPACK's int8 arithmetic is not PyTorch's reference quantized ops':
    // a lowered int8 program is checked against the real runtime on the same
    // file, not against torch.
    GTEST_SKIP() << model.name << ": checked by ZooInt8Test.XnnpackMatchesRealRuntime";
  }
  ExpectMatchesTorch(model, dir, portable_only, "model_xnnpack.pte");
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooTest,
                         ::testing::Combine(::testing::ValuesIn(kZoo), ::testing::Bool()),
                         [](const ::testing::TestParamInfo<ZooTest::ParamType>& info) {
                           return std::string(std::get<0>(info.param).name) +
                                  (std::get<1>(info.param) ? "_portable" : "_default");
                         });
INSTANTIATE_TEST_SUITE_P(SlowFamilies, ZooTest,
                         ::testing::Combine(::testing::ValuesIn(kSlowFamilies), ::testing::Bool()),
                         [](const ::testing::TestParamInfo<ZooTest::ParamType>& info) {
                           return std::string(std::get<0>(info.param).name) +
                                  (std::get<1>(info.param) ? "_portable" : "_default");
                         });

// The reduced-size zoo, committed: both programs of every family, never skipped.
class MiniZooTest : public ZooTest {};

TEST_P(MiniZooTest, MatchesTorch) {
  const auto& [model, portable_only] = GetParam();
  const std::string dir = kMiniZoo + std::string(model.name);
  ASSERT_TRUE(FileExists(dir + "/model.pte")) << dir << "/model.pte is missing";
  if (model.quantized) {
    GTEST_SKIP() << model.name << ": checked by Zoo/Int8Top1Test.MiniAgreesWithTorch";
  }
  ExpectMatchesTorch(model, dir, portable_only, "model.pte");
}

TEST_P(MiniZooTest, XnnpackLoweredMatchesTorch) {
  const auto& [model, portable_only] = GetParam();
  const std::string dir = kMiniZoo + std::string(model.name);
  ASSERT_TRUE(FileExists(dir + "/model_xnnpack.pte")) << dir << "/model_xnnpack.pte is missing";
  if (model.quantized) {
    GTEST_SKIP() << model.name << ": checked by MiniZooInt8Test.MiniInt8XnnpackMatchesRealRuntime";
  }
  ExpectMatchesTorch(model, dir, portable_only, "model_xnnpack.pte");
}

INSTANTIATE_TEST_SUITE_P(MiniZoo, MiniZooTest,
                         ::testing::Combine(::testing::ValuesIn(kZoo), ::testing::Bool()),
                         [](const ::testing::TestParamInfo<MiniZooTest::ParamType>& info) {
                           return std::string(std::get<0>(info.param).name) +
                                  (std::get<1>(info.param) ? "_portable" : "_default");
                         });

const char kInt8[] = "mobilenet_v2_int8";

// The lowered int8 program's reference is the real ExecuTorch runtime on the
// same file: XNNPACK's int8 arithmetic is not torch's reference ops'.
TEST(ZooInt8Test, XnnpackMatchesRealRuntime) {
  RegisterAllKernels();
  EF_ZOO_DIR_OR_SKIP(dir, kInt8);
  if (!FileExists(dir + "/model_xnnpack.pte")) {
    GTEST_SKIP() << kInt8 << " has no model_xnnpack.pte (make models exports it)";
  }
  for (bool portable_only : {false, true}) {
    ExpectInt8Agreement(kInt8, dir, "model_xnnpack.pte", "runtime_xnnpack_", portable_only, {});
  }
}

TEST(MiniZooInt8Test, MiniInt8XnnpackMatchesRealRuntime) {
  RegisterAllKernels();
  const std::string dir = kMiniZoo + std::string(kInt8);
  for (bool portable_only : {false, true}) {
    ExpectInt8Agreement(std::string("mini ") + kInt8, dir, "model_xnnpack.pte", "runtime_xnnpack_",
                        portable_only, {});
  }
}

// The portable int8 program (model.pte) on input_0 and the top-1 samples,
// held to the real runtime: >= 99.9 % of elements within one step, the
// same top-1 class on every input. With the default kernels the plan's
// fused int8 kernels run; on ordinary scales they compute the portable
// chain's float arithmetic in its order (quantized_conv_chain.h), so they
// are held to the same criterion. Parameter: portable kernels only.
class Int8Top1Test : public ::testing::TestWithParam<bool> {
 protected:
  static void SetUpTestSuite() { RegisterAllKernels(); }
};

TEST_P(Int8Top1Test, AgreesWithTorch) {
  EF_ZOO_DIR_OR_SKIP(dir, kInt8);
  const bool portable_only = GetParam();
  ExpectInt8Agreement(kInt8, dir, "model.pte", "runtime_", portable_only,
                      {/*within_one_step=*/true, /*top1=*/true});
}

TEST_P(Int8Top1Test, MiniAgreesWithTorch) {
  const std::string dir = kMiniZoo + std::string(kInt8);
  ASSERT_TRUE(FileExists(dir + "/top1_inputs.npy")) << dir << "/top1_inputs.npy is missing";
  ExpectInt8Agreement(std::string("mini ") + kInt8, dir, "model.pte", "runtime_", GetParam(),
                      {/*within_one_step=*/true, /*top1=*/true});
}

INSTANTIATE_TEST_SUITE_P(Zoo, Int8Top1Test, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return std::string(info.param ? "portable" : "default");
                         });

}  // namespace
}  // namespace edgefleet
