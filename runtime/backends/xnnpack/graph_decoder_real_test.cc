// DecodeGraph on the real payloads the exporter wrote into
// test/fixtures/*/model_xnnpack.pte: every one decodes against its program's
// named data and, with the system XNNPACK, compiles; every prefix and every
// mutation is a clean error, never a crash.

#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/backends/xnnpack/graph_decoder.h"
#include "runtime/backends/xnnpack/graph_test_util.h"
#include "runtime/backends/xnnpack/payload_header.h"
#include "runtime/backends/xnnpack/xnnpack_backend.h"
#include "runtime/core/error_detail.h"
#include "test/util/delegate_payloads.h"
#include "xnnpack_graph_generated.h"
#if EF_HAVE_XNNPACK
#include "runtime/backends/xnnpack/delegate.h"
#endif

namespace edgefleet {
namespace xnnpack {
namespace {

namespace fb = edgefleet_xnn;
using testing::ExpectDecodes;
using testing::Frame;
using testing::Pack;

std::vector<std::string> LoweredFixtures() {
  std::vector<std::string> files;
  const std::string root = EF_SOURCE_DIR "/test/fixtures/";
  DIR* dir = opendir(root.c_str());
  if (dir == nullptr) return files;
  while (dirent* e = readdir(dir)) {
    const std::string path = root + e->d_name + "/model_xnnpack.pte";
    if (e->d_name[0] != '.' && access(path.c_str(), R_OK) == 0) files.push_back(path);
  }
  closedir(dir);
  std::sort(files.begin(), files.end());
  return files;
}

struct RealPayload {
  std::string name;
  std::unique_ptr<test::LoadedPte> pte;
  std::vector<uint8_t> bytes;
};

// The first XnnpackBackend payload of each lowered fixture.
std::vector<RealPayload> RealPayloads() {
  std::vector<RealPayload> out;
  for (const std::string& path : LoweredFixtures()) {
    Result<std::unique_ptr<test::LoadedPte>> pte = test::LoadedPte::FromFile(path);
    EXPECT_TRUE(pte.ok()) << path;
    if (!pte.ok()) continue;
    Result<std::vector<test::DelegatePayload>> payloads = pte.get()->Payloads(kXnnpackBackendId);
    EXPECT_TRUE(payloads.ok() && !payloads.get().empty()) << path << ": no XnnpackBackend payload";
    if (!payloads.ok() || payloads.get().empty()) continue;
    out.push_back({path, std::move(pte.get()), std::move(payloads.get()[0].bytes)});
  }
  return out;
}

TEST(GraphDecoderReal, EveryLoweredPayloadDecodesAndCompiles) {
  const std::vector<std::string> files = LoweredFixtures();
  if (files.empty()) GTEST_SKIP() << "no test/fixtures/*/model_xnnpack.pte";
  size_t payloads = 0;
  for (const std::string& path : files) {
    Result<std::unique_ptr<test::LoadedPte>> pte = test::LoadedPte::FromFile(path);
    ASSERT_TRUE(pte.ok()) << path;
    Result<std::vector<test::DelegatePayload>> all = pte.get()->Payloads(kXnnpackBackendId);
    ASSERT_TRUE(all.ok()) << path;
    EXPECT_FALSE(all.get().empty()) << path;
    for (const test::DelegatePayload& p : all.get()) {
      ++payloads;
      const std::string what = path + " " + p.method + "#" + std::to_string(p.index);
      Result<PayloadSections> sections = ParsePayload(p.bytes.data(), p.bytes.size());
      ASSERT_TRUE(sections.ok()) << what;
      EXPECT_TRUE(sections.get().has_header) << what;
      Result<std::unique_ptr<Graph>> g =
          DecodeGraph(p.bytes.data(), p.bytes.size(), &pte.get()->program());
      ASSERT_TRUE(g.ok()) << what << ": " << LastErrorDetail();
      EXPECT_FALSE(g.get()->nodes.empty()) << what;
      EXPECT_FALSE(g.get()->input_values.empty()) << what;
      EXPECT_FALSE(g.get()->output_values.empty()) << what;
#if EF_HAVE_XNNPACK
      Result<std::unique_ptr<XnnpackDelegate>> d =
          XnnpackDelegate::Create(std::move(g.get()), nullptr, 1, true);
      ASSERT_TRUE(d.ok()) << what << ": " << LastErrorDetail();
#endif
    }
  }
  EXPECT_GE(payloads, files.size());
}

TEST(GraphDecoderReal, EveryPrefixOfARealPayloadIsRejected) {
  std::vector<RealPayload> real = RealPayloads();
  if (real.empty()) GTEST_SKIP() << "no lowered fixtures";
  for (const RealPayload& r : real) {
    const Program& named = r.pte->program();
    // Every prefix up to 2 KiB, then every 97th: bounded per payload.
    for (size_t n = 0; n < r.bytes.size(); n += n < 2048 ? 1 : 97) {
      std::vector<uint8_t> prefix(r.bytes.begin(), r.bytes.begin() + n);
      Result<std::unique_ptr<Graph>> g = DecodeGraph(prefix.data(), prefix.size(), &named);
      ASSERT_FALSE(g.ok()) << r.name << " prefix " << n;
      EXPECT_TRUE(g.error() == Error::kInvalidProgram ||
                  g.error() == Error::kDelegateInvalidCompatibility)
          << r.name << " prefix " << n << ": " << static_cast<int>(g.error());
    }
  }
}

TEST(GraphDecoderReal, MutatedRealPayloadsAreRejected) {
  std::vector<RealPayload> real = RealPayloads();
  if (real.empty()) GTEST_SKIP() << "no lowered fixtures";
  for (const RealPayload& r : real) {
    const Program& named = r.pte->program();
    Result<PayloadSections> s = ParsePayload(r.bytes.data(), r.bytes.size());
    ASSERT_TRUE(s.ok());
    const std::vector<uint8_t> constants(s.get().constant_data,
                                         s.get().constant_data + s.get().constant_data_size);
    std::unique_ptr<fb::XNNGraphT> base = fb::UnPackXNNGraph(s.get().flatbuffer);
    ASSERT_NE(base, nullptr);
    // Round trip through the object API: still decodes (control).
    ExpectDecodes(Frame(Pack(*base), constants), &named, r.name + " round trip");
    const uint32_t num_values = static_cast<uint32_t>(base->xvalues.size());
    auto tensor = [](fb::XValueT& v) -> fb::XNNTensorValueT& {
      if (auto* q = v.xvalue_union.AsXNNQuantizedTensorValue()) return *q->tensor_value;
      return *v.xvalue_union.AsXNNTensorValue();
    };
    // Each mutation returns false when it does not apply to this graph.
    const std::vector<std::pair<const char*, std::function<bool(fb::XNNGraphT&)>>> mutations = {
        {"first value's id past the values",
         [&](fb::XNNGraphT& g) { return (tensor(*g.xvalues[0]).id_out = num_values, true); }},
        {"duplicate value id",
         [&](fb::XNNGraphT& g) {
           if (g.xvalues.size() < 2) return false;
           tensor(*g.xvalues[1]).id_out = tensor(*g.xvalues[0]).id_out;
           return true;
         }},
        {"num_externs 0 under external values",
         [](fb::XNNGraphT& g) { return (g.num_externs = 0, true); }},
        {"num_externs 4097", [](fb::XNNGraphT& g) { return (g.num_externs = 4097, true); }},
        {"rank 7 on every value",
         [&](fb::XNNGraphT& g) {
           for (auto& v : g.xvalues) {
             tensor(*v).dims.resize(7, 1);
             tensor(*v).num_dims = 7;
           }
           return true;
         }},
        {"constant indices past the table",
         [&](fb::XNNGraphT& g) {
           bool any = false;
           for (auto& v : g.xvalues) {
             if (tensor(*v).constant_buffer_idx == 0) continue;
             tensor(*v).constant_buffer_idx = 1u << 30;
             any = true;
           }
           return any;
         }},
        {"every named key renamed",
         [](fb::XNNGraphT& g) {
           bool any = false;
           for (auto& c : g.constant_data) {
             if (c->named_key.empty()) continue;
             c->named_key += "-missing";
             any = true;
           }
           return any;
         }},
        {"every constant's declared size past its blob",
         [&](fb::XNNGraphT& g) {
           bool any = false;
           for (auto& v : g.xvalues) any = any || tensor(*v).constant_buffer_idx != 0;
           for (auto& c : g.constant_data) c->size = uint64_t{1} << 40;
           return any;
         }},
        {"first graph output's first dim changed",
         [&](fb::XNNGraphT& g) {
           for (auto& v : g.xvalues) {
             fb::XNNTensorValueT& t = tensor(*v);
             if ((t.flags & 2) == 0) continue;
             if (t.dims.empty()) t.dims = {1}, t.num_dims = 1;
             t.dims[0] = t.dims[0] * 2 + 1;
             return true;
           }
           return false;
         }},
        {"first node dropped",
         [](fb::XNNGraphT& g) {
           g.xnodes.erase(g.xnodes.begin());
           return true;
         }},
    };
    for (const auto& [what, mutate] : mutations) {
      fb::XNNGraphT g(*base);
      if (!mutate(g)) continue;
      const std::vector<uint8_t> bytes = Frame(Pack(g), constants);
      ClearErrorDetail();
      Result<std::unique_ptr<Graph>> decoded = DecodeGraph(bytes.data(), bytes.size(), &named);
      ASSERT_FALSE(decoded.ok()) << r.name << ": " << what << " decoded";
      EXPECT_TRUE(decoded.error() == Error::kInvalidProgram ||
                  decoded.error() == Error::kNotSupported)
          << r.name << ": " << what << ": " << static_cast<int>(decoded.error());
      EXPECT_NE(std::string(LastErrorDetail()).find("xnnpack"), std::string::npos)
          << r.name << ": " << what << ": " << LastErrorDetail();
    }
  }
}

}  // namespace
}  // namespace xnnpack
}  // namespace edgefleet
