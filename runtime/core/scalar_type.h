// Element types of tensors. Values match the .pte schema (and c10).

#ifndef EDGEFLEET_RUNTIME_CORE_SCALAR_TYPE_H_
#define EDGEFLEET_RUNTIME_CORE_SCALAR_TYPE_H_

#include <cstddef>
#include <cstdint>

namespace edgefleet {

enum class ScalarType : int8_t {
  kByte = 0,    // uint8
  kChar = 1,    // int8
  kShort = 2,   // int16
  kInt = 3,     // int32
  kLong = 4,    // int64
  kHalf = 5,    // float16
  kFloat = 6,   // float32
  kDouble = 7,  // float64
  kBool = 11,
  kQInt8 = 12,
  kQUInt8 = 13,
  kQInt32 = 14,
  kBFloat16 = 15,
  kQUInt4x2 = 16,
  kQUInt2x4 = 17,
  kBits16 = 22,
  kFloat8e5m2 = 23,
  kFloat8e4m3fn = 24,
  kFloat8e5m2fnuz = 25,
  kFloat8e4m3fnuz = 26,
  kUInt16 = 27,
  kUInt32 = 28,
  kUInt64 = 29,
};

// True if `value` names one of the types above.
bool IsValidScalarType(int value);

// Bytes per element. REQUIRES: IsValidScalarType(type).
size_t ElementSize(ScalarType type);

// NumPy-style name ("float32", "int64", "bool", ...).
const char* ScalarTypeName(ScalarType type);

inline bool IsFloatingType(ScalarType t) {
  return t == ScalarType::kFloat || t == ScalarType::kDouble || t == ScalarType::kHalf ||
         t == ScalarType::kBFloat16;
}
inline bool IsIntegralType(ScalarType t, bool include_bool) {
  switch (t) {
    case ScalarType::kByte:
    case ScalarType::kChar:
    case ScalarType::kShort:
    case ScalarType::kInt:
    case ScalarType::kLong:
      return true;
    case ScalarType::kBool:
      return include_bool;
    default:
      return false;
  }
}

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_CORE_SCALAR_TYPE_H_
