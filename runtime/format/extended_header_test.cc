#include "runtime/format/extended_header.h"

#include <cstring>

#include "gtest/gtest.h"

namespace edgefleet {
namespace {

// The first 40 bytes of the real exporter's AddModel .pte (executorch
// examples/arduino), as documented in docs/pte-format.md.
const uint8_t kAddModelHead[40] = {
    0x3c, 0x00, 0x00, 0x00, 'E',  'T',  '1',  '2',  'e',  'h',
    '0',  '0',  0x20, 0x00, 0x00, 0x00, 0x10, 0x04, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x80, 0x04, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};

TEST(ExtendedHeaderTest, ParsesRealHeader) {
  Result<ExtendedHeader> h = ExtendedHeader::Parse(kAddModelHead, 40);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->program_size, 1040u);
  EXPECT_EQ(h->segment_base_offset, 1152u);
  EXPECT_EQ(h->segment_data_size, 4u);
}

TEST(ExtendedHeaderTest, AbsentMagicIsNotFound) {
  uint8_t head[40];
  memcpy(head, kAddModelHead, sizeof(head));
  memcpy(head + 8, "xx00", 4);
  EXPECT_EQ(ExtendedHeader::Parse(head, 40).error(), Error::kNotFound);
  EXPECT_EQ(ExtendedHeader::Parse(kAddModelHead, 10).error(), Error::kNotFound);
}

TEST(ExtendedHeaderTest, ShortLengthOrTruncationIsInvalid) {
  uint8_t head[40];
  memcpy(head, kAddModelHead, sizeof(head));
  head[12] = 16;  // length below the minimum of 24
  EXPECT_EQ(ExtendedHeader::Parse(head, 40).error(), Error::kInvalidProgram);
  EXPECT_EQ(ExtendedHeader::Parse(kAddModelHead, 20).error(),
            Error::kInvalidProgram);
}

TEST(ExtendedHeaderTest, OlderHeaderWithoutDataSize) {
  uint8_t head[40];
  memcpy(head, kAddModelHead, sizeof(head));
  head[12] = 24;
  Result<ExtendedHeader> h = ExtendedHeader::Parse(head, 40);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->segment_data_size, 0u);
}

}  // namespace
}  // namespace edgefleet
