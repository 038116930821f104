// Recognizing the int8 patterns of fuse_quantized_convolution
// (quantized_fusion.h): the quantize / dequantize instructions and their
// parameters, constant per-channel weights, the quantize tail with an
// optional activation, and whether writing the fused output early is safe
// for the memory and the views involved. Internal to quantized_fusion.cc.
// Stateless; a PlanEditor is used by one thread.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_MATCH_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_MATCH_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/evalue.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"
#include "runtime/kernels/plan_pass.h"

namespace edgefleet {
namespace optimized {
namespace internal {

// An Int argument no instruction writes.
bool ConstInt(const PlanEditor& plan, const EValue* v, int64_t* out);

// `v`'s tensor if it has `dtype`, the default dim order and data (or no
// elements); else nullptr.
const Tensor* TensorOf(const EValue* v, ScalarType dtype);

// An intermediate value the fusion may drop: read by one instruction
// (through lists included), not I/O. (PlanEditor::num_readers also counts
// readers of views without an instruction that share the value's planned
// bytes; those are checked by AliasReadsCovered once the whole rewrite is
// known.)
bool Private(const PlanEditor& plan, const EValue* v);

// Values the rewrite stops producing may share planned bytes with a view
// that no instruction writes (a "pure alias", read later). Safe if every
// such read after `from` is preceded by a kept instruction writing a tensor
// that covers the alias's bytes (then the view reads that, not `v`).
bool AliasReadsCovered(const PlanEditor& plan, const EValue* v, int64_t from,
                       const int64_t* dropped, size_t num_dropped);

struct PerTensor {
  double scale = 0;
  int64_t zero_point = 0, qmin = 0, qmax = 0;
};

// dequantize_per_tensor at `pc` of an int8 tensor into float `out`.
bool MatchDequantize(const PlanEditor& plan, int64_t pc, const EValue* out, EValue** in,
                     PerTensor* p);

// dequantize_per_channel of constant symmetric int8 weights along axis 0.
struct Weights {
  const Tensor* q = nullptr;
  const Tensor* scales = nullptr;
};

bool MatchWeights(const PlanEditor& plan, const EValue* w_f, int64_t* pc_out, Weights* w);

// Writing `out` at `first` instead of `last`, and reading `in` at `first`
// instead of at `in_read`, is safe: no other live instruction in between
// touches out's memory or writes over in's. (`out` may share memory with
// `in`: the kernel then reads a copy of the input.)
bool MemorySafe(const PlanEditor& plan, int64_t in_read, int64_t first, int64_t last,
                const Tensor& in, const Tensor& out, const int64_t* absorbed, size_t num_absorbed);

// The common tail: quantize of the op's float output, then an optional
// dequantize -> activation -> quantize narrowing the range.
struct Tail {
  int64_t pcs[4] = {-1, -1, -1, -1};  // quantize, [dequantize, act, quantize]
  size_t count = 0;
  const EValue* dropped[4] = {};  // values no longer produced, by pcs[i] - 1 ...
  int64_t dropped_from[4] = {};
  EValue* out = nullptr;
  PerTensor q;
  int32_t lo = 0, hi = 0;
};

// The quantize tail after `pc` (MatchTail) whose output has `yf`'s shape,
// where writing that output at `pc` is safe: nothing between `in_read`
// (the last read of `in`) and the tail's end touches the memory involved
// (MemorySafe), and no view still reads a dropped value (TailAliasSafe).
bool MatchSafeTail(const PlanEditor& plan, size_t pc, EValue* y_f, const Tensor& yf,
                   int64_t in_read, const Tensor* in, Tail* tail);

}  // namespace internal
}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_MATCH_H_
