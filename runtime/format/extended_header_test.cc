#include "runtime/format/extended_header.h"

#include <cstring>
#include <vector>

#include "gtest/gtest.h"

namespace edgefleet {
namespace {

// A file head laid out as the format facts describe (docs/pte-format.md),
// with the field values of the real exporter's AddModel example: root
// offset 0x3c, header length 32, program size 1040, segment base 1152,
// segment data size 4.
std::vector<uint8_t> Head(uint32_t header_length) {
  std::vector<uint8_t> head(40, 0);
  const uint32_t root = 0x3c;
  const uint64_t program_size = 1040, segment_base = 1152, data_size = 4;
  memcpy(&head[0], &root, 4);
  memcpy(&head[4], "ET12eh00", 8);
  memcpy(&head[12], &header_length, 4);
  memcpy(&head[16], &program_size, 8);
  memcpy(&head[24], &segment_base, 8);
  memcpy(&head[32], &data_size, 8);
  return head;
}

TEST(ExtendedHeaderTest, ParsesRealHeader) {
  const std::vector<uint8_t> head = Head(32);
  Result<ExtendedHeader> h = ExtendedHeader::Parse(head.data(), head.size());
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->program_size, 1040u);
  EXPECT_EQ(h->segment_base_offset, 1152u);
  EXPECT_EQ(h->segment_data_size, 4u);
}

TEST(ExtendedHeaderTest, AbsentMagicIsNotFound) {
  std::vector<uint8_t> head = Head(32);
  EXPECT_EQ(ExtendedHeader::Parse(head.data(), 10).error(), Error::kNotFound);
  memcpy(&head[8], "xx00", 4);
  EXPECT_EQ(ExtendedHeader::Parse(head.data(), 40).error(), Error::kNotFound);
}

TEST(ExtendedHeaderTest, ShortLengthOrTruncationIsInvalid) {
  const std::vector<uint8_t> short_length = Head(16);  // below the minimum of 24
  EXPECT_EQ(ExtendedHeader::Parse(short_length.data(), 40).error(), Error::kInvalidProgram);
  const std::vector<uint8_t> head = Head(32);
  EXPECT_EQ(ExtendedHeader::Parse(head.data(), 20).error(), Error::kInvalidProgram);
}

TEST(ExtendedHeaderTest, OlderHeaderWithoutDataSize) {
  const std::vector<uint8_t> head = Head(24);
  Result<ExtendedHeader> h = ExtendedHeader::Parse(head.data(), head.size());
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->segment_data_size, 0u);
}

}  // namespace
}  // namespace edgefleet
