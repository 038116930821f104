// LoadedPte: a .pte file loaded with the runtime's Program API, kept alive
// together with its bytes and loader, so tests and fuzz targets can take
// out the processed payload of each delegate call (what a backend's Init
// receives) and use the program as the NamedDataMap those payloads refer
// to. Test and fuzz support only; not part of the runtime. Not thread-safe.

#ifndef EDGEFLEET_TEST_UTIL_DELEGATE_PAYLOADS_H_
#define EDGEFLEET_TEST_UTIL_DELEGATE_PAYLOADS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/result.h"
#include "runtime/executor/program.h"
#include "runtime/loaders/buffer_data_loader.h"

namespace edgefleet {
namespace test {

struct DelegatePayload {
  std::string method;   // execution plan name
  size_t index = 0;     // position in the plan's delegates
  std::string backend;  // backend id
  std::vector<uint8_t> bytes;
};

class LoadedPte {
 public:
  // Reads and loads `path`. Errors: kNotFound (unreadable file), then
  // whatever Program::Load reports.
  static Result<std::unique_ptr<LoadedPte>> FromFile(const std::string& path);
  static Result<std::unique_ptr<LoadedPte>> FromBytes(std::vector<uint8_t> bytes);

  const Program& program() const { return *program_; }

  // Copies of the processed bytes of every delegate call whose backend id
  // is `backend_id` (inline or in a segment), in plan order. Errors: those
  // of Program::LoadSegment.
  Result<std::vector<DelegatePayload>> Payloads(const char* backend_id) const;

 private:
  LoadedPte() = default;
  std::unique_ptr<uint8_t[]> bytes_;  // 16-byte aligned (new[])
  size_t size_ = 0;
  std::unique_ptr<BufferDataLoader> loader_;
  std::unique_ptr<Program> program_;
};

}  // namespace test
}  // namespace edgefleet

#endif  // EDGEFLEET_TEST_UTIL_DELEGATE_PAYLOADS_H_
