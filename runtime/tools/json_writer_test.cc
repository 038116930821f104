#include "runtime/tools/json_writer.h"

#include <cmath>
#include <limits>
#include <string>

#include "gtest/gtest.h"

namespace edgefleet {
namespace tools {
namespace {

std::string Quoted(std::string_view value) {
  std::string out;
  AppendJsonString(value, &out);
  return out;
}

TEST(JsonWriterTest, EscapesSpecialCharacters) {
  EXPECT_EQ(Quoted("plain"), "\"plain\"");
  EXPECT_EQ(Quoted("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(Quoted("\b\f\n\r\t"), "\"\\b\\f\\n\\r\\t\"");
  EXPECT_EQ(Quoted(std::string("\x01\x1f\x7f", 3)), "\"\\u0001\\u001f\\u007f\"");
  EXPECT_EQ(Quoted(std::string("nul\0end", 7)), "\"nul\\u0000end\"");
  EXPECT_EQ(Quoted("/"), "\"/\"");
}

TEST(JsonWriterTest, KeepsValidUtf8AndReplacesInvalidBytes) {
  EXPECT_EQ(Quoted("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
  EXPECT_EQ(Quoted("\xff"), "\"\\ufffd\"");
  EXPECT_EQ(Quoted("\xc3"), "\"\\ufffd\"");                                   // truncated
  EXPECT_EQ(Quoted("\xc0\xaf"), "\"\\ufffd\\ufffd\"");                        // overlong
  EXPECT_EQ(Quoted("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");             // surrogate
  EXPECT_EQ(Quoted("\xf4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");  // > U+10FFFF
}

TEST(JsonWriterTest, WritesNestedDocumentsWithSeparators) {
  JsonWriter json;
  json.BeginObject();
  json.Key("name").String("m\n");
  json.Key("n").Int(-3);
  json.Key("u").Uint(18446744073709551615ull);
  json.Key("ok").Bool(true);
  json.Key("none").Null();
  json.Key("list").BeginArray().Int(1).BeginObject().EndObject().BeginArray().EndArray().EndArray();
  json.Key("x").Double(0.5);
  json.EndObject();
  EXPECT_EQ(json.str(),
            "{\"name\":\"m\\n\",\"n\":-3,\"u\":18446744073709551615,\"ok\":true,\"none\":null,"
            "\"list\":[1,{},[]],\"x\":0.5}");
}

TEST(JsonWriterTest, WritesDoublesRoundTripAndNonFiniteAsNull) {
  JsonWriter json;
  json.BeginArray().Double(0.1).Double(1e300).Double(-2).Double(1.0 / 3.0);
  json.Double(std::numeric_limits<double>::quiet_NaN());
  json.Double(std::numeric_limits<double>::infinity()).EndArray();
  EXPECT_EQ(json.str(), "[0.1,1e+300,-2,0.33333333333333331,null,null]");
}

}  // namespace
}  // namespace tools
}  // namespace edgefleet
