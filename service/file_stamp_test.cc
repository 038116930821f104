#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "service/host_profiler.h"

namespace edgefleet {
namespace service {
namespace {

void Write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

TEST(FileStampTest, DigestIsFnv1aAndFollowsRewrites) {
  const std::string path = ::testing::TempDir() + "file_stamp_" + std::to_string(getpid());
  Write(path, "a");
  uint64_t bytes = 0;
  std::string digest;
  ASSERT_TRUE(FileStamp(path, &bytes, &digest).ok());
  // FNV-1a 64 of "a", computed by hand: (offset basis ^ 0x61) * prime.
  EXPECT_EQ(bytes, 1u);
  EXPECT_EQ(digest, "af63dc4c8601ec8c");
  // Asked again: the same answer (from the cache).
  std::string again;
  ASSERT_TRUE(FileStamp(path, &bytes, &again).ok());
  EXPECT_EQ(again, digest);
  // Rewritten with other contents of another size: a new digest.
  Write(path, "ab");
  ASSERT_TRUE(FileStamp(path, &bytes, &again).ok());
  EXPECT_EQ(bytes, 2u);
  EXPECT_NE(again, digest);
  std::remove(path.c_str());
  EXPECT_EQ(FileStamp(path, &bytes, &again).code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace service
}  // namespace edgefleet
