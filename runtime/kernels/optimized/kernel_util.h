// Argument helpers for the optimized kernels.
//
// An optimized kernel first checks whether its fast path applies to the
// call as it is now (shapes can change between calls); if not, or if any
// argument is unusual, it hands the whole call to the portable kernel, which
// also produces every error. So these helpers never fail a call: they only
// look (Peek*) and report whether the fast path may proceed.
//
// Supports() functions use the same helpers at method init on the
// arguments' initial values: float32 tensors in dim orders the fast path
// handles. All functions are pure; no allocation.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_KERNEL_UTIL_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_KERNEL_UTIL_H_

#include <cstdint>

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace edgefleet {
namespace optimized {

// Argument i as a tensor with valid metadata and data (or no elements), or
// nullptr.
Tensor* PeekTensor(Span<EValue* const> args, size_t i);
// As PeekTensor, and float32.
Tensor* PeekFloatTensor(Span<EValue* const> args, size_t i);
// True if argument i is None (or absent).
bool PeekNone(Span<EValue* const> args, size_t i);
bool PeekScalar(Span<EValue* const> args, size_t i, Scalar* value);
bool PeekInt(Span<EValue* const> args, size_t i, int64_t* value);
bool PeekBool(Span<EValue* const> args, size_t i, bool* value);
bool PeekIntList(Span<EValue* const> args, size_t i, Span<const int64_t>* list);

// Rank-4 tensor in channels-last dim order (0, 2, 3, 1).
bool IsChannelsLast(const Tensor& t);
bool SameDimOrder(const Tensor& a, const Tensor& b);
bool SameSizes(const Tensor& t, Span<const int32_t> sizes);

// Gives `out` the shape `sizes` unless it has it already. Returns false
// (leave the call to the portable kernel) if that needs a resize the fast
// path must not do: out is an input too (`inputs`), or Resize refuses.
bool FitOut(Tensor& out, Span<const int32_t> sizes, Span<const Tensor* const> inputs);

// True if the element ranges of a and b share memory.
bool Overlaps(const Tensor& a, const Tensor& b);

// order[0..dim) = the dims 0..dim-1 sorted by decreasing strides[d] (a
// tensor's memory order), equal strides keeping their order. Allocates
// nothing (std::stable_sort takes a temporary buffer from the heap).
void DimsByDecreasingStride(const int64_t* strides, int dim, int* order);

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_KERNEL_UTIL_H_
