// XH00 framing: hand-built headers, each malformation a clean error.

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "runtime/backends/xnnpack/graph_decoder.h"
#include "runtime/backends/xnnpack/graph_test_util.h"
#include "runtime/backends/xnnpack/payload_header.h"

namespace edgefleet {
namespace xnnpack {
namespace {

using testing::PutLe;

// A payload of `total` bytes whose header says: flatbuffer at fb_off (fb_size
// bytes), constants at cd_off (cd_size bytes).
std::vector<uint8_t> Framed(size_t total, uint64_t fb_off, uint64_t fb_size, uint64_t cd_off,
                            uint64_t cd_size, uint16_t header_size = 30) {
  std::vector<uint8_t> b(total, 0);
  std::memcpy(b.data() + 4, "XH00", 4);
  PutLe(b, 8, header_size, 2);
  PutLe(b, 10, fb_off, 4);
  PutLe(b, 14, fb_size, 4);
  PutLe(b, 18, cd_off, 4);
  PutLe(b, 22, cd_size, 8);
  return b;
}

TEST(PayloadHeader, SplitsSections) {
  auto b = Framed(128, 32, 48, 80, 48);
  Result<PayloadSections> s = ParsePayload(b.data(), b.size());
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s.get().has_header);
  EXPECT_EQ(s.get().flatbuffer, b.data() + 32);
  EXPECT_EQ(s.get().flatbuffer_size, 48u);
  EXPECT_EQ(s.get().constant_data, b.data() + 80);
  EXPECT_EQ(s.get().constant_data_size, 48u);
}

TEST(PayloadHeader, NoMagicMeansBareFlatbuffer) {
  std::vector<uint8_t> b(64, 7);
  Result<PayloadSections> s = ParsePayload(b.data(), b.size());
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s.get().has_header);
  EXPECT_EQ(s.get().flatbuffer_size, 64u);
  EXPECT_EQ(s.get().constant_data, nullptr);
}

TEST(PayloadHeader, RejectsMalformedFraming) {
  std::vector<uint8_t> truncated = Framed(128, 32, 48, 80, 48);
  truncated.resize(20);
  struct Case {
    const char* what;
    std::vector<uint8_t> bytes;
  } cases[] = {
      {"truncated header", truncated},
      {"flatbuffer past the end", Framed(128, 32, 200, 80, 0)},
      {"flatbuffer offset past the end", Framed(128, 4000, 8, 80, 0)},
      {"constants past the end", Framed(128, 32, 48, 100, 64)},
      {"constant size overflows", Framed(128, 32, 48, 80, ~uint64_t{0})},
      {"sections overlap", Framed(128, 32, 48, 40, 16)},
      {"flatbuffer inside the header", Framed(128, 8, 16, 80, 0)},
      {"header length below its fields", Framed(128, 32, 48, 80, 0, 12)},
  };
  for (const Case& c : cases) {
    Result<PayloadSections> s = ParsePayload(c.bytes.data(), c.bytes.size());
    EXPECT_FALSE(s.ok()) << c.what;
    if (!s.ok()) {
      EXPECT_EQ(s.error(), Error::kInvalidProgram) << c.what;
    }
  }
}

TEST(PayloadDecoder, RejectsWrongIdentifier) {
  auto b = Framed(96, 32, 32, 64, 0);
  std::memcpy(b.data() + 32 + 4, "XN99", 4);
  Result<std::unique_ptr<Graph>> g = DecodeGraph(b.data(), b.size(), nullptr);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error(), Error::kDelegateInvalidCompatibility);
}

TEST(PayloadDecoder, RejectsGarbageWithTheRightIdentifier) {
  auto b = Framed(96, 32, 32, 64, 0);
  std::memset(b.data() + 32, 0xff, 32);
  std::memcpy(b.data() + 32 + 4, "XN01", 4);
  Result<std::unique_ptr<Graph>> g = DecodeGraph(b.data(), b.size(), nullptr);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error(), Error::kInvalidProgram);
}

}  // namespace
}  // namespace xnnpack
}  // namespace edgefleet
