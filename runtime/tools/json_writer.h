// JsonWriter: builds one compact JSON text in a string.
//
// Values are appended in document order; the writer inserts commas and
// colons itself. Strings are escaped per RFC 8259 (quote, backslash and
// control characters; invalid UTF-8 bytes become U+FFFD so the output is
// always valid UTF-8). Non-finite doubles are written as null.
//
// Usage:
//   JsonWriter json;
//   json.BeginObject().Key("p50").Double(1.5).Key("tags").BeginArray()
//       .String("a").EndArray().EndObject();
//   puts(json.str().c_str());
//
// REQUIRES: calls form a well-nested document (Key only directly inside an
// object, exactly one value after each Key). The writer owns its string.
// Not thread-safe.

#ifndef EDGEFLEET_RUNTIME_TOOLS_JSON_WRITER_H_
#define EDGEFLEET_RUNTIME_TOOLS_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace edgefleet {
namespace tools {

class JsonWriter {
 public:
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view key);

  JsonWriter& String(std::string_view value);
  JsonWriter& Int(int64_t value);
  JsonWriter& Uint(uint64_t value);
  JsonWriter& Double(double value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();

  const std::string& str() const { return out_; }

 private:
  // Writes the separator a new value or key needs at the current position.
  void BeforeValue();

  std::string out_;
  // One entry per open object/array: whether it already has an element.
  std::vector<bool> has_element_;
  bool after_key_ = false;
};

// Appends `value` to `out` as a quoted, escaped JSON string.
void AppendJsonString(std::string_view value, std::string* out);

}  // namespace tools
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_TOOLS_JSON_WRITER_H_
