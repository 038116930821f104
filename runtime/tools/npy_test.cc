#include "runtime/tools/npy.h"

#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace tools {
namespace {

// A .npy file with the given version, dict text (padded with a newline)
// and data bytes.
std::vector<uint8_t> MakeNpy(const std::string& dict, size_t data_bytes, int major = 1,
                             bool newline = true) {
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  const std::string header = newline ? dict + "\n" : dict;
  const uint32_t length = static_cast<uint32_t>(header.size());
  const int length_bytes = major == 1 ? 2 : 4;
  for (int i = 0; i < length_bytes; ++i) out.push_back((length >> (8 * i)) & 0xff);
  out.insert(out.end(), header.begin(), header.end());
  out.resize(out.size() + data_bytes, 0);
  return out;
}

std::string Dict(const std::string& descr, const std::string& shape,
                 const std::string& fortran = "False") {
  return "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
}

// Expects ParseNpy to fail with `error` and a detail containing `text`.
void ExpectParseError(const std::vector<uint8_t>& bytes, Error error, const std::string& text) {
  ClearErrorDetail();
  Result<NpyArray> result = ParseNpy(bytes.data(), bytes.size());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error(), error) << LastErrorDetail();
  EXPECT_NE(std::string(LastErrorDetail()).find(text), std::string::npos)
      << "detail: " << LastErrorDetail() << "\nexpected: " << text;
}

struct DtypeCase {
  ScalarType dtype;
  const char* descr;
};

class NpyRoundTripTest : public ::testing::TestWithParam<DtypeCase> {};

TEST_P(NpyRoundTripTest, RoundTripsShapes) {
  const DtypeCase c = GetParam();
  const std::vector<std::vector<int32_t>> shapes = {{}, {5}, {2, 3, 4, 5}, {0}, {3, 0, 2}};
  for (const auto& shape : shapes) {
    NpyArray array;
    array.dtype = c.dtype;
    array.shape = shape;
    array.data.resize(static_cast<size_t>(array.numel()) * ElementSize(c.dtype));
    for (size_t i = 0; i < array.data.size(); ++i) {
      array.data[i] = c.dtype == ScalarType::kBool ? (i % 3 == 0) : static_cast<uint8_t>(i * 7);
    }
    Result<std::vector<uint8_t>> bytes = SerializeNpy(array);
    ASSERT_TRUE(bytes.ok()) << LastErrorDetail();
    // NumPy's layout: the data starts at a multiple of 64, header ends in \n.
    const size_t data_offset = bytes->size() - array.data.size();
    EXPECT_EQ(data_offset % 64, 0u);
    EXPECT_EQ((*bytes)[data_offset - 1], '\n');
    const std::string header(bytes->begin() + 10, bytes->begin() + data_offset);
    EXPECT_NE(header.find(std::string("'descr': '") + c.descr + "'"), std::string::npos);

    Result<NpyArray> parsed = ParseNpy(bytes->data(), bytes->size());
    ASSERT_TRUE(parsed.ok()) << LastErrorDetail();
    EXPECT_EQ(parsed->dtype, c.dtype);
    EXPECT_EQ(parsed->shape, shape);
    EXPECT_EQ(parsed->data, array.data);
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllDtypes, NpyRoundTripTest,
    ::testing::Values(DtypeCase{ScalarType::kFloat, "<f4"}, DtypeCase{ScalarType::kDouble, "<f8"},
                      DtypeCase{ScalarType::kLong, "<i8"}, DtypeCase{ScalarType::kInt, "<i4"},
                      DtypeCase{ScalarType::kShort, "<i2"}, DtypeCase{ScalarType::kChar, "|i1"},
                      DtypeCase{ScalarType::kByte, "|u1"}, DtypeCase{ScalarType::kBool, "|b1"},
                      DtypeCase{ScalarType::kHalf, "<f2"}));

TEST(NpyTest, FormatsShapesAsNumPyDoes) {
  EXPECT_EQ(FormatShapeTuple(Span<const int32_t>()), "()");
  const int32_t one[] = {7};
  EXPECT_EQ(FormatShapeTuple(one), "(7,)");
  const int32_t four[] = {1, 3, 224, 224};
  EXPECT_EQ(FormatNpyHeader("<f4", four),
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 224, 224), }");
}

TEST(NpyTest, ParsesFloatValuesAndVersions) {
  for (int major : {1, 2, 3}) {
    std::vector<uint8_t> bytes = MakeNpy(Dict("<f4", "(2,)"), 8, major);
    const float values[] = {1.5f, -2.25f};
    memcpy(bytes.data() + bytes.size() - 8, values, 8);
    Result<NpyArray> parsed = ParseNpy(bytes.data(), bytes.size());
    ASSERT_TRUE(parsed.ok()) << major << ": " << LastErrorDetail();
    float got[2];
    memcpy(got, parsed->data.data(), 8);
    EXPECT_EQ(got[0], 1.5f);
    EXPECT_EQ(got[1], -2.25f);
  }
}

TEST(NpyTest, AcceptsKeyOrderQuotesAndSpacing) {
  const std::string dict = "{ \"shape\" : ( 2 , 3 ) ,'fortran_order':False,'descr':'|u1'}  ";
  const std::vector<uint8_t> bytes = MakeNpy(dict, 6);
  Result<NpyArray> parsed = ParseNpy(bytes.data(), bytes.size());
  ASSERT_TRUE(parsed.ok()) << LastErrorDetail();
  EXPECT_EQ(parsed->dtype, ScalarType::kByte);
  EXPECT_EQ(parsed->shape, (std::vector<int32_t>{2, 3}));
}

TEST(NpyTest, RejectsBadMagic) {
  std::vector<uint8_t> bytes = MakeNpy(Dict("<f4", "()"), 4);
  bytes[1] = 'X';
  ExpectParseError(bytes, Error::kInvalidArgument, "bad magic");
  ExpectParseError({}, Error::kInvalidArgument, "bad magic");
}

TEST(NpyTest, RejectsTruncatedHeader) {
  const std::vector<uint8_t> full = MakeNpy(Dict("<f4", "()"), 4);
  ExpectParseError(std::vector<uint8_t>(full.begin(), full.begin() + 7), Error::kInvalidArgument,
                   "truncated .npy header (no version)");
  ExpectParseError(std::vector<uint8_t>(full.begin(), full.begin() + 9), Error::kInvalidArgument,
                   "truncated .npy header (no header length)");
  ExpectParseError(std::vector<uint8_t>(full.begin(), full.begin() + 30), Error::kInvalidArgument,
                   "truncated .npy header (");
}

TEST(NpyTest, RejectsOversizedHeaderLength) {
  std::vector<uint8_t> bytes = MakeNpy(Dict("<f4", "()"), 4, 2);
  const uint32_t huge = 0x7fffffff;
  memcpy(bytes.data() + 8, &huge, 4);
  ExpectParseError(bytes, Error::kInvalidArgument, "exceeds the limit of 65536 bytes");
}

TEST(NpyTest, RejectsUnsupportedVersion) {
  std::vector<uint8_t> bytes = MakeNpy(Dict("<f4", "()"), 4);
  bytes[6] = 4;
  ExpectParseError(bytes, Error::kNotSupported, "unsupported .npy version 4.0");
}

TEST(NpyTest, RejectsUnsupportedDtypes) {
  ExpectParseError(MakeNpy(Dict("<c8", "()"), 8), Error::kNotSupported, "unsupported dtype '<c8'");
  ExpectParseError(MakeNpy(Dict(">f4", "()"), 4), Error::kNotSupported, "big-endian dtype '>f4'");
}

TEST(NpyTest, RejectsFortranOrder) {
  ExpectParseError(MakeNpy(Dict("<f4", "(2, 2)", "True"), 16), Error::kNotSupported,
                   "fortran_order arrays are not supported");
}

TEST(NpyTest, RejectsDataSizeMismatch) {
  ExpectParseError(MakeNpy(Dict("<f4", "(2, 3)"), 20), Error::kInvalidArgument,
                   "data is 20 bytes but shape (2, 3) of float32 needs 24");
  ExpectParseError(MakeNpy(Dict("<f4", "(2, 3)"), 28), Error::kInvalidArgument, "data is 28 bytes");
}

TEST(NpyTest, RejectsOverflowingShape) {
  ExpectParseError(MakeNpy(Dict("<f8", "(2147483647, 2147483647, 2147483647)"), 0),
                   Error::kInvalidArgument, "too large (byte size overflows)");
  ExpectParseError(MakeNpy(Dict("<f8", "(4294967296,)"), 0), Error::kInvalidArgument,
                   "dimension exceeds 2147483647");
  ExpectParseError(MakeNpy(Dict("<f8", "(99999999999999999999999999,)"), 0),
                   Error::kInvalidArgument, "dimension exceeds");
}

TEST(NpyTest, RejectsRankAboveLimit) {
  std::string shape = "(";
  for (int i = 0; i < 17; ++i) shape += "1, ";
  shape += ")";
  ExpectParseError(MakeNpy(Dict("<f4", shape), 4), Error::kInvalidArgument, "rank exceeds 16");
}

TEST(NpyTest, RejectsMalformedDicts) {
  const struct {
    std::string dict;
    std::string error;
  } cases[] = {
      {"['descr']", "not a dict"},
      {"{'descr': '<f4', 'fortran_order': False}", "missing 'shape'"},
      {"{'descr': '<f4', 'shape': ()}", "missing 'fortran_order'"},
      {"{'fortran_order': False, 'shape': ()}", "missing 'descr'"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': ()}",
       "duplicate key 'descr'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}", "unknown key 'x'"},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': ()}", "must be True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (4)}", "is not a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [4]}", "shape must be a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-4,)}", "negative dimension"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (4.0,)}", "expected ',' or ')'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (,)}", "must be integers"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': ()} x", "unexpected text"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': ()", "expected ',' or '}'"},
      {"{'descr': '<f4\\n', 'fortran_order': False, 'shape': ()}", "unsupported character"},
      {"{descr: '<f4'}", "expected a quoted string"},
      {"{'descr' '<f4'}", "expected ':'"},
      {"{'descr': '" + std::string(40, 'f') + "'}", "longer than 32"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.dict);
    ExpectParseError(MakeNpy(c.dict, 4), Error::kInvalidArgument, c.error);
  }
}

TEST(NpyTest, RejectsUnterminatedString) {
  ExpectParseError(MakeNpy("{'descr': '<f4", 0, 1, /*newline=*/false), Error::kInvalidArgument,
                   "unterminated string");
}

TEST(NpyTest, RejectsInvalidBoolBytes) {
  std::vector<uint8_t> bytes = MakeNpy(Dict("|b1", "(2,)"), 2);
  bytes.back() = 2;
  ExpectParseError(bytes, Error::kInvalidArgument, "other than 0 or 1");
}

TEST(NpyTest, SerializeRejectsUnsupportedDtypeAndBadSize) {
  NpyArray bf16;  // NumPy has no bfloat16
  bf16.dtype = ScalarType::kBFloat16;
  bf16.data.resize(2);
  Result<std::vector<uint8_t>> a = SerializeNpy(bf16);
  EXPECT_EQ(a.error(), Error::kNotSupported);
  NpyArray bad;
  bad.shape = {3};
  bad.data.resize(4);
  Result<std::vector<uint8_t>> b = SerializeNpy(bad);
  EXPECT_EQ(b.error(), Error::kInvalidArgument);
}

}  // namespace
}  // namespace tools
}  // namespace edgefleet
