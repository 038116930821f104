#include "service/model_repository.h"

#include <gtest/gtest.h>

#include <filesystem>

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

// A repository whose entries are symbolic links: a link to a file or a
// directory outside the repository is refused (INVALID_ARGUMENT), a link
// that stays inside is followed.
TEST(ModelRepositoryTest, SymlinksLeavingTheRepositoryAreRefused) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(::testing::TempDir()) / "symlink_repo";
  fs::remove_all(root);
  const fs::path fixture = fs::absolute("test/fixtures/small_cnn/model.pte");
  ASSERT_TRUE(fs::exists(fixture));
  fs::create_directories(root / "inside");
  fs::copy_file(fixture, root / "inside" / "model.pte");
  fs::create_directories(root / "file_link");
  fs::create_symlink(fixture, root / "file_link" / "model.pte");
  fs::create_directory_symlink(fixture.parent_path(), root / "dir_link");
  fs::create_directories(root / "relative_escape");
  std::string up;  // enough "../" to climb from the link's directory to "/"
  for (const fs::path& part : root / "relative_escape") up += part.empty() ? "" : "../";
  fs::create_symlink(up + fixture.relative_path().string(), root / "relative_escape" / "model.pte");
  fs::create_directory_symlink("inside", root / "alias");

  absl::StatusOr<std::unique_ptr<ModelRepository>> repo = ModelRepository::Open(root.string());
  ASSERT_TRUE(repo.ok()) << repo.status();
  EXPECT_TRUE((*repo)->ModelPath("inside", v1::STACK_EDGEFLEET).ok());
  absl::StatusOr<std::string> alias = (*repo)->ModelPath("alias", v1::STACK_EDGEFLEET);
  ASSERT_TRUE(alias.ok()) << alias.status();
  EXPECT_EQ(*alias, fs::canonical(root / "inside" / "model.pte").string());
  for (const char* name : {"file_link", "dir_link", "relative_escape"}) {
    SCOPED_TRACE(name);
    absl::StatusOr<std::string> path = (*repo)->ModelPath(name, v1::STACK_EDGEFLEET);
    EXPECT_EQ(path.status().code(), absl::StatusCode::kInvalidArgument) << path.status();
    EXPECT_NE(path.status().message().find("outside the repository"), std::string::npos);
  }
}

TEST(ModelRepositoryTest, MissingRootIsInvalidArgument) {
  EXPECT_EQ(ModelRepository::Open("/no/such/dir").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace service
}  // namespace edgefleet
