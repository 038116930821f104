#include "service/model_repository.h"

#include <gtest/gtest.h>

namespace edgefleet {
namespace service {
namespace {

TEST(ModelRepositoryTest, NamesThatArePathsAreInvalidArgument) {
  for (const char* name : {"../etc/passwd", "a/b", "..", "a\\b", "mobilenet/../x", ".hidden",
                           "", "white space", "x\n", "/abs"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(ModelRepository::ValidateName(name).code(), absl::StatusCode::kInvalidArgument);
  }
  EXPECT_TRUE(ModelRepository::ValidateName("mobilenet_v2_035").ok());
  EXPECT_TRUE(ModelRepository::ValidateName("model-v2.1").ok());
  EXPECT_EQ(ModelRepository::ValidateName(std::string(65, 'a')).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ModelRepositoryTest, ServesFixturesByName) {
  absl::StatusOr<std::unique_ptr<ModelRepository>> repo = ModelRepository::Open("test/fixtures");
  ASSERT_TRUE(repo.ok()) << repo.status();
  const std::vector<std::string> models = (*repo)->ListModels();
  EXPECT_NE(std::find(models.begin(), models.end(), "mobilenet_v2_035"), models.end());
  absl::StatusOr<std::string> pte = (*repo)->ModelPath("mobilenet_v2_035", v1::STACK_EDGEFLEET);
  ASSERT_TRUE(pte.ok()) << pte.status();
  EXPECT_NE(pte->find("/mobilenet_v2_035/model.pte"), std::string::npos);
  EXPECT_EQ((*repo)->ModelPath("no_such_model", v1::STACK_EDGEFLEET).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ((*repo)->ModelPath("../fixtures", v1::STACK_EDGEFLEET).status().code(),
            absl::StatusCode::kInvalidArgument);

  absl::StatusOr<ModelSignature> signature = (*repo)->Signature("mobilenet_v2_035");
  ASSERT_TRUE(signature.ok()) << signature.status();
  ASSERT_EQ(signature->inputs.size(), 1u);
  EXPECT_EQ(signature->inputs[0].name, "input_0");
  EXPECT_EQ(signature->inputs[0].shape, (std::vector<int64_t>{1, 3, 96, 96}));
  ASSERT_EQ(signature->outputs.size(), 1u);
  EXPECT_EQ(signature->outputs[0].shape, (std::vector<int64_t>{1, 10}));
}

TEST(ModelRepositoryTest, MissingRootIsInvalidArgument) {
  EXPECT_EQ(ModelRepository::Open("/no/such/dir").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace service
}  // namespace edgefleet
