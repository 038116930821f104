#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/loaders/buffer_data_loader.h"
#include "runtime/loaders/file_data_loader.h"
#include "runtime/loaders/mmap_data_loader.h"

namespace edgefleet {
namespace {

class DataLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    content_.resize(10000);
    for (size_t i = 0; i < content_.size(); ++i) content_[i] = static_cast<char>(i * 7);
    path_ = testing::TempDir() + "loader_test_" + std::to_string(getpid()) + ".bin";
    FILE* f = fopen(path_.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    fwrite(content_.data(), 1, content_.size(), f);
    fclose(f);
  }
  void TearDown() override { unlink(path_.c_str()); }

  void ExpectServes(DataLoader& loader) {
    ASSERT_EQ(*loader.Size(), content_.size());
    Result<FreeableBuffer> part = loader.Load(5000, 300, SegmentInfo{});
    ASSERT_TRUE(part.ok());
    ASSERT_EQ(part->size(), 300u);
    EXPECT_EQ(memcmp(part->data(), content_.data() + 5000, 300), 0);
    EXPECT_EQ(loader.Load(9990, 11, SegmentInfo{}).error(), Error::kInvalidArgument);
    EXPECT_EQ(loader.Load(SIZE_MAX, 2, SegmentInfo{}).error(), Error::kInvalidArgument);
  }

  std::vector<char> content_;
  std::string path_;
};

TEST_F(DataLoaderTest, BufferLoaderServesViewsAndCounts) {
  BufferDataLoader loader(content_.data(), content_.size());
  ExpectServes(loader);
  EXPECT_EQ(loader.BytesRead(), 300u);
}

TEST_F(DataLoaderTest, FileLoaderReadsExactlyWhatIsAsked) {
  Result<FileDataLoader> loader = FileDataLoader::Open(path_.c_str());
  ASSERT_TRUE(loader.ok());
  ExpectServes(*loader);
  EXPECT_EQ(loader->BytesRead(), 300u);
  Result<FreeableBuffer> head = loader->Load(0, 64, SegmentInfo{});
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(head->data()) % 16, 0u);
}

TEST_F(DataLoaderTest, MmapLoaderCountsWholePagesAndIsCopyOnWrite) {
  Result<MmapDataLoader> loader = MmapDataLoader::Open(path_.c_str());
  ASSERT_TRUE(loader.ok());
  ExpectServes(*loader);
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  // [5000, 5300) lies within one page.
  EXPECT_EQ(loader->BytesRead(), page);
  Result<FreeableBuffer> buffer = loader->Load(0, 100, SegmentInfo{});
  ASSERT_TRUE(buffer.ok());
  static_cast<char*>(const_cast<void*>(buffer->data()))[0] = 42;  // must not fault
  Result<FreeableBuffer> again = loader->Load(0, 1, SegmentInfo{});
  EXPECT_EQ(static_cast<const char*>(again->data())[0], content_[0]);
}

TEST_F(DataLoaderTest, MissingFileIsAccessFailed) {
  EXPECT_EQ(FileDataLoader::Open("/nonexistent/x.pte").error(), Error::kAccessFailed);
  EXPECT_EQ(MmapDataLoader::Open("/nonexistent/x.pte").error(), Error::kAccessFailed);
  EXPECT_EQ(MmapDataLoader::Open("/tmp").error(), Error::kAccessFailed);
}

}  // namespace
}  // namespace edgefleet
