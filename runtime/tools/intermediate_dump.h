// IntermediateDump: `edgefleet-run run --dump-intermediates DIR`, an
// EventTracer that copies each executed instruction's output tensors as the
// instruction ends (planned memory is reused later in the execute, so a copy
// must be taken then), for comparing them with torch eager's
// (tools/devtools/compare_intermediates.py).
//
// An instruction's output is its last argument, the `out` tensor of an
// out-variant kernel (a tensor list: each tensor), as the upstream runtime
// logs intermediate outputs; for a delegate call, the last argument (the
// delegate's last output). Folded and fused instructions (their work is done
// at load or by another instruction) and control instructions are listed
// without tensors. Copies are bounded: at most `max_tensors` tensors and
// `max_bytes` bytes; past either bound the dump stops copying and
// overflowed() says which bound, so the caller fails instead of writing a
// partial dump.
//
// Write() puts one .npy per tensor in DIR (`<instruction>_<k>.npy`, the
// instruction index zero-padded to 5 digits) and DIR/index.json:
//   {"model": ..., "method": ..., "instructions": [{"instruction": 3,
//    "name": "aten::convolution.out", "kernel": "optimized",
//    "files": ["00003_0.npy"]}, ...]}
// listing every instruction the execute ran, in execution order.
//
// Ownership: `method` must outlive the dump. Heap allowed (a host tool).
// Thread safety: one thread (the executing thread of `method`).

#ifndef EDGEFLEET_RUNTIME_TOOLS_INTERMEDIATE_DUMP_H_
#define EDGEFLEET_RUNTIME_TOOLS_INTERMEDIATE_DUMP_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/devtools/event_tracer.h"
#include "runtime/executor/method.h"
#include "runtime/tools/npy.h"

namespace edgefleet {
namespace tools {

class IntermediateDump final : public EventTracer {
 public:
  IntermediateDump(const Method& method, size_t max_tensors, uint64_t max_bytes);

  TraceToken Begin(const TraceEvent& event) override;
  void End(TraceToken token) override;
  void Record(const TraceEvent&) override {}

  // Empty while within the bounds; else which bound was passed.
  const std::string& overflowed() const { return overflow_; }
  size_t tensors() const { return tensors_; }
  uint64_t bytes() const { return bytes_; }

  // Writes the files. REQUIRES: overflowed() is empty. Errors: kNotSupported
  // for a tensor of a dtype .npy cannot hold, the file errors of
  // WriteFileBytes.
  Error Write(const std::string& dir, const std::string& model,
              const std::string& method_name) const;

 private:
  struct Entry {
    int32_t instruction = -1;
    std::string name;
    std::string kernel;
    std::vector<NpyArray> tensors;
  };
  void Copy(const Tensor& tensor, Entry* entry);

  const Method& method_;
  const size_t max_tensors_;
  const uint64_t max_bytes_;
  std::vector<Entry> entries_;
  size_t tensors_ = 0;
  uint64_t bytes_ = 0;
  std::string overflow_;
};

}  // namespace tools
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_TOOLS_INTERMEDIATE_DUMP_H_
