#include "service/model_repository.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

namespace edgefleet {
namespace service {
namespace {

// Whether two paths name the same file (device and inode).
bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

TEST(ModelRepositoryTest, NamesThatArePathsAreInvalidArgument) {
  for (const char* name : {"../etc/passwd", "a/b", "..", "a\\b", "mobilenet/../x", ".hidden", "",
                           "white space", "x\n", "/abs"}) {
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
  absl::StatusOr<ModelFile> pte = (*repo)->OpenModel("mobilenet_v2_035", v1::STACK_EDGEFLEET);
  ASSERT_TRUE(pte.ok()) << pte.status();
  EXPECT_TRUE(SameFile(pte->path(), "test/fixtures/mobilenet_v2_035/model.pte"));
  EXPECT_EQ((*repo)->OpenModel("no_such_model", v1::STACK_EDGEFLEET).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ((*repo)->OpenModel("../fixtures", v1::STACK_EDGEFLEET).status().code(),
            absl::StatusCode::kInvalidArgument);

  absl::StatusOr<ModelSignature> signature = (*repo)->Signature("mobilenet_v2_035");
  ASSERT_TRUE(signature.ok()) << signature.status();
  ASSERT_EQ(signature->inputs.size(), 1u);
  EXPECT_EQ(signature->inputs[0].name, "input_0");
  EXPECT_EQ(signature->inputs[0].shape, (std::vector<int64_t>{1, 3, 96, 96}));
  ASSERT_EQ(signature->outputs.size(), 1u);
  EXPECT_EQ(signature->outputs[0].shape, (std::vector<int64_t>{1, 10}));
}

// A repository in a fresh directory holding the dynamic_bound fixture's
// program and, when `bounds` is not null, that text as its
// input_bounds.textproto.
std::unique_ptr<ModelRepository> DynamicBoundRepository(const char* bounds) {
  char pattern[] = "/tmp/ef_bounds_XXXXXX";
  const std::string root = mkdtemp(pattern);
  std::filesystem::create_directories(root + "/m");
  std::filesystem::copy_file("test/fixtures/dynamic_bound/model.pte", root + "/m/model.pte");
  if (bounds != nullptr) std::ofstream(root + "/m/input_bounds.textproto") << bounds;
  absl::StatusOr<std::unique_ptr<ModelRepository>> repo = ModelRepository::Open(root);
  EXPECT_TRUE(repo.ok()) << repo.status();
  return repo.ok() ? *std::move(repo) : nullptr;
}

TEST(ModelRepositoryTest, BoundedDynamicInputsTakeTheirRangesFromTheBoundsFile) {
  // The exporter's file (test/fixtures/dynamic_bound): batch 1..8, 16 features.
  absl::StatusOr<std::unique_ptr<ModelRepository>> fixtures =
      ModelRepository::Open("test/fixtures");
  ASSERT_TRUE(fixtures.ok());
  absl::StatusOr<ModelSignature> signature = (*fixtures)->Signature("dynamic_bound");
  ASSERT_TRUE(signature.ok()) << signature.status();
  EXPECT_TRUE(signature->inputs[0].dynamic);
  EXPECT_EQ(signature->inputs[0].min_shape, (std::vector<int64_t>{1, 16}));
  EXPECT_EQ(signature->inputs[0].shape, (std::vector<int64_t>{8, 16}));
  // Linear(16, 8) follows the batch: output [1..8, 8], the features fixed.
  EXPECT_TRUE(signature->outputs[0].dynamic);
  EXPECT_EQ(signature->outputs[0].min_shape, (std::vector<int64_t>{1, 8}));
  EXPECT_EQ(signature->outputs[0].shape, (std::vector<int64_t>{8, 8}));
  // Static inputs: min == max.
  signature = (*fixtures)->Signature("mlp");
  ASSERT_TRUE(signature.ok()) << signature.status();
  EXPECT_EQ(signature->inputs[0].min_shape, signature->inputs[0].shape);

  // Without the file the model is not served, and the error says why.
  std::unique_ptr<ModelRepository> bare = DynamicBoundRepository(nullptr);
  ASSERT_NE(bare, nullptr);
  absl::Status missing = bare->Signature("m").status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(missing.message().find("input_bounds.textproto"), std::string::npos) << missing;
  // Ranges that do not fit the program are refused, and so is a dynamic
  // input or output left out.
  const std::string input = R"(inputs { name: "input_0" min: [1, 16] max: [8, 16] })";
  const std::string output = R"(outputs { name: "output_0" min: [1, 8] max: [8, 8] })";
  ASSERT_TRUE(DynamicBoundRepository((input + output).c_str())->Signature("m").ok());
  for (const std::string& bad : std::vector<std::string>{
           R"(inputs { name: "input_0" min: [1, 16] max: [9, 16] })" + output,
           R"(inputs { name: "input_0" min: [4, 16] max: [2, 16] })" + output,
           R"(inputs { name: "input_0" min: [1] max: [8] })" + output,
           R"(inputs { name: "input_1" min: [1, 16] max: [8, 16] })" + output, input,
           input + R"(outputs { name: "output_0" min: [1, 8] max: [8, 9] })",
           input + R"(outputs { name: "output_1" min: [1, 8] max: [8, 8] })",
           "not a textproto {"}) {
    std::unique_ptr<ModelRepository> repo = DynamicBoundRepository(bad.c_str());
    ASSERT_NE(repo, nullptr);
    const absl::Status status = repo->Signature("m").status();
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << bad;
    EXPECT_NE(status.message().find("input_bounds.textproto"), std::string::npos) << status;
  }
}

// Whether this kernel has openat2 (Linux 5.6+, not refused by seccomp);
// without it the repository refuses every symbolic link, not only those
// leading out.
bool KernelHasOpenat2() {
  open_how how;
  memset(&how, 0, sizeof(how));
  how.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
  const long fd = syscall(SYS_openat2, AT_FDCWD, ".", &how, sizeof(how));
  if (fd >= 0) close(static_cast<int>(fd));
  return fd >= 0;
}

// A repository whose entries are symbolic links: a link to a file or a
// directory outside the repository is refused (INVALID_ARGUMENT), a link
// that stays inside is followed (with openat2).
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
  fs::create_directories(root / "dotdot_escape");  // out by "..", then back to the fixture
  fs::create_symlink("../../symlink_repo/inside/model.pte", root / "dotdot_escape" / "model.pte");
  fs::create_directory_symlink("inside", root / "alias");

  absl::StatusOr<std::unique_ptr<ModelRepository>> repo = ModelRepository::Open(root.string());
  ASSERT_TRUE(repo.ok()) << repo.status();
  EXPECT_TRUE((*repo)->OpenModel("inside", v1::STACK_EDGEFLEET).ok());
  absl::StatusOr<ModelFile> alias = (*repo)->OpenModel("alias", v1::STACK_EDGEFLEET);
  if (KernelHasOpenat2()) {
    ASSERT_TRUE(alias.ok()) << alias.status();
    EXPECT_TRUE(SameFile(alias->path(), (root / "inside" / "model.pte").string()));
  } else {
    EXPECT_EQ(alias.status().code(), absl::StatusCode::kInvalidArgument) << alias.status();
  }
  for (const char* name : {"file_link", "dir_link", "relative_escape", "dotdot_escape"}) {
    SCOPED_TRACE(name);
    absl::StatusOr<ModelFile> file = (*repo)->OpenModel(name, v1::STACK_EDGEFLEET);
    EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument) << file.status();
    EXPECT_NE(file.status().message().find("outside the repository"), std::string::npos);
  }
  // Listing offers only the models that open.
  EXPECT_EQ((*repo)->ListModels(), KernelHasOpenat2()
                                       ? std::vector<std::string>({"alias", "inside"})
                                       : std::vector<std::string>({"inside"}));
}

// The checked file is the file read: once open, replacing the model's
// directory by a link to another model changes nothing for the loader,
// and the next open refuses the link.
TEST(ModelRepositoryTest, AnOpenModelIsTheFileChecked) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(::testing::TempDir()) / "swap_repo";
  const fs::path outside = fs::path(::testing::TempDir()) / "swap_outside";
  fs::remove_all(root);
  fs::remove_all(outside);
  fs::create_directories(root / "m");
  fs::create_directories(outside);
  fs::copy_file("test/fixtures/small_cnn/model.pte", root / "m" / "model.pte");
  fs::copy_file("test/fixtures/mlp/model.pte", outside / "model.pte");
  absl::StatusOr<std::unique_ptr<ModelRepository>> repo = ModelRepository::Open(root.string());
  ASSERT_TRUE(repo.ok()) << repo.status();
  absl::StatusOr<ModelFile> file = (*repo)->OpenModel("m", v1::STACK_EDGEFLEET);
  ASSERT_TRUE(file.ok()) << file.status();

  fs::rename(root / "m", root / "old_m");
  fs::create_directory_symlink(outside, root / "m");
  EXPECT_TRUE(SameFile(file->path(), (root / "old_m" / "model.pte").string()));
  EXPECT_FALSE(SameFile(file->path(), (outside / "model.pte").string()));
  EXPECT_EQ((*repo)->OpenModel("m", v1::STACK_EDGEFLEET).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// A FIFO named like a model file is not a model, and opening it does not
// block.
TEST(ModelRepositoryTest, NonRegularFilesAreNotModels) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(::testing::TempDir()) / "fifo_repo";
  fs::remove_all(root);
  fs::create_directories(root / "f");
  ASSERT_EQ(mkfifo((root / "f" / "model.pte").c_str(), 0600), 0);
  absl::StatusOr<std::unique_ptr<ModelRepository>> repo = ModelRepository::Open(root.string());
  ASSERT_TRUE(repo.ok()) << repo.status();
  EXPECT_EQ((*repo)->OpenModel("f", v1::STACK_EDGEFLEET).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_TRUE((*repo)->ListModels().empty());
}

TEST(ModelRepositoryTest, MissingRootIsInvalidArgument) {
  EXPECT_EQ(ModelRepository::Open("/no/such/dir").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace service
}  // namespace edgefleet
