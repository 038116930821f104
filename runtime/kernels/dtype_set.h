// DtypeSet: the element types a kernel accepts, declared next to the kernel
// where it is registered.
//
// A kernel's set covers the dtype of the call's first tensor argument in
// schema order (the first item of a tensor list; the output when the output
// is the only tensor, as for aten::full.out). The registry resolves a call
// only to a kernel whose set holds that dtype, so a program with any other
// dtype fails at load time, and docs/operators.md lists these sets (its
// test fails when the table and the declarations disagree). An empty set
// declares a kernel without tensor arguments (executorch_prim scalar ops).
//
// A value type; all operations are constexpr and thread-safe.

#ifndef EDGEFLEET_RUNTIME_KERNELS_DTYPE_SET_H_
#define EDGEFLEET_RUNTIME_KERNELS_DTYPE_SET_H_

#include <cstdint>
#include <initializer_list>

#include "runtime/core/evalue.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"

namespace edgefleet {

class DtypeSet {
 public:
  constexpr DtypeSet() = default;
  constexpr DtypeSet(std::initializer_list<ScalarType> types) {
    for (ScalarType t : types) bits_ |= Bit(t);
  }

  constexpr bool Contains(ScalarType t) const { return (bits_ & Bit(t)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr DtypeSet operator|(DtypeSet other) const { return FromBits(bits_ | other.bits_); }
  // The types of this set that are not in `other`.
  constexpr DtypeSet operator-(DtypeSet other) const { return FromBits(bits_ & ~other.bits_); }
  constexpr bool operator==(DtypeSet other) const { return bits_ == other.bits_; }
  constexpr bool operator!=(DtypeSet other) const { return bits_ != other.bits_; }

 private:
  static constexpr uint64_t Bit(ScalarType t) { return uint64_t{1} << static_cast<int>(t); }
  static constexpr DtypeSet FromBits(uint64_t bits) {
    DtypeSet s;
    s.bits_ = bits;
    return s;
  }

  uint64_t bits_ = 0;  // bit i: ScalarType with value i (all values < 64)
};

// The families the portable kernels dispatch over (see
// runtime/kernels/portable/dtype_util.h).
inline constexpr DtypeSet kFloatingDtypes{ScalarType::kFloat, ScalarType::kDouble};
inline constexpr DtypeSet kIntegralDtypes{ScalarType::kByte, ScalarType::kChar, ScalarType::kShort,
                                          ScalarType::kInt, ScalarType::kLong};
inline constexpr DtypeSet kRealDtypes = kIntegralDtypes | kFloatingDtypes;
inline constexpr DtypeSet kAllDtypes = kRealDtypes | DtypeSet{ScalarType::kBool};

// Integer types quantized tensors use (quantized_decomposed ops).
inline constexpr DtypeSet kQuantizedDtypes{ScalarType::kByte, ScalarType::kChar, ScalarType::kShort,
                                           ScalarType::kInt};
// Weights of the byte-quantized embedding.
inline constexpr DtypeSet kByteWeightDtypes{ScalarType::kChar, ScalarType::kByte};
// Types a kernel that only moves elements (by size) accepts: every basic
// type plus the 16-bit floats and unsigned integers programs carry.
inline constexpr DtypeSet kCopyableDtypes =
    kAllDtypes | DtypeSet{ScalarType::kHalf, ScalarType::kBFloat16, ScalarType::kUInt16,
                          ScalarType::kUInt32, ScalarType::kUInt64};

// The dtype of the first tensor among `args` (see above); false if no
// argument is or holds a tensor.
bool FirstTensorDtype(Span<EValue* const> args, ScalarType* dtype);

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_DTYPE_SET_H_
