// Helpers of the XNNPACK payload tests: XH00 framing of a flatbuffer and
// a constant region, packing a graph in object form, named data held in a
// map, and decoding with an expected outcome. Test-only; not thread-safe.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_GRAPH_TEST_UTIL_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_GRAPH_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/backends/xnnpack/graph_decoder.h"
#include "runtime/core/error_detail.h"
#include "runtime/core/named_data_map.h"
#include "xnnpack_graph_generated.h"

namespace edgefleet {
namespace xnnpack {
namespace testing {

namespace fb = edgefleet_xnn;

inline void PutLe(std::vector<uint8_t>& b, size_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

// XH00 framing: a 32-byte header, the flatbuffer, then the constant region
// at a 16-byte aligned offset.
inline std::vector<uint8_t> Frame(const std::vector<uint8_t>& flatbuffer,
                                  const std::vector<uint8_t>& constants) {
  const size_t fb_off = 32;
  const size_t cd_off = (fb_off + flatbuffer.size() + 15) / 16 * 16;
  std::vector<uint8_t> b(cd_off + constants.size(), 0);
  std::memcpy(b.data() + 4, "XH00", 4);
  PutLe(b, 8, 30, 2);
  PutLe(b, 10, fb_off, 4);
  PutLe(b, 14, flatbuffer.size(), 4);
  PutLe(b, 18, cd_off, 4);
  PutLe(b, 22, constants.size(), 8);
  std::memcpy(b.data() + fb_off, flatbuffer.data(), flatbuffer.size());
  if (!constants.empty()) std::memcpy(b.data() + cd_off, constants.data(), constants.size());
  return b;
}

inline std::vector<uint8_t> Pack(const fb::XNNGraphT& graph, const char* identifier = "XN01") {
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(fb::XNNGraph::Pack(builder, &graph), identifier);
  return {builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize()};
}

// Named data held in a map (a program's NamedDataMap stand-in).
class MapNamedData final : public NamedDataMap {
 public:
  std::map<std::string, std::vector<uint8_t>> blobs;
  Result<FreeableBuffer> GetData(const char* key) const override {
    auto it = blobs.find(key);
    if (it == blobs.end()) return Error::kNotFound;
    return FreeableBuffer(it->second.data(), it->second.size(), nullptr);
  }
};

struct Expect {
  Error error;
  const char* detail;  // a fragment of the error detail
};

// Decodes `bytes` and checks the error and its detail.
inline void ExpectRejected(const std::vector<uint8_t>& bytes, const NamedDataMap* named,
                           Expect want, const std::string& what) {
  ClearErrorDetail();
  Result<std::unique_ptr<Graph>> g = DecodeGraph(bytes.data(), bytes.size(), named);
  ASSERT_FALSE(g.ok()) << what << ": decoded";
  EXPECT_EQ(g.error(), want.error) << what << ": " << LastErrorDetail();
  EXPECT_NE(std::string(LastErrorDetail()).find(want.detail), std::string::npos)
      << what << ": detail '" << LastErrorDetail() << "' lacks '" << want.detail << "'";
}

inline void ExpectDecodes(const std::vector<uint8_t>& bytes, const NamedDataMap* named,
                          const std::string& what) {
  Result<std::unique_ptr<Graph>> g = DecodeGraph(bytes.data(), bytes.size(), named);
  ASSERT_TRUE(g.ok()) << what << ": " << LastErrorDetail();
}

}  // namespace testing
}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_GRAPH_TEST_UTIL_H_
