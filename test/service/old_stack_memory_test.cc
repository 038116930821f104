// The old stack's memory accounting counts what libtorch allocates outside
// its own allocator: XNNPACK's prepacked weights (built during the load,
// inside its timed phase) and the workspaces XNNPACK operators set up when
// they run. Each test case runs in its own process (gtest_discover_tests)
// with libtorch on one thread, so the process heap (glibc mallinfo2: arena
// bytes in use plus mmapped chunks) around a load and a run is the model's
// alone (after a warm-up load of another model); the stack's tally is
// reconciled with it. The lower bound on the
// packed weights is the exporter's (ptl_manifest.json
// "prepacked_weight_bytes": the float weights and biases Debian's torch
// handed to XNNPACK prepacking; XNNPACK pads them to its tiles).

#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runtime/tools/npy.h"
#include "service/model_repository.h"
#include "service/stack.h"

namespace edgefleet {
namespace service {
namespace {

int64_t HeapInUse() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<int64_t>(info.uordblks + info.hblkhd);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TensorData ReadNpy(const std::string& path) {
  const std::string bytes = ReadFile(path);
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

uint64_t PrepackedWeightBytes(const std::string& name) {
  const nlohmann::json manifest =
      nlohmann::json::parse(ReadFile("test/fixtures/ptl_manifest.json"));
  for (const nlohmann::json& entry : manifest["ptl"]) {
    if (entry["name"] == name) return entry["prepacked_weight_bytes"].get<uint64_t>();
  }
  ADD_FAILURE() << name << " is not in test/fixtures/ptl_manifest.json";
  return 0;
}

class OldStackMemoryTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OldStackMemoryTest, CountsPrepackedWeightsAndReconcilesWithTheHeap) {
  const std::string name = GetParam();
  Stack* stack = GetStack(v1::STACK_PYTORCH_MOBILE);
  ASSERT_TRUE(stack->Available().ok()) << stack->Available();
  std::vector<TensorData> inputs;
  for (int i = 0;; ++i) {
    const std::string path = "test/fixtures/" + name + "/input_" + std::to_string(i) + ".npy";
    if (!std::ifstream(path).good()) break;
    inputs.push_back(ReadNpy(path));
  }
  ASSERT_FALSE(inputs.empty());
  const uint64_t packed_lower_bound = PrepackedWeightBytes(name);
  ASSERT_GT(packed_lower_bound, 0u) << name << " has no prepacked weights";
  {
    // libtorch's one-time process set-up (about 1.2 MB of registrations on
    // the first load) is not the model's: a warm-up load of another model.
    absl::StatusOr<std::unique_ptr<LoadedModel>> warm_up =
        stack->Load("test/fixtures/add/model.ptl", StackOptions());
    ASSERT_TRUE(warm_up.ok()) << warm_up.status();
  }

  const int64_t heap_before = HeapInUse();
  absl::StatusOr<std::unique_ptr<LoadedModel>> model =
      stack->Load("test/fixtures/" + name + "/model.ptl", StackOptions());
  ASSERT_TRUE(model.ok()) << model.status();
  const int64_t heap_loaded = HeapInUse();
  const LoadFacts facts = (*model)->load_facts();
  {
    absl::StatusOr<std::vector<TensorData>> outputs = (*model)->Run(inputs);
    ASSERT_TRUE(outputs.ok()) << outputs.status();
  }
  const int64_t heap_ran = HeapInUse();
  const uint64_t peak = (*model)->peak_memory_bytes();

  const int64_t load_delta = heap_loaded - heap_before;
  printf(
      "%s: heap +%lld bytes at load; counted %llu (libtorch allocator %llu, XNNPACK %llu;"
      " exporter's prepacked weights %llu); not counted (libtorch's own malloc: bytecode,"
      " interpreter) %lld\n",
      name.c_str(), (long long)load_delta, (unsigned long long)facts.memory_bytes,
      (unsigned long long)(facts.memory_bytes - facts.memory_xnnpack_bytes),
      (unsigned long long)facts.memory_xnnpack_bytes, (unsigned long long)packed_lower_bound,
      (long long)(load_delta - (int64_t)facts.memory_bytes));
  printf("%s: heap +%lld bytes after the first run (outputs freed); counted peak %llu\n",
         name.c_str(), (long long)(heap_ran - heap_loaded), (unsigned long long)peak);

  // The load packed the weights (inside Load, so inside its timed phase)
  // and the packed copies are counted.
  EXPECT_GE(facts.memory_xnnpack_bytes, packed_lower_bound);
  // The libtorch-allocator part still holds the unpacked weights the
  // prepack contexts keep; the counted total grew by the packed copies.
  EXPECT_GE(facts.memory_bytes, packed_lower_bound + facts.memory_xnnpack_bytes);
  // What is counted was really allocated in this process during the load.
  EXPECT_GE(load_delta, static_cast<int64_t>(facts.memory_bytes));
  // The run's peak includes the load's memory.
  EXPECT_GE(peak, facts.memory_bytes);

  const int64_t heap_loaded_again = HeapInUse();
  model->reset();
  // Unloading returns at least what was counted.
  EXPECT_GE(heap_loaded_again - HeapInUse(), static_cast<int64_t>(facts.memory_bytes));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, OldStackMemoryTest,
                         ::testing::Values("mlp", "small_cnn", "mobilenet_v2_035"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace service
}  // namespace edgefleet
