// End-to-end tests of edgefleet-run through RunCli: programs written by the
// test ProgramBuilder (error paths, layouts, scalar values) and, when
// present, the committed fixtures in test/fixtures.

#include "runtime/tools/cli.h"

#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/core/error_detail.h"
#include "runtime/tools/file_io.h"
#include "runtime/tools/npy.h"
#include "test/util/program_builder.h"

namespace edgefleet {
namespace tools {
namespace {

using ::edgefleet::testing::ProgramBuilder;

struct CliResult {
  int code;
  std::string out;
  std::string err;
};

std::string ReadAll(FILE* f) {
  std::string text;
  rewind(f);
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), f)) > 0) text.append(buffer, n);
  fclose(f);
  return text;
}

CliResult Cli(const std::vector<std::string>& args) {
  std::vector<const char*> argv = {"edgefleet-run"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  FILE* out = tmpfile();
  FILE* err = tmpfile();
  const int code = RunCli(static_cast<int>(argv.size()), argv.data(), out, err);
  return {code, ReadAll(out), ReadAll(err)};
}

NpyArray Floats(std::vector<int32_t> shape, std::vector<float> values) {
  NpyArray array;
  array.shape = std::move(shape);
  array.data.resize(values.size() * sizeof(float));
  memcpy(array.data.data(), values.data(), array.data.size());
  return array;
}

std::vector<float> AsFloats(const NpyArray& array) {
  std::vector<float> values(array.data.size() / sizeof(float));
  memcpy(values.data(), array.data.data(), array.data.size());
  return values;
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/edgefleet_cli_test_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::vector<uint8_t>& bytes) {
    const std::string path = dir_ + "/" + name;
    EXPECT_EQ(WriteFileBytes(path, bytes), Error::kOk) << LastErrorDetail();
    return path;
  }
  std::string WriteNpy(const std::string& name, const NpyArray& array) {
    Result<std::vector<uint8_t>> bytes = SerializeNpy(array);
    EXPECT_TRUE(bytes.ok()) << LastErrorDetail();
    return Write(name, *bytes);
  }
  NpyArray ReadNpy(const std::string& path) {
    Result<std::vector<uint8_t>> bytes = ReadFileBytes(path);
    EXPECT_TRUE(bytes.ok()) << LastErrorDetail();
    if (!bytes.ok()) return {};
    Result<NpyArray> array = ParseNpy(bytes->data(), bytes->size());
    EXPECT_TRUE(array.ok()) << LastErrorDetail();
    return array.ok() ? std::move(*array) : NpyArray();
  }

  // Inputs: float32[2,3] tensor and Int 3; outputs: the tensor, the Int,
  // Double 0.5 and Bool true. No instructions.
  std::string PassThroughModel() {
    ProgramBuilder b;
    const int t = b.AddPlannedTensor(ScalarType::kFloat, {2, 3});
    const int i = b.AddInt(3), d = b.AddDouble(0.5), f = b.AddBool(true);
    b.SetInputs({t, i});
    b.SetOutputs({t, i, d, f});
    return Write("pass.pte", b.Build());
  }

  // One planned input float32[2,3] fed to `op_name` (or a delegate call to
  // `backend`), one output.
  std::string OneCallModel(const std::string& op_name, const std::string& backend) {
    ProgramBuilder b;
    const int in = b.AddPlannedTensor(ScalarType::kFloat, {2, 3});
    const int out = b.AddPlannedTensor(ScalarType::kFloat, {2, 3});
    if (backend.empty()) {
      b.AddKernelCall(b.AddOperator(op_name, "out"), {in, out, out});
    } else {
      b.AddDelegateCall(b.AddDelegate(backend, {1, 2, 3}), {in, out});
    }
    b.SetInputs({in});
    b.SetOutputs({out});
    return Write("call.pte", b.Build());
  }

  std::string dir_;
};

TEST_F(CliTest, RunWritesTensorAndScalarOutputs) {
  const std::string model = PassThroughModel();
  const std::string x = WriteNpy("x.npy", Floats({2, 3}, {1, 2, 3, 4, 5, 6}));
  NpyArray three;
  three.dtype = ScalarType::kLong;
  three.data.resize(8);
  const int64_t v = 3;
  memcpy(three.data.data(), &v, 8);
  const std::string n = WriteNpy("n.npy", three);
  const std::string out = dir_ + "/out/nested";
  const CliResult r =
      Cli({"run", model, "--input", x, "--input", n, "--output-dir", out, "--iterations", "3"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(AsFloats(ReadNpy(out + "/output_0.npy")), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  const NpyArray i = ReadNpy(out + "/output_1.npy");
  EXPECT_EQ(i.dtype, ScalarType::kLong);
  EXPECT_TRUE(i.shape.empty());
  EXPECT_EQ(i.data, three.data);
  const NpyArray d = ReadNpy(out + "/output_2.npy");
  EXPECT_EQ(d.dtype, ScalarType::kDouble);
  double dv;
  memcpy(&dv, d.data.data(), 8);
  EXPECT_EQ(dv, 0.5);
  const NpyArray f = ReadNpy(out + "/output_3.npy");
  EXPECT_EQ(f.dtype, ScalarType::kBool);
  EXPECT_EQ(f.data, std::vector<uint8_t>{1});
}

TEST_F(CliTest, RunJsonIsOneObject) {
  const CliResult r = Cli({"run", PassThroughModel(), "--json", "--seed", "9", "--warmup", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_FALSE(r.out.empty());
  EXPECT_EQ(r.out.front(), '{');
  EXPECT_EQ(r.out.substr(r.out.size() - 2), "}\n");
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1);
  for (const char* key :
       {"\"model\":", "\"method\":\"forward\"", "\"load_ms\":", "\"method_load_ms\":",
        "\"first_ms\":", "\"latency_ms\":{\"p50\":", "\"p90\":", "\"min\":", "\"max\":",
        "\"mean\":", "\"cpu_ms\":", "\"iterations\":10", "\"warmup\":2",
        "\"bytes_read\":", "\"memory\":{\"planned\":", "\"method_allocator\":", "\"temp_peak\":",
        "\"outputs\":[{\"dtype\":\"float32\",\"shape\":[2,3]},{\"dtype\":\"int64\",\"shape\":[]},"
        "{\"dtype\":\"float64\",\"shape\":[]},{\"dtype\":\"bool\",\"shape\":[]}]",
        "\"inputs\":[{\"source\":\"random\",\"value\":\"float32[2,3]\"},"
        "{\"source\":\"traced\",\"value\":\"Int\"}]"}) {
    EXPECT_NE(r.out.find(key), std::string::npos) << key << " in " << r.out;
  }
}

TEST_F(CliTest, RandomInputsAreSeeded) {
  const std::string model = PassThroughModel();
  ASSERT_EQ(Cli({"run", model, "--seed", "4", "--output-dir", dir_ + "/a"}).code, 0);
  ASSERT_EQ(Cli({"run", model, "--seed", "4", "--output-dir", dir_ + "/b"}).code, 0);
  ASSERT_EQ(Cli({"run", model, "--seed", "5", "--output-dir", dir_ + "/c"}).code, 0);
  const std::vector<float> a = AsFloats(ReadNpy(dir_ + "/a/output_0.npy"));
  EXPECT_EQ(a, AsFloats(ReadNpy(dir_ + "/b/output_0.npy")));
  EXPECT_NE(a, AsFloats(ReadNpy(dir_ + "/c/output_0.npy")));
  for (float v : a) {
    EXPECT_GE(v, -1.0f);
    EXPECT_LT(v, 1.0f);
  }
}

TEST_F(CliTest, ChannelsLastInputsAndOutputsUseLogicalOrder) {
  for (bool planned : {true, false}) {
    ProgramBuilder b;
    const int t = planned ? b.AddPlannedTensor(ScalarType::kFloat, {1, 2, 2, 3}, {0, 2, 3, 1})
                          : b.AddUnplannedTensor(ScalarType::kFloat, {1, 2, 2, 3});
    if (!planned) b.tensor(t).dim_order = {0, 2, 3, 1};
    b.SetInputs({t});
    b.SetOutputs({t});
    const std::string model = Write("cl.pte", b.Build());
    std::vector<float> values(12);
    for (int i = 0; i < 12; ++i) values[i] = static_cast<float>(i);
    const std::string x = WriteNpy("x.npy", Floats({1, 2, 2, 3}, values));
    const CliResult r = Cli({"run", model, "--input", x, "--output-dir", dir_});
    ASSERT_EQ(r.code, 0) << r.err;
    const NpyArray out = ReadNpy(dir_ + "/output_0.npy");
    EXPECT_EQ(out.shape, (std::vector<int32_t>{1, 2, 2, 3}));
    EXPECT_EQ(AsFloats(out), values) << (planned ? "planned" : "unplanned");
  }
}

TEST_F(CliTest, InputMismatchesAreOneLine) {
  const std::string model = PassThroughModel();
  const struct {
    NpyArray array;
    const char* err;
  } cases[] = {
      {Floats({3, 2}, {1, 2, 3, 4, 5, 6}),
       "edgefleet-run: input 0: expected float32[2,3], got float32[3,2]\n"},
      {Floats({6}, {1, 2, 3, 4, 5, 6}),
       "edgefleet-run: input 0: expected float32[2,3], got float32[6]\n"},
  };
  for (const auto& c : cases) {
    const CliResult r = Cli({"run", model, "--input", WriteNpy("x.npy", c.array)});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err, c.err);
  }
  NpyArray four;
  four.dtype = ScalarType::kLong;
  four.data = {4, 0, 0, 0, 0, 0, 0, 0};
  const std::string x = WriteNpy("x.npy", Floats({2, 3}, {1, 2, 3, 4, 5, 6}));
  CliResult s = Cli({"run", model, "--input", x, "--input", WriteNpy("n.npy", four)});
  EXPECT_EQ(s.code, 1);
  EXPECT_EQ(s.err, "edgefleet-run: input 1: expected the traced value 3\n");
  s = Cli({"run", model, "--input", x, "--input", x});
  EXPECT_EQ(s.code, 1);
  EXPECT_EQ(s.err,
            "edgefleet-run: input 1: expected a 0-d int64 array for this Int input, got "
            "float32[2,3]\n");
  NpyArray ints;
  ints.dtype = ScalarType::kInt;
  ints.shape = {2, 3};
  ints.data.resize(24);
  const CliResult r = Cli({"run", model, "--input", WriteNpy("i.npy", ints)});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "edgefleet-run: input 0: expected float32[2,3], got int32[2,3]\n");
}

TEST_F(CliTest, RuntimeFailuresAreOneLine) {
  CliResult r = Cli({"run", OneCallModel("aten::foo", "")});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "edgefleet-run: operator aten::foo.out is not registered\n");
  r = Cli({"run", OneCallModel("", "QnnBackend")});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "edgefleet-run: backend QnnBackend is not registered\n");
  r = Cli({"run", dir_ + "/missing.pte"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "edgefleet-run: cannot open " + dir_ + "/missing.pte: No such file or directory\n");
  r = Cli({"run", PassThroughModel(), "--method", "main"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "edgefleet-run: method 'main' not found (the program has: forward)\n");
  r = Cli({"run", Write("junk.pte", std::vector<uint8_t>(64, 7))});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.find("edgefleet-run: "), 0u);
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  r = Cli({"run", PassThroughModel(), "--input", Write("bad.npy", {'x'})});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "edgefleet-run: " + dir_ + "/bad.npy: not a .npy file (bad magic)\n");
}

TEST_F(CliTest, UsageErrorsExitTwo) {
  CliResult r = Cli({});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.find("edgefleet-run: missing command"), 0u);
  EXPECT_NE(r.err.find("usage:"), std::string::npos);
  r = Cli({"run", "m.pte", "--frobnicate"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "edgefleet-run: unknown flag '--frobnicate'\n");
  r = Cli({"--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("usage:"), std::string::npos);
}

TEST_F(CliTest, InspectReportsUnloadableMethodsWithoutFailing) {
  CliResult r = Cli({"inspect", OneCallModel("aten::foo", ""), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("\"operators\":[\"aten::foo.out\"],"
                       "\"unregistered_operators\":[\"aten::foo.out\"]"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"loaded\":false,\"load_error\":\"operator aten::foo.out is not "
                       "registered\""),
            std::string::npos)
      << r.out;
  r = Cli({"inspect", OneCallModel("aten::foo", "")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("unregistered     1: aten::foo.out"), std::string::npos) << r.out;
  r = Cli({"inspect", OneCallModel("", "QnnBackend")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("unregistered"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("delegates        1: QnnBackend"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not resolved: backend QnnBackend is not registered"), std::string::npos)
      << r.out;
}

TEST_F(CliTest, InspectDescribesLayout) {
  const CliResult r = Cli({"inspect", PassThroughModel(), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* key :
       {"\"extended_header\":true", "\"program_size\":", "\"segments\":[",
        "\"constant_segment_size\":0", "\"deprecated_inline_constants\":false",
        "\"named_data_keys\":[]", "\"name\":\"forward\"",
        "\"inputs\":[{\"tag\":\"Tensor\",\"dtype\":\"float32\",\"shape\":[2,3],\"dim_order\":[0,1],"
        "\"dynamism\":\"static\",\"planned\":true,\"nbytes\":24},{\"tag\":\"Int\"}]",
        "\"planned_buffers\":[32]", "\"instructions\":0", "\"loaded\":true",
        "\"instruction_kinds\":[]", "\"instruction_names\":[]"}) {
    EXPECT_NE(r.out.find(key), std::string::npos) << key << " in " << r.out;
  }
}

// The committed fixtures through the whole CLI (see test/fixtures/README.md).
TEST_F(CliTest, FixturesReproduceExpectedOutputs) {
  const std::string root = EF_SOURCE_DIR "/test/fixtures/";
  for (const char* name : {"add", "channels_last", "two_in_tuple_out", "dynamic_bound"}) {
    SCOPED_TRACE(name);
    const std::string fixture = root + name;
    if (access((fixture + "/model.pte").c_str(), R_OK) != 0) GTEST_SKIP() << "no fixture";
    std::vector<std::string> args = {"run", fixture + "/model.pte", "--iterations",
                                     "1",   "--output-dir",         dir_ + "/" + name};
    for (int i = 0; access((fixture + "/input_" + std::to_string(i) + ".npy").c_str(), R_OK) == 0;
         ++i) {
      args.push_back("--input");
      args.push_back(fixture + "/input_" + std::to_string(i) + ".npy");
    }
    const CliResult r = Cli(args);
    ASSERT_EQ(r.code, 0) << r.err;
    for (int i = 0;
         access((fixture + "/expected_" + std::to_string(i) + ".npy").c_str(), R_OK) == 0; ++i) {
      const NpyArray expected = ReadNpy(fixture + "/expected_" + std::to_string(i) + ".npy");
      const NpyArray got = ReadNpy(dir_ + "/" + name + "/output_" + std::to_string(i) + ".npy");
      ASSERT_EQ(got.dtype, expected.dtype);
      ASSERT_EQ(got.shape, expected.shape);
      const std::vector<float> a = AsFloats(got), b = AsFloats(expected);
      for (size_t k = 0; k < a.size(); ++k) {
        EXPECT_NEAR(a[k], b[k], 1e-5 * std::max(1.0f, std::fabs(b[k]))) << "output " << i;
      }
    }
  }
}

// --dump-intermediates on a fixture: every executed instruction listed,
// each of the method's outputs among the dumped tensors (bit for bit: the
// same kernels wrote both), and the bounds refuse with nothing written.
TEST_F(CliTest, DumpIntermediatesListsInstructionsAndHoldsTheOutputs) {
  const std::string fixture = EF_SOURCE_DIR "/test/fixtures/two_in_tuple_out";
  if (access((fixture + "/model.pte").c_str(), R_OK) != 0) GTEST_SKIP() << "no fixture";
  const std::vector<std::string> inputs = {"--input", fixture + "/input_0.npy", "--input",
                                           fixture + "/input_1.npy"};
  std::vector<std::string> args = {
      "run",          fixture + "/model.pte", "--iterations", "0", "--dump-intermediates",
      dir_ + "/dump", "--output-dir",         dir_ + "/out"};
  args.insert(args.end(), inputs.begin(), inputs.end());
  const CliResult r = Cli(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("intermediates"), std::string::npos) << r.out;
  Result<std::vector<uint8_t>> index = ReadFileBytes(dir_ + "/dump/index.json");
  ASSERT_TRUE(index.ok());
  const std::string text(index->begin(), index->end());
  size_t listed = 0;
  for (size_t pos = text.find("\"instruction\":"); pos != std::string::npos;
       pos = text.find("\"instruction\":", pos + 1)) {
    ++listed;
  }
  EXPECT_GE(listed, 3u);  // three outputs, each from its own instruction
  std::vector<NpyArray> dumped;
  for (const auto& entry : std::filesystem::directory_iterator(dir_ + "/dump")) {
    if (entry.path().extension() == ".npy") dumped.push_back(ReadNpy(entry.path().string()));
  }
  EXPECT_GE(dumped.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const NpyArray out = ReadNpy(dir_ + "/out/output_" + std::to_string(i) + ".npy");
    bool found = false;
    for (const NpyArray& d : dumped) found |= d.shape == out.shape && d.data == out.data;
    EXPECT_TRUE(found) << "output " << i << " is not among the dumped tensors";
  }

  for (const std::vector<std::string>& bound :
       {std::vector<std::string>{"--dump-max-tensors", "1"},
        std::vector<std::string>{"--dump-max-bytes", "8"}}) {
    std::vector<std::string> capped = {"run", fixture + "/model.pte", "--iterations",
                                       "0",   "--dump-intermediates", dir_ + "/capped"};
    capped.insert(capped.end(), inputs.begin(), inputs.end());
    capped.insert(capped.end(), bound.begin(), bound.end());
    const CliResult c = Cli(capped);
    EXPECT_NE(c.code, 0) << bound[0];
    EXPECT_NE(c.err.find("--dump-intermediates: the execute's outputs are more than"),
              std::string::npos)
        << c.err;
    EXPECT_EQ(c.err.find('\n'), c.err.size() - 1) << "one line: " << c.err;
    EXPECT_FALSE(std::filesystem::exists(dir_ + "/capped/index.json"));
  }
}

}  // namespace
}  // namespace tools
}  // namespace edgefleet
