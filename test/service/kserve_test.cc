// The Open Inference Protocol through generated stubs against the real
// server: health and metadata, real inference on the fixture's input, and
// bad requests (each gets the right status and a message naming the
// problem, and the server keeps serving).

#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/generic/generic_stub.h>
#include <gtest/gtest.h>

#include <cmath>
#include <condition_variable>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>

#include "runtime/tools/npy.h"
#include "test/service/service_stubs.h"

namespace edgefleet {
namespace testing {
namespace {

tools::NpyArray ReadNpyFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string bytes = buffer.str();
  Result<tools::NpyArray> array =
      tools::ParseNpy(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  EXPECT_TRUE(array.ok()) << path;
  return array.ok() ? *array : tools::NpyArray{};
}

class KserveTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new ServerProcess();
    std::vector<std::string> flags = DefaultServerFlags();
    flags.push_back(std::string("--calibration=") + EF_TEST_CALIBRATION);
    flags.push_back("--max_message_bytes=1048576");
    ASSERT_TRUE(server_->Start(flags)) << server_->log();
  }
  static void TearDownTestSuite() {
    EXPECT_EQ(server_->Terminate(), 0);
    delete server_;
  }

  // A correct request for the embedded default model, from its fixture.
  static inference::ModelInferRequest GoodRequest() {
    const tools::NpyArray input = ReadNpyFile("test/fixtures/mobilenet_v2_035/input_0.npy");
    inference::ModelInferRequest request;
    request.set_model_name("mobilenet_v2_035");
    request.set_id("req-1");
    auto* tensor = request.add_inputs();
    tensor->set_name("input_0");
    tensor->set_datatype("FP32");
    for (int32_t d : input.shape) tensor->add_shape(d);
    request.add_raw_input_contents(std::string(input.data.begin(), input.data.end()));
    return request;
  }

  static grpc::Status Infer(const inference::ModelInferRequest& request,
                            inference::ModelInferResponse* response) {
    grpc::ClientContext context;
    return InferenceStub(*server_)->ModelInfer(&context, request, response);
  }

  static ServerProcess* server_;
};

ServerProcess* KserveTest::server_ = nullptr;

TEST_F(KserveTest, HealthAndMetadata) {
  auto stub = InferenceStub(*server_);
  {
    grpc::ClientContext c;
    inference::ServerLiveResponse live;
    ASSERT_TRUE(stub->ServerLive(&c, {}, &live).ok());
    EXPECT_TRUE(live.live());
  }
  {
    grpc::ClientContext c;
    inference::ServerReadyResponse ready;
    ASSERT_TRUE(stub->ServerReady(&c, {}, &ready).ok());
    EXPECT_TRUE(ready.ready());
  }
  {
    grpc::ClientContext c;
    inference::ServerMetadataResponse meta;
    ASSERT_TRUE(stub->ServerMetadata(&c, {}, &meta).ok());
    EXPECT_EQ(meta.name(), "edgefleet");
  }
  {
    grpc::ClientContext c;
    inference::ModelMetadataRequest request;
    request.set_name("mobilenet_v2_035");
    inference::ModelMetadataResponse meta;
    ASSERT_TRUE(stub->ModelMetadata(&c, request, &meta).ok());
    ASSERT_EQ(meta.inputs_size(), 1);
    EXPECT_EQ(meta.inputs(0).name(), "input_0");
    EXPECT_EQ(meta.inputs(0).datatype(), "FP32");
    EXPECT_EQ(meta.inputs(0).shape_size(), 4);
    EXPECT_EQ(meta.outputs(0).shape(1), 10);
  }
  {
    // Bounded-dynamic: -1 only where the size varies, the ranges as
    // parameters (from the model's input_bounds.textproto).
    grpc::ClientContext c;
    inference::ModelMetadataRequest request;
    request.set_name("dynamic_bound");
    inference::ModelMetadataResponse meta;
    ASSERT_TRUE(stub->ModelMetadata(&c, request, &meta).ok());
    ASSERT_EQ(meta.inputs_size(), 1);
    const auto& input = meta.inputs(0);
    EXPECT_EQ(std::vector<int64_t>(input.shape().begin(), input.shape().end()),
              (std::vector<int64_t>{-1, 16}));
    ASSERT_EQ(input.parameters().count("min_shape"), 1u);
    EXPECT_EQ(input.parameters().at("min_shape").string_param(), "1,16");
    EXPECT_EQ(input.parameters().at("max_shape").string_param(), "8,16");
    // Its output follows the batch; its 8 features are fixed.
    ASSERT_EQ(meta.outputs_size(), 1);
    const auto& output = meta.outputs(0);
    EXPECT_EQ(std::vector<int64_t>(output.shape().begin(), output.shape().end()),
              (std::vector<int64_t>{-1, 8}));
    ASSERT_EQ(output.parameters().count("min_shape"), 1u);
    EXPECT_EQ(output.parameters().at("min_shape").string_param(), "1,8");
    EXPECT_EQ(output.parameters().at("max_shape").string_param(), "8,8");
  }
  {
    grpc::ClientContext c;
    inference::ModelReadyRequest request;
    request.set_name("mobilenet_v2_035");
    inference::ModelReadyResponse ready;
    ASSERT_TRUE(stub->ModelReady(&c, request, &ready).ok());
    EXPECT_TRUE(ready.ready());
  }
}

TEST_F(KserveTest, InferMatchesTheExporterOnBothStacks) {
  const tools::NpyArray expected = ReadNpyFile("test/fixtures/mobilenet_v2_035/expected_0.npy");
  for (const char* arm : {"", "mobilenet.edgefleet", "mobilenet.pytorch-mobile"}) {
    SCOPED_TRACE(arm);
    inference::ModelInferRequest request = GoodRequest();
    if (arm[0] != '\0') (*request.mutable_parameters())["arm"].set_string_param(arm);
    (*request.mutable_parameters())["device_class"].set_string_param("high_android");
    inference::ModelInferResponse response;
    const grpc::Status status = Infer(request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(response.id(), "req-1");
    ASSERT_EQ(response.outputs_size(), 1);
    EXPECT_EQ(response.outputs(0).datatype(), "FP32");
    const std::string& raw = response.raw_output_contents(0);
    ASSERT_EQ(raw.size(), expected.data.size());
    for (size_t i = 0; i < raw.size() / 4; ++i) {
      float got, want;
      memcpy(&got, raw.data() + 4 * i, 4);
      memcpy(&want, expected.data.data() + 4 * i, 4);
      EXPECT_NEAR(got, want, 1e-3f + 1e-3f * std::fabs(want)) << i;
    }
    const auto& params = response.parameters();
    ASSERT_EQ(params.count("device_inference_us"), 1u);
    EXPECT_GT(params.at("device_inference_us").int64_param(), 0);
    EXPECT_EQ(params.at("device_class").string_param(), "high_android");
    printf("ModelInfer arm=%-26s stack=%-15s device %lld us, host %lld us\n",
           params.at("arm").string_param().c_str(), params.at("stack").string_param().c_str(),
           (long long)params.at("device_inference_us").int64_param(),
           (long long)params.at("host_inference_us").int64_param());
  }
}

struct BadCase {
  const char* what;
  std::function<void(inference::ModelInferRequest*)> edit;
  grpc::StatusCode code;
  const char* words;
};

TEST_F(KserveTest, BadRequestsGetTheRightStatusAndMessage) {
  const std::vector<BadCase> cases = {
      {"unknown model", [](auto* r) { r->set_model_name("no_such_model"); },
       grpc::StatusCode::NOT_FOUND, "not in the repository"},
      {"path-like name", [](auto* r) { r->set_model_name("../fixtures/mobilenet_v2_035"); },
       grpc::StatusCode::INVALID_ARGUMENT, "path separator"},
      {"dot-dot name", [](auto* r) { r->set_model_name(".."); }, grpc::StatusCode::INVALID_ARGUMENT,
       ".."},
      {"unknown arm", [](auto* r) { (*r->mutable_parameters())["arm"].set_string_param("nope"); },
       grpc::StatusCode::NOT_FOUND, "unknown arm 'nope'"},
      {"arm of another model",
       [](auto* r) { (*r->mutable_parameters())["arm"].set_string_param("mlp.edgefleet"); },
       grpc::StatusCode::INVALID_ARGUMENT, "serves model 'mlp'"},
      {"unknown class",
       [](auto* r) { (*r->mutable_parameters())["device_class"].set_string_param("toaster"); },
       grpc::StatusCode::NOT_FOUND, "unknown device class 'toaster'"},
      {"wrong dtype", [](auto* r) { r->mutable_inputs(0)->set_datatype("INT32"); },
       grpc::StatusCode::INVALID_ARGUMENT, "expected datatype FP32, got INT32"},
      {"wrong shape", [](auto* r) { r->mutable_inputs(0)->set_shape(2, 32); },
       grpc::StatusCode::INVALID_ARGUMENT, "expected FP32[1,3,96,96], got FP32[1,3,32,96]"},
      {"wrong byte count", [](auto* r) { r->mutable_raw_input_contents(0)->resize(100); },
       grpc::StatusCode::INVALID_ARGUMENT, "raw contents hold 100 bytes"},
      {"old stack on bare metal",
       [](auto* r) {
         (*r->mutable_parameters())["arm"].set_string_param("mobilenet.pytorch-mobile");
         (*r->mutable_parameters())["device_class"].set_string_param("microcontroller");
       },
       grpc::StatusCode::FAILED_PRECONDITION,
       "arm 'mobilenet.pytorch-mobile' cannot run on device class 'microcontroller'"},
      {"input in shared memory",
       [](auto* r) {
         (*r->mutable_inputs(0)->mutable_parameters())["shared_memory_region"].set_string_param(
             "region0");
       },
       grpc::StatusCode::INVALID_ARGUMENT,
       "input_0: parameter 'shared_memory_region' asks for an extension"},
      {"classification output",
       [](auto* r) {
         auto* output = r->add_outputs();
         output->set_name("output_0");
         (*output->mutable_parameters())["classification"].set_int64_param(3);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "output_0: parameter 'classification' asks for"},
      {"unknown version", [](auto* r) { r->set_model_version("7"); }, grpc::StatusCode::NOT_FOUND,
       "no version '7'"},
  };
  for (const BadCase& c : cases) {
    inference::ModelInferRequest request = GoodRequest();
    c.edit(&request);
    inference::ModelInferResponse response;
    const grpc::Status status = Infer(request, &response);
    printf("%-22s -> %d %s\n", c.what, status.error_code(), status.error_message().c_str());
    EXPECT_EQ(status.error_code(), c.code) << c.what << ": " << status.error_message();
    EXPECT_NE(status.error_message().find(c.words), std::string::npos)
        << c.what << ": " << status.error_message();
  }
}

TEST_F(KserveTest, ExtensionRpcsAreUnimplementedWithAMessageNamingThem) {
  // Triton's extensions as tritonclient calls them (get_model_config,
  // get_inference_statistics, get_model_repository_index, the streaming
  // API), an unknown method of our own service, and an unknown service.
  struct Case {
    std::string method;
    std::string words;
  };
  const std::string served =
      "it serves ServerLive, ServerReady, ModelReady, ServerMetadata, ModelMetadata and ModelInfer";
  const std::vector<Case> cases = {
      {"/inference.GRPCInferenceService/ModelConfig",
       "inference.GRPCInferenceService/ModelConfig is not implemented by edgefleet-server"},
      {"/inference.GRPCInferenceService/ModelStatistics", "ModelStatistics is not implemented"},
      {"/inference.GRPCInferenceService/RepositoryIndex", "RepositoryIndex is not implemented"},
      {"/inference.GRPCInferenceService/ModelStreamInfer", "ModelStreamInfer is not implemented"},
      {"/edgefleet.v1.Emulator/RunEverything",
       "edgefleet.v1.Emulator has no method 'RunEverything'; it has ListDeviceClasses"},
      {"/no.such.Service/Method" + std::string(300, 'x'), "unknown method '/no.such.Service/"},
  };
  grpc::GenericStub stub(
      grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials()));
  for (const Case& c : cases) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    grpc::Slice empty("");  // an empty message (a default ByteBuffer is no message)
    grpc::ByteBuffer request(&empty, 1), response;
    grpc::Status status;
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    stub.UnaryCall(&context, c.method, grpc::StubOptions(), &request, &response,
                   [&](grpc::Status s) {
                     std::lock_guard<std::mutex> lock(mu);
                     status = std::move(s);
                     done = true;
                     cv.notify_one();
                   });
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return done; });
    printf("%.60s -> %d %s\n", c.method.c_str(), status.error_code(),
           status.error_message().c_str());
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNIMPLEMENTED) << c.method;
    EXPECT_NE(status.error_message().find(c.words), std::string::npos) << status.error_message();
    if (c.method.rfind("/inference.", 0) == 0) {
      EXPECT_NE(status.error_message().find(served), std::string::npos) << status.error_message();
    }
    EXPECT_LT(status.error_message().size(), 400u) << status.error_message();
  }
  inference::ModelInferResponse response;
  EXPECT_TRUE(Infer(GoodRequest(), &response).ok());
}

TEST_F(KserveTest, OversizedMessageIsResourceExhausted) {
  inference::ModelInferRequest request = GoodRequest();
  request.mutable_raw_input_contents(0)->assign(2 << 20, 'x');  // over the 1 MiB limit
  inference::ModelInferResponse response;
  const grpc::Status status = Infer(request, &response);
  printf("oversized -> %d %s\n", status.error_code(), status.error_message().c_str());
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(status.error_message().find("larger than max"), std::string::npos);
  EXPECT_TRUE(Infer(GoodRequest(), &response).ok());
}

TEST_F(KserveTest, AThousandSeededRandomBadRequestsThenAGoodOne) {
  std::mt19937_64 random(1234);
  const inference::ModelInferRequest good = GoodRequest();
  std::map<int, int> codes;
  for (int i = 0; i < 1000; ++i) {
    inference::ModelInferRequest request = good;
    switch (random() % 8) {
      case 0:
        request.set_model_name(
            std::string(1 + random() % 8, static_cast<char>(32 + random() % 95)));
        break;
      case 1:
        request.mutable_inputs(0)->set_shape(random() % 4, static_cast<int64_t>(random()));
        break;
      case 2:
        request.mutable_raw_input_contents(0)->resize(random() % 200000);
        break;
      case 3:
        request.mutable_inputs(0)->set_datatype(random() % 2 ? "BYTES" : "FP64");
        break;
      case 4:
        request.mutable_inputs(0)->set_name("in" + std::to_string(random() % 100));
        break;
      case 5:
        request.clear_raw_input_contents();
        for (uint64_t k = random() % 50; k > 0; --k) {
          request.mutable_inputs(0)->mutable_contents()->add_fp32_contents(1.0f);
        }
        break;
      case 6:
        (*request.mutable_parameters())[random() % 2 ? "arm" : "device_class"].set_int64_param(
            static_cast<int64_t>(random()));
        break;
      default: {
        // Random bytes as the whole message body of a valid-looking request.
        std::string junk(random() % 512, '\0');
        for (char& ch : junk) ch = static_cast<char>(random());
        inference::ModelInferRequest parsed;
        if (!parsed.ParseFromString(junk)) parsed.Clear();  // e.g. non-UTF-8 strings
        parsed.set_model_name("mobilenet_v2_035");
        request = parsed;
        break;
      }
    }
    inference::ModelInferResponse response;
    const grpc::Status status = Infer(request, &response);
    ++codes[status.error_code()];
    ASSERT_NE(status.error_code(), grpc::StatusCode::OK) << request.DebugString();
    ASSERT_NE(status.error_code(), grpc::StatusCode::UNKNOWN) << status.error_message();
    ASSERT_NE(status.error_code(), grpc::StatusCode::INTERNAL) << status.error_message();
    ASSERT_NE(status.error_code(), grpc::StatusCode::UNAVAILABLE) << "server died";
    ASSERT_FALSE(status.error_message().empty());
  }
  for (const auto& [code, count] : codes) printf("status %d: %d requests\n", code, count);
  inference::ModelInferResponse response;
  const grpc::Status status = Infer(good, &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
}

}  // namespace
}  // namespace testing
}  // namespace edgefleet
