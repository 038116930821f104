// Both stacks give the same outputs for the same inputs: every fixture with
// a .ptl is run on the edgefleet stack (model.pte) and the pytorch-mobile
// stack (model.ptl) on the fixture's inputs, and both are compared with the
// exporter's expected outputs (torch eager). Prints load facts side by side.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "runtime/tools/npy.h"
#include "service/model_repository.h"
#include "service/stack.h"

namespace edgefleet {
namespace service {
namespace {

TensorData ReadNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string bytes = buffer.str();
  Result<tools::NpyArray> array =
      tools::ParseNpy(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  EXPECT_TRUE(array.ok()) << path;
  TensorData t;
  if (!array.ok()) return t;
  t.dtype = array->dtype;
  for (int32_t d : array->shape) t.shape.push_back(d);
  t.bytes = array->data;
  return t;
}

bool Exists(const std::string& path) { return std::ifstream(path).good(); }

class StacksAgreeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(StacksAgreeTest, SameOutputsAsTheExporter) {
  const std::string name = GetParam();
  const std::string dir = "test/fixtures/" + name;
  ASSERT_TRUE(Exists(dir + "/model.ptl")) << "run tools/export/export_ptl.py";
  absl::StatusOr<std::unique_ptr<ModelRepository>> repo = ModelRepository::Open("test/fixtures");
  ASSERT_TRUE(repo.ok());
  std::vector<TensorData> inputs;
  for (int i = 0; Exists(dir + "/input_" + std::to_string(i) + ".npy"); ++i) {
    inputs.push_back(ReadNpy(dir + "/input_" + std::to_string(i) + ".npy"));
  }
  for (v1::Stack id : {v1::STACK_EDGEFLEET, v1::STACK_PYTORCH_MOBILE}) {
    SCOPED_TRACE(ModelRepository::FileName(id));
    Stack* stack = GetStack(id);
    ASSERT_TRUE(stack->Available().ok()) << stack->Available();
    absl::StatusOr<ModelFile> file = (*repo)->OpenModel(name, id);
    ASSERT_TRUE(file.ok()) << file.status();
    absl::StatusOr<std::unique_ptr<LoadedModel>> model = stack->Load(file->path(), StackOptions());
    ASSERT_TRUE(model.ok()) << model.status();
    absl::StatusOr<std::vector<TensorData>> outputs = (*model)->Run(inputs);
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    const LoadFacts& facts = (*model)->load_facts();
    printf(
        "%-18s %s: read %8llu bytes, parse %6lld us, init %5lld us, memory %8llu bytes,"
        " peak %8llu bytes\n",
        name.c_str(), ModelRepository::FileName(id), (unsigned long long)facts.bytes_read,
        (long long)facts.host_parse_us, (long long)facts.host_init_us,
        (unsigned long long)facts.memory_bytes, (unsigned long long)(*model)->peak_memory_bytes());
    for (size_t j = 0; j < outputs->size(); ++j) {
      const TensorData expected = ReadNpy(dir + "/expected_" + std::to_string(j) + ".npy");
      const TensorData& got = (*outputs)[j];
      ASSERT_EQ(got.shape, expected.shape) << "output " << j;
      ASSERT_EQ(got.dtype, expected.dtype);
      if (got.dtype != ScalarType::kFloat) {
        EXPECT_EQ(got.bytes, expected.bytes);
        continue;
      }
      for (size_t k = 0; k < got.bytes.size() / 4; ++k) {
        float g, w;
        memcpy(&g, got.bytes.data() + 4 * k, 4);
        memcpy(&w, expected.bytes.data() + 4 * k, 4);
        ASSERT_NEAR(g, w, 1e-4f + 1e-3f * std::fabs(w)) << "output " << j << " element " << k;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, StacksAgreeTest,
                         ::testing::Values("add", "mlp", "small_cnn", "mobilenet_v2_035",
                                           "two_in_tuple_out", "channels_last", "dynamic_bound",
                                           "ops_mix"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace service
}  // namespace edgefleet
